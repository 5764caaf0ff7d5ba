import logging

import pytest

import jsonrpc_errors as jre
from jsonrpc_errors import logging as jlog

CTX = (1767225600000, 42)


@pytest.mark.parametrize(
    "kind",
    [jre.ErrorKind.INTERNAL_ERROR, jre.ErrorKind.METHOD_NOT_FOUND, jre.ErrorKind.TASK_NOT_FOUND],
)
def test_logging_level_per_kind(caplog, kind):
    fields = {"method": "m"} if kind is jre.ErrorKind.METHOD_NOT_FOUND else {}
    if kind is jre.ErrorKind.TASK_NOT_FOUND:
        fields = {"task_id": "t1"}
    err = jre.JsonRpcError.from_kind(kind, context=CTX, **fields)
    logger = logging.getLogger("jre-test")
    with caplog.at_level(logging.DEBUG, logger="jre-test"):
        facts = jlog.log_error(logger, err.to_response(1))
    rec = caplog.records[-1]
    assert rec.levelno == jlog.LEVELS[jre.KINDS[kind.value].log_level] == jlog.level_for(kind)
    assert rec.jsonrpc_error["kind"] == kind.value == facts["kind"]
    assert rec.jsonrpc_code == err.code
    assert rec.jsonrpc_error["category"] == jre.KINDS[kind.value].category


def test_logger_adapter(caplog):
    adapter = jlog.JsonRpcLoggerAdapter(logging.getLogger("jre-adapter"), {"service": "svc"})
    with caplog.at_level(logging.DEBUG, logger="jre-adapter"):
        adapter.jsonrpc_error(jre.ErrorKind.RATE_LIMITED)
    rec = caplog.records[-1]
    assert rec.levelno == logging.WARNING and rec.service == "svc" and rec.jsonrpc_kind == "rate-limited"


def test_unknown_kind_logs_error(caplog):
    with caplog.at_level(logging.DEBUG, logger="jre-x"):
        jlog.log_error(logging.getLogger("jre-x"), {"error": {"code": 4242, "message": "custom"}})
    assert caplog.records[-1].levelno == logging.ERROR


def test_prometheus_counter():
    prom = pytest.importorskip("prometheus_client")
    from jsonrpc_errors.prometheus import ErrorMetrics

    reg = prom.CollectorRegistry()
    m = ErrorMetrics(registry=reg)
    err = jre.JsonRpcError.from_kind(jre.ErrorKind.TOOL_NOT_EXPOSED, "thoughtgate", tool="t", context=CTX)
    m.observe(err)
    m.observe(err.to_response(1), 2)
    labels = {"code": str(err.code), "kind": "tool-not-exposed", "category": "gate", "gate": "visibility"}
    assert reg.get_sample_value("jsonrpc_errors_total", labels) == 3.0
