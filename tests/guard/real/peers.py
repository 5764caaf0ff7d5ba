"""The real-peer sessions: reference MCP servers nobody here wrote, driven by both official SDK clients, once
directly and once through `jsonrpc-errors guard` (default dialect and `--dialect mcp`), with the raw wire recorded
on both sides of the guard. Shared by test_real_peers.py and conftest.py (which runs the sessions in parallel).

A session is

    driver (clients/py_driver.py | clients/ts_driver.mjs) --steps STEPS
      -> tee_stdio.py --log client-wire.jsonl                      (what the client wrote and read)
      -> [recorded.py DIR -> jsonrpc-errors guard ... -> tee_stdio.py --log server-wire.jsonl]   (guarded only)
      -> the reference server

so a guarded run has the wire on the client side of the guard and on its server side, from the same run.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GUARD_TESTS = HERE.parent
if str(GUARD_TESTS) not in sys.path:
    sys.path.insert(0, str(GUARD_TESTS))

from harness import GUARD, PY, parse_log, wait_gone, wait_group_gone  # noqa: E402

NODE = shutil.which("node") or "node"  # the system's Node (20): the reference servers and the TS client run on it
NODE22 = HERE / "node_modules" / "node" / "bin" / "node"  # npm `node@22.23.3`: only the conformance CLI needs it
TEE = HERE / "tools" / "wiretap.py"  # tee_stdio.py with buffered reads (see there)
RECORDED = GUARD_TESTS / "tools" / "recorded.py"
VENV_BIN = Path(PY).parent
NPM_BIN = HERE / "node_modules" / ".bin"
EVERYTHING = HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
FILESYSTEM = HERE / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"

CLIENTS = {
    "py": [PY, str(HERE / "clients" / "py_driver.py")],
    "ts": [NODE, str(HERE / "clients" / "ts_driver.mjs")],
}
# The guard's default dialect (no flag: `canonical`) and the MCP one.
DIALECTS = {"default": [], "mcp": ["--dialect", "mcp"]}
# A protocol revision no SDK or server knows: the Python client offers it first (py_driver.py --ahead).
AHEAD_VERSION = "2027-03-30"
PEER_SERVERS = ["everything", "filesystem", "time", "fetch", "git"]
GUARD_TIMEOUT_SECS = 10  # the guard's --timeout in the fetch sessions whose page never answers (it also
# covers the Python server's start, several seconds on a loaded machine)
SLOW_PAGE_SECS = 40  # how long /slow.txt keeps the fetch waiting (well past the guard's timeout)
SESSION_TIMEOUT = 90  # seconds for one whole client session (they take 1 to 6 s)

REDACTION_MARK = re.compile(r"\[REDACTED:[^\]]*\]")


# ─── the things the servers work on: a folder, a git repository, a loopback web site ───


class LoopbackSite:
    """A small web site on 127.0.0.1 for mcp-server-fetch: a page, a robots.txt that disallows /private/,
    a 404, and /slow.txt, which answers after SLOW_PAGE_SECS (or when `release()` is called)."""

    def __init__(self) -> None:
        released = self._released = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                path = self.path
                if path == "/robots.txt":
                    code, kind, body = 200, "text/plain", b"User-agent: *\nDisallow: /private/\n"
                elif path == "/page.txt":
                    code, kind, body = 200, "text/plain; charset=utf-8", b"A plain text page on the loopback site.\nSecond line.\n"
                elif path == "/index.html":
                    code, kind, body = 200, "text/html", b"<html><head><title>Loopback</title></head><body><h1>Hello</h1><p>A page.</p></body></html>"
                elif path.startswith("/private/"):
                    code, kind, body = 200, "text/plain", b"private"
                elif path == "/slow.txt":
                    released.wait(SLOW_PAGE_SECS)
                    code, kind, body = 200, "text/plain", b"finally"
                else:
                    code, kind, body = 404, "text/plain", b"not found"
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the fetch server gave up (the guard's timeout cancelled the call)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def release(self) -> None:
        self._released.set()

    def close(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


def make_folder(path: Path) -> Path:
    """The folder server-filesystem may read: a text file, a subfolder, a 2 MiB 'PNG' and a binary file."""
    path.mkdir(parents=True)
    (path / "hello.txt").write_text("Hello from the real-peer tests.\nSecond line.\n")
    (path / "notes").mkdir()
    (path / "notes" / "todo.md").write_text("# To do\n\n- compare direct and guarded\n")
    rng = random.Random(24)  # fixed bytes: both runs read the same file anyway; fixed keeps reruns comparable
    (path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + rng.randbytes(2 * 1024 * 1024))
    (path / "data.bin").write_bytes(rng.randbytes(64 * 1024))
    return path


def make_repo(path: Path) -> Path:
    """A git repository with two commits (fixed author and dates) and an unstaged change."""
    path.mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
           "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (path / "README.md").write_text("# demo\n")
    git("add", "README.md")
    git("commit", "-q", "-m", "first commit")
    (path / "app.py").write_text("print('hello')\n")
    git("add", "app.py")
    git("commit", "-q", "-m", "add app")
    (path / "app.py").write_text("print('hello, world')\n")  # unstaged
    return path


@dataclass
class Fixtures:
    workdir: Path
    folder: Path
    repo: Path
    site: LoopbackSite


def make_fixtures(workdir: Path) -> Fixtures:
    workdir.mkdir(parents=True, exist_ok=True)
    return Fixtures(workdir, make_folder(workdir / "folder"), make_repo(workdir / "repo"), LoopbackSite())


# ─── the reference servers and the scripted sessions ───


@dataclass
class ServerSpec:
    cmd: list[str]
    steps: list[dict[str, Any]]
    roots: list[str] = field(default_factory=list)


def call(step: str, name: str, arguments: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"step": step, "op": "call_tool", "name": name, "arguments": arguments or {}, **extra}


def large_data_uri() -> str:
    """A data: URI with 900 KiB of incompressible bytes: gzip-file-as-resource answers with ~1.2 MB of base64."""
    return "data:application/octet-stream;base64," + base64.b64encode(random.Random(42).randbytes(900 * 1024)).decode()


def server_specs(fx: Fixtures) -> dict[str, ServerSpec]:
    folder, repo, site = fx.folder, fx.repo, fx.site.base
    return {
        "everything": ServerSpec(
            [NODE, str(EVERYTHING), "stdio"],
            [
                {"step": "list_tools", "op": "list_tools"},
                call("echo", "echo", {"message": "hello"}),
                call("progress", "trigger-long-running-operation", {"duration": 0.6, "steps": 3}, progress=True),
                call("sampling", "trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20}),
                call("elicit_form", "trigger-elicitation-request"),
                call("elicit_url", "trigger-url-elicitation", {"url": "https://example.com/consent", "elicitationId": "el-1"}),
                call("url_elicitation_error", "trigger-url-elicitation",
                     {"url": "https://example.com/authorize", "errorPath": True}),
                call("image", "get-tiny-image"),
                call("large_binary", "gzip-file-as-resource",
                     {"name": "big.bin.gz", "data": large_data_uri(), "outputType": "resource"}),
                call("structured", "get-structured-content", {"location": "New York"}),
                {"step": "list_resources", "op": "list_resources"},
                {"step": "list_templates", "op": "list_resource_templates"},
                {"step": "read_resource", "op": "read_resource", "uri": "demo://resource/static/document/architecture.md"},
                {"step": "list_prompts", "op": "list_prompts"},
                {"step": "get_prompt", "op": "get_prompt", "name": "args-prompt", "arguments": {"city": "Paris", "state": "TX"}},
                call("roots", "get-roots-list"),
                call("bad_arguments", "get-sum", {"a": "one"}),
                call("unknown_tool", "no-such-tool"),
                {"step": "missing_resource", "op": "read_resource", "uri": "demo://resource/static/document/nope.md"},
            ],
            roots=[folder.as_uri()],
        ),
        "filesystem": ServerSpec(
            [NODE, str(FILESYSTEM), str(folder)],
            [
                {"step": "list_tools", "op": "list_tools"},
                call("allowed", "list_allowed_directories"),
                call("read_text", "read_text_file", {"path": str(folder / "hello.txt")}),
                call("read_head", "read_text_file", {"path": str(folder / "hello.txt"), "head": 1}),
                call("list_dir", "list_directory", {"path": str(folder)}),
                call("tree", "directory_tree", {"path": str(folder / "notes")}),
                call("read_media_large", "read_media_file", {"path": str(folder / "picture.png")}),
                call("read_media_binary", "read_media_file", {"path": str(folder / "data.bin")}),
                call("outside_allowed", "read_text_file", {"path": "/etc/hostname"}),
                call("missing_file", "read_text_file", {"path": str(folder / "missing.txt")}),
                call("bad_arguments", "read_text_file", {}),
            ],
            roots=[folder.as_uri()],
        ),
        "time": ServerSpec(
            [str(VENV_BIN / "mcp-server-time"), "--local-timezone", "UTC"],
            [
                {"step": "list_tools", "op": "list_tools"},
                call("convert", "convert_time", {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
                call("bad_timezone", "get_current_time", {"timezone": "Mars/Olympus_Mons"}),
                call("bad_time", "convert_time", {"source_timezone": "UTC", "time": "25:99", "target_timezone": "UTC"}),
                call("unknown_tool", "no_such_tool"),
            ],
        ),
        "fetch": ServerSpec(
            [str(VENV_BIN / "mcp-server-fetch"), "--allow-private-ips"],
            [
                {"step": "list_tools", "op": "list_tools"},
                call("fetch_text", "fetch", {"url": f"{site}/page.txt"}),
                call("fetch_raw_html", "fetch", {"url": f"{site}/index.html", "raw": True}),
                call("fetch_404", "fetch", {"url": f"{site}/missing"}),
                call("fetch_robots_disallowed", "fetch", {"url": f"{site}/private/report.txt"}),
                call("fetch_with_credentials", "fetch", {"url": site.replace("http://", "http://admin:hunter2@") + "/missing"}),
                {"step": "list_prompts", "op": "list_prompts"},
                {"step": "get_prompt", "op": "get_prompt", "name": "fetch", "arguments": {"url": f"{site}/page.txt"}},
                {"step": "unknown_prompt", "op": "get_prompt", "name": "no_such_prompt", "arguments": {"url": f"{site}/page.txt"}},
                call("unknown_tool", "no_such_tool"),
            ],
        ),
        "git": ServerSpec(
            [str(VENV_BIN / "mcp-server-git"), "--repository", str(repo)],
            [
                {"step": "list_tools", "op": "list_tools"},
                call("status", "git_status", {"repo_path": str(repo)}),
                call("log", "git_log", {"repo_path": str(repo), "max_count": 5}),
                call("diff_unstaged", "git_diff_unstaged", {"repo_path": str(repo)}),
                call("show", "git_show", {"repo_path": str(repo), "revision": "HEAD"}),
                call("branches", "git_branch", {"repo_path": str(repo), "branch_type": "local"}),
                call("outside_repository", "git_status", {"repo_path": str(fx.folder)}),
                call("missing_path", "git_status", {"repo_path": str(repo / "no" / "such" / "dir")}),
                call("bad_revision", "git_show", {"repo_path": str(repo), "revision": "no-such-revision"}),
                call("unknown_tool", "no_such_tool", {"repo_path": str(repo)}),
            ],
        ),
    }


# ─── running a session ───


@dataclass
class Wire:
    dir: str  # "c2s" | "s2c" | "c2s-eof" (the client side closed) | "exit" (line: the exit code)
    line: str
    msg: Any = None  # the parsed line (None if it is not JSON)


def read_wire(path: Path) -> list[Wire]:
    """The messages of a wiretap log, and its `c2s-eof` / `exit` records (`line` empty or the exit code)."""
    out = []
    if not path.exists():
        return out
    for raw in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(raw)
        if entry["dir"] not in ("c2s", "s2c"):
            out.append(Wire(entry["dir"], str(entry.get("code", "")), None))
            continue
        try:
            msg = json.loads(entry["line"])
        except ValueError:
            msg = None
        out.append(Wire(entry["dir"], entry["line"], msg))
    return out


@dataclass
class Run:
    key: str
    server: str
    client: str
    dialect: str | None  # None: direct
    dir: Path
    returncode: int
    stdout: str
    stderr: str
    lines: list[dict[str, Any]]
    client_wire: list[Wire]
    server_wire: list[Wire]
    events: list[dict[str, Any]]
    bad_log_lines: list[str]
    guard_pid: int | None
    guard_status: int | None
    upstream_pid: int | None
    leftover: list[int]
    elapsed: float

    @property
    def steps(self) -> dict[str, dict[str, Any]]:
        return {line["step"]: line for line in self.lines}

    def describe(self) -> str:
        how = "direct" if self.dialect is None else f"guarded ({self.dialect} dialect)"
        return f"{self.client} client -> {self.server} server, {how}"


def session_env() -> dict[str, str]:
    """The clients' environment (passed on to the guard and the server): no proxy, so fetches stay on loopback."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["NO_PROXY"] = env["no_proxy"] = "*"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_session(fx: Fixtures, server: str, spec: ServerSpec, client: str, dialect: str | None, *,
                tag: str = "", steps: list[dict[str, Any]] | None = None, guard_args: list[str] | None = None,
                driver_args: list[str] | None = None) -> Run:
    key = f"{server}{tag}-{client}-{dialect or 'direct'}"
    d = fx.workdir / "runs" / key
    d.mkdir(parents=True)
    (d / "steps.json").write_text(json.dumps(steps if steps is not None else spec.steps))
    upstream = list(spec.cmd)
    if dialect is not None:
        upstream = [PY, str(RECORDED), str(d), "--", str(GUARD), "guard", *DIALECTS[dialect], *(guard_args or []),
                    "--", PY, str(TEE), "--log", str(d / "server-wire.jsonl"), "--", *upstream]
    chain = [PY, str(TEE), "--log", str(d / "client-wire.jsonl"), "--", *upstream]
    roots = [a for uri in spec.roots for a in ("--root", uri)]
    cmd = [*CLIENTS[client], "--steps", str(d / "steps.json"), *roots, *(driver_args or []), "--", *chain]
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=SESSION_TIMEOUT, env=session_env())
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        returncode = -1
        stdout = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        stderr = f"session timed out after {SESSION_TIMEOUT} s\n" + ((exc.stderr or b"").decode() if isinstance(exc.stderr, bytes) else (exc.stderr or ""))
    elapsed = time.monotonic() - started
    (d / "stdout.jsonl").write_text(stdout)
    (d / "stderr.txt").write_text(stderr)
    lines = []
    for raw in stdout.splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            pass
    events: list[dict[str, Any]] = []
    bad: list[str] = []
    guard_pid = guard_status = upstream_pid = None
    leftover: list[int] = []
    if dialect is not None:
        log = d / "stderr.log"
        events, bad = parse_log(log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else [])
        if (d / "pid").exists():
            guard_pid = int((d / "pid").read_text())
        if (d / "status").exists():
            guard_status = int((d / "status").read_text())
        started_events = [e for e in events if e.get("event") == "started"]
        upstream_pid = int(started_events[0]["pid"]) if started_events else None
        leftover = wait_gone([p for p in (guard_pid, upstream_pid) if p], timeout=10)
        if upstream_pid:
            leftover += wait_group_gone(upstream_pid, timeout=10)
    return Run(key, server, client, dialect, d, returncode, stdout, stderr, lines, read_wire(d / "client-wire.jsonl"),
               read_wire(d / "server-wire.jsonl"), events, bad, guard_pid, guard_status, upstream_pid, leftover, elapsed)


# ─── what the wire says ───


def id_key(value: Any) -> str:
    """A JSON-RPC id as a comparable key (the clients and servers here spell ids canonically)."""
    return json.dumps(value, sort_keys=True)


def is_response(msg: Any) -> bool:
    return isinstance(msg, dict) and "method" not in msg and "id" in msg and ("result" in msg or "error" in msg)


def is_request(msg: Any) -> bool:
    return isinstance(msg, dict) and "method" in msg and "id" in msg


def is_error_or_is_error_result(msg: Any) -> bool:
    """What the guard is meant to rewrite: an error response, or a result with `isError: true`."""
    if not is_response(msg):
        return False
    if "error" in msg:
        return True
    result = msg.get("result")
    return isinstance(result, dict) and result.get("isError") is True


def same_modulo_redaction(sent: Any, got: Any) -> bool:
    """`got` is `sent`, except that substrings of strings may be replaced by `[REDACTED:rule]` markers (each
    standing for at least one character). Every other difference (a member dropped or added, a code, a number,
    text cut short or reworded) counts."""
    if isinstance(sent, str) and isinstance(got, str):
        if sent == got:
            return True
        if not REDACTION_MARK.search(got):
            return False
        pattern = ".+?".join(re.escape(part) for part in REDACTION_MARK.split(got))
        return re.fullmatch(pattern, sent, re.S) is not None
    if isinstance(sent, dict) and isinstance(got, dict):
        return sent.keys() == got.keys() and all(same_modulo_redaction(sent[k], got[k]) for k in sent)
    if isinstance(sent, list) and isinstance(got, list):
        return len(sent) == len(got) and all(same_modulo_redaction(a, b) for a, b in zip(sent, got))
    return type(sent) is type(got) and sent == got


def short(value: Any, limit: int = 600) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def sdk_known_error_codes() -> set[int]:
    """The error codes the official Python SDK names (mcp_types: the JSON-RPC ones, -32042 URL elicitation
    required, -32022 unsupported protocol version, ...): the ones a client acts on by code. Read from the SDK."""
    import mcp_types

    return {v for k, v in vars(mcp_types).items()
            if k.isupper() and isinstance(v, int) and not isinstance(v, bool) and -32768 <= v <= -32000}


# ─── the same sessions over Streamable HTTP (`guard --listen`) ───


@dataclass
class HttpRun:
    key: str
    server: str
    client: str
    dir: Path
    returncode: int
    stdout: str
    stderr: str
    lines: list[dict[str, Any]]
    events: list[dict[str, Any]]
    bad_log_lines: list[str]
    guard_status: int | None
    upstream_pids: list[int]
    leftover: list[int]

    @property
    def steps(self) -> dict[str, dict[str, Any]]:
        return {line["step"]: line for line in self.lines}

    def describe(self) -> str:
        return f"{self.client} client -> guard --listen -> {self.server} server"


def run_http_session(fx: Fixtures, server: str, spec: ServerSpec, client: str) -> HttpRun:
    """The scripted session over Streamable HTTP: `guard --listen 127.0.0.1:0 -- SERVER`, the driver with
    `--url`; then SIGTERM to the guard, which drains and exits 0, leaving nothing."""
    import signal as _signal

    key = f"{server}-{client}-http"
    d = fx.workdir / "runs" / key
    d.mkdir(parents=True)
    (d / "steps.json").write_text(json.dumps(spec.steps))
    log = open(d / "stderr.log", "wb")
    guard = subprocess.Popen([str(GUARD), "guard", "--listen", "127.0.0.1:0", "--", *spec.cmd], cwd=d,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=session_env())
    url = None
    deadline = time.monotonic() + 30
    while url is None and time.monotonic() < deadline and guard.poll() is None:
        for line in (d / "stderr.log").read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "listening":
                url = f"http://{event['addr']}/mcp"
        time.sleep(0.05)
    roots = [a for uri in spec.roots for a in ("--root", uri)]
    returncode, stdout, stderr = -1, "", "the guard never listened"
    if url is not None:
        cmd = [*CLIENTS[client], "--steps", str(d / "steps.json"), *roots, "--url", url]
        try:
            proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=SESSION_TIMEOUT, env=session_env())
            returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            returncode, stderr = -1, f"session timed out after {SESSION_TIMEOUT} s"
    guard.send_signal(_signal.SIGTERM)
    try:
        status = guard.wait(timeout=30)
    except subprocess.TimeoutExpired:
        guard.kill()
        status = None
    log.close()
    (d / "stdout.jsonl").write_text(stdout)
    (d / "stderr.txt").write_text(stderr)
    events, bad = parse_log((d / "stderr.log").read_text(encoding="utf-8", errors="replace").splitlines())
    pids = [int(e["pid"]) for e in events if e.get("event") == "started"]
    leftover = wait_gone(pids, timeout=10)
    for pid in pids:
        leftover += wait_group_gone(pid, timeout=10)
    lines = []
    for raw in stdout.splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            pass
    return HttpRun(key, server, client, d, returncode, stdout, stderr, lines, events, bad, status, pids, leftover)
