//! `contract.json`: the rest of the contract (every WIT export has an op).

use super::record::case;
use serde_json::{json, Value};

/// Every export that the other files do not cover: redaction under options, JSON-aware redaction, the taxonomy
/// table, the refusals runtimes ask for, and the input limit.
pub(super) fn contract_cases() -> Value {
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
