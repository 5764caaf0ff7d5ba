"""Compiled-component cache: `Component.serialize` output on disk, keyed by wasmtime version and component hash.

File format: MAGIC + sha256(payload) + payload. A file whose magic or checksum does not match (a torn or
corrupted write, another tool's file) is never handed to `Component.deserialize`, which trusts its input;
it is recompiled and rewritten. Writes go to a temporary file in the same directory and are published with
`os.replace`, so concurrent writers and readers only ever see complete files.

Directory: $JSONRPC_ERRORS_CACHE_DIR, else $XDG_CACHE_HOME/jsonrpc-errors, else ~/.cache/jsonrpc-errors.
Set JSONRPC_ERRORS_CACHE_DIR to "off" (or an empty string) to disable the cache.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Optional

import wasmtime
from wasmtime import Engine, WasmtimeError
from wasmtime.component import Component

MAGIC = b"JSONRPC-ERRORS-CWASM-1\n"
_DIGEST = 32
ENV_VAR = "JSONRPC_ERRORS_CACHE_DIR"


def cache_dir() -> Optional[Path]:
    explicit = os.environ.get(ENV_VAR)
    if explicit is not None:
        if explicit.strip() in ("", "off", "0", "none"):
            return None
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "jsonrpc-errors"


def wasmtime_version() -> str:
    # The installed distribution's dist-info directory names the version. Looked up directly because
    # importing importlib.metadata alone costs ~30 ms of the cold start; it remains the fallback.
    site = Path(wasmtime.__file__).resolve().parent.parent
    for info in site.glob("wasmtime-*.dist-info"):
        return info.name[len("wasmtime-") : -len(".dist-info")]
    from importlib import metadata  # the fallback only: its import costs what the lookup above saves

    try:
        return metadata.version("wasmtime")
    except metadata.PackageNotFoundError:  # pragma: no cover - wasmtime installed without metadata
        return "unknown"


def cache_path(component_bytes: bytes, directory: Optional[Path] = None) -> Optional[Path]:
    d = directory if directory is not None else cache_dir()
    if d is None:
        return None
    digest = hashlib.sha256(component_bytes).hexdigest()[:24]
    import platform  # here, not at import: only a cold start with a cache needs it

    key = f"wasmtime-{wasmtime_version()}-{sys.platform}-{platform.machine()}-{digest}.cwasm"
    return d / key


def _read_verified(path: Path) -> Optional[bytes]:
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + _DIGEST
    if len(blob) <= head or not blob.startswith(MAGIC):
        return None
    payload = blob[head:]
    if hashlib.sha256(payload).digest() != blob[len(MAGIC) : head]:
        return None
    return payload


def _write_atomic(path: Path, payload: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError:
        return  # an unwritable cache directory only costs a recompile next time
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC)
            f.write(hashlib.sha256(payload).digest())
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def load_component(engine: Engine, component_bytes: bytes) -> tuple[Component, str]:
    """The compiled component and where it came from: "cache", "compiled" or "compiled-uncached"."""
    path = cache_path(component_bytes)
    if path is not None:
        payload = _read_verified(path)
        if payload is not None:
            try:
                return Component.deserialize(engine, payload), "cache"
            except WasmtimeError:
                pass  # e.g. produced by an incompatible engine configuration: rebuild below
    component = Component(engine, component_bytes)
    if path is None:
        return component, "compiled-uncached"
    _write_atomic(path, bytes(component.serialize()))
    return component, "compiled"
