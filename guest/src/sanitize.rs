//! Sanitizing an upstream server's error response before a proxy passes it on.

use crate::redact::Secrets;
use crate::context::CallContext;
use crate::error::{error_response, ErrorObject, InputError};
use crate::render::{parse_input, render};
use crate::scrub;
use serde_json::{json, Map, Value};

/// Keys whose values are diagnostics for operators, never for clients (dropped from upstream `data`).
const DIAGNOSTIC_KEYS: [&str; 10] = [
    "stack", "stacktrace", "stack_trace", "traceback", "backtrace", "trace", "exception", "env", "environment",
    "cause",
];

fn is_standard(code: i64) -> bool {
    matches!(code, -32700 | -32600 | -32601 | -32602 | -32603)
}

/// Drops diagnostic keys at any depth.
fn without_diagnostics(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(without_diagnostics).collect()),
        Value::Object(obj) => Value::Object(
            obj.iter()
                .filter(|(k, _)| !DIAGNOSTIC_KEYS.contains(&k.to_ascii_lowercase().as_str()))
                .map(|(k, v)| (k.clone(), without_diagnostics(v)))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

fn truncate_strings(value: &mut Value) {
    match value {
        Value::String(s) => *s = scrub::truncate(s, crate::taxonomy::taxonomy().meta.truncate_bytes),
        Value::Array(items) => items.iter_mut().for_each(truncate_strings),
        Value::Object(obj) => obj.values_mut().for_each(truncate_strings),
        _ => {}
    }
}

/// Upstream `data`: diagnostics dropped, values under sensitive keys redacted whole, every other string
/// scanned, every string truncated.
fn scrub_data(value: &Value, env: &Secrets) -> Value {
    let mut v = without_diagnostics(value);
    crate::redact::redact_value(&mut v, env, &crate::redact::Policy::default());
    truncate_strings(&mut v);
    v
}

/// Sanitizes raw upstream bytes (invalid UTF-8 is repaired first).
///
/// - a success response passes through unchanged;
/// - a standard code (-32700, -32600..-32603) keeps its code, with the message and data scrubbed;
/// - any other code means something only in the upstream's own dialect, so it becomes `upstream-error` in the
///   target dialect when that dialect has one, else keeps its code with message and data scrubbed;
/// - anything that is not a JSON-RPC response is an error while handling an error: a plain -32603.
pub fn sanitize(raw: &[u8], dialect: &str, ctx: &CallContext, env: &Secrets) -> Result<Value, InputError> {
    if !crate::taxonomy::is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    let text = scrub::repair_utf8(raw);
    let internal = |id: Value| error_response(&ErrorObject::internal(), id);
    let Ok(Value::Object(response)) = serde_json::from_str::<Value>(&text) else {
        return Ok(internal(Value::Null));
    };
    let id = match response.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if response.contains_key("result") && !response.contains_key("error") {
        return Ok(Value::Object(response));
    }
    let Some(error) = response.get("error").and_then(Value::as_object) else {
        return Ok(internal(id));
    };
    let Some(code) = error.get("code").and_then(Value::as_i64) else {
        return Ok(internal(id));
    };
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let message = scrub::scrub(message, env);

    let dialect_has_upstream_error = crate::taxonomy::taxonomy()
        .kind("upstream-error")
        .is_some_and(|k| k.dialect(dialect).is_some());
    if !is_standard(code) && dialect_has_upstream_error {
        let input = json!({ "kind": "upstream-error", "code": code, "message": message, "id": id });
        let parsed = match i32::try_from(code) {
            Ok(_) => parse_input(&input),
            Err(_) => parse_input(&json!({ "kind": "upstream-error", "message": message, "id": id })),
        };
        return Ok(match parsed.and_then(|p| render(&p, dialect, ctx, env)).map(|o| o.into_value()) {
            Ok(v) => v,
            Err(_) => internal(id),
        });
    }
    let Ok(code) = i32::try_from(code) else {
        return Ok(internal(id));
    };
    let data = error.get("data").map(|d| scrub_data(d, env));
    Ok(error_response(&ErrorObject { code, message, data }, id))
}
