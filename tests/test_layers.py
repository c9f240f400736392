"""The package's layers, read from its imports (those inside functions too), and its module sizes.

The layers are folders: records, _internal and errors at the bottom, then judge -> scorers ->
runner -> meta -> views (plots, widgets, report) -> cli. Each imports only the layers before it
(or its own), no modules import each other in a circle, and no module imports a private module
or a private name of another package, with two exceptions: any module may import from
``evaltoolkit._internal``, the helpers shared by every layer (files, HTML, secrets, blocking
calls, options, reading files), and from a package's ``_internal`` module
(``evaltoolkit.judge._internal``, ``evaltoolkit.scorers._internal``, ...), where a package hands
the other layers the helpers that are not its public surface (the layer rule still holds: only a
package below may be reached). Within a package its private modules may import each other.

No module is over 900 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import evaltoolkit

PACKAGE = Path(evaltoolkit.__file__).parent

# Each layer is a list of folders (packages) and modules; a module is in the layer of the package
# or module that holds it.
LAYERS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (6, ("evaltoolkit.cli", "evaltoolkit.__main__")),
    (5, ("evaltoolkit.plots", "evaltoolkit.widgets", "evaltoolkit.report")),
    (4, ("evaltoolkit.meta",)),
    (3, ("evaltoolkit.runner",)),
    (2, ("evaltoolkit.scorers",)),
    (1, ("evaltoolkit.judge",)),
    (
        0,
        (
            "evaltoolkit.records",
            "evaltoolkit._internal",
            "evaltoolkit.errors",
            "evaltoolkit._version",
            "evaltoolkit.messages",  # deprecated: hands records.messages on for one release
        ),
    ),
)
SHARED = "evaltoolkit._internal"  # the helpers every layer may import
PACKAGE_INTERNAL = (
    "_internal"  # evaltoolkit.<package>._internal: a package's helpers for the others
)
MAX_LINES = 900
# Modules still over MAX_LINES, with their length when listed: the list can only shrink.
FACADE = "evaltoolkit"  # the package root only hands names on; nothing inside imports it


def _modules() -> dict[str, tuple[Path, bool]]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = (path, is_package)
    return modules


MODULES = _modules()


def _imports(name: str) -> list[tuple[str, str, int]]:
    """``(module imported, name taken from it or "", line)`` for every import in ``name``."""
    path, is_package = MODULES[name]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, "", node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in MODULES:
                    found.append((submodule, "", node.lineno))
                else:
                    found.append((source, alias.name, node.lineno))
    return [(module, taken, line) for module, taken, line in found if module in MODULES]


GRAPH = {name: _imports(name) for name in MODULES}


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _layer(name: str) -> int:
    if name == FACADE:
        return 7
    for layer, places in LAYERS:
        if any(_inside(name, place) for place in places):
            return layer
    raise AssertionError(f"{name} is in no layer: add its folder to LAYERS")


def _owner_of_private(name: str) -> str | None:
    """The package a private module belongs to, or None for a public module (or a shared one)."""
    if _inside(name, SHARED):
        return None
    parts = name.split(".")
    if len(parts) == 3 and parts[2] == PACKAGE_INTERNAL:
        return None
    for position, part in enumerate(parts[1:], start=1):
        if part.startswith("_") and part != "__main__":
            return ".".join(parts[:position])
    return None


def test_imports_inside_functions_are_read() -> None:
    assert len(MODULES) > 40
    imported = {target for target, _, _ in GRAPH["evaltoolkit.runner._evals"]}
    # The second is imported inside arun_evals, only for a run on a cluster.
    assert {"evaltoolkit.runner._item_loop", "evaltoolkit.runner._distributed"} <= imported


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_runs_up_a_layer(name: str) -> None:
    upward = [
        f"line {line}: {target} (layer {_layer(target)})"
        for target, _, line in GRAPH[name]
        if _layer(target) > _layer(name)
    ]
    assert not upward, f"{name} (layer {_layer(name)}) imports {upward}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_module_or_name_of_another_package(name: str) -> None:
    reached = []
    for target, taken, line in GRAPH[name]:
        owner = _owner_of_private(target) or target.rpartition(".")[0]
        if _owner_of_private(target) and not _inside(name, owner):
            reached.append(f"line {line}: module {target}")
        elif taken.startswith("_") and taken != "__version__":
            package = target if MODULES[target][1] else target.rpartition(".")[0]
            if not _inside(name, package):
                reached.append(f"line {line}: {target}.{taken}")
    assert not reached, f"{name} reaches into {reached}"


def test_no_import_cycle() -> None:
    edges = {name: {target for target, _, _ in GRAPH[name]} - {name} for name in MODULES}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for target in sorted(edges[name]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target] if target in path else [name, target]
            if target not in state:
                cycle = visit(target, [*path, target])
                if cycle:
                    return cycle
        state[name] = 2
        return None

    for name in sorted(MODULES):
        if name not in state:
            cycle = visit(name, [name])
            assert cycle is None, " -> ".join(cycle)


def test_every_module_is_in_a_layer() -> None:
    assert {_layer(name) for name in MODULES} == {0, 1, 2, 3, 4, 5, 6, 7}


def test_any_module_may_import_shared_helpers_and_package_internals_only() -> None:
    assert _owner_of_private("evaltoolkit._internal.files") is None
    assert _owner_of_private("evaltoolkit.runner._item_loop") == "evaltoolkit.runner"
    assert _owner_of_private("evaltoolkit.records._results") == "evaltoolkit.records"
    assert _owner_of_private("evaltoolkit.judge._internal") is None
    assert _owner_of_private("evaltoolkit.judge._cache") == "evaltoolkit.judge"
    assert _owner_of_private("evaltoolkit.scorers._offline._internal") == "evaltoolkit.scorers"
    shared_users = {
        name for name in MODULES for target, _, _ in GRAPH[name] if _inside(target, SHARED)
    }
    assert {"evaltoolkit.judge._cache", "evaltoolkit.runner._evals"} <= shared_users
    internal_users = {
        name
        for name in MODULES
        for target, _, _ in GRAPH[name]
        if target == "evaltoolkit.judge._internal"
    }
    assert {"evaltoolkit.runner._estimate", "evaltoolkit.cli._cache"} <= internal_users


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_no_module_is_over_900_lines() -> None:
    over = {
        _relative(path): _lines(path) for path, _ in MODULES.values() if _lines(path) > MAX_LINES
    }
    assert not over, f"split these under {MAX_LINES} lines: {over}"
