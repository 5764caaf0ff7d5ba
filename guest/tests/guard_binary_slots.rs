//! Binary members (a `blob`, an image's or audio's `data`) are taken out of a result before its text is
//! redacted and put back after. The property, over generated results with binary members at any depth, some
//! inside values the rules redact whole (a `stack`, `frames`), some under sensitive names (whose `"type":
//! "image"` is itself redacted), several per result: every binary member that survives keeps exactly its own
//! bytes, none lands in another's place, and no taken bytes appear inside a redacted value. Checked through a
//! session, as the client gets it: a failed tool result (default scopes) and a successful one under a policy
//! with the `results` scope, with and without `binary = true`.

use base64::Engine as _;
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::guard::{Options, Outcome, Peer, Session, Step};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const T0: u64 = 1_767_225_600_000;

/// Stands for a binary member's bytes until each is numbered (so every member's bytes are its own).
const BYTES: &str = "<bytes>";

fn ctx(ms: u64) -> CallContext {
    CallContext {
        unix_millis: ms,
        entropy: 7,
    }
}

/// Texts around the binary members: benign ones, secrets, a trace, and `image` (so a generated object may be
/// `{"type": "image", "data": …}` with anything as its data).
fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("ok")),
        Just(json!("image")),
        Just(json!("db error at main (/srv/app.js:1:1)")),
        Just(json!("token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d")),
        Just(json!("postgres://app:hunter2@db/x")),
        Just(json!(42)),
    ]
}

/// A binary member in one of the shapes MCP gives it: a resource's `blob`, an image's or audio's `data`.
fn binary() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"uri": "file:///k.bin", "blob": BYTES})),
        Just(json!({"type": "image", "mimeType": "image/png", "data": BYTES})),
        Just(json!({"type": "audio", "mimeType": "audio/wav", "data": BYTES})),
    ]
}

/// Member names: ones redacted whole (`stack`, `frames`, `trace`), sensitive ones (`credentials`,
/// `password`), MCP's own, and the binary members' names used for anything.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("stack"),
        Just("frames"),
        Just("trace"),
        Just("credentials"),
        Just("password"),
        Just("content"),
        Just("resource"),
        Just("structuredContent"),
        Just("note"),
        Just("type"),
        Just("data"),
        Just("blob"),
    ]
    .prop_map(str::to_string)
}

fn node() -> impl Strategy<Value = Value> {
    prop_oneof![text(), binary()].prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn result() -> impl Strategy<Value = Map<String, Value>> {
    (
        proptest::collection::vec(node(), 0..4),
        proptest::collection::vec((key(), node()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(content, members, content_first)| {
            let mut r = Map::new();
            if content_first {
                r.insert("content".into(), Value::Array(content.clone()));
            }
            r.extend(members);
            if !content_first {
                r.insert("content".into(), Value::Array(content));
            }
            r
        })
}

/// Gives every stand-in its own bytes (base64 of a numbered text, so `binary = true` decodes and scans it):
/// each member's JSON pointer and bytes.
fn number(value: &mut Value, pointer: &str, numbered: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) if s == BYTES => {
            let bytes = base64::engine::general_purpose::STANDARD
                .encode(format!("binary-{:04}", numbered.len()));
            *s = bytes.clone();
            numbered.push((pointer.to_string(), bytes));
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                number(child, &format!("{pointer}/{i}"), numbered);
            }
        }
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                number(child, &format!("{pointer}/{k}"), numbered);
            }
        }
        _ => {}
    }
}

/// The result the client gets for a tool call answered with `result`.
fn answered(policy: Option<&str>, result: &Map<String, Value>) -> Value {
    let mut o = Options::new("mcp", "stdio:server");
    o.settings.timeout_ms = Some(30_000);
    o.policy = policy.map(str::to_string);
    let mut s = Session::new(o);
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}"#;
    s.client_line(call.as_bytes(), ctx(T0));
    let line = json!({"jsonrpc": "2.0", "id": 1, "result": result}).to_string();
    let o: Outcome = s.upstream_line(line.as_bytes(), ctx(T0 + 5));
    let sent: Vec<&Step> = o
        .steps
        .iter()
        .filter(|s| {
            matches!(
                s,
                Step::Forward {
                    to: Peer::Client,
                    ..
                } | Step::Send {
                    to: Peer::Client,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(sent.len(), 1, "one answer: {:?}", o.steps);
    match sent[0] {
        Step::Send { line, .. } => serde_json::from_str::<Value>(line).unwrap()["result"].clone(),
        _ => Value::Object(result.clone()),
    }
}

/// Every numbered member that is still there holds its own bytes; no bytes are anywhere else.
fn kept_in_place(
    given: &Map<String, Value>,
    got: &Value,
    numbered: &[(String, String)],
    how: &str,
) -> Result<(), TestCaseError> {
    let text = got.to_string();
    for (pointer, bytes) in numbered {
        let (parent, name) = pointer.rsplit_once('/').unwrap();
        if let Some(slot) = got.pointer(parent).and_then(|p| p.get(name)) {
            prop_assert_eq!(
                slot.as_str(),
                Some(bytes.as_str()),
                "{}: {} does not hold its own bytes in {} (given {})",
                how,
                pointer,
                text,
                Value::Object(given.clone())
            );
        }
        prop_assert!(
            text.matches(bytes.as_str()).count() <= 1,
            "{}: {} copied elsewhere in {}",
            how,
            pointer,
            text
        );
        if text.contains(bytes.as_str()) {
            prop_assert_eq!(
                got.pointer(pointer).and_then(Value::as_str),
                Some(bytes.as_str()),
                "{}: the bytes of {} found elsewhere in {}",
                how,
                pointer,
                text
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_binary_member_keeps_its_own_bytes_or_goes_with_its_redacted_value(mut given in result()) {
        let mut numbered = Vec::new();
        let mut value = Value::Object(std::mem::take(&mut given));
        number(&mut value, "", &mut numbered);
        let Value::Object(mut given) = value else { unreachable!() };

        given.insert("isError".into(), json!(true));
        let got = answered(None, &given);
        kept_in_place(&given, &got, &numbered, "a failed result")?;

        given.insert("isError".into(), json!(false));
        let results = "[redaction]\nscopes = [\"errors\", \"results\"]\n";
        let got = answered(Some(results), &given);
        kept_in_place(&given, &got, &numbered, "the results scope")?;
        let got = answered(Some(&format!("{results}binary = true\n")), &given);
        kept_in_place(&given, &got, &numbered, "binary = true")?;
    }
}
