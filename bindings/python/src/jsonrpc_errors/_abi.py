"""Thin, cached marshalling for the component's functions on wasmtime-py's C API.

wasmtime-py's generic ``Func.__call__`` re-reads the function type and walks every type on each call
(45-160+ µs). The component's signatures are fixed by ``wit/world.wit``, so each function gets one
prebuilt lowering/lifting routine here: strings, integers, enums, options, small records and byte
lists are written straight into ``wasmtime_component_val_t`` structs, and every result is read and then
freed with one recursive ``wasmtime_component_val_delete``.

This module only converts values; it never interprets them. It relies on the C API exposed by
``wasmtime._ffi`` of the pinned wasmtime major version (see pyproject.toml).
"""

from __future__ import annotations

import ctypes
from ctypes import byref
from typing import Any, Callable, Optional, Sequence

from wasmtime import WasmtimeError
from wasmtime import _ffi as ffi

_VAL = ffi.wasmtime_component_val_t
_VAL_SIZE = ctypes.sizeof(_VAL)
_VAL_OF = _VAL.of.offset  # offset of the payload union inside a value

_K_U8 = ffi.WASMTIME_COMPONENT_U8.value
_K_S64 = ffi.WASMTIME_COMPONENT_S64.value
_K_U64 = ffi.WASMTIME_COMPONENT_U64.value
_K_U32 = ffi.WASMTIME_COMPONENT_U32.value
_K_STRING = ffi.WASMTIME_COMPONENT_STRING.value
_K_LIST = ffi.WASMTIME_COMPONENT_LIST.value
_K_RECORD = ffi.WASMTIME_COMPONENT_RECORD.value
_K_VARIANT = ffi.WASMTIME_COMPONENT_VARIANT.value
_K_ENUM = ffi.WASMTIME_COMPONENT_ENUM.value
_K_OPTION = ffi.WASMTIME_COMPONENT_OPTION.value

# wasm_byte_vec_new(out, len, data) with `data` taken straight from a Python bytes object (no extra copy).
_byte_vec_new = ctypes.CFUNCTYPE(None, ctypes.POINTER(ffi.wasm_byte_vec_t), ctypes.c_size_t, ctypes.c_char_p)(
    ("wasm_byte_vec_new", ffi.dll)
)
_string_at = ctypes.string_at
_call = ffi.wasmtime_component_func_call
_val_delete = ffi.wasmtime_component_val_delete
_val_new = ffi.wasmtime_component_val_new

Lower = Callable[[Any, Any], None]  # (python value, destination _VAL) -> None


# ---------------------------------------------------------------- lowering (values must be pre-validated)


def lower_string(data: bytes, v: Any) -> None:
    """`data` is the UTF-8 encoding of the string (encoded by the caller, so lowering cannot fail)."""
    v.kind = _K_STRING
    _byte_vec_new(byref(v.of.string), len(data), data)


def lower_enum(name: bytes, v: Any) -> None:
    v.kind = _K_ENUM
    _byte_vec_new(byref(v.of.enumeration), len(name), name)


def lower_u64(x: int, v: Any) -> None:
    v.kind = _K_U64
    v.of.u64 = x


def lower_s64(x: int, v: Any) -> None:
    v.kind = _K_S64
    v.of.s64 = x


def option(inner: Lower) -> Lower:
    def lower_option(x: Any, v: Any) -> None:
        v.kind = _K_OPTION
        if x is None:
            v.of.option = None
        else:
            tmp = _VAL()
            inner(x, tmp)
            v.of.option = _val_new(byref(tmp))  # moves `tmp` into a boxed value

    return lower_option


def record(fields: Sequence[tuple[str, Lower]]) -> Lower:
    """A record lowered from a tuple of field values in WIT order."""
    names = [n.encode() for n, _ in fields]
    lowers = [l for _, l in fields]
    n = len(fields)

    def lower_record(values: Sequence[Any], v: Any) -> None:
        raw = ffi.wasmtime_component_valrecord_t()
        ffi.wasmtime_component_valrecord_new_uninit(raw, n)
        data = raw.data
        for i in range(n):
            entry = data[i]
            _byte_vec_new(byref(entry.name), len(names[i]), names[i])
            entry.val.kind = 0  # a valid (bool) value until lowered
            lowers[i](values[i], entry.val)
        v.kind = _K_RECORD
        v.of.record = raw

    return lower_record


def lower_bytes(data: bytes, v: Any) -> None:
    """list<u8>: one value struct per byte, built with C-speed slice assignment instead of a Python loop."""
    n = len(data)
    raw = ffi.wasmtime_component_vallist_t()
    ffi.wasmtime_component_vallist_new_uninit(raw, n)
    if n:
        buf = bytearray(n * _VAL_SIZE)
        buf[0::_VAL_SIZE] = bytes((_K_U8,)) * n
        buf[_VAL_OF::_VAL_SIZE] = data
        ctypes.memmove(raw.data, (ctypes.c_char * len(buf)).from_buffer(buf), len(buf))
    v.kind = _K_LIST
    v.of.list = raw


# ---------------------------------------------------------------- lifting (read only; the caller frees)


def _name(vec: Any) -> bytes:
    return _string_at(vec.data, vec.size) if vec.size else b""


def lift_string(v: Any) -> str:
    return _name(v.of.string).decode("utf-8")


def lift_u32(v: Any) -> int:
    return int(v.of.u32)


def lift_option_string(v: Any) -> Optional[str]:
    p = v.of.option
    if not p:
        return None
    return lift_string(p.contents)


def _lift_error_object(v: Any) -> dict[str, Any]:
    rec = v.of.record
    out: dict[str, Any] = {}
    for i in range(rec.size):
        e = rec.data[i]
        name = _name(e.name).decode()
        val = e.val
        if name == "code":
            out["code"] = int(val.of.s32)
        elif name == "message":
            out["message"] = lift_string(val)
        elif name == "data-json":
            out["data_json"] = lift_option_string(val)
    return out


def lift_outcome(v: Any) -> tuple[bool, Any]:
    """(True, json_text) or (False, {"code", "message", "data_json"})."""
    var = v.of.variant
    payload = var.val.contents
    if _name(var.discriminant) == b"ok":
        return True, lift_string(payload)
    return False, _lift_error_object(payload)


# ---------------------------------------------------------------- calling


class FastFunc:
    """One exported function with a fixed lowering per parameter and one lifting routine."""

    __slots__ = ("_func", "_ctx", "_lowers", "_lift", "_n", "_params_t")

    def __init__(self, store: Any, func: Any, lowers: Sequence[Lower], lift: Callable[[Any], Any]) -> None:
        self._func = byref(func._func)
        self._ctx = store._context()
        self._lowers = tuple(lowers)
        self._lift = lift
        self._n = len(lowers)
        self._params_t = _VAL * max(self._n, 1)

    def __call__(self, *args: Any) -> Any:
        n = self._n
        params = self._params_t()
        done = 0
        try:
            for low, arg in zip(self._lowers, args):
                low(arg, params[done])
                done += 1
            result = _VAL()
            err = _call(self._func, self._ctx, params, n, byref(result), 1)
            if err:
                raise WasmtimeError._from_ptr(err)
            try:
                return self._lift(result)
            finally:
                _val_delete(byref(result))
        finally:
            for i in range(done):
                _val_delete(byref(params[i]))
