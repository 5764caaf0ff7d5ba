//! The HTTP front (`guard --listen HOST:PORT`): a stdio MCP server served as Streamable HTTP, both eras.
//!
//! - 2026-07-28 (stateless, chosen by `MCP-Protocol-Version`): each POST is one request on a stream of its
//!   own, to a child shared by every stateless client ([`shared`]); the front connects to that child once
//!   (`server/discover`, or `initialize` for a child that needs it, and answers `server/discover` from
//!   that handshake). A request's stream closing is its cancellation.
//! - 2025-11-25 and earlier: `initialize` opens a session (`Mcp-Session-Id`) with a child of its own
//!   ([`sessions`]), bounded by `--max-sessions` and ended after `--idle-timeout`; GET is its stream for the
//!   child's own messages, DELETE ends it, an unknown session is 404.
//!
//! Every child runs behind a relay ([`crate::proxy::core`]) on a guard session of its own: which message
//! goes to which client stream, renamed ids, answers to every open request when a child dies, timeouts
//! and cancellations are the session's. The front checks each HTTP request (origin, token, headers, sizes),
//! frames messages as JSON or SSE, and runs the children.

mod a2a;
mod body;
mod front;
mod headers;
pub mod listen;
mod mcp;
mod routes;
mod security;
mod sessions;
mod shared;
mod upstream;

use super::args::Args;
use super::config;
use super::metrics::Metrics;
use super::platform::{self, Signals};
use super::process::status;
use axum::extract::State;
use axum::http::Request as HttpRequest;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use front::{peer_gone, Busy, Front, Held};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use jsonrpc_errors_host::Runtime;
pub use listen::Listen;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify, Semaphore};

/// The MCP endpoint's path.
pub const PATH: &str = "/mcp";
/// Longest request head (request line and headers); a longer one is answered 431.
const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Most header fields in a request.
const MAX_HEADERS: usize = 64;
/// How long a connection may take to send a request head (an idle keep-alive connection too).
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause after a failed accept (out of descriptors, say): it fails again at once until something changes.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// Serves until SIGTERM (or SIGINT; SIGHUP without `--config`, with it SIGHUP reloads the policy file),
/// then drains; returns the guard's exit status.
pub async fn serve(args: Args, listen: Listen, runtime: Runtime, metrics: Arc<Metrics>) -> u8 {
    platform::raise_descriptor_limit();
    let listener = match bind(&listen.host, listen.port).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(event = "guard-failed", detail = %e, "cannot listen on {}:{}", listen.host, listen.port);
            return status::GUARD_FAILED;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            tracing::error!(event = "guard-failed", detail = %e, "cannot read the listening address");
            return status::GUARD_FAILED;
        }
    };
    let access = security::Access::new(
        listen.allowed_origins.clone(),
        bound.ip().is_loopback(),
        listen.token.as_deref(),
    );
    let front = Arc::new(Front {
        children: upstream::Children {
            runtime,
            session: args.session.clone(),
            dialect: args.settings.dialect.clone(),
            timeout: args.settings.timeout_ms.map(Duration::from_millis),
            transport: args.transport.clone(),
            grace: args.transport.grace(),
            metrics: metrics.clone(),
            live_relays: Arc::new(AtomicUsize::new(0)),
            relay_ended: Arc::new(Notify::new()),
            reloaded: std::sync::RwLock::new(None),
        },
        max_bytes: args.settings.max_bytes as usize,
        listen: listen.clone(),
        metrics: metrics.clone(),
        access,
        sessions: Arc::new(sessions::Sessions::default()),
        shared: shared::Shared::default(),
        draining: AtomicBool::new(false),
        open_streams: AtomicUsize::new(0),
    });
    // The shared child starts now, so `/readyz` tells whether it runs and answers.
    front
        .shared
        .ensure(&front.children, || front.draining())
        .await;
    tokio::spawn(
        front
            .sessions
            .clone()
            .reap(metrics.clone(), listen.idle_timeout),
    );
    {
        let front = front.clone();
        tokio::spawn(async move {
            front
                .shared
                .watch(&front.children, || front.draining())
                .await
        });
    }
    if a2a_upstream(&front) {
        tracing::info!(event = "listening", addr = %bound, "serving the A2A agent (JSON-RPC) on http://{bound}{}, its card at {}", a2a::PATH, a2a::CARD_PATH);
    } else {
        tracing::info!(event = "listening", addr = %bound, "serving MCP (Streamable HTTP) on http://{bound}{PATH}");
    }

    let router = router(front.clone());
    let (stop_tx, stop) = watch::channel(false);
    let accept = tokio::spawn(accept_loop(listener, router, front.clone(), stop.clone()));
    let mut signals = Signals::new();
    let name = loop {
        match (signals.recv().await, &args.config) {
            ("SIGHUP", Some(file)) => {
                if let Some(policy) = config::reload_policy(file, &front.children.runtime) {
                    front.reload(policy);
                }
            }
            (name, _) => break name,
        }
    };
    front.draining.store(true, Ordering::Release);
    let _ = stop_tx.send(true);
    tracing::info!(
        event = "signal",
        "received {name}; draining: no new connections or requests, answering what is open"
    );
    drain(&front, &mut signals).await;
    accept.abort();
    let code = 0;
    tracing::info!(
        event = "exit",
        status = code,
        "drained; guard exits with {code}"
    );
    code
}

/// Stops the children once what is open has been answered (or the deadline passed, or a second signal).
async fn drain(front: &Arc<Front>, signals: &mut Signals) {
    let children = &front.children;
    let deadline =
        Instant::now() + children.timeout.unwrap_or(Duration::from_secs(60)) + children.grace;
    // GET streams carry no answers: they end now, so their connections can close.
    for up in front.sessions.all() {
        up.close_own();
    }
    let mut hurried = false;
    while front.open_streams.load(Ordering::Acquire) > 0 && Instant::now() < deadline && !hurried {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(20)) => {}
            name = signals.recv() => {
                tracing::warn!(event = "signal", "received {name} while draining; stopping the children now");
                hurried = true;
            }
        }
    }
    for up in front.sessions.take_all() {
        up.retire().await;
    }
    if let Some(up) = front.shared.take() {
        up.retire().await;
    }
    let until = Instant::now() + children.grace * 2 + Duration::from_secs(2);
    while children.live_relays.load(Ordering::Acquire) > 0 && Instant::now() < until {
        let _ =
            tokio::time::timeout(Duration::from_millis(50), children.relay_ended.notified()).await;
    }
    // Answers the sessions wrote as their children stopped are on their way out.
    let until = Instant::now() + Duration::from_secs(2);
    while front.open_streams.load(Ordering::Acquire) > 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn router(front: Arc<Front>) -> Router {
    let router = if a2a_upstream(&front) {
        Router::new()
            .route(a2a::PATH, any(a2a::endpoint))
            .route(a2a::CARD_PATH, get(a2a::card))
    } else {
        Router::new().route(PATH, any(mcp::endpoint))
    };
    router
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .fallback(|| async { StatusCode::NOT_FOUND })
        .with_state(front)
}

/// Whether the upstream is an A2A agent (`--upstream-protocol a2a`).
fn a2a_upstream(front: &Front) -> bool {
    matches!(&front.children.transport, crate::proxy::transport::Spec::Http(spec)
        if spec.protocol == crate::proxy::transport::http::Protocol::A2a)
}

/// Ready: not draining, and the shared child runs and has answered the front's handshake.
async fn readyz(State(front): State<Arc<Front>>) -> Response {
    if front.draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    match front.shared.ready(&front.children) {
        Ok(()) => "ready\n".into_response(),
        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n")).into_response(),
    }
}

/// The labels a response is counted by (route, method; its status once answered). Requests are counted
/// before they are authenticated, so every label comes from a fixed set: a client choosing its method must
/// not make series without end. Counted in the connection's service, around the router: a middleware layer
/// cost a boxed future and a clone of the router's service per request.
fn count_labels<B>(request: &HttpRequest<B>) -> (&'static str, &'static str) {
    let route = match request.uri().path() {
        PATH => PATH,
        "/healthz" => "/healthz",
        "/readyz" => "/readyz",
        _ => "other",
    };
    (route, method_label(request.method()))
}

/// The method as a metrics label: the methods HTTP defines, else `other`.
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    front: Arc<Front>,
    stop: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(front.listen.max_connections));
    let mut accept_failed = false;
    let mut stopping = stop.clone();
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot { Ok(s) => s, Err(_) => return },
            _ = stopping.changed() => return,
        };
        let (stream, _peer): (tokio::net::TcpStream, SocketAddr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    if !accept_failed {
                        tracing::warn!(event = "accept-failed", detail = %e, "cannot accept a connection; retrying every {ACCEPT_RETRY:?}");
                        accept_failed = true;
                    }
                    tokio::time::sleep(ACCEPT_RETRY).await;
                    continue;
                }
            },
            _ = stopping.changed() => return,
        };
        accept_failed = false;
        let _ = stream.set_nodelay(true);
        let fd = platform::raw_socket(&stream);
        let busy = Arc::new(Busy::default());
        let service = {
            let busy = busy.clone();
            let metrics = front.metrics.clone();
            let router = router.clone();
            TowerToHyperService::new(tower::service_fn(
                move |mut request: HttpRequest<hyper::body::Incoming>| {
                    let held = Held::enter(&busy);
                    let (route, method) = count_labels(&request);
                    request.extensions_mut().insert(busy.clone());
                    let call = tower::ServiceExt::oneshot(
                        router.clone(),
                        request.map(axum::body::Body::new),
                    );
                    let metrics = metrics.clone();
                    async move {
                        let response = call.await;
                        if let Ok(response) = &response {
                            metrics.http_response(route, method, response.status().as_u16());
                        }
                        drop(held);
                        response
                    }
                },
            ))
        };
        let metrics = front.metrics.clone();
        let mut stop = stop.clone();
        let closing = busy.clone();
        tokio::spawn(async move {
            metrics.connections().inc();
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD_BYTES)
                .max_headers(MAX_HEADERS);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            let stopping = async move {
                let _ = stop.wait_for(|s| *s).await;
            };
            let finished = tokio::select! {
                _ = connection.as_mut() => true,
                _ = stopping => false,
                // The client went away while a request was open: the connection (and with it the handler and
                // the response stream) is dropped, which tells the session the stream is gone.
                _ = peer_gone(fd, busy) => true,
                // A response whose client stopped taking it (its stream stalled): the connection goes.
                _ = closing.aborted() => true,
            };
            if !finished {
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
            metrics.connections().dec();
            drop(slot);
        });
    }
}

/// Connections the kernel holds for the guard before it accepts them (capped by `net.core.somaxconn`): a
/// burst of connections waits there instead of having its SYNs dropped and retried seconds later.
const BACKLOG: u32 = 4096;

/// Binds the first address `host` resolves to that can be bound, with a deep accept queue.
async fn bind(host: &str, port: u16) -> std::io::Result<tokio::net::TcpListener> {
    let mut last = std::io::Error::new(
        std::io::ErrorKind::AddrNotAvailable,
        "the host resolved to no address",
    );
    for addr in tokio::net::lookup_host((host, port)).await? {
        let socket = match addr {
            SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
            SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
        };
        let bound = socket.and_then(|s| {
            platform::allow_rebind(&s)?;
            s.bind(addr)?;
            s.listen(BACKLOG)
        });
        match bound {
            Ok(listener) => return Ok(listener),
            Err(e) => last = e,
        }
    }
    Err(last)
}
