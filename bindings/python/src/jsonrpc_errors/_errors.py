"""Exceptions raised by the package."""

from __future__ import annotations

import json
from typing import Any, Optional


class JsonRpcErrorsError(Exception):
    """Base class of every exception the package raises about its own calls."""


class ArgumentTypeError(JsonRpcErrorsError, TypeError):
    """An argument has the wrong Python type (raised before anything reaches the component)."""


class JsonRpcErrorsValueError(JsonRpcErrorsError, ValueError):
    """An argument has the right type but a value the component's types cannot carry."""


class _ErrorObjectMixin:
    error: dict[str, Any]

    def _init_error(self, code: int, message: str, data_json: Optional[str]) -> None:
        err: dict[str, Any] = {"code": code, "message": message}
        if data_json is not None:
            try:
                err["data"] = json.loads(data_json)
            except ValueError:
                err["data"] = data_json
        self.error = err

    @property
    def code(self) -> int:
        return int(self.error["code"])

    @property
    def message(self) -> str:
        return str(self.error["message"])

    @property
    def data(self) -> Any:
        return self.error.get("data")


class InvalidInput(_ErrorObjectMixin, JsonRpcErrorsError, ValueError):
    """The component refused the input; `.error` is its JSON-RPC error object (code, message, data)."""

    def __init__(self, code: int, message: str, data_json: Optional[str] = None) -> None:
        self._init_error(code, message, data_json)
        detail = f": {data_json}" if data_json else ""
        super().__init__(f"{message} ({code}){detail}")


class ComponentFault(_ErrorObjectMixin, JsonRpcErrorsError, RuntimeError):
    """The component trapped. `.error` is the plain internal-error object; the instance was discarded."""

    def __init__(self, code: int, message: str) -> None:
        self._init_error(code, message, None)
        super().__init__(f"{message} ({code})")
