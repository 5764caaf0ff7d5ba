"""The component on wasmtime: one engine and compiled component per process, a pool of instances.

Concurrency model: a wasmtime Store (and the instance living in it) must never be entered by two threads at
once. Each call takes a worker (store + instance + prebuilt function callers) from an idle list guarded by a
lock, runs on it without holding the lock, and puts it back. Threads that find the list empty create another
worker, so N concurrent threads end up with at most N workers and no call ever waits for another call.
A worker whose call trapped is dropped (never returned to the list); the next call gets a fresh one.
"""

from __future__ import annotations

import os
import threading
import time
from importlib import resources
from typing import Any, Callable, Optional, TypeVar, cast

import wasmtime
from wasmtime import Engine, Store, WasmtimeError
from wasmtime.component import Linker, Variant

from . import _callers, _signatures
from ._cache import load_component
from ._errors import ComponentFault, InvalidInput

API = "jsonrpc-errors:core/api@0.1.0"
GUARD = "jsonrpc-errors:core/guard@0.1.0"
COMPONENT_RESOURCE = "jsonrpc-errors.wasm"
NO_ENV_VAR = "JSONRPC_ERRORS_NO_ENV"

# The exports' signatures, generated from wit/world.wit (`cargo xtask gen`): name -> (parameter descriptors,
# result descriptor), or None for an export called through wasmtime-py's generic API (richer types, rarely
# called: set-environment, kinds, map-error, refusal, max-input-bytes).
_SIGNATURES = {name: sig for name, sig in _signatures.API.items() if sig is not None}
_GENERIC = tuple(name for name, sig in _signatures.API.items() if sig is None)

# Linear memory one instance may grow to, as in the Rust host: a guest that needs more traps (and is
# replaced) instead of taking the process down.
MEMORY_LIMIT = 1024 * 1024 * 1024

# The guard session's methods (interface `guard`), the same way (parameters after the resource handle).
_GUARD_SIGNATURES = {name: sig for name, sig in _signatures.GUARD.items() if sig is not None}
_GUARD_GENERIC = tuple(name for name, sig in _signatures.GUARD.items() if sig is None)

TRAPS = (WasmtimeError, wasmtime.Trap)

_T = TypeVar("_T")


def component_bytes() -> bytes:
    return resources.files(__package__).joinpath(COMPONENT_RESOURCE).read_bytes()


class _Worker:
    __slots__ = ("env_generation", "env_kept", "fast", "generic", "instance", "store")

    def __init__(self, rt: Runtime) -> None:
        self.store = Store(rt.engine)
        self.store.set_limits(memory_size=MEMORY_LIMIT)
        self.instance = rt.linker.instantiate(self.store, rt.component)
        self.fast: dict[str, Any] = {}
        self.generic: dict[str, Any] = {}
        for name, idx in rt.export_indices.items():
            func = self.instance.get_func(self.store, idx)
            if func is None:  # pragma: no cover - the WIT contract guarantees these
                raise RuntimeError(f"component lacks export {name}")
            if name in _SIGNATURES:
                params, result = _SIGNATURES[name]
                self.fast[name] = _callers.make_caller(self.store, func, params, result)
            else:
                self.generic[name] = func
        self.env_generation = -1
        self.env_kept = 0


class Runtime:
    def __init__(self) -> None:
        t0 = time.perf_counter()
        self.engine = Engine()
        self.component, self.origin = load_component(self.engine, component_bytes())
        self.linker = Linker(self.engine)
        api = self.component.get_export_index(API)
        if api is None:
            raise RuntimeError(f"the packaged component does not export {API}")
        self.export_indices = {}
        for name in list(_SIGNATURES) + list(_GENERIC):
            idx = self.component.get_export_index(name, api)
            if idx is None:
                raise RuntimeError(f"the packaged component does not export {API}#{name}")
            self.export_indices[name] = idx
        guard = self.component.get_export_index(GUARD)
        if guard is None:
            raise RuntimeError(f"the packaged component does not export {GUARD}")
        self.guard_indices = {}
        for name in list(_GUARD_SIGNATURES) + list(_GUARD_GENERIC):
            idx = self.component.get_export_index(name, guard)
            if idx is None:
                raise RuntimeError(f"the packaged component does not export {GUARD}#{name}")
            self.guard_indices[name] = idx
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        # (generation, pairs), replaced as one object so a reader never sees a mismatched pair.
        self._env_state: tuple[int, list[tuple[str, str]]] = (0, [])
        self._internal_error: Optional[tuple[int, str]] = None
        self._max_input: Optional[int] = None
        self.load_seconds = time.perf_counter() - t0

    # ------------------------------------------------------------------ environment

    def set_environment(self, pairs: list[tuple[str, str]]) -> int:
        with self._lock:
            self._env_state = (self._env_state[0] + 1, list(pairs))
        # Applied on one worker now (to learn how many were kept); the others catch up on their next call.
        return int(self.run(lambda w: w.env_kept))

    def _sync_env(self, w: _Worker) -> None:
        gen, pairs = self._env_state
        if w.env_generation != gen:
            w.env_kept = int(w.generic["set-environment"](w.store, list(pairs)))
            w.env_generation = gen

    # ------------------------------------------------------------------ calls

    def _acquire(self) -> _Worker:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return _Worker(self)

    def _release(self, w: _Worker) -> None:
        with self._lock:
            self._idle.append(w)

    def run(self, fn: Callable[[_Worker], _T]) -> _T:
        """Runs `fn` on a worker no other thread is using. A trap discards the worker."""
        w = self._acquire()
        try:
            self._sync_env(w)
            result = fn(w)
        except TRAPS as e:
            raise self._fault() from e
        except BaseException:
            # A Python-side error before or after the call: the instance itself is intact.
            self._release(w)
            raise
        self._release(w)
        return result

    def call(self, name: str, *args: Any) -> Any:
        # `run` inlined: this is every fast call's path.
        with self._lock:
            w = self._idle.pop() if self._idle else None
        if w is None:
            w = _Worker(self)
        try:
            if w.env_generation != self._env_state[0]:
                self._sync_env(w)
            result = w.fast[name](*args)
        except TRAPS as e:
            raise self._fault() from e
        except BaseException:
            self._release(w)
            raise
        self._release(w)
        return result

    def outcome(self, name: str, *args: Any) -> str:
        ok, value = self.call(name, *args)
        if ok:
            return cast(str, value)  # the WIT result: the JSON text
        raise InvalidInput(value["code"], value["message"], value["data_json"])

    def guard_worker(self) -> _GuardWorker:
        """A worker of its own for one guard session: the session's state lives in its instance, so it is
        never pooled (and a trap ends the session)."""
        w = _Worker(self)
        self._sync_env(w)
        return _GuardWorker(self, w)

    def refused(self, tag: str, value: Any) -> InvalidInput:
        """The guest's error object for an input refused before the call it was meant for (`tag`: one of
        the WIT `input-problem` cases): every runtime words and scrubs a refusal the same way."""
        e = self.run(lambda w: w.generic["refusal"](w.store, Variant(tag, value)))
        return InvalidInput(int(e.code), str(e.message), getattr(e, "data-json"))

    def max_input_bytes(self) -> int:
        """The largest input any call takes (the guest's `max-input-bytes`), asked once."""
        if self._max_input is None:
            self._max_input = int(self.run(lambda w: w.generic["max-input-bytes"](w.store)))
        return self._max_input

    def discard_idle(self) -> None:
        with self._lock:
            self._idle.clear()

    def idle_count(self) -> int:
        with self._lock:
            return len(self._idle)

    def _fault(self) -> ComponentFault:
        # The plain internal error, as the taxonomy states it (asked of the component, on a fresh instance).
        if self._internal_error is None:
            try:
                w = _Worker(self)
                for k in w.generic["kinds"](w.store):
                    if k.name == "internal-error":
                        self._internal_error = (int(k.__dict__["canonical-code"]), str(k.message))
                        break
                self._release(w)
            except TRAPS:
                pass
        code, message = self._internal_error if self._internal_error else (-32603, "Internal error")
        return ComponentFault(code, message)


_runtime: Optional[Runtime] = None
_runtime_lock = threading.Lock()
_explicit_env: Optional[list[tuple[str, str]]] = None


def get() -> Runtime:
    rt = _runtime
    if rt is not None:
        return rt
    return _create()


def _create() -> Runtime:
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            rt = Runtime()
            if _explicit_env is not None:
                rt.set_environment(_explicit_env)
            elif os.environ.get(NO_ENV_VAR, "") in ("", "0"):
                rt.set_environment(list(os.environ.items()))
            _runtime = rt
        return _runtime


def set_environment(pairs: list[tuple[str, str]]) -> int:
    global _explicit_env
    with _runtime_lock:
        _explicit_env = pairs
        rt = _runtime
    if rt is None:
        rt = _create()  # applies _explicit_env
        return int(rt.run(lambda w: w.env_kept))
    return rt.set_environment(pairs)


class _GuardWorker:
    """A worker dedicated to one guard session, with the session methods' prebuilt callers."""

    __slots__ = ("fast", "generic", "worker")

    def __init__(self, rt: Runtime, w: _Worker) -> None:
        self.worker = w
        self.fast: dict[str, Any] = {}
        self.generic: dict[str, Any] = {}
        for name, idx in rt.guard_indices.items():
            func = w.instance.get_func(w.store, idx)
            if func is None:  # pragma: no cover - the WIT contract guarantees these
                raise RuntimeError(f"component lacks export {name}")
            if name in _GUARD_SIGNATURES:
                params, result = _GUARD_SIGNATURES[name]
                self.fast[name] = _callers.make_caller(w.store, func, params, result, method=True)
            else:
                self.generic[name] = func
