"""Named prompt templates with ``{{placeholder}}`` slots, and checked overrides.

Single braces are literal, so a template can show a JSON example as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigurationError

__all__ = ["PromptSet", "PromptTemplate", "json_object", "placeholders_of"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def placeholders_of(text: str) -> frozenset[str]:
    """The placeholder names that ``text`` uses."""
    return frozenset(_PLACEHOLDER.findall(text))


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """One named template: its text, the placeholders it must use, and what it is for.

    Example:
        >>> template = PromptTemplate("greet", "Hello {{name}}!", frozenset({"name"}), "demo")
        >>> template.render(name="Ada")
        'Hello Ada!'
    """

    name: str
    text: str
    placeholders: frozenset[str]
    description: str

    def render(self, **values: Any) -> str:
        """Fill every placeholder with ``str(values[name])``."""
        return _PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), self.text)

    def with_text(self, text: str, *, scorer: str) -> PromptTemplate:
        """Return this template with ``text`` instead, after checking its placeholders.

        Raises:
            ConfigurationError: ``text`` lacks a required placeholder or uses an unknown one.
        """
        if not isinstance(text, str):
            raise ConfigurationError(
                f"{scorer}: prompt {self.name!r} must be a string, got {type(text).__name__}"
            )
        used = placeholders_of(text)
        missing = sorted(self.placeholders - used)
        unknown = sorted(used - self.placeholders)
        wanted = ", ".join(f"{{{{{name}}}}}" for name in sorted(self.placeholders)) or "none"
        if missing:
            shown = ", ".join(f"{{{{{name}}}}}" for name in missing)
            raise ConfigurationError(
                f"{scorer}: prompt {self.name!r} is missing the placeholder {shown}; "
                f"it must use {wanted}"
            )
        if unknown:
            shown = ", ".join(f"{{{{{name}}}}}" for name in unknown)
            raise ConfigurationError(
                f"{scorer}: prompt {self.name!r} uses the unknown placeholder {shown}; "
                f"it may use {wanted}"
            )
        return PromptTemplate(self.name, text, self.placeholders, self.description)


class PromptSet(Mapping[str, str]):
    """A scorer's templates, read like a dict of name to text.

    Example:
        >>> base = {"greet": PromptTemplate("greet", "Hi {{name}}", frozenset({"name"}), "")}
        >>> PromptSet(base, {"greet": "Hello {{name}}"}, scorer="demo")["greet"]
        'Hello {{name}}'
    """

    def __init__(
        self,
        defaults: Mapping[str, PromptTemplate],
        overrides: Mapping[str, str] | None = None,
        *,
        scorer: str,
    ) -> None:
        templates = dict(defaults)
        for name, text in (overrides or {}).items():
            if name not in templates:
                raise ConfigurationError(
                    f"{scorer}: unknown prompt {name!r}; its prompts are {', '.join(templates)}"
                )
            templates[name] = templates[name].with_text(text, scorer=scorer)
        self._templates = templates
        self._defaults = dict(defaults)

    def template(self, name: str) -> PromptTemplate:
        """The template called ``name``."""
        return self._templates[name]

    def render(self, name: str, **values: Any) -> str:
        """Render the template called ``name``."""
        return self._templates[name].render(**values)

    @property
    def changed(self) -> dict[str, str]:
        """The templates that differ from the defaults, by name."""
        return {
            name: template.text
            for name, template in self._templates.items()
            if template.text != self._defaults[name].text
        }

    def describe(self) -> dict[str, str]:
        """What each template is for, by name."""
        return {name: template.description for name, template in self._templates.items()}

    def __getitem__(self, name: str) -> str:
        return self._templates[name].text

    def __iter__(self) -> Any:
        return iter(self._templates)

    def __len__(self) -> int:
        return len(self._templates)

    def __repr__(self) -> str:
        return f"PromptSet({list(self._templates)})"


def json_object(properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema object requiring every property and allowing no other (strict mode)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
