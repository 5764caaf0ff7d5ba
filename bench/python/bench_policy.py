"""The policy file's cost through `jsonrpc-errors guard` (issue 27): successful tool results redacted (the
`results` scope) against the default scope (errors only: a successful result is relayed unread), one run.

    scripts/bench.sh policy [-- --quick]       # the entry point: builds the CLI if missing, picks a python
    python bench/python/bench_policy.py [--quick] [--guard PATH]

A scripted stdio upstream (this file with --upstream) answers each `tools/call` with a prepared result: text
of 1 KB, 100 KB or 10 MB (log-like lines, one line in 200 carrying a secret of a shape the catalogue knows),
or one 5 MB base64 image. Three columns, the same upstream each time, run in alternating rounds so that the
machine's noise falls on all of them alike:

  direct     the upstream alone (what the client and the pipes cost)
  default    jsonrpc-errors guard --config default.toml   ([defaults] only: the default scopes)
  results    jsonrpc-errors guard --config results.toml   ([redaction] scopes = ["errors", "results"])

One request in flight at a time; latency is the median time from writing the request to reading the whole
answer; throughput is the answer's size over that median ("guard MB/s": over the median less the direct
column's, i.e. what the guard itself adds). The ratios (results / default) are what to read: these machines
are shared and noisy. The answers are checked too: the results column redacted the text (and nothing else),
the image passed byte for byte in every column.

Then, where `jsonrpc_errors` (the Python package, bindings/python) imports, a breakdown of the 10 MB text
result inside the component (wasmtime-py, the same WebAssembly the CLI runs): the envelope's parse alone,
redaction of the JSON value with every rule off (parse, walk, the rules-independent pass, serialisation),
with the catalogue, and the plain text alone.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"text-1KB": 1_000, "text-100KB": 100_000, "text-10MB": 10_000_000}
IMAGE_BYTES = 5_000_000  # of base64 text (3.75 MB of image)
# Requests per size and round (the rounds alternate the columns).
COUNTS = {"text-1KB": 200, "text-100KB": 50, "text-10MB": 5, "image-5MB": 5}
ROUNDS = 6
GOAL_MBPS = 100.0  # the goal for a 10 MB text result redacted through the CLI guard

DEFAULT_POLICY = "# the default scopes: errors only\n[defaults]\ntimeout = 120\n"
RESULTS_POLICY = '[defaults]\ntimeout = 120\n\n[redaction]\nscopes = ["errors", "results"]\n'


# ─── the payloads ───


def text_of(size: int, seed: int) -> str:
    """Log-like text of `size` bytes (ASCII); one line in 200 carries a secret (made up here)."""
    rng = random.Random(seed)
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    paths = ["/api/v1/orders", "/api/v1/orders/{n}", "/api/v1/customers/{n}/invoices", "/healthz", "/api/v1/search"]
    lines: list[str] = []
    total = n = 0
    while total < size:
        n += 1
        if n % 200 == 0:
            token = "ghp_" + "".join(rng.choice(alnum) for _ in range(36))
            password = "".join(rng.choice(alnum) for _ in range(14))  # drawn before rng.choice picks: same text
            secret = rng.choice(
                [
                    f"deploy hook retried with GITHUB_TOKEN={token}",
                    f"connecting to postgresql://svc_orders:{password}@db-{n % 7}.internal:5432/orders",
                ]
            )
            line = (
                f"2026-11-26T10:{n // 3600 % 60:02d}:{n // 60 % 60:02d}.{n % 1000:03d}Z WARN worker-{n % 16} {secret}"
            )
        else:
            path = rng.choice(paths).replace("{n}", str(rng.randrange(1, 99999)))
            line = (
                f"2026-11-26T10:{n // 3600 % 60:02d}:{n // 60 % 60:02d}.{n % 1000:03d}Z INFO worker-{n % 16} "
                f"GET {path} status={rng.choice([200, 200, 200, 201, 304, 404])} duration_ms={rng.randrange(1, 900)} "
                f"request_id=req-{rng.getrandbits(48):012x} cache={rng.choice(['hit', 'miss'])}"
            )
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def results() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for i, (name, size) in enumerate(SIZES.items()):
        out[name] = {"content": [{"type": "text", "text": text_of(size, i)}], "isError": False}
    image = base64.b64encode(random.Random(9).randbytes(IMAGE_BYTES * 3 // 4)).decode()
    out["image-5MB"] = {"content": [{"type": "image", "data": image, "mimeType": "image/png"}], "isError": False}
    return out


# ─── the scripted upstream ───


def upstream() -> None:
    """Reads requests from stdin; answers initialize, and each tools/call with the prepared result it names."""
    prepared = {name: json.dumps(result, separators=(",", ":")).encode() for name, result in results().items()}
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        rid = json.dumps(msg["id"]).encode()
        if msg.get("method") == "initialize":
            body = json.dumps(
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "bench-upstream", "version": "1"},
                }
            ).encode()
        else:
            body = prepared[msg["params"]["name"]]
        out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + body + b"}\n")
        out.flush()


# ─── the client ───


class Column:
    def __init__(self, name: str, command: list[str]) -> None:
        self.name = name
        # The child's stderr, kept for the column's life (read back if it fails) and closed by close(): no `with`
        # block can span that, hence the noqa.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, bufsize=1 << 20
        )
        self.next_id = 0
        self.times: dict[str, list[float]] = {k: [] for k in COUNTS}
        self.sizes: dict[str, int] = {}
        self.answers: dict[str, bytes] = {}
        self.call(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict) -> tuple[bytes, float]:
        self.next_id += 1
        started = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"{self.name}: the guard closed its output\n{self.stderr()[-2000:]}")
            if b'"method"' not in line[:200]:
                return line, time.perf_counter() - started

    def run(self, size: str, count: int, keep: bool) -> None:
        for _ in range(count):
            line, took = self.call("tools/call", {"name": size, "arguments": {}})
            if keep:
                self.times[size].append(took)
            self.sizes[size] = len(line)
            self.answers[size] = line

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--guard", default=str(ROOT / "target" / "release" / "jsonrpc-errors"))
    parser.add_argument("--quick", action="store_true", help="fewer requests (a smoke run)")
    parser.add_argument("--no-breakdown", action="store_true", help="the CLI table only")
    args = parser.parse_args()
    if args.upstream:
        upstream()
        return
    global ROUNDS
    if args.quick:
        ROUNDS = 1
    work = Path(tempfile.mkdtemp(prefix="bench-policy-"))
    (work / "default.toml").write_text(DEFAULT_POLICY)
    (work / "results.toml").write_text(RESULTS_POLICY)
    server = [sys.executable, str(Path(__file__).resolve()), "--upstream"]
    print(f"preparing payloads; guard {args.guard}", file=sys.stderr)
    columns = [
        Column("direct", server),
        Column("default", [args.guard, "guard", "--config", str(work / "default.toml"), "--", *server]),
        Column("results", [args.guard, "guard", "--config", str(work / "results.toml"), "--", *server]),
    ]
    try:
        # Warm-up: one of each, not counted (the guard compiles a policy per override on first use).
        for c in columns:
            for size in COUNTS:
                c.run(size, 1, keep=False)
        for r in range(ROUNDS):
            for size, count in COUNTS.items():
                order = columns if r % 2 == 0 else columns[::-1]
                for c in order:
                    c.run(size, max(1, count // (4 if args.quick else 1)), keep=True)
            print(f"round {r + 1}/{ROUNDS} done", file=sys.stderr)
        check(columns)
    finally:
        for c in columns:
            c.close()
    report(columns)
    if not args.no_breakdown:
        breakdown()


def check(columns: list[Column]) -> None:
    """The work was done: the results column redacted the text and nothing else; the image passed untouched."""
    by = {c.name: c for c in columns}
    for size in SIZES:
        direct = json.loads(by["direct"].answers[size])["result"]["content"][0]["text"]
        default = json.loads(by["default"].answers[size])["result"]["content"][0]["text"]
        redacted = json.loads(by["results"].answers[size])["result"]["content"][0]["text"]
        assert default == direct, f"{size}: the default scope changed the text"
        assert "ghp_" not in redacted and ("[REDACTED:" in redacted or "ghp_" not in direct), f"{size}: not redacted"
        assert len(redacted.splitlines()) == len(direct.splitlines()), f"{size}: lines lost"
    image = by["direct"].answers["image-5MB"]
    for c in columns:
        assert c.answers["image-5MB"] == image, f"{c.name}: the image changed"


def report(columns: list[Column]) -> None:
    med = {c.name: {s: statistics.median(t) for s, t in c.times.items()} for c in columns}
    size_of = {s: columns[0].sizes[s] for s in COUNTS}
    n = {s: len(columns[0].times[s]) for s in COUNTS}
    print()
    print("Policy scopes through `jsonrpc-errors guard` (one request in flight; medians; MB = 10^6 bytes)")
    print()
    print(
        "| result | answer bytes | n | direct ms | default ms | results ms | added ms (results - default) "
        "| default MB/s | results MB/s | results / default | default guard MB/s | results guard MB/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def mbps(size: int, t: float) -> float:
        return size / t / 1e6 if t > 0 else float("inf")

    for s in COUNTS:
        d, base, res = med["direct"][s], med["default"][s], med["results"][s]
        size = size_of[s]
        print(
            f"| {s} | {size:,} | {n[s]} | {d * 1e3:.2f} | {base * 1e3:.2f} | {res * 1e3:.2f} "
            f"| {(res - base) * 1e3:+.2f} | {mbps(size, base):.1f} | {mbps(size, res):.1f} | {res / base:.2f}x "
            f"| {mbps(size, base - d):.1f} | {mbps(size, res - d):.1f} |"
        )
    ten = size_of["text-10MB"] / med["results"]["text-10MB"] / 1e6
    ten_guard = size_of["text-10MB"] / (med["results"]["text-10MB"] - med["direct"]["text-10MB"]) / 1e6
    img_base, img_res = med["default"]["image-5MB"], med["results"]["image-5MB"]
    print()
    print(
        f"goal: a 10 MB text result redacted at >= {GOAL_MBPS:.0f} MB/s through the CLI guard: {ten:.1f} MB/s for the "
        f"whole request (client write to client read), {ten_guard:.1f} MB/s for the guard's share "
        f"({'met' if ten >= GOAL_MBPS else 'met by the guard alone' if ten_guard >= GOAL_MBPS else 'NOT met'})"
    )
    print(
        f"image (5 MB base64, not scanned): results / default = {img_res / img_base:.2f}x "
        f"({size_of['image-5MB'] / img_res / 1e6:.0f} MB/s vs {size_of['image-5MB'] / img_base / 1e6:.0f} MB/s; "
        f"direct {size_of['image-5MB'] / med['direct']['image-5MB'] / 1e6:.0f} MB/s)"
    )


def breakdown() -> None:
    """The 10 MB text result inside the component, through the Python package (wasmtime-py)."""
    try:
        import jsonrpc_errors as j
    except ImportError:
        print("\n(no breakdown: the jsonrpc_errors Python package is not importable here)")
        return
    import re

    result = results()["text-10MB"]
    result_json = json.dumps(result, separators=(",", ":"))
    text = result["content"][0]["text"]
    rules = (ROOT / "redaction" / "rules.toml").read_text()
    off = json.dumps(
        {
            "disable": [
                *sorted(set(re.findall(r'^category = "([^"]+)"', rules, re.M))),
                "sensitive-key",
                "credential",
                "stacktrace",
                "env-value",
            ]
        }
    )

    def timed(f) -> float:
        f()
        xs = []
        for _ in range(5):
            started = time.perf_counter()
            f()
            xs.append(time.perf_counter() - started)
        return statistics.median(xs)

    print()
    print("Inside the component, the 10 MB text result (wasmtime-py; medians of 5)")
    print()
    print("| call | ms | MB/s |")
    print("|---|---:|---:|")
    for name, f, size in [
        (
            "validate_json(the response line): copy in, envelope parse",
            lambda: j.validate_json(f'{{"jsonrpc":"2.0","id":1,"result":{result_json}}}'),
            len(result_json),
        ),
        (
            "redact_json_value(result), every rule off: parse, walk, rules-independent pass, serialise",
            lambda: j.redact_json_value_json(result_json, off),
            len(result_json),
        ),
        (
            "redact_json_value(result), the catalogue: what the results scope runs",
            lambda: j.redact_json_value_json(result_json),
            len(result_json),
        ),
        ("redact_with_json(the text), every rule off", lambda: j.redact_with_json(text, off), len(text)),
        ("redact_with_json(the text), the catalogue", lambda: j.redact_with_json(text), len(text)),
    ]:
        m = timed(f)
        print(f"| {name} | {m * 1e3:.1f} | {size / m / 1e6:.1f} |")


if __name__ == "__main__":
    main()
