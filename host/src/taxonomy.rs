// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

use crate::bindings::exports::jsonrpc_errors::core::kinds::{Dialect, ErrorKind};

/// `validate`'s default size limit, in bytes (the taxonomy's `default_max_bytes`).
pub(crate) const DEFAULT_MAX_BYTES: u64 = 10485760;

/// The WIT dialect named `name`.
pub(crate) fn known_dialect(name: &str) -> Option<Dialect> {
    Some(match name {
        "canonical" => Dialect::Canonical,
        "duet" => Dialect::Duet,
        "vapora" => Dialect::Vapora,
        "thoughtgate" => Dialect::Thoughtgate,
        "error-model" => Dialect::ErrorModel,
        "watchgate" => Dialect::Watchgate,
        "mcp" => Dialect::Mcp,
        "a2a" => Dialect::A2a,
        _ => return None,
    })
}

/// Every dialect's name and what it follows (the taxonomy's `[meta.dialects]`), in the WIT enum's order.
pub const DIALECTS: &[(&str, &str)] = &[
    ("canonical", "jsonrpc-errors' own dialect: standard codes, ThoughtGate's codes for the kinds it names (but MCP's), documented -32018/-32019 families for the rest (all inside MCP's implementation range -32000..-32019), and data.type = the kind name."),
    ("duet", "duet-rpc ADR-012: the five standard codes only; data {param, expected, received, accepted} for -32602 and {reason} for -32600."),
    ("vapora", "VAPORA ADR 0003 (A2A server, Rust): domain errors at -32000 told apart by their message, internal faults at -32603, no data."),
    ("thoughtgate", "ThoughtGate REQ-CORE-004: custom codes -32000..-32017 and ErrorData {correlation_id, gate, tool, details} populated per its table."),
    ("error-model", "MCP server Error Model 1.0.0: domain errors as a successful response whose result.error is {code, message, retryable, details}; protocol errors as JSON-RPC errors."),
    ("watchgate", "Watchgate ADR-004: custom codes -32000..-32004 and data {details, request_id, timestamp}."),
    ("mcp", "The MCP specification: protocol errors as JSON-RPC errors (an unknown tool is -32602), tool execution failures as results with isError: true."),
    ("a2a", "The A2A specification v1.0 section 5.4: TaskNotFound -32001 ... VersionNotSupported -32009 beside the standard codes."),
];

/// `kind`'s HTTP status (the taxonomy's `http_status`): what a front sends an error of its own with.
pub fn http_status(kind: &ErrorKind) -> u16 {
    match kind {
        ErrorKind::ParseError(_) => 400,
        ErrorKind::InvalidRequest(_) => 400,
        ErrorKind::MethodNotFound(_) => 404,
        ErrorKind::InvalidParams(_) => 400,
        ErrorKind::InternalError(_) => 500,
        ErrorKind::ToolNotExposed(_) => 404,
        ErrorKind::GovernanceRuleDenied(_) => 403,
        ErrorKind::PolicyDenied(_) => 403,
        ErrorKind::ApprovalRejected(_) => 403,
        ErrorKind::ApprovalTimeout(_) => 408,
        ErrorKind::WorkflowNotFound(_) => 500,
        ErrorKind::UpstreamConnectionFailed(_) => 502,
        ErrorKind::UpstreamTimeout(_) => 504,
        ErrorKind::UpstreamError(_) => 502,
        ErrorKind::TaskNotFound(_) => 404,
        ErrorKind::TaskExpired(_) => 410,
        ErrorKind::TaskCancelled(_) => 409,
        ErrorKind::InspectionFailed(_) => 403,
        ErrorKind::PolicyDrift(_) => 409,
        ErrorKind::TransformDrift(_) => 409,
        ErrorKind::InvalidStateTransition(_) => 409,
        ErrorKind::ConfigurationError(_) => 500,
        ErrorKind::RateLimited(_) => 429,
        ErrorKind::ServiceUnavailable(_) => 503,
        ErrorKind::Timeout => 504,
        ErrorKind::BackendUnavailable => 503,
        ErrorKind::SecurityViolation(_) => 403,
        ErrorKind::ValidationFailed(_) => 400,
        ErrorKind::UnknownSkill(_) => 404,
        ErrorKind::CoordinatorError(_) => 500,
        ErrorKind::ValidationError(_) => 400,
        ErrorKind::MissingRequiredField(_) => 400,
        ErrorKind::InvalidFormat(_) => 400,
        ErrorKind::AdapterError(_) => 502,
        ErrorKind::NotImplemented => 501,
        ErrorKind::TaskNotCancelable(_) => 409,
        ErrorKind::PushNotificationNotSupported => 400,
        ErrorKind::UnsupportedOperation(_) => 400,
        ErrorKind::ContentTypeNotSupported(_) => 415,
        ErrorKind::InvalidAgentResponse(_) => 502,
        ErrorKind::ExtendedAgentCardNotConfigured => 400,
        ErrorKind::ExtensionSupportRequired(_) => 400,
        ErrorKind::VersionNotSupported(_) => 400,
        ErrorKind::HeaderMismatch(_) => 400,
        ErrorKind::MissingClientCapability => 400,
        ErrorKind::UnsupportedProtocolVersion(_) => 400,
        ErrorKind::SessionRequired(_) => 400,
        ErrorKind::SessionNotFound => 404,
        ErrorKind::FrontUnavailable(_) => 503,
    }
}

/// `kind`'s name (its `data.type` in the canonical dialect), for the operator's log.
pub fn kind_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ParseError(_) => "parse-error",
        ErrorKind::InvalidRequest(_) => "invalid-request",
        ErrorKind::MethodNotFound(_) => "method-not-found",
        ErrorKind::InvalidParams(_) => "invalid-params",
        ErrorKind::InternalError(_) => "internal-error",
        ErrorKind::ToolNotExposed(_) => "tool-not-exposed",
        ErrorKind::GovernanceRuleDenied(_) => "governance-rule-denied",
        ErrorKind::PolicyDenied(_) => "policy-denied",
        ErrorKind::ApprovalRejected(_) => "approval-rejected",
        ErrorKind::ApprovalTimeout(_) => "approval-timeout",
        ErrorKind::WorkflowNotFound(_) => "workflow-not-found",
        ErrorKind::UpstreamConnectionFailed(_) => "upstream-connection-failed",
        ErrorKind::UpstreamTimeout(_) => "upstream-timeout",
        ErrorKind::UpstreamError(_) => "upstream-error",
        ErrorKind::TaskNotFound(_) => "task-not-found",
        ErrorKind::TaskExpired(_) => "task-expired",
        ErrorKind::TaskCancelled(_) => "task-cancelled",
        ErrorKind::InspectionFailed(_) => "inspection-failed",
        ErrorKind::PolicyDrift(_) => "policy-drift",
        ErrorKind::TransformDrift(_) => "transform-drift",
        ErrorKind::InvalidStateTransition(_) => "invalid-state-transition",
        ErrorKind::ConfigurationError(_) => "configuration-error",
        ErrorKind::RateLimited(_) => "rate-limited",
        ErrorKind::ServiceUnavailable(_) => "service-unavailable",
        ErrorKind::Timeout => "timeout",
        ErrorKind::BackendUnavailable => "backend-unavailable",
        ErrorKind::SecurityViolation(_) => "security-violation",
        ErrorKind::ValidationFailed(_) => "validation-failed",
        ErrorKind::UnknownSkill(_) => "unknown-skill",
        ErrorKind::CoordinatorError(_) => "coordinator-error",
        ErrorKind::ValidationError(_) => "validation-error",
        ErrorKind::MissingRequiredField(_) => "missing-required-field",
        ErrorKind::InvalidFormat(_) => "invalid-format",
        ErrorKind::AdapterError(_) => "adapter-error",
        ErrorKind::NotImplemented => "not-implemented",
        ErrorKind::TaskNotCancelable(_) => "task-not-cancelable",
        ErrorKind::PushNotificationNotSupported => "push-notification-not-supported",
        ErrorKind::UnsupportedOperation(_) => "unsupported-operation",
        ErrorKind::ContentTypeNotSupported(_) => "content-type-not-supported",
        ErrorKind::InvalidAgentResponse(_) => "invalid-agent-response",
        ErrorKind::ExtendedAgentCardNotConfigured => "extended-agent-card-not-configured",
        ErrorKind::ExtensionSupportRequired(_) => "extension-support-required",
        ErrorKind::VersionNotSupported(_) => "version-not-supported",
        ErrorKind::HeaderMismatch(_) => "header-mismatch",
        ErrorKind::MissingClientCapability => "missing-client-capability",
        ErrorKind::UnsupportedProtocolVersion(_) => "unsupported-protocol-version",
        ErrorKind::SessionRequired(_) => "session-required",
        ErrorKind::SessionNotFound => "session-not-found",
        ErrorKind::FrontUnavailable(_) => "front-unavailable",
    }
}

/// The kind an error answer with `code` stands for in MCP (the code's first kind in the `mcp` dialect, as
/// reverse lookup returns it from the code alone), and that kind's HTTP status.
pub fn mcp_kind(code: i64) -> Option<(&'static str, u16)> {
    Some(match code {
        -32700 => ("parse-error", 400),
        -32600 => ("invalid-request", 400),
        -32601 => ("method-not-found", 404),
        -32602 => ("invalid-params", 400),
        -32603 => ("internal-error", 500),
        -32020 => ("header-mismatch", 400),
        -32021 => ("missing-client-capability", 400),
        -32022 => ("unsupported-protocol-version", 400),
        -32000 => ("front-unavailable", 503),
        _ => return None,
    })
}
