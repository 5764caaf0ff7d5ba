//! What a guard writes that it did not receive: the errors it answers with, upstream error responses
//! sanitized into the dialect, and `isError` tool results with their text redacted.

use super::oplog::{for_operator, operator_redactor};
use super::outcome::{Event, EventName};
use super::steps;
use crate::context::CallContext;
use crate::error::{error_response, ErrorObject};
use crate::ordered::Fields;
use crate::redact::{self, JsonFinding, Redactor, Secrets};
use crate::render::{render, ErrorInput};
use crate::sanitize::{sanitize_response_finding, Target};
use crate::scrub;
use crate::taxonomy::{taxonomy, Style};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The method whose requests a dialect may answer with a result-shaped error (MCP `isError` tool results,
/// Error Model domain errors): only a tool call has a result that can say "this failed".
pub const TOOL_CALL: &str = "tools/call";

/// Whether results written under `revision` (when known) must carry `resultType`.
#[cfg(feature = "mcp-revisions")]
pub fn requires_result_type(revision: Option<&str>) -> bool {
    revision.is_some_and(|v| taxonomy().meta.protocol.requires_result_type(v))
}

/// Without the feature (the npm base module, which has no guard session) no revision is ever known.
#[cfg(not(feature = "mcp-revisions"))]
pub fn requires_result_type(_revision: Option<&str>) -> bool {
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
    let happened = t
        .kind(kind)
        .expect("the guard answers with kinds of the taxonomy");
    let entry = happened.dialect(dialect);
    let fits = entry.is_some_and(|entry| entry.style == Style::Error || method == Some(TOOL_CALL));
    let (dialect, rendered_kind, fields) = match (fits, entry) {
        (true, _) => (dialect, happened, fields),
        (false, Some(_)) => ("canonical", happened, fields),
        (false, None) => (
            dialect,
            t.kind("internal-error")
                .expect("internal-error is in the taxonomy"),
            Fields::new(),
        ),
    };
    let correlation_id = ctx.correlation_id();
    let input = ErrorInput {
        kind: rendered_kind,
        fields,
        id: id.clone(),
        correlation_id: Some(correlation_id.clone()),
        timestamp: None,
        result_type: requires_result_type(revision),
        redaction: None,
        generic: Fields::new(),
    };
    let response = match render(&input, dialect, ctx, env) {
        Ok(obj) => obj.into_value(),
        Err(_) => error_response(&ErrorObject::internal(), id.clone()),
    };
    let code = response
        .pointer("/error/code")
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok());
    let response = response.to_string();
    let mut event = Event::new(EventName::Answered, &happened.log_level)
        .id(&id)
        .detail(for_operator(&detail, env));
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
    redaction: Option<Arc<Redactor>>,
    found_rules: Option<&mut Vec<String>>,
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
        redaction,
    };
    let rewritten = sanitize_response_finding(response, &target, ctx, env, found_rules);
    let code = rewritten
        .pointer("/error/code")
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok());
    let error = response.get("error");
    let upstream_code = error
        .and_then(|e| e.get("code"))
        .map(Value::to_string)
        .unwrap_or_default();
    let upstream_message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut detail = format!("upstream error {upstream_code}: {upstream_message}");
    if let Some(data) = error.and_then(|e| e.get("data")) {
        // Redacted as JSON first (values under sensitive names whole: a cookie, a session, credentials.pass,
        // environ.DATABASE_PASS), then as text with the rest of the detail: the operator's log printed them
        // where the client was spared them.
        let mut data = data.clone();
        redact::redact_value(&mut data, env, &operator_redactor());
        detail.push_str("; data: ");
        detail.push_str(&data.to_string());
    }
    let text = rewritten.to_string();
    let kind = taxonomy()
        .kind("upstream-error")
        .expect("upstream-error is in the taxonomy");
    let mut event = Event::new(EventName::Sanitized, &kind.log_level)
        .id(id)
        .detail(for_operator(&detail, env));
    event.method = method.map(steps::quoted);
    event.kind = Some(kind.name.clone());
    event.code = code;
    event.category = Some(kind.category.clone());
    event.correlation_id = text.contains(&correlation_id).then_some(correlation_id);
    Answer {
        response: text,
        event,
    }
}

/// A binary member taken out by [`take_binary`]: its place (at each level the index of an array item or of an
/// object member, members counted in their order) and its value.
pub(super) struct TakenBinary {
    place: Vec<usize>,
    value: Value,
}

impl TakenBinary {
    pub(super) fn value_mut(&mut self) -> &mut Value {
        &mut self.value
    }
}

/// Whether a member named `key` holds bytes (in an object whose `type` is `image` or `audio` when `media`).
fn binary_member(key: &str, media: bool) -> bool {
    key == "blob" || (media && key == "data")
}

/// A failed tool result's binary members (base64 images, audio, blobs), taken out while the rest is redacted
/// and put back after, each by its place: never scanned (megabytes of base64 find only noise, slowly) nor
/// cut. A member named `blob`, and `data` beside `"type": "image"` or `"audio"`. Each slot is left `null`.
pub(super) fn take_binary(value: &mut Value, taken: &mut Vec<TakenBinary>) {
    take_binary_at(value, &mut Vec::new(), taken);
}

fn take_binary_at(value: &mut Value, place: &mut Vec<usize>, taken: &mut Vec<TakenBinary>) {
    match value {
        Value::Object(map) => {
            let media = matches!(
                map.get("type").and_then(Value::as_str),
                Some("image" | "audio")
            );
            for (i, (key, child)) in map.iter_mut().enumerate() {
                take_child(i, binary_member(key, media), child, place, taken);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                take_child(i, false, child, place, taken);
            }
        }
        _ => {}
    }
}

/// The `i`th child of a value at `place`: taken whole when it is a binary member, else searched.
fn take_child(
    i: usize,
    binary: bool,
    child: &mut Value,
    place: &mut Vec<usize>,
    taken: &mut Vec<TakenBinary>,
) {
    place.push(i);
    if binary {
        taken.push(TakenBinary {
            place: place.clone(),
            value: std::mem::take(child),
        });
    } else {
        take_binary_at(child, place, taken);
    }
    place.pop();
}

/// Puts back what [`take_binary`] took, each member where it was taken from, only when its place still leads
/// to its emptied slot. Redaction renames members but never moves them; it may replace a whole value (a
/// `stack`, a value under a sensitive name), and a member taken from inside such a value goes with it: never
/// written anywhere else, where it would corrupt another member and carry bytes out of what was redacted.
pub(super) fn put_binary(value: &mut Value, taken: Vec<TakenBinary>) {
    for member in taken {
        if let Some(slot) = emptied_slot(value, &member.place) {
            *slot = member.value;
        }
    }
}

/// The slot at `place` if it is still the emptied member's: every value on the way is still a container (none
/// was redacted whole) and the member there still holds `null` (a member keeps its index when renamed).
fn emptied_slot<'v>(mut value: &'v mut Value, place: &[usize]) -> Option<&'v mut Value> {
    let (last, within) = place.split_last()?;
    for &i in within {
        value = match value {
            Value::Object(map) => map.values_mut().nth(i)?,
            Value::Array(items) => items.get_mut(i)?,
            _ => return None,
        };
    }
    let slot = value.as_object_mut()?.values_mut().nth(*last)?;
    slot.is_null().then_some(slot)
}

/// Cuts every string longer than `limit`, keeping its start and its end (where a server often writes what
/// the model should do next, as the fetch server does after quoting a robots.txt) around a marker that says
/// how much went. Whether anything was cut.
fn cut_long_texts(value: &mut Value, limit: usize) -> bool {
    match value {
        Value::String(s) if s.len() > limit => {
            *s = scrub::cut_middle(s, limit);
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |cut, v| cut_long_texts(v, limit) | cut),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |cut, v| cut_long_texts(v, limit) | cut),
        _ => false,
    }
}

/// A tool result with `isError` set: all of it reaches the model or the client, so all of it is redacted as
/// JSON is (values under sensitive names whole, every other string and number scanned): the text content,
/// a resource link's `uri`, embedded resources, `structuredContent`, `_meta`, `annotations`, a `text` that is
/// not a string; binary members are left alone. Texts longer than `text_limit` are cut, start and end kept.
/// Returns the rewritten response, or `None` when nothing needed to change (the line is then forwarded
/// untouched).
#[allow(clippy::too_many_arguments)]
pub fn redacted_tool_error(
    response: &mut Map<String, Value>,
    id: &Value,
    method: &str,
    env: &Secrets,
    redactor: &Redactor,
    text_limit: Option<usize>,
    found: &mut Vec<JsonFinding>,
) -> Option<(String, Event)> {
    let result = response.get_mut("result").filter(|r| r.is_object())?;
    let mut binary = Vec::new();
    take_binary(result, &mut binary);
    let findings = redact::redact_value(result, env, redactor);
    found.extend(findings.iter().cloned());
    let cut = text_limit.is_some_and(|limit| cut_long_texts(result, limit));
    put_binary(result, binary);
    if findings.is_empty() && !cut {
        return None;
    }
    let mut rules: Vec<&str> = Vec::new();
    for f in &findings {
        if !rules.contains(&f.rule.as_str()) {
            rules.push(&f.rule);
        }
    }
    let mut detail = String::new();
    if !rules.is_empty() {
        detail.push_str("redacted: ");
        detail.push_str(&rules.join(", "));
    }
    if cut {
        if !detail.is_empty() {
            detail.push_str("; ");
        }
        detail.push_str(&format!(
            "text cut to {} bytes, start and end kept",
            text_limit.unwrap_or_default()
        ));
    }
    response.insert("id".into(), id.clone());
    let event = Event::new(EventName::Redacted, "warn")
        .id(id)
        .method(method)
        .detail(detail);
    Some((Value::Object(std::mem::take(response)).to_string(), event))
}
