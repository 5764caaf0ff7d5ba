"""GuardSession's Python surface: arguments, errors, lifetime and threads (its behaviour is in the vectors)."""

import json
import threading

import pytest

import jsonrpc_errors as jre

REQUEST = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{}}'


def test_a_session_relays_and_answers_what_is_pending_when_the_upstream_ends():
    with jre.GuardSession("thoughtgate", timeout_ms=5000, upstream="stdio:server") as s:
        out = s.client_line(REQUEST % 1, context=(1000, 7))
        assert out == {"steps": [{"step": "forward", "to": "upstream"}], "pending": 1, "deadline": 6000}
        out = s.upstream_failed(("killed", 9))
        answers = [json.loads(st["line"]) for st in out["steps"] if st["step"] == "send"]
        assert [(a["id"], a["error"]["code"]) for a in answers] == [(1, -32000)]
        assert out["pending"] == 0


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(jre.InvalidInput) as info:
        jre.GuardSession("klingon")
    assert info.value.error["data"]["reason"] == "unknown-dialect"
    with pytest.raises(jre.JsonRpcErrorsValueError):
        jre.GuardSession(batch="sometimes")
    with pytest.raises(jre.ArgumentTypeError):
        jre.GuardSession(timeout_ms="5")
    with jre.GuardSession() as s:
        with pytest.raises(jre.ArgumentTypeError):
            s.client_line(42)
        with pytest.raises(jre.ArgumentTypeError):
            s.upstream_failed(("exited", "3"))
        with pytest.raises(jre.JsonRpcErrorsValueError):
            s.upstream_failed(("vanished", 1))


def test_an_input_longer_than_the_guest_takes_is_refused_as_every_call_refuses_it():
    from jsonrpc_errors import _runtime

    over = _runtime.get().max_input_bytes() + 1
    huge = b" " * over
    with jre.GuardSession() as s:
        for call in (s.client_line, s.upstream_line, s.upstream_stderr, lambda b: s.upstream_log(b.decode())):
            with pytest.raises(jre.InvalidInput) as info:
                call(huge)
            assert info.value.error["code"] == -32600
            assert info.value.error["data"]["reason"] == "oversize"
            assert f"{over} bytes" in info.value.error["data"]["details"]
        with pytest.raises(jre.InvalidInput) as info:
            s.upstream_log("token \ud800")
        assert info.value.error["data"]["reason"] == "not-unicode"
        assert s.client_line(REQUEST % 1)["pending"] == 1


def test_a_closed_session_refuses_calls_and_closing_twice_is_harmless():
    s = jre.GuardSession()
    s.close()
    s.close()
    with pytest.raises(jre.ComponentFault):
        s.client_line(REQUEST % 1)


def test_threads_share_a_session_one_call_at_a_time():
    with jre.GuardSession(timeout_ms=60_000) as s:

        def send(base):
            for i in range(50):
                s.client_line(REQUEST % (base + i))

        threads = [threading.Thread(target=send, args=(n * 1000,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out = s.upstream_failed(("exited", 1))
        ids = sorted(json.loads(st["line"])["id"] for st in out["steps"] if st["step"] == "send")
        assert ids == sorted(n * 1000 + i for n in range(4) for i in range(50))


def test_str_lines_are_encoded_and_upstream_stderr_keeps_traces():
    with jre.GuardSession() as s:
        out = s.client_line('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert out["steps"] == [{"step": "forward", "to": "upstream"}]
        log = s.upstream_log(
            'Traceback (most recent call last):\n  File "/srv/app.py", line 1\n'
            "KeyError: token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\n"
        )
        assert "Traceback" in log and "/srv/app.py" in log and "ghp_" not in log


def test_bytes_longer_than_one_lowering_step_reach_the_component_intact():
    # A byte argument is lowered 64 Ki values at a time (_abi.lower_bytes): every byte must arrive in its
    # place across the steps' seams. Numbered lines with non-ASCII text, and a token that straddles the second
    # seam, come back as they went, the token redacted.
    secret = "ghp_a1B2c3D4e5a1B2c3D4e5a1B2c3D4e5a1B2c3"
    lines = [f"line {i:05d}: état nominal, 状態 ok" for i in range(12000)]
    text = "\n".join(lines) + "\n"
    seam = 2 * 64 * 1024
    cut = text.encode()[:seam].decode("utf-8", "ignore")
    head = cut[: cut.rindex(" ", 0, len(cut) - 8) + 1]  # the token starts on a word boundary, before the seam
    data = (head + secret + " " + text[len(head) :]).encode()
    assert data.index(secret.encode()) < seam < data.index(secret.encode()) + len(secret) and len(data) > 3 * seam
    with jre.GuardSession() as s:
        out = s.upstream_stderr(data)
    assert out == data.decode().replace(secret, "[REDACTED:github-token]")


def test_a_session_redacts_the_environment_it_was_given():
    secret = "py-session-env-3b9d7e21f4"  # in no environment the runtime was handed
    line = f"upstream auth with {secret}\n".encode()
    with jre.GuardSession(environment={"UPSTREAM_API_TOKEN": secret}) as own:
        logged = own.upstream_stderr(line)
    assert secret not in logged and "upstream auth with" in logged
    with jre.GuardSession() as plain:
        assert secret in plain.upstream_stderr(line)
    with pytest.raises(TypeError):
        jre.GuardSession(environment=[("UPSTREAM_API_TOKEN", secret)])  # type: ignore[typeddict-item]


def test_one_failed_request_is_answered_alone_and_bad_failures_are_refused():
    with jre.GuardSession("canonical", timeout_ms=5000, upstream="stdio:server") as s:
        for n in (1, 2, 3):
            s.client_line(REQUEST % n, context=(1000, 7))
        out = s.upstream_request_failed("1", ("refused", {"status": 429, "retry_after_secs": 7}))
        answers = [json.loads(st["line"]) for st in out["steps"] if st["step"] == "send"]
        assert [(a["id"], a["error"]["data"]["type"], a["error"]["data"]["retry_after_secs"]) for a in answers] == [
            (1, "rate-limited", 7)
        ]
        assert out["pending"] == 2
        assert s.upstream_request_failed("2", "session-gone")["pending"] == 1
        out = s.upstream_request_failed("3", ("unreachable", "connection reset"))
        assert [json.loads(st["line"])["id"] for st in out["steps"] if st["step"] == "send"] == [3]
        assert out["pending"] == 0
        # A request answered once is owed nothing more.
        again = s.upstream_request_failed("3", ("unreachable", "connection reset"))
        assert [st for st in again["steps"] if st["step"] == "send"] == []
        with pytest.raises(jre.ArgumentTypeError):
            s.upstream_request_failed("1", ("refused", {"status": 70_000}))
        with pytest.raises(jre.JsonRpcErrorsValueError):
            s.upstream_request_failed("1", ("vanished", "x"))
        with pytest.raises(jre.ArgumentTypeError):
            s.upstream_request_failed(1, "session-gone")  # type: ignore[arg-type]


def test_an_a2a_stream_is_settled_by_its_final_event_or_its_end_with_an_end_step():
    stream = '{"jsonrpc":"2.0","id":%d,"method":"SendStreamingMessage","params":{"message":{"parts":[]}}}'
    with jre.GuardSession("a2a", timeout_ms=5000, upstream="http://agent/rpc") as s:
        s.client_line(stream % 1, context=(1000, 7))
        s.client_line(stream % 2, context=(1000, 7))
        event = '{"jsonrpc":"2.0","id":%d,"result":{"statusUpdate":{"taskId":"t","status":{"state":"%s"}}}}'
        out = s.upstream_line(event % (1, "TASK_STATE_WORKING"))
        assert [st["step"] for st in out["steps"]] == ["forward"] and out["pending"] == 2
        out = s.upstream_line(event % (1, "TASK_STATE_COMPLETED"))
        assert [st["step"] for st in out["steps"]] == ["forward", "send", "end"] and out["pending"] == 1
        s.upstream_line(event % (2, "TASK_STATE_WORKING"))
        out = s.upstream_exchange_ended("2")
        assert [st["step"] for st in out["steps"]] == ["end"] and out["pending"] == 0
        assert [st["step"] for st in s.upstream_exchange_ended("2")["steps"]] == ["event"]
        with pytest.raises(jre.ArgumentTypeError):
            s.upstream_exchange_ended(2)  # type: ignore[arg-type]
