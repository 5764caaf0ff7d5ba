//! The upstream as a child process: started through [`crate::proxy::process`] as the leader of a process
//! tree that ends with the guard ([`crate::proxy::platform`]: a keeper on Linux, a watcher on macOS, a job
//! object on Windows), its stdout read line by line, its stderr in bursts, its stdin written; stopped the way
//! MCP prescribes for stdio (stdin closed, then a polite signal where the platform has one (SIGTERM to its
//! group), then the whole tree killed); its end reported once both its output and its exit are known, so
//! that every response it wrote before dying is relayed first.

use super::report::{Ended, Exit, Handle, Report, StartFailed};
use crate::proxy::io::{self, Budget, Outgoing};
use crate::proxy::metrics::Metrics;
use crate::proxy::process::{self, status};
use jsonrpc_errors_host::guard::{Peer, UpstreamFailure};
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use tokio::time::sleep_until;

/// How long an upstream that closed its stdout gets to exit before it counts as hung, and how long the
/// rest of its output gets to arrive after it exited.
pub const SETTLE: Duration = Duration::from_millis(500);

/// A command to run as the upstream.
#[derive(Clone, Debug)]
pub struct Spec {
    pub command: Vec<String>,
    /// How long it gets to exit after its stdin closes, and again after SIGTERM (where there is one).
    pub grace: Duration,
    /// The longest line read from its stdout; a longer one is discarded as it streams.
    pub max_upstream_bytes: usize,
}

/// `stdio:PROGRAM`: the name errors and logs give a child (its arguments may carry anything).
pub fn display_name(command: &[String]) -> String {
    let program = command
        .first()
        .map(|c| {
            std::path::Path::new(c)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    format!("stdio:{program}")
}

/// Starts the child and the tasks that read and write its pipes and watch it.
pub fn start(
    spec: &Spec,
    reports: mpsc::Sender<Report>,
    metrics: Arc<Metrics>,
) -> Result<Handle, StartFailed> {
    let upstream = match process::spawn(&spec.command) {
        Ok(upstream) => upstream,
        Err(e) => {
            let gone = UpstreamFailure::SpawnFailed(e.to_string());
            metrics.upstream_ended(gone.case_name());
            tracing::error!(event = "upstream-failed", detail = %e, "cannot start the upstream {:?}", spec.command[0]);
            return Err(StartFailed::Upstream {
                gone,
                code: process::spawn_failure_code(&e),
            });
        }
    };
    let mut upstream = upstream;
    let pid = upstream.tree.pid();
    let child = &mut upstream.child;
    tracing::info!(
        event = "started",
        pid = pid,
        "upstream {:?} started",
        spec.command[0]
    );
    let (Some(child_in), Some(child_out), Some(child_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        tracing::error!(event = "guard-failed", "the upstream's pipes are missing");
        return Err(StartFailed::Broken);
    };
    // Large lines pass in fewer pieces (platform::widen_pipe).
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        crate::proxy::platform::widen_pipe(child_in.as_raw_fd());
        crate::proxy::platform::widen_pipe(child_out.as_raw_fd());
    }
    let (output_closed_tx, output_closed) = oneshot::channel();
    let budget = Budget::new();
    pump_upstream(
        child_out,
        spec.max_upstream_bytes,
        budget.clone(),
        reports.clone(),
        output_closed_tx,
    );
    let (stderr_done_tx, stderr_done) = oneshot::channel();
    {
        let reports = reports.clone();
        tokio::spawn(async move {
            let lines = reports.clone();
            io::read_stderr_bursts(child_err, async move |bytes: Vec<u8>| {
                let _ = lines.send(Report::Stderr(bytes)).await;
            })
            .await;
            let _ = reports.send(Report::StderrClosed).await;
            let _ = stderr_done_tx.send(());
        });
    }
    let lines = spawn_upstream_writer(child_in, metrics.clone(), reports.clone());
    let (close, closed) = oneshot::channel();
    let watch = Watch {
        upstream,
        grace: spec.grace,
        reports,
        metrics,
    };
    tokio::spawn(watch.run(closed, output_closed, stderr_done));
    Ok(Handle {
        lines,
        close,
        budget,
    })
}

/// Reads lines from a pipe into the relay; each line holds budget until the far side has written it. Once
/// the pipe's end has been reported, `closed` is told.
fn pump_upstream<R>(
    reader: R,
    cap: usize,
    budget: Budget,
    tx: mpsc::Sender<Report>,
    closed: oneshot::Sender<()>,
) where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        io::pump(reader, cap, budget, tx, Report::Line).await;
        let _ = closed.send(());
    });
}

/// Writes the lines for the upstream to its stdin, counting them; reports a failure.
fn spawn_upstream_writer<W>(
    writer: W,
    metrics: Arc<Metrics>,
    tx: mpsc::Sender<Report>,
) -> mpsc::UnboundedSender<Outgoing>
where
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Outgoing>();
    tokio::spawn(async move {
        let written = |o: &Outgoing| {
            metrics.written(Peer::Upstream, o.forwarded);
            if let Some(at) = o.read_at {
                metrics.latency(Peer::Upstream, at.elapsed());
            }
        };
        if let Err(e) = io::write_lines_gathered(writer, out_rx, written).await {
            let _ = tx.send(Report::WriteFailed(e)).await;
        }
    });
    out_tx
}

/// Where the upstream process stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Running normally.
    Running,
    /// Its stdin is closed (the client left, or it closed its output); waiting for it to exit.
    Closing(Instant),
    /// Asked to stop (SIGTERM to its group; Windows has no such step).
    Terminating(Instant),
    /// Killed (SIGKILL to its group, or its job terminated).
    Killed,
}

/// The child, watched: its exit, the end of its output, and its shutdown once the relay closes it.
struct Watch {
    /// Held whole for as long as the child is watched: its tree holds what ends the tree with the guard (the
    /// keeper's lifeline on Linux, the watcher on macOS, the job object on Windows).
    upstream: process::Upstream,
    grace: Duration,
    reports: mpsc::Sender<Report>,
    metrics: Arc<Metrics>,
}

impl Watch {
    async fn run(
        mut self,
        mut closed: oneshot::Receiver<()>,
        mut output: oneshot::Receiver<()>,
        stderr_done: oneshot::Receiver<()>,
    ) {
        let mut stage = Stage::Running;
        let mut terminated_by_guard = false;
        let mut exited: Option<(ExitStatus, Instant)> = None;
        let mut output_closed: Option<Instant> = None;
        let mut reported = false;
        let mut close_open = true;
        let mut output_open = true;
        loop {
            if let (Some(_), true) = (exited, reported) {
                break;
            }
            // Report the upstream's end once both its output and its exit are known (or one has waited long
            // enough for the other), so every response it wrote before dying is relayed first.
            if !reported {
                let now = Instant::now();
                let gone = match (exited, output_closed) {
                    (Some((st, _)), Some(_)) => Some(process::gone(st)),
                    (Some((st, at)), None) if now >= at + SETTLE => Some(process::gone(st)),
                    // The end of its output is `closed-output` (the contract: `upstream-failed` in the WIT).
                    (None, Some(at)) if now >= at + SETTLE => Some(UpstreamFailure::ClosedOutput),
                    _ => None,
                };
                if let Some(gone) = gone {
                    reported = true;
                    self.metrics.upstream_ended(gone.case_name());
                    // The relay answers what is pending, and closes the stdin of an upstream that closed its
                    // output but still runs (the close comes back here as `closed`).
                    let _ = self.reports.send(Report::Gone(gone)).await;
                    continue;
                }
            }
            let settle_at = match (exited, output_closed, reported) {
                (_, _, true) => None,
                (Some((_, at)), None, _) | (None, Some(at), _) => Some(at + SETTLE),
                _ => None,
            };
            let escalate_at = match stage {
                Stage::Closing(at) | Stage::Terminating(at) if exited.is_none() => {
                    Some(at + self.grace)
                }
                _ => None,
            };
            let timer = [settle_at, escalate_at].into_iter().flatten().min();
            tokio::select! {
                biased;
                _ = &mut closed, if close_open => {
                    close_open = false;
                    // Its stdin was closed by the relay (its writer drains what is queued first): the start of
                    // MCP's shutdown.
                    if stage == Stage::Running {
                        stage = Stage::Closing(Instant::now());
                    }
                }
                _ = &mut output, if output_open => {
                    output_open = false;
                    output_closed.get_or_insert_with(Instant::now);
                }
                status = self.upstream.child.wait(), if exited.is_none() => match status {
                    Ok(st) => exited = Some((st, Instant::now())),
                    Err(e) => {
                        tracing::error!(event = "guard-failed", detail = %e, "cannot wait for the upstream");
                        let _ = self.reports.send(Report::Ended(Ended { code: status::GUARD_FAILED, exit: Exit::Failed })).await;
                        return;
                    }
                },
                _ = sleep_until(timer.unwrap_or_else(Instant::now).into()), if timer.is_some() => {
                    let now = Instant::now();
                    if exited.is_none() {
                        match stage {
                            Stage::Closing(at) if now >= at + self.grace => {
                                terminated_by_guard = true;
                                let tree = &self.upstream.tree;
                                stage = match tree.terminate() {
                                    Some(sent) => {
                                        tracing::warn!(event = "terminating", "the upstream did not exit within {:?} of its input closing: {sent}", self.grace);
                                        Stage::Terminating(now)
                                    }
                                    // No polite signal on this platform (Windows): the tree is ended now.
                                    None => {
                                        let done = tree.kill();
                                        tracing::warn!(event = "terminating", "the upstream did not exit within {:?} of its input closing: {done}", self.grace);
                                        Stage::Killed
                                    }
                                };
                            }
                            Stage::Terminating(at) if now >= at + self.grace => {
                                let done = self.upstream.tree.kill();
                                tracing::warn!(event = "terminating", "the upstream ignored the request to stop for {:?}: {done}", self.grace);
                                stage = Stage::Killed;
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        // What the upstream wrote to stderr as it died is still on its way (read in bursts): relayed until its
        // stderr ends, or briefly when something it left behind keeps the pipe open.
        let _ = tokio::time::timeout(SETTLE, stderr_done).await;
        // The upstream has ended and its end was reported: what is left of its tree goes too.
        let tree = &self.upstream.tree;
        if tree.alive() {
            let sent = tree.terminate().unwrap_or_else(|| tree.kill());
            tracing::info!(
                event = "leftovers",
                "ended what was left of the upstream's process tree ({sent})"
            );
        }
        let (st, _) = exited.expect("the loop ends once the upstream has exited");
        let code = process::exit_code(st, terminated_by_guard);
        let _ = self
            .reports
            .send(Report::Ended(Ended {
                code,
                exit: Exit::Upstream(st),
            }))
            .await;
    }
}
