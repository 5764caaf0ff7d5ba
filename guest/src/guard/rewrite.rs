//! What a guard writes that it did not receive: the errors it answers with, upstream error responses
//! sanitized into the dialect, and `isError` tool results with their text redacted.

use super::steps::{self, Event, EventName};
use crate::context::CallContext;
use crate::error::{error_response, ErrorObject};
use crate::ordered::Fields;
use crate::redact::{self, Policy, Secrets};
use crate::render::{render, ErrorInput};
use crate::sanitize::{sanitize_response, Target};
use crate::scrub;
use crate::taxonomy::{taxonomy, Style};
use serde_json::{Map, Value};

/// The method whose requests a dialect may answer with a result-shaped error (MCP `isError` tool results,
/// Error Model domain errors): only a tool call has a result that can say "this failed".
pub const TOOL_CALL: &str = "tools/call";

/// Longest internal detail kept in an event.
const DETAIL_BYTES: usize = 2048;

/// The operator's log keeps stack traces and paths (they are what an operator debugs with) but never a
/// secret: tokens, credentials, personal data and the environment's secret values are redacted.
pub fn operator_policy() -> Policy {
    Policy::disabling(&["stacktrace", "path"])
}

/// Text for the operator's log: redacted under [`operator_policy`], cut to a bounded size.
pub fn for_operator(text: &str, env: &Secrets) -> String {
    scrub::truncate(&redact::redact_with(text, env, &operator_policy()).text, DETAIL_BYTES)
}

/// Whether results written under `revision` (when known) must carry `resultType`.
#[cfg(feature = "mcp-revisions")]
fn requires_result_type(revision: Option<&str>) -> bool {
    revision.is_some_and(|v| taxonomy().meta.protocol.requires_result_type(v))
}

/// Without the feature (the npm base module, which has no guard session) no revision is ever known.
#[cfg(not(feature = "mcp-revisions"))]
fn requires_result_type(_revision: Option<&str>) -> bool {
    false
}

/// An error the guard answers with: the response text and the event that reports it.
pub struct Answer {
    pub response: String,
    pub event: Event,
}

/// Renders `kind` (with `fields`) as the response to a request, in the dialect.
///
/// A kind the dialect defines only as a result (MCP's `isError` tool results, the Error Model's domain
/// errors) while the request is not a tool call is answered as the canonical dialect's error for it: its
/// codes sit in MCP's implementation range and reuse none MCP owns (a taxonomy test holds them there), and
/// they match what the MCP SDKs themselves answer (-32001 a timeout, -32000 a connection gone), so a client
/// still sees a retryable timeout rather than a bare internal error. A kind the dialect does not define at
/// all is answered with the dialect's `internal-error` (every dialect has one): a well-formed error in its
/// own code space; the operator's event still names what happened.
#[allow(clippy::too_many_arguments)]
pub fn answer(
    dialect: &str,
    kind: &str,
    fields: Fields,
    id: Value,
    method: Option<&str>,
    revision: Option<&str>,
    detail: String,
    ctx: &CallContext,
    env: &Secrets,
) -> Answer {
    let t = taxonomy();
    let happened = t.kind(kind).expect("the guard answers with kinds of the taxonomy");
    let entry = happened.dialect(dialect);
    let fits = entry.is_some_and(|entry| entry.style == Style::Error || method == Some(TOOL_CALL));
    let (dialect, rendered_kind, fields) = match (fits, entry) {
        (true, _) => (dialect, happened, fields),
        (false, Some(_)) => ("canonical", happened, fields),
        (false, None) => (dialect, t.kind("internal-error").expect("internal-error is in the taxonomy"), Fields::new()),
    };
    let correlation_id = ctx.correlation_id();
    let input = ErrorInput {
        kind: rendered_kind,
        fields,
        id: id.clone(),
        correlation_id: Some(correlation_id.clone()),
        timestamp: None,
        result_type: requires_result_type(revision),
        generic: Fields::new(),
    };
    let response = match render(&input, dialect, ctx, env) {
        Ok(obj) => obj.into_value(),
        Err(_) => error_response(&ErrorObject::internal(), id.clone()),
    };
    let code = response.pointer("/error/code").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
    let response = response.to_string();
    let mut event = Event::new(EventName::Answered, &happened.log_level).id(&id).detail(for_operator(&detail, env));
    event.kind = Some(happened.name.clone());
    event.code = code;
    event.category = Some(happened.category.clone());
    event.gate = happened.gate.clone();
    event.correlation_id = response.contains(&correlation_id).then_some(correlation_id);
    event.method = method.map(steps::quoted);
    Answer { response, event }
}

/// An upstream error response (well-formed, parsed), sanitized and mapped for the client's request.
#[allow(clippy::too_many_arguments)]
pub fn sanitized_error(
    response: &Map<String, Value>,
    dialect: &str,
    id: &Value,
    method: Option<&str>,
    revision: Option<&str>,
    ctx: &CallContext,
    env: &Secrets,
) -> Answer {
    let correlation_id = ctx.correlation_id();
    let target = Target {
        dialect,
        results_allowed: method == Some(TOOL_CALL),
        id: Some(id.clone()),
        correlation_id: Some(correlation_id.clone()),
        result_type: requires_result_type(revision),
    };
    let rewritten = sanitize_response(response, &target, ctx, env);
    let code = rewritten.pointer("/error/code").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
    let error = response.get("error");
    let upstream_code = error.and_then(|e| e.get("code")).map(Value::to_string).unwrap_or_default();
    let upstream_message = error.and_then(|e| e.get("message")).and_then(Value::as_str).unwrap_or("");
    let mut detail = format!("upstream error {upstream_code}: {upstream_message}");
    if let Some(data) = error.and_then(|e| e.get("data")) {
        detail.push_str("; data: ");
        detail.push_str(&data.to_string());
    }
    let text = rewritten.to_string();
    let kind = taxonomy().kind("upstream-error").expect("upstream-error is in the taxonomy");
    let mut event = Event::new(EventName::Sanitized, &kind.log_level).id(id).detail(for_operator(&detail, env));
    event.method = method.map(steps::quoted);
    event.kind = Some(kind.name.clone());
    event.code = code;
    event.category = Some(kind.category.clone());
    event.correlation_id = text.contains(&correlation_id).then_some(correlation_id);
    Answer { response: text, event }
}

/// Scrubs (redacts and cuts) one string of a failed tool result; records the rules that fired.
fn scrub_text(text: &mut String, env: &Secrets, rules: &mut Vec<String>, cut: &mut bool) -> bool {
    let redacted = redact::redact_with(text, env, &Policy::default());
    for f in redacted.findings {
        if !rules.contains(&f.rule) {
            rules.push(f.rule);
        }
    }
    let limit = taxonomy().meta.truncate_bytes;
    *cut |= redacted.text.len() > limit;
    let scrubbed = scrub::truncate(&redacted.text, limit);
    if scrubbed == *text {
        return false;
    }
    *text = scrubbed;
    true
}

/// Every string inside `value`, scrubbed.
fn scrub_all(value: &mut Value, env: &Secrets, rules: &mut Vec<String>, cut: &mut bool) -> bool {
    match value {
        Value::String(s) => scrub_text(s, env, rules, cut),
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| scrub_all(v, env, rules, cut) | changed),
        Value::Object(map) => map.values_mut().fold(false, |changed, v| scrub_all(v, env, rules, cut) | changed),
        _ => false,
    }
}

/// A tool result with `isError: true`: its text reaches the model, so the text content (and embedded
/// resource text), and every string of `structuredContent`, are scrubbed like an error message. Returns the
/// rewritten response, or `None` when nothing needed to change (the line is then forwarded untouched).
pub fn redacted_tool_error(response: &mut Map<String, Value>, id: &Value, method: &str, env: &Secrets) -> Option<(String, Event)> {
    let result = response.get_mut("result")?.as_object_mut()?;
    let mut rules = Vec::new();
    let mut cut = false;
    let mut changed = false;
    if let Some(Value::Array(content)) = result.get_mut("content") {
        for item in content.iter_mut().filter_map(Value::as_object_mut) {
            let kind = item.get("type").and_then(Value::as_str).unwrap_or("").to_string();
            let text = match kind.as_str() {
                "text" => item.get_mut("text"),
                "resource" => item.get_mut("resource").and_then(|r| r.get_mut("text")),
                _ => None,
            };
            if let Some(Value::String(text)) = text {
                changed |= scrub_text(text, env, &mut rules, &mut cut);
            }
        }
    }
    if let Some(structured) = result.get_mut("structuredContent") {
        changed |= scrub_all(structured, env, &mut rules, &mut cut);
    }
    if !changed {
        return None;
    }
    response.insert("id".into(), id.clone());
    let mut detail = String::new();
    if !rules.is_empty() {
        detail.push_str("redacted: ");
        detail.push_str(&rules.join(", "));
    }
    if cut {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str(&format!("text cut to {} bytes", taxonomy().meta.truncate_bytes));
    }
    let event = Event::new(EventName::Redacted, "warn").id(id).method(method).detail(detail);
    Some((Value::Object(std::mem::take(response)).to_string(), event))
}
