"""A stdio MCP server on the official Python SDK (`mcp==2.3.0`, `MCPServer`) that speaks the stateless
2026-07-28 revision (it answers `server/discover`), for `test_isolation_sdk.py`: many SDK clients share one
such child behind `guard --listen`. Three honest tools whose answers depend only on their inputs.

    python stateless_server.py          # speaks MCP on stdin/stdout
"""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("isolation-stateless-server", version="1.0.0")


@mcp.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return f"Echo: {message}"


@mcp.tool()
def add(a: int, b: int) -> str:
    """The sum of two integers, with the operands (so that a client can tell the answer is to its question)."""
    return f"The sum of {a} and {b} is {a + b}."


@mcp.tool()
async def count(ctx: Context, steps: int, delay_ms: int = 20, label: str = "") -> str:
    """Count to `steps`, one progress notification per step (when the request asked for progress)."""
    for i in range(1, steps + 1):
        await anyio.sleep(delay_ms / 1000)
        await ctx.report_progress(i, steps, f"{label} step {i}/{steps}")
    return f"{label} counted {steps}"


if __name__ == "__main__":
    mcp.run()
