"""jsonrpc-errors: the canonical JSON-RPC 2.0 error layer (a WebAssembly component) for Python.

Every function runs the packaged component on wasmtime; this package only converts arguments and results.
The engine, compiled component and instance pool are created lazily on first use and shared by all threads.

Environment scrubbing: on first use the component is handed this process's environment (``os.environ``);
it keeps only the secret-looking variables (by name) and redacts their values from all output. Opt out with
``JSONRPC_ERRORS_NO_ENV=1`` or by calling ``set_environment({})`` (or your own mapping) before or after.
"""

from __future__ import annotations

from ._args import Context
from ._environment import set_environment
from ._errors import ArgumentTypeError, ComponentFault, InvalidInput, JsonRpcErrorsError, JsonRpcErrorsValueError
from ._guard import GuardSession, PolicyDefaults, check_policy
from ._guard import Outcome as GuardOutcome
from ._guard import Step as GuardStep
from ._lookup import codes, explain, explain_json, kinds, kinds_json, lookup_kind
from ._map import JsonRpcError, map_error, map_error_json
from ._redact import (
    Finding,
    JsonFinding,
    JsonRedaction,
    Redaction,
    redact,
    redact_details,
    redact_json,
    redact_json_value,
    redact_json_value_json,
    redact_many,
    redact_with,
    redact_with_json,
)
from ._redaction_schema import ExtraRule, RedactionMethod, RedactionOptions
from ._server import error_response
from ._taxonomy import DEFAULT_MAX_BYTES, KINDS, TAXONOMY_VERSION, Dialect, ErrorKind, KindInfo
from ._validate import sanitize, sanitize_json, validate, validate_json

__all__ = [
    "DEFAULT_MAX_BYTES",
    "KINDS",
    "TAXONOMY_VERSION",
    "ArgumentTypeError",
    "ComponentFault",
    "Context",
    "Dialect",
    "ErrorKind",
    "ExtraRule",
    "Finding",
    "GuardOutcome",
    "GuardSession",
    "GuardStep",
    "InvalidInput",
    "JsonFinding",
    "JsonRedaction",
    "JsonRpcError",
    "JsonRpcErrorsError",
    "JsonRpcErrorsValueError",
    "KindInfo",
    "PolicyDefaults",
    "Redaction",
    "RedactionMethod",
    "RedactionOptions",
    "check_policy",
    "codes",
    "error_response",
    "explain",
    "explain_json",
    "kinds",
    "kinds_json",
    "lookup_kind",
    "map_error",
    "map_error_json",
    "redact",
    "redact_details",
    "redact_json",
    "redact_json_value",
    "redact_json_value_json",
    "redact_many",
    "redact_with",
    "redact_with_json",
    "sanitize",
    "sanitize_json",
    "set_environment",
    "validate",
    "validate_json",
]


def __dir__() -> list[str]:
    """The public API only (`__all__`): not the typing helpers and modules this one imports. The submodules
    `jsonrpc_errors.logging`, `.prometheus` and `.mcp` are imported by name (the last two need extras)."""
    return sorted(__all__)
