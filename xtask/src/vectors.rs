//! `cargo xtask vectors`: writes tests/vectors/*.json.
//!
//! The cases (inputs) are defined here; the expected outputs are recorded from the native guest and then
//! reviewed like any golden file: `git diff tests/vectors` after a behaviour change shows exactly what moved.
//! Every runtime's test suite then checks itself against these files.

use anyhow::Result;
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::taxonomy::{taxonomy, FieldType, Kind};
use serde_json::{json, Map, Value};

const CTX: CallContext = CallContext {
    unix_millis: 1_767_225_600_000,
    entropy: 42,
};

fn ctx_json() -> Value {
    json!({"unix_millis": CTX.unix_millis, "entropy": CTX.entropy})
}

/// Fills `case` with `expect` or `expect_failure` by running it on the native guest.
fn record(mut case: Map<String, Value>) -> Value {
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
            let dialect = o
                .get("dialect")
                .and_then(Value::as_str)
                .unwrap_or("canonical")
                .to_string();
            let batch = o
                .get("batch")
                .and_then(Value::as_str)
                .unwrap_or("reject")
                .to_string();
            let args = api::ValidateArgs {
                max_bytes: o.get("max_bytes").and_then(Value::as_u64),
                batch: &batch,
                content_type: o.get("content_type").and_then(Value::as_str),
                content_length: o.get("content_length").and_then(Value::as_u64),
                dialect: &dialect,
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
fn options_text(case: &Map<String, Value>) -> String {
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

fn case(name: &str, op: &str, fields: Value) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    m.insert("op".into(), json!(op));
    if let Value::Object(f) = fields {
        m.extend(f);
    }
    record(m)
}

/// A realistic value for a field, so vectors read like real errors.
fn sample(kind: &Kind, field: &str, ty: FieldType) -> Value {
    match (field, ty) {
        (_, FieldType::U64) => json!(30),
        (_, FieldType::S32) => json!(-32099),
        (_, FieldType::Bool) => json!(true),
        (_, FieldType::StringList) => json!(["asc", "desc"]),
        (_, FieldType::Object) => json!({"region": "eu"}),
        ("tool", _) => json!("deploy_prod"),
        ("source", _) => json!("upstream"),
        ("rule", _) => json!("*_prod"),
        ("policy_id", _) => json!("financial-limits"),
        ("reason", _) if kind.name == "invalid-request" => json!("invalid-id-type"),
        ("reason", _) => json!("connection refused by the peer"),
        ("rejected_by", _) => json!("alice"),
        ("workflow", _) => json!("prod-deploys"),
        ("url", _) => json!("https://svc:hunter2@mcp.internal:8443/rpc?token=abc123XYZ789"),
        ("message", _) => json!("db error at /home/deploy/app/db.py: password=s3cr3tPass"),
        ("task_id", _) => json!("task-7f3a"),
        ("inspector", _) => json!("pii-scanner"),
        ("current", _) => json!("completed"),
        ("target", _) => json!("working"),
        ("details", _) => json!("field 'limit' out of range"),
        ("method", _) => json!("tools/lsit"),
        ("param", _) => json!("limit"),
        ("expected", _) => json!("integer <= 100"),
        ("received", _) => json!("500"),
        ("skill", _) => json!("summarize"),
        ("field", _) => json!("order.customer.email"),
        ("original_error", _) => json!("ORDER_NOT_FOUND"),
        ("current_state", _) => json!("completed"),
        ("operation", _) => json!("tasks/resubscribe"),
        ("content_type", _) => json!("image/tiff"),
        ("extension", _) => json!("https://a2a.example/ext/secure-passport/v1"),
        ("version", _) => json!("0.2"),
        _ => json!(format!("{field}-value")),
    }
}

fn input_for(kind: &Kind, required_only: bool) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind.name));
    m.insert("id".into(), json!(7));
    m.insert("correlation_id".into(), json!("corr-0001"));
    m.insert("timestamp".into(), json!("2026-01-01T00:00:00Z"));
    for f in kind.fields.iter().filter(|f| f.required || !required_only) {
        m.insert(f.name.clone(), sample(kind, &f.name, f.ty));
    }
    Value::Object(m)
}

fn map_matrix() -> Value {
    let mut cases = Vec::new();
    for kind in &taxonomy().kinds {
        for dialect in kind.dialects.keys() {
            cases.push(case(
                &format!("{}/{dialect}", kind.name),
                "map",
                json!({"dialect": dialect, "input": input_for(kind, false)}),
            ));
        }
        cases.push(case(
            &format!("{}/canonical/required-only", kind.name),
            "map",
            json!({"dialect": "canonical", "input": input_for(kind, true)}),
        ));
    }
    json!({"description": "Every kind in every dialect that defines it (all fields), and every kind with only its required fields.", "cases": cases})
}

fn map_edges() -> Value {
    let long = "x".repeat(1500);
    let cases = vec![
        case(
            "first-gate-wins",
            "map",
            json!({"dialect": "thoughtgate", "input": [
            {"kind": "approval-rejected", "tool": "t", "rejected_by": "bob", "correlation_id": "c1"},
            {"kind": "policy-denied", "tool": "t", "policy_id": "p", "correlation_id": "c2"},
            {"kind": "tool-not-exposed", "tool": "t", "correlation_id": "c3"}]}),
        ),
        case(
            "no-gate-error-first-wins",
            "map",
            json!({"dialect": "canonical", "input": [
            {"kind": "upstream-timeout", "timeout_secs": 5, "correlation_id": "c1"},
            {"kind": "rate-limited", "correlation_id": "c2"}]}),
        ),
        case(
            "generated-correlation-id-and-timestamp",
            "map",
            json!({"dialect": "watchgate", "ctx": ctx_json(),
            "input": {"kind": "security-violation", "details": "blocked", "id": "req_123"}}),
        ),
        case(
            "id-string-echoed",
            "map",
            json!({"input": {"kind": "timeout", "id": "abc-1", "correlation_id": "c"}}),
        ),
        case(
            "id-null-when-absent",
            "map",
            json!({"input": {"kind": "timeout", "correlation_id": "c"}}),
        ),
        case(
            "id-exact-big-number",
            "map",
            json!({"input_text": "{\"kind\":\"timeout\",\"id\":12345678901234567890123,\"correlation_id\":\"c\"}"}),
        ),
        case(
            "id-exact-fraction",
            "map",
            json!({"input_text": "{\"kind\":\"timeout\",\"id\":1.50,\"correlation_id\":\"c\"}"}),
        ),
        case(
            "long-details-truncated-at-1kb",
            "map",
            json!({"input": {"kind": "configuration-error", "details": format!("é{long}"), "correlation_id": "c"}}),
        ),
        case(
            "secret-in-details-scrubbed",
            "map",
            json!({"dialect": "thoughtgate", "input": {"kind": "configuration-error", "correlation_id": "c",
            "details": "cannot read /home/carol/.config/app.toml: api_key = \"Zk29sLx0Pq8Wm3Vb\""}}),
        ),
        case(
            "env-value-scrubbed",
            "map",
            json!({"env": [["DEPLOY_TOKEN", "tok-9f8e7d6c5b4a"]], "input": {"kind": "upstream-error", "correlation_id": "c",
            "message": "auth with tok-9f8e7d6c5b4a rejected"}}),
        ),
        case(
            "policy-internals-never-exposed",
            "map",
            json!({"dialect": "thoughtgate", "input": {"kind": "policy-denied", "tool": "transfer_funds",
            "policy_id": "financial", "reason": "amount > 10000", "correlation_id": "ghi-789"}}),
        ),
        case(
            "adapter-retryable-override",
            "map",
            json!({"dialect": "error-model", "input": {"kind": "adapter-error", "original_error": "ORDER_LOCKED", "retryable": true, "id": 1}}),
        ),
        // Each dialect's generic data fields (taxonomy meta.dialect_fields), on kinds that do not list them.
        case(
            "generic/watchgate-details-and-request-id",
            "map",
            json!({"dialect": "watchgate", "ctx": ctx_json(),
            "input": {"kind": "rate-limited", "retry_after_secs": 3, "details": "quota of 100 calls per minute", "request_id": "req_123", "id": 7}}),
        ),
        case(
            "generic/error-model-domain-details",
            "map",
            json!({"dialect": "error-model", "input": {"kind": "rate-limited", "retry_after_secs": 3, "id": 7,
            "field": "calls", "reason": "quota", "suggestion": "Wait for the next minute.", "context": {"retryAfterSecs": 99, "region": "eu", "limits": [100, 1000]}}}),
        ),
        case(
            "generic/error-model-protocol-error-data",
            "map",
            json!({"dialect": "error-model", "input": {"kind": "method-not-found", "method": "tools/lst", "id": 7,
            "suggestion": "Call tools/list.", "context": {"known": ["tools/list", "tools/call"]}}}),
        ),
        case(
            "generic/kind-field-wins",
            "map",
            json!({"dialect": "error-model", "input": {"kind": "validation-error", "field": "order.email", "id": 7, "reason": "format"}}),
        ),
        case(
            "generic/scrubbed",
            "map",
            json!({"dialect": "error-model", "input": {"kind": "timeout", "id": 7,
            "suggestion": "check /home/carol/app.toml", "context": {"api_key=Zk29sLx0Pq8Wm3Vb": "Bearer abcDEF123456ghiJKL"}}}),
        ),
        case(
            "fail/generic-field-of-another-dialect",
            "map",
            json!({"dialect": "canonical", "input": {"kind": "timeout", "suggestion": "retry"}}),
        ),
        case(
            "fail/generic-field-wrong-type",
            "map",
            json!({"dialect": "error-model", "input": {"kind": "timeout", "context": ["not", "an", "object"]}}),
        ),
        // Found by fuzzing: the caller's correlation id and timestamp are echoed, so they are scrubbed too.
        case(
            "secret-in-correlation-id-and-timestamp-scrubbed",
            "map",
            json!({"dialect": "watchgate", "input": {"kind": "security-violation", "id": 3,
            "correlation_id": "req-1 npm_fkbSh2Cde2wioVMEuUYMjPeFXsRgZzCYTHY2", "timestamp": "2026-01-01 Bearer abcDEF123456ghiJKL"}}),
        ),
        case("fail/not-json", "map", json!({"input_text": "{\"kind\":"})),
        case("fail/not-an-object", "map", json!({"input": 42})),
        case("fail/empty-array", "map", json!({"input": []})),
        case("fail/missing-kind", "map", json!({"input": {"tool": "x"}})),
        case(
            "fail/unknown-kind",
            "map",
            json!({"input": {"kind": "tool-exploded"}}),
        ),
        case(
            "fail/unknown-dialect",
            "map",
            json!({"dialect": "klingon", "input": {"kind": "timeout"}}),
        ),
        case(
            "fail/kind-not-in-dialect",
            "map",
            json!({"dialect": "duet", "input": {"kind": "tool-not-exposed", "tool": "x"}}),
        ),
        case(
            "fail/missing-required-field",
            "map",
            json!({"input": {"kind": "approval-timeout", "tool": "x"}}),
        ),
        case(
            "fail/wrong-field-type",
            "map",
            json!({"input": {"kind": "approval-timeout", "tool": "x", "timeout_secs": "30"}}),
        ),
        case(
            "fail/negative-u64",
            "map",
            json!({"input": {"kind": "approval-timeout", "tool": "x", "timeout_secs": -1}}),
        ),
        case(
            "fail/unknown-field",
            "map",
            json!({"input": {"kind": "timeout", "tool": "x"}}),
        ),
        case(
            "fail/invalid-id-type",
            "map",
            json!({"input": {"kind": "timeout", "id": [1]}}),
        ),
        case(
            "fail/unknown-invalid-request-reason",
            "map",
            json!({"input": {"kind": "invalid-request", "reason": "because"}}),
        ),
        case(
            "fail/secret-in-kind-name-not-echoed",
            "map",
            json!({"input": {"kind": "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}),
        ),
    ];
    json!({"description": "map: gate precedence, id echo, correlation ids, truncation, scrubbing, and bad input.", "cases": cases})
}

fn validate_cases() -> Value {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let deep_req = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1,\"params\":{deep}}}");
    let allow = json!({"batch": "allow"});
    let c = |name: &str, raw: &str, options: Value| {
        case(
            name,
            "validate",
            json!({"raw": raw, "options": options, "ctx": ctx_json()}),
        )
    };
    let cases = vec![
        c(
            "spec/positional-params",
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            json!({}),
        ),
        c(
            "spec/named-params",
            r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
            json!({}),
        ),
        c(
            "spec/notification",
            r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
            json!({}),
        ),
        c(
            "spec/invalid-json",
            r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            json!({}),
        ),
        c(
            "spec/invalid-request-object",
            r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            json!({}),
        ),
        c(
            "spec/batch-invalid-json",
            r#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method""#,
            allow.clone(),
        ),
        c("spec/empty-array", "[]", allow.clone()),
        c("spec/invalid-batch-one", "[1]", allow.clone()),
        c("spec/invalid-batch-three", "[1,2,3]", allow.clone()),
        c(
            "spec/mixed-batch",
            r#"[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]"#,
            allow.clone(),
        ),
        c(
            "batch-rejected-by-default",
            r#"[{"jsonrpc":"2.0","method":"a","id":1}]"#,
            json!({}),
        ),
        c("empty-batch-rejected-by-default", "[]", json!({})),
        c(
            "oversize",
            r#"{"jsonrpc":"2.0","method":"a","id":"secret-id"}"#,
            json!({"max_bytes": 16}),
        ),
        c(
            "oversize-declared-content-length",
            "",
            json!({"max_bytes": 1024, "content_length": 999999}),
        ),
        c(
            "content-length-mismatch",
            r#"{"jsonrpc":"2.0","method":"a","id":1}"#,
            json!({"content_length": 5}),
        ),
        c(
            "content-type-json-ok",
            r#"{"jsonrpc":"2.0","method":"a","id":1}"#,
            json!({"content_type": "application/json; charset=UTF-8"}),
        ),
        c(
            "content-type-unsupported",
            r#"{"jsonrpc":"2.0","method":"a","id":1}"#,
            json!({"content_type": "text/plain"}),
        ),
        c(
            "content-type-bad-charset",
            r#"{"jsonrpc":"2.0","method":"a","id":1}"#,
            json!({"content_type": "application/json; charset=iso-8859-1"}),
        ),
        c(
            "trailing-garbage",
            r#"{"jsonrpc":"2.0","method":"a","id":1} x"#,
            json!({}),
        ),
        c("deep-nesting-does-not-crash", &deep_req, json!({})),
        c(
            "deep-nesting-100k-levels-read-iteratively",
            &format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":2,\"params\":{}{}}}",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
            json!({}),
        ),
        c(
            "duplicate-method-refused",
            r#"{"jsonrpc":"2.0","method":"tools/list","id":1,"method":"tools/call"}"#,
            json!({}),
        ),
        // Found by cargo-fuzz (guard): a string id holding a lone surrogate escape cannot be read, so no answer could
        // carry it back (it was "valid" with `id: null`).
        c(
            "invalid-id-string-lone-surrogate",
            r#"{"jsonrpc":"2.0","method":"ping","id":"-\uDEe9\/1"}"#,
            json!({}),
        ),
        c(
            "id-string-with-a-surrogate-pair-is-valid",
            r#"{"jsonrpc":"2.0","method":"ping","id":"\uD83D\uDE00"}"#,
            json!({}),
        ),
        c(
            "duplicate-id-refused-in-a-batch-member",
            r#"[{"jsonrpc":"2.0","method":"a","id":1,"id":2},{"jsonrpc":"2.0","method":"b","id":3}]"#,
            json!({"batch": "allow"}),
        ),
        c(
            "unknown-members-may-repeat",
            r#"{"jsonrpc":"2.0","method":"a","id":1,"x":1,"x":2}"#,
            json!({}),
        ),
        c(
            "id-object",
            r#"{"jsonrpc":"2.0","method":"a","id":{"x":1}}"#,
            json!({}),
        ),
        c(
            "id-array",
            r#"{"jsonrpc":"2.0","method":"a","id":[1]}"#,
            json!({}),
        ),
        c(
            "id-boolean",
            r#"{"jsonrpc":"2.0","method":"a","id":true}"#,
            json!({}),
        ),
        c(
            "id-null-is-valid",
            r#"{"jsonrpc":"2.0","method":"a","id":null}"#,
            json!({}),
        ),
        c(
            "id-exact-fraction",
            r#"{"jsonrpc":"2.0","method":"a","id":1.0}"#,
            json!({}),
        ),
        c(
            "id-exact-big-number",
            r#"{"jsonrpc":"2.0","method":"a","id":123456789012345678901234567890}"#,
            json!({}),
        ),
        c(
            "id-echoed-on-wrong-version",
            r#"{"jsonrpc":"1.0","method":"a","id":"r-1"}"#,
            json!({}),
        ),
        c("missing-jsonrpc", r#"{"method":"a","id":2}"#, json!({})),
        c("missing-method", r#"{"jsonrpc":"2.0","id":3}"#, json!({})),
        c(
            "params-not-structured",
            r#"{"jsonrpc":"2.0","method":"a","params":5,"id":4}"#,
            json!({}),
        ),
        c("not-an-object", r#""hello""#, json!({})),
        c("null-body", "null", json!({})),
        c("empty-body", "", json!({})),
        c(
            "duet-dialect-data-shape",
            r#"{"jsonrpc":"2.0","method":"a","id":{"x":1}}"#,
            json!({"dialect": "duet"}),
        ),
        c(
            "thoughtgate-dialect",
            r#"{"jsonrpc":"2.0","method":1,"id":9}"#,
            json!({"dialect": "thoughtgate"}),
        ),
        case(
            "invalid-utf8",
            "validate",
            json!({"raw_hex": "7b226a736f6e727063223a22322e30222c226d6574686f64223a22ff227d", "ctx": ctx_json()}),
        ),
        case(
            "fail/unknown-dialect",
            "validate",
            json!({"raw": "{}", "options": {"dialect": "klingon"}}),
        ),
    ];
    json!({"description": "validate: the JSON-RPC 2.0 specification's own examples, duet-rpc ADR-012 envelope rules, size, content type, charset and batch policy.", "cases": cases})
}

fn sanitize_cases() -> Value {
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":-32603,\"message\":\"{}\"}},\"id\":1}}",
        "é".repeat(900)
    );
    let c = |name: &str, raw: &str, dialect: &str| {
        case(
            name,
            "sanitize",
            json!({"raw": raw, "dialect": dialect, "ctx": ctx_json()}),
        )
    };
    let cases = vec![
        c("standard-code-kept-message-scrubbed", r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d","data":{"param":"x","trace":"at foo (/srv/a.js:1:2)","owner":"ann@corp.example"}},"id":5}"#, "canonical"),
        c("custom-code-becomes-upstream-error", r#"{"jsonrpc":"2.0","error":{"code":-32005,"message":"DB down: postgres://app:pw@db/x"},"id":"a"}"#, "canonical"),
        // MCP's spec owns -32020..-32099 (and the retired -32002, -32042): kept with their data's structure.
        c("spec-code-kept-with-its-data", r#"{"jsonrpc":"2.0","error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url","elicitationId":"e-1","url":"https://auth.example.com/x?e=1","message":"sign in as ann@corp.example"}],"stack":"at x"}},"id":"u"}"#, "thoughtgate"),
        // A server that cut its message mid-token, the whole token in data under a sensitive name: the part in
        // the message is redacted too (issue 25).
        c("token-split-between-message-and-data", r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad token ghp_u8jzPde0IgxLd6G…","data":{"token":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d","hint":"regenerate it"}},"id":3}"#, "canonical"),
        c("spec-reserved-code-kept", r#"{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2099-01-01"}},"id":9}"#, "canonical"),
        c("custom-code-thoughtgate", r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"timeout talking to /home/svc/sock"},"id":2}"#, "thoughtgate"),
        c("custom-code-kept-where-dialect-has-no-upstream-error", r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Upstream connection failed","data":{"details":"x","stack":"Traceback..."}},"id":2}"#, "watchgate"),
        c("stack-trace-in-message", "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32603,\"message\":\"boom\\n    at handler (/srv/app/index.js:10:5)\\n    at run (/srv/app/main.js:3:1)\\n\"},\"id\":3}", "canonical"),
        c("long-message-truncated", &long, "canonical"),
        c("success-passes-through", r#"{"jsonrpc":"2.0","result":{"ok":true},"id":1}"#, "canonical"),
        c("not-json-is-plain-internal-error", "<html>502 Bad Gateway</html>", "canonical"),
        c("no-error-member", r#"{"jsonrpc":"2.0","id":1}"#, "canonical"),
        c("code-not-integer", r#"{"jsonrpc":"2.0","error":{"code":"bad","message":"x"},"id":1}"#, "canonical"),
        c("invalid-id-becomes-null", r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":{"x":1}}"#, "duet"),
        c("secret-in-a-data-key-and-card-numbers-as-json-numbers", r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad","data":{"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d":{"card":4111111111111111,"tries":[5500000000000004,3]}}},"id":6}"#, "canonical"),
        c("diagnostic-keys-in-any-spelling-dropped-header-pairs-and-opaque-values-redacted", r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"failed","data":{"stack-trace":"at x","StackTrace":"at y","frames":["at handler (/srv/a.js:1:2)"],"request":{"headers":[["Authorization","Bearer abcdef123456"],["Accept","*/*"]],"signature":"3q2+7wAbCdEf0123456789Zz","key":"items:42","jwt":"eyJhbGciOiJIUzI1NiJ9"}}},"id":8}"#, "canonical"),
        case("invalid-utf8-repaired", "sanitize", json!({"raw_hex": "7b226a736f6e727063223a22322e30222c226572726f72223a7b22636f6465223a2d33323630332c226d657373616765223a2262616420ff206279746573227d2c226964223a317d", "dialect": "canonical", "ctx": ctx_json()})),
        case("fail/unknown-dialect", "sanitize", json!({"raw": "{}", "dialect": "klingon"})),
    ];
    json!({"description": "sanitize: upstream error responses scrubbed before a proxy passes them on.", "cases": cases})
}

fn redact_cases() -> Value {
    let mut cases = Vec::new();
    let examples = jsonrpc_errors_guest::redact::examples();
    for rule in jsonrpc_errors_guest::redact::catalogue_rules() {
        let rule_examples = &examples[&rule.id];
        for (i, ex) in rule_examples.examples.iter().enumerate() {
            cases.push(case(
                &format!("{}/positive-{}", rule.id, i + 1),
                "redact",
                json!({"text": ex}),
            ));
        }
        for (i, ex) in rule_examples.negative_examples.iter().enumerate() {
            cases.push(case(
                &format!("{}/negative-{}", rule.id, i + 1),
                "redact",
                json!({"text": ex}),
            ));
        }
    }
    for (name, text) in [
        ("benign/uuid", "request 123e4567-e89b-12d3-a456-426614174000 failed"),
        ("benign/sha256", "digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch"),
        ("benign/git-sha", "HEAD is now at 1b1281e4c0ffee"),
        ("benign/version", "requires jsonrpc-errors >= 1.2.3-beta.4+build.5"),
        ("benign/identifiers-with-key-and-token", "the key_count, tokenizer and token_budget settings; keyboard layout; monkey patch"),
        ("benign/env-references", "set $GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY} or %API_KEY%"),
        ("benign/template", "password: {{ vault.db_password }}"),
        ("benign/vendor-example-keys", "AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        ("benign/empty", ""),
        ("benign/unicode", "Fehler: Datei „bericht.pdf“ nicht gefunden — 文件未找到"),
        ("mixed/several-secrets-one-line", "user alice@corp.example sent Authorization: Bearer abcDEF123456ghiJKL from /Users/alice/work with AKIAR6QMW4WXFOGO6MVN"),
        // Lines that look alike once redacted: settling looks at `password=[REDACTED:…]` once and remembers it
        // found nothing new (the npm base module, built without that memory, must agree byte for byte).
        ("mixed/repeated-redacted-words", "login password=hunter2a user=ann@corp.example\nlogin password=s3cr3t99 user=bob@corp.example\nlogin password=[REDACTED:secret-assignment]ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d user=cy@corp.example"),
        // Found by cargo-fuzz: a keyword's window ended at the next word holding the keyword again, which then
        // opened none, so the credential after it survived.
        ("mixed/keyword-word-before-basic-credential", "use basic Basic YWxhZGRpbjpvcGVuc2VzYW1l for auth=basic Basic dXNlcjpwYXNzd29yZA=="),
        ("mixed/keyword-word-before-bearer-token", "the bearer Bearer abcdefghijklmnopqrstuvwxyz0123456789"),
        // Found by cargo-fuzz: the assignment validator judged a value by its last word only, so a quoted
        // password ending in a short or repeated word passed as a placeholder and stayed in clear.
        ("assignment/quoted-password-ending-in-a-short-word", "DB_PASSWORD: 'hunter2 x' and password=\"c0rrect horse !!\""),
        // Found by cargo-fuzz: a value running from `${` to a `}` with spaces between was taken for a
        // template (a placeholder) and left in clear.
        ("assignment/braces-around-a-phrase-are-no-template", "db_password=\"${correct horse battery staple}\" but password=${DB_PASSWORD} stays"),
        // Found by cargo-fuzz: a template (a placeholder, refused) whose closing braces a URL token ran past
        // was left in clear; once the token was a marker, a second pass took the rest for a secret.
        ("assignment/template-whose-end-a-token-runs-past", "secret={{ vault.key&token=9f2Kq7LmZ3xW}} and password={{ vault.db }} stays"),
        // Found by cargo-fuzz: an assignment whose key sat in URL userinfo was clipped at the `@` and dropped,
        // and the assignments its value had hidden were never looked at.
        ("url/userinfo-key-hides-no-later-assignment", "fetch https://x-access-token:abcd1235efgh@github.com/org/repo/client_secret\": \"s3cr3tValue99xyz\" failed"),
        // Found by cargo-fuzz: the same, with the URL glued to a secret before it: that marker's word hid the
        // URL marker's, which looks at the rest of the line.
        ("url/userinfo-key-glued-to-a-secret-before-it", "Pwd=vb'https://token:2x9@api.example.com/client_secret: s3cr3tValue99xyz failed"),
        // Found by cargo-fuzz: a token glued to the front of URL userinfo named the span (`stripe-key`), and the
        // span's name, not its end at the `@`, decided whether the rest of the line was read again.
        ("url/userinfo-begun-by-a-token", "fetch https://sk_test_BQokikJOvBiI2HlWgH4olfQ2x-access-token:abd123h@github.com/org/repo/client_secret\": \"s3cr3tValue99xyz\" failed"),
        // Found by cargo-fuzz: a `}` inside a URL token ended a `{{ … }}` template early; once the token was a
        // marker, a second pass read the template to its `}}` and redacted it.
        ("assignment/brace-inside-a-token-does-not-end-a-template", "secret={{ vault.key&token=9f2Kq7LmZ3xW}x and password={{ vault.db }} stays"),
        // Found by cargo-fuzz: an e-mail glued to a PEM block; the e-mail's word hid the lines the block's
        // marker joined, which a second pass then read as a JS stack frame.
        ("mixed/block-glued-to-an-email-in-a-frame-line", "    at /5@g.co-----BEGINPRIVATE KEY-----\n=:5"),
        ("assignment/unterminated-token-value-then-password", "{\"authToken\": \"0ef82b15fc467fe93e81dd58a0c1f9a5 DB_PASSWORD: 'hunter2 x"),
        // Issue 25: lines that were redacted wrongly, each left as it is now.
        ("benign/ssh-targets-are-no-email", "fatal: Could not read from remote repository git@github.com:org/repo.git; ssh -p 2222 deploy@bastion.example.com: Permission denied"),
        ("benign/home-in-a-url-path-or-deeper-in-a-path", "GET https://shop.example.com/home/products/42 returned 404; pip cache at /tmp/build/home/.cache/pip"),
        ("benign/version-shaped-like-an-address", "upgraded to version 10.2.1.5 (pkg==10.2.1.5)"),
        ("benign/a-word-about-a-password", "login failed: password: incorrect"),
        ("benign/begin-line-then-a-log-line", "-----BEGIN PRIVATE KEY-----\n2026-11-21 10:04:12 INFO server started on :8080\n"),
        ("benign/ordinary-names-of-keys-and-tokens", "cache_key=user:42:profile primary_key=order_items_pkey next_page_token=CiAKGjBp token_count=5120 AccountSid=AC3577aa6c55e0d19d3572186e5761b152"),
        // Issue 25: shapes that were missed.
        ("missed/url-credentials-with-an-empty-user", "redis.exceptions.AuthenticationError: redis://:Zq8vR2mXw4Lk@cache.internal:6379/0"),
        ("missed/cookies-and-session-cookies", "> Cookie: theme=dark; sid=Zq8vR2mXw4LkP0aB\n< Set-Cookie: laravel_session=eyJpdiI6Ik1xY2x; Path=/\nconnect.sid=s%3AZq8vR2mXw4LkP0aB9f2c"),
        ("missed/secret-named-keys-in-reprs", "KeyError: {'db_pass': 'Xq83-bvT9', 'user': 'app'} Settings { smtp_pass: \"hunter2\" }"),
        ("missed/environment-dump-names", "APP_SALT=Zq2Lw8xRt5Vn\nJWT_SIGNING_KEY=k3j5h2l1m9n8b7v6\nSECRET_KEY_BASE=9f2c0d7e41b86a53f0c1\nSMTP_PASS=hunter2\nADAFRUIT_IO_KEY=6ab2c7fd04e1a93f58b2d07c1e4a9f30"),
        ("missed/basic-and-registry-credentials", "> Authorization: Basic ZGVwbG95OmMwcnJlY3QtaDByc2U= {\"auths\":{\"ghcr.io\":{\"auth\":\"ZGVwbG95OmMwcnJlY3Q=\"}}}"),
        ("missed/netrc-and-kubeconfig", "machine example.com login bob password hunter2\nusers:\n- name: admin\n  user:\n    token: 7a3f9c2e1b4d8a6f0c5e9b2d"),
        ("missed/webhook-urls", "POST https://hooks.slack.com/services/T024BE7LD/B08ABCDEF12/XyZ1234567890abcdefGHIJK; POST https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz01; POST https://acme.webhook.office.com/webhookb2/a@b/IncomingWebhook/8411117bab91a33121a7a745d02601b7/c"),
        ("missed/signed-url-parameters", "GET /a.tgz?X-Amz-Security-Token=IQoJb3JpZ2luX2VjEJr8&X-Amz-Signature=f0e1d2c3b4a59687 and /c/b?sv=2022-11-02&sig=ab%2Bcd%3D12efGH34"),
        ("missed/raw-hex-private-keys", "PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318; cast send --private-key 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"),
        ("missed/home-in-escaped-windows-paths-and-tilde", "{\"path\":\"C:\\\\Users\\\\alice\\\\AppData\"} open ~bob/.ssh/id_rsa failed"),
        ("missed/us-ssn", "identity check failed for applicant SSN 123-45-6789"),
        ("missed/value-after-its-name", "2026-11-21 10:04:12,118 ERROR Algolia rejected algolia_api_key 7ecd2a8183c77776410ba93c8722bc0d: 401; invalid ENV_TOKEN for Acme: 'Zq8vR2mXw4LkP0aB9f2c'"),
        ("missed/database-errors", "DETAIL:  Key (api_key)=(8e4c3fd8b2be96f295d6b16850c9de0c) already exists.\n(1062, \"Duplicate entry 'Xq83bvT9Lm2Kp7Wz4Ns6' for key 'credentials.uq_twitter_api_secret'\")"),
        ("missed/pem-printed-in-pieces", "{\n  tlsKey: '-----BEGIN EC PRIVATE KEY-----\\n' +\n    'MHcCAQEEIdCKtB+0SQQlfawHJUb1yb8FPv4dudBHFJSg05IMAdU5SB7uG6gGkvw1\\n' +\n    '-----END EC PRIVATE KEY-----',\n}"),
        // Issue 25: evasion. Found on the folded text, redacted as written.
        ("evasion/homoglyph-in-a-keyword", "p\u{430}ssword=hunter2 and Auth\u{43e}rization: Bearer abcDEF123456ghiJKL"),
        ("evasion/full-width-keyword-and-token", "\u{ff50}\u{ff41}\u{ff53}\u{ff53}\u{ff57}\u{ff4f}\u{ff52}\u{ff44}=hunter2 key \u{ff21}\u{ff2b}\u{ff29}\u{ff21}R6QMW4WXFOGO6MVN"),
        ("evasion/zero-width-inside-keyword-and-token", "pass\u{200b}word=hunter2 token ghp_u8jzPde0IgxLd6GncfB\u{200b}AepfJBd0Kh8oOOL8d ok"),
    ] {
        cases.push(case(name, "redact", json!({"text": text})));
    }
    cases.push(case("env/secret-looking-name", "redact", json!({"text": "connect with hunter2-hunter2 failed", "env": [["DB_PASSWORD", "hunter2-hunter2"]]})));
    cases.push(case(
        "env/ordinary-name-ignored",
        "redact",
        json!({"text": "HOME is /srv/data/app", "env": [["APP_HOME", "/srv/data/app"]]}),
    ));
    cases.push(case(
        "env/short-value-ignored",
        "redact",
        json!({"text": "value abc here", "env": [["API_KEY", "abc"]]}),
    ));
    // Issue 25: an environment value that could be no secret (a word, a host) is not redacted everywhere.
    cases.push(case(
        "env/ordinary-values-ignored",
        "redact",
        json!({"text": "could not connect to postgres on localhost with Xq83-bvT9-Lm2K", "env": [["PGPASSWORD", "postgres"], ["REDIS_PASSWORD", "localhost"], ["API_TOKEN", "Xq83-bvT9-Lm2K"]]}),
    ));
    json!({"description": "redact: every catalogue rule's examples (positive and negative), benign look-alikes, and caller-supplied environment values.", "cases": cases})
}

/// Every export that the other files do not cover: redaction under options, JSON-aware redaction, the taxonomy
/// table, the refusals runtimes ask for, and the input limit.
fn contract_cases() -> Value {
    let github = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
    let line = format!("push with {github} by bob@example.com from /home/bob/src");
    let cases = vec![
        case("redact-with/defaults", "redact_with", json!({"text": line})),
        case(
            "redact-with/mask",
            "redact_with",
            json!({"text": line, "options": {"method": "mask"}}),
        ),
        case(
            "redact-with/remove",
            "redact_with",
            json!({"text": line, "options": {"method": "remove"}}),
        ),
        case(
            "redact-with/hash",
            "redact_with",
            json!({"text": format!("{line}; again {github}"), "options": {"method": "hash", "hash_key": "0123456789abcdef-key"}}),
        ),
        case(
            "redact-with/disable-rule-and-category",
            "redact_with",
            json!({"text": line, "options": {"disable": ["github-token", "path"]}}),
        ),
        case(
            "redact-with/allowlist",
            "redact_with",
            json!({"text": line, "options": {"allowlist": ["bob@example.com"]}}),
        ),
        case(
            "redact-with/extra-rule-secret-group",
            "redact_with",
            json!({"text": "order ORD-123456 ticket TCK-998877 for bob", "options": {"extra_rules": [
                {"id": "ticket-id", "category": "pii", "pattern": "TCK-([0-9]{6})", "keywords": ["TCK-"], "secret_groups": [1]},
                {"id": "order-id", "category": "pii", "pattern": "ORD-[0-9]{6}"}
            ]}}),
        ),
        // Found by cargo-fuzz (redact): a pattern nested deeper than regex-lite's default limit but within the
        // policy's was accepted, and its assignment window's anchored form panicked when first compiled.
        case(
            "redact-with/extra-assignment-rule-nested-55-deep",
            "redact_with",
            json!({"text": "login password=hunter2 failed", "options": {"extra_rules": [
                {"id": "deep", "category": "credential", "keywords": ["password"], "window": "assignment",
                 "pattern": format!("{}password=[a-z0-9]+{}", "(?:".repeat(55), ")".repeat(55))}
            ]}}),
        ),
        case(
            "redact-with/env-value",
            "redact_with",
            json!({"text": "dial hunter2-hunter2 now", "options": {"method": "mask"}, "env": [["DB_PASSWORD", "hunter2-hunter2"]]}),
        ),
        case(
            "fail/redact-with-hash-without-key",
            "redact_with",
            json!({"text": line, "options": {"method": "hash"}}),
        ),
        case(
            "fail/redact-with-unknown-option",
            "redact_with",
            json!({"text": line, "options": {"hashkey": "0123456789abcdef"}}),
        ),
        case(
            "fail/redact-with-options-not-json",
            "redact_with",
            json!({"text": line, "options_text": "{method: mask}"}),
        ),
        case(
            "fail/redact-with-bad-rule-id",
            "redact_with",
            json!({"text": line, "options": {"extra_rules": [{"id": "Bad Id", "category": "pii", "pattern": "x"}]}}),
        ),
        case(
            "fail/redact-with-bad-pattern",
            "redact_with",
            json!({"text": line, "options": {"extra_rules": [{"id": "broken", "category": "pii", "pattern": "(unclosed"}]}}),
        ),
        // Found by cargo-fuzz (redact): an empty keyword is found inside characters and sliced the text there.
        case(
            "fail/redact-with-empty-keyword",
            "redact_with",
            json!({"text": line, "options": {"extra_rules": [{"id": "everywhere", "category": "pii", "keywords": [""], "pattern": "ORD-[0-9]+", "window": "assignment"}]}}),
        ),
        case(
            "fail/redact-with-missing-group",
            "redact_with",
            json!({"text": line, "options": {"extra_rules": [{"id": "nogroup", "category": "pii", "pattern": "ORD-[0-9]+", "secret_groups": [2]}]}}),
        ),
        case(
            "redact-json-value/sensitive-keys-and-scanned-strings",
            "redact_json_value",
            json!({"value": {"user": "bob", "password": "correct horse battery staple", "headers": {"Authorization": "Basic Ym9iOnNlY3JldA=="},
                              "log": [format!("clone failed for {github}"), 42, null, true], "note": "nothing here"}}),
        ),
        case(
            "redact-json-value/extra-sensitive-key",
            "redact_json_value",
            json!({"value": {"session": "s-1234567890", "ok": "fine"}, "options": {"sensitive_keys": ["session"]}}),
        ),
        case(
            "redact-json-value/secret-in-a-member-name",
            "redact_json_value",
            json!({"value": {github.clone(): "value"}}),
        ),
        // Member and header names as issue 25 found them leaking: normalised (case, -/_/./space, a header's x-),
        // sensitive by name or by suffix, ordinary words a suffix also ends left alone.
        case(
            "redact-json-value/names-normalised-with-prefixes-and-suffixes",
            "redact_json_value",
            json!({"value": {
            "environ": {"DATABASE_PASS": "pw-Xq83", "HOME": "/srv/app"}, "conn_str": "Server=db;Uid=sa;Pwd=Xq83;",
            "signature": "abc", "salt": "NaCl", "otp": 123456, "pin": "0000", "credentials": {"pass": "Xq83"},
            "headers": [["X-Session", "s-1"], ["X-Trace", "t-1"], ["Set-Cookie", "sid=1"]],
            "bypass": true, "compass": "north", "max_tokens": 4096, "JWT_SIGNING_KEY": "k", "SECRET_KEY_BASE": "b"}}),
        ),
        case(
            "redact-json-value/scalar-document",
            "redact_json_value",
            json!({"value_text": format!("\"{github}\"")}),
        ),
        case(
            "redact-json-value/numbers-kept-as-written",
            "redact_json_value",
            json!({"value_text": "{\"n\":1.50,\"big\":123456789012345678901234567890,\"e\":1e400}"}),
        ),
        // Found by cargo-fuzz (redact_json): a member renamed by redaction took the name of a later member and was
        // overwritten by it. Names that stay are reserved first.
        case(
            "redact-json-value/renamed-member-never-overwrites-another",
            "redact_json_value",
            json!({"value_text": format!("{{\"{github}\":1,\"[REDACTED:github-token]\":2,\"[REDACTED:github-token]#2\":3}}")}),
        ),
        case(
            "redact-json-value/removed-member-name-never-overwrites-another",
            "redact_json_value",
            json!({"value_text": format!("{{\"{github}\":1,\"\":2}}"), "options": {"method": "remove"}}),
        ),
        case(
            "fail/redact-json-value-not-json",
            "redact_json_value",
            json!({"value_text": "{\"a\":"}),
        ),
        case(
            "fail/redact-json-value-bad-options",
            "redact_json_value",
            json!({"value": {}, "options": {"sensitive_keys": "session"}}),
        ),
        case("kinds/table", "kinds", json!({})),
        case("max-input-bytes", "max_input_bytes", json!({})),
        case(
            "refusal/unknown-dialect",
            "refusal",
            json!({"problem": {"unknown_dialect": "jsonrpc-3"}}),
        ),
        case(
            "refusal/unknown-dialect-scrubbed",
            "refusal",
            json!({"problem": {"unknown_dialect": format!("x-{github}")}}),
        ),
        case(
            "refusal/not-unicode",
            "refusal",
            json!({"problem": {"not_unicode": 17}}),
        ),
        case(
            "refusal/too-large",
            "refusal",
            json!({"problem": {"too_large": 67_108_865}}),
        ),
        case(
            "refusal/unknown-format",
            "refusal",
            json!({"problem": {"unknown_format": "yaml"}}),
        ),
        case(
            "fail/codes-unknown-format",
            "codes",
            json!({"dialect": "a2a", "format": "yaml"}),
        ),
    ];
    json!({"description": "The rest of the contract: redact-with, redact-json-value, kinds-json, refusal and max-input-bytes (every WIT export has an op).", "cases": cases})
}

fn lookup_cases() -> Value {
    let l = |name: &str, dialect: &str, code: i64, extra: Value| {
        let mut f = json!({"dialect": dialect, "code": code});
        if let (Value::Object(a), Value::Object(b)) = (&mut f, extra) {
            a.extend(b);
        }
        case(name, "lookup", f)
    };
    let cases = vec![
        l("thoughtgate/-32001", "thoughtgate", -32001, json!({})),
        l("watchgate/-32001", "watchgate", -32001, json!({})),
        l("a2a/-32001", "a2a", -32001, json!({})),
        l("duet/-32001-undefined", "duet", -32001, json!({})),
        l(
            "canonical/-32019-by-type",
            "canonical",
            -32019,
            json!({"data": {"type": "unknown-skill"}}),
        ),
        l("canonical/-32019-home-kind", "canonical", -32019, json!({})),
        l(
            "canonical/-32602-by-type",
            "canonical",
            -32602,
            json!({"data": {"type": "missing-required-field"}}),
        ),
        l(
            "vapora/-32000-unknown-skill",
            "vapora",
            -32000,
            json!({"message": "Unknown skill: summarize"}),
        ),
        l(
            "vapora/-32000-task-not-found",
            "vapora",
            -32000,
            json!({"message": "Task not found: t-9"}),
        ),
        l(
            "vapora/-32000-state",
            "vapora",
            -32000,
            json!({"message": "Invalid state transition: completed -> working"}),
        ),
        l("error-model/2002", "error-model", 2002, json!({})),
        l(
            "mcp/-32602-unknown-tool",
            "mcp",
            -32602,
            json!({"message": "Unknown tool: admin_delete"}),
        ),
        case(
            "lookup/data-null-ignored",
            "lookup",
            json!({"dialect": "canonical", "code": -32602, "data": null}),
        ),
        case(
            "explain/watchgate-32003",
            "explain",
            json!({"dialect": "watchgate", "code": -32003}),
        ),
        case(
            "explain/canonical-32013-family",
            "explain",
            json!({"dialect": "canonical", "code": -32013}),
        ),
        case(
            "fail/explain-unknown-code",
            "explain",
            json!({"dialect": "duet", "code": -32015}),
        ),
        case(
            "codes/a2a-json",
            "codes",
            json!({"dialect": "a2a", "format": "json"}),
        ),
        case(
            "codes/duet-markdown",
            "codes",
            json!({"dialect": "duet", "format": "markdown"}),
        ),
        case(
            "codes/watchgate-json-with-generic-fields",
            "codes",
            json!({"dialect": "watchgate", "format": "json"}),
        ),
        case(
            "codes/error-model-markdown-with-generic-fields",
            "codes",
            json!({"dialect": "error-model", "format": "markdown"}),
        ),
    ];
    json!({"description": "lookup, explain and codes: reverse lookup across colliding codes, and the code tables.", "cases": cases})
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
    use jsonrpc_errors_guest::guard::Failure;
    let o = case.get("options").cloned().unwrap_or(json!({}));
    let policy_env = env_pairs(o.get("policy_env"));
    let mut session = api::guard_session(api::SessionArgs {
        dialect: o
            .get("dialect")
            .and_then(Value::as_str)
            .unwrap_or("canonical"),
        max_bytes: o.get("max_bytes").and_then(Value::as_u64),
        batch: o.get("batch").and_then(Value::as_str).unwrap_or("reject"),
        timeout_ms: o.get("timeout_ms").and_then(Value::as_u64),
        upstream: o
            .get("upstream")
            .and_then(Value::as_str)
            .unwrap_or("upstream"),
        failed_result_bytes: o.get("failed_result_bytes").and_then(Value::as_u64),
        policy: o.get("policy").and_then(Value::as_str),
        policy_env: &policy_env,
    })?;
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
                (Some(n), _, _) => Failure::Exited(n.as_i64().unwrap() as i32),
                (_, Some(n), _) => Failure::Killed(n.as_i64().unwrap() as i32),
                (_, _, Some(r)) => Failure::SpawnFailed(r.as_str().unwrap().to_string()),
                _ => Failure::ClosedOutput,
            };
            session.upstream_failed(failure, at).to_json()
        } else if step.get("expire").is_some() {
            session.expire(at).to_json()
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

const REQUEST_1: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":{}}}"#;

fn guard_cases() -> Value {
    let opts = |dialect: &str, timeout: Option<u64>| json!({"dialect": dialect, "timeout_ms": timeout, "upstream": "stdio:server"});
    let canonical = opts("canonical", Some(30_000));
    let g = |name: &str, options: &Value, script: Value| {
        case(
            name,
            "guard",
            json!({"options": options, "ctx": ctx_json(), "script": script}),
        )
    };
    // A server's own code (MCP's implementation-defined range): the upstream's error, re-labelled.
    let secret_error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"DB down: postgres://app:hunter2@db.internal/x from /home/alice/app.py","data":{"stack":"Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 3","token":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}}"#;
    let failed_tool = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [
        {"type": "text", "text": "Error executing tool query: token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d for alice@corp.example"},
        {"type": "text", "text": format!("log: {}", "0123456789".repeat(150))},
        {"type": "resource", "resource": {"uri": "file:///tmp/x", "text": "password=hunter2hunter2"}},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"}],
        "structuredContent": {"error": "connect postgres://app:hunter2@db/x"}, "isError": true}})
    .to_string();
    let cases = vec![
        g(
            "relay/request-result-and-notifications-untouched",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#},
            {"client": r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":"d","result":{"ok":true,"secret_looking":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}"#}]),
        ),
        g(
            "client/bad-lines-answered-here",
            &canonical,
            json!([
            {"client": "{not json"},
            {"client": "42"},
            {"client": r#"{"jsonrpc":"2.0","id":7}"#},
            {"client": r#"{"jsonrpc":"1.0","id":"a","method":"m"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":{"x":1},"method":"m"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"m","params":"x"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#},
            {"client": r#"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#},
            {"client": ""},
            {"client_hex": "7b226964223a22ff227d"}]),
        ),
        g(
            "client/duplicate-id-in-flight",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"client": r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#}]),
        ),
        // Found by cargo-fuzz (guard): ids were keyed by their spelling, so a second request with an id in flight
        // written with escapes was forwarded, and an answer re-escaping the id was dropped as a stray.
        // Found by cargo-fuzz (guard): the answer to a request the upstream made before it failed was still
        // forwarded to the failed upstream.
        g(
            "client/answer-to-a-failed-upstreams-request-dropped",
            &canonical,
            json!([
            {"upstream": r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}"#},
            {"upstream_failed": {"exited": 1}},
            {"client": r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#}]),
        ),
        // Found by cargo-fuzz (guard): an error response nested deeper than the JSON parser's limit took its
        // request out of the pending table and answered nothing.
        g(
            "upstream/error-nested-too-deep-still-answered",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32000,"message":"deep","data":{}{}}}}}"#, "[".repeat(200), "]".repeat(200))}]),
        ),
        // Found by cargo-fuzz (guard): a request whose string id holds a lone surrogate was forwarded, and every
        // answer of the guard's own to it (timeout, cancellation, failure) carried `null` for its id.
        g(
            "client/lone-surrogate-id-refused",
            &json!({"dialect": "canonical", "timeout_ms": 1000, "upstream": "stdio:server"}),
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":"-\uDEe9\/1","method":"ping"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"\uD83D\uDE00","method":"ping"}"#},
            {"expire": true, "at": 1_000}]),
        ),
        g(
            "client/id-spellings-are-one-id",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":"é/1","method":"ping"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"\u00e9\/1","method":"ping"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":"\u00E9/1","result":{}}"#}]),
        ),
        // Found by cargo-fuzz: an id beyond 64 bits answered with a zero fraction was dropped as an answer to
        // nothing, while `7.0` answered `7`.
        g(
            "client/big-integer-id-answered-with-zero-fraction",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":44444444444444444444444444444444444444441,"method":"ping"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":44444444444444444444444444444444444444441.0,"result":{}}"#}]),
        ),
        // Found by cargo-fuzz: an id with an exponent was keyed as written, so a server that answered `1E2`
        // with `100` (JavaScript, Python) answered nothing, and another spelling of the same number was no
        // duplicate. Numbers are keyed by value; the guard's own answer writes the id as serde_json does.
        g(
            "client/exponent-id-keyed-by-its-value",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1E2,"method":"ping"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":100.0,"method":"ping"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":100,"result":{}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":15e-1,"method":"ping"}"#},
            {"upstream_failed": {"exited": 1}}]),
        ),
        g(
            "client/oversize-never-read",
            &json!({"dialect": "canonical", "max_bytes": 64, "upstream": "stdio:server"}),
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"token":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}"#},
            {"client_oversize": 10_485_761}]),
        ),
        g(
            "upstream/error-sanitized-canonical",
            &canonical,
            json!([{"client": REQUEST_1}, {"upstream": secret_error}]),
        ),
        g(
            "upstream/error-sanitized-thoughtgate",
            &opts("thoughtgate", None),
            json!([{"client": REQUEST_1}, {"upstream": secret_error}]),
        ),
        g(
            "upstream/error-sanitized-watchgate",
            &opts("watchgate", None),
            json!([{"client": REQUEST_1}, {"upstream": secret_error}]),
        ),
        g(
            "upstream/error-mcp-tool-call-becomes-tool-result",
            &opts("mcp", None),
            json!([{"client": REQUEST_1}, {"upstream": secret_error}]),
        ),
        g(
            "upstream/error-mcp-other-method-stays-error",
            &opts("mcp", None),
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x"}}"#}, {"upstream": secret_error}]),
        ),
        g(
            "upstream/standard-code-kept-and-scrubbed",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: query (token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d)"}}"#}]),
        ),
        g(
            "upstream/error-with-env-secret",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32099,"message":"auth with tok-9f8e7d6c5b4a rejected"}}"#}]),
        ),
        g(
            "upstream/failed-tool-result-redacted-and-cut",
            &canonical,
            json!([{"client": REQUEST_1}, {"upstream": failed_tool}]),
        ),
        g(
            "upstream/clean-failed-tool-result-untouched",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no such city"}],"isError":true}}"#}]),
        ),
        g(
            "upstream/garbage-and-strays-dropped",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": "DEBUG: connecting with API_KEY=sk-proj-Zq8xW3vN6mK2pL9rT4yU7iO1aS5dF0gH"},
            {"upstream": r#"[1, {"jsonrpc":"2.0","method":"notifications/message","params":{}}]"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":99,"result":{}}"#},
            {"upstream": r#"{"hello":"world"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#},
            {"upstream": ""},
            {"upstream_oversize": 70_000_000},
            {"upstream": r#"{"id":1,"result":{}}"#}]),
        ),
        g(
            "upstream/invalid-utf8-repaired",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream_hex": "7b226a736f6e727063223a22322e30222c226964223a312c22726573756c74223a226162ff6364227d"}]),
        ),
        g(
            "upstream/null-id-error-passed-on-sanitized",
            &canonical,
            json!([
            {"upstream": r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error at /home/alice/x"}}"#}]),
        ),
        g(
            "timeout/answered-cancelled-late-answer-dropped",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#},
            {"client": REQUEST_1, "at": 10},
            {"expire": true, "at": 29_999},
            {"expire": true, "at": 30_000},
            {"expire": true, "at": 30_010},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "at": 30_500}]),
        ),
        g(
            "timeout/progress-restarts-the-wait",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p-1"}}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-1","progress":1,"total":3}}"#, "at": 20_000},
            {"expire": true, "at": 30_000},
            {"expire": true, "at": 50_000}]),
        ),
        g(
            "timeout/late-progress-dropped",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":7}}}"#},
            {"expire": true, "at": 30_000},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2}}"#, "at": 30_100},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":8,"progress":1}}"#, "at": 30_200}]),
        ),
        g(
            "timeout/mcp-dialect",
            &opts("mcp", Some(5_000)),
            json!([
            {"client": REQUEST_1},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x"}}"#},
            {"expire": true, "at": 5_000}]),
        ),
        g(
            "failure/exit-answers-pending-in-order-once",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#},
            {"client": REQUEST_1},
            {"client": r#"{"jsonrpc":"2.0","id":"two","method":"resources/list"}"#},
            {"client": r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#},
            {"upstream_failed": {"exited": 3}},
            {"upstream_failed": {"killed": 9}},
            {"client": r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#},
            {"client": r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#}]),
        ),
        g(
            "failure/killed-closed-output-spawn-failed",
            &opts("thoughtgate", None),
            json!([
            {"client": REQUEST_1},
            {"upstream_failed": "closed_output"},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#}]),
        ),
        g(
            "failure/spawn-failed",
            &opts("watchgate", None),
            json!([
            {"upstream_failed": {"spawn_failed": "No such file or directory (os error 2)"}},
            {"client": REQUEST_1}]),
        ),
        g(
            "server-requests/relayed-and-answered",
            &canonical,
            json!([
            {"upstream": r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[]}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant"}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant"}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#}]),
        ),
        g(
            "batch/allowed-split-and-gathered",
            &json!({"dialect": "canonical", "batch": "allow", "timeout_ms": 1000, "upstream": "stdio:server"}),
            json!([
            {"client": r#"[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"n"}, 5, {"jsonrpc":"2.0","id":2,"method":"b"}, {"jsonrpc":"2.0","id":2,"method":"c"}]"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":2,"result":"B"}"#},
            {"expire": true, "at": 1_000},
            {"client": r#"[{"jsonrpc":"2.0","method":"n"}]"#},
            {"client": "[]"}]),
        ),
        // Found by cargo-fuzz (guard): a member answered (by the upstream, or at its deadline) while the rest of
        // its batch was not could have its id used again before the array reached the client.
        g(
            "batch/member-in-flight-until-its-array-goes-out",
            &json!({"dialect": "canonical", "batch": "allow", "timeout_ms": 1000, "upstream": "stdio:server"}),
            json!([
            {"client": r#"[{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":"p"}}}, {"jsonrpc":"2.0","id":2,"method":"b"}, {"jsonrpc":"2.0","id":3,"method":"c"}]"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":3,"result":"C"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#, "at": 900},
            {"expire": true, "at": 1_000},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"again"}"#},
            {"client": r#"[{"jsonrpc":"2.0","id":3.0,"method":"again"}]"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":2,"result":"late"}"#, "at": 1_100},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":"A"}"#, "at": 1_200},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"again"}"#, "at": 1_300}]),
        ),
        case(
            "upstream-log/secrets-redacted-traces-kept",
            "guard",
            json!({"options": canonical, "env": [["DEPLOY_TOKEN", "tok-9f8e7d6c5b4a"]], "script": [
            {"upstream_log": "Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 3, in <module>\nValueError: password=hunter22 token tok-9f8e7d6c5b4a\n"}]}),
        ),
        // One stream: a private-key block the first chunk leaves open is redacted in the next up to its END
        // line; the chunk after that is logged as it is.
        case(
            "upstream-log/key-block-split-between-chunks",
            "guard",
            json!({"options": canonical, "script": [
            {"upstream_log": "loading tls key\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"},
            {"upstream_log": "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\nLxoRDuwUZ7bMhe0jjo9Ydkpu+3ezH6SSQbvrkaE+yGUXzkHn/7/vTK/FSRkYhs9Z\n-----END RSA PRIVATE KEY-----\nkey loaded\n"},
            {"upstream_log": "MIIE is a prefix, not a key\n"}]}),
        ),
        // The upstream's stderr as a shell reads it, cut anywhere: the session cuts it at line ends, holding an
        // unfinished line (a token, a character, a key block's line across a read) until its end.
        case(
            "upstream-stderr/cut-only-at-line-ends",
            "guard",
            json!({"options": canonical, "script": [
            {"upstream_stderr": "starting\nconnecting with tok"},
            {"upstream_stderr": "en=ghp_u8jzPde0IgxLd6GncfBAepfJBd0"},
            {"upstream_stderr": "Kh8oOOL8d ok\nnext"},
            {"upstream_stderr_hex": "20636166c3"},
            {"upstream_stderr_hex": "a920ff0a"},
            {"upstream_stderr": "loading tls key\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOE"},
            {"upstream_stderr": "ePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\nkey loaded\n"},
            {"upstream_stderr": "last words, password=hunter22"},
            {"upstream_stderr_end": true}]}),
        ),
        case(
            "fail/unknown-dialect",
            "guard",
            json!({"options": {"dialect": "klingon"}, "script": []}),
        ),
    ];
    let mut cases = cases;
    cases.extend(fidelity_cases(&g, &opts));
    json!({"description": "guard: scripted sessions of a proxy's per-message policy (client lines, upstream lines, failures, timeouts); one output per step.", "cases": cases})
}

/// The guard never breaks the protocol it carries: results under each MCP revision, the spec's own codes, odd
/// ids and framing.
fn fidelity_cases(
    g: &dyn Fn(&str, &Value, Value) -> Value,
    opts: &dyn Fn(&str, Option<u64>) -> Value,
) -> Vec<Value> {
    let mcp = opts("mcp", Some(5_000));
    let canonical = opts("canonical", Some(30_000));
    let handshake = |revision: &str| {
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{revision}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        );
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{revision}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
        );
        json!([
            {"client": init},
            {"upstream": answer},
            {"client": r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#},
            {"client": REQUEST_1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"db down"}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}"#},
            {"expire": true, "at": 5_000},
            {"client": r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"crash"}}"#, "at": 5_001},
            {"upstream_failed": {"exited": 1}, "at": 5_002}])
    };
    let modern = |id: u64, name: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let spec_error = |code: i64, data: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "as the spec words it", "data": data}}).to_string()
    };
    let elicitation = json!({"elicitations": [{"mode": "url", "elicitationId": "e-1", "url": "https://auth.example.com/connect?elicitation=e-1",
        "message": "Authorize access (token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d)"}]});
    vec![
        // Handshake revisions: results the guard writes carry no `resultType` (those clients' schemas have none).
        g(
            "revision/2025-06-18-results-without-result-type",
            &mcp,
            handshake("2025-06-18"),
        ),
        g(
            "revision/2025-11-25-results-without-result-type",
            &mcp,
            handshake("2025-11-25"),
        ),
        // 2026-07-28 names the revision on every request (`_meta`) and requires `resultType` on every result: an
        // `isError` result the guard writes (upstream error, timeout, exit) says it is complete.
        g(
            "revision/2026-07-28-results-carry-result-type",
            &mcp,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":"d","result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"resultType":"complete"}}"#},
            {"client": modern(1, "query")},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"db down"}}"#},
            {"client": modern(2, "slow")},
            {"expire": true, "at": 5_000},
            {"client": modern(3, "crash"), "at": 5_001},
            {"upstream_failed": {"exited": 1}, "at": 5_002}]),
        ),
        // Codes MCP's spec owns keep their code and the structure of their data (values scrubbed), in every
        // dialect and for every method: a client completes the URL elicitation, negotiates the version.
        g(
            "upstream/spec-codes-kept-with-their-data",
            &canonical,
            json!([
            {"client": REQUEST_1}, {"upstream": spec_error(-32042, elicitation.clone())},
            {"client": REQUEST_1}, {"upstream": spec_error(-32022, json!({"supported": ["2025-06-18", "2025-11-25"], "requested": "2026-07-28"}))},
            {"client": REQUEST_1}, {"upstream": spec_error(-32021, json!({"required": {"elicitation": {}}}))},
            {"client": REQUEST_1}, {"upstream": spec_error(-32020, json!({"header": "Mcp-Method", "expected": "tools/call"}))},
            {"client": REQUEST_1}, {"upstream": spec_error(-32002, json!({"uri": "file:///missing.txt"}))}]),
        ),
        g(
            "upstream/spec-code-stays-an-error-in-mcp-tool-call",
            &mcp,
            json!([
            {"client": REQUEST_1}, {"upstream": spec_error(-32042, elicitation)}]),
        ),
        g(
            "client/null-id-answered-at-once",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#}]),
        ),
        g(
            "upstream/result-and-error-answered-at-once",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"both"}}"#}]),
        ),
        g(
            "framing/byte-order-mark-read-past",
            &canonical,
            json!([
            {"client_hex": "efbbbf7b226a736f6e727063223a22322e30222c226964223a312c226d6574686f64223a2270696e67227d"},
            {"upstream_hex": "efbbbf7b226a736f6e727063223a22322e30222c226964223a312c22726573756c74223a7b7d7d"}]),
        ),
        // A line too long to read is answered from what its ends show: an oversize response answers its
        // request at once (TypeScript writes the id last), an oversize request carries its own id back.
        g(
            "oversize/answered-from-the-lines-ends",
            &mcp,
            json!([
            {"client": REQUEST_1},
            {"client": r#"{"jsonrpc":"2.0","id":"r2","method":"resources/read","params":{"uri":"file:///big.png"}}"#},
            {"upstream_oversize": 70_000_000, "head": r#"{"result":{"content":[{"type":"image","data":"iVBORw0KGgo"#, "tail": r#"AAAA"}]},"jsonrpc":"2.0","id":1}"#},
            {"upstream_oversize": 80_000_000, "head": r#"{"jsonrpc":"2.0","id":"r2","result":{"contents":[{"blob":"AAAA"#, "tail": r#"AAAA"}]}}"#},
            {"client_oversize": 11_000_000, "head": r#"{"method":"tools/call","params":{"name":"upload","arguments":{"blob":"AAAA"#, "tail": r#"AAAA"}},"jsonrpc":"2.0","id":3}"#},
            {"upstream_oversize": 70_000_000, "head": r#"{"jsonrpc":"2.0","id":"s9","method":"sampling/createMessage","params":{"messages":[{"content":"#, "tail": ""}]),
        ),
        // All of a failed tool result is redacted, by name and by text, binary members left alone; a result a
        // lenient client shows as failed (`"true"`, `1`) is one; a long text keeps its start and end; and the
        // operator's log redacts an error's data by name as the client's copy is (issue 25).
        g(
            "failed-result/redacted-by-name-and-text-binary-left-alone",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
                "content": [{"type": "text", "text": "db error", "annotations": {"note": "token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}},
                    {"type": "resource_link", "uri": "https://files.example.com/r.csv?access_token=ya29.a0AfH6SMBx3kLmNoPq7rStUvWxYz0123456789", "name": "r"},
                    {"type": "text", "text": {"password": "hunter2", "user": "ann"}},
                    {"type": "image", "data": "aGVsbG8gcGFzc3dvcmQ9aHVudGVyMg==", "mimeType": "image/png"}],
                "structuredContent": {"password": "hunter2"}, "_meta": {"session": "s-83hf7Q2xLm"}}}).to_string()},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"q"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"password=hunter2hunter2"}],"isError":"true"}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"q"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"password=hunter2hunter2"}],"isError":1}}"#}]),
        ),
        g(
            "failed-result/long-text-keeps-start-and-end",
            &json!({"dialect": "canonical", "upstream": "stdio:server", "failed_result_bytes": 300}),
            json!([
            {"client": REQUEST_1},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true, "content": [{"type": "text",
                "text": format!("The site's robots.txt disallows this page: {} The assistant must tell the user it could not fetch the page.", "Disallow: /p/ ".repeat(100))}]}}).to_string()}]),
        ),
        g(
            "upstream/operator-log-redacts-data-by-name",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad", "data": {
                "Cookie": "sid=Q8xKz3", "session": "s-9fKq2", "credentials": {"pass": "Yp01-pw"},
                "environ": {"DATABASE_PASS": "Zr55-pw"}, "frames": ["at main (/srv/app.js:1:1)"]}}}).to_string()}]),
        ),
        // Several client streams on one upstream (an HTTP front): ids and progress tokens renamed upstream and
        // back, answers on their own stream, the upstream's own messages on stream 0, a closed stream's
        // requests cancelled upstream (issue 26).
        g(
            "streams/renamed-routed-and-cancelled",
            &canonical,
            json!([
            {"client_on": [1, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}"#]},
            {"client_on": [2, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}"#]},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":4,"progress":1}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#},
            {"client_on": [1, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#]},
            {"stream_closed": 1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{}}"#},
            {"client_on": [3, r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"q"}}"#]},
            {"client_on": [3, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}"#]},
            {"client_on": [4, r#"{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"slow"}}"#]},
            {"expire": true, "at": 30_000},
            {"client_on": [5, r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#]},
            {"upstream_failed": {"exited": 1}}]),
        ),
        g(
            "server-requests/unusable-id-refused-not-relayed",
            &canonical,
            json!([
            {"upstream": r#"{"jsonrpc":"2.0","id":{"a":1},"method":"sampling/createMessage","params":{}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":[1],"method":"roots/list"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":5}"#}]),
        ),
    ]
}

/// The guard's policy file (issue 27): documents checked (valid, and refused with line and column), and
/// sessions under one (scopes, actions, overrides by exact name and by glob, the file's defaults).
fn policy_cases() -> Value {
    let check = |name: &str, policy: &str| case(name, "check_policy", json!({"policy": policy}));
    let full = r#"# Everything a policy file can say.
[defaults]
dialect = "mcp"
timeout = 20
max_wait = 120
max_bytes = 1048576
max_upstream_bytes = 8388608
batch = "reject"
failed_result_bytes = 4096

[redaction]
method = "mask"
disable = ["email"]
allow = ["sk_test_placeholder"]
allow_patterns = ["AKIA[0-9A-Z]{16}EXAMPLE"]
extra_rules = [{ id = "ticket", category = "internal", pattern = "TCK-[0-9]{6}" }]
scopes = ["errors", "results", "resources"]
binary = false

[actions]
pem-private-key = "block"
internal = "audit"

[[tool]]
match = "export_*"
timeout = 300
scopes = ["errors"]

[[method]]
match = "resources/read"
actions = { ticket = "redact" }
"#;
    let tool_call = |id: u64, name: &str, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}).to_string()
    };
    let text_result = |id: u64, text: &str| {
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}], "isError": false}}).to_string()
    };
    let env_file = "DATABASE_URL=postgres://app:Vq7-rT2k-pw@db.internal:5432/app\nGITHUB_TOKEN=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\nLOG_LEVEL=info\n";
    let g = |name: &str, policy: &str, script: Value| {
        case(
            name,
            "guard",
            json!({"options": {"dialect": "mcp", "timeout_ms": 30_000, "upstream": "stdio:server", "policy": policy}, "ctx": ctx_json(), "script": script}),
        )
    };
    let results = "[redaction]\nscopes = [\"errors\", \"results\", \"resources\", \"prompts\"]\n";
    let cases = vec![
        check("check/complete-document", full),
        check("check/empty-document-is-the-default", ""),
        check("fail/check/syntax", "[defaults]\ntimeout = \n"),
        check("fail/check/unknown-key", "[defaults]\ntimeout = 5\n\n[redaction]\nscope = [\"results\"]\n"),
        check("fail/check/unknown-table", "[default]\ntimeout = 5\n"),
        check("fail/check/wrong-type", "[defaults]\ntimeout = \"5s\"\n"),
        check("fail/check/negative-timeout", "[defaults]\ntimeout = -1\n"),
        check("fail/check/unknown-scope", "[redaction]\nscopes = [\"errors\", \"everything\"]\n"),
        check("fail/check/unknown-action", "[actions]\nprivate-key = \"delete\"\n"),
        check("fail/check/unknown-rule-in-actions", "[actions]\nno-such-rule = \"block\"\n"),
        check("fail/check/unknown-rule-in-disable", "[redaction]\ndisable = [\"emial\"]\n"),
        check("fail/check/bad-extra-rule-pattern", "[redaction]\nextra_rules = [{ id = \"x\", category = \"internal\", pattern = \"ab(c\" }]\n"),
        check("fail/check/bad-allow-pattern", "[redaction]\nallow_patterns = [\"[unclosed\"]\n"),
        check("fail/check/hash-without-key", "[redaction]\nmethod = \"hash\"\n"),
        check("fail/check/unknown-dialect", "[defaults]\ndialect = \"klingon\"\n"),
        check("fail/check/tool-without-match", "[[tool]]\ntimeout = 5\n"),
        case("check/hash-key-from-the-environment", "check_policy", json!({"policy": "[redaction]\nmethod = \"hash\"\nhash_key_env = \"GUARD_HASH_KEY\"\n", "policy_env": [["GUARD_HASH_KEY", "0123456789abcdef0123456789abcdef"]]})),
        // A filesystem tool returning a .env file: untouched by default (errors only), redacted in the
        // results scope, blocked by an action, logged only under audit.
        g("results/untouched-by-default", "[defaults]\ntimeout = 30\n", json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(1, env_file)}])),
        g("results/redacted-in-the-results-scope", results, json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(1, env_file)},
            {"client": tool_call(2, "read_text_file", json!({"path": "/srv/app/README"}))},
            {"upstream": text_result(2, "Nothing secret here: see https://example.org/docs.")}])),
        g("results/blocked-by-an-action", &format!("{results}[actions]\ngithub-token = \"block\"\n"), json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(1, env_file)}])),
        g("results/audited-passes-untouched", &format!("{results}[actions]\ngithub-token = \"audit\"\n"), json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(1, env_file)}])),
        g("results/allow-listed-value-survives", &format!("{results}allow = [\"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"]\n"), json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(1, env_file)}])),
        g("results/resources-and-prompts-scopes", results, json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///srv/app/.env"}}"#},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [{"uri": "file:///srv/app/.env", "mimeType": "text/plain", "text": env_file}]}}).to_string()},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"deploy"}}"#},
            {"upstream": json!({"jsonrpc": "2.0", "id": 2, "result": {"messages": [{"role": "user", "content": {"type": "text", "text": "Deploy with token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}]}}).to_string()}])),
        // Binary content is never scanned unless asked: an image whose base64 happens to spell a token.
        g("results/binary-left-alone", results, json!([
            {"client": tool_call(1, "screenshot", json!({}))},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "image", "mimeType": "image/png", "data": "Z2hwX3U4anpQZGUwSWd4TGQ2R25jZkJBZXBmSkJkMEtoOG9PT0w4ZA=="},
                {"type": "resource", "resource": {"uri": "file:///k.bin", "mimeType": "application/octet-stream", "blob": "AAEC"}}]}}).to_string()}])),
        // Asked to (`binary = true`): a blob that is text is decoded, scanned and encoded again; an image is not text.
        g("results/binary-scanned-when-asked", &format!("{results}binary = true\n"), json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///srv/app/.env"}}"#},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [
                {"uri": "file:///srv/app/.env", "mimeType": "application/octet-stream", "blob": "R0lUSFVCX1RPS0VOPWdocF91OGp6UGRlMElneExkNkduY2ZCQWVwZkpCZDBLaDhvT09MOGQK"},
                {"uri": "file:///srv/app/logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}]}}).to_string()}])),
        g("requests/arguments-redacted-before-they-leave", "[redaction]\nscopes = [\"errors\", \"requests\"]\n", json!([
            {"client": tool_call(1, "http_get", json!({"url": "https://api.example.org/v1", "headers": {"Authorization": "Bearer ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}))},
            {"upstream": text_result(1, "200 OK")}])),
        g("overrides/tool-timeout-by-glob-and-exact-name", "[defaults]\nmax_wait = 60\n[[tool]]\nmatch = \"slow_*\"\ntimeout = 5\n[[tool]]\nmatch = \"slow_export\"\ntimeout = 120\n", json!([
            {"client": tool_call(1, "slow_query", json!({}))},
            {"client": tool_call(2, "slow_export", json!({}))},
            {"client": tool_call(3, "fast", json!({}))},
            {"expire": true, "at": 5_000},
            {"expire": true, "at": 30_000},
            {"expire": true, "at": 60_000}])),
        g("overrides/rule-off-for-one-tool", &format!("{results}[[tool]]\nmatch = \"read_text_file\"\ndisable = [\"github-token\"]\n"), json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(1, env_file)},
            {"client": tool_call(2, "cat", json!({"path": "/srv/app/.env"}))},
            {"upstream": text_result(2, env_file)}])),
        g("refused-document-fails-closed", "[redaction]\nscopes = \"all\"\n", json!([
            {"client": tool_call(1, "read_text_file", json!({"path": "/srv/app/.env"}))}])),
    ];
    json!({"description": "The guard's policy file: documents checked (defaults, or refused with line and column), and sessions under one (scopes, actions, overrides, the file's defaults).", "cases": cases})
}

pub fn write() -> Result<()> {
    let dir = crate::root().join("tests").join("vectors");
    std::fs::create_dir_all(&dir)?;
    for (file, content) in [
        ("map-matrix.json", map_matrix()),
        ("map-edge-cases.json", map_edges()),
        ("validate.json", validate_cases()),
        ("sanitize.json", sanitize_cases()),
        ("redact.json", redact_cases()),
        ("lookup.json", lookup_cases()),
        ("guard.json", guard_cases()),
        ("policy.json", policy_cases()),
        ("contract.json", contract_cases()),
    ] {
        let mut text = serde_json::to_string_pretty(&content)?;
        text.push('\n');
        std::fs::write(dir.join(file), text)?;
        println!(
            "wrote tests/vectors/{file} ({} cases)",
            content["cases"].as_array().map_or(0, Vec::len)
        );
    }
    Ok(())
}
