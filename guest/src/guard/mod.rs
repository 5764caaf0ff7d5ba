//! The guard: everything a JSON-RPC proxy decides per message, as a state machine without I/O.
//!
//! A shell (the Rust `jsonrpc-errors guard`, a Python or TypeScript proxy on an MCP SDK) owns the processes,
//! pipes and clocks; it hands every line it reads to a [`Session`] and carries out the [`Step`]s it gets
//! back, in order. All policy lives here, so every runtime decides identically:
//!
//! - a client message is forwarded byte for byte, or answered here with the canonical error (not JSON,
//!   not a JSON-RPC request, a member given twice, an id already in flight, oversize, a batch under the
//!   chosen policy, or the upstream is gone);
//! - an upstream message is passed on byte for byte, except error responses (sanitized and mapped into the
//!   dialect) and `isError` tool results (their text redacted), and except lines that are not JSON-RPC
//!   (logged, never forwarded);
//! - every client request gets exactly one response: the upstream's, or the guard's when the upstream fails
//!   (exits, closes its output, cannot be started) or does not answer within the timeout (the request is
//!   then cancelled upstream, and a late answer is dropped). A notification never gets one.
//!
//! Ids are keys into the pending table ([`message::id_key`]: a number by its value, a string by its value).
//! The upstream's answers pass with the id it wrote; the guard's own answers carry the client's id as a JSON
//! value, written by serde_json (a string's escapes its own way, a number's exponent as `1e+2` for `1E2`):
//! the same id, as JSON-RPC compares them.
//!
//! Batches (when allowed) are split into their members upstream, since MCP servers no longer take batches,
//! and their answers are gathered into one array for the client.
//!
//! Layout, each module importing only those listed before it: the operator's log policy in [`oplog`]; the
//! steps and events a session returns in [`outcome`] (generated from the WIT, with their JSON writer) and
//! the events' builders in [`steps`]; what it resolved when it opened in [`settings`] (generated too, with
//! its writer); the session's tables (pending requests, deadlines, progress tokens, batches) in `pending`; the stderr line joiner in `stderr`; stream renaming in
//! [`streams`]; what the guard writes itself in [`rewrite`]; a policy file's decisions in [`policy`]; the
//! bounded set an event's `tool` label comes from in `labels`; the
//! session's state and what every side shares in this module; then, each adding `impl Session` blocks on
//! top of it, its client side (`client`), its upstream side (`upstream`) and how requests end without
//! their answer (`ending`: the upstream failed, a deadline passed).

mod a2a;
pub mod args;
mod client;
mod ending;
mod failures;
mod labels;
pub mod oplog;
pub mod outcome;
mod pending;
pub mod policy;
pub mod rewrite;
pub mod settings;
mod stderr;
pub mod steps;
pub mod streams;
mod upstream;

use crate::context::CallContext;
use crate::message::{self, json_type, Envelope, JsonType, Parsed};
use crate::ordered::Fields;
use crate::redact;
use crate::sniff;
use crate::taxonomy::taxonomy;
use crate::validation::BatchPolicy;
/// Why the upstream failed (generated from the WIT's `upstream-failure` and `request-failure`).
pub use failures::{RequestFailure, UpstreamFailure};
use oplog::excerpt;
pub use outcome::{Event, EventName, Outcome, Peer, Step};
use pending::{Batch, Entry, Origin, Pending, Settled, Tables, SERVER_REQUEST_WINDOW};
use rewrite::Answer;
use serde_json::value::RawValue;
use serde_json::{json, Value};
pub use settings::SessionSettings;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
pub use stderr::STDERR_LINE_CAP;

/// How a session behaves: what it resolved when it opened (`settings`, generated from the WIT's
/// `session-settings`, which it reports) and what the shell gave it besides.
#[derive(Debug, Clone)]
pub struct Options {
    /// The dialect, the limits and the batch policy, as `api::guard_session` resolved them.
    pub settings: SessionSettings,
    /// How errors and logs name the upstream (a program name, a URL).
    pub upstream: String,
    /// A policy file (TOML, `crate::policy`), and the environment its `hash_key_env` is read from.
    pub policy: Option<String>,
    pub policy_env: Vec<(String, String)>,
    /// The environment whose secret-looking values this session redacts (by name, as `set_environment`
    /// keeps them); `None`: the one `set_environment` configured.
    pub environment: Option<Vec<(String, String)>>,
    /// Values redacted from everything the session writes and logs, whatever they are named: the
    /// credentials the shell sends its upstream (which it may reflect), kept as an environment's secret
    /// values are (`redact::Secrets::from_env_and_values`).
    pub upstream_credentials: Vec<String>,
    /// The client streams belong to different clients (an HTTP front's shared stateless child), not to one
    /// (a legacy session): what the upstream sends reaches a stream only when it names an id or a progress
    /// token that stream owns. A request it raises is answered with an error at once, a notification that
    /// answers no request is dropped: nothing goes to a stream that did not cause it (`upstream.rs`).
    pub many_clients: bool,
}

/// How long a request may wait for the upstream when neither the caller nor the policy file says: below the
/// 60 s most MCP clients wait, so they get the guard's answer rather than their own timeout.
pub const DEFAULT_TIMEOUT_MILLIS: u64 = 50_000;

/// The dialect a session's own errors are written in when neither the caller nor the policy file says (the
/// batch policy's default, `reject`, is `Options::new`'s).
pub const DEFAULT_DIALECT: &str = "canonical";

impl Options {
    pub fn new(dialect: &str, upstream: &str) -> Self {
        Options {
            // The built-in defaults (the largest upstream line: the largest input the component takes).
            settings: SessionSettings {
                dialect: dialect.to_string(),
                max_bytes: taxonomy().meta.default_max_bytes,
                batch: BatchPolicy::Reject,
                timeout_ms: None,
                failed_result_bytes: taxonomy().meta.failed_result_text_bytes,
                max_upstream_bytes: taxonomy().meta.max_input_bytes,
            },
            upstream: upstream.to_string(),
            policy: None,
            policy_env: Vec::new(),
            environment: None,
            upstream_credentials: Vec::new(),
            many_clients: false,
        }
    }
}

impl UpstreamFailure {
    fn describe(&self) -> String {
        match self {
            UpstreamFailure::SpawnFailed(reason) => {
                format!("the upstream could not be started: {reason}")
            }
            UpstreamFailure::Exited(status) => format!("the upstream exited with status {status}"),
            UpstreamFailure::Killed(signal) => {
                format!("the upstream was killed by signal {signal}")
            }
            UpstreamFailure::ClosedOutput => "the upstream closed its output".to_string(),
        }
    }
}

/// How early `expire` may be called and still count as at a deadline: shells sleep until the outcome's
/// `deadline` and call `expire`; a timer that fires early, or a wall clock a millisecond behind the one the
/// deadline was set by, is allowed for here rather than in every shell (the contract: `expire` in the WIT).
pub const EXPIRE_EARLY_MS: u64 = 1;

/// How much of each end of an oversize line the session reads an id from (a shell keeps as much of a line
/// it discards: `head` and `tail` of the oversize calls).
pub const SNIFF_BYTES: usize = 4096;

/// One session between one client and one upstream.
pub struct Session {
    options: Options,
    /// The tables of what is in flight: client requests, their deadlines and progress tokens, the
    /// upstream's requests, batches, stream aliases.
    tables: Tables,
    down: Option<UpstreamFailure>,
    /// Set once a line arrives on a client stream (`client_line_on`): requests are then renamed upstream,
    /// and every step toward the client names its stream.
    streams: Option<streams::Streams>,
    /// The policy file, compiled; or why it was refused (then every request is answered with the
    /// configuration error: a guard whose policy could not be read must not relay without it).
    policy: Option<crate::policy::Compiled>,
    policy_error: Option<String>,
    /// The MCP revision the `initialize` handshake agreed on (the upstream's answer), for requests that do
    /// not name one themselves: what a result the guard writes must carry depends on it.
    revision: Option<String>,
    /// The upstream's stderr, joined into whole lines for the operator's log.
    stderr: stderr::StderrLog,
    /// The tools the upstream listed (`tools/list` results): the names an event may give its `tool` as they
    /// are (labels.rs).
    listed_tools: labels::Listed,
    /// The secrets of the environment this session was given (`Options::environment`), in force during
    /// each of its calls; `None`: the configured environment's.
    environment: Option<std::sync::Arc<redact::Secrets>>,
}

/// Where an upstream message came from, which decides how "pass it on unchanged" is written.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// The whole line, valid UTF-8: forwarded byte for byte.
    Line(&'a str),
    /// A member of an array, or a line whose invalid UTF-8 was repaired: sent as this text.
    Text(&'a str),
}

impl<'a> Source<'a> {
    fn text(self) -> &'a str {
        match self {
            Source::Line(t) | Source::Text(t) => t,
        }
    }
}

/// What becomes of a client message.
enum Verdict {
    /// Pass it upstream (a notification, or a response to one of the upstream's requests).
    Forward,
    /// Pass it upstream and wait for the answer to this request (the line rewritten for the upstream when the
    /// request came on a stream: its id and progress token renamed).
    Await(String, Pending, Option<String>),
    /// Pass this text upstream in place of the line (a client's cancellation, renamed).
    ForwardText(String),
    /// Answer it here.
    Reply(Answer),
    /// Neither (the event says why).
    Drop(Event),
}

/// What a policy scope makes of a message of the upstream's own.
enum Scoped {
    /// Passed on as it came.
    Untouched,
    /// Passed on redacted (the whole message).
    Rewritten(Value),
    /// Not passed on (dropped, or refused to the upstream): the events say why.
    Refused,
}

/// An upstream answer for a pending request: the line unchanged, or a rewritten one.
enum Delivery<'a> {
    /// The upstream's answer as it came; its result (borrowed from the line), if it has one.
    Unchanged(Option<&'a RawValue>),
    /// A result the guard rewrote (redacted): still the upstream's result, for what its revision requires.
    RewrittenResult(String),
    /// The guard's own answer, or an upstream error it sanitized.
    Rewritten(String),
}

/// The steps of one call being built, and how many errors it answered (each gets its own correlation id).
struct Call {
    steps: Vec<Step>,
    ctx: CallContext,
    answered: u64,
    /// The client stream the line being handled came on (`client_line_on`).
    origin: Option<u64>,
}

impl Call {
    fn new(ctx: CallContext) -> Self {
        Call {
            steps: Vec::new(),
            ctx,
            answered: 0,
            origin: None,
        }
    }

    fn next_ctx(&mut self) -> CallContext {
        let ctx = self.ctx.nth(self.answered);
        self.answered += 1;
        ctx
    }

    fn send(&mut self, to: Peer, line: impl Into<String>) {
        self.steps.push(Step::Send {
            to,
            stream: None,
            line: line.into(),
        });
    }

    /// Writes `line` to the client, on `stream` when the session serves several.
    fn send_to_client(&mut self, stream: Option<u64>, line: impl Into<String>) {
        self.steps.push(Step::Send {
            to: Peer::Client,
            stream,
            line: line.into(),
        });
    }

    fn event(&mut self, event: Event) {
        self.steps.push(Step::Event(Box::new(event)));
    }
}

fn fields(pairs: &[(&str, Value)]) -> Fields {
    let mut f = Fields::with_capacity(pairs.len());
    for (k, v) in pairs {
        f.insert(*k, v.clone());
    }
    f
}

fn invalid_request(reason: &str, details: &str) -> Fields {
    fields(&[("reason", json!(reason)), ("details", json!(details))])
}

/// Refuses a message to the upstream as its JSON-RPC peer would: a plain error of `kind` (JSON-RPC's own),
/// with `data` saying why; not the client's dialect, since the upstream is the one told. The error, for the
/// event that reports it.
fn refuse_to_upstream(
    call: &mut Call,
    kind: &str,
    id: Value,
    data: Value,
) -> crate::error::ErrorObject {
    let error = crate::error::ErrorObject::of_kind(kind, Some(data));
    call.send(
        Peer::Upstream,
        crate::error::error_response(&error, id).to_string(),
    );
    error
}

/// What a redaction found, by rule and category: what a policy's actions are decided on.
fn rules_found(found: &[redact::JsonFinding]) -> Vec<(String, String)> {
    found
        .iter()
        .map(|f| (f.rule.clone(), f.category.clone()))
        .collect()
}

fn pairs(found: &[(String, String)]) -> impl Iterator<Item = (&str, &str)> {
    found
        .iter()
        .map(|(rule, category)| (rule.as_str(), category.as_str()))
}

/// The one step where a policy's actions are taken on what its rules found in a message, on either side:
/// the decision, its events (blocked, audited) logged for request `id` (none: a notification, whose events
/// name no id). The caller refuses the message when the decision blocks it, as its side refuses.
fn enforce<'a>(
    call: &mut Call,
    effective: &crate::policy::Effective,
    found: impl IntoIterator<Item = (&'a str, &'a str)>,
    id: Option<&Value>,
    method: &str,
) -> policy::Decision {
    let decision = policy::decide(effective, found);
    for mut event in policy::events(&decision, effective, id.unwrap_or(&Value::Null), method) {
        event.id = event.id.filter(|_| id.is_some());
        call.event(event);
    }
    decision
}

impl Session {
    /// The settings the session opened with: `session-settings` in wit/world.wit, as JSON text (snake_case
    /// keys, in the record's order; the writer is generated from the WIT).
    pub fn settings(&self) -> String {
        self.options.settings.to_json()
    }

    pub fn new(options: Options) -> Self {
        // The shell's upstream credentials join the session's environment (given, or the one configured now).
        let environment = match (&options.environment, &options.upstream_credentials[..]) {
            (None, []) => None,
            (Some(env), credentials) => {
                Some(redact::Secrets::from_env_and_values(env, credentials))
            }
            (None, credentials) => Some(crate::environment().with_values(credentials)),
        }
        .map(std::sync::Arc::new);
        let _env = crate::EnvironmentScope::enter(environment.as_ref());
        let (policy, policy_error) = match &options.policy {
            None => (None, None),
            Some(text) => match crate::policy::Compiled::new(text, &options.policy_env) {
                Ok(c) => (Some(c), None),
                Err(e) => (None, Some(e.to_string())),
            },
        };
        Session {
            policy,
            policy_error,
            options,
            tables: Tables::default(),
            down: None,
            streams: None,
            revision: None,
            stderr: stderr::StderrLog::default(),
            listed_tools: labels::Listed::default(),
            environment,
        }
    }

    /// Puts the session's own environment in force for the call that makes it (see `Options::environment`).
    fn scope(&self) -> crate::EnvironmentScope {
        crate::EnvironmentScope::enter(self.environment.as_ref())
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    fn finish(&mut self, mut call: Call) -> Outcome {
        let deadline = self.tables.next_deadline();
        // An event's tool is a metrics label: one of a bounded set (labels.rs), whatever the client named.
        for step in &mut call.steps {
            if let Step::Event(e) = step {
                labels::bound_tool(e, &self.listed_tools, self.policy.as_ref());
            }
        }
        Outcome {
            steps: call.steps,
            pending: self.tables.pending.len(),
            deadline,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        call: &mut Call,
        kind: &str,
        fields: Fields,
        id: Value,
        method: Option<&str>,
        revision: Option<&str>,
        detail: String,
    ) -> Answer {
        let ctx = call.next_ctx();
        rewrite::answer(
            &self.options.settings.dialect,
            kind,
            fields,
            id,
            method,
            revision,
            detail,
            &ctx,
            &crate::environment(),
        )
    }

    /// The MCP revision a request is answered under: the one it named, else the one the handshake agreed on.
    fn revision_for<'a>(&'a self, named: Option<&'a str>) -> Option<&'a str> {
        named.or(self.revision.as_deref())
    }

    /// Answers a whole client line here.
    fn reply(&self, call: &mut Call, kind: &str, fields: Fields, id: Value, detail: String) {
        let a = self.answer(call, kind, fields, id, None, None, detail);
        call.send_to_client(call.origin, a.response);
        call.event(a.event);
    }

    /// The client stream a request's answer goes to: none when the session has one client (stdio), else
    /// the stream it came on (stream 0 for one that came through `client_line`).
    fn stream_of(&self, pending: &Pending) -> Option<u64> {
        self.streams
            .as_ref()
            .map(|_| pending.origin.as_ref().map_or(0, |o| o.stream))
    }

    /// Where the upstream's messages that answer no request go: the session's own stream (0) when it serves
    /// several.
    fn own_stream(&self) -> Option<u64> {
        self.streams.as_ref().map(|_| 0)
    }

    /// Replaces the policy file for the requests that arrive from now on (a shell's reload, on SIGHUP);
    /// requests in flight keep what held when they arrived. A document that is refused leaves the policy as
    /// it was, and the error says why.
    pub fn set_policy(
        &mut self,
        text: &str,
        env: &[(String, String)],
    ) -> Result<(), crate::policy::DocumentError> {
        let _env = self.scope();
        let compiled = crate::policy::Compiled::new(text, env)?;
        self.policy = Some(compiled);
        self.policy_error = None;
        Ok(())
    }

    /// Text about the upstream for the operator's log, whole lines (the upstream's stderr comes through
    /// [`Session::upstream_stderr`], which cuts it at line ends): secrets redacted, stack traces and paths
    /// kept. Successive texts are one stream (see [`stderr::StderrLog::log`]).
    pub fn upstream_log(&mut self, text: &str) -> String {
        let _env = self.scope();
        self.stderr.log(text, &crate::environment())
    }

    /// Bytes of the upstream's stderr as a shell read them, in any pieces (`end`: the stream is over), for
    /// the operator's log: the redacted text of the lines they complete (see [`stderr::StderrLog::push`]).
    pub fn upstream_stderr(&mut self, bytes: &[u8], end: bool) -> String {
        let _env = self.scope();
        self.stderr.push(bytes, end, &crate::environment())
    }

    /// Client requests waiting for a response.
    pub fn pending(&self) -> usize {
        self.tables.pending.len()
    }
}

/// U+FEFF at the start of a line: some writers (PowerShell, .NET's UTF-8 encoder) put it before the first
/// message.
const BYTE_ORDER_MARK: char = '\u{feff}';

/// `text` as one line when a line break (CR or LF) comes before its end: each written as a space. Between a
/// JSON message's tokens a line break is whitespace (RFC 8259 §2), so the message is the same; left in, it
/// made one message two or more for a line-framed peer (a pretty-printed HTTP body, an SSE event's `data:`
/// lines joined), so that whatever followed the break reached that peer as a message of its own, past the
/// session. `None` when the text has no break before its trailing whitespace (a CRLF line's CR stays, byte for
/// byte), or is no JSON as it is (refused as before).
fn one_line(text: &str) -> Option<String> {
    let body = text.trim_end_matches([' ', '\t', '\r', '\n']);
    // memchr: this runs on every line, and a byte-by-byte scan was a tenth of a relayed message's cost.
    memchr::memchr2(b'\n', b'\r', body.as_bytes())?;
    // Only when the text is JSON as it is: then every break is between tokens. One inside a string (JSON has
    // no raw control character there) would read as a space once replaced; the parser refuses it instead.
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    Some(text.replace(['\r', '\n'], " "))
}

/// The category of a catalogue rule (or of the rules the JSON walker names), for a policy's actions.
fn catalogue_category(rule: &str) -> &'static str {
    match rule {
        redact::json::SENSITIVE_KEY_RULE | redact::json::OPAQUE_KEY_RULE => "credential",
        redact::json::TRACE_KEY_RULE => "stacktrace",
        _ => redact::catalogue_rules()
            .iter()
            .find(|r| r.id == rule)
            .map_or("", |r| r.category.as_str()),
    }
}

/// The members of a result the guard reads (each must be given once: `message::top_members`).
const RESULT_MEMBERS: [&str; 5] = [
    "isError",
    "protocolVersion",
    "resultType",
    "cacheScope",
    "ttlMs",
];

/// What the guard reads of a result, without building its tree.
#[derive(Default)]
struct ResultMembers {
    /// `isError` says the call failed: `true`, and the spellings a lenient client also takes for it (`"true"`,
    /// `1`): a result a client shows as a failure is redacted as one (`"isError": "true"` skipped redaction).
    is_error: bool,
    /// `protocolVersion` (of an `initialize` result: the revision the handshake agreed on).
    protocol_version: Option<String>,
}

impl ResultMembers {
    fn of(members: &[Option<&str>]) -> Self {
        let (is_error, protocol_version) = (members[0], members[1]);
        ResultMembers {
            is_error: is_error
                .is_some_and(|v| matches!(v, "true" | "1" | "\"true\"" | "\"True\"" | "\"1\"")),
            protocol_version: protocol_version
                .and_then(|v| serde_json::from_str::<&RawValue>(v).ok())
                .and_then(message::string_value),
        }
    }
}

/// `text` as a JSON string (the session's own names are hex digits: nothing to escape).
fn json_string(text: &str) -> String {
    format!("\"{text}\"")
}

/// The methods whose results MCP's stateless revision makes cacheable: `cacheScope` and `ttlMs` required.
const CACHEABLE: [&str; 6] = [
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "server/discover",
    "tools/list",
];

/// A result (to a request of `method`) with what a revision that requires `resultType` also requires of it
/// and it lacks, added first (the rest of its text byte for byte): `"resultType": "complete"`, and for a
/// cacheable result `"cacheScope": "private"` and `"ttlMs": 0` (a handshake-era server said nothing of
/// caching: the answer is kept to the one who asked, and never fresh). None when nothing lacks; Err when it
/// cannot be given (a result that is no object).
fn completed_result(result: &RawValue, method: &str) -> Result<Option<String>, ()> {
    if json_type(result) != JsonType::Object {
        return Err(());
    }
    let found = message::top_members(result, &RESULT_MEMBERS[2..]).map_err(|_| ())?;
    let (result_type, cache_scope, ttl) = (found[0], found[1], found[2]);
    let mut added: Vec<&str> = Vec::new();
    if result_type.is_none() {
        added.push(r#""resultType":"complete""#);
    }
    if CACHEABLE.contains(&method) {
        if cache_scope.is_none() {
            added.push(r#""cacheScope":"private""#);
        }
        if ttl.is_none() {
            added.push(r#""ttlMs":0"#);
        }
    }
    if added.is_empty() {
        return Ok(None);
    }
    let inner = &result.get()[1..];
    let comma = if inner.trim_start().starts_with('}') {
        ""
    } else {
        ","
    };
    Ok(Some(format!("{{{}{comma}{inner}", added.join(","))))
}

/// Cancels request `p` upstream (MCP's `notifications/cancelled`; over HTTP its exchange is closed), under
/// the id the upstream knows it by: renamed, for a request that came on a stream.
fn cancel_upstream(p: &Pending, reason: String, call: &mut Call) {
    let request_id = p
        .origin
        .as_ref()
        .map_or_else(|| p.id.clone(), |o| json!(o.upstream_id));
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": request_id, "reason": reason}});
    call.send(Peer::Upstream, notification.to_string());
}

fn join_batch(slots: Vec<Option<String>>) -> String {
    let members: Vec<String> = slots.into_iter().flatten().collect();
    format!("[{}]", members.join(","))
}

#[cfg(test)]
mod tests;
