"""The guard inside programs built on the official MCP Python SDK (``pip install 'jsonrpc-errors[mcp]'``).

A proxy or gateway gets exactly what ``jsonrpc-errors guard`` does, decided by the same component
(:class:`jsonrpc_errors.GuardSession`); this module only moves the SDK's messages in and out of the session,
keeps its clock and logs its events:

* :func:`guard_streams` wraps the stream pair of an SDK transport that leads to the upstream server
  (``stdio_client``, ``streamable_http_client``, the in-memory streams, ...) and returns the pair the client
  side uses (a ``ClientSession``, or a proxy's relay from a client-facing transport); :func:`guard_transport`
  does it for a whole transport, run in a task of its own so that its failure is answered, not spread.
* :func:`upstream_stderr_log` gives an upstream process a stderr whose lines are logged with secrets
  redacted (``stdio_client(params, errlog=...)``), as the Rust guard relays its upstream's stderr.
* :func:`guard_call_tool` (low-level ``Server(on_call_tool=...)``) and :func:`guard_tool` (``MCPServer``
  tool functions) answer a tool's failure as the guard answers the SDK's own reply to it
  (:func:`canonical_tool_error`): the SDK's meaning is kept (tool output stays tool output, a protocol error a
  protocol error), what leaks is scrubbed.

Events go to :mod:`logging` (logger ``jsonrpc_errors.mcp`` unless one is given): one record per event, at
the level the component gives it, with the event's fields in ``record.guard_event``. Message bodies are never
logged; an event's ``detail`` is the component's, redacted for the operator. So is every other text logged
here (a tool's exception and traceback, a transport's failure): secrets go, stack traces and paths stay.
"""

from __future__ import annotations

# The package's stack, one way: _logger and _lines at the bottom, _relay on them, _streams on _relay; _tools on
# _logger. This file only re-exports. Importing _tools wraps the SDK's ToolManager.add_tool (see there).
try:
    from ._lines import OVERSIZE_EDGE_BYTES, OversizeLine, RawLine
    from ._logger import upstream_stderr_log
    from ._relay import DEFAULT_OFFLOAD_BYTES, QUEUE_BUDGET_BYTES
    from ._streams import GuardedWriteStream, GuardOptions, guard_streams, guard_transport
    from ._tools import ServerApi, canonical_tool_error, guard_call_tool, guard_tool, guard_tools
except ImportError as missing:  # pragma: no cover - exercised in a subprocess without the SDK
    if (missing.name or "").startswith("jsonrpc_errors"):
        raise  # this package's own import failed: not the SDK's absence
    raise ImportError(
        "jsonrpc_errors.mcp needs the official MCP SDK: pip install 'jsonrpc-errors[mcp]' "
        f"(the `mcp` extra: mcp>=2.3,<3); {missing}"
    ) from missing

__all__ = [
    "DEFAULT_OFFLOAD_BYTES",
    "OVERSIZE_EDGE_BYTES",
    "QUEUE_BUDGET_BYTES",
    "GuardOptions",
    "GuardedWriteStream",
    "OversizeLine",
    "RawLine",
    "ServerApi",
    "canonical_tool_error",
    "guard_call_tool",
    "guard_streams",
    "guard_tool",
    "guard_tools",
    "guard_transport",
    "upstream_stderr_log",
]


def __dir__() -> list[str]:
    """The public API only (`__all__`), not the SDK names and helpers this module imports."""
    return sorted(__all__)
