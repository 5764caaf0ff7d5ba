//! `jsonrpc-errors guard`: the I/O shell around a guard session (`wit/world.wit`, interface `guard`).
//!
//! Every decision about a message is the session's; this shell reads lines, carries out the steps the
//! session returns, keeps the clock, runs the upstream process and reports what happened (logs on stderr,
//! metrics over HTTP). One relay core ([`core`]: a session and its upstream process) and two fronts: stdio
//! ([`stdio`], one client on this process's stdin and stdout, one thread) and Streamable HTTP ([`http`],
//! `--listen`: many clients, a relay per legacy session and one shared by stateless requests).

mod args;
pub mod config;
mod core;
mod events;
pub mod http;
mod io;
mod log_writer;
mod metrics;
pub mod platform;
mod process;
mod stdio;
pub mod transport;

pub use args::{Args, LogFormat};
use jsonrpc_errors_host::Runtime;
use log_writer::LogWriter;
use metrics::Metrics;
pub use metrics::MetricsAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub use process::status;

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
    // The stdio guard is one session on one thread; the HTTP front serves many connections and relays.
    let built = match args.listen {
        None => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        Some(_) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(
                std::thread::available_parallelism()
                    .map_or(2, |n| n.get())
                    .clamp(2, 8),
            )
            .enable_all()
            .build(),
    };
    let tokio = match built {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(event = "guard-failed", detail = %e, "cannot start the async runtime");
            return ExitCode::from(status::GUARD_FAILED);
        }
    };
    let code = tokio.block_on(guard(args, runtime, metrics));
    // A stdin that is no pipe or socket (a terminal, a file; any stdin on Windows: `platform::stdin`) is
    // read on a blocking thread that may still wait in read(2): dropping the runtime would wait for it
    // forever, so it is left behind as the process exits.
    tokio.shutdown_background();
    if log.dropped() > 0 {
        tracing::warn!(
            event = "log-records-dropped",
            count = log.dropped(),
            "stderr was not read fast enough: log records were dropped"
        );
    }
    log.drain(LOG_DRAIN);
    ExitCode::from(code)
}

/// How long the guard waits at exit for its last log records to be written (a stderr nobody reads does
/// not hold the exit longer).
const LOG_DRAIN: Duration = Duration::from_secs(1);

fn init_logging(format: LogFormat, level: tracing::Level, writer: LogWriter) {
    let builder = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_max_level(level)
        .with_target(false);
    match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .init(),
        LogFormat::Text => builder.with_ansi(false).init(),
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
    if let Some(listen) = args.listen.clone() {
        return http::serve(args, listen, runtime, metrics).await;
    }
    let session = match runtime.guard_session(&args.session) {
        Ok(s) => s,
        Err(f) => {
            tracing::error!(event = "guard-failed", detail = %f, "cannot open a guard session");
            return status::GUARD_FAILED;
        }
    };
    stdio::serve(args, Box::new(session), metrics, runtime).await
}
