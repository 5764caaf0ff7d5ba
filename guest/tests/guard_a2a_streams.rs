//! A2A's streaming methods (`SendStreamingMessage`, `SubscribeToTask`) in the `a2a` dialect: a request
//! answered with many responses under its id. It stays pending while each is passed on (redacted as a result
//! of its request is), its wait restarting at each, and is settled once, with an `end` step for its stream:
//! by its final event (its exchange then cancelled), by an error, by the end of the upstream's stream, by a
//! failure or the timeout; a client that leaves is owed nothing. The property: whatever the upstream, the
//! clock and the client do, each stream gets exactly one `end` (or leaves), and nothing after it.

use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::guard::{
    Options, Outcome, Peer, RequestFailure, Session, Step, UpstreamFailure,
};
use proptest::prelude::*;
use serde_json::{json, Value};

const T0: u64 = 1_767_225_600_000;
const SECRET: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";

fn ctx(ms: u64) -> CallContext {
    CallContext {
        unix_millis: ms,
        entropy: 7,
    }
}

fn session(dialect: &str) -> Session {
    let mut o = Options::new(dialect, "http://agent/rpc");
    o.settings.timeout_ms = Some(30_000);
    Session::new(o)
}

fn streaming(id: u64, method: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method,
        "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "go"}]}}})
    .to_string()
}

/// What the client gets (by stream), what the upstream gets, and the streams ended, of one outcome.
#[derive(Default, Debug)]
struct Seen {
    client: Vec<(Option<u64>, Value)>,
    upstream: Vec<Value>,
    ended: Vec<Option<u64>>,
}

fn seen(o: &Outcome, given: &str) -> Seen {
    let mut s = Seen::default();
    for step in &o.steps {
        match step {
            Step::Forward { to, stream } => {
                let v: Value = serde_json::from_str(given).unwrap();
                match to {
                    Peer::Client => s.client.push((*stream, v)),
                    Peer::Upstream => s.upstream.push(v),
                }
            }
            Step::Send { to, stream, line } => {
                let v: Value = serde_json::from_str(line).unwrap();
                match to {
                    Peer::Client => s.client.push((*stream, v)),
                    Peer::Upstream => s.upstream.push(v),
                }
            }
            Step::End { stream } => s.ended.push(*stream),
            Step::Event(_) => {}
        }
    }
    s
}

fn event(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn status(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": state}}})
}

fn artifact(text: &str) -> Value {
    json!({"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {"artifactId": "a", "parts": [{"text": text}]}}})
}

fn task(state: &str) -> Value {
    json!({"task": {"id": "t", "contextId": "c", "status": {"state": state}}})
}

/// Sends a streaming request on stream `stream`; the id the upstream was given.
fn open(s: &mut Session, stream: u64, id: u64, method: &str, at: u64) -> Value {
    let line = streaming(id, method);
    let o = s.client_line_on(stream, line.as_bytes(), ctx(at));
    let out = seen(&o, &line);
    assert!(out.client.is_empty(), "forwarded, not answered: {out:?}");
    assert_eq!(out.upstream.len(), 1);
    out.upstream[0]["id"].clone()
}

fn up(s: &mut Session, line: &str, at: u64) -> (Seen, usize) {
    let o = s.upstream_line(line.as_bytes(), ctx(at));
    (seen(&o, line), o.pending)
}

#[test]
fn events_pass_under_the_clients_id_until_the_final_one_which_ends_the_stream_and_the_exchange() {
    let mut s = session("a2a");
    let upstream_id = open(&mut s, 3, 41, "SendStreamingMessage", T0);
    for (i, result) in [
        task("TASK_STATE_SUBMITTED"),
        status("TASK_STATE_WORKING"),
        artifact("chunk 0"),
    ]
    .into_iter()
    .enumerate()
    {
        let (out, pending) = up(&mut s, &event(&upstream_id, result.clone()), T0 + i as u64);
        assert_eq!(
            out.client,
            vec![(
                Some(3),
                json!({"jsonrpc": "2.0", "id": 41, "result": result})
            )]
        );
        assert!(out.ended.is_empty() && out.upstream.is_empty(), "{out:?}");
        assert_eq!(pending, 1, "still pending after event {i}");
    }
    let (out, pending) = up(
        &mut s,
        &event(&upstream_id, status("TASK_STATE_COMPLETED")),
        T0 + 5,
    );
    assert_eq!(out.client.len(), 1);
    assert_eq!(out.ended, vec![Some(3)]);
    assert_eq!(pending, 0);
    // Its exchange is closed: the cancellation, under the id the upstream knows.
    assert_eq!(out.upstream.len(), 1);
    assert_eq!(out.upstream[0]["method"], "notifications/cancelled");
    assert_eq!(out.upstream[0]["params"]["requestId"], upstream_id);
    // What the upstream sends after it goes nowhere; its exchange ending settles nothing more.
    let (late, _) = up(&mut s, &event(&upstream_id, artifact("late")), T0 + 6);
    assert!(late.client.is_empty() && late.ended.is_empty());
    let o = s.upstream_exchange_ended(&upstream_id.to_string(), ctx(T0 + 7));
    let after = seen(&o, "");
    assert!(
        after.client.is_empty() && after.ended.is_empty(),
        "{after:?}"
    );
}

#[test]
fn a_message_or_an_interrupted_state_ends_a_stream_a_subscriptions_first_task_does_not() {
    for (first, last) in [
        (
            None,
            json!({"message": {"messageId": "r", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}),
        ),
        (
            Some(task("TASK_STATE_INPUT_REQUIRED")),
            status("TASK_STATE_INPUT_REQUIRED"),
        ),
        (
            Some(task("TASK_STATE_WORKING")),
            status("TASK_STATE_AUTH_REQUIRED"),
        ),
    ] {
        let mut s = session("a2a");
        let upstream_id = open(&mut s, 1, 1, "SubscribeToTask", T0);
        if let Some(first) = first {
            let (out, pending) = up(&mut s, &event(&upstream_id, first), T0);
            assert!(out.ended.is_empty() && pending == 1, "{out:?}");
        }
        let (out, pending) = up(&mut s, &event(&upstream_id, last), T0 + 1);
        assert_eq!((out.ended, pending), (vec![Some(1)], 0));
    }
}

#[test]
fn a_failed_status_in_a_stream_is_redacted_and_ends_it() {
    let mut s = session("a2a");
    let upstream_id = open(&mut s, 2, 9, "SendStreamingMessage", T0);
    let failed = json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_FAILED",
        "message": {"messageId": "r", "role": "ROLE_AGENT", "parts": [{"text": format!("token {SECRET} refused")}]}}}});
    let (out, pending) = up(&mut s, &event(&upstream_id, failed), T0 + 1);
    assert_eq!(pending, 0);
    assert_eq!(out.ended, vec![Some(2)]);
    let (stream, answer) = &out.client[0];
    assert_eq!(*stream, Some(2));
    assert_eq!(answer["id"], 9);
    assert_eq!(
        answer["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_FAILED"
    );
    let text = answer.to_string();
    assert!(!text.contains(SECRET) && text.contains("refused"), "{text}");
    // A redacted artifact of a task still working is passed on, the stream going on.
    let upstream_id = open(&mut s, 4, 10, "SendStreamingMessage", T0 + 2);
    let (out, pending) = up(&mut s, &event(&upstream_id, artifact("ok")), T0 + 3);
    assert_eq!((out.client.len(), pending), (1, 1));
}

#[test]
fn an_error_ends_a_stream_with_the_dialects_code() {
    let mut s = session("a2a");
    let upstream_id = open(&mut s, 1, 2, "SubscribeToTask", T0);
    let error = json!({"jsonrpc": "2.0", "id": upstream_id, "error": {"code": -32001, "message": "Task not found"}});
    let (out, pending) = up(&mut s, &error.to_string(), T0 + 1);
    assert_eq!((out.ended.clone(), pending), (vec![Some(1)], 0));
    assert_eq!(out.client[0].1["error"]["code"], -32001);
    assert_eq!(out.client[0].1["id"], 2);
}

#[test]
fn the_end_of_the_upstreams_stream_settles_what_streamed_and_answers_what_got_nothing() {
    let mut s = session("a2a");
    let streamed = open(&mut s, 1, 1, "SendStreamingMessage", T0);
    let silent = open(&mut s, 2, 2, "SendStreamingMessage", T0);
    up(
        &mut s,
        &event(&streamed, task("TASK_STATE_SUBMITTED")),
        T0 + 1,
    );
    let o = s.upstream_exchange_ended(&streamed.to_string(), ctx(T0 + 2));
    let out = seen(&o, "");
    assert!(out.client.is_empty(), "nothing more is owed: {out:?}");
    assert_eq!((out.ended, o.pending), (vec![Some(1)], 1));
    let o = s.upstream_exchange_ended(&silent.to_string(), ctx(T0 + 3));
    let out = seen(&o, "");
    assert_eq!(out.client.len(), 1, "answered, once: {out:?}");
    assert_eq!(out.client[0].1["id"], 2);
    assert!(out.client[0].1.get("error").is_some());
    assert_eq!((out.ended, o.pending), (vec![Some(2)], 0));
}

#[test]
fn each_event_restarts_the_wait_and_the_timeout_answers_once_and_ends_the_stream() {
    let mut s = session("a2a");
    let upstream_id = open(&mut s, 1, 1, "SendStreamingMessage", T0);
    let o = s.upstream_line(
        event(&upstream_id, task("TASK_STATE_WORKING")).as_bytes(),
        ctx(T0 + 20_000),
    );
    assert_eq!(
        o.deadline,
        Some(T0 + 50_000),
        "the wait restarts at each event"
    );
    assert!(seen(&s.expire(ctx(T0 + 45_000)), "").client.is_empty());
    let o = s.expire(ctx(T0 + 50_000));
    let out = seen(&o, "");
    assert_eq!(out.client.len(), 1);
    assert!(out.client[0].1.get("error").is_some());
    assert_eq!((out.ended, o.pending), (vec![Some(1)], 0));
    assert_eq!(out.upstream[0]["method"], "notifications/cancelled");
}

#[test]
fn a_client_that_leaves_cancels_the_upstreams_stream_and_is_owed_nothing() {
    let mut s = session("a2a");
    let upstream_id = open(&mut s, 5, 1, "SendStreamingMessage", T0);
    up(
        &mut s,
        &event(&upstream_id, task("TASK_STATE_WORKING")),
        T0 + 1,
    );
    let o = s.stream_closed(5, ctx(T0 + 2));
    let out = seen(&o, "");
    assert!(out.client.is_empty() && out.ended.is_empty());
    assert_eq!(o.pending, 0);
    assert_eq!(out.upstream[0]["params"]["requestId"], upstream_id);
}

#[test]
fn a_failed_upstream_answers_each_stream_once_and_ends_it() {
    let mut s = session("a2a");
    let a = open(&mut s, 1, 1, "SendStreamingMessage", T0);
    open(&mut s, 2, 1, "SendStreamingMessage", T0);
    up(&mut s, &event(&a, task("TASK_STATE_WORKING")), T0 + 1);
    let o = s.upstream_request_failed(
        &a.to_string(),
        RequestFailure::Unreachable("reset".into()),
        ctx(T0 + 2),
    );
    let out = seen(&o, "");
    assert_eq!((out.client.len(), out.ended.clone()), (1, vec![Some(1)]));
    let o = s.upstream_failed(UpstreamFailure::ClosedOutput, ctx(T0 + 3));
    let out = seen(&o, "");
    assert_eq!(
        (out.client.len(), out.ended.clone(), o.pending),
        (1, vec![Some(2)], 0)
    );
}

#[test]
fn outside_the_a2a_dialect_a_streaming_method_is_answered_once() {
    let mut s = session("canonical");
    let upstream_id = open(&mut s, 1, 1, "SendStreamingMessage", T0);
    let (out, pending) = up(
        &mut s,
        &event(&upstream_id, task("TASK_STATE_WORKING")),
        T0 + 1,
    );
    assert_eq!((out.client.len(), pending), (1, 0));
    assert!(
        out.ended.is_empty(),
        "a request answered once gets no end step"
    );
}

/// One thing that can happen to streaming requests in flight.
#[derive(Debug, Clone)]
enum Happening {
    Open(u64),
    Event(usize, bool),
    Error(usize),
    ExchangeEnded(usize),
    RequestFailed(usize),
    Leave(usize),
    Expire(u64),
    UpstreamGone,
}

fn happening() -> impl Strategy<Value = Happening> {
    prop_oneof![
        3 => (1u64..6).prop_map(Happening::Open),
        6 => (0usize..8, any::<bool>()).prop_map(|(i, last)| Happening::Event(i, last)),
        1 => (0usize..8).prop_map(Happening::Error),
        2 => (0usize..8).prop_map(Happening::ExchangeEnded),
        1 => (0usize..8).prop_map(Happening::RequestFailed),
        1 => (0usize..8).prop_map(Happening::Leave),
        1 => (0u64..40_000).prop_map(Happening::Expire),
        1 => Just(Happening::UpstreamGone),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_stream_ends_once_and_gets_nothing_after(script in proptest::collection::vec(happening(), 1..40)) {
        let mut s = session("a2a");
        // Each request opened: its stream, the id the upstream knows, and whether it ended or left.
        let mut opened: Vec<(u64, Value)> = Vec::new();
        let mut next_stream = 1;
        let mut done: std::collections::HashMap<u64, &str> = std::collections::HashMap::new();
        let mut now = T0;
        for h in script {
            now += 10;
            let mut answered_at_once = None;
            let o = match h {
                Happening::Open(id) => {
                    let line = streaming(id, "SendStreamingMessage");
                    let stream = next_stream;
                    next_stream += 1;
                    let o = s.client_line_on(stream, line.as_bytes(), ctx(now));
                    let out = seen(&o, &line);
                    match out.upstream.first() {
                        Some(m) => opened.push((stream, m["id"].clone())),
                        // Answered at once (the upstream is gone): one answer, no end step.
                        None => {
                            prop_assert_eq!(out.client.len(), 1);
                            prop_assert!(out.ended.is_empty());
                            answered_at_once = Some(stream);
                        }
                    }
                    o
                }
                Happening::Event(i, last) => match opened.get(i) {
                    Some((_, id)) => {
                        let result = if last { status("TASK_STATE_COMPLETED") } else { artifact("x") };
                        s.upstream_line(event(id, result).as_bytes(), ctx(now))
                    }
                    None => continue,
                },
                Happening::Error(i) => match opened.get(i) {
                    Some((_, id)) => {
                        let e = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": "x"}});
                        s.upstream_line(e.to_string().as_bytes(), ctx(now))
                    }
                    None => continue,
                },
                Happening::ExchangeEnded(i) => match opened.get(i) {
                    Some((_, id)) => s.upstream_exchange_ended(&id.to_string(), ctx(now)),
                    None => continue,
                },
                Happening::RequestFailed(i) => match opened.get(i) {
                    Some((_, id)) => s.upstream_request_failed(&id.to_string(), RequestFailure::Unreachable("cut".into()), ctx(now)),
                    None => continue,
                },
                Happening::Leave(i) => match opened.get(i) {
                    Some((stream, _)) => {
                        let stream = *stream;
                        let o = s.stream_closed(stream, ctx(now));
                        done.entry(stream).or_insert("left");
                        o
                    }
                    None => continue,
                },
                Happening::Expire(by) => {
                    now += by;
                    s.expire(ctx(now))
                }
                Happening::UpstreamGone => s.upstream_failed(UpstreamFailure::ClosedOutput, ctx(now)),
            };
            let out = seen(&o, "{}");
            for (stream, _) in &out.client {
                let stream = stream.expect("a stream");
                prop_assert!(!done.contains_key(&stream), "stream {} got a message after it was done", stream);
            }
            for stream in &out.ended {
                let stream = stream.expect("a stream");
                prop_assert!(!done.contains_key(&stream), "stream {} ended twice", stream);
                done.insert(stream, "ended");
            }
            if let Some(stream) = answered_at_once {
                done.insert(stream, "answered");
            }
            prop_assert_eq!(o.pending, opened.iter().filter(|(st, _)| !done.contains_key(st)).count());
        }
    }
}
