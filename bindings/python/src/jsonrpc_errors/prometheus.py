"""Optional Prometheus counters (install the `[prometheus]` extra).

    from jsonrpc_errors.prometheus import ErrorMetrics
    metrics = ErrorMetrics()          # registers `jsonrpc_errors_total` in the default registry
    metrics.observe(err)              # err: JsonRpcError, response dict, or ErrorKind

Labels: code, kind, category, gate (empty string where there is none).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from ._describe import describe
from ._taxonomy import Dialect

try:
    from prometheus_client import REGISTRY as _DEFAULT_REGISTRY
    from prometheus_client import CollectorRegistry, Counter
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "jsonrpc_errors.prometheus needs prometheus_client: pip install 'jsonrpc-errors[prometheus]'"
    ) from e

__all__ = ["LABELS", "ErrorMetrics"]


def __dir__() -> list[str]:
    return sorted(__all__)


LABELS = ("code", "kind", "category", "gate")


class ErrorMetrics:
    def __init__(
        self,
        registry: Optional[CollectorRegistry] = None,
        name: str = "jsonrpc_errors",
        dialect: Union[str, Dialect] = "canonical",
    ) -> None:
        self.dialect = dialect
        self.counter = Counter(
            name,
            "JSON-RPC errors by code, kind, category and gate.",
            LABELS,
            registry=registry if registry is not None else _DEFAULT_REGISTRY,
        )

    def observe(self, error: Any, amount: float = 1.0) -> dict[str, Any]:
        facts = describe(error, dialect=self.dialect)
        self.counter.labels(
            code="" if facts["code"] is None else str(facts["code"]),
            kind=facts["kind"] or "",
            category=facts["category"] or "",
            gate=facts["gate"] or "",
        ).inc(amount)
        return facts
