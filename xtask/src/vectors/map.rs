//! `map-matrix.json` (every kind in every dialect that defines it, all fields and required fields only) and
//! `map-edge-cases.json` (gate precedence, id echo, correlation ids, truncation, scrubbing, bad input).

use super::record::{case, ctx_json};
use jsonrpc_errors_guest::taxonomy::{taxonomy, FieldType, Kind};
use serde_json::{json, Map, Value};

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

pub(super) fn map_matrix() -> Value {
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

pub(super) fn map_edges() -> Value {
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
