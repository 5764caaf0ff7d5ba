//! The upstream as a server at a URL: MCP's Streamable HTTP in both eras, and the legacy HTTP+SSE transport
//! (2024-11-05) where a server speaks only that. One [`Link`] per relay, that is per guard session: the
//! stdio front's one client, the HTTP front's shared stateless relay, or one of its legacy client sessions,
//! each with an upstream session of its own.
//!
//! - 2025-11-25 and earlier ([`exchange`]): each request is a POST whose response is JSON or an SSE stream
//!   ending with its answer; `initialize`'s response names the upstream's session (`Mcp-Session-Id`, kept
//!   here and never shown to a client), which every later request carries; the GET stream carries what the
//!   server sends outside any request; DELETE ends the session; a 404 to a request that named the session
//!   re-opens it (the client's `initialize` again) and sends the request once more, or, failing that, answers
//!   it.
//! - 2026-07-28: a request names its revision in `_meta`; it goes out with its own `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name`, and no session; a cancellation closes its response stream.
//! - HTTP+SSE ([`legacy`]): found when a first POST is refused and a GET opens an event stream whose first
//!   event names the endpoint to POST to; answers come on that stream.
//!
//! Every message read goes to the session as a line (holding the read budget until it is written, and cut
//! as a child's line is past `--max-upstream-bytes`); a request whose exchange ends without its answer is
//! the session's to answer (`upstream-request-failed`): refused, reset, DNS, TLS, a stream cut short, an HTTP
//! status with no JSON-RPC answer, a session that could not be re-opened. An A2A agent's event stream (its
//! streaming methods: many responses under one id) is read to its end, and that end reported
//! (`upstream-exchange-ended`); a cancellation closes such an exchange and is never sent to the agent. The
//! session answers each request once, whatever this transport reports twice.

pub mod card;
mod client;
mod exchange;
mod legacy;
mod link;
mod message;
mod spec;
mod sse;
mod stream;
pub mod url;
mod wire;

use super::report::{Ended, Exit, Handle, Report, StartFailed};
use crate::proxy::io::Outgoing;
use crate::proxy::metrics::Metrics;
use bytes::Bytes;
use jsonrpc_errors_host::guard::{Peer, RequestFailure};
use message::{id_key, Outbound};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};

pub use card::agent_card;
pub use client::read_ca;
use link::{Fault, Link, Mode};
pub use spec::{Protocol, Spec, A2A_VERSION};

/// How long a notification's (or an answer's) POST may take.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the next message waits for a notification's POST to be answered: messages go out in the order
/// the client sent them (its `notifications/initialized` before its next request), but an upstream that sits
/// on a notification may not stall everything after it. A server answers a notification at once (202).
const ORDER_WAIT: Duration = Duration::from_secs(1);

/// Starts the link to the upstream (no connection is made until the first message).
pub fn start(
    spec: Arc<Spec>,
    reports: mpsc::Sender<Report>,
    metrics: Arc<Metrics>,
) -> Result<Handle, StartFailed> {
    let (lines, rx) = mpsc::unbounded_channel::<Outgoing>();
    let (close, closed) = oneshot::channel();
    tracing::info!(event = "started", upstream = %spec.url.shown(), "upstream {} (HTTP)", spec.url.shown());
    let link = Arc::new(Link::new(spec, reports));
    let budget = link.budget.clone();
    tokio::spawn(run(link, rx, closed, metrics));
    Ok(Handle {
        lines,
        close,
        budget,
    })
}

/// A request: its exchange, and the session told if it ended without the answer.
async fn request(link: Arc<Link>, body: Bytes, msg: Outbound) {
    let Some(id) = msg.id.clone() else { return };
    let legacy = matches!(link.state().mode, Mode::Legacy);
    let outcome = if legacy {
        legacy::request(&link, body, &msg).await
    } else {
        link.exchange(body, &msg, true).await
    };
    match outcome {
        Ok(true) => {}
        // An A2A agent's response that ended with nothing more to come: the session settles what it streamed,
        // or answers what is still owed its answer.
        Ok(false) if link.spec.protocol == Protocol::A2a => link.ended(&id).await,
        Ok(false) => {
            link.failed(
                &id,
                Fault::cut("the upstream's response ended before its answer"),
                msg.method.as_deref(),
            )
            .await
        }
        Err(fault) => link.failed(&id, fault, msg.method.as_deref()).await,
    }
}

/// A notification or an answer to the upstream's own request: sent, in order; nobody is owed an answer
/// for it, so a failure is only logged.
async fn notify(link: &Arc<Link>, body: Bytes, msg: &Outbound) {
    let legacy = matches!(link.state().mode, Mode::Legacy);
    let sent = tokio::time::timeout(NOTIFY_TIMEOUT, async {
        if legacy {
            legacy::notify(link, body).await
        } else {
            link.post_notification(body, msg).await
        }
    })
    .await;
    let why = match sent {
        Ok(Ok(())) => return,
        Ok(Err(fault)) => match fault.failure {
            RequestFailure::Unreachable(reason) => reason,
            RequestFailure::Refused(refusal) => format!("HTTP {}", refusal.status),
            RequestFailure::SessionGone => "the upstream's session is gone".into(),
        },
        Err(_) => format!("no response within {}s", NOTIFY_TIMEOUT.as_secs()),
    };
    let _ = link
        .reports
        .send(Report::Log(format!(
            "{} to {} was not delivered: {why}",
            msg.method.as_deref().unwrap_or("an answer"),
            link.spec.url.shown()
        )))
        .await;
}

/// The link's main loop: messages from the relay are sent in order (a request on an exchange of its own);
/// when the relay stops the upstream, open exchanges get `grace` to finish, then the session is ended.
async fn run(
    link: Arc<Link>,
    mut lines: mpsc::UnboundedReceiver<Outgoing>,
    mut closed: oneshot::Receiver<()>,
    metrics: Arc<Metrics>,
) {
    // Each exchange's task, giving back its request's key (none for a notification's).
    let mut tasks: JoinSet<Option<String>> = JoinSet::new();
    let mut inflight: HashMap<String, (AbortHandle, bool)> = HashMap::new();
    loop {
        tokio::select! {
            biased;
            Some(done) = tasks.join_next(), if !tasks.is_empty() => {
                if let Ok(Some(key)) = done {
                    inflight.remove(&key);
                }
            }
            line = lines.recv() => match line {
                Some(out) => {
                    metrics.written(Peer::Upstream, out.forwarded);
                    if let Some(at) = out.read_at {
                        metrics.latency(Peer::Upstream, at.elapsed());
                    }
                    let msg = Outbound::peek(&out.bytes);
                    let body = Bytes::from(out.bytes);
                    if let Some(target) = &msg.cancels {
                        // The guard gave up on it (the client cancelled, left, or it timed out): its exchange
                        // is closed, which is the stateless revision's cancellation; a session's upstream
                        // is also sent the notification.
                        if let Some((handle, modern)) = inflight.remove(&id_key(target)) {
                            handle.abort();
                            if modern {
                                continue;
                            }
                        }
                        // An A2A agent knows no cancellation message: the closed exchange is all it gets.
                        if link.spec.protocol == Protocol::A2a {
                            continue;
                        }
                    }
                    if msg.is_request() {
                        let key = msg.id.as_deref().map(id_key).unwrap_or_default();
                        let modern = msg.is_modern();
                        let link = link.clone();
                        let task_key = key.clone();
                        let handle = tasks.spawn(async move {
                            request(link, body, msg).await;
                            Some(task_key)
                        });
                        if let Some((old, _)) = inflight.insert(key, (handle, modern)) {
                            // The session never sends an id in flight twice; if it did, the newer exchange wins.
                            old.abort();
                        }
                    } else {
                        let (sent, done) = oneshot::channel::<()>();
                        let link = link.clone();
                        tasks.spawn(async move {
                            notify(&link, body, &msg).await;
                            let _ = sent.send(());
                            None
                        });
                        let _ = tokio::time::timeout(ORDER_WAIT, done).await;
                    }
                }
                None => break,
            },
            _ = &mut closed => {
                // The relay stopped the upstream: what it queued before is still sent, within the grace below.
                while let Ok(out) = lines.try_recv() {
                    let msg = Outbound::peek(&out.bytes);
                    if !msg.is_request() && msg.cancels.is_none() {
                        let link = link.clone();
                        tasks.spawn(async move {
                            notify(&link, Bytes::from(out.bytes), &msg).await;
                            None
                        });
                    }
                }
                break;
            }
        }
    }
    link.stop_get();
    let grace = link.spec.grace;
    let _ = tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
    tasks.abort_all();
    link.end().await;
    let _ = link
        .reports
        .send(Report::Ended(Ended {
            code: 0,
            exit: Exit::Remote,
        }))
        .await;
}
