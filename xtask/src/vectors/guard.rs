//! `guard.json`: scripted guard sessions (client lines, upstream lines, failures, timeouts).

use super::record::{case, ctx_json};
use serde_json::{json, Value};

const REQUEST_1: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":{}}}"#;

/// The messages a script's steps send the upstream, in order (each parsed).
fn sent_upstream(options: &Value, script: Value) -> Vec<Value> {
    let probe = case(
        "probe",
        "guard",
        json!({"options": options, "ctx": ctx_json(), "script": script}),
    );
    probe["expect"]
        .as_array()
        .expect("the probe's outcomes")
        .iter()
        .flat_map(|outcome| outcome["steps"].as_array().cloned().unwrap_or_default())
        .filter(|step| step["step"] == "send" && step["to"] == "upstream")
        .map(|step| serde_json::from_str(step["line"].as_str().unwrap_or("")).unwrap_or_default())
        .collect()
}

pub(super) fn guard_cases() -> Value {
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
        // MCP ids are strings or integers: a fractional one is answered at once with a null id, from either
        // side (the Python SDK cannot carry one: its proxy left it unanswered); integers however spelled pass.
        g(
            "client/fractional-id-refused-integer-spellings-pass",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#},
            {"client": r#"{"jsonrpc":"2.0","id":2.0,"method":"ping"}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":0.5,"method":"roots/list"}"#}]),
        ),
        // A member repeated where the guard reads (the servers' readers keep the last, so the guard would judge
        // one copy while the server ran the other): refused, never read one way of two, on both sides.
        g(
            "client/repeated-members-where-the-guard-reads-refused",
            &json!({"dialect": "canonical", "timeout_ms": 30_000, "upstream": "stdio:server",
                "policy": "[redaction]\nscopes = [\"errors\", \"requests\"]\n[[tool]]\nmatch = \"shell\"\nactions = { credential = \"block\" }\n"}),
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{},"name":"shell"}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"q","arguments":{"a":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"},"arguments":{}}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"q","arguments":{"a":"x","\u0061":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"q","_meta":{"progressToken":"a","progressToken":"b"}}}"#},
            {"client": r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}"#}]),
        ),
        g(
            "upstream/repeated-members-where-the-guard-reads-refused",
            &canonical,
            json!([
            {"client": REQUEST_1},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{"isError":false,"content":[{"type":"text","text":"token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}],"isError":true}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"q"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32010,"message":"a","message":"b"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"progressToken":2}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":"s","method":"elicitation/create","params":{"message":"a","message":"b"}}"#}]),
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
            {"client": r#"{"jsonrpc":"2.0","id":15E1,"method":"ping"}"#},
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
        // `expire` 2 ms early finds nothing due; 1 ms early (a timer's rounding: EXPIRE_EARLY_MS) counts as
        // at the deadline.
        g(
            "timeout/answered-cancelled-late-answer-dropped",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#},
            {"client": REQUEST_1, "at": 10},
            {"expire": true, "at": 29_998},
            {"expire": true, "at": 29_999},
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
        // A session given an environment of its own redacts its secret-looking values (a name that looks
        // secret: kept; one that does not: not) in place of the configured environment's.
        case(
            "upstream-log/the-sessions-own-environment",
            "guard",
            json!({"options": {"dialect": "canonical", "environment": [["UPSTREAM_API_TOKEN", "own-7c1e9a5f3b2d"], ["HOME", "/srv/upstream-home"]]},
            "env": [["DEPLOY_TOKEN", "tok-9f8e7d6c5b4a"]], "script": [
            {"upstream_log": "connected as own-7c1e9a5f3b2d, home /srv/upstream-home, deploy tok-9f8e7d6c5b4a\n"}]}),
        ),
        // The credentials a shell sends its upstream are redacted wherever the upstream reflects them, named
        // or not, as written and in the forms they travel in (a Basic header's base64, a query's
        // percent-encoding); one too short or too plain to be a secret (`v2`, `acme`) is left alone.
        case(
            "upstream-log/the-shells-own-upstream-credentials",
            "guard",
            json!({"options": {"dialect": "canonical", "timeout_ms": null, "upstream_credentials": ["UPHDR-vec-7f3a9c1e55", "alice:pw-vec-4242", "tok&key=9z8y", "v2", "acme"]},
            "script": [
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"bad key UPHDR-vec-7f3a9c1e55 for acme v2, you sent YWxpY2U6cHctdmVjLTQyNDI=","data":{"sent":"tok%26key%3D9z8y"}}}"#},
            {"upstream_log": "rejected UPHDR-vec-7f3a9c1e55 from tenant acme\n"}]}),
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
    cases.extend(settings_cases(&g));
    json!({"description": "guard: scripted sessions of a proxy's per-message policy (client lines, upstream lines, failures, timeouts); one output per step.", "cases": cases})
}

/// Every limit resolves in the session, once for every runtime: the caller's option, else the policy file's
/// `[defaults]`, else the built-in default; 0 or null is "no limit". Each rule: the `settings` the session
/// reports, and the deadline a request gets.
fn settings_cases(g: &dyn Fn(&str, &Value, Value) -> Value) -> Vec<Value> {
    let file = "[defaults]\ntimeout = 7\nmax_bytes = 4096\nmax_upstream_bytes = 8192\nfailed_result_bytes = 300\n";
    let script = json!([{"settings": true}, {"client": REQUEST_1}]);
    let shape_file = "[defaults]\ndialect = \"mcp\"\nbatch = \"allow\"\n";
    let shape_script =
        json!([{"settings": true}, {"client": format!("[{REQUEST_1}]")}, {"client": "{not json"}]);
    vec![
        g(
            "settings/given-over-the-files",
            &json!({"dialect": "canonical", "upstream": "stdio:server", "policy": file, "timeout_ms": 3_000,
                "max_bytes": 100, "max_upstream_bytes": 200, "failed_result_bytes": 500}),
            script.clone(),
        ),
        g(
            "settings/not-given-from-the-policy-file",
            &json!({"dialect": "canonical", "upstream": "stdio:server", "policy": file}),
            script.clone(),
        ),
        g(
            "settings/not-given-no-file-the-defaults",
            &json!({"dialect": "canonical", "upstream": "stdio:server"}),
            script.clone(),
        ),
        g(
            "settings/no-limit-null-over-the-files",
            &json!({"dialect": "canonical", "upstream": "stdio:server", "policy": file, "timeout_ms": null}),
            script.clone(),
        ),
        g(
            "settings/no-limit-0-over-the-default",
            &json!({"dialect": "canonical", "upstream": "stdio:server", "timeout_ms": 0}),
            script.clone(),
        ),
        g(
            "settings/no-limit-from-the-policy-file",
            &json!({"dialect": "canonical", "upstream": "stdio:server", "policy": "[defaults]\ntimeout = 0\n"}),
            script,
        ),
        // The dialect and the batch policy resolve as the limits do: what the session writes (a batch relayed
        // or refused, its own error's shape) follows what it reports.
        g(
            "settings/dialect-and-batch-given-over-the-files",
            &json!({"dialect": "canonical", "batch": "reject", "upstream": "stdio:server", "policy": shape_file}),
            shape_script.clone(),
        ),
        g(
            "settings/dialect-and-batch-not-given-from-the-policy-file",
            &json!({"upstream": "stdio:server", "policy": shape_file}),
            shape_script.clone(),
        ),
        g(
            "settings/dialect-and-batch-not-given-no-file-the-defaults",
            &json!({"upstream": "stdio:server"}),
            shape_script,
        ),
    ]
}

/// The guard never breaks the protocol it carries: results under each MCP revision, the spec's own codes, odd
/// ids and framing.
fn fidelity_cases(
    g: &dyn Fn(&str, &Value, Value) -> Value,
    opts: &dyn Fn(&str, Option<u64>) -> Value,
) -> Vec<Value> {
    let mcp = opts("mcp", Some(5_000));
    let canonical = opts("canonical", Some(30_000));
    // The session names its streams' requests upstream with names drawn from the call's entropy: a script
    // that answers them learns them by running its first steps (the same steps, the same names).
    let stream_a = json!({"client_on": [1, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}"#]});
    let stream_b = json!({"client_on": [2, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}"#]});
    let names = sent_upstream(&canonical, json!([stream_a, stream_b]));
    let many = json!({"dialect": "canonical", "timeout_ms": 30_000, "upstream": "stdio:server", "many_clients": true});
    let many_names = sent_upstream(&many, json!([stream_a]));
    // A2A's streaming methods behind an HTTP front's shared relay (issue 35): the session's names for them.
    let a2a = json!({"dialect": "a2a", "timeout_ms": 30_000, "upstream": "http://agent/rpc", "many_clients": true});
    let a2a_stream = |stream: u64, id: &str, method: &str| json!({"client_on": [stream, format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{{"messageId":"m{stream}","role":"ROLE_USER","parts":[{{"text":"go"}}]}}}}}}"#)]});
    let a2a_opened = [
        a2a_stream(1, "1", "SendStreamingMessage"),
        a2a_stream(2, "1", "SubscribeToTask"),
    ];
    let a2a_names = sent_upstream(&a2a, json!(a2a_opened));
    let a2a_left = [
        a2a_stream(1, r#""a""#, "SendStreamingMessage"),
        a2a_stream(2, r#""b""#, "SendStreamingMessage"),
        a2a_stream(3, r#""c""#, "SubscribeToTask"),
        a2a_stream(4, r#""d""#, "SendStreamingMessage"),
    ];
    let a2a_left_names = sent_upstream(&a2a, json!(a2a_left));
    let a2a_event = |name: &Value, result: Value| {
        json!({"jsonrpc": "2.0", "id": name["id"], "result": result}).to_string()
    };
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
        // A 2026-07-28 request served by a handshake-era server: its result gets what that revision requires and
        // it lacks (`resultType`; `cacheScope` and `ttlMs` on a cacheable one), first, the rest byte for byte; a
        // result that has them passes as it came; one that cannot carry them is answered -32022.
        g(
            "revision/2026-07-28-request-to-a-handshake-era-server",
            &canonical,
            {
                // The handshake's first three steps: initialize, its answer, initialized.
                let mut script: Vec<Value> = handshake("2025-11-25")
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                script.truncate(3);
                let modern_list = |id: u64| json!({"client": format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}}}"#)});
                script.extend([
                    modern_list(1),
                    json!({"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"q","inputSchema":{"type":"object"}}]}}"#}),
                    json!({"client": modern(2, "query")}),
                    json!({"upstream": r#"{"jsonrpc":"2.0","id":2,"result":{ }}"#}),
                    modern_list(3),
                    json!({"upstream": r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[],"resultType":"complete","cacheScope":"public","ttlMs":60000}}"#}),
                    json!({"client": modern(4, "query")}),
                    json!({"upstream": r#"{"jsonrpc":"2.0","id":4,"result":"done"}"#}),
                ]);
                Value::Array(script)
            },
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
        // A line break between a message's tokens is whitespace: the message goes on as one line, so a body
        // laid out over lines (an HTTP upstream's SSE data, a pretty-printed POST) hides no message of its
        // own; one inside a string is no JSON and refused.
        g(
            "framing/line-breaks-between-tokens-go-on-as-one-line",
            &canonical,
            json!([
            {"client": "{\r\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"ping\"\n}"},
            {"client": r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#},
            {"upstream": "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\n{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32005,\"message\":\"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"}}\r\n}}"},
            {"client": "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"pi\nng\"}"}]),
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
            &json!({"dialect": "canonical", "timeout_ms": null, "upstream": "stdio:server", "failed_result_bytes": 300}),
            json!([
            {"client": REQUEST_1},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true, "content": [{"type": "text",
                "text": format!("The site's robots.txt disallows this page: {} The assistant must tell the user it could not fetch the page.", "Disallow: /p/ ".repeat(100))}]}}).to_string()}]),
        ),
        // An A2A agent's failed task (issue 35): in the a2a dialect its status message and artifacts are
        // redacted as a failed tool result is; a completed task passes as it came; in another dialect no task
        // state is read.
        g(
            "failed-result/a2a-failed-task",
            &json!({"dialect": "a2a", "timeout_ms": 30_000, "upstream": "http://agent/rpc"}),
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"fail"}]}}}"#},
            {"upstream": json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t", "contextId": "c",
                "status": {"state": "TASK_STATE_FAILED", "message": {"messageId": "r", "role": "ROLE_AGENT",
                    "parts": [{"text": "build server refused token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}]}},
                "artifacts": [{"artifactId": "a", "parts": [{"text": "log: password=hunter2hunter2"}]}]}}}).to_string()},
            {"client": r#"{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"t"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":2,"result":{"id":"t","status":{"state":"TASK_STATE_REJECTED","message":{"role":"ROLE_AGENT","parts":[{"text":"password=hunter2hunter2"}]}}}}"#},
            {"client": r#"{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"u"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":3,"result":{"id":"u","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"done"}]}]}}"#}]),
        ),
        g(
            "failed-result/a2a-task-state-outside-the-a2a-dialect",
            &canonical,
            json!([
            {"client": r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{"id":"t","status":{"state":"TASK_STATE_FAILED","message":{"parts":[{"text":"password=hunter2hunter2"}]}}}}"#}]),
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
            stream_a,
            stream_b,
            {"upstream": format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":1}}}}"#, names[1]["params"]["_meta"]["progressToken"])},
            {"upstream": format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#, names[1]["id"])},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#},
            {"client_on": [1, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#]},
            {"stream_closed": 1},
            {"upstream": format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, names[0]["id"])},
            // A name the upstream guesses (a counter's, as the session's names once were) reaches no one.
            {"upstream": r#"{"jsonrpc":"2.0","id":1,"result":{}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}"#},
            {"client_on": [3, r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"q"}}"#]},
            {"client_on": [3, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}"#]},
            {"client_on": [4, r#"{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"slow"}}"#]},
            {"expire": true, "at": 30_000},
            {"client_on": [5, r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#]},
            {"upstream_failed": {"exited": 1}}]),
        ),
        // Streams of many clients (the HTTP front's shared child, `many_clients`): a request the upstream raises
        // is answered at once and reaches no client, whose answer to it goes nowhere; notifications that answer
        // no request reach no one; progress reaches only the stream that owns its token.
        g(
            "streams/many-clients-nothing-reaches-a-stranger",
            &many,
            json!([
            stream_a,
            {"upstream": r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Pay 500 EUR?","requestedSchema":{"type":"object","properties":{}}}}"#},
            {"client_on": [2, r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}"#]},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"stream 1 booked LH123"}}"#},
            {"upstream": r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#},
            {"upstream": format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":1}}}}"#, many_names[0]["params"]["_meta"]["progressToken"])},
            {"upstream": r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#},
            {"upstream": format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, many_names[0]["id"])}]),
        ),
        // A2A's streaming methods (issue 35): each event passed on under the client's id on its own stream, the
        // request pending until its final event (then the stream ends and the exchange is cancelled), a failed
        // status redacted, the wait restarted at each event, what comes after the end dropped, and the end of
        // the agent's stream settling a request that streamed.
        g(
            "a2a-streams/events-until-the-final-one",
            &a2a,
            json!([
            a2a_opened[0],
            a2a_opened[1],
            {"upstream": a2a_event(&a2a_names[0], json!({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}}}))},
            {"upstream": a2a_event(&a2a_names[0], json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})), "at": 20_000},
            {"upstream": a2a_event(&a2a_names[1], json!({"artifactUpdate": {"taskId": "u", "contextId": "c", "artifact": {"artifactId": "a", "parts": [{"text": "chunk 0"}]}}})), "at": 25_000},
            {"expire": true, "at": 30_000},
            {"upstream": a2a_event(&a2a_names[0], json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_FAILED",
                "message": {"messageId": "r", "role": "ROLE_AGENT", "parts": [{"text": "build server refused token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}]}}}})), "at": 40_000},
            {"upstream": a2a_event(&a2a_names[0], json!({"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {"artifactId": "a", "parts": [{"text": "late"}]}}})), "at": 40_001},
            {"upstream_exchange_ended": a2a_names[0]["id"].to_string(), "at": 40_002},
            {"upstream_exchange_ended": a2a_names[1]["id"].to_string(), "at": 40_003}]),
        ),
        // Settled without a final event: an agent's stream that ends before any event (answered), a silent one
        // (the timeout), a client that leaves (cancelled, owed nothing), a failed agent (answered, each once).
        g(
            "a2a-streams/ended-silent-left-and-failed",
            &a2a,
            json!([
            a2a_left[0],
            a2a_left[1],
            a2a_left[2],
            a2a_left[3],
            {"upstream_exchange_ended": a2a_left_names[0]["id"].to_string()},
            {"upstream": a2a_event(&a2a_left_names[1], json!({"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})), "at": 10_000},
            {"stream_closed": 4, "at": 15_000},
            {"expire": true, "at": 30_000},
            {"upstream_failed": "closed_output", "at": 35_000}]),
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
