"""The package offers every function the WIT exports (the way tree-sitter's CI fails when the wasm exports
drift from its header): a function added to wit/world.wit without a Python binding fails here."""

import json
import logging
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import jsonrpc_errors as jre
from jsonrpc_errors import _runtime

WIT = Path(__file__).resolve().parents[3] / "wit" / "world.wit"

# Exports a Python caller reaches under another name, or that the package uses on the caller's behalf.
ALIASES = {
    # The typed record form: `map_error` takes a dict and goes through the JSON boundary (one string each way
    # is cheaper in wasmtime-py than lowering a variant of records).
    "map-error": "map_error",
    # `validate_json`/`sanitize_json` hand the component text when the body is valid UTF-8 (one buffer instead
    # of one C value per byte) and bytes otherwise.
    "validate-text": "validate_json",
    "sanitize-text": "sanitize_json",
}
INTERNAL = {
    # Runtime-internal: every refusal the package raises before a call is worded by the component.
    "refusal": _runtime.Runtime.refused,
    "max-input-bytes": _runtime.Runtime.max_input_bytes,
}
GUARD_METHODS = {
    "constructor": "__init__",
    # Each step method also has a `_json` form returning the component's text.
    # The record forms of the line calls (for the Rust host's hot path): the package reads the same outcome
    # from the JSON form (one string is cheaper in wasmtime-py than lifting a list of variants of records).
    "client-line-outcome": "client_line",
    "client-line-on-outcome": "client_line_on",
    "upstream-line-outcome": "upstream_line",
    # Several lines in one call (the Rust relay under load): the package takes each line as it comes.
    "lines-outcome": "client_line",
}


def _interface(name: str) -> str:
    text = WIT.read_text(encoding="utf-8")
    m = re.search(r"^interface " + name + r" \{(.*?)^\}", text, re.S | re.M)
    assert m, f"interface {name} not found in {WIT}"
    return m.group(1)


def _functions(body: str) -> list[str]:
    return re.findall(r"^\s*([a-z][a-z0-9-]*): func\(", body, re.M)


def _snake(name: str) -> str:
    return name.replace("-", "_")


def test_every_api_export_is_offered():
    names = _functions(_interface("api"))
    assert len(names) >= 15, f"only {len(names)} functions parsed from {WIT}: the parser is broken"
    missing = []
    for name in names:
        if name in INTERNAL:
            assert callable(INTERNAL[name])
            continue
        public = ALIASES.get(name, _snake(name))
        if not callable(getattr(jre, public, None)) or public not in jre.__all__:
            missing.append(f"{name} (expected jsonrpc_errors.{public})")
    assert not missing, "WIT exports without a Python function: " + ", ".join(missing)


def test_the_runtime_binds_every_api_export():
    """Every export has a caller prepared for it (fast or generic), so none is reached by accident."""
    names = set(_functions(_interface("api")))
    bound = set(_runtime._SIGNATURES) | set(_runtime._GENERIC)
    assert names == bound, f"unbound: {sorted(names - bound)}, bound but not exported: {sorted(bound - names)}"


def _record(interface: str, name: str) -> dict[str, str]:
    """A WIT record's fields (snake_case) and their types, as the WIT writes them."""
    body = re.search(r"^    record " + name + r" \{(.*?)^    \}", _interface(interface), re.S | re.M)
    assert body, f"record {name} not found in interface {interface}"
    fields = dict(re.findall(r"^\s*([a-z][a-z0-9-]*): (.+),$", body.group(1), re.M))
    return {_snake(k): v for k, v in fields.items()}


def _given(ty: str) -> Any:
    """A value every redaction option of WIT type ``ty`` takes that changes nothing of the redaction."""
    if ty.startswith("list<"):
        return []
    return {"option<string>": "0123456789abcdef-key", "option<redaction-method>": "replace"}[ty]


def test_every_redaction_option_the_wit_declares_is_offered():
    """An option the component accepts and a shell does not pass is the class pinned here (it began with
    ``allow_patterns``): every field of ``redaction-options`` is a keyword of ``redact_with``,
    ``redact_json_value`` and ``error_response(redaction=...)``, and reaches the component."""
    fields = _record("types", "redaction-options")
    assert len(fields) >= 7 and "allow_patterns" in fields, f"parsed {fields}: the parser is broken"
    assert set(jre.RedactionOptions.__annotations__) == set(fields)
    assert set(jre.ExtraRule.__annotations__) == set(_record("types", "extra-rule"))
    text = "mail bob@example.com, token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
    plain = jre.redact_with(text)
    for name, ty in fields.items():
        option = {name: _given(ty)}
        assert jre.redact_with(text, **option) == plain, name
        assert jre.redact_json_value({"log": text}, **option).value == {"log": plain.text}, name
        response = jre.error_response(
            jre.JsonRpcError(-32000, text), 1, redaction=option, logger=logging.getLogger("t")
        )
        assert response["error"]["message"] == plain.text, name


def test_allow_patterns_reach_the_component():
    text = "mail bob@example.com and alice@example.com"
    kept = jre.redact_with(text, allow_patterns=[r"bob@example\.com"]).text
    assert kept.startswith("mail bob@example.com and ") and "alice@example.com" not in kept
    assert jre.redact_json_value({"to": "bob@example.com"}, allow_patterns=[r"bob@.*"]).value == {
        "to": "bob@example.com"
    }


# For each field of ``validate-options``: a body and a value of the field that changes the component's answer
# for it (so the option is seen to reach the component, not only to be accepted).
VALIDATE_CHANGES: dict[str, tuple[bytes, Any]] = {
    "max_bytes": (b'{"jsonrpc":"2.0","id":1,"method":"m"}', 8),
    "batch": (b'[{"jsonrpc":"2.0","id":1,"method":"m"}]', "allow"),
    "content_type": (b'{"jsonrpc":"2.0","id":1,"method":"m"}', "text/plain"),
    "content_length": (b'{"jsonrpc":"2.0","id":1,"method":"m"}', 3),
    "dialect": (b'{"jsonrpc":"2.0","id":1}', "mcp"),
}


def test_every_validate_option_the_wit_declares_is_offered():
    """An option the component accepts and a shell does not pass (the class pinned above for redaction): every
    field of ``validate-options`` is a keyword of ``validate`` and ``validate_json`` and changes the answer."""
    fields = _record("types", "validate-options")
    assert len(fields) >= 5 and "content_length" in fields, f"parsed {fields}: the parser is broken"
    from jsonrpc_errors._validate_schema import ValidateOptions

    assert set(ValidateOptions.__annotations__) == set(fields)
    assert set(VALIDATE_CHANGES) == set(fields), "a validate option without a case in VALIDATE_CHANGES"
    ctx = (1767225600000, 42)
    for name, (body, value) in VALIDATE_CHANGES.items():
        option: dict[str, Any] = {name: value}
        text = jre.validate_json(body, context=ctx, **option)
        assert text != jre.validate_json(body, context=ctx), name
        assert jre.validate(body, context=ctx, **option) == json.loads(text), name


def test_every_guard_session_method_is_offered():
    resource = re.search(r"resource session \{(.*?)^    \}", _interface("guard"), re.S | re.M)
    assert resource, "resource session not found"
    methods = re.findall(r"^\s*(constructor|[a-z][a-z0-9-]*: func)\(", resource.group(1), re.M)
    methods = [m.removesuffix(": func") for m in methods]
    assert "constructor" in methods and len(methods) >= 8, methods
    for name in methods:
        public = GUARD_METHODS.get(name, _snake(name))
        assert callable(getattr(jre.GuardSession, public, None)), f"GuardSession lacks {public} (WIT {name})"
    # The interface's free functions (outside the resource, such as check-policy) are bound too.
    interface = _interface("guard")
    free = _functions(interface[: resource.start()] + interface[resource.end() :])
    for name in free:
        assert callable(getattr(jre, _snake(name), None)), f"jsonrpc_errors lacks {_snake(name)} (WIT {name})"
    bound = {
        n.split(".", 1)[-1].replace("[constructor]session", "constructor")
        for n in list(_runtime._GUARD_SIGNATURES) + list(_runtime._GUARD_GENERIC)
    }
    want = set(methods) | set(free)
    assert bound == want, f"guard bindings {sorted(bound)} != WIT {sorted(want)}"


def _variant_cases(name: str) -> list[str]:
    """The cases of the WIT variant ``name`` in ``interface guard``, in order."""
    body = re.search(r"^    variant " + name + r" \{(.*?)^    \}", _interface("guard"), re.S | re.M)
    assert body, f"variant {name} not found"
    return re.findall(r"^\s*([a-z][a-z0-9-]*)[(,]", body.group(1), re.M)


# Each case of ``upstream-failure`` and ``request-failure`` in the package's form, and for the record a case
# carries, a value of each field: every one changes the session's answer. ``exited`` and ``killed`` carry the
# same number, so a shell that passed one as the other would answer both alike.
FAILURE_CASES: dict[str, list[Any]] = {
    "upstream-failure": [("spawn-failed", "no such file"), ("exited", 9), ("killed", 9), "closed-output"],
    "request-failure": [
        ("unreachable", "connection reset"),
        ("refused", {"status": 429}),
        ("refused", {"status": 429, "retry_after_secs": 7}),
        ("refused", {"status": 503, "retry_after_secs": 7}),
        "session-gone",
    ],
}


def _answer_with_one_pending(call: Any) -> str:
    ctx = (1767225600000, 42)
    with jre.GuardSession("canonical", upstream="http://upstream/mcp") as s:
        s.client_line(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}', context=ctx)
        return str(call(s, ctx))


def test_every_failure_case_the_wit_declares_reaches_the_component():
    """A case of a failure the component takes and a shell cannot pass (or passes as another) is the class
    pinned here: the package's types and marshalling are generated from the WIT (``_failure_schema.py``), and
    every case, and every field of the record a case carries, changes the session's answer."""
    from jsonrpc_errors._failure_schema import HttpRefusal

    assert set(HttpRefusal.__required_keys__ | HttpRefusal.__optional_keys__) == set(_record("guard", "http-refusal"))
    calls = {
        "upstream-failure": lambda f: lambda s, ctx: s.upstream_failed_json(f, context=ctx),
        "request-failure": lambda f: lambda s, ctx: s.upstream_request_failed_json("1", f, context=ctx),
    }
    for variant, values in FAILURE_CASES.items():
        cases = _variant_cases(variant)
        assert len(cases) >= 3, f"parsed {cases}: the parser is broken"
        given = list(dict.fromkeys(v if isinstance(v, str) else v[0] for v in values))
        assert given == cases, f"{variant}: FAILURE_CASES covers {given}, the WIT declares {cases}"
        answers = [_answer_with_one_pending(calls[variant](v)) for v in values]
        assert len(set(answers)) == len(values), f"{variant}: cases answered alike: {answers}"


# ---------------------------------------------------------------------------------------------- across runtimes

JS_PACKAGE = WIT.parents[1] / "bindings" / "js"


def _node(script: str) -> Any:
    """What `script` (an ES module run inside the npm package, so `jsonrpc-errors` is the package itself)
    prints, parsed as JSON."""
    node = shutil.which("node")
    if node is None or not (JS_PACKAGE / "dist" / "node.js").is_file():
        pytest.skip("needs node and the built npm package (cargo xtask js && (cd bindings/js && npm run build))")
    out = subprocess.run(
        [node, "--input-type=module", "-e", script], cwd=JS_PACKAGE, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_kinds_is_the_same_table_in_python_and_node():
    # One shape in both runtimes: the same keys (kind, code, ..., fields) and the same values.
    node = _node('import { kinds } from "jsonrpc-errors"; process.stdout.write(JSON.stringify(kinds()));')
    python = jre.kinds()
    assert [k["kind"] for k in python] == [k["kind"] for k in node]
    for p, n in zip(python, node):
        assert p == n, p["kind"]


def test_error_response_is_the_same_in_python_and_node():
    # The same failure, the same request and the same clock and entropy: the same response for the client,
    # and the same operator record (its keys; its values but the language's own type name and stack).
    ctx = (1767225600000, 42)
    secret = "sk_live_" + "51HxQ2eZvKYlo2C9x8w7v6u5t4"
    node = _node(
        'import { JsonRpcError } from "jsonrpc-errors";'
        'import { errorResponse } from "jsonrpc-errors/guard";'
        f"const context = {{ unixMillis: {ctx[0]}, entropy: {ctx[1]} }};"
        f'const secret = "{secret}";'
        "const out = [];"
        "for (const thrown of [new Error(`boom ${secret}`),"
        " new JsonRpcError(-32010, `declined ${secret}`, { password: secret, note: `key ${secret}` })]) {"
        '  let event; const response = errorResponse(thrown, "r-1",'
        ' { method: "billing/charge", context, logger: null, onEvent: (e) => { event = e; } });'
        "  out.push({ response, event });"
        "}"
        "process.stdout.write(JSON.stringify(out));"
    )
    events: list[dict[str, Any]] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            events.append(record.guard_event)  # type: ignore[attr-defined]

    logger = logging.getLogger("test_parity.error_response")
    logger.addHandler(Capture())
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    python = []
    for thrown in (
        RuntimeError(f"boom {secret}"),
        jre.JsonRpcError(-32010, f"declined {secret}", {"password": secret, "note": f"key {secret}"}),
    ):
        python.append(jre.error_response(thrown, "r-1", method="billing/charge", context=ctx, logger=logger))
    assert [n["response"] for n in node] == python
    assert secret not in json.dumps(python)
    for n, p in zip((n["event"] for n in node), events):
        assert set(n) == set(p)
        language_specific = {"exception", "detail"}
        assert {k: v for k, v in n.items() if k not in language_specific} == {
            k: v for k, v in p.items() if k not in language_specific
        }
        assert secret not in n["detail"] and secret not in p["detail"]


# A policy file that sets every ``[defaults]`` key (one per field of the WIT's ``policy-defaults``).
EVERY_DEFAULT = (
    '[defaults]\ndialect = "mcp"\ntimeout = 20\nmax_wait = 120\nmax_bytes = 1048576\nmax_upstream_bytes = 8388608\n'
    'batch = "reject"\nfailed_result_bytes = 4096\n'
)


def test_every_policy_default_the_wit_declares_is_read():
    """``check_policy``'s answer and its type, :class:`PolicyDefaults`, name every field of the WIT's
    ``policy-defaults`` in its order (a field the shell lacks is the class pinned, as for the options above)."""
    fields = list(_record("guard", "policy-defaults"))
    assert len(fields) >= 7 and "max_wait_ms" in fields, f"parsed {fields}: the parser is broken"
    assert list(jre.PolicyDefaults.__annotations__) == fields
    answer = jre.check_policy(EVERY_DEFAULT, {})
    assert list(answer) == fields
    unset = [name for name, value in answer.items() if value is None]
    assert not unset, f"EVERY_DEFAULT does not set {unset}: give the new field its key"
