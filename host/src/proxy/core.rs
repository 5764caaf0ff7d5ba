//! The relay core: one guard session and the one upstream it guards, carrying out the session's steps.
//! Fronts (stdio, HTTP) hand it what their clients send through a [`ClientPort`] and take what goes to their
//! clients through a [`ClientSink`]; the upstream is a transport ([`super::transport`]: a child process, or
//! a server at a URL) that takes the lines for it and reports what it reads and how it ends. The core owns
//! the session's clock (`expire`), when the upstream is stopped, and what the session is told of its end,
//! as in mini-redis the listener and the shutdown signal are handed to `server::run`.
//!
//! Every decision about a message is the session's ([`SessionCalls`]); the core only moves bytes and time.

use super::events::{log_event, now_ms};
use super::io::{self, Budget, Outgoing, Read};
use super::metrics::Metrics;
use super::process::status;
use super::transport::{self, Handle, Report, StartFailed};
use jsonrpc_errors_host::guard::{Call, Outcome, Peer, SessionCalls, Step, UpstreamFailure};
use jsonrpc_errors_host::{Context, ErrorObject};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch, OwnedSemaphorePermit};

pub use transport::Exit;

/// What a front tells the core about its client(s).
pub enum ClientEvent {
    /// A read from the client. `stream`: the client stream it came on (`None`: the one client of a stdio
    /// session, whose lines go to the session unrouted, byte for byte). `ack`, if given, is told how the
    /// session disposed of the line once its steps are carried out.
    Line {
        stream: Option<u64>,
        read: Read,
        at: Instant,
        permit: Option<OwnedSemaphorePermit>,
        ack: Option<oneshot::Sender<Ack>>,
    },
    /// A client stream went away before its answer (an HTTP client that disconnected).
    StreamClosed(u64),
    /// The client stopped reading (a write to it failed): as a closed input.
    WriteFailed(std::io::Error),
    /// A signal to stop (SIGTERM, SIGINT; SIGHUP without `--config`; Windows' console events): as a closed
    /// input.
    Signal(&'static str),
    /// A policy file the front has read and checked (SIGHUP with `--config`): the session's for the
    /// requests that arrive from now on.
    Reload(Arc<PolicyText>),
    /// The front has no more clients for this relay (an HTTP session ended, a child replaced): the
    /// upstream is stopped, and the relay ends once it has exited.
    Retire,
}

/// A policy file's text and the environment its `hash_key_env` is read from.
#[derive(Debug, Clone)]
pub struct PolicyText {
    pub text: String,
    pub env: Vec<(String, String)>,
}

/// How the session disposed of one client line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ack {
    /// Lines the session sent to the line's own stream at once (its answer to a bad line, say).
    pub to_stream: usize,
    /// Whether the line went on to the upstream (forwarded, or split into batch members).
    pub to_upstream: bool,
    /// The session failed (a trap): nothing more will come.
    pub broken: bool,
}

/// Where the core puts what goes to the client(s). Called on the relay's task; must not wait.
pub trait ClientSink: Send {
    /// A line for the client on `stream` (`None`: a stdio session's one stream).
    fn deliver(&mut self, stream: Option<u64>, out: Outgoing);
    /// No more client output will be wanted (the client stopped reading): let queued lines go.
    fn client_gone(&mut self) {}
    /// The request answered with many responses on `stream` is settled: what was delivered to that stream is
    /// all it gets (a front that frames it as one response ends it once that is written).
    fn end_stream(&mut self, _stream: Option<u64>) {}
}

/// The sending side of a relay's inbox, for the front.
#[derive(Clone)]
pub struct ClientPort(mpsc::Sender<Input>);

impl ClientPort {
    /// Hands an event to the relay, waiting while its inbox is full; false when the relay has ended.
    pub async fn send(&self, event: ClientEvent) -> bool {
        self.0.send(Input::Client(event)).await.is_ok()
    }

    /// Hands an event over without waiting (from a destructor); the relay may be gone or full.
    pub fn try_send(&self, event: ClientEvent) -> Result<(), ClientEvent> {
        self.0.try_send(Input::Client(event)).map_err(|e| {
            let Input::Client(ev) = e.into_inner();
            ev
        })
    }
}

/// The receiving side of a relay's inbox.
pub struct Inbox {
    tx: mpsc::Sender<Input>,
    rx: mpsc::Receiver<Input>,
}

/// A relay's inbox and the port its front sends through.
pub fn inbox() -> (ClientPort, Inbox) {
    let (tx, rx) = mpsc::channel::<Input>(256);
    (ClientPort(tx.clone()), Inbox { tx, rx })
}

/// What the front reports to the relay (the transport reports through a channel of its own).
enum Input {
    Client(ClientEvent),
}

/// Where a relay's upstream stands, for the front (readiness, restarts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayState {
    Starting,
    Running,
    /// The upstream ended (or never started): the session answers every client line itself.
    UpstreamGone,
    /// The relay has ended.
    Ended,
}

/// Whether the upstream still answers, for the front (readiness; replacing a child that stopped answering):
/// since when it has owed an answer without writing a single line, once a request has timed out in that
/// time. It owes an answer while a request waits for it, and after a request timed out until it writes
/// again (a timeout the guard answered is no sign of life); a line of any kind (progress too) is one. A
/// request still within its own wait (a tool whose policy allows it longer) makes no case against it.
pub struct Liveness {
    base: Instant,
    /// Milliseconds after `base` since which it owes an answer unheard, with a timeout among them;
    /// `u64::MAX`: no such case.
    owed_since_ms: std::sync::atomic::AtomicU64,
}

impl Liveness {
    pub fn new() -> Arc<Liveness> {
        Arc::new(Liveness {
            base: Instant::now(),
            owed_since_ms: std::sync::atomic::AtomicU64::new(u64::MAX),
        })
    }

    /// How long the upstream has owed an answer without writing anything, if a request timed out in that
    /// time; None otherwise.
    pub fn silent_for(&self) -> Option<Duration> {
        let since = self
            .owed_since_ms
            .load(std::sync::atomic::Ordering::Acquire);
        (since != u64::MAX).then(|| {
            self.base
                .elapsed()
                .saturating_sub(Duration::from_millis(since))
        })
    }

    fn set(&self, since: Option<Instant>) {
        let ms = since.map_or(u64::MAX, |at| {
            at.saturating_duration_since(self.base).as_millis() as u64
        });
        self.owed_since_ms
            .store(ms, std::sync::atomic::Ordering::Release);
    }
}

/// The shell's side of [`Liveness`].
#[derive(Default)]
struct Owed {
    /// Since when the upstream has owed an answer without writing a line.
    since: Option<Instant>,
    /// A request timed out since the upstream's last line.
    timed_out: bool,
    /// What [`Liveness`] was last told.
    told: Option<Instant>,
    shared: Option<Arc<Liveness>>,
}

impl Owed {
    /// A line from the upstream: it is answering (the session call that follows brings `shared` up to date).
    fn heard(&mut self) {
        self.timed_out = false;
        self.since = None;
    }

    /// After a session call: `pending` requests wait.
    fn update(&mut self, pending: usize) {
        let Some(shared) = &self.shared else {
            return;
        };
        if pending > 0 || self.timed_out {
            self.since.get_or_insert_with(Instant::now);
        } else {
            self.since = None;
        }
        let case = self.since.filter(|_| self.timed_out);
        if case != self.told {
            shared.set(case);
            self.told = case;
        }
    }
}

pub struct RelayConfig {
    /// The upstream, and how it is reached.
    pub transport: transport::Spec,
    /// The budget the front's client reader reserves from: what the guard writes because of a client line
    /// is charged to it too.
    pub client_budget: Budget,
    /// After the upstream ended: keep answering client lines (the session answers each) until the front
    /// retires the relay (HTTP), rather than ending at once (stdio: the client sees the server go).
    pub linger: bool,
    /// Told where the upstream stands.
    pub state: Option<watch::Sender<RelayState>>,
    /// Told whether the upstream still answers.
    pub liveness: Option<Arc<Liveness>>,
}

pub struct RelayEnd {
    /// The guard's exit status for a stdio session.
    pub code: u8,
    pub exit: Exit,
    /// The sink, handed back so the front can let its writers finish.
    pub sink: Box<dyn ClientSink>,
}

/// Reads the front's client lines from a pipe (stdio) into the relay.
pub fn pump_client<R>(reader: R, cap: usize, budget: Budget, port: ClientPort)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(io::pump(reader, cap, budget, port.0, |read, at, permit| {
        Input::Client(ClientEvent::Line {
            stream: None,
            read,
            at,
            permit,
            ack: None,
        })
    }));
}

/// Whose reader read a line: what the guard writes because of that line is charged to that reader's budget.
#[derive(Debug, Clone, Copy)]
enum Side {
    Client,
    Upstream,
}

/// What a session call was about, when it was about a read: the line (none when it was too long to keep),
/// when it was read, the budget it holds, and whose reader read it.
struct Got {
    line: Option<Vec<u8>>,
    at: Instant,
    permit: Option<OwnedSemaphorePermit>,
    side: Side,
}

/// One relay's state, kept together as mini-redis keeps a connection's in its `Handler`: the session and
/// what it was told, the client sink, the upstream's handle, where the relay stands. [`run`] is a short loop
/// handing each event to its handler.
struct Relay {
    session: Box<dyn SessionCalls>,
    metrics: Arc<Metrics>,
    sink: Box<dyn ClientSink>,
    /// Told where the upstream stands.
    state: Option<watch::Sender<RelayState>>,
    /// The front's client reader's budget (see [`RelayConfig::client_budget`]).
    from_client: Budget,
    /// The upstream reader's budget, once the upstream runs.
    from_upstream: Option<Budget>,
    /// Lines for the upstream (none once its transport stopped taking them).
    upstream_out: Option<mpsc::UnboundedSender<Outgoing>>,
    /// Fired when the relay stops the upstream.
    upstream_close: Option<oneshot::Sender<()>>,
    deadline: Option<u64>,
    /// Client requests waiting, as last reported (the metrics gauge is shared by every relay).
    pending: usize,
    /// The session failed (a trap): the relay stops relaying.
    broken: bool,
    stderr_ended: bool,
    /// The session has been told that the upstream is gone.
    told_gone: bool,
    /// The front retired the relay.
    retired: bool,
    owed: Owed,
}

/// Runs one relay: starts the upstream, relays until it has ended (and, with `linger`, until the front
/// retires the relay), and reports how it ended.
pub async fn run(
    config: RelayConfig,
    session: Box<dyn SessionCalls>,
    inbox: Inbox,
    sink: Box<dyn ClientSink>,
    metrics: Arc<Metrics>,
) -> RelayEnd {
    let Inbox { tx, mut rx } = inbox;
    let mut relay = Relay::new(&config, session, sink, metrics.clone());
    let (reports_tx, mut reports) = mpsc::channel::<Report>(256);
    let started = transport::start(&config.transport, reports_tx, metrics);
    // Only the front's ports keep the inbox open from now on: it closes when the front lets go.
    drop(tx);
    let handle = match started {
        Ok(handle) => handle,
        Err(failed) => return relay.not_started(failed, &mut rx).await,
    };
    relay.started(handle);
    let mut inputs_open = true;
    // One timer for the session's deadline, set again only when the deadline comes earlier than the one it is
    // set for; a later one (the earliest request was answered) is waited for anew when the timer fires. A timer
    // made each turn cost two clock reads and a timer registration per relayed message.
    let timer = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(timer);
    let mut armed: Option<u64> = None;
    let ended = loop {
        if relay.broken {
            relay.close_upstream();
        }
        // Until the deadline: a wake a little early is the session's to allow for (`expire` in the WIT).
        match relay.deadline {
            Some(due) if armed.is_none_or(|set| due < set) => {
                if let Some(at) = relay.expire_at() {
                    timer.as_mut().reset(at.into());
                }
                armed = Some(due);
            }
            Some(_) => {}
            None => armed = None,
        }
        tokio::select! {
            biased;
            input = rx.recv(), if inputs_open => match input {
                Some(Input::Client(event)) => {
                    // The lines already read on either side go to the session in one call; what stopped the
                    // gathering (an end, a signal, an oversize line) comes after them, as it came after them.
                    let (lines, rest) = gather(Turn::Client(event), &mut rx, &mut reports);
                    relay.on_lines(lines);
                    if let Some(ended) = relay.on_turn(rest) {
                        break ended;
                    }
                }
                None => inputs_open = false,
            },
            report = reports.recv() => {
                let (lines, rest) = gather(Turn::Report(report), &mut rx, &mut reports);
                relay.on_lines(lines);
                if let Some(ended) = relay.on_turn(rest) {
                    break ended;
                }
            }
            _ = &mut timer, if armed.is_some() => {
                // The deadline the timer was set for, unless a later one took its place (then it is set anew).
                if matches!((relay.deadline, armed.take()), (Some(due), Some(set)) if due <= set) {
                    relay.on_deadline();
                }
            }
        }
    };
    relay.upstream_ended(ended, config.linger, &mut rx).await
}

/// Most lines handed to the session in one call, and the bytes after which no more are added: a bound on
/// what one call copies into the guest (whose memory never shrinks) and on how long the relay is busy with one.
const BATCH_LINES: usize = 64;
const BATCH_BYTES: usize = 256 * 1024;

/// Something the relay's loop took from its inbox or its transport's reports.
enum Turn {
    Client(ClientEvent),
    Report(Option<Report>),
}

/// A line read and waiting for its outcome in a batch: as [`ClientEvent::Line`] or [`Report::Line`] carry it.
struct LineRead {
    side: Side,
    stream: Option<u64>,
    line: Vec<u8>,
    at: Instant,
    permit: Option<OwnedSemaphorePermit>,
    ack: Option<oneshot::Sender<Ack>>,
}

/// `first` and the lines already waiting behind it, without waiting for more (a line is never held back to
/// fill a batch): the client's, then, once the client's queue is empty, the upstream's, in the order the
/// loop's biased select would have taken them one by one. Returns the lines and the first thing taken that
/// is not a line (it is handled after them), if any.
fn gather(
    first: Turn,
    rx: &mut mpsc::Receiver<Input>,
    reports: &mut mpsc::Receiver<Report>,
) -> (Vec<LineRead>, Option<Turn>) {
    let mut lines = Vec::new();
    let mut bytes = 0usize;
    let full =
        |lines: &Vec<LineRead>, bytes: usize| lines.len() >= BATCH_LINES || bytes >= BATCH_BYTES;
    let from_client = matches!(first, Turn::Client(_));
    let mut next = Some(first);
    if from_client {
        while let Some(Turn::Client(event)) = next.take() {
            match LineRead::from_client(event) {
                Ok(line) => {
                    bytes += line.line.len();
                    lines.push(line);
                }
                Err(other) => return (lines, Some(Turn::Client(other))),
            }
            if full(&lines, bytes) {
                return (lines, None);
            }
            next = match rx.try_recv() {
                Ok(Input::Client(event)) => Some(Turn::Client(event)),
                Err(_) => None,
            };
        }
        next = reports.try_recv().ok().map(|r| Turn::Report(Some(r)));
    }
    while let Some(Turn::Report(report)) = next.take() {
        match report {
            Some(Report::Line(Read::Line(line), at, permit)) => {
                bytes += line.len();
                lines.push(LineRead {
                    side: Side::Upstream,
                    stream: None,
                    line,
                    at,
                    permit,
                    ack: None,
                });
            }
            other => return (lines, Some(Turn::Report(other))),
        }
        if full(&lines, bytes) {
            break;
        }
        next = reports.try_recv().ok().map(|r| Turn::Report(Some(r)));
    }
    (lines, None)
}

impl LineRead {
    /// The event's line, or the event back when it is not a line.
    fn from_client(event: ClientEvent) -> Result<LineRead, ClientEvent> {
        match event {
            ClientEvent::Line {
                stream,
                read: Read::Line(line),
                at,
                permit,
                ack,
            } => Ok(LineRead {
                side: Side::Client,
                stream,
                line,
                at,
                permit,
                ack,
            }),
            other => Err(other),
        }
    }

    fn call(&self) -> Call<'_> {
        match (self.side, self.stream) {
            (Side::Client, None) => Call::ClientLine(&self.line),
            (Side::Client, Some(stream)) => Call::ClientLineOn {
                stream,
                line: &self.line,
            },
            (Side::Upstream, _) => Call::UpstreamLine(&self.line),
        }
    }
}

impl Relay {
    /// Lines read in one turn: one session call for all of them (one line: its own call), their outcomes
    /// carried out in order, each exactly as its own call's would be.
    fn on_lines(&mut self, lines: Vec<LineRead>) {
        let outcomes: Vec<Result<Outcome, ErrorObject>> = match lines.as_slice() {
            [] => return,
            [one] => vec![self.session.outcome(one.call(), Context::now())],
            many => {
                let calls: Vec<Call<'_>> = many.iter().map(LineRead::call).collect();
                match self.session.outcomes(&calls, Context::now()) {
                    Ok(outcomes) if outcomes.len() == many.len() => {
                        outcomes.into_iter().map(Ok).collect()
                    }
                    // A failed call (or one that lost lines) breaks the session: each line's apply says so.
                    _ => many.iter().map(|_| Err(ErrorObject::internal())).collect(),
                }
            }
        };
        for (read, outcome) in lines.into_iter().zip(outcomes) {
            let peer = match read.side {
                Side::Client => Peer::Client,
                Side::Upstream => {
                    self.owed.heard();
                    Peer::Upstream
                }
            };
            self.metrics.line_read(peer);
            let got = Got {
                line: Some(read.line),
                at: read.at,
                permit: read.permit,
                side: read.side,
            };
            let ack = self.apply(outcome, Some(got), read.stream);
            if let Some(tx) = read.ack {
                let _ = tx.send(ack);
            }
        }
    }

    /// What ended a gathering of lines, handled as the loop handles it alone; the transport's end, if that.
    fn on_turn(&mut self, turn: Option<Turn>) -> Option<transport::Ended> {
        match turn? {
            Turn::Client(event) => {
                self.on_client(event);
                None
            }
            Turn::Report(report) => self.on_report(report),
        }
    }

    fn new(
        config: &RelayConfig,
        session: Box<dyn SessionCalls>,
        sink: Box<dyn ClientSink>,
        metrics: Arc<Metrics>,
    ) -> Relay {
        let relay = Relay {
            session,
            metrics,
            sink,
            state: config.state.clone(),
            from_client: config.client_budget.clone(),
            from_upstream: None,
            upstream_out: None,
            upstream_close: None,
            deadline: None,
            pending: 0,
            broken: false,
            stderr_ended: false,
            told_gone: false,
            retired: false,
            owed: Owed {
                shared: config.liveness.clone(),
                ..Owed::default()
            },
        };
        relay.tell(RelayState::Starting);
        relay
    }

    fn tell(&self, now: RelayState) {
        if let Some(state) = &self.state {
            state.send_replace(now);
        }
    }

    fn started(&mut self, handle: Handle) {
        self.tell(RelayState::Running);
        self.upstream_out = Some(handle.lines);
        self.upstream_close = Some(handle.close);
        self.from_upstream = Some(handle.budget);
    }

    /// The upstream could not be started: the session answers the client until it leaves.
    async fn not_started(
        mut self,
        failed: StartFailed,
        rx: &mut mpsc::Receiver<Input>,
    ) -> RelayEnd {
        let (gone, code) = match failed {
            StartFailed::Upstream { gone, code } => (gone, code),
            StartFailed::Broken => {
                self.tell(RelayState::Ended);
                return self.finish(status::GUARD_FAILED, Exit::Failed);
            }
        };
        self.tell(RelayState::UpstreamGone);
        self.stderr_ended = true;
        self.upstream_gone(&gone);
        let code = self.answer_without_upstream(rx, code).await;
        self.tell(RelayState::Ended);
        let exit = if code == status::GUARD_FAILED {
            Exit::Failed
        } else {
            Exit::SpawnFailed
        };
        self.finish(code, exit)
    }

    /// The transport has finished: the session is told (if nothing told it why), a lingering relay answers the
    /// client until it is retired, and the relay ends.
    async fn upstream_ended(
        mut self,
        ended: transport::Ended,
        linger: bool,
        rx: &mut mpsc::Receiver<Input>,
    ) -> RelayEnd {
        self.end_stderr();
        self.upstream_out = None;
        self.upstream_close = None;
        if matches!(ended.exit, Exit::Failed) {
            self.tell(RelayState::Ended);
            return self.finish(status::GUARD_FAILED, Exit::Failed);
        }
        let code = if self.broken {
            status::GUARD_FAILED
        } else {
            ended.code
        };
        // A server at a URL whose session the guard closed, with nothing pending and nobody left to answer: a
        // clean end, not a failure to report.
        let clean =
            matches!(ended.exit, Exit::Remote) && self.pending == 0 && (self.retired || !linger);
        if !self.told_gone && !self.broken && !clean {
            // A transport that finished without a word of why: the end of a transport (the WIT's contract).
            self.upstream_gone(&UpstreamFailure::ClosedOutput);
        }
        if linger && !self.retired && !self.broken {
            self.answer_without_upstream(rx, code).await;
        }
        self.tell(RelayState::Ended);
        self.finish(code, ended.exit)
    }

    /// The upstream can no longer answer: the session answers every pending request, and every later one.
    fn upstream_gone(&mut self, gone: &UpstreamFailure) {
        self.told_gone = true;
        let outcome = self
            .session
            .outcome(Call::UpstreamFailed(gone), Context::now());
        self.apply(outcome, None, None);
    }

    /// When to wake to call `expire`: the session's deadline, on this clock.
    fn expire_at(&self) -> Option<Instant> {
        self.deadline
            .map(|d| Instant::now() + Duration::from_millis(d.saturating_sub(now_ms())))
    }

    fn on_deadline(&mut self) {
        let outcome = self.session.outcome(Call::Expire, Context::now());
        self.apply(outcome, None, None);
    }

    /// One event from the front, with the upstream running or not (then the session, told of its end,
    /// answers each line). Returns whether the client's side has ended (its input closed, it stopped
    /// reading, a signal, the front retired the relay); the upstream, if it runs, is then stopped.
    fn on_client(&mut self, event: ClientEvent) -> bool {
        match event {
            ClientEvent::Line {
                stream,
                read,
                at,
                permit,
                ack,
            } => {
                let done = match read {
                    Read::Line(line) => {
                        self.metrics.line_read(Peer::Client);
                        let call = match stream {
                            None => Call::ClientLine(&line),
                            Some(stream) => Call::ClientLineOn {
                                stream,
                                line: &line,
                            },
                        };
                        let outcome = self.session.outcome(call, Context::now());
                        let got = Got {
                            line: Some(line),
                            at,
                            permit,
                            side: Side::Client,
                        };
                        self.apply(outcome, Some(got), stream)
                    }
                    Read::Oversize { length, head, tail } => {
                        self.on_oversize(Side::Client, length, &head, &tail, at, stream)
                    }
                    Read::Eof => {
                        return self.client_ended("client-closed", "the client closed its input")
                    }
                    Read::Failed(e) => {
                        tracing::warn!(event = "client-input-failed", detail = %e, "cannot read the client's input");
                        return self.client_ended("client-closed", "the client closed its input");
                    }
                };
                if let Some(ack) = ack {
                    let _ = ack.send(done);
                }
                false
            }
            ClientEvent::StreamClosed(stream) => {
                let outcome = self
                    .session
                    .outcome(Call::StreamClosed { stream }, Context::now());
                self.apply(outcome, None, Some(stream));
                false
            }
            ClientEvent::Reload(policy) => {
                self.reload(&policy);
                false
            }
            ClientEvent::WriteFailed(e) => {
                self.sink.client_gone();
                self.client_ended(
                    "client-closed",
                    &format!("the client stopped reading ({e})"),
                )
            }
            ClientEvent::Signal(name) => self.client_ended("signal", &format!("received {name}")),
            ClientEvent::Retire => {
                self.retired = true;
                self.close_upstream();
                true
            }
        }
    }

    /// The client's side has ended (`why`, for the log): the upstream is stopped if it still runs.
    fn client_ended(&mut self, event: &'static str, why: &str) -> bool {
        if self.upstream_close.is_some() {
            tracing::info!(event, "{why}; stopping the upstream");
        } else {
            tracing::info!(event, "{why}; exiting");
        }
        self.close_upstream();
        true
    }

    /// One report from the transport; the transport's end when it has finished.
    fn on_report(&mut self, report: Option<Report>) -> Option<transport::Ended> {
        let Some(report) = report else {
            tracing::error!(
                event = "guard-failed",
                "the upstream's transport ended without a word"
            );
            return Some(transport::Ended {
                code: status::GUARD_FAILED,
                exit: Exit::Failed,
            });
        };
        match report {
            Report::Line(Read::Line(line), at, permit) => {
                self.metrics.line_read(Peer::Upstream);
                self.owed.heard();
                let outcome = self
                    .session
                    .outcome(Call::UpstreamLine(&line), Context::now());
                let got = Got {
                    line: Some(line),
                    at,
                    permit,
                    side: Side::Upstream,
                };
                self.apply(outcome, Some(got), None);
            }
            Report::Line(Read::Oversize { length, head, tail }, at, _) => {
                self.on_oversize(Side::Upstream, length, &head, &tail, at, None);
            }
            Report::Line(Read::Eof, ..) => {}
            Report::Line(Read::Failed(e), ..) => {
                tracing::warn!(event = "upstream-output-failed", detail = %e, "cannot read the upstream's output");
            }
            Report::Stderr(bytes) => {
                let clean = self.session.upstream_stderr(&bytes);
                self.log_stderr_lines(clean);
            }
            Report::StderrClosed => self.end_stderr(),
            Report::Log(text) => self.log_upstream(&text),
            Report::WriteFailed(e) => {
                tracing::warn!(event = "upstream-input-closed", detail = %e, "the upstream stopped reading its input");
                self.upstream_out = None;
            }
            Report::RequestFailed { id, failure } => {
                let call = Call::UpstreamRequestFailed {
                    id: &id,
                    failure: &failure,
                };
                let outcome = self.session.outcome(call, Context::now());
                self.apply(outcome, None, None);
            }
            Report::ExchangeEnded { id } => {
                let outcome = self
                    .session
                    .outcome(Call::UpstreamExchangeEnded { id: &id }, Context::now());
                self.apply(outcome, None, None);
            }
            Report::Gone(gone) => {
                if !self.told_gone {
                    self.tell(RelayState::UpstreamGone);
                    self.upstream_gone(&gone);
                }
                // An upstream that closed its output but still runs is stopped.
                if matches!(gone, UpstreamFailure::ClosedOutput) {
                    self.close_upstream();
                }
            }
            Report::Ended(ended) => return Some(ended),
        }
        None
    }

    /// A line from `side` longer than its reader's cap, discarded unread (`stream`: the client stream it came
    /// on): the session is told its length and its first and last bytes, from which it reads the id to answer.
    fn on_oversize(
        &mut self,
        side: Side,
        length: u64,
        head: &[u8],
        tail: &[u8],
        at: Instant,
        stream: Option<u64>,
    ) -> Ack {
        let call = match side {
            Side::Client => {
                self.metrics.line_read(Peer::Client);
                Call::ClientOversize { length, head, tail }
            }
            Side::Upstream => {
                self.metrics.line_read(Peer::Upstream);
                // A line of any length is a sign of life.
                self.owed.heard();
                Call::UpstreamOversize { length, head, tail }
            }
        };
        let outcome = self.session.outcome(call, Context::now());
        let got = Got {
            line: None,
            at,
            permit: None,
            side,
        };
        self.apply(outcome, Some(got), stream)
    }

    /// Gives the session a reloaded policy file; one it refuses (checked by the front already, so only a
    /// failing component) leaves the old one, and says so.
    fn reload(&mut self, policy: &PolicyText) {
        match self.session.set_policy(&policy.text, &policy.env) {
            Ok(()) => tracing::debug!(
                event = "policy-reloaded",
                "this upstream's session has the reloaded policy file"
            ),
            Err(f) => {
                tracing::warn!(event = "policy-reload-refused", detail = %f, "the reloaded policy file was refused; the old one still holds")
            }
        }
    }

    fn send(&mut self, to: Peer, stream: Option<u64>, out: Outgoing) {
        match to {
            Peer::Client => self.sink.deliver(stream, out),
            Peer::Upstream => {
                if let Some(tx) = &self.upstream_out {
                    // A closed writer (the upstream is gone) drops the line: nobody is there to read it.
                    let _ = tx.send(out);
                }
            }
        }
    }

    /// The upstream's stderr has ended (or is no longer waited for): the line the session held, if any.
    fn end_stderr(&mut self) {
        if !std::mem::replace(&mut self.stderr_ended, true) {
            let clean = self.session.upstream_stderr_end();
            self.log_stderr_lines(clean);
        }
    }

    /// The transport's own text about the upstream (an HTTP upstream's fault), redacted by the session.
    fn log_upstream(&mut self, text: &str) {
        match self.session.upstream_log(text) {
            Ok(clean) => {
                for line in clean.lines().filter(|l| !l.is_empty()) {
                    tracing::warn!(event = "upstream-transport", "{line}");
                }
            }
            Err(_) => self.broken = true,
        }
    }

    /// The upstream's stderr as the session redacted it (it cuts it at line ends): one log record per line.
    fn log_stderr_lines(&mut self, clean: Result<String, ErrorObject>) {
        match clean {
            Ok(clean) => {
                for line in clean.lines().filter(|l| !l.is_empty()) {
                    tracing::info!(event = "upstream-stderr", "{line}");
                }
            }
            Err(_) => self.broken = true,
        }
    }

    /// Carries out a session call's steps. `got` is the read the call was about (its line for `forward`, and
    /// the budget it holds): what the guard writes itself because of that line is charged to the budget of
    /// the reader that read it too, so a peer that does not read the guard's answers to another peer's lines
    /// stops that peer's reader instead of growing the guard's memory. Returns how the line was disposed of,
    /// for `of_stream`'s front.
    fn apply(
        &mut self,
        outcome: Result<Outcome, ErrorObject>,
        got: Option<Got>,
        of_stream: Option<u64>,
    ) -> Ack {
        let Ok(outcome) = outcome else {
            tracing::error!(
                event = "guard-failed",
                "the guard component failed; the guard stops"
            );
            self.broken = true;
            return Ack {
                broken: true,
                ..Ack::default()
            };
        };
        let (mut line, read_at, mut permit, side) = match got {
            Some(got) => (got.line, Some(got.at), got.permit, Some(got.side)),
            None => (None, None, None, None),
        };
        let mut ack = Ack::default();
        // A line answered instead of forwarded hands its budget on to what the guard writes in its place.
        let forwarded = outcome
            .steps
            .iter()
            .any(|s| matches!(s, Step::Forward { .. }));
        for step in outcome.steps {
            match step {
                Step::Forward { to, stream } => match line.take() {
                    Some(bytes) => {
                        ack.note(to, stream, of_stream);
                        let out = Outgoing {
                            bytes,
                            forwarded: true,
                            read_at,
                            permit: permit.take(),
                        };
                        self.send(to, stream, out);
                    }
                    None => tracing::error!(
                        event = "guard-failed",
                        "a line was to be forwarded twice; the second copy was not"
                    ),
                },
                Step::Send { to, stream, line } => {
                    let mut held = if forwarded { None } else { permit.take() };
                    let needed = line.len() + 1;
                    let covered = held.as_ref().map_or(0, |p| p.num_permits());
                    let budget = match side {
                        Some(Side::Client) => Some(&self.from_client),
                        Some(Side::Upstream) => self.from_upstream.as_ref(),
                        None => None,
                    };
                    if let Some(extra) = budget
                        .filter(|_| needed > covered)
                        .and_then(|b| b.charge(needed - covered))
                    {
                        match &mut held {
                            Some(h) => h.merge(extra),
                            None => held = Some(extra),
                        }
                    }
                    ack.note(to, stream, of_stream);
                    let out = Outgoing {
                        bytes: line.into_bytes(),
                        forwarded: false,
                        read_at,
                        permit: held,
                    };
                    self.send(to, stream, out);
                }
                Step::End { stream } => self.sink.end_stream(stream),
                Step::Event(e) => {
                    if e.kind.as_deref() == Some("upstream-timeout") {
                        self.owed.timed_out = true;
                    }
                    self.metrics.event(&e);
                    log_event(&e);
                }
            }
        }
        self.owed.update(outcome.pending);
        self.deadline = outcome.deadline;
        self.metrics
            .add_pending(outcome.pending as i64 - self.pending as i64);
        self.pending = outcome.pending;
        ack
    }

    /// The upstream could not be started, or has ended and the front keeps the relay: a client that already
    /// wrote a request (it cannot know) is still owed an answer, and so is every request it sends, until it
    /// closes its input (stdio), the front retires the relay (HTTP) or a signal ends the guard. The session,
    /// told of the failure, answers each one. Returns `code`, or 125 when the session failed.
    async fn answer_without_upstream(&mut self, rx: &mut mpsc::Receiver<Input>, code: u8) -> u8 {
        loop {
            let end = match rx.recv().await {
                Some(Input::Client(event)) => self.on_client(event),
                None => true,
            };
            if self.broken {
                return status::GUARD_FAILED;
            }
            if end {
                return code;
            }
        }
    }

    /// Stops the upstream (once): no more lines go to it (a child's stdin is closed once its writer has
    /// drained what is queued), and its transport is told, which ends it as MCP's shutdown has it.
    fn close_upstream(&mut self) {
        self.upstream_out = None;
        if let Some(close) = self.upstream_close.take() {
            let _ = close.send(());
        }
    }

    fn finish(mut self, code: u8, exit: Exit) -> RelayEnd {
        // The sink goes back to the front; a placeholder takes its place for the relay's last moments.
        let sink = std::mem::replace(&mut self.sink, Box::new(NoSink));
        RelayEnd { code, exit, sink }
    }
}

impl Ack {
    fn note(&mut self, to: Peer, stream: Option<u64>, of_stream: Option<u64>) {
        match to {
            Peer::Upstream => self.to_upstream = true,
            Peer::Client if stream == of_stream => self.to_stream += 1,
            Peer::Client => {}
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.metrics.add_pending(-(self.pending as i64));
    }
}

struct NoSink;

impl ClientSink for NoSink {
    fn deliver(&mut self, _stream: Option<u64>, _out: Outgoing) {}
}

#[cfg(test)]
mod tests {
    //! The core driven in process by a scripted policy, with `cat` (or `sh`) as the upstream: routing by
    //! stream, acks, stream closing, the upstream's death answered on every open stream, lingering until
    //! retired. The policy here stands in for the session's contract (`client-line-on`, `stream-closed`);
    //! the real session's routing has its own tests and vectors in the guest.
    use super::*;
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// Forwards client lines upstream and routes answers back by id; answers the open requests itself when
    /// the upstream fails. Ids are assumed unique across streams (the real session renames them).
    #[derive(Default)]
    struct Scripted {
        pending: HashMap<String, u64>,
        closed: Arc<Mutex<Vec<u64>>>,
    }

    fn id_of(line: &[u8]) -> Option<String> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        v.get("id").map(|id| id.to_string())
    }

    fn outcome(steps: serde_json::Value, pending: usize) -> Result<String, ErrorObject> {
        Ok(serde_json::json!({ "steps": steps, "pending": pending, "deadline": null }).to_string())
    }

    impl Scripted {
        fn client_line_on(&mut self, stream: u64, line: &[u8]) -> Result<String, ErrorObject> {
            if line == b"bad" {
                let answer = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
                return outcome(
                    serde_json::json!([{ "step": "send", "to": "client", "stream": stream, "line": answer }]),
                    self.pending.len(),
                );
            }
            if let Some(id) = id_of(line) {
                self.pending.insert(id, stream);
            }
            outcome(
                serde_json::json!([{ "step": "forward", "to": "upstream" }]),
                self.pending.len(),
            )
        }

        fn upstream_line(&mut self, line: &[u8]) -> Result<String, ErrorObject> {
            let stream = id_of(line)
                .and_then(|id| self.pending.remove(&id))
                .unwrap_or(0);
            outcome(
                serde_json::json!([{ "step": "forward", "to": "client", "stream": stream }]),
                self.pending.len(),
            )
        }

        fn upstream_failed(&mut self) -> Result<String, ErrorObject> {
            let steps: Vec<_> = self
                .pending
                .drain()
                .map(|(id, stream)| {
                    let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32000,"message":"gone"}}}}"#);
                    serde_json::json!({ "step": "send", "to": "client", "stream": stream, "line": line })
                })
                .collect();
            outcome(serde_json::Value::Array(steps), 0)
        }

        /// One request failed (or its exchange ended): it alone is answered.
        fn request_failed(&mut self, id: &str) -> Result<String, ErrorObject> {
            let key = serde_json::from_str::<serde_json::Value>(id)
                .map(|v| v.to_string())
                .unwrap_or_default();
            let steps = match self.pending.remove(&key) {
                Some(stream) => {
                    let line = format!(
                        r#"{{"jsonrpc":"2.0","id":{key},"error":{{"code":-32000,"message":"failed"}}}}"#
                    );
                    serde_json::json!([{ "step": "send", "to": "client", "stream": stream, "line": line }])
                }
                None => serde_json::json!([]),
            };
            outcome(steps, self.pending.len())
        }
    }

    impl SessionCalls for Scripted {
        fn outcome_json(&mut self, call: Call<'_>, _ctx: Context) -> Result<String, ErrorObject> {
            match call {
                Call::ClientLine(line) => self.client_line_on(0, line),
                Call::ClientLineOn { stream, line } => self.client_line_on(stream, line),
                Call::StreamClosed { stream } => {
                    self.pending.retain(|_, s| *s != stream);
                    self.closed.lock().unwrap().push(stream);
                    outcome(serde_json::json!([]), self.pending.len())
                }
                Call::UpstreamLine(line) => self.upstream_line(line),
                Call::UpstreamFailed(_) => self.upstream_failed(),
                Call::UpstreamRequestFailed { id, .. } | Call::UpstreamExchangeEnded { id } => {
                    self.request_failed(id)
                }
                Call::ClientOversize { .. } | Call::UpstreamOversize { .. } | Call::Expire => {
                    outcome(serde_json::json!([]), self.pending.len())
                }
            }
        }
        fn set_policy(
            &mut self,
            _text: &str,
            _env: &[(String, String)],
        ) -> Result<(), ErrorObject> {
            Ok(())
        }
        fn upstream_stderr(&mut self, bytes: &[u8]) -> Result<String, ErrorObject> {
            Ok(String::from_utf8_lossy(bytes).into_owned())
        }
        fn upstream_stderr_end(&mut self) -> Result<String, ErrorObject> {
            Ok(String::new())
        }
        fn upstream_log(&mut self, text: &str) -> Result<String, ErrorObject> {
            Ok(text.to_string())
        }
    }

    /// What the core delivered, in order: (stream, line).
    type Delivered = Vec<(Option<u64>, String)>;

    /// Collects what the core delivers, by stream.
    #[derive(Clone, Default)]
    struct Collect(Arc<Mutex<Delivered>>);

    impl ClientSink for Collect {
        fn deliver(&mut self, stream: Option<u64>, out: Outgoing) {
            self.0
                .lock()
                .unwrap()
                .push((stream, String::from_utf8(out.bytes).unwrap()));
        }
    }

    impl Collect {
        async fn wait_for(&self, n: usize) -> Delivered {
            for _ in 0..500 {
                if self.0.lock().unwrap().len() >= n {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            self.0.lock().unwrap().clone()
        }
    }

    fn config(
        command: &[&str],
        linger: bool,
        state: Option<watch::Sender<RelayState>>,
    ) -> RelayConfig {
        RelayConfig {
            transport: transport::Spec::Process(transport::process::Spec {
                command: command.iter().map(|s| s.to_string()).collect(),
                grace: Duration::from_millis(500),
                max_upstream_bytes: 1 << 20,
            }),
            client_budget: Budget::new(),
            linger,
            state,
            liveness: None,
        }
    }

    async fn line(port: &ClientPort, stream: u64, text: &str) -> Ack {
        let (tx, rx) = oneshot::channel();
        let read = Read::Line(text.as_bytes().to_vec());
        assert!(
            port.send(ClientEvent::Line {
                stream: Some(stream),
                read,
                at: Instant::now(),
                permit: None,
                ack: Some(tx)
            })
            .await
        );
        rx.await.expect("acked")
    }

    fn client_line(text: &str) -> Input {
        Input::Client(ClientEvent::Line {
            stream: None,
            read: Read::Line(text.as_bytes().to_vec()),
            at: Instant::now(),
            permit: None,
            ack: None,
        })
    }

    fn upstream_line(text: &str) -> Report {
        Report::Line(Read::Line(text.as_bytes().to_vec()), Instant::now(), None)
    }

    fn texts(lines: &[LineRead]) -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let side = match l.side {
                    Side::Client => "c",
                    Side::Upstream => "u",
                };
                format!("{side}:{}", String::from_utf8_lossy(&l.line))
            })
            .collect()
    }

    /// The lines waiting are taken as the biased loop would take them one by one (the client's first, the
    /// upstream's once the client's queue is empty), and what is not a line stops the gathering, to be
    /// handled after the lines before it and before those after it.
    #[tokio::test]
    async fn a_turn_takes_the_waiting_lines_in_the_order_the_loop_would() {
        let (tx, mut rx) = mpsc::channel::<Input>(256);
        let (rtx, mut reports) = mpsc::channel::<Report>(256);
        for l in ["a", "b"] {
            tx.send(client_line(l)).await.unwrap();
        }
        for l in ["x", "y"] {
            rtx.send(upstream_line(l)).await.unwrap();
        }
        let first = match rx.recv().await {
            Some(Input::Client(e)) => Turn::Client(e),
            None => unreachable!(),
        };
        let (lines, rest) = gather(first, &mut rx, &mut reports);
        assert_eq!(texts(&lines), ["c:a", "c:b", "u:x", "u:y"]);
        assert!(rest.is_none());

        // A client's end stops it: the upstream's lines wait for the next turn, as the loop would leave them.
        tx.send(client_line("c")).await.unwrap();
        tx.send(Input::Client(ClientEvent::Signal("SIGTERM")))
            .await
            .unwrap();
        tx.send(client_line("d")).await.unwrap();
        rtx.send(upstream_line("z")).await.unwrap();
        let first = match rx.recv().await {
            Some(Input::Client(e)) => Turn::Client(e),
            None => unreachable!(),
        };
        let (lines, rest) = gather(first, &mut rx, &mut reports);
        assert_eq!(texts(&lines), ["c:c"]);
        assert!(matches!(
            rest,
            Some(Turn::Client(ClientEvent::Signal("SIGTERM")))
        ));

        // An upstream turn takes the upstream's lines only, up to what is not a line.
        rtx.send(Report::StderrClosed).await.unwrap();
        rtx.send(upstream_line("w")).await.unwrap();
        let first = Turn::Report(reports.recv().await);
        let (lines, rest) = gather(first, &mut rx, &mut reports);
        assert_eq!(texts(&lines), ["u:z"]);
        assert!(matches!(
            rest,
            Some(Turn::Report(Some(Report::StderrClosed)))
        ));

        // No more than a batch's lines at once; the rest wait.
        for n in 0..BATCH_LINES + 3 {
            tx.send(client_line(&n.to_string())).await.unwrap();
        }
        let first = match rx.recv().await {
            Some(Input::Client(e)) => Turn::Client(e),
            None => unreachable!(),
        };
        let (lines, rest) = gather(first, &mut rx, &mut reports);
        assert_eq!(lines.len(), BATCH_LINES);
        assert!(rest.is_none());
        assert_eq!(
            texts(&lines[..2]),
            ["c:d", "c:0"],
            "in the order they were read"
        );
    }

    #[test]
    fn an_upstream_stopped_answering_once_a_request_timed_out_with_nothing_from_it() {
        let shared = Liveness::new();
        let mut owed = Owed {
            shared: Some(shared.clone()),
            ..Owed::default()
        };
        owed.update(0);
        assert_eq!(shared.silent_for(), None, "nothing asked, nothing owed");
        // Requests waiting, none timed out (a long tool within its own wait): no case.
        owed.update(2);
        std::thread::sleep(Duration::from_millis(20));
        owed.update(2);
        assert_eq!(shared.silent_for(), None);
        // One times out: silent since the first was owed, and it still owes (the guard answered, not it).
        owed.timed_out = true;
        owed.update(1);
        assert!(shared
            .silent_for()
            .is_some_and(|d| d >= Duration::from_millis(15)));
        owed.update(0);
        assert!(
            shared.silent_for().is_some(),
            "a timeout answered by the guard is no sign of life"
        );
        // A line, of any kind: answering again.
        owed.heard();
        owed.update(1);
        assert_eq!(shared.silent_for(), None);
        // The client cancelled what waited: nothing owed.
        owed.update(0);
        owed.timed_out = true;
        owed.heard();
        owed.update(0);
        assert_eq!(shared.silent_for(), None);
    }

    #[tokio::test]
    async fn answers_go_back_on_the_stream_their_request_came_on() {
        let (port, inbox) = super::inbox();
        let sink = Collect::default();
        let relay = tokio::spawn(run(
            config(&["cat"], true, None),
            Box::new(Scripted::default()),
            inbox,
            Box::new(sink.clone()),
            Arc::new(Metrics::new()),
        ));
        let a = line(&port, 1, r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#).await;
        assert_eq!(
            a,
            Ack {
                to_stream: 0,
                to_upstream: true,
                broken: false
            }
        );
        line(&port, 2, r#"{"jsonrpc":"2.0","id":"b","method":"x"}"#).await;
        let bad = line(&port, 3, "bad").await;
        assert_eq!(
            bad,
            Ack {
                to_stream: 1,
                to_upstream: false,
                broken: false
            },
            "an answer at once is counted for its stream"
        );
        let got = sink.wait_for(3).await;
        assert!(
            got.contains(&(Some(1), r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#.into())),
            "{got:?}"
        );
        assert!(
            got.contains(&(Some(2), r#"{"jsonrpc":"2.0","id":"b","method":"x"}"#.into())),
            "{got:?}"
        );
        assert_eq!(got.iter().filter(|(s, _)| *s == Some(3)).count(), 1);
        assert!(port.send(ClientEvent::Retire).await);
        let end = tokio::time::timeout(Duration::from_secs(10), relay)
            .await
            .expect("a retired relay ends")
            .unwrap();
        assert!(matches!(end.exit, Exit::Upstream(_)));
    }

    #[tokio::test]
    async fn a_dead_upstream_answers_every_open_stream_and_the_relay_lingers_until_retired() {
        let (port, inbox) = super::inbox();
        let sink = Collect::default();
        let (state_tx, mut state) = watch::channel(RelayState::Starting);
        // Reads one line, then exits without answering.
        let command = ["sh", "-c", "read line; exit 3"];
        let relay = tokio::spawn(run(
            config(&command, true, Some(state_tx)),
            Box::new(Scripted::default()),
            inbox,
            Box::new(sink.clone()),
            Arc::new(Metrics::new()),
        ));
        line(&port, 7, r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#).await;
        line(&port, 8, r#"{"jsonrpc":"2.0","id":8,"method":"x"}"#).await;
        state
            .wait_for(|s| *s == RelayState::UpstreamGone)
            .await
            .unwrap();
        let got = sink.wait_for(2).await;
        let mut streams: Vec<_> = got.iter().map(|(s, _)| *s).collect();
        streams.sort();
        assert_eq!(
            streams,
            [Some(7), Some(8)],
            "each open stream answered once: {got:?}"
        );
        // Lingering: a later line is still handed to the session (which answers it, knowing the upstream failed).
        let later = line(&port, 9, "bad").await;
        assert_eq!(later.to_stream, 1);
        assert!(!relay.is_finished());
        assert!(port.send(ClientEvent::Retire).await);
        let end = tokio::time::timeout(Duration::from_secs(10), relay)
            .await
            .expect("ends once retired")
            .unwrap();
        match end.exit {
            Exit::Upstream(st) => assert_eq!(st.code(), Some(3)),
            _ => panic!("the upstream's own status"),
        }
        assert_eq!(end.code, 3);
        assert_eq!(*state.borrow(), RelayState::Ended);
    }

    #[tokio::test]
    async fn a_closed_stream_is_told_to_the_session() {
        let (port, inbox) = super::inbox();
        let policy = Scripted::default();
        let closed = policy.closed.clone();
        let relay = tokio::spawn(run(
            config(&["sh", "-c", "cat >/dev/null"], true, None),
            Box::new(policy),
            inbox,
            Box::new(Collect::default()),
            Arc::new(Metrics::new()),
        ));
        line(&port, 4, r#"{"jsonrpc":"2.0","id":4,"method":"x"}"#).await;
        assert!(port.send(ClientEvent::StreamClosed(4)).await);
        line(&port, 5, "bad").await;
        assert_eq!(*closed.lock().unwrap(), [4]);
        assert!(port.send(ClientEvent::Retire).await);
        tokio::time::timeout(Duration::from_secs(10), relay)
            .await
            .expect("ends")
            .unwrap();
    }

    #[tokio::test]
    async fn a_stdio_relay_ends_with_its_upstream_and_a_spawn_failure_answers_until_the_client_leaves(
    ) {
        let (port, inbox) = super::inbox();
        let relay = tokio::spawn(run(
            config(&["sh", "-c", "exit 5"], false, None),
            Box::new(Scripted::default()),
            inbox,
            Box::new(Collect::default()),
            Arc::new(Metrics::new()),
        ));
        let end = tokio::time::timeout(Duration::from_secs(10), relay)
            .await
            .expect("ends with its upstream")
            .unwrap();
        assert_eq!(end.code, 5);
        drop(port);

        let (port, inbox) = super::inbox();
        let sink = Collect::default();
        let relay = tokio::spawn(run(
            config(&["/nonexistent/upstream"], false, None),
            Box::new(Scripted::default()),
            inbox,
            Box::new(sink.clone()),
            Arc::new(Metrics::new()),
        ));
        assert_eq!(line(&port, 1, "bad").await.to_stream, 1);
        assert!(
            port.send(ClientEvent::Line {
                stream: None,
                read: Read::Eof,
                at: Instant::now(),
                permit: None,
                ack: None
            })
            .await
        );
        let end = tokio::time::timeout(Duration::from_secs(10), relay)
            .await
            .expect("ends when the client leaves")
            .unwrap();
        assert!(matches!(end.exit, Exit::SpawnFailed));
        assert_eq!(end.code, status::NOT_FOUND);
    }
}
