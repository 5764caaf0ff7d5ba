//! `jsonrpc-errors guard`: the I/O shell around a guard session (`wit/world.wit`, interface `guard`).
//!
//! Every decision about a message is the session's; this shell reads lines, carries out the steps the
//! session returns, keeps the clock, runs the upstream process and reports what happened (logs on stderr,
//! metrics over HTTP). One thread: the session's component instance is entered by one caller at a time,
//! and the I/O waits are what a proxy spends its time on.

mod io;
#[cfg(target_os = "linux")]
pub mod keeper;
mod log_writer;
mod metrics;
mod process;

use io::{Budget, Outgoing, Read};
use jsonrpc_errors_host::guard::{Event, Options, Outcome, Peer, Session, Step, UpstreamGone};
use jsonrpc_errors_host::{Context, Runtime};
use log_writer::LogWriter;
use metrics::Metrics;
pub use metrics::MetricsAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::io::BufReader;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::{mpsc, OwnedSemaphorePermit};
use tokio::time::sleep_until;

pub use process::status;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Text,
}

pub struct Args {
    pub session: Options,
    pub grace: Duration,
    pub max_upstream_bytes: usize,
    pub log_format: LogFormat,
    pub log_level: tracing::Level,
    pub metrics_addr: Option<MetricsAddr>,
    pub command: Vec<String>,
}

/// How long an upstream that closed its stdout gets to exit before it counts as hung, and how long the
/// rest of its output gets to arrive after it exited.
const SETTLE: Duration = Duration::from_millis(500);

pub fn run(args: Args, runtime: Runtime) -> ExitCode {
    let metrics = Arc::new(Metrics::new());
    let log = match LogWriter::start(std::io::stderr(), metrics.log_records_dropped()) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("jsonrpc-errors guard: cannot start the log writer: {e}");
            return ExitCode::from(status::GUARD_FAILED);
        }
    };
    init_logging(args.log_format, args.log_level, log.clone());
    let tokio = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(event = "guard-failed", detail = %e, "cannot start the async runtime");
            return ExitCode::from(status::GUARD_FAILED);
        }
    };
    let code = tokio.block_on(guard(args, runtime, metrics));
    // The client's stdin is read on a blocking thread that may still wait in read(2) (the client keeps its end
    // open): dropping the runtime would wait for it forever, so it is left behind as the process exits.
    tokio.shutdown_background();
    if log.dropped() > 0 {
        tracing::warn!(event = "log-records-dropped", count = log.dropped(), "stderr was not read fast enough: log records were dropped");
    }
    log.drain(LOG_DRAIN);
    ExitCode::from(code)
}

/// How long the guard waits at exit for its last log records to be written (a stderr nobody reads does
/// not hold the exit longer).
const LOG_DRAIN: Duration = Duration::from_secs(1);

fn init_logging(format: LogFormat, level: tracing::Level, writer: LogWriter) {
    let builder = tracing_subscriber::fmt().with_writer(writer).with_max_level(level).with_target(false);
    match format {
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).with_span_list(false).init(),
        LogFormat::Text => builder.with_ansi(false).init(),
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// What the pipes and the process report to the main loop.
enum Input {
    Client(Read, Instant, Option<OwnedSemaphorePermit>),
    Upstream(Read, Instant, Option<OwnedSemaphorePermit>),
    Stderr(Vec<u8>),
    /// The upstream's stderr reached its end.
    StderrClosed,
    WriteFailed(Peer, std::io::Error),
}

/// Reads lines from a pipe into the main loop; each line holds budget until the far side has written it.
fn pump_lines<R>(reader: R, cap: usize, budget: Budget, tx: mpsc::Sender<Input>, wrap: fn(Read, Instant, Option<OwnedSemaphorePermit>) -> Input)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut reader = BufReader::with_capacity(64 * 1024, reader);
        loop {
            let read = io::read_line(&mut reader, cap).await;
            let at = Instant::now();
            let permit = match &read {
                Read::Line(l) => budget.reserve(l.len()).await,
                _ => None,
            };
            let end = matches!(read, Read::Eof | Read::Failed(_));
            if tx.send(wrap(read, at, permit)).await.is_err() || end {
                break;
            }
        }
    });
}

/// A writer task for one peer: counts what it writes (and the latency it added) and reports a failure.
fn spawn_writer<W>(
    writer: W,
    peer: Peer,
    metrics: Arc<Metrics>,
    tx: mpsc::Sender<Input>,
) -> (mpsc::UnboundedSender<Outgoing>, tokio::task::JoinHandle<()>)
where
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Outgoing>();
    let handle = tokio::spawn(async move {
        let written = |o: &Outgoing| {
            metrics.written(peer, o.forwarded);
            if let Some(at) = o.read_at {
                metrics.latency(peer, at.elapsed());
            }
        };
        if let Err(e) = io::write_lines(writer, out_rx, written).await {
            let _ = tx.send(Input::WriteFailed(peer, e)).await;
        }
    });
    (out_tx, handle)
}

/// Where the upstream process stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Running normally.
    Running,
    /// Its stdin is closed (the client left, or it closed its output); waiting for it to exit.
    Closing(Instant),
    /// SIGTERM sent to its group.
    Terminating(Instant),
    /// SIGKILL sent to its group.
    Killed,
}

struct Shell {
    session: Session,
    metrics: Arc<Metrics>,
    client_out: Option<mpsc::UnboundedSender<Outgoing>>,
    upstream_out: Option<mpsc::UnboundedSender<Outgoing>>,
    deadline: Option<u64>,
    /// The policy component failed (a trap): the guard stops relaying and exits 125.
    broken: bool,
    stderr_ended: bool,
}

impl Shell {
    fn send(&self, to: Peer, bytes: Vec<u8>, forwarded: bool, read_at: Option<Instant>, permit: Option<OwnedSemaphorePermit>) {
        let out = match to {
            Peer::Client => &self.client_out,
            Peer::Upstream => &self.upstream_out,
        };
        if let Some(out) = out {
            // A closed writer (its peer is gone) drops the line: nobody is there to read it.
            let _ = out.send(Outgoing { bytes, forwarded, read_at, permit });
        }
    }

    /// The upstream's stderr as read, redacted by the session (which cuts it at line ends), one log record
    /// per line.
    fn log_stderr(&mut self, bytes: &[u8]) {
        let clean = self.session.upstream_stderr(bytes);
        self.log_stderr_lines(clean);
    }

    /// The upstream's stderr has ended (or is no longer waited for): the line the session held, if any.
    fn end_stderr(&mut self) {
        if !std::mem::replace(&mut self.stderr_ended, true) {
            let clean = self.session.upstream_stderr_end();
            self.log_stderr_lines(clean);
        }
    }

    fn log_stderr_lines(&mut self, clean: Result<String, jsonrpc_errors_host::Failure>) {
        match clean {
            Ok(clean) => {
                for line in clean.lines().filter(|l| !l.is_empty()) {
                    tracing::info!(event = "upstream-stderr", "{line}");
                }
            }
            Err(_) => self.broken = true,
        }
    }

    /// Carries out a session call's steps. `line` is the line the call was about (for `forward`), `permit`
    /// the budget it holds, and `budget` the budget of the reader that read it: what the guard writes
    /// itself because of that line is charged to it too, so a peer that does not read the guard's answers
    /// to another peer's lines stops that peer's reader instead of growing the guard's memory.
    fn apply(
        &mut self,
        outcome: Result<Outcome, jsonrpc_errors_host::Failure>,
        mut line: Option<Vec<u8>>,
        read_at: Option<Instant>,
        mut permit: Option<OwnedSemaphorePermit>,
        budget: Option<&Budget>,
    ) {
        let outcome = match outcome {
            Ok(o) => o,
            Err(_) => {
                tracing::error!(event = "guard-failed", "the policy component failed; the guard stops");
                self.broken = true;
                return;
            }
        };
        // A line answered instead of forwarded hands its budget on to what the guard writes in its place.
        let forwarded = outcome.steps.iter().any(|s| matches!(s, Step::Forward { .. }));
        for step in outcome.steps {
            match step {
                Step::Forward { to, .. } => match line.take() {
                    Some(bytes) => self.send(to, bytes, true, read_at, permit.take()),
                    None => tracing::error!(event = "guard-failed", "a line was to be forwarded twice; the second copy was not"),
                },
                Step::Send { to, line, .. } => {
                    let mut held = if forwarded { None } else { permit.take() };
                    let needed = line.len() + 1;
                    let covered = held.as_ref().map_or(0, |p| p.num_permits());
                    if let Some(extra) = budget.filter(|_| needed > covered).and_then(|b| b.charge(needed - covered)) {
                        match &mut held {
                            Some(h) => h.merge(extra),
                            None => held = Some(extra),
                        }
                    }
                    self.send(to, line.into_bytes(), false, read_at, held)
                }
                Step::Event(e) => {
                    self.metrics.event(&e);
                    log_event(&e);
                }
            }
        }
        self.deadline = outcome.deadline;
        self.metrics.set_pending(outcome.pending);
    }
}

fn log_event(e: &Event) {
    let id = e.id.as_ref().map(|v| v.to_string());
    macro_rules! emit {
        ($level:ident) => {
            tracing::$level!(
                event = e.event.as_str(),
                kind = e.kind.as_deref(),
                code = e.code,
                category = e.category.as_deref(),
                gate = e.gate.as_deref(),
                correlation_id = e.correlation_id.as_deref(),
                id = id.as_deref(),
                method = e.method.as_deref(),
                detail = e.detail.as_deref(),
                "{}",
                e.kind.as_deref().unwrap_or(e.event.as_str())
            )
        };
    }
    match e.level.as_str() {
        "error" => emit!(error),
        "warn" => emit!(warn),
        "info" => emit!(info),
        _ => emit!(debug),
    }
}

async fn guard(args: Args, runtime: Runtime, metrics: Arc<Metrics>) -> u8 {
    if let Some(addr) = &args.metrics_addr {
        match metrics::bind(addr).await {
            Ok(listener) => {
                // The bound address, which --metrics-addr HOST:0 leaves to the system, is logged.
                if let Ok(bound) = listener.local_addr() {
                    tracing::info!(event = "metrics", addr = %bound, "serving Prometheus metrics on http://{bound}/metrics");
                }
                tokio::spawn(metrics::serve(listener, metrics.clone()));
            }
            Err(e) => {
                tracing::error!(event = "guard-failed", detail = %e, "cannot serve metrics on {addr}");
                return status::GUARD_FAILED;
            }
        }
    }
    let session = match runtime.guard_session(&args.session) {
        Ok(s) => s,
        Err(f) => {
            tracing::error!(event = "guard-failed", detail = %f, "cannot open a guard session");
            return status::GUARD_FAILED;
        }
    };
    let upstream = match process::spawn(&args.command) {
        Ok(upstream) => upstream,
        Err(e) => {
            metrics.upstream_ended("spawn-failed");
            tracing::error!(event = "upstream-failed", detail = %e, "cannot start the upstream {:?}", args.command[0]);
            let code = process::spawn_failure_code(&e);
            let mut shell = Shell { session, metrics, client_out: None, upstream_out: None, deadline: None, broken: false, stderr_ended: true };
            let outcome = shell.session.upstream_failed(&UpstreamGone::SpawnFailed(e.to_string()), Context::now());
            shell.apply(outcome, None, None, None, None);
            return answer_without_upstream(shell, args.session.max_bytes, code).await;
        }
    };
    let pgid = upstream.pid;
    let mut child = upstream.child;
    tracing::info!(event = "started", pid = pgid, "upstream {:?} started", args.command[0]);

    let (tx, mut rx) = mpsc::channel::<Input>(256);
    let from_client = Budget::new();
    let from_upstream = Budget::new();
    let (Some(child_in), Some(child_out), Some(child_err)) = (child.stdin.take(), child.stdout.take(), child.stderr.take()) else {
        tracing::error!(event = "guard-failed", "the upstream's pipes are missing");
        return status::GUARD_FAILED;
    };
    pump_lines(tokio::io::stdin(), args.session.max_bytes.unwrap_or(10 * 1024 * 1024) as usize, from_client.clone(), tx.clone(), Input::Client);
    pump_lines(child_out, args.max_upstream_bytes, from_upstream.clone(), tx.clone(), Input::Upstream);
    {
        let tx = tx.clone();
        tokio::spawn(async move {
            let lines = tx.clone();
            io::read_stderr_bursts(child_err, async move |bytes: Vec<u8>| {
                let _ = lines.send(Input::Stderr(bytes)).await;
            })
            .await;
            let _ = tx.send(Input::StderrClosed).await;
        });
    }
    let (client_out, client_writer) = spawn_writer(tokio::io::stdout(), Peer::Client, metrics.clone(), tx.clone());
    let (upstream_out, _) = spawn_writer(child_in, Peer::Upstream, metrics.clone(), tx.clone());
    drop(tx);

    let mut shell = Shell { session, metrics: metrics.clone(), client_out: Some(client_out), upstream_out: Some(upstream_out), deadline: None, broken: false, stderr_ended: false };
    let mut stage = Stage::Running;
    let mut terminated_by_guard = false;
    let mut exited: Option<(std::process::ExitStatus, Instant)> = None;
    let mut output_closed: Option<Instant> = None;
    let mut reported = false;
    let mut signals = Signals::new();
    let mut inputs_open = true;
    let mut stderr_open = true;

    loop {
        if shell.broken && stage == Stage::Running {
            stage = close_upstream(&mut shell);
        }
        if let (Some(_), true) = (exited, reported || shell.broken) {
            break;
        }
        // Report the upstream's end once both its output and its exit are known (or one has waited long
        // enough for the other), so every response it wrote before dying is relayed first.
        if !reported {
            let now = Instant::now();
            let gone = match (exited, output_closed) {
                (Some((st, _)), Some(_)) => Some(process::gone(st)),
                (Some((st, at)), None) if now >= at + SETTLE => Some(process::gone(st)),
                (None, Some(at)) if now >= at + SETTLE => Some(UpstreamGone::ClosedOutput),
                _ => None,
            };
            if let Some(gone) = gone {
                reported = true;
                metrics.upstream_ended(match gone {
                    UpstreamGone::Exited(_) => "exited",
                    UpstreamGone::Killed(_) => "killed",
                    UpstreamGone::ClosedOutput => "closed-output",
                    UpstreamGone::SpawnFailed(_) => "spawn-failed",
                });
                let outcome = shell.session.upstream_failed(&gone, Context::now());
                shell.apply(outcome, None, None, None, None);
                if gone == UpstreamGone::ClosedOutput && stage == Stage::Running {
                    stage = close_upstream(&mut shell);
                }
                continue;
            }
        }
        // One millisecond late rather than early: the session compares the deadline with the wall clock.
        let expire_at = shell.deadline.map(|d| Instant::now() + Duration::from_millis(d.saturating_sub(now_ms()) + 1));
        let settle_at = match (exited, output_closed, reported) {
            (_, _, true) => None,
            (Some((_, at)), None, _) | (None, Some(at), _) => Some(at + SETTLE),
            _ => None,
        };
        let escalate_at = match stage {
            Stage::Closing(at) | Stage::Terminating(at) if exited.is_none() => Some(at + args.grace),
            _ => None,
        };
        let timer = [expire_at, settle_at, escalate_at].into_iter().flatten().min();

        tokio::select! {
            biased;
            input = rx.recv(), if inputs_open => match input {
                Some(Input::Client(read, at, permit)) => match read {
                    Read::Line(line) => {
                        metrics.line_read(Peer::Client);
                        let outcome = shell.session.client_line(&line, Context::now());
                        shell.apply(outcome, Some(line), Some(at), permit, Some(&from_client));
                    }
                    Read::Oversize { length, head, tail } => {
                        metrics.line_read(Peer::Client);
                        let outcome = shell.session.client_oversize(length, &head, &tail, Context::now());
                        shell.apply(outcome, None, Some(at), None, Some(&from_client));
                    }
                    Read::Eof | Read::Failed(_) => {
                        if let Read::Failed(e) = read {
                            tracing::warn!(event = "client-input-failed", detail = %e, "cannot read the client's input");
                        }
                        tracing::info!(event = "client-closed", "the client closed its input; stopping the upstream");
                        if stage == Stage::Running {
                            stage = close_upstream(&mut shell);
                        }
                    }
                },
                Some(Input::Upstream(read, at, permit)) => match read {
                    Read::Line(line) => {
                        metrics.line_read(Peer::Upstream);
                        let outcome = shell.session.upstream_line(&line, Context::now());
                        shell.apply(outcome, Some(line), Some(at), permit, Some(&from_upstream));
                    }
                    Read::Oversize { length, head, tail } => {
                        metrics.line_read(Peer::Upstream);
                        let outcome = shell.session.upstream_oversize(length, &head, &tail, Context::now());
                        shell.apply(outcome, None, Some(at), None, Some(&from_upstream));
                    }
                    Read::Eof | Read::Failed(_) => {
                        if let Read::Failed(e) = read {
                            tracing::warn!(event = "upstream-output-failed", detail = %e, "cannot read the upstream's output");
                        }
                        output_closed.get_or_insert_with(Instant::now);
                    }
                },
                Some(Input::Stderr(bytes)) => shell.log_stderr(&bytes),
                Some(Input::StderrClosed) => {
                    stderr_open = false;
                    shell.end_stderr();
                }
                Some(Input::WriteFailed(peer, e)) => match peer {
                    Peer::Client => {
                        tracing::info!(event = "client-closed", detail = %e, "the client stopped reading; stopping the upstream");
                        shell.client_out = None;
                        if stage == Stage::Running {
                            stage = close_upstream(&mut shell);
                        }
                    }
                    Peer::Upstream => {
                        tracing::warn!(event = "upstream-input-closed", detail = %e, "the upstream stopped reading its input");
                        shell.upstream_out = None;
                    }
                },
                None => inputs_open = false,
            },
            status = child.wait(), if exited.is_none() => match status {
                Ok(st) => exited = Some((st, Instant::now())),
                Err(e) => {
                    tracing::error!(event = "guard-failed", detail = %e, "cannot wait for the upstream");
                    return status::GUARD_FAILED;
                }
            },
            name = signals.recv() => {
                tracing::info!(event = "signal", "received {name}; stopping the upstream");
                if stage == Stage::Running {
                    stage = close_upstream(&mut shell);
                }
            }
            _ = sleep_until(timer.unwrap_or_else(Instant::now).into()), if timer.is_some() => {
                let now = Instant::now();
                if expire_at.is_some_and(|at| now >= at) {
                    let outcome = shell.session.expire(Context::now());
                    shell.apply(outcome, None, None, None, None);
                }
                if exited.is_none() {
                    match stage {
                        Stage::Closing(at) if now >= at + args.grace => {
                            tracing::warn!(event = "terminating", "the upstream did not exit within {:?} of its input closing: SIGTERM", args.grace);
                            process::signal_group(pgid, libc::SIGTERM);
                            terminated_by_guard = true;
                            stage = Stage::Terminating(now);
                        }
                        Stage::Terminating(at) if now >= at + args.grace => {
                            tracing::warn!(event = "terminating", "the upstream ignored SIGTERM for {:?}: SIGKILL", args.grace);
                            process::signal_group(pgid, libc::SIGKILL);
                            stage = Stage::Killed;
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    // What the upstream wrote to stderr as it died is still on its way (read in bursts): relay it until its
    // stderr ends, or briefly when something it left behind keeps the pipe open.
    let settle = tokio::time::Instant::now() + SETTLE;
    while stderr_open {
        match tokio::time::timeout_at(settle, rx.recv()).await {
            Ok(Some(Input::Stderr(bytes))) => shell.log_stderr(&bytes),
            Ok(Some(Input::StderrClosed) | None) | Err(_) => stderr_open = false,
            Ok(Some(_)) => {}
        }
    }
    shell.end_stderr();
    // The upstream has ended and its end was reported: deliver what is queued for the client, then leave.
    if process::group_alive(pgid) {
        process::signal_group(pgid, libc::SIGTERM);
        tracing::info!(event = "leftovers", "terminated what was left of the upstream's process group");
    }
    shell.upstream_out = None;
    shell.client_out = None;
    let _ = tokio::time::timeout(args.grace, client_writer).await;
    let (st, _) = exited.expect("the loop ends once the upstream has exited");
    let code = if shell.broken { status::GUARD_FAILED } else { process::exit_code(st, terminated_by_guard) };
    tracing::info!(event = "exit", status = code, "upstream ended ({st}); guard exits with {code}");
    code
}

/// The upstream could not be started: a client that already wrote a request (it cannot know) is still owed
/// an answer, and so is every request it sends, until it closes its input (or a signal ends the guard). The
/// session, told of the failure, answers each one; then the guard exits with `code` (126 or 127).
async fn answer_without_upstream(mut shell: Shell, max_bytes: Option<u64>, code: u8) -> u8 {
    let (tx, mut rx) = mpsc::channel::<Input>(256);
    let from_client = Budget::new();
    pump_lines(tokio::io::stdin(), max_bytes.unwrap_or(10 * 1024 * 1024) as usize, from_client.clone(), tx.clone(), Input::Client);
    let (client_out, client_writer) = spawn_writer(tokio::io::stdout(), Peer::Client, shell.metrics.clone(), tx.clone());
    drop(tx);
    shell.client_out = Some(client_out);
    let mut signals = Signals::new();
    loop {
        tokio::select! {
            input = rx.recv() => match input {
                Some(Input::Client(Read::Line(line), at, permit)) => {
                    shell.metrics.line_read(Peer::Client);
                    let outcome = shell.session.client_line(&line, Context::now());
                    shell.apply(outcome, Some(line), Some(at), permit, Some(&from_client));
                }
                Some(Input::Client(Read::Oversize { length, head, tail }, at, _)) => {
                    shell.metrics.line_read(Peer::Client);
                    let outcome = shell.session.client_oversize(length, &head, &tail, Context::now());
                    shell.apply(outcome, None, Some(at), None, Some(&from_client));
                }
                Some(Input::WriteFailed(..)) | Some(Input::Client(Read::Eof | Read::Failed(_), ..)) | None => break,
                Some(_) => {}
            },
            name = signals.recv() => {
                tracing::info!(event = "signal", "received {name}; exiting");
                break;
            }
        }
        if shell.broken {
            return status::GUARD_FAILED;
        }
    }
    shell.client_out = None;
    let _ = tokio::time::timeout(Duration::from_secs(2), client_writer).await;
    tracing::info!(event = "exit", status = code, "the upstream could not be started; guard exits with {code}");
    code
}

/// Closes the upstream's stdin (its writer drains what is queued first): the start of MCP's shutdown.
fn close_upstream(shell: &mut Shell) -> Stage {
    shell.upstream_out = None;
    Stage::Closing(Instant::now())
}

/// SIGTERM, SIGINT and SIGHUP to the guard stop the upstream the same way a closed client does.
struct Signals {
    term: Option<tokio::signal::unix::Signal>,
    int: Option<tokio::signal::unix::Signal>,
    hup: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Self {
        Signals {
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    async fn recv(&mut self) -> &'static str {
        async fn one(s: &mut Option<tokio::signal::unix::Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            _ = one(&mut self.term) => "SIGTERM",
            _ = one(&mut self.int) => "SIGINT",
            _ = one(&mut self.hup) => "SIGHUP",
        }
    }
}
