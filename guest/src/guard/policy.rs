//! What a session does with a policy file (`crate::policy`) beyond its defaults: redaction of the scopes it
//! names (successful tool results, resource contents, prompt messages, a tool call's arguments), and the
//! actions on what the rules find (block: the message is not passed on, its request gets the policy's
//! refusal; audit: logged, passed untouched). A message no rule touches passes byte for byte.

use super::outcome::{Event, EventName};
use crate::message::RequestParams;
use crate::policy::{Action, Effective, Scope};
use crate::redact::{self, JsonFinding, Secrets};
use serde_json::Value;

/// The name a `tools/call` names (`params.name`).
pub fn tool_name(method: &str, params: &RequestParams<'_>) -> Option<String> {
    if method != super::rewrite::TOOL_CALL {
        return None;
    }
    params.get("name").and_then(crate::message::string_value)
}

/// The scope a successful answer to `method` is in.
pub fn result_scope(method: &str) -> Option<Scope> {
    match method {
        "tools/call" => Some(Scope::Results),
        "resources/read" => Some(Scope::Resources),
        "prompts/get" => Some(Scope::Prompts),
        // An A2A agent's tasks (their artifacts, status messages) are its results.
        m if super::a2a::TASK_METHODS.contains(&m) => Some(Scope::Results),
        _ => None,
    }
}

/// The scope a message of the upstream's own (a request or notification) is in.
pub fn message_scope(method: &str) -> Option<Scope> {
    match method {
        "notifications/progress" => Some(Scope::Progress),
        "notifications/message" => Some(Scope::Logging),
        "elicitation/create" => Some(Scope::Elicitation),
        "sampling/createMessage" => Some(Scope::Sampling),
        _ => None,
    }
}

/// The texts of a message of the upstream's own, in its `params`, redacted under `effective` (`scope`, from
/// [`message_scope`]): what was found, and whether anything changed. Only the members that carry text for a
/// person or a model: an elicitation's schema keeps its shape (a field named `password` keeps its `type`), its
/// URL (a URL elicitation's link is the flow itself) and ids; a sampling request its model preferences.
pub fn redact_message(
    params: &mut Value,
    scope: Scope,
    effective: &Effective,
    env: &Secrets,
) -> (Vec<JsonFinding>, bool) {
    let mut texts: Vec<&mut Value> = Vec::new();
    let Some(members) = params.as_object_mut() else {
        return (Vec::new(), false);
    };
    for (name, value) in members.iter_mut() {
        match (scope, name.as_str()) {
            (Scope::Progress, "message")
            | (Scope::Logging, "data" | "logger")
            | (Scope::Elicitation, "message")
            | (Scope::Sampling, "messages" | "systemPrompt") => texts.push(value),
            (Scope::Elicitation, "requestedSchema") => {
                let fields = value
                    .get_mut("properties")
                    .and_then(Value::as_object_mut)
                    .into_iter()
                    .flat_map(|p| p.values_mut())
                    .filter_map(Value::as_object_mut);
                for field in fields {
                    for (k, v) in field.iter_mut() {
                        if matches!(k.as_str(), "title" | "description" | "default") {
                            texts.push(v);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    let mut changed = false;
    for text in texts {
        let (f, c) = redact_value(text, effective, env);
        found.extend(f);
        changed |= c;
    }
    (found, changed)
}

/// What the rules' findings decide under `effective`'s actions.
pub struct Decision {
    /// The first finding whose action is `block`: its rule.
    pub blocked: Option<String>,
    /// The rules found whose action is `audit`, each once.
    pub audited: Vec<String>,
    /// The rules redacted, each once.
    pub redacted: Vec<String>,
}

pub fn decide<'a>(
    effective: &Effective,
    findings: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Decision {
    let mut d = Decision {
        blocked: None,
        audited: Vec::new(),
        redacted: Vec::new(),
    };
    for (rule, category) in findings {
        let list = match effective.action(rule, category) {
            Action::Block => {
                d.blocked.get_or_insert_with(|| rule.to_string());
                continue;
            }
            Action::Audit => &mut d.audited,
            Action::Redact => &mut d.redacted,
        };
        if !list.iter().any(|r| r == rule) {
            list.push(rule.to_string());
        }
    }
    d
}

/// `value` redacted under `effective` (binary members left alone unless the policy scans them): what was
/// found, and whether the redacted value differs. Audited rules are found but not redacted.
pub fn redact_value(
    value: &mut Value,
    effective: &Effective,
    env: &Secrets,
) -> (Vec<JsonFinding>, bool) {
    let mut binary = Vec::new();
    super::rewrite::take_binary(value, &mut binary);
    let mut findings = redact_text_members(value, effective, env);
    if effective.binary {
        // Asked to: each binary member whose bytes are UTF-8 text (a `.env` read as a blob) is scanned as that
        // text and, if redacted, encoded again; other bytes (images, audio) pass untouched.
        for member in &mut binary {
            findings.extend(redact_blob(member.value_mut(), effective, env));
        }
    }
    super::rewrite::put_binary(value, binary);
    let changed = findings
        .iter()
        .any(|f| effective.action(&f.rule, &f.category) != Action::Audit);
    (findings, changed)
}

/// A base64 member decoded, redacted as text when it is text, and encoded again: what was found.
fn redact_blob(member: &mut Value, effective: &Effective, env: &Secrets) -> Vec<JsonFinding> {
    use base64::Engine as _;
    let engine = &base64::engine::general_purpose::STANDARD;
    let Some(text) = member
        .as_str()
        .and_then(|b64| engine.decode(b64.trim()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
    else {
        return Vec::new();
    };
    let mut decoded = Value::String(text);
    let findings = redact_text_members(&mut decoded, effective, env);
    if findings
        .iter()
        .any(|f| effective.action(&f.rule, &f.category) != Action::Audit)
    {
        if let Value::String(redacted) = decoded {
            *member = Value::String(engine.encode(redacted));
        }
    }
    findings
}

/// `value`'s text redacted under `effective` (its binary members already taken out).
fn redact_text_members(
    value: &mut Value,
    effective: &Effective,
    env: &Secrets,
) -> Vec<JsonFinding> {
    if effective.audits_any() {
        // Found under the whole policy (to log what is audited), redacted without the audited rules and
        // with what they found allowed (so no other rule takes it).
        let mut probe = value.clone();
        let all = redact::redact_value(&mut probe, env, &effective.redaction);
        let quiet = effective.quiet_allowing(audited_values(value, &all, effective));
        redact::redact_value(value, env, &quiet);
        all
    } else {
        redact::redact_value(value, env, &effective.redaction)
    }
}

/// The text each audited finding spans in `original` (found by its JSON pointer and byte span).
pub fn audited_values(
    original: &Value,
    findings: &[JsonFinding],
    effective: &Effective,
) -> Vec<String> {
    let mut values: Vec<String> = findings
        .iter()
        .filter(|f| !f.key && effective.action(&f.rule, &f.category) == Action::Audit)
        .filter_map(|f| {
            original
                .pointer(&f.path)?
                .as_str()?
                .get(f.start..f.end)
                .map(str::to_string)
        })
        .collect();
    crate::heap_sort::sort(&mut values);
    values.dedup();
    values
}

/// The log records of a decision (never a value: the rule and the tool only).
pub fn events(decision: &Decision, effective: &Effective, id: &Value, method: &str) -> Vec<Event> {
    let tool = effective.tool.clone().unwrap_or_else(|| method.to_string());
    let mut out = Vec::new();
    if let Some(rule) = &decision.blocked {
        let mut e = Event::new(EventName::Blocked, "warn")
            .id(id)
            .method(method)
            .detail(format!("blocked by the policy: {rule} found"));
        e.rule = Some(rule.clone());
        e.tool = Some(tool.clone());
        out.push(e);
    }
    for rule in &decision.audited {
        let mut e = Event::new(EventName::Audited, "info")
            .id(id)
            .method(method)
            .detail(format!(
                "audited by the policy: {rule} found, passed untouched"
            ));
        e.rule = Some(rule.clone());
        e.tool = Some(tool.clone());
        out.push(e);
    }
    out
}
