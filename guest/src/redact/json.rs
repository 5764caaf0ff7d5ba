//! JSON-aware redaction: values under sensitive keys go whole; every other string is scanned.

use super::apply::redact_with;
use super::engine::engine;
use super::finding::Redacted;
use super::redactor::Redactor;
use super::secrets::Secrets;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

/// The rule id for values redacted whole because of their key.
pub const SENSITIVE_KEY_RULE: &str = "sensitive-key";
/// Values under a key that holds stack traces (`stack`, `traceback`, ...), strings or arrays of frames.
pub const TRACE_KEY_RULE: &str = "stack-trace";
/// Machine-made values under a key such as `key` or `signature`.
pub const OPAQUE_KEY_RULE: &str = "opaque-value";

/// A redacted span inside a JSON document: `path` is the JSON Pointer (RFC 6901) of the string it was found
/// in, `start`/`end` byte offsets inside that string. The secret itself is never reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonFinding {
    pub rule: String,
    pub category: String,
    pub path: String,
    pub start: usize,
    pub end: usize,
    /// The secret was in the member's name (the last segment of `path`, as redacted), not in its value.
    #[serde(skip_serializing_if = "is_false")]
    pub key: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A member or header name as `[json]` compares it: lower-cased, and `-`, `_`, `.` and spaces removed
/// ("DATABASE_PASS" and "databasepass").
pub fn normalized(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// As [`normalized`], a header's leading `x-` dropped too, for telling secrets ("X-Session" is "session"),
/// not for the other lists ("X-Trace" is a trace id's header, no stack trace).
fn normalized_for_secrets(key: &str) -> String {
    match key.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("x-") || p.eq_ignore_ascii_case("x_") => {
            normalized(&key[2..])
        }
        _ => normalized(key),
    }
}

/// Whether a member (or header) named `key` holds a secret whole.
pub fn is_sensitive(key: &str, redactor: &Redactor) -> bool {
    let json = &engine().catalogue.json;
    let k = normalized_for_secrets(key);
    if redactor
        .sensitive_keys
        .iter()
        .any(|s| normalized_for_secrets(s) == k)
        || json.sensitive_keys.contains(&k)
    {
        return true;
    }
    json.sensitive_suffixes
        .iter()
        .any(|s| k.ends_with(s.as_str()))
        && !json.not_sensitive.contains(&k)
}

/// Whether a member named `key` holds an operator's diagnostics (a trace, an environment, locals).
pub fn is_diagnostic(key: &str) -> bool {
    listed(key, &engine().catalogue.json.diagnostic_keys)
}

/// Members that name a sibling's value (`name`, `key`; `ParameterName`), as [`normalized`] writes them.
const PAIR_NAME_KEYS: [&str; 5] = ["name", "key", "parametername", "variable", "envname"];
/// The sibling holding the named value.
const PAIR_VALUE_KEYS: [&str; 3] = ["value", "parametervalue", "secretvalue"];

fn listed<S: AsRef<str>>(key: &str, keys: &[S]) -> bool {
    let k = normalized(key);
    keys.iter().any(|s| s.as_ref() == k)
}

/// Replaces a whole value by the redaction of its text (a string's, or the JSON text of anything else).
fn replace_whole(
    value: &mut Value,
    path: &str,
    rule: &str,
    category: &str,
    redactor: &Redactor,
    findings: &mut Vec<JsonFinding>,
) {
    let text = match &*value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    findings.push(JsonFinding {
        rule: rule.into(),
        category: category.into(),
        path: path.into(),
        start: 0,
        end: text.len(),
        key: false,
    });
    *value = Value::String(redactor.replacement(rule, &text));
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Redacts `value` in place and returns what was found where.
pub fn redact_value(value: &mut Value, env: &Secrets, redactor: &Redactor) -> Vec<JsonFinding> {
    let mut findings = Vec::new();
    walk(
        value,
        &mut String::new(),
        false,
        env,
        redactor,
        &mut findings,
    );
    findings
}

fn walk(
    value: &mut Value,
    path: &mut String,
    sensitive: bool,
    env: &Secrets,
    redactor: &Redactor,
    findings: &mut Vec<JsonFinding>,
) {
    match value {
        Value::Object(map) => {
            // Member names are text too: a token used as a key is redacted like one in a value. A renamed member
            // keeps its place; two names redacted alike are told apart by a suffix, so no member is lost.
            let redactions: Vec<Redacted> =
                map.keys().map(|k| redact_with(k, env, redactor)).collect();
            if redactions.iter().any(|r| !r.findings.is_empty()) {
                // Names that stay as they are are reserved first, wherever they stand: a renamed member placed
                // before one of them must not take its name and be overwritten by it.
                let mut taken: Vec<String> = map
                    .keys()
                    .zip(&redactions)
                    .filter(|(_, r)| r.findings.is_empty())
                    .map(|(k, _)| k.clone())
                    .collect();
                crate::heap_sort::sort(&mut taken);
                let old = std::mem::take(map);
                for ((key, child), r) in old.into_iter().zip(redactions) {
                    if r.findings.is_empty() {
                        map.insert(key, child);
                        continue;
                    }
                    let mut name = r.text.clone();
                    let mut n = 2u32;
                    // A sorted list, not a set type: a BTreeSet<String> of its own costs the npm module kilobytes.
                    let mut at = taken.binary_search(&name);
                    while at.is_ok() {
                        name = format!("{}#{n}", r.text);
                        n += 1;
                        at = taken.binary_search(&name);
                    }
                    taken.insert(at.unwrap_err(), name.clone());
                    let member = path.clone() + "/" + &escape_pointer(&name);
                    findings.extend(r.findings.into_iter().map(|f| JsonFinding {
                        rule: f.rule,
                        category: f.category,
                        path: member.clone(),
                        start: f.start,
                        end: f.end,
                        key: true,
                    }));
                    map.insert(name, child);
                }
            }
            let json = &engine().catalogue.json;
            // A name and its value in sibling members (Kubernetes' and ECS's `env`, `aws ssm get-parameter`, a
            // HAR file's headers and cookies: `{"name": "DB_PASSWORD", "value": "…"}`): the name is classified
            // as a member's name would be, and a sensitive one makes the `value` member a secret.
            let pair = !sensitive
                && map.iter().any(|(k, v)| {
                    listed(k, &PAIR_NAME_KEYS)
                        && v.as_str().is_some_and(|name| is_sensitive(name, redactor))
                });
            for (key, child) in map.iter_mut() {
                let len = path.len();
                path.push('/');
                path.push_str(&escape_pointer(key));
                if !sensitive
                    && !child.is_null()
                    && listed(key, &json.trace_keys)
                    && redactor.enabled(TRACE_KEY_RULE, "stacktrace")
                {
                    replace_whole(
                        child,
                        path,
                        TRACE_KEY_RULE,
                        "stacktrace",
                        redactor,
                        findings,
                    );
                } else if !sensitive
                    && listed(key, &json.opaque_keys)
                    && child.as_str().is_some_and(super::validators::machine_made)
                    && redactor.enabled(OPAQUE_KEY_RULE, "credential")
                {
                    replace_whole(
                        child,
                        path,
                        OPAQUE_KEY_RULE,
                        "credential",
                        redactor,
                        findings,
                    );
                } else {
                    let child_sensitive = sensitive
                        || is_sensitive(key, redactor)
                        || pair && listed(key, &PAIR_VALUE_KEYS);
                    walk(child, path, child_sensitive, env, redactor, findings);
                }
                path.truncate(len);
            }
        }
        // A header as a [name, value] pair (`[["Authorization", "Bearer ..."]]`): a sensitive name makes the
        // value a secret, as the member name does in an object.
        Value::Array(items)
            if !sensitive
                && items.len() == 2
                && items[0]
                    .as_str()
                    .is_some_and(|name| is_sensitive(name, redactor)) =>
        {
            let len = path.len();
            path.push_str("/1");
            walk(&mut items[1], path, true, env, redactor, findings);
            path.truncate(len);
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                walk(child, path, sensitive, env, redactor, findings);
                path.truncate(len);
            }
        }
        Value::Null => {}
        leaf if sensitive && redactor.enabled(SENSITIVE_KEY_RULE, "credential") => {
            replace_whole(
                leaf,
                path,
                SENSITIVE_KEY_RULE,
                "credential",
                redactor,
                findings,
            );
        }
        // Strings are scanned; so are numbers, which are text to a reader too: a card number or an account
        // number written as a JSON number is found by its digits, and the value becomes the redaction.
        Value::String(_) | Value::Number(_) => {
            let text = match &*value {
                Value::String(s) => Cow::Borrowed(s.as_str()),
                other => Cow::Owned(other.to_string()),
            };
            let r = redact_with(&text, env, redactor);
            if !r.findings.is_empty() {
                findings.extend(r.findings.into_iter().map(|f| JsonFinding {
                    rule: f.rule,
                    category: f.category,
                    path: path.clone(),
                    start: f.start,
                    end: f.end,
                    key: false,
                }));
                *value = Value::String(r.text);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn redact(mut v: Value) -> (Value, Vec<JsonFinding>) {
        let f = redact_value(&mut v, Secrets::none(), &Redactor::default());
        (v, f)
    }

    #[test]
    fn secrets_in_member_names_are_redacted_and_no_member_is_lost() {
        let token = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
        let other = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        let (v, f) = redact(json!({ "ok": 1, token: {"n": 2}, other: 3, "last": 4 }));
        assert_eq!(
            v.to_string(),
            r#"{"ok":1,"[REDACTED:github-token]":{"n":2},"[REDACTED:github-token]#2":3,"last":4}"#
        );
        assert!(f.iter().all(|f| f.key && f.rule == "github-token"));
        assert_eq!(f[1].path, "/[REDACTED:github-token]#2");
    }

    #[test]
    fn traces_opaque_values_and_header_pairs_go_whole() {
        let (v, f) = redact(json!({
            "stack": ["at handler (/srv/app/index.js:10:5)", "at run (/srv/app/main.js:3:1)"],
            "stack-trace": "Traceback (most recent call last): ...",
            "signature": "3q2+7wAbCdEf0123456789Zz",
            "digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
            "key": "items:42",
            "headers": [["Authorization", "Bearer abc"], ["Accept", "text/plain"]],
        }));
        assert_eq!(v["stack"], "[REDACTED:stack-trace]");
        assert_eq!(v["stack-trace"], "[REDACTED:stack-trace]");
        // A signature is a credential whatever it looks like (issue 25: short ones reached clients).
        assert_eq!(v["signature"], "[REDACTED:sensitive-key]");
        assert_eq!(v["digest"], "[REDACTED:opaque-value]");
        assert_eq!(
            v["key"], "items:42",
            "a plain value under `key` is no secret"
        );
        assert_eq!(
            v["headers"],
            json!([
                ["Authorization", "[REDACTED:sensitive-key]"],
                ["Accept", "text/plain"]
            ])
        );
        let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(
            rules,
            [
                "stack-trace",
                "stack-trace",
                "sensitive-key",
                "opaque-value",
                "sensitive-key"
            ]
        );
    }

    /// The names issue 25 found leaking, as the formats write them: environment dumps, Python's `exc_info`,
    /// header spellings, connection strings, one-time codes.
    #[test]
    fn names_are_classified_normalised_with_prefixes_and_suffixes() {
        for name in [
            "pass",
            "DATABASE_PASS",
            "conn_str",
            "signature",
            "salt",
            "PASSWORD_SALT",
            "otp",
            "totp",
            "pin",
            "DEVICE_PIN",
            "X-Session",
            "x_session_token",
            "JWT_SIGNING_KEY",
            "SECRET_KEY_BASE",
            "Set-Cookie",
            "credentials.pass",
            "db.password",
            "Proxy-Authorization",
            "basic_auth",
        ] {
            assert!(is_sensitive(name, &Redactor::default()), "{name}");
        }
        for name in [
            "bypass",
            "compass",
            "spin",
            "oauth",
            "max_tokens",
            "token_count",
            "sessions_total",
            "x-request-id",
            "pinned",
            "passed",
        ] {
            assert!(!is_sensitive(name, &Redactor::default()), "{name}");
        }
        for name in ["environ", "exc_info", "ENV", "locals", "stack-trace"] {
            assert!(is_diagnostic(name), "{name}");
        }
        let (v, _) = redact(
            json!({"environ": {"DATABASE_PASS": "s3cr3t-pw", "HOME": "/srv"}, "headers": [["X-Session", "abc123"]]}),
        );
        assert_eq!(v["environ"]["DATABASE_PASS"], "[REDACTED:sensitive-key]");
        assert_eq!(v["headers"][0][1], "[REDACTED:sensitive-key]");
    }

    /// The probe's first class of misses: a name and its value in sibling members (Kubernetes and ECS `env`,
    /// `aws ssm get-parameter`, HAR headers and cookies, CI variables), classified as a member's name is.
    #[test]
    fn a_value_beside_a_member_naming_a_secret_goes_whole() {
        let (v, f) = redact(json!({
            "env": [
                {"name": "API_SECRET", "value": "short"},
                {"name": "DB_PASSWORD", "value": 123456},
                {"name": "LOG_LEVEL", "value": "info"},
                {"name": "max_tokens", "value": 4096},
            ],
            "Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": "bepgivn468RTE", "Version": 3},
            "variables": [{"key": "NPM_TOKEN", "value": "abc", "masked": false}, {"key": "REGION", "value": "eu-west-1"}],
            "cookies": [{"name": "sessionid", "value": "k3j5h2l1"}, {"name": "theme", "value": "dark"}],
            "headers": [{"Name": "X-Api-Key", "Value": "k-1"}],
            "params": [{"ParameterName": "master_user_password", "ParameterValue": "hunter2"}],
        }));
        assert_eq!(v["env"][0]["value"], "[REDACTED:sensitive-key]");
        assert_eq!(
            v["env"][1]["value"], "[REDACTED:sensitive-key]",
            "a number under a secret's name goes too"
        );
        assert_eq!(v["env"][2]["value"], "info");
        assert_eq!(v["env"][3]["value"], 4096);
        assert_eq!(v["env"][0]["name"], "API_SECRET", "the name stays");
        assert_eq!(v["Parameter"]["Value"], "[REDACTED:sensitive-key]");
        assert_eq!(v["Parameter"]["Version"], 3);
        assert_eq!(
            v["variables"],
            json!([{"key": "NPM_TOKEN", "value": "[REDACTED:sensitive-key]", "masked": false}, {"key": "REGION", "value": "eu-west-1"}])
        );
        assert_eq!(
            v["cookies"],
            json!([{"name": "sessionid", "value": "[REDACTED:sensitive-key]"}, {"name": "theme", "value": "dark"}])
        );
        assert_eq!(v["headers"][0]["Value"], "[REDACTED:sensitive-key]");
        assert_eq!(v["params"][0]["ParameterValue"], "[REDACTED:sensitive-key]");
        assert!(f.iter().any(|f| f.path == "/Parameter/Value"), "{f:?}");
        // Non-English names are member names too.
        let (v, _) = redact(
            json!({"contraseña": "x1", "Passwort": "x2", "пароль": "x3", "密码": 7, "mot_de_passe": "x4", "user": "ann"}),
        );
        assert_eq!(
            v,
            json!({"contraseña": "[REDACTED:sensitive-key]", "Passwort": "[REDACTED:sensitive-key]", "пароль": "[REDACTED:sensitive-key]",
            "密码": "[REDACTED:sensitive-key]", "mot_de_passe": "[REDACTED:sensitive-key]", "user": "ann"})
        );
    }

    #[test]
    fn sensitive_numbers_are_redacted_wherever_they_are() {
        let (v, f) = redact(
            json!({"card": 4111111111111111u64, "cards": [5500000000000004u64, 42], "qty": 3}),
        );
        assert_eq!(
            v,
            json!({"card": "[REDACTED:card-number]", "cards": ["[REDACTED:card-number]", 42], "qty": 3})
        );
        assert_eq!(
            f.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            ["/card", "/cards/0"]
        );
    }
}
