//! The HTTP+SSE transport (MCP 2024-11-05), where a server still speaks only that: a GET opens an event
//! stream whose first event (`endpoint`) names where to POST; every message from the server, answers
//! included, comes on that stream, and a POST only says whether the message was taken (202).
//!
//! The server's session lives as long as its stream. When the stream ends, the requests posted and not yet
//! answered are the session's to answer (each `upstream-request-failed`), and the next message opens a new
//! stream, sending the client's `initialize` and `notifications/initialized` again first (their answers are
//! the guard's own, never handed to the relay).

use super::link::{Fault, Link, Mode};
use super::message::{id_key, Inbound, Outbound};
use super::sse::Parser;
use super::stream::Stream;
use super::wire::{is_message, is_sse, retry_after, with_id};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::Method;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the stream may take to name its endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(10);
/// The guard's own id for the `initialize` it sends again on a new stream.
const REOPEN_ID: &str = "\"jsonrpc-errors-guard:reopen\"";

/// Whether the upstream speaks HTTP+SSE: a GET opens an event stream that names an endpoint. If so the link
/// uses it from now on.
pub(super) async fn found(link: &Arc<Link>) -> bool {
    match open(link).await {
        Ok(stream) => {
            *link.legacy.lock().await = Some(stream);
            link.state().mode = Mode::Legacy;
            tracing::info!(
                event = "connected",
                "the upstream speaks the HTTP+SSE transport (2024-11-05)"
            );
            true
        }
        Err(_) => false,
    }
}

/// Opens an event stream and reads its endpoint; the rest of the stream is read by a task of its own.
async fn open(link: &Arc<Link>) -> Result<Arc<Stream>, Fault> {
    let at = link.snapshot();
    let req = link.build(Method::GET, &link.spec.url.uri, None, &at, None);
    let response = link
        .spec
        .client
        .request(req)
        .await
        .map_err(|e| Fault::unreachable(&e))?;
    if !response.status().is_success() || !is_sse(response.headers()) {
        return Err(Fault::refused(
            response.status().as_u16(),
            retry_after(response.headers()),
        ));
    }
    let mut body = response.into_body();
    let mut parser = Parser::new(link.spec.max_upstream_bytes);
    let endpoint = tokio::time::timeout(ENDPOINT_WAIT, async {
        let mut out = Vec::new();
        loop {
            let frame = body.frame().await?.ok()?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            parser.feed(&data, &mut out);
            if let Some(e) = out.iter().find(|e| e.kind == "endpoint") {
                if let crate::proxy::io::Read::Line(l) = &e.data {
                    return Some(String::from_utf8_lossy(l).into_owned());
                }
            }
        }
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| Fault::cut("the upstream's event stream named no endpoint"))?;
    let post = link
        .spec
        .url
        .resolve(&endpoint)
        .ok_or_else(|| Fault::cut("the upstream's endpoint is not on its own origin"))?;
    let stream = Arc::new(Stream {
        post,
        outstanding: Mutex::new(HashMap::new()),
        own: Mutex::new(HashSet::new()),
        alive: AtomicBool::new(true),
        reader: Mutex::new(None),
    });
    let task = tokio::spawn(read(link.clone(), stream.clone(), body, parser));
    *stream.reader.lock().unwrap_or_else(|p| p.into_inner()) = Some(task.abort_handle());
    Ok(stream)
}

/// Hands every message of the stream to the relay; when it ends, what was posted and not answered is
/// answered by the session.
async fn read(link: Arc<Link>, stream: Arc<Stream>, mut body: Incoming, mut parser: Parser) {
    let mut out = Vec::new();
    let why = loop {
        let frame = match body.frame().await {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => break super::client::describe(&e).reason,
            None => break "the upstream's event stream ended".to_string(),
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        parser.feed(&data, &mut out);
        for event in out.drain(..) {
            if !is_message(&event) {
                continue;
            }
            if let crate::proxy::io::Read::Line(line) = &event.data {
                if let Some(key) = Inbound::peek(line).answers {
                    if stream
                        .own
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&key)
                    {
                        continue;
                    }
                    stream
                        .outstanding
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&key);
                }
            }
            if !link.deliver(event.data).await {
                return;
            }
        }
    };
    stream.alive.store(false, Ordering::Release);
    let orphans: Vec<String> = stream
        .outstanding
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .drain()
        .map(|(_, id)| id)
        .collect();
    for id in orphans {
        link.failed(&id, Fault::cut(&why), None).await;
    }
}

/// The stream to post on: the current one, or (once it ended) a new one with the session opened again.
async fn current(link: &Arc<Link>) -> Result<Arc<Stream>, Fault> {
    let mut slot = link.legacy.lock().await;
    if let Some(stream) = slot.as_ref().filter(|s| s.alive.load(Ordering::Acquire)) {
        return Ok(stream.clone());
    }
    let stream = open(link).await?;
    let init = link.state().initialize.clone();
    if let Some(init) = init.and_then(|i| with_id(&i, REOPEN_ID)) {
        stream
            .own
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id_key(REOPEN_ID));
        post(link, &stream, Bytes::from(init)).await?;
        let initialized =
            Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        post(link, &stream, initialized).await?;
    }
    *slot = Some(stream.clone());
    Ok(stream)
}

async fn post(link: &Arc<Link>, stream: &Stream, body: Bytes) -> Result<(), Fault> {
    let at = link.snapshot();
    let req = link.build(Method::POST, &stream.post, Some(body), &at, None);
    let response = link
        .spec
        .client
        .request(req)
        .await
        .map_err(|e| Fault::unreachable(&e))?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(Fault::refused(
            status.as_u16(),
            retry_after(response.headers()),
        ))
    }
}

/// A request: posted; its answer comes on the stream (true: it is on its way, or the stream's end answers
/// it).
pub(super) async fn request(link: &Arc<Link>, body: Bytes, msg: &Outbound) -> Result<bool, Fault> {
    if msg.method.as_deref() == Some("initialize") {
        link.state().initialize = Some(body.clone());
    }
    let stream = current(link).await?;
    let id = msg.id.clone().unwrap_or_default();
    let key = id_key(&id);
    stream
        .outstanding
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key.clone(), id);
    match post(link, &stream, body).await {
        Ok(()) => Ok(true),
        Err(fault) => {
            let mine = stream
                .outstanding
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&key)
                .is_some();
            // Already answered on the stream (or by its end): nothing more is owed.
            if mine {
                Err(fault)
            } else {
                Ok(true)
            }
        }
    }
}

/// A notification or an answer: posted.
pub(super) async fn notify(link: &Arc<Link>, body: Bytes) -> Result<(), Fault> {
    let stream = current(link).await?;
    post(link, &stream, body).await
}

/// Ends the stream, if one is open (the server's session goes with it).
pub(super) async fn close(link: &Arc<Link>) {
    if let Some(stream) = link.legacy.lock().await.take() {
        stream.alive.store(false, Ordering::Release);
        if let Some(task) = stream
            .reader
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            task.abort();
        }
    }
}
