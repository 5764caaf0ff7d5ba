//! Running a case on the native guest: its expected output (`expect` or `expect_failure`) recorded.

use anyhow::Result;
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::context::CallContext;
use serde_json::{json, Map, Value};

const CTX: CallContext = CallContext {
    unix_millis: 1_767_225_600_000,
    entropy: 42,
};

pub(super) fn ctx_json() -> Value {
    json!({"unix_millis": CTX.unix_millis, "entropy": CTX.entropy})
}

/// Fills `case` with `expect` or `expect_failure` by running it on the native guest.
pub(super) fn record(mut case: Map<String, Value>) -> Value {
    let env: Vec<(String, String)> = case
        .get("env")
        .and_then(Value::as_array)
        .map(|pairs| {
            pairs
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_string(),
                        p[1].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    jsonrpc_errors_guest::set_environment(&env);
    let ctx = case
        .get("ctx")
        .map(|c| CallContext {
            unix_millis: c["unix_millis"].as_u64().unwrap(),
            entropy: c["entropy"].as_u64().unwrap(),
        })
        .unwrap_or_default();
    let s = |k: &str| case.get(k).and_then(Value::as_str).map(str::to_string);
    let raw = || -> Vec<u8> {
        match (
            case.get("raw").and_then(Value::as_str),
            case.get("raw_hex").and_then(Value::as_str),
        ) {
            (Some(t), _) => t.as_bytes().to_vec(),
            (_, Some(h)) => (0..h.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                .collect(),
            _ => Vec::new(),
        }
    };
    let dialect = s("dialect").unwrap_or_else(|| "canonical".into());
    let op = s("op").unwrap();
    let result: Result<String, jsonrpc_errors_guest::error::ErrorObject> = match op.as_str() {
        "map" => {
            let input = s("input_text").unwrap_or_else(|| case["input"].to_string());
            api::map_error(&input, &dialect, &ctx)
        }
        "validate" => {
            let o = case.get("options").cloned().unwrap_or(json!({}));
            let text = |k: &str| o.get(k).and_then(Value::as_str);
            let defaults = api::ValidateArgs::default();
            let args = api::ValidateArgs {
                max_bytes: o.get("max_bytes").and_then(Value::as_u64),
                batch: text("batch").unwrap_or(defaults.batch),
                content_type: text("content_type"),
                content_length: o.get("content_length").and_then(Value::as_u64),
                dialect: text("dialect").unwrap_or(defaults.dialect),
            };
            api::validate(&raw(), &args, &ctx)
        }
        "sanitize" => api::sanitize(&raw(), &dialect, &ctx),
        "redact" => Ok(api::redact_json(&s("text").unwrap())),
        "explain" => api::explain(&dialect, case["code"].as_i64().unwrap()),
        "lookup" => {
            let data = case.get("data").map(|d| d.to_string());
            api::lookup_kind(
                &dialect,
                case["code"].as_i64().unwrap(),
                s("message").as_deref(),
                data.as_deref(),
            )
            .map(|k| serde_json::to_string(&k).unwrap())
        }
        "codes" => api::codes(s("dialect").as_deref(), &s("format").unwrap()),
        "redact_with" => api::redact_with(&s("text").unwrap(), &options_text(&case)),
        "redact_json_value" => {
            let value = s("value_text").unwrap_or_else(|| case["value"].to_string());
            api::redact_json_value(&value, &options_text(&case))
        }
        "kinds" => Ok(api::kinds_json()),
        "check_policy" => {
            api::check_policy(&s("policy").unwrap(), &env_pairs(case.get("policy_env")))
        }
        "max_input_bytes" => Ok(api::max_input_bytes().to_string()),
        "refusal" => Err(api::refusal(refusal_of(&case["problem"]))),
        "guard" => {
            let outputs = guard_script(&case, &ctx);
            jsonrpc_errors_guest::set_environment(&[]);
            match outputs {
                Ok(outputs) => {
                    case.insert(
                        "expect".into(),
                        Value::Array(
                            outputs
                                .iter()
                                .map(|o| serde_json::from_str(o).unwrap_or(json!(o)))
                                .collect(),
                        ),
                    );
                    case.insert("expect_outputs".into(), json!(outputs));
                }
                Err(e) => {
                    case.insert("expect_failure".into(), e.to_value());
                }
            }
            return Value::Object(case);
        }
        other => panic!("unknown op {other}"),
    };
    jsonrpc_errors_guest::set_environment(&[]);
    match result {
        Ok(text) => {
            let expect = if op == "codes" && s("format").as_deref() == Some("markdown") {
                Value::String(text.clone())
            } else {
                serde_json::from_str(&text).expect("outputs are JSON")
            };
            case.insert("expect".into(), expect);
            case.insert("expect_text".into(), Value::String(text));
        }
        Err(e) => {
            case.insert("expect_failure".into(), e.to_value());
        }
    }
    Value::Object(case)
}

/// A redaction case's options as text: `options_text` verbatim, else the compact `options` value, else `{}`.
pub(super) fn options_text(case: &Map<String, Value>) -> String {
    match (
        case.get("options_text").and_then(Value::as_str),
        case.get("options"),
    ) {
        (Some(t), _) => t.to_string(),
        (_, Some(o)) => o.to_string(),
        _ => "{}".to_string(),
    }
}

/// A `refusal` case's problem: `{"unknown_dialect": name}`, `{"not_unicode": offset}`, `{"too_large": length}`
/// or `{"unknown_format": name}`.
fn refusal_of(problem: &Value) -> api::Refusal<'_> {
    let (tag, value) = problem
        .as_object()
        .and_then(|o| o.iter().next())
        .expect("a refusal problem");
    match tag.as_str() {
        "unknown_dialect" => api::Refusal::UnknownDialect(value.as_str().unwrap()),
        "not_unicode" => api::Refusal::NotUnicode(value.as_u64().unwrap()),
        "too_large" => api::Refusal::TooLarge(value.as_u64().unwrap()),
        "unknown_format" => api::Refusal::UnknownFormat(value.as_str().unwrap()),
        other => panic!("unknown refusal {other}"),
    }
}

pub(super) fn case(name: &str, op: &str, fields: Value) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    m.insert("op".into(), json!(op));
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    record(m)
}

/// `[[name, value], ...]` as pairs (none when absent).
fn env_pairs(value: Option<&Value>) -> Vec<(String, String)> {
    value
        .and_then(Value::as_array)
        .map(|pairs| {
            pairs
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_string(),
                        p[1].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Runs a `guard` case's script on a native session: one output text per step.
fn guard_script(
    case: &Map<String, Value>,
    ctx: &CallContext,
) -> Result<Vec<String>, jsonrpc_errors_guest::error::ErrorObject> {
    use jsonrpc_errors_guest::guard::UpstreamFailure;
    // A case's `options` are the session's options as JSON (snake_case keys), as the npm module passes them.
    let o = case.get("options").cloned().unwrap_or(json!({}));
    let mut session = api::guard_session(api::SessionArgs::from_json(&o.to_string())?)?;
    let hex = |h: &str| -> Vec<u8> {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    };
    let mut outputs = Vec::new();
    for (i, step) in case["script"]
        .as_array()
        .expect("a guard case has a script")
        .iter()
        .enumerate()
    {
        let at = CallContext {
            unix_millis: ctx.unix_millis + step.get("at").and_then(Value::as_u64).unwrap_or(0),
            entropy: ctx.entropy.wrapping_add(i as u64),
        };
        let text = |k: &str| step.get(k).and_then(Value::as_str);
        let edge = |k: &str| text(k).unwrap_or("").as_bytes();
        let out = if let Some(line) = text("client") {
            session.client_line(line.as_bytes(), at).to_json()
        } else if let Some([stream, line]) = step
            .get("client_on")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            session
                .client_line_on(
                    stream.as_u64().unwrap(),
                    line.as_str().unwrap().as_bytes(),
                    at,
                )
                .to_json()
        } else if let Some(stream) = step.get("stream_closed").and_then(Value::as_u64) {
            session.stream_closed(stream, at).to_json()
        } else if let Some(h) = text("client_hex") {
            session.client_line(&hex(h), at).to_json()
        } else if let Some(n) = step.get("client_oversize").and_then(Value::as_u64) {
            session
                .client_oversize(n, edge("head"), edge("tail"), at)
                .to_json()
        } else if let Some(line) = text("upstream") {
            session.upstream_line(line.as_bytes(), at).to_json()
        } else if let Some(h) = text("upstream_hex") {
            session.upstream_line(&hex(h), at).to_json()
        } else if let Some(n) = step.get("upstream_oversize").and_then(Value::as_u64) {
            session
                .upstream_oversize(n, edge("head"), edge("tail"), at)
                .to_json()
        } else if let Some(f) = step.get("upstream_failed") {
            let failure = match (f.get("exited"), f.get("killed"), f.get("spawn_failed")) {
                (Some(n), _, _) => UpstreamFailure::Exited(n.as_i64().unwrap() as i32),
                (_, Some(n), _) => UpstreamFailure::Killed(n.as_i64().unwrap() as i32),
                (_, _, Some(r)) => UpstreamFailure::SpawnFailed(r.as_str().unwrap().to_string()),
                _ => UpstreamFailure::ClosedOutput,
            };
            session.upstream_failed(failure, at).to_json()
        } else if let Some(id) = text("upstream_exchange_ended") {
            session.upstream_exchange_ended(id, at).to_json()
        } else if step.get("expire").is_some() {
            session.expire(at).to_json()
        } else if step.get("settings").is_some() {
            session.settings()
        } else if let Some(t) = text("upstream_log") {
            session.upstream_log(t)
        } else if let Some(t) = text("upstream_stderr") {
            session.upstream_stderr(t.as_bytes(), false)
        } else if let Some(h) = text("upstream_stderr_hex") {
            session.upstream_stderr(&hex(h), false)
        } else if step.get("upstream_stderr_end").is_some() {
            session.upstream_stderr(&[], true)
        } else {
            panic!("unknown guard step {step}")
        };
        outputs.push(out);
    }
    Ok(outputs)
}
