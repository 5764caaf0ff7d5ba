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
from collections.abc import Sequence
from ctypes import byref
from typing import Any, Callable, Optional

from wasmtime import WasmtimeError
from wasmtime import _ffi as ffi

_VAL = ffi.wasmtime_component_val_t
_VAL_SIZE = ctypes.sizeof(_VAL)
_VAL_OF = _VAL.of.offset  # offset of the payload union inside a value

_K_BOOL = ffi.WASMTIME_COMPONENT_BOOL.value
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
_K_RESOURCE = ffi.WASMTIME_COMPONENT_RESOURCE.value

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
    lowers = [lower for _, lower in fields]
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


#: Values lowered per step of a byte list. Each step is one C-speed slice assignment that holds the GIL, then a
#: copy into wasmtime's memory that does not: between steps another thread (the event loop, while a big line's
#: call runs on a worker thread) gets the GIL within the switch interval. In one step, a 10 MB line held it
#: for ~200 ms. A step this size takes well under a millisecond, and a small line still takes one.
_BYTES_STEP = 64 * 1024


def lower_bytes(data: bytes, v: Any) -> None:
    """list<u8>: one value struct per byte, built with C-speed slice assignment instead of a Python loop,
    a step of ``_BYTES_STEP`` values at a time into one reused buffer whose kind bytes are written once."""
    n = len(data)
    raw = ffi.wasmtime_component_vallist_t()
    ffi.wasmtime_component_vallist_new_uninit(raw, n)
    if n:
        step = min(n, _BYTES_STEP)
        buf = bytearray(step * _VAL_SIZE)
        buf[0::_VAL_SIZE] = bytes((_K_U8,)) * step
        chunk = (ctypes.c_char * len(buf)).from_buffer(buf)
        source = memoryview(data)
        dest = ctypes.addressof(raw.data.contents)
        for start in range(0, n, step):
            count = min(step, n - start)
            buf[_VAL_OF : count * _VAL_SIZE : _VAL_SIZE] = source[start : start + count]
            ctypes.memmove(dest + start * _VAL_SIZE, chunk, count * _VAL_SIZE)
    v.kind = _K_LIST
    v.of.list = raw


def lower_borrow(resource: Any, v: Any) -> None:
    """borrow<R> of a resource handle (a wasmtime.component.ResourceAny): a clone of the handle, which the
    call's cleanup frees (the original stays owned by the caller)."""
    v.kind = _K_RESOURCE
    v.of.resource = ffi.wasmtime_component_resource_any_clone(resource.ptr())


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


def lift_record_text(v: Any) -> str:
    """The `text` field of a record (e.g. `redaction`); the other fields are freed unread."""
    rec = v.of.record
    for i in range(rec.size):
        entry = rec.data[i]
        if _name(entry.name) == b"text":
            return lift_string(entry.val)
    raise ValueError("the record has no text field")


_OK_LEN = len(b"ok")  # the other case is "failed": the discriminant's length tells them apart


def lift_outcome(v: Any) -> tuple[bool, Any]:
    """(True, json_text) or (False, {"code", "message", "data_json"})."""
    var = v.of.variant
    payload = var.val.contents
    if var.discriminant.size == _OK_LEN:
        s = payload.of.string
        return True, _string_at(s.data, s.size).decode("utf-8") if s.size else ""
    return False, _lift_error_object(payload)


# ---------------------------------------------------------------- calling


def _free(v: Any) -> None:
    """Frees a value and leaves a plain bool behind: wasmtime drops whatever a result slot holds before
    writing into it, so a reused slot must never keep pointers to freed memory."""
    _val_delete(byref(v))
    v.kind = _K_BOOL


# ---------------------------------------------------------------- zero-copy views over one value slot
#
# `wasmtime_component_func_call` only reads its arguments (it converts each into its own value before the
# call), so a string argument can point straight at the Python bytes object's buffer: no allocation, no copy
# and nothing to free. These structs overlay a value slot (kind byte, then the payload union at _VAL_OF) so
# that lowering one argument is two attribute stores instead of several ctypes calls.

_PAD = ctypes.c_ubyte * (_VAL_OF - 1)


class _TextArgView(ctypes.Structure):
    """A string or enum argument: (size, data) borrowed from a bytes object the caller keeps alive."""

    _fields_ = [("kind", ctypes.c_ubyte), ("_pad", _PAD), ("size", ctypes.c_size_t), ("data", ctypes.c_char_p)]


class _U64ArgView(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_ubyte), ("_pad", _PAD), ("value", ctypes.c_uint64)]


class _S64ArgView(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_ubyte), ("_pad", _PAD), ("value", ctypes.c_int64)]


class _WordsView(ctypes.Structure):
    """Any value read as raw words: a string is (size, data); a variant is (name size, name data, payload)."""

    _fields_ = [
        ("kind", ctypes.c_ubyte),
        ("_pad", _PAD),
        ("w0", ctypes.c_size_t),
        ("w1", ctypes.c_void_p),
        ("w2", ctypes.c_void_p),
    ]


def _bind_text(kind: int) -> Callable[[Any], Callable[[bytes], None]]:
    def bind(slot: Any) -> Callable[[bytes], None]:
        view = _TextArgView.from_address(ctypes.addressof(slot))
        view.kind = kind

        def lower(data: bytes) -> None:
            view.size = len(data)
            view.data = data  # keeps a reference to `data` until the next call overwrites it

        return lower

    return bind


def _bind_int(view_type: Any, kind: int) -> Callable[[Any], Callable[[int], None]]:
    def bind(slot: Any) -> Callable[[int], None]:
        view = view_type.from_address(ctypes.addressof(slot))
        view.kind = kind

        def lower(x: int) -> None:
            view.value = x

        return lower

    return bind


# Top-level parameters lowered in place (never freed); any other lowering builds wasmtime-owned memory.
_IN_PLACE: dict[Lower, Callable[[Any], Callable[[Any], None]]] = {
    lower_string: _bind_text(_K_STRING),
    lower_enum: _bind_text(_K_ENUM),
    lower_u64: _bind_int(_U64ArgView, _K_U64),
    lower_s64: _bind_int(_S64ArgView, _K_S64),
}


def _read_text(size: int, data: Optional[int]) -> str:
    if not size:
        return ""
    if data is None:  # read as it is, it would be the bytes at address 0
        raise ValueError("a non-empty string at a null address")
    return _string_at(data, size).decode("utf-8")


def _bound(low: Lower, slot: Any) -> Callable[[Any], None]:
    """`low` bound to its parameter's slot."""
    return lambda x: low(x, slot)


def _bind_lift_string(slot: Any) -> Callable[[], str]:
    view = _WordsView.from_address(ctypes.addressof(slot))
    return lambda: _read_text(view.w0, view.w1)


def _bind_lift_outcome(slot: Any) -> Callable[[], tuple[bool, Any]]:
    view = _WordsView.from_address(ctypes.addressof(slot))

    def lift() -> tuple[bool, Any]:
        if view.w0 == _OK_LEN:  # the case name's length: "ok" or "failed"
            payload = _WordsView.from_address(view.w2)
            return True, _read_text(payload.w0, payload.w1)
        return lift_outcome(slot)

    return lift


# Result liftings read through a view; any other lifting uses the ctypes structs.
_VIEW_LIFTS = {lift_string: _bind_lift_string, lift_outcome: _bind_lift_outcome}


class FastFunc:
    """One exported function with a fixed lowering per parameter and one lifting routine.

    The parameter and result slots are allocated once and reused: a FastFunc belongs to one worker, and a
    worker is used by one thread at a time (see _runtime), so no two calls ever share them.
    """

    __slots__ = ("_ctx", "_func", "_lift", "_lowers", "_n", "_owned", "_params", "_result", "_result_ref")

    def __init__(self, store: Any, func: Any, lowers: Sequence[Lower], lift: Callable[[Any], Any]) -> None:
        self._func = byref(func._func)
        self._ctx = store._context()
        self._n = len(lowers)
        self._params = (_VAL * max(self._n, 1))()
        bound: list[Callable[[Any], None]] = []
        owned: list[Any] = []
        for i, low in enumerate(lowers):
            slot = self._params[i]
            if low in _IN_PLACE:
                bound.append(_IN_PLACE[low](slot))
            else:
                bound.append(_bound(low, slot))
                owned.append(slot)
        self._lowers = tuple(bound)
        self._owned = tuple(owned)
        self._result = _VAL()
        self._result_ref = byref(self._result)
        result = self._result
        self._lift = _VIEW_LIFTS[lift](result) if lift in _VIEW_LIFTS else (lambda: lift(result))

    def __call__(self, *args: Any) -> Any:
        try:
            for low, arg in zip(self._lowers, args):
                low(arg)
            err = _call(self._func, self._ctx, self._params, self._n, self._result_ref, 1)
            if err:
                raise WasmtimeError._from_ptr(err)
            try:
                return self._lift()
            finally:
                _free(self._result)
        finally:
            # Owned arguments (records, options, byte lists) were built in wasmtime's memory. A lowering
            # that failed part-way left its own and later slots as plain values, so freeing all is safe.
            for slot in self._owned:
                _free(slot)


# ---------------------------------------------------------------- callers from the generated signatures

_LOWERS: dict[str, Lower] = {
    "string": lower_string,
    "enum": lower_enum,
    "u64": lower_u64,
    "s64": lower_s64,
    "bytes": lower_bytes,
    "borrow": lower_borrow,
}
_LIFTS: dict[str, Callable[[Any], Any]] = {
    "string": lift_string,
    "outcome": lift_outcome,
    "record-text": lift_record_text,
}


def _lowering(desc: Any) -> Lower:
    if isinstance(desc, str):
        return _LOWERS[desc]
    tag, inner = desc
    if tag == "option":
        return option(_lowering(inner))
    if tag == "record":
        return record([(name, _lowering(d)) for name, d in inner])
    raise ValueError(f"no lowering for {desc!r}")


def make_caller(store: Any, func: Any, params: Sequence[Any], result: str, method: bool = False) -> FastFunc:
    """A caller for one export from its generated signature (_signatures.py); `method`: the first argument
    is the resource handle."""
    lowers = [_lowering(d) for d in params]
    if method:
        lowers = [lower_borrow, *lowers]
    return FastFunc(store, func, lowers, _LIFTS[result])


# The C API this module writes to, beyond the module-level names above (an import that lacks one of those
# fails already): the value union's members and the functions called at run time.
_UNION_MEMBERS = (
    "u32",
    "s32",
    "u64",
    "s64",
    "string",
    "enumeration",
    "option",
    "record",
    "list",
    "variant",
    "resource",
)
_FUNCTIONS = (
    "wasmtime_component_valrecord_t",
    "wasmtime_component_valrecord_new_uninit",
    "wasmtime_component_vallist_t",
    "wasmtime_component_vallist_new_uninit",
    "wasmtime_component_resource_any_clone",
)


def check() -> None:
    """Raises ImportError unless wasmtime-py's internals are what this module writes to (the value struct's
    layout, its union's members, the C functions): another wasmtime-py then gets the public API (slower,
    never wrong) instead of corrupted memory."""
    missing = [m for m in _UNION_MEMBERS if not hasattr(_VAL().of, m)]
    missing += [f for f in _FUNCTIONS if not hasattr(ffi, f)]
    if missing:
        raise ImportError(f"wasmtime._ffi lacks {', '.join(missing)}")
    if _VAL_OF < 1 or _VAL_SIZE < _VAL_OF + 3 * ctypes.sizeof(ctypes.c_void_p):
        raise ImportError(f"unexpected wasmtime_component_val_t layout (payload at {_VAL_OF}, size {_VAL_SIZE})")
    for kind in (
        _K_BOOL,
        _K_U8,
        _K_S64,
        _K_U64,
        _K_U32,
        _K_STRING,
        _K_LIST,
        _K_RECORD,
        _K_VARIANT,
        _K_ENUM,
        _K_OPTION,
        _K_RESOURCE,
    ):
        if not 0 <= kind < 256:
            raise ImportError(f"value kind {kind} does not fit the kind byte")
