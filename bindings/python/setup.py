"""Build hook: ships the component built by `cargo xtask component` as package data.

The component is copied from $JSONRPC_ERRORS_COMPONENT or ../../target/component/jsonrpc-errors.wasm (relative
to this file) into the built package; the wheel stays py3-none-any. A missing component fails the build.
"""

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
NAME = "jsonrpc-errors.wasm"


def find_component() -> Path:
    candidates = []
    if os.environ.get("JSONRPC_ERRORS_COMPONENT"):
        candidates.append(Path(os.environ["JSONRPC_ERRORS_COMPONENT"]))
    candidates.append(HERE.parent.parent / "target" / "component" / NAME)
    candidates.append(HERE / "src" / "jsonrpc_errors" / NAME)  # an sdist carries it here
    for c in candidates:
        if c.is_file():
            return c
    raise SystemExit(
        "jsonrpc-errors: the WebAssembly component was not found (looked at: "
        + ", ".join(str(c) for c in candidates)
        + "). Build it first with `cargo xtask component` in the repository root, "
        "or point JSONRPC_ERRORS_COMPONENT at a built jsonrpc-errors.wasm."
    )


class BuildPyWithComponent(build_py):
    def run(self):
        src = find_component()
        super().run()
        dest = Path(self.build_lib) / "jsonrpc_errors" / NAME
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        if getattr(self, "editable_mode", False):
            local = HERE / "src" / "jsonrpc_errors" / NAME
            if local.resolve() != src.resolve():
                shutil.copyfile(src, local)

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        dest = str(Path(self.build_lib) / "jsonrpc_errors" / NAME)
        return outputs if dest in outputs else [*outputs, dest]


setup(cmdclass={"build_py": BuildPyWithComponent})
