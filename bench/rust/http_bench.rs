//! `cargo run --release -p jsonrpc-errors-bench --bin http_bench -- [options]` — the HTTP front's load
//! benchmark (issue 26): the same stdio MCP server behind `guard --listen`, behind supergateway (npm,
//! Streamable HTTP) and behind mcp-proxy (PyPI), driven by one load generator, measured in one run.
//! `scripts/bench.sh http [-- options]` installs the peers (pinned) and runs it; it is a benchmark, never a test.
//!
//! One program holds every part:
//! - `--serve`: the upstream, a fast MCP-like stdio server (`common/stdio_server.rs`, shared with
//!   guard_bench), the same one behind every target;
//! - `--echo-http HOST:PORT`: a do-nothing Streamable HTTP server (sessions, JSON answers, no upstream):
//!   the `echo` target, which shows what the load generator itself can push on this machine;
//! - the driver (default): runs the targets one after another (rounds alternating), each with C clients
//!   (default 64). Every client has a keep-alive connection of its own and, in the 2025-11-25 era, a
//!   session of its own (`initialize`, `notifications/initialized`, then `Mcp-Session-Id` and
//!   `MCP-Protocol-Version` on every request); in the stateless 2026-07-28 era each request carries its
//!   revision in `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `params._meta`. Every request has an
//!   id of its own, and every answer must carry that id and a result. After a warm-up, the clients send N
//!   `tools/call` requests in all (default 50 000), each client one at a time (so C in flight).
//!
//! Targets (`--targets`, in this order within a round):
//! - `direct`: the generator speaks stdio to the server itself, C requests in flight on its one pipe: the
//!   baseline for the added latency;
//! - `echo`: the generator's ceiling (above);
//! - `guard`: `jsonrpc-errors guard --listen`, 2025-11-25 sessions (a child per session, as supergateway);
//! - `guard-stateless`: `guard --listen`, the 2026-07-28 stateless era (one child shared by every client);
//! - `baseline`, `baseline-stateless` (with `--baseline PATH`): another build of the guard (the CLI of the
//!   commit before a change), as `guard` and `guard-stateless`: a change's cost as ratios of one run;
//! - `supergateway`: supergateway 4.0.0 `--outputTransport streamableHttp --stateful`, 2025-11-25 sessions
//!   (a child per session);
//! - `supergateway-stateless`: supergateway without `--stateful` (a child per request: slow; not run unless
//!   named, with `--slow-requests`);
//! - `mcp-proxy`: mcp-proxy 0.13.0, 2025-11-25 sessions (one child shared by every session);
//! - `mcp-proxy-stateless`: mcp-proxy `--stateless` (one child; every request without a session).
//!
//! Targets with a server at a URL behind them (issue 35: `guard --upstream`; `scripts/bench.sh upstream`), the
//! upstream being the `echo` server above started for each run, whose own `echo` run is their baseline:
//! - `up-guard-stdio`: the generator speaks stdio to `jsonrpc-errors guard --upstream URL`, C requests in
//!   flight on its one pipe (what a desktop client's `command` runs);
//! - `up-guard-listen`: `guard --listen --upstream URL`, 2025-11-25 sessions (an upstream session each);
//! - `up-mcp-remote`: mcp-remote 0.15.1 (npm), the stdio -> Streamable HTTP bridge desktop clients run today;
//! - `up-supergateway`: supergateway 4.0.0 `--streamableHttp URL`, its Streamable HTTP client mode (stdio out).
//!
//! Measured per run, between the end of the warm-up and the last answer: throughput, p50/p99/max latency
//! of the requests (send to the whole body read), the bridge process's own CPU (utime + stime from
//! /proc, without its children) per request, its upstream children's CPU per request, the RSS of the
//! bridge alone and of its process tree (bridge and children) after the load, and the generator's own CPU
//! per request (if that nears the wall time per request the generator is the bottleneck). The machine is
//! shared and noisy: read the ratios measured in the same run.

#[path = "common/measure.rs"]
mod measure;
#[path = "common/stdio_server.rs"]
mod stdio_server;
use measure::{memory_kib, percentile, ratio, shell_words, stderr_tail};

use bytes::Bytes;
use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fs::File;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

#[derive(Parser)]
#[command(
    about = "Load benchmark of `guard --listen` against supergateway and mcp-proxy, the same stdio server behind each"
)]
struct Cli {
    /// Be the upstream stdio server instead of the driver.
    #[arg(long)]
    serve: bool,
    /// Be the do-nothing HTTP server (the `echo` target) on HOST:PORT instead of the driver.
    #[arg(long, value_name = "HOST:PORT")]
    echo_http: Option<SocketAddr>,
    /// tools/call requests per run (after the warm-up).
    #[arg(long, default_value_t = 50_000)]
    requests: u64,
    /// Requests per run for the targets that start a child per request (supergateway-stateless).
    #[arg(long, default_value_t = 2_000)]
    slow_requests: u64,
    /// Requests before the measurement, per run (JIT, caches, pools).
    #[arg(long, default_value_t = 2_000)]
    warmup: u64,
    /// Concurrent clients, each with a connection (and a session) of its own, one request in flight each.
    #[arg(long, default_value_t = 64)]
    clients: u32,
    /// Runs per target (alternating between targets); the median one by wall time is reported.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// Which targets to run, in this order within a round.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "direct,echo,guard,guard-stateless,supergateway,mcp-proxy"
    )]
    targets: Vec<String>,
    /// Worker threads of the load generator's runtime.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// The guard binary (default: target/release/jsonrpc-errors of this workspace).
    #[arg(long)]
    guard: Option<PathBuf>,
    /// Another build of the guard, as the targets `baseline` and `baseline-stateless` (e.g. the CLI of the
    /// commit before a change).
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// supergateway's entry point (default: bench/peers/node_modules/supergateway/dist/index.js).
    #[arg(long)]
    supergateway: Option<PathBuf>,
    /// The node that runs supergateway.
    #[arg(long, default_value = "node")]
    node: String,
    /// The mcp-proxy command (default: target/bench/mcp-proxy-venv/bin/mcp-proxy).
    #[arg(long)]
    mcp_proxy: Option<PathBuf>,
    /// Seconds a target gets from its start to its first answer.
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    startup_timeout: f64,
    /// Seconds one request may take before the run is abandoned.
    #[arg(long, default_value_t = 20.0, value_name = "SECS")]
    stall_timeout: f64,
    /// Seconds one run's load may take in all.
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    timeout: f64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.serve {
        return stdio_server::serve(None);
    }
    let threads = cli.threads.max(1);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("http_bench: cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(addr) = cli.echo_http {
        return runtime.block_on(echo_server(addr));
    }
    runtime.block_on(drive(cli))
}

// ---------------------------------------------------------------------------------------------------------
// The `echo` target: Streamable HTTP with nothing behind it.

async fn echo_server(addr: SocketAddr) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("http_bench --echo-http: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let sessions = Arc::new(AtomicU64::new(0));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let sessions = sessions.clone();
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let sessions = sessions.clone();
                    async move {
                        Ok::<_, std::convert::Infallible>(echo_answer(request, &sessions).await)
                    }
                });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn echo_answer(
    request: Request<hyper::body::Incoming>,
    sessions: &AtomicU64,
) -> Response<Full<Bytes>> {
    #[derive(Deserialize)]
    struct Msg<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    let reply = |status: StatusCode, body: Vec<u8>| {
        let mut r = Response::new(Full::new(Bytes::from(body)));
        *r.status_mut() = status;
        r.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r
    };
    let Ok(body) = request.into_body().collect().await.map(|b| b.to_bytes()) else {
        return reply(StatusCode::BAD_REQUEST, Vec::new());
    };
    let Ok(msg) = serde_json::from_slice::<Msg>(&body) else {
        return reply(StatusCode::BAD_REQUEST, Vec::new());
    };
    let Some(id) = msg.id else {
        return reply(StatusCode::ACCEPTED, Vec::new());
    };
    let result = match msg.method.as_deref() {
        Some("initialize") => stdio_server::INITIALIZE_RESULT,
        Some("tools/list") => stdio_server::TOOLS_LIST_RESULT,
        _ => stdio_server::TOOL_RESULT,
    };
    let mut r = reply(
        StatusCode::OK,
        format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, id.get()).into_bytes(),
    );
    if msg.method.as_deref() == Some("initialize") {
        let n = sessions.fetch_add(1, Ordering::Relaxed);
        r.headers_mut().insert(
            "mcp-session-id",
            HeaderValue::from_str(&format!("echo-{n}")).unwrap(),
        );
    }
    r
}

// ---------------------------------------------------------------------------------------------------------
// Targets.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Era {
    /// stdio, no HTTP (the `direct` baseline).
    Stdio,
    /// 2025-11-25: `initialize` per client, then `Mcp-Session-Id` on every request.
    Sessions,
    /// 2025-11-25 wire without sessions (a bridge's stateless mode): no `initialize`, only the version header.
    NoSession,
    /// 2026-07-28: stateless, the revision in headers and `params._meta`.
    Modern,
}

impl Era {
    fn label(self) -> &'static str {
        match self {
            Era::Stdio => "stdio, one pipe",
            Era::Sessions => "2025-11-25, a session per client",
            Era::NoSession => "2025-11-25, stateless (no session)",
            Era::Modern => "2026-07-28, stateless",
        }
    }
}

struct Target {
    name: String,
    era: Era,
    /// The bridge's command line; `{port}` is replaced by the port it is to listen on.
    argv: Vec<String>,
    /// The MCP endpoint's path.
    path: &'static str,
    /// Requests per run (a child-per-request target gets fewer).
    requests: u64,
    /// What runs behind it (for the table's notes).
    upstream: &'static str,
    /// A server at a URL the bridge reaches (`{upport}` in `argv` is its port): started before the bridge,
    /// stopped after it, its CPU reported as the upstream's.
    behind: Option<Vec<String>>,
    unavailable: Option<String>,
}

fn targets(cli: &Cli, root: &Path, serve: &[String]) -> Result<Vec<Target>, String> {
    let serve_line = shell_words(serve);
    let guard_bin = cli
        .guard
        .clone()
        .unwrap_or_else(|| root.join("target/release/jsonrpc-errors"));
    let guard_missing = (!guard_bin.is_file())
        .then(|| format!("{} is missing (cargo xtask build)", guard_bin.display()));
    let sg = cli
        .supergateway
        .clone()
        .unwrap_or_else(|| root.join("bench/peers/node_modules/supergateway/dist/index.js"));
    let sg_missing = (!sg.is_file()).then(|| {
        format!(
            "{} is missing (scripts/bench.sh http installs bench/peers)",
            sg.display()
        )
    });
    let mp = cli
        .mcp_proxy
        .clone()
        .unwrap_or_else(|| root.join("target/bench/mcp-proxy-venv/bin/mcp-proxy"));
    let mp_missing = (!mp.is_file()).then(|| {
        format!(
            "{} is missing (scripts/bench.sh http installs it)",
            mp.display()
        )
    });
    let baseline_missing = match &cli.baseline {
        None => Some("not requested (--baseline PATH)".to_string()),
        Some(b) if !b.is_file() => Some(format!("{} is missing", b.display())),
        Some(_) => None,
    };
    let me = serve[0].clone();
    let mr = root.join("bench/peers/node_modules/mcp-remote/dist/proxy.js");
    let mr_missing = (!mr.is_file()).then(|| {
        format!(
            "{} is missing (scripts/bench.sh upstream installs bench/peers)",
            mr.display()
        )
    });
    // The server at a URL behind the `up-*` targets: this program's echo server, on one thread as `echo`.
    let echo_upstream: Vec<String> = vec![
        me.clone(),
        "--echo-http".into(),
        "127.0.0.1:{upport}".into(),
        "--threads".into(),
        "1".into(),
    ];
    let upstream_url = "http://127.0.0.1:{upport}/mcp".to_string();
    let mut out = Vec::new();
    for name in &cli.targets {
        let guard_of = |bin: &Path| {
            let mut argv = vec![
                bin.display().to_string(),
                "guard".into(),
                "--listen".into(),
                "127.0.0.1:{port}".into(),
            ];
            argv.extend(
                ["--log-level", "warn", "--max-sessions", "1024"]
                    .iter()
                    .map(|s| s.to_string()),
            );
            argv.push("--".into());
            argv.extend(serve.iter().cloned());
            argv
        };
        let baseline = || guard_of(cli.baseline.as_deref().unwrap_or(Path::new("-")));
        let supergateway = |stateful: bool| {
            let mut argv = vec![
                cli.node.clone(),
                sg.display().to_string(),
                "--stdio".into(),
                serve_line.clone(),
            ];
            argv.extend(
                [
                    "--outputTransport",
                    "streamableHttp",
                    "--port",
                    "{port}",
                    "--logLevel",
                    "none",
                ]
                .iter()
                .map(|s| s.to_string()),
            );
            if stateful {
                argv.push("--stateful".into());
            }
            argv
        };
        let mcp_proxy = |stateless: bool| {
            let mut argv = vec![
                mp.display().to_string(),
                "--host".into(),
                "127.0.0.1".into(),
                "--port".into(),
                "{port}".into(),
            ];
            argv.extend(["--log-level".to_string(), "WARNING".to_string()]);
            if stateless {
                argv.push("--stateless".into());
            }
            argv.push("--".into());
            argv.extend(serve.iter().cloned());
            argv
        };
        let n = cli.requests;
        let t = match name.as_str() {
            "direct" => Target {
                name: name.clone(),
                era: Era::Stdio,
                argv: serve.to_vec(),
                path: "",
                requests: n,
                upstream: "-",
                behind: None,
                unavailable: None,
            },
            "echo" => Target {
                name: name.clone(),
                era: Era::Sessions,
                argv: vec![
                    me.clone(),
                    "--echo-http".into(),
                    "127.0.0.1:{port}".into(),
                    "--threads".into(),
                    "1".into(),
                ],
                path: "/mcp",
                requests: n,
                upstream: "none",
                behind: None,
                unavailable: None,
            },
            "guard" => Target {
                name: name.clone(),
                era: Era::Sessions,
                argv: guard_of(&guard_bin),
                path: "/mcp",
                requests: n,
                upstream: "a child per session",
                behind: None,
                unavailable: guard_missing.clone(),
            },
            "guard-stateless" => Target {
                name: name.clone(),
                era: Era::Modern,
                argv: guard_of(&guard_bin),
                path: "/mcp",
                requests: n,
                upstream: "one shared child",
                behind: None,
                unavailable: guard_missing.clone(),
            },
            "baseline" => Target {
                name: name.clone(),
                era: Era::Sessions,
                argv: baseline(),
                path: "/mcp",
                requests: n,
                upstream: "a child per session",
                behind: None,
                unavailable: baseline_missing.clone(),
            },
            "baseline-stateless" => Target {
                name: name.clone(),
                era: Era::Modern,
                argv: baseline(),
                path: "/mcp",
                requests: n,
                upstream: "one shared child",
                behind: None,
                unavailable: baseline_missing.clone(),
            },
            "supergateway" => Target {
                name: name.clone(),
                era: Era::Sessions,
                argv: supergateway(true),
                path: "/mcp",
                requests: n,
                upstream: "a child per session",
                behind: None,
                unavailable: sg_missing.clone(),
            },
            "supergateway-stateless" => Target {
                name: name.clone(),
                era: Era::NoSession,
                argv: supergateway(false),
                path: "/mcp",
                requests: cli.slow_requests,
                upstream: "a child per request",
                behind: None,
                unavailable: sg_missing.clone(),
            },
            "mcp-proxy" => Target {
                name: name.clone(),
                era: Era::Sessions,
                argv: mcp_proxy(false),
                path: "/mcp",
                requests: n,
                upstream: "one shared child",
                behind: None,
                unavailable: mp_missing.clone(),
            },
            "mcp-proxy-stateless" => Target {
                name: name.clone(),
                era: Era::NoSession,
                argv: mcp_proxy(true),
                path: "/mcp",
                requests: n,
                upstream: "one shared child",
                behind: None,
                unavailable: mp_missing.clone(),
            },
            "up-guard-stdio" => Target {
                name: name.clone(),
                era: Era::Stdio,
                argv: vec![
                    guard_bin.display().to_string(),
                    "guard".into(),
                    "--upstream".into(),
                    upstream_url.clone(),
                    "--log-level".into(),
                    "warn".into(),
                ],
                path: "",
                requests: n,
                upstream: "the echo server at a URL",
                behind: Some(echo_upstream.clone()),
                unavailable: guard_missing.clone(),
            },
            "up-guard-listen" => Target {
                name: name.clone(),
                era: Era::Sessions,
                argv: vec![
                    guard_bin.display().to_string(),
                    "guard".into(),
                    "--listen".into(),
                    "127.0.0.1:{port}".into(),
                    "--upstream".into(),
                    upstream_url.clone(),
                    "--log-level".into(),
                    "warn".into(),
                    "--max-sessions".into(),
                    "1024".into(),
                ],
                path: "/mcp",
                requests: n,
                upstream: "the echo server at a URL, an upstream session per client",
                behind: Some(echo_upstream.clone()),
                unavailable: guard_missing.clone(),
            },
            "up-mcp-remote" => Target {
                name: name.clone(),
                era: Era::Stdio,
                argv: vec![
                    cli.node.clone(),
                    mr.display().to_string(),
                    upstream_url.clone(),
                    "--transport".into(),
                    "http-only".into(),
                    "--silent".into(),
                ],
                path: "",
                requests: n,
                upstream: "the echo server at a URL",
                behind: Some(echo_upstream.clone()),
                unavailable: mr_missing.clone(),
            },
            "up-supergateway" => Target {
                name: name.clone(),
                era: Era::Stdio,
                argv: vec![
                    cli.node.clone(),
                    sg.display().to_string(),
                    "--streamableHttp".into(),
                    upstream_url.clone(),
                    "--logLevel".into(),
                    "none".into(),
                ],
                path: "",
                requests: n,
                upstream: "the echo server at a URL",
                behind: Some(echo_upstream.clone()),
                unavailable: sg_missing.clone(),
            },
            other => return Err(format!("unknown target {other:?}")),
        };
        out.push(t);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------------------
// The driver.

struct Limits {
    startup: Duration,
    stall: Duration,
    total: Duration,
}

/// What one run measured.
struct Run {
    requests: u64,
    startup: Duration,
    wall: Duration,
    /// Request latencies in ns, sorted.
    latencies: Vec<u64>,
    /// CPU seconds during the load: the bridge itself, its children, the generator.
    cpu_bridge: Option<f64>,
    cpu_children: Option<f64>,
    cpu_generator: f64,
    /// KiB after the load: the bridge's RSS, its peak, and the RSS of its whole tree (and how many processes).
    rss_bridge: Option<u64>,
    rss_peak: Option<u64>,
    rss_tree: u64,
    tree_size: usize,
    exit: String,
}

async fn drive(cli: Cli) -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let log_dir = root.join("target/bench/http_bench");
    if let Err(e) = std::fs::create_dir_all(&log_dir) {
        eprintln!("http_bench: cannot create {}: {e}", log_dir.display());
        return ExitCode::FAILURE;
    }
    let me = match std::env::current_exe() {
        Ok(p) => p.display().to_string(),
        Err(e) => {
            eprintln!("http_bench: cannot find its own executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    if cli.requests == 0 || cli.clients == 0 || cli.rounds == 0 {
        eprintln!("http_bench: --requests, --clients and --rounds must be at least 1");
        return ExitCode::from(2);
    }
    let serve = vec![me, "--serve".to_string()];
    let targets = match targets(&cli, &root, &serve) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("http_bench: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = Limits {
        startup: Duration::from_secs_f64(cli.startup_timeout),
        stall: Duration::from_secs_f64(cli.stall_timeout),
        total: Duration::from_secs_f64(cli.timeout),
    };

    println!(
        "== HTTP load: {} tools/call requests per run after {} of warm-up, {} clients (one request in flight each), {} round(s), generator on {} thread(s), {} cores ==",
        cli.requests,
        cli.warmup,
        cli.clients,
        cli.rounds,
        cli.threads,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );
    for t in &targets {
        match &t.unavailable {
            None => println!(
                "{:<22} [{}; upstream: {}] $ {}",
                t.name,
                t.era.label(),
                t.upstream,
                shell_words(&t.argv)
            ),
            Some(why) => println!("{:<22} skipped: {why}", t.name),
        }
    }
    println!(
        "target stderr: {}/<target>-<round>.stderr",
        log_dir.display()
    );

    let mut runs: Vec<Vec<Run>> = targets.iter().map(|_| Vec::new()).collect();
    let mut failures: Vec<Vec<String>> = targets.iter().map(|_| Vec::new()).collect();
    for round in 1..=cli.rounds {
        for (i, t) in targets.iter().enumerate() {
            if t.unavailable.is_some() {
                continue;
            }
            let stderr_path = log_dir.join(format!("{}-{round}.stderr", t.name));
            match run_once(t, &cli, &limits, &stderr_path).await {
                Ok(run) => {
                    println!(
                        "round {round} {:<22} {:>8.3} s {:>9.0} req/s  p50 {:>7.2} ms  p99 {:>7.2} ms  bridge CPU {:>7} µs/req",
                        t.name,
                        run.wall.as_secs_f64(),
                        run.requests as f64 / run.wall.as_secs_f64(),
                        ms(percentile(&run.latencies, 0.5)),
                        ms(percentile(&run.latencies, 0.99)),
                        per_request(run.cpu_bridge, run.requests)
                    );
                    runs[i].push(run);
                }
                Err(e) => {
                    println!("round {round} {:<22} FAILED: {e}", t.name);
                    failures[i].push(e);
                }
            }
        }
    }
    report(&cli, &targets, &mut runs, &failures);
    ExitCode::SUCCESS
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn per_request(cpu: Option<f64>, n: u64) -> String {
    cpu.map(|c| format!("{:.1}", c * 1e6 / n as f64))
        .unwrap_or_else(|| "?".into())
}

/// The bridge of one run; dropping it stops its whole process group (its children too) and reaps it.
struct Running {
    child: Child,
    reaped: bool,
}

impl Running {
    fn kill(&mut self) {
        if !self.reaped {
            // SAFETY: kill(2) on the process group created for this child (process_group(0)).
            unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }

    /// SIGTERM, then up to `limit` for it to exit, then SIGKILL for the group; how it ended.
    async fn stop(&mut self, limit: Duration) -> String {
        // SAFETY: kill(2) on the child we started.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let until = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => {
                    self.reaped = true;
                    // Children it left behind go with the group.
                    // SAFETY: as above, the group we created.
                    unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
                    return format!("{st} after SIGTERM");
                }
                Ok(None) if Instant::now() < until => {
                    tokio::time::sleep(Duration::from_millis(10)).await
                }
                _ => {
                    self.kill();
                    return format!("still running {limit:?} after SIGTERM: killed");
                }
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A free loopback port (bound and let go: the bridge binds it right after).
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Counts shared by the clients of one run.
struct Load {
    /// Ids of every request (initialize included): unique in the run.
    next_id: AtomicU64,
    /// Requests handed out: warm-up first, then the measured ones.
    next_request: AtomicU64,
    warmup: u64,
    total: u64,
    answered: AtomicU64,
    /// Set when the warm-up's last request is handed out; the clients wait at it.
    measured_from: Mutex<Option<Instant>>,
    warm: tokio::sync::Barrier,
    measure: tokio::sync::Notify,
    measuring: AtomicBool,
    failed: Mutex<Option<String>>,
}

impl Load {
    fn fail(&self, why: String) {
        self.failed.lock().unwrap().get_or_insert(why);
    }
}

async fn run_once(
    t: &Target,
    cli: &Cli,
    limits: &Limits,
    stderr_path: &Path,
) -> Result<Run, String> {
    let fail = |msg: String| format!("{msg}{}", stderr_tail(stderr_path));
    let port = free_port().map_err(|e| format!("no free port: {e}"))?;
    let upport = free_port().map_err(|e| format!("no free port: {e}"))?;
    let argv: Vec<String> = t
        .argv
        .iter()
        .map(|a| {
            a.replace("{port}", &port.to_string())
                .replace("{upport}", &upport.to_string())
        })
        .collect();
    // The server at a URL behind the bridge, up before it.
    let behind = match &t.behind {
        None => None,
        Some(cmd) => {
            let cmd: Vec<String> = cmd
                .iter()
                .map(|a| a.replace("{upport}", &upport.to_string()))
                .collect();
            let child = Command::new(&cmd[0])
                .args(&cmd[1..])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .map_err(|e| format!("cannot start the upstream {:?}: {e}", cmd[0]))?;
            let up = Running {
                child,
                reaped: false,
            };
            let until = Instant::now() + limits.startup;
            while tokio::net::TcpStream::connect(("127.0.0.1", upport))
                .await
                .is_err()
            {
                if Instant::now() > until {
                    return Err("the upstream at a URL did not listen".into());
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Some(up)
        }
    };
    let behind_pid = behind.as_ref().map(|b| b.child.id());
    let stderr = File::create(stderr_path)
        .map_err(|e| format!("cannot create {}: {e}", stderr_path.display()))?;
    let spawned = Instant::now();
    let mut command = Command::new(&argv[0]);
    command.args(&argv[1..]).stderr(stderr).process_group(0);
    if t.era == Era::Stdio {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
    } else {
        command.stdin(Stdio::null()).stdout(Stdio::null());
    }
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", argv[0]))?;
    let mut proc = Running {
        child,
        reaped: false,
    };
    let pid = proc.child.id();

    let clients = cli.clients as usize;
    let load = Arc::new(Load {
        next_id: AtomicU64::new(1),
        next_request: AtomicU64::new(0),
        warmup: cli.warmup,
        total: cli.warmup + t.requests,
        answered: AtomicU64::new(0),
        measured_from: Mutex::new(None),
        warm: tokio::sync::Barrier::new(clients + 1),
        measure: tokio::sync::Notify::new(),
        measuring: AtomicBool::new(false),
        failed: Mutex::new(None),
    });

    // Connect every client (and open its session), outside the measurement.
    let connector: Arc<dyn Connector> = if t.era == Era::Stdio {
        let (stdin, stdout) = (proc.child.stdin.take(), proc.child.stdout.take());
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            return Err("the server's pipes are missing".into());
        };
        Arc::new(
            StdioConnector::start(stdin, stdout)
                .map_err(|e| format!("cannot drive the server's pipes: {e}"))?,
        )
    } else {
        Arc::new(HttpConnector {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            path: t.path,
            era: t.era,
        })
    };
    // The first client waits for the bridge to come up; the others connect once it has.
    let first = tokio::time::timeout(limits.startup, async {
        loop {
            match connector.open(&load).await {
                Ok(c) => return Ok(c),
                Err(e) => {
                    if let Ok(Some(st)) = proc.child.try_wait() {
                        proc.reaped = true;
                        return Err(format!("exited before it answered ({st}): {e}"));
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    })
    .await
    .map_err(|_| fail(format!("no answer within {:?}", limits.startup)))?
    .map_err(fail)?;
    let startup = spawned.elapsed();
    let mut sessions = vec![first];
    for _ in 1..clients {
        let c = tokio::time::timeout(limits.stall, connector.open(&load))
            .await
            .map_err(|_| {
                fail(format!(
                    "a client could not connect within {:?}",
                    limits.stall
                ))
            })?
            .map_err(|e| fail(format!("a client could not connect: {e}")))?;
        sessions.push(c);
    }

    let mut tasks = Vec::new();
    for session in sessions {
        let load = load.clone();
        let stall = limits.stall;
        tasks.push(tokio::spawn(
            async move { client(session, load, stall).await },
        ));
    }
    // Warm-up: every client stops at the barrier once the warm-up requests are handed out.
    let gen_start = own_cpu();
    let behind_start;
    let started = Instant::now();
    let mut warm = Box::pin(load.warm.wait());
    let mut last = (0, Instant::now());
    let (cpu_start, kids_start) = loop {
        tokio::select! {
            _ = &mut warm => {
                behind_start = behind_pid.and_then(cpu_seconds);
                let cpu = (cpu_seconds(pid), Some(tree_cpu(pid)));
                *load.measured_from.lock().unwrap() = Some(Instant::now());
                load.measuring.store(true, Ordering::Release);
                load.measure.notify_waiters();
                break cpu;
            }
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
        if let Some(e) = load.failed.lock().unwrap().clone() {
            return Err(fail(format!("during the warm-up: {e}")));
        }
        let n = load.answered.load(Ordering::Relaxed);
        if n != last.0 {
            last = (n, Instant::now());
        } else if last.1.elapsed() > limits.stall {
            return Err(fail(format!("stalled in the warm-up after {n} answers")));
        }
        if started.elapsed() > limits.total {
            return Err(fail("the warm-up timed out".into()));
        }
    };
    let gen_start = own_cpu().max(gen_start);
    // The load.
    let load_started = Instant::now();
    let mut last = (0, Instant::now());
    loop {
        if tasks.iter().all(|t| t.is_finished()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        if let Some(e) = load.failed.lock().unwrap().clone() {
            for t in &tasks {
                t.abort();
            }
            return Err(fail(format!(
                "{e} (after {} answers)",
                load.answered.load(Ordering::Relaxed)
            )));
        }
        let n = load.answered.load(Ordering::Relaxed);
        if n != last.0 {
            last = (n, Instant::now());
        } else if last.1.elapsed() > limits.stall {
            for t in &tasks {
                t.abort();
            }
            return Err(fail(format!(
                "stalled: no answer for {:?} after {n} answers",
                limits.stall
            )));
        }
        if load_started.elapsed() > limits.total {
            for t in &tasks {
                t.abort();
            }
            return Err(fail(format!(
                "timed out after {:?} with {n} answers",
                limits.total
            )));
        }
    }
    let mut latencies = Vec::with_capacity(t.requests as usize);
    let mut finished_at = load_started;
    for task in tasks {
        match task.await {
            Ok(Ok((lat, end))) => {
                latencies.extend(lat);
                finished_at = finished_at.max(end);
            }
            Ok(Err(e)) => return Err(fail(e)),
            Err(e) => return Err(format!("a client task failed: {e}")),
        }
    }
    // Right after the last answer, before the shutdown adds its own work.
    let cpu_end = cpu_seconds(pid);
    let kids_end = tree_cpu(pid);
    let behind_end = behind_pid.and_then(cpu_seconds);
    let cpu_generator = own_cpu() - gen_start;
    let tree = descendants(pid);
    let rss_bridge = memory_kib(pid, "VmRSS");
    let rss_peak = memory_kib(pid, "VmHWM");
    let rss_tree = rss_bridge.unwrap_or(0)
        + tree
            .iter()
            .filter_map(|p| memory_kib(*p, "VmRSS"))
            .sum::<u64>();
    if let Some(e) = load.failed.lock().unwrap().clone() {
        return Err(fail(e));
    }
    if latencies.len() as u64 != t.requests {
        return Err(fail(format!(
            "{} answers measured, {} expected",
            latencies.len(),
            t.requests
        )));
    }
    let measured_from = load.measured_from.lock().unwrap().unwrap_or(load_started);
    drop(connector);
    let exit = proc.stop(Duration::from_secs(10)).await;
    drop(behind);
    latencies.sort_unstable();
    // The children's CPU: those alive at both ends (a child per request is not followed).
    let cpu_children = kids_start.map(|s: HashMap<u32, f64>| {
        kids_end
            .iter()
            .filter_map(|(p, e)| s.get(p).map(|s| e - s))
            .sum::<f64>()
    });
    Ok(Run {
        requests: t.requests,
        startup,
        wall: finished_at - measured_from,
        latencies,
        cpu_bridge: cpu_end.zip(cpu_start).map(|(e, s)| e - s),
        cpu_children: match (behind_start, behind_end) {
            // A server at a URL: its own CPU is the upstream's.
            (Some(s), Some(e)) => Some(e - s),
            _ if t.era == Era::Stdio => None,
            _ => cpu_children,
        },
        cpu_generator,
        rss_bridge,
        rss_peak,
        rss_tree,
        tree_size: tree.len() + 1,
        exit,
    })
}

/// One client: requests one at a time until they are all handed out; the latencies of the measured ones.
async fn client(
    mut session: Box<dyn Session>,
    load: Arc<Load>,
    stall: Duration,
) -> Result<(Vec<u64>, Instant), String> {
    let mut latencies = Vec::new();
    let mut warmed = false;
    let mut end = Instant::now();
    loop {
        let k = load.next_request.fetch_add(1, Ordering::Relaxed);
        if k >= load.warmup && !warmed {
            warmed = true;
            // Every client stops here until the warm-up's answers are all in; then the measurement starts.
            let measure = load.measure.notified();
            tokio::pin!(measure);
            measure.as_mut().enable();
            load.warm.wait().await;
            if !load.measuring.load(Ordering::Acquire) {
                measure.await;
            }
        }
        if k >= load.total {
            return Ok((latencies, end));
        }
        let id = load.next_id.fetch_add(1, Ordering::Relaxed);
        let at = Instant::now();
        match tokio::time::timeout(stall, session.call(id)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                load.fail(format!("request {id}: {e}"));
                return Err(format!("request {id}: {e}"));
            }
            Err(_) => {
                load.fail(format!("request {id}: no answer within {stall:?}"));
                return Err(format!("request {id}: no answer within {stall:?}"));
            }
        }
        end = Instant::now();
        if k >= load.warmup {
            latencies.push((end - at).as_nanos() as u64);
        }
        load.answered.fetch_add(1, Ordering::Relaxed);
    }
}

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Opens clients of a target.
trait Connector: Send + Sync {
    fn open<'a>(&'a self, load: &'a Load) -> BoxFuture<'a, Result<Box<dyn Session>, String>>;
}

/// One client's way to the target: sends `tools/call` with this id, checks that its answer is a result.
trait Session: Send {
    fn call(&mut self, id: u64) -> BoxFuture<'_, Result<(), String>>;
}

/// The same small `tools/call` for every target (the tool the server lists).
fn tools_call(id: u64, era: Era) -> String {
    let meta = if era == Era::Modern {
        r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
    } else {
        ""
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":"Berlin","units":"metric"}}{meta}}}}}"#
    )
}

/// Just what the generator needs of an answer.
#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The result of the answer to request `id` in a message: an error unless it is there with a result.
fn result_of<'a>(message: &'a [u8], id: &str) -> Option<Result<&'a RawValue, String>> {
    let answer = serde_json::from_slice::<Answer>(message).ok()?;
    if answer.id.map(|i| i.get()) != Some(id) {
        return None;
    }
    Some(match (answer.result, answer.error) {
        (Some(r), None) => Ok(r),
        (_, Some(e)) => Err(format!("answered with an error: {}", e.get())),
        _ => Err("an answer with neither result nor error".into()),
    })
}

/// Finds the answer to `id` in a response body: one JSON message, or the `data:` of SSE events.
fn find_answer<'a>(sse: bool, body: &'a [u8], id: &str) -> Result<&'a RawValue, String> {
    let found = if sse {
        body.split(|b| *b == b'\n')
            .filter_map(|line| line.strip_prefix(b"data:"))
            .find_map(|data| result_of(data.trim_ascii(), id))
    } else {
        result_of(body, id)
    };
    found.unwrap_or_else(|| {
        Err(format!(
            "no answer to id {id} in: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        ))
    })
}

struct HttpConnector {
    addr: SocketAddr,
    path: &'static str,
    era: Era,
}

struct HttpSession {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    host: HeaderValue,
    path: &'static str,
    era: Era,
    session: Option<HeaderValue>,
    version: HeaderValue,
    connection: tokio::task::JoinHandle<()>,
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

impl HttpSession {
    /// POSTs one message; the status, whether the body is SSE, the session header, the body.
    async fn post(
        &mut self,
        body: String,
        method: Option<&str>,
    ) -> Result<(StatusCode, bool, Option<HeaderValue>, Bytes), String> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.path)
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", self.version.clone());
        if let Some(s) = &self.session {
            request = request.header("mcp-session-id", s.clone());
        }
        if self.era == Era::Modern {
            if let Some(m) = method {
                request = request
                    .header("mcp-method", m)
                    .header("mcp-name", "get_weather");
            }
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        self.sender
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(|e| format!("request: {e}"))?;
        let status = response.status();
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let session = response.headers().get("mcp-session-id").cloned();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        Ok((status, sse, session, body))
    }
}

impl Connector for HttpConnector {
    fn open<'a>(&'a self, load: &'a Load) -> BoxFuture<'a, Result<Box<dyn Session>, String>> {
        Box::pin(async move {
            let stream = tokio::net::TcpStream::connect(self.addr)
                .await
                .map_err(|e| format!("connect: {e}"))?;
            let _ = stream.set_nodelay(true);
            let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            let connection = tokio::spawn(async move {
                let _ = connection.await;
            });
            let version = match self.era {
                Era::Modern => "2026-07-28",
                _ => "2025-06-18",
            };
            let mut s = HttpSession {
                sender,
                host: HeaderValue::from_str(&self.addr.to_string()).map_err(|e| e.to_string())?,
                path: self.path,
                era: self.era,
                session: None,
                version: HeaderValue::from_static(version),
                connection,
            };
            let id = load.next_id.fetch_add(1, Ordering::Relaxed);
            if self.era == Era::Sessions {
                let init = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"http-bench","version":"0.1.0"}}}}}}"#
                );
                let (status, sse, session, body) = s.post(init, Some("initialize")).await?;
                if status != StatusCode::OK {
                    return Err(format!(
                        "initialize: HTTP {status}: {}",
                        String::from_utf8_lossy(&body[..body.len().min(300)])
                    ));
                }
                let result = find_answer(sse, &body, &id.to_string())?;
                let negotiated = serde_json::from_str::<serde_json::Value>(result.get())
                    .ok()
                    .and_then(|v| {
                        v.get("protocolVersion")
                            .and_then(|p| p.as_str())
                            .map(str::to_string)
                    })
                    .ok_or("initialize: no protocolVersion in its result")?;
                s.version = HeaderValue::from_str(&negotiated).map_err(|e| e.to_string())?;
                s.session = Some(session.ok_or("initialize: no Mcp-Session-Id")?);
                let (status, _, _, body) = s
                    .post(
                        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
                        None,
                    )
                    .await?;
                if !status.is_success() {
                    return Err(format!(
                        "notifications/initialized: HTTP {status}: {}",
                        String::from_utf8_lossy(&body[..body.len().min(300)])
                    ));
                }
            } else {
                // No handshake: one request tells that the target is up (and starts what it starts lazily).
                s.call(id).await?;
            }
            Ok(Box::new(s) as Box<dyn Session>)
        })
    }
}

impl Session for HttpSession {
    fn call(&mut self, id: u64) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let (status, sse, _, body) = self
                .post(tools_call(id, self.era), Some("tools/call"))
                .await?;
            if status != StatusCode::OK {
                return Err(format!(
                    "HTTP {status}: {}",
                    String::from_utf8_lossy(&body[..body.len().min(300)])
                ));
            }
            find_answer(sse, &body, &id.to_string()).map(|_| ())
        })
    }
}

/// The `direct` baseline: every client's requests go down the server's one stdin, its answers are routed
/// back by id.
struct StdioConnector {
    lines: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<HashMap<u64, tokio::sync::oneshot::Sender<Vec<u8>>>>>,
    handshake: tokio::sync::OnceCell<()>,
}

impl StdioConnector {
    fn start(
        stdin: std::process::ChildStdin,
        stdout: std::process::ChildStdout,
    ) -> std::io::Result<StdioConnector> {
        let mut stdin = tokio::process::ChildStdin::from_std(stdin)?;
        let stdout = tokio::process::ChildStdout::from_std(stdout)?;
        let (lines, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        // One write per burst of lines.
        tokio::spawn(async move {
            let mut buf = Vec::with_capacity(64 * 1024);
            while let Some(line) = rx.recv().await {
                buf.extend_from_slice(&line);
                while let Ok(more) = rx.try_recv() {
                    buf.extend_from_slice(&more);
                }
                if stdin.write_all(&buf).await.is_err() {
                    return;
                }
                buf.clear();
            }
        });
        let pending: Arc<Mutex<HashMap<u64, tokio::sync::oneshot::Sender<Vec<u8>>>>> =
            Arc::default();
        let routes = pending.clone();
        tokio::spawn(async move {
            let mut input = tokio::io::BufReader::with_capacity(64 * 1024, stdout);
            let mut line = Vec::with_capacity(4096);
            loop {
                line.clear();
                match input.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let Some(id) = serde_json::from_slice::<Answer>(line.trim_ascii())
                    .ok()
                    .and_then(|a| a.id)
                    .and_then(|i| i.get().parse::<u64>().ok())
                else {
                    continue;
                };
                if let Some(tx) = routes.lock().unwrap().remove(&id) {
                    let _ = tx.send(line.clone());
                }
            }
            routes.lock().unwrap().clear();
        });
        Ok(StdioConnector {
            lines,
            pending,
            handshake: tokio::sync::OnceCell::new(),
        })
    }
}

struct StdioSession {
    lines: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<HashMap<u64, tokio::sync::oneshot::Sender<Vec<u8>>>>>,
}

impl StdioSession {
    async fn ask(&self, id: u64, line: String) -> Result<Vec<u8>, String> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let mut line = line.into_bytes();
        line.push(b'\n');
        self.lines
            .send(line)
            .map_err(|_| "the server's stdin is closed".to_string())?;
        rx.await
            .map_err(|_| "the server closed its output".to_string())
    }
}

impl Connector for StdioConnector {
    fn open<'a>(&'a self, load: &'a Load) -> BoxFuture<'a, Result<Box<dyn Session>, String>> {
        Box::pin(async move {
            let s = StdioSession {
                lines: self.lines.clone(),
                pending: self.pending.clone(),
            };
            self.handshake
                .get_or_try_init(|| async {
                    let id = load.next_id.fetch_add(1, Ordering::Relaxed);
                    let init = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"http-bench","version":"0.1.0"}}}}}}"#
                    );
                    let answer = s.ask(id, init).await?;
                    find_answer(false, answer.trim_ascii(), &id.to_string())?;
                    s.lines.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n".to_vec()).map_err(|_| "the server's stdin is closed".to_string())?;
                    Ok::<(), String>(())
                })
                .await?;
            Ok(Box::new(s) as Box<dyn Session>)
        })
    }
}

impl Session for StdioSession {
    fn call(&mut self, id: u64) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            let answer = self.ask(id, tools_call(id, Era::Stdio)).await?;
            find_answer(false, answer.trim_ascii(), &id.to_string()).map(|_| ())
        })
    }
}

// ---------------------------------------------------------------------------------------------------------
// /proc.

/// Fields of /proc/<pid>/stat after the command name (which may hold spaces): index 0 is the state.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// utime + stime of a process (without its children), in seconds.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let fields = stat_fields(pid)?;
    let (utime, stime): (u64, u64) = (fields.get(11)?.parse().ok()?, fields.get(12)?.parse().ok()?);
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks > 0).then(|| (utime + stime) as f64 / ticks as f64)
}

/// This process's own CPU seconds (all its threads), from getrusage.
fn own_cpu() -> f64 {
    // SAFETY: getrusage writes only into `usage`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Every process below `pid` (its children, theirs, …).
fn descendants(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(p) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) =
                stat_fields(p).and_then(|f| f.get(1).and_then(|s| s.parse::<u32>().ok()))
            {
                children.entry(ppid).or_default().push(p);
            }
        }
    }
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for c in children.get(&p).into_iter().flatten() {
            out.push(*c);
            todo.push(*c);
        }
    }
    out
}

/// CPU seconds of every process below `pid`, by pid.
fn tree_cpu(pid: u32) -> HashMap<u32, f64> {
    descendants(pid)
        .into_iter()
        .filter_map(|p| cpu_seconds(p).map(|c| (p, c)))
        .collect()
}

// ---------------------------------------------------------------------------------------------------------
// The report.

fn report(cli: &Cli, targets: &[Target], runs: &mut [Vec<Run>], failures: &[Vec<String>]) {
    for r in runs.iter_mut() {
        r.sort_by_key(|run| run.wall);
    }
    // Per target, the round with the median wall time (its latencies, CPU and memory from that same run).
    let chosen: Vec<Option<&Run>> = runs
        .iter()
        .map(|r| r.get(r.len().saturating_sub(1) / 2))
        .collect();
    let idx = |name: &str| targets.iter().position(|t| t.name == name);
    // The added latency is against `direct` (the same server on stdio); for the `up-*` targets alone, against
    // `echo` (the same server at a URL, reached directly).
    let direct = idx("direct")
        .or_else(|| idx("echo"))
        .and_then(|i| chosen[i]);
    let rate = |run: &Run| run.requests as f64 / run.wall.as_secs_f64();
    let mib = |k: Option<u64>| {
        k.map(|k| format!("{:.1}", k as f64 / 1024.0))
            .unwrap_or_else(|| "?".into())
    };

    println!(
        "\n== results: per target the median of its rounds by wall time ({} clients) ==",
        cli.clients
    );
    println!(
        "{:<22} {:>7} {:>9} {:>8} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9} {:>12} {:>9}",
        "target",
        "requests",
        "req/s",
        "p50 ms",
        "p99 ms",
        "+p50 ms",
        "+p99 ms",
        "CPU µs/req",
        "up µs/req",
        "RSS MiB",
        "tree MiB (n)",
        "gen µs/req"
    );
    for (i, t) in targets.iter().enumerate() {
        let Some(run) = chosen[i] else {
            let why = t
                .unavailable
                .clone()
                .or_else(|| {
                    failures[i]
                        .first()
                        .map(|f| f.lines().next().unwrap_or("").to_string())
                })
                .unwrap_or_default();
            println!("{:<22} {why}", t.name);
            continue;
        };
        let added = |p: f64| match direct {
            Some(d) if !std::ptr::eq(d, run) => format!(
                "{:+.2}",
                ms(percentile(&run.latencies, p)) - ms(percentile(&d.latencies, p))
            ),
            _ => "-".into(),
        };
        println!(
            "{:<22} {:>7} {:>9.0} {:>8.2} {:>8.2} {:>9} {:>9} {:>10} {:>10} {:>9} {:>12} {:>9.1}",
            t.name,
            run.requests,
            rate(run),
            ms(percentile(&run.latencies, 0.5)),
            ms(percentile(&run.latencies, 0.99)),
            added(0.5),
            added(0.99),
            per_request(run.cpu_bridge, run.requests),
            per_request(run.cpu_children, run.requests),
            mib(run.rss_bridge),
            format!("{} ({})", mib(Some(run.rss_tree)), run.tree_size),
            run.cpu_generator * 1e6 / run.requests as f64,
        );
    }

    println!("\nnotes:");
    for (i, t) in targets.iter().enumerate() {
        if let Some(run) = chosen[i] {
            let walls: Vec<String> = runs[i]
                .iter()
                .map(|r| format!("{:.3}", r.wall.as_secs_f64()))
                .collect();
            println!(
                "  {:<22} {}; upstream: {}; rounds (wall s, sorted) [{}]; p99.9 {:.2} ms, max {:.2} ms; first answer {:.0} ms after start; RSS peak {} MiB; exit: {}",
                t.name,
                t.era.label(),
                t.upstream,
                walls.join(", "),
                ms(percentile(&run.latencies, 0.999)),
                ms(run.latencies.last().copied().unwrap_or(0)),
                run.startup.as_secs_f64() * 1e3,
                mib(run.rss_peak),
                run.exit
            );
        }
        for f in &failures[i] {
            println!("  {:<22} failed round: {f}", t.name);
        }
    }
    println!("  CPU µs/req: the bridge process's own utime + stime during the load per request (for `direct` the server's own);");
    println!("  up µs/req: its upstream children's (alive at both ends of the load); RSS: the bridge alone, and its process tree");
    println!("  (bridge and children, n processes) after the load; gen µs/req: the load generator's own CPU (all its threads).");
    println!("  +p50/+p99: added latency against `direct` (the same server on stdio, the same number in flight), or, without");
    println!("  a `direct` run, against `echo` (the server at a URL the `up-*` targets reach, reached directly). For the `up-*`");
    println!("  targets `up µs/req` is the echo server's own CPU.");

    println!("\nratios (same run):");
    for (name, other) in [
        ("guard", "baseline"),
        ("guard-stateless", "baseline-stateless"),
    ] {
        let (Some(run), Some(base)) = (
            idx(name).and_then(|i| chosen[i]),
            idx(other).and_then(|i| chosen[i]),
        ) else {
            continue;
        };
        let p = |r: &Run, q: f64| percentile(&r.latencies, q) as f64;
        let cpu = match (run.cpu_bridge, base.cpu_bridge) {
            (Some(a), Some(b)) if b > 0.0 => format!(
                ", CPU/request {}x",
                ratio((a / run.requests as f64) / (b / base.requests as f64))
            ),
            _ => String::new(),
        };
        println!(
            "  {name}/{other}: throughput {}x, p50 latency {}x, p99 latency {}x{cpu}",
            ratio(rate(run) / rate(base)),
            ratio(p(run, 0.5) / p(base, 0.5)),
            ratio(p(run, 0.99) / p(base, 0.99))
        );
    }
    upstream_goals(targets, &chosen, &idx);
    let Some(base) = idx("supergateway").and_then(|i| chosen[i]) else {
        if !targets
            .iter()
            .all(|t| t.name == "echo" || t.name.starts_with("up-"))
        {
            println!("  (no supergateway run to compare with)");
        }
        return;
    };
    for (i, t) in targets.iter().enumerate() {
        let Some(run) = chosen[i] else { continue };
        if std::ptr::eq(run, base) || t.era == Era::Stdio {
            continue;
        }
        let p = |r: &Run, q: f64| percentile(&r.latencies, q) as f64;
        let cpu = match (run.cpu_bridge, base.cpu_bridge) {
            (Some(a), Some(b)) if b > 0.0 => format!(
                ", CPU/request {}x",
                ratio((a / run.requests as f64) / (b / base.requests as f64))
            ),
            _ => String::new(),
        };
        println!(
            "  {}/supergateway: throughput {}x, p50 latency {}x, p99 latency {}x{cpu}",
            t.name,
            ratio(rate(run) / rate(base)),
            ratio(p(run, 0.5) / p(base, 0.5)),
            ratio(p(run, 0.99) / p(base, 0.99))
        );
    }
    println!("\ngoals (issue 26: >= 10x supergateway's throughput with a lower p99; the guard's own CPU under 20 µs/request):");
    for name in ["guard", "guard-stateless"] {
        let Some(run) = idx(name).and_then(|i| chosen[i]) else {
            continue;
        };
        let x = rate(run) / rate(base);
        let lower = percentile(&run.latencies, 0.99) < percentile(&base.latencies, 0.99);
        let cpu = run.cpu_bridge.map(|c| c * 1e6 / run.requests as f64);
        let yes = |b: bool| if b { "met" } else { "NOT met" };
        println!(
            "  {name}: throughput {}x supergateway's ({}), p99 {} ({}), CPU {} µs/request ({})",
            ratio(x),
            yes(x >= 10.0),
            if lower { "lower" } else { "not lower" },
            yes(lower),
            cpu.map(|c| format!("{c:.1}")).unwrap_or_else(|| "?".into()),
            yes(cpu.is_some_and(|c| c < 20.0))
        );
    }
}

/// Issue 35's goals for `guard --upstream`, when its targets ran: its added p50 under 0.3 ms and its throughput
/// at least 0.5x the server's reached directly (`echo`), with 64 clients; at least 10x mcp-remote's throughput.
fn upstream_goals(
    targets: &[Target],
    chosen: &[Option<&Run>],
    idx: &dyn Fn(&str) -> Option<usize>,
) {
    let run = |name: &str| idx(name).and_then(|i| chosen[i]);
    let Some(direct) = run("echo") else {
        return;
    };
    if !targets.iter().any(|t| t.name.starts_with("up-")) {
        return;
    }
    let rate = |r: &Run| r.requests as f64 / r.wall.as_secs_f64();
    let yes = |b: bool| if b { "met" } else { "NOT met" };
    println!("\ngoals (issue 35: the guard's added p50 under 0.3 ms and throughput >= 0.5x direct; >= 10x mcp-remote's):");
    for name in ["up-guard-stdio", "up-guard-listen"] {
        let Some(r) = run(name) else { continue };
        let added = ms(percentile(&r.latencies, 0.5)) - ms(percentile(&direct.latencies, 0.5));
        let x = rate(r) / rate(direct);
        let vs_remote = run("up-mcp-remote")
            .map(|m| {
                let y = rate(r) / rate(m);
                format!(", {}x mcp-remote's ({})", ratio(y), yes(y >= 10.0))
            })
            .unwrap_or_default();
        let vs_sg = run("up-supergateway")
            .map(|m| format!(", {}x supergateway's", ratio(rate(r) / rate(m))))
            .unwrap_or_default();
        println!(
            "  {name}: added p50 {added:+.3} ms ({}), throughput {}x direct ({}){vs_remote}{vs_sg}",
            yes(added < 0.3),
            ratio(x),
            yes(x >= 0.5)
        );
    }
}
