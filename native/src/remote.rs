//! Client side: a JSON-RPC error response read back into the kind it stands for, by the guest's reverse lookup.

use crate::kinds::Kind;
use crate::message::{ErrorObject, Id, Response};
use jsonrpc_errors_guest::lookup::lookup_kind;
use jsonrpc_errors_guest::taxonomy::Dialect;
use serde_json::Value;
use std::fmt;

/// An error a server answered with, and the kind its code stands for in the server's dialect.
///
/// Where a dialect gives several kinds one code, the guest tells them apart by `data.type` (canonical), by
/// the message (VAPORA's -32000) or by `data.gate`; a code the dialect does not define has no kind (a
/// server's own error). It implements [`std::error::Error`], so `?` carries it into a client's own error type.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteError(Box<Parts>);

/// Boxed: a `Result<T, RemoteError>` stays one pointer wide.
#[derive(Debug, Clone, PartialEq)]
struct Parts {
    error: ErrorObject,
    id: Id,
    kind: Option<Kind>,
}

impl RemoteError {
    /// The error object of an error response, and its kind in `dialect`.
    pub fn new(error: ErrorObject, id: Id, dialect: Dialect) -> Self {
        let kind = lookup_kind(
            dialect.name(),
            error.code,
            Some(&error.message),
            error.data.as_ref(),
        )
        .ok()
        .flatten()
        .and_then(Kind::from_name);
        RemoteError(Box::new(Parts { error, id, kind }))
    }

    /// The kind the code stands for; `None` for a code the dialect does not define.
    pub fn kind(&self) -> Option<Kind> {
        self.0.kind
    }

    /// The error object as the server sent it.
    pub fn error(&self) -> &ErrorObject {
        &self.0.error
    }

    /// The id of the request it answers.
    pub fn id(&self) -> &Id {
        &self.0.id
    }

    /// Whether the same call may succeed later: the server's `data.retryable` when it sent one (the canonical
    /// dialect does), else the taxonomy's word for the kind; an unknown code is not.
    pub fn retryable(&self) -> bool {
        match self.data_member("retryable") {
            Some(Value::Bool(b)) => *b,
            _ => self.0.kind.is_some_and(Kind::retryable),
        }
    }

    /// The correlation id the server logged the error under, in the dialects that send one (`data.correlation_id`).
    pub fn correlation_id(&self) -> Option<&str> {
        self.data_member("correlation_id").and_then(Value::as_str)
    }

    fn data_member(&self, name: &str) -> Option<&Value> {
        self.0.error.data.as_ref().and_then(|d| d.get(name))
    }
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.kind {
            Some(kind) => write!(
                f,
                "{kind} ({}): {}",
                self.0.error.code, self.0.error.message
            ),
            None => write!(
                f,
                "JSON-RPC error {}: {}",
                self.0.error.code, self.0.error.message
            ),
        }
    }
}

impl std::error::Error for RemoteError {}

impl Response {
    /// The result, or the error read back into its kind in `dialect` (the server's dialect).
    ///
    /// Only JSON-RPC error responses are errors here: an MCP `isError` tool result and an Error Model domain
    /// error (`result.error`) are results, as those protocols define them, and come back as `Ok`.
    pub fn into_result(self, dialect: Dialect) -> Result<Value, RemoteError> {
        match self.outcome {
            Ok(result) => Ok(result),
            Err(error) => Err(RemoteError::new(error, self.id, dialect)),
        }
    }
}
