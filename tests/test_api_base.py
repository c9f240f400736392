"""A base URL without a scheme and a host is refused when the judge is set up."""

from __future__ import annotations

import pytest

from evaltoolkit.cli import main
from evaltoolkit.errors import ConfigurationError
from evaltoolkit.judge import JudgeConfig, create_judge


@pytest.mark.parametrize("api_base", ["notaurl", "", "ftp://host/v1", "http://", "http://h:port"])
def test_a_base_url_without_scheme_and_host_is_a_configuration_error(api_base: str) -> None:
    with pytest.raises(ConfigurationError, match=r"api_base must be an http:// or https:// URL"):
        JudgeConfig(model="openai/x", api_base=api_base)
    with pytest.raises(ConfigurationError, match="api_base"):
        create_judge("openai/x", api_base=api_base, cache=False)


def test_a_host_without_scheme_gets_the_url_it_probably_meant() -> None:
    with pytest.raises(ConfigurationError, match=r"did you mean 'http://127.0.0.1:8011/v1'\?"):
        JudgeConfig(model="openai/local", api_base="127.0.0.1:8011/v1")


@pytest.mark.parametrize("api_base", ["http://127.0.0.1:8011/v1", "https://api.example.com"])
def test_urls_with_scheme_and_host_are_accepted(api_base: str) -> None:
    assert JudgeConfig(model="openai/x", api_base=api_base).api_base == api_base


def test_the_command_line_refuses_it_before_any_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        [
            "run",
            "data/demo_answers.jsonl",
            "--scorer",
            "answer-similarity",
            "--model",
            "openai/x",
            "--api-base",
            "notaurl",
            "--no-cache",
            "--no-progress",
        ]
    )
    captured = capsys.readouterr()
    assert status == 2
    assert "--api-base must be an http:// or https:// URL" in captured.err
    assert "'notaurl'" in captured.err
    assert "scored" not in captured.out and "failed" not in captured.out


@pytest.mark.parametrize(
    "api_base",
    ["http://user:hunter2pass@127.0.0.1:8011/v1", "http://hunter2pass@127.0.0.1:8011/v1"],
)
def test_a_user_name_or_password_in_the_base_url_is_refused_without_showing_it(
    api_base: str,
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        JudgeConfig(model="openai/x", api_base=api_base)

    message = str(raised.value)
    assert "api_base holds a user name or password" in message
    assert "hunter2pass" not in message
    assert "127.0.0.1:8011/v1" in message
    assert "api_key=" in message
    command_line = raised.value.command_line or ""
    assert command_line.startswith("--api-base holds a user name or password")
    assert "api_key=" not in command_line and "OPENAI_API_KEY" in command_line
    assert "hunter2pass" not in command_line


@pytest.mark.parametrize(
    "api_base",
    ["http://127.0.0.1:8011/v1?api-key=hunter2pass", "http://127.0.0.1:8011/v1#hunter2pass"],
)
def test_a_query_or_fragment_in_the_base_url_is_refused(api_base: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        JudgeConfig(model="openai/x", api_base=api_base)

    message = str(raised.value)
    assert "hunter2pass" not in message
    assert "would be sent to" in message and "chat/completions" in message
    assert "http://127.0.0.1:8011/v1" in message


def test_the_command_line_refuses_a_password_in_the_url_and_prints_no_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        [
            "run",
            "data/demo_answers.jsonl",
            "--scorer",
            "answer-similarity",
            "--model",
            "openai/x",
            "--api-base",
            "http://me:hunter2pass@127.0.0.1:9/v1",
            "--no-cache",
            "--no-progress",
        ]
    )

    captured = capsys.readouterr()
    assert status == 2
    assert "--api-base holds a user name or password" in captured.err
    assert "hunter2pass" not in captured.out + captured.err
