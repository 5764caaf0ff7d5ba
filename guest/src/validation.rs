//! Request validation (duet-rpc ADR-012 and the JSON-RPC 2.0 specification): raw bytes in, either the
//! request's id and method or the error response out.

use crate::context::CallContext;
use crate::message::{self, Parsed};
use crate::ordered::Fields;
use crate::redact::Secrets;
use crate::render::{render, ErrorInput};
use crate::taxonomy::taxonomy;
use crate::validate_args::ValidateArgs;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchPolicy {
    /// duet-rpc: a batch array is -32600 batch-not-supported.
    #[default]
    Reject,
    /// The JSON-RPC spec's batch semantics: one result per member, in order.
    Allow,
}

impl BatchPolicy {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "reject" => Some(BatchPolicy::Reject),
            "allow" => Some(BatchPolicy::Allow),
            _ => None,
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            BatchPolicy::Reject => "reject",
            BatchPolicy::Allow => "allow",
        }
    }
}

/// Why a request is not valid: the kind with its fields, and the id to echo.
struct Rejection {
    kind: &'static str,
    fields: Fields,
    id: Value,
}

fn invalid_request(reason: &str, details: Option<String>, id: Value) -> Rejection {
    let mut fields = Fields::new();
    fields.insert("reason", Value::String(reason.into()));
    if let Some(d) = details {
        fields.insert("details", Value::String(d));
    }
    Rejection {
        kind: "invalid-request",
        fields,
        id,
    }
}

fn parse_error(details: String) -> Rejection {
    let mut fields = Fields::new();
    fields.insert("details", Value::String(details));
    Rejection {
        kind: "parse-error",
        fields,
        id: Value::Null,
    }
}

const ACCEPTED_MEDIA_TYPES: [&str; 3] = [
    "application/json",
    "application/json-rpc",
    "application/jsonrequest",
];

fn check_content_type(header: &str) -> Option<Rejection> {
    let mut parts = header.split(';');
    let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    if !ACCEPTED_MEDIA_TYPES.contains(&media.as_str()) {
        return Some(invalid_request(
            "unsupported-content-type",
            Some("expected application/json".to_string()),
            Value::Null,
        ));
    }
    for param in parts {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("charset") {
            let charset = value.trim().trim_matches('"').to_ascii_lowercase();
            if charset != "utf-8" && charset != "utf8" {
                return Some(invalid_request(
                    "bad-charset",
                    Some("expected charset=utf-8".to_string()),
                    Value::Null,
                ));
            }
        }
    }
    None
}

/// Checks one request object (read as raw members, see `message`). Ok: `{"valid": true, "id"?, "method"}`.
/// A member JSON-RPC reads given twice is refused (`duplicate-member`): a proxy must not act on one `method`
/// while the server behind it reads the other.
fn check_request(parsed: Parsed<'_>) -> Result<Value, Rejection> {
    let envelope = match parsed {
        Parsed::Object(envelope) => envelope,
        Parsed::Duplicate(name) => {
            let details = format!("member \"{name}\" appears more than once");
            return Err(invalid_request(
                "duplicate-member",
                Some(details),
                Value::Null,
            ));
        }
        _ => {
            return Err(invalid_request(
                "not-an-object",
                Some("a request must be a JSON object".into()),
                Value::Null,
            ))
        }
    };
    let call = message::check_request(&envelope).map_err(|e| {
        invalid_request(
            e.reason,
            Some(e.details.to_string()),
            if e.reason.starts_with("invalid-id") {
                Value::Null
            } else {
                message::readable_id(&envelope)
            },
        )
    })?;
    let mut ok = Map::new();
    ok.insert("valid".into(), Value::Bool(true));
    if let Some(raw_id) = call.id {
        ok.insert("id".into(), message::value(raw_id));
    }
    ok.insert("method".into(), Value::String(call.method));
    Ok(Value::Object(ok))
}

fn respond(rejection: Rejection, dialect: &str, ctx: &CallContext, env: &Secrets) -> Value {
    let kind = taxonomy()
        .kind(rejection.kind)
        .expect("validation kinds are in the taxonomy");
    let input = ErrorInput {
        kind,
        fields: rejection.fields,
        id: rejection.id,
        correlation_id: None,
        timestamp: None,
        result_type: false,
        redaction: None,
        generic: Fields::new(),
    };
    // Both kinds are defined in every dialect and their fields are well-formed, so rendering cannot fail;
    // should it ever, the caller still gets a plain, leak-free -32603.
    render(&input, dialect, ctx, env)
        .map(|o| o.into_value())
        .unwrap_or_else(|_| {
            crate::error::error_response(&crate::error::ErrorObject::internal(), input.id.clone())
        })
}

/// The outcome of reading the bytes: one request, or the members of an allowed batch.
enum Verdict {
    Single(Result<Value, Rejection>),
    Batch(Vec<Result<Value, Rejection>>),
}

/// Validates raw request bytes under `args` (the generated `validate-options`, read as they are: the one
/// default to resolve, `max_bytes`'s, is the taxonomy's), `batch` being its batch policy as checked. Always
/// returns one JSON document: the verdict, the error response, or (for an allowed batch) an array with one
/// entry per member, in order.
pub fn validate(
    raw: &[u8],
    args: &ValidateArgs<'_>,
    batch: BatchPolicy,
    ctx: &CallContext,
    env: &Secrets,
) -> Value {
    let settle =
        |r: Result<Value, Rejection>| r.unwrap_or_else(|rej| respond(rej, args.dialect, ctx, env));
    match read(raw, args, batch) {
        Verdict::Single(r) => settle(r),
        Verdict::Batch(members) => Value::Array(members.into_iter().map(settle).collect()),
    }
}

fn read(raw: &[u8], args: &ValidateArgs<'_>, batch: BatchPolicy) -> Verdict {
    let reject = |r| Verdict::Single(Err(r));
    // Size first: an oversize body is never parsed, and its id is never read.
    let max_bytes = args.max_bytes.unwrap_or(taxonomy().meta.default_max_bytes);
    let declared = args.content_length.unwrap_or(0).max(raw.len() as u64);
    if declared > max_bytes {
        let details = format!("request exceeds {max_bytes} bytes");
        return reject(invalid_request("oversize", Some(details), Value::Null));
    }
    if let Some(r) = args.content_type.and_then(check_content_type) {
        return reject(r);
    }
    if let Some(len) = args.content_length.filter(|len| *len != raw.len() as u64) {
        return reject(parse_error(format!(
            "Content-Length {len} does not match the {} bytes received",
            raw.len()
        )));
    }
    let text = match std::str::from_utf8(raw) {
        Ok(t) => t,
        Err(e) => {
            return reject(parse_error(format!(
                "invalid UTF-8 at byte {}",
                e.valid_up_to()
            )))
        }
    };
    // Read without building the tree (see `message`): every member is checked as JSON but kept as raw text,
    // skipped iteratively, so nesting of any depth is read without recursion. Depth is no reason to refuse a
    // request (it is valid JSON; what its params may hold is the server's business).
    match message::parse(text) {
        Parsed::NotJson(e) => reject(parse_error(e)),
        Parsed::Batch(_) if batch == BatchPolicy::Reject => reject(invalid_request(
            "batch-not-supported",
            Some("batch requests are not supported".into()),
            Value::Null,
        )),
        Parsed::Batch(members) if members.is_empty() => reject(invalid_request(
            "empty-batch",
            Some("a batch must not be empty".into()),
            Value::Null,
        )),
        Parsed::Batch(members) => Verdict::Batch(
            members
                .iter()
                .map(|m| check_request(message::parse(m.get())))
                .collect(),
        ),
        single => Verdict::Single(check_request(single)),
    }
}
