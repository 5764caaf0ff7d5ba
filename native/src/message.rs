//! JSON-RPC 2.0 messages as serde types: the request a server reads, the response it writes, the error object.
//!
//! They read and write the specification's shapes and nothing more; which error a server answers with, and
//! what its `data` says, is the guest's business (see [`crate::JsonRpcError`]).

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// The `"jsonrpc": "2.0"` member: serializes as `"2.0"` and refuses any other version when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Version;

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match String::deserialize(deserializer)?.as_str() {
            "2.0" => Ok(Version),
            other => Err(D::Error::custom(format!(
                "\"jsonrpc\" must be \"2.0\", not \"{other}\""
            ))),
        }
    }
}

/// A request id: a number, a string, or null (a response to a request whose id could not be read).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Id {
    /// At full precision: a 30-digit id is echoed whole, not rounded to an `f64`.
    Number(serde_json::Number),
    String(String),
    #[default]
    Null,
}

impl Id {
    /// The id as a JSON value (what the guest takes).
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
            Id::Null => Value::Null,
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n.into())
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_string())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::String(s)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Number(n) => n.serialize(serializer),
            Id::String(s) => serializer.serialize_str(s),
            Id::Null => serializer.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Number(n) => Ok(Id::Number(n)),
            Value::String(s) => Ok(Id::String(s)),
            Value::Null => Ok(Id::Null),
            _ => Err(D::Error::custom("an id must be a number, a string or null")),
        }
    }
}

/// A member that may be `null` and may be absent, told apart: `Some(null)` is there, `None` is not.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A JSON-RPC 2.0 request, or a notification when `id` is absent.
///
/// Read one from an HTTP body with [`Request::parse`], which answers a body that is no request with the
/// error response the guest renders for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub jsonrpc: Version,
    pub method: String,
    /// Kept as the client wrote it, unread: the method's own params type reads it ([`Request::params`]), and
    /// params nested deeper than serde_json's recursion limit are still a request (the guest accepts them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Box<RawValue>>,
    /// Absent for a notification (which gets no response); `Some(Id::Null)` for `"id": null`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<Id>,
}

impl Request {
    /// A request with `params` (an object or an array) and `id`.
    pub fn new(method: impl Into<String>, params: Option<&Value>, id: impl Into<Id>) -> Self {
        // A `Value` always serializes.
        let params =
            params.map(|p| serde_json::value::to_raw_value(p).expect("a Value serializes"));
        Request {
            jsonrpc: Version,
            method: method.into(),
            params,
            id: Some(id.into()),
        }
    }

    /// Whether no response is owed.
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }
}

/// A JSON-RPC 2.0 error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// An integer; wider than the taxonomy's `i32` so that any server's code can be read back.
    pub code: i64,
    pub message: String,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
}

/// A JSON-RPC 2.0 response: a result or an error, never both, and the id of the request it answers.
///
/// Serialized with its members in the order the guest writes them (`jsonrpc`, `result` or `error`, `id`).
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub outcome: Result<Value, ErrorObject>,
    pub id: Id,
}

impl Response {
    /// A successful response.
    pub fn success(id: impl Into<Id>, result: Value) -> Self {
        Response {
            outcome: Ok(result),
            id: id.into(),
        }
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", &Version)?;
        match &self.outcome {
            Ok(result) => map.serialize_entry("result", result)?,
            Err(error) => map.serialize_entry("error", error)?,
        }
        map.serialize_entry("id", &self.id)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Members {
            #[allow(dead_code)] // read to check it
            jsonrpc: Version,
            #[serde(default, deserialize_with = "present")]
            result: Option<Value>,
            #[serde(default)]
            error: Option<ErrorObject>,
            // Required, but may be null: a response to a request whose id could not be read.
            #[serde(deserialize_with = "present")]
            id: Option<Id>,
        }
        let m = Members::deserialize(deserializer)?;
        let outcome = match (m.result, m.error) {
            (Some(result), None) => Ok(result),
            (None, Some(error)) => Err(error),
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "a response has a result or an error, not both",
                ))
            }
            (None, None) => return Err(D::Error::custom("a response has a result or an error")),
        };
        Ok(Response {
            outcome,
            id: m.id.unwrap_or_default(),
        })
    }
}
