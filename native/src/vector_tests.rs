//! The conformance vectors through the typed layer: every `map` vector whose input a typed [`ErrorKind`] can
//! hold is rendered from that kind and must give the vector's bytes; every `lookup` vector read back through
//! [`RemoteError`] must give its kind; every single-request `validate` vector through [`Request::parse`]
//! must give its error bytes or a request with its method and id. (The vectors run natively and through the
//! component in `host/tests/vectors.rs`; here they hold the typed marshalling to the same bytes.)

use crate::error::{render_input, MapEnvelope};
use crate::{Dialect, ErrorKind, ErrorObject, Id, Kind, RemoteError, Request};
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::taxonomy::taxonomy;
use serde_json::{Map, Value};
use std::path::PathBuf;

fn cases(file: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("a vector file is JSON");
    doc["cases"]
        .as_array()
        .expect("a vector file has cases")
        .clone()
}

fn ctx_of(case: &Value) -> CallContext {
    let c = &case["ctx"];
    CallContext {
        unix_millis: c["unix_millis"].as_u64().unwrap_or(0),
        entropy: c["entropy"].as_u64().unwrap_or(0),
    }
}

/// The case's dialect; `None` for a name outside the enum (the typed API cannot even name it).
fn dialect_of(case: &Value) -> Option<Dialect> {
    Dialect::from_name(
        case["dialect"]
            .as_str()
            .or(case["options"]["dialect"].as_str())
            .unwrap_or("canonical"),
    )
}

/// A map input split as the typed API holds it: the kind with its own fields, and the envelope beside it.
fn split(input: &Map<String, Value>, dialect: Dialect) -> (Map<String, Value>, MapEnvelope) {
    let generic = taxonomy().meta.generic_fields(dialect.name());
    let own = input
        .get("kind")
        .and_then(Value::as_str)
        .and_then(|k| taxonomy().kind(k))
        .map(|k| k.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut kind = Map::new();
    let mut envelope = MapEnvelope {
        id: Value::Null,
        correlation_id: None,
        timestamp: None,
        dialect_fields: Map::new(),
    };
    for (name, value) in input {
        match name.as_str() {
            "id" => envelope.id = value.clone(),
            "correlation_id" => envelope.correlation_id = value.as_str().map(str::to_string),
            "timestamp" => envelope.timestamp = value.as_str().map(str::to_string),
            _ if !own.contains(name) && generic.iter().any(|f| &f.name == name) => {
                envelope.dialect_fields.insert(name.clone(), value.clone());
            }
            _ => {
                kind.insert(name.clone(), value.clone());
            }
        }
    }
    (kind, envelope)
}

#[test]
fn every_map_vector_a_typed_kind_can_hold_renders_to_its_bytes() {
    let mut rendered = 0;
    let mut refused_alike = 0;
    for file in ["map-matrix.json", "map-edge-cases.json"] {
        for case in cases(file) {
            let name = case["name"].as_str().unwrap_or("?");
            let Some(input) = case.get("input").and_then(Value::as_object) else {
                continue;
            };
            // The environment is the guest's global: these cases would race the other tests' renders.
            if case.get("env").is_some() {
                continue;
            }
            let Some(dialect) = dialect_of(&case) else {
                continue;
            };
            let (members, envelope) = split(input, dialect);
            let typed: Result<ErrorKind, _> = serde_json::from_value(Value::Object(members));
            match (case.get("expect_text").and_then(Value::as_str), typed) {
                (Some(expected), Ok(kind)) => {
                    let got = render_input(&kind, &envelope, dialect, &ctx_of(&case))
                        .unwrap_or_else(|e| panic!("{file} {name}: refused: {e:?}"));
                    assert_eq!(got.as_str(), expected, "{file} {name}");
                    rendered += 1;
                }
                (Some(_), Err(e)) => {
                    panic!("{file} {name}: a valid input the typed kinds cannot hold: {e}")
                }
                // A refused input a typed kind can hold (a kind outside the dialect): refused alike.
                (None, Ok(kind)) => {
                    let expected: ErrorObject =
                        serde_json::from_value(case["expect_failure"].clone())
                            .expect("expect_failure is an error object");
                    let got =
                        render_input(&kind, &envelope, dialect, &ctx_of(&case)).expect_err(name);
                    assert_eq!(got, expected, "{file} {name}");
                    refused_alike += 1;
                }
                // Inputs the types refuse (a wrong field type, an unknown kind): never reach the guest.
                (None, Err(_)) => {}
            }
        }
    }
    // Every kind in every dialect that defines it, at least.
    let pairs: usize = taxonomy().kinds.iter().map(|k| k.dialects.len()).sum();
    assert!(
        rendered >= pairs,
        "only {rendered} map vectors rendered, fewer than the {pairs} kind/dialect pairs"
    );
    assert!(
        refused_alike > 0,
        "no refused vector reached the typed layer"
    );
}

#[test]
fn every_lookup_vector_reads_back_to_its_kind() {
    let mut checked = 0;
    for case in cases("lookup.json").iter().filter(|c| c["op"] == "lookup") {
        let name = case["name"].as_str().unwrap_or("?");
        let expected: Option<String> =
            serde_json::from_str(case["expect_text"].as_str().unwrap()).unwrap();
        let error = ErrorObject {
            code: case["code"].as_i64().unwrap(),
            message: case["message"].as_str().unwrap_or("").to_string(),
            data: case.get("data").cloned(),
        };
        // The reverse lookup matches messages only where the vector gives one; an empty one fits no template.
        let remote = if case.get("message").is_some() {
            RemoteError::new(error, Id::Null, dialect_of(case).unwrap())
        } else {
            let kind = jsonrpc_errors_guest::lookup::lookup_kind(
                dialect_of(case).unwrap().name(),
                error.code,
                None,
                error.data.as_ref(),
            )
            .unwrap()
            .and_then(Kind::from_name);
            assert_eq!(kind.map(Kind::name), expected.as_deref(), "{name}");
            checked += 1;
            continue;
        };
        assert_eq!(remote.kind().map(Kind::name), expected.as_deref(), "{name}");
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} lookup vectors");
}

#[test]
fn every_single_request_validate_vector_parses_to_its_verdict() {
    let mut checked = 0;
    for case in cases("validate.json") {
        let name = case["name"].as_str().unwrap_or("?");
        let options = case
            .get("options")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        // `Request::parse` takes a body and a dialect, and refuses batches: the other options' cases are not its.
        if options.keys().any(|k| k != "dialect") || case.get("expect_text").is_none() {
            continue;
        }
        let raw: Vec<u8> = match (case["raw"].as_str(), case["raw_hex"].as_str()) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(hex)) => (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect(),
            _ => panic!("{name}: no body"),
        };
        let expected = case["expect_text"].as_str().unwrap();
        let Some(dialect) = dialect_of(&case) else {
            continue;
        };
        match Request::parse_at(&raw, dialect, &ctx_of(&case)) {
            Ok(request) => {
                let verdict: Value = serde_json::from_str(expected).unwrap();
                assert_eq!(
                    verdict["valid"],
                    Value::Bool(true),
                    "{name}: parsed, but the vector refuses it"
                );
                assert_eq!(
                    request.method,
                    verdict["method"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    request.id.as_ref().map(Id::to_value),
                    verdict.get("id").cloned(),
                    "{name}"
                );
            }
            Err(rendered) => assert_eq!(rendered.as_str(), expected, "{name}"),
        }
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} validate vectors");
}
