#!/usr/bin/env python3
"""Collects tests/corpora/benign.txt: real error and log lines that carry no secret. Standard library only.

    python3 tests/corpora/collect_benign.py            # (re)write benign.txt
    python3 tests/corpora/collect_benign.py --stdout   # print instead
    python3 tests/corpora/collect_benign.py --dropped /tmp/dropped.tsv   # also list what the fixed rules left out

The lines are captured, not invented: the error strings of real MCP servers and SDKs (read from their installed
sources, placeholders filled with typical values, and from their answers to bad calls made here over stdio), and
the real output of git, npm, pip, docker, kubectl, cargo, python3, node, curl and other tools run on throwaway
directories under /tmp, failures included. Docker's and kubectl's daemon/cluster formats (no daemon or cluster
runs here) are written from their public documentation, and marked so. What runs depends on the machine (tool
versions, time of day), so the file is a captured snapshot: re-running refreshes it, it is not expected to
reproduce it byte for byte (recall.jsonl, the generated corpus, is checked for freshness; this one is not).

Lines are kept or dropped by fixed rules, never by what the redactor does with them. Dropped: lines holding an
e-mail address, a home directory (/home/..., /Users/..., /root), a private or link-local IPv4 address (the
redactor's targets by design: PII and paths), stack-trace frames and headers (category `stacktrace`, removed by
design), blank lines, lines over 400 characters; duplicates keep their first occurrence. Trailing spaces are
trimmed.
"""

import ast
import glob
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "tests", "corpora", "benign.txt")
WORK = "/tmp/jre-benign-corpus"
VENV = os.path.join(ROOT, "bindings", "python", ".venv")
SITE = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages"))
NODE_MCP = os.path.join(ROOT, "tests", "guard", "real", "node_modules", "@modelcontextprotocol")

# --- the fixed filters -------------------------------------------------------------------------------------------
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
HOME = re.compile(r"((?<![\w.-])/home/|/Users/|(?<![\w.-])/root\b|[A-Za-z]:\\Users\\)")
PRIVATE_IP = re.compile(r"(?<![\d.])(10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3}"
                        r"|169\.254\.\d{1,3}\.\d{1,3})(?![\d.])")
FRAME = re.compile(
    r"^(Traceback \(most recent call last\):|\s*File \".*\", line \d+|\s+at\s|\tat\s|\s*\.\.\. \d+ more$|goroutine \d+ \["
    r"|\s+/.*\.go:\d+ \+0x|stack backtrace:|\s*\d+: (0x[0-9a-f]+ - )?[\w:<>]+::|\s+at \./|\s+at /rustc/|Caused by: .*\n?\tat"
    r"|thread '.*' (\(\d+\) )?panicked at )"
)


def strip_traces(lines):
    """Drops stack traces whole: a Python traceback's frames and source lines (its exception line stays), the
    chaining notes between tracebacks, and Node's source excerpt of an uncaught error (location, code, caret)."""
    out, in_python, in_excerpt = [], False, False
    for line in lines:
        if line.startswith("Traceback (most recent call last):"):
            in_python = True
            continue
        if in_python:
            if line.startswith((" ", "\t")) or not line.strip():
                continue
            in_python = False
        if line.startswith(("The above exception was the direct cause", "During handling of the above exception")):
            continue
        if re.match(r"^(node:internal/\S+|\[eval\]|/\S+\.[mc]?js):\d+$", line):
            in_excerpt = True
            continue
        if in_excerpt:
            in_excerpt = bool(line.strip())
            continue
        out.append(line)
    return out


def keep(line):
    return not (EMAIL.search(line) or HOME.search(line) or PRIVATE_IP.search(line) or FRAME.search(line)
                or len(line) > 400 or line.startswith("####"))


# --- running things ----------------------------------------------------------------------------------------------

def env(**extra):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(WORK, "home"), "LANG": "C.UTF-8",
         "TERM": "dumb", "NO_COLOR": "1", "GIT_CONFIG_NOSYSTEM": "1",
         # rustup finds its toolchains there, whatever HOME is
         "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", os.path.expanduser("~/.rustup")),
         "CARGO_HOME": os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))}
    e.update(extra)
    return e


def run(cmd, cwd=None, timeout=60, stdin=None, **extra):
    """The command's stdout and stderr lines, whatever its exit status."""
    try:
        p = subprocess.run(cmd, cwd=cwd or WORK, env=env(**extra), input=stdin, capture_output=True, text=True,
                           timeout=timeout, shell=isinstance(cmd, str))
        return (p.stdout + "\n" + p.stderr).splitlines()
    except FileNotFoundError:
        return []
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + "\n" + (e.stderr or b"").decode(errors="replace")
        return out.splitlines()


# --- MCP servers' error strings, from their sources -------------------------------------------------------------

FILLS = [
    (r"\b(e|err|ex|exc|error|cause|reason)\b|[mM]essage|stderr", None),  # the language's own error text
    (r"allowedDirectories|allowed_dir", "/srv/data, /var/lib/mcp/shared"),
    (r"dirname|directory|Dir\b|dir\b|root", "/srv/data/reports"),
    (r"[pP]ath|file|File|absolute|resolved|real", "/srv/data/reports/2026-11.csv"),
    (r"uri|Uri|URI", "file:///srv/data/reports/2026-11.csv"),
    (r"url|Url|URL|href|endpoint|origin", "https://modelcontextprotocol.io/specification/2025-06-18"),
    (r"timezone|tz|zone", "Europe/Atlantis"),
    (r"method|Method", "tools/call"),
    (r"protocol|Protocol|version|Version", "2025-06-18"),
    (r"session|Session", "3f1c9a52-7d4e-4b8a-9c61-0e2d5f7a8b94"),
    (r"task|request|[iI]d\b|event|cursor", "42"),
    (r"status|state|State", "completed"),
    (r"code|Code", "-32602"),
    (r"mime|Mime|content[tT]ype", "application/json"),
    (r"host|Host", "localhost"),
    (r"port|Port", "8080"),
    (r"header|Header", "mcp-session-id"),
    (r"branch|ref|rev|commit|target", "main"),
    (r"repo", "/srv/git/analytics"),
    (r"level|Level", "debug"),
    (r"capabilit", "sampling"),
    (r"length|size|count|max|limit|bytes|Length|Size|Count|Max|Limit|depth|lines|num", "1024"),
    (r"timeout|Timeout|ms\b|Ms\b|seconds|interval|delay|elapsed", "60000"),
    (r"time|Time", "25:61"),
    (r"tool|prompt|name|Name|key|Key|param|arg|field|property|resource", "get_forecast"),
    (r"type|Type|kind|Kind", "text"),
    (r"schema|Schema", "#/properties/city"),
]
ERROR_TEXT = {"py": "[Errno 111] Connection refused", "js": "connect ECONNREFUSED 127.0.0.1:5432"}


def fill(expr, lang):
    for pattern, value in FILLS:
        if re.search(pattern, expr):
            return ERROR_TEXT[lang] if value is None else value
    return "example"


def py_message(node):
    """A str constant or an f-string, with its placeholders filled; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                out += str(part.value)
            elif isinstance(part, ast.FormattedValue):
                value = fill(ast.unparse(part.value), "py")
                out += repr(value) if part.conversion == ord("r") else value
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = py_message(node.left)
        if left is None:
            return None
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        values = iter([fill(ast.unparse(a), "py") for a in args])
        return re.sub(r"%[sdr]", lambda m: next(values, "example"), left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return py_message(node.func.value)
    return None


def call_name(node):
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def python_sources():
    """Exception messages raised, MCP errors built, and errors logged by the installed MCP Python packages."""
    lines = []
    for pkg in ["mcp_server_time", "mcp_server_git", "mcp_server_fetch", "mcp"]:
        for path in sorted(glob.glob(os.path.join(SITE[0], pkg, "**", "*.py"), recursive=True)):
            try:
                tree = ast.parse(open(path, encoding="utf-8").read())
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                    msg = py_message(node.exc.args[0])
                    if msg:
                        lines.append(f"{call_name(node.exc)}: {msg}")
                elif isinstance(node, ast.Call) and call_name(node) in ("ErrorData", "MCPError", "McpError"):
                    for kw in node.keywords:
                        if kw.arg == "message":
                            msg = py_message(kw.value)
                            if msg:
                                lines.append(msg)
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr in ("error", "warning", "exception", "critical") and node.args):
                    base = node.func.value
                    if isinstance(base, ast.Name) and base.id in ("logger", "logging", "log", "_logger"):
                        msg = py_message(node.args[0])
                        if msg and len(node.args) > 1:
                            values = iter([fill(ast.unparse(a), "py") for a in node.args[1:]])
                            msg = re.sub(r"%[sdr]", lambda m: next(values, "example"), msg)
                        if msg:
                            lines.append(f"{node.func.attr.upper()}:{base.id}:{msg}" if base.id != "logging" else msg)
    return [l for msg in lines for l in msg.split("\n")]


JS_LITERAL = r"(`(?:[^`\\]|\\.)*`|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
MCP_CODES = {"ParseError": -32700, "InvalidRequest": -32600, "MethodNotFound": -32601, "InvalidParams": -32602,
             "InternalError": -32603, "ConnectionClosed": -32000, "RequestTimeout": -32001, "UrlElicitationRequired": -32042}


def js_literal(lit):
    body = lit[1:-1]
    if lit[0] == "`":
        body = re.sub(r"\$\{((?:[^{}]|\{[^{}]*\})*)\}", lambda m: fill(m.group(1), "js"), body)
    body = body.replace("\\n", "\n").replace("\\t", "\t").replace("\\'", "'").replace('\\"', '"').replace("\\`", "`")
    return body.replace("\\\\", "\\")


def node_sources():
    """Errors thrown, MCP errors built, and errors logged by the reference servers and the SDKs (their dist/)."""
    lines = []
    packages = ["server-filesystem", "server-everything", "sdk", "core", "server", "client", "node"]
    for pkg in packages:
        files = sorted(glob.glob(os.path.join(NODE_MCP, pkg, "dist", "**", "*.js"), recursive=True)
                       + glob.glob(os.path.join(NODE_MCP, pkg, "dist", "**", "*.mjs"), recursive=True))
        for path in files:
            if "__tests__" in path or ".test." in path or "/cjs/" in path:
                continue
            src = open(path, encoding="utf-8", errors="replace").read()
            for m in re.finditer(r"new (\w*Error)\(\s*" + JS_LITERAL, src):
                lines.append(f"{m.group(1)}: {js_literal(m.group(2))}")
            for m in re.finditer(r"new (?:McpError|ProtocolError)\(\s*(?:ErrorCode|ProtocolErrorCode)\.(\w+)\s*,\s*" + JS_LITERAL, src):
                code = MCP_CODES.get(m.group(1), -32603)
                lines.append(f"MCP error {code}: {js_literal(m.group(2))}")
            for m in re.finditer(r"console\.(?:error|warn)\(\s*" + JS_LITERAL, src):
                lines.append(js_literal(m.group(1)))
    return [l for msg in lines for l in msg.split("\n")]


# --- MCP servers' answers to bad calls, live over stdio -----------------------------------------------------------

class Stdio:
    def __init__(self, cmd, cwd):
        self.p = subprocess.Popen(cmd, cwd=cwd, env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        self.next_id = 0

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params, timeout=20):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        deadline = time.time() + timeout
        while time.time() < deadline:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if msg.get("id") == self.next_id and ("result" in msg or "error" in msg):
                    return msg
            ready, _, _ = select.select([self.p.stdout], [], [], max(0.0, deadline - time.time()))
            if not ready:
                break
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                break
            self.buf += chunk
        return None

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()
            self.p.wait()
        return self.p.stderr.read().decode(errors="replace").splitlines()


def texts(msg):
    """What a client shows of an answer: the error's message and data, or an isError result's text."""
    if not msg:
        return []
    if "error" in msg:
        out = [msg["error"].get("message", "")]
        data = msg["error"].get("data")
        if isinstance(data, str):
            out.append(data)
        return out
    result = msg.get("result") or {}
    if result.get("isError"):
        return [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
    return []


def live_mcp():
    """Bad calls to the real servers; their answers and stderr."""
    lines = []
    fsdir = os.path.join(WORK, "fs-root")
    os.makedirs(os.path.join(fsdir, "reports"), exist_ok=True)
    open(os.path.join(fsdir, "reports", "q3.csv"), "w").write("region,total\nemea,1200\n")
    repo = os.path.join(WORK, "mcp-git-repo")
    run(["git", "init", "-q", repo])
    node = shutil.which("node") or "node"
    servers = [
        ([os.path.join(VENV, "bin", "mcp-server-time")], [
            ("get_current_time", {"timezone": "Mars/Olympus_Mons"}), ("get_current_time", {}),
            ("convert_time", {"source_timezone": "Europe/Berlin", "time": "25:61", "target_timezone": "Asia/Tokyo"}),
            ("convert_time", {"source_timezone": "Nowhere/City", "time": "10:00", "target_timezone": "UTC"}),
            ("convert_time", {"source_timezone": "UTC", "time": "10:00", "target_timezone": "Invalid/Zone"}),
            ("get_weather", {"city": "Berlin"}),
        ]),
        ([os.path.join(VENV, "bin", "mcp-server-git")], [
            ("git_status", {"repo_path": "/srv/git/missing"}), ("git_status", {"repo_path": "/tmp"}),
            ("git_log", {"repo_path": repo, "max_count": 5}), ("git_diff", {"repo_path": repo, "target": "no-such-branch"}),
            ("git_checkout", {"repo_path": repo, "branch_name": "feature/none"}), ("git_show", {"repo_path": repo, "revision": "deadbeef"}),
            ("git_create_branch", {"repo_path": repo, "branch_name": "topic", "base_branch": "nope"}),
            ("git_add", {"repo_path": repo, "files": ["missing.txt"]}), ("git_commit", {"repo_path": repo, "message": "empty"}),
            ("git_reset", {"repo_path": "/srv/git/missing"}), ("git_branch", {"repo_path": repo, "branch_type": "sideways"}),
            ("git_init", {"repo_path": "/proc/version"}), ("git_frobnicate", {}),
        ]),
        ([os.path.join(VENV, "bin", "mcp-server-fetch")], [
            ("fetch", {"url": "http://127.0.0.1:9/status"}), ("fetch", {"url": "not a url"}),
            ("fetch", {"url": "ftp://example.com/file.txt"}), ("fetch", {"url": "http://127.0.0.1:9/", "max_length": -5}),
            ("fetch", {}), ("fetch_all", {"url": "https://example.com"}),
        ]),
        ([node, os.path.join(NODE_MCP, "server-filesystem", "dist", "index.js"), fsdir], [
            ("read_text_file", {"path": "/etc/passwd"}), ("read_text_file", {"path": os.path.join(fsdir, "missing.txt")}),
            ("read_text_file", {"path": os.path.join(fsdir, "reports", "q3.csv"), "head": 1, "tail": 1}),
            ("write_file", {"path": "/var/tmp/out.txt", "content": "x"}), ("list_directory", {"path": os.path.join(fsdir, "nope")}),
            ("create_directory", {"path": "/opt/elsewhere"}), ("move_file", {"source": os.path.join(fsdir, "a"), "destination": os.path.join(fsdir, "b")}),
            ("edit_file", {"path": os.path.join(fsdir, "reports", "q3.csv"), "edits": [{"oldText": "apac", "newText": "x"}]}),
            ("get_file_info", {"path": "relative/path.txt"}), ("search_files", {"path": "/usr", "pattern": "*.so"}),
            ("directory_tree", {"path": "/srv/none"}), ("read_media_file", {"path": os.path.join(fsdir, "img.png")}),
            ("read_multiple_files", {"paths": ["/etc/hosts", os.path.join(fsdir, "x.txt")]}), ("list_allowed_directories", {"extra": 1}),
            ("delete_file", {"path": "/tmp/x"}),
        ]),
        ([node, os.path.join(NODE_MCP, "server-everything", "dist", "index.js")], [
            ("echo", {}), ("get-sum", {"a": "one", "b": 2}), ("get-tiny-image", {"size": -1}), ("trigger-long-running-operation", {"duration": "x"}),
            ("get-resource-reference", {"resourceId": 9999}), ("get-annotated-message", {"messageType": "shout"}),
            ("nonexistent-tool", {}), ("get-structured-content", {"location": "Atlantis"}),
        ]),
    ]
    for cmd, calls in servers:
        if not os.path.exists(cmd[-1] if cmd[0] == node else cmd[0]):
            continue
        s = Stdio(cmd, WORK)
        init = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "benign-corpus", "version": "0.1.0"}})
        if init is None:
            lines += s.close()
            continue
        s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for name, args in calls:
            lines += texts(s.request("tools/call", {"name": name, "arguments": args}))
        for method, params in [("resources/read", {"uri": "file:///nonexistent"}), ("prompts/get", {"name": "no-such-prompt"}),
                               ("no/such/method", {}), ("tools/call", {"arguments": {}}), ("resources/read", {"uri": "demo://resource/static/document/9999"})]:
            lines += texts(s.request(method, params, timeout=10))
        lines += s.close()
    return [l for t in lines for l in t.split("\n")]


# --- tools run here --------------------------------------------------------------------------------------------

def git():
    d = os.path.join(WORK, "git")
    os.makedirs(d, exist_ok=True)
    g = lambda *a, **kw: run(["git", "-c", "user.name=CI Builder", "-c", "user.email=ci@example.invalid",
                              "-c", "init.defaultBranch=main", "-c", "advice.detachedHead=true", *a], cwd=kw.get("cwd", d))
    out = []
    out += g("init")
    out += g("status")
    open(os.path.join(d, "app.py"), "w").write("print('hello')\n")
    open(os.path.join(d, "README.md"), "w").write("# demo\n")
    out += g("status", "--short")
    out += g("add", ".")
    out += g("commit", "-m", "Initial commit")
    out += g("commit", "-m", "nothing")
    out += g("checkout", "-b", "feature/report")
    open(os.path.join(d, "app.py"), "w").write("print('hello, report')\n")
    out += g("commit", "-am", "Report greeting")
    out += g("checkout", "main")
    open(os.path.join(d, "app.py"), "w").write("print('hello, main')\n")
    out += g("commit", "-am", "Main greeting")
    out += g("merge", "feature/report")
    out += g("status")
    out += g("diff")
    out += g("merge", "--abort")
    out += g("rebase", "feature/report")
    out += g("rebase", "--abort")
    out += g("log", "--oneline", "--all", "--graph")
    out += g("log", "-3", "--format=commit %H%nDate:   %ad%n%n    %s%n", "--date=iso")
    out += g("show", "--stat", "--format=%H %s", "HEAD")
    out += g("branch", "-a", "-v")
    out += g("tag", "-a", "v1.2.0", "-m", "Release 1.2.0")
    out += g("describe", "--tags")
    out += g("checkout", "v1.2.0")
    out += g("checkout", "main")
    out += g("checkout", "no-such-branch")
    out += g("switch", "missing-branch")
    out += g("rev-parse", "HEAD~10")
    out += g("show", "deadbeef")
    out += g("cherry-pick", "0123456789abcdef0123456789abcdef01234567")
    out += g("revert", "--no-edit", "HEAD")
    out += g("reset", "--hard", "HEAD~1")
    out += g("stash")
    open(os.path.join(d, "notes.txt"), "w").write("todo\n")
    out += g("stash", "-u")
    out += g("stash", "list")
    out += g("stash", "pop")
    out += g("clean", "-n")
    out += g("remote", "add", "origin", "https://git.example.org/acme/demo.git")
    out += g("remote", "-v")
    out += g("fetch", "file:///srv/git/missing.git")
    out += g("push", "file:///srv/git/missing.git", "main")
    out += g("clone", "file:///srv/git/missing.git", os.path.join(WORK, "clone-target"))
    out += g("clone", os.path.join(d), os.path.join(WORK, "git-clone"))
    out += g("pull", "--ff-only", "file:///srv/git/missing.git", "main")
    out += g("blame", "app.py")
    out += g("bisect", "start")
    out += g("bisect", "reset")
    out += g("gc", "--quiet")
    out += g("fsck")
    out += g("count-objects", "-v")
    out += g("ls-files", "-s")
    out += g("cat-file", "-p", "HEAD")
    out += g("worktree", "list")
    out += g("submodule", "add", "file:///srv/git/missing.git", "vendor/lib")
    out += g("apply", "/srv/patches/missing.patch")
    out += g("am", "/srv/patches/missing.mbox")
    out += g("config", "--get", "remote.upstream.url")
    out += g("notes", "show")
    out += g("shortlog", "-sn", "HEAD")
    out += g("status", cwd="/tmp")
    out += g("frobnicate")
    out += g("log", "--oneline", "-1", cwd=os.path.join(WORK, "not-a-dir"))
    return out


def npm():
    d = os.path.join(WORK, "npm-project")
    os.makedirs(d, exist_ok=True)
    kw = dict(npm_config_registry="http://127.0.0.1:9/", npm_config_cache=os.path.join(WORK, "npm-cache"),
              npm_config_fetch_retries="0", npm_config_fetch_timeout="2000", npm_config_update_notifier="false",
              npm_config_fund="false", npm_config_audit="false", npm_config_loglevel="warn")
    n = lambda *a, cwd=d: run(["npm", *a], cwd=cwd, timeout=120, **kw)
    out = []
    out += n("init", "-y")
    out += n("pkg", "set", "scripts.build=node build.js")
    out += n("run", "build")
    out += n("run", "lint")
    out += n("test")
    out += n("install", "left-pad@1.3.0")
    out += n("install", "@acme/does-not-exist")
    out += n("ci")
    out += n("ls")
    out += n("ls", "--all", "--json")
    out += n("outdated")
    out += n("view", "express", "version")
    out += n("audit")
    out += n("pack", "--dry-run")
    out += n("publish", "--dry-run")
    out += n("version", "patch", "--no-git-tag-version")
    out += n("version", "banana")
    out += n("explain", "left-pad")
    out += n("uninstall", "left-pad")
    out += n("install", "./vendor/missing-pkg")
    out += n("config", "get", "registry")
    out += n("exec", "--", "tsc", "--version")
    out += n("frobnicate")
    open(os.path.join(d, "package.json"), "a").write("{ broken")
    out += n("install")
    out += n("run", "build")
    out += n("ls", cwd="/tmp")
    return out


def pip():
    venv = os.path.join(WORK, "venv")
    run([sys.executable, "-m", "venv", venv])
    p = lambda *a: run([os.path.join(venv, "bin", "pip"), *a], timeout=120, PIP_INDEX_URL="http://127.0.0.1:9/simple",
                       PIP_RETRIES="0", PIP_TIMEOUT="2", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    project_pip = lambda *a: run([os.path.join(VENV, "bin", "pip"), *a], timeout=120, PIP_DISABLE_PIP_VERSION_CHECK="1")
    open(os.path.join(WORK, "requirements.txt"), "w").write("requests>=2.31\nnumpy==1.26.4\nthis is not valid\n")
    out = []
    out += p("--version")
    out += p("install", "requests==2.32.3")
    out += p("install", "no-such-package-xyz")
    out += p("install", "-r", os.path.join(WORK, "requirements.txt"))
    out += p("install", "-r", "/srv/app/missing-requirements.txt")
    out += p("install", "numpy>>1.0")
    out += p("install", "--no-index", "--find-links", "/srv/wheels", "pandas")
    out += p("install", "./not-a-project")
    out += p("uninstall", "-y", "flask")
    out += p("show", "flask")
    out += p("download", "six", "-d", os.path.join(WORK, "dl"))
    out += p("wheel", "--no-deps", "-w", os.path.join(WORK, "wheels"), "/srv/src/missing")
    out += p("check")
    out += p("list")
    out += p("config", "list")
    out += p("cache", "dir")
    out += p("frobnicate")
    out += p("install", "--only-binary=:all:", "--platform", "win_amd64", "--target", os.path.join(WORK, "t"), "pywin32")
    out += p("hash", "/usr/bin/env")
    out += p("index", "versions", "requests")
    out += project_pip("list")
    out += project_pip("check")
    out += project_pip("show", "httpx", "pydantic", "mcp")
    out += project_pip("freeze")
    out += p("debug", "--verbose")[:60]
    return out


def docker_kubectl_real():
    out = []
    for cmd in (["docker", "ps"], ["docker", "pull", "alpine:3.20"], ["docker", "run", "--rm", "nginx:1.27"], ["docker", "images"],
                ["docker", "build", "-t", "acme/api:1.4.2", "."], ["docker", "info"], ["docker", "version"], ["docker", "context", "ls"],
                ["docker", "inspect", "web"], ["docker", "logs", "web"], ["docker", "compose", "version"], ["docker", "compose", "up", "-d"],
                ["docker", "buildx", "version"], ["docker", "network", "ls"], ["docker", "volume", "ls"], ["docker", "frobnicate"],
                ["docker", "run", "--memory", "lots", "alpine"]):
        out += run(cmd, timeout=30, DOCKER_HOST="unix:///var/run/docker.sock")
    d = os.path.join(WORK, "k8s")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "deploy.yaml"), "w").write(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n"
        "  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27.2\n")
    open(os.path.join(d, "broken.yaml"), "w").write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n data: {}\n")
    k = lambda *a: run(["kubectl", *a], cwd=d, timeout=30, KUBECONFIG=os.path.join(WORK, "kubeconfig-none"))
    for args in (("get", "pods"), ("get", "nodes", "-o", "wide"), ("version", "--client"), ("config", "view"), ("config", "current-context"),
                 ("apply", "-f", "missing.yaml"), ("apply", "-f", "broken.yaml"), ("apply", "-f", "deploy.yaml", "--dry-run=client"),
                 ("create", "deployment", "api", "--image=ghcr.io/acme/api:1.4.2", "--dry-run=client", "-o", "yaml"),
                 ("create", "configmap", "app-config", "--from-literal=LOG_LEVEL=info", "--dry-run=client", "-o", "yaml"),
                 ("logs", "web-5d8f7c9b6d-x2k4p"), ("describe", "pod", "web"), ("rollout", "status", "deployment/web"),
                 ("frobnicate",), ("get", "pods", "--selector", "app=")):
        out += k(*args)
    return out


def cargo():
    d = os.path.join(WORK, "cargo-demo")
    if os.path.exists(d):
        shutil.rmtree(d)
    out = run(["cargo", "new", "--vcs", "none", d], timeout=120)
    if not os.path.exists(os.path.join(d, "src")):
        return out
    open(os.path.join(d, "src", "main.rs"), "w").write(
        "use std::collections::HashMap;\nfn main() {\n    let count: u32 = \"12\";\n    println!(\"{}\", undefined_value);\n"
        "    let v = vec![1, 2, 3];\n    let s: &str = v;\n}\n")
    out += run(["cargo", "build", "--offline", "--color", "never"], cwd=d, timeout=300, CARGO_TARGET_DIR=os.path.join(WORK, "cargo-target"))
    open(os.path.join(d, "src", "main.rs"), "w").write(
        "fn parse(s: &str) -> u32 { s.parse().unwrap() }\nfn main() {\n    println!(\"{}\", parse(\"forty-two\"));\n}\n"
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::parse(\"2\"), 3); }\n}\n")
    out += run(["cargo", "run", "--offline", "--color", "never"], cwd=d, timeout=300, CARGO_TARGET_DIR=os.path.join(WORK, "cargo-target"))
    out += run(["cargo", "test", "--offline", "--color", "never"], cwd=d, timeout=300, CARGO_TARGET_DIR=os.path.join(WORK, "cargo-target"))
    out += run(["cargo", "add", "serde", "--offline"], cwd=d, timeout=60, CARGO_HOME=os.path.join(WORK, "cargo-home"))
    out += run(["cargo", "build", "--offline", "-p", "nonexistent"], cwd=d, timeout=60)
    out += run(["cargo", "frobnicate"], cwd=d, timeout=60)
    out += run(["cargo", "build"], cwd="/tmp", timeout=60)
    return out


PYTHON_SNIPPETS = [
    "1/0", "import no_such_module", "import json; json.loads('not json')", "open('/srv/data/missing.csv')",
    "{'user_id': 1}['account_id']", "None.get('x')", "1 + 'a'", "int('abc')", "[1, 2][5]", "import os; os.listdir('/srv/missing')",
    "import socket; socket.create_connection(('127.0.0.1', 9), timeout=2)", "import socket; socket.getaddrinfo('db.invalid', 5432)",
    "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9/health', timeout=2)",
    "b'\\xff'.decode('utf-8')", "open('/proc/1/mem', 'rb').read()", "import datetime; datetime.date(2026, 2, 30)",
    "import datetime; datetime.datetime.strptime('21/11/2026', '%Y-%m-%d')", "float('nan') < None",
    "def f(): f()\nf()", "raise TimeoutError('operation timed out after 30.0 seconds')", "import uuid; uuid.UUID('not-a-uuid')",
    "import ipaddress; ipaddress.ip_address('999.1.1.1')", "import base64; base64.b64decode('abc')", "assert 1 == 2, 'expected 2 replicas, got 1'",
    "import zoneinfo; zoneinfo.ZoneInfo('Mars/Olympus_Mons')", "import subprocess; subprocess.run(['false'], check=True)",
    "import subprocess; subprocess.run(['/usr/bin/does-not-exist'])", "import sqlite3; sqlite3.connect(':memory:').execute('select * from users')",
    "import sqlite3; c = sqlite3.connect(':memory:'); c.execute('create table t (id integer primary key)'); c.execute('insert into t values (1)'); c.execute('insert into t values (1)')",
    "import asyncio; asyncio.run(asyncio.wait_for(asyncio.sleep(1), 0.01))", "import ssl, socket; ssl.create_default_context().wrap_socket(socket.socket(), server_hostname='x').connect(('127.0.0.1', 9))",
    "import tomllib; tomllib.loads('a = ')", "import csv, io; list(csv.reader(io.StringIO('a,\"b')), strict=True)",
    "import re; re.compile('(unclosed')", "import math; math.sqrt(-1)", "x = {}; x.append(1)", "import os; os.environ['DATABASE_HOST']",
    "import shutil; shutil.copy('/srv/a.txt', '/srv/b.txt')", "import pathlib; pathlib.Path('/etc/hostname').write_text('x')",
    "import http.client; c = http.client.HTTPConnection('127.0.0.1', 9, timeout=2); c.request('GET', '/')",
    "import struct; struct.unpack('>I', b'ab')", "import decimal; decimal.Decimal('1.2.3')", "'{name}'.format(nme='x')",
    "import email.utils; email.utils.parsedate_to_datetime('yesterday')", "memoryview(b'x')[5]", "list(range(3)).index(7)",
    "import json; json.dumps({1: object()})", "import gzip; gzip.decompress(b'not gzip')", "import zipfile; zipfile.ZipFile('/etc/hostname')",
]

NODE_SNIPPETS = [
    "undefined.map(x => x)", "notDefined + 1", "JSON.parse('not json')", "require('fs').readFileSync('/srv/config.json')",
    "require('no-such-module')", "null.id", "new Array(-1)", "(function f(){ f() })()", "require('fs').mkdirSync('/proc/x')",
    "require('net').connect(9, '127.0.0.1').on('error', e => { console.error(e.message); console.error(e.code) })",
    "require('dns').lookup('db.invalid', e => { console.error(e.message) })",
    "fetch('http://127.0.0.1:9/health').catch(e => { console.error(e.message); console.error(String(e.cause)) })",
    "new URL('not a url')", "Buffer.alloc(-5)", "BigInt(1.5)", "'x'.repeat(-1)", "Symbol() + ''", "new Date('x').toISOString()",
    "require('assert').strictEqual(1, 2)", "require('assert').deepStrictEqual({replicas: 2}, {replicas: 3})", "structuredClone(() => 1)",
    "const a = 1; a = 2", "require('child_process').execSync('exit 3')", "process.chdir('/srv/missing')",
    "require('zlib').gunzipSync(Buffer.from('plain'))", "new TextDecoder('utf-8', {fatal: true}).decode(new Uint8Array([0xff]))",
    "require('crypto').createHash('sha999')", "require('fs').readdirSync('/etc/hostname')", "Promise.reject(new Error('upstream timed out after 30000ms'))",
    "new Intl.DateTimeFormat('en', {timeZone: 'Mars/Olympus_Mons'})", "require('http').get('http://127.0.0.1:9/').on('error', e => console.error(e.message))",
    "encodeURIComponent('\\uD800')", "decodeURIComponent('%')", "new RegExp('(')", "({}).x.y", "require('fs').writeFileSync('/etc/hostname', 'x')",
]


def runtimes():
    out = []
    for snippet in PYTHON_SNIPPETS:
        out += run([sys.executable, "-c", snippet], timeout=30)
    node = shutil.which("node")
    if node:
        for snippet in NODE_SNIPPETS:
            out += run([node, "-e", snippet], timeout=30)
    java = shutil.which("java")
    if java:
        out += run([java, "-version"], timeout=30)
        out += run([java, "-jar", "/srv/app/missing.jar"], timeout=30)
        out += run([java, "-cp", "/tmp", "com.acme.Main"], timeout=30)
        out += run([java, "-Xmx1q", "-version"], timeout=30)
    return out


def system_tools():
    out = []
    cmds = [
        ["curl", "-sS", "http://127.0.0.1:9/health"], ["curl", "-sS", "https://db.invalid/"], ["curl", "-sS", "--max-time", "1", "http://127.0.0.1:9"],
        ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}\\n", "file:///etc/hostname"], ["curl", "-sS", "htp://bad-scheme"],
        ["curl", "--version"], ["wget", "-q", "-O-", "http://127.0.0.1:9/"], ["wget", "--version"],
        ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-p", "9", "deploy@127.0.0.1"], ["ssh", "-V"],
        ["ls", "/srv/missing"], ["cat", "/etc/missing.conf"], ["mkdir", "/proc/new"], ["cp", "/srv/a", "/srv/b"], ["rm", "/srv/none"],
        ["tar", "-xzf", "/srv/backup/missing.tar.gz"], ["chmod", "644", "/srv/none"], ["touch", "/proc/x"], ["ln", "-s", "/a", "/proc/b"],
        ["stat", "/srv/none"], ["head", "-n1", "/srv/none"], ["grep", "-r", "needle", "/srv/none"], ["find", "/srv/none"],
        ["uname", "-srm"], ["df", "-h", "/"], ["du", "-sh", "/usr/share/doc"], ["id", "nosuchuser"], ["getent", "hosts", "db.invalid"],
        ["nproc"], ["free", "-h"], ["uptime"], ["date", "-u", "+%Y-%m-%dT%H:%M:%SZ"], ["date", "-u", "-R"], ["date", "-u"],
        ["date", "-u", "+%s"], ["date", "-u", "--iso-8601=ns"], ["date", "-d", "not a date"], ["openssl", "version"],
        ["openssl", "x509", "-in", "/srv/certs/missing.pem", "-noout"], ["openssl", "s_client", "-connect", "127.0.0.1:9"],
        ["sha256sum", "/etc/hostname", "/usr/bin/env", "/usr/bin/ls", "/usr/bin/cat", "/usr/bin/git", "/usr/bin/node", "/usr/bin/curl"],
        ["sha1sum", "/usr/bin/env", "/usr/bin/ls"], ["md5sum", "/usr/bin/env", "/usr/bin/ls"], ["sha256sum", "/srv/missing.tar.gz"],
        ["python3", "--version"], ["node", "--version"], ["npm", "--version"], ["git", "--version"], ["rustc", "--version"],
        ["cargo", "--version"], ["docker", "--version"], ["kubectl", "version", "--client", "-o", "json"], ["java", "--version"],
        ["python3", "-m", "json.tool", "/etc/hostname"], ["python3", "-m", "http.server", "--bind", "999.0.0.1", "1"],
        ["python3", "/srv/app/missing.py"], ["node", "/srv/app/missing.js"], ["sh", "-c", "exit 7"], ["sh", "-c", "nosuchcommand"],
        ["bash", "-c", "set -u; echo $UNSET_VARIABLE"], ["env", "-i", "/usr/bin/does-not-exist"], ["timeout", "0.2", "sleep", "5"],
        ["crontab", "-l"], ["nslookup", "db.invalid"], ["dig", "+short", "db.invalid"], ["ping", "-c", "1", "-W", "1", "db.invalid"],
        ["nc", "-z", "-w", "1", "127.0.0.1", "9"], ["sqlite3", "/srv/none.db", ".tables"], ["make", "-C", "/tmp", "build"],
        ["gzip", "-t", "/etc/hostname"], ["unzip", "-l", "/etc/hostname"], ["xz", "-t", "/etc/hostname"], ["base64", "-d", "/etc/hostname"],
    ]
    for cmd in cmds:
        if shutil.which(cmd[0]):
            out += run(cmd, timeout=20)
    return out


PUBLIC_FORMATS_DOCKER = """\
Error response from daemon: pull access denied for acme/private-api, repository does not exist or may require 'docker login': denied: requested access to the resource is denied
Error response from daemon: manifest for nginx:1.99 not found: manifest unknown: manifest unknown
Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)
Error response from daemon: driver failed programming external connectivity on endpoint web (3f6c2a1b9d8e): Bind for 0.0.0.0:8080 failed: port is already allocated
Error response from daemon: Conflict. The container name "/web" is already in use by container "8b1f2c3d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c". You have to remove (or rename) that container to be able to reuse that name.
Error response from daemon: No such container: web
Error response from daemon: No such image: acme/api:1.4.2
Error response from daemon: conflict: unable to delete 5d0da3dc9764 (must be forced) - image is being used by stopped container 7e2c1f0a9b3d
Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "uvicorn": executable file not found in $PATH: unknown
Error response from daemon: Container 8b1f2c3d4e5a is not running
Error response from daemon: pull access denied for ghcr.io/acme/worker, repository does not exist or may require 'docker login'
docker: Error response from daemon: invalid reference format: repository name (Acme/API) must be lowercase.
docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "./start.sh": permission denied: unknown.
Unable to find image 'alpine:3.20' locally
3.20: Pulling from library/alpine
c6a83fedfae6: Pull complete
Digest: sha256:beefdbd8a1da6d2915566fde36db9db0b524eb737fc57cd1367effd16dc0d06d
Status: Downloaded newer image for alpine:3.20
docker.io/library/alpine:3.20
1.27.2: Pulling from library/nginx
a480a496ba95: Already exists
f3ace1b8ce45: Pull complete
11d6fdd0e8a7: Pull complete
f1091da6fd5c: Pull complete
40eea07b53d8: Waiting
6476794e50f4: Downloading  6.791MB/41.83MB
70850b3ec6b2: Extracting  1.671kB/1.671kB
Digest: sha256:28402db69fec7c17e179ea87882667f1e054391138f77ffaf0c3eb388efc3ffb
Status: Image is up to date for nginx:1.27.2
CONTAINER ID   IMAGE                    COMMAND                  CREATED          STATUS                      PORTS                    NAMES
8b1f2c3d4e5a   nginx:1.27.2             "/docker-entrypoint.…"   3 minutes ago    Up 3 minutes                0.0.0.0:8080->80/tcp     web
7e2c1f0a9b3d   postgres:16.4            "docker-entrypoint.s…"   2 hours ago      Exited (1) 2 hours ago                               db
4c9a0e1f2b3d   redis:7.4-alpine         "docker-entrypoint.s…"   2 days ago       Restarting (1) 4 seconds ago                         cache
REPOSITORY        TAG          IMAGE ID       CREATED         SIZE
acme/api          1.4.2        5d0da3dc9764   2 days ago      187MB
nginx             1.27.2       3b25b682ea82   5 weeks ago     192MB
postgres          16.4         b781f3a53e61   7 weeks ago     432MB
#0 building with "default" instance using docker driver
#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: 612B done
#1 DONE 0.0s
#2 [internal] load metadata for docker.io/library/python:3.12-slim
#2 DONE 1.2s
#5 [2/6] WORKDIR /app
#5 CACHED
#6 [3/6] COPY requirements.txt .
#7 [4/6] RUN pip install --no-cache-dir -r requirements.txt
#7 4.211 ERROR: Could not find a version that satisfies the requirement fastapi==9.9.9 (from versions: 0.115.4, 0.115.5)
#7 4.212 ERROR: No matching distribution found for fastapi==9.9.9
#7 ERROR: process "/bin/sh -c pip install --no-cache-dir -r requirements.txt" did not complete successfully: exit code: 1
ERROR: failed to solve: process "/bin/sh -c pip install --no-cache-dir -r requirements.txt" did not complete successfully: exit code: 1
ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref 6c1b5a3f-8e2d-4f7a-9b0c-1d2e3f4a5b6c::k3m9x2p7q1w5: "/dist": not found
ERROR: failed to solve: python:3.13-slim-bookworm: failed to resolve source metadata for docker.io/library/python:3.13-slim-bookworm: not found
 => ERROR [build 5/7] RUN npm ci                                                                                 12.4s
 => exporting to image                                                                                            0.4s
 => => writing image sha256:5d0da3dc976486ba31ba6d5e6ad8ac2ae2ec2c39c4e7fb2d0c4d0e36ef3a9b71                     0.0s
 => => naming to docker.io/acme/api:1.4.2                                                                         0.0s
 ! web Warning pull access denied for acme/web, repository does not exist or may require 'docker login'
 ✔ Network demo_default  Created
 ✔ Container demo-db-1   Started
 ✘ Container demo-api-1  Error
dependency failed to start: container demo-db-1 is unhealthy
service "api" depends on undefined service "cache": invalid compose project
yaml: line 12: did not find expected key
validating /srv/app/compose.yaml: services.api.ports.0 must be a string or number
WARN[0000] /srv/app/compose.yaml: the attribute `version` is obsolete, it will be ignored, please remove it to avoid potential confusion
Error: No such object: web
"docker build" requires exactly 1 argument.
unknown flag: --detach-keys-x
See 'docker run --help'.
docker: invalid reference format.
exec /usr/local/bin/docker-entrypoint.sh: exec format error
standard_init_linux.go:228: exec user process caused: no such file or directory
"""

PUBLIC_FORMATS_KUBECTL = """\
NAME                      READY   STATUS             RESTARTS        AGE
web-5d8f7c9b6d-x2k4p      1/1     Running            0               3d4h
web-5d8f7c9b6d-q9w7z      0/1     CrashLoopBackOff   12 (2m ago)     41m
api-7c9d8e6f5b-m3n4p      0/1     ImagePullBackOff   0               8m
worker-6b5c4d3e2f-h8j9k   0/1     Pending            0               15m
migrate-29351040-8xk2l    0/1     Error              0               6m
NAME     READY   UP-TO-DATE   AVAILABLE   AGE
web      2/2     2            2           12d
api      0/1     1            0           8m
NAME           TYPE           CLUSTER-IP   EXTERNAL-IP     PORT(S)        AGE
web-headless   ClusterIP      None         <none>          8080/TCP       12d
NAME                  STATUS   ROLES           AGE   VERSION
ip-node-a.ec2.internal   Ready    control-plane   90d   v1.31.2
ip-node-b.ec2.internal   NotReady <none>          90d   v1.31.2
Error from server (NotFound): pods "web-5d8f7c9b6d-x2k4p" not found
Error from server (NotFound): deployments.apps "api" not found
Error from server (NotFound): namespaces "staging" not found
Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "pods" in API group "" in the namespace "prod"
Error from server (BadRequest): container "app" in pod "api-7c9d8e6f5b-m3n4p" is waiting to start: trying and failing to pull image
Error from server (AlreadyExists): error when creating "deploy/web.yaml": deployments.apps "web" already exists
Error from server (Conflict): error when applying patch: Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again
Error from server (InternalError): Internal error occurred: failed calling webhook "validate.nginx.ingress.kubernetes.io": failed to call webhook: Post "https://ingress-nginx-controller-admission.ingress-nginx.svc:443/networking/v1/ingresses?timeout=10s": context deadline exceeded
Error from server (Invalid): error when creating "deploy/api.yaml": Deployment.apps "api" is invalid: spec.template.spec.containers[0].image: Required value
error: the server doesn't have a resource type "deploymnets"
error: unable to upgrade connection: container not found ("app")
error: deployment "api" exceeded its progress deadline
error: timed out waiting for the condition on pods/web-5d8f7c9b6d-q9w7z
Waiting for deployment "api" rollout to finish: 0 of 1 updated replicas are available...
deployment "web" successfully rolled out
deployment.apps/web configured
deployment.apps/api created
service/web unchanged
pod "web-5d8f7c9b6d-x2k4p" deleted
LAST SEEN   TYPE      REASON             OBJECT                          MESSAGE
2m          Warning   BackOff            pod/web-5d8f7c9b6d-q9w7z        Back-off restarting failed container app in pod web-5d8f7c9b6d-q9w7z_prod(9f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b)
8m          Warning   Failed             pod/api-7c9d8e6f5b-m3n4p        Failed to pull image "ghcr.io/acme/api:1.4.3": rpc error: code = NotFound desc = failed to pull and unpack image "ghcr.io/acme/api:1.4.3": failed to resolve reference "ghcr.io/acme/api:1.4.3": ghcr.io/acme/api:1.4.3: not found
8m          Normal    BackOff            pod/api-7c9d8e6f5b-m3n4p        Back-off pulling image "ghcr.io/acme/api:1.4.3"
15m         Warning   FailedScheduling   pod/worker-6b5c4d3e2f-h8j9k     0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 2 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.
6m          Warning   BackoffLimitExceeded   job/migrate-29351040        Job has reached the specified backoff limit
41m         Normal    Pulled             pod/web-5d8f7c9b6d-q9w7z        Successfully pulled image "nginx:1.27.2" in 1.204s (1.204s including waiting). Image size: 72955450 bytes.
3m          Warning   Unhealthy          pod/web-5d8f7c9b6d-q9w7z        Liveness probe failed: HTTP probe failed with statuscode: 503
3m          Warning   Unhealthy          pod/web-5d8f7c9b6d-q9w7z        Readiness probe failed: Get "http://web-5d8f7c9b6d-q9w7z:8080/ready": dial tcp: connect: connection refused
90s         Normal    Killing            pod/web-5d8f7c9b6d-q9w7z        Container app failed liveness probe, will be restarted
1m          Warning   OOMKilling         node/ip-node-b.ec2.internal     Memory cgroup out of memory: Killed process 48121 (python3) total-vm:2145124kB, anon-rss:1048576kB
Name:             web-5d8f7c9b6d-q9w7z
Namespace:        prod
Priority:         0
Service Account:  default
Status:           Running
Controlled By:  ReplicaSet/web-5d8f7c9b6d
    Image:          nginx:1.27.2
    Image ID:       docker.io/library/nginx@sha256:28402db69fec7c17e179ea87882667f1e054391138f77ffaf0c3eb388efc3ffb
    Port:           8080/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    137
      Started:      Fri, 21 Nov 2026 10:02:14 +0000
      Finished:     Fri, 21 Nov 2026 10:04:12 +0000
    Ready:          False
    Restart Count:  12
    Limits:
      cpu:     500m
      memory:  256Mi
    Liveness:   http-get http://:8080/healthz delay=10s timeout=1s period=10s #success=1 #failure=3
Conditions:
  Type                        Status
  PodReadyToStartContainers   True
  ContainersReady             False
QoS Class:                   Burstable
Node-Selectors:              kubernetes.io/os=linux
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
"""


def public_ips():
    """Public infrastructure: the root name servers' and the big public resolvers' addresses (IANA, Google, Cloudflare, Quad9)."""
    out = []
    for name, ip in [("a.root-servers.net", "198.41.0.4"), ("b.root-servers.net", "170.247.170.2"), ("c.root-servers.net", "192.33.4.12"),
                     ("d.root-servers.net", "199.7.91.13"), ("e.root-servers.net", "192.203.230.10"), ("f.root-servers.net", "192.5.5.241"),
                     ("k.root-servers.net", "193.0.14.129"), ("m.root-servers.net", "202.12.27.33")]:
        out.append(f";; Received 1097 bytes from {ip}#53({name}) in 12 ms")
    for ip in ["8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9", "149.112.112.112", "208.67.222.222"]:
        out.append(f";; communications error to {ip}#53: timed out")
        out.append(f"dial udp {ip}:53: i/o timeout")
    for ip in ["2001:4860:4860::8888", "2606:4700:4700::1111", "2620:fe::fe"]:
        out.append(f"connect to [{ip}]:853 failed: Network is unreachable")
    return out


def identifiers():
    """Versions, URLs and hashes as this machine has them (package metadata, this repository's commits)."""
    out = []
    metas = sorted(glob.glob(os.path.join(SITE[0], "*.dist-info", "METADATA")))
    for meta in metas:
        name = version = None
        requires = 0
        for line in open(meta, encoding="utf-8", errors="replace"):
            if line.startswith("Name: "):
                name = line[6:].strip()
            elif line.startswith("Version: "):
                version = line[9:].strip()
            elif line.startswith(("Project-URL: ", "Home-page: ")) and "@" not in line:
                out.append(line.strip())
            elif line.startswith("Requires-Dist: ") and requires < 3:
                requires += 1
                out.append(line.strip())
            elif not line.strip():
                break
        if name and version:
            out.append(f"Successfully installed {name}-{version}")
    for line in run(["git", "log", "-25", "--format=commit %H%nDate:   %ad", "--date=iso"], cwd=ROOT):
        out.append(line)
    for line in run(["git", "ls-files", "-s", "--", "wit", "taxonomy", "Cargo.toml"], cwd=ROOT):
        out.append(line)
    for line in run(["git", "ls-tree", "HEAD", "--", "scripts/"], cwd=ROOT):
        out.append(line)
    return out


def uuids_and_paths():
    out = []
    import uuid
    for _ in range(6):
        u = str(uuid.uuid4())
        out += [f"correlation_id={u} level=error msg=\"upstream timed out\"", f"request {u} failed after 3 retries"]
    for path in sorted(glob.glob("/usr/lib/python3*/*.py"))[:10] + sorted(glob.glob("/etc/*.conf"))[:8]:
        out.append(f"open {path}: permission denied")
    return out


EXPRESS_APP = r"""
const express = require('express');
const app = express();
app.use(express.json());
app.use('/static', express.static(process.argv[2]));
app.get('/health', (req, res) => res.json({ status: 'degraded', checks: { db: 'timeout after 5000ms', cache: 'ok' } }));
app.post('/v1/jobs', (req, res) => res.status(422).json({ error: 'validation_failed', field: 'schedule', message: 'expected a cron expression' }));
app.get('/v1/items/:id', (req, res) => res.status(404).json({ error: 'not_found', id: req.params.id }));
app.get('/v1/slow', (req, res) => res.status(503).set('Retry-After', '30').json({ error: 'upstream_unavailable' }));
const server = app.listen(0, '127.0.0.1', () => { console.log(server.address().port); });
"""


def http_local():
    """A real Express server (tests/guard/real's node_modules) on 127.0.0.1, asked by curl -v and by python's urllib."""
    out = []
    node = shutil.which("node")
    if not node or not os.path.isdir(os.path.join(NODE_MCP, "..", "express")):
        return out
    static = os.path.join(WORK, "static")
    os.makedirs(static, exist_ok=True)
    open(os.path.join(static, "report.csv"), "w").write("region,total\nemea,1200\n")
    app = os.path.join(WORK, "app.js")
    open(app, "w").write(EXPRESS_APP)
    p = subprocess.Popen([node, app, static], cwd=WORK, env=env(NODE_PATH=os.path.join(NODE_MCP, "..")), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        port = p.stdout.readline().strip()
        base = f"http://127.0.0.1:{port}"
        for args in (["-sSv", base + "/health"], ["-sSv", base + "/static/report.csv"], ["-sSv", "-I", base + "/static/report.csv"],
                     ["-sSv", base + "/v1/items/8f14e45f-ceea-467f-a0e6-1234567890ab"], ["-sSv", base + "/v1/slow"],
                     ["-sSv", "-X", "POST", "-H", "Content-Type: application/json", "-d", '{"schedule":"every day"}', base + "/v1/jobs"],
                     ["-sSv", "-X", "POST", "-H", "Content-Type: application/json", "-d", "{broken", base + "/v1/jobs"],
                     ["-sSv", base + "/no/such/route"], ["-sS", "--fail", base + "/v1/slow"]):
            out += run(["curl", *args], timeout=20)
        for path in ("/v1/items/42", "/v1/slow", "/nope"):
            out += run([sys.executable, "-c", "import urllib.request,sys; urllib.request.urlopen(sys.argv[1])", base + path], timeout=20)
    finally:
        p.terminate()
        p.wait()
    return out


GROUPS = [
    ("mcp-python-sources", "error strings raised, built as MCP errors, or logged by the MCP Python SDK and the reference servers "
     "mcp-server-time, mcp-server-git, mcp-server-fetch (bindings/python/.venv site-packages, read with ast; f-string and %-format "
     "placeholders filled with typical values)", python_sources),
    ("mcp-node-sources", "errors thrown, MCP errors built, and console.error texts in @modelcontextprotocol/server-filesystem, "
     "server-everything, sdk, core, server, client, node (tests/guard/real/node_modules, dist/; ${...} filled with typical values)", node_sources),
    ("mcp-live", "the reference servers' answers (error messages, isError texts) and stderr for bad calls over stdio: mcp-server-time, "
     "mcp-server-git, mcp-server-fetch, server-filesystem, server-everything", live_mcp),
    ("git", "real output of git run on throwaway repositories under /tmp (conflicts, bad refs, missing remotes included)", git),
    ("npm", "real output of npm on a throwaway project, registry pointed at a closed port (install failures included)", npm),
    ("pip", "real output of pip in a throwaway venv (index at a closed port) and of the project venv's read-only commands", pip),
    ("docker-kubectl-cli", "real output of the docker and kubectl CLIs here (no daemon, no cluster)", docker_kubectl_real),
    ("http-local", "real curl -v and urllib output against an Express server run here on 127.0.0.1 (headers, ETags, error bodies)", http_local),
    ("cargo", "real output of cargo and rustc on a throwaway crate with compile errors, a panic and a failing test", cargo),
    ("runtime-errors", "real error output of python3, node and java for common failures (frames dropped, messages kept)", runtimes),
    ("system-tools", "real output of curl, wget, ssh, coreutils, openssl, hashing tools, date and others, failures included", system_tools),
    ("docker-formats", "Docker daemon, BuildKit and Compose output formats, written from Docker's public documentation and typical logs "
     "(no daemon runs here)", lambda: PUBLIC_FORMATS_DOCKER.splitlines()),
    ("kubectl-formats", "kubectl output formats against a cluster (get, describe, events, server errors), written from the Kubernetes "
     "documentation (no cluster runs here)", lambda: PUBLIC_FORMATS_KUBECTL.splitlines()),
    ("public-infrastructure", "messages naming public infrastructure: root name servers and public resolvers (their published addresses)", public_ips),
    ("identifiers", "versions, dependency specs and project URLs from the venv's package metadata; commit hashes and dates, blob hashes "
     "of this repository", identifiers),
    ("uuids-paths", "UUIDs (uuid4, generated at collection) and system paths (/usr/lib, /etc) in log-line wrappers", uuids_and_paths),
]


def main():
    if os.path.exists(WORK):
        shutil.rmtree(WORK)
    os.makedirs(os.path.join(WORK, "home"), exist_ok=True)
    seen = set()
    out = ["#### Benign corpus: real error and log lines with no secret in them; the redactor must return each unchanged.",
           "#### Written by tests/corpora/collect_benign.py (see its docstring for the rules lines are kept or dropped by).",
           "#### Format: `#### group NAME: SOURCE` opens a group; other `####` lines are notes; every other non-blank line is one text.",
           ""]
    counts, dropped = [], []
    for name, source, fn in GROUPS:
        kept = []
        for line in strip_traces(fn()):
            line = line.rstrip()
            if not line.strip() or line in seen:
                continue
            if not keep(line):
                dropped.append((name, line))
                continue
            seen.add(line)
            kept.append(line)
        counts.append((name, len(kept)))
        out.append(f"#### group {name}: {source}")
        out += kept
        out.append("")
    shutil.rmtree(WORK, ignore_errors=True)
    text = "\n".join(out) + "\n"
    if "--stdout" in sys.argv[1:]:
        sys.stdout.write(text)
    else:
        with open(OUT, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    if "--dropped" in sys.argv[1:]:
        # What the fixed rules left out (e-mail, home paths, private addresses, frames), for review.
        with open(sys.argv[sys.argv.index("--dropped") + 1], "w", encoding="utf-8") as f:
            f.writelines(f"{g}\t{l}\n" for g, l in dropped)
    for name, n in counts:
        print(f"{name:<24} {n:>5}", file=sys.stderr)
    print(f"{'total':<24} {sum(n for _, n in counts):>5}", file=sys.stderr)


if __name__ == "__main__":
    main()
