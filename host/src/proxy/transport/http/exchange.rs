//! Streamable HTTP, both eras: a message's POST and what its response carries (202, JSON, or an SSE stream
//! ending with the answer, resumed with `Last-Event-ID` when the server closed it early), the session's GET
//! stream, re-opening a session the upstream lost (404), and the DELETE that ends it.

use super::legacy;
use super::link::{Fault, Link, Mode, Snapshot, SESSION_HEADER};
use super::message::{self, id_key, Inbound, Outbound};
use super::spec::Protocol;
use super::sse::Parser;
use super::wire::{is_json, is_message, is_sse, read_capped, read_message, retry_after, with_id};
use crate::proxy::io::Read;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Method, Response, StatusCode};
use jsonrpc_errors_host::guard::RequestFailure;
use std::sync::Arc;
use std::time::Duration;

const LAST_EVENT_ID: &str = "last-event-id";
/// How many times a response stream the server closed before its answer is resumed.
const RESUMPTIONS: usize = 3;
/// The longest wait before a resumption, whatever the stream's `retry` asks.
const MOST_RETRY: Duration = Duration::from_secs(5);
/// The largest error body read to find a JSON-RPC error in it (a longer one is no answer).
const ERROR_BODY_BYTES: usize = 64 * 1024;
/// The GET stream is opened again after it ends, at most this many times in a row without a message.
const GET_RETRIES: u32 = 5;
/// How long the DELETE that ends a session may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(5);

impl Link {
    /// One request's exchange: true once its answer was handed to the relay. `may_reopen`: a 404 to a request
    /// that named the session re-opens it and sends the request again (once).
    pub(super) async fn exchange(
        self: &Arc<Self>,
        body: Bytes,
        msg: &Outbound,
        may_reopen: bool,
    ) -> Result<bool, Fault> {
        let id = msg.id.as_deref().unwrap_or("null");
        let key = id_key(id);
        let initialize = msg.method.as_deref() == Some("initialize") && !msg.is_modern();
        if initialize {
            self.state().initialize = Some(body.clone());
        }
        let at = self.snapshot();
        let uri = self.spec.url.uri.clone();
        let req = self.build(Method::POST, &uri, Some(body.clone()), &at, Some(msg));
        let response = self
            .spec
            .client
            .request(req)
            .await
            .map_err(|e| Fault::unreachable(&e))?;
        let status = response.status();
        if status.is_success() {
            self.found(Mode::Streamable);
            if initialize {
                let session = response.headers().get(SESSION_HEADER).cloned();
                let mut s = self.state();
                s.session = session;
                s.generation += 1;
            }
        }
        if status == StatusCode::ACCEPTED {
            // A request answered with nothing: it will get no answer.
            return Err(Fault::refused(202, None));
        }
        if status.is_success() {
            return self.answer(response, &key, initialize, None).await;
        }
        let retry_after = retry_after(response.headers());
        if status == StatusCode::NOT_FOUND && at.session.is_some() && !msg.is_modern() {
            // The upstream lost the session this request named (whatever its body says): a new one, and the
            // request again; it was never handled, so it is not handled twice.
            if may_reopen && self.reopen(at.generation).await {
                return Box::pin(self.exchange(body, msg, false)).await;
            }
            return Err(Fault {
                failure: RequestFailure::SessionGone,
                detail: None,
            });
        }
        if is_json(response.headers()) {
            let bytes = read_capped(response.into_body(), ERROR_BODY_BYTES).await;
            if let Some(line) = bytes.and_then(|b| message::error_for(&b, id)) {
                // A server that speaks JSON-RPC over POST (whatever it thought of this request).
                self.found(Mode::Streamable);
                return Ok(self.deliver(Read::Line(line)).await);
            }
        }
        let first = matches!(self.state().mode, Mode::Unknown);
        if first
            && self.spec.protocol == Protocol::Mcp
            && at.session.is_none()
            && matches!(status.as_u16(), 400 | 404 | 405)
            && legacy::found(self).await
        {
            return legacy::request(self, body, msg).await;
        }
        Err(Fault::refused(status.as_u16(), retry_after))
    }

    /// A successful response to request `key`: its messages handed to the relay; true once its answer was.
    async fn answer(
        self: &Arc<Self>,
        response: Response<Incoming>,
        key: &str,
        initialize: bool,
        resumed: Option<&mut Parser>,
    ) -> Result<bool, Fault> {
        if is_sse(response.headers()) && self.spec.protocol == Protocol::A2a {
            // An A2A agent's event stream: each event a response under the request's id, as many as the agent
            // sends, read to its end (the session settles the request; closing the exchange cancels it). Its
            // end is reported as such (false), a cut as the exchange's fault.
            let mut parser = Parser::new(self.spec.max_upstream_bytes);
            self.events(response.into_body(), &mut parser, None, false)
                .await?;
            return Ok(false);
        }
        if is_sse(response.headers()) {
            let mut fresh = Parser::new(self.spec.max_upstream_bytes);
            let parser = resumed.unwrap_or(&mut fresh);
            let answered = self
                .events(response.into_body(), parser, Some(key), initialize)
                .await?
                .answered;
            if answered {
                return Ok(true);
            }
            return self.resume(parser, key, initialize).await;
        }
        if is_json(response.headers()) {
            let read = read_message(response.into_body(), self.spec.max_upstream_bytes)
                .await
                .map_err(|e| Fault::unreachable(&e))?;
            let answered = self.note(&read, key, initialize);
            self.deliver(read).await;
            return Ok(answered);
        }
        // Neither JSON nor an event stream (an HTML page from a proxy): never passed on.
        Err(Fault::refused(response.status().as_u16(), None))
    }

    /// Whether `read` answers request `key`; an `initialize` answer also names the agreed revision.
    fn note(&self, read: &Read, key: &str, initialize: bool) -> bool {
        let Read::Line(line) = read else {
            return false;
        };
        let answered = Inbound::peek(line).answers.as_deref() == Some(key);
        if answered && initialize {
            self.state().version = message::negotiated_version(line);
        }
        answered
    }

    /// Reads an event stream, handing each message to the relay. A request's stream (`key`) is read until its
    /// answer and no further: the stream ends there (the spec's server closes it), and one the server keeps
    /// open would otherwise hold its connection for as long as the server likes. An error while reading
    /// before the answer is the exchange's fault.
    async fn events(
        &self,
        mut body: Incoming,
        parser: &mut Parser,
        key: Option<&str>,
        initialize: bool,
    ) -> Result<Carried, Fault> {
        let mut carried = Carried::default();
        let mut out = Vec::new();
        loop {
            let frame = match body.frame().await {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    return match carried.answered {
                        true => Ok(carried),
                        false => Err(Fault::unreachable(&e)),
                    }
                }
                None => return Ok(carried),
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            parser.feed(&data, &mut out);
            for event in out.drain(..) {
                if !is_message(&event) {
                    continue;
                }
                if let Some(key) = key {
                    carried.answered |= self.note(&event.data, key, initialize);
                }
                carried.messages += 1;
                if !self.deliver(event.data).await {
                    // The relay is gone: nobody waits for anything more on this stream.
                    carried.answered = true;
                    return Ok(carried);
                }
            }
            if carried.answered {
                // Dropping the body closes the stream (and its connection, which is not reused).
                return Ok(carried);
            }
        }
    }

    /// A response stream the server closed before the answer: resumed from its last event id, if it gave
    /// ids (2025-11-25's polling), a few times; true once the answer came.
    async fn resume(
        self: &Arc<Self>,
        parser: &mut Parser,
        key: &str,
        initialize: bool,
    ) -> Result<bool, Fault> {
        for _ in 0..RESUMPTIONS {
            let Some(last) = parser.last_id.clone() else {
                return Ok(false);
            };
            let wait = parser
                .retry_ms
                .map_or(Duration::ZERO, Duration::from_millis)
                .min(MOST_RETRY);
            tokio::time::sleep(wait).await;
            let at = self.snapshot();
            let mut req = self.build(Method::GET, &self.spec.url.uri, None, &at, None);
            if let Ok(v) = HeaderValue::from_str(&last) {
                req.headers_mut().insert(LAST_EVENT_ID, v);
            }
            let response = self
                .spec
                .client
                .request(req)
                .await
                .map_err(|e| Fault::unreachable(&e))?;
            if !response.status().is_success() || !is_sse(response.headers()) {
                return Ok(false);
            }
            if self
                .events(response.into_body(), parser, Some(key), initialize)
                .await?
                .answered
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A notification or an answer: POSTed; 2xx is all it gets back (a body, if any, is read as messages).
    pub(super) async fn post_notification(
        self: &Arc<Self>,
        body: Bytes,
        msg: &Outbound,
    ) -> Result<(), Fault> {
        let at = self.snapshot();
        let req = self.build(Method::POST, &self.spec.url.uri, Some(body), &at, Some(msg));
        let response = self
            .spec
            .client
            .request(req)
            .await
            .map_err(|e| Fault::unreachable(&e))?;
        let status = response.status();
        if !status.is_success() {
            return Err(Fault::refused(
                status.as_u16(),
                retry_after(response.headers()),
            ));
        }
        if is_sse(response.headers()) {
            let mut parser = Parser::new(self.spec.max_upstream_bytes);
            self.events(response.into_body(), &mut parser, None, false)
                .await?;
        }
        if msg.method.as_deref() == Some("notifications/initialized") && at.session.is_some() {
            self.open_get();
        }
        Ok(())
    }

    /// Re-opens the upstream's session (the client's `initialize` again, under the guard's own id, then
    /// `notifications/initialized`), unless another request did since `generation`. True if a session is
    /// open now.
    async fn reopen(self: &Arc<Self>, generation: u64) -> bool {
        let _one = self.reopening.lock().await;
        let (current, init) = {
            let s = self.state();
            (s.generation, s.initialize.clone())
        };
        if current != generation {
            return self.state().session.is_some();
        }
        let Some(init) = init else { return false };
        let Some(line) = with_id(&init, "\"jsonrpc-errors-guard:reopen\"") else {
            return false;
        };
        self.stop_get();
        let blank = Snapshot {
            session: None,
            version: None,
            generation,
        };
        let req = self.build(
            Method::POST,
            &self.spec.url.uri,
            Some(Bytes::from(line)),
            &blank,
            Some(&Outbound {
                method: Some("initialize".into()),
                ..Outbound::default()
            }),
        );
        let Ok(response) = self.spec.client.request(req).await else {
            return false;
        };
        let session = response.headers().get(SESSION_HEADER).cloned();
        if !response.status().is_success() || session.is_none() {
            return false;
        }
        // Its answer is the guard's own: read here, never handed to the relay.
        let version = match own_answer(response, self.spec.max_upstream_bytes).await {
            Some(v) => v,
            None => return false,
        };
        {
            let mut s = self.state();
            s.session = session;
            s.version = Some(version).filter(|v| !v.is_empty()).or(s.version.take());
            s.generation += 1;
        }
        let initialized =
            Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let msg = Outbound {
            method: Some("notifications/initialized".into()),
            ..Outbound::default()
        };
        let reopened = self.post_notification(initialized, &msg).await.is_ok();
        tracing::info!(
            event = "session-reopened",
            "the upstream lost its session (HTTP 404); the guard opened a new one"
        );
        reopened
    }

    /// Opens the session's GET stream (what the server sends outside any request), replacing one open.
    fn open_get(self: &Arc<Self>) {
        let link = self.clone();
        let task = tokio::spawn(async move { link.get_stream().await });
        if let Some(old) = self
            .get
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .replace(task.abort_handle())
        {
            old.abort();
        }
    }

    pub(super) fn stop_get(&self) {
        if let Some(task) = self.get.lock().unwrap_or_else(|p| p.into_inner()).take() {
            task.abort();
        }
    }

    async fn get_stream(self: Arc<Self>) {
        let mut parser = Parser::new(self.spec.max_upstream_bytes);
        let mut failures = 0;
        while failures < GET_RETRIES {
            let at = self.snapshot();
            if at.session.is_none() {
                return;
            }
            let mut req = self.build(Method::GET, &self.spec.url.uri, None, &at, None);
            if let Some(v) = parser
                .last_id
                .as_deref()
                .and_then(|l| HeaderValue::from_str(l).ok())
            {
                req.headers_mut().insert(LAST_EVENT_ID, v);
            }
            match self.spec.client.request(req).await {
                // 405: the server offers no such stream; 404: the session is gone (a request re-opens it).
                Ok(r) if matches!(r.status().as_u16(), 404 | 405) => return,
                Ok(r) if r.status().is_success() && is_sse(r.headers()) => {
                    // Only a stream that carried something counts as working: one that ends at once,
                    // every time, is retried at most GET_RETRIES times in a row, as one refused is.
                    match self.events(r.into_body(), &mut parser, None, false).await {
                        Ok(carried) if carried.messages > 0 => failures = 0,
                        _ => failures += 1,
                    }
                }
                _ => failures += 1,
            }
            let wait = parser
                .retry_ms
                .map_or(Duration::from_secs(1), Duration::from_millis)
                .clamp(Duration::from_millis(100), MOST_RETRY);
            tokio::time::sleep(wait * (failures + 1)).await;
        }
    }

    /// The relay is done with the upstream: its session is ended (DELETE; 405 means it keeps no state).
    pub(super) async fn end(self: &Arc<Self>) {
        self.stop_get();
        legacy::close(self).await;
        let at = self.snapshot();
        if at.session.is_none() {
            return;
        }
        let req = self.build(Method::DELETE, &self.spec.url.uri, None, &at, None);
        let _ = tokio::time::timeout(DELETE_TIMEOUT, self.spec.client.request(req)).await;
    }
}

/// What an event stream carried, read to its end or to its request's answer.
#[derive(Default)]
struct Carried {
    /// The request's answer came (or nobody waits for it any more).
    answered: bool,
    /// Messages handed to the relay.
    messages: usize,
}

/// The answer to one of the guard's own requests (JSON, or the first answer on an event stream): the
/// revision it agreed on ("" if it named none); None if it was no result.
async fn own_answer(response: Response<Incoming>, cap: usize) -> Option<String> {
    let line = if is_sse(response.headers()) {
        let mut parser = Parser::new(cap);
        let mut body = response.into_body();
        let mut out = Vec::new();
        let mut found = None;
        while found.is_none() {
            let frame = body.frame().await?.ok()?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            parser.feed(&data, &mut out);
            found = out.drain(..).find_map(|e| match e.data {
                Read::Line(l) if is_message(&e) && Inbound::peek(&l).answers.is_some() => Some(l),
                _ => None,
            });
        }
        found?
    } else {
        match read_message(response.into_body(), cap).await.ok()? {
            Read::Line(l) => l,
            _ => return None,
        }
    };
    let value: serde_json::Value = serde_json::from_slice(&line).ok()?;
    value.get("result")?;
    Some(message::negotiated_version(&line).unwrap_or_default())
}
