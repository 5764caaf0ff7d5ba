"""Every case of every file in tests/vectors, through the package, compared exactly."""

import json
import os
from pathlib import Path

import pytest

import jsonrpc_errors as jre
from jsonrpc_errors import _runtime

VECTORS = Path(os.environ.get("JSONRPC_ERRORS_VECTORS", Path(__file__).resolve().parents[3] / "tests" / "vectors"))


def _cases():
    files = sorted(VECTORS.glob("*.json"))
    assert files, f"no vector files in {VECTORS}"
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        for case in doc["cases"]:
            yield pytest.param(case, id=f"{f.stem}::{case['name']}")


def _compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _options_text(case):
    if "options_text" in case:
        return case["options_text"]
    return _compact(case.get("options", {}))


def _raw(case):
    if "raw_hex" in case:
        return bytes.fromhex(case["raw_hex"])
    return case["raw"].encode("utf-8")


def _run(case):
    op = case["op"]
    ctx = case.get("ctx", {})
    context = (ctx.get("unix_millis", 0), ctx.get("entropy", 0))
    if op == "map":
        text = case["input_text"] if "input_text" in case else _compact(case["input"])
        return jre.map_error_json(text, case.get("dialect", "canonical"), context=context)
    if op == "validate":
        o = case.get("options", {})
        return jre.validate_json(
            _raw(case),
            max_bytes=o.get("max_bytes"),
            batch=o.get("batch", "reject"),
            content_type=o.get("content_type"),
            content_length=o.get("content_length"),
            dialect=o.get("dialect", "canonical"),
            context=context,
        )
    if op == "sanitize":
        return jre.sanitize_json(_raw(case), case.get("dialect", "canonical"), context=context)
    if op == "redact":
        return jre.redact_json(case["text"])
    if op == "explain":
        return jre.explain_json(case["code"], case["dialect"])
    if op == "lookup":
        kw = {}
        if "data" in case:
            kw["data"] = case["data"]
        kind = jre.lookup_kind(case["code"], case["dialect"], case.get("message"), **kw)
        return _compact(None if kind is None else str(getattr(kind, "value", kind)))
    if op == "codes":
        return jre.codes(case.get("dialect"), case["format"])
    if op == "redact_with":
        return jre.redact_with_json(case["text"], _options_text(case))
    if op == "redact_json_value":
        value = case["value_text"] if "value_text" in case else _compact(case["value"])
        return jre.redact_json_value_json(value, _options_text(case))
    if op == "kinds":
        return jre.kinds_json()
    if op == "max_input_bytes":
        return str(_runtime.get().max_input_bytes())
    if op == "refusal":
        ((tag, value),) = case["problem"].items()
        raise _runtime.get().refused(tag.replace("_", "-"), value)
    if op == "check_policy":
        return _compact(jre.check_policy(case["policy"], dict(case.get("policy_env", []))))
    if op == "guard":
        return _guard_script(case, context)
    raise AssertionError(f"unknown op {op!r}")


def _guard_script(case, context):
    """One output per step of the script, on one session (format: tests/vectors/README.md)."""
    o = case.get("options", {})
    outputs = []
    # An option the case leaves out is not given (the session resolves it); `timeout_ms` null is no limit.
    names = ("batch", "max_bytes", "timeout_ms", "failed_result_bytes", "max_upstream_bytes")
    given = {k: o[k] for k in names if k in o}
    with jre.GuardSession(
        o.get("dialect"),
        upstream=o.get("upstream", "upstream"),
        policy=o.get("policy"),
        policy_env=dict(o.get("policy_env", [])),
        environment=None if o.get("environment") is None else dict(o["environment"]),
        upstream_credentials=o.get("upstream_credentials"),
        many_clients=o.get("many_clients"),
        **given,
    ) as session:
        for i, step in enumerate(case["script"]):
            ctx = (context[0] + step.get("at", 0), (context[1] + i) % 2**64)
            if "client" in step:
                out = session.client_line_json(step["client"].encode(), context=ctx)
            elif "client_hex" in step:
                out = session.client_line_json(bytes.fromhex(step["client_hex"]), context=ctx)
            elif "client_on" in step:
                out = session.client_line_on_json(step["client_on"][0], step["client_on"][1].encode(), context=ctx)
            elif "stream_closed" in step:
                out = session.stream_closed_json(step["stream_closed"], context=ctx)
            elif "client_oversize" in step:
                out = session.client_oversize_json(
                    step["client_oversize"],
                    head=step.get("head", "").encode(),
                    tail=step.get("tail", "").encode(),
                    context=ctx,
                )
            elif "upstream" in step:
                out = session.upstream_line_json(step["upstream"].encode(), context=ctx)
            elif "upstream_hex" in step:
                out = session.upstream_line_json(bytes.fromhex(step["upstream_hex"]), context=ctx)
            elif "upstream_oversize" in step:
                out = session.upstream_oversize_json(
                    step["upstream_oversize"],
                    head=step.get("head", "").encode(),
                    tail=step.get("tail", "").encode(),
                    context=ctx,
                )
            elif "upstream_failed" in step:
                f = step["upstream_failed"]
                failure = (
                    "closed-output"
                    if f == "closed_output"
                    else next((tag.replace("_", "-"), value) for tag, value in f.items())
                )
                out = session.upstream_failed_json(failure, context=ctx)
            elif "upstream_exchange_ended" in step:
                out = session.upstream_exchange_ended_json(step["upstream_exchange_ended"], context=ctx)
            elif "expire" in step:
                out = session.expire_json(context=ctx)
            elif "settings" in step:
                out = session.settings_json()
            elif "upstream_stderr" in step:
                out = session.upstream_stderr(step["upstream_stderr"].encode())
            elif "upstream_stderr_hex" in step:
                out = session.upstream_stderr(bytes.fromhex(step["upstream_stderr_hex"]))
            elif "upstream_stderr_end" in step:
                out = session.upstream_stderr_end()
            else:
                out = session.upstream_log(step["upstream_log"])
            outputs.append(out)
    return outputs


@pytest.mark.parametrize("case", list(_cases()))
def test_vector(case):
    jre.set_environment(case.get("env", []))
    try:
        if "expect_failure" in case:
            with pytest.raises(jre.InvalidInput) as info:
                _run(case)
            want = case["expect_failure"]
            got = info.value.error
            assert got["code"] == want["code"]
            assert got["message"] == want["message"]
            assert got.get("data") == want.get("data")
        else:
            out = _run(case)
            if case["op"] == "guard":
                assert out == case["expect_outputs"]
                return
            want = case["expect_text"] if "expect_text" in case else _compact(case["expect"])
            if case["op"] == "codes" and case["format"] == "markdown" and "expect_text" not in case:
                want = case["expect"]
            assert out == want
    finally:
        jre.set_environment([])
