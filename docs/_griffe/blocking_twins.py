"""Document a blocking twin as the function it is, with its async twin's signature and docs.

The package makes each blocking function from its async twin at import
(``run_evals = blocking(arun_evals)``, see ``evaltoolkit._internal.sync.blocking``), so that
one is never hand-copied from the other. Read statically, such a line is a module attribute
with no parameters; the API reference would show ``run_evals`` as a variable. This extension
turns each into a function with the async twin's parameters and return type, and the
docstring ``blocking`` gives it at run time.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

from evaltoolkit._internal.sync import twin_doc

_TWIN_OF = re.compile(r"\bblocking\(\s*(\w+)\s*[,)]")


def _twins(module: griffe.Module) -> None:
    for name, member in list(module.members.items()):
        if member.is_alias:
            continue
        if isinstance(member, griffe.Module):
            _twins(member)
            continue
        if not isinstance(member, griffe.Attribute) or member.value is None:
            continue
        found = _TWIN_OF.search(str(member.value))
        twin_of = module.members.get(found.group(1)) if found else None
        if not isinstance(twin_of, griffe.Function):
            continue
        doc = twin_doc(
            twin_of.docstring.value if twin_of.docstring else "", twin_of.name, indent=""
        )
        docstring = griffe.Docstring(doc, lineno=member.lineno)
        function = griffe.Function(
            name,
            lineno=member.lineno,
            endlineno=member.endlineno,
            parameters=twin_of.parameters,
            returns=twin_of.returns,
            docstring=docstring,
        )
        function.labels = set(twin_of.labels) - {"async"}
        module.set_member(name, function)
        docstring.parent = function


class BlockingTwins(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _twins(pkg)
