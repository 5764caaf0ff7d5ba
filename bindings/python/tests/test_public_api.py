"""Each public module's API is its `__all__`: `dir()` shows exactly that (no typing helpers, no imported
modules or SDK names), every name in it exists, and nothing the module defines publicly is left out of it."""

import importlib
import inspect
import pkgutil
import subprocess
import sys

import pytest

MODULES = ["jsonrpc_errors", "jsonrpc_errors.logging", "jsonrpc_errors.prometheus", "jsonrpc_errors.mcp"]


def _public(names):
    return {n for n in names if not n.startswith("_")}


@pytest.mark.parametrize("name", MODULES)
def test_dir_shows_exactly_the_public_api(name):
    module = importlib.import_module(name)
    assert len(module.__all__) == len(set(module.__all__)), "a name is listed twice in __all__"
    assert _public(dir(module)) == set(module.__all__)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"__all__ names what {name} does not have: {missing}"


@pytest.mark.parametrize("name", MODULES)
def test_every_public_function_and_class_defined_here_is_in_all(name):
    module = importlib.import_module(name)
    # A package's private modules (jsonrpc_errors.mcp._relay, ...) define its API: theirs counts as its own.
    here = [module]
    if hasattr(module, "__path__") and name != "jsonrpc_errors":
        here += [importlib.import_module(f"{name}.{m.name}") for m in pkgutil.iter_modules(module.__path__)]
    defined = {
        n
        for m in here
        for n, v in vars(m).items()
        if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", None) == m.__name__
    }
    assert defined <= set(module.__all__), f"public but not in __all__: {sorted(defined - set(module.__all__))}"


def test_the_mcp_modules_import_one_way():
    # The adapter's modules form a stack: none imports a module that imports it back (see mcp/__init__.py).
    import ast
    from pathlib import Path

    package = Path(importlib.import_module("jsonrpc_errors.mcp").__file__).parent
    imports = {}
    for path in package.glob("_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports[path.stem] = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
        }

    def reaches(start, goal, seen=()):
        return any(m == goal or (m not in seen and reaches(m, goal, (*seen, m))) for m in imports.get(start, ()))

    cycles = sorted(m for m in imports if reaches(m, m))
    assert not cycles, f"import cycle through {cycles}: {imports}"


@pytest.mark.parametrize("name", MODULES)
def test_star_import_gives_the_whole_api(name):
    # A fresh interpreter: `from m import *` binds every name of __all__ and nothing public besides.
    code = (
        f"from {name} import *\n"
        f"import {name} as m\n"
        "public = {n for n in globals() if not n.startswith('_')} - {'m'}\n"
        "assert public == set(m.__all__), sorted(public ^ set(m.__all__))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
