//! `sanitize.json`: upstream error responses scrubbed before a proxy passes them on.

use super::record::{case, ctx_json};
use serde_json::{json, Value};

pub(super) fn sanitize_cases() -> Value {
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
