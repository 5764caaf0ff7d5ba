//! Mapping: a kind with its fields → the JSON-RPC response a dialect expects.

use crate::context::CallContext;
use crate::error::InputError;
use crate::message::RawObject;
use crate::ordered::{Fields, InputDoc, Obj};
use crate::redact::{Redactor, Secrets};
use crate::scrub;
use crate::taxonomy::{is_dialect, taxonomy, Dialect, FieldType, Kind, Style};
use serde_json::value::RawValue;
use serde_json::Value;

/// Keys of the map input that are not the kind's own fields.
const ENVELOPE_KEYS: [&str; 4] = ["kind", "id", "correlation_id", "timestamp"];

/// One validated map input.
#[derive(Debug)]
pub struct ErrorInput<'a> {
    pub kind: &'a Kind,
    pub fields: Fields,
    pub id: Value,
    pub correlation_id: Option<String>,
    pub timestamp: Option<String>,
    /// A result the dialect renders (a tool result, a domain error) must say `"resultType": "complete"`: the
    /// MCP revision the request was made under requires it (2026-07-28 on). Only a guard knows the revision;
    /// not part of the map input.
    pub result_type: bool,
    /// The redactor the texts are scrubbed under (a guard's policy file); none: the defaults.
    pub redaction: Option<std::sync::Arc<Redactor>>,
    /// The target dialect's generic fields the caller gave (see `meta.dialect_fields`).
    pub generic: Fields,
}

fn check_id(id: &Value) -> Result<(), InputError> {
    match id {
        Value::String(_) | Value::Number(_) | Value::Null => Ok(()),
        _ => Err(InputError::InvalidId),
    }
}

fn optional_string(obj: &Fields, key: &'static str) -> Result<Option<String>, InputError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(InputError::NotAString(key)),
    }
}

fn check_field_type(
    kind: &Kind,
    name: &str,
    ty: FieldType,
    value: &Value,
) -> Result<(), InputError> {
    let ok = match ty {
        FieldType::String => value.is_string(),
        FieldType::U64 => value.as_u64().is_some(),
        FieldType::S32 => value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        FieldType::Bool => value.is_boolean(),
        FieldType::StringList => value
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string)),
        FieldType::Object => value.is_object(),
    };
    if ok {
        Ok(())
    } else {
        Err(InputError::FieldType {
            kind: kind.name.clone(),
            field: name.to_string(),
            expected: match ty {
                FieldType::String => "a string",
                FieldType::U64 => "a non-negative integer",
                FieldType::S32 => "a 32-bit integer",
                FieldType::Bool => "a boolean",
                FieldType::StringList => "an array of strings",
                FieldType::Object => "an object",
            },
        })
    }
}

/// Validates one `{kind, id?, correlation_id?, timestamp?, ...fields}` object against the taxonomy.
/// A map input for `dialect` (whose generic fields it may carry).
pub fn parse_input(value: &Value, dialect: &str) -> Result<ErrorInput<'static>, InputError> {
    match InputDoc::from_value(value) {
        InputDoc::One(obj) => parse_fields(obj, dialect),
        _ => Err(InputError::NotObject),
    }
}

/// [`parse_input`] for an object already read into its key/value pairs.
pub fn parse_fields(obj: Fields, dialect: &str) -> Result<ErrorInput<'static>, InputError> {
    let name = obj
        .get("kind")
        .and_then(Value::as_str)
        .ok_or(InputError::MissingKind)?;
    let kind = taxonomy()
        .kind(name)
        .ok_or_else(|| InputError::UnknownKind(name.to_string()))?;
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    check_id(&id)?;
    let correlation_id = optional_string(&obj, "correlation_id")?;
    let timestamp = optional_string(&obj, "timestamp")?;
    let mut fields = Fields::with_capacity(kind.fields.len());
    let mut generic = Fields::new();
    let dialect_fields = taxonomy().meta.generic_fields(dialect);
    // The input's pairs are moved, not copied: its keys are already unique (see `InputDoc`).
    for (key, value) in obj.into_pairs() {
        if ENVELOPE_KEYS.contains(&key.as_str()) {
            continue;
        }
        // A kind's own field first; then the dialect's generic fields; anything else is refused by name.
        let (field, target) = match kind.field(&key) {
            Some(f) => (f, &mut fields),
            None => match dialect_fields.iter().find(|f| f.name == key) {
                Some(f) => (f, &mut generic),
                None => {
                    let elsewhere = taxonomy()
                        .meta
                        .dialect_fields
                        .iter()
                        .filter(|(_, fields)| fields.iter().any(|f| f.name == key))
                        .map(|(d, _)| d.clone())
                        .collect();
                    return Err(InputError::UnknownField {
                        kind: kind.name.clone(),
                        field: key,
                        elsewhere,
                    });
                }
            },
        };
        if value.is_null() && !field.required {
            continue;
        }
        check_field_type(kind, &key, field.ty, &value)?;
        target.push_unique(key, value);
    }
    for field in kind.fields.iter().filter(|f| f.required) {
        if !fields.contains_key(&field.name) {
            return Err(InputError::MissingField {
                kind: kind.name.clone(),
                field: field.name.clone(),
            });
        }
    }
    if kind.name == "invalid-request" {
        if let Some(reason) = fields.get("reason").and_then(Value::as_str) {
            if !taxonomy()
                .meta
                .invalid_request_reasons
                .iter()
                .any(|r| r == reason)
            {
                return Err(InputError::UnknownReason(reason.to_string()));
            }
        }
    }
    Ok(ErrorInput {
        kind,
        fields,
        id,
        correlation_id,
        timestamp,
        result_type: false,
        redaction: None,
        generic,
    })
}

/// Several errors for one request (e.g. several gates failed): the first gate in gate order wins;
/// with no gate error among them, the first error wins.
pub fn choose_first_gate<'a>(inputs: Vec<ErrorInput<'a>>) -> Option<ErrorInput<'a>> {
    let t = taxonomy();
    let best_gate = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.kind.gate.as_deref().map(|g| (t.gate_rank(g), i)))
        .min()
        .map(|(_, i)| i)
        .unwrap_or(0);
    inputs.into_iter().nth(best_gate)
}

fn display_into(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                display_into(out, item);
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Fills `{field}` / `{field|filter}` placeholders. `None` when a referenced field is absent.
pub fn fill(template: &str, fields: &Fields) -> Option<String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}')?;
        let spec = &rest[open + 1..close];
        let (name, filter) = match spec.split_once('|') {
            Some((n, f)) => (n, Some(f)),
            None => (spec, None),
        };
        let value = fields.get(name)?;
        match filter {
            Some("strip_auth") => {
                let mut plain = String::new();
                display_into(&mut plain, value);
                out.push_str(&scrub::strip_auth(&plain));
            }
            _ => display_into(&mut out, value),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// A field value scrubbed for the client: strings redacted and truncated, lists item by item, an object's
/// keys and values alike (a caller's `context` may name a secret in a key). The depth is bounded by the JSON
/// reader's recursion limit (128), which every map input passes through.
fn scrub_value(value: &Value, env: &Secrets, redactor: &Redactor) -> Value {
    match value {
        Value::String(s) => Value::String(scrub::scrub_with(s, env, redactor)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| scrub_value(v, env, redactor))
                .collect(),
        ),
        Value::Object(members) => {
            let mut out = serde_json::Map::new();
            for (k, v) in members {
                // Two keys equal once scrubbed keep the later value (as any JSON object would).
                out.insert(
                    scrub::scrub_with(k, env, redactor),
                    scrub_value(v, env, redactor),
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            // Field names are snake_case ASCII (checked by build.rs): no Unicode case tables needed.
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Renders a validated input in a dialect. Every string that reaches the output has been scrubbed.
pub fn render<'a>(
    input: &ErrorInput<'a>,
    dialect: &str,
    ctx: &CallContext,
    env: &Secrets,
) -> Result<Obj<'a>, InputError> {
    let Some(which) = Dialect::from_name(dialect) else {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    };
    let kind = input.kind;
    let entry = kind
        .dialect(dialect)
        .ok_or_else(|| InputError::NotInDialect {
            kind: kind.name.clone(),
            dialect: dialect.to_string(),
        })?;
    let fields = &input.fields;
    let message = fill(entry.message.as_deref().unwrap_or(&kind.message), fields)
        .unwrap_or_else(|| kind.message.clone());
    // The caller's redactor (a guard's policy file), else the defaults.
    let default_redactor;
    let redactor = match input.redaction.as_deref() {
        Some(p) => p,
        None => {
            default_redactor = Redactor::default();
            &default_redactor
        }
    };
    let message = scrub::scrub_owned_with(message, env, redactor);
    let generic = |name: &str| {
        input
            .generic
            .get(name)
            .map(|v| scrub_value(v, env, redactor))
    };
    // A dialect's generic `details` (Watchgate) is the caller's own text for it: it replaces the template's.
    let details = match input.generic.get("details").and_then(Value::as_str) {
        Some(d) => Some(scrub::scrub_with(d, env, redactor)),
        None => entry
            .details
            .as_deref()
            .or(kind.details.as_deref())
            .and_then(|t| fill(t, fields))
            .map(|d| scrub::scrub_owned_with(d, env, redactor)),
    };
    let retryable = fields
        .get("retryable")
        .and_then(Value::as_bool)
        .unwrap_or(kind.retryable);
    let public: Vec<(&str, Value)> = kind
        .public
        .iter()
        .filter_map(|p| {
            fields
                .get(p)
                .map(|v| (p.as_str(), scrub_value(v, env, redactor)))
        })
        .collect();
    // The caller's correlation id and timestamp are echoed, so they are scrubbed like every field: a token
    // pasted into one must not reach the client (found by fuzzing).
    let correlation_id = || match &input.correlation_id {
        Some(c) => scrub::scrub_with(c, env, redactor),
        None => ctx.correlation_id(),
    };

    // Only a guard session learns a revision: without one (the npm base module) the code is left out.
    let result_type = cfg!(feature = "mcp-revisions") && input.result_type;
    let mut response = Obj::with_capacity(3);
    response.push("jsonrpc", "2.0");
    match entry.style {
        Style::ToolResult => {
            let text = match &details {
                Some(d) => format!("{message}: {d}"),
                None => message,
            };
            let mut content = serde_json::Map::new();
            content.insert("type".into(), Value::from("text"));
            content.insert("text".into(), Value::String(text));
            let mut result = Obj::with_capacity(3);
            result.push("content", Value::Array(vec![Value::Object(content)]));
            result.push("isError", true);
            if result_type {
                result.push("resultType", "complete");
            }
            response.push("result", result);
        }
        Style::Domain => {
            let mut detail_obj = Obj::new();
            let mut context = Obj::new();
            for (name, value) in public {
                match name {
                    "field" | "original_error" | "reason" => {
                        detail_obj.put(camel_case(name), value)
                    }
                    _ => context.put(camel_case(name), value),
                }
            }
            // The Error Model's generic details: where the kind has no field of that name, the caller's.
            for name in ["field", "reason"] {
                if let Some(v) = generic(name).filter(|_| !detail_obj.contains_key(name)) {
                    detail_obj.put(name, v);
                }
            }
            match generic("suggestion") {
                Some(v) => detail_obj.put("suggestion", v),
                None => detail_obj.put("suggestion", kind.retry_hint.as_str()),
            }
            if let Some(Value::Object(members)) = generic("context") {
                for (k, v) in members {
                    if !context.contains_key(&k) {
                        context.put(k, v);
                    }
                }
            }
            if !context.is_empty() {
                detail_obj.put("context", context);
            }
            let code = entry
                .code
                .expect("domain entries carry a code (taxonomy test)");
            let mut error = Obj::with_capacity(4);
            error.push("code", code);
            error.push("message", message);
            error.push("retryable", retryable);
            error.push("details", detail_obj);
            let mut result = Obj::with_capacity(2);
            result.push("error", error);
            if result_type {
                result.push("resultType", "complete");
            }
            response.push("result", result);
        }
        Style::Error => {
            let code = entry
                .code
                .expect("error entries carry a code (taxonomy test)");
            let mut error = Obj::with_capacity(3);
            error.push("code", code);
            error.push("message", message);
            let timestamp = || match &input.timestamp {
                Some(t) => scrub::scrub_with(t, env, redactor),
                None => ctx.timestamp(),
            };
            let data = error_data(
                which,
                kind,
                public,
                details,
                retryable,
                &correlation_id,
                &timestamp,
                &generic,
            );
            if !data.is_empty() {
                error.push("data", data);
            }
            response.push("error", error);
        }
    }
    response.push("id", input.id.clone());
    Ok(response)
}

/// `error.data` as each dialect shapes it (empty: no `data`).
#[allow(clippy::too_many_arguments)]
fn error_data<'a>(
    dialect: Dialect,
    kind: &'a Kind,
    public: Vec<(&'a str, Value)>,
    details: Option<String>,
    retryable: bool,
    correlation_id: &dyn Fn() -> String,
    timestamp: &dyn Fn() -> String,
    generic: &dyn Fn(&str) -> Option<Value>,
) -> Obj<'a> {
    let mut data = Obj::new();
    match dialect {
        Dialect::Canonical => {
            data.push("type", kind.name.as_str());
            data.push("category", kind.category.as_str());
            data.push("retryable", retryable);
            data.push("correlation_id", correlation_id());
            if let Some(g) = &kind.gate {
                data.put("gate", g.as_str());
            }
            for (name, value) in public {
                data.put(name, value);
            }
            if let Some(d) = details {
                data.put("details", d);
            }
        }
        Dialect::Thoughtgate => {
            // ErrorData population rules (REQ-CORE-004 6.3): gate for gate errors, tool when tied to a tool call,
            // details only where the table allows them; policy ids, reasons and sources never appear.
            data.put("correlation_id", correlation_id());
            if let Some(g) = &kind.gate {
                data.put("gate", g.as_str());
            }
            if let Some((_, tool)) = public.into_iter().find(|(n, _)| *n == "tool") {
                data.put("tool", tool);
            }
            if let Some(d) = details {
                data.put("details", d);
            }
        }
        Dialect::Watchgate => {
            if let Some(d) = details {
                data.put("details", d);
            }
            match generic("request_id") {
                Some(id) => data.put("request_id", id),
                None => data.put("request_id", correlation_id()),
            }
            let ts = timestamp();
            data.put("timestamp", ts);
        }
        Dialect::Duet => {
            for (name, value) in public {
                data.put(name, value);
            }
        }
        Dialect::ErrorModel => {
            // Protocol validation failures carry the offending field (Error Model, "Mapping to JSON-RPC").
            if let Some((_, field)) = public
                .into_iter()
                .find(|(n, _)| *n == "param" || *n == "field")
            {
                data.put("field", field);
            }
            // Its generic details {field, reason, suggestion, context}, where the caller gave them.
            for name in ["field", "reason", "suggestion", "context"] {
                if let Some(v) = generic(name).filter(|_| !data.contains_key(name)) {
                    data.put(name, v);
                }
            }
        }
        // These send no data with an error object: VAPORA tells its domain errors apart by message, MCP and A2A
        // define codes only.
        Dialect::Vapora | Dialect::Mcp | Dialect::A2a => {}
    }
    data
}

fn choose(doc: InputDoc, dialect: &str) -> Result<ErrorInput<'static>, InputError> {
    match doc {
        InputDoc::Many(items) if !items.is_empty() => {
            let parsed = items
                .into_iter()
                .map(|item| match item {
                    InputDoc::One(fields) => parse_fields(fields, dialect),
                    _ => Err(InputError::NotObject),
                })
                .collect::<Result<Vec<_>, _>>()?;
            choose_first_gate(parsed).ok_or(InputError::NotObject)
        }
        InputDoc::One(fields) => parse_fields(fields, dialect),
        _ => Err(InputError::NotObject),
    }
}

/// A map input read from text: objects through the one raw-member reader every object goes through (see
/// `message::RawObject`), each member then parsed into a value. A repeated name keeps the last value, in the
/// first one's place (as serde_json's `Map` does).
fn input_doc(text: &str) -> Result<InputDoc, InputError> {
    let not_json = |e: serde_json::Error| InputError::NotJson(e.to_string());
    match text.bytes().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => {
            let members: RawObject = serde_json::from_str(text).map_err(not_json)?;
            let mut fields = Fields::with_capacity(members.0.len());
            for (key, raw) in members.0 {
                fields.insert(
                    key.into_owned(),
                    serde_json::from_str::<Value>(raw.get()).map_err(not_json)?,
                );
            }
            Ok(InputDoc::One(fields))
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(text).map_err(not_json)?;
            items
                .into_iter()
                .map(|raw| input_doc(raw.get()))
                .collect::<Result<_, _>>()
                .map(InputDoc::Many)
        }
        _ => serde_json::from_str::<&RawValue>(text)
            .map(|_| InputDoc::Other)
            .map_err(not_json),
    }
}

/// The `map` entry point: JSON text in (one input object or an array of them), JSON-RPC response out.
pub fn map_json(
    input: &str,
    dialect: &str,
    ctx: &CallContext,
    env: &Secrets,
) -> Result<Obj<'static>, InputError> {
    if !is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    let doc = input_doc(input)?;
    render(&choose(doc, dialect)?, dialect, ctx, env)
}

pub fn map_value(
    value: &Value,
    dialect: &str,
    ctx: &CallContext,
    env: &Secrets,
) -> Result<Obj<'static>, InputError> {
    if !is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    render(
        &choose(InputDoc::from_value(value), dialect)?,
        dialect,
        ctx,
        env,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    fn map(input: Value, dialect: &str) -> Value {
        map_value(
            &input,
            dialect,
            &CallContext {
                unix_millis: 1_700_000_000_000,
                entropy: 7,
            },
            Secrets::none(),
        )
        .unwrap()
        .into_value()
    }

    #[test]
    fn input_docs_parse_like_values() {
        let InputDoc::One(f) = input_doc(r#"{"kind":"a","n":1.50,"kind":"b"}"#).unwrap() else {
            panic!("an object")
        };
        assert_eq!(f.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["kind", "n"]);
        assert_eq!(f.get("kind"), Some(&json!("b")));
        assert_eq!(f.get("n").unwrap().to_string(), "1.50");
        assert!(matches!(input_doc("[{}, 3]").unwrap(), InputDoc::Many(v) if v.len() == 2));
        for other in ["3", "1e400", "\"s\"", "null", "true"] {
            assert!(
                matches!(input_doc(other).unwrap(), InputDoc::Other),
                "{other}"
            );
        }
    }

    #[test]
    fn thoughtgate_messages_and_data_follow_the_document() {
        let r = map(
            json!({"kind": "tool-not-exposed", "tool": "admin_delete", "source": "upstream", "id": 1, "correlation_id": "abc-123"}),
            "thoughtgate",
        );
        assert_eq!(
            r,
            json!({"jsonrpc": "2.0", "error": {"code": -32015, "message": "Tool 'admin_delete' is not available",
                "data": {"correlation_id": "abc-123", "gate": "visibility", "tool": "admin_delete"}}, "id": 1})
        );
        let r = map(
            json!({"kind": "policy-denied", "tool": "transfer_funds", "policy_id": "financial", "reason": "forbid rule 7"}),
            "thoughtgate",
        );
        let text = r.to_string();
        assert!(
            !text.contains("financial") && !text.contains("forbid rule"),
            "{text}"
        );
        assert_eq!(r["error"]["code"], json!(-32003));
    }

    #[test]
    fn every_kind_renders_in_every_dialect_that_defines_it() {
        for kind in &taxonomy().kinds {
            for dialect in kind.dialects.keys() {
                let mut input = Map::new();
                input.insert("kind".into(), json!(kind.name));
                for f in kind.fields.iter().filter(|f| f.required) {
                    let v = match f.ty {
                        FieldType::String => json!("x"),
                        FieldType::U64 => json!(5),
                        FieldType::S32 => json!(-1),
                        FieldType::Bool => json!(true),
                        FieldType::StringList => json!(["a"]),
                        FieldType::Object => json!({"a": 1}),
                    };
                    input.insert(f.name.clone(), v);
                }
                let r = map(Value::Object(input), dialect);
                assert_eq!(r["jsonrpc"], "2.0", "{} {dialect}", kind.name);
            }
        }
    }

    #[test]
    fn message_templates_only_use_required_fields() {
        for kind in &taxonomy().kinds {
            for dialect in kind.dialects.keys() {
                let mut required = Fields::new();
                for f in kind.fields.iter().filter(|f| f.required) {
                    required.insert(f.name.as_str(), json!("v"));
                }
                assert!(
                    fill(kind.message_in(dialect), &required).is_some(),
                    "{} {dialect}",
                    kind.name
                );
            }
        }
    }

    #[test]
    fn first_gate_error_wins() {
        let r = map(
            json!([
                {"kind": "upstream-timeout", "timeout_secs": 3},
                {"kind": "approval-rejected", "tool": "t"},
                {"kind": "governance-rule-denied", "tool": "t"}
            ]),
            "canonical",
        );
        assert_eq!(r["error"]["data"]["type"], "governance-rule-denied");
    }

    #[test]
    fn watchgate_generic_fields_reach_every_kind() {
        let r = map(
            json!({"kind": "rate-limited", "retry_after_secs": 3, "details": "slow down", "request_id": "req_123", "id": 1}),
            "watchgate",
        );
        assert_eq!(
            r["error"]["data"],
            json!({"details": "slow down", "request_id": "req_123", "timestamp": "2023-11-14T22:13:20Z"})
        );
        // Without them: the kind's own details text and a generated request id, as before.
        let r = map(
            json!({"kind": "rate-limited", "retry_after_secs": 3}),
            "watchgate",
        );
        assert_eq!(r["error"]["data"]["details"], json!("Retry after 3s"));
        assert!(r["error"]["data"]["request_id"]
            .as_str()
            .is_some_and(|id| id != "req_123"));
    }

    #[test]
    fn error_model_generic_details_reach_every_kind_and_the_kinds_own_fields_win() {
        let r = map(
            json!({"kind": "rate-limited", "retry_after_secs": 3, "suggestion": "Wait for the quota window.", "reason": "quota",
                   "field": "calls", "context": {"retryAfterSecs": 99, "region": "eu"}}),
            "error-model",
        );
        assert_eq!(
            r["result"]["error"]["details"],
            json!({"field": "calls", "reason": "quota", "suggestion": "Wait for the quota window.", "context": {"retryAfterSecs": 3, "region": "eu"}})
        );
        // A kind whose own field is `field` keeps it; protocol errors (error objects) carry them in data.
        let r = map(
            json!({"kind": "validation-error", "field": "order.email", "suggestion": "Send an address."}),
            "error-model",
        );
        assert_eq!(
            r["result"]["error"]["details"],
            json!({"field": "order.email", "suggestion": "Send an address."})
        );
        let r = map(
            json!({"kind": "method-not-found", "method": "m", "suggestion": "List the tools first.", "context": {"listed": 3}}),
            "error-model",
        );
        assert_eq!(
            r["error"]["data"],
            json!({"suggestion": "List the tools first.", "context": {"listed": 3}})
        );
    }

    #[test]
    fn generic_fields_belong_to_their_dialect_and_are_typed_and_scrubbed() {
        let ctx = CallContext::default();
        let fails = |input: Value, dialect: &str| {
            map_value(&input, dialect, &ctx, Secrets::none()).unwrap_err()
        };
        assert_eq!(
            fails(json!({"kind": "timeout", "suggestion": "x"}), "canonical"),
            InputError::UnknownField {
                kind: "timeout".into(),
                field: "suggestion".into(),
                elsewhere: vec!["error-model".into()]
            }
        );
        assert_eq!(
            fails(json!({"kind": "timeout", "request_id": "r"}), "error-model"),
            InputError::UnknownField {
                kind: "timeout".into(),
                field: "request_id".into(),
                elsewhere: vec!["watchgate".into()]
            }
        );
        assert_eq!(
            fails(
                json!({"kind": "timeout", "context": "not an object"}),
                "error-model"
            ),
            InputError::FieldType {
                kind: "timeout".into(),
                field: "context".into(),
                expected: "an object"
            }
        );
        let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
        let r = map(
            json!({"kind": "timeout", "context": {token.clone(): [format!("at /home/bob/{token}")], "n": 1}}),
            "error-model",
        );
        let text = r.to_string();
        assert!(
            !text.contains(&token) && !text.contains("/home/bob/"),
            "{text}"
        );
        let r = map(
            json!({"kind": "rate-limited", "details": format!("key {token}")}),
            "watchgate",
        );
        assert!(!r.to_string().contains(&token));
    }

    #[test]
    fn bad_inputs_are_clear_errors() {
        let ctx = CallContext::default();
        let cases = [
            (json!({"kind": "nope"}), "unknown-kind"),
            (json!({"tool": "x"}), "missing-kind"),
            (json!({"kind": "tool-not-exposed"}), "missing-field"),
            (
                json!({"kind": "approval-timeout", "tool": "t", "timeout_secs": "5"}),
                "field-type",
            ),
            (json!({"kind": "timeout", "extra": 1}), "unknown-field"),
            (
                json!({"kind": "timeout", "id": {"a": 1}}),
                "invalid-id-type",
            ),
            (json!(42), "not-an-object"),
        ];
        for (input, reason) in cases {
            let err = map_value(&input, "canonical", &ctx, Secrets::none()).unwrap_err();
            assert_eq!(err.reason(), reason, "{input}");
        }
        assert_eq!(
            map_json("{", "canonical", &ctx, Secrets::none())
                .unwrap_err()
                .reason(),
            "not-json"
        );
        assert_eq!(
            map_json("{}", "klingon", &ctx, Secrets::none())
                .unwrap_err()
                .reason(),
            "unknown-dialect"
        );
        let err = map_value(
            &json!({"kind": "tool-not-exposed", "tool": "t"}),
            "duet",
            &ctx,
            Secrets::none(),
        )
        .unwrap_err();
        assert_eq!(err.reason(), "kind-not-in-dialect");
    }

    #[test]
    fn secrets_in_fields_never_reach_the_client() {
        let r = map(
            json!({"kind": "upstream-connection-failed", "url": "https://u:pw@api.internal/v1?token=abcDEF123456", "reason": "x"}),
            "thoughtgate",
        );
        assert_eq!(r["error"]["data"]["details"], "https://api.internal/v1");
        let r = map(
            json!({"kind": "configuration-error", "details": "bad password=hunter2 in /home/alice/cfg"}),
            "canonical",
        );
        assert_eq!(
            r["error"]["data"]["details"],
            "bad password=[REDACTED:secret-assignment] in /home/[REDACTED:home-user]/cfg"
        );
    }
}
