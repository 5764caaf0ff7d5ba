// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

use crate::map_input::FieldReader;
use serde::{Deserialize, Deserializer, Serialize};

/// Every error kind with its fields: what a server answers with. It serializes as the guest's map input
/// (`{"kind": "tool-not-exposed", "tool": …}`, absent options left out) and deserializes from it,
/// refusing a field the kind does not have.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum ErrorKind {
    /// The payload is not valid JSON (or not UTF-8, or has trailing garbage, or its Content-Length does not match).
    #[serde(rename = "parse-error")]
    ParseError {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// The JSON is not a valid JSON-RPC 2.0 request object (envelope, id type, size, content type, charset, batch policy).
    #[serde(rename = "invalid-request")]
    InvalidRequest {
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// The method does not exist or is not available.
    #[serde(rename = "method-not-found")]
    MethodNotFound {
        method: String,
    },
    /// The method's parameters are wrong or missing.
    #[serde(rename = "invalid-params")]
    InvalidParams {
        #[serde(skip_serializing_if = "Option::is_none")]
        param: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        expected: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        received: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        accepted: Option<Vec<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// An unexpected fault in the server; the details go to the log only, never to the client.
    #[serde(rename = "internal-error")]
    InternalError {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// Gate 1 (visibility): the tool is hidden by the expose configuration.
    #[serde(rename = "tool-not-exposed")]
    ToolNotExposed {
        tool: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    },
    /// Gate 2 (governance): an `action: deny` rule matched the tool.
    #[serde(rename = "governance-rule-denied")]
    GovernanceRuleDenied {
        tool: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// Gate 3 (policy): a Cedar policy forbids the call. Policy ids and reasons are logged, never returned.
    #[serde(rename = "policy-denied")]
    PolicyDenied {
        tool: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        policy_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Gate 4 (approval): a human rejected the request.
    #[serde(rename = "approval-rejected")]
    ApprovalRejected {
        tool: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        rejected_by: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        workflow: Option<String>,
    },
    /// Gate 4 (approval): the approval window expired before anyone decided.
    #[serde(rename = "approval-timeout")]
    ApprovalTimeout {
        tool: String,
        timeout_secs: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        workflow: Option<String>,
    },
    /// Gate 4 (approval): the approval workflow the rule names is not defined.
    #[serde(rename = "workflow-not-found")]
    WorkflowNotFound {
        workflow: String,
    },
    /// The proxy cannot connect to the upstream server.
    #[serde(rename = "upstream-connection-failed")]
    UpstreamConnectionFailed {
        url: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The upstream server did not answer in time.
    #[serde(rename = "upstream-timeout")]
    UpstreamTimeout {
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        timeout_secs: u64,
    },
    /// The upstream server answered with an error; its message is passed on only after sanitizing.
    #[serde(rename = "upstream-error")]
    UpstreamError {
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The task id is unknown.
    #[serde(rename = "task-not-found")]
    TaskNotFound {
        task_id: String,
    },
    /// The task outlived its TTL.
    #[serde(rename = "task-expired")]
    TaskExpired {
        task_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        ttl_secs: Option<u64>,
    },
    /// The task was cancelled.
    #[serde(rename = "task-cancelled")]
    TaskCancelled {
        task_id: String,
    },
    /// An amber-path inspector rejected the request. The inspector is named; its reason is logged only.
    #[serde(rename = "inspection-failed")]
    InspectionFailed {
        inspector: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The policy changed between approval and execution, so the approved request is denied.
    #[serde(rename = "policy-drift")]
    PolicyDrift {
        task_id: String,
    },
    /// The request changed while it waited for approval.
    #[serde(rename = "transform-drift")]
    TransformDrift {
        task_id: String,
    },
    /// VAPORA: the task cannot move from its current state to the requested one.
    #[serde(rename = "invalid-state-transition")]
    InvalidStateTransition {
        current: String,
        target: String,
    },
    /// The server's configuration is invalid; only sanitized details are returned.
    #[serde(rename = "configuration-error")]
    ConfigurationError {
        details: String,
    },
    /// Too many requests.
    #[serde(rename = "rate-limited")]
    RateLimited {
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after_secs: Option<u64>,
    },
    /// The service is overloaded or shutting down.
    #[serde(rename = "service-unavailable")]
    ServiceUnavailable {
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after_secs: Option<u64>,
    },
    /// Error Model TIMEOUT: the operation exceeded its time limit.
    #[serde(rename = "timeout")]
    Timeout,
    /// Error Model BACKEND_UNAVAILABLE: a downstream service is unavailable.
    #[serde(rename = "backend-unavailable")]
    BackendUnavailable,
    /// Watchgate: the request was blocked by a security policy.
    #[serde(rename = "security-violation")]
    SecurityViolation {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// Watchgate: the request failed the proxy's validation.
    #[serde(rename = "validation-failed")]
    ValidationFailed {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// VAPORA: the agent has no skill with that name.
    #[serde(rename = "unknown-skill")]
    UnknownSkill {
        skill: String,
    },
    /// VAPORA: the task coordinator failed.
    #[serde(rename = "coordinator-error")]
    CoordinatorError {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// Error Model VALIDATION_ERROR: parameters failed schema or format checks.
    #[serde(rename = "validation-error")]
    ValidationError {
        #[serde(skip_serializing_if = "Option::is_none")]
        field: Option<String>,
    },
    /// Error Model MISSING_REQUIRED_FIELD: a required field is missing.
    #[serde(rename = "missing-required-field")]
    MissingRequiredField {
        field: String,
    },
    /// Error Model INVALID_FORMAT: a field's format is incorrect.
    #[serde(rename = "invalid-format")]
    InvalidFormat {
        field: String,
    },
    /// Error Model ADAPTER_ERROR: a backend integration failed; the adapter's own identifier travels as originalError. Retryability varies: the caller may set `retryable`.
    #[serde(rename = "adapter-error")]
    AdapterError {
        #[serde(skip_serializing_if = "Option::is_none")]
        original_error: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        retryable: Option<bool>,
    },
    /// Error Model NOT_IMPLEMENTED: the tool is unsupported by this adapter.
    #[serde(rename = "not-implemented")]
    NotImplemented,
    /// A2A TaskNotCancelableError: the task is in a state that cannot be canceled.
    #[serde(rename = "task-not-cancelable")]
    TaskNotCancelable {
        task_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        current_state: Option<String>,
    },
    /// A2A PushNotificationNotSupportedError: the agent does not support push notifications.
    #[serde(rename = "push-notification-not-supported")]
    PushNotificationNotSupported,
    /// A2A UnsupportedOperationError: the operation is valid but not supported by this agent.
    #[serde(rename = "unsupported-operation")]
    UnsupportedOperation {
        #[serde(skip_serializing_if = "Option::is_none")]
        operation: Option<String>,
    },
    /// A2A ContentTypeNotSupportedError: a media type in the request is not supported.
    #[serde(rename = "content-type-not-supported")]
    ContentTypeNotSupported {
        #[serde(skip_serializing_if = "Option::is_none")]
        content_type: Option<String>,
    },
    /// A2A InvalidAgentResponseError: the agent produced a response that does not conform to the spec.
    #[serde(rename = "invalid-agent-response")]
    InvalidAgentResponse {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// A2A ExtendedAgentCardNotConfiguredError: the agent has no authenticated extended card.
    #[serde(rename = "extended-agent-card-not-configured")]
    ExtendedAgentCardNotConfigured,
    /// A2A ExtensionSupportRequiredError: the client must declare support for a required extension.
    #[serde(rename = "extension-support-required")]
    ExtensionSupportRequired {
        #[serde(skip_serializing_if = "Option::is_none")]
        extension: Option<String>,
    },
    /// A2A VersionNotSupportedError: the requested protocol version is not supported.
    #[serde(rename = "version-not-supported")]
    VersionNotSupported {
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<String>,
    },
    /// MCP HeaderMismatch (2026-07-28): a request's MCP-Protocol-Version, Mcp-Method or Mcp-Name header is missing, given twice, or not what its body says.
    #[serde(rename = "header-mismatch")]
    HeaderMismatch {
        details: String,
    },
    /// MCP MissingRequiredClientCapability (2026-07-28): the request needs a client capability the client did not declare.
    #[serde(rename = "missing-client-capability")]
    MissingClientCapability,
    /// MCP UnsupportedProtocolVersion (2026-07-28): the request names a protocol revision the server does not speak; data lists the ones it does.
    #[serde(rename = "unsupported-protocol-version")]
    UnsupportedProtocolVersion {
        supported: Vec<String>,
        requested: String,
    },
    /// A Streamable HTTP request of a handshake revision came without the Mcp-Session-Id header (only initialize opens a session).
    #[serde(rename = "session-required")]
    SessionRequired {
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<String>,
    },
    /// A Streamable HTTP request named an Mcp-Session-Id the front does not hold (never opened, ended, or evicted).
    #[serde(rename = "session-not-found")]
    SessionNotFound,
    /// A guard's HTTP front refused a request before forwarding anything: it is shutting down, or at its limit of sessions or open streams.
    #[serde(rename = "front-unavailable")]
    FrontUnavailable {
        reason: String,
    },
}

/// A kind without its fields: what a client learns from an error code (see [`crate::RemoteError`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The payload is not valid JSON (or not UTF-8, or has trailing garbage, or its Content-Length does not match).
    ParseError,
    /// The JSON is not a valid JSON-RPC 2.0 request object (envelope, id type, size, content type, charset, batch policy).
    InvalidRequest,
    /// The method does not exist or is not available.
    MethodNotFound,
    /// The method's parameters are wrong or missing.
    InvalidParams,
    /// An unexpected fault in the server; the details go to the log only, never to the client.
    InternalError,
    /// Gate 1 (visibility): the tool is hidden by the expose configuration.
    ToolNotExposed,
    /// Gate 2 (governance): an `action: deny` rule matched the tool.
    GovernanceRuleDenied,
    /// Gate 3 (policy): a Cedar policy forbids the call. Policy ids and reasons are logged, never returned.
    PolicyDenied,
    /// Gate 4 (approval): a human rejected the request.
    ApprovalRejected,
    /// Gate 4 (approval): the approval window expired before anyone decided.
    ApprovalTimeout,
    /// Gate 4 (approval): the approval workflow the rule names is not defined.
    WorkflowNotFound,
    /// The proxy cannot connect to the upstream server.
    UpstreamConnectionFailed,
    /// The upstream server did not answer in time.
    UpstreamTimeout,
    /// The upstream server answered with an error; its message is passed on only after sanitizing.
    UpstreamError,
    /// The task id is unknown.
    TaskNotFound,
    /// The task outlived its TTL.
    TaskExpired,
    /// The task was cancelled.
    TaskCancelled,
    /// An amber-path inspector rejected the request. The inspector is named; its reason is logged only.
    InspectionFailed,
    /// The policy changed between approval and execution, so the approved request is denied.
    PolicyDrift,
    /// The request changed while it waited for approval.
    TransformDrift,
    /// VAPORA: the task cannot move from its current state to the requested one.
    InvalidStateTransition,
    /// The server's configuration is invalid; only sanitized details are returned.
    ConfigurationError,
    /// Too many requests.
    RateLimited,
    /// The service is overloaded or shutting down.
    ServiceUnavailable,
    /// Error Model TIMEOUT: the operation exceeded its time limit.
    Timeout,
    /// Error Model BACKEND_UNAVAILABLE: a downstream service is unavailable.
    BackendUnavailable,
    /// Watchgate: the request was blocked by a security policy.
    SecurityViolation,
    /// Watchgate: the request failed the proxy's validation.
    ValidationFailed,
    /// VAPORA: the agent has no skill with that name.
    UnknownSkill,
    /// VAPORA: the task coordinator failed.
    CoordinatorError,
    /// Error Model VALIDATION_ERROR: parameters failed schema or format checks.
    ValidationError,
    /// Error Model MISSING_REQUIRED_FIELD: a required field is missing.
    MissingRequiredField,
    /// Error Model INVALID_FORMAT: a field's format is incorrect.
    InvalidFormat,
    /// Error Model ADAPTER_ERROR: a backend integration failed; the adapter's own identifier travels as originalError. Retryability varies: the caller may set `retryable`.
    AdapterError,
    /// Error Model NOT_IMPLEMENTED: the tool is unsupported by this adapter.
    NotImplemented,
    /// A2A TaskNotCancelableError: the task is in a state that cannot be canceled.
    TaskNotCancelable,
    /// A2A PushNotificationNotSupportedError: the agent does not support push notifications.
    PushNotificationNotSupported,
    /// A2A UnsupportedOperationError: the operation is valid but not supported by this agent.
    UnsupportedOperation,
    /// A2A ContentTypeNotSupportedError: a media type in the request is not supported.
    ContentTypeNotSupported,
    /// A2A InvalidAgentResponseError: the agent produced a response that does not conform to the spec.
    InvalidAgentResponse,
    /// A2A ExtendedAgentCardNotConfiguredError: the agent has no authenticated extended card.
    ExtendedAgentCardNotConfigured,
    /// A2A ExtensionSupportRequiredError: the client must declare support for a required extension.
    ExtensionSupportRequired,
    /// A2A VersionNotSupportedError: the requested protocol version is not supported.
    VersionNotSupported,
    /// MCP HeaderMismatch (2026-07-28): a request's MCP-Protocol-Version, Mcp-Method or Mcp-Name header is missing, given twice, or not what its body says.
    HeaderMismatch,
    /// MCP MissingRequiredClientCapability (2026-07-28): the request needs a client capability the client did not declare.
    MissingClientCapability,
    /// MCP UnsupportedProtocolVersion (2026-07-28): the request names a protocol revision the server does not speak; data lists the ones it does.
    UnsupportedProtocolVersion,
    /// A Streamable HTTP request of a handshake revision came without the Mcp-Session-Id header (only initialize opens a session).
    SessionRequired,
    /// A Streamable HTTP request named an Mcp-Session-Id the front does not hold (never opened, ended, or evicted).
    SessionNotFound,
    /// A guard's HTTP front refused a request before forwarding anything: it is shutting down, or at its limit of sessions or open streams.
    FrontUnavailable,
}

impl Kind {
    /// Every kind, in the taxonomy's order.
    pub const ALL: [Kind; 49] = [
        Kind::ParseError,
        Kind::InvalidRequest,
        Kind::MethodNotFound,
        Kind::InvalidParams,
        Kind::InternalError,
        Kind::ToolNotExposed,
        Kind::GovernanceRuleDenied,
        Kind::PolicyDenied,
        Kind::ApprovalRejected,
        Kind::ApprovalTimeout,
        Kind::WorkflowNotFound,
        Kind::UpstreamConnectionFailed,
        Kind::UpstreamTimeout,
        Kind::UpstreamError,
        Kind::TaskNotFound,
        Kind::TaskExpired,
        Kind::TaskCancelled,
        Kind::InspectionFailed,
        Kind::PolicyDrift,
        Kind::TransformDrift,
        Kind::InvalidStateTransition,
        Kind::ConfigurationError,
        Kind::RateLimited,
        Kind::ServiceUnavailable,
        Kind::Timeout,
        Kind::BackendUnavailable,
        Kind::SecurityViolation,
        Kind::ValidationFailed,
        Kind::UnknownSkill,
        Kind::CoordinatorError,
        Kind::ValidationError,
        Kind::MissingRequiredField,
        Kind::InvalidFormat,
        Kind::AdapterError,
        Kind::NotImplemented,
        Kind::TaskNotCancelable,
        Kind::PushNotificationNotSupported,
        Kind::UnsupportedOperation,
        Kind::ContentTypeNotSupported,
        Kind::InvalidAgentResponse,
        Kind::ExtendedAgentCardNotConfigured,
        Kind::ExtensionSupportRequired,
        Kind::VersionNotSupported,
        Kind::HeaderMismatch,
        Kind::MissingClientCapability,
        Kind::UnsupportedProtocolVersion,
        Kind::SessionRequired,
        Kind::SessionNotFound,
        Kind::FrontUnavailable,
    ];

    /// The kind's name, as every runtime spells it (`data.type` in the canonical dialect).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::ParseError => "parse-error",
            Kind::InvalidRequest => "invalid-request",
            Kind::MethodNotFound => "method-not-found",
            Kind::InvalidParams => "invalid-params",
            Kind::InternalError => "internal-error",
            Kind::ToolNotExposed => "tool-not-exposed",
            Kind::GovernanceRuleDenied => "governance-rule-denied",
            Kind::PolicyDenied => "policy-denied",
            Kind::ApprovalRejected => "approval-rejected",
            Kind::ApprovalTimeout => "approval-timeout",
            Kind::WorkflowNotFound => "workflow-not-found",
            Kind::UpstreamConnectionFailed => "upstream-connection-failed",
            Kind::UpstreamTimeout => "upstream-timeout",
            Kind::UpstreamError => "upstream-error",
            Kind::TaskNotFound => "task-not-found",
            Kind::TaskExpired => "task-expired",
            Kind::TaskCancelled => "task-cancelled",
            Kind::InspectionFailed => "inspection-failed",
            Kind::PolicyDrift => "policy-drift",
            Kind::TransformDrift => "transform-drift",
            Kind::InvalidStateTransition => "invalid-state-transition",
            Kind::ConfigurationError => "configuration-error",
            Kind::RateLimited => "rate-limited",
            Kind::ServiceUnavailable => "service-unavailable",
            Kind::Timeout => "timeout",
            Kind::BackendUnavailable => "backend-unavailable",
            Kind::SecurityViolation => "security-violation",
            Kind::ValidationFailed => "validation-failed",
            Kind::UnknownSkill => "unknown-skill",
            Kind::CoordinatorError => "coordinator-error",
            Kind::ValidationError => "validation-error",
            Kind::MissingRequiredField => "missing-required-field",
            Kind::InvalidFormat => "invalid-format",
            Kind::AdapterError => "adapter-error",
            Kind::NotImplemented => "not-implemented",
            Kind::TaskNotCancelable => "task-not-cancelable",
            Kind::PushNotificationNotSupported => "push-notification-not-supported",
            Kind::UnsupportedOperation => "unsupported-operation",
            Kind::ContentTypeNotSupported => "content-type-not-supported",
            Kind::InvalidAgentResponse => "invalid-agent-response",
            Kind::ExtendedAgentCardNotConfigured => "extended-agent-card-not-configured",
            Kind::ExtensionSupportRequired => "extension-support-required",
            Kind::VersionNotSupported => "version-not-supported",
            Kind::HeaderMismatch => "header-mismatch",
            Kind::MissingClientCapability => "missing-client-capability",
            Kind::UnsupportedProtocolVersion => "unsupported-protocol-version",
            Kind::SessionRequired => "session-required",
            Kind::SessionNotFound => "session-not-found",
            Kind::FrontUnavailable => "front-unavailable",
        }
    }

    /// The kind named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "parse-error" => Kind::ParseError,
            "invalid-request" => Kind::InvalidRequest,
            "method-not-found" => Kind::MethodNotFound,
            "invalid-params" => Kind::InvalidParams,
            "internal-error" => Kind::InternalError,
            "tool-not-exposed" => Kind::ToolNotExposed,
            "governance-rule-denied" => Kind::GovernanceRuleDenied,
            "policy-denied" => Kind::PolicyDenied,
            "approval-rejected" => Kind::ApprovalRejected,
            "approval-timeout" => Kind::ApprovalTimeout,
            "workflow-not-found" => Kind::WorkflowNotFound,
            "upstream-connection-failed" => Kind::UpstreamConnectionFailed,
            "upstream-timeout" => Kind::UpstreamTimeout,
            "upstream-error" => Kind::UpstreamError,
            "task-not-found" => Kind::TaskNotFound,
            "task-expired" => Kind::TaskExpired,
            "task-cancelled" => Kind::TaskCancelled,
            "inspection-failed" => Kind::InspectionFailed,
            "policy-drift" => Kind::PolicyDrift,
            "transform-drift" => Kind::TransformDrift,
            "invalid-state-transition" => Kind::InvalidStateTransition,
            "configuration-error" => Kind::ConfigurationError,
            "rate-limited" => Kind::RateLimited,
            "service-unavailable" => Kind::ServiceUnavailable,
            "timeout" => Kind::Timeout,
            "backend-unavailable" => Kind::BackendUnavailable,
            "security-violation" => Kind::SecurityViolation,
            "validation-failed" => Kind::ValidationFailed,
            "unknown-skill" => Kind::UnknownSkill,
            "coordinator-error" => Kind::CoordinatorError,
            "validation-error" => Kind::ValidationError,
            "missing-required-field" => Kind::MissingRequiredField,
            "invalid-format" => Kind::InvalidFormat,
            "adapter-error" => Kind::AdapterError,
            "not-implemented" => Kind::NotImplemented,
            "task-not-cancelable" => Kind::TaskNotCancelable,
            "push-notification-not-supported" => Kind::PushNotificationNotSupported,
            "unsupported-operation" => Kind::UnsupportedOperation,
            "content-type-not-supported" => Kind::ContentTypeNotSupported,
            "invalid-agent-response" => Kind::InvalidAgentResponse,
            "extended-agent-card-not-configured" => Kind::ExtendedAgentCardNotConfigured,
            "extension-support-required" => Kind::ExtensionSupportRequired,
            "version-not-supported" => Kind::VersionNotSupported,
            "header-mismatch" => Kind::HeaderMismatch,
            "missing-client-capability" => Kind::MissingClientCapability,
            "unsupported-protocol-version" => Kind::UnsupportedProtocolVersion,
            "session-required" => Kind::SessionRequired,
            "session-not-found" => Kind::SessionNotFound,
            "front-unavailable" => Kind::FrontUnavailable,
            _ => return None,
        })
    }
}

impl ErrorKind {
    /// Which kind this is.
    pub const fn kind(&self) -> Kind {
        match self {
            ErrorKind::ParseError { .. } => Kind::ParseError,
            ErrorKind::InvalidRequest { .. } => Kind::InvalidRequest,
            ErrorKind::MethodNotFound { .. } => Kind::MethodNotFound,
            ErrorKind::InvalidParams { .. } => Kind::InvalidParams,
            ErrorKind::InternalError { .. } => Kind::InternalError,
            ErrorKind::ToolNotExposed { .. } => Kind::ToolNotExposed,
            ErrorKind::GovernanceRuleDenied { .. } => Kind::GovernanceRuleDenied,
            ErrorKind::PolicyDenied { .. } => Kind::PolicyDenied,
            ErrorKind::ApprovalRejected { .. } => Kind::ApprovalRejected,
            ErrorKind::ApprovalTimeout { .. } => Kind::ApprovalTimeout,
            ErrorKind::WorkflowNotFound { .. } => Kind::WorkflowNotFound,
            ErrorKind::UpstreamConnectionFailed { .. } => Kind::UpstreamConnectionFailed,
            ErrorKind::UpstreamTimeout { .. } => Kind::UpstreamTimeout,
            ErrorKind::UpstreamError { .. } => Kind::UpstreamError,
            ErrorKind::TaskNotFound { .. } => Kind::TaskNotFound,
            ErrorKind::TaskExpired { .. } => Kind::TaskExpired,
            ErrorKind::TaskCancelled { .. } => Kind::TaskCancelled,
            ErrorKind::InspectionFailed { .. } => Kind::InspectionFailed,
            ErrorKind::PolicyDrift { .. } => Kind::PolicyDrift,
            ErrorKind::TransformDrift { .. } => Kind::TransformDrift,
            ErrorKind::InvalidStateTransition { .. } => Kind::InvalidStateTransition,
            ErrorKind::ConfigurationError { .. } => Kind::ConfigurationError,
            ErrorKind::RateLimited { .. } => Kind::RateLimited,
            ErrorKind::ServiceUnavailable { .. } => Kind::ServiceUnavailable,
            ErrorKind::Timeout => Kind::Timeout,
            ErrorKind::BackendUnavailable => Kind::BackendUnavailable,
            ErrorKind::SecurityViolation { .. } => Kind::SecurityViolation,
            ErrorKind::ValidationFailed { .. } => Kind::ValidationFailed,
            ErrorKind::UnknownSkill { .. } => Kind::UnknownSkill,
            ErrorKind::CoordinatorError { .. } => Kind::CoordinatorError,
            ErrorKind::ValidationError { .. } => Kind::ValidationError,
            ErrorKind::MissingRequiredField { .. } => Kind::MissingRequiredField,
            ErrorKind::InvalidFormat { .. } => Kind::InvalidFormat,
            ErrorKind::AdapterError { .. } => Kind::AdapterError,
            ErrorKind::NotImplemented => Kind::NotImplemented,
            ErrorKind::TaskNotCancelable { .. } => Kind::TaskNotCancelable,
            ErrorKind::PushNotificationNotSupported => Kind::PushNotificationNotSupported,
            ErrorKind::UnsupportedOperation { .. } => Kind::UnsupportedOperation,
            ErrorKind::ContentTypeNotSupported { .. } => Kind::ContentTypeNotSupported,
            ErrorKind::InvalidAgentResponse { .. } => Kind::InvalidAgentResponse,
            ErrorKind::ExtendedAgentCardNotConfigured => Kind::ExtendedAgentCardNotConfigured,
            ErrorKind::ExtensionSupportRequired { .. } => Kind::ExtensionSupportRequired,
            ErrorKind::VersionNotSupported { .. } => Kind::VersionNotSupported,
            ErrorKind::HeaderMismatch { .. } => Kind::HeaderMismatch,
            ErrorKind::MissingClientCapability => Kind::MissingClientCapability,
            ErrorKind::UnsupportedProtocolVersion { .. } => Kind::UnsupportedProtocolVersion,
            ErrorKind::SessionRequired { .. } => Kind::SessionRequired,
            ErrorKind::SessionNotFound => Kind::SessionNotFound,
            ErrorKind::FrontUnavailable { .. } => Kind::FrontUnavailable,
        }
    }
}

// By hand rather than derived: serde's internally tagged enums buffer their input, and with serde_json's
// `arbitrary_precision` (on in this workspace) a buffered number no longer reads as a `u64`.
impl<'de> Deserialize<'de> for ErrorKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut input = FieldReader::new(deserializer)?;
        let kind = input.kind(Kind::from_name)?;
        let value = match kind {
            Kind::ParseError => ErrorKind::ParseError {
                details: input.optional("details")?,
            },
            Kind::InvalidRequest => ErrorKind::InvalidRequest {
                reason: input.optional("reason")?,
                details: input.optional("details")?,
            },
            Kind::MethodNotFound => ErrorKind::MethodNotFound {
                method: input.required("method")?,
            },
            Kind::InvalidParams => ErrorKind::InvalidParams {
                param: input.optional("param")?,
                expected: input.optional("expected")?,
                received: input.optional("received")?,
                accepted: input.optional("accepted")?,
                details: input.optional("details")?,
            },
            Kind::InternalError => ErrorKind::InternalError {
                details: input.optional("details")?,
            },
            Kind::ToolNotExposed => ErrorKind::ToolNotExposed {
                tool: input.required("tool")?,
                source: input.optional("source")?,
            },
            Kind::GovernanceRuleDenied => ErrorKind::GovernanceRuleDenied {
                tool: input.required("tool")?,
                rule: input.optional("rule")?,
            },
            Kind::PolicyDenied => ErrorKind::PolicyDenied {
                tool: input.required("tool")?,
                policy_id: input.optional("policy_id")?,
                reason: input.optional("reason")?,
            },
            Kind::ApprovalRejected => ErrorKind::ApprovalRejected {
                tool: input.required("tool")?,
                rejected_by: input.optional("rejected_by")?,
                workflow: input.optional("workflow")?,
            },
            Kind::ApprovalTimeout => ErrorKind::ApprovalTimeout {
                tool: input.required("tool")?,
                timeout_secs: input.required("timeout_secs")?,
                workflow: input.optional("workflow")?,
            },
            Kind::WorkflowNotFound => ErrorKind::WorkflowNotFound {
                workflow: input.required("workflow")?,
            },
            Kind::UpstreamConnectionFailed => ErrorKind::UpstreamConnectionFailed {
                url: input.required("url")?,
                reason: input.optional("reason")?,
            },
            Kind::UpstreamTimeout => ErrorKind::UpstreamTimeout {
                url: input.optional("url")?,
                timeout_secs: input.required("timeout_secs")?,
            },
            Kind::UpstreamError => ErrorKind::UpstreamError {
                code: input.optional("code")?,
                message: input.optional("message")?,
            },
            Kind::TaskNotFound => ErrorKind::TaskNotFound {
                task_id: input.required("task_id")?,
            },
            Kind::TaskExpired => ErrorKind::TaskExpired {
                task_id: input.required("task_id")?,
                ttl_secs: input.optional("ttl_secs")?,
            },
            Kind::TaskCancelled => ErrorKind::TaskCancelled {
                task_id: input.required("task_id")?,
            },
            Kind::InspectionFailed => ErrorKind::InspectionFailed {
                inspector: input.required("inspector")?,
                reason: input.optional("reason")?,
            },
            Kind::PolicyDrift => ErrorKind::PolicyDrift {
                task_id: input.required("task_id")?,
            },
            Kind::TransformDrift => ErrorKind::TransformDrift {
                task_id: input.required("task_id")?,
            },
            Kind::InvalidStateTransition => ErrorKind::InvalidStateTransition {
                current: input.required("current")?,
                target: input.required("target")?,
            },
            Kind::ConfigurationError => ErrorKind::ConfigurationError {
                details: input.required("details")?,
            },
            Kind::RateLimited => ErrorKind::RateLimited {
                retry_after_secs: input.optional("retry_after_secs")?,
            },
            Kind::ServiceUnavailable => ErrorKind::ServiceUnavailable {
                reason: input.optional("reason")?,
                retry_after_secs: input.optional("retry_after_secs")?,
            },
            Kind::Timeout => ErrorKind::Timeout,
            Kind::BackendUnavailable => ErrorKind::BackendUnavailable,
            Kind::SecurityViolation => ErrorKind::SecurityViolation {
                details: input.optional("details")?,
            },
            Kind::ValidationFailed => ErrorKind::ValidationFailed {
                details: input.optional("details")?,
            },
            Kind::UnknownSkill => ErrorKind::UnknownSkill {
                skill: input.required("skill")?,
            },
            Kind::CoordinatorError => ErrorKind::CoordinatorError {
                details: input.optional("details")?,
            },
            Kind::ValidationError => ErrorKind::ValidationError {
                field: input.optional("field")?,
            },
            Kind::MissingRequiredField => ErrorKind::MissingRequiredField {
                field: input.required("field")?,
            },
            Kind::InvalidFormat => ErrorKind::InvalidFormat {
                field: input.required("field")?,
            },
            Kind::AdapterError => ErrorKind::AdapterError {
                original_error: input.optional("original_error")?,
                retryable: input.optional("retryable")?,
            },
            Kind::NotImplemented => ErrorKind::NotImplemented,
            Kind::TaskNotCancelable => ErrorKind::TaskNotCancelable {
                task_id: input.required("task_id")?,
                current_state: input.optional("current_state")?,
            },
            Kind::PushNotificationNotSupported => ErrorKind::PushNotificationNotSupported,
            Kind::UnsupportedOperation => ErrorKind::UnsupportedOperation {
                operation: input.optional("operation")?,
            },
            Kind::ContentTypeNotSupported => ErrorKind::ContentTypeNotSupported {
                content_type: input.optional("content_type")?,
            },
            Kind::InvalidAgentResponse => ErrorKind::InvalidAgentResponse {
                details: input.optional("details")?,
            },
            Kind::ExtendedAgentCardNotConfigured => ErrorKind::ExtendedAgentCardNotConfigured,
            Kind::ExtensionSupportRequired => ErrorKind::ExtensionSupportRequired {
                extension: input.optional("extension")?,
            },
            Kind::VersionNotSupported => ErrorKind::VersionNotSupported {
                version: input.optional("version")?,
            },
            Kind::HeaderMismatch => ErrorKind::HeaderMismatch {
                details: input.required("details")?,
            },
            Kind::MissingClientCapability => ErrorKind::MissingClientCapability,
            Kind::UnsupportedProtocolVersion => ErrorKind::UnsupportedProtocolVersion {
                supported: input.required("supported")?,
                requested: input.required("requested")?,
            },
            Kind::SessionRequired => ErrorKind::SessionRequired {
                details: input.optional("details")?,
            },
            Kind::SessionNotFound => ErrorKind::SessionNotFound,
            Kind::FrontUnavailable => ErrorKind::FrontUnavailable {
                reason: input.required("reason")?,
            },
        };
        input.finish(value, kind.name())
    }
}
