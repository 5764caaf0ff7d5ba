// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

use crate::exports::jsonrpc_errors::core::guard as wit;
use serde::Deserialize;
use serde_json::Value;

pub use wit::BatchPolicy;

/// Adding an option: a field here (an `option` or a `list`, so that "not given" is every shell's default;
/// a field that is neither states its default in a doc line "Default: `value`."), then `cargo xtask gen`
/// (the guest's reader among the mirrors), then its meaning in the guest (`guest/src/api.rs`:
/// `guard_session`; `guest/src/component.rs`: one line from the record) (docs/where-to-change.md).
/// How a session behaves.
#[derive(Debug, Clone)]
pub struct Options {
    /// The dialect the session's own errors are written in. Not given: the policy file's `dialect`, else
    /// `canonical`.
    pub dialect: Option<String>,
    /// Largest client message in bytes. Not given: the policy file's `max_bytes`, else 10 MiB (the taxonomy's
    /// default).
    pub max_bytes: Option<u64>,
    /// Whether a client batch is split and relayed, or refused. Not given: the policy file's `batch`, else
    /// `reject`.
    pub batch: Option<wit::BatchPolicy>,
    /// How long a request may wait for the upstream, in milliseconds (progress notifications for it
    /// restart the wait); 0 (null in Python, TypeScript and the JSON form): no limit. Not given: the
    /// policy file's `timeout`, else 50 000 (50 s: below the 60 s most MCP clients wait, so they get the
    /// guard's answer rather than their own timeout).
    pub timeout_ms: Option<u64>,
    /// How errors and logs name the upstream (a program name, a URL: credentials are never shown).
    /// Default: `upstream`.
    pub upstream: String,
    /// The longest text of a failed tool result passed on (at least 64); a longer one keeps its start and
    /// its end, the middle cut. Not given: the policy file's `failed_result_bytes`, else 8 KiB.
    pub failed_result_bytes: Option<u64>,
    /// A policy file (TOML: per-tool and per-method timeouts, redaction options and scopes, actions;
    /// docs/policy.md). One that `check-policy` refuses makes the session answer every request
    /// with the configuration error: nothing is relayed without the policy it was given.
    pub policy: Option<String>,
    /// The environment the policy's `hash_key_env` is read from (name, value).
    pub policy_env: Vec<(String, String)>,
    /// The environment whose secret-looking values (by name, as `set-environment` keeps them) this
    /// session redacts from everything it writes and logs; none: the one `set-environment` configured.
    pub environment: Option<Vec<(String, String)>>,
    /// Values this session redacts from everything it writes and logs whatever they are named: the
    /// credentials the shell itself sends its upstream (its header values, a URL's password and query
    /// values), which an upstream may reflect in an error. Each is kept as an environment's secret
    /// value is (at least 8 bytes, not a word, a host, a number or a path) and matched in the same
    /// encoded forms (base64, percent-encoding), beside the environment's.
    pub upstream_credentials: Option<Vec<String>>,
    /// Whether the session's client streams (`client-line-on`) belong to different clients, as an HTTP
    /// front's shared stateless child's do (none or false: one client's, as a legacy session's requests
    /// and GET stream). Then what the upstream sends reaches a stream only when it names an id or a
    /// progress token that stream owns: a request the upstream raises is answered with an error at once
    /// (no client can be asked it, nor answer it), and a notification that answers no request is dropped.
    pub many_clients: Option<bool>,
    /// Longest upstream line in bytes the shell reads (a longer one it discards as it streams and reports
    /// with `upstream-oversize`). Not given: the policy file's `max_upstream_bytes`, else the largest line the
    /// component takes (64 MiB). The shell reads the resolved value from `settings`.
    pub max_upstream_bytes: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dialect: None,
            max_bytes: None,
            batch: None,
            timeout_ms: None,
            upstream: "upstream".into(),
            failed_result_bytes: None,
            policy: None,
            policy_env: Vec::new(),
            environment: None,
            upstream_credentials: None,
            many_clients: None,
            max_upstream_bytes: None,
        }
    }
}

impl Options {
    /// The WIT record, the dialect's name (when given) read by `dialect`: the runtime's check, which refuses a
    /// name outside the dialect enum with the guest's own error (the record cannot carry it).
    pub(crate) fn to_wit<E>(
        &self,
        dialect: impl FnOnce(&str) -> Result<wit::Dialect, E>,
    ) -> Result<wit::GuardOptions, E> {
        Ok(wit::GuardOptions {
            dialect: self.dialect.as_deref().map(dialect).transpose()?,
            max_bytes: self.max_bytes,
            batch: self.batch,
            timeout_ms: self.timeout_ms,
            upstream: self.upstream.clone(),
            failed_result_bytes: self.failed_result_bytes,
            policy: self.policy.clone(),
            policy_env: self.policy_env.clone(),
            environment: self.environment.clone(),
            upstream_credentials: self.upstream_credentials.clone(),
            many_clients: self.many_clients,
            max_upstream_bytes: self.max_upstream_bytes,
        })
    }
}

impl wit::BatchPolicy {
    /// The case named `name` (as the JSON, a policy file and the command line spell it).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "reject" => Some(Self::Reject),
            "allow" => Some(Self::Allow),
            _ => None,
        }
    }
}

impl wit::EventName {
    /// The case's name, as the outcome's JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::Sanitized => "sanitized",
            Self::Redacted => "redacted",
            Self::Repaired => "repaired",
            Self::Dropped => "dropped",
            Self::ClientCancelled => "client-cancelled",
            Self::UpstreamEnded => "upstream-ended",
            Self::Blocked => "blocked",
            Self::Audited => "audited",
        }
    }
}

impl wit::LogLevel {
    /// The case's name, as the outcome's JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warn => "warn",
            Self::Info => "info",
            Self::Debug => "debug",
        }
    }
}

/// Where a step writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Peer {
    Client,
    Upstream,
}

/// One step to carry out (in order).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// Write the line just given to the session, byte for byte, to `to`.
    Forward {
        to: Peer,
        /// The client stream, once the session serves several (`client-line-on`).
        stream: Option<u64>,
    },
    /// Write `line` (one JSON-RPC message or batch, no newline in it) to `to`.
    Send {
        to: Peer,
        /// The client stream, once the session serves several (`client-line-on`).
        stream: Option<u64>,
        line: String,
    },
    /// A record for the operator's log and the metrics: never a message body.
    Event(Box<Event>),
    /// The request client stream `stream` was owed answers for, answered with many (A2A's streaming methods:
    /// each event a response under its id), is settled: nothing more is written to that stream, and a shell
    /// that frames each request's answers as one response (an HTTP front's event stream) ends it. A request
    /// answered once gets none: its answer ends its stream.
    End {
        /// The client stream, once the session serves several (`client-line-on`).
        stream: Option<u64>,
    },
}

/// A record for the operator's log and the metrics: never a message body.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Event {
    pub event: String,
    pub level: String,
    pub kind: Option<String>,
    /// The code the client got (none for an `isError` tool result).
    pub code: Option<i32>,
    pub category: Option<String>,
    pub gate: Option<String>,
    /// The correlation id the client's response carries, when it carries one.
    pub correlation_id: Option<String>,
    /// The JSON-RPC id of the request concerned.
    pub id: Option<Value>,
    pub method: Option<String>,
    pub detail: Option<String>,
    /// A policy decision's rule (or category): never the value it found.
    pub rule: Option<String>,
    /// The tool (or method) a policy decision was taken for, as a label of a bounded set: a tool the
    /// upstream listed or the policy names (or the glob that matched it), a method MCP defines, else
    /// `other` (the name then in `detail`); at most 64 bytes.
    pub tool: Option<String>,
}

/// What one session call returned.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Outcome {
    /// The steps to carry out, in order.
    pub steps: Vec<Step>,
    /// Client requests still waiting for an answer.
    pub pending: usize,
    /// When to call `expire` (unix milliseconds), or null.
    pub deadline: Option<u64>,
}

/// A session's settings as it resolved them when it opened: each the caller's option, else the policy
/// file's `[defaults]`, else the built-in default. A shell takes what its own readers need (its line
/// limits) from here, so no shell keeps a default or a merge rule of its own.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Settings {
    pub dialect: String,
    /// Largest client message, in bytes.
    pub max_bytes: u64,
    pub batch: String,
    /// How long a request may wait for the upstream, in milliseconds; none: no limit.
    pub timeout_ms: Option<u64>,
    /// The longest text of a failed tool result passed on.
    pub failed_result_bytes: u64,
    /// Longest upstream line, in bytes.
    pub max_upstream_bytes: u64,
}
