//! `lookup.json`: lookup, explain and codes.

use super::record::case;
use serde_json::{json, Value};

pub(super) fn lookup_cases() -> Value {
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
