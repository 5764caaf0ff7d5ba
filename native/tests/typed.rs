//! The typed API as a user calls it: kinds against the guest's table, domain errors through `?`, rendering in
//! every dialect, the fallback for a kind a dialect lacks, and the client's parse-back.

use jsonrpc_errors::{Dialect, ErrorKind, Id, JsonRpcError, Kind, Request, Response, ToErrorKind};
use jsonrpc_errors_guest::taxonomy::{taxonomy, FieldType, Style};
use serde_json::{json, Map, Value};

/// A kind with only its required fields, each given a value of its type (built from the guest's table, so
/// every kind is covered however the taxonomy grows).
fn minimal(kind: Kind) -> ErrorKind {
    let row = taxonomy().kind(kind.name()).unwrap();
    let mut input = Map::new();
    input.insert("kind".into(), json!(kind.name()));
    for f in row.fields.iter().filter(|f| f.required) {
        let value = match f.ty {
            FieldType::String => json!("x"),
            FieldType::U64 => json!(5),
            FieldType::S32 => json!(-5),
            FieldType::Bool => json!(true),
            FieldType::StringList => json!(["a"]),
            FieldType::Object => json!({}),
        };
        input.insert(f.name.clone(), value);
    }
    serde_json::from_value(Value::Object(input)).unwrap_or_else(|e| panic!("{}: {e}", kind.name()))
}

#[test]
fn the_generated_kinds_are_the_taxonomys_in_its_order() {
    let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    let table: Vec<&str> = taxonomy().kinds.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, table);
    for kind in Kind::ALL {
        assert_eq!(Kind::from_name(kind.name()), Some(kind));
        assert_eq!(minimal(kind).kind(), kind);
    }
    assert_eq!(Kind::from_name("no-such-kind"), None);
}

#[test]
fn facts_come_from_the_guests_table() {
    for kind in Kind::ALL {
        let row = taxonomy().kind(kind.name()).unwrap();
        assert_eq!(kind.category(), row.category);
        assert_eq!(kind.retryable(), row.retryable);
        assert_eq!(kind.http_status(), row.http_status);
        for dialect in Dialect::ALL {
            assert_eq!(
                kind.code(dialect),
                row.dialect(dialect.name()).and_then(|e| e.code),
                "{kind} in {}",
                dialect.name()
            );
        }
    }
}

#[test]
fn an_error_kind_reads_and_writes_the_guests_map_input() {
    // Numbers read from JSON text (serde's internally tagged enums lose them under arbitrary_precision).
    let kind: ErrorKind =
        serde_json::from_str(r#"{"kind":"approval-timeout","tool":"deploy","timeout_secs":300}"#)
            .unwrap();
    assert_eq!(
        kind,
        ErrorKind::ApprovalTimeout {
            tool: "deploy".into(),
            timeout_secs: 300,
            workflow: None
        }
    );
    // Absent options are left out; null reads as absent.
    assert_eq!(
        serde_json::to_value(&kind).unwrap(),
        json!({"kind": "approval-timeout", "tool": "deploy", "timeout_secs": 300})
    );
    let with_null: ErrorKind = serde_json::from_str(
        r#"{"kind":"approval-timeout","tool":"deploy","timeout_secs":300,"workflow":null}"#,
    )
    .unwrap();
    assert_eq!(with_null, kind);
    let unit: ErrorKind = serde_json::from_str(r#"{"kind":"timeout"}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&unit).unwrap(),
        r#"{"kind":"timeout"}"#
    );

    let refused = |text: &str| {
        serde_json::from_str::<ErrorKind>(text)
            .unwrap_err()
            .to_string()
    };
    assert!(refused(r#"{"kind":"approval-timeout","tool":"deploy"}"#).contains("timeout_secs"));
    assert!(
        refused(r#"{"kind":"approval-timeout","tool":"deploy","timeout_secs":-1}"#)
            .contains("timeout_secs")
    );
    assert!(refused(r#"{"kind":"timeout","tool":"x"}"#).contains("no field 'tool'"));
    assert!(refused(r#"{"kind":"no-such-kind"}"#).contains("unknown kind"));
    assert!(refused(r#"{"tool":"x"}"#).contains("kind"));
}

#[derive(Debug, thiserror::Error)]
enum StoreError {
    #[error("no order {0}")]
    NoOrder(String),
    #[error("connecting to postgres://app:{password}@db.internal/orders failed")]
    Connect { password: String },
}

impl ToErrorKind for StoreError {
    fn to_error_kind(&self) -> ErrorKind {
        match self {
            StoreError::NoOrder(id) => ErrorKind::TaskNotFound {
                task_id: id.clone(),
            },
            StoreError::Connect { .. } => ErrorKind::BackendUnavailable,
        }
    }
}

fn lookup(order: &str) -> Result<(), StoreError> {
    match order {
        "down" => Err(StoreError::Connect {
            password: "s3cr3t-Pa55w0rd".into(),
        }),
        other => Err(StoreError::NoOrder(other.into())),
    }
}

fn handler(order: &str) -> Result<(), JsonRpcError> {
    lookup(order)?;
    Ok(())
}

#[test]
fn a_domain_error_becomes_the_canonical_error_through_the_question_mark() {
    let error = handler("o-17").unwrap_err().with_id(4);
    assert_eq!(error.kind(), Kind::TaskNotFound);
    assert_eq!(error.to_string(), "task-not-found: no order o-17");
    assert!(std::error::Error::source(&error).is_some());

    let response = error.render().to_response();
    assert_eq!(response.id, Id::from(4));
    let object = response.outcome.unwrap_err();
    assert_eq!(
        object.code,
        i64::from(Kind::TaskNotFound.code(Dialect::Canonical).unwrap())
    );
    let data = object.data.unwrap();
    assert_eq!(data["type"], "task-not-found");
    assert_eq!(data["retryable"], Kind::TaskNotFound.retryable());
    // The correlation id the client gets is the one the server can log.
    assert_eq!(data["correlation_id"], error.correlation_id());
}

#[test]
fn the_log_detail_keeps_the_domain_error_without_its_secrets() {
    let error = handler("down").unwrap_err();
    let detail = error.log_detail().unwrap();
    assert!(detail.contains("db.internal/orders failed"), "{detail}");
    assert!(!detail.contains("s3cr3t-Pa55w0rd"), "{detail}");
    // The client learns neither: backend-unavailable has no field that could carry them.
    assert!(!error.render().as_str().contains("db.internal"));
    assert_eq!(JsonRpcError::new(ErrorKind::Timeout).log_detail(), None);
}

#[test]
fn correlation_ids_differ_per_error_and_can_be_given() {
    let a = JsonRpcError::new(ErrorKind::Timeout);
    let b = JsonRpcError::new(ErrorKind::Timeout);
    assert_ne!(a.correlation_id(), b.correlation_id());
    let given = JsonRpcError::new(ErrorKind::Timeout).with_correlation_id("req-42");
    assert_eq!(
        given
            .render()
            .to_response()
            .outcome
            .unwrap_err()
            .data
            .unwrap()["correlation_id"],
        "req-42"
    );
}

/// Every kind in every dialect that defines it renders as that dialect's code, under the request's id; read
/// back, the code stands for a kind with that code (the very kind where the dialect tells them apart).
#[test]
fn every_kind_renders_in_every_dialect_and_reads_back() {
    let mut round_trips = 0;
    for dialect in Dialect::ALL {
        for kind in Kind::ALL {
            let Some(entry) = taxonomy()
                .kind(kind.name())
                .unwrap()
                .dialect(dialect.name())
            else {
                continue;
            };
            let error = JsonRpcError::new(minimal(kind))
                .with_id("r-1")
                .in_dialect(dialect);
            let rendered = error
                .try_render()
                .unwrap_or_else(|e| panic!("{kind} in {}: {e:?}", dialect.name()));
            let response: Response = serde_json::from_str(rendered.as_str()).unwrap();
            assert_eq!(response.id, Id::from("r-1"));
            match (entry.style, response.into_result(dialect)) {
                // A tool result or a domain result is a result, as MCP and the Error Model define them.
                (Style::ToolResult | Style::Domain, Ok(result)) => assert!(result.is_object()),
                (Style::Error, Err(remote)) => {
                    let code = kind.code(dialect).map(i64::from);
                    assert_eq!(
                        Some(remote.error().code),
                        code,
                        "{kind} in {}",
                        dialect.name()
                    );
                    let read = remote.kind().unwrap_or_else(|| {
                        panic!("{kind} in {}: no kind read back", dialect.name())
                    });
                    assert_eq!(read.code(dialect).map(i64::from), code);
                    if dialect == Dialect::Canonical {
                        assert_eq!(read, kind, "canonical tells every kind apart by data.type");
                        assert_eq!(remote.retryable(), kind.retryable());
                        assert_eq!(remote.correlation_id(), Some(error.correlation_id()));
                    }
                    round_trips += 1;
                }
                (style, outcome) => panic!(
                    "{kind} in {}: {style:?} rendered as {outcome:?}",
                    dialect.name()
                ),
            }
        }
    }
    assert!(round_trips > Kind::ALL.len());
}

#[test]
fn a_kind_the_dialect_lacks_is_answered_as_internal_error() {
    let dialect = Dialect::ALL
        .into_iter()
        .find(|d| Kind::MethodNotFound.code(*d).is_none())
        .expect("some dialect has no method-not-found");
    let error = JsonRpcError::new(ErrorKind::MethodNotFound { method: "x".into() })
        .with_id(9)
        .in_dialect(dialect);
    let refused = error.try_render().unwrap_err();
    assert_eq!(
        refused.data.as_ref().unwrap()["reason"],
        "kind-not-in-dialect"
    );
    let response = error.render().to_response();
    assert_eq!(response.id, Id::from(9));
    assert_eq!(
        response.outcome.unwrap_err().code,
        i64::from(Kind::InternalError.code(dialect).unwrap())
    );
}

#[test]
fn a_dialect_field_reaches_the_dialects_data() {
    let error = JsonRpcError::new(ErrorKind::Timeout)
        .with_id(1)
        .in_dialect(Dialect::ErrorModel)
        .with_dialect_field("suggestion", "try a smaller page");
    assert!(error.render().as_str().contains("try a smaller page"));
    // Not a field of this dialect: refused by the guest, and the fallback answers.
    let other = JsonRpcError::new(ErrorKind::Timeout)
        .in_dialect(Dialect::Duet)
        .with_dialect_field("suggestion", "x");
    assert_eq!(
        other.try_render().unwrap_err().data.unwrap()["reason"],
        "unknown-field"
    );
}

#[test]
fn requests_parse_as_the_guest_validates_them() {
    let request = Request::parse(br#"{"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2},"id":123456789012345678901234567890}"#, Dialect::Canonical).unwrap();
    assert_eq!(request.method, "add");
    // The id whole, for the echo (not rounded to an f64).
    assert_eq!(
        serde_json::to_string(&request.id).unwrap(),
        "123456789012345678901234567890"
    );
    #[derive(serde::Deserialize)]
    struct Add {
        a: i64,
        b: i64,
    }
    let add: Add = request.params().unwrap();
    assert_eq!(add.a + add.b, 3);

    let wrong = request.params::<Vec<String>>().unwrap_err();
    assert_eq!(wrong.kind(), Kind::InvalidParams);
    assert_eq!(
        serde_json::to_string(wrong.id()).unwrap(),
        "123456789012345678901234567890"
    );

    let notification =
        Request::parse(br#"{"jsonrpc":"2.0","method":"ping"}"#, Dialect::Canonical).unwrap();
    assert!(notification.is_notification());
    assert_eq!(notification.params::<Option<Value>>().unwrap(), None);

    let not_json = Request::parse(b"{", Dialect::A2a)
        .unwrap_err()
        .to_response();
    assert_eq!(
        not_json.outcome.unwrap_err().code,
        i64::from(Kind::ParseError.code(Dialect::A2a).unwrap())
    );
    let no_method = Request::parse(br#"{"jsonrpc":"2.0","id":3}"#, Dialect::Canonical)
        .unwrap_err()
        .to_response();
    assert_eq!(no_method.id, Id::from(3));
    assert_eq!(
        no_method.outcome.unwrap_err().data.unwrap()["reason"],
        "missing-method"
    );
    let batch = Request::parse(
        br#"[{"jsonrpc":"2.0","method":"a","id":1}]"#,
        Dialect::Canonical,
    )
    .unwrap_err()
    .to_response();
    assert_eq!(
        batch.outcome.unwrap_err().data.unwrap()["reason"],
        "batch-not-supported"
    );
}

#[test]
fn responses_are_one_of_result_and_error() {
    let ok = Response::success(1, json!(null));
    assert_eq!(
        serde_json::to_string(&ok).unwrap(),
        r#"{"jsonrpc":"2.0","result":null,"id":1}"#
    );
    let read: Response = serde_json::from_str(r#"{"jsonrpc":"2.0","result":null,"id":1}"#).unwrap();
    assert_eq!(read, ok);
    for bad in [
        r#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"1.0","result":1,"id":1}"#,
        r#"{"jsonrpc":"2.0","result":1}"#,
    ] {
        assert!(serde_json::from_str::<Response>(bad).is_err(), "{bad}");
    }
    let null_id: Response = serde_json::from_str(
        r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
    )
    .unwrap();
    assert_eq!(null_id.id, Id::Null);
}

#[test]
fn a_servers_own_code_reads_back_without_a_kind() {
    let response: Response = serde_json::from_str(
        r#"{"jsonrpc":"2.0","error":{"code":-31999,"message":"mine"},"id":2}"#,
    )
    .unwrap();
    let remote = response.into_result(Dialect::Canonical).unwrap_err();
    assert_eq!(remote.kind(), None);
    assert!(!remote.retryable());
    assert_eq!(remote.to_string(), "JSON-RPC error -31999: mine");
}
