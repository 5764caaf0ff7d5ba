// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

use crate::error::ErrorObject;
use serde_json::Value;

/// Adding an option: a field here (an `option` or a `list`, so that "not given" is every shell's default;
/// a field that is neither states its default in a doc line "Default: `value`."), then `cargo xtask gen`
/// (the guest's reader among the mirrors), then its meaning in the guest (`guest/src/api.rs`:
/// `guard_session`; `guest/src/component.rs`: one line from the record) (docs/where-to-change.md).
/// How a session behaves.
///
/// As every runtime passes them: the component's record (`guest/src/component.rs`), or that record as JSON
/// with snake_case keys (the npm module's glue, the vectors' `options`). An option not given is none (or its
/// stated default): `api::guard_session` resolves it from the policy file's `[defaults]`, else the built-in
/// default.
#[derive(Debug, Clone)]
pub struct SessionArgs {
    /// The dialect the session's own errors are written in. Not given: the policy file's `dialect`, else
    /// `canonical`.
    pub dialect: Option<String>,
    /// Largest client message in bytes. Not given: the policy file's `max_bytes`, else 10 MiB (the taxonomy's
    /// default).
    pub max_bytes: Option<u64>,
    /// Whether a client batch is split and relayed, or refused. Not given: the policy file's `batch`, else
    /// `reject`.
    pub batch: Option<String>,
    /// How long a request may wait for the upstream, in milliseconds (progress notifications for it
    /// restart the wait); 0 (null in Python, TypeScript and the JSON form): no limit. Not given: the
    /// policy file's `timeout`, else 50 000 (50 s: below the 60 s most MCP clients wait, so they get the
    /// guard's answer rather than their own timeout).
    pub timeout_ms: Option<u64>,
    /// How errors and logs name the upstream (a program name, a URL: credentials are never shown).
    /// Default: `upstream`.
    pub upstream: String,
    /// The longest text of a failed tool result passed on (at least 64); a longer one keeps its start and
    /// its end, the middle cut. Not given: the policy file's `failed_result_bytes`, else 8 KiB.
    pub failed_result_bytes: Option<u64>,
    /// A policy file (TOML: per-tool and per-method timeouts, redaction options and scopes, actions;
    /// docs/policy.md). One that `check-policy` refuses makes the session answer every request
    /// with the configuration error: nothing is relayed without the policy it was given.
    pub policy: Option<String>,
    /// The environment the policy's `hash_key_env` is read from (name, value).
    pub policy_env: Vec<(String, String)>,
    /// The environment whose secret-looking values (by name, as `set-environment` keeps them) this
    /// session redacts from everything it writes and logs; none: the one `set-environment` configured.
    pub environment: Option<Vec<(String, String)>>,
    /// Values this session redacts from everything it writes and logs whatever they are named: the
    /// credentials the shell itself sends its upstream (its header values, a URL's password and query
    /// values), which an upstream may reflect in an error. Each is kept as an environment's secret
    /// value is (at least 8 bytes, not a word, a host, a number or a path) and matched in the same
    /// encoded forms (base64, percent-encoding), beside the environment's.
    pub upstream_credentials: Option<Vec<String>>,
    /// Whether the session's client streams (`client-line-on`) belong to different clients, as an HTTP
    /// front's shared stateless child's do (none or false: one client's, as a legacy session's requests
    /// and GET stream). Then what the upstream sends reaches a stream only when it names an id or a
    /// progress token that stream owns: a request the upstream raises is answered with an error at once
    /// (no client can be asked it, nor answer it), and a notification that answers no request is dropped.
    pub many_clients: Option<bool>,
    /// Longest upstream line in bytes the shell reads (a longer one it discards as it streams and reports
    /// with `upstream-oversize`). Not given: the policy file's `max_upstream_bytes`, else the largest line the
    /// component takes (64 MiB). The shell reads the resolved value from `settings`.
    pub max_upstream_bytes: Option<u64>,
}

impl Default for SessionArgs {
    fn default() -> Self {
        SessionArgs {
            dialect: None,
            max_bytes: None,
            batch: None,
            timeout_ms: None,
            upstream: "upstream".into(),
            failed_result_bytes: None,
            policy: None,
            policy_env: Vec::new(),
            environment: None,
            upstream_credentials: None,
            many_clients: None,
            max_upstream_bytes: None,
        }
    }
}

impl SessionArgs {
    /// Reads the options' JSON (the npm module's glue, the vectors): a member not given, or null, is not
    /// given, but for a `limit`, where null says "no limit" (as 0 does). An unknown or ill-typed member is
    /// refused with -32602 (`data.reason` "invalid-options", `data.details` naming it, never its value). A
    /// match, not a serde derive: a derived reader adds to the npm module.
    pub fn from_json(text: &str) -> Result<SessionArgs, ErrorObject> {
        let refuse = |details: String| ErrorObject::invalid_params("invalid-options", &details);
        let Ok(Value::Object(members)) = serde_json::from_str::<Value>(text) else {
            return Err(refuse(
                "options must be guard-options as a JSON object".into(),
            ));
        };
        let mut args = SessionArgs::default();
        for (name, value) in members {
            if name == "timeout_ms" && value.is_null() {
                args.timeout_ms = Some(0);
                continue;
            }
            if value.is_null() {
                continue;
            }
            let read = match name.as_str() {
                "dialect" => json_text(value).map(|v| args.dialect = Some(v)),
                "max_bytes" => value.as_u64().map(|v| args.max_bytes = Some(v)),
                "batch" => json_text(value).map(|v| args.batch = Some(v)),
                "timeout_ms" => value.as_u64().map(|v| args.timeout_ms = Some(v)),
                "upstream" => json_text(value).map(|v| args.upstream = v),
                "failed_result_bytes" => value.as_u64().map(|v| args.failed_result_bytes = Some(v)),
                "policy" => json_text(value).map(|v| args.policy = Some(v)),
                "policy_env" => json_pairs(value).map(|v| args.policy_env = v),
                "environment" => json_pairs(value).map(|v| args.environment = Some(v)),
                "upstream_credentials" => {
                    json_texts(value).map(|v| args.upstream_credentials = Some(v))
                }
                "many_clients" => value.as_bool().map(|v| args.many_clients = Some(v)),
                "max_upstream_bytes" => value.as_u64().map(|v| args.max_upstream_bytes = Some(v)),
                _ => return Err(refuse(format!("unknown option `{name}`"))),
            };
            if read.is_none() {
                return Err(refuse(format!("option `{name}` has the wrong type")));
            }
        }
        Ok(args)
    }
}

fn json_text(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// `["value", ...]` as texts.
#[allow(dead_code)]
fn json_texts(value: Value) -> Option<Vec<String>> {
    let Value::Array(items) = value else {
        return None;
    };
    items.into_iter().map(json_text).collect()
}

/// `[[name, value], ...]` as pairs.
#[allow(dead_code)]
fn json_pairs(value: Value) -> Option<Vec<(String, String)>> {
    let Value::Array(items) = value else {
        return None;
    };
    items
        .into_iter()
        .map(|pair| match pair {
            Value::Array(mut p) if p.len() == 2 => {
                let value = json_text(p.pop()?)?;
                Some((json_text(p.pop()?)?, value))
            }
            _ => None,
        })
        .collect()
}
