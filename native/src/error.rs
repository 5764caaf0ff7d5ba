//! Server side: an application's domain error → the canonical JSON-RPC error, rendered by the guest.
//!
//! Two layers. The application keeps its own error type (a `thiserror` enum, say) and says, once, which
//! [`ErrorKind`] each of its errors is ([`ToErrorKind`]). [`JsonRpcError`] carries that kind with the request's
//! id, and the guest's `map` renders it in a dialect: codes, messages, `data`, scrubbing and redaction are all
//! the guest's, so the response is byte for byte what the component would write.

use crate::kinds::{ErrorKind, Kind};
use crate::message::{ErrorObject, Id, Request, Response};
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::taxonomy::Dialect;
use jsonrpc_errors_guest::{api, guard::oplog::for_operator};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::error::Error;
use std::fmt;

/// How a domain error is answered: the one decision an application makes about each of its errors.
///
/// Put into the kind's fields what the client may learn (a tool name, a field name, a short reason); the
/// guest scrubs every string anyway, and the error itself stays behind as [`JsonRpcError::source`] for the
/// server's log.
///
/// ```
/// use jsonrpc_errors::{ErrorKind, ToErrorKind};
///
/// #[derive(Debug, thiserror::Error)]
/// enum SkillError {
///     #[error("no skill named {0}")]
///     Unknown(String),
///     #[error("database unreachable: {0}")]
///     Database(String),
/// }
///
/// impl ToErrorKind for SkillError {
///     fn to_error_kind(&self) -> ErrorKind {
///         match self {
///             SkillError::Unknown(name) => ErrorKind::UnknownSkill { skill: name.clone() },
///             // The database's words stay in the log: the client learns only that the backend is down.
///             SkillError::Database(_) => ErrorKind::BackendUnavailable,
///         }
///     }
/// }
/// ```
pub trait ToErrorKind {
    fn to_error_kind(&self) -> ErrorKind;
}

/// A canonical JSON-RPC error on its way to a client: the kind, the request it answers, the dialect it is
/// written in, and the domain error it came from (never sent).
///
/// Any error that implements [`ToErrorKind`] converts into one with `?`; attach the request's id with
/// [`with_id`](Self::with_id) where the request is known, and send [`render`](Self::render)'s text (or, with
/// the `axum` feature, return the error from a handler).
pub struct JsonRpcError(Box<Parts>);

/// Boxed: a `Result<T, JsonRpcError>` stays one pointer wide however many fields a kind has.
struct Parts {
    kind: ErrorKind,
    id: Id,
    dialect: Dialect,
    correlation_id: String,
    dialect_fields: Map<String, Value>,
    source: Option<Box<dyn Error + Send + Sync + 'static>>,
}

impl JsonRpcError {
    /// An error of `kind`, answering no particular request yet (id null), in the canonical dialect, with a
    /// fresh correlation id.
    pub fn new(kind: ErrorKind) -> Self {
        JsonRpcError(Box::new(Parts {
            kind,
            id: Id::Null,
            dialect: Dialect::Canonical,
            correlation_id: call_context().correlation_id(),
            dialect_fields: Map::new(),
            source: None,
        }))
    }

    /// The canonical error for a domain error, which is kept as the [`source`](Error::source).
    pub fn from_domain<E: ToErrorKind + Error + Send + Sync + 'static>(error: E) -> Self {
        let mut this = JsonRpcError::new(error.to_error_kind());
        this.0.source = Some(Box::new(error));
        this
    }

    /// Answers the request with this id.
    pub fn with_id(mut self, id: impl Into<Id>) -> Self {
        self.0.id = id.into();
        self
    }

    /// Written in `dialect` (default: canonical).
    pub fn in_dialect(mut self, dialect: Dialect) -> Self {
        self.0.dialect = dialect;
        self
    }

    /// Carries this correlation id (a request id from a header, say) instead of a generated one, in the
    /// dialects that send one.
    pub fn with_correlation_id(mut self, correlation_id: impl Into<String>) -> Self {
        self.0.correlation_id = correlation_id.into();
        self
    }

    /// One of the dialect's generic fields (`suggestion` or `context` in `error-model`, `details` or
    /// `request_id` in `watchgate`; see `docs/codes.md`). A name the dialect does not define makes the
    /// error unrenderable: [`try_render`](Self::try_render) says why, [`render`](Self::render) falls back.
    pub fn with_dialect_field(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.0.dialect_fields.insert(name.into(), value.into());
        self
    }

    /// The kind with its fields.
    pub fn error_kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The kind without its fields (its code, category, retryability: see [`Kind`]).
    pub fn kind(&self) -> Kind {
        self.0.kind.kind()
    }

    /// The id of the request this answers.
    pub fn id(&self) -> &Id {
        &self.0.id
    }

    /// The dialect it is written in.
    pub fn dialect(&self) -> Dialect {
        self.0.dialect
    }

    /// The correlation id the response carries (in the dialects that send one): log it beside
    /// [`log_detail`](Self::log_detail) to find a client's report in the server's log.
    pub fn correlation_id(&self) -> &str {
        &self.0.correlation_id
    }

    /// The domain error and its causes, one line, for the server's log: redacted as the guard redacts what it
    /// logs (secrets, credentials and personal data go; paths and stack traces stay for the operator) and cut
    /// to a bounded size. `None` for an error made from a bare kind.
    pub fn log_detail(&self) -> Option<String> {
        let source = self.0.source.as_deref()?;
        let mut text = source.to_string();
        let mut cause = source.source();
        while let Some(c) = cause {
            text.push_str(": ");
            text.push_str(&c.to_string());
            cause = c.source();
        }
        Some(for_operator(&text, &jsonrpc_errors_guest::environment()))
    }

    /// The response, rendered by the guest; or why the guest refused to render it (the kind is not defined in
    /// the dialect, or a dialect field is unknown), as the error object the guest words it with.
    pub fn try_render(&self) -> Result<Rendered, ErrorObject> {
        render_input(
            &self.0.kind,
            &self.map_envelope(),
            self.0.dialect,
            &call_context(),
        )
    }

    /// The response, rendered by the guest. An error the dialect cannot express (see
    /// [`try_render`](Self::try_render)) is answered as `internal-error` instead, with the same id and
    /// correlation id: the client still gets exactly one well-formed answer.
    pub fn render(&self) -> Rendered {
        let ctx = call_context();
        render_input(&self.0.kind, &self.map_envelope(), self.0.dialect, &ctx).unwrap_or_else(
            |_| {
                let fallback = ErrorKind::InternalError { details: None };
                let envelope = MapEnvelope {
                    dialect_fields: Map::new(),
                    ..self.map_envelope()
                };
                render_input(&fallback, &envelope, self.0.dialect, &ctx).unwrap_or_else(|_| {
                    // internal-error is defined in every dialect; should rendering fail anyway, a plain -32603.
                    let plain = jsonrpc_errors_guest::error::ErrorObject::internal();
                    let response =
                        jsonrpc_errors_guest::error::error_response(&plain, self.0.id.to_value());
                    Rendered {
                        json: response.to_string(),
                    }
                })
            },
        )
    }

    fn map_envelope(&self) -> MapEnvelope {
        MapEnvelope {
            id: self.0.id.to_value(),
            correlation_id: Some(self.0.correlation_id.clone()),
            timestamp: None,
            dialect_fields: self.0.dialect_fields.clone(),
        }
    }
}

impl From<ErrorKind> for JsonRpcError {
    fn from(kind: ErrorKind) -> Self {
        JsonRpcError::new(kind)
    }
}

/// `?` turns a domain error into the canonical one.
impl<E: ToErrorKind + Error + Send + Sync + 'static> From<E> for JsonRpcError {
    fn from(error: E) -> Self {
        JsonRpcError::from_domain(error)
    }
}

impl fmt::Debug for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonRpcError")
            .field("kind", &self.0.kind)
            .field("id", &self.0.id)
            .field("dialect", &self.0.dialect)
            .field("correlation_id", &self.0.correlation_id)
            .field("source", &self.0.source)
            .finish()
    }
}

/// The kind's name, then the domain error's own words: this is what the server sees, not the client.
impl fmt::Display for JsonRpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.source {
            Some(source) => write!(f, "{}: {source}", self.kind()),
            None => write!(f, "{}", self.kind()),
        }
    }
}

impl Error for JsonRpcError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|e| e as &(dyn Error + 'static))
    }
}

/// A response exactly as the guest wrote it: send [`as_str`](Self::as_str) as the body. In most dialects it is
/// an error response; in `mcp` a tool's failure is a result with `isError`, and in `error-model` a domain
/// error is a result whose `error` member carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    json: String,
}

impl Rendered {
    /// The response's JSON text.
    pub fn as_str(&self) -> &str {
        &self.json
    }

    pub fn into_string(self) -> String {
        self.json
    }

    /// The response as a typed value.
    pub fn to_response(&self) -> Response {
        serde_json::from_str(&self.json).expect("the guest writes well-formed responses")
    }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.json)
    }
}

impl Request {
    /// Reads one request from a body (an HTTP POST's, say) as the guest's `validate` checks it: a body that is
    /// not JSON is answered -32700, one that is not a JSON-RPC request (version, `method`, id and params types,
    /// a member given twice, a batch) -32600 with `data.reason`, both rendered in `dialect`. A batch is refused
    /// here; a server that takes batches calls `jsonrpc_errors_guest::api::validate` itself.
    pub fn parse(body: &[u8], dialect: Dialect) -> Result<Request, Rendered> {
        Request::parse_at(body, dialect, &call_context())
    }

    /// [`Request::parse`] at the time and with the randomness of `ctx`.
    pub(crate) fn parse_at(
        body: &[u8],
        dialect: Dialect,
        ctx: &CallContext,
    ) -> Result<Request, Rendered> {
        let args = api::ValidateArgs {
            dialect: dialect.name(),
            ..Default::default()
        };
        let verdict = match api::validate(body, &args, ctx) {
            Ok(text) => text,
            // Only an unknown dialect or batch policy fails the call, and both are fixed above.
            Err(_) => {
                return Err(
                    JsonRpcError::new(ErrorKind::InternalError { details: None })
                        .in_dialect(dialect)
                        .render(),
                )
            }
        };
        let valid = serde_json::from_str::<Value>(&verdict)
            .is_ok_and(|v| v.get("valid") == Some(&Value::Bool(true)));
        if !valid {
            return Err(Rendered { json: verdict });
        }
        serde_json::from_slice(body).map_err(|e| {
            // The guest's checks are the stricter ones; this is only reached if serde disagrees with them.
            let kind = ErrorKind::InvalidRequest {
                reason: None,
                details: Some(e.to_string()),
            };
            JsonRpcError::new(kind).in_dialect(dialect).render()
        })
    }
}

impl Request {
    /// The params read as the method's own type; absent params read as `null` (so `Option<T>` takes them).
    /// Params that do not fit are the client's error: `invalid-params`, with serde's words as `details`
    /// (scrubbed by the guest like every string that leaves), answering this request.
    pub fn params<T: DeserializeOwned>(&self) -> Result<T, JsonRpcError> {
        let text = self.params.as_deref().map_or("null", RawValue::get);
        serde_json::from_str(text).map_err(|e| {
            let kind = ErrorKind::InvalidParams {
                param: None,
                expected: None,
                received: None,
                accepted: None,
                details: Some(e.to_string()),
            };
            let error = JsonRpcError::new(kind);
            match &self.id {
                Some(id) => error.with_id(id.clone()),
                None => error,
            }
        })
    }
}

/// What the guest's map input carries beside the kind's own fields.
pub(crate) struct MapEnvelope {
    pub(crate) id: Value,
    pub(crate) correlation_id: Option<String>,
    pub(crate) timestamp: Option<String>,
    pub(crate) dialect_fields: Map<String, Value>,
}

/// The one call into the guest's `map`: the typed kind serialized as its map input, the envelope beside it.
pub(crate) fn render_input(
    kind: &ErrorKind,
    envelope: &MapEnvelope,
    dialect: Dialect,
    ctx: &CallContext,
) -> Result<Rendered, ErrorObject> {
    let Ok(Value::Object(mut input)) = serde_json::to_value(kind) else {
        unreachable!("an ErrorKind serializes as an object");
    };
    // A kind's own field wins over a dialect field of the same name, as in the guest's JSON form.
    for (name, value) in &envelope.dialect_fields {
        input.entry(name.clone()).or_insert_with(|| value.clone());
    }
    input.insert("id".into(), envelope.id.clone());
    if let Some(c) = &envelope.correlation_id {
        input.insert("correlation_id".into(), Value::String(c.clone()));
    }
    if let Some(t) = &envelope.timestamp {
        input.insert("timestamp".into(), Value::String(t.clone()));
    }
    api::map_error_value(&Value::Object(input), dialect.name(), ctx)
        .map(|json| Rendered { json })
        .map_err(|e| ErrorObject {
            code: e.code.into(),
            message: e.message,
            data: e.data,
        })
}

/// The clock and a random number the guest formats timestamps and correlation ids from (it has neither).
/// The randomness is std's per-process hash keys, freshly derived per call: enough to tell correlation ids
/// apart, and no dependency; nothing here needs to be unpredictable.
fn call_context() -> CallContext {
    use std::hash::BuildHasher;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let entropy = std::collections::hash_map::RandomState::new().hash_one(now.as_nanos());
    CallContext {
        unix_millis: now.as_millis() as u64,
        entropy,
    }
}
