"""Each public module's API is its `__all__`: `dir()` shows exactly that (no typing helpers, no imported
modules or SDK names), every name in it exists, and nothing the module defines publicly is left out of it."""

import importlib
import inspect
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
    defined = {
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v)) and getattr(v, "__module__", None) == name
    }
    assert defined <= set(module.__all__), f"public but not in __all__: {sorted(defined - set(module.__all__))}"


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
