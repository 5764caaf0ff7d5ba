//! `policy.json`: the guard's policy file (documents checked, sessions under one).

use super::record::{case, ctx_json};
use serde_json::{json, Value};

/// The guard's policy file (issue 27): documents checked (valid, and refused with line and column), and
/// sessions under one (scopes, actions, overrides by exact name and by glob, the file's defaults).
pub(super) fn policy_cases() -> Value {
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
        // Each binary member goes back to its own place: a blob inside a value redacted whole (a `stack`) goes with
        // it, and its bytes never land in the image or the blob after it.
        g("results/binary-members-keep-their-places", results, json!([
            {"client": tool_call(1, "screenshot", json!({}))},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {
                "structuredContent": {"stack": {"blob": "U0VDUkVULVNUQUNLLUJZVEVT", "frames": 2}},
                "content": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="},
                    {"type": "resource", "resource": {"uri": "file:///k.bin", "mimeType": "application/octet-stream", "blob": "AAEC"}}]}}).to_string()}])),
        g("requests/arguments-redacted-before-they-leave", "[redaction]\nscopes = [\"errors\", \"requests\"]\n", json!([
            {"client": tool_call(1, "http_get", json!({"url": "https://api.example.org/v1", "headers": {"Authorization": "Bearer ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}))},
            {"upstream": text_result(1, "200 OK")}])),
        // What the server sends of its own (issue 34): progress messages, log data, an elicitation's texts, a
        // sampling request's messages, each under a scope of its own; a form's shape and a URL stay as they are.
        // Secrets in their providers' published formats, not the catalogue's examples.
        g("server-messages/redacted-in-their-scopes", "[redaction]\nscopes = [\"errors\", \"progress\", \"logging\", \"elicitation\", \"sampling\"]\n", json!([
            {"client": json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "deploy", "arguments": {}, "_meta": {"progressToken": "p"}}}).to_string()},
            {"upstream": json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1, "message": "pushing with ghp_Zq7Lm2Xc9Vb4Nn6Rt8YwK3pD5sF1hJ0gA7eQ"}}).to_string()},
            {"upstream": json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "db", "data": {"error": "connect failed", "key": "AKIAQ7ZLM2XC4VBN6RTW"}}}).to_string()},
            {"upstream": json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {"message": "Confirm the charge made with sk_live_Xq2Vb7Nm4Lk9Jh3Gf6Ds1Aa8",
                "requestedSchema": {"type": "object", "properties": {"password": {"type": "string", "title": "Token", "default": "ghp_Zq7Lm2Xc9Vb4Nn6Rt8YwK3pD5sF1hJ0gA7eQ"}}}}}).to_string()},
            {"upstream": json!({"jsonrpc": "2.0", "id": "e2", "method": "elicitation/create", "params": {"mode": "url", "elicitationId": "x", "url": "https://auth.example.com/connect?state=abc", "message": "Sign in as sk_live_Xq2Vb7Nm4Lk9Jh3Gf6Ds1Aa8"}}).to_string()},
            {"upstream": json!({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "summarise: aws AKIAQ7ZLM2XC4VBN6RTW"}}], "systemPrompt": "You hold ghp_Zq7Lm2Xc9Vb4Nn6Rt8YwK3pD5sF1hJ0gA7eQ", "maxTokens": 10}}).to_string()},
            {"upstream": text_result(1, "done")}])),
        g("server-messages/blocked-request-refused-to-the-server", "[redaction]\nscopes = [\"errors\", \"elicitation\", \"logging\"]\n[actions]\ntoken = \"block\"\n", json!([
            {"upstream": json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {"message": "Paste sk_live_Xq2Vb7Nm4Lk9Jh3Gf6Ds1Aa8 here"}}).to_string()},
            {"upstream": json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "AKIAQ7ZLM2XC4VBN6RTW"}}).to_string()}])),
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
