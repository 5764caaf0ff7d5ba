//! The stdio front: one client on the guard's stdin and stdout, one relay ([`super::core`]). Lines go to
//! the session unrouted (`client-line`: stream 0, byte for byte); SIGTERM, SIGINT and SIGHUP (on Windows:
//! Ctrl-C, Ctrl-Break, the console closing) stop the upstream as a closed stdin does (SIGHUP reloads the
//! policy file instead, with `--config`); the guard exits with the upstream's status.

use super::args::Args;
use super::config;
use super::core::{self, ClientEvent, ClientPort, ClientSink, Exit, RelayConfig};
use super::io::{self, Budget, Outgoing};
use super::metrics::Metrics;
use super::platform::{self, Signals};
use super::process::status;
use jsonrpc_errors_host::guard::{Peer, SessionCalls};
use jsonrpc_errors_host::Runtime;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// What goes to the client: lines for the stdout writer (every stream is the one stdout).
struct StdoutSink {
    out: Option<mpsc::UnboundedSender<Outgoing>>,
}

impl ClientSink for StdoutSink {
    fn deliver(&mut self, _stream: Option<u64>, out: Outgoing) {
        if let Some(tx) = &self.out {
            // A closed writer (the client is gone) drops the line: nobody is there to read it.
            let _ = tx.send(out);
        }
    }

    fn client_gone(&mut self) {
        self.out = None;
    }
}

/// Writes the client's lines to stdout, counting them (and the latency the guard added); a write failure
/// is reported to the relay as the client leaving.
fn spawn_stdout_writer(
    metrics: Arc<Metrics>,
    port: ClientPort,
) -> (mpsc::UnboundedSender<Outgoing>, tokio::task::JoinHandle<()>) {
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Outgoing>();
    let handle = tokio::spawn(async move {
        let written = |o: &Outgoing| {
            metrics.written(Peer::Client, o.forwarded);
            if let Some(at) = o.read_at {
                metrics.latency(Peer::Client, at.elapsed());
            }
        };
        if let Err(e) = io::write_lines(platform::stdout(), out_rx, written).await {
            port.send(ClientEvent::WriteFailed(e)).await;
        }
    });
    (out_tx, handle)
}

/// Relays between this process's stdin/stdout and the upstream until the upstream has ended; returns the
/// guard's exit status.
pub async fn serve(
    args: Args,
    session: Box<dyn SessionCalls>,
    metrics: Arc<Metrics>,
    runtime: Runtime,
) -> u8 {
    let (port, inbox) = core::inbox();
    let from_client = Budget::new();
    let mut signals = Signals::new();
    {
        let port = port.clone();
        let config = args.config.clone();
        tokio::spawn(async move {
            loop {
                let name = signals.recv().await;
                let event = match (&config, name) {
                    (Some(file), "SIGHUP") => match config::reload_policy(file, &runtime) {
                        Some(policy) => ClientEvent::Reload(policy),
                        None => continue,
                    },
                    _ => ClientEvent::Signal(name),
                };
                if !port.send(event).await {
                    break;
                }
            }
        });
    }
    core::pump_client(
        platform::stdin(),
        args.settings.max_bytes as usize,
        from_client.clone(),
        port.clone(),
    );
    let (client_out, client_writer) = spawn_stdout_writer(metrics.clone(), port.clone());
    drop(port);
    let grace = args.transport.grace();
    let config = RelayConfig {
        transport: args.transport.clone(),
        client_budget: from_client,
        linger: false,
        state: None,
        liveness: None,
    };
    let end = core::run(
        config,
        session,
        inbox,
        Box::new(StdoutSink {
            out: Some(client_out),
        }),
        metrics,
    )
    .await;
    // Deliver what is queued for the client, then leave.
    drop(end.sink);
    match end.exit {
        Exit::Upstream(st) => {
            let _ = tokio::time::timeout(grace, client_writer).await;
            tracing::info!(
                event = "exit",
                status = end.code,
                "upstream ended ({st}); guard exits with {}",
                end.code
            );
        }
        Exit::Remote => {
            let _ = tokio::time::timeout(grace, client_writer).await;
            tracing::info!(
                event = "exit",
                status = end.code,
                "the client left; the upstream's session was closed; guard exits with {}",
                end.code
            );
        }
        Exit::SpawnFailed => {
            let _ = tokio::time::timeout(Duration::from_secs(2), client_writer).await;
            tracing::info!(
                event = "exit",
                status = end.code,
                "the upstream could not be started; guard exits with {}",
                end.code
            );
        }
        Exit::Failed => {}
    }
    if matches!(end.exit, Exit::Failed) {
        return status::GUARD_FAILED;
    }
    end.code
}
