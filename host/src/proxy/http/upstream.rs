//! One upstream child behind the HTTP front: a relay ([`crate::proxy::core`]) on a guard session of its own,
//! and the routes from the session's client streams to the HTTP responses waiting for them.
//!
//! Each POST is a client stream of its own (numbered from 1); stream 0 is the session's own: a legacy
//! session's GET stream, where the upstream's messages that answer no request go. Which message goes to
//! which stream is the session's decision (`client-line-on`); [`super::routes`] hands the lines over, each
//! stream with a budget of its own.

use super::super::core::{
    self, Ack, ClientEvent, ClientPort, Liveness, PolicyText, RelayConfig, RelayState,
};
use super::super::io::{Budget, Outgoing, Read};
use super::super::metrics::Metrics;
use super::routes::{Abort, HttpSink, Routes};
use jsonrpc_errors_host::guard::Options;
use jsonrpc_errors_host::Runtime;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch, Notify};

/// What starting a child takes, and the children running: the part of the front that the children and
/// their registries ([`super::sessions`], [`super::shared`]) use. The front holds it; defined here, below
/// them, so that they are handed it and never import the front.
pub struct Children {
    pub runtime: Runtime,
    /// The guard session's options as the guard started (the policy as last reloaded aside).
    pub session: Options,
    /// The dialect the guard's own answers are written in, as the session resolved it (`Settings::dialect`).
    pub dialect: String,
    /// How long a request may wait for the upstream, as the session resolved it (`Settings::timeout_ms`);
    /// None: no limit.
    pub timeout: Option<Duration>,
    /// The upstream every child relay guards (a command, or a server at a URL).
    pub transport: crate::proxy::transport::Spec,
    /// How long an upstream gets to finish once stopped.
    pub grace: Duration,
    pub metrics: Arc<Metrics>,
    /// Relays running (each with its child), and a wake-up when one ends.
    pub live_relays: Arc<AtomicUsize>,
    pub relay_ended: Arc<Notify>,
    /// The policy file as last reloaded (SIGHUP with `--config`): new relays' sessions open with it.
    pub reloaded: RwLock<Option<Arc<PolicyText>>>,
}

impl Children {
    /// How long a child may owe an answer without writing a line (once a request of it timed out) before it
    /// counts as no longer answering: the guard's `--timeout`. None (`--timeout 0`): never.
    pub fn silence_bound(&self) -> Option<Duration> {
        self.timeout
    }

    /// The options a new relay's session opens with: the start's, with the policy as last reloaded.
    pub fn session_options(&self) -> Options {
        let mut options = self.session.clone();
        if let Some(policy) = self
            .reloaded
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            options.policy = Some(policy.text.clone());
            options.policy_env = policy.env.clone();
        }
        options
    }
}

/// How the front connected to a child it serves stateless requests from.
#[derive(Debug, Clone, PartialEq)]
pub enum Handshake {
    /// Not yet known.
    Pending,
    /// The child answers `server/discover` itself (it speaks the stateless revision).
    Modern,
    /// The child needed `initialize`: its result, from which the front answers `server/discover` (shared:
    /// every stateless request reads the handshake, and a copy of the result each cost a map clone).
    Legacy(Arc<serde_json::Value>),
    /// The child did not answer either (it failed, or died).
    Failed,
}

pub struct Upstream {
    port: ClientPort,
    routes: Arc<Mutex<Routes>>,
    state: watch::Receiver<RelayState>,
    next_stream: AtomicU64,
    budget: Budget,
    /// Set once the relay is retired: no line is handed to it after that (the gate orders the two).
    retired: tokio::sync::RwLock<bool>,
    pub started: Instant,
    /// Streams open on this child (POSTs waiting for their answer, and a GET stream).
    pub open: AtomicUsize,
    last_active: Mutex<Instant>,
    /// The shared child's (many clients'): never idle-closed nor evicted, so its activity is not kept (a
    /// lock and a clock read, three times per request).
    untracked: bool,
    pub handshake: watch::Sender<Handshake>,
    liveness: Arc<Liveness>,
}

/// The relay has ended, or was retired: the line was not handed over.
#[derive(Debug)]
pub struct Gone;

impl Upstream {
    /// Opens a fresh guard session and starts its relay (and so the child). `many_clients`: the shared
    /// child, whose streams are different clients' (the session isolates them: `many-clients` in
    /// wit/world.wit) and which has no stream of its own; otherwise a legacy session's child, whose messages
    /// for no request wait for its GET stream.
    pub fn start(
        children: &Children,
        many_clients: bool,
    ) -> Result<Arc<Upstream>, jsonrpc_errors_host::ErrorObject> {
        let options = Options {
            many_clients: many_clients.then_some(true),
            ..children.session_options()
        };
        let session = children.runtime.guard_session(&options)?;
        let own_stream = !many_clients;
        let (port, inbox) = core::inbox();
        let routes = Arc::new(Mutex::new(Routes::new(own_stream)));
        let (state_tx, state) = watch::channel(RelayState::Starting);
        let budget = Budget::new();
        let liveness = Liveness::new();
        let config = RelayConfig {
            transport: children.transport.clone(),
            client_budget: budget.clone(),
            linger: true,
            state: Some(state_tx),
            liveness: Some(liveness.clone()),
        };
        let sink = HttpSink {
            routes: routes.clone(),
            metrics: children.metrics.clone(),
        };
        let up = Arc::new(Upstream {
            port,
            routes: routes.clone(),
            state,
            next_stream: AtomicU64::new(1),
            budget,
            retired: tokio::sync::RwLock::new(false),
            started: Instant::now(),
            open: AtomicUsize::new(0),
            last_active: Mutex::new(Instant::now()),
            untracked: many_clients,
            handshake: watch::channel(Handshake::Pending).0,
            liveness,
        });
        let metrics = children.metrics.clone();
        let live = children.live_relays.clone();
        live.fetch_add(1, Ordering::AcqRel);
        let ended = children.relay_ended.clone();
        tokio::spawn(async move {
            let end = core::run(config, Box::new(session), inbox, Box::new(sink), metrics).await;
            drop(end);
            routes.lock().unwrap_or_else(|p| p.into_inner()).end();
            live.fetch_sub(1, Ordering::AcqRel);
            ended.notify_waiters();
        });
        Ok(up)
    }

    pub fn state(&self) -> RelayState {
        *self.state.borrow()
    }

    /// Whether the child is gone (its relay answers every line itself now).
    pub fn gone(&self) -> bool {
        matches!(self.state(), RelayState::UpstreamGone | RelayState::Ended)
    }

    /// Whether the child stopped answering: a request timed out, and it has owed an answer for `bound`
    /// without writing a line.
    pub fn unresponsive(&self, bound: Option<Duration>) -> bool {
        match (bound, self.liveness.silent_for()) {
            (Some(bound), Some(silent)) => silent >= bound,
            _ => false,
        }
    }

    pub fn touch(&self) {
        if self.untracked {
            return;
        }
        *self.last_active.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    pub fn idle_for(&self) -> std::time::Duration {
        self.last_active
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }

    /// A new client stream and the receiver of what the session sends to it. `abort`: what closes the
    /// stream's response should its client stop taking what it is sent.
    pub fn open_stream(&self, abort: Option<Abort>) -> (u64, mpsc::UnboundedReceiver<Outgoing>) {
        let stream = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.routes().open(stream, tx, abort);
        (stream, rx)
    }

    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A client stream whose request is answered with many responses (A2A's streaming methods): ended by the
    /// session's `end` step, each message held to the stream's budget.
    pub fn open_stream_of_many(
        &self,
        abort: Option<Abort>,
    ) -> (u64, mpsc::UnboundedReceiver<Outgoing>) {
        let stream = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        self.routes().open_many(stream, tx, abort);
        (stream, rx)
    }

    pub fn close_stream(&self, stream: u64) {
        self.routes().close(stream);
    }

    /// Stream 0 (a legacy session's GET stream): what was held for it, then what comes. None if one is
    /// open already.
    pub fn open_own(&self, abort: Option<Abort>) -> Option<mpsc::UnboundedReceiver<Outgoing>> {
        let mut routes = self.routes();
        if routes.own_open() {
            return None;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        routes.open_own(tx, abort);
        Some(rx)
    }

    /// Ends the GET stream, if one is open (the session ends, the guard drains).
    pub fn close_own(&self) {
        self.routes().close_own();
    }

    /// Hands a client line read at `at` to the session on `stream`; the receiver gets how it was disposed of.
    pub async fn submit(
        &self,
        stream: u64,
        read: Read,
        len: usize,
        at: Instant,
    ) -> Result<oneshot::Receiver<Ack>, Gone> {
        let retired = self.retired.read().await;
        if *retired {
            return Err(Gone);
        }
        let permit = self.budget.reserve(len).await;
        let (tx, rx) = oneshot::channel();
        self.touch();
        if !self
            .port
            .send(ClientEvent::Line {
                stream: Some(stream),
                read,
                at,
                permit,
                ack: Some(tx),
            })
            .await
        {
            return Err(Gone);
        }
        drop(retired);
        Ok(rx)
    }

    /// The client's stream went away before its answer: the session cancels what it had pending.
    pub fn stream_gone(&self, stream: u64) {
        self.close_stream(stream);
        if let Err(event) = self.port.try_send(ClientEvent::StreamClosed(stream)) {
            let port = self.port.clone();
            tokio::spawn(async move { port.send(event).await });
        }
    }

    /// A reloaded policy file, for this child's session's requests from now on.
    pub fn reload(&self, policy: Arc<PolicyText>) {
        if let Err(event) = self.port.try_send(ClientEvent::Reload(policy)) {
            let port = self.port.clone();
            tokio::spawn(async move { port.send(event).await });
        }
    }

    /// No more clients for this child: it is stopped (stdin closed, SIGTERM, SIGKILL), what it had
    /// pending is answered, and its relay ends. The GET stream ends now.
    pub async fn retire(&self) {
        let mut retired = self.retired.write().await;
        if !*retired {
            *retired = true;
            self.port.send(ClientEvent::Retire).await;
        }
        drop(retired);
        self.close_own();
    }
}
