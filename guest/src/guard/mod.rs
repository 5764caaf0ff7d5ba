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
//! steps and events a session returns in [`steps`]; the session's tables (pending requests, deadlines,
//! progress tokens, batches) in `pending`; the stderr line joiner in `stderr`; stream renaming in
//! [`streams`]; what the guard writes itself in [`rewrite`]; a policy file's decisions in [`policy`]; the
//! session in this module.

pub mod oplog;
mod pending;
pub mod policy;
pub mod rewrite;
mod stderr;
pub mod steps;
pub mod streams;

use crate::context::CallContext;
use crate::envelope::BatchPolicy;
use crate::message::{self, json_type, Envelope, JsonType, Parsed};
use crate::ordered::Fields;
use crate::redact;
use crate::sniff;
use crate::taxonomy::taxonomy;
use oplog::excerpt;
use pending::{Batch, Entry, Origin, Pending, Settled, Tables, SERVER_REQUEST_WINDOW};
use rewrite::Answer;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
pub use stderr::STDERR_LINE_CAP;
pub use steps::{Event, EventName, Outcome, Peer, Step};

/// How a session behaves.
#[derive(Debug, Clone)]
pub struct Options {
    pub dialect: String,
    /// Largest client message, in bytes.
    pub max_bytes: u64,
    pub batch: BatchPolicy,
    /// How long a request may wait for the upstream; `None`: as long as it takes.
    pub timeout_millis: Option<u64>,
    /// How errors and logs name the upstream (a program name, a URL).
    pub upstream: String,
    /// The longest text of a failed tool result passed on; longer ones keep their start and end.
    pub failed_result_bytes: u64,
    /// A policy file (TOML, `crate::policy`), and the environment its `hash_key_env` is read from.
    pub policy: Option<String>,
    pub policy_env: Vec<(String, String)>,
    /// The environment whose secret-looking values this session redacts (by name, as `set_environment`
    /// keeps them); `None`: the one `set_environment` configured.
    pub environment: Option<Vec<(String, String)>>,
}

impl Options {
    pub fn new(dialect: &str, upstream: &str) -> Self {
        Options {
            dialect: dialect.to_string(),
            max_bytes: taxonomy().meta.default_max_bytes,
            batch: BatchPolicy::Reject,
            timeout_millis: None,
            upstream: upstream.to_string(),
            failed_result_bytes: taxonomy().meta.failed_result_text_bytes,
            policy: None,
            policy_env: Vec::new(),
            environment: None,
        }
    }
}

/// Why the upstream can no longer answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// It could not be started (the operating system's reason).
    SpawnFailed(String),
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Killed(i32),
    /// It closed its output while still running.
    ClosedOutput,
}

impl Failure {
    fn describe(&self) -> String {
        match self {
            Failure::SpawnFailed(reason) => format!("the upstream could not be started: {reason}"),
            Failure::Exited(status) => format!("the upstream exited with status {status}"),
            Failure::Killed(signal) => format!("the upstream was killed by signal {signal}"),
            Failure::ClosedOutput => "the upstream closed its output".to_string(),
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
    down: Option<Failure>,
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

/// An upstream answer for a pending request: the line unchanged, or a rewritten one.
enum Delivery {
    Unchanged,
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

impl Session {
    pub fn new(options: Options) -> Self {
        let environment = options
            .environment
            .as_deref()
            .map(|env| std::sync::Arc::new(redact::Secrets::from_env(env)));
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

    fn finish(&mut self, call: Call) -> Outcome {
        let deadline = self.tables.next_deadline();
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
            &self.options.dialect,
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

    // ───────────────────────────── from the client ─────────────────────────────

    /// One line from the client (its newline removed).
    pub fn client_line(&mut self, line: &[u8], ctx: CallContext) -> Outcome {
        let _env = self.scope();
        self.client_line_from(None, line, ctx)
    }

    fn client_line_from(&mut self, origin: Option<u64>, line: &[u8], ctx: CallContext) -> Outcome {
        let mut call = Call::new(ctx);
        call.origin = origin;
        if line.len() as u64 > self.options.max_bytes {
            let edge = SNIFF_BYTES.min(line.len());
            self.reject_oversize(
                line.len() as u64,
                &line[..edge],
                &line[line.len() - edge..],
                &mut call,
            );
            return self.finish(call);
        }
        match std::str::from_utf8(line) {
            Err(e) => {
                let details = format!("invalid UTF-8 at byte {}", e.valid_up_to());
                self.reply(
                    &mut call,
                    "parse-error",
                    fields(&[("details", json!(details))]),
                    Value::Null,
                    details.clone(),
                );
            }
            Ok(text) if text.trim().is_empty() => {
                call.event(
                    Event::new(EventName::Dropped, "debug").detail("an empty line from the client"),
                );
            }
            Ok(text) => match text.strip_prefix(BYTE_ORDER_MARK) {
                // A byte order mark is no part of JSON (RFC 8259 §8.1): read past it, and the message goes on
                // without it, since the upstream's reader would refuse it as the guard's did.
                Some(rest) => {
                    call.event(
                        Event::new(EventName::Repaired, "debug")
                            .detail("a byte order mark before a client message removed"),
                    );
                    self.client_text(rest, Some(rest), &mut call)
                }
                None => self.client_text(text, None, &mut call),
            },
        }
        self.finish(call)
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

    /// A line from client stream `stream` (an HTTP front's request, a session's GET stream; its newline
    /// removed). Requests are renamed for the upstream, their answers renamed back and sent on `stream`
    /// (streams.rs); from the first such line on, every step toward the client names its stream.
    pub fn client_line_on(&mut self, stream: u64, line: &[u8], ctx: CallContext) -> Outcome {
        let _env = self.scope();
        self.streams.get_or_insert_with(streams::Streams::default);
        self.client_line_from(Some(stream), line, ctx)
    }

    /// Client stream `stream` is gone before everything owed to it was written (an HTTP client that went
    /// away: for MCP's stateless revision, a request's cancellation): each request still pending on it is
    /// cancelled upstream and owed nothing.
    pub fn stream_closed(&mut self, stream: u64, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let on_stream = self.tables.requests_on_stream(stream);
        for key in on_stream {
            let Some(p) = self.tables.take_pending(&key) else {
                continue;
            };
            if let Some((batch_id, _)) = p.slot {
                if let Some(batch) = self.tables.take_batch(&batch_id.to_string()) {
                    for member in &batch.members {
                        self.tables.batch_members.remove(member);
                    }
                }
            }
            self.tables.remember(key, Settled::Cancelled);
            if self.down.is_none() {
                let upstream_id = p
                    .origin
                    .as_ref()
                    .map_or_else(|| p.id.clone(), |o| json!(o.upstream_id));
                let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": upstream_id, "reason": "the client's stream closed (jsonrpc-errors guard)"}});
                call.send(Peer::Upstream, notification.to_string());
            }
            let event = Event::new(EventName::ClientCancelled, "debug")
                .id(&p.id)
                .method(&p.method);
            call.event(
                event.detail("the client's stream closed: cancelled upstream, no response is owed"),
            );
        }
        self.finish(call)
    }

    /// A client line longer than `max-bytes`, which the shell discarded unread: only its length is known.
    /// `head` and `tail`: the line's first and last bytes as the shell saw them pass (a few KiB each, or
    /// none), from which its id is read so that the answer carries it.
    pub fn client_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: CallContext,
    ) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        self.reject_oversize(length, head, tail, &mut call);
        self.finish(call)
    }

    /// Answers a client line too long to read. A request is answered with its own id when its head or tail
    /// shows it (the client can then match the answer; with `null` it waited for its own timeout), unless
    /// that id is in flight (the answer would be a second one for it). A response to one of the upstream's
    /// requests is answered to the upstream instead, which would otherwise wait for it for ever.
    fn reject_oversize(&mut self, length: u64, head: &[u8], tail: &[u8], call: &mut Call) {
        let details = format!("request exceeds {} bytes", self.options.max_bytes);
        let detail = format!(
            "a client line of {length} bytes exceeds the limit of {} bytes; not read",
            self.options.max_bytes
        );
        let sniffed = sniff::sniff(head, tail);
        let id = sniffed
            .id
            .as_deref()
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok());
        if sniffed.response && !sniffed.method {
            let key = id.map(message::id_key);
            if key
                .as_ref()
                .is_some_and(|k| self.tables.server_requests.remove(k).is_some())
                && self.down.is_none()
            {
                let error = crate::error::ErrorObject {
                    code: -32600,
                    message: "Invalid Request".into(),
                    data: Some(
                        json!({"reason": "oversize", "details": "the client's response exceeds the guard's limit"}),
                    ),
                };
                let id = id.map(message::value).unwrap_or(Value::Null);
                call.send(
                    Peer::Upstream,
                    crate::error::error_response(&error, id).to_string(),
                );
            }
            call.event(
                Event::new(EventName::Dropped, "warn").detail(format!("{detail} (a response)")),
            );
            return;
        }
        let in_flight = |raw: &RawValue| {
            let key = message::id_key(raw);
            self.tables.pending.contains_key(&key) || self.tables.batch_members.contains_key(&key)
        };
        let id = id
            .filter(|raw| !in_flight(raw))
            .map(message::value)
            .unwrap_or(Value::Null);
        self.reply(
            call,
            "invalid-request",
            invalid_request("oversize", &details),
            id,
            detail,
        );
    }

    /// A client line's text; `rewritten`: the text to send in place of the line as read (when it was changed).
    fn client_text(&mut self, text: &str, rewritten: Option<&str>, call: &mut Call) {
        let forward = |call: &mut Call| match rewritten {
            Some(text) => call.send(Peer::Upstream, text),
            None => call.steps.push(Step::Forward {
                to: Peer::Upstream,
                stream: None,
            }),
        };
        match message::parse(text) {
            Parsed::NotJson(details) => {
                self.reply(
                    call,
                    "parse-error",
                    fields(&[("details", json!(details))]),
                    Value::Null,
                    details.clone(),
                );
            }
            Parsed::Scalar => {
                let f = invalid_request("not-an-object", "a request must be a JSON object");
                self.reply(
                    call,
                    "invalid-request",
                    f,
                    Value::Null,
                    "a JSON value that is not an object".into(),
                );
            }
            Parsed::Duplicate(name) => {
                let details = format!("member \"{name}\" appears more than once");
                self.reply(
                    call,
                    "invalid-request",
                    invalid_request("duplicate-member", &details),
                    Value::Null,
                    details.clone(),
                );
            }
            Parsed::Batch(members) => self.client_batch(&members, call),
            Parsed::Object(envelope) => match self.client_message(&envelope, text, call) {
                Verdict::Forward => forward(call),
                Verdict::ForwardText(renamed) => call.send(Peer::Upstream, renamed),
                Verdict::Await(key, pending, renamed) => {
                    match renamed {
                        Some(text) => call.send(Peer::Upstream, text),
                        None => forward(call),
                    }
                    self.tables.register(
                        key,
                        pending,
                        call.ctx.unix_millis,
                        self.options.timeout_millis,
                    );
                }
                Verdict::Reply(a) => {
                    call.send_to_client(call.origin, a.response);
                    call.event(a.event);
                }
                Verdict::Drop(event) => call.event(event),
            },
        }
    }

    /// Decides one client message (a whole line or a batch member; `text`, which `envelope` was read from).
    fn client_message(&mut self, envelope: &Envelope<'_>, text: &str, call: &mut Call) -> Verdict {
        if message::is_response(envelope) {
            return self.client_response(envelope);
        }
        let checked = match message::check_call(envelope) {
            Ok(c) => c,
            Err(invalid) => {
                let id = message::readable_id(envelope);
                let detail = format!("invalid request: {}", invalid.details);
                return Verdict::Reply(self.answer(
                    call,
                    "invalid-request",
                    invalid_request(invalid.reason, invalid.details),
                    id,
                    None,
                    None,
                    detail,
                ));
            }
        };
        let Some(raw_id) = checked.id else {
            return self.client_notification(&checked.method, envelope.params, text, call);
        };
        // JSON-RPC allows a null id but no answer to it could be told from an error about an unreadable
        // request, and MCP forbids it: answered here rather than left to wait (forwarded, it waited for the
        // timeout, as the upstream's answer carried no id to match).
        if json_type(raw_id) == JsonType::Null {
            let f = invalid_request(
                "null-id",
                "id must not be null: an answer to it could not be matched",
            );
            let detail = format!("a {} request with a null id", checked.method);
            return Verdict::Reply(self.answer(
                call,
                "invalid-request",
                f,
                Value::Null,
                Some(&checked.method),
                None,
                detail,
            ));
        }
        let id = message::value(raw_id);
        let meta = message::request_meta(envelope.params);
        if let Some(failure) = &self.down {
            let revision = self.revision_for(meta.protocol_version.as_deref());
            let a = self.upstream_gone_answer(
                call,
                failure.clone(),
                id,
                &checked.method,
                revision,
                "arrived after",
            );
            return Verdict::Reply(a);
        }
        let key = message::id_key(raw_id);
        // In flight from the moment it is forwarded until its answer reaches the client (on its own stream,
        // for a request that came on one).
        let in_flight = match call.origin {
            Some(stream) => self
                .tables
                .aliases
                .contains_key(&streams::alias(stream, &key)),
            None => {
                self.tables.pending.contains_key(&key)
                    || self.tables.batch_members.contains_key(&key)
            }
        };
        if in_flight {
            let f = invalid_request(
                "duplicate-id",
                "a request with this id is already in flight",
            );
            let detail = format!("id {} is already in flight", raw_id.get());
            return Verdict::Reply(self.answer(
                call,
                "invalid-request",
                f,
                id,
                Some(&checked.method),
                None,
                detail,
            ));
        }
        // A policy that could not be read: nothing is relayed without it.
        if let Some(why) = &self.policy_error {
            let f = fields(&[("details", json!("the guard's policy file is not valid"))]);
            let detail = format!("the policy file was refused: {why}");
            return Verdict::Reply(self.answer(
                call,
                "configuration-error",
                f,
                id,
                Some(&checked.method),
                None,
                detail,
            ));
        }
        let tool = policy::tool_name(&checked.method, envelope.params);
        let effective = self
            .policy
            .as_mut()
            .map(|p| Box::new(p.for_request(&checked.method, tool.as_deref())));
        // What the client sends the server, redacted where the policy says so (the `requests` scope): a tool
        // call's arguments.
        let mut parts: Vec<(&RawValue, String)> = Vec::new();
        if let Some(e) = effective
            .as_deref()
            .filter(|e| e.redacts(crate::policy::Scope::Requests))
        {
            if let Some(raw) = streams::raw_param(envelope.params, "arguments") {
                if let Ok(mut arguments) = serde_json::from_str::<Value>(raw.get()) {
                    let (found, changed) =
                        policy::redact_value(&mut arguments, e, &crate::environment());
                    let decision = policy::decide(
                        e,
                        found.iter().map(|f| (f.rule.as_str(), f.category.as_str())),
                    );
                    for event in policy::events(&decision, e, &id, &checked.method) {
                        call.event(event);
                    }
                    if decision.blocked.is_some() {
                        let f = fields(&[
                            ("tool", json!(tool.as_deref().unwrap_or(&checked.method))),
                            (
                                "reason",
                                json!("the request carries what the policy blocks"),
                            ),
                        ]);
                        let detail = format!(
                            "{} not forwarded: the policy blocks what its arguments carry",
                            checked.method
                        );
                        return Verdict::Reply(self.answer(
                            call,
                            "policy-denied",
                            f,
                            id,
                            Some(&checked.method),
                            None,
                            detail,
                        ));
                    }
                    if changed {
                        let mut redacted = Event::new(EventName::Redacted, "warn")
                            .id(&id)
                            .method(&checked.method);
                        redacted.detail = Some(format!(
                            "the request's arguments, redacted: {}",
                            decision.redacted.join(", ")
                        ));
                        redacted.tool = e.tool.clone().or(tool.clone());
                        redacted.rule = Some(decision.redacted.join(","));
                        call.event(redacted);
                        parts.push((raw, arguments.to_string()));
                    }
                }
            }
        }
        let mut pending = Pending {
            id,
            method: checked.method,
            seq: 0,
            deadline: None,
            progress_token: meta.progress_token,
            revision: meta.protocol_version,
            slot: None,
            origin: None,
            effective,
            latest: None,
            arrived: 0,
        };
        let Some(stream) = call.origin else {
            let renamed = (!parts.is_empty()).then(|| streams::splice(text, &mut parts));
            return Verdict::Await(key, pending, renamed);
        };
        // Renamed for the upstream: ids (and progress tokens) of the session's own, unique across streams.
        let Some(numbers) = self.streams.as_mut() else {
            return Verdict::Await(key, pending, None);
        };
        let upstream_id = numbers.allocate();
        let raw_token = streams::raw_progress_token(envelope.params);
        let token = raw_token.map(|raw| (raw.get().to_string(), numbers.allocate()));
        parts.push((raw_id, upstream_id.to_string()));
        if let (Some(raw), Some((_, upstream_token))) = (raw_token, &token) {
            parts.push((raw, upstream_token.to_string()));
            pending.progress_token = Some(upstream_token.to_string());
        }
        let renamed = streams::splice(text, &mut parts);
        pending.origin = Some(Origin {
            stream,
            alias: streams::alias(stream, &key),
            client_id: raw_id.get().to_string(),
            upstream_id,
            token,
        });
        Verdict::Await(upstream_id.to_string(), pending, Some(renamed))
    }

    fn client_notification(
        &mut self,
        method: &str,
        params: Option<&RawValue>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        if self.down.is_some() {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .method(method)
                    .detail("a notification after the upstream failed"),
            );
        }
        if method == "notifications/cancelled" {
            if let Some(stream) = call.origin {
                return self.client_cancelled_on(stream, params, text, call);
            }
            if let Some(key) = message::param_key(params, "requestId") {
                // A batch member's slot still waits for its answer (the array must stay whole), so only a
                // request of its own stops being owed one.
                if self.tables.request(&key).is_some_and(|p| p.slot.is_none()) {
                    if let Some(p) = self.tables.take_pending(&key) {
                        self.tables.remember(key, Settled::Cancelled);
                        let event = Event::new(EventName::ClientCancelled, "debug")
                            .id(&p.id)
                            .method(&p.method);
                        call.event(event.detail("cancelled by the client: no response is owed"));
                    }
                }
            }
        }
        Verdict::Forward
    }

    /// A cancellation that came on a stream: the request it names is that stream's, renamed upstream.
    fn client_cancelled_on(
        &mut self,
        stream: u64,
        params: Option<&RawValue>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        let raw = streams::raw_param(params, "requestId");
        let upstream_key = raw.and_then(|r| {
            self.tables
                .alias_key(&streams::alias(stream, &message::id_key(r)))
                .cloned()
        });
        let (Some(raw), Some(key)) = (raw, upstream_key) else {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .detail("a cancellation of no request in flight on its stream"),
            );
        };
        let Some(upstream_id) = self
            .tables
            .request(&key)
            .and_then(|p| p.origin.as_ref())
            .map(|o| o.upstream_id)
        else {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .detail("a cancellation of no request in flight on its stream"),
            );
        };
        if self.tables.request(&key).is_some_and(|p| p.slot.is_none()) {
            if let Some(p) = self.tables.take_pending(&key) {
                self.tables.remember(key, Settled::Cancelled);
                let event = Event::new(EventName::ClientCancelled, "debug")
                    .id(&p.id)
                    .method(&p.method);
                call.event(event.detail("cancelled by the client: no response is owed"));
            }
        }
        Verdict::ForwardText(streams::splice(text, &mut [(raw, upstream_id.to_string())]))
    }

    /// Makes room for one more of the upstream's requests: the oldest the client has not answered is
    /// forgotten, and the operator told.
    fn forget_oldest_server_request(&mut self, call: &mut Call) {
        if let Some(key) = self.tables.oldest_server_request() {
            self.tables.server_requests.remove(&key);
            let detail = format!(
                "the upstream has {SERVER_REQUEST_WINDOW} requests the client has not answered: the oldest is forgotten, and a client response to it will be dropped"
            );
            call.event(Event::new(EventName::Dropped, "warn").detail(&detail));
        }
    }

    /// A client's response to one of the upstream's requests.
    fn client_response(&mut self, envelope: &Envelope<'_>) -> Verdict {
        // Nothing goes to an upstream that has failed, not even the answer to a request it made before it
        // went (found by cargo-fuzz: such an answer was still forwarded).
        if self.down.is_some() {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .detail("a client response after the upstream failed"),
            );
        }
        let key = envelope.id.map(message::id_key);
        match key.and_then(|k| self.tables.server_requests.remove(&k)) {
            Some(_) => Verdict::Forward,
            None => {
                let id = envelope.id.map(message::value).unwrap_or(Value::Null);
                Verdict::Drop(
                    Event::new(EventName::Dropped, "warn")
                        .id(&id)
                        .detail("a client response to no request of the upstream's"),
                )
            }
        }
    }

    fn client_batch(&mut self, members: &[&RawValue], call: &mut Call) {
        if self.options.batch == BatchPolicy::Reject {
            let f = invalid_request("batch-not-supported", "batch requests are not supported");
            self.reply(
                call,
                "invalid-request",
                f,
                Value::Null,
                "a batch (refused by the batch policy)".into(),
            );
            return;
        }
        if members.is_empty() {
            let f = invalid_request("empty-batch", "a batch must not be empty");
            self.reply(
                call,
                "invalid-request",
                f,
                Value::Null,
                "an empty batch".into(),
            );
            return;
        }
        self.tables.seq += 1;
        let batch_id = self.tables.seq;
        let stream = self.streams.as_ref().map(|_| call.origin.unwrap_or(0));
        let mut batch = Batch {
            slots: Vec::new(),
            open: 0,
            members: Vec::new(),
            stream,
            aliases: Vec::new(),
        };
        for member in members {
            let text = member.get();
            let verdict = match message::parse(text) {
                Parsed::Object(envelope) => self.client_message(&envelope, text, call),
                Parsed::Duplicate(name) => {
                    let details = format!("member \"{name}\" appears more than once");
                    Verdict::Reply(self.answer(
                        call,
                        "invalid-request",
                        invalid_request("duplicate-member", &details),
                        Value::Null,
                        None,
                        None,
                        details.clone(),
                    ))
                }
                _ => {
                    let f = invalid_request("not-an-object", "a request must be a JSON object");
                    Verdict::Reply(self.answer(
                        call,
                        "invalid-request",
                        f,
                        Value::Null,
                        None,
                        None,
                        "a batch member that is not an object".into(),
                    ))
                }
            };
            match verdict {
                Verdict::Forward => call.send(Peer::Upstream, text),
                Verdict::ForwardText(renamed) => call.send(Peer::Upstream, renamed),
                Verdict::Await(key, mut pending, renamed) => {
                    pending.slot = Some((batch_id, batch.slots.len()));
                    batch.slots.push(None);
                    batch.open += 1;
                    call.send(Peer::Upstream, renamed.as_deref().unwrap_or(text));
                    if let Some(origin) = &pending.origin {
                        batch.aliases.push(origin.alias.clone());
                    }
                    self.tables.add_batch_member(key.clone());
                    batch.members.push(key.clone());
                    self.tables.register(
                        key,
                        pending,
                        call.ctx.unix_millis,
                        self.options.timeout_millis,
                    );
                }
                Verdict::Reply(a) => {
                    batch.slots.push(Some(a.response));
                    call.event(a.event);
                }
                Verdict::Drop(event) => call.event(event),
            }
        }
        if batch.open > 0 {
            self.tables.insert_batch(batch_id.to_string(), batch);
        } else if !batch.slots.is_empty() {
            call.send_to_client(batch.stream, join_batch(batch.slots));
        }
    }

    // ───────────────────────────── from the upstream ─────────────────────────────

    /// One line from the upstream's output (its newline removed).
    pub fn upstream_line(&mut self, line: &[u8], ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let env = crate::environment();
        let (text, repaired) = match std::str::from_utf8(line) {
            Ok(t) => (Cow::Borrowed(t), false),
            Err(_) => (String::from_utf8_lossy(line), true),
        };
        if text.trim().is_empty() {
            call.event(
                Event::new(EventName::Dropped, "debug").detail("an empty line from the upstream"),
            );
            return self.finish(call);
        }
        let (text, source) = match text.strip_prefix(BYTE_ORDER_MARK) {
            // As from the client: read past a byte order mark, and pass the message on without it.
            Some(rest) => {
                call.event(
                    Event::new(EventName::Repaired, "debug")
                        .detail("a byte order mark before an upstream message removed"),
                );
                (rest, Source::Text(rest))
            }
            None if repaired => (&*text, Source::Text(&text)),
            None => (&*text, Source::Line(&text)),
        };
        match message::parse(text) {
            Parsed::NotJson(why) => {
                let detail = format!(
                    "a line from the upstream that is not JSON ({why}): {}",
                    excerpt(text, &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            }
            Parsed::Scalar => {
                let detail = format!(
                    "a JSON value from the upstream that is not a message: {}",
                    excerpt(text, &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            }
            Parsed::Duplicate(name) => {
                let detail = format!(
                    "an upstream message with member \"{name}\" twice: {}",
                    excerpt(text, &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            }
            Parsed::Batch(members) => {
                // MCP servers no longer send batches; a JSON-RPC server answering several requests at once
                // may. Each member is handled (and written) as a message of its own.
                for member in members {
                    match message::parse(member.get()) {
                        Parsed::Object(envelope) => self.upstream_message(
                            &envelope,
                            Source::Text(member.get()),
                            repaired,
                            &mut call,
                        ),
                        _ => {
                            let detail = format!(
                                "an upstream batch member that is not a message: {}",
                                excerpt(member.get(), &env)
                            );
                            call.event(Event::new(EventName::Dropped, "warn").detail(detail));
                        }
                    }
                }
            }
            Parsed::Object(envelope) => {
                self.upstream_message(&envelope, source, repaired, &mut call)
            }
        }
        self.finish(call)
    }

    /// An upstream line longer than the shell's limit, discarded unread.
    /// `head` and `tail`: its first and last bytes as the shell saw them pass. A response whose id they show
    /// answers its pending request at once, with the guard's error (it waited for its timeout, and was then
    /// answered as one); a request of the upstream's whose id they show is refused to the upstream.
    pub fn upstream_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: CallContext,
    ) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let detail = format!("a line of {length} bytes from the upstream exceeds the guard's limit; discarded unread");
        call.event(Event::new(EventName::Dropped, "error").detail(&detail));
        let sniffed = sniff::sniff(head, tail);
        let Some(id) = sniffed
            .id
            .as_deref()
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok())
        else {
            return self.finish(call);
        };
        if sniffed.method {
            let error = crate::error::ErrorObject {
                code: -32600,
                message: "Invalid Request".into(),
                data: Some(
                    json!({"reason": "oversize", "details": "the request exceeds the guard's limit"}),
                ),
            };
            call.send(
                Peer::Upstream,
                crate::error::error_response(&error, message::value(id)).to_string(),
            );
        } else if let Some(pending) = self.tables.take_pending(&message::id_key(id)) {
            let f = fields(&[(
                "message",
                json!(format!(
                    "the upstream's response of {length} bytes exceeds the guard's limit"
                )),
            )]);
            let revision = self.revision_for(pending.revision.as_deref());
            let a = self.answer(
                &mut call,
                "upstream-error",
                f,
                pending.id.clone(),
                Some(&pending.method),
                revision,
                detail,
            );
            call.event(a.event);
            self.deliver_answer(pending, a.response, &mut call);
        }
        self.finish(call)
    }

    /// Passes an upstream message to the client unchanged (on `stream`, when the session serves several).
    fn pass(&self, source: Source<'_>, stream: Option<u64>, repaired: bool, call: &mut Call) {
        match source {
            Source::Line(_) => call.steps.push(Step::Forward {
                to: Peer::Client,
                stream,
            }),
            Source::Text(text) => call.send_to_client(stream, text.trim()),
        }
        if repaired {
            call.event(
                Event::new(EventName::Repaired, "warn")
                    .detail("invalid UTF-8 from the upstream replaced by U+FFFD"),
            );
        }
    }

    fn upstream_message(
        &mut self,
        envelope: &Envelope<'_>,
        source: Source<'_>,
        repaired: bool,
        call: &mut Call,
    ) {
        let env = crate::environment();
        if envelope.method.is_some() {
            // The upstream's own request or notification: relayed as it is, whatever its method, when it is a
            // valid JSON-RPC call. One that is not (an object for an id, no version, a method that is no
            // string) would break the client that reads it: it is dropped and, unless it is a notification,
            // answered to the upstream with the error its peer would have given it (id null: its id is unusable).
            let checked = match message::check_call(envelope) {
                Ok(checked) => checked,
                Err(invalid) => {
                    let detail = format!(
                        "an upstream call that is not valid JSON-RPC ({}): {}",
                        invalid.details,
                        excerpt(source.text(), &env)
                    );
                    call.event(Event::new(EventName::Dropped, "warn").detail(detail));
                    if envelope.id.is_some() {
                        // Plain JSON-RPC, not the client's dialect: the upstream is the one told.
                        let error = crate::error::ErrorObject {
                            code: -32600,
                            message: "Invalid Request".into(),
                            data: Some(
                                json!({"reason": invalid.reason, "details": invalid.details}),
                            ),
                        };
                        call.send(
                            Peer::Upstream,
                            crate::error::error_response(&error, Value::Null).to_string(),
                        );
                    }
                    return;
                }
            };
            {
                match checked.id {
                    Some(id) => {
                        let key = message::id_key(id);
                        if !self.tables.server_requests.contains_key(&key)
                            && self.tables.server_requests.len() >= SERVER_REQUEST_WINDOW
                        {
                            self.forget_oldest_server_request(call);
                        }
                        self.tables.add_server_request(key);
                    }
                    None if checked.method == "notifications/progress" => {
                        if let Some(token) = message::param_key(envelope.params, "progressToken") {
                            if !self.tables.progress.contains_key(&token)
                                && self.tables.finished_tokens.contains(&token)
                            {
                                let detail = "progress for a request no longer in flight (answered, timed out or cancelled)";
                                call.event(
                                    Event::new(EventName::Dropped, "debug")
                                        .method("notifications/progress")
                                        .detail(detail),
                                );
                                return;
                            }
                            self.progress_made(&token, call.ctx.unix_millis);
                            // Progress of a request that came on a stream goes there, with the client's token.
                            if let Some((stream, renamed)) =
                                self.progress_for_stream(&token, envelope, source)
                            {
                                call.send_to_client(Some(stream), renamed);
                                return;
                            }
                        }
                    }
                    None => {}
                }
            }
            self.pass(source, self.own_stream(), repaired, call);
            return;
        }
        if !message::is_response(envelope) {
            let detail = format!(
                "an upstream message that is neither a call nor a response: {}",
                excerpt(source.text(), &env)
            );
            call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            return;
        }
        let Some(raw_id) = envelope.id.filter(|id| json_type(id) != JsonType::Null) else {
            self.upstream_error_without_id(envelope, source, call);
            return;
        };
        let key = message::id_key(raw_id);
        let Some(pending) = self.tables.take_pending(&key) else {
            let late = self
                .tables
                .settled
                .iter()
                .rev()
                .find(|(k, _)| *k == key)
                .map(|(_, why)| *why);
            let (level, why) = match late {
                Some(Settled::TimedOut) => (
                    "info",
                    "a late response to a request the guard already answered (timeout)",
                ),
                Some(Settled::Cancelled) => {
                    ("debug", "a response to a request the client cancelled")
                }
                None => ("warn", "a response to no pending request"),
            };
            let id = message::value(raw_id);
            call.event(Event::new(EventName::Dropped, level).id(&id).detail(why));
            return;
        };
        // A response the guard cannot read is still owed its answer: its request is out of the pending table.
        let error_response = match (
            message::is_well_formed_response(envelope),
            envelope.error.is_some(),
        ) {
            (false, _) => Err((
                "not a valid JSON-RPC response",
                "the upstream's response was not valid JSON-RPC",
            )),
            (true, false) => Ok(None),
            // Well-formed, yet serde_json refuses the whole text: members nested deeper than its recursion
            // limit (found by cargo-fuzz: such a response got no answer).
            (true, true) => match serde_json::from_str::<Value>(source.text()) {
                Ok(Value::Object(response)) => Ok(Some(response)),
                _ => Err((
                    "an upstream error response too deeply nested to read",
                    "the upstream's error response could not be read",
                )),
            },
        };
        match error_response {
            Err((what, message)) => {
                let detail = format!("{what}: {}", excerpt(source.text(), &env));
                let f = fields(&[("message", json!(message))]);
                let revision = self.revision_for(pending.revision.as_deref());
                let a = self.answer(
                    call,
                    "upstream-error",
                    f,
                    pending.id.clone(),
                    Some(&pending.method),
                    revision,
                    detail,
                );
                call.event(a.event);
                self.deliver(
                    pending,
                    Delivery::Rewritten(a.response),
                    source,
                    raw_id,
                    repaired,
                    call,
                );
                return;
            }
            Ok(Some(response)) => {
                let ctx = call.next_ctx();
                let revision = self.revision_for(pending.revision.as_deref());
                let e = pending.effective.as_deref();
                // Under a policy: redacted under its options (audited rules left in), its actions on what was found.
                let mut found = Vec::new();
                if let Some(e) = e.filter(|e| e.audits_any()) {
                    rewrite::sanitized_error(
                        &response,
                        &self.options.dialect,
                        &pending.id,
                        Some(&pending.method),
                        revision,
                        Some(e.redaction.clone()),
                        Some(&mut found),
                        &ctx,
                        &env,
                    );
                }
                let quiet = e.map(|e| e.quiet.clone());
                let found_here = if e.is_some_and(|e| e.audits_any()) {
                    None
                } else {
                    Some(&mut found)
                };
                let a = rewrite::sanitized_error(
                    &response,
                    &self.options.dialect,
                    &pending.id,
                    Some(&pending.method),
                    revision,
                    quiet,
                    found_here,
                    &ctx,
                    &env,
                );
                if let Some(e) = e {
                    let decision = policy::decide(
                        e,
                        found.iter().map(|r| (r.as_str(), catalogue_category(r))),
                    );
                    for event in policy::events(&decision, e, &pending.id, &pending.method) {
                        call.event(event);
                    }
                    if decision.blocked.is_some() {
                        self.deliver_blocked(pending, call);
                        return;
                    }
                }
                call.event(a.event);
                self.deliver(
                    pending,
                    Delivery::Rewritten(a.response),
                    source,
                    raw_id,
                    repaired,
                    call,
                );
                return;
            }
            Ok(None) => {}
        }
        if pending.method == "initialize" {
            if let Some(revision) = envelope.result.and_then(message::negotiated_revision) {
                self.revision = Some(revision);
            }
        }
        if envelope.result.is_some_and(is_error_result) {
            if let Ok(Value::Object(mut response)) = serde_json::from_str::<Value>(source.text()) {
                let e = pending.effective.as_deref();
                let limit =
                    e.and_then(|e| e.failed_result_bytes)
                        .unwrap_or(self.options.failed_result_bytes) as usize;
                let mut found = Vec::new();
                let default_policy = redact::Policy::default();
                let redacted = match e {
                    // Audited rules are found under the whole policy but left in.
                    Some(e) if e.audits_any() => {
                        let original = Value::Object(response.clone());
                        let mut probe = response.clone();
                        rewrite::redacted_tool_error(
                            &mut probe,
                            &pending.id,
                            &pending.method,
                            &env,
                            &e.redaction,
                            None,
                            &mut found,
                        );
                        let quiet = e.quiet_allowing(policy::audited_values(&original, &found, e));
                        rewrite::redacted_tool_error(
                            &mut response,
                            &pending.id,
                            &pending.method,
                            &env,
                            &quiet,
                            Some(limit),
                            &mut Vec::new(),
                        )
                    }
                    Some(e) => rewrite::redacted_tool_error(
                        &mut response,
                        &pending.id,
                        &pending.method,
                        &env,
                        &e.redaction,
                        Some(limit),
                        &mut found,
                    ),
                    None => rewrite::redacted_tool_error(
                        &mut response,
                        &pending.id,
                        &pending.method,
                        &env,
                        &default_policy,
                        Some(limit),
                        &mut found,
                    ),
                };
                if let Some(e) = e {
                    let decision = policy::decide(
                        e,
                        found.iter().map(|f| (f.rule.as_str(), f.category.as_str())),
                    );
                    for event in policy::events(&decision, e, &pending.id, &pending.method) {
                        call.event(event);
                    }
                    if decision.blocked.is_some() {
                        self.deliver_blocked(pending, call);
                        return;
                    }
                }
                if let Some((text, mut event)) = redacted {
                    event.tool = e.and_then(|e| e.tool.clone());
                    let mut rules: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
                    rules.sort_unstable();
                    rules.dedup();
                    event.rule = (!rules.is_empty()).then(|| rules.join(","));
                    call.event(event);
                    self.deliver(
                        pending,
                        Delivery::Rewritten(text),
                        source,
                        raw_id,
                        repaired,
                        call,
                    );
                    return;
                }
            }
        } else if let Some(e) = pending
            .effective
            .as_deref()
            .filter(|e| policy::result_scope(&pending.method).is_some_and(|s| e.redacts(s)))
        {
            // A successful answer in a scope the policy redacts (tool results, resource contents, prompt
            // messages); untouched when no rule finds anything.
            if let Ok(Value::Object(mut response)) = serde_json::from_str::<Value>(source.text()) {
                if let Some(result) = response.get_mut("result") {
                    let (found, changed) = policy::redact_value(result, e, &env);
                    let decision = policy::decide(
                        e,
                        found.iter().map(|f| (f.rule.as_str(), f.category.as_str())),
                    );
                    for event in policy::events(&decision, e, &pending.id, &pending.method) {
                        call.event(event);
                    }
                    if decision.blocked.is_some() {
                        self.deliver_blocked(pending, call);
                        return;
                    }
                    if changed {
                        let mut event = Event::new(EventName::Redacted, "warn")
                            .id(&pending.id)
                            .method(&pending.method);
                        event.detail = Some(format!(
                            "a successful result, redacted: {}",
                            decision.redacted.join(", ")
                        ));
                        event.tool = e.tool.clone();
                        event.rule = Some(decision.redacted.join(","));
                        call.event(event);
                        response.insert("id".into(), pending.id.clone());
                        let text = Value::Object(response).to_string();
                        self.deliver(
                            pending,
                            Delivery::Rewritten(text),
                            source,
                            raw_id,
                            repaired,
                            call,
                        );
                        return;
                    }
                }
            }
        }
        self.deliver(pending, Delivery::Unchanged, source, raw_id, repaired, call);
    }

    /// An error response with a null id (the upstream could not read some request): sanitized and passed on,
    /// since no pending request can be told to be its cause. Anything else without an id is dropped.
    fn upstream_error_without_id(
        &mut self,
        envelope: &Envelope<'_>,
        source: Source<'_>,
        call: &mut Call,
    ) {
        let env = crate::environment();
        let parsed = serde_json::from_str::<Value>(source.text());
        match (envelope.error.is_some(), parsed) {
            (true, Ok(Value::Object(response))) => {
                let ctx = call.next_ctx();
                let a = rewrite::sanitized_error(
                    &response,
                    &self.options.dialect,
                    &Value::Null,
                    None,
                    None,
                    None,
                    None,
                    &ctx,
                    &env,
                );
                call.send_to_client(self.own_stream(), a.response);
                call.event(a.event);
            }
            _ => {
                let detail = format!(
                    "an upstream response without an id: {}",
                    excerpt(source.text(), &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            }
        }
    }

    /// An upstream answer (or the guard's own) for a pending request, to the client or into its batch.
    /// `upstream_id`: the answer's id as the upstream wrote it (renamed back for a request from a stream).
    fn deliver(
        &mut self,
        pending: Pending,
        delivery: Delivery,
        source: Source<'_>,
        upstream_id: &RawValue,
        repaired: bool,
        call: &mut Call,
    ) {
        let delivery = match (delivery, &pending.origin) {
            (Delivery::Unchanged, Some(origin)) => Delivery::Rewritten(streams::splice(
                source.text().trim(),
                &mut [(upstream_id, origin.client_id.clone())],
            )),
            (delivery, _) => delivery,
        };
        let Some((batch_id, slot)) = pending.slot else {
            match delivery {
                Delivery::Unchanged => self.pass(source, self.stream_of(&pending), repaired, call),
                Delivery::Rewritten(text) => call.send_to_client(self.stream_of(&pending), text),
            }
            return;
        };
        let text = match delivery {
            Delivery::Unchanged => source.text().trim().to_string(),
            Delivery::Rewritten(text) => text,
        };
        self.fill_slot(batch_id, slot, text, call);
    }

    /// The policy's refusal in place of an answer it blocks (`policy-denied`, the taxonomy's policy gate).
    fn deliver_blocked(&mut self, pending: Pending, call: &mut Call) {
        let tool = pending
            .effective
            .as_ref()
            .and_then(|e| e.tool.clone())
            .unwrap_or_else(|| pending.method.clone());
        let f = fields(&[
            ("tool", json!(tool)),
            ("reason", json!("the answer carries what the policy blocks")),
        ]);
        let revision = self
            .revision_for(pending.revision.as_deref())
            .map(str::to_string);
        let detail = format!(
            "the upstream's answer to {} blocked by the policy",
            pending.method
        );
        let a = self.answer(
            call,
            "policy-denied",
            f,
            pending.id.clone(),
            Some(&pending.method),
            revision.as_deref(),
            detail,
        );
        call.event(a.event);
        self.deliver_answer(pending, a.response, call);
    }

    /// The guard's own answer for a pending request.
    fn deliver_answer(&mut self, pending: Pending, response: String, call: &mut Call) {
        match pending.slot {
            Some((batch_id, slot)) => self.fill_slot(batch_id, slot, response, call),
            None => call.send_to_client(self.stream_of(&pending), response),
        }
    }

    fn fill_slot(&mut self, batch_id: u64, slot: usize, text: String, call: &mut Call) {
        let id = batch_id.to_string();
        let Some(batch) = self.tables.batch_mut(&id) else {
            return;
        };
        if batch.slots[slot].is_none() {
            batch.open -= 1;
        }
        batch.slots[slot] = Some(text);
        if batch.open == 0 {
            if let Some(batch) = self.tables.take_batch(&id) {
                for key in &batch.members {
                    self.tables.batch_members.remove(key);
                }
                for alias in &batch.aliases {
                    self.tables.aliases.remove(alias);
                }
                call.send_to_client(batch.stream, join_batch(batch.slots));
            }
        }
    }

    /// A progress notification for a request that came on a client stream: that stream, and the line with
    /// the client's own token in place of the one the upstream was given.
    fn progress_for_stream(
        &self,
        token: &str,
        envelope: &Envelope<'_>,
        source: Source<'_>,
    ) -> Option<(u64, String)> {
        let key = self.tables.token_key(token)?;
        let origin = self.tables.request(key)?.origin.as_ref()?;
        let (client_token, _) = origin.token.as_ref()?;
        let raw = streams::raw_param(envelope.params, "progressToken")?;
        Some((
            origin.stream,
            streams::splice(source.text().trim(), &mut [(raw, client_token.clone())]),
        ))
    }

    /// Progress for a request restarts its wait (the old deadline entry goes stale).
    fn progress_made(&mut self, token: &str, now: u64) {
        let Some(key) = self.tables.token_key(token).cloned() else {
            return;
        };
        let default_timeout = self.options.timeout_millis;
        // The table's field, not `request_mut`: the deadline heap is pushed to while `p` is held.
        let Some(Entry::Request(p)) = self.tables.pending.get_mut(&key) else {
            return;
        };
        let Some(timeout) = p
            .effective
            .as_ref()
            .and_then(|e| e.timeout_ms)
            .unwrap_or(default_timeout)
        else {
            return;
        };
        // Never past the policy's longest wait, progress or not.
        let new = p.latest.map_or(now.saturating_add(timeout), |l| {
            now.saturating_add(timeout).min(l)
        });
        if p.deadline.is_some_and(|old| old != new) {
            p.deadline = Some(new);
            self.tables.deadlines.push(Reverse((new, p.seq, key)));
            self.tables.compact_deadlines();
        }
    }

    // ───────────────────────────── failures and time ─────────────────────────────

    #[allow(clippy::too_many_arguments)]
    fn upstream_gone_answer(
        &self,
        call: &mut Call,
        failure: Failure,
        id: Value,
        method: &str,
        revision: Option<&str>,
        when: &str,
    ) -> Answer {
        let reason = failure.describe();
        let f = fields(&[
            ("url", json!(self.options.upstream)),
            ("reason", json!(reason)),
        ]);
        let detail = format!("{method} {when} {reason}");
        self.answer(
            call,
            "upstream-connection-failed",
            f,
            id,
            Some(method),
            revision,
            detail,
        )
    }

    /// The upstream can no longer answer: every pending request is answered, in the order it arrived, and
    /// every later request is answered at once. Only the first failure counts.
    pub fn upstream_failed(&mut self, failure: Failure, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        if self.down.is_some() {
            return self.finish(call);
        }
        let level = if failure == Failure::Exited(0) && self.tables.pending.is_empty() {
            "info"
        } else {
            "error"
        };
        let detail = format!(
            "{} ({} requests pending)",
            failure.describe(),
            self.tables.pending.len()
        );
        call.event(Event::new(EventName::UpstreamEnded, level).detail(detail));
        self.down = Some(failure.clone());
        // Answered in order of arrival: drained into a heap keyed by arrival (the deadline heap's type, so
        // no sort is instantiated for this one use).
        let mut table = std::mem::take(&mut self.tables.pending);
        let mut order: BinaryHeap<Reverse<(u64, u64, String)>> = table
            .iter()
            .filter_map(|(k, e)| {
                if let Entry::Request(p) = e {
                    Some(Reverse((p.seq, 0, k.clone())))
                } else {
                    None
                }
            })
            .collect();
        self.tables.deadlines.clear();
        self.tables.progress.clear();
        self.tables.server_requests.clear();
        while let Some(Reverse((_, _, key))) = order.pop() {
            let Some(Entry::Request(p)) = table.remove(&key) else {
                continue;
            };
            let revision = self.revision_for(p.revision.as_deref());
            let a = self.upstream_gone_answer(
                &mut call,
                failure.clone(),
                p.id.clone(),
                &p.method,
                revision,
                "was pending when",
            );
            let mut event = a.event;
            event.tool = p.effective.as_ref().and_then(|e| e.tool.clone());
            call.event(event);
            self.deliver_answer(*p, a.response, &mut call);
        }
        self.finish(call)
    }

    /// Answers every request whose deadline is at or before `ctx.unix_millis` (or within
    /// [`EXPIRE_EARLY_MS`] after it) with the timeout error, and cancels it upstream (except `initialize`,
    /// which MCP forbids cancelling).
    pub fn expire(&mut self, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let due = ctx.unix_millis.saturating_add(EXPIRE_EARLY_MS);
        while let Some(deadline) = self.tables.next_deadline() {
            if deadline > due {
                break;
            }
            let Some(Reverse((_, _, key))) = self.tables.deadlines.pop() else {
                break;
            };
            let Some(p) = self.tables.take_pending(&key) else {
                continue;
            };
            self.tables.remember(key, Settled::TimedOut);
            let cancel = p.method != "initialize" && self.down.is_none();
            // The request's own timeout (a tool's or method's override, else the session's), or the
            // policy's longest wait when that came first.
            let own = p
                .effective
                .as_ref()
                .and_then(|e| e.timeout_ms)
                .unwrap_or(self.options.timeout_millis);
            let capped = p.latest.filter(|&l| l == deadline);
            let timeout = match capped {
                Some(latest) => latest.saturating_sub(p.arrived),
                None => own.unwrap_or(0),
            };
            let secs = timeout.div_ceil(1000);
            let detail = format!(
                "no response within {timeout} ms{}{}",
                if capped.is_some() {
                    " (the policy's longest wait, progress or not)"
                } else {
                    ""
                },
                if cancel {
                    "; cancelled upstream"
                } else {
                    "; not cancelled (MCP forbids cancelling initialize)"
                }
            );
            let f = fields(&[("timeout_secs", json!(secs))]);
            let revision = self.revision_for(p.revision.as_deref());
            let a = self.answer(
                &mut call,
                "upstream-timeout",
                f,
                p.id.clone(),
                Some(&p.method),
                revision,
                detail,
            );
            if cancel {
                let reason = format!("no response within {secs}s (jsonrpc-errors guard)");
                // The id the upstream knows it by: renamed, for a request that came on a stream.
                let request_id = p
                    .origin
                    .as_ref()
                    .map_or_else(|| p.id.clone(), |o| json!(o.upstream_id));
                let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": request_id, "reason": reason}});
                call.send(Peer::Upstream, notification.to_string());
            }
            let mut event = a.event;
            event.tool = p.effective.as_ref().and_then(|e| e.tool.clone());
            call.event(event);
            self.deliver_answer(p, a.response, &mut call);
        }
        self.finish(call)
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

/// `result.isError` says the call failed (read without building the result's tree): `true`, and the
/// spellings a lenient client also takes for it (`"true"`, `1`): a result a client shows as a failure is
/// redacted as one (`"isError": "true"` skipped redaction).
fn is_error_result(result: &RawValue) -> bool {
    message::top_member(result, "isError")
        .is_some_and(|v| matches!(v, "true" | "1" | "\"true\"" | "\"True\"" | "\"1\""))
}

fn join_batch(slots: Vec<Option<String>>) -> String {
    let members: Vec<String> = slots.into_iter().flatten().collect();
    format!("[{}]", members.join(","))
}

#[cfg(test)]
mod tests;
