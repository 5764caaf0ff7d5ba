//! Runs every conformance vector natively (the guest library) and through the component (wasmtime), and
//! requires both to produce exactly the expected bytes.

use jsonrpc_errors_guest::{api, context::CallContext};
use jsonrpc_errors_host::{Context, Failure, Runtime, ValidateOptions};
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
    assert!(files.len() >= 6, "expected the vector files in {}", dir.display());
    files
}

fn raw_bytes(case: &Value) -> Vec<u8> {
    if let Some(t) = case.get("raw").and_then(Value::as_str) {
        return t.as_bytes().to_vec();
    }
    let h = case.get("raw_hex").and_then(Value::as_str).unwrap_or("");
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

fn env_of(case: &Value) -> Vec<(String, String)> {
    case.get("env")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into())).collect())
        .unwrap_or_default()
}

fn ctx_of(case: &Value) -> (u64, u64) {
    case.get("ctx").map(|c| (c["unix_millis"].as_u64().unwrap(), c["entropy"].as_u64().unwrap())).unwrap_or((0, 0))
}

type Outcome = Result<String, Value>;

fn native(case: &Value) -> Outcome {
    let _guard = NATIVE_ENV.lock().unwrap_or_else(|e| e.into_inner());
    jsonrpc_errors_guest::set_environment(&env_of(case));
    let (unix_millis, entropy) = ctx_of(case);
    let ctx = CallContext { unix_millis, entropy };
    let s = |k: &str| case.get(k).and_then(Value::as_str);
    let dialect = s("dialect").unwrap_or("canonical");
    let r = match s("op").unwrap() {
        "map" => {
            let input = s("input_text").map(str::to_string).unwrap_or_else(|| case["input"].to_string());
            api::map_error(&input, dialect, &ctx)
        }
        "validate" => {
            let o = case.get("options").cloned().unwrap_or(Value::Null);
            let args = api::ValidateArgs {
                max_bytes: o.get("max_bytes").and_then(Value::as_u64),
                batch: o.get("batch").and_then(Value::as_str).unwrap_or("reject"),
                content_type: o.get("content_type").and_then(Value::as_str),
                content_length: o.get("content_length").and_then(Value::as_u64),
                dialect: o.get("dialect").and_then(Value::as_str).unwrap_or("canonical"),
            };
            api::validate(&raw_bytes(case), &args, &ctx)
        }
        "sanitize" => api::sanitize(&raw_bytes(case), dialect, &ctx),
        "redact" => Ok(api::redact_json(s("text").unwrap())),
        "explain" => api::explain(dialect, case["code"].as_i64().unwrap()),
        "lookup" => {
            let data = case.get("data").map(Value::to_string);
            api::lookup_kind(dialect, case["code"].as_i64().unwrap(), s("message"), data.as_deref())
                .map(|k| serde_json::to_string(&k).unwrap())
        }
        "codes" => api::codes(s("dialect"), s("format").unwrap()),
        other => panic!("unknown op {other}"),
    };
    jsonrpc_errors_guest::set_environment(&[]);
    r.map_err(|e| e.to_value())
}

fn failure_value(f: Failure) -> Value {
    serde_json::from_str(&f.to_json()).unwrap()
}

fn component(rt: &Runtime, case: &Value) -> Outcome {
    let (unix_millis, entropy) = ctx_of(case);
    let ctx = Context { unix_millis, entropy };
    let s = |k: &str| case.get(k).and_then(Value::as_str);
    let dialect = s("dialect").unwrap_or("canonical");
    let r = match s("op").unwrap() {
        "map" => {
            let input = s("input_text").map(str::to_string).unwrap_or_else(|| case["input"].to_string());
            rt.map_error(&input, dialect, ctx)
        }
        "validate" => {
            let o = case.get("options").cloned().unwrap_or(Value::Null);
            let batch = o.get("batch").and_then(Value::as_str).unwrap_or("reject");
            let options = ValidateOptions {
                max_bytes: o.get("max_bytes").and_then(Value::as_u64),
                allow_batch: batch == "allow",
                content_type: o.get("content_type").and_then(Value::as_str).map(str::to_string),
                content_length: o.get("content_length").and_then(Value::as_u64),
                dialect: o.get("dialect").and_then(Value::as_str).unwrap_or("canonical").to_string(),
            };
            rt.validate(&raw_bytes(case), &options, ctx)
        }
        "sanitize" => rt.sanitize(&raw_bytes(case), dialect, ctx),
        "redact" => rt.redact_json(s("text").unwrap()),
        "explain" => rt.explain(case["code"].as_i64().unwrap(), dialect),
        "lookup" => {
            let data = case.get("data").map(Value::to_string);
            rt.lookup_kind(dialect, case["code"].as_i64().unwrap(), s("message"), data.as_deref())
                .map(|k| serde_json::to_string(&k).unwrap())
        }
        "codes" => rt.codes(s("dialect"), s("format").unwrap()),
        other => panic!("unknown op {other}"),
    };
    r.map_err(failure_value)
}

fn check(name: &str, got: &Outcome, case: &Value) -> Option<String> {
    match (got, case.get("expect_text"), case.get("expect_failure")) {
        (Ok(text), Some(Value::String(expected)), _) if text == expected => None,
        (Err(v), None, Some(expected)) if v == expected => None,
        _ => Some(format!(
            "{name}: got {got:?}, expected {}",
            case.get("expect_text").or(case.get("expect_failure")).unwrap_or(&Value::Null)
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
            let name = format!("{}::{}", file.file_name().unwrap().to_string_lossy(), case["name"].as_str().unwrap());
            let env = env_of(case);
            let key = format!("{env:?}");
            let rt = runtimes.entry(key).or_insert_with(|| Runtime::new(env).unwrap());
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
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
