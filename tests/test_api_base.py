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
