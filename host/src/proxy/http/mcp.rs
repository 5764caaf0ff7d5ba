//! The MCP endpoint: POST, GET and DELETE of both eras, chosen per request by `MCP-Protocol-Version`.

use super::body::{self, json, shape, sse, Held, Shape, PING_EVERY};
use super::front::Front;
use super::headers::{self, Broken, VERSION_HEADER};
use super::routes::Abort;
use super::security::Refusal;
use super::sessions::{self, short};
use super::shared::{self, HANDSHAKE, MODERN};
use super::upstream::{Handshake, Upstream};
use crate::proxy::io::{Outgoing, Read, EDGE_BYTES};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use jsonrpc_errors_host::kinds::{
    FrontUnavailableFields, HeaderMismatchFields, InvalidParamsFields, InvalidRequestFields,
    SessionRequiredFields, UnsupportedProtocolVersionFields,
};
use jsonrpc_errors_host::{ErrorKind, RequestMeta};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json as value, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SESSION_HEADER: &str = "mcp-session-id";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// 2026-07-28: one request per POST, no session.
    Modern,
    /// 2025-11-25 and earlier: `initialize`, `Mcp-Session-Id`.
    Legacy,
    /// A2A over JSON-RPC (`--upstream-protocol a2a`): one request per POST, no session; its errors go with
    /// HTTP 200, as A2A's JSON-RPC binding sends them.
    A2a,
}

/// An error the front answers itself (a taxonomy kind): rendered by the component in the session's dialect, as
/// every other answer is, and sent with the kind's HTTP status.
pub(super) fn refuse(front: &Front, id: Option<&RawValue>, kind: ErrorKind) -> Response {
    let status = StatusCode::from_u16(jsonrpc_errors_host::http_status(&kind))
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let render = |id: Option<&RawValue>| {
        let meta = RequestMeta {
            id_json: id.map(|raw| raw.get().to_string()),
            correlation_id: None,
            timestamp: None,
            dialect_fields_json: None,
        };
        front.children.runtime.map_error_kind(
            &kind,
            &meta,
            &front.children.dialect,
            jsonrpc_errors_host::Context::now(),
        )
    };
    // An id JSON-RPC does not allow (an object, say) is answered as null, as for a message that cannot be read.
    let rendered = render(id).or_else(|_| render(None));
    match rendered {
        Ok(body) => {
            // What the operator needs of a refusal: its kind, and why the front could not take the request.
            let detail = match &kind {
                ErrorKind::FrontUnavailable(fields) => fields.reason.as_str(),
                _ => "",
            };
            let kind = jsonrpc_errors_host::kind_name(&kind);
            tracing::info!(
                event = "http-refused",
                status = status.as_u16(),
                kind,
                detail,
                "the front refused a request"
            );
            json(status, body.into_bytes())
        }
        Err(failure) => {
            tracing::error!(event = "guard-failed", detail = %failure.message, "cannot render the front's refusal");
            json(
                StatusCode::INTERNAL_SERVER_ERROR,
                jsonrpc_errors_host::ErrorObject::internal()
                    .to_json()
                    .into_bytes(),
            )
        }
    }
}

pub(super) fn plain(status: StatusCode, why: &str) -> Response {
    tracing::debug!(event = "http-refused", status = status.as_u16(), "{why}");
    status.into_response()
}

/// Refused before anything was forwarded: the client (or a load balancer) may try again elsewhere.
pub(super) fn unavailable(front: &Front, why: &str) -> Response {
    let reason = why.to_string();
    let mut response = refuse(
        front,
        None,
        ErrorKind::FrontUnavailable(FrontUnavailableFields { reason }),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

pub(super) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether the `Accept` header takes `what` (an absent header takes anything).
fn accepts(headers: &HeaderMap, what: &str) -> bool {
    match headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) {
        None => true,
        Some(accept) => accept.split(',').any(|part| {
            let media = part
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            media == what
                || media == "*/*"
                || (media == "application/*" && what.starts_with("application/"))
                || (media == "text/*" && what.starts_with("text/"))
        }),
    }
}

/// Whether the client named in `Accept` only things the front cannot send (a stricter client than this
/// gets 406).
fn accepts_neither(headers: &HeaderMap) -> bool {
    !accepts(headers, "application/json") && !accepts(headers, "text/event-stream")
}

pub async fn endpoint(State(front): State<Arc<Front>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(refused) = access_refused(&front, &parts.headers) {
        return refused;
    }
    let versions: Vec<&str> = parts
        .headers
        .get_all(VERSION_HEADER)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    match versions.first().copied() {
        Some(v) if MODERN.contains(&v) => modern(front, parts, body).await,
        Some(v) if !HANDSHAKE.contains(&v) => {
            let supported: Vec<&str> = HANDSHAKE.iter().chain(MODERN).copied().collect();
            let (supported, requested) = (
                supported.iter().map(|s| s.to_string()).collect(),
                v.to_string(),
            );
            refuse(
                &front,
                None,
                ErrorKind::UnsupportedProtocolVersion(UnsupportedProtocolVersionFields {
                    supported,
                    requested,
                }),
            )
        }
        _ => legacy(front, parts, body).await,
    }
}

/// The front's access rules (Origin, Host, the client's token), or None when they hold.
pub(super) fn access_refused(front: &Front, headers: &HeaderMap) -> Option<Response> {
    let refusal = front.access.check(headers).err()?;
    Some(match refusal {
        Refusal::Origin => plain(StatusCode::FORBIDDEN, "Origin not allowed"),
        Refusal::Host => plain(StatusCode::FORBIDDEN, "Host is not a loopback name"),
        Refusal::HostRepeated => plain(StatusCode::BAD_REQUEST, "more than one Host field"),
        Refusal::Token => {
            let mut r = plain(StatusCode::UNAUTHORIZED, "bearer token missing or wrong");
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            r
        }
    })
}

/// A request body as read: whole, or over `--max-bytes` (its first bytes kept for the session to read the
/// id from).
pub(super) enum Read_ {
    Whole(Vec<u8>),
    Oversize { length: u64, head: Vec<u8> },
}

/// How long a request body may take to arrive, in all (a body trickling a byte at a time is cut too).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Reads a request body until `deadline` (408 past it, the connection closed: the rest is not read).
pub(super) async fn read_body(
    body: Body,
    cap: usize,
    headers: &HeaderMap,
    deadline: Instant,
) -> Result<Read_, Response> {
    let declared =
        header_str(headers, header::CONTENT_LENGTH.as_str()).and_then(|v| v.parse::<u64>().ok());
    let limit = if declared.is_some_and(|d| d > cap as u64) {
        EDGE_BYTES
    } else {
        cap
    };
    let mut body = body;
    let mut bytes = Vec::new();
    let mut total: u64 = 0;
    loop {
        let frame = match tokio::time::timeout_at(deadline.into(), body.frame()).await {
            Ok(Some(Ok(frame))) => frame,
            Ok(None) => break,
            Ok(Some(Err(_))) => {
                return Err(closing(plain(
                    StatusCode::BAD_REQUEST,
                    "the request body could not be read",
                )))
            }
            Err(_) => {
                return Err(closing(plain(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request body did not arrive in time",
                )))
            }
        };
        if let Ok(data) = frame.into_data() {
            total += data.len() as u64;
            let room = (limit + 1).saturating_sub(bytes.len()).min(data.len());
            bytes.extend_from_slice(&data[..room]);
            if total > limit as u64 {
                break;
            }
        }
    }
    if total > cap as u64 || declared.is_some_and(|d| d > cap as u64) {
        bytes.truncate(EDGE_BYTES);
        return Ok(Read_::Oversize {
            length: declared.unwrap_or(total).max(total),
            head: bytes,
        });
    }
    Ok(Read_::Whole(bytes))
}

/// A response after which the connection is closed (what is left of the request is not read).
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// An empty (or whitespace-only) body is no message, and no line the session would answer: the component's
/// parse error, 400, at once.
pub(super) fn blank(front: &Front, bytes: &[u8]) -> Option<Response> {
    if !bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let options = jsonrpc_errors_host::ValidateOptions {
        dialect: front.children.dialect.clone(),
        ..Default::default()
    };
    let body = match front.children.runtime.validate(bytes, &options, jsonrpc_errors_host::Context::now()) {
        Ok(text) if !text.contains("\"valid\":true") => text,
        _ => value!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}).to_string(),
    };
    tracing::info!(
        event = "http-refused",
        status = 400,
        "an empty request body"
    );
    Some(json(StatusCode::BAD_REQUEST, body.into_bytes()))
}

/// A body over `--max-bytes`, not read past its first bytes: the component's oversize error (413), and the
/// connection closed (the rest of the body is not read). The session's `client-oversize` would answer it
/// with the request's own id, but names no client stream for its answer.
pub(super) fn oversize(front: &Front, length: u64, head: &[u8]) -> Response {
    let options = jsonrpc_errors_host::ValidateOptions {
        max_bytes: Some(front.max_bytes as u64),
        content_length: Some(length),
        dialect: front.children.dialect.clone(),
        ..Default::default()
    };
    let body = match front.children.runtime.validate(head, &options, jsonrpc_errors_host::Context::now()) {
        Ok(text) if !text.contains("\"valid\":true") => text,
        _ => value!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request", "data": {"reason": "oversize"}}}).to_string(),
    };
    tracing::info!(
        event = "http-refused",
        status = 413,
        length,
        "a request body over --max-bytes"
    );
    let mut response = json(StatusCode::PAYLOAD_TOO_LARGE, body.into_bytes());
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Checks what every POST must have: a JSON body the client may be answered to.
pub(super) fn check_post(front: &Front, parts: &Parts) -> Option<Response> {
    if accepts_neither(&parts.headers) {
        return Some(plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept names neither application/json nor text/event-stream",
        ));
    }
    let content_type = header_str(&parts.headers, header::CONTENT_TYPE.as_str()).unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        // The component says what is wrong with it (`validate`'s content-type rule).
        let options = jsonrpc_errors_host::ValidateOptions {
            content_type: Some(content_type.to_string()),
            dialect: front.children.dialect.clone(),
            ..Default::default()
        };
        let body =
            front
                .children
                .runtime
                .validate(b"{}", &options, jsonrpc_errors_host::Context::now());
        let body = match body {
            Ok(text) if !text.contains("\"valid\":true") => text,
            _ => value!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request", "data": {"reason": "content-type"}}}).to_string(),
        };
        tracing::info!(
            event = "http-refused",
            status = 415,
            "Content-Type is not application/json"
        );
        return Some(json(StatusCode::UNSUPPORTED_MEDIA_TYPE, body.into_bytes()));
    }
    None
}

async fn modern(front: Arc<Front>, parts: Parts, body: Body) -> Response {
    if parts.method != Method::POST {
        let mut r = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "stateless requests are POSTs",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    if front.draining() {
        return unavailable(&front, "the guard is shutting down");
    }
    if let Some(refused) = check_post(&front, &parts) {
        return refused;
    }
    let at = Instant::now();
    let read = match read_body(body, front.max_bytes, &parts.headers, at + BODY_TIMEOUT).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let bytes = match read {
        Read_::Oversize { length, head } => return oversize(&front, length, &head),
        Read_::Whole(bytes) => bytes,
    };
    if let Some(refused) = blank(&front, &bytes) {
        return refused;
    }
    let Some(up) = front
        .shared
        .ensure(&front.children, || front.draining())
        .await
    else {
        return unavailable(&front, "no upstream");
    };
    let handshake = shared::connected(&up).await;
    let shape = shape(&bytes);
    match shape {
        // No client-to-server notifications on this wire (a request is cancelled by closing its stream).
        Shape::Notification => return StatusCode::ACCEPTED.into_response(),
        // A request, or what might be one (the session judges the rest): the header rules hold first.
        Shape::Request | Shape::Other => {
            if let Some(refused) = modern_headers(&front, &parts.headers, &bytes) {
                return refused;
            }
            if let Handshake::Legacy(init) = &handshake {
                if shared::ANSWER_DISCOVER_FROM_HANDSHAKE {
                    if let Some(answer) = discover_from_handshake(&bytes, init) {
                        return answer;
                    }
                }
            }
        }
        _ => {}
    }
    let sse_ok = accepts_sse_explicitly(&parts.headers);
    let owed = owed(shape, &bytes);
    let len = bytes.len();
    exchange(
        &front,
        &parts,
        up,
        Read::Line(bytes),
        len,
        at,
        owed,
        sse_ok,
        Era::Modern,
    )
    .await
}

fn accepts_sse_explicitly(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.to_ascii_lowercase().contains("text/event-stream"))
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    method: Option<String>,
}

/// The stateless revision's header rules ([`headers::check`]): HTTP 400 with the refusal, none for a
/// request that keeps them.
fn modern_headers(front: &Front, headers: &HeaderMap, bytes: &[u8]) -> Option<Response> {
    // Not UTF-8: checked as the session will read it (it refuses what it cannot decode). Valid UTF-8 (nearly
    // every body) is checked by the faster validator and borrowed.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    let (id, broken) = headers::check(headers, &text).err()?;
    Some(match broken {
        Broken::Mismatch(details) => refuse(
            front,
            id,
            ErrorKind::HeaderMismatch(HeaderMismatchFields { details }),
        ),
        Broken::Meta(details) => refuse(
            front,
            id,
            ErrorKind::InvalidParams(InvalidParamsFields {
                param: None,
                expected: None,
                received: None,
                accepted: None,
                details: Some(details),
            }),
        ),
        // A member given twice: the component's refusal of one, as the session would answer it.
        Broken::Repeated(details) => refuse(
            front,
            id,
            ErrorKind::InvalidRequest(InvalidRequestFields {
                reason: Some("duplicate-member".into()),
                details: Some(details),
            }),
        ),
    })
}

/// `server/discover` for a child that needed `initialize`: answered from the front's handshake.
fn discover_from_handshake(bytes: &[u8], init: &Value) -> Option<Response> {
    let envelope = serde_json::from_slice::<Envelope>(bytes).ok()?;
    if envelope.method.as_deref() != Some("server/discover") {
        return None;
    }
    let id: Value = serde_json::from_str(envelope.id?.get()).ok()?;
    let answer = value!({ "jsonrpc": "2.0", "id": id, "result": shared::discover_result(init) });
    Some(json(StatusCode::OK, answer.to_string().into_bytes()))
}

async fn legacy(front: Arc<Front>, parts: Parts, body: Body) -> Response {
    let session = header_str(&parts.headers, SESSION_HEADER).map(str::to_string);
    match parts.method {
        Method::GET => {
            let Some(id) = session else {
                return refuse(
                    &front,
                    None,
                    ErrorKind::SessionRequired(SessionRequiredFields { details: None }),
                );
            };
            if !accepts(&parts.headers, "text/event-stream") {
                return plain(
                    StatusCode::NOT_ACCEPTABLE,
                    "a GET stream is text/event-stream",
                );
            }
            let Some(up) = front.sessions.live(&id) else {
                return session_not_found(&front);
            };
            if front.draining() {
                return unavailable(&front, "the guard is shutting down");
            }
            let Some(slot) = Slot::open(
                &front,
                &up,
                parts.extensions.get::<Arc<super::front::Busy>>(),
            ) else {
                return unavailable(&front, "too many open streams");
            };
            let Some(rx) = up.open_own(aborter(&parts)) else {
                return plain(
                    StatusCode::CONFLICT,
                    "the session has a GET stream open already",
                );
            };
            sse(None, rx, GetStream(slot), false)
        }
        Method::DELETE => {
            let Some(id) = session else {
                return refuse(
                    &front,
                    None,
                    ErrorKind::SessionRequired(SessionRequiredFields { details: None }),
                );
            };
            if front
                .sessions
                .close(&front.metrics, &id, "the client ended it (DELETE)")
                .await
            {
                StatusCode::OK.into_response()
            } else {
                session_not_found(&front)
            }
        }
        Method::POST => legacy_post(front, parts, body, session).await,
        _ => {
            let mut r = plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "the MCP endpoint takes POST, GET and DELETE",
            );
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r
        }
    }
}

fn session_not_found(front: &Front) -> Response {
    refuse(front, None, ErrorKind::SessionNotFound)
}

async fn legacy_post(
    front: Arc<Front>,
    parts: Parts,
    body: Body,
    session: Option<String>,
) -> Response {
    if front.draining() {
        return unavailable(&front, "the guard is shutting down");
    }
    if let Some(refused) = check_post(&front, &parts) {
        return refused;
    }
    let at = Instant::now();
    let read = match read_body(body, front.max_bytes, &parts.headers, at + BODY_TIMEOUT).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    if let Read_::Whole(bytes) = &read {
        if let Some(refused) = blank(&front, bytes) {
            return refused;
        }
    }
    let sse_ok = accepts_sse_explicitly(&parts.headers);
    if let Some(id) = session {
        let Some(up) = front.sessions.live(&id) else {
            return session_not_found(&front);
        };
        return match read {
            Read_::Oversize { length, head } => oversize(&front, length, &head),
            Read_::Whole(bytes) => {
                let owed = owed(shape(&bytes), &bytes);
                let len = bytes.len();
                exchange(
                    &front,
                    &parts,
                    up,
                    Read::Line(bytes),
                    len,
                    at,
                    owed,
                    sse_ok,
                    Era::Legacy,
                )
                .await
            }
        };
    }
    // No session: only `initialize` opens one.
    let bytes = match read {
        Read_::Whole(bytes) => bytes,
        Read_::Oversize { length, head } => return oversize(&front, length, &head),
    };
    let initialize = serde_json::from_slice::<Envelope>(&bytes)
        .ok()
        .filter(|e| e.method.as_deref() == Some("initialize") && e.id.is_some());
    if initialize.is_none() {
        let details = Some("only initialize opens a session".to_string());
        return refuse(
            &front,
            None,
            ErrorKind::SessionRequired(SessionRequiredFields { details }),
        );
    }
    if !front.sessions.room(front.listen.max_sessions) {
        return unavailable(&front, "too many sessions");
    }
    let up = match Upstream::start(&front.children, false) {
        Ok(up) => up,
        Err(f) => {
            tracing::error!(event = "guard-failed", detail = %f, "cannot open a guard session");
            return unavailable(&front, "cannot open a guard session");
        }
    };
    let id = sessions::new_id();
    match front
        .sessions
        .insert(id.clone(), up.clone(), front.listen.max_sessions)
    {
        Ok(None) => {}
        Ok(Some((old, old_up))) => {
            front.metrics.session_evicted();
            tracing::info!(event = "session-closed", session = %short(&old), "legacy session closed: the least recently used with nothing open, for a new one at --max-sessions");
            tokio::spawn(async move { old_up.retire().await });
        }
        Err(()) => {
            up.retire().await;
            return unavailable(&front, "too many sessions");
        }
    }
    front.metrics.sessions().set(front.sessions.len() as i64);
    tracing::info!(event = "session-opened", session = %short(&id), "legacy session opened");
    let len = bytes.len();
    let mut response = exchange(
        &front,
        &parts,
        up,
        Read::Line(bytes),
        len,
        at,
        true,
        sse_ok,
        Era::Legacy,
    )
    .await;
    let failed =
        response.status() != StatusCode::OK || response.extensions().get::<Failed>().is_some();
    if failed {
        front
            .sessions
            .close(&front.metrics, &id, "its initialize failed")
            .await;
    } else if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

/// Marks a JSON response whose message is an error (an `initialize` that failed opens no session).
#[derive(Clone, Copy)]
struct Failed;

/// An open response stream: counted against `--max-streams`; when it goes before its answer (the client
/// left), the session is told (its requests are cancelled upstream).
pub(super) struct Slot {
    front: Arc<Front>,
    up: Arc<Upstream>,
    pub(super) stream: Option<u64>,
    pub(super) finished: bool,
    /// Keeps the connection watched for a client that leaves while the stream is open.
    _busy: Option<super::front::Held>,
}

impl Slot {
    pub(super) fn open(
        front: &Arc<Front>,
        up: &Arc<Upstream>,
        busy: Option<&Arc<super::front::Busy>>,
    ) -> Option<Slot> {
        if front.open_streams.fetch_add(1, Ordering::AcqRel) >= front.listen.max_streams {
            front.open_streams.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        front.metrics.streams().inc();
        up.open.fetch_add(1, Ordering::AcqRel);
        up.touch();
        Some(Slot {
            front: front.clone(),
            up: up.clone(),
            stream: None,
            finished: false,
            _busy: busy.map(super::front::Held::enter),
        })
    }
}

impl Held for Slot {
    fn finished(&mut self) {
        self.finished = true;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.front.open_streams.fetch_sub(1, Ordering::AcqRel);
        self.front.metrics.streams().dec();
        self.up.open.fetch_sub(1, Ordering::AcqRel);
        self.up.touch();
        if let Some(stream) = self.stream {
            if self.finished {
                self.up.close_stream(stream);
            } else {
                self.up.stream_gone(stream);
            }
        }
    }
}

/// What closes a response's connection should its client stop taking what it is sent.
pub(super) fn aborter(parts: &Parts) -> Option<Abort> {
    let busy = parts.extensions.get::<Arc<super::front::Busy>>()?.clone();
    Some(Box::new(move || busy.abort()))
}

/// A legacy session's GET stream (stream 0): nothing is owed on it, so its end cancels nothing.
struct GetStream(#[allow(dead_code)] Slot);

impl Held for GetStream {}

/// Whether a message is owed an answer: a request, a batch holding one, or anything the session has to
/// judge (it answers what it cannot read).
pub(super) fn owed(shape: Shape, bytes: &[u8]) -> bool {
    match shape {
        Shape::Request | Shape::Other => true,
        Shape::Batch => serde_json::from_slice::<Vec<&RawValue>>(bytes).map_or(true, |members| {
            members
                .iter()
                .any(|m| body::shape(m.get().as_bytes()) == Shape::Request)
        }),
        Shape::Notification | Shape::Response { .. } => false,
    }
}

/// The HTTP status of an answer written as `application/json`. In the stateless revision, MCP's table: an error
/// whose kind (the taxonomy's, for its code) is the client's fault gets that kind's 4xx status. In both eras, a
/// message the session refused at once as unreadable (a parse error, an invalid request) gets its 400. A2A
/// sends its errors with 200.
fn status_of(code: Option<i64>, immediate: bool, era: Era) -> StatusCode {
    let Some((kind, status)) = code.and_then(jsonrpc_errors_host::mcp_kind) else {
        return StatusCode::OK;
    };
    let applies = match era {
        Era::A2a => false,
        Era::Modern => true,
        Era::Legacy => immediate && matches!(kind, "parse-error" | "invalid-request"),
    };
    match StatusCode::from_u16(status) {
        Ok(status) if applies && status.is_client_error() => status,
        _ => StatusCode::OK,
    }
}

/// One message from the client on a stream of its own: handed to the session, and answered with what the
/// session sends to that stream (JSON for a lone answer, SSE when messages come before it and the client
/// takes SSE), or 202 when nothing is owed.
#[allow(clippy::too_many_arguments)]
pub(super) async fn exchange(
    front: &Arc<Front>,
    parts: &Parts,
    up: Arc<Upstream>,
    read: Read,
    len: usize,
    at: Instant,
    owed: bool,
    sse_ok: bool,
    era: Era,
) -> Response {
    let Some(mut slot) = Slot::open(
        front,
        &up,
        parts.extensions.get::<Arc<super::front::Busy>>(),
    ) else {
        return unavailable(front, "too many open streams");
    };
    let (stream, mut rx) = up.open_stream(aborter(parts));
    slot.stream = Some(stream);
    let ack = match up.submit(stream, read, len, at).await {
        Ok(ack) => ack,
        Err(_) => {
            slot.finished = true;
            return unavailable(front, "the session ended");
        }
    };
    let ack = match ack.await {
        Ok(ack) if !ack.broken => ack,
        _ => {
            slot.finished = true;
            let mut r = json(
                StatusCode::INTERNAL_SERVER_ERROR,
                jsonrpc_errors_host::ErrorObject::internal()
                    .to_json()
                    .into_bytes(),
            );
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    if ack.to_stream == 0 && !owed {
        slot.finished = true;
        return StatusCode::ACCEPTED.into_response();
    }
    let immediate = ack.to_stream > 0;
    // A lone answer goes as application/json, SSE only when messages come before it (or it is slow): the
    // Python SDK client refuses an SSE event over 1 MiB, and answers can be larger than that.
    let first: Option<Outgoing> = if sse_ok && !immediate {
        match tokio::time::timeout(PING_EVERY, rx.recv()).await {
            Ok(Some(out)) => Some(out),
            Ok(None) => return ended(slot),
            // Quiet for a while: commit to SSE (its pings keep the connection, and notice a client that left).
            Err(_) => return sse(None, rx, slot, true),
        }
    } else {
        rx.recv().await
    };
    let Some(first) = first else {
        return ended(slot);
    };
    // Read once: whether it ends the stream (an answer, or a batch's answers), and its error code.
    let first_shape = body::shape(&first.bytes);
    if matches!(first_shape, Shape::Response { .. } | Shape::Batch) {
        slot.finished = true;
        let code = match first_shape {
            Shape::Response { code } => code,
            _ => None,
        };
        let mut response = json(status_of(code, immediate, era), first.bytes);
        if code.is_some() {
            response.extensions_mut().insert(Failed);
        }
        return response;
    }
    if sse_ok {
        return sse(Some(first), rx, slot, true);
    }
    // A client that takes JSON only gets the answer alone.
    loop {
        match rx.recv().await {
            Some(out) if body::is_final(&out.bytes) => {
                slot.finished = true;
                return json(StatusCode::OK, out.bytes);
            }
            Some(_) => {}
            None => return ended(slot),
        }
    }
}

/// The relay ended without answering on this stream (the guard failed): 500, nothing more.
pub(super) fn ended(mut slot: Slot) -> Response {
    slot.finished = true;
    tracing::error!(event = "guard-failed", "a stream ended without its answer");
    json(
        StatusCode::INTERNAL_SERVER_ERROR,
        jsonrpc_errors_host::ErrorObject::internal()
            .to_json()
            .into_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that sends one byte every `every`, `n` times.
    fn trickle(every: Duration, n: usize) -> Body {
        let bytes = futures_util::stream::unfold(0, move |i| async move {
            if i == n {
                return None;
            }
            tokio::time::sleep(every).await;
            Some((
                Ok::<_, std::convert::Infallible>(bytes::Bytes::from_static(b" ")),
                i + 1,
            ))
        });
        Body::from_stream(bytes)
    }

    #[tokio::test]
    async fn a_body_has_a_total_deadline_however_it_trickles() {
        // Each byte well within any per-frame timeout; the body as a whole past its deadline.
        let started = Instant::now();
        let deadline = started + Duration::from_millis(400);
        let read = read_body(
            trickle(Duration::from_millis(50), 1_000),
            1 << 20,
            &HeaderMap::new(),
            deadline,
        )
        .await;
        let refused = read.err().expect("cut at the deadline");
        assert_eq!(refused.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(refused.headers()[header::CONNECTION], "close");
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(400) && took < Duration::from_secs(3),
            "{took:?}"
        );
        // A body that arrives in time is read whole.
        let read = read_body(
            trickle(Duration::from_millis(1), 5),
            1 << 20,
            &HeaderMap::new(),
            Instant::now() + Duration::from_secs(5),
        )
        .await;
        assert!(matches!(read, Ok(Read_::Whole(b)) if b == b"     "));
    }
}
