//! The thin wit-bindgen export layer: converts WIT values to the shared [`crate::api`] calls and back.

wit_bindgen::generate!({
    path: "../wit",
    world: "jsonrpc-errors",
    additional_derives: [serde::Serialize, serde::Deserialize],
});

use crate::api;
use crate::context::CallContext;
use crate::error::ErrorObject;
use exports::jsonrpc_errors::core::api::Guest;
use exports::jsonrpc_errors::core::guard::{GuardOptions, RequestFailure, UpstreamFailure};
use exports::jsonrpc_errors::core::kinds::{Dialect, ErrorKind};
use exports::jsonrpc_errors::core::types::{
    BatchPolicy, CallContext as WitContext, CodesFormat, ErrorObject as WitErrorObject, Finding,
    InputProblem, KindInfo, Outcome, Redaction, RequestMeta, ValidateOptions,
};
use serde_json::{Map, Value};
use std::cell::RefCell;

struct Component;

fn ctx(c: WitContext) -> CallContext {
    CallContext {
        unix_millis: c.unix_millis,
        entropy: c.entropy,
    }
}

fn error_object(e: ErrorObject) -> WitErrorObject {
    WitErrorObject {
        code: e.code,
        message: e.message,
        data_json: e.data.map(|d| d.to_string()),
    }
}

fn outcome(r: Result<String, ErrorObject>) -> Outcome {
    match r {
        Ok(text) => Outcome::Ok(text),
        Err(e) => Outcome::Failed(error_object(e)),
    }
}

/// WIT enum/variant case names are UpperCamel in Rust; the taxonomy's names are kebab-case.
fn kebab(upper_camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in upper_camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The WIT dialect's name: both enums are generated from `[meta.dialects]` in its order (kinds.wit by
/// `cargo xtask gen`, `taxonomy::Dialect` by build.rs), so the case's index is the dialect's; every vector runs
/// through the component in each dialect, so a mismatch could not go unnoticed.
fn dialect_name(dialect: Dialect) -> &'static str {
    crate::taxonomy::Dialect::ALL[dialect as usize].name()
}

/// `log-level` → `LogLevel`: wit-bindgen's Rust name of a WIT case (what its serde derive reads).
fn upper_camel(kebab_name: &str) -> String {
    kebab_name
        .split('-')
        .map(|part| {
            let mut c = part.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn enum_from<T: serde::de::DeserializeOwned>(kebab_name: &str) -> Option<T> {
    serde_json::from_value(Value::String(upper_camel(kebab_name))).ok()
}

/// `ErrorKind::ToolNotExposed(ToolNotExposedFields { tool, source })` → `{"kind": "tool-not-exposed", "tool": …}`.
fn kind_to_input(kind: &ErrorKind, meta: RequestMeta) -> Result<Value, ErrorObject> {
    let mut obj = Map::new();
    match serde_json::to_value(kind) {
        Ok(Value::String(case)) => {
            obj.insert("kind".into(), Value::String(kebab(&case)));
        }
        Ok(Value::Object(wrapper)) => {
            for (case, fields) in wrapper {
                obj.insert("kind".into(), Value::String(kebab(&case)));
                if let Value::Object(fields) = fields {
                    obj.extend(fields);
                }
            }
        }
        _ => return Err(ErrorObject::internal()),
    }
    if let Some(id) = meta.id_json {
        let id: Value = serde_json::from_str(&id)
            .map_err(|e| crate::error::InputError::NotJson(e.to_string()).to_error_object())?;
        obj.insert("id".into(), id);
    }
    if let Some(c) = meta.correlation_id {
        obj.insert("correlation_id".into(), Value::String(c));
    }
    if let Some(t) = meta.timestamp {
        obj.insert("timestamp".into(), Value::String(t));
    }
    if let Some(text) = meta.dialect_fields_json {
        let not_object = || {
            crate::error::InputError::NotJson("dialect-fields-json must be a JSON object".into())
                .to_error_object()
        };
        match serde_json::from_str::<Value>(&text) {
            // Beside the kind's own fields (which the typed record already holds): a name given in both is
            // the kind's, as in the JSON form where a kind's field takes precedence.
            Ok(Value::Object(generic)) => {
                for (k, v) in generic {
                    obj.entry(k).or_insert(v);
                }
            }
            Ok(_) => return Err(not_object()),
            Err(e) => {
                return Err(crate::error::InputError::NotJson(e.to_string()).to_error_object())
            }
        }
    }
    Ok(Value::Object(obj))
}

impl Guest for Component {
    fn set_environment(env: Vec<(String, String)>) -> u32 {
        crate::set_environment(&env) as u32
    }

    fn map_error(kind: ErrorKind, meta: RequestMeta, dialect: Dialect, c: WitContext) -> Outcome {
        outcome(
            kind_to_input(&kind, meta)
                .and_then(|input| api::map_error_value(&input, dialect_name(dialect), &ctx(c))),
        )
    }

    fn map_error_json(input: String, dialect: Dialect, c: WitContext) -> Outcome {
        outcome(api::map_error(&input, dialect_name(dialect), &ctx(c)))
    }

    fn validate(raw: Vec<u8>, options: ValidateOptions, c: WitContext) -> Outcome {
        let args = api::ValidateArgs::from_wit(&options, dialect_name(options.dialect));
        outcome(api::validate(&raw, &args, &ctx(c)))
    }

    fn sanitize(raw: Vec<u8>, dialect: Dialect, c: WitContext) -> Outcome {
        outcome(api::sanitize(&raw, dialect_name(dialect), &ctx(c)))
    }

    fn validate_text(text: String, options: ValidateOptions, c: WitContext) -> Outcome {
        Self::validate(text.into_bytes(), options, c)
    }

    fn sanitize_text(text: String, dialect: Dialect, c: WitContext) -> Outcome {
        outcome(api::sanitize(
            text.as_bytes(),
            dialect_name(dialect),
            &ctx(c),
        ))
    }

    fn redact(text: String) -> Redaction {
        let r = api::redact(&text);
        Redaction {
            text: r.text,
            findings: r
                .findings
                .into_iter()
                .map(|f| Finding {
                    rule: f.rule,
                    category: f.category,
                    start: f.start as u32,
                    end: f.end as u32,
                })
                .collect(),
        }
    }

    fn redact_json(text: String) -> String {
        api::redact_json(&text)
    }

    fn redact_with(text: String, options_json: String) -> Outcome {
        outcome(api::redact_with(&text, &options_json))
    }

    fn redact_json_value(json: String, options_json: String) -> Outcome {
        outcome(api::redact_json_value(&json, &options_json))
    }

    fn explain(dialect: Dialect, code: i64) -> Outcome {
        outcome(api::explain(dialect_name(dialect), code))
    }

    fn lookup_kind(
        dialect: Dialect,
        code: i64,
        message: Option<String>,
        data_json: Option<String>,
    ) -> Outcome {
        outcome(
            api::lookup_kind(
                dialect_name(dialect),
                code,
                message.as_deref(),
                data_json.as_deref(),
            )
            .map(|kind| serde_json::to_string(&kind).unwrap_or_else(|_| "null".to_string())),
        )
    }

    fn kinds() -> Vec<KindInfo> {
        crate::taxonomy::taxonomy()
            .kinds
            .iter()
            .filter_map(|k| {
                Some(KindInfo {
                    name: k.name.clone(),
                    summary: k.summary.clone(),
                    category: enum_from(&k.category)?,
                    gate: match &k.gate {
                        Some(g) => Some(enum_from(g)?),
                        None => None,
                    },
                    retryable: k.retryable,
                    retry_hint: k.retry_hint.clone(),
                    http_status: k.http_status,
                    log_level: enum_from(&k.log_level)?,
                    canonical_code: k.dialect("canonical")?.code?,
                    message: k.message.clone(),
                })
            })
            .collect()
    }

    fn kinds_json() -> String {
        api::kinds_json()
    }

    fn codes(dialect: Option<Dialect>, format: CodesFormat) -> String {
        let format = match format {
            CodesFormat::Markdown => "markdown",
            CodesFormat::Json => "json",
        };
        let dialect = dialect.map(dialect_name);
        api::codes(dialect, format).unwrap_or_else(|e| api::failure_json(&e))
    }

    fn refusal(problem: InputProblem) -> WitErrorObject {
        error_object(api::refusal(match &problem {
            InputProblem::UnknownDialect(name) => api::Refusal::UnknownDialect(name),
            InputProblem::NotUnicode(at) => api::Refusal::NotUnicode(*at),
            InputProblem::TooLarge(len) => api::Refusal::TooLarge(*len),
            InputProblem::UnknownFormat(name) => api::Refusal::UnknownFormat(name),
        }))
    }

    fn max_input_bytes() -> u64 {
        api::max_input_bytes()
    }
}

/// A guard session behind the resource handle (the component model hands methods `&self`; one instance is
/// single-threaded, so a `RefCell` is all the mutability needs).
struct GuardSession(RefCell<crate::guard::Session>);

impl exports::jsonrpc_errors::core::guard::Guest for Component {
    type Session = GuardSession;

    fn check_policy(text: String, env: Vec<(String, String)>) -> Outcome {
        outcome(api::check_policy(&text, &env))
    }
}

impl exports::jsonrpc_errors::core::guard::GuestSession for GuardSession {
    fn new(options: GuardOptions) -> Self {
        let batch = match options.batch {
            BatchPolicy::Reject => "reject",
            BatchPolicy::Allow => "allow",
        };
        // The dialect is a WIT enum and the batch policy one of two names: opening cannot fail.
        let upstream = options.upstream.clone();
        let args = api::SessionArgs {
            dialect: dialect_name(options.dialect).to_string(),
            max_bytes: options.max_bytes,
            batch: batch.to_string(),
            timeout_ms: options.timeout_ms,
            upstream: options.upstream,
            failed_result_bytes: options.failed_result_bytes,
            max_upstream_bytes: options.max_upstream_bytes,
            policy: options.policy,
            policy_env: options.policy_env,
            environment: options.environment,
            upstream_credentials: options.upstream_credentials,
            many_clients: options.many_clients,
        };
        let session = api::guard_session(args).unwrap_or_else(|_| {
            crate::guard::Session::new(crate::guard::Options::new("canonical", &upstream))
        });
        GuardSession(RefCell::new(session))
    }

    fn settings(&self) -> String {
        self.0.borrow().settings()
    }

    fn client_line(&self, line: Vec<u8>, c: WitContext) -> String {
        self.0.borrow_mut().client_line(&line, ctx(c)).to_json()
    }

    fn set_policy(&self, text: String, env: Vec<(String, String)>) -> Outcome {
        match self.0.borrow_mut().set_policy(&text, &env) {
            Ok(()) => Outcome::Ok("{}".into()),
            Err(e) => Outcome::Failed(error_object(api::policy_error(&e))),
        }
    }

    fn client_line_on(&self, stream: u64, line: Vec<u8>, c: WitContext) -> String {
        self.0
            .borrow_mut()
            .client_line_on(stream, &line, ctx(c))
            .to_json()
    }

    fn stream_closed(&self, stream: u64, c: WitContext) -> String {
        self.0.borrow_mut().stream_closed(stream, ctx(c)).to_json()
    }

    fn client_oversize(&self, length: u64, head: Vec<u8>, tail: Vec<u8>, c: WitContext) -> String {
        self.0
            .borrow_mut()
            .client_oversize(length, &head, &tail, ctx(c))
            .to_json()
    }

    fn upstream_line(&self, line: Vec<u8>, c: WitContext) -> String {
        self.0.borrow_mut().upstream_line(&line, ctx(c)).to_json()
    }

    fn upstream_oversize(
        &self,
        length: u64,
        head: Vec<u8>,
        tail: Vec<u8>,
        c: WitContext,
    ) -> String {
        self.0
            .borrow_mut()
            .upstream_oversize(length, &head, &tail, ctx(c))
            .to_json()
    }

    fn upstream_failed(&self, failure: UpstreamFailure, c: WitContext) -> String {
        let failure = match failure {
            UpstreamFailure::SpawnFailed(reason) => crate::guard::Failure::SpawnFailed(reason),
            UpstreamFailure::Exited(status) => crate::guard::Failure::Exited(status),
            UpstreamFailure::Killed(signal) => crate::guard::Failure::Killed(signal),
            UpstreamFailure::ClosedOutput => crate::guard::Failure::ClosedOutput,
        };
        self.0
            .borrow_mut()
            .upstream_failed(failure, ctx(c))
            .to_json()
    }

    fn upstream_request_failed(
        &self,
        id: String,
        failure: RequestFailure,
        c: WitContext,
    ) -> String {
        let failure = match failure {
            RequestFailure::Unreachable(reason) => {
                crate::guard::RequestFailure::Unreachable(reason)
            }
            RequestFailure::Refused(r) => crate::guard::RequestFailure::Refused {
                status: r.status,
                retry_after_secs: r.retry_after_secs,
            },
            RequestFailure::SessionGone => crate::guard::RequestFailure::SessionGone,
        };
        self.0
            .borrow_mut()
            .upstream_request_failed(&id, failure, ctx(c))
            .to_json()
    }

    fn upstream_exchange_ended(&self, id: String, c: WitContext) -> String {
        self.0
            .borrow_mut()
            .upstream_exchange_ended(&id, ctx(c))
            .to_json()
    }

    fn expire(&self, c: WitContext) -> String {
        self.0.borrow_mut().expire(ctx(c)).to_json()
    }

    fn upstream_stderr(&self, bytes: Vec<u8>) -> String {
        self.0.borrow_mut().upstream_stderr(&bytes, false)
    }

    fn upstream_stderr_end(&self) -> String {
        self.0.borrow_mut().upstream_stderr(&[], true)
    }

    fn upstream_log(&self, text: String) -> String {
        self.0.borrow_mut().upstream_log(&text)
    }
}

export!(Component);
