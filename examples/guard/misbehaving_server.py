"""A stdio MCP server on the official Python SDK (mcp 2.3.0) that misbehaves on purpose.

It is the upstream for `jsonrpc-errors guard`'s end-to-end tests and demo: every tool
is one way a real server leaks or breaks, produced by the SDK's own machinery rather
than hand-written JSON, so the guard is tested against what the SDK really emits.

    python misbehaving_server.py              # speaks MCP on stdin/stdout
    python misbehaving_server.py --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp (the SDK's own)

Needs `mcp==2.3.0` (see tests/guard/requirements.txt).
"""

from __future__ import annotations

import os
import sys
import traceback

import anyio
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

# Fake secrets, shaped like the real thing so the redaction rules fire on them.
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # ghp_ + 36 alphanumerics
DB_URL = "postgres://admin:hunter2@db.internal:5432/orders"
HOME_PATH = "/home/alice/app/db.py"
STRIPE_KEY = "sk_live_" + "51HxQ2eZvKYlo2C9x8w7v6u5t4"
OPENAI_KEY = "sk-proj-" + "Zq8xW3vN6mK2pL9rT4yU7iO1aS5dF0gH"

# mcp 2.x's stdio_server() points fd 1 at stderr while it serves, so a stray print()
# cannot corrupt the wire any more. To reproduce the classic "debug print on stdout"
# bug anyway, keep our own handle on the real stdout pipe, taken before the SDK
# diverts fd 1.
WIRE_FD = os.dup(1)

mcp = MCPServer("misbehaving-server", version="1.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool()
async def count(ctx: Context, steps: int = 3, delay_ms: int = 50) -> str:
    """Count to `steps`, reporting progress after each step (if the client asked for it)."""
    for i in range(1, steps + 1):
        await anyio.sleep(delay_ms / 1000)
        # A no-op unless the request carried _meta.progressToken.
        await ctx.report_progress(i, steps, f"step {i}/{steps}")
    return f"counted {steps}"


def _inner_traceback() -> str:
    """The text of a real multi-line traceback, raised two frames down."""

    def connect() -> None:
        raise ConnectionRefusedError(f"could not connect to {DB_URL} (config {HOME_PATH})")

    def load_orders() -> None:
        connect()

    try:
        load_orders()
    except ConnectionRefusedError:
        return traceback.format_exc()
    raise AssertionError("unreachable")


@mcp.tool()
def query_orders(customer: str) -> str:
    """Fail with an error text that leaks a token, a credentialed URL, a home path and a traceback."""
    # ToolError, not a bare exception: mcp 2.x replaces the text of any other exception
    # with "Error executing tool query_orders" (it withholds crash details), while a
    # ToolError is the documented way to send the failure text to the model, and it is
    # where real servers put what they caught, traceback included.
    raise ToolError(
        f"query for {customer!r} failed (GITHUB_TOKEN={GITHUB_TOKEN}, db={DB_URL}, "
        f"source {HOME_PATH}):\n{_inner_traceback()}"
    )


@mcp.tool()
def charge_card(amount: float) -> str:
    """Answer with a JSON-RPC error response (not an isError result) that carries secrets."""
    # MCPError passes through MCPServer untouched and becomes the response's `error`.
    raise MCPError(
        code=-32010,
        message=f"charge of {amount} declined: Stripe key {STRIPE_KEY} rejected, password=hunter2",
        data={"stack": _inner_traceback(), "db": DB_URL},
    )


@mcp.tool()
def export_report() -> str:
    """Fail with a ~13 KB error text (long but harmless: longer than the guard's 8 KiB cut)."""
    lines = [f"2024-05-01T12:00:{i % 60:02d}Z INFO export: processed batch {i} of 200 (ok)" for i in range(200)]
    raise ToolError("export failed after a long run:\n" + "\n".join(lines))


@mcp.tool()
def flaky_print() -> str:
    """Write one line of non-JSON to the real stdout (the wire), then answer normally."""
    print("flaky_print: a plain print() lands on stderr under mcp 2.x", flush=True)
    # One os.write of one short line: atomic on a pipe, so it cannot tear an SDK frame
    # and arrives as a line of its own, just before this call's response.
    os.write(WIRE_FD, b"DEBUG: entering flaky_print (this line is not JSON)\n")
    return "printed"


@mcp.tool()
def crash() -> str:
    """Kill the server process while the request is in flight."""
    sys.stderr.write("misbehaving_server: crash() called, exiting with status 3\n")
    sys.stderr.flush()
    os._exit(3)


@mcp.tool()
async def sleep(ms: int) -> str:
    """Sleep `ms` milliseconds, then answer."""
    await anyio.sleep(ms / 1000)
    return "slept"


@mcp.resource("info://server", name="info", mime_type="text/plain")
def info() -> str:
    """Fixed server information."""
    return "misbehaving-server 1.0.0 (python mcp 2.3.0)"


if __name__ == "__main__":
    # A startup log line with a secret in it: the guard redacts relayed stderr.
    print(f"misbehaving_server: connecting with API_KEY={OPENAI_KEY}", file=sys.stderr, flush=True)
    if sys.argv[1:2] == ["--http"]:
        # The SDK's Streamable HTTP transport (both eras: sessions, and the stateless 2026-07-28 revision).
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run("stdio")
