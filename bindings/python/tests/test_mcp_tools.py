"""The tool-error decorators on both server APIs of the official SDK (low-level `Server`, `MCPServer`), called
by the SDK's own client in process.

The contract: a failing tool answers exactly what the guard answers when it stands in front of the same
server without the decorator. The SDK's meaning is kept (a `ToolError` is tool output for the model, an
`MCPError` a protocol error, a crash the SDK's generic text); the guard only scrubs. So most tests here
compare the decorated server with the undecorated one behind `guard_transport`, the SDK writing the failure
on the wire itself; the rest pin what that means for each kind of failure, and what reaches the log."""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, Optional

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client, MCPError
from mcp.client._memory import InMemoryTransport
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ElicitRequestURLParams,
    ErrorData,
    ListToolsResult,
    TextContent,
    Tool,
)
from pydantic import BaseModel

from jsonrpc_errors.mcp import canonical_tool_error, guard_call_tool, guard_tool, guard_tools, guard_transport

# Fake secrets, shaped like the real ones (examples/guard/misbehaving_server.py has the same).
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DB = "postgres://admin:hunter2@db.internal:5432/orders"
STRIPE = "sk_live_" + "51HxQ2eZvKYlo2C9x8w7v6u5t4"
HOME = "/home/alice/app/db.py"
SECRETS = [TOKEN, "hunter2", STRIPE, "/home/alice", "Traceback (most recent call last)", "admin:"]
# Members generated per answer (clock and entropy): different in every run.
GENERATED = {"correlation_id", "timestamp"}
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
LEGACY, MODERN = "legacy", None  # Client modes: the 2025 handshake, and the SDK's default (2026-07-28)


def fail() -> None:
    """Raises the way real code does: a few frames down, a message full of secrets."""

    def connect() -> None:
        password = "hunter2"  # noqa: F841 - a local a rich traceback would show
        raise ConnectionError(f"could not reach {DB} with {TOKEN} and {STRIPE} (config {HOME})")

    connect()


class Order(BaseModel):
    quantity: int


# What each tool raises, by name: every kind of failure the SDK tells apart.
FAILURES: dict[str, Callable[[], BaseException]] = {
    "tool_error": lambda: ToolError(f"lookup failed: {DB}"),
    "resource_error": lambda: ResourceError(f"cannot read {HOME} with {TOKEN}"),
    "invalid_params": lambda: MCPError(
        -32602, "customer rejected: password=hunter2", {"field": "customer", "token": TOKEN}
    ),
    "server_specific": lambda: MCPError(
        -32010, f"charge declined by {STRIPE}", {"stack": "Traceback (most recent call last):", "db": DB}
    ),
    "url_elicitation": lambda: UrlElicitationRequiredError(
        [
            ElicitRequestURLParams(
                mode="url", message="sign in", url=f"https://example.com/login?token={TOKEN}", elicitation_id="e1"
            )
        ]
    ),
}


def raise_failure(name: str) -> None:
    if name == "crash":
        fail()
    if name == "validation":
        Order.model_validate({"quantity": f"many ({TOKEN})"})  # a pydantic ValidationError from the tool's own code
    raise FAILURES[name]()


NAMES = [*FAILURES, "crash", "validation"]


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def without_generated(value: Any) -> Any:
    if isinstance(value, dict):
        # The SDK stamps every result a server returns under the stateless protocol with its serverInfo; a
        # result the guard in front writes in place of an error has none.
        meta = {k: v for k, v in (value.get("_meta") or {}).items() if k != SERVER_INFO}
        value = {**value, "_meta": meta} if meta else {k: v for k, v in value.items() if k != "_meta"}
        return {k: without_generated(v) for k, v in value.items() if k not in GENERATED}
    if isinstance(value, list):
        return [without_generated(v) for v in value]
    return value


def call(
    server: Any,
    tool: str,
    arguments: Optional[dict[str, Any]] = None,
    *,
    guard: Optional[str] = None,
    mode: Optional[str] = LEGACY,
) -> dict[str, Any]:
    """One tools/call through the SDK's client (with the guard of dialect `guard` on its transport); what the
    client got."""

    async def main() -> dict[str, Any]:
        transport: Any = InMemoryTransport(server)
        if guard is not None:
            transport = guard_transport(transport, dialect=guard)
        async with Client(transport, **({"mode": mode} if mode else {})) as client:
            try:
                return {"result": wire(await client.call_tool(tool, arguments or {}))}
            except MCPError as error:
                return {"error": {"code": error.code, "message": error.message, "data": error.data}}

    return anyio.run(main)


def assert_clean(seen: Any) -> None:
    text = json.dumps(seen)
    assert [s for s in SECRETS if s in text] == [], text


# ---------------------------------------------------------------------------------------------- the two APIs


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name=n, input_schema={"type": "object"}) for n in [*NAMES, "echo", "own_error"]])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    if params.name == "own_error":
        return CallToolResult(
            content=[TextContent(type="text", text=f"lookup failed: password=hunter2 ({TOKEN})")], is_error=True
        )
    if params.name == "echo":
        return CallToolResult(content=[TextContent(type="text", text=str((params.arguments or {}).get("text")))])
    raise_failure(params.name)
    raise AssertionError("unreachable")


def lowlevel(dialect: Optional[str]) -> Server[Any]:
    """The low-level server; its handler decorated for `dialect`, or bare (None)."""
    handler = call_tool if dialect is None else guard_call_tool(call_tool, dialect=dialect)
    return Server("tools", on_list_tools=list_tools, on_call_tool=handler)


def failing_tool(name: str) -> Callable[[], str]:
    def tool() -> str:
        raise_failure(name)
        return "never"

    return tool


def mcpserver(dialect: Optional[str]) -> MCPServer:
    """The high-level server: one tool per failure, each decorated for `dialect` (or bare)."""
    server = MCPServer("tools")
    for name in NAMES:
        tool = failing_tool(name)
        server.add_tool(tool if dialect is None else guard_tool(tool, name=name, dialect=dialect), name=name)

    @server.tool()
    def echo(text: str) -> str:
        return text

    return server


# ---------------------------------------------------------------------------------------------- the contract


@pytest.mark.parametrize("dialect", ["mcp", "canonical"])
@pytest.mark.parametrize("name", NAMES)
def test_mcpserver_a_decorated_tool_answers_what_the_guard_answers_in_front_of_the_bare_one(dialect: str, name: str):
    decorated = call(mcpserver(dialect), name)
    behind_guard = call(mcpserver(None), name, guard=dialect)
    assert without_generated(decorated) == without_generated(behind_guard), (decorated, behind_guard)
    assert_clean(decorated)


@pytest.mark.parametrize("mode", [LEGACY, MODERN], ids=["legacy", "modern"])
@pytest.mark.parametrize("dialect", ["mcp", "canonical"])
@pytest.mark.parametrize("name", NAMES)
def test_lowlevel_a_decorated_handler_answers_what_the_guard_answers_in_front_of_the_bare_one(
    mode: Optional[str], dialect: str, name: str
):
    decorated = call(lowlevel(dialect), name, mode=mode)
    behind_guard = call(lowlevel(None), name, guard=dialect, mode=mode)
    assert without_generated(decorated) == without_generated(behind_guard), (decorated, behind_guard)
    assert_clean(decorated)


# ---------------------------------------------------------------------------------------------- what that means


@pytest.mark.parametrize("dialect", ["mcp", "canonical"])
def test_mcpserver_a_tool_error_is_tool_output_for_the_model_scrubbed(dialect: str):
    # Without the decorator the SDK gives the model the text whole (else this test would prove nothing).
    bare = call(mcpserver(None), "tool_error")["result"]
    assert bare == {
        "content": [{"type": "text", "text": f"Error executing tool tool_error: lookup failed: {DB}"}],
        "isError": True,
    }
    seen = call(mcpserver(dialect), "tool_error")
    assert seen == {
        "result": {
            "content": [
                {
                    "type": "text",
                    "text": "Error executing tool tool_error: lookup failed: postgres://[REDACTED:url-credentials]@db.internal:5432/orders",
                }
            ],
            "isError": True,
        }
    }, seen
    resource = call(mcpserver(dialect), "resource_error")["result"]
    assert resource["isError"] is True and resource["content"][0]["text"].startswith(
        "Error executing tool resource_error: cannot read "
    )
    assert_clean(resource)


@pytest.mark.parametrize("dialect", ["mcp", "canonical"])
def test_mcpserver_a_crash_is_the_sdks_generic_tool_result_and_its_text_stays_on_the_server(dialect: str):
    for name in ("crash", "validation"):
        assert call(mcpserver(dialect), name) == {
            "result": {"content": [{"type": "text", "text": f"Error executing tool {name}"}], "isError": True}
        }


@pytest.mark.parametrize("dialect", ["mcp", "canonical"])
def test_a_tools_invalid_params_error_keeps_its_standard_code_on_both_apis(dialect: str):
    for server in (mcpserver(dialect), lowlevel(dialect)):
        error = call(server, "invalid_params")["error"]
        assert error["code"] == -32602, error
        assert error["message"] == "customer rejected: password=[REDACTED:secret-assignment]", error
        assert error["data"]["field"] == "customer" and TOKEN not in json.dumps(error), error


def test_a_tools_server_specific_error_is_the_dialects_upstream_error():
    assert call(mcpserver("canonical"), "server_specific")["error"]["data"]["type"] == "upstream-error"
    # The mcp dialect answers a failed tools/call with a failed tool result.
    result = call(mcpserver("mcp"), "server_specific")["result"]
    assert result["isError"] is True and result["content"][0]["text"].startswith("Upstream error: charge declined by ")
    assert_clean(result)


@pytest.mark.parametrize("dialect", ["mcp", "canonical"])
def test_url_elicitation_goes_through_the_component_and_keeps_the_specs_code_and_data(dialect: str):
    # Needs the guest's rule that keeps the MCP spec's own codes (-32042 with data.elicitations) with their
    # data's structure, values scrubbed. The token in the URL shows the answer went through the component.
    for server in (mcpserver(dialect), lowlevel(dialect)):
        error = call(server, "url_elicitation").get("error")
        assert error is not None and error["code"] == -32042, error
        (elicitation,) = error["data"]["elicitations"]
        assert (elicitation["mode"], elicitation["elicitationId"]) == ("url", "e1"), elicitation
        assert elicitation["url"].startswith("https://example.com/login?token=") and TOKEN not in json.dumps(error), (
            error
        )


def test_lowlevel_a_crash_is_what_the_sdk_writes_for_the_protocol_in_use():
    # The SDK's own answers, bare: the exception's text with code 0 (2025 handshake), a generic -32603 (2026).
    assert call(lowlevel(None), "crash")["error"]["code"] == 0
    assert call(lowlevel(None), "crash", mode=MODERN)["error"] == {
        "code": -32603,
        "message": "Internal server error",
        "data": None,
    }
    legacy = call(lowlevel("canonical"), "crash")["error"]
    assert legacy["data"]["type"] == "upstream-error", legacy
    assert legacy["data"]["details"].startswith("could not reach postgres://[REDACTED:url-credentials]@db.internal")
    assert call(lowlevel("canonical"), "crash", mode=MODERN)["error"] == {
        "code": -32603,
        "message": "Internal server error",
        "data": None,
    }
    validation = call(lowlevel("canonical"), "validation")["error"]
    assert validation == {"code": -32602, "message": "Invalid request parameters", "data": ""}


def test_normal_tools_are_untouched_and_own_error_results_are_redacted():
    for dialect in (None, "mcp"):
        assert call(lowlevel(dialect), "echo", {"text": "hello"}) == {
            "result": {"content": [{"type": "text", "text": "hello"}], "isError": False}
        }
        assert call(mcpserver(dialect), "echo", {"text": "hello"})["result"]["structuredContent"] == {"result": "hello"}
    own = call(lowlevel("mcp"), "own_error")["result"]
    assert own["isError"] is True and own["content"][0]["text"].startswith("lookup failed: password=[REDACTED:")
    assert_clean(own)


def test_canonical_tool_error_gives_the_answer_itself_for_either_api():
    def raised(name: str) -> BaseException:
        try:
            raise_failure(name)
        except BaseException as error:  # noqa: BLE001
            return error
        raise AssertionError(name)

    result = canonical_tool_error("lookup", raised("tool_error"), dialect="mcp")
    assert isinstance(result, CallToolResult) and result.is_error
    assert result.content[0].text.startswith("Error executing tool lookup: lookup failed: postgres://[REDACTED:")  # type: ignore[union-attr]
    crash = canonical_tool_error("lookup", raised("crash"), dialect="canonical")
    assert isinstance(crash, CallToolResult) and crash.content[0].text == "Error executing tool lookup"  # type: ignore[union-attr]
    lowlevel_crash = canonical_tool_error("lookup", raised("crash"), dialect="canonical", server_api="lowlevel")
    assert isinstance(lowlevel_crash, ErrorData) and lowlevel_crash.data["type"] == "upstream-error"
    modern = canonical_tool_error(
        "lookup", raised("crash"), dialect="canonical", server_api="lowlevel", protocol_version="2026-07-28"
    )
    assert isinstance(modern, ErrorData) and (modern.code, modern.message) == (-32603, "Internal server error")
    with pytest.raises(ValueError):
        canonical_tool_error("lookup", raised("crash"), server_api="fastmcp")  # type: ignore[arg-type]


def test_an_unknown_dialect_is_refused_when_decorating():
    import jsonrpc_errors

    with pytest.raises(jsonrpc_errors.InvalidInput):
        guard_call_tool(call_tool, dialect="klingon")


def test_mcpserver_schemas_and_context_are_untouched():
    def build(guarded: bool) -> MCPServer:
        server = MCPServer("tools")
        wrap = guard_tool if guarded else (lambda fn: fn)

        @server.tool()
        @wrap
        async def greet(name: str, ctx: Context) -> str:
            """Greet, reporting progress through the context (which must still be injected)."""
            await ctx.report_progress(1, 1)
            return f"hello {name}"

        return server

    async def listing(server: MCPServer) -> Any:
        async with Client(InMemoryTransport(server), mode="legacy") as client:
            return wire(await client.list_tools())

    assert anyio.run(listing, build(True)) == anyio.run(listing, build(False))
    assert call(build(True), "greet", {"name": "ada"}) == call(build(False), "greet", {"name": "ada"})
    assert call(build(True), "greet", {"name": "ada"})["result"]["structuredContent"] == {"result": "hello ada"}


def test_guard_tools_guards_every_tool_a_server_registers_under_its_registered_name():
    server = guard_tools(MCPServer("tools"), dialect="mcp")

    @server.tool(name="renamed")
    def original_name() -> str:
        raise ToolError(f"no such order (asked with {TOKEN})")

    server.add_tool(lambda: 1 / 0, name="divide")
    renamed = call(server, "renamed")["result"]
    assert (
        renamed["content"][0]["text"]
        == "Error executing tool renamed: no such order (asked with [REDACTED:github-token])"
    )
    assert call(server, "divide") == {
        "result": {"content": [{"type": "text", "text": "Error executing tool divide"}], "isError": True}
    }


# ---------------------------------------------------------------------------------------------- the log


class Collect(logging.Handler):
    """Every record of every logger, formatted as a plain `logging` setup would write it (tracebacks of
    `exc_info` and `stack_info` included)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self.lines: list[str] = []
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.lines.append(self.format(record))


@pytest.fixture
def collected() -> Any:
    handler = Collect()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_the_log_keeps_the_trace_and_paths_for_the_operator_and_no_secret(collected: Collect):
    # Issue 25: the decorators logged the exception whole (exc_info): every secret in it, in every record
    # a logging setup writes. By default, without a logger given, the log now gets it redacted.
    for dialect in ("mcp", "canonical"):
        call(mcpserver(dialect), "crash")
        call(mcpserver(dialect), "tool_error")
        call(lowlevel(dialect), "crash")
        call(lowlevel(dialect), "invalid_params")
    text = "\n".join(collected.lines)
    assert {s: text.count(s) for s in (TOKEN, "hunter2", STRIPE) if s in text} == {}, text[:3000]
    ours = [r for r in collected.records if r.name == "jsonrpc_errors.mcp"]
    assert len(ours) == 8 and not [r for r in ours if r.exc_info], [r.getMessage()[:200] for r in ours]
    crashes = [r for r in ours if r.levelno == logging.ERROR]
    assert len(crashes) == 4 and all(r.guard_event["tool"] == "crash" for r in crashes)  # type: ignore[attr-defined]
    for record in crashes:
        logged = record.getMessage()
        # The operator keeps what debugging needs: the trace, its frames and its paths.
        assert "Traceback (most recent call last)" in logged and "in connect" in logged and __file__ in logged, logged
        assert "could not reach postgres://[REDACTED:url-credentials]@db.internal" in logged and HOME in logged, logged


# ---------------------------------------------------------------------------------------------- stacking order

module_server = MCPServer("module-level")


def test_guard_tool_above_server_tool_is_refused_not_left_unguarded():
    # @server.tool() registers the bare function and returns it: @guard_tool above it would guard a copy
    # nobody calls, and the registered tool would leak. The server in sight: a local, or the module's.
    local_server = MCPServer("local")
    with pytest.raises(TypeError, match="'lookup' is already registered unguarded"):

        @guard_tool
        @local_server.tool()
        def lookup() -> str:
            return "never"

    with pytest.raises(TypeError, match="'renamed' is already registered unguarded"):

        @guard_tool(dialect="canonical")
        @module_server.tool(name="renamed")
        def original() -> str:
            return "never"

    @local_server.tool()  # the right order
    @guard_tool
    def fine() -> str:
        raise ToolError("no")

    assert call(local_server, "fine")["result"]["content"][0]["text"] == "Error executing tool fine: no"


class _App:
    """An application object holding its server: `@app.mcp.tool()` puts no server in the decorator's sight."""

    def __init__(self) -> None:
        self.mcp = MCPServer("held")


def _server_made_elsewhere(registry: list[MCPServer] = []) -> MCPServer:  # noqa: B006 - a module-wide registry
    registry.append(MCPServer("elsewhere"))
    return registry[-1]


def test_guard_tool_above_server_tool_is_refused_wherever_the_server_lives():
    # Before: only a server in sight (a local or global name bound to it) was checked, so a server reached
    # through an attribute or a call left the tool unguarded without a word.
    app = _App()
    with pytest.raises(TypeError, match="'lookup' is already registered unguarded"):

        @guard_tool
        @app.mcp.tool()
        def lookup() -> str:
            return "never"

    with pytest.raises(TypeError, match="'charge' is already registered unguarded"):

        @guard_tool(dialect="canonical")
        @_server_made_elsewhere().tool(name="charge")
        def original() -> str:
            return "never"

    # The right order, on the same servers: guarded, the SDK's answer with the secret redacted.
    @app.mcp.tool()
    @guard_tool
    def fine() -> str:
        raise ToolError(f"no {DB}")

    text = call(app.mcp, "fine")["result"]["content"][0]["text"]
    assert text == "Error executing tool fine: no postgres://[REDACTED:url-credentials]@db.internal:5432/orders"
    # guard_tools: every registration guarded, so nothing is refused (the registered tool is the guarded one).
    guarded_server = guard_tools(MCPServer("all"))

    @guard_tool
    @guarded_server.tool()
    def twice() -> str:
        raise ToolError(f"no {DB}")

    assert call(guarded_server, "twice")["result"]["content"][0]["text"].endswith(
        "[REDACTED:url-credentials]@db.internal:5432/orders"
    )


def test_the_stacking_check_refuses_only_a_registration_that_is_still_there(monkeypatch: Any):
    # A tool removed from its server runs nowhere bare: guarding the function is then fine. The check reads
    # MCPServer's private tool manager for servers in sight; without one it finds nothing, and never fails.
    server = MCPServer("other")

    @server.tool()
    def bare() -> str:
        return "bare"

    with pytest.raises(TypeError, match="'bare' is already registered unguarded"):
        guard_tool(bare)
    server.remove_tool("bare")
    monkeypatch.delattr(server, "_tool_manager")
    guarded = guard_tool(bare)
    assert guarded is not bare and guarded() == "bare"
