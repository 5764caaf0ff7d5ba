//! The example server on a real socket (127.0.0.1, a port the system chooses), spoken to over HTTP/1.1: each
//! answer is checked against what the taxonomy says the dialect answers with, and read back by a client.

use jsonrpc_errors::{Dialect, Id, Kind, Response};
use jsonrpc_errors_guest::taxonomy::taxonomy;
use rust_axum_server_example::{router, Agent};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A store URL with a password in it, as a misconfigured deployment would log it.
const STORE_URL: &str = "postgres://agent:Xk9-hunter2-pw@10.20.30.40/skills";

struct Server {
    addr: SocketAddr,
    logs: Arc<Mutex<Vec<String>>>,
}

async fn start(dialect: Dialect) -> Server {
    let logs = Arc::new(Mutex::new(Vec::new()));
    let sink = logs.clone();
    let agent = Agent::new(
        dialect,
        STORE_URL,
        Box::new(move |line| sink.lock().unwrap().push(line)),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(agent)).await });
    Server { addr, logs }
}

/// The HTTP status, the Content-Type and the body of one POST.
async fn post(addr: SocketAddr, body: &str) -> (u16, Option<String>, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head.lines().find_map(|l| {
        l.split_once(':')
            .filter(|(name, _)| name.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.trim().to_string())
    });
    (status, content_type, body.to_string())
}

/// A call whose answer must be a JSON-RPC error: the error object and the parsed response.
async fn call(server: &Server, method: &str, params: Value, id: Value) -> (String, Response) {
    let body = json!({"jsonrpc": "2.0", "method": method, "params": params, "id": id}).to_string();
    let (status, content_type, text) = post(server.addr, &body).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(content_type.as_deref(), Some("application/json"));
    let response: Response = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (text, response)
}

/// The message `dialect` words `kind` with, its `{field}`s filled from `fields` (the taxonomy's template).
fn message(kind: Kind, dialect: Dialect, fields: &[(&str, &str)]) -> String {
    let mut text = taxonomy()
        .kind(kind.name())
        .unwrap()
        .message_in(dialect.name())
        .to_string();
    for (name, value) in fields {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

fn code(kind: Kind, dialect: Dialect) -> i64 {
    kind.code(dialect)
        .map(i64::from)
        .unwrap_or_else(|| panic!("{kind} is not in {}", dialect.name()))
}

#[tokio::test]
async fn vapora_domain_errors_are_told_apart_by_message_and_read_back() {
    let dialect = Dialect::Vapora;
    let server = start(dialect).await;

    let (_, ok) = call(
        &server,
        "skills/run",
        json!({"skill": "shout", "text": "hi"}),
        json!(1),
    )
    .await;
    assert_eq!(ok, Response::success(1, json!({"text": "HI"})));

    // Three domain errors, one code: VAPORA tells them apart by their message, and so does the client.
    let cases = [
        (
            "skills/run",
            json!({"skill": "summarize", "text": "x"}),
            Kind::UnknownSkill,
            vec![("skill", "summarize")],
        ),
        (
            "tasks/get",
            json!({"task_id": "t-404"}),
            Kind::TaskNotFound,
            vec![("task_id", "t-404")],
        ),
        (
            "tasks/transition",
            json!({"task_id": "t-2", "target": "working"}),
            Kind::InvalidStateTransition,
            vec![("current", "completed"), ("target", "working")],
        ),
    ];
    for (i, (method, params, kind, fields)) in cases.into_iter().enumerate() {
        let id = json!(format!("req-{i}"));
        let (text, response) = call(&server, method, params, id.clone()).await;
        assert_eq!(response.id, Id::String(format!("req-{i}")));
        let error = response.clone().outcome.unwrap_err();
        assert_eq!(error.code, code(kind, dialect), "{text}");
        assert_eq!(error.message, message(kind, dialect, &fields), "{text}");
        assert_eq!(error.data, None, "VAPORA's errors carry no data: {text}");
        // Parse-back: the client's typed error is the kind the server raised.
        let remote = response.into_result(dialect).unwrap_err();
        assert_eq!(remote.kind(), Some(kind), "{text}");
    }
}

#[tokio::test]
async fn a_failure_with_a_secret_reaches_the_log_redacted_and_the_client_not_at_all() {
    let dialect = Dialect::Canonical;
    let server = start(dialect).await;
    let (text, response) = call(
        &server,
        "skills/run",
        json!({"skill": "lookup", "text": "x"}),
        json!(7),
    )
    .await;
    assert!(
        !text.contains("hunter2") && !text.contains("10.20.30.40"),
        "{text}"
    );
    let remote = response.into_result(dialect).unwrap_err();
    assert_eq!(remote.kind(), Some(Kind::CoordinatorError));
    assert_eq!(remote.error().code, code(Kind::CoordinatorError, dialect));
    assert_eq!(
        remote.error().data.as_ref().unwrap()["category"],
        Kind::CoordinatorError.category()
    );
    assert_eq!(remote.retryable(), Kind::CoordinatorError.retryable());

    // The operator's line: found by the correlation id the client got, with the domain error but no password.
    let correlation_id = remote
        .correlation_id()
        .expect("the canonical dialect sends a correlation id");
    let logs = server.logs.lock().unwrap();
    let line = logs
        .iter()
        .find(|l| l.contains(correlation_id))
        .unwrap_or_else(|| panic!("no log line for {correlation_id}: {logs:?}"));
    assert!(line.starts_with("answered coordinator-error"), "{line}");
    assert!(line.contains("refused the connection"), "{line}");
    assert!(!line.contains("Xk9-hunter2-pw"), "{line}");
}

#[tokio::test]
async fn canonical_errors_carry_their_kind_and_read_back_exactly() {
    let dialect = Dialect::Canonical;
    let server = start(dialect).await;
    let (_, response) = call(&server, "tasks/get", json!({"task_id": "t-404"}), json!(3)).await;
    let error = response.clone().outcome.unwrap_err();
    assert_eq!(error.code, code(Kind::TaskNotFound, dialect));
    assert_eq!(
        error.message,
        message(Kind::TaskNotFound, dialect, &[("task_id", "t-404")])
    );
    let data = error.data.unwrap();
    assert_eq!(data["type"], Kind::TaskNotFound.name());
    assert_eq!(data["retryable"], Kind::TaskNotFound.retryable());
    assert_eq!(
        response.into_result(dialect).unwrap_err().kind(),
        Some(Kind::TaskNotFound)
    );

    // Params that do not fit the method's type: invalid-params, answering the request.
    let (text, response) = call(&server, "tasks/get", json!({"task": 5}), json!(4)).await;
    assert_eq!(response.id, Id::from(4));
    let remote = response.into_result(dialect).unwrap_err();
    assert_eq!(remote.kind(), Some(Kind::InvalidParams), "{text}");
    assert_eq!(remote.error().code, code(Kind::InvalidParams, dialect));

    let (_, response) = call(&server, "agents/list", json!({}), json!(5)).await;
    assert_eq!(
        response.into_result(dialect).unwrap_err().kind(),
        Some(Kind::MethodNotFound)
    );
}

#[tokio::test]
async fn a_kind_the_dialect_lacks_is_answered_as_its_internal_error() {
    // VAPORA defines no method-not-found: its internal fault answers, still under the request's id.
    let dialect = Dialect::Vapora;
    assert_eq!(Kind::MethodNotFound.code(dialect), None);
    let server = start(dialect).await;
    let (_, response) = call(&server, "agents/list", json!({}), json!(11)).await;
    assert_eq!(response.id, Id::from(11));
    let remote = response.into_result(dialect).unwrap_err();
    assert_eq!(remote.error().code, code(Kind::InternalError, dialect));
    assert_eq!(remote.kind(), Some(Kind::InternalError));
}

#[tokio::test]
async fn bad_bodies_are_answered_by_the_guests_request_checks() {
    let dialect = Dialect::A2a;
    let server = start(dialect).await;

    let (status, _, text) = post(server.addr, "{\"jsonrpc\": \"2.0\", ").await;
    assert_eq!(status, 200);
    let response: Response = serde_json::from_str(&text).unwrap();
    assert_eq!(response.id, Id::Null);
    assert_eq!(
        response.into_result(dialect).unwrap_err().kind(),
        Some(Kind::ParseError)
    );

    let (_, _, text) = post(server.addr, r#"{"jsonrpc":"2.0","id":9}"#).await;
    let response: Response = serde_json::from_str(&text).unwrap();
    assert_eq!(response.id, Id::from(9));
    let remote = response.into_result(dialect).unwrap_err();
    assert_eq!(remote.kind(), Some(Kind::InvalidRequest));
    assert_eq!(remote.error().code, code(Kind::InvalidRequest, dialect));

    // A2A's own code for a missing task, read back as A2A's TaskNotFound.
    let (_, response) = call(&server, "tasks/get", json!({"task_id": "nope"}), json!(10)).await;
    let remote = response.into_result(dialect).unwrap_err();
    assert_eq!(remote.error().code, code(Kind::TaskNotFound, dialect));
    assert_eq!(remote.kind(), Some(Kind::TaskNotFound));
}

#[tokio::test]
async fn a_notification_gets_no_answer_even_when_it_fails() {
    let server = start(Dialect::Vapora).await;
    let body =
        json!({"jsonrpc": "2.0", "method": "skills/run", "params": {"skill": "nope", "text": ""}})
            .to_string();
    let (status, _, text) = post(server.addr, &body).await;
    assert_eq!(status, 202);
    assert_eq!(text, "");
}
