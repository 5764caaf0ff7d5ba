"""`error_response` in a real plain JSON-RPC server: a Starlette app (Starlette's TestClient, over httpx) whose
handlers raise exceptions full of secrets. The client gets the canonical error, redacted; the operator one
record, redacted, with the traceback and the exception's type; every request exactly one answer."""

import json
import logging
from typing import Any, Callable

import pytest

import jsonrpc_errors as jre
from jsonrpc_errors.logging import LEVELS

starlette = pytest.importorskip("starlette", reason="Starlette comes with the [mcp] extra (the MCP SDK's HTTP server)")
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

CTX = (1767225600000, 42)
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DB = "postgres://admin:hunter2@db.internal:5432/orders"
STRIPE = "sk_live_" + "51HxQ2eZvKYlo2C9x8w7v6u5t4"
HOME = "/home/alice/app/db.py"
CREDENTIALS = [TOKEN, "hunter2", STRIPE, "admin:"]
# What the client must not see either: paths and tracebacks are the operator's.
SECRETS = [*CREDENTIALS, "/home/alice", "Traceback (most recent call last)"]


def query_orders(params: Any) -> Any:
    def connect() -> None:
        raise ConnectionError(f"could not reach {DB} with {TOKEN} and {STRIPE} (config {HOME})")

    connect()


def get_task(params: Any) -> Any:
    raise jre.JsonRpcError.from_kind(jre.ErrorKind.TASK_NOT_FOUND, task_id=params["task_id"], context=CTX)


def charge(params: Any) -> Any:
    # Hand-built: message and data straight from the code, secrets included.
    raise jre.JsonRpcError(-32010, f"payment declined for key {STRIPE}", {"password": "hunter2", "upstream": DB})


def echo(params: Any) -> Any:
    return params


METHODS: dict[str, Callable[[Any], Any]] = {
    "orders/query": query_orders,
    "tasks/get": get_task,
    "billing/charge": charge,
    "echo": echo,
}


def app(dialect: str = "canonical", **options: Any) -> tuple[Starlette, list[Any]]:
    """A plain JSON-RPC 2.0 endpoint (single requests and batches); `answered` lists every id answered."""
    answered: list[Any] = []

    def handle(message: dict[str, Any]) -> dict[str, Any]:
        id_, method = message.get("id"), message.get("method")
        try:
            result = METHODS[method](message.get("params"))
        except Exception as error:  # noqa: BLE001 - every failure gets the canonical answer
            response = jre.error_response(error, id_, method=method, dialect=dialect, context=CTX, **options)
        else:
            response = {"jsonrpc": "2.0", "result": result, "id": id_}
        answered.append(id_)
        return response

    async def rpc(request: Request) -> Response:
        body = await request.json()
        if isinstance(body, list):
            return JSONResponse([handle(m) for m in body])
        return JSONResponse(handle(body))

    return Starlette(routes=[Route("/rpc", rpc, methods=["POST"])]), answered


def leaked(value: Any, secrets: list[str] = SECRETS) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value)
    return [s for s in secrets if s in text]


def records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "jsonrpc_errors.server"]


def test_an_exception_is_the_canonical_internal_error_and_one_redacted_record(caplog: pytest.LogCaptureFixture) -> None:
    server, answered = app()
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.server")
    with TestClient(server) as client:
        reply = client.post("/rpc", json={"jsonrpc": "2.0", "id": 7, "method": "orders/query", "params": {}})
    assert reply.status_code == 200
    # The client: the dialect's internal error for this id, exactly as map_error renders it; nothing of the exception.
    assert reply.json() == jre.map_error({"kind": "internal-error", "id": 7}, "canonical", context=CTX)
    assert leaked(reply.text) == [] and "ConnectionError" not in reply.text
    assert answered == [7]
    # The operator: one record at ERROR, the trace and its frames and paths kept, the credentials gone.
    [record] = records(caplog)
    assert record.levelno == logging.ERROR and record.exc_info is None
    event = record.guard_event  # type: ignore[attr-defined]
    assert (event["event"], event["kind"], event["code"], event["id"], event["method"], event["exception"]) == (
        "request-failed",
        "internal-error",
        -32603,
        7,
        "orders/query",
        "ConnectionError",
    )
    assert event["correlation_id"] == reply.json()["error"]["data"]["correlation_id"]
    for text in (event["detail"], record.getMessage()):
        assert leaked(text, CREDENTIALS) == [], text
        assert (
            "Traceback (most recent call last)" in text and "in connect" in text and __file__ in text and HOME in text
        )
        assert "ConnectionError: could not reach postgres://[REDACTED:url-credentials]@db.internal" in text


def test_a_json_rpc_error_raised_on_purpose_is_answered_as_raised(caplog: pytest.LogCaptureFixture) -> None:
    server, answered = app()
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.server")
    with TestClient(server) as client:
        reply = client.post(
            "/rpc", json={"jsonrpc": "2.0", "id": "t-1", "method": "tasks/get", "params": {"task_id": "t1"}}
        )
    assert reply.json() == jre.JsonRpcError.from_kind("task-not-found", task_id="t1", context=CTX).to_response("t-1")
    [record] = records(caplog)
    # Logged at its kind's level (the taxonomy's), not as a crash.
    assert record.levelno == LEVELS[jre.KINDS["task-not-found"].log_level]
    assert (record.guard_event["kind"], record.guard_event["code"]) == ("task-not-found", reply.json()["error"]["code"])  # type: ignore[attr-defined]
    assert answered == ["t-1"]


def test_a_hand_built_error_keeps_its_code_and_loses_its_secrets(caplog: pytest.LogCaptureFixture) -> None:
    server, _ = app(redaction={"sensitive_keys": ["upstream"]})
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.server")
    with TestClient(server) as client:
        reply = client.post("/rpc", json={"jsonrpc": "2.0", "id": 3, "method": "billing/charge"})
    error = reply.json()["error"]
    assert error["code"] == -32010 and leaked(error) == []
    # Redacted as redact_with / redact_json_value redact with the same options.
    assert error["message"] == jre.redact_with(f"payment declined for key {STRIPE}").text
    assert (
        error["data"]
        == jre.redact_json_value({"password": "hunter2", "upstream": DB}, sensitive_keys=["upstream"]).value
    )
    assert leaked([r.getMessage() for r in records(caplog)], CREDENTIALS) == []


def test_each_member_of_a_batch_is_answered_once_in_the_dialect(caplog: pytest.LogCaptureFixture) -> None:
    server, answered = app(dialect="mcp")
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.server")
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "orders/query"},
        {"jsonrpc": "2.0", "id": 2, "method": "echo", "params": {"x": 1}},
        {"jsonrpc": "2.0", "id": 3, "method": "orders/query"},
    ]
    with TestClient(server) as client:
        reply = client.post("/rpc", json=batch)
    responses = reply.json()
    assert [r["id"] for r in responses] == [1, 2, 3] and answered == [1, 2, 3]
    for r in (responses[0], responses[2]):
        assert r == jre.map_error({"kind": "internal-error", "id": r["id"]}, "mcp", context=CTX)
    assert responses[1]["result"] == {"x": 1}
    assert [r.guard_event["id"] for r in records(caplog)] == [1, 3]  # type: ignore[attr-defined]
    assert leaked(reply.text) == []


def test_bad_arguments_are_refused_clearly() -> None:
    try:
        raise RuntimeError(f"boom {TOKEN}")
    except RuntimeError as error:
        caught = error
    with pytest.raises(jre.InvalidInput) as refused:
        jre.error_response(caught, {"not": "an id"})
    assert refused.value.error["data"]["reason"] == "invalid-id-type" and leaked(str(refused.value)) == []
    with pytest.raises(jre.InvalidInput):
        jre.error_response(caught, 1, dialect="klingon")
    with pytest.raises(jre.ArgumentTypeError, match="sensitive_kyes"):
        jre.error_response(caught, 1, redaction={"sensitive_kyes": ["x"]})
    with pytest.raises(jre.ArgumentTypeError, match="must be an exception"):
        jre.error_response(f"boom {TOKEN}", 1)  # type: ignore[arg-type]
    # A JsonRpcError no JSON-RPC response can carry is answered as any other exception: the internal error.
    unusable = jre.JsonRpcError(1.5, f"boom {TOKEN}")  # type: ignore[arg-type]
    assert jre.error_response(unusable, 1, context=CTX) == jre.map_error(
        {"kind": "internal-error", "id": 1}, context=CTX
    )
