//! Sanitizing an upstream server's error response before a proxy passes it on.

use crate::context::CallContext;
use crate::error::{error_response, ErrorObject, InputError};
use crate::redact::{Redactor, Secrets};
use crate::render::{parse_input, render};
use crate::scrub;
use crate::taxonomy::Style;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Keys whose values are diagnostics for operators, never for clients (dropped from upstream `data`):
/// `[json] diagnostic_keys` in rules.toml, names compared normalised (`stack_trace`, `stack-trace` and
/// `stackTrace` are one key).
use crate::redact::json::is_diagnostic;

/// Drops diagnostic keys at any depth.
fn without_diagnostics(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(without_diagnostics).collect()),
        Value::Object(obj) => Value::Object(
            obj.iter()
                .filter(|(k, _)| !is_diagnostic(k))
                .map(|(k, v)| (k.clone(), without_diagnostics(v)))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

fn truncate_strings(value: &mut Value) {
    match value {
        Value::String(s) => {
            *s = scrub::truncate(s, crate::taxonomy::taxonomy().meta.truncate_bytes)
        }
        Value::Array(items) => items.iter_mut().for_each(truncate_strings),
        Value::Object(obj) => obj.values_mut().for_each(truncate_strings),
        _ => {}
    }
}

/// Upstream `data`: values under sensitive keys redacted whole, every other string scanned, diagnostics
/// dropped, every string truncated. Also returns what was found (rule, the secret as it stood in `value`).
fn scrub_data(value: &Value, env: &Secrets, redactor: &Redactor) -> (Value, Vec<(String, String)>) {
    let mut v = value.clone();
    let findings = crate::redact::redact_value(&mut v, env, redactor);
    let found = findings
        .into_iter()
        .filter(|f| !f.key)
        .filter_map(|f| {
            let text = match value.pointer(&f.path)? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((f.rule, text.get(f.start..f.end)?.to_string()))
        })
        .collect();
    let mut v = without_diagnostics(&v);
    truncate_strings(&mut v);
    (v, found)
}

/// The shortest run of a secret that is redacted where it spills into another field.
const FRAGMENT_BYTES: usize = 12;

/// Redacts, in `text`, every run of at least [`FRAGMENT_BYTES`] of a secret found elsewhere in the same error:
/// a server that cut its message in the middle of a token (the whole token in `data`, under a sensitive
/// name), or the other way round, leaves a part no rule recognises on its own.
fn without_fragments(text: &str, found: &[(String, String)]) -> Option<String> {
    let mut spans: Vec<(usize, usize, &str)> = Vec::new();
    for (rule, secret) in found.iter().filter(|(_, s)| s.len() >= FRAGMENT_BYTES) {
        for start in (0..=secret.len() - FRAGMENT_BYTES).filter(|&i| secret.is_char_boundary(i)) {
            let Some(window) = secret.get(start..start + FRAGMENT_BYTES) else {
                continue;
            };
            let mut from = 0;
            while let Some(at) = text[from..].find(window) {
                spans.push((from + at, from + at + FRAGMENT_BYTES, rule));
                from += at + 1;
                while !text.is_char_boundary(from) {
                    from += 1;
                }
            }
        }
    }
    if spans.is_empty() {
        return None;
    }
    crate::heap_sort::sort(&mut spans);
    let redactor = crate::redact::Redactor::default();
    let (mut out, mut at) = (String::with_capacity(text.len()), 0);
    let mut i = 0;
    while i < spans.len() {
        let (start, mut end, rule) = spans[i];
        while i + 1 < spans.len() && spans[i + 1].0 <= end {
            end = end.max(spans[i + 1].1);
            i += 1;
        }
        out.push_str(&text[at..start]);
        out.push_str(&redactor.replacement(rule, &text[start..end]));
        at = end;
        i += 1;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// [`without_fragments`] for every string in `value`.
fn value_without_fragments(value: &mut Value, found: &[(String, String)]) {
    match value {
        Value::String(s) => {
            if let Some(clean) = without_fragments(s, found) {
                *s = clean;
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| value_without_fragments(v, found)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| value_without_fragments(v, found)),
        _ => {}
    }
}

/// How a proxy wants an upstream error rewritten (the plain `sanitize` entry point: [`Target::standalone`]).
pub struct Target<'a> {
    pub dialect: &'a str,
    /// Whether the dialect's result-shaped renderings (MCP `isError` tool results, Error Model domain errors)
    /// may answer this request: only a `tools/call` can be answered with a tool result.
    pub results_allowed: bool,
    /// The id to answer with (a proxy echoes its client's id, not the upstream's spelling of it).
    pub id: Option<Value>,
    /// The correlation id to put where the dialect carries one (generated from the context when none).
    pub correlation_id: Option<String>,
    /// A result written in place of the error must carry `resultType` (the request's MCP revision requires it).
    pub result_type: bool,
    /// The redaction options (a guard's policy file's); none: the defaults.
    pub redaction: Option<Arc<Redactor>>,
}

impl<'a> Target<'a> {
    pub fn standalone(dialect: &'a str) -> Self {
        Target {
            dialect,
            results_allowed: true,
            id: None,
            correlation_id: None,
            result_type: false,
            redaction: None,
        }
    }
}

/// Sanitizes raw upstream bytes (invalid UTF-8 is repaired first).
///
/// - a success response passes through unchanged;
/// - a code a protocol owns (JSON-RPC's standard codes; the codes MCP's spec defines, reserves or retired:
///   `[meta.protocol]` in the taxonomy) keeps its code and the structure of its data, with the message and
///   every value scrubbed: the client acts on it (completes a URL elicitation, negotiates a version);
/// - any other code means something only in the upstream's own dialect, so it becomes `upstream-error` in the
///   target dialect when that dialect has one, else keeps its code with message and data scrubbed;
/// - anything that is not a JSON-RPC response is an error while handling an error: a plain -32603.
pub fn sanitize(
    raw: &[u8],
    dialect: &str,
    ctx: &CallContext,
    env: &Secrets,
) -> Result<Value, InputError> {
    if !crate::taxonomy::is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    let text = scrub::repair_utf8(raw);
    let Ok(Value::Object(response)) = serde_json::from_str::<Value>(&text) else {
        return Ok(error_response(&ErrorObject::internal(), Value::Null));
    };
    Ok(sanitize_response(
        &response,
        &Target::standalone(dialect),
        ctx,
        env,
    ))
}

/// [`sanitize`] for a response already parsed, answering for `target`.
pub fn sanitize_response(
    response: &Map<String, Value>,
    target: &Target<'_>,
    ctx: &CallContext,
    env: &Secrets,
) -> Value {
    sanitize_response_finding(response, target, ctx, env, None)
}

/// [`sanitize_response`], adding the rules whose findings were redacted to `found_rules` (a guard's
/// policy acts on them).
pub fn sanitize_response_finding(
    response: &Map<String, Value>,
    target: &Target<'_>,
    ctx: &CallContext,
    env: &Secrets,
    found_rules: Option<&mut Vec<String>>,
) -> Value {
    let dialect = target.dialect;
    let id = match (&target.id, response.get("id")) {
        (Some(id), _) => id.clone(),
        (None, Some(id @ (Value::String(_) | Value::Number(_)))) => id.clone(),
        _ => Value::Null,
    };
    let internal = |id: Value| error_response(&ErrorObject::internal(), id);
    if response.contains_key("result") && !response.contains_key("error") {
        return Value::Object(response.clone());
    }
    let Some(error) = response.get("error").and_then(Value::as_object) else {
        return internal(id);
    };
    let Some(code) = error.get("code").and_then(Value::as_i64) else {
        return internal(id);
    };
    let raw_message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let default_redactor;
    let redactor = match target.redaction.as_deref() {
        Some(p) => p,
        None => {
            default_redactor = Redactor::default();
            &default_redactor
        }
    };
    // What each field's redaction found is redacted from the other fields too (a token split between them).
    let in_message = crate::redact::redact_with(raw_message, env, redactor);
    let mut found: Vec<(String, String)> = in_message
        .findings
        .iter()
        .map(|f| (f.rule.clone(), raw_message[f.start..f.end].to_string()))
        .collect();
    let data = error.get("data").map(|d| {
        let (data, in_data) = scrub_data(d, env, redactor);
        found.extend(in_data);
        data
    });
    if let Some(rules) = found_rules {
        rules.extend(found.iter().map(|(rule, _)| rule.clone()));
    }
    let message = scrub::scrub_with(raw_message, env, redactor);
    let message = without_fragments(&message, &found).unwrap_or(message);

    let upstream_error = crate::taxonomy::taxonomy()
        .kind("upstream-error")
        .and_then(|k| k.dialect(dialect))
        .is_some_and(|entry| target.results_allowed || entry.style == Style::Error);
    if !crate::taxonomy::taxonomy().meta.protocol.owns(code) && upstream_error {
        let mut input = Map::new();
        input.insert("kind".into(), json!("upstream-error"));
        if i32::try_from(code).is_ok() {
            input.insert("code".into(), json!(code));
        }
        input.insert("message".into(), json!(message));
        input.insert("id".into(), id.clone());
        if let Some(c) = &target.correlation_id {
            input.insert("correlation_id".into(), json!(c));
        }
        let parsed = parse_input(&Value::Object(input), dialect);
        // Only a guard session learns a revision: without one (the npm base module) the code is left out.
        #[cfg(feature = "mcp-revisions")]
        let parsed = parsed.map(|mut p| {
            p.result_type = target.result_type;
            p
        });
        let parsed = parsed.map(|mut p| {
            p.redaction = target.redaction.clone();
            p
        });
        return match parsed.and_then(|p| render(&p, dialect, ctx, env)) {
            Ok(o) => o.into_value(),
            Err(_) => internal(id),
        };
    }
    let Ok(code) = i32::try_from(code) else {
        return internal(id);
    };
    let data = data.map(|mut d| {
        value_without_fragments(&mut d, &found);
        d
    });
    error_response(
        &ErrorObject {
            code,
            message,
            data,
        },
        id,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sanitized(response: Value) -> Value {
        let Value::Object(r) = response else {
            unreachable!()
        };
        sanitize_response(
            &r,
            &Target::standalone("canonical"),
            &CallContext::default(),
            Secrets::none(),
        )
    }

    #[test]
    fn a_token_split_between_message_and_data_is_redacted_in_both() {
        // The server cut its message mid-token (19 characters: too short for the GitHub rule alone); the whole
        // token is in data under a sensitive name.
        let token = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
        let r = sanitized(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": format!("bad token {}…", &token[..19]),
            "data": {"token": token, "hint": "regenerate it"}}}),
        );
        let text = r.to_string();
        assert!(!text.contains(&token[4..16]), "{text}");
        assert_eq!(r["error"]["data"]["hint"], "regenerate it");
        // And the other way round: the whole token in the message, a part of it in data.
        let r = sanitized(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": format!("bad token {token}"),
            "data": {"tail": &token[20..]}}}),
        );
        assert!(!r.to_string().contains(&token[20..32]), "{r}");
        // Ordinary words shared by both fields stay.
        let r = sanitized(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "the connection string is wrong", "data": {"why": "the connection string is wrong"}}}),
        );
        assert_eq!(r["error"]["data"]["why"], "the connection string is wrong");
    }
}
