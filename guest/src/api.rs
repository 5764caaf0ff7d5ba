//! The boundary shared by every runtime: the component exports, the wasm-bindgen exports and the native
//! host all call these functions, so their outputs are byte-identical by construction.

use crate::context::CallContext;
use crate::error::{ErrorObject, InputError};
use crate::validation::{self, BatchPolicy};
use crate::{guard, lookup, redact, render, sanitize};
use serde_json::Value;

fn to_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    // A response is a few hundred bytes: one allocation up front instead of growing from serde_json's 128.
    let mut out = Vec::with_capacity(384);
    match serde_json::to_writer(&mut out, value) {
        // serde_json writes valid UTF-8 only.
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        // Serializing values built from valid strings and numbers cannot fail.
        Err(_) => crate::error::error_response(&ErrorObject::internal(), Value::Null).to_string(),
    }
}

fn fail(e: InputError) -> ErrorObject {
    e.to_error_object()
}

/// `map`: `{kind, id?, correlation_id?, timestamp?, ...fields}` (or an array: first gate error wins) → response.
pub fn map_error(input: &str, dialect: &str, ctx: &CallContext) -> Result<String, ErrorObject> {
    let env = crate::environment();
    render::map_json(input, dialect, ctx, &env)
        .map(|v| to_text(&v))
        .map_err(fail)
}

/// `map` from an already-parsed value (the typed component export uses this).
pub fn map_error_value(
    input: &Value,
    dialect: &str,
    ctx: &CallContext,
) -> Result<String, ErrorObject> {
    let env = crate::environment();
    render::map_value(input, dialect, ctx, &env)
        .map(|v| to_text(&v))
        .map_err(fail)
}

/// `validate`'s options as the runtimes pass them (`validate-options` in the WIT, generated).
pub use crate::validate_args::ValidateArgs;

/// `validate`: raw request bytes → the verdict or the error response (always one JSON document).
pub fn validate(
    raw: &[u8],
    args: &ValidateArgs<'_>,
    ctx: &CallContext,
) -> Result<String, ErrorObject> {
    let batch = BatchPolicy::parse(args.batch).ok_or_else(|| {
        ErrorObject::invalid_params(
            "unknown-batch-policy",
            "batch policy must be \"reject\" or \"allow\"",
        )
    })?;
    if !crate::taxonomy::is_dialect(args.dialect) {
        return Err(fail(InputError::UnknownDialect(args.dialect.to_string())));
    }
    let env = crate::environment();
    Ok(to_text(&validation::validate(raw, args, batch, ctx, &env)))
}

/// `validate` with its options as JSON text (`validate-options`, snake_case keys), as the npm module's glue
/// passes them: one argument whatever fields the record has.
pub fn validate_with_json(
    raw: &[u8],
    options_json: &str,
    ctx: &CallContext,
) -> Result<String, ErrorObject> {
    let options = serde_json::from_str(options_json).unwrap_or(Value::Null);
    validate(raw, &ValidateArgs::from_json(&options)?, ctx)
}

/// `sanitize`: an upstream error response (raw bytes) → the response safe to pass on.
pub fn sanitize(raw: &[u8], dialect: &str, ctx: &CallContext) -> Result<String, ErrorObject> {
    let env = crate::environment();
    sanitize::sanitize(raw, dialect, ctx, &env)
        .map(|v| to_text(&v))
        .map_err(fail)
}

/// `redact`: text → redacted text and findings.
pub fn redact(text: &str) -> redact::Redacted {
    redact::redact_with(text, &crate::environment(), &redact::Redactor::default())
}

/// `redact` as one JSON document `{text, findings:[{rule, category, start, end}]}`.
pub fn redact_json(text: &str) -> String {
    serde_json::to_string(&redact(text)).unwrap_or_default()
}

fn redaction_options_error(e: redact::OptionsError) -> ErrorObject {
    ErrorObject::invalid_params("invalid-redaction-options", &e.to_string())
}

/// `redact` under caller options (JSON: `method`, `hash_key`, `disable`, `extra_rules`, `allowlist`):
/// `{text, findings}`.
pub fn redact_with(text: &str, options_json: &str) -> Result<String, ErrorObject> {
    let redactor = redact::Redactor::from_json(options_json).map_err(redaction_options_error)?;
    let r = redact::redact_with(text, &crate::environment(), &redactor);
    Ok(serde_json::to_string(&r).unwrap_or_default())
}

/// JSON-aware redaction of a JSON document: `{value, findings:[{rule, category, path, start, end}]}`; values
/// under sensitive keys go whole, every other string is scanned. Options as for [`redact_with`], plus
/// `sensitive_keys`.
pub fn redact_json_value(json_text: &str, options_json: &str) -> Result<String, ErrorObject> {
    let redactor = redact::Redactor::from_json(options_json).map_err(redaction_options_error)?;
    let mut value: Value =
        serde_json::from_str(json_text).map_err(|e| fail(InputError::NotJson(e.to_string())))?;
    let findings = redact::redact_value(&mut value, &crate::environment(), &redactor);
    #[derive(serde::Serialize)]
    struct Redacted<'a> {
        value: &'a Value,
        findings: &'a [redact::JsonFinding],
    }
    Ok(to_text(&Redacted {
        value: &value,
        findings: &findings,
    }))
}

/// `explain CODE`: every kind that a dialect renders with this code.
pub fn explain(dialect: &str, code: i64) -> Result<String, ErrorObject> {
    lookup::explain(dialect, code)
        .map(|v| to_text(&v))
        .map_err(fail)
}

/// Reverse lookup; `data_json` is the error's `data` (optional), used to tell shared codes apart.
pub fn lookup_kind(
    dialect: &str,
    code: i64,
    message: Option<&str>,
    data_json: Option<&str>,
) -> Result<Option<String>, ErrorObject> {
    let data = match data_json {
        Some(text) => Some(
            serde_json::from_str::<Value>(text)
                .map_err(|e| fail(InputError::NotJson(e.to_string())))?,
        ),
        None => None,
    };
    lookup::lookup_kind(dialect, code, message, data.as_ref())
        .map(|k| k.map(str::to_string))
        .map_err(fail)
}

/// The taxonomy table as JSON: `[{kind, code, message, summary, category, gate, retryable, retry_hint,
/// http_status, log_level, fields: [{name, type, required}]}]` (canonical codes and messages).
pub fn kinds_json() -> String {
    to_text(&lookup::kinds())
}

/// `codes`: the code table, `format` "markdown" or "json"; `dialect` None for all of them.
pub fn codes(dialect: Option<&str>, format: &str) -> Result<String, ErrorObject> {
    match format {
        "markdown" => lookup::codes_markdown(dialect).map_err(fail),
        "json" => lookup::codes_json(dialect)
            .map(|v| to_text(&v))
            .map_err(fail),
        other => Err(fail(InputError::UnknownFormat(other.to_string()))),
    }
}

pub use crate::guard::args::SessionArgs;

/// Checks a policy file (`jsonrpc-errors guard --check-config`, and every shell before it opens a session):
/// its defaults as JSON (`policy::compiled::defaults_json`), or -32602 with `data.reason` "invalid-policy",
/// `data.line`, `data.column` and `data.details`.
pub fn check_policy(text: &str, env: &[(String, String)]) -> Result<String, ErrorObject> {
    match crate::policy::Compiled::new(text, env) {
        Ok(c) => Ok(crate::policy::compiled::defaults_json(&c.document)),
        Err(e) => Err(policy_error(&e)),
    }
}

/// The error object of a refused policy file.
pub fn policy_error(e: &crate::policy::DocumentError) -> ErrorObject {
    let mut data = serde_json::Map::new();
    data.insert("reason".into(), "invalid-policy".into());
    if let Some((line, column)) = e.at {
        data.insert("line".into(), line.into());
        data.insert("column".into(), column.into());
    }
    data.insert(
        "details".into(),
        crate::scrub::scrub(&e.message, &crate::environment()).into(),
    );
    ErrorObject::of_kind("invalid-params", Some(serde_json::Value::Object(data)))
}

/// Opens a guard session (see [`crate::guard`]); an unknown dialect or batch policy is refused.
pub fn guard_session(args: SessionArgs) -> Result<guard::Session, ErrorObject> {
    // A policy file that is refused does not refuse the session: it answers every request with the
    // configuration error (fail closed) and logs why. Shells call `check_policy` first to refuse it at start.
    let SessionArgs {
        dialect,
        max_bytes,
        batch,
        timeout_ms,
        upstream,
        failed_result_bytes,
        max_upstream_bytes,
        policy,
        policy_env,
        environment,
        upstream_credentials,
        many_clients,
    } = args;
    // Every option resolves here, once for every shell: the caller's option, else the policy file's
    // `[defaults]`, else the built-in default (`guard::Options::new`); the session reports the result
    // (`Session::settings`). A document that cannot be read sets nothing (the session refuses every request).
    let defaults = policy
        .as_deref()
        .and_then(|text| crate::policy::document::parse(text).ok())
        .map(|d| d.defaults)
        .unwrap_or_default();
    let dialect = dialect
        .or(defaults.dialect)
        .unwrap_or_else(|| guard::DEFAULT_DIALECT.into());
    let batch = match batch.or(defaults.batch) {
        None => BatchPolicy::Reject,
        Some(name) => BatchPolicy::parse(&name).ok_or_else(|| {
            ErrorObject::invalid_params(
                "unknown-batch-policy",
                "batch policy must be \"reject\" or \"allow\"",
            )
        })?,
    };
    if !crate::taxonomy::is_dialect(&dialect) {
        return Err(fail(InputError::UnknownDialect(dialect)));
    }
    let mut options = guard::Options::new(&dialect, &upstream);
    let settings = &mut options.settings;
    if let Some(n) = max_bytes.or(defaults.max_bytes) {
        settings.max_bytes = n;
    }
    settings.batch = batch;
    // 0 (from the caller or the file) is "no limit"; `seconds_to_ms` reads the file's 0 as none.
    let from_file = || {
        defaults
            .timeout
            .map(|s| crate::policy::compiled::seconds_to_ms(s).unwrap_or(0))
    };
    let timeout_ms = timeout_ms
        .or_else(from_file)
        .unwrap_or(guard::DEFAULT_TIMEOUT_MILLIS);
    settings.timeout_ms = (timeout_ms > 0).then_some(timeout_ms);
    if let Some(n) = failed_result_bytes.or(defaults.failed_result_bytes) {
        // Room for the cut's marker at least: a limit smaller than it could not hold the text it announces.
        settings.failed_result_bytes = n.max(64);
    }
    if let Some(n) = max_upstream_bytes.or(defaults.max_upstream_bytes) {
        settings.max_upstream_bytes = n;
    }
    options.policy = policy;
    options.policy_env = policy_env;
    options.environment = environment;
    options.upstream_credentials = upstream_credentials.unwrap_or_default();
    options.many_clients = many_clients.unwrap_or(false);
    Ok(guard::Session::new(options))
}

/// Why a runtime refuses an input before making the call it was meant for. The guest words every refusal,
/// so every runtime answers the same bad input with the same error object.
pub enum Refusal<'a> {
    /// A dialect name outside the dialect enum (the typed boundary cannot carry it).
    UnknownDialect(&'a str),
    /// Text that is not valid Unicode (undecodable bytes, a lone surrogate): where it stops being valid.
    NotUnicode(u64),
    /// An input longer than [`max_input_bytes`]: its length, in bytes.
    TooLarge(u64),
    /// A code-table format other than "markdown" and "json" (the typed boundary cannot carry it).
    UnknownFormat(&'a str),
}

/// The error object for a refused input.
pub fn refusal(problem: Refusal<'_>) -> ErrorObject {
    fail(match problem {
        Refusal::UnknownDialect(name) => InputError::UnknownDialect(name.to_string()),
        Refusal::NotUnicode(at) => InputError::NotUnicode(at),
        Refusal::TooLarge(len) => InputError::TooLarge {
            len,
            limit: max_input_bytes(),
        },
        Refusal::UnknownFormat(name) => InputError::UnknownFormat(name.to_string()),
    })
}

/// The largest input, in bytes, any function takes: runtimes refuse longer ones without copying them in.
pub fn max_input_bytes() -> u64 {
    crate::taxonomy::taxonomy().meta.max_input_bytes
}

/// The failure as the JSON text every binding raises or returns.
pub fn error_json(e: &ErrorObject) -> String {
    to_text(&e.to_value())
}
