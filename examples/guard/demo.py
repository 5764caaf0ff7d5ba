"""The guard's job on the bundled default: one scripted MCP session (the official Python SDK's client),
run twice against the bundled misbehaving server (the official Python SDK's server): straight, and
through `jsonrpc-errors guard`. For each call it prints what the client saw both ways, and which secrets
reached it; then what the guard logged instead.

    python examples/guard/demo.py [--guard target/release/jsonrpc-errors] [--dialect canonical]

Run by ./scripts/demo.sh after ./scripts/setup.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "tests" / "guard" / "clients" / "py_client.py"
SERVER = ROOT / "examples" / "guard" / "misbehaving_server.py"

# What each call is about (the server's tools are documented in misbehaving_server.py).
ABOUT = {
    "initialize": "the MCP handshake",
    "list_tools": "tools/list",
    "echo": "a normal tool call",
    "count": "a tool reporting progress (notifications/progress)",
    "read_info": "a resource read",
    "query_orders": "a failing tool whose error text carries a token, a credentialed URL, a home path and a traceback",
    "charge_card": "a tool answered with a JSON-RPC error carrying a Stripe key, a password and a stack in data",
    "export_report": "a failing tool with a 13 KB error message",
    "flaky_print": "the server writes a line of garbage to stdout (not JSON-RPC), then answers",
    "echo_again": "a normal call after the garbage",
    "crash": "the server process dies while this request is in flight",
}

# The secrets the server puts in its errors (fake, but shaped like real ones), and how to spot each.
SECRETS = {
    "GitHub token": "ghp_A1b2C3d4",
    "database password": "hunter2",
    "Stripe key": "sk_live_",
    "OpenAI key": "sk-proj-",
    "home path": "/home/alice",
    "traceback": "Traceback (most recent call last)",
}

WIDTH = 108
BOLD, DIM, RED, GREEN, RESET = ("\033[1m", "\033[2m", "\033[31m", "\033[32m", "\033[0m") if sys.stdout.isatty() else ("",) * 5


def run_session(command: list[str], env: dict[str, str]) -> tuple[list[dict[str, Any]], str]:
    """Runs the scripted client against `command`: its step lines, and everything `command` wrote to stderr."""
    proc = subprocess.run(
        [sys.executable, str(CLIENT), "--per-call-timeout-ms", "10000", "--", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    steps = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return steps, proc.stderr


def leaks(step: dict[str, Any]) -> list[str]:
    text = json.dumps(step, ensure_ascii=False)
    return [name for name, marker in SECRETS.items() if marker in text]


def one_line(text: str, limit: int) -> str:
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def summary(step: dict[str, Any]) -> str:
    outcome = step.get("outcome")
    if outcome == "result":
        result = step.get("result") or {}
        texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict) and c.get("type") == "text"]
        if "contents" in result:
            texts = [c.get("text", "") for c in result["contents"] if isinstance(c, dict)]
        if result.get("isError"):
            size = sum(len(t.encode()) for t in texts)
            return f"isError result ({size} bytes): {' '.join(texts)}"
        if texts:
            extra = f"; progress {step['progress']}" if "progress" in step else ""
            return f"result: {' '.join(texts)}{extra}"
        if "serverInfo" in result:
            return f"result: {result['serverInfo'].get('name')} {result['serverInfo'].get('version')}"
        if "tools" in result:
            return f"result: {len(result['tools'])} tools"
        return "result: " + json.dumps(result)
    if outcome == "error":
        e = step.get("error") or {}
        data = e.get("data")
        return f"error {e.get('code')} {e.get('message')!r}" + (f" data={json.dumps(data, ensure_ascii=False)}" if data else "")
    return f"{outcome}: {step.get('exception', '')}"


def show(label: str, step: dict[str, Any] | None) -> None:
    if step is None:
        print(f"  {label:<7} (no answer)")
        return
    found = leaks(step)
    verdict = f"{RED}✗ reached the client: {', '.join(found)}{RESET}" if found else f"{GREEN}✓ nothing leaked{RESET}"
    notes = []
    if step.get("transport_errors"):
        notes.append("the client SDK reported a transport error: " + one_line(step["transport_errors"][0], 60))
    print(f"  {label:<7} {one_line(summary(step), WIDTH)}")
    print(f"  {'':<7} {DIM}{step.get('elapsed_ms', '?')} ms{RESET}  {verdict}" + (f"  {DIM}({'; '.join(notes)}){RESET}" if notes else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guard", default=str(ROOT / "target" / "release" / "jsonrpc-errors"))
    ap.add_argument("--dialect", default="canonical")
    args = ap.parse_args()

    python = sys.executable
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    print(f"{BOLD}The bundled misbehaving MCP server, one scripted session, twice{RESET}")
    print(f"  server: {SERVER.relative_to(ROOT)} (official Python SDK)   client: official Python SDK, per-call timeout 10 s")
    print(f"  direct: the client spawns the server   guard: the client spawns `jsonrpc-errors guard --dialect {args.dialect} -- server`")

    direct, _ = run_session([python, str(SERVER)], env)
    guarded, guard_log = run_session([args.guard, "guard", "--dialect", args.dialect, "--", python, str(SERVER)], env)
    by_step = {s["step"]: s for s in guarded}
    for step in direct:
        name = step["step"]
        print(f"\n{BOLD}── {name}{RESET} {DIM}— {ABOUT.get(name, '')}{RESET}")
        show("direct", step)
        show("guard", by_step.get(name))

    print(f"\n{BOLD}What the guard logged instead (its stderr, JSON lines; the operator's view){RESET}")
    shown = {"answered", "sanitized", "redacted", "dropped", "upstream-ended", "upstream-stderr", "exit"}
    for line in guard_log.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("event") in shown:
            keep = {k: record[k] for k in ("level", "event", "kind", "code", "id", "correlation_id", "message", "detail") if k in record}
            print("  " + one_line(json.dumps(keep, ensure_ascii=False), WIDTH + 40))

    leaked_direct = sum(1 for s in direct if leaks(s))
    leaked_guard = sum(1 for s in guarded if leaks(s))
    print(f"\n{BOLD}Calls whose answer carried a secret:{RESET} direct {leaked_direct} of {len(direct)}, through the guard {leaked_guard} of {len(guarded)}")
    return 0 if leaked_guard == 0 and len(guarded) == len(direct) else 1


if __name__ == "__main__":
    sys.exit(main())
