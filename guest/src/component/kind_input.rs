// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

//! The WIT's kinds as the component reads them: an `error-kind` as `map_error`'s input, the enums a
//! `kind-info` carries by name. Written by `xtask/src/codegen.rs` (`guest_kind_input`), not serde derives.

use super::exports::jsonrpc_errors::core::kinds::{Category, ErrorKind, Gate, LogLevel};
use serde_json::{Map, Value};

impl ErrorKind {
    /// `ErrorKind::ToolNotExposed(f)` → `{"kind": "tool-not-exposed", "tool": …, "source": … or null}`.
    pub(crate) fn into_input(self) -> Map<String, Value> {
        match self {
            ErrorKind::ParseError(f) => input("parse-error", vec![("details", f.details.into())]),
            ErrorKind::InvalidRequest(f) => input(
                "invalid-request",
                vec![("reason", f.reason.into()), ("details", f.details.into())],
            ),
            ErrorKind::MethodNotFound(f) => {
                input("method-not-found", vec![("method", f.method.into())])
            }
            ErrorKind::InvalidParams(f) => input(
                "invalid-params",
                vec![
                    ("param", f.param.into()),
                    ("expected", f.expected.into()),
                    ("received", f.received.into()),
                    ("accepted", f.accepted.into()),
                    ("details", f.details.into()),
                ],
            ),
            ErrorKind::InternalError(f) => {
                input("internal-error", vec![("details", f.details.into())])
            }
            ErrorKind::ToolNotExposed(f) => input(
                "tool-not-exposed",
                vec![("tool", f.tool.into()), ("source", f.source.into())],
            ),
            ErrorKind::GovernanceRuleDenied(f) => input(
                "governance-rule-denied",
                vec![("tool", f.tool.into()), ("rule", f.rule.into())],
            ),
            ErrorKind::PolicyDenied(f) => input(
                "policy-denied",
                vec![
                    ("tool", f.tool.into()),
                    ("policy_id", f.policy_id.into()),
                    ("reason", f.reason.into()),
                ],
            ),
            ErrorKind::ApprovalRejected(f) => input(
                "approval-rejected",
                vec![
                    ("tool", f.tool.into()),
                    ("rejected_by", f.rejected_by.into()),
                    ("workflow", f.workflow.into()),
                ],
            ),
            ErrorKind::ApprovalTimeout(f) => input(
                "approval-timeout",
                vec![
                    ("tool", f.tool.into()),
                    ("timeout_secs", f.timeout_secs.into()),
                    ("workflow", f.workflow.into()),
                ],
            ),
            ErrorKind::WorkflowNotFound(f) => {
                input("workflow-not-found", vec![("workflow", f.workflow.into())])
            }
            ErrorKind::UpstreamConnectionFailed(f) => input(
                "upstream-connection-failed",
                vec![("url", f.url.into()), ("reason", f.reason.into())],
            ),
            ErrorKind::UpstreamTimeout(f) => input(
                "upstream-timeout",
                vec![
                    ("url", f.url.into()),
                    ("timeout_secs", f.timeout_secs.into()),
                ],
            ),
            ErrorKind::UpstreamError(f) => input(
                "upstream-error",
                vec![("code", f.code.into()), ("message", f.message.into())],
            ),
            ErrorKind::TaskNotFound(f) => {
                input("task-not-found", vec![("task_id", f.task_id.into())])
            }
            ErrorKind::TaskExpired(f) => input(
                "task-expired",
                vec![
                    ("task_id", f.task_id.into()),
                    ("ttl_secs", f.ttl_secs.into()),
                ],
            ),
            ErrorKind::TaskCancelled(f) => {
                input("task-cancelled", vec![("task_id", f.task_id.into())])
            }
            ErrorKind::InspectionFailed(f) => input(
                "inspection-failed",
                vec![
                    ("inspector", f.inspector.into()),
                    ("reason", f.reason.into()),
                ],
            ),
            ErrorKind::PolicyDrift(f) => input("policy-drift", vec![("task_id", f.task_id.into())]),
            ErrorKind::TransformDrift(f) => {
                input("transform-drift", vec![("task_id", f.task_id.into())])
            }
            ErrorKind::InvalidStateTransition(f) => input(
                "invalid-state-transition",
                vec![("current", f.current.into()), ("target", f.target.into())],
            ),
            ErrorKind::ConfigurationError(f) => {
                input("configuration-error", vec![("details", f.details.into())])
            }
            ErrorKind::RateLimited(f) => input(
                "rate-limited",
                vec![("retry_after_secs", f.retry_after_secs.into())],
            ),
            ErrorKind::ServiceUnavailable(f) => input(
                "service-unavailable",
                vec![
                    ("reason", f.reason.into()),
                    ("retry_after_secs", f.retry_after_secs.into()),
                ],
            ),
            ErrorKind::Timeout => input("timeout", Vec::new()),
            ErrorKind::BackendUnavailable => input("backend-unavailable", Vec::new()),
            ErrorKind::SecurityViolation(f) => {
                input("security-violation", vec![("details", f.details.into())])
            }
            ErrorKind::ValidationFailed(f) => {
                input("validation-failed", vec![("details", f.details.into())])
            }
            ErrorKind::UnknownSkill(f) => input("unknown-skill", vec![("skill", f.skill.into())]),
            ErrorKind::CoordinatorError(f) => {
                input("coordinator-error", vec![("details", f.details.into())])
            }
            ErrorKind::ValidationError(f) => {
                input("validation-error", vec![("field", f.field.into())])
            }
            ErrorKind::MissingRequiredField(f) => {
                input("missing-required-field", vec![("field", f.field.into())])
            }
            ErrorKind::InvalidFormat(f) => input("invalid-format", vec![("field", f.field.into())]),
            ErrorKind::AdapterError(f) => input(
                "adapter-error",
                vec![
                    ("original_error", f.original_error.into()),
                    ("retryable", f.retryable.into()),
                ],
            ),
            ErrorKind::NotImplemented => input("not-implemented", Vec::new()),
            ErrorKind::TaskNotCancelable(f) => input(
                "task-not-cancelable",
                vec![
                    ("task_id", f.task_id.into()),
                    ("current_state", f.current_state.into()),
                ],
            ),
            ErrorKind::PushNotificationNotSupported => {
                input("push-notification-not-supported", Vec::new())
            }
            ErrorKind::UnsupportedOperation(f) => input(
                "unsupported-operation",
                vec![("operation", f.operation.into())],
            ),
            ErrorKind::ContentTypeNotSupported(f) => input(
                "content-type-not-supported",
                vec![("content_type", f.content_type.into())],
            ),
            ErrorKind::InvalidAgentResponse(f) => input(
                "invalid-agent-response",
                vec![("details", f.details.into())],
            ),
            ErrorKind::ExtendedAgentCardNotConfigured => {
                input("extended-agent-card-not-configured", Vec::new())
            }
            ErrorKind::ExtensionSupportRequired(f) => input(
                "extension-support-required",
                vec![("extension", f.extension.into())],
            ),
            ErrorKind::VersionNotSupported(f) => {
                input("version-not-supported", vec![("version", f.version.into())])
            }
            ErrorKind::HeaderMismatch(f) => {
                input("header-mismatch", vec![("details", f.details.into())])
            }
            ErrorKind::MissingClientCapability => input("missing-client-capability", Vec::new()),
            ErrorKind::UnsupportedProtocolVersion(f) => input(
                "unsupported-protocol-version",
                vec![
                    ("supported", f.supported.into()),
                    ("requested", f.requested.into()),
                ],
            ),
            ErrorKind::SessionRequired(f) => {
                input("session-required", vec![("details", f.details.into())])
            }
            ErrorKind::SessionNotFound => input("session-not-found", Vec::new()),
            ErrorKind::FrontUnavailable(f) => {
                input("front-unavailable", vec![("reason", f.reason.into())])
            }
        }
    }
}

/// `{"kind": kind, ...fields}`, in that order.
#[inline(never)]
fn input(kind: &str, fields: Vec<(&str, Value)>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kind".into(), kind.into());
    for (name, value) in fields {
        m.insert(name.into(), value);
    }
    m
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
