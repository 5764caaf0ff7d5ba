# Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.
"""Taxonomy constants for type checkers and logging/metrics integrations.

Mapping itself always happens inside the component; these are names and facts, not logic.
"""

from __future__ import annotations

import enum
from typing import Final, Mapping, NamedTuple, Optional

TAXONOMY_VERSION: Final = "0.1.0"

#: `validate`'s default size limit, in bytes.
DEFAULT_MAX_BYTES: Final = 10485760


class ErrorKind(str, enum.Enum):
    """Every error kind (the value is the kind's name)."""

    PARSE_ERROR = "parse-error"
    INVALID_REQUEST = "invalid-request"
    METHOD_NOT_FOUND = "method-not-found"
    INVALID_PARAMS = "invalid-params"
    INTERNAL_ERROR = "internal-error"
    TOOL_NOT_EXPOSED = "tool-not-exposed"
    GOVERNANCE_RULE_DENIED = "governance-rule-denied"
    POLICY_DENIED = "policy-denied"
    APPROVAL_REJECTED = "approval-rejected"
    APPROVAL_TIMEOUT = "approval-timeout"
    WORKFLOW_NOT_FOUND = "workflow-not-found"
    UPSTREAM_CONNECTION_FAILED = "upstream-connection-failed"
    UPSTREAM_TIMEOUT = "upstream-timeout"
    UPSTREAM_ERROR = "upstream-error"
    TASK_NOT_FOUND = "task-not-found"
    TASK_EXPIRED = "task-expired"
    TASK_CANCELLED = "task-cancelled"
    INSPECTION_FAILED = "inspection-failed"
    POLICY_DRIFT = "policy-drift"
    TRANSFORM_DRIFT = "transform-drift"
    INVALID_STATE_TRANSITION = "invalid-state-transition"
    CONFIGURATION_ERROR = "configuration-error"
    RATE_LIMITED = "rate-limited"
    SERVICE_UNAVAILABLE = "service-unavailable"
    TIMEOUT = "timeout"
    BACKEND_UNAVAILABLE = "backend-unavailable"
    SECURITY_VIOLATION = "security-violation"
    VALIDATION_FAILED = "validation-failed"
    UNKNOWN_SKILL = "unknown-skill"
    COORDINATOR_ERROR = "coordinator-error"
    VALIDATION_ERROR = "validation-error"
    MISSING_REQUIRED_FIELD = "missing-required-field"
    INVALID_FORMAT = "invalid-format"
    ADAPTER_ERROR = "adapter-error"
    NOT_IMPLEMENTED = "not-implemented"
    TASK_NOT_CANCELABLE = "task-not-cancelable"
    PUSH_NOTIFICATION_NOT_SUPPORTED = "push-notification-not-supported"
    UNSUPPORTED_OPERATION = "unsupported-operation"
    CONTENT_TYPE_NOT_SUPPORTED = "content-type-not-supported"
    INVALID_AGENT_RESPONSE = "invalid-agent-response"
    EXTENDED_AGENT_CARD_NOT_CONFIGURED = "extended-agent-card-not-configured"
    EXTENSION_SUPPORT_REQUIRED = "extension-support-required"
    VERSION_NOT_SUPPORTED = "version-not-supported"
    HEADER_MISMATCH = "header-mismatch"
    MISSING_CLIENT_CAPABILITY = "missing-client-capability"
    UNSUPPORTED_PROTOCOL_VERSION = "unsupported-protocol-version"
    SESSION_REQUIRED = "session-required"
    SESSION_NOT_FOUND = "session-not-found"
    FRONT_UNAVAILABLE = "front-unavailable"


class Dialect(str, enum.Enum):
    """Every dialect a kind can be rendered in."""

    CANONICAL = "canonical"
    DUET = "duet"
    VAPORA = "vapora"
    THOUGHTGATE = "thoughtgate"
    ERROR_MODEL = "error-model"
    WATCHGATE = "watchgate"
    MCP = "mcp"
    A2A = "a2a"


class KindInfo(NamedTuple):
    category: str
    gate: Optional[str]
    retryable: bool
    http_status: int
    log_level: str
    fields: tuple[str, ...]
    required: tuple[str, ...]


KINDS: Final[Mapping[str, KindInfo]] = {
    "parse-error": KindInfo("client", None, False, 400, "warn", ("details",), ()),
    "invalid-request": KindInfo("client", None, False, 400, "warn", ("reason", "details"), ()),
    "method-not-found": KindInfo("client", None, False, 404, "warn", ("method",), ("method",)),
    "invalid-params": KindInfo("client", None, False, 400, "warn", ("param", "expected", "received", "accepted", "details"), ()),
    "internal-error": KindInfo("server", None, False, 500, "error", ("details",), ()),
    "tool-not-exposed": KindInfo("gate", "visibility", False, 404, "warn", ("tool", "source"), ("tool",)),
    "governance-rule-denied": KindInfo("gate", "governance", False, 403, "warn", ("tool", "rule"), ("tool",)),
    "policy-denied": KindInfo("gate", "policy", False, 403, "warn", ("tool", "policy_id", "reason"), ("tool",)),
    "approval-rejected": KindInfo("gate", "approval", False, 403, "info", ("tool", "rejected_by", "workflow"), ("tool",)),
    "approval-timeout": KindInfo("gate", "approval", True, 408, "info", ("tool", "timeout_secs", "workflow"), ("tool", "timeout_secs")),
    "workflow-not-found": KindInfo("server", "approval", False, 500, "error", ("workflow",), ("workflow",)),
    "upstream-connection-failed": KindInfo("upstream", None, True, 502, "error", ("url", "reason"), ("url",)),
    "upstream-timeout": KindInfo("upstream", None, True, 504, "warn", ("url", "timeout_secs"), ("timeout_secs",)),
    "upstream-error": KindInfo("upstream", None, False, 502, "warn", ("code", "message"), ()),
    "task-not-found": KindInfo("task", None, False, 404, "info", ("task_id",), ("task_id",)),
    "task-expired": KindInfo("task", None, False, 410, "info", ("task_id", "ttl_secs"), ("task_id",)),
    "task-cancelled": KindInfo("task", None, False, 409, "info", ("task_id",), ("task_id",)),
    "inspection-failed": KindInfo("security", None, False, 403, "warn", ("inspector", "reason"), ("inspector",)),
    "policy-drift": KindInfo("task", None, False, 409, "warn", ("task_id",), ("task_id",)),
    "transform-drift": KindInfo("task", None, False, 409, "warn", ("task_id",), ("task_id",)),
    "invalid-state-transition": KindInfo("task", None, False, 409, "warn", ("current", "target"), ("current", "target")),
    "configuration-error": KindInfo("server", None, False, 500, "error", ("details",), ("details",)),
    "rate-limited": KindInfo("transient", None, True, 429, "warn", ("retry_after_secs",), ()),
    "service-unavailable": KindInfo("transient", None, True, 503, "warn", ("reason", "retry_after_secs"), ()),
    "timeout": KindInfo("transient", None, True, 504, "warn", (), ()),
    "backend-unavailable": KindInfo("transient", None, True, 503, "warn", (), ()),
    "security-violation": KindInfo("security", None, False, 403, "warn", ("details",), ()),
    "validation-failed": KindInfo("client", None, False, 400, "warn", ("details",), ()),
    "unknown-skill": KindInfo("client", None, False, 404, "warn", ("skill",), ("skill",)),
    "coordinator-error": KindInfo("server", None, True, 500, "error", ("details",), ()),
    "validation-error": KindInfo("client", None, False, 400, "warn", ("field",), ()),
    "missing-required-field": KindInfo("client", None, False, 400, "warn", ("field",), ("field",)),
    "invalid-format": KindInfo("client", None, False, 400, "warn", ("field",), ("field",)),
    "adapter-error": KindInfo("domain", None, False, 502, "warn", ("original_error", "retryable"), ()),
    "not-implemented": KindInfo("domain", None, False, 501, "info", (), ()),
    "task-not-cancelable": KindInfo("task", None, False, 409, "info", ("task_id", "current_state"), ("task_id",)),
    "push-notification-not-supported": KindInfo("client", None, False, 400, "info", (), ()),
    "unsupported-operation": KindInfo("client", None, False, 400, "info", ("operation",), ()),
    "content-type-not-supported": KindInfo("client", None, False, 415, "info", ("content_type",), ()),
    "invalid-agent-response": KindInfo("upstream", None, False, 502, "error", ("details",), ()),
    "extended-agent-card-not-configured": KindInfo("client", None, False, 400, "info", (), ()),
    "extension-support-required": KindInfo("client", None, False, 400, "info", ("extension",), ()),
    "version-not-supported": KindInfo("client", None, False, 400, "info", ("version",), ()),
    "header-mismatch": KindInfo("client", None, False, 400, "info", ("details",), ("details",)),
    "missing-client-capability": KindInfo("client", None, False, 400, "info", (), ()),
    "unsupported-protocol-version": KindInfo("client", None, False, 400, "info", ("supported", "requested"), ("supported", "requested")),
    "session-required": KindInfo("client", None, False, 400, "info", ("details",), ()),
    "session-not-found": KindInfo("client", None, False, 404, "info", (), ()),
    "front-unavailable": KindInfo("transient", None, True, 503, "info", ("reason",), ("reason",)),
}
