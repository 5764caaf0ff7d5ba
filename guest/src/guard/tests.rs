//! The session's behaviour, step by step. (The same scripts run in every runtime as `guard` vectors.)

use super::oplog::LINE_EXCERPT_BYTES;
use super::*;
use serde_json::json;

const T0: u64 = 1_767_225_600_000;

fn ctx(ms: u64) -> CallContext {
    CallContext {
        unix_millis: ms,
        entropy: 42,
    }
}

fn session(dialect: &str, timeout: Option<u64>, batch: BatchPolicy) -> Session {
    let mut o = Options::new(dialect, "stdio:server");
    o.settings.timeout_ms = timeout;
    o.settings.batch = batch;
    Session::new(o)
}

fn canonical() -> Session {
    session("canonical", Some(30_000), BatchPolicy::Reject)
}

fn client(s: &mut Session, line: &str) -> Outcome {
    s.client_line(line.as_bytes(), ctx(T0))
}

fn upstream(s: &mut Session, line: &str) -> Outcome {
    s.upstream_line(line.as_bytes(), ctx(T0 + 5))
}

/// The lines sent to a peer (forwards as "<forward>").
fn lines(o: &Outcome, to: Peer) -> Vec<String> {
    o.steps
        .iter()
        .filter_map(|s| match s {
            Step::Forward { to: t, .. } if *t == to => Some("<forward>".to_string()),
            Step::Send { to: t, line, .. } if *t == to => Some(line.clone()),
            _ => None,
        })
        .collect()
}

fn events(o: &Outcome) -> Vec<&Event> {
    o.steps
        .iter()
        .filter_map(|s| {
            if let Step::Event(e) = s {
                Some(&**e)
            } else {
                None
            }
        })
        .collect()
}

fn only_client_value(o: &Outcome) -> Value {
    let l = lines(o, Peer::Client);
    assert_eq!(l.len(), 1, "{:?}", o.steps);
    serde_json::from_str(&l[0]).unwrap()
}

#[test]
fn requests_and_results_pass_untouched() {
    let mut s = canonical();
    let o = client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
    assert!(lines(&o, Peer::Client).is_empty());
    assert_eq!((o.pending, o.deadline), (1, Some(T0 + 30_000)));
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    assert!(events(&o).is_empty());
    assert_eq!((o.pending, o.deadline), (0, None));
}

#[test]
fn notifications_are_forwarded_and_never_answered() {
    let mut s = canonical();
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"x","params":[1]}"#,
    ] {
        let o = client(&mut s, line);
        assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
        assert_eq!(o.pending, 0);
    }
    let o = s.upstream_failed(UpstreamFailure::Exited(1), ctx(T0));
    assert!(lines(&o, Peer::Client).is_empty());
}

#[test]
fn bad_client_lines_are_answered_here_and_never_forwarded() {
    let cases: [(&str, i64, Value, &str); 8] = [
        ("{not json", -32700, Value::Null, ""),
        ("42", -32600, Value::Null, "not-an-object"),
        (
            r#"{"jsonrpc":"2.0","id":7}"#,
            -32600,
            json!(7),
            "missing-method",
        ),
        (
            r#"{"jsonrpc":"1.0","id":"a","method":"m"}"#,
            -32600,
            json!("a"),
            "invalid-jsonrpc-version",
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"m"}"#,
            -32600,
            Value::Null,
            "invalid-id-type",
        ),
        // An id the guard could not write back (found by cargo-fuzz: its answers carried `null`).
        (
            r#"{"jsonrpc":"2.0","id":"-\uDEe9\/1","method":"ping"}"#,
            -32600,
            Value::Null,
            "invalid-id-string",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            -32600,
            Value::Null,
            "duplicate-member",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#,
            -32600,
            Value::Null,
            "batch-not-supported",
        ),
    ];
    for (line, code, id, reason) in cases {
        let mut s = canonical();
        let o = client(&mut s, line);
        assert!(lines(&o, Peer::Upstream).is_empty(), "{line}");
        let r = only_client_value(&o);
        assert_eq!(r["error"]["code"], json!(code), "{line}");
        assert_eq!(r["id"], id, "{line}");
        if !reason.is_empty() {
            assert_eq!(r["error"]["data"]["reason"], json!(reason), "{line}");
        }
        assert_eq!(o.pending, 0);
        let e = events(&o);
        assert_eq!(e[0].event, EventName::Answered);
        assert_eq!(e[0].code, Some(code as i32));
    }
    let mut s = canonical();
    let o = s.client_line(b"{\"a\":\"\xff\"}", ctx(T0));
    assert_eq!(only_client_value(&o)["error"]["code"], json!(-32700));
}

#[test]
fn parse_and_oversize_errors_never_log_the_body() {
    let mut s = canonical();
    let secret = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
    let o = client(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"t":"{secret}"}}"#),
    );
    assert!(!o.to_json().contains("ghp_"));
    let mut small = session("canonical", None, BatchPolicy::Reject);
    small.options.settings.max_bytes = 16;
    let o = client(
        &mut small,
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{secret}"}}"#),
    );
    let text = o.to_json();
    assert!(!text.contains("ghp_"), "{text}");
    assert_eq!(only_client_value(&o)["error"]["data"]["reason"], "oversize");
    let o = small.client_oversize(1 << 30, b"", b"", ctx(T0));
    assert_eq!(only_client_value(&o)["error"]["data"]["reason"], "oversize");
}

#[test]
fn an_id_in_flight_cannot_be_reused() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
    let o = client(&mut s, r#"{"jsonrpc":"2.0","id":1.0,"method":"b"}"#);
    let r = only_client_value(&o);
    assert_eq!(r["error"]["data"]["reason"], "duplicate-id");
    assert_eq!(
        r["id"].to_string(),
        "1.0",
        "the client's own spelling is echoed"
    );
    // A string id "1" is another id.
    let o = client(&mut s, r#"{"jsonrpc":"2.0","id":"1","method":"b"}"#);
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
    assert_eq!(o.pending, 2);
}

#[test]
fn upstream_errors_are_sanitized_into_the_dialect() {
    let mut s = canonical();
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"q1","method":"tools/call"}"#,
    );
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"q1","error":{"code":-32005,"message":"DB down: postgres://app:hunter2@db/x","data":{"stack":"Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 3"}}}"#,
    );
    let r = only_client_value(&o);
    assert_eq!(r["error"]["code"], -32019);
    assert_eq!(r["id"], "q1");
    let text = r.to_string();
    assert!(
        !text.contains("hunter2") && !text.contains("Traceback") && !text.contains("alice"),
        "{text}"
    );
    let e = events(&o);
    assert_eq!(
        (e[0].event, e[0].kind.as_deref(), e[0].code),
        (EventName::Sanitized, Some("upstream-error"), Some(-32019))
    );
    let detail = e[0].detail.as_deref().unwrap();
    assert!(
        detail.contains("-32005") && detail.contains("Traceback") && !detail.contains("hunter2"),
        "{detail}"
    );
    assert_eq!(
        e[0].correlation_id.as_deref(),
        r["error"]["data"]["correlation_id"].as_str()
    );
}

#[test]
fn failed_tool_results_are_redacted_and_cut_and_clean_ones_pass_untouched() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#);
    let long = "x".repeat(9000);
    let line = json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [
        {"type": "text", "text": "Error executing tool: token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"},
        {"type": "text", "text": long},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"}], "isError": true}})
    .to_string();
    let o = upstream(&mut s, &line);
    let r = only_client_value(&o);
    assert_eq!(
        r["result"]["content"][0]["text"],
        "Error executing tool: token [REDACTED:github-token]"
    );
    // Cut to the session's limit (8 KiB by default: guidance to the model longer than 1 KiB was lost).
    assert!(r["result"]["content"][1]["text"].as_str().unwrap().len() <= 8192);
    assert_eq!(r["result"]["content"][2]["data"], "aGk=");
    assert_eq!(r["result"]["isError"], true);
    let e = events(&o);
    assert_eq!(e[0].event, EventName::Redacted);
    assert!(e[0].detail.as_deref().unwrap().contains("github-token"));

    client(&mut s, r#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#);
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"no such city"}],"isError":true}}"#,
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    // A successful result is never touched, whatever it holds.
    client(&mut s, r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#);
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}]}}"#,
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
}

#[test]
fn timeouts_answer_cancel_upstream_and_drop_the_late_answer() {
    let mut s = canonical();
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
    );
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#,
    );
    // Due at T0 + 30 s: a call more than EXPIRE_EARLY_MS early finds nothing due, one within it (a timer's
    // rounding) counts as at the deadline.
    let o = s.expire(ctx(T0 + 30_000 - EXPIRE_EARLY_MS - 1));
    assert!(o.steps.is_empty() && o.pending == 2);
    let o = s.expire(ctx(T0 + 30_000 - EXPIRE_EARLY_MS));
    let answers: Vec<Value> = lines(&o, Peer::Client)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2);
    assert_eq!(
        (
            answers[0]["id"].clone(),
            answers[0]["error"]["code"].clone()
        ),
        (json!(1), json!(-32001))
    );
    assert_eq!(answers[0]["error"]["message"], "Upstream timeout after 30s");
    let cancels = lines(&o, Peer::Upstream);
    assert_eq!(cancels.len(), 1, "initialize is never cancelled");
    let cancel: Value = serde_json::from_str(&cancels[0]).unwrap();
    assert_eq!(cancel["method"], "notifications/cancelled");
    assert_eq!(cancel["params"]["requestId"], 2);
    assert_eq!((o.pending, o.deadline), (0, None));
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert!(lines(&o, Peer::Client).is_empty());
    assert_eq!(events(&o)[0].level, "info");
}

#[test]
fn one_stuck_request_does_not_make_the_deadline_heap_grow_without_bound() {
    let mut s = canonical();
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"stuck","method":"tools/call"}"#,
    );
    for i in 0..20_000 {
        client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call"}}"#),
        );
        upstream(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#),
        );
        assert!(
            s.tables.deadlines.len() <= 2 * s.tables.pending.len() + 64 + 1,
            "{} entries for {} pending",
            s.tables.deadlines.len(),
            s.tables.pending.len()
        );
    }
    // Progress pushes deadlines back (a new entry each time): bounded the same way.
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"_meta":{"progressToken":"t"}}}"#,
    );
    for _ in 0..5_000 {
        upstream(
            &mut s,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        );
    }
    assert!(s.tables.deadlines.len() <= 2 * s.tables.pending.len() + 65);
    // Both still time out, once each (the slow one 30 s after its last progress).
    let o = s.expire(ctx(T0 + 30_005));
    let answered: Vec<Value> = lines(&o, Peer::Client)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
        .collect();
    assert_eq!(answered, [json!("stuck"), json!("slow")]);
}

#[test]
fn progress_pushes_the_deadline_back() {
    let mut s = canonical();
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#,
    );
    let o = s.upstream_line(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#, ctx(T0 + 20_000));
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    assert_eq!(o.deadline, Some(T0 + 50_000));
    assert!(s.expire(ctx(T0 + 40_000)).steps.is_empty());
}

#[test]
fn progress_for_a_request_no_longer_in_flight_is_dropped() {
    let mut s = canonical();
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#,
    );
    s.expire(ctx(T0 + 30_000));
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":2}}"#,
    );
    assert!(lines(&o, Peer::Client).is_empty(), "{:?}", o.steps);
    // A token the guard never saw is not its business: passed on.
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"q","progress":2}}"#,
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    // The same token on a new request is that request's again.
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#,
    );
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#,
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
}

#[test]
fn an_upstream_failure_answers_every_pending_request_once_in_order() {
    let mut s = canonical();
    for id in [3, 1, 2] {
        client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call"}}"#),
        );
    }
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    let o = s.upstream_failed(UpstreamFailure::Exited(3), ctx(T0));
    let ids: Vec<Value> = lines(&o, Peer::Client)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [json!(3), json!(2)],
        "the cancelled request is owed nothing"
    );
    let first: Value = serde_json::from_str(&lines(&o, Peer::Client)[0]).unwrap();
    assert_eq!(first["error"]["code"], -32000);
    assert_eq!(events(&o)[0].event, EventName::UpstreamEnded);
    assert!(
        s.upstream_failed(UpstreamFailure::Exited(3), ctx(T0))
            .steps
            .is_empty(),
        "only the first failure counts"
    );
    let o = client(&mut s, r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
    assert!(lines(&o, Peer::Upstream).is_empty());
    assert_eq!(only_client_value(&o)["error"]["code"], -32000);
}

#[test]
fn mcp_answers_tool_calls_with_results_and_other_methods_with_errors() {
    let mut s = session("mcp", Some(1000), BatchPolicy::Reject);
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#);
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read"}"#,
    );
    let o = s.expire(ctx(T0 + 1000));
    let answers: Vec<Value> = lines(&o, Peer::Client)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers[0]["result"]["isError"], true);
    // Not a tool call: the canonical timeout error (MCP's SDKs' own -32001), still saying it may be retried
    // (it was a bare -32603 internal error, found by driving real MCP clients through the guard).
    assert_eq!(
        (
            answers[1]["error"]["code"].clone(),
            answers[1]["error"]["data"]["retryable"].clone()
        ),
        (json!(-32001), json!(true))
    );
    let e = events(&o);
    assert_eq!(
        (e[1].kind.as_deref(), e[1].code),
        (Some("upstream-timeout"), Some(-32001))
    );

    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read"}"#,
    );
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32010,"message":"nope"}}"#,
    );
    assert_eq!(
        only_client_value(&o)["error"]["code"],
        -32010,
        "no result-shaped answer outside tools/call"
    );
}

#[test]
fn garbage_and_strays_from_the_upstream_are_logged_never_forwarded() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#);
    for line in [
        "Listening on port 8080 with API_KEY=sk-proj-abcdefghijklmnopqrstuvwx",
        "42",
        r#"{"jsonrpc":"2.0","id":77,"result":{}}"#,
        r#"{"hello":1}"#,
    ] {
        let o = upstream(&mut s, line);
        assert!(lines(&o, Peer::Client).is_empty(), "{line}");
        assert_eq!(events(&o)[0].event, EventName::Dropped);
        assert!(!events(&o)[0]
            .detail
            .as_deref()
            .unwrap_or("")
            .contains("sk-proj-a"));
        assert_eq!(o.pending, 1);
    }
}

#[test]
fn a_malformed_response_to_a_pending_request_is_answered_canonically() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#);
    let o = upstream(&mut s, r#"{"id":1,"result":{}}"#);
    let r = only_client_value(&o);
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(1), json!(-32019))
    );
    assert_eq!(o.pending, 0);
}

#[test]
fn invalid_utf8_from_the_upstream_is_repaired_not_forwarded_raw() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#);
    let o = s.upstream_line(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\xffb\"}",
        ctx(T0),
    );
    assert_eq!(only_client_value(&o)["result"], "a\u{fffd}b");
    assert_eq!(events(&o)[0].event, EventName::Repaired);
}

#[test]
fn the_upstreams_requests_reach_the_client_and_its_responses_go_back() {
    let mut s = canonical();
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}"#,
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    let o = client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"s1","result":{"content":{}}}"#,
    );
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
    let o = client(&mut s, r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#);
    assert!(
        lines(&o, Peer::Upstream).is_empty(),
        "answered once already"
    );
    // The client's request with the same id as the server's is another request.
    let o = client(&mut s, r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#);
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
}

#[test]
fn the_upstreams_unanswered_requests_are_remembered_in_a_bounded_window() {
    let mut s = canonical();
    let ask = |s: &mut Session, id: usize| {
        upstream(
            s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roots/list"}}"#),
        )
    };
    for id in 0..1024 {
        let o = ask(&mut s, id);
        assert!(events(&o).is_empty(), "{id}: {:?}", o.steps);
    }
    // The same id again is no new request to remember.
    assert!(events(&ask(&mut s, 5)).is_empty());
    // One more: the oldest (0) is forgotten and the operator told; every request is still relayed.
    let o = ask(&mut s, 1024);
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    let e = events(&o);
    assert_eq!((e.len(), e[0].event), (1, EventName::Dropped));
    assert!(
        e[0].detail
            .as_deref()
            .unwrap()
            .contains("oldest is forgotten"),
        "{:?}",
        e[0].detail
    );
    let answer = |s: &mut Session, id: usize| {
        client(
            s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"roots":[]}}}}"#),
        )
    };
    assert!(
        lines(&answer(&mut s, 0), Peer::Upstream).is_empty(),
        "the forgotten request's response is dropped"
    );
    for id in [1, 5, 1023, 1024] {
        assert_eq!(
            lines(&answer(&mut s, id), Peer::Upstream),
            ["<forward>"],
            "{id}"
        );
    }
}

#[test]
fn allowed_batches_are_split_upstream_and_gathered_for_the_client() {
    let mut s = session("canonical", Some(1000), BatchPolicy::Allow);
    let o = client(
        &mut s,
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"n"}, 5, {"jsonrpc":"2.0","id":2,"method":"b"}]"#,
    );
    assert_eq!(
        lines(&o, Peer::Upstream),
        [
            r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","method":"n"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"b"}"#
        ]
    );
    assert!(lines(&o, Peer::Client).is_empty());
    assert_eq!(o.pending, 2);
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":2,"result":"B"}"#);
    assert!(lines(&o, Peer::Client).is_empty());
    let o = s.expire(ctx(T0 + 1000));
    let all: Value = serde_json::from_str(&only_client_value(&o).to_string()).unwrap();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0]["error"]["code"], -32001);
    assert_eq!(all[1]["error"]["data"]["reason"], "not-an-object");
    assert_eq!(all[2]["result"], "B");
    // A batch of notifications gets no answer at all; an empty batch is an error.
    assert!(lines(
        &client(&mut s, r#"[{"jsonrpc":"2.0","method":"n"}]"#),
        Peer::Client
    )
    .is_empty());
    assert_eq!(
        only_client_value(&client(&mut s, "[]"))["error"]["data"]["reason"],
        "empty-batch"
    );
}

/// Found by cargo-fuzz (guard, two artifacts): a member answered while the rest of its batch was not left the
/// pending table, and a request reusing its id was forwarded: the client, still waiting for the array, got
/// two answers with that id. A member is in flight until its array reaches the client, however it was
/// answered; a late upstream answer to one answered at its deadline is dropped, as for a request alone.
#[test]
fn a_batch_members_id_stays_in_flight_until_its_array_reaches_the_client() {
    let mut s = session("canonical", Some(1000), BatchPolicy::Allow);
    let o = client(
        &mut s,
        r#"[{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":"p"}}},{"jsonrpc":"2.0","id":2,"method":"b"},{"jsonrpc":"2.0","id":3,"method":"c"}]"#,
    );
    assert_eq!(o.pending, 3);
    // 3 is answered by the upstream, 2 by its deadline; progress keeps 1 waiting, and the array open.
    assert!(lines(
        &upstream(&mut s, r#"{"jsonrpc":"2.0","id":3,"result":"C"}"#),
        Peer::Client
    )
    .is_empty());
    s.upstream_line(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#, ctx(T0 + 900));
    let o = s.expire(ctx(T0 + 1000));
    assert!(
        lines(&o, Peer::Client).is_empty(),
        "the array waits for 1: {:?}",
        o.steps
    );
    assert_eq!(
        lines(&o, Peer::Upstream).len(),
        1,
        "2 is cancelled upstream"
    );
    assert_eq!(o.pending, 1);
    for id in ["2", "3", "2.0"] {
        let o = client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"again"}}"#),
        );
        assert!(
            lines(&o, Peer::Upstream).is_empty(),
            "id {id} was forwarded while its answer waits in the array"
        );
        assert_eq!(
            only_client_value(&o)["error"]["data"]["reason"],
            "duplicate-id"
        );
    }
    // In a second batch too.
    let o = client(&mut s, r#"[{"jsonrpc":"2.0","id":2,"method":"again"}]"#);
    assert!(lines(&o, Peer::Upstream).is_empty());
    assert_eq!(
        only_client_value(&o)[0]["error"]["data"]["reason"],
        "duplicate-id"
    );
    // The upstream's late answer to 2 is dropped; the slot keeps the timeout.
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":2,"result":"late"}"#);
    assert!(lines(&o, Peer::Client).is_empty());
    assert_eq!((events(&o)[0].level.as_str(), o.pending), ("info", 1));
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":1,"result":"A"}"#);
    let all = only_client_value(&o);
    assert_eq!(all[0]["result"], "A");
    assert_eq!(all[1]["error"]["code"], -32001);
    assert_eq!(all[2]["result"], "C");
    // The array is out: every id may be used again.
    for id in [1, 2, 3] {
        let o = client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"again"}}"#),
        );
        assert_eq!(lines(&o, Peer::Upstream), ["<forward>"], "id {id}");
    }
    assert_eq!(s.pending(), 3);
}

/// The stderr of an upstream as a shell reads it: cut wherever a read or a buffer ended. Every runtime cut it
/// itself before, each with its own bug (a token across a cut reached the log in two halves).
const STDERR: &str = "starting pid 42 café\nconnect: token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d password=hunter22 db=postgres://app:s3cretpw@db/x\n\
loading tls key\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n\
VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\n\
Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 3, in <module>\nValueError: api_key=sk-proj-Zq8xW3vN6mK2pL9rT4yU7iO1aS5dF0gH\n\
last words without a line end: Bearer abcdefghijklmnopqrstuvwxyz0123456789";

/// What a shell logs of a text: one record per line, empty lines skipped (a blank line inside a key block
/// that a cut left open is the one difference a cut makes to the text).
fn log_records(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.is_empty()).collect()
}

fn stderr_in_pieces(cuts: &[usize]) -> String {
    let mut s = canonical();
    let bytes = STDERR.as_bytes();
    let mut out = String::new();
    let mut from = 0;
    for &cut in cuts.iter().chain([&bytes.len()]) {
        out += &s.upstream_stderr(&bytes[from..cut], false);
        from = cut;
    }
    out + &s.upstream_stderr(&[], true)
}

#[test]
fn stderr_is_logged_the_same_however_it_was_cut_into_pieces() {
    let whole = stderr_in_pieces(&[]);
    for secret in [
        "ghp_u8jz",
        "hunter22",
        "s3cretpw",
        "MIIEow",
        "VTLw7",
        "sk-proj-Zq8",
        "abcdefghijklmnop",
    ] {
        assert!(!whole.contains(secret), "{secret} in {whole}");
    }
    assert!(
        whole.contains("café")
            && whole.contains("/home/alice/app.py")
            && whole.contains("last words"),
        "{whole}"
    );
    // Every cut in two (inside tokens, inside `é`, inside the key block), and every pair of cuts 7 bytes apart.
    let n = STDERR.len();
    let whole = log_records(&whole);
    for a in 0..=n {
        assert_eq!(log_records(&stderr_in_pieces(&[a])), whole, "cut at {a}");
    }
    for a in (0..n).step_by(7) {
        for b in (a..n).step_by(7) {
            assert_eq!(
                log_records(&stderr_in_pieces(&[a, b])),
                whole,
                "cut at {a} and {b}"
            );
        }
    }
    // Byte by byte.
    let every: Vec<usize> = (1..n).collect();
    assert_eq!(log_records(&stderr_in_pieces(&every)), whole);
}

#[test]
fn an_endless_stderr_line_is_logged_in_pieces_cut_at_a_space_or_between_characters() {
    for (line, cut_after) in [
        ("word ".repeat(STDERR_LINE_CAP / 5 + 1000), Some(' ')),
        ("€".repeat(STDERR_LINE_CAP / 3 + 1000), None),
    ] {
        let mut s = canonical();
        let mut pieces = Vec::new();
        for chunk in line.as_bytes().chunks(64 * 1024 + 1) {
            pieces.push(s.upstream_stderr(chunk, false));
        }
        let held_back = s.upstream_stderr(&[], true);
        let logged: Vec<&String> = pieces.iter().filter(|p| !p.is_empty()).collect();
        assert!(
            !logged.is_empty(),
            "nothing logged before the end: the line was held without bound"
        );
        assert!(held_back.len() < STDERR_LINE_CAP + 64 * 1024 + 1);
        if let Some(c) = cut_after {
            assert!(
                logged.iter().all(|p| p.ends_with(c)),
                "a piece cut inside a word"
            );
        }
        assert_eq!(
            pieces.concat() + &held_back,
            line,
            "a cut split a character (U+FFFD in the log), or lost bytes"
        );
    }
}

#[test]
fn invalid_utf8_on_stderr_is_repaired_and_a_character_across_pieces_is_not() {
    let mut s = canonical();
    assert_eq!(s.upstream_stderr(b"caf\xc3", false), "");
    assert_eq!(s.upstream_stderr(b"\xa9 \xff\n", false), "café \u{FFFD}\n");
}

#[test]
fn the_upstreams_stderr_keeps_traces_and_loses_secrets() {
    let mut s = canonical();
    let log = "Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 3, in <module>\nValueError: password=hunter22\n";
    let out = s.upstream_log(log);
    assert!(
        out.contains("Traceback") && out.contains("/home/alice/app.py"),
        "{out}"
    );
    assert!(!out.contains("hunter22"), "{out}");
}

/// A private-key block in the upstream's stderr, cut between two `upstream_log` calls at any line end (a
/// pipe read, a burst cut at its size limit): none of its body reaches the log, and what follows the block
/// is logged as it would be in one piece.
#[test]
fn a_key_block_split_between_stderr_chunks_never_reaches_the_log_in_part() {
    let body: Vec<String> = (0..12)
        .map(|i| {
            format!(
                "{}{i:02}",
                "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0g"
                    .replace('A', &i.to_string())
            )
        })
        .collect();
    let blocks = [
        format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n", body.join("\n")),
        format!("-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n{}\n-----END ENCRYPTED PRIVATE KEY-----\n", body.join("\n")),
        // Cut off before its END line, then the process went on logging.
        format!("key: -----BEGIN OPENSSH PRIVATE KEY-----\n{}\n", body.join("\n")),
        format!("config dump: {{\"tls_key\": \"-----BEGIN PRIVATE KEY-----\\n{}\\n-----END PRIVATE KEY-----\"}}\n", body.join("\\n")),
    ];
    for block in &blocks {
        let text = format!("2026-11-23 INFO starting\n{block}2026-11-23 INFO listening on :8080 as alice@example.com\n");
        let whole = canonical().upstream_log(&text);
        let line_ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        for &cut in &line_ends {
            for second_cut in line_ends
                .iter()
                .copied()
                .filter(|&c| c > cut)
                .chain([text.len()])
            {
                let mut s = canonical();
                let out: String = [&text[..cut], &text[cut..second_cut], &text[second_cut..]]
                    .iter()
                    .map(|chunk| s.upstream_log(chunk))
                    .collect();
                for line in &body {
                    assert!(
                        !out.contains(&line[..20]),
                        "body line {line} reached the log, cut at {cut} and {second_cut}:\n{out}"
                    );
                }
                assert!(
                    out.contains("INFO starting") && out.contains("listening on :8080 as"),
                    "{out}"
                );
                assert!(!out.contains("alice@example.com"), "{out}");
                assert!(
                    out.ends_with("listening on :8080 as [REDACTED:email]\n"),
                    "{out}"
                );
                // The log reads as if the text had come whole, for a block with its END line. (One cut off
                // before its END line swallows the start of the next line when whole, `2026` of the date: the
                // engine's reading of a block without an end, left as it is; cut, the log differs there.)
                if block.contains("-----END") {
                    assert_eq!(
                        log_records(&out),
                        log_records(&whole),
                        "cut at {cut} and {second_cut}"
                    );
                }
            }
        }
        // Whole or cut, the block is one replacement.
        assert_eq!(
            whole.matches("[REDACTED:pem-private-key]").count(),
            1,
            "{whole}"
        );
    }
    // A chunk that ends a block with its END line closes it: the next chunk is logged as it is.
    let mut s = canonical();
    s.upstream_log(&format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n", body[0]));
    s.upstream_log("-----END RSA PRIVATE KEY-----\n");
    assert_eq!(
        s.upstream_log("MIIE is not a key here\n"),
        "MIIE is not a key here\n"
    );
}

#[test]
fn a_secret_across_an_excerpts_cut_never_shows_in_the_log() {
    // An unroutable upstream line is logged as a bounded excerpt; wherever a secret straddles the cut, none of
    // its characters beyond its rule's fixed prefix reach the event.
    let secrets = [
        "sk_live_83RZJzzzzgEOzdmenCkhvMdg",
        "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    ];
    for secret in secrets {
        for at in LINE_EXCERPT_BYTES - 40..LINE_EXCERPT_BYTES + 10 {
            let filler = "x".repeat(at.saturating_sub(60));
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":null,"result":{{"text":"{filler} {secret} tail"}}}}"#
            );
            let mut s = canonical();
            let out = upstream(&mut s, &line);
            let json = out.to_json();
            let body = &secret[8..];
            for window in 0..body.len() - 8 {
                assert!(
                    !json.contains(&body[window..window + 8]),
                    "part of {secret} at {at} in {json}"
                );
            }
        }
    }
}

#[test]
fn ids_and_methods_either_peer_wrote_reach_the_log_redacted() {
    // An upstream answering an id of its own choosing, and a client naming a method, write text the guard
    // logs: it goes through the operator's redaction like any detail. Numbers stay as they are.
    let token = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
    let mut s = canonical();
    let o = upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":"{token}","result":{{}}}}"#),
    );
    assert_eq!(events(&o)[0].event, EventName::Dropped);
    assert_eq!(
        events(&o)[0].id,
        Some(json!("[REDACTED:github-token]")),
        "{}",
        o.to_json()
    );

    let o = client(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":"{token}","method":"tools/{token}"}}"#),
    );
    assert!(!o.to_json().contains("u8jzPde0"), "{}", o.to_json());
    let o = upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":"{token}","error":{{"code":-32000,"message":"x"}}}}"#),
    );
    // The client gets its id back as it wrote it; the log does not.
    let e = events(&o)[0];
    assert_eq!(
        (e.id.clone(), e.method.as_deref()),
        (
            Some(json!("[REDACTED:github-token]")),
            Some("tools/[REDACTED:github-token]")
        )
    );
    assert_eq!(only_client_value(&o)["id"], json!(token));

    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":4111111111111111,"method":"tools/call"}"#,
    );
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":4111111111111111,"error":{"code":-32000,"message":"x"}}"#,
    );
    assert_eq!(events(&o)[0].id, Some(json!(4111111111111111u64)));
}

// ───────────────────────────── protocol fidelity (revisions, spec codes, odd ids) ─────────────────────────────

const CALL_MODERN: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
const CALL_PLAIN: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#;

/// The session after an `initialize` handshake that agreed on `revision`.
fn initialized(dialect: &str, revision: &str) -> Session {
    let mut s = session(dialect, Some(30_000), BatchPolicy::Reject);
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{revision}"}}}}"#
    );
    client(&mut s, &request);
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{revision}","capabilities":{{}}}}}}"#
    );
    assert_eq!(
        lines(&upstream(&mut s, &answer), Peer::Client),
        ["<forward>"]
    );
    s
}

#[test]
fn results_the_guard_writes_carry_what_the_revision_requires() {
    // Stateless (2026-07-28): the revision is named per request; every result needs `resultType`.
    for (failure, expect_kind) in [
        ("timeout", "upstream-timeout"),
        ("exit", "upstream-connection-failed"),
        ("error", "upstream-error"),
    ] {
        let mut s = session("mcp", Some(30_000), BatchPolicy::Reject);
        client(&mut s, CALL_MODERN);
        let o = match failure {
            "timeout" => s.expire(ctx(T0 + 30_000)),
            "exit" => s.upstream_failed(UpstreamFailure::Exited(1), ctx(T0)),
            _ => upstream(
                &mut s,
                r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"db down"}}"#,
            ),
        };
        let r = only_client_value(&o);
        assert_eq!(
            (
                r["result"]["isError"].clone(),
                r["result"]["resultType"].clone()
            ),
            (json!(true), json!("complete")),
            "{failure}: {r}"
        );
        assert_eq!(
            events(&o).iter().find_map(|e| e.kind.clone()).as_deref(),
            Some(expect_kind)
        );
    }
    // Handshake revisions: no `resultType` (what those clients' schemas expect), from the handshake or not.
    for revision in ["2025-06-18", "2025-11-25"] {
        let mut s = initialized("mcp", revision);
        client(&mut s, CALL_PLAIN);
        let r = only_client_value(&s.upstream_failed(UpstreamFailure::Exited(1), ctx(T0)));
        assert_eq!(r["result"]["isError"], true);
        assert!(r["result"].get("resultType").is_none(), "{revision}: {r}");
    }
    // A handshake that agreed on a revision the taxonomy does not know is a newer one.
    let mut s = initialized("mcp", "2027-01-01");
    client(&mut s, CALL_PLAIN);
    let r = only_client_value(&s.upstream_failed(UpstreamFailure::Exited(1), ctx(T0)));
    assert_eq!(r["result"]["resultType"], "complete");
    // An upstream's own isError result keeps what it wrote.
    let mut s = session("mcp", Some(30_000), BatchPolicy::Reject);
    client(&mut s, CALL_MODERN);
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"no"}],"isError":true,"resultType":"complete"}}"#,
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
}

#[test]
fn codes_the_spec_owns_keep_their_code_and_data() {
    let cases = [
        (
            -32042,
            json!({"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://auth.example.com/connect?elicitation=e1","message":"Authorize"}]}),
        ),
        (
            -32022,
            json!({"supported":["2025-06-18","2025-11-25"],"requested":"2026-07-28"}),
        ),
        (-32021, json!({"required":{"sampling":{}}})),
        (
            -32020,
            json!({"header":"Mcp-Method","expected":"tools/call"}),
        ),
        (-32002, json!({"uri":"file:///missing.txt"})),
    ];
    for dialect in ["canonical", "mcp", "thoughtgate"] {
        for method in ["tools/call", "resources/read", "initialize"] {
            for (code, data) in &cases {
                let mut s = session(dialect, Some(30_000), BatchPolicy::Reject);
                client(
                    &mut s,
                    &format!(r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{{}}}}"#),
                );
                let response =
                    json!({"jsonrpc":"2.0","id":3,"error":{"code":code,"message":"m","data":data}});
                let r = only_client_value(&upstream(&mut s, &response.to_string()));
                assert_eq!(
                    r["error"]["code"],
                    json!(code),
                    "{dialect} {method} {code}: {r}"
                );
                assert_eq!(&r["error"]["data"], data, "{dialect} {method} {code}: {r}");
            }
        }
    }
    // Values are still scrubbed; the structure stays.
    let mut s = canonical();
    client(&mut s, CALL_PLAIN);
    let response = json!({"jsonrpc":"2.0","id":7,"error":{"code":-32042,"message":"m","data":{"elicitations":[{"mode":"url","elicitationId":"e2","url":"https://a.example/x","message":"token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}]}}});
    let r = only_client_value(&upstream(&mut s, &response.to_string()));
    let e = &r["error"]["data"]["elicitations"][0];
    assert_eq!(
        (
            e["mode"].clone(),
            e["elicitationId"].clone(),
            e["url"].clone()
        ),
        (json!("url"), json!("e2"), json!("https://a.example/x"))
    );
    assert!(!e["message"].as_str().unwrap().contains("ghp_"), "{r}");
    // A server's own code (implementation-defined) is still the upstream's error, not the spec's.
    let mut s = canonical();
    client(&mut s, CALL_PLAIN);
    let r = only_client_value(&upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32011,"message":"m","data":{"x":1}}}"#,
    ));
    assert_eq!(r["error"]["code"], -32019);
}

#[test]
fn a_request_with_a_null_id_is_answered_at_once() {
    let mut s = canonical();
    let o = client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
    );
    assert!(lines(&o, Peer::Upstream).is_empty());
    let r = only_client_value(&o);
    assert_eq!(
        (
            r["id"].clone(),
            r["error"]["code"].clone(),
            r["error"]["data"]["reason"].clone()
        ),
        (Value::Null, json!(-32600), json!("null-id"))
    );
    assert_eq!(o.pending, 0);
}

/// MCP ids are strings or integers: a fractional one is answered at once with a null id (the one answer every
/// shell can write: the Python proxy's SDK cannot carry `1.5`, and left it unanswered), from either side;
/// integers however spelled are ids like any other.
#[test]
fn a_fractional_id_is_refused_from_either_side_and_integers_however_spelled_are_not() {
    let mut s = canonical();
    for id in ["1.5", "-0.25", "15e-1", "1.0000000000000001"] {
        let o = client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
        );
        assert!(lines(&o, Peer::Upstream).is_empty(), "{id}");
        let r = only_client_value(&o);
        assert_eq!(
            (
                r["id"].clone(),
                r["error"]["code"].clone(),
                r["error"]["data"]["reason"].clone()
            ),
            (Value::Null, json!(-32600), json!("fractional-id")),
            "{id}"
        );
        assert_eq!(o.pending, 0);
    }
    for id in ["1.0", "1E2", "2e0", "-3", "12345678901234567890123"] {
        let o = client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
        );
        assert_eq!(lines(&o, Peer::Upstream), ["<forward>"], "{id}");
    }
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":0.5,"method":"sampling/createMessage","params":{}}"#,
    );
    assert!(lines(&o, Peer::Client).is_empty(), "{:?}", o.steps);
    let told: Value = serde_json::from_str(&lines(&o, Peer::Upstream)[0]).unwrap();
    assert_eq!(
        (told["id"].clone(), told["error"]["data"]["reason"].clone()),
        (Value::Null, json!("fractional-id"))
    );
}

#[test]
fn an_answer_with_both_result_and_error_is_answered_at_once() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"x"}}"#,
    );
    let r = only_client_value(&o);
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(1), json!(-32019))
    );
    assert_eq!(o.pending, 0);
}

#[test]
fn a_byte_order_mark_before_a_message_is_read_past_and_not_passed_on() {
    let mut s = canonical();
    let o = client(
        &mut s,
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
    );
    assert_eq!(
        lines(&o, Peer::Upstream),
        ["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"]
    );
    assert_eq!(o.pending, 1);
    let o = upstream(
        &mut s,
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
    );
    assert_eq!(
        lines(&o, Peer::Client),
        ["{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"]
    );
    assert_eq!(o.pending, 0);
}

#[test]
fn an_upstream_request_with_an_unusable_id_is_not_relayed() {
    let mut s = canonical();
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"sampling/createMessage","params":{}}"#,
    );
    assert!(lines(&o, Peer::Client).is_empty(), "{:?}", o.steps);
    let told: Value = serde_json::from_str(&lines(&o, Peer::Upstream)[0]).unwrap();
    assert_eq!(
        (told["id"].clone(), told["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    // A malformed notification is dropped without an answer.
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","method":5}"#);
    assert!(lines(&o, Peer::Client).is_empty() && lines(&o, Peer::Upstream).is_empty());
}

#[test]
fn an_oversize_response_answers_its_request_at_once() {
    for dialect in ["canonical", "mcp"] {
        let mut s = session(dialect, Some(30_000), BatchPolicy::Reject);
        client(
            &mut s,
            r#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"screenshot"}}"#,
        );
        client(&mut s, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        // TypeScript writes the body first and the id last: only the tail shows it.
        let o = s.upstream_oversize(
            70_000_000,
            br#"{"result":{"content":[{"type":"image","data":"iVBOR"#,
            br#"AAAA"}]},"jsonrpc":"2.0","id":"big"}"#,
            ctx(T0),
        );
        let r = only_client_value(&o);
        assert_eq!(r["id"], "big", "{dialect}: {r}");
        assert!(
            r["error"].is_object() || r["result"]["isError"] == true,
            "{r}"
        );
        assert_eq!(o.pending, 1, "only that request is answered");
    }
    // An oversize request of the upstream's is refused to it, not left waiting.
    let mut s = canonical();
    let o = s.upstream_oversize(
        70_000_000,
        br#"{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"#,
        b"",
        ctx(T0),
    );
    let told: Value = serde_json::from_str(&lines(&o, Peer::Upstream)[0]).unwrap();
    assert_eq!(
        (told["id"].clone(), told["error"]["data"]["reason"].clone()),
        (json!(9), json!("oversize"))
    );
}

#[test]
fn an_oversize_client_request_is_answered_with_its_id() {
    let mut s = canonical();
    let o = s.client_oversize(
        20_000_000,
        br#"{"method":"tools/call","params":{"arguments":{"blob":"AAAA"#,
        br#"AAA"}},"jsonrpc":"2.0","id":41}"#,
        ctx(T0),
    );
    assert_eq!(only_client_value(&o)["id"], 41);
    // An id in flight is not answered twice: such an answer carries null.
    client(&mut s, r#"{"jsonrpc":"2.0","id":42,"method":"ping"}"#);
    let o = s.client_oversize(
        20_000_000,
        br#"{"jsonrpc":"2.0","id":42,"method":"tools/call""#,
        b"",
        ctx(T0),
    );
    assert_eq!(only_client_value(&o)["id"], Value::Null);
    // A client response to the upstream's request, too large: the upstream gets the error, the client nothing.
    upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}"#,
    );
    let o = s.client_oversize(
        20_000_000,
        br#"{"jsonrpc":"2.0","id":"s1","result":{"content":"#,
        b"",
        ctx(T0),
    );
    assert!(lines(&o, Peer::Client).is_empty());
    let told: Value = serde_json::from_str(&lines(&o, Peer::Upstream)[0]).unwrap();
    assert_eq!(told["id"], "s1");
}

// ───────────────────────────── what a failed result and the operator's log may carry ─────────────────────────────

fn failed(result: Value) -> Value {
    let mut s = canonical();
    client(&mut s, CALL_PLAIN);
    let o = upstream(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string(),
    );
    let lines = lines(&o, Peer::Client);
    assert_eq!(lines.len(), 1);
    if lines[0] == "<forward>" {
        return result_of_forward();
    }
    serde_json::from_str::<Value>(&lines[0]).unwrap()["result"].clone()
}

fn result_of_forward() -> Value {
    Value::String("<forwarded untouched>".into())
}

#[test]
fn all_of_a_failed_result_is_redacted_by_name_and_by_text_binary_left_alone() {
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let r = failed(json!({
        "content": [
            {"type": "text", "text": "db error", "annotations": {"audience": ["user"], "note": "token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}},
            {"type": "resource_link", "uri": "https://files.example.com/report.csv?access_token=ya29.a0AfH6SMBx3kLmNoPq7rStUvWxYz01234567890abcdef", "name": "report"},
            {"type": "text", "text": {"password": "hunter2", "user": "ann"}},
            {"type": "image", "data": image, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///x", "blob": image}}],
        "structuredContent": {"password": "hunter2", "detail": "connect postgres://app:hunter2@db/x"},
        "_meta": {"session": "s-83hf7Q2xLm", "progress": "ok"},
        "isError": true}));
    let text = r.to_string();
    assert!(
        !text.contains("hunter2")
            && !text.contains("ghp_")
            && !text.contains("ya29.")
            && !text.contains("s-83hf7Q2xLm"),
        "{text}"
    );
    assert_eq!(r["content"][3]["data"], image, "an image is not scanned");
    assert_eq!(r["content"][4]["resource"]["blob"], image);
    assert_eq!(
        (
            r["content"][2]["text"]["user"].clone(),
            r["_meta"]["progress"].clone()
        ),
        (json!("ann"), json!("ok"))
    );
}

/// Binary members taken out before redaction go back to their own places: one inside a value redacted whole (a
/// `stack`) goes with it, and one whose `"type": "image"` was redacted (under a sensitive name) stays where it
/// was. Neither's bytes may land in a later image, in a failed result (default scopes) or a successful one
/// (the `results` scope).
#[test]
fn binary_members_go_back_to_their_own_places_never_to_a_later_ones() {
    let secret = "U0VDUkVULVNUQUNLLUJZVEVT";
    let hidden = "SElEREVOLUNSRURFTlRJQUw=";
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let result = |failed: bool| {
        json!({
            "structuredContent": {"stack": {"blob": secret, "frames": 2}, "credentials": {"type": "image", "data": hidden}},
            "content": [{"type": "image", "mimeType": "image/png", "data": image},
                {"type": "resource", "resource": {"uri": "file:///k.bin", "blob": image}}],
            "isError": failed})
    };
    let check = |r: &Value, how: &str| {
        let text = r.to_string();
        assert_eq!(
            r["content"][0]["data"], image,
            "{how}: the image keeps its own bytes: {text}"
        );
        assert_eq!(r["content"][1]["resource"]["blob"], image, "{how}: {text}");
        assert!(
            !text.contains(secret),
            "{how}: bytes of a value redacted whole: {text}"
        );
        assert!(
            r["structuredContent"]["stack"].is_string(),
            "{how}: the stack went whole: {text}"
        );
    };
    check(&failed(result(true)), "a failed result");
    let mut s = with_policy("[redaction]\nscopes = [\"errors\", \"results\"]\n");
    client(&mut s, &tool_call(1, "screenshot"));
    let line = json!({"jsonrpc": "2.0", "id": 1, "result": result(false)}).to_string();
    check(
        &only_client_value(&upstream(&mut s, &line))["result"],
        "the results scope",
    );
}

#[test]
fn a_result_a_lenient_client_shows_as_failed_is_redacted_as_one() {
    for flag in [json!("true"), json!(1), json!("1")] {
        let r = failed(
            json!({"content": [{"type": "text", "text": "password=hunter2hunter2"}], "isError": flag}),
        );
        assert!(!r.to_string().contains("hunter2"), "{flag}: {r}");
    }
    // A result that says it did not fail is passed on as it is.
    assert_eq!(
        failed(json!({"content": [{"type": "text", "text": "ok"}], "isError": false})),
        result_of_forward()
    );
}

#[test]
fn a_long_failure_text_keeps_its_start_and_its_end() {
    let guidance = "The assistant must let the user know that it failed to fetch the page.";
    let text = format!(
        "The site's robots.txt disallows this page: {} {guidance}",
        "Disallow: /private/\n".repeat(1000)
    );
    let r = failed(json!({"content": [{"type": "text", "text": text}], "isError": true}));
    let cut = r["content"][0]["text"].as_str().unwrap();
    assert!(
        cut.len() <= 8192
            && cut.starts_with("The site's robots.txt")
            && cut.ends_with(guidance)
            && cut.contains("bytes cut]"),
        "{}",
        cut.len()
    );
    // The limit is the session's option.
    let mut o = Options::new("canonical", "stdio:server");
    o.settings.failed_result_bytes = 200;
    let mut s = Session::new(o);
    client(&mut s, CALL_PLAIN);
    let out = upstream(&mut s, &json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": text}], "isError": true}}).to_string());
    let r: Value = serde_json::from_str(&lines(&out, Peer::Client)[0]).unwrap();
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().len() <= 200);
}

#[test]
fn the_operators_log_never_gets_what_the_client_was_spared_by_name() {
    let mut s = canonical();
    client(&mut s, CALL_PLAIN);
    let data = json!({"Cookie": "sid=Q8xKz3", "session": "s-9fKq2", "auth": {"user": "ann", "pass": "Xq83-pw"},
        "credentials": {"pass": "Yp01-pw"}, "environ": {"DATABASE_PASS": "Zr55-pw"}, "trace": "at main (/srv/app.js:1:1)"});
    let o = upstream(&mut s, &json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "bad", "data": data}}).to_string());
    let detail = events(&o)[0].detail.clone().unwrap();
    for secret in ["Q8xKz3", "s-9fKq2", "Xq83-pw", "Yp01-pw", "Zr55-pw"] {
        assert!(!detail.contains(secret), "{secret} in the log: {detail}");
    }
    assert!(
        detail.contains("/srv/app.js"),
        "the operator keeps traces and paths: {detail}"
    );
}

// ───────────────────────────── several client streams on one upstream ─────────────────────────────

fn on(s: &mut Session, stream: u64, line: &str) -> Outcome {
    s.client_line_on(stream, line.as_bytes(), ctx(T0))
}

/// The lines sent to the client, with the stream each goes to.
fn to_streams(o: &Outcome) -> Vec<(Option<u64>, String)> {
    o.steps
        .iter()
        .filter_map(|s| match s {
            Step::Send {
                to: Peer::Client,
                stream,
                line,
            } => Some((*stream, line.clone())),
            Step::Forward {
                to: Peer::Client,
                stream,
            } => Some((*stream, "<forward>".into())),
            _ => None,
        })
        .collect()
}

/// The id and progress token (raw JSON) the upstream was given in the one line `o` sent it.
fn renamed(o: &Outcome) -> (String, String) {
    let sent = lines(o, Peer::Upstream);
    assert_eq!(sent.len(), 1, "{:?}", o.steps);
    let v: Value = serde_json::from_str(&sent[0]).unwrap();
    (
        v["id"].to_string(),
        v["params"]["_meta"]["progressToken"].to_string(),
    )
}

#[test]
fn requests_on_streams_are_renamed_upstream_and_answered_on_their_stream_with_their_own_id() {
    let mut s = canonical();
    // Two clients use the same id and the same progress token.
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}"#;
    let a = on(&mut s, 1, call);
    let b = on(&mut s, 2, call);
    let ((id_a, token_a), (id_b, token_b)) = (renamed(&a), renamed(&b));
    // Names of the session's own: 128-bit strings, all four different; the rest of the line byte for byte.
    for name in [&id_a, &token_a, &id_b, &token_b] {
        assert!(name.len() == 34 && name.starts_with('"'), "{name}");
    }
    let mut all = vec![&id_a, &token_a, &id_b, &token_b];
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 4);
    assert_eq!(
        lines(&b, Peer::Upstream),
        [format!(
            r#"{{"jsonrpc":"2.0","id":{id_b},"method":"tools/call","params":{{"name":"slow","_meta":{{"progressToken":{token_b}}}}}}}"#
        )]
    );
    assert_eq!(b.pending, 2);
    // Progress for the second goes to stream 2 with its client's token; its answer too, with its id.
    let o = upstream(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token_b},"progress":1}}}}"#
        ),
    );
    assert_eq!(to_streams(&o), [(Some(2), r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#.to_string())]);
    let o = upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":{id_b},"result":{{"content":[]}}}}"#),
    );
    assert_eq!(
        to_streams(&o),
        [(
            Some(2),
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#.to_string()
        )]
    );
    // The upstream's own messages go to the session's own stream (0).
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
    );
    assert_eq!(to_streams(&o), [(Some(0), "<forward>".to_string())]);
    // The same id on the same stream while in flight is refused; on another stream it is another request.
    let o = on(&mut s, 1, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(to_streams(&o)[0].0, Some(1));
    assert!(to_streams(&o)[0].1.contains("duplicate-id"));
    let o = on(&mut s, 2, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let (id, _) = renamed(&o);
    assert_eq!(
        lines(&o, Peer::Upstream),
        [format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)]
    );
    // The first stream's request is still its own: progress and answer under its names reach only it.
    let o = upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":{id_a},"result":{{}}}}"#),
    );
    assert_eq!(
        to_streams(&o),
        [(
            Some(1),
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_string()
        )]
    );
}

/// The names the session gives the upstream are drawn from the callers' entropy: two sessions given
/// different entropy name the same requests differently, and none of a session's names is a small number
/// (a counter's, which any client could guess).
#[test]
fn the_names_streams_get_upstream_are_unguessable() {
    let names = |entropy: u64| -> Vec<String> {
        let mut s = canonical();
        (0..3)
            .flat_map(|i| {
                let o = s.client_line_on(
                    1,
                    format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"x","params":{{"_meta":{{"progressToken":{i}}}}}}}"#).as_bytes(),
                    CallContext { unix_millis: T0, entropy: entropy + i },
                );
                let (id, token) = renamed(&o);
                [id, token]
            })
            .collect()
    };
    let (a, b) = (names(1), names(2));
    assert!(a.iter().all(|n| !b.contains(n)), "{a:?} {b:?}");
    // Every 64-bit half is drawn, none fixed: the first name of two sessions shared its first half once
    // (the opening call's entropy, mixed in twice, cancelled itself out).
    let halves = |names: &[String]| -> Vec<String> {
        names
            .iter()
            .map(|n| n.trim_matches('"'))
            .flat_map(|n| [n[..16].to_string(), n[16..].to_string()])
            .collect()
    };
    let (ha, hb) = (halves(&a), halves(&b));
    assert!(ha.iter().all(|h| !hb.contains(h)), "{ha:?} {hb:?}");
    assert_eq!(
        a,
        names(1),
        "the same entropy draws the same names (vectors replay them)"
    );
    assert!(a.iter().all(|n| n.parse::<u64>().is_err()));
}

#[test]
fn a_closed_stream_cancels_its_requests_and_is_owed_nothing() {
    let mut s = canonical();
    let call = r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"slow"}}"#;
    let (first, _) = renamed(&on(&mut s, 1, call));
    let (second, _) = renamed(&on(&mut s, 2, call));
    let o = s.stream_closed(1, ctx(T0));
    assert_eq!(
        lines(&o, Peer::Upstream),
        [format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{first},"reason":"the client's stream closed (jsonrpc-errors guard)"}}}}"#
        )]
    );
    assert_eq!(o.pending, 1);
    // A late answer to it is dropped; the other stream's request is still answered, on its stream.
    assert!(to_streams(&upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":{first},"result":{{}}}}"#)
    ))
    .is_empty());
    let o = upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":{second},"result":{{}}}}"#),
    );
    assert_eq!(
        to_streams(&o),
        [(
            Some(2),
            r#"{"jsonrpc":"2.0","id":"x","result":{}}"#.to_string()
        )]
    );
    // A client's own cancellation names its id: renamed for the upstream.
    let (third, _) = renamed(&on(
        &mut s,
        3,
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}"#,
    ));
    let o = on(
        &mut s,
        3,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user"}}"#,
    );
    assert_eq!(
        lines(&o, Peer::Upstream),
        [format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{third},"reason":"user"}}}}"#
        )]
    );
    assert_eq!(o.pending, 0);
}

#[test]
fn failures_and_timeouts_answer_each_request_on_its_stream() {
    let mut s = canonical();
    let call = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#;
    let (first, _) = renamed(&on(&mut s, 7, call));
    let (second, _) = renamed(&on(&mut s, 8, call));
    let o = s.expire(ctx(T0 + 30_000));
    let answered: Vec<(Option<u64>, Value)> = to_streams(&o)
        .into_iter()
        .map(|(s, l)| (s, serde_json::from_str::<Value>(&l).unwrap()["id"].clone()))
        .collect();
    assert_eq!(answered, [(Some(7), json!("a")), (Some(8), json!("a"))]);
    // Cancelled upstream under the ids the upstream knows them by.
    let cancels = lines(&o, Peer::Upstream);
    assert_eq!(cancels.len(), 2);
    assert!(cancels[0].contains(&format!(r#""requestId":{first}"#)));
    assert!(cancels[1].contains(&format!(r#""requestId":{second}"#)));
    on(&mut s, 9, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let o = s.upstream_failed(UpstreamFailure::Exited(1), ctx(T0));
    assert_eq!(to_streams(&o)[0].0, Some(9));
}

#[test]
fn one_stream_through_client_line_is_relayed_byte_for_byte_with_no_stream_named() {
    let mut s = canonical();
    let o = client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":"p"}}}"#,
    );
    assert_eq!(
        o.to_json(),
        r#"{"steps":[{"step":"forward","to":"upstream"}],"pending":1,"deadline":1767225630000}"#
    );
    let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!(
        o.to_json(),
        r#"{"steps":[{"step":"forward","to":"client"}],"pending":0,"deadline":null}"#
    );
}

// ───────────────────────────── the policy file ─────────────────────────────

fn with_policy(policy: &str) -> Session {
    let mut o = Options::new("canonical", "stdio:server");
    o.settings.timeout_ms = Some(30_000);
    o.policy = Some(policy.to_string());
    Session::new(o)
}

fn tool_call(id: u64, name: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{}}}}}}"#
    )
}

const SECRET_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"DB_PASSWORD=Xq83-hunter2-pw\nAPI=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}]}}"#;

#[test]
fn a_tool_timeout_and_a_longest_wait_override_the_sessions() {
    let mut s = with_policy("[defaults]\nmax_wait = 60\n[[tool]]\nmatch = \"slow_*\"\ntimeout = 5\n[[tool]]\nmatch = \"slow_export\"\ntimeout = 120\n");
    assert_eq!(
        client(&mut s, &tool_call(1, "slow_query")).deadline,
        Some(T0 + 5_000)
    );
    // An exact name wins over a glob; the longest wait caps it.
    let o = client(&mut s, &tool_call(2, "slow_export"));
    assert_eq!(
        o.deadline,
        Some(T0 + 5_000),
        "the earliest deadline is the first request's"
    );
    let o = s.expire(ctx(T0 + 5_000));
    assert_eq!(only_client_value(&o)["id"], 1);
    assert_eq!(
        o.deadline,
        Some(T0 + 60_000),
        "capped at max_wait, not 120 s"
    );
    // The log says which tool timed out (the `[[tool]]` that matched it: a label of the policy's, labels.rs),
    // after how long: its own timeout, not the session's 30 s.
    let e = events(&o)
        .into_iter()
        .find(|e| e.event == EventName::Answered)
        .unwrap();
    assert_eq!(
        (e.tool.as_deref(), e.kind.as_deref()),
        (Some("slow_*"), Some("upstream-timeout"))
    );
    assert!(
        e.detail.as_deref().unwrap().contains("within 5000 ms"),
        "{:?}",
        e.detail
    );
    let o = s.expire(ctx(T0 + 60_000));
    assert_eq!(
        only_client_value(&o)["error"]["message"],
        "Upstream timeout after 60s"
    );
    let e = events(&o)
        .into_iter()
        .find(|e| e.event == EventName::Answered)
        .unwrap();
    assert!(
        e.detail.as_deref().unwrap().contains("longest wait"),
        "{:?}",
        e.detail
    );
}

#[test]
fn the_files_defaults_fill_what_the_shell_left_unset_and_its_options_win() {
    let open = |timeout_ms: Option<u64>| {
        let args = crate::api::SessionArgs {
            timeout_ms,
            upstream: "stdio:server".into(),
            policy: Some(
                "[defaults]\ntimeout = 7\n[[tool]]\nmatch = \"slow\"\ntimeout = 90\n".into(),
            ),
            ..Default::default()
        };
        crate::api::guard_session(args).unwrap()
    };
    // Unset: the file's 7 s; given: the shell's 3 s; a tool's own override wins over both.
    assert_eq!(
        client(&mut open(None), &tool_call(1, "fast")).deadline,
        Some(T0 + 7_000)
    );
    assert_eq!(
        client(&mut open(Some(3_000)), &tool_call(1, "fast")).deadline,
        Some(T0 + 3_000)
    );
    assert_eq!(
        client(&mut open(Some(3_000)), &tool_call(1, "slow")).deadline,
        Some(T0 + 90_000)
    );
}

/// The dialect and the batch policy resolve in the session as the limits do (no shell merges them with the
/// file's `[defaults]`): given, else the file's, else `canonical` and `reject`; the settings report them and
/// the session writes by them.
#[test]
fn dialect_and_batch_resolve_caller_then_file_then_default() {
    let file = serde_json::to_string("[defaults]\ndialect = \"mcp\"\nbatch = \"allow\"\n").unwrap();
    let open = |json: &str| {
        let args = crate::api::SessionArgs::from_json(json).unwrap();
        crate::api::guard_session(args).unwrap()
    };
    let resolved = |json: &str| {
        let s: serde_json::Value = serde_json::from_str(&open(json).settings()).unwrap();
        (s["dialect"].clone(), s["batch"].clone())
    };
    assert_eq!(resolved("{}"), ("canonical".into(), "reject".into()));
    assert_eq!(
        resolved(&format!(r#"{{"policy": {file}}}"#)),
        ("mcp".into(), "allow".into())
    );
    assert_eq!(
        resolved(&format!(
            r#"{{"policy": {file}, "dialect": "watchgate", "batch": "reject"}}"#
        )),
        ("watchgate".into(), "reject".into())
    );
    // The file's batch policy is the one the session keeps to: a batch is relayed, not refused.
    let mut s = open(&format!(r#"{{"policy": {file}}}"#));
    let batch = format!("[{}]", tool_call(1, "q"));
    let out = client(&mut s, &batch);
    assert!(
        out.steps.iter().any(|step| matches!(
            step,
            Step::Send {
                to: Peer::Upstream,
                ..
            } | Step::Forward {
                to: Peer::Upstream,
                ..
            }
        )),
        "{out:?}"
    );
}

/// Every limit resolves in the session, once for every shell: given, else the file's, else the built-in
/// default; 0 (or, in the JSON form, null) says "no limit". The settings report what it resolved.
#[test]
fn every_limit_resolves_caller_then_file_then_default_and_settings_report_it() {
    let file = "[defaults]\ntimeout = 7\nmax_bytes = 4096\nmax_upstream_bytes = 8192\nfailed_result_bytes = 300\n";
    let open = |json: &str| {
        let args = crate::api::SessionArgs::from_json(json).unwrap();
        crate::api::guard_session(args).unwrap()
    };
    let settings = |s: &Session| serde_json::from_str::<serde_json::Value>(&s.settings()).unwrap();
    let with_file = |members: &str| {
        let policy = serde_json::to_string(file).unwrap();
        open(&format!("{{\"policy\": {policy}{members}}}"))
    };
    // Not given, no file: the built-in defaults.
    let s = open("{}");
    let t = crate::taxonomy::taxonomy();
    assert_eq!(
        settings(&s),
        serde_json::json!({"dialect": "canonical", "max_bytes": t.meta.default_max_bytes, "batch": "reject",
            "timeout_ms": crate::guard::DEFAULT_TIMEOUT_MILLIS, "failed_result_bytes": t.meta.failed_result_text_bytes,
            "max_upstream_bytes": t.meta.max_input_bytes})
    );
    assert_eq!(
        client(&mut open("{}"), &tool_call(1, "q")).deadline,
        Some(T0 + crate::guard::DEFAULT_TIMEOUT_MILLIS)
    );
    // Not given, with a file: the file's.
    let s = with_file("");
    assert_eq!(
        settings(&s),
        serde_json::json!({"dialect": "canonical", "max_bytes": 4096, "batch": "reject", "timeout_ms": 7000,
            "failed_result_bytes": 300, "max_upstream_bytes": 8192})
    );
    // Given: the caller's, over the file's.
    let s = with_file(
        r#", "timeout_ms": 3000, "max_bytes": 100, "max_upstream_bytes": 200, "failed_result_bytes": 500"#,
    );
    assert_eq!(
        settings(&s),
        serde_json::json!({"dialect": "canonical", "max_bytes": 100, "batch": "reject", "timeout_ms": 3000,
            "failed_result_bytes": 500, "max_upstream_bytes": 200})
    );
    // No limit: 0 or null from the caller, over the file's and the default; 0 in the file, over the default.
    for members in [r#", "timeout_ms": 0"#, r#", "timeout_ms": null"#] {
        let mut s = with_file(members);
        assert_eq!(settings(&s)["timeout_ms"], serde_json::Value::Null);
        assert_eq!(client(&mut s, &tool_call(1, "q")).deadline, None);
    }
    let mut s = open(&format!(
        "{{\"policy\": {}}}",
        serde_json::to_string("[defaults]\ntimeout = 0\n").unwrap()
    ));
    assert_eq!(client(&mut s, &tool_call(1, "q")).deadline, None);
}

#[test]
fn successful_results_are_untouched_by_default_and_redacted_in_the_results_scope() {
    let mut s = with_policy("[redaction]\nscopes = [\"errors\"]\n");
    client(&mut s, &tool_call(1, "read_file"));
    assert_eq!(
        lines(&upstream(&mut s, SECRET_RESULT), Peer::Client),
        ["<forward>"]
    );
    let mut s = with_policy(
        "[redaction]\nscopes = [\"errors\", \"results\"]\nallow = [\"Xq83-hunter2-pw\"]\n",
    );
    client(&mut s, &tool_call(1, "read_file"));
    let r = only_client_value(&upstream(&mut s, SECRET_RESULT));
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        !text.contains("ghp_") && text.contains("Xq83-hunter2-pw"),
        "allow-listed value kept, token gone: {text}"
    );
    // A result no rule touches passes byte for byte, whatever the scopes.
    client(&mut s, &tool_call(2, "read_file"));
    assert_eq!(
        lines(
            &upstream(
                &mut s,
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"all fine"}]}}"#
            ),
            Peer::Client
        ),
        ["<forward>"]
    );
}

#[test]
fn block_answers_with_the_policy_refusal_and_audit_logs_without_changing() {
    let mut s = with_policy(
        "[redaction]\nscopes = [\"errors\", \"results\"]\n[actions]\ngithub-token = \"block\"\n",
    );
    // The upstream lists its tools: their names label the decisions (labels.rs).
    client(&mut s, r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#);
    upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":0,"result":{"tools":[{"name":"read_file","inputSchema":{}}]}}"#,
    );
    client(&mut s, &tool_call(1, "read_file"));
    let o = upstream(&mut s, SECRET_RESULT);
    let r = only_client_value(&o);
    assert_eq!(
        (
            r["error"]["code"].clone(),
            r["error"]["data"]["type"].clone()
        ),
        (json!(-32003), json!("policy-denied"))
    );
    let blocked = events(&o)
        .into_iter()
        .find(|e| e.event == EventName::Blocked)
        .unwrap();
    assert_eq!(
        (blocked.rule.as_deref(), blocked.tool.as_deref()),
        (Some("github-token"), Some("read_file"))
    );
    assert!(!format!("{:?}", events(&o)).contains("ghp_"));

    let mut s = with_policy(
        "[redaction]\nscopes = [\"errors\", \"results\"]\n[actions]\ntoken = \"audit\"\n",
    );
    client(&mut s, &tool_call(1, "read_file"));
    let o = upstream(&mut s, SECRET_RESULT);
    let r = only_client_value(&o);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("ghp_u8jz"), "an audited token passes: {text}");
    assert!(
        !text.contains("Xq83-hunter2-pw"),
        "the rest is still redacted: {text}"
    );
    assert!(events(&o)
        .iter()
        .any(|e| e.event == EventName::Audited && e.rule.as_deref() == Some("github-token")));
}

#[test]
fn a_rule_off_for_one_tool_and_requests_redacted_before_they_leave() {
    let policy = "[redaction]\nscopes = [\"errors\", \"results\", \"requests\"]\n[[tool]]\nmatch = \"github_*\"\ndisable = [\"github-token\"]\n";
    let mut s = with_policy(policy);
    client(&mut s, &tool_call(1, "github_issue"));
    let o = upstream(&mut s, SECRET_RESULT);
    let text = only_client_value(&o)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("ghp_u8jz") && !text.contains("Xq83"),
        "{text}"
    );
    let line = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify","arguments":{"body":"token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}}"#;
    let o = client(&mut s, line);
    assert_eq!(
        lines(&o, Peer::Upstream),
        [
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify","arguments":{"body":"token [REDACTED:github-token]"}}}"#
        ]
    );
}

#[test]
fn a_refused_policy_fails_closed_and_a_bad_reload_keeps_the_old_one() {
    let mut s = with_policy("[redaction]\ndisable = [\"no-such-rule\"]\n");
    let o = client(&mut s, &tool_call(1, "x"));
    assert!(lines(&o, Peer::Upstream).is_empty());
    assert_eq!(
        only_client_value(&o)["error"]["data"]["type"],
        "configuration-error"
    );
    let mut s = with_policy("[[tool]]\nmatch = \"x\"\ntimeout = 1\n");
    let e = s
        .set_policy("[[tool]]\nmatch = \"x\"\ntimeout = \"soon\"\n", &[])
        .unwrap_err();
    assert_eq!(e.at.map(|(l, _)| l), Some(3));
    assert_eq!(
        client(&mut s, &tool_call(1, "x")).deadline,
        Some(T0 + 1_000),
        "the old policy still holds"
    );
    s.set_policy("[[tool]]\nmatch = \"x\"\ntimeout = 2\n", &[])
        .unwrap();
    assert_eq!(
        client(&mut s, &tool_call(2, "x")).deadline,
        Some(T0 + 1_000)
    );
    assert_eq!(
        s.expire(ctx(T0 + 1_000)).deadline,
        Some(T0 + 2_000),
        "new requests get the new one"
    );
}

#[test]
fn a_session_redacts_the_environment_it_was_given_and_no_other_session_sees_it() {
    // Unique to this test: no configured environment (set_environment) holds it.
    let secret = "q7Rv-session-0wn-9c2e4b81d6";
    let mut options = Options::new("canonical", "stdio:server");
    options.environment = Some(vec![("UPSTREAM_API_TOKEN".into(), secret.into())]);
    let mut own = Session::new(options);
    let mut other = canonical();
    let line = format!("retrying with key {secret}\n");
    let logged = own.upstream_stderr(line.as_bytes(), false);
    assert!(
        !logged.contains(secret) && logged.contains("retrying with key"),
        "{logged}"
    );
    let logged = own.upstream_log(&format!("transport failed: {secret}\n"));
    assert!(!logged.contains(secret), "{logged}");
    // The session's secrets are in force for its own calls only: another session, and the library, keep
    // the configured environment.
    assert!(other
        .upstream_stderr(line.as_bytes(), false)
        .contains(secret));
    assert!(crate::api::redact(&line).text.contains(secret));
}

// ───────────────────────────── repeated members ─────────────────────────────

/// Where a member is repeated: a line with `@` where the object holding it goes, the member, its two values,
/// and whether the line is the client's (else the upstream's, after the client's `tools/call` with id 1).
struct Repeat {
    line: &'static str,
    member: &'static str,
    values: [&'static str; 2],
    from_client: bool,
}

/// Every position the guard reads a member at, on both sides.
const REPEATS: &[Repeat] = &[
    // A tool call judged by one name, run by the other (its `[[tool]]` block skipped).
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":@}"#,
        member: "name",
        values: [r#""read_file""#, r#""shell""#],
        from_client: true,
    },
    // Arguments redacted in one copy, run in the other.
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":@}"#,
        member: "arguments",
        values: [
            r#"{"q":"x"}"#,
            r#"{"q":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}"#,
        ],
        from_client: true,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":@}}"#,
        member: "q",
        values: [r#""x""#, r#""ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d""#],
        from_client: true,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":@}"#,
        member: "uri",
        values: [r#""file:///a""#, r#""file:///etc/shadow""#],
        from_client: true,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":@}"#,
        member: "_meta",
        values: [r#"{}"#, r#"{"progressToken":"t"}"#],
        from_client: true,
    },
    // A second progress token, smuggled past the one renamed.
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","_meta":@}}"#,
        member: "progressToken",
        values: [r#""a""#, r#""b""#],
        from_client: true,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":@}}"#,
        member: "io.modelcontextprotocol/protocolVersion",
        values: [r#""2025-11-25""#, r#""2026-07-28""#],
        from_client: true,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":@}"#,
        member: "requestId",
        values: ["1", "2"],
        from_client: true,
    },
    // A failure read as a success (its text not redacted).
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":1,"result":@}"#,
        member: "isError",
        values: ["false", "true"],
        from_client: false,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":1,"result":{"content":[@]}}"#,
        member: "text",
        values: [r#""ok""#, r#""ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d""#],
        from_client: false,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":1,"error":@}"#,
        member: "message",
        values: [r#""ok""#, r#""ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d""#],
        from_client: false,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","method":"notifications/progress","params":@}"#,
        member: "progressToken",
        values: ["1", "2"],
        from_client: false,
    },
    Repeat {
        line: r#"{"jsonrpc":"2.0","id":"s","method":"elicitation/create","params":@}"#,
        member: "message",
        values: [r#""ok""#, r#""ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d""#],
        from_client: false,
    },
];

/// Members beside the repeated one.
const NOISE: &[(&str, &str)] = &[
    ("content", r#"[{"type":"text","text":"hello"}]"#),
    ("progress", "1"),
    ("code", "-32010"),
    ("extra", r#"{"k":[1,2]}"#),
];

/// The object holding the repeated member: the two copies (the second's name spelled with an escape when
/// asked) among the other members, in the order `order` picks.
fn repeated_object(r: &Repeat, noise: &[usize], order: &[usize], escape: bool) -> String {
    let quoted = |name: &str, escape: bool| {
        if escape {
            let mut chars = name.chars();
            let first = chars.next().unwrap_or('a');
            format!("\"\\u{:04x}{}\"", first as u32, chars.as_str())
        } else {
            format!("\"{name}\"")
        }
    };
    let mut members: Vec<String> = vec![
        format!("{}:{}", quoted(r.member, false), r.values[0]),
        format!("{}:{}", quoted(r.member, escape), r.values[1]),
    ];
    for &i in noise {
        let (k, v) = NOISE[i % NOISE.len()];
        if k != r.member && !members.iter().any(|m| m.starts_with(&format!("\"{k}\""))) {
            members.push(format!("\"{k}\":{v}"));
        }
    }
    let mut placed: Vec<String> = Vec::new();
    let mut left = members;
    for &o in order {
        if left.is_empty() {
            break;
        }
        placed.push(left.remove(o % left.len()));
    }
    placed.extend(left);
    format!("{{{}}}", placed.join(","))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// A member repeated at any position the guard reads, on either side, in any order among the others and
    /// however its name is spelled: the message is never passed on (nor read one way of two). A client's
    /// request is answered -32600 `duplicate-member`; a notification is dropped; an upstream answer becomes
    /// the guard's `upstream-error` for its request; an upstream request is refused to the upstream.
    #[test]
    fn a_member_repeated_where_the_guard_reads_is_never_passed_on(
        which in 0..REPEATS.len(),
        noise in proptest::collection::vec(0usize..8, 0..4),
        order in proptest::collection::vec(0usize..8, 0..6),
        escape: bool,
        streams: bool,
    ) {
        let r = &REPEATS[which];
        let line = r.line.replace('@', &repeated_object(r, &noise, &order, escape));
        let mut s = with_policy("[redaction]\nscopes = [\"errors\", \"results\", \"requests\"]\n[[tool]]\nmatch = \"shell\"\nactions = { credential = \"block\" }\n");
        let send = |s: &mut Session, line: &str| if streams { on(s, 1, line) } else { client(s, line) };
        if r.from_client {
            let o = send(&mut s, &line);
            proptest::prop_assert!(lines(&o, Peer::Upstream).is_empty(), "{} went upstream: {:?}", line, o.steps);
            let answers = lines(&o, Peer::Client);
            if line.contains("\"id\":7") {
                proptest::prop_assert_eq!(answers.len(), 1, "{}", line);
                let a: Value = serde_json::from_str(&answers[0]).unwrap();
                proptest::prop_assert_eq!(&a["error"]["data"]["reason"], &json!("duplicate-member"), "{}", line);
                proptest::prop_assert_eq!(&a["id"], &json!(7));
            } else {
                proptest::prop_assert!(answers.is_empty());
            }
            proptest::prop_assert_eq!(o.pending, 0);
        } else {
            // The answer names the request as the upstream knows it (renamed on a stream).
            let forwarded = send(&mut s, &tool_call(1, "read_file"));
            let line = match (streams, lines(&forwarded, Peer::Upstream).first()) {
                (true, Some(sent)) => {
                    let id = serde_json::from_str::<Value>(sent).unwrap()["id"].to_string();
                    line.replace("\"id\":1", &format!("\"id\":{id}"))
                }
                _ => line,
            };
            let o = s.upstream_line(line.as_bytes(), ctx(T0 + 5));
            let to_client = lines(&o, Peer::Client);
            proptest::prop_assert!(!to_client.iter().any(|l| l == "<forward>" || l.contains("ghp_")), "{} passed on: {:?}", line, o.steps);
            if r.line.contains("\"id\":1") {
                proptest::prop_assert_eq!(to_client.len(), 1, "{}", line);
                let a: Value = serde_json::from_str(&to_client[0]).unwrap();
                proptest::prop_assert_eq!(&a["error"]["code"], &json!(-32019), "{}", line);
                proptest::prop_assert_eq!(o.pending, 0);
            } else {
                proptest::prop_assert!(to_client.is_empty(), "{}", line);
            }
            if line.contains("\"id\":\"s\"") {
                let told = lines(&o, Peer::Upstream);
                proptest::prop_assert_eq!(told.len(), 1);
                proptest::prop_assert!(told[0].contains("duplicate-member") && told[0].contains("\"id\":\"s\""), "{}", told[0]);
            }
        }
    }
}

#[test]
fn a_tool_call_without_a_string_name_is_refused_under_a_policy() {
    let mut s = with_policy("[[tool]]\nmatch = \"shell\"\nactions = { credential = \"block\" }\n");
    for params in [
        r#"{"name":["shell"]}"#,
        r#"{"arguments":{}}"#,
        r#"{"name":null}"#,
    ] {
        let o = client(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#),
        );
        assert!(lines(&o, Peer::Upstream).is_empty(), "{params}");
        assert_eq!(
            only_client_value(&o)["error"]["code"],
            json!(-32602),
            "{params}"
        );
    }
    // Without a policy the server judges it, as before.
    let o = client(
        &mut canonical(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
    );
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
}

/// What the guard scans but cannot read (nested past serde_json's limit) is never passed on unscanned: a
/// failed result, a result in a redacted scope, a request's arguments under `requests`.
#[test]
fn what_cannot_be_scanned_fails_closed() {
    let deep = format!(
        "{}\"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"{}",
        "[".repeat(200),
        "]".repeat(200)
    );
    let mut s = with_policy("[redaction]\nscopes = [\"errors\", \"results\", \"requests\"]\n");
    let o = client(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"q":{deep}}}}}}}"#
        ),
    );
    assert!(lines(&o, Peer::Upstream).is_empty());
    assert_eq!(only_client_value(&o)["error"]["code"], json!(-32003));
    for result in [
        format!(r#"{{"isError":true,"content":[{{"type":"text","text":{deep}}}]}}"#),
        format!(r#"{{"content":[{{"type":"text","text":{deep}}}]}}"#),
    ] {
        client(&mut s, &tool_call(2, "t"));
        let o = upstream(
            &mut s,
            &format!(r#"{{"jsonrpc":"2.0","id":2,"result":{result}}}"#),
        );
        let sent = lines(&o, Peer::Client);
        assert!(
            !sent.iter().any(|l| l == "<forward>" || l.contains("ghp_")),
            "{:?}",
            o.steps
        );
        assert_eq!(only_client_value(&o)["error"]["code"], json!(-32019));
    }
    // Without a scope that reads it, a deep successful result passes byte for byte, as before.
    let mut s = canonical();
    client(&mut s, &tool_call(3, "t"));
    let o = upstream(
        &mut s,
        &format!(r#"{{"jsonrpc":"2.0","id":3,"result":{{"content":{deep}}}}}"#),
    );
    assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
}

// ───────────────────────────── isolation between the streams of many clients ─────────────────────────────

fn many_clients(timeout: Option<u64>) -> Session {
    let mut o = Options::new("canonical", "stdio:server");
    o.settings.timeout_ms = timeout;
    o.many_clients = true;
    Session::new(o)
}

/// On a session whose streams are different clients' (the HTTP front's shared child), a request the upstream
/// raises reaches no client and is answered at once; no client can answer it; notifications that answer no
/// request reach no one; progress reaches only the stream whose token it names. A session of one client's
/// streams (a legacy session) keeps relaying them to its own stream, where its client answers them.
#[test]
fn the_upstreams_requests_and_notifications_reach_no_stranger() {
    let mut s = many_clients(Some(30_000));
    let a = on(
        &mut s,
        1,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","_meta":{"progressToken":"p"}}}"#,
    );
    let (_, token) = renamed(&a);
    // The server asks client A's question (an elicitation raised while serving A's call).
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Pay 500 EUR?","requestedSchema":{"type":"object","properties":{}}}}"#,
    );
    assert!(to_streams(&o).is_empty(), "{:?}", o.steps);
    let told: Value = serde_json::from_str(&lines(&o, Peer::Upstream)[0]).unwrap();
    assert_eq!(
        (told["id"].clone(), told["error"]["code"].clone()),
        (json!("e1"), json!(-32601))
    );
    // Client B answers "accept" to it: nothing reaches the server.
    let o = on(
        &mut s,
        2,
        r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}"#,
    );
    assert!(lines(&o, Peer::Upstream).is_empty(), "{:?}", o.steps);
    // Notifications: the log and list changes reach no stream; progress only its own.
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"A booked flight LH123"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
    ] {
        let o = upstream(&mut s, line);
        assert!(to_streams(&o).is_empty(), "{line}: {:?}", o.steps);
        assert!(
            events(&o).iter().any(|e| e.event == EventName::Dropped),
            "{line}"
        );
    }
    let o = upstream(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
        ),
    );
    assert_eq!(to_streams(&o)[0].0, Some(1));

    // One client's streams (a legacy session): its own stream gets the question, and answers it.
    let mut s = canonical();
    on(
        &mut s,
        1,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book"}}"#,
    );
    let o = upstream(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{}}"#,
    );
    assert_eq!(to_streams(&o), [(Some(0), "<forward>".to_string())]);
    let o = on(
        &mut s,
        2,
        r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}"#,
    );
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
}

/// One step of a hostile session (see `nothing_crosses_streams_and_every_request_is_answered_once`).
#[derive(Debug, Clone)]
enum Move {
    /// Stream `s` sends a request with id `id` (of a small set: ids collide across streams), with a progress
    /// token from a small set or none.
    Request {
        stream: u64,
        id: usize,
        token: Option<usize>,
    },
    /// Stream `s` cancels its request `id`.
    Cancel {
        stream: u64,
        id: usize,
    },
    /// Stream `s` goes away.
    Close {
        stream: u64,
    },
    /// A client answers a request the upstream raised (any stream, any id it could guess).
    ClientAnswer {
        stream: u64,
        guess: usize,
    },
    /// The upstream answers the `n`th name it was given (live, finished or cancelled alike).
    Answer {
        n: usize,
    },
    /// The upstream answers a name it guesses.
    AnswerGuess {
        guess: usize,
    },
    /// Progress under the `n`th token it was given, or under a guess.
    Progress {
        n: usize,
    },
    ProgressGuess {
        guess: usize,
    },
    /// A request of its own, a notification, an error without an id.
    Ask {
        guess: usize,
    },
    Notify,
    Stray,
}

const CLIENT_IDS: [&str; 4] = ["1", "2", r#""a""#, "1.0"];
const CLIENT_TOKENS: [&str; 2] = [r#""p""#, "7"];
const GUESSES: [&str; 8] = [
    "1",
    "2",
    "3",
    r#""1""#,
    r#""a""#,
    r#""p""#,
    "7",
    r#""00000000000000000000000000000001""#,
];

fn a_move() -> impl proptest::strategy::Strategy<Value = Move> {
    use proptest::prelude::*;
    let stream = 1u64..4;
    prop_oneof![
        4 => (stream.clone(), 0..CLIENT_IDS.len(), proptest::option::of(0..CLIENT_TOKENS.len()))
            .prop_map(|(stream, id, token)| Move::Request { stream, id, token }),
        1 => (stream.clone(), 0..CLIENT_IDS.len()).prop_map(|(stream, id)| Move::Cancel { stream, id }),
        1 => stream.clone().prop_map(|stream| Move::Close { stream }),
        1 => (stream, 0..GUESSES.len()).prop_map(|(stream, guess)| Move::ClientAnswer { stream, guess }),
        4 => (0usize..16).prop_map(|n| Move::Answer { n }),
        1 => (0..GUESSES.len()).prop_map(|guess| Move::AnswerGuess { guess }),
        2 => (0usize..16).prop_map(|n| Move::Progress { n }),
        1 => (0..GUESSES.len()).prop_map(|guess| Move::ProgressGuess { guess }),
        1 => (0..GUESSES.len()).prop_map(|guess| Move::Ask { guess }),
        1 => Just(Move::Notify),
        1 => Just(Move::Stray),
    ]
}

/// A request a stream made, as the model knows it.
struct Made {
    stream: u64,
    /// The client's id and token, as it wrote them (JSON).
    id: Value,
    token: Option<Value>,
    /// What the upstream was given for them (JSON text).
    upstream_id: String,
    upstream_token: Option<String>,
    /// Answered (once), or owed nothing (cancelled, its stream closed).
    answered: bool,
    settled: bool,
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    /// Several clients' streams on one upstream, in any interleaving, with colliding ids and tokens, against
    /// an upstream that answers names it was given (live, finished, cancelled), names it guesses, sends
    /// progress under given and guessed tokens, raises requests and notifications: every line a stream gets
    /// is an answer to one of its own requests in flight (carrying what the upstream wrote for that
    /// request's name, never another's) or progress under its own token; every request is answered exactly
    /// once (the last upstream failure answers what is left), unless its client cancelled it or left; on a
    /// session of many clients nothing reaches the session's own stream, nothing a client answers reaches
    /// the upstream, and every request the upstream raises is answered at once.
    #[test]
    fn nothing_crosses_streams_and_every_request_is_answered_once(
        moves in proptest::collection::vec(a_move(), 1..60),
        many: bool,
        seed: u64,
    ) {
        let mut s = if many { many_clients(None) } else { session("canonical", None, BatchPolicy::Reject) };
        let mut made: Vec<Made> = Vec::new();
        let mut closed: Vec<u64> = Vec::new();
        for (step, m) in moves.iter().enumerate() {
            let at = CallContext { unix_millis: T0, entropy: seed.wrapping_add(step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) };
            let (o, input) = match m.clone() {
                // A shell numbers its streams afresh: a closed one is never used again.
                Move::Request { stream, .. } | Move::Cancel { stream, .. } | Move::ClientAnswer { stream, .. }
                    if closed.contains(&stream) => continue,
                Move::Request { stream, id, token } => {
                    let meta = token.map_or(String::new(), |t| format!(r#","params":{{"_meta":{{"progressToken":{}}}}}"#, CLIENT_TOKENS[t]));
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call"{meta}}}"#, CLIENT_IDS[id]);
                    let o = s.client_line_on(stream, line.as_bytes(), at);
                    if let Some(sent) = lines(&o, Peer::Upstream).first() {
                        let v: Value = serde_json::from_str(sent).unwrap();
                        made.push(Made {
                            stream,
                            id: serde_json::from_str(CLIENT_IDS[id]).unwrap(),
                            token: token.map(|t| serde_json::from_str(CLIENT_TOKENS[t]).unwrap()),
                            upstream_id: v["id"].to_string(),
                            upstream_token: token.map(|_| v["params"]["_meta"]["progressToken"].to_string()),
                            answered: false,
                            settled: false,
                        });
                    } else {
                        // Refused at once (its id in flight on its stream): the answer is its own.
                        let answers = to_streams(&o);
                        proptest::prop_assert_eq!(answers.len(), 1, "{:?}", o.steps);
                        proptest::prop_assert!(answers[0].0 == Some(stream) && answers[0].1.contains("duplicate-id"));
                        continue;
                    }
                    (o, line)
                }
                Move::Cancel { stream, id } => {
                    let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{}}}}}"#, CLIENT_IDS[id]);
                    let o = s.client_line_on(stream, line.as_bytes(), at);
                    let key = message::id_key(&serde_json::from_str::<Box<RawValue>>(CLIENT_IDS[id]).unwrap());
                    let named = |r: &Made| !r.answered && !r.settled
                        && message::id_key(&serde_json::from_str::<Box<RawValue>>(&r.id.to_string()).unwrap()) == key;
                    // Its own stream's request; on a session of one client's streams, else that client's one
                    // request with this id on any stream (a legacy client cancels on a POST of its own).
                    let own = made.iter().any(|r| r.stream == stream && named(r));
                    let anywhere = made.iter().filter(|r| named(r)).count();
                    for r in made.iter_mut().filter(|r| named(r)) {
                        if r.stream == stream || (!own && !many && anywhere == 1) {
                            r.settled = true;
                            // Its cancellation names it upstream by the name the upstream knows.
                            proptest::prop_assert!(lines(&o, Peer::Upstream).iter().any(|l| l.contains(&r.upstream_id)), "{:?}", o.steps);
                        }
                    }
                    if many {
                        // No client cancels another's: what goes upstream names only its own stream's requests.
                        for r in made.iter().filter(|r| r.stream != stream) {
                            proptest::prop_assert!(lines(&o, Peer::Upstream).iter().all(|l| !l.contains(&r.upstream_id)), "{:?}", o.steps);
                        }
                    }
                    (o, line)
                }
                Move::Close { stream } => {
                    closed.push(stream);
                    for r in made.iter_mut().filter(|r| r.stream == stream && !r.answered) {
                        r.settled = true;
                    }
                    (s.stream_closed(stream, at), String::new())
                }
                Move::ClientAnswer { stream, guess } => {
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"accept"}}}}"#, GUESSES[guess]);
                    let o = s.client_line_on(stream, line.as_bytes(), at);
                    if many {
                        proptest::prop_assert!(lines(&o, Peer::Upstream).is_empty(), "a client's answer reached the upstream: {:?}", o.steps);
                    }
                    (o, line)
                }
                Move::Answer { .. } | Move::Progress { .. } if made.is_empty() => continue,
                Move::Answer { n } => {
                    let name = made[n % made.len()].upstream_id.clone();
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{name},"result":{{"for":{name}}}}}"#);
                    (s.upstream_line(line.as_bytes(), at), line)
                }
                // What the upstream writes under a name it did not learn from the guard is what a client could
                // make an echoing server write: it reaches no client's stream.
                Move::AnswerGuess { guess } => {
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{0},"result":{{"for":{0}}}}}"#, GUESSES[guess]);
                    let o = s.upstream_line(line.as_bytes(), at);
                    proptest::prop_assert!(to_streams(&o).iter().all(|(s, _)| s.unwrap_or(0) == 0), "a guessed id reached a stream: {:?}", o.steps);
                    (o, line)
                }
                Move::Progress { n } => {
                    let Some(token) = made[n % made.len()].upstream_token.clone() else { continue };
                    let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1,"message":{token}}}}}"#);
                    (s.upstream_line(line.as_bytes(), at), line)
                }
                Move::ProgressGuess { guess } => {
                    let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{0},"progress":1,"message":{0}}}}}"#, GUESSES[guess]);
                    let o = s.upstream_line(line.as_bytes(), at);
                    proptest::prop_assert!(to_streams(&o).iter().all(|(s, _)| s.unwrap_or(0) == 0), "a guessed token reached a stream: {:?}", o.steps);
                    (o, line)
                }
                Move::Ask { guess } => {
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"elicitation/create","params":{{"message":"?"}}}}"#, GUESSES[guess]);
                    let o = s.upstream_line(line.as_bytes(), at);
                    if many {
                        let told = lines(&o, Peer::Upstream);
                        proptest::prop_assert_eq!(told.len(), 1, "{:?}", o.steps);
                        proptest::prop_assert!(told[0].contains("-32601"));
                    }
                    (o, line)
                }
                Move::Notify => {
                    let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#.to_string();
                    (s.upstream_line(line.as_bytes(), at), line)
                }
                Move::Stray => {
                    let line = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#.to_string();
                    (s.upstream_line(line.as_bytes(), at), line)
                }
            };
            check_deliveries(&o, &input, &mut made, many)?;
        }
        let o = s.upstream_failed(UpstreamFailure::Exited(1), CallContext { unix_millis: T0, entropy: seed });
        check_deliveries(&o, "", &mut made, many)?;
        for r in &made {
            proptest::prop_assert!(r.answered || r.settled, "stream {} request {} never answered", r.stream, r.id);
        }
    }
}

/// Checks every line `o` sends toward the clients against the model (`input`: the line a forward step
/// passes on), marking the requests it answers.
fn check_deliveries(
    o: &Outcome,
    input: &str,
    made: &mut [Made],
    many: bool,
) -> Result<(), proptest::test_runner::TestCaseError> {
    for (stream, line) in to_streams(o) {
        let line = if line == "<forward>" {
            input.to_string()
        } else {
            line
        };
        let Some(stream) = stream.filter(|&s| s > 0) else {
            proptest::prop_assert!(
                !many,
                "the session's own stream got {} on a session of many clients",
                line
            );
            continue;
        };
        let v: Value = serde_json::from_str(&line).unwrap();
        if v.get("method").and_then(Value::as_str) == Some("notifications/progress") {
            // Progress carries the upstream token it was sent under in its message: it must be one of this
            // stream's live requests', and the client's own token in its place.
            let sent_under = v["params"]["message"].to_string();
            let owner = made
                .iter()
                .find(|r| r.upstream_token.as_deref() == Some(sent_under.as_str()));
            proptest::prop_assert!(
                owner.is_some_and(|r| r.stream == stream
                    && !r.answered
                    && !r.settled
                    && r.token.as_ref() == Some(&v["params"]["progressToken"])),
                "progress {} reached stream {}",
                line,
                stream
            );
            continue;
        }
        // An answer: to a request of this stream in flight with that id, once; the upstream's own answer
        // carries the name of exactly that request.
        let id_key =
            message::id_key(&serde_json::from_str::<Box<RawValue>>(&v["id"].to_string()).unwrap());
        let Some(r) = made.iter_mut().find(|r| {
            r.stream == stream
                && !r.answered
                && !r.settled
                && message::id_key(
                    &serde_json::from_str::<Box<RawValue>>(&r.id.to_string()).unwrap(),
                ) == id_key
        }) else {
            proptest::prop_assert!(
                false,
                "stream {} got {}, which answers none of its requests in flight",
                stream,
                line
            );
            unreachable!()
        };
        if let Some(for_name) = v.get("result").and_then(|r| r.get("for")) {
            proptest::prop_assert_eq!(
                for_name.to_string(),
                r.upstream_id.clone(),
                "an answer meant for another request: {}",
                line
            );
        }
        r.answered = true;
    }
    Ok(())
}

// ───────────────────────────── redaction of what the server sends of its own ─────────────────────────────

/// Secrets written to each provider's published format (not the catalogue's own examples): a GitHub classic
/// token (`ghp_` and 36 letters and digits), an AWS access key id (`AKIA` and 16 base-32 characters), a
/// Stripe live secret key (`sk_live_` and 24 letters and digits).
const GITHUB: &str = "ghp_Zq7Lm2Xc9Vb4Nn6Rt8YwK3pD5sF1hJ0gA7eQ";
const AWS: &str = "AKIAQ7ZLM2XC4VBN6RTW";
const STRIPE: &str = "sk_live_Xq2Vb7Nm4Lk9Jh3Gf6Ds1Aa8";

const EVERY_SCOPE: &str = "[redaction]\nscopes = [\"errors\", \"results\", \"resources\", \"prompts\", \"requests\", \"progress\", \"logging\", \"elicitation\", \"sampling\"]\n";

/// With every scope on, nothing the server sends of its own carries a secret to the client: progress
/// messages, log data, an elicitation's message and form texts, a sampling request's messages and system
/// prompt (over stdio and on streams). What is not text for a person or a model keeps its shape (a form
/// field named `password` keeps its `type`, a URL elicitation its link). Without the scopes they pass byte
/// for byte, as before.
#[test]
fn with_every_scope_on_nothing_the_server_sends_carries_a_secret() {
    let server_messages = [
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"error","logger":"db","data":{{"error":"connect failed","key":"{AWS}","note":"retrying with {STRIPE}"}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{{"message":"Confirm the charge made with {STRIPE}","requestedSchema":{{"type":"object","properties":{{"password":{{"type":"string","title":"Token","default":"{GITHUB}"}}}},"required":["password"]}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{{"messages":[{{"role":"user","content":{{"type":"text","text":"summarise: aws {AWS}"}}}}],"systemPrompt":"You hold {GITHUB}","maxTokens":10}}}}"#
        ),
    ];
    for streams in [false, true] {
        let mut s = with_policy(EVERY_SCOPE);
        let send = |s: &mut Session, line: &str| {
            if streams {
                on(s, 1, line)
            } else {
                client(s, line)
            }
        };
        let sent = send(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","_meta":{"progressToken":"p"}}}"#,
        );
        let token = if streams {
            renamed(&sent).1
        } else {
            r#""p""#.to_string()
        };
        let progress = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1,"message":"pushing with {GITHUB}"}}}}"#
        );
        for line in server_messages.iter().chain([&progress]) {
            let o = upstream(&mut s, line);
            let to_client = lines(&o, Peer::Client);
            assert_eq!(to_client.len(), 1, "{line}: {:?}", o.steps);
            let out = &to_client[0];
            for secret in [GITHUB, AWS, STRIPE] {
                assert!(!out.contains(secret), "{secret} reached the client: {out}");
            }
            assert!(out.contains("[REDACTED"), "{out}");
            let v: Value = serde_json::from_str(out).unwrap();
            let sent: Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["method"], sent["method"]);
            assert_eq!(v["id"], sent["id"]);
            if v["method"] == "notifications/progress" {
                assert_eq!(
                    v["params"]["progressToken"],
                    json!("p"),
                    "the client's own token: {out}"
                );
            }
            if v["method"] == "elicitation/create" {
                assert_eq!(
                    v["params"]["requestedSchema"]["properties"]["password"]["type"],
                    json!("string")
                );
                assert_eq!(
                    v["params"]["requestedSchema"]["required"],
                    json!(["password"])
                );
            }
            assert!(
                events(&o).iter().any(|e| e.event == EventName::Redacted),
                "{:?}",
                o.steps
            );
        }
        // The client's answer to the (redacted) elicitation still reaches the server.
        let o = send(
            &mut s,
            r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}}"#,
        );
        assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
    }
    // Without the scopes: byte for byte.
    let mut s = with_policy("[redaction]\nscopes = [\"errors\", \"results\"]\n");
    client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","_meta":{"progressToken":"p"}}}"#,
    );
    for line in &server_messages {
        assert_eq!(
            lines(&upstream(&mut s, line), Peer::Client),
            ["<forward>"],
            "{line}"
        );
    }
    // A URL elicitation's link is the flow itself: its message is redacted, its URL left as it is.
    let mut s = with_policy(EVERY_SCOPE);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{{"mode":"url","elicitationId":"x","url":"https://auth.example.com/connect?state=abc","message":"Sign in ({GITHUB})"}}}}"#
    );
    let v: Value = serde_json::from_str(&lines(&upstream(&mut s, &line), Peer::Client)[0]).unwrap();
    assert_eq!(
        v["params"]["url"],
        json!("https://auth.example.com/connect?state=abc")
    );
    assert!(!v.to_string().contains(GITHUB));
}

/// A `block` action on what a server's own message carries: a notification is dropped, a request refused to
/// the server (the policy's refusal) and never shown to the client.
#[test]
fn a_blocked_server_message_reaches_no_client_and_a_request_is_refused_to_the_server() {
    let mut s = with_policy(&format!("{EVERY_SCOPE}[actions]\ntoken = \"block\"\n"));
    let o = upstream(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{{"message":"Paste {STRIPE} here"}}}}"#
        ),
    );
    assert!(lines(&o, Peer::Client).is_empty(), "{:?}", o.steps);
    let told: Value = serde_json::from_str(&lines(&o, Peer::Upstream)[0]).unwrap();
    assert_eq!(
        (told["id"].clone(), told["error"]["code"].clone()),
        (json!("e1"), json!(-32003))
    );
    assert!(events(&o).iter().any(|e| e.event == EventName::Blocked));
    // Its answer from a client is no answer to anything now.
    let o = client(
        &mut s,
        r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}"#,
    );
    assert!(lines(&o, Peer::Upstream).is_empty());
    let o = upstream(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{AWS}"}}}}"#
        ),
    );
    assert!(lines(&o, Peer::Client).is_empty() && lines(&o, Peer::Upstream).is_empty());
}

// ───────────────────────────── metrics labels ─────────────────────────────

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, ..Default::default() })]

    /// An event's `tool` (a label of the CLI's decisions counter) comes from a bounded set whatever the
    /// client names: a tool the upstream listed, one the policy names (or the glob that matched it), a method
    /// MCP defines, else `other`; at most 64 bytes. A client calling tools named at random made a series each.
    #[test]
    fn an_events_tool_is_a_label_of_a_bounded_set(
        names in proptest::collection::vec("[a-z_]{1,8}|\\PC{1,100}", 1..12),
        listed in proptest::collection::vec("[a-z_]{1,8}|\\PC{60,80}", 0..4),
        method in "[a-z/]{1,12}",
    ) {
        let mut s = with_policy(
            "[redaction]\nscopes = [\"errors\", \"results\", \"requests\"]\n[actions]\ntoken = \"audit\"\n[[tool]]\nmatch = \"deploy\"\ntimeout = 1\n[[tool]]\nmatch = \"read_*\"\ntimeout = 1\n",
        );
        let tools: Vec<Value> = listed.iter().map(|n| json!({"name": n, "inputSchema": {}})).collect();
        client(&mut s, r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#);
        upstream(&mut s, &json!({"jsonrpc": "2.0", "id": "l", "result": {"tools": tools}}).to_string());
        let mut allowed: Vec<String> = listed.iter().map(|n| cut_label(n)).collect();
        allowed.extend(["other", "deploy", "read_*"].map(String::from));
        allowed.extend(super::labels::MCP_METHODS.iter().map(|m| m.to_string()));
        let mut outcomes = Vec::new();
        for (i, name) in names.iter().chain(["deploy".to_string(), "read_me".to_string()].iter()).enumerate() {
            let call = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": {"token": "ghp_Zq7Lm2Xc9Vb4Nn6Rt8YwK3pD5sF1hJ0gA7eQ"}}});
            outcomes.push(client(&mut s, &call.to_string()));
            let other = json!({"jsonrpc": "2.0", "id": format!("m{i}"), "method": method,
                "params": {"arguments": {"token": "ghp_Zq7Lm2Xc9Vb4Nn6Rt8YwK3pD5sF1hJ0gA7eQ"}}});
            outcomes.push(client(&mut s, &other.to_string()));
        }
        outcomes.push(s.expire(ctx(T0 + 60_000)));
        let mut seen = 0;
        for o in &outcomes {
            for e in events(o) {
                if let Some(tool) = &e.tool {
                    seen += 1;
                    proptest::prop_assert!(tool.len() <= super::labels::LABEL_BYTES, "{}", tool);
                    proptest::prop_assert!(allowed.contains(tool), "label {:?} of {:?}", tool, e);
                }
            }
        }
        proptest::prop_assert!(seen > 0);
        // The policy's glob labels what it matched (`read_me` timed out under it).
        proptest::prop_assert!(outcomes.iter().flat_map(events).any(|e| e.tool.as_deref() == Some("read_*")));
    }
}

fn cut_label(name: &str) -> String {
    let mut end = name.len().min(super::labels::LABEL_BYTES);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_string()
}

// ───────────────────────────── each client gets what its revision requires ─────────────────────────────

const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;

fn modern_request(id: u64, method: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"name":"t",{MODERN_META}}}}}"#
    )
}

/// A 2026-07-28 request (the revision named in its `_meta`) answered by a handshake-era server: its result gets
/// what that revision requires and it lacks (`resultType`; `cacheScope` and `ttlMs` on a cacheable one: what
/// the Python SDK 2.3 client refuses a result without), first, the rest byte for byte; a result that has them
/// passes as it came; one that cannot carry them (no object) is answered -32022; a request of the handshake's
/// revision gets the server's result untouched.
#[test]
fn a_modern_request_gets_what_its_revision_requires_of_a_handshake_eras_result() {
    let cases = [
        (
            "tools/list",
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#,
            r#"{"resultType":"complete","cacheScope":"private","ttlMs":0,"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#,
        ),
        (
            "resources/read",
            r#"{ "contents" : [] }"#,
            r#"{"resultType":"complete","cacheScope":"private","ttlMs":0, "contents" : [] }"#,
        ),
        (
            "tools/call",
            r#"{"content":[{"type":"text","text":"hi"}]}"#,
            r#"{"resultType":"complete","content":[{"type":"text","text":"hi"}]}"#,
        ),
        ("tools/call", "{}", r#"{"resultType":"complete"}"#),
        ("tools/call", "{ }", r#"{"resultType":"complete" }"#),
        (
            "prompts/list",
            r#"{"prompts":[],"ttlMs":5000}"#,
            r#"{"resultType":"complete","cacheScope":"private","prompts":[],"ttlMs":5000}"#,
        ),
    ];
    for streams in [false, true] {
        let mut s = initialized("canonical", "2025-11-25");
        for (i, (method, result, expected)) in cases.iter().enumerate() {
            let id = 10 + i as u64;
            let sent = if streams {
                on(&mut s, 1, &modern_request(id, method))
            } else {
                client(&mut s, &modern_request(id, method))
            };
            let upstream_id = if streams {
                renamed(&sent).0
            } else {
                id.to_string()
            };
            let o = upstream(
                &mut s,
                &format!(r#"{{"jsonrpc":"2.0","id":{upstream_id},"result":{result}}}"#),
            );
            assert_eq!(
                lines(&o, Peer::Client),
                [format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{expected}}}"#
                )],
                "{method} {result}"
            );
        }
        // What it requires, given: byte for byte.
        client(&mut s, &modern_request(30, "tools/list"));
        let full = r#"{"jsonrpc":"2.0","id":30,"result":{"tools":[],"resultType":"complete","cacheScope":"public","ttlMs":60000}}"#;
        assert_eq!(lines(&upstream(&mut s, full), Peer::Client), ["<forward>"]);
        // No object to carry it: -32022, with the revision the server speaks.
        client(&mut s, &modern_request(31, "tools/call"));
        let r = only_client_value(&upstream(
            &mut s,
            r#"{"jsonrpc":"2.0","id":31,"result":"done"}"#,
        ));
        assert_eq!(r["error"]["code"], json!(-32022));
        assert_eq!(
            r["error"]["data"],
            json!({"supported": ["2025-11-25"], "requested": "2026-07-28"})
        );
        // A request of the handshake's revision: the server's result as it came.
        client(&mut s, r#"{"jsonrpc":"2.0","id":32,"method":"tools/list"}"#);
        let o = upstream(&mut s, r#"{"jsonrpc":"2.0","id":32,"result":{"tools":[]}}"#);
        assert_eq!(lines(&o, Peer::Client), ["<forward>"]);
    }
    // A result the policy redacted is completed too.
    let mut s = with_policy("[redaction]\nscopes = [\"errors\", \"results\"]\n");
    client(&mut s, &modern_request(1, "tools/call"));
    let r = only_client_value(&upstream(
        &mut s,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{GITHUB}"}}]}}}}"#
        ),
    ));
    assert_eq!(r["result"]["resultType"], json!("complete"));
    assert!(!r.to_string().contains(GITHUB));
}

/// A legacy session's client posts its cancellation on a stream of its own (each POST is one): the
/// request it names is that client's on any of the session's streams, and the upstream is told. On a
/// session of many clients, a cancellation reaches only a request of its own stream (no client can cancel
/// another's).
#[test]
fn a_cancellation_names_its_clients_request_on_any_of_its_streams_and_no_strangers() {
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}"#;
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user"}}"#;
    let mut one = canonical();
    let (id, _) = renamed(&on(&mut one, 1, call));
    let o = on(&mut one, 2, cancel);
    assert_eq!(
        lines(&o, Peer::Upstream),
        [format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"the user"}}}}"#
        )]
    );
    assert_eq!(o.pending, 0, "cancelled: no answer is owed");
    assert!(to_streams(&upstream(
        &mut one,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
    ))
    .is_empty());

    let mut many = many_clients(Some(30_000));
    let (id, _) = renamed(&on(&mut many, 1, call));
    let o = on(&mut many, 2, cancel);
    assert!(lines(&o, Peer::Upstream).is_empty(), "{:?}", o.steps);
    assert_eq!(o.pending, 1);
    let o = upstream(
        &mut many,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
    );
    assert_eq!(to_streams(&o).len(), 1);
    assert_eq!(to_streams(&o)[0].0, Some(1));
}

/// An A2A agent's failed task (its status message, its artifacts) is its error told as a result: in the `a2a`
/// dialect it is redacted as a failed tool result is, whatever shape A2A gives it (a `SendMessage` result, a
/// task itself, a streamed status update; 1.0 and 0.3 states); a completed one passes untouched, and outside
/// the `a2a` dialect nothing is read into a task's state.
#[test]
fn an_a2a_agents_failed_task_is_redacted_in_the_a2a_dialect() {
    const TOKEN: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
    let message = json!({"role": "ROLE_AGENT", "parts": [{"text": format!("build server refused token {TOKEN}")}]});
    let artifact = json!({"artifactId": "a", "parts": [{"text": format!("log: password=hunter2hunter2 {TOKEN}")}]});
    let failed = [
        (
            "SendMessage",
            json!({"task": {"id": "t", "status": {"state": "TASK_STATE_FAILED", "message": message}, "artifacts": [artifact]}}),
        ),
        (
            "GetTask",
            json!({"id": "t", "status": {"state": "TASK_STATE_REJECTED", "message": message}}),
        ),
        (
            "SendMessage",
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_FAILED", "message": message}}}),
        ),
        (
            "message/send",
            json!({"kind": "task", "id": "t", "status": {"state": "failed", "message": message}, "artifacts": [artifact]}),
        ),
    ];
    let answer = |dialect: &str, method: &str, result: &Value| -> String {
        let mut s = session(dialect, Some(30_000), BatchPolicy::Reject);
        client(
            &mut s,
            &json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {}}).to_string(),
        );
        let o = upstream(
            &mut s,
            &json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string(),
        );
        let lines = lines(&o, Peer::Client);
        assert_eq!(lines.len(), 1);
        lines[0].clone()
    };
    for (method, result) in &failed {
        let text = answer("a2a", method, result);
        assert!(
            !text.contains("ghp_") && !text.contains("hunter2") && text.contains("\"id\":7"),
            "{text}"
        );
        let r: Value = serde_json::from_str(&text).unwrap();
        let state = [
            "/result/task/status/state",
            "/result/status/state",
            "/result/statusUpdate/status/state",
        ]
        .iter()
        .find_map(|p| r.pointer(p));
        assert!(state.is_some(), "the task's shape is kept: {text}");
        // Outside the a2a dialect a result is an MCP one: no task state is read into it.
        assert_eq!(answer("canonical", method, result), "<forward>");
    }
    let completed = json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": [artifact]}});
    assert_eq!(answer("a2a", "SendMessage", &completed), "<forward>");
}

/// A hostile server's answer whose body hides a whole line after a break (an SSE event's `data:` lines are
/// joined with line feeds): the client gets one line, the answer, and the hidden "answer" to another pending
/// request (carrying what the session would have redacted) never reaches it as a message of its own.
#[test]
fn a_message_with_line_breaks_between_its_tokens_goes_on_as_one_line() {
    let mut s = canonical();
    client(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    client(&mut s, r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
    let forged = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d at /home/alice"}}"#;
    let answer = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"x\":\n{forged}\r\n}}}}");
    let o = upstream(&mut s, &answer);
    let sent = lines(&o, Peer::Client);
    assert_eq!(sent.len(), 1, "{:?}", o.steps);
    assert!(!sent[0].contains(['\n', '\r']), "{}", sent[0]);
    assert_eq!(
        serde_json::from_str::<Value>(&sent[0]).unwrap(),
        serde_json::from_str::<Value>(&answer).unwrap()
    );
    assert_eq!(o.pending, 1, "request 7 is still owed its own answer");

    // The client's side alike: a pretty-printed request reaches the upstream as one line.
    let request = "{\r\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"method\": \"ping\"\n}";
    let o = client(&mut s, request);
    assert_eq!(
        lines(&o, Peer::Upstream),
        [r#"{    "jsonrpc": "2.0",   "id": 2,   "method": "ping" }"#]
    );
    // A break inside a string is no JSON: refused, never read as a space.
    let o = client(
        &mut s,
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"pi\nng\"}",
    );
    assert!(lines(&o, Peer::Upstream).is_empty());
    assert_eq!(only_client_value(&o)["error"]["code"], -32700);
    // A CRLF line's CR, after the message, is passed on byte for byte.
    let o = client(
        &mut s,
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\r",
    );
    assert_eq!(lines(&o, Peer::Upstream), ["<forward>"]);
}

use proptest::strategy::Strategy as _;

proptest::proptest! {
    /// However a message is laid out over lines (any JSON value, pretty-printed with breaks of every kind),
    /// each side's peer gets it as exactly one line with no break in it, and the same value.
    #[test]
    fn every_message_goes_on_as_one_line_however_it_is_laid_out(
        value in proptest::collection::btree_map(
            "[a-z\"\\\\\n]{0,6}",
            proptest::prop_oneof![
                proptest::strategy::Just(Value::Null),
                "[ -~\n\r]{0,12}".prop_map(Value::from),
                proptest::num::i64::ANY.prop_map(Value::from),
                proptest::collection::vec("[a-z]{0,4}".prop_map(Value::from), 0..4).prop_map(Value::from),
            ],
            0..5,
        ),
        indent in "[ \t\r\n]{1,3}",
    ) {
        let pretty = |v: &Value| {
            let mut out = Vec::new();
            let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(v, &mut ser).unwrap();
            String::from_utf8(out).unwrap()
        };
        let arguments: Value = value.into_iter().collect::<serde_json::Map<_, _>>().into();
        let mut s = canonical();
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": arguments}});
        let o = client(&mut s, &pretty(&request));
        let sent = lines(&o, Peer::Upstream);
        proptest::prop_assert_eq!(sent.len(), 1, "{:?}", o.steps);
        if sent[0] != "<forward>" {
            proptest::prop_assert!(!sent[0].contains(['\n', '\r']), "{}", sent[0]);
            proptest::prop_assert_eq!(serde_json::from_str::<Value>(&sent[0]).unwrap(), request);
        } else {
            proptest::prop_assert!(!pretty(&request).trim_end().contains(['\n', '\r']));
        }
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "x": arguments}});
        let o = upstream(&mut s, &pretty(&answer));
        let sent = lines(&o, Peer::Client);
        proptest::prop_assert_eq!(sent.len(), 1, "{:?}", o.steps);
        if sent[0] != "<forward>" {
            proptest::prop_assert!(!sent[0].contains(['\n', '\r']), "{}", sent[0]);
            proptest::prop_assert_eq!(serde_json::from_str::<Value>(&sent[0]).unwrap(), answer);
        }
    }
}

/// The shell's upstream credentials as the npm module's glue and the vectors give them (JSON): a list of
/// strings, anything else refused with the option named and its value never repeated.
#[test]
fn upstream_credentials_are_read_from_json_and_an_ill_typed_list_is_refused() {
    let args =
        crate::api::SessionArgs::from_json(r#"{"upstream_credentials":["UPHDR-json-9a8b7c6d"]}"#)
            .unwrap();
    assert_eq!(
        args.upstream_credentials.as_deref(),
        Some(&["UPHDR-json-9a8b7c6d".to_string()][..])
    );
    for bad in [
        r#"{"upstream_credentials":"UPHDR-json-9a8b7c6d"}"#,
        r#"{"upstream_credentials":["UPHDR-json-9a8b7c6d", 7]}"#,
    ] {
        let Err(e) = crate::api::SessionArgs::from_json(bad) else {
            panic!("{bad} was taken");
        };
        let data = serde_json::to_string(&e.data).unwrap();
        assert!(data.contains("upstream_credentials"), "{data}");
        assert!(!data.contains("UPHDR"), "{data}");
    }
}

/// The guest's reader of the options' JSON (`SessionArgs::from_json`, generated from the WIT) takes every
/// field `guard-options` declares, and refuses a member it does not: a field added to the WIT reaches the
/// npm module's glue and the vectors without a hand-written reader to update.
#[test]
fn the_options_reader_takes_every_field_the_wit_declares_and_refuses_others() {
    let fields = wit_members("record guard-options", ':');
    assert!(fields.len() >= 12, "{fields:?}");
    // An object is no option's type: a field the reader knows is refused as ill-typed, not as unknown.
    for field in &fields {
        let Err(e) = crate::api::SessionArgs::from_json(&format!("{{\"{field}\": {{}}}}")) else {
            panic!("guard-options.{field} took an object");
        };
        let data = serde_json::to_string(&e.data).unwrap();
        assert!(
            data.contains("has the wrong type"),
            "guard-options.{field} is not read: {data}"
        );
    }
    let Err(e) = crate::api::SessionArgs::from_json(r#"{"dialekt": "mcp"}"#) else {
        panic!("an unknown member was taken");
    };
    assert!(serde_json::to_string(&e.data)
        .unwrap()
        .contains("unknown option `dialekt`"));
}

/// The members `declaration` (`record guard-options`, `variant step`) lists in wit/world.wit, in order, as
/// the JSON names them (snake_case; a record's field names, a variant's case names).
fn wit_members(declaration: &str, separator: char) -> Vec<String> {
    let wit = include_str!("../../../wit/world.wit");
    let start = wit
        .find(&format!("{declaration} {{"))
        .unwrap_or_else(|| panic!("the WIT declares {declaration}"));
    let body = &wit[start..start + wit[start..].find("\n    }").unwrap()];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && l.contains(separator))
        .map(|l| {
            l[..l.find(separator).unwrap()]
                .trim_start_matches('%')
                .replace('-', "_")
        })
        .collect()
}

/// The outcome's writer (`Outcome::to_json`, generated from the WIT with the types it writes) writes every
/// member `session-outcome` and each step's record declare, under its snake_case name and in the WIT's
/// order, and nothing else; each step names its case as the `step` variant does. A field added to or renamed
/// in the WIT reaches every shell's reader of the JSON without a hand-written writer to update.
#[test]
fn the_outcome_writer_writes_every_member_the_wit_declares_in_its_order() {
    let mut event = Event::new(EventName::ClientCancelled, "info");
    event.kind = Some("timeout".into());
    event.code = Some(-32001);
    event.category = Some("transport".into());
    event.gate = Some("upstream".into());
    event.correlation_id = Some("c".into());
    event.id = Some(json!(7));
    event.method = Some("tools/call".into());
    event.detail = Some("d".into());
    event.rule = Some("r".into());
    event.tool = Some("t".into());
    let outcome = Outcome {
        steps: vec![
            Step::Forward {
                to: Peer::Upstream,
                stream: Some(1),
            },
            Step::Send {
                to: Peer::Client,
                stream: Some(2),
                line: "{}".into(),
            },
            Step::Event(Box::new(event)),
            Step::End { stream: Some(3) },
        ],
        pending: 4,
        deadline: Some(5),
    };
    let json: Value = serde_json::from_str(&outcome.to_json()).expect("the outcome is JSON");
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&json), wit_members("record session-outcome", ':'));
    let cases = wit_members("variant step", '(');
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps.len(), cases.len(), "a step of every case: {cases:?}");
    for (step, case) in steps.iter().zip(&cases) {
        assert_eq!(step["step"], json!(case));
        let mut members = vec!["step".to_string()];
        members.extend(wit_members(&format!("record {case}-step"), ':'));
        assert_eq!(keys(step), members, "the {case} step");
    }
    assert_eq!(steps[2]["event"], json!("client-cancelled"));
    assert_eq!(steps[2]["id"], json!(7));
    // An absent option: left out of a step, null in the outcome.
    let quiet = Outcome {
        steps: vec![Step::End { stream: None }],
        pending: 0,
        deadline: None,
    };
    assert_eq!(
        quiet.to_json(),
        r#"{"steps":[{"step":"end"}],"pending":0,"deadline":null}"#
    );
}

/// The settings' writer (`SessionSettings::to_json`, generated from the WIT with the struct it writes) writes
/// every field `session-settings` declares, under its snake_case name and in the WIT's order, and nothing
/// else: a field added to or renamed in the WIT reaches every shell's reader of `settings` without a
/// hand-written writer to update. An enum is written by its case's name, an absent option as null.
#[test]
fn the_settings_writer_writes_every_field_the_wit_declares_in_its_order() {
    let settings = SessionSettings {
        dialect: "mcp".into(),
        max_bytes: 1,
        batch: BatchPolicy::Allow,
        timeout_ms: Some(2),
        failed_result_bytes: 3,
        max_upstream_bytes: 4,
    };
    let json: Value = serde_json::from_str(&settings.to_json()).expect("the settings are JSON");
    let keys: Vec<String> = json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, wit_members("record session-settings", ':'));
    assert_eq!(
        json,
        json!({"dialect": "mcp", "max_bytes": 1, "batch": "allow", "timeout_ms": 2,
            "failed_result_bytes": 3, "max_upstream_bytes": 4})
    );
    let unlimited = SessionSettings {
        timeout_ms: None,
        ..settings
    };
    assert_eq!(
        unlimited.to_json(),
        r#"{"dialect":"mcp","max_bytes":1,"batch":"allow","timeout_ms":null,"failed_result_bytes":3,"max_upstream_bytes":4}"#
    );
    // What a session reports is this writer's text for what it resolved.
    let s = canonical();
    assert_eq!(s.settings(), s.options().settings.to_json());
}
