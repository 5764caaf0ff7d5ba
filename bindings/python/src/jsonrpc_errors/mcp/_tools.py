"""Tool failures answered as the guard answers the SDK's own reply to them: :func:`canonical_tool_error`, and
the decorators :func:`guard_call_tool` (low-level ``Server``), :func:`guard_tool` and :func:`guard_tools`
(``MCPServer``). Importing this module wraps the SDK's ``ToolManager.add_tool`` (unchanged, but noting what
it registers unguarded) so that ``@guard_tool`` stacked above ``@server.tool()`` is refused."""

from __future__ import annotations

import functools
import inspect
import json
import logging
import traceback
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Optional, TypeVar, Union, cast

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedResourceError, UnexpectedToolError
from mcp.server.mcpserver.tools import ToolManager
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, CallToolRequestParams, CallToolResult, ErrorData, TextContent
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .._guard import GuardSession
from .._taxonomy import Dialect
from ._logger import _LOGGER

#: Which of the SDK's server APIs a tool runs under: they answer the same exception differently.
ServerApi = Literal["mcpserver", "lowlevel"]
#: The protocol revisions the SDK serves statelessly (2026-07-28 on): there a low-level handler's crash is
#: answered with a generic -32603; under the 2025 handshake with the exception's own text.
_STATELESS_VERSIONS = frozenset(MODERN_PROTOCOL_VERSIONS)


def _error_member(error: ErrorData) -> dict[str, object]:
    # As the SDK's transports write an error object: the members that were set, and only those.
    member: dict[str, object] = error.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return member


def _mcpserver_reply(tool: str, error: BaseException) -> dict[str, object]:
    """What ``MCPServer`` writes when tool ``tool`` raises ``error`` (mcp 2.3: ``Tool.run`` and
    ``MCPServer._handle_call_tool``): an ``MCPError`` is the protocol error it carries; a ``ToolError`` or
    ``ResourceError`` (raised on purpose, or the SDK's own wrapper of a nested tool's crash) is a failed
    result for the model with its text after the SDK's prefix; anything else is a crash, whose text stays on
    the server."""
    if isinstance(error, MCPError):
        return {"error": _error_member(error.error)}
    text = (
        f"Error executing tool {tool}: {error}"
        if isinstance(error, (ToolError, ResourceError))
        else f"Error executing tool {tool}"
    )
    result = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    return {"result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}


def _lowlevel_reply(error: BaseException, protocol_version: Optional[str]) -> dict[str, object]:
    """What the low-level ``Server`` writes when its ``on_call_tool`` handler raises ``error`` (mcp 2.3's
    dispatchers): an ``MCPError``'s own error; -32602 for a pydantic ``ValidationError``; anything else is
    answered by the protocol in use: the stateless one gives a generic -32603, the 2025 handshake the
    exception's text with code 0 (``JSONRPCDispatcher`` keeps 0 for its older servers)."""
    if isinstance(error, MCPError):
        data = error.error
    elif isinstance(error, ValidationError):
        data = ErrorData(code=INVALID_PARAMS, message="Invalid request parameters", data="")
    elif protocol_version in _STATELESS_VERSIONS:
        data = ErrorData(code=INTERNAL_ERROR, message="Internal server error")
    else:
        data = ErrorData(code=0, message=str(error))
    return {"error": _error_member(data)}


def _sdk_reply(
    tool: str, error: BaseException, server_api: ServerApi, protocol_version: Optional[str]
) -> dict[str, object]:
    """The response member (``result`` or ``error``) the SDK itself writes for ``error`` escaping a tool."""
    if server_api == "mcpserver":
        return _mcpserver_reply(tool, error)
    if server_api == "lowlevel":
        return _lowlevel_reply(error, protocol_version)
    raise ValueError(f"server_api must be 'mcpserver' or 'lowlevel', not {server_api!r}")


def _is_crash(error: BaseException, server_api: ServerApi) -> bool:
    """Whether the SDK takes ``error`` for a crash (logged with its traceback at ERROR) rather than a failure
    raised on purpose (INFO)."""
    if server_api == "mcpserver":
        anticipated = isinstance(error, (MCPError, ToolError, ResourceError))
        return not anticipated or isinstance(error, (UnexpectedToolError, UnexpectedResourceError))
    return not isinstance(error, (MCPError, ValidationError))


def _through_guard(
    tool: str, reply: dict[str, object], dialect: Union[str, Dialect], trace: Optional[str] = None
) -> tuple[dict[str, object], Optional[str]]:
    """The message a guard session in ``dialect`` writes the client when the upstream answers a
    ``tools/call`` of ``tool`` with ``reply`` (its ``result`` or ``error`` member); and ``trace`` as the
    same session redacts it for the operator's log (secrets go, stack traces and paths stay)."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool}}
    with GuardSession(dialect) as session:
        session.client_line(json.dumps(request, ensure_ascii=False, separators=(",", ":")))
        outcome = session.upstream_line(
            json.dumps({"jsonrpc": "2.0", "id": 1, **reply}, ensure_ascii=False, separators=(",", ":"))
        )
        logged = session.upstream_log(trace) if trace is not None else None
    for step in outcome["steps"]:
        if step["step"] == "send" and step["to"] == "client":
            answer: dict[str, object] = json.loads(step["line"])
            return answer, logged
        if step["step"] == "forward" and step["to"] == "client":
            return {"jsonrpc": "2.0", "id": 1, **reply}, logged
    # The session answers every response to a pending request; anything else is a broken component.
    raise RuntimeError("the guard session wrote nothing for the tool's answer")


def canonical_tool_error(
    tool: str,
    error: BaseException,
    *,
    dialect: Union[str, Dialect] = "mcp",
    server_api: ServerApi = "mcpserver",
    protocol_version: Optional[str] = None,
) -> Union[CallToolResult, ErrorData]:
    """What the guard answers a client whose ``tools/call`` of ``tool`` failed with ``error``.

    ``error`` is described as the wire message the SDK itself writes for it (``server_api``: ``MCPServer``'s
    texts, or the low-level ``Server``'s, which depend on the request's ``protocol_version``): a
    ``ToolError`` is a failed tool result ``"Error executing tool <tool>: <text>"``, an ``MCPError`` its
    JSON-RPC error, any other exception ``MCPServer``'s generic failed result (the low-level server: code 0
    with the exception's text under the 2025 handshake, a generic -32603 for the stateless protocol). A
    private guard session reads a ``tools/call`` request of ``tool`` and then that message; what it writes
    for the client is returned: a tool result (``isError``), or the error object. The component decides the
    rest: results are redacted and cut, standard and MCP-spec codes kept with their data scrubbed,
    server-specific codes become the dialect's upstream error (in ``mcp``, a failed tool result). The
    TypeScript package describes its SDK's failures the same way.
    """
    answer, _ = _through_guard(tool, _sdk_reply(tool, error, server_api, protocol_version), dialect)
    if "result" in answer:
        return CallToolResult.model_validate(answer["result"])
    return ErrorData.model_validate(answer["error"])


def _answered(
    tool: str,
    error: Exception,
    dialect: Union[str, Dialect],
    logger: Optional[logging.Logger],
    server_api: ServerApi,
    protocol_version: Optional[str],
) -> CallToolResult:
    """Logs ``error`` for the operator, redacted, and returns the canonical result or raises the canonical
    error (as ``MCPError``, which the SDK answers with as it is)."""
    log = logger or _LOGGER
    crash = _is_crash(error, server_api)
    level = logging.ERROR if crash else logging.INFO
    # Never the exception itself (exc_info, its text, its locals): the log would hold every secret in it.
    # Its traceback goes through the component, which keeps the frames and paths and drops the secrets.
    trace = (
        "".join(traceback.format_exception(type(error), error, error.__traceback__))
        if log.isEnabledFor(level)
        else None
    )
    answer, logged = _through_guard(tool, _sdk_reply(tool, error, server_api, protocol_version), dialect, trace)
    if logged is not None:
        event = {
            "event": "tool-failed",
            "level": "error" if crash else "info",
            "tool": tool,
            "exception": type(error).__name__,
            "detail": logged,
        }
        log.log(
            level,
            "tool %r raised %s; the client gets the canonical tool error\n%s",
            tool,
            type(error).__name__,
            logged.rstrip("\n"),
            extra={"guard_event": event},
        )
    if "result" in answer:
        return CallToolResult.model_validate(answer["result"])
    canonical = ErrorData.model_validate(answer["error"])
    # `from None`: nothing of the original rides along with what the SDK sends.
    raise MCPError(canonical.code, canonical.message, canonical.data) from None


_Result = TypeVar("_Result")


def _checked(tool: str, result: _Result, dialect: Union[str, Dialect]) -> _Result:
    """A tool's own ``isError`` result with its text redacted and cut as the guard does an upstream's; any
    other result untouched."""
    if not (isinstance(result, CallToolResult) and result.is_error):
        return result
    answer, _ = _through_guard(
        tool, {"result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}, dialect
    )
    if "result" in answer:
        return cast(_Result, CallToolResult.model_validate(answer["result"]))
    error = ErrorData.model_validate(answer["error"])
    raise MCPError(error.code, error.message, error.data)


CallToolHandler = TypeVar("CallToolHandler", bound=Callable[..., Awaitable[object]])
ToolFunction = TypeVar("ToolFunction", bound=Callable[..., object])


def guard_call_tool(
    handler: Optional[CallToolHandler] = None,
    *,
    dialect: Union[str, Dialect] = "mcp",
    logger: Optional[logging.Logger] = None,
) -> Union[CallToolHandler, Callable[[CallToolHandler], CallToolHandler]]:
    """Wraps a low-level server's ``on_call_tool`` handler ``(ctx, params) -> CallToolResult``.

    An exception it raises is answered as the guard answers the low-level ``Server``'s own reply to it
    (:func:`canonical_tool_error` for ``params.name``, by the protocol of the request): a tool result is
    returned, an error object raised as ``MCPError``, which the SDK sends as it is. ``MCPError`` and its
    subclasses (``UrlElicitationRequiredError``) go through the guard too: their codes and data's structure
    stay where the component keeps them. The exception goes to the log, redacted (its traceback and paths
    stay). An ``isError`` result the handler returns is redacted and cut as the guard does an upstream's; any
    other result is returned untouched. ``Server(on_call_tool=guard_call_tool(handler))`` or
    ``@guard_call_tool(dialect="thoughtgate")``.
    """
    GuardSession(dialect).close()  # an unknown dialect is refused now, not at the first failure

    def wrap(inner: CallToolHandler) -> CallToolHandler:
        @functools.wraps(inner)
        async def guarded(ctx: object, params: CallToolRequestParams) -> object:
            try:
                result = await inner(ctx, params)
            except Exception as error:  # noqa: BLE001 - every tool failure gets the canonical answer
                # What the SDK writes for a crash depends on the request's protocol (ServerRequestContext's).
                version = getattr(ctx, "protocol_version", None)
                return await anyio.to_thread.run_sync(
                    _answered, params.name, error, dialect, logger, "lowlevel", version
                )
            return await anyio.to_thread.run_sync(_checked, params.name, result, dialect)

        return cast(CallToolHandler, guarded)

    return wrap(handler) if handler is not None else wrap


def guard_tool(
    fn: Optional[ToolFunction] = None,
    *,
    name: Optional[str] = None,
    dialect: Union[str, Dialect] = "mcp",
    logger: Optional[logging.Logger] = None,
) -> Union[ToolFunction, Callable[[ToolFunction], ToolFunction]]:
    """Wraps an ``MCPServer`` tool function (sync or async); put it under ``@server.tool()``.

    An exception the tool raises is answered as the guard answers ``MCPServer``'s own reply to it
    (:func:`canonical_tool_error`; ``name`` is the tool's registered name, by default the function's, as
    ``@server.tool()`` names it): a ``ToolError`` stays a failed tool result for the model, its text
    scrubbed; an ``MCPError`` (``UrlElicitationRequiredError`` included) stays a protocol error where the
    component keeps its code; any other exception is the SDK's generic failed result. A tool result is
    returned, an error object raised as ``MCPError``, which ``MCPServer`` sends as it is. The exception goes
    to the log, redacted (its traceback and paths stay). A ``CallToolResult`` with ``is_error`` the tool
    returns is redacted and cut as the guard does an upstream's. The signature, context parameter and return
    annotation stay the function's (``MCPServer`` reads them). Put above ``@server.tool()`` instead, it would
    guard a copy nobody calls: a ``TypeError`` says so, wherever the server lives (this module notes which
    functions ``MCPServer`` registers unguarded: the SDK's ``ToolManager.add_tool`` is wrapped, unchanged, on
    import; a registration made before that import is found when the server is in sight, in the decorated
    function's module or where the decorator is applied).
    """
    GuardSession(dialect).close()  # an unknown dialect is refused now, not at the first failure
    caller = inspect.currentframe()
    # The servers in sight where the decorator is applied (the frame itself is not kept).
    in_sight = (
        _servers_in(caller.f_back.f_locals, caller.f_back.f_globals)
        if caller is not None and caller.f_back is not None
        else []
    )
    del caller

    def wrap(inner: ToolFunction) -> ToolFunction:
        registered = _still_registered(inner)
        if registered is None:
            registered = _registered_bare(inner, [*in_sight, *_servers_in(getattr(inner, "__globals__", {}))])
        if registered is not None:
            raise TypeError(
                f"@guard_tool is applied above @server.tool(): tool {registered!r} is already registered unguarded "
                "(server.tool() registers the function it is given); put @guard_tool below @server.tool()"
            )
        tool = name or inner.__name__
        if _is_async(inner):

            @functools.wraps(inner)
            async def guarded_async(*args: object, **kwargs: object) -> object:
                try:
                    result = await cast(Callable[..., Awaitable[object]], inner)(*args, **kwargs)
                except Exception as error:  # noqa: BLE001
                    return await anyio.to_thread.run_sync(_answered, tool, error, dialect, logger, "mcpserver", None)
                return await anyio.to_thread.run_sync(_checked, tool, result, dialect)

            setattr(guarded_async, _GUARDED, True)
            return cast(ToolFunction, guarded_async)

        @functools.wraps(inner)
        def guarded(*args: object, **kwargs: object) -> object:
            # MCPServer runs a sync tool on a worker thread, so the guard's calls here block no event loop.
            try:
                result = inner(*args, **kwargs)
            except Exception as error:  # noqa: BLE001
                return _answered(tool, error, dialect, logger, "mcpserver", None)
            return _checked(tool, result, dialect)

        setattr(guarded, _GUARDED, True)
        return cast(ToolFunction, guarded)

    return wrap(fn) if fn is not None else wrap


def guard_tools(
    server: MCPServer, *, dialect: Union[str, Dialect] = "mcp", logger: Optional[logging.Logger] = None
) -> MCPServer:
    """Guards every tool ``server`` registers from now on (``@server.tool()``, ``server.add_tool``) with
    :func:`guard_tool` under the name it is registered with. Call it before registering tools; returns the
    server: ``mcp = guard_tools(MCPServer("name"))``."""
    GuardSession(dialect).close()
    add_tool = server.add_tool

    @functools.wraps(add_tool)
    def add_guarded_tool(
        fn: Callable[..., object], name: Optional[str] = None, *args: object, **kwargs: object
    ) -> None:
        add_tool(guard_tool(fn, name=name or fn.__name__, dialect=dialect, logger=logger), name, *args, **kwargs)  # type: ignore[arg-type]

    # On the instance: `@server.tool()` registers through `self.add_tool`.
    setattr(server, "add_tool", add_guarded_tool)  # noqa: B010 - a method replaced: not an assignment to type-check
    return server


#: Marks the functions guard_tool returns: registering one is registering a guarded tool.
_GUARDED = "__jsonrpc_errors_guarded__"
#: Every function an ``MCPServer`` registered as it is (not guarded), with the name it was registered under:
#: what ``@guard_tool`` stacked above ``@server.tool()`` is given, wherever the server lives (an attribute,
#: another module, a factory's return value). Weak: a registry keeps no function alive.
_REGISTERED_BARE: weakref.WeakKeyDictionary[Callable[..., object], list[tuple[weakref.ref[Any], str]]] = (
    weakref.WeakKeyDictionary()
)


def _weakly_keyed(fn: object) -> bool:
    try:
        weakref.ref(fn)
    except TypeError:
        return False
    return True


def _record_registrations() -> None:
    """Makes ``ToolManager.add_tool`` (every way ``MCPServer`` registers a tool: ``@server.tool()``,
    ``server.add_tool``) note which functions it registered unguarded, once per process. It calls the SDK's
    own method first and returns what that returns: registration is unchanged."""
    add_tool = getattr(ToolManager, "add_tool", None)
    if not callable(add_tool) or getattr(add_tool, _GUARDED, False):
        return

    @functools.wraps(add_tool)
    def add_tool_noted(self: object, fn: Callable[..., object], *args: object, **kwargs: object) -> object:
        tool = add_tool(self, fn, *args, **kwargs)
        name = getattr(tool, "name", None)
        if not getattr(fn, _GUARDED, False) and isinstance(name, str) and _weakly_keyed(fn):
            try:
                _REGISTERED_BARE.setdefault(fn, []).append((weakref.ref(self), name))
            except TypeError:  # a manager that cannot be weakly referenced: the in-sight check remains
                pass
        return tool

    setattr(add_tool_noted, _GUARDED, True)
    setattr(ToolManager, "add_tool", add_tool_noted)  # noqa: B010 - as above


_record_registrations()


def _still_registered(fn: Callable[..., object]) -> Optional[str]:
    """The name under which a live server still runs ``fn`` itself, as noted when it was registered."""
    if not _weakly_keyed(fn):
        return None
    for manager_ref, name in _REGISTERED_BARE.get(fn, ()):
        manager = manager_ref()
        get_tool = getattr(manager, "get_tool", None)
        tool = get_tool(name) if callable(get_tool) else None
        if tool is not None and getattr(tool, "fn", None) is fn:
            return name
    return None


def _servers_in(*scopes: dict[str, object]) -> list[MCPServer]:
    return [value for scope in scopes for value in list(scope.values()) if isinstance(value, MCPServer)]


def _registered_bare(fn: Callable[..., object], servers: list[MCPServer]) -> Optional[str]:
    """The name under which one of ``servers`` already runs ``fn`` itself: ``@guard_tool`` stacked above
    ``@server.tool()``, which registered the bare function and returned it. ``MCPServer`` lists its tools
    only asynchronously, so this reads its private tool manager; without one, nothing is found."""
    for server in servers:
        list_tools = getattr(getattr(server, "_tool_manager", None), "list_tools", None)
        if not callable(list_tools):
            continue
        for tool in list_tools():
            if getattr(tool, "fn", None) is fn:
                return str(tool.name)
    return None


def _is_async(fn: Callable[..., object]) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    # An instance whose __call__ is a coroutine function (not a test of whether fn is callable).
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004
