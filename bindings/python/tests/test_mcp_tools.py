"""The tool-error decorators on both server APIs of the official SDK (low-level `Server`, `MCPServer`), called
by the SDK's own client in process: a raising tool gives exactly what the guard would have made of the
exception, nothing of it reaches the client, all of it reaches the log; other tools are untouched."""

from __future__ import annotations

import json
import logging
import traceback
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp import Client, MCPError  # noqa: E402
from mcp.client._memory import InMemoryTransport  # noqa: E402  (what Client(server) connects with)
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.shared.exceptions import UrlElicitationRequiredError  # noqa: E402
from mcp.types import CallToolRequestParams, CallToolResult, ElicitRequestURLParams, ListToolsResult, TextContent, Tool  # noqa: E402

from jsonrpc_errors.mcp import canonical_tool_error, guard_call_tool, guard_tool, guard_tools, guard_transport  # noqa: E402

# Fake secrets, shaped like the real ones (examples/guard/misbehaving_server.py has the same).
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DB = "postgres://admin:hunter2@db.internal:5432/orders"
STRIPE = "sk_live_" + "51HxQ2eZvKYlo2C9x8w7v6u5t4"
HOME = "/home/alice/app/db.py"
SECRETS = [TOKEN, "hunter2", STRIPE, "/home/alice", "Traceback (most recent call last)", "admin:"]


def fail() -> None:
    """Raises the way real code does: a few frames down, a message full of secrets."""

    def connect() -> None:
        raise ConnectionError(f"could not reach {DB} with {TOKEN} and {STRIPE} (config {HOME})")

    connect()


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def call(server: Any, tool: str, arguments: dict[str, Any], *, guarded_transport: bool = False) -> dict[str, Any]:
    """One tools/call through the SDK's client; what the client got."""

    async def main() -> dict[str, Any]:
        transport: Any = InMemoryTransport(server)
        if guarded_transport:
            transport = guard_transport(transport, dialect="mcp")
        async with Client(transport, mode="legacy") as client:
            try:
                return {"result": wire(await client.call_tool(tool, arguments))}
            except MCPError as error:
                return {"error": {"code": error.code, "message": error.message, "data": error.data}}

    return anyio.run(main)


def assert_clean(seen: dict[str, Any]) -> None:
    text = json.dumps(seen)
    assert [s for s in SECRETS if s in text] == [], text


# ---------------------------------------------------------------------------------------------- low-level Server

TOOLS = [Tool(name=n, input_schema={"type": "object"}) for n in ("query", "echo", "own_error", "elicit")]


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    if params.name == "query":
        fail()
    if params.name == "own_error":
        return CallToolResult(content=[TextContent(type="text", text=f"lookup failed: password=hunter2 ({TOKEN})")], is_error=True)
    if params.name == "elicit":
        raise UrlElicitationRequiredError([ElicitRequestURLParams(mode="url", message="sign in", url="https://example.com/login", elicitation_id="e1")])
    return CallToolResult(content=[TextContent(type="text", text=str((params.arguments or {}).get("text")))])


def lowlevel(guarded: bool) -> Server[Any]:
    return Server("tools", on_list_tools=list_tools, on_call_tool=guard_call_tool(call_tool) if guarded else call_tool)


def test_lowlevel_a_raising_tool_gives_the_canonical_error_and_the_log_gets_the_exception(caplog):
    caplog.set_level(logging.ERROR, logger="jsonrpc_errors.mcp")
    unguarded = call(lowlevel(False), "query", {})
    # Without the decorator the SDK sends the exception's text (code 0): the test can fail.
    assert unguarded["error"]["code"] == 0 and TOKEN in unguarded["error"]["message"]
    seen = call(lowlevel(True), "query", {})
    assert_clean(seen)
    error = seen["error"]
    # A standard code stays an error in every dialect; its text is the exception's, scrubbed.
    assert error["code"] == -32603, error
    assert error["message"].startswith("ConnectionError: could not reach postgres://[REDACTED:url-credentials]@db.internal")
    assert "[REDACTED:github-token]" in error["message"] and "[REDACTED:stripe-key]" in error["message"]
    assert error["data"] == {}
    records = [r for r in caplog.records if r.name == "jsonrpc_errors.mcp" and r.exc_info]
    assert len(records) == 1 and "'query' raised ConnectionError" in records[0].getMessage()
    logged = "".join(traceback.format_exception(*records[0].exc_info))
    assert TOKEN in logged and "in connect" in logged  # the operator gets all of it


def test_lowlevel_the_decorator_answers_what_the_guard_answers_for_the_same_failure():
    # The exception as a server would put it on the wire, through the real stream guard ...
    def exception() -> BaseException:
        try:
            fail()
        except ConnectionError as error:
            return error
        raise AssertionError("fail() returned")

    error = exception()
    wire_error = MCPError(-32603, f"ConnectionError: {error}", {"traceback": "".join(traceback.format_exception(error))})

    async def raises_on_the_wire(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
        raise wire_error

    behind_guard = call(Server("tools", on_list_tools=list_tools, on_call_tool=raises_on_the_wire), "query", {}, guarded_transport=True)
    # ... and through the decorator: the same answer (the traceback's frames differ, and go anyway).
    decorated = call(lowlevel(True), "query", {})
    assert decorated == behind_guard, (decorated, behind_guard)
    assert canonical_tool_error("query", error, dialect="mcp").model_dump(exclude_none=True) == {
        "code": -32603, "message": decorated["error"]["message"], "data": {}}


def test_lowlevel_normal_tools_are_untouched_and_own_error_results_are_redacted():
    for guarded in (False, True):
        assert call(lowlevel(guarded), "echo", {"text": "hello"}) == {"result": {"content": [{"type": "text", "text": "hello"}], "isError": False}}
    own = call(lowlevel(True), "own_error", {})["result"]
    assert own["isError"] is True and own["content"][0]["text"].startswith("lookup failed: password=[REDACTED:")
    assert_clean(own)


def test_lowlevel_url_elicitation_passes_through():
    seen = call(lowlevel(True), "elicit", {})
    assert seen["error"]["code"] == -32042, seen  # the SDK's URL-elicitation signal, for the client to act on


def test_an_unknown_dialect_is_refused_when_decorating():
    import jsonrpc_errors

    with pytest.raises(jsonrpc_errors.InvalidInput):
        guard_call_tool(call_tool, dialect="klingon")


# ---------------------------------------------------------------------------------------------- MCPServer


def mcpserver(guarded: bool) -> MCPServer:
    server = MCPServer("tools")
    wrap = guard_tool if guarded else (lambda fn: fn)

    @server.tool()
    @wrap
    def lookup(customer: str) -> str:
        """Look a customer up."""
        fail()
        return customer

    @server.tool()
    @wrap
    async def greet(name: str, ctx: Context) -> str:
        """Greet, reporting progress through the context (which must still be injected)."""
        await ctx.report_progress(1, 1)
        return f"hello {name}"

    @server.tool()
    @wrap
    async def explode(ctx: Context) -> str:
        """Fail asynchronously."""
        raise ValueError(f"token {TOKEN} rejected")

    return server


def test_mcpserver_raising_tools_give_the_canonical_error_sync_and_async(caplog):
    caplog.set_level(logging.ERROR, logger="jsonrpc_errors.mcp")
    # MCPServer alone hides the text of unexpected exceptions, but logs it all and says nothing canonical.
    assert call(mcpserver(False), "lookup", {"customer": "acme"})["result"]["content"][0]["text"] == "Error executing tool lookup"
    sync = call(mcpserver(True), "lookup", {"customer": "acme"})["error"]
    asynchronous = call(mcpserver(True), "explode", {})["error"]
    assert_clean([sync, asynchronous])  # type: ignore[arg-type]
    assert sync["code"] == -32603 and sync["message"].startswith("ConnectionError: could not reach postgres://[REDACTED:")
    assert asynchronous == {"code": -32603, "message": "ValueError: token [REDACTED:github-token] rejected", "data": {}}
    assert sync == call(lowlevel(True), "query", {})["error"]  # both server APIs answer alike
    logged = [r for r in caplog.records if r.name == "jsonrpc_errors.mcp" and r.exc_info]
    assert [r.getMessage().split(" raised ")[0] for r in logged] == ["tool 'lookup'", "tool 'explode'", "tool 'query'"]


def test_mcpserver_normal_tools_schemas_and_context_are_untouched():
    async def listing(server: MCPServer) -> Any:
        async with Client(InMemoryTransport(server), mode="legacy") as client:
            return wire(await client.list_tools())

    assert anyio.run(listing, mcpserver(True)) == anyio.run(listing, mcpserver(False))
    assert call(mcpserver(True), "greet", {"name": "ada"}) == call(mcpserver(False), "greet", {"name": "ada"})
    assert call(mcpserver(True), "greet", {"name": "ada"})["result"]["structuredContent"] == {"result": "hello ada"}


def test_guard_tools_guards_every_tool_a_server_registers(caplog):
    server = guard_tools(MCPServer("tools"))

    @server.tool(name="renamed")
    def original_name() -> str:
        fail()
        return "never"

    server.add_tool(lambda: 1 / 0, name="divide")
    renamed = call(server, "renamed", {})["error"]
    divided = call(server, "divide", {})["error"]
    assert_clean(renamed)
    assert renamed["message"].startswith("ConnectionError: could not reach")
    assert divided == {"code": -32603, "message": "ZeroDivisionError: division by zero", "data": {}}
    assert any("'renamed' raised ConnectionError" in r.getMessage() for r in caplog.records)
