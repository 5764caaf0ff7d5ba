"""Bad input, typed errors, traps, environment."""

import json
import re

import pytest
import wasmtime

import jsonrpc_errors as jre
from jsonrpc_errors import _runtime

CTX = (1767225600000, 42)


@pytest.fixture(autouse=True)
def _empty_env():
    jre.set_environment({})
    yield
    jre.set_environment({})


def test_map_error_roundtrip():
    out = jre.map_error({"kind": "method-not-found", "method": "x", "id": 3}, context=CTX)
    assert out["jsonrpc"] == "2.0" and out["id"] == 3 and out["error"]["code"] == -32601
    assert json.dumps(out, separators=(",", ":"), ensure_ascii=False) == jre.map_error_json(
        '{"kind":"method-not-found","method":"x","id":3}', context=CTX
    )


def test_context_determinism_and_default():
    a = jre.map_error({"kind": "timeout"}, context=CTX)
    b = jre.map_error({"kind": "timeout"}, context=CTX)
    assert a == b
    c = jre.map_error({"kind": "timeout"})
    d = jre.map_error({"kind": "timeout"})
    assert c["error"]["data"].get("correlation_id") != d["error"]["data"].get("correlation_id")


@pytest.mark.parametrize(
    "call",
    [
        lambda: jre.redact(b"bytes"),
        lambda: jre.redact(None),
        lambda: jre.map_error("not a mapping"),
        lambda: jre.map_error({"kind": object()}),
        lambda: jre.validate(123),
        lambda: jre.explain("-32601"),
        lambda: jre.explain(True),
        lambda: jre.lookup_kind(-32601, dialect=5),
        lambda: jre.map_error({"kind": "timeout"}, context=("now", 1)),
        lambda: jre.map_error({"kind": "timeout"}, context=7),
        lambda: jre.set_environment([("A",)]),
        lambda: jre.JsonRpcError.from_response([1]),
    ],
)
def test_type_errors(call):
    with pytest.raises(jre.ArgumentTypeError) as info:
        call()
    assert isinstance(info.value, TypeError) and isinstance(info.value, jre.JsonRpcErrorsError)


@pytest.mark.parametrize(
    "call",
    [
        lambda: jre.explain(1 << 70),
        lambda: jre.validate(b"{}", max_bytes=-1),
        lambda: jre.validate(b"{}", batch="sometimes"),
        lambda: jre.map_error({"kind": "timeout"}, context=(-1, 0)),
        lambda: jre.JsonRpcError.from_response({"error": {"code": "x", "message": "m"}}),
    ],
)
def test_value_errors(call):
    with pytest.raises(jre.JsonRpcErrorsValueError) as info:
        call()
    assert isinstance(info.value, ValueError)


def test_text_that_is_not_unicode_is_refused_as_the_guest_words_it():
    # A lone surrogate cannot be encoded: refused with the guest's error object and the UTF-8 offset where the
    # text stops being valid, as the CLI refuses undecodable bytes and the npm package a lone surrogate.
    with pytest.raises(jre.InvalidInput) as info:
        jre.redact("lone \ud800 surrogate")
    assert info.value.error == {
        "code": -32602,
        "message": "Invalid params",
        "data": {
            "type": "invalid-params",
            "reason": "not-unicode",
            "details": "input is not valid Unicode (at offset 5)",
        },
    }
    assert isinstance(info.value, ValueError)


def test_inputs_over_the_guests_limit_are_refused_unread_like_the_host_refuses_them():
    limit = 64 * 1024 * 1024
    with pytest.raises(jre.InvalidInput) as info:
        jre.redact("a" * (limit + 1))
    assert info.value.error["code"] == -32600
    assert info.value.data == {
        "type": "invalid-request",
        "reason": "oversize",
        "details": f"input of {limit + 1} bytes exceeds the limit of {limit} bytes",
    }
    with pytest.raises(jre.InvalidInput):
        jre.sanitize(b" " * (limit + 1))
    # validate answers an oversize body itself (its verdict), never reading it.
    assert jre.validate(b" " * (limit + 1))["error"]["data"]["reason"] == "oversize"


def test_the_guest_memory_is_capped_like_the_hosts_and_a_huge_body_costs_no_more(tmp_path):
    # 60 MB under the input limit, but a data array of 30 M numbers: the guest runs out of its 1 GiB store and
    # traps (the plain -32603), and the process grows by about that much, not by gigabytes of marshalling.
    script = tmp_path / "huge.py"
    script.write_text(
        "import json, resource, jsonrpc_errors as j\n"
        'body = b\'{"jsonrpc":"2.0","error":{"code":-32050,"message":"m","data":[\''
        " + b'1,' * 29999999 + b'1]},\"id\":1}'\n"
        "try:\n    j.sanitize_json(body); outcome = 'answered'\n"
        "except j.ComponentFault as e:\n    outcome = e.error\n"
        "print(json.dumps({'outcome': outcome, 'maxrss_mb': "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout)
    assert got["outcome"] == {"code": -32603, "message": "Internal error"}
    assert got["maxrss_mb"] < 2048, got


def test_sanitizing_text_repairs_invalid_utf8_exactly_as_the_guest_repairs_bytes():
    # Python sends text (one buffer) where the guest would take bytes; its U+FFFD repair must be the guest's.
    import random

    from jsonrpc_errors import _runtime

    rng = random.Random(7)
    tricky = [0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x41]
    for _ in range(500):
        junk = bytes(rng.choice(tricky) if rng.random() < 0.7 else rng.randrange(256) for _ in range(rng.randrange(12)))
        body = (
            b'{"jsonrpc":"2.0","error":{"code":-32603,"message":"x'
            + junk.replace(b'"', b"").replace(b"\\", b"")
            + b'"},"id":1}'
        )
        via_text = jre.sanitize_json(body, context=(0, 1))
        via_bytes = _runtime.get().outcome("sanitize", body, b"canonical", (0, 1))
        assert via_text == via_bytes, body


def test_invalid_input_carries_the_components_error_object():
    with pytest.raises(jre.InvalidInput) as info:
        jre.map_error({"kind": "no-such-kind"})
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, jre.JsonRpcErrorsError)
    assert e.code == -32602 and e.error["code"] == -32602
    assert e.data["reason"] == "unknown-kind"
    with pytest.raises(jre.InvalidInput) as info:
        jre.sanitize(b"{}", "klingon")
    assert info.value.data["reason"] == "unknown-dialect"
    with pytest.raises(jre.InvalidInput):
        jre.map_error_json("{not json")


def test_redact_details_and_many():
    text = "key ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d in /home/alice/x"
    r = jre.redact_details(text)
    assert r.text == jre.redact(text)
    assert r.findings[0].rule == "github-token"
    assert isinstance(r.findings[0], jre.Finding)
    assert jre.redact_many([text, "plain"]) == [r.text, "plain"]


def test_environment_values_are_scrubbed():
    kept = jre.set_environment({"MY_API_TOKEN": "s3cr3t-value-123456", "HOME_DIR": "nothing-secret-here"})
    assert kept == 1
    assert "s3cr3t-value-123456" not in jre.redact("value is s3cr3t-value-123456 ok")
    jre.set_environment({})
    assert "s3cr3t-value-123456" in jre.redact("value is s3cr3t-value-123456 ok")


def test_json_rpc_error_parse_back():
    err = jre.JsonRpcError.from_kind(jre.ErrorKind.TASK_NOT_FOUND, "vapora", task_id="t-1", context=CTX)
    assert err.kind is jre.ErrorKind.TASK_NOT_FOUND
    back = jre.JsonRpcError.from_response(err.to_response(9), "vapora")
    assert (back.code, back.message, back.data, back.kind) == (err.code, err.message, err.data, err.kind)
    assert back.to_response(9)["id"] == 9
    with pytest.raises(jre.JsonRpcError):
        raise back
    unknown = jre.JsonRpcError.from_response({"code": 12345, "message": "custom"})
    assert unknown.kind is None


def test_lookup_kind_returns_error_kind():
    assert jre.lookup_kind(-32601) is jre.ErrorKind.METHOD_NOT_FOUND
    assert jre.lookup_kind(1) is None


def test_kinds_match_generated_taxonomy():
    table = jre.kinds()
    assert [k["kind"] for k in table] == list(jre.KINDS)
    for k in table:
        info = jre.KINDS[k["kind"]]
        assert (k["category"], k["gate"], k["retryable"], k["http_status"], k["log_level"]) == (
            info.category,
            info.gate,
            info.retryable,
            info.http_status,
            info.log_level,
        )
        # Every field of the kind, in the taxonomy's order, required where the taxonomy requires it.
        assert [f["name"] for f in k["fields"]] == list(info.fields)
        assert [f["name"] for f in k["fields"] if f["required"]] == list(info.required)


def test_trap_becomes_internal_error_and_instance_is_replaced(monkeypatch):
    rt = _runtime.get()
    jre.redact("warm")
    rt.discard_idle()
    jre.redact("one worker")
    assert rt.idle_count() == 1
    victim = rt._idle[0]

    def trap(*_args):
        raise wasmtime.WasmtimeError("wasm trap: unreachable")

    monkeypatch.setitem(victim.fast, "redact", trap)
    with pytest.raises(jre.ComponentFault) as info:
        jre.redact("boom")
    assert info.value.code == -32603 and info.value.error == {"code": -32603, "message": "Internal error"}
    assert "trap" not in str(info.value)
    assert victim not in rt._idle
    assert jre.redact("plain text") == "plain text"  # a fresh instance answers


def test_validate_oversize_is_refused_unread():
    big = b"[" + b"1," * 600_000 + b"1]"
    out = jre.validate(big, max_bytes=1000, context=CTX)
    assert out["error"]["code"] < 0


# ------------------------------------------------------------------ redaction under options, kinds-json


def test_redact_with_keyword_options_reach_the_component():
    text = "ticket TCK-998877 from bob@example.com"
    r = jre.redact_with(
        text,
        method="mask",
        disable=["pii"],
        extra_rules=[{"id": "ticket-id", "category": "pii-ticket", "pattern": "TCK-([0-9]{6})", "secret_groups": [1]}],
    )
    assert r.text == "ticket TCK-****** from bob@example.com"
    assert r.findings == (jre.Finding("ticket-id", "pii-ticket", 11, 17),)
    hashed = jre.redact_with(text + " and alice@example.com, bob@example.com", method="hash", hash_key="k" * 16)
    tags = re.findall(r"\[REDACTED:email:([0-9a-f]{12})\]", hashed.text)
    # Equal secrets hash alike (HMAC under the caller's key), different ones do not; the secrets are gone.
    assert len(tags) == 3 and tags[0] == tags[2] != tags[1], hashed.text
    assert "example.com" not in hashed.text
    other_key = jre.redact_with("bob@example.com", method="hash", hash_key="j" * 16).text
    assert tags[0] not in other_key


def test_redact_with_bad_options_are_the_components_error():
    with pytest.raises(jre.InvalidInput) as info:
        jre.redact_with("x", method="hash", hash_key="short")
    assert info.value.error["data"]["reason"] == "invalid-redaction-options"
    with pytest.raises(jre.ArgumentTypeError, match="list of strings"):
        jre.redact_with("x", disable="pii")
    with pytest.raises(jre.InvalidInput) as info:
        jre.redact_with_json("x", '{"hashkey": "0123456789abcdef"}')
    assert "unknown field `hashkey`" in info.value.error["data"]["details"]


def test_redact_json_value_takes_python_values_and_returns_json_findings():
    token = "ghp_" + "a1B2c3D4e5" * 3 + "a1B2c3"
    r = jre.redact_json_value({"password": "pw-123", token: [1, None, f"failed {token}"]}, sensitive_keys=["pw"])
    assert r.value == {
        "password": "[REDACTED:sensitive-key]",
        "[REDACTED:github-token]": [1, None, "failed [REDACTED:github-token]"],
    }
    assert jre.JsonFinding("github-token", "token", "/[REDACTED:github-token]", 0, 40, True) in r.findings
    assert jre.JsonFinding("github-token", "token", "/[REDACTED:github-token]/2", 7, 47, False) in r.findings
    with pytest.raises(jre.ArgumentTypeError):
        jre.redact_json_value({1, 2})


def test_kinds_is_kinds_json_and_agrees_with_explain():
    # One shape: what kinds_json says, and each entry as explain describes its kind under canonical.
    table = jre.kinds()
    assert table == json.loads(jre.kinds_json())
    for k in table:
        if k["code"] is not None:
            assert k in jre.explain(k["code"], "canonical")["kinds"], k["kind"]
    assert jre.kinds() is not table  # a fresh list each call: a caller may change its copy


def test_codes_with_an_unknown_format_is_the_components_refusal():
    with pytest.raises(jre.InvalidInput) as info:
        jre.codes("a2a", "yaml")
    assert info.value.error["data"] == {
        "type": "invalid-params",
        "reason": "unknown-format",
        "details": 'format must be "markdown" or "json", not "yaml"',
    }


def test_from_kind_in_dialects_whose_errors_are_results():
    # mcp answers protocol errors with error objects and tool failures with isError results; error-model
    # answers with domain results. An error object is built where there is one, a clear refusal otherwise.
    err = jre.JsonRpcError.from_kind("method-not-found", "mcp", method="tools/frobnicate", context=CTX)
    assert (err.code, err.kind) == (-32601, jre.ErrorKind.METHOD_NOT_FOUND)
    for dialect, kind, fields in [("mcp", "upstream-timeout", {"timeout_secs": 5}), ("error-model", "timeout", {})]:
        with pytest.raises(jre.JsonRpcErrorsValueError, match="as a result, not as an error object"):
            jre.JsonRpcError.from_kind(kind, dialect, context=CTX, **fields)
        assert "result" in jre.map_error({"kind": kind, **fields}, dialect, context=CTX)


def test_the_cache_key_names_the_wasmtime_version_without_its_dist_info(monkeypatch, tmp_path):
    # A wasmtime installed without the dist-info directory the fast lookup expects (zipapps, vendored
    # copies): the fallback asks importlib.metadata instead of failing.
    from jsonrpc_errors import _cache

    monkeypatch.setattr(_cache.wasmtime, "__file__", str(tmp_path / "wasmtime" / "__init__.py"))
    from importlib import metadata

    assert _cache.wasmtime_version() == metadata.version("wasmtime")
