//! The policy document's JSON Schema (draft 2020-12), for editors (taplo, Even Better TOML, VS Code's YAML/JSON
//! tooling): the same keys the reader takes (`document.rs`'s key lists), the same choices (scopes, actions,
//! methods, dialects). What only the component can check (rule names the catalogue knows, patterns that
//! compile, the hash key's variable) is said in descriptions; `check-policy` remains the judge.

use super::document::{
    ACTIONS, DEFAULTS_KEYS, EXTRA_RULE_KEYS, METHODS, OVERRIDE_KEYS, REDACTION_KEYS, ROOT_KEYS,
    SCOPES,
};
use serde_json::{json, Map, Value};

/// Where the schema is published (`cargo xtask gen` writes it; CI fails when it drifts).
pub const PATH: &str = "docs/guard-policy.schema.json";

fn names<T>(table: &[(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|(n, _)| *n).collect()
}

/// An object of exactly `keys`, each described by `describe`.
fn table(keys: &[&str], describe: impl Fn(&str) -> Value, description: &str) -> Value {
    let properties: Map<String, Value> = keys
        .iter()
        .map(|k| ((*k).to_string(), describe(k)))
        .collect();
    json!({"type": "object", "description": description, "properties": properties, "additionalProperties": false})
}

/// `schema` with `keys` required.
fn requiring(mut schema: Value, keys: &[&str]) -> Value {
    schema["required"] = json!(keys);
    schema
}

fn seconds(what: &str) -> Value {
    json!({"type": "number", "minimum": 0, "description": what})
}

fn bytes(what: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "description": what})
}

fn strings(what: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": what})
}

fn scopes() -> Value {
    json!({"type": "array", "items": {"enum": names(&SCOPES)}, "uniqueItems": true,
        "description": "What is redacted: errors (error responses and failed tool results: the default), results (successful tool results), resources (resources/read contents), prompts (prompts/get messages), requests (a tool call's arguments, before they leave), progress (the server's progress messages), logging (its log notifications' data), elicitation (its elicitation requests' message and form texts), sampling (its sampling requests' messages and system prompt), stderr (the upstream's, in the operator's log: always)."})
}

fn actions() -> Value {
    json!({"type": "object", "additionalProperties": {"enum": names(&ACTIONS)},
        "description": "Rule id or category -> redact (default) | block (the request is answered with the policy error instead) | audit (logged, passed untouched). Names must be the catalogue's (redaction/rules.toml) or an extra rule's."})
}

fn defaults_key(key: &str) -> Value {
    match key {
        "dialect" => json!({"enum": crate::taxonomy::DIALECTS, "description": "The dialect of the errors the guard writes."}),
        "timeout" => seconds("Seconds a request may wait for the upstream (progress restarts the wait); 0: no limit. Default 50."),
        "max_wait" => seconds("Seconds a request may wait at most, progress or not."),
        "max_bytes" => bytes("Largest client message in bytes (default 10 MiB)."),
        "max_upstream_bytes" => bytes("Longest upstream line in bytes (default and at most 64 MiB)."),
        "batch" => json!({"enum": ["reject", "allow"], "description": "Batches from the client (MCP removed them in 2025-06-18)."}),
        "failed_result_bytes" => bytes("Longest text of a failed tool result passed on (default 8192); a longer one keeps its start and end."),
        other => unreachable!("[defaults] has no key {other}"),
    }
}

fn extra_rule_key(key: &str) -> Value {
    match key {
        "id" => {
            json!({"type": "string", "description": "The rule's name (in [REDACTED:id] and in [actions])."})
        }
        "category" => {
            json!({"type": "string", "description": "Its category (rules can be disabled or given an action by category)."})
        }
        "pattern" => json!({"type": "string", "description": "A regex (regex-lite syntax)."}),
        "keywords" => {
            strings("Literal words one of which must occur for the pattern to run (faster).")
        }
        "secret_groups" => {
            json!({"type": "array", "items": {"type": "integer", "minimum": 0}, "description": "Capture groups that are the secret (default: the whole match)."})
        }
        other => unreachable!("an extra rule has no key {other}"),
    }
}

fn redaction_key(key: &str) -> Value {
    match key {
        "method" => {
            json!({"enum": names(&METHODS), "description": "How a finding is replaced: [REDACTED:rule], masked, a keyed hash (needs hash_key_env), or removed."})
        }
        "hash_key_env" => {
            json!({"type": "string", "description": "The environment variable holding the hash key (at least 16 bytes)."})
        }
        "disable" => strings("Rule ids or categories switched off."),
        "allow" => strings("Values never redacted."),
        "allow_patterns" => strings("Regexes (anchored at both ends) of values never redacted."),
        "extra_rules" => {
            json!({"type": "array", "items": requiring(table(&EXTRA_RULE_KEYS, extra_rule_key, "A rule of the operator's."), &["id", "category", "pattern"]), "description": "Rules of the operator's, beside the catalogue's."})
        }
        "scopes" => scopes(),
        "binary" => {
            json!({"type": "boolean", "description": "Scan binary content too (base64 blobs, image and audio data): what decodes to UTF-8 text is scanned as text. Default false."})
        }
        other => unreachable!("[redaction] has no key {other}"),
    }
}

fn override_key(key: &str) -> Value {
    match key {
        "match" => {
            json!({"type": "string", "description": "A name, or a glob (* and ?); an exact name wins over a glob, then the first glob that matches."})
        }
        "timeout" => seconds("This one's timeout in seconds; 0: no limit."),
        "max_wait" => seconds("This one's longest wait in seconds, progress or not."),
        "failed_result_bytes" => bytes("This one's cut of failed tool results' text."),
        "disable" => {
            strings("Rule ids or categories off for this one (added to [redaction] disable).")
        }
        "allow" => strings("Values never redacted for this one (added to [redaction] allow)."),
        "scopes" => scopes(),
        "actions" => actions(),
        other => unreachable!("an override has no key {other}"),
    }
}

/// The schema, as JSON.
pub fn json_schema() -> Value {
    let over = |what: &str| json!({"type": "array", "items": requiring(table(&OVERRIDE_KEYS, override_key, what), &["match"])});
    let root = |key: &str| {
        match key {
        "defaults" => table(&DEFAULTS_KEYS, defaults_key, "Defaults for every request (command-line options override them)."),
        "redaction" => table(&REDACTION_KEYS, redaction_key, "Redaction: method, rules off, extra rules, allow-lists, scopes."),
        "actions" => actions(),
        "tool" => over("[[tool]]: changes for the tool calls whose name it matches (after a matching [[method]]'s)."),
        "method" => over("[[method]]: changes for the requests whose method it matches."),
        other => unreachable!("the policy has no key {other}"),
    }
    };
    let mut schema = Map::new();
    schema.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    schema.insert("title".into(), json!("jsonrpc-errors guard policy"));
    let body = table(&ROOT_KEYS, root, "A jsonrpc-errors guard policy file (docs/policy.md). `jsonrpc-errors guard --check-config FILE` is the judge.");
    schema.extend(body.as_object().expect("a table is an object").clone());
    Value::Object(schema)
}

/// The schema as the published file's text.
pub fn json_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema()).expect("a schema serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_the_reader_takes_is_described() {
        let s = json_schema();
        let keys = |v: &Value| {
            let mut k = v["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>();
            k.sort();
            k
        };
        let sorted = |k: &[&str]| {
            let mut k: Vec<String> = k.iter().map(|s| s.to_string()).collect();
            k.sort();
            k
        };
        assert_eq!(keys(&s), sorted(&ROOT_KEYS));
        assert_eq!(keys(&s["properties"]["redaction"]), sorted(&REDACTION_KEYS));
        assert_eq!(
            keys(&s["properties"]["tool"]["items"]),
            sorted(&OVERRIDE_KEYS)
        );
    }
}
