"""The compiled-component cache: written atomically, reused, and rebuilt when corrupted."""

import os
import subprocess
import sys
import textwrap

import pytest
from wasmtime import Engine

from jsonrpc_errors import _cache, _runtime

PROBE = textwrap.dedent(
    """
    import json, jsonrpc_errors as j
    out = j.map_error({"kind": "timeout", "id": 1}, context=(0, 0))
    print(json.dumps({"origin": j._runtime.get().origin, "code": out["error"]["code"]}))
    """
)


def _probe(cache_dir):
    env = dict(os.environ, JSONRPC_ERRORS_CACHE_DIR=str(cache_dir), JSONRPC_ERRORS_NO_ENV="1")
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    import json

    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def wasm():
    return _runtime.component_bytes()


def _only_file(d):
    files = [p for p in d.iterdir() if p.suffix == ".cwasm"]
    assert len(files) == 1, files
    assert not [p for p in d.iterdir() if p.name.endswith(".tmp")]
    return files[0]


def test_cache_written_then_reused(tmp_path):
    assert _probe(tmp_path)["origin"] == "compiled"
    f = _only_file(tmp_path)
    assert _cache.wasmtime_version() in f.name
    assert _probe(tmp_path)["origin"] == "cache"


@pytest.mark.parametrize("damage", ["flip-payload", "truncate", "garbage", "empty"])
def test_corrupted_cache_is_rebuilt(tmp_path, damage):
    _probe(tmp_path)
    f = _only_file(tmp_path)
    blob = bytearray(f.read_bytes())
    if damage == "flip-payload":
        blob[len(blob) // 2] ^= 0xFF
    elif damage == "truncate":
        blob = blob[: len(blob) // 3]
    elif damage == "garbage":
        blob = bytearray(b"\x00not a cwasm" * 100)
    else:
        blob = bytearray()
    f.write_bytes(bytes(blob))
    r = _probe(tmp_path)
    assert r == {"origin": "compiled", "code": r["code"]} and r["code"] < 0
    assert _probe(tmp_path)["origin"] == "cache"  # the rebuilt file is valid


def test_valid_checksum_but_undeserializable_is_rebuilt(tmp_path, wasm, monkeypatch):
    monkeypatch.setenv("JSONRPC_ERRORS_CACHE_DIR", str(tmp_path))
    path = _cache.cache_path(wasm)
    _cache._write_atomic(path, b"checksummed but not a serialized component")
    _, origin = _cache.load_component(Engine(), wasm)
    assert origin == "compiled"
    assert _cache._read_verified(path) is not None and len(path.read_bytes()) > 1000


def test_cache_disabled(tmp_path, wasm, monkeypatch):
    monkeypatch.setenv("JSONRPC_ERRORS_CACHE_DIR", "off")
    assert _cache.cache_path(wasm) is None


def test_concurrent_cold_starts(tmp_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROBE],
            env=dict(os.environ, JSONRPC_ERRORS_CACHE_DIR=str(tmp_path), JSONRPC_ERRORS_NO_ENV="1"),
            stdout=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for p in procs:
        assert p.wait() == 0
    _only_file(tmp_path)
    assert _probe(tmp_path)["origin"] == "cache"
