//! Runs every conformance vector natively (the guest library) and through the component (wasmtime), and
//! requires both to produce exactly the expected bytes.

use jsonrpc_errors_guest::{api, context::CallContext};
use jsonrpc_errors_host::{Context, ErrorObject, InputProblem, Runtime, ValidateOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// The native library keeps its environment in a global; cases that set one must not interleave.
static NATIVE_ENV: Mutex<()> = Mutex::new(());

fn vector_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 6,
        "expected the vector files in {}",
        dir.display()
    );
    files
}

fn raw_bytes(case: &Value) -> Vec<u8> {
    if let Some(t) = case.get("raw").and_then(Value::as_str) {
        return t.as_bytes().to_vec();
    }
    let h = case.get("raw_hex").and_then(Value::as_str).unwrap_or("");
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

fn env_of(case: &Value) -> Vec<(String, String)> {
    case.get("env")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
                .collect()
        })
        .unwrap_or_default()
}

fn ctx_of(case: &Value) -> (u64, u64) {
    case.get("ctx")
        .map(|c| {
            (
                c["unix_millis"].as_u64().unwrap(),
                c["entropy"].as_u64().unwrap(),
            )
        })
        .unwrap_or((0, 0))
}

type Outcome = Result<String, Value>;

/// A redaction case's options text: `options_text` verbatim, else the compact `options`, else `{}`.
fn options_text(case: &Value) -> String {
    match (
        case.get("options_text").and_then(Value::as_str),
        case.get("options"),
    ) {
        (Some(t), _) => t.to_string(),
        (_, Some(o)) => o.to_string(),
        _ => "{}".to_string(),
    }
}

/// A `redact_json_value` case's document: `value_text` verbatim, else the compact `value`.
fn value_text(case: &Value) -> String {
    case.get("value_text")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| case["value"].to_string())
}

/// A `refusal` case's problem as the WIT variant.
fn problem_of(case: &Value) -> InputProblem {
    let (tag, value) = case["problem"]
        .as_object()
        .and_then(|o| o.iter().next())
        .expect("a refusal problem");
    match tag.as_str() {
        "unknown_dialect" => InputProblem::UnknownDialect(value.as_str().unwrap().into()),
        "not_unicode" => InputProblem::NotUnicode(value.as_u64().unwrap()),
        "too_large" => InputProblem::TooLarge(value.as_u64().unwrap()),
        "unknown_format" => InputProblem::UnknownFormat(value.as_str().unwrap().into()),
        other => panic!("unknown refusal {other}"),
    }
}

fn hex(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

/// One step of a `guard` script, whichever runtime runs it.
enum GuardStep<'a> {
    Client(Vec<u8>),
    ClientOversize(u64, &'a [u8], &'a [u8]),
    ClientOn(u64, Vec<u8>),
    StreamClosed(u64),
    Upstream(Vec<u8>),
    UpstreamOversize(u64, &'a [u8], &'a [u8]),
    Failed(&'a Value),
    ExchangeEnded(&'a str),
    Expire,
    Settings,
    Log(&'a str),
    Stderr(Vec<u8>),
    StderrEnd,
}

/// The script's steps with the call context of each (`at` milliseconds after the case's clock, entropy
/// advanced by the step's index).
fn guard_steps(case: &Value) -> Vec<(GuardStep<'_>, (u64, u64))> {
    let (unix_millis, entropy) = ctx_of(case);
    case["script"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let at = (
                unix_millis + step.get("at").and_then(Value::as_u64).unwrap_or(0),
                entropy.wrapping_add(i as u64),
            );
            let text = |k: &str| step.get(k).and_then(Value::as_str);
            // An oversize line's ends, as the shell kept them (none when the step gives none).
            let edge = |k: &str| text(k).unwrap_or("").as_bytes();
            let s = if let Some(l) = text("client") {
                GuardStep::Client(l.as_bytes().to_vec())
            } else if let Some([stream, l]) = step
                .get("client_on")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            {
                GuardStep::ClientOn(
                    stream.as_u64().unwrap(),
                    l.as_str().unwrap().as_bytes().to_vec(),
                )
            } else if let Some(stream) = step.get("stream_closed").and_then(Value::as_u64) {
                GuardStep::StreamClosed(stream)
            } else if let Some(h) = text("client_hex") {
                GuardStep::Client(hex(h))
            } else if let Some(n) = step.get("client_oversize").and_then(Value::as_u64) {
                GuardStep::ClientOversize(n, edge("head"), edge("tail"))
            } else if let Some(l) = text("upstream") {
                GuardStep::Upstream(l.as_bytes().to_vec())
            } else if let Some(h) = text("upstream_hex") {
                GuardStep::Upstream(hex(h))
            } else if let Some(n) = step.get("upstream_oversize").and_then(Value::as_u64) {
                GuardStep::UpstreamOversize(n, edge("head"), edge("tail"))
            } else if let Some(f) = step.get("upstream_failed") {
                GuardStep::Failed(f)
            } else if let Some(id) = text("upstream_exchange_ended") {
                GuardStep::ExchangeEnded(id)
            } else if step.get("expire").is_some() {
                GuardStep::Expire
            } else if step.get("settings").is_some() {
                GuardStep::Settings
            } else if let Some(t) = text("upstream_stderr") {
                GuardStep::Stderr(t.as_bytes().to_vec())
            } else if let Some(h) = text("upstream_stderr_hex") {
                GuardStep::Stderr(hex(h))
            } else if step.get("upstream_stderr_end").is_some() {
                GuardStep::StderrEnd
            } else {
                GuardStep::Log(text("upstream_log").expect("a known guard step"))
            };
            (s, at)
        })
        .collect()
}

/// A case's session options, as the host library takes them.
fn guard_options(case: &Value) -> jsonrpc_errors_host::guard::Options {
    let o = case.get("options").cloned().unwrap_or(Value::Null);
    let s = |k: &str, d: &str| o.get(k).and_then(Value::as_str).unwrap_or(d).to_string();
    let n = |k: &str| o.get(k).and_then(Value::as_u64);
    jsonrpc_errors_host::guard::Options {
        // Absent: not given (the session resolves it).
        dialect: o.get("dialect").and_then(Value::as_str).map(str::to_string),
        max_bytes: n("max_bytes"),
        batch: o
            .get("batch")
            .and_then(Value::as_str)
            .and_then(jsonrpc_errors_host::guard::BatchPolicy::from_name),
        // Absent: not given; null: no limit (0 at the typed boundary).
        timeout_ms: o
            .get("timeout_ms")
            .map(|t| if t.is_null() { Some(0) } else { t.as_u64() })
            .unwrap_or(None),
        upstream: s("upstream", "upstream"),
        failed_result_bytes: n("failed_result_bytes"),
        policy: o.get("policy").and_then(Value::as_str).map(str::to_string),
        policy_env: env_pairs(o.get("policy_env")),
        environment: o.get("environment").map(|e| env_pairs(Some(e))),
        upstream_credentials: o.get("upstream_credentials").map(|list| {
            list.as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        }),
        many_clients: o.get("many_clients").and_then(Value::as_bool),
        max_upstream_bytes: n("max_upstream_bytes"),
    }
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

/// The outputs of a guard script, joined by newlines (each output is one JSON document, or a log text).
fn native_guard(case: &Value) -> Result<String, jsonrpc_errors_guest::error::ErrorObject> {
    use jsonrpc_errors_guest::guard::UpstreamFailure;
    let options = case.get("options").cloned().unwrap_or(Value::Null);
    let options = if options.is_null() {
        "{}".to_string()
    } else {
        options.to_string()
    };
    let mut session = api::guard_session(api::SessionArgs::from_json(&options)?)?;
    let mut outputs = Vec::new();
    for (step, (unix_millis, entropy)) in guard_steps(case) {
        let ctx = CallContext {
            unix_millis,
            entropy,
        };
        outputs.push(match step {
            GuardStep::Client(l) => session.client_line(&l, ctx).to_json(),
            GuardStep::ClientOversize(n, head, tail) => {
                session.client_oversize(n, head, tail, ctx).to_json()
            }
            GuardStep::ClientOn(stream, l) => session.client_line_on(stream, &l, ctx).to_json(),
            GuardStep::StreamClosed(stream) => session.stream_closed(stream, ctx).to_json(),
            GuardStep::Upstream(l) => session.upstream_line(&l, ctx).to_json(),
            GuardStep::UpstreamOversize(n, head, tail) => {
                session.upstream_oversize(n, head, tail, ctx).to_json()
            }
            GuardStep::Failed(f) => {
                let failure = match (f.get("exited"), f.get("killed"), f.get("spawn_failed")) {
                    (Some(n), _, _) => UpstreamFailure::Exited(n.as_i64().unwrap() as i32),
                    (_, Some(n), _) => UpstreamFailure::Killed(n.as_i64().unwrap() as i32),
                    (_, _, Some(r)) => UpstreamFailure::SpawnFailed(r.as_str().unwrap().into()),
                    _ => UpstreamFailure::ClosedOutput,
                };
                session.upstream_failed(failure, ctx).to_json()
            }
            GuardStep::ExchangeEnded(id) => session.upstream_exchange_ended(id, ctx).to_json(),
            GuardStep::Expire => session.expire(ctx).to_json(),
            GuardStep::Settings => session.settings(),
            GuardStep::Log(t) => session.upstream_log(t),
            GuardStep::Stderr(b) => session.upstream_stderr(&b, false),
            GuardStep::StderrEnd => session.upstream_stderr(&[], true),
        });
    }
    Ok(serde_json::to_string(&outputs).unwrap())
}

fn component_guard(rt: &Runtime, case: &Value) -> Result<String, ErrorObject> {
    use jsonrpc_errors_host::guard::{Call, SessionCalls, UpstreamFailure};
    let options = guard_options(case);
    let mut session = rt.guard_session(&options)?;
    let mut outputs = Vec::new();
    for (step, (unix_millis, entropy)) in guard_steps(case) {
        let ctx = Context {
            unix_millis,
            entropy,
        };
        outputs.push(match step {
            GuardStep::Client(l) => session.outcome_json(Call::ClientLine(&l), ctx)?,
            GuardStep::ClientOversize(n, head, tail) => session.outcome_json(
                Call::ClientOversize {
                    length: n,
                    head,
                    tail,
                },
                ctx,
            )?,
            GuardStep::ClientOn(stream, l) => {
                session.outcome_json(Call::ClientLineOn { stream, line: &l }, ctx)?
            }
            GuardStep::StreamClosed(stream) => {
                session.outcome_json(Call::StreamClosed { stream }, ctx)?
            }
            GuardStep::Upstream(l) => session.outcome_json(Call::UpstreamLine(&l), ctx)?,
            GuardStep::UpstreamOversize(n, head, tail) => session.outcome_json(
                Call::UpstreamOversize {
                    length: n,
                    head,
                    tail,
                },
                ctx,
            )?,
            GuardStep::Failed(f) => {
                let gone = match (f.get("exited"), f.get("killed"), f.get("spawn_failed")) {
                    (Some(n), _, _) => UpstreamFailure::Exited(n.as_i64().unwrap() as i32),
                    (_, Some(n), _) => UpstreamFailure::Killed(n.as_i64().unwrap() as i32),
                    (_, _, Some(r)) => UpstreamFailure::SpawnFailed(r.as_str().unwrap().into()),
                    _ => UpstreamFailure::ClosedOutput,
                };
                session.outcome_json(Call::UpstreamFailed(&gone), ctx)?
            }
            GuardStep::ExchangeEnded(id) => {
                session.outcome_json(Call::UpstreamExchangeEnded { id }, ctx)?
            }
            GuardStep::Expire => session.outcome_json(Call::Expire, ctx)?,
            GuardStep::Settings => session.settings_json()?,
            GuardStep::Log(t) => session.upstream_log(t)?,
            GuardStep::Stderr(b) => session.upstream_stderr(&b)?,
            GuardStep::StderrEnd => session.upstream_stderr_end()?,
        });
    }
    Ok(serde_json::to_string(&outputs).unwrap())
}

fn native(case: &Value) -> Outcome {
    let _guard = NATIVE_ENV.lock().unwrap_or_else(|e| e.into_inner());
    jsonrpc_errors_guest::set_environment(&env_of(case));
    let (unix_millis, entropy) = ctx_of(case);
    let ctx = CallContext {
        unix_millis,
        entropy,
    };
    let s = |k: &str| case.get(k).and_then(Value::as_str);
    let dialect = s("dialect").unwrap_or("canonical");
    let r = match s("op").unwrap() {
        "map" => {
            let input = s("input_text")
                .map(str::to_string)
                .unwrap_or_else(|| case["input"].to_string());
            api::map_error(&input, dialect, &ctx)
        }
        "validate" => {
            let o = case.get("options").cloned().unwrap_or(Value::Null);
            let text = |k: &str| o.get(k).and_then(Value::as_str);
            let defaults = api::ValidateArgs::default();
            let args = api::ValidateArgs {
                max_bytes: o.get("max_bytes").and_then(Value::as_u64),
                batch: text("batch").unwrap_or(defaults.batch),
                content_type: text("content_type"),
                content_length: o.get("content_length").and_then(Value::as_u64),
                dialect: text("dialect").unwrap_or(defaults.dialect),
            };
            api::validate(&raw_bytes(case), &args, &ctx)
        }
        "sanitize" => api::sanitize(&raw_bytes(case), dialect, &ctx),
        "redact" => Ok(api::redact_json(s("text").unwrap())),
        "explain" => api::explain(dialect, case["code"].as_i64().unwrap()),
        "lookup" => {
            let data = case.get("data").map(Value::to_string);
            api::lookup_kind(
                dialect,
                case["code"].as_i64().unwrap(),
                s("message"),
                data.as_deref(),
            )
            .map(|k| serde_json::to_string(&k).unwrap())
        }
        "codes" => api::codes(s("dialect"), s("format").unwrap()),
        "redact_with" => api::redact_with(s("text").unwrap(), &options_text(case)),
        "redact_json_value" => api::redact_json_value(&value_text(case), &options_text(case)),
        "kinds" => Ok(api::kinds_json()),
        "check_policy" => {
            api::check_policy(s("policy").unwrap(), &env_pairs(case.get("policy_env")))
        }
        "max_input_bytes" => Ok(api::max_input_bytes().to_string()),
        "refusal" => {
            let problem = problem_of(case);
            Err(api::refusal(match &problem {
                InputProblem::UnknownDialect(name) => api::Refusal::UnknownDialect(name),
                InputProblem::NotUnicode(at) => api::Refusal::NotUnicode(*at),
                InputProblem::TooLarge(len) => api::Refusal::TooLarge(*len),
                InputProblem::UnknownFormat(name) => api::Refusal::UnknownFormat(name),
            }))
        }
        "guard" => native_guard(case),
        other => panic!("unknown op {other}"),
    };
    jsonrpc_errors_guest::set_environment(&[]);
    r.map_err(|e| e.to_value())
}

fn error_value(f: ErrorObject) -> Value {
    serde_json::from_str(&f.to_json()).unwrap()
}

fn component(rt: &Runtime, case: &Value) -> Outcome {
    let (unix_millis, entropy) = ctx_of(case);
    let ctx = Context {
        unix_millis,
        entropy,
    };
    let s = |k: &str| case.get(k).and_then(Value::as_str);
    let dialect = s("dialect").unwrap_or("canonical");
    let r = match s("op").unwrap() {
        "map" => {
            let input = s("input_text")
                .map(str::to_string)
                .unwrap_or_else(|| case["input"].to_string());
            rt.map_error(&input, dialect, ctx)
        }
        "validate" => {
            let o = case.get("options").cloned().unwrap_or(Value::Null);
            let batch = o.get("batch").and_then(Value::as_str).unwrap_or("reject");
            let options = ValidateOptions {
                max_bytes: o.get("max_bytes").and_then(Value::as_u64),
                batch: if batch == "allow" {
                    jsonrpc_errors_host::BatchPolicy::Allow
                } else {
                    jsonrpc_errors_host::BatchPolicy::Reject
                },
                content_type: o
                    .get("content_type")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                content_length: o.get("content_length").and_then(Value::as_u64),
                dialect: o
                    .get("dialect")
                    .and_then(Value::as_str)
                    .unwrap_or("canonical")
                    .to_string(),
            };
            let raw = raw_bytes(case);
            let bytes = rt.validate(&raw, &options, ctx);
            // The text form answers the same for every body that is text.
            if let Ok(text) = std::str::from_utf8(&raw) {
                assert_eq!(
                    rt.validate_text(text, &options, ctx),
                    bytes,
                    "validate-text differs on {}",
                    case["name"]
                );
            }
            bytes
        }
        "sanitize" => {
            let raw = raw_bytes(case);
            let bytes = rt.sanitize(&raw, dialect, ctx);
            // The text form, given the body decoded as `sanitize` repairs it, answers the same.
            let repaired = String::from_utf8_lossy(&raw);
            assert_eq!(
                rt.sanitize_text(&repaired, dialect, ctx),
                bytes,
                "sanitize-text differs on {}",
                case["name"]
            );
            bytes
        }
        "redact" => rt.redact_json(s("text").unwrap()),
        "explain" => rt.explain(case["code"].as_i64().unwrap(), dialect),
        "lookup" => {
            let data = case.get("data").map(Value::to_string);
            rt.lookup_kind(
                dialect,
                case["code"].as_i64().unwrap(),
                s("message"),
                data.as_deref(),
            )
            .map(|k| serde_json::to_string(&k).unwrap())
        }
        "codes" => rt.codes(s("dialect"), s("format").unwrap()),
        "redact_with" => rt.redact_with(s("text").unwrap(), &options_text(case)),
        "redact_json_value" => rt.redact_json_value(&value_text(case), &options_text(case)),
        "kinds" => rt.kinds_json(),
        "check_policy" => rt.check_policy(s("policy").unwrap(), &env_pairs(case.get("policy_env"))),
        "max_input_bytes" => Ok(rt.max_input_bytes().to_string()),
        "refusal" => Err(rt.refusal(&problem_of(case))),
        "guard" => component_guard(rt, case),
        other => panic!("unknown op {other}"),
    };
    r.map_err(error_value)
}

fn check(name: &str, got: &Outcome, case: &Value) -> Option<String> {
    // A guard script's outputs (`expect_outputs`) are compared as the JSON array of their texts: equal
    // exactly when every output is equal byte for byte.
    let want = match (case.get("expect_text"), case.get("expect_outputs")) {
        (Some(Value::String(text)), _) => Some(text.clone()),
        (_, Some(outputs)) => Some(serde_json::to_string(outputs).unwrap()),
        _ => None,
    };
    match (got, &want, case.get("expect_failure")) {
        (Ok(text), Some(want), _) if text == want => None,
        (Err(v), None, Some(expected)) if v == expected => None,
        _ => Some(format!(
            "{name}: got {got:?}, expected {}",
            want.map(Value::String)
                .or(case.get("expect_failure").cloned())
                .unwrap_or(Value::Null)
        )),
    }
}

#[test]
fn every_vector_passes_natively_and_through_the_component_with_identical_bytes() {
    let mut runtimes: HashMap<String, Runtime> = HashMap::new();
    let mut failures = Vec::new();
    let mut count = 0;
    for file in vector_files() {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let cases = doc["cases"].as_array().expect("cases array");
        for case in cases {
            count += 1;
            let name = format!(
                "{}::{}",
                file.file_name().unwrap().to_string_lossy(),
                case["name"].as_str().unwrap()
            );
            let env = env_of(case);
            let key = format!("{env:?}");
            let rt = runtimes
                .entry(key)
                .or_insert_with(|| Runtime::new(env).unwrap());
            let n = native(case);
            let c = component(rt, case);
            failures.extend(check(&format!("{name} [native]"), &n, case));
            failures.extend(check(&format!("{name} [component]"), &c, case));
            if n != c {
                failures.push(format!("{name}: native and component differ"));
            }
        }
    }
    assert!(count > 300, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
