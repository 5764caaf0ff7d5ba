// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

//! The WIT's kinds as the component reads them: an `error-kind` as `map_error`'s input, the enums a
//! `kind-info` carries by name. Written by `xtask/src/codegen.rs` (`guest_kind_input`), not serde derives.

use super::exports::jsonrpc_errors::core::kinds::{Category, ErrorKind, Gate, LogLevel};
use serde_json::{Map, Value};

impl ErrorKind {
    /// `ErrorKind::ToolNotExposed(f)` → `{"kind": "tool-not-exposed", "tool": …, "source": … or null}`.
    pub(crate) fn into_input(self) -> Map<String, Value> {
        let mut m = Map::new();
        match self {
            ErrorKind::ParseError(f) => {
                m.insert("kind".into(), "parse-error".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::InvalidRequest(f) => {
                m.insert("kind".into(), "invalid-request".into());
                m.insert("reason".into(), f.reason.into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::MethodNotFound(f) => {
                m.insert("kind".into(), "method-not-found".into());
                m.insert("method".into(), f.method.into());
            }
            ErrorKind::InvalidParams(f) => {
                m.insert("kind".into(), "invalid-params".into());
                m.insert("param".into(), f.param.into());
                m.insert("expected".into(), f.expected.into());
                m.insert("received".into(), f.received.into());
                m.insert("accepted".into(), f.accepted.into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::InternalError(f) => {
                m.insert("kind".into(), "internal-error".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::ToolNotExposed(f) => {
                m.insert("kind".into(), "tool-not-exposed".into());
                m.insert("tool".into(), f.tool.into());
                m.insert("source".into(), f.source.into());
            }
            ErrorKind::GovernanceRuleDenied(f) => {
                m.insert("kind".into(), "governance-rule-denied".into());
                m.insert("tool".into(), f.tool.into());
                m.insert("rule".into(), f.rule.into());
            }
            ErrorKind::PolicyDenied(f) => {
                m.insert("kind".into(), "policy-denied".into());
                m.insert("tool".into(), f.tool.into());
                m.insert("policy_id".into(), f.policy_id.into());
                m.insert("reason".into(), f.reason.into());
            }
            ErrorKind::ApprovalRejected(f) => {
                m.insert("kind".into(), "approval-rejected".into());
                m.insert("tool".into(), f.tool.into());
                m.insert("rejected_by".into(), f.rejected_by.into());
                m.insert("workflow".into(), f.workflow.into());
            }
            ErrorKind::ApprovalTimeout(f) => {
                m.insert("kind".into(), "approval-timeout".into());
                m.insert("tool".into(), f.tool.into());
                m.insert("timeout_secs".into(), f.timeout_secs.into());
                m.insert("workflow".into(), f.workflow.into());
            }
            ErrorKind::WorkflowNotFound(f) => {
                m.insert("kind".into(), "workflow-not-found".into());
                m.insert("workflow".into(), f.workflow.into());
            }
            ErrorKind::UpstreamConnectionFailed(f) => {
                m.insert("kind".into(), "upstream-connection-failed".into());
                m.insert("url".into(), f.url.into());
                m.insert("reason".into(), f.reason.into());
            }
            ErrorKind::UpstreamTimeout(f) => {
                m.insert("kind".into(), "upstream-timeout".into());
                m.insert("url".into(), f.url.into());
                m.insert("timeout_secs".into(), f.timeout_secs.into());
            }
            ErrorKind::UpstreamError(f) => {
                m.insert("kind".into(), "upstream-error".into());
                m.insert("code".into(), f.code.into());
                m.insert("message".into(), f.message.into());
            }
            ErrorKind::TaskNotFound(f) => {
                m.insert("kind".into(), "task-not-found".into());
                m.insert("task_id".into(), f.task_id.into());
            }
            ErrorKind::TaskExpired(f) => {
                m.insert("kind".into(), "task-expired".into());
                m.insert("task_id".into(), f.task_id.into());
                m.insert("ttl_secs".into(), f.ttl_secs.into());
            }
            ErrorKind::TaskCancelled(f) => {
                m.insert("kind".into(), "task-cancelled".into());
                m.insert("task_id".into(), f.task_id.into());
            }
            ErrorKind::InspectionFailed(f) => {
                m.insert("kind".into(), "inspection-failed".into());
                m.insert("inspector".into(), f.inspector.into());
                m.insert("reason".into(), f.reason.into());
            }
            ErrorKind::PolicyDrift(f) => {
                m.insert("kind".into(), "policy-drift".into());
                m.insert("task_id".into(), f.task_id.into());
            }
            ErrorKind::TransformDrift(f) => {
                m.insert("kind".into(), "transform-drift".into());
                m.insert("task_id".into(), f.task_id.into());
            }
            ErrorKind::InvalidStateTransition(f) => {
                m.insert("kind".into(), "invalid-state-transition".into());
                m.insert("current".into(), f.current.into());
                m.insert("target".into(), f.target.into());
            }
            ErrorKind::ConfigurationError(f) => {
                m.insert("kind".into(), "configuration-error".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::RateLimited(f) => {
                m.insert("kind".into(), "rate-limited".into());
                m.insert("retry_after_secs".into(), f.retry_after_secs.into());
            }
            ErrorKind::ServiceUnavailable(f) => {
                m.insert("kind".into(), "service-unavailable".into());
                m.insert("reason".into(), f.reason.into());
                m.insert("retry_after_secs".into(), f.retry_after_secs.into());
            }
            ErrorKind::Timeout => {
                m.insert("kind".into(), "timeout".into());
            }
            ErrorKind::BackendUnavailable => {
                m.insert("kind".into(), "backend-unavailable".into());
            }
            ErrorKind::SecurityViolation(f) => {
                m.insert("kind".into(), "security-violation".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::ValidationFailed(f) => {
                m.insert("kind".into(), "validation-failed".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::UnknownSkill(f) => {
                m.insert("kind".into(), "unknown-skill".into());
                m.insert("skill".into(), f.skill.into());
            }
            ErrorKind::CoordinatorError(f) => {
                m.insert("kind".into(), "coordinator-error".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::ValidationError(f) => {
                m.insert("kind".into(), "validation-error".into());
                m.insert("field".into(), f.field.into());
            }
            ErrorKind::MissingRequiredField(f) => {
                m.insert("kind".into(), "missing-required-field".into());
                m.insert("field".into(), f.field.into());
            }
            ErrorKind::InvalidFormat(f) => {
                m.insert("kind".into(), "invalid-format".into());
                m.insert("field".into(), f.field.into());
            }
            ErrorKind::AdapterError(f) => {
                m.insert("kind".into(), "adapter-error".into());
                m.insert("original_error".into(), f.original_error.into());
                m.insert("retryable".into(), f.retryable.into());
            }
            ErrorKind::NotImplemented => {
                m.insert("kind".into(), "not-implemented".into());
            }
            ErrorKind::TaskNotCancelable(f) => {
                m.insert("kind".into(), "task-not-cancelable".into());
                m.insert("task_id".into(), f.task_id.into());
                m.insert("current_state".into(), f.current_state.into());
            }
            ErrorKind::PushNotificationNotSupported => {
                m.insert("kind".into(), "push-notification-not-supported".into());
            }
            ErrorKind::UnsupportedOperation(f) => {
                m.insert("kind".into(), "unsupported-operation".into());
                m.insert("operation".into(), f.operation.into());
            }
            ErrorKind::ContentTypeNotSupported(f) => {
                m.insert("kind".into(), "content-type-not-supported".into());
                m.insert("content_type".into(), f.content_type.into());
            }
            ErrorKind::InvalidAgentResponse(f) => {
                m.insert("kind".into(), "invalid-agent-response".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::ExtendedAgentCardNotConfigured => {
                m.insert("kind".into(), "extended-agent-card-not-configured".into());
            }
            ErrorKind::ExtensionSupportRequired(f) => {
                m.insert("kind".into(), "extension-support-required".into());
                m.insert("extension".into(), f.extension.into());
            }
            ErrorKind::VersionNotSupported(f) => {
                m.insert("kind".into(), "version-not-supported".into());
                m.insert("version".into(), f.version.into());
            }
            ErrorKind::HeaderMismatch(f) => {
                m.insert("kind".into(), "header-mismatch".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::MissingClientCapability => {
                m.insert("kind".into(), "missing-client-capability".into());
            }
            ErrorKind::UnsupportedProtocolVersion(f) => {
                m.insert("kind".into(), "unsupported-protocol-version".into());
                m.insert("supported".into(), f.supported.into());
                m.insert("requested".into(), f.requested.into());
            }
            ErrorKind::SessionRequired(f) => {
                m.insert("kind".into(), "session-required".into());
                m.insert("details".into(), f.details.into());
            }
            ErrorKind::SessionNotFound => {
                m.insert("kind".into(), "session-not-found".into());
            }
            ErrorKind::FrontUnavailable(f) => {
                m.insert("kind".into(), "front-unavailable".into());
                m.insert("reason".into(), f.reason.into());
            }
        }
        m
    }
}

impl Category {
    /// The case named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "client" => Category::Client,
            "gate" => Category::Gate,
            "upstream" => Category::Upstream,
            "task" => Category::Task,
            "transient" => Category::Transient,
            "security" => Category::Security,
            "server" => Category::Server,
            "domain" => Category::Domain,
            _ => return None,
        })
    }
}

impl Gate {
    /// The case named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "visibility" => Gate::Visibility,
            "governance" => Gate::Governance,
            "policy" => Gate::Policy,
            "approval" => Gate::Approval,
            _ => return None,
        })
    }
}

impl LogLevel {
    /// The case named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "error" => LogLevel::Error,
            "warn" => LogLevel::Warn,
            "info" => LogLevel::Info,
            "debug" => LogLevel::Debug,
            _ => return None,
        })
    }
}
