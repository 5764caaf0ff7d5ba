"""Imports form a one-way stack: no module of the package reaches itself again through the modules it imports
(host/tests/module_imports.rs holds the Rust crates to the same rule, bindings/js/test/module-imports.test.mjs
the npm package).

An edge is any import of one of the package's modules, wherever it is written: at the top, inside a function
(a late import that only hides a cycle from the interpreter), or under `if TYPE_CHECKING:`. `from . import x`
is an edge to the submodule `x` when there is one, else to the package's `__init__.py` (whose names it takes).
The package a module sits in being imported first is the interpreter's doing, not the module's: no edge."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "jsonrpc_errors"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name `from <level dots><module> import …` names in `importer`."""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, is_package, node.level, node.module) if node.level else node.module or ""
                for alias in node.names:
                    child = f"{source}.{alias.name}"
                    targets.append(child if child in modules else source)
            for target in targets:
                # `import jsonrpc_errors.mcp._relay` names its parents too; the deepest module is the import.
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle, as the modules along it (the first repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(edges):
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(edges[start]))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, rest = stack[-1]
            if not rest:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = rest.pop(0)
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(edges[nxt])))
                path.append(nxt)
                on_path.add(nxt)
    return None


def test_the_package_s_imports_have_no_cycle() -> None:
    edges = _edges(_modules())
    cycle = _cycle(edges)
    assert cycle is None, "an import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_and_its_edges_are_read() -> None:
    # The finder itself, so that the test above cannot pass by finding nothing.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    edges = _edges(_modules())
    assert "jsonrpc_errors._guard" in edges["jsonrpc_errors.mcp._relay"]
    assert "jsonrpc_errors._runtime" in edges["jsonrpc_errors.mcp._relay"]  # `from .. import _runtime`
    assert "jsonrpc_errors._taxonomy" in edges["jsonrpc_errors"]
