//! A line's outcome lifted from the component's `session-outcome` record (`SessionCalls::outcome`: the
//! `*-outcome` calls the relay makes for every line) is the outcome its JSON text reads as (`outcome_json`,
//! what the vectors and the other shells read): two sessions fed the same generated lines, one read each way,
//! give equal outcomes call for call: forwards, sends, events with every field, streams, pending, deadlines.

use jsonrpc_errors_host::guard::{Call, Options, Outcome, SessionCalls};
use jsonrpc_errors_host::{Context, Runtime};
use proptest::prelude::*;
use std::sync::OnceLock;

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        Runtime::new(vec![(
            "API_TOKEN".into(),
            "sk-live-0123456789abcdef0123".into(),
        )])
        .expect("the component")
    })
}

/// A policy whose actions and scopes make events with rules and tools, and rewritten lines.
const POLICY: &str = r#"
[defaults]
timeout = 30

[redaction]
scopes = ["errors", "results", "requests"]

[actions]
email = "audit"
aws-access-key-id = "block"

[[tool]]
match = "bench__*"
timeout = 5
"#;

/// One line for the session: from the client (on a stream, or not) or from the upstream.
#[derive(Debug, Clone)]
enum Line {
    Client(Vec<u8>),
    ClientOn(u64, Vec<u8>),
    Upstream(Vec<u8>),
}

fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..6).prop_map(|n| n.to_string()),
        "[a-z]{1,3}".prop_map(|s| format!("\"{s}\"")),
        Just("null".to_string()),
        Just("{\"a\":1}".to_string()),
        Just("1.5".to_string()),
    ]
}

fn method() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "tools/call",
        "tools/list",
        "initialize",
        "ping",
        "notifications/cancelled",
        "notifications/progress",
        "resources/read",
        "sampling/createMessage",
        "",
    ])
}

fn text() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "fine",
        "token sk-live-0123456789abcdef0123 leaked",
        "mail bob@example.com, card 4111 1111 1111 1111",
        "AKIAIOSFODNN7EXAMPLE at /home/alice/.aws/credentials",
        "é ☃ \\u0000 \\\" quoted",
    ])
}

/// A JSON-RPC message of either side, well formed or not quite.
fn message() -> impl Strategy<Value = String> {
    prop_oneof![
        // Requests and notifications.
        (id(), method(), text(), any::<bool>()).prop_map(|(id, m, t, named)| {
            let params = if named {
                format!(r#"{{"name":"bench__get_weather","arguments":{{"city":"{t}"}},"_meta":{{"progressToken":{id}}}}}"#)
            } else {
                format!(r#"{{"requestId":{id},"reason":"{t}"}}"#)
            };
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{m}","params":{params}}}"#)
        }),
        (method(), text()).prop_map(|(m, t)| {
            format!(r#"{{"jsonrpc":"2.0","method":"{m}","params":{{"progressToken":1,"progress":1,"message":"{t}"}}}}"#)
        }),
        // Results, failed tool results, errors.
        (id(), text(), any::<bool>()).prop_map(|(id, t, failed)| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{t}"}}],"isError":{failed}}}}}"#)
        }),
        (id(), text(), -32800i32..-31990).prop_map(|(id, t, code)| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{t}","data":{{"path":"/srv/app.py"}}}}}}"#)
        }),
        // What is no message, or not one line.
        Just(String::new()),
        Just("not json".to_string()),
        Just("[]".to_string()),
        Just("42".to_string()),
        Just(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#.to_string()),
        Just("{\"jsonrpc\":\"2.0\",\n\"id\":3,\"method\":\"ping\"}".to_string()),
        Just("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}".to_string()),
    ]
}

/// A line: a message, a batch of two, or bytes that are not UTF-8.
fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => message().prop_map(String::into_bytes),
        1 => (message(), message()).prop_map(|(a, b)| format!("[{a},{b}]").into_bytes()),
        1 => message().prop_map(|m| {
            let mut b = m.into_bytes();
            let at = b.len() / 2;
            b.insert(at, 0xff);
            b
        }),
    ]
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        3 => line_bytes().prop_map(Line::Client),
        1 => (0u64..3, line_bytes()).prop_map(|(s, l)| Line::ClientOn(s, l)),
        3 => line_bytes().prop_map(Line::Upstream),
    ]
}

fn call(line: &Line) -> Call<'_> {
    match line {
        Line::Client(l) => Call::ClientLine(l),
        Line::ClientOn(stream, l) => Call::ClientLineOn {
            stream: *stream,
            line: l,
        },
        Line::Upstream(l) => Call::UpstreamLine(l),
    }
}

fn same_outcomes(options: &Options, lines: &[Line]) -> Result<(), TestCaseError> {
    let mut typed = runtime().guard_session(options).expect("a session");
    let mut text = runtime().guard_session(options).expect("a session");
    for (n, line) in lines.iter().enumerate() {
        let ctx = Context {
            unix_millis: 1_700_000_000_000 + n as u64 * 7,
            entropy: 0x5eed + n as u64,
        };
        let a = typed.outcome(call(line), ctx).expect("an outcome");
        let json = text.outcome_json(call(line), ctx).expect("an outcome");
        let b = Outcome::parse(&json).expect("the JSON reads");
        prop_assert_eq!(&a, &b, "line {} ({:?}): the JSON was {}", n, line, json);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_lines_outcome_reads_the_same_from_the_record_and_from_its_json(
        lines in prop::collection::vec(line(), 1..24)
    ) {
        same_outcomes(&Options::default(), &lines)?;
    }

    #[test]
    fn under_a_policy_and_another_dialect_too(lines in prop::collection::vec(line(), 1..24)) {
        let options = Options {
            policy: Some(POLICY.into()),
            dialect: Some("thoughtgate".into()),
            batch: Some(jsonrpc_errors_host::guard::BatchPolicy::Allow),
            ..Options::default()
        };
        same_outcomes(&options, &lines)?;
    }
}

/// The generated lines reach what the comparison is about: sends, events with their fields, client streams.
#[test]
fn the_generated_lines_make_every_kind_of_step() {
    use jsonrpc_errors_host::guard::Step;
    let mut s = runtime()
        .guard_session(&Options::default())
        .expect("a session");
    let lines: [&[u8]; 4] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"token sk-live-0123456789abcdef0123"}}"#,
        b"not json",
        br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    ];
    let mut steps = Vec::new();
    let calls = [
        Call::ClientLine(lines[0]),
        Call::UpstreamLine(lines[1]),
        Call::ClientLine(lines[2]),
    ];
    for c in calls {
        steps.extend(s.outcome(c, Context::default()).unwrap().steps);
    }
    let on = s
        .outcome(
            Call::ClientLineOn {
                stream: 2,
                line: lines[3],
            },
            Context::default(),
        )
        .unwrap();
    assert!(steps.iter().any(|s| matches!(s, Step::Forward { .. })));
    assert!(steps.iter().any(|s| matches!(s, Step::Send { .. })));
    assert!(steps
        .iter()
        .any(|s| matches!(s, Step::Event(e) if e.id.is_some() && e.code.is_some())));
    assert_eq!(on.pending, 1, "{on:?}");
}
