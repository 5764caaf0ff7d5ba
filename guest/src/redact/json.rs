//! JSON-aware redaction: values under sensitive keys go whole; every other string is scanned.

use super::policy::Policy;
use super::{engine, redact_with, Secrets};
use serde::Serialize;
use serde_json::Value;

/// The rule id for values redacted whole because of their key.
pub const SENSITIVE_KEY_RULE: &str = "sensitive-key";

/// A redacted span inside a JSON document: `path` is the JSON Pointer (RFC 6901) of the string it was found
/// in, `start`/`end` byte offsets inside that string. The secret itself is never reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonFinding {
    pub rule: String,
    pub category: String,
    pub path: String,
    pub start: usize,
    pub end: usize,
}

fn normalized(key: &str) -> String {
    key.chars().filter(|c| *c != '-' && *c != '_').flat_map(char::to_lowercase).collect()
}

fn is_sensitive(key: &str, policy: &Policy) -> bool {
    let json = &engine().catalogue.json;
    let k = normalized(key);
    json.sensitive_keys.contains(&k)
        || json.sensitive_suffixes.iter().any(|s| k.ends_with(s.as_str()))
        || policy.sensitive_keys.iter().any(|s| normalized(s) == k)
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Redacts `value` in place and returns what was found where.
pub fn redact_value(value: &mut Value, env: &Secrets, policy: &Policy) -> Vec<JsonFinding> {
    let mut findings = Vec::new();
    walk(value, &mut String::new(), false, env, policy, &mut findings);
    findings
}

fn walk(
    value: &mut Value,
    path: &mut String,
    sensitive: bool,
    env: &Secrets,
    policy: &Policy,
    findings: &mut Vec<JsonFinding>,
) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                let len = path.len();
                path.push('/');
                path.push_str(&escape_pointer(key));
                let child_sensitive = sensitive || is_sensitive(key, policy);
                walk(child, path, child_sensitive, env, policy, findings);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                walk(child, path, sensitive, env, policy, findings);
                path.truncate(len);
            }
        }
        Value::Null => {}
        leaf if sensitive && policy.enabled(SENSITIVE_KEY_RULE, "credential") => {
            let text = match &*leaf {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            findings.push(JsonFinding {
                rule: SENSITIVE_KEY_RULE.into(),
                category: "credential".into(),
                path: path.clone(),
                start: 0,
                end: text.len(),
            });
            *leaf = Value::String(policy.replacement(SENSITIVE_KEY_RULE, &text));
        }
        Value::String(s) => {
            let r = redact_with(s, env, policy);
            if !r.findings.is_empty() {
                findings.extend(r.findings.into_iter().map(|f| JsonFinding {
                    rule: f.rule,
                    category: f.category,
                    path: path.clone(),
                    start: f.start,
                    end: f.end,
                }));
                *s = r.text;
            }
        }
        _ => {}
    }
}
