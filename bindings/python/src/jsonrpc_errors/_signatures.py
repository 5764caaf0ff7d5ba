# Generated from wit/world.wit by `cargo xtask gen`; do not edit.
"""How each export is called (see xtask/src/pysig.rs): parameter descriptors after the resource
handle, and the result's; None: through wasmtime-py's generic API."""

from typing import Any, Optional

API: dict[str, Optional[tuple[tuple[Any, ...], str]]] = {
    "set-environment": None,
    "map-error": None,
    "map-error-json": (("string", "enum", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "outcome"),
    "validate": (("bytes", ("record", (("max-bytes", ("option", "u64")), ("batch", "enum"), ("content-type", ("option", "string")), ("content-length", ("option", "u64")), ("dialect", "enum"),)), ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "outcome"),
    "sanitize": (("bytes", "enum", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "outcome"),
    "validate-text": (("string", ("record", (("max-bytes", ("option", "u64")), ("batch", "enum"), ("content-type", ("option", "string")), ("content-length", ("option", "u64")), ("dialect", "enum"),)), ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "outcome"),
    "sanitize-text": (("string", "enum", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "outcome"),
    "redact": (("string",), "record-text"),
    "redact-json": (("string",), "string"),
    "redact-with": (("string", "string"), "outcome"),
    "redact-json-value": (("string", "string"), "outcome"),
    "explain": (("enum", "s64"), "outcome"),
    "lookup-kind": (("enum", "s64", ("option", "string"), ("option", "string")), "outcome"),
    "kinds": None,
    "kinds-json": ((), "string"),
    "codes": ((("option", "enum"), "enum"), "string"),
    "refusal": None,
    "max-input-bytes": None,
}

GUARD: dict[str, Optional[tuple[tuple[Any, ...], str]]] = {
    "check-policy": None,
    "[constructor]session": None,
    "[method]session.settings": ((), "string"),
    "[method]session.client-line": (("bytes", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.client-line-on": (("u64", "bytes", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.set-policy": None,
    "[method]session.stream-closed": (("u64", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.client-oversize": (("u64", "bytes", "bytes", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.upstream-line": (("bytes", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.client-line-outcome": None,
    "[method]session.client-line-on-outcome": None,
    "[method]session.upstream-line-outcome": None,
    "[method]session.lines-outcome": None,
    "[method]session.upstream-oversize": (("u64", "bytes", "bytes", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.upstream-failed": None,
    "[method]session.upstream-request-failed": None,
    "[method]session.upstream-exchange-ended": (("string", ("record", (("unix-millis", "u64"), ("entropy", "u64"),))), "string"),
    "[method]session.expire": ((("record", (("unix-millis", "u64"), ("entropy", "u64"),)),), "string"),
    "[method]session.upstream-stderr": (("bytes",), "string"),
    "[method]session.upstream-stderr-end": ((), "string"),
    "[method]session.upstream-log": (("string",), "string"),
}
