//! `upstream-request-failed`: one request's exchange with an upstream reached request by request (HTTP)
//! failed. It alone is answered, once, with the kind its failure calls for, and nothing of the upstream's
//! own words; the upstream is not gone. The property: whatever mix of answers, failures reported once or
//! twice, late answers and timeouts, every request gets exactly one answer.

use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::guard::{Options, Outcome, Peer, RequestFailure, Session, Step};
use proptest::prelude::*;
use serde_json::{json, Value};

const T0: u64 = 1_767_225_600_000;

fn ctx(ms: u64) -> CallContext {
    CallContext {
        unix_millis: ms,
        entropy: 7,
    }
}

fn session(dialect: &str) -> Session {
    let mut o = Options::new(dialect, "https://mcp.example/v1/mcp");
    o.settings.timeout_ms = Some(30_000);
    Session::new(o)
}

/// What went to the client: the forwarded line (`given`) or the line the session wrote, parsed.
fn to_client(o: &Outcome, given: Option<&str>) -> Vec<Value> {
    o.steps
        .iter()
        .filter_map(|s| match s {
            Step::Forward {
                to: Peer::Client, ..
            } => given.map(|g| serde_json::from_str(g).unwrap()),
            Step::Send {
                to: Peer::Client,
                line,
                ..
            } => Some(serde_json::from_str(line).unwrap()),
            _ => None,
        })
        .collect()
}

fn request(s: &mut Session, id: u64, method: &str) {
    let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"name": "t", "arguments": {}}})
        .to_string();
    let o = s.client_line(line.as_bytes(), ctx(T0));
    assert!(to_client(&o, None).is_empty(), "forwarded, not answered");
}

fn fail(s: &mut Session, id: u64, failure: RequestFailure) -> Vec<Value> {
    let o = s.upstream_request_failed(&id.to_string(), failure, ctx(T0 + 10));
    to_client(&o, None)
}

fn refused(status: u16, retry_after_secs: Option<u64>) -> RequestFailure {
    RequestFailure::Refused {
        status,
        retry_after_secs,
    }
}

#[test]
fn each_failure_is_answered_with_its_kind_and_nothing_of_the_upstreams_words() {
    let cases: Vec<(RequestFailure, i64, &str)> = vec![
        (
            RequestFailure::Unreachable("the connection was refused".into()),
            -32000,
            "upstream-connection-failed",
        ),
        (
            RequestFailure::SessionGone,
            -32000,
            "upstream-connection-failed",
        ),
        (refused(401, None), -32019, "upstream-error"),
        (refused(403, None), -32019, "upstream-error"),
        (refused(429, Some(30)), -32009, "rate-limited"),
        (refused(503, Some(5)), -32013, "service-unavailable"),
        (refused(408, Some(2)), -32013, "service-unavailable"),
        (refused(502, None), -32000, "upstream-connection-failed"),
        (refused(500, None), -32019, "upstream-error"),
        (refused(418, None), -32019, "upstream-error"),
    ];
    for (i, (failure, code, kind)) in cases.into_iter().enumerate() {
        let mut s = session("canonical");
        request(&mut s, i as u64, "resources/read");
        let answers = fail(&mut s, i as u64, failure.clone());
        assert_eq!(answers.len(), 1, "{failure:?}");
        let a = &answers[0];
        assert_eq!(a["id"], json!(i), "{a}");
        assert_eq!(a["error"]["code"], json!(code), "{failure:?}: {a}");
        assert_eq!(a["error"]["data"]["type"], json!(kind), "{a}");
        let text = a.to_string();
        // The URL it names carries no userinfo, query or fragment (the session was given it clean).
        assert!(!text.contains('?') && !text.contains('@'), "{text}");
        match &failure {
            RequestFailure::Refused {
                status: 401 | 403, ..
            } => {
                assert!(text.contains("the guard's credentials"), "{text}");
                assert_eq!(a["error"]["data"]["retryable"], json!(false));
            }
            RequestFailure::Refused {
                status: 408 | 429 | 503,
                retry_after_secs: Some(secs),
            } => {
                assert_eq!(a["error"]["data"]["retry_after_secs"], json!(secs), "{a}");
                assert_eq!(a["error"]["data"]["retryable"], json!(true));
            }
            _ => {}
        }
        // The upstream is not gone: the next request is forwarded.
        request(&mut s, 1000, "ping");
    }
}

#[test]
fn a_tool_call_fails_as_a_tool_result_in_the_mcp_dialect() {
    let mut s = session("mcp");
    request(&mut s, 1, "tools/call");
    let a = fail(&mut s, 1, refused(503, Some(3)));
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["result"]["isError"], json!(true), "{}", a[0]);
}

#[test]
fn a_request_is_answered_once_whatever_comes_after() {
    let mut s = session("canonical");
    request(&mut s, 1, "tools/call");
    assert_eq!(fail(&mut s, 1, refused(500, None)).len(), 1);
    // Reported again, or the upstream's own answer arriving late: nothing more for the client.
    assert!(fail(&mut s, 1, RequestFailure::SessionGone).is_empty());
    let late = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let o = s.upstream_line(late.as_bytes(), ctx(T0 + 20));
    assert!(to_client(&o, Some(late)).is_empty());
    // Answered first by the upstream, then reported failed: the answer stands alone.
    request(&mut s, 2, "tools/call");
    let answer = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
    let o = s.upstream_line(answer.as_bytes(), ctx(T0 + 30));
    assert_eq!(to_client(&o, Some(answer)).len(), 1);
    assert!(fail(&mut s, 2, refused(502, None)).is_empty());
    // An id never sent, or no id at all.
    assert!(fail(&mut s, 99, refused(500, None)).is_empty());
    let o = s.upstream_request_failed("not json", refused(500, None), ctx(T0));
    assert!(to_client(&o, None).is_empty());
}

#[test]
fn a_request_on_a_client_stream_is_answered_on_it_under_the_clients_id() {
    let mut s = session("canonical");
    let line = br#"{"jsonrpc":"2.0","id":"client-7","method":"tools/list"}"#;
    let o = s.client_line_on(3, line, ctx(T0));
    // The id the upstream was sent (the session's own): what the transport reports the failure under.
    let forwarded = o
        .steps
        .iter()
        .find_map(|st| match st {
            Step::Send {
                to: Peer::Upstream,
                line,
                ..
            } => Some(serde_json::from_str::<Value>(line).unwrap()),
            _ => None,
        })
        .expect("renamed upstream");
    let upstream_id = forwarded["id"].to_string();
    let o = s.upstream_request_failed(&upstream_id, refused(429, Some(9)), ctx(T0 + 5));
    let sent: Vec<_> = o
        .steps
        .iter()
        .filter_map(|st| match st {
            Step::Send {
                to: Peer::Client,
                stream,
                line,
            } => Some((*stream, serde_json::from_str::<Value>(line).unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(sent.len(), 1, "{:?}", o.steps);
    assert_eq!(sent[0].0, Some(3));
    assert_eq!(sent[0].1["id"], json!("client-7"));
    assert_eq!(sent[0].1["error"]["data"]["retry_after_secs"], json!(9));
}

#[derive(Debug, Clone)]
enum Op {
    Request(u8),
    Answer(u8),
    Fail(u8, u16),
    Cut(u8),
    Expire(u16),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u8..12).prop_map(Op::Request),
        (0u8..12).prop_map(Op::Answer),
        (
            0u8..12,
            prop::sample::select(vec![401u16, 404, 408, 429, 500, 502, 503])
        )
            .prop_map(|(i, s)| Op::Fail(i, s)),
        (0u8..12).prop_map(Op::Cut),
        (0u16..60).prop_map(Op::Expire),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn every_request_is_answered_exactly_once(ops in prop::collection::vec(op(), 1..60)) {
        let mut s = session("canonical");
        let mut sent = std::collections::HashSet::new();
        let mut answers: std::collections::HashMap<u64, usize> = Default::default();
        let mut now = T0;
        let mut count = |values: Vec<Value>| {
            for v in values {
                if let Some(id) = v["id"].as_u64() {
                    *answers.entry(id).or_default() += 1;
                }
            }
        };
        for op in ops {
            match op {
                Op::Request(i) => {
                    // An id is used once (the session refuses an id in flight: that has its own tests).
                    if sent.insert(i) {
                        let line = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "t"}}).to_string();
                        let o = s.client_line(line.as_bytes(), ctx(now));
                        count(to_client(&o, None));
                    }
                }
                Op::Answer(i) => {
                    let line = json!({"jsonrpc": "2.0", "id": i, "result": {"content": []}}).to_string();
                    let o = s.upstream_line(line.as_bytes(), ctx(now));
                    count(to_client(&o, Some(&line)));
                }
                Op::Fail(i, status) => {
                    let o = s.upstream_request_failed(&i.to_string(), refused(status, Some(1)), ctx(now));
                    count(to_client(&o, None));
                }
                Op::Cut(i) => {
                    let o = s.upstream_request_failed(&i.to_string(), RequestFailure::Unreachable("cut".into()), ctx(now));
                    count(to_client(&o, None));
                }
                Op::Expire(secs) => {
                    now += u64::from(secs) * 1000;
                    let o = s.expire(ctx(now));
                    count(to_client(&o, None));
                }
            }
        }
        // Whatever is still pending is failed now: then every request has had its one answer.
        for &i in &sent {
            let o = s.upstream_request_failed(&i.to_string(), RequestFailure::SessionGone, ctx(now));
            count(to_client(&o, None));
        }
        for &i in &sent {
            prop_assert_eq!(answers.get(&u64::from(i)).copied(), Some(1), "request {}: {:?}", i, answers);
        }
        prop_assert!(answers.keys().all(|id| sent.contains(&(*id as u8))), "{:?}", answers);
    }
}
