//! `cargo run --release -p jsonrpc-errors-bench --bin guard_bench -- [options]` — the guard's load benchmark.
//!
//! One process holds both sides:
//! - `--serve`: a fast MCP-like stdio server. It answers `initialize`, `tools/list` and every `tools/call`
//!   with a small fixed result, echoing the request's id text, one line per answer, one flush per burst.
//! - the driver (default): runs the same workload against each target, in one run, rounds alternating
//!   (direct, guard, gatekit, direct, …) so the machine's slow spells hit every target alike:
//!   (a) `direct`: this program `--serve`;
//!   (b) `guard`: `target/release/jsonrpc-errors guard --log-level warn -- <this program> --serve`;
//!   (c) `baseline` (with `--baseline PATH`): another build of the guard (the CLI of the commit before a
//!   change), so a change's before/after ratio is measured in one run;
//!   (d) `gatekit` (with `--gatekit CMD` or `GUARD_BENCH_GATEKIT=CMD`): the gatekit gateway on PyPI, configured
//!   by `guard_bench_gatekit.yaml` beside this file, in front of the same server.
//!
//! The workload: an MCP handshake (`initialize`, `notifications/initialized`), then N `tools/call` requests
//! (default 100 000) with W in flight (default 64): a sliding window, one new request per answer. Each
//! request's round trip is timed; every id must be answered exactly once. Per target the table shows the
//! round with the median wall time, with the target process's own CPU time per relayed message (utime +
//! stime from /proc between the end of the handshake and the last answer, over 2 messages per request).
//!
//! Every run has a start-up timeout, a stall timeout (no answer for a while) and an overall timeout; a
//! failed target is reported with the tail of its stderr and the bench goes on. Benchmarks measure, they
//! are not tests: the machines are shared and noisy, so read the ratios measured in the same run.

#[path = "common/measure.rs"]
mod measure;
#[path = "common/stdio_server.rs"]
mod stdio_server;
use measure::{memory_kib, percentile, ratio, shell_words, stderr_tail};

use clap::Parser;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    about = "Load benchmark of `jsonrpc-errors guard` (and of gatekit, if given) against a direct stdio server"
)]
struct Cli {
    /// Be the upstream server (on stdin/stdout) instead of the driver.
    #[arg(long)]
    serve: bool,
    /// tools/call requests per run.
    #[arg(long, default_value_t = 100_000)]
    requests: u64,
    /// Requests in flight.
    #[arg(long, default_value_t = 64)]
    window: u32,
    /// Each `tools/call` result's text length in bytes (default: a small fixed result): with `--window 1`,
    /// the added latency per request is what the target costs to relay a result of this size.
    #[arg(long, value_name = "BYTES")]
    result_bytes: Option<usize>,
    /// Runs per target (alternating between targets); the median one by wall time is reported.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Which targets to run, in this order within a round.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "direct,guard,baseline,gatekit"
    )]
    targets: Vec<String>,
    /// The guard binary (default: target/release/jsonrpc-errors of this workspace).
    #[arg(long)]
    guard: Option<PathBuf>,
    /// Another build of the guard to compare with, as the target `baseline` (e.g. the CLI of the commit
    /// before a change): run in the same rounds, it gives a before/after ratio measured in one run.
    #[arg(long, value_name = "PATH")]
    baseline: Option<PathBuf>,
    /// The gatekit gateway command (split on whitespace), e.g. /tmp/gatekit-venv/bin/gatekit-gateway; the
    /// bench adds `--config FILE`. Also read from GUARD_BENCH_GATEKIT. Without it gatekit is skipped.
    #[arg(long, value_name = "CMD")]
    gatekit: Option<String>,
    /// Seconds a target gets from its start to the answer to `initialize`.
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    startup_timeout: f64,
    /// Seconds without any answer after which a run is abandoned.
    #[arg(long, default_value_t = 15.0, value_name = "SECS")]
    stall_timeout: f64,
    /// Seconds one run may take in all.
    #[arg(long, default_value_t = 600.0, value_name = "SECS")]
    timeout: f64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.serve {
        return stdio_server::serve(cli.result_bytes);
    }
    drive(cli)
}

// ---------------------------------------------------------------------------------------------------------
// The driver.

struct Target {
    name: String,
    argv: Vec<String>,
    /// Why it cannot run at all (reported once instead of per round).
    unavailable: Option<String>,
}

/// What one run measured.
struct Run {
    /// From the target's spawn to the answer to `initialize`.
    startup: Duration,
    /// From the first request written to the last answer read.
    wall: Duration,
    /// Round-trip latency of every request, in nanoseconds, sorted.
    latencies: Vec<u64>,
    /// The target process's CPU seconds (utime + stime) spent during the load, and in all up to its end.
    cpu_load: Option<f64>,
    cpu_total: Option<f64>,
    /// Resident memory (KiB) after the handshake and after the last answer, and its peak.
    rss_start: Option<u64>,
    rss_end: Option<u64>,
    rss_peak: Option<u64>,
    answers: Answers,
    exit: String,
}

fn drive(cli: Cli) -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let log_dir = root.join("target/bench/guard_bench");
    if let Err(e) = std::fs::create_dir_all(&log_dir) {
        eprintln!("guard_bench: cannot create {}: {e}", log_dir.display());
        return ExitCode::FAILURE;
    }
    let me = match std::env::current_exe() {
        Ok(p) => p.display().to_string(),
        Err(e) => {
            eprintln!("guard_bench: cannot find its own executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut serve_cmd = vec![me.clone(), "--serve".to_string()];
    if let Some(bytes) = cli.result_bytes {
        serve_cmd.extend(["--result-bytes".to_string(), bytes.to_string()]);
    }
    let guard_bin = cli
        .guard
        .clone()
        .unwrap_or_else(|| root.join("target/release/jsonrpc-errors"));
    let guard_bin = guard_bin.canonicalize().unwrap_or(guard_bin);
    let gatekit = cli
        .gatekit
        .clone()
        .or_else(|| std::env::var("GUARD_BENCH_GATEKIT").ok())
        .filter(|s| !s.trim().is_empty());

    let mut targets = Vec::new();
    for name in &cli.targets {
        let target = match name.as_str() {
            "direct" => Target {
                name: name.clone(),
                argv: serve_cmd.clone(),
                unavailable: None,
            },
            "guard" => guard_target(name, &guard_bin, &serve_cmd),
            "baseline" => match &cli.baseline {
                Some(bin) => guard_target(name, bin, &serve_cmd),
                None => Target {
                    name: name.clone(),
                    argv: vec![],
                    unavailable: Some("not requested (--baseline PATH)".into()),
                },
            },
            "gatekit" => match &gatekit {
                None => Target {
                    name: name.clone(),
                    argv: vec![],
                    unavailable: Some(
                        "not requested (--gatekit CMD or GUARD_BENCH_GATEKIT)".into(),
                    ),
                },
                Some(cmd) => match write_gatekit_config(&log_dir, &serve_cmd) {
                    Ok(config) => {
                        let mut argv: Vec<String> =
                            cmd.split_whitespace().map(String::from).collect();
                        argv.extend(["--config".to_string(), config.display().to_string()]);
                        Target {
                            name: name.clone(),
                            argv,
                            unavailable: None,
                        }
                    }
                    Err(e) => Target {
                        name: name.clone(),
                        argv: vec![],
                        unavailable: Some(e),
                    },
                },
            },
            other => {
                eprintln!(
                    "guard_bench: unknown target {other:?} (direct, guard, baseline, gatekit)"
                );
                return ExitCode::from(2);
            }
        };
        targets.push(target);
    }
    if cli.requests == 0 || cli.window == 0 || cli.rounds == 0 {
        eprintln!("guard_bench: --requests, --window and --rounds must be at least 1");
        return ExitCode::from(2);
    }

    println!(
        "== guard load: {} tools/call requests, {} in flight, {} alternating rounds per target ==",
        cli.requests, cli.window, cli.rounds
    );
    for t in &targets {
        match &t.unavailable {
            None => println!("{:<8} $ {}", t.name, shell_words(&t.argv)),
            Some(why) => println!("{:<8} skipped: {why}", t.name),
        }
    }
    if targets
        .iter()
        .any(|t| t.name == "gatekit" && t.unavailable.is_none())
    {
        println!("gatekit config: {}", log_dir.join("gatekit.yaml").display());
    }
    println!(
        "target stderr: {}/<target>-<round>.stderr",
        log_dir.display()
    );

    let limits = Limits {
        startup: Duration::from_secs_f64(cli.startup_timeout),
        stall: Duration::from_secs_f64(cli.stall_timeout),
        total: Duration::from_secs_f64(cli.timeout),
    };
    let mut runs: Vec<Vec<Run>> = targets.iter().map(|_| Vec::new()).collect();
    let mut failures: Vec<Vec<String>> = targets.iter().map(|_| Vec::new()).collect();
    for round in 1..=cli.rounds {
        for (i, t) in targets.iter().enumerate() {
            if t.unavailable.is_some() {
                continue;
            }
            let stderr_path = log_dir.join(format!("{}-{round}.stderr", t.name));
            match run_once(&t.argv, cli.requests, cli.window, &limits, &stderr_path) {
                Ok(run) => {
                    println!(
                        "round {round} {:<8} {:>8.3} s  {:>9.0} req/s  p99 {:>8.0} µs{}",
                        t.name,
                        run.wall.as_secs_f64(),
                        cli.requests as f64 / run.wall.as_secs_f64(),
                        percentile(&run.latencies, 0.99) as f64 / 1e3,
                        run.answers.trouble_summary()
                    );
                    runs[i].push(run);
                }
                Err(e) => {
                    println!("round {round} {:<8} FAILED: {e}", t.name);
                    failures[i].push(e);
                }
            }
        }
    }

    report(&cli, &targets, &mut runs, &failures);
    ExitCode::SUCCESS
}

/// A build of the guard in front of the bench server.
fn guard_target(name: &str, bin: &Path, serve_cmd: &[String]) -> Target {
    let mut argv = vec![
        bin.display().to_string(),
        "guard".into(),
        "--log-level".into(),
        "warn".into(),
        "--".into(),
    ];
    argv.extend(serve_cmd.iter().cloned());
    let unavailable =
        (!bin.is_file()).then(|| format!("{} is missing (cargo xtask build)", bin.display()));
    Target {
        name: name.to_string(),
        argv,
        unavailable,
    }
}

/// Writes the gatekit config (the template beside this file, with this program's `--serve` command).
fn write_gatekit_config(dir: &Path, serve_cmd: &[String]) -> Result<PathBuf, String> {
    const TEMPLATE: &str = include_str!("guard_bench_gatekit.yaml");
    let command = serde_json::to_string(serve_cmd).map_err(|e| e.to_string())?;
    const PLACEHOLDER: &str = "command: [GUARD_BENCH_SERVE_COMMAND]";
    if !TEMPLATE.contains(PLACEHOLDER) {
        return Err(format!(
            "guard_bench_gatekit.yaml lacks the line `{PLACEHOLDER}`"
        ));
    }
    let config = TEMPLATE.replace(PLACEHOLDER, &format!("command: {command}"));
    let path = dir.join("gatekit.yaml");
    std::fs::write(&path, config).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

struct Limits {
    startup: Duration,
    stall: Duration,
    total: Duration,
}

/// What the reader thread reports to the run's main thread.
enum Event {
    /// The answer to `initialize` arrived.
    Ready(Instant),
    /// Every request is answered (at this instant).
    Done(Instant),
    /// The output closed or failed; the reader's log follows as `Finished`.
    Finished(Answers),
}

/// A batch of requests written together: indexes `first..first + count`, written at `at`.
struct Batch {
    first: u64,
    count: u64,
    at: Instant,
}

/// Everything read from a target's output.
#[derive(Default)]
struct Answers {
    /// Latencies in ns, in answer order.
    latencies: Vec<u64>,
    /// The slowest request's id and latency (where a spike happened: at the start, or anywhere).
    slowest_id: u64,
    slowest_ns: u64,
    answered: u64,
    /// Answers carrying `error` instead of `result`, and the first one.
    errors: u64,
    first_error: Option<String>,
    /// Answers whose id is lower than one answered before (the pipeline reordered them).
    out_of_order: u64,
    duplicates: u64,
    /// Lines that are not an answer to a request of ours (unknown id, notification, garbage), and the first.
    stray: u64,
    first_stray: Option<String>,
    read_error: Option<String>,
    /// The longest answer line read (without its newline): the largest line the target relayed.
    longest_line: usize,
}

impl Answers {
    fn trouble_summary(&self) -> String {
        let mut s = String::new();
        if self.errors > 0 {
            s += &format!(
                "  errors {} (first: {})",
                self.errors,
                self.first_error.as_deref().unwrap_or("")
            );
        }
        if self.out_of_order > 0 {
            s += &format!("  out-of-order {}", self.out_of_order);
        }
        if self.duplicates > 0 {
            s += &format!("  DUPLICATES {}", self.duplicates);
        }
        if self.stray > 0 {
            s += &format!(
                "  stray lines {} (first: {})",
                self.stray,
                self.first_stray.as_deref().unwrap_or("")
            );
        }
        s
    }
}

/// The child process of one run; dropping it kills its whole process group (a gateway's upstream too) and
/// reaps it, so no early return leaves a process behind.
struct Running {
    child: Child,
    reaped: bool,
}

impl Running {
    fn kill(&mut self) {
        if !self.reaped {
            // SAFETY: kill(2) on the process group we created for this child (process_group(0)).
            unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }

    /// Waits up to `limit` for the child to exit on its own; its status, or None.
    fn wait_for(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let until = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => {
                    self.reaped = true;
                    return Some(st);
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One run against one target: spawn, handshake, load, check, stop.
fn run_once(
    argv: &[String],
    n: u64,
    window: u32,
    limits: &Limits,
    stderr_path: &Path,
) -> Result<Run, String> {
    let fail = |msg: String| format!("{msg}{}", stderr_tail(stderr_path));
    let stderr = File::create(stderr_path)
        .map_err(|e| format!("cannot create {}: {e}", stderr_path.display()))?;
    let spawned = Instant::now();
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // To a file: nobody has to drain it, and it stays as evidence.
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", argv[0]))?;
    let mut proc = Running {
        child,
        reaped: false,
    };
    let pid = proc.child.id();
    let (Some(mut stdin), Some(stdout)) = (proc.child.stdin.take(), proc.child.stdout.take())
    else {
        return Err("the child's pipes are missing".into());
    };

    let (events_tx, events) = mpsc::channel::<Event>();
    let (sent_tx, sent_rx) = mpsc::channel::<Batch>();
    let (credit_tx, credit_rx) = mpsc::channel::<u64>();
    let answered = Arc::new(AtomicU64::new(0));
    {
        let answered = answered.clone();
        std::thread::spawn(move || {
            read_answers(stdout, n, sent_rx, credit_tx, events_tx, answered)
        });
    }

    // The MCP handshake, outside the measurement.
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"guard-bench","version":"0.1.0"}}}"#;
    writeln!(stdin, "{init}")
        .and_then(|_| stdin.flush())
        .map_err(|e| fail(format!("cannot write initialize: {e}")))?;
    let startup = match events.recv_timeout(limits.startup) {
        Ok(Event::Ready(at)) => at - spawned,
        Ok(Event::Finished(a)) => {
            let status = proc
                .wait_for(Duration::from_secs(2))
                .map(|s| format!("; {s}"))
                .unwrap_or_default();
            let read_error = a
                .read_error
                .as_ref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default();
            return Err(fail(format!(
                "closed its output before answering initialize{read_error}{status}{}",
                a.trouble_summary()
            )));
        }
        Ok(Event::Done(_)) | Err(_) => {
            return Err(fail(format!(
                "no answer to initialize within {:?}",
                limits.startup
            )))
        }
    };
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .and_then(|_| stdin.flush())
    .map_err(|e| fail(format!("cannot write notifications/initialized: {e}")))?;
    let cpu_start = cpu_seconds(pid);
    let rss_start = memory_kib(pid, "VmRSS");

    // The load: the writer starts with `window` credits and gets one back per answer.
    let writer = std::thread::spawn(move || write_requests(stdin, n, window, credit_rx, sent_tx));

    let started = Instant::now();
    let mut last_count = 0;
    let mut last_progress = Instant::now();
    let finished_at = loop {
        match events.recv_timeout(Duration::from_millis(200)) {
            Ok(Event::Done(at)) => break at,
            Ok(Event::Finished(a)) => {
                let why = a
                    .read_error
                    .clone()
                    .unwrap_or_else(|| "closed its output".into());
                let status = proc
                    .wait_for(Duration::from_secs(2))
                    .map(|s| format!("; {s}"))
                    .unwrap_or_default();
                return Err(fail(format!(
                    "{why} after {} of {n} answers{status}{}",
                    a.answered,
                    a.trouble_summary()
                )));
            }
            Ok(Event::Ready(_)) => {}
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(fail("the reader thread died".into()))
            }
        }
        let count = answered.load(Ordering::Relaxed);
        if count != last_count {
            (last_count, last_progress) = (count, Instant::now());
        }
        if last_progress.elapsed() > limits.stall {
            return Err(fail(format!(
                "stalled: no answer for {:?} after {count} of {n} answers",
                limits.stall
            )));
        }
        if started.elapsed() > limits.total {
            return Err(fail(format!(
                "timed out after {:?} with {count} of {n} answers",
                limits.total
            )));
        }
    };
    // Right after the last answer, before the shutdown adds its own work.
    let cpu_end = cpu_seconds(pid);
    let rss_end = memory_kib(pid, "VmRSS");
    let rss_peak = memory_kib(pid, "VmHWM");

    // Closing stdin is MCP's shutdown: the target should exit by itself.
    let (stdin, first_write) = match writer.join() {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return Err(fail(format!("writing requests failed: {e}"))),
        Err(_) => return Err("the writer thread panicked".into()),
    };
    drop(stdin);
    let exit = match proc.wait_for(Duration::from_secs(10)) {
        Some(st) => st.to_string(),
        None => {
            proc.kill();
            "did not exit within 10 s of its stdin closing: killed".into()
        }
    };
    // The reader sees the end of the output once the target is gone; whatever came after the last answer
    // (duplicates, strays) is in its log.
    let answers = loop {
        match events.recv_timeout(Duration::from_secs(10)) {
            Ok(Event::Finished(a)) => break a,
            Ok(_) => continue,
            Err(_) => return Err(fail("its output stayed open after it exited".into())),
        }
    };

    let mut answers = answers;
    let mut latencies = std::mem::take(&mut answers.latencies);
    latencies.sort_unstable();
    Ok(Run {
        startup,
        wall: finished_at - first_write,
        latencies,
        cpu_load: cpu_end.zip(cpu_start).map(|(e, s)| e - s),
        cpu_total: cpu_end,
        rss_start,
        rss_end,
        rss_peak,
        answers,
        exit,
    })
}

/// Writes the N requests: at first `window` of them, then as many as answers have come back, one flush per
/// batch. Returns the pipe (kept open until the run ends) and when the first request was written.
fn write_requests(
    stdin: ChildStdin,
    n: u64,
    window: u32,
    credits: Receiver<u64>,
    sent: Sender<Batch>,
) -> std::io::Result<(ChildStdin, Instant)> {
    let mut out = BufWriter::with_capacity(64 * 1024, stdin);
    let mut next: u64 = 0;
    let mut available = window as u64;
    let mut first_write = None;
    while next < n {
        if available == 0 {
            match credits.recv() {
                Ok(c) => available += c,
                Err(_) => break, // the reader is gone: the run is over
            }
        }
        while let Ok(c) = credits.try_recv() {
            available += c;
        }
        let count = available.min(n - next);
        let at = Instant::now();
        first_write.get_or_insert(at);
        // Announced before it is written, so the reader knows the send time when the answer arrives.
        if sent
            .send(Batch {
                first: next,
                count,
                at,
            })
            .is_err()
        {
            break;
        }
        for i in next..next + count {
            // Ids 1..=N (0 is initialize). The tool name has gatekit's `server__tool` routing prefix.
            writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"bench__get_weather","arguments":{{"city":"Berlin","units":"metric"}}}}}}"#,
                i + 1
            )?;
        }
        out.flush()?;
        next += count;
        available -= count;
    }
    let first_write = first_write.unwrap_or_else(Instant::now);
    out.into_inner()
        .map(|stdin| (stdin, first_write))
        .map_err(|e| e.into_error())
}

/// Just what the driver needs of an answer.
#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
}

/// Reads the target's output to its end: the answer to `initialize`, then the N answers (timed against
/// their batch's send time, one credit back to the writer each), then anything after.
fn read_answers(
    stdout: ChildStdout,
    n: u64,
    sent: Receiver<Batch>,
    credits: Sender<u64>,
    events: Sender<Event>,
    answered: Arc<AtomicU64>,
) {
    let mut input = BufReader::with_capacity(64 * 1024, stdout);
    let mut log = Answers {
        latencies: Vec::with_capacity(n as usize),
        ..Default::default()
    };
    let mut sent_at: Vec<Option<Instant>> = vec![None; n as usize];
    let mut seen = vec![false; n as usize];
    let mut highest = 0u64;
    let mut ready = false;
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                log.read_error = Some(format!("reading its output failed: {e}"));
                break;
            }
        }
        let now = Instant::now();
        let text = line.trim_ascii();
        log.longest_line = log.longest_line.max(text.len());
        if text.is_empty() {
            continue;
        }
        let stray = |log: &mut Answers, why: &str| {
            log.stray += 1;
            if log.first_stray.is_none() {
                log.first_stray = Some(format!(
                    "{why}: {}",
                    String::from_utf8_lossy(&text[..text.len().min(300)])
                ));
            }
        };
        let Ok(msg) = serde_json::from_slice::<Answer>(text) else {
            stray(&mut log, "not a JSON-RPC message");
            continue;
        };
        let Some(id) = msg.id.and_then(|id| id.get().parse::<u64>().ok()) else {
            stray(&mut log, "no numeric id");
            continue;
        };
        if id == 0 && !ready {
            ready = true;
            let _ = events.send(Event::Ready(now));
            continue;
        }
        if id == 0 || id > n {
            stray(&mut log, "unknown id");
            continue;
        }
        let i = (id - 1) as usize;
        if std::mem::replace(&mut seen[i], true) {
            log.duplicates += 1;
            continue;
        }
        if sent_at[i].is_none() {
            while let Ok(b) = sent.try_recv() {
                for j in b.first..b.first + b.count {
                    sent_at[j as usize] = Some(b.at);
                }
            }
        }
        match sent_at[i] {
            Some(at) => {
                let ns = (now - at).as_nanos() as u64;
                if ns > log.slowest_ns {
                    (log.slowest_id, log.slowest_ns) = (id, ns);
                }
                log.latencies.push(ns);
            }
            None => stray(&mut log, "answered before it was sent"),
        }
        if msg.error.is_some() || msg.result.is_none() {
            log.errors += 1;
            if log.first_error.is_none() {
                log.first_error =
                    Some(String::from_utf8_lossy(&text[..text.len().min(300)]).into_owned());
            }
        }
        if id < highest {
            log.out_of_order += 1;
        }
        highest = highest.max(id);
        log.answered += 1;
        answered.store(log.answered, Ordering::Relaxed);
        let _ = credits.send(1);
        if log.answered == n {
            let _ = events.send(Event::Done(now));
        }
    }
    let _ = events.send(Event::Finished(log));
}

/// utime + stime of a process, in seconds (from /proc/<pid>/stat, in clock ticks).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let (utime, stime): (u64, u64) = (fields.get(11)?.parse().ok()?, fields.get(12)?.parse().ok()?);
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks > 0).then(|| (utime + stime) as f64 / ticks as f64)
}

fn report(cli: &Cli, targets: &[Target], runs: &mut [Vec<Run>], failures: &[Vec<String>]) {
    // Per target, the round with the median wall time (its latencies and CPU come from that same run).
    let mut chosen: Vec<Option<&Run>> = Vec::new();
    for r in runs.iter_mut() {
        r.sort_by_key(|run| run.wall);
    }
    for r in runs.iter() {
        chosen.push(r.get((r.len().saturating_sub(1)) / 2));
    }
    let us = |ns: u64| ns as f64 / 1e3;
    let direct = targets
        .iter()
        .position(|t| t.name == "direct")
        .and_then(|i| chosen[i]);

    println!("\n== results: per target the median of its rounds by wall time ({} requests, {} in flight) ==", cli.requests, cli.window);
    println!(
        "{:<8} {:>8} {:>9} {:>10} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9}",
        "target",
        "requests",
        "wall s",
        "req/s",
        "p50 µs",
        "p99 µs",
        "max µs",
        "+p50 µs",
        "+p99 µs",
        "start ms",
        "CPU µs/msg",
        "RSS MiB"
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
            println!("{:<8} {why}", t.name);
            continue;
        };
        let (p50, p99, max) = (
            percentile(&run.latencies, 0.5),
            percentile(&run.latencies, 0.99),
            run.latencies.last().copied().unwrap_or(0),
        );
        let added = |p: f64| match direct {
            Some(d) if !std::ptr::eq(d, run) => format!(
                "{:+.0}",
                us(percentile(&run.latencies, p)) - us(percentile(&d.latencies, p))
            ),
            _ => "-".into(),
        };
        let cpu = run
            .cpu_load
            .map(|c| format!("{:.2}", c * 1e6 / (2 * cli.requests) as f64))
            .unwrap_or("?".into());
        let rss = run
            .rss_end
            .map(|k| format!("{:.1}", k as f64 / 1024.0))
            .unwrap_or("?".into());
        println!(
            "{:<8} {:>8} {:>9.3} {:>10.0} {:>8.0} {:>8.0} {:>9.0} {:>9} {:>9} {:>9.1} {:>11} {:>9}",
            t.name,
            run.answers.answered,
            run.wall.as_secs_f64(),
            cli.requests as f64 / run.wall.as_secs_f64(),
            us(p50),
            us(p99),
            us(max),
            added(0.5),
            added(0.99),
            run.startup.as_secs_f64() * 1e3,
            cpu,
            rss
        );
    }

    println!("\nnotes:");
    for (i, t) in targets.iter().enumerate() {
        if let Some(run) = chosen[i] {
            let walls: Vec<String> = runs[i]
                .iter()
                .map(|r| format!("{:.3}", r.wall.as_secs_f64()))
                .collect();
            let kib = |k: Option<u64>| {
                k.map(|k| format!("{:.1}", k as f64 / 1024.0))
                    .unwrap_or("?".into())
            };
            println!("  {:<8} rounds (wall s, sorted) [{}]; p99.9 {:.0} µs, slowest: request #{}; CPU {:.2} s during the load, {:.2} s in all incl. start-up; RSS {} MiB after the handshake -> {} MiB after the load (peak {}); exit: {}{}",
                t.name, walls.join(", "), us(percentile(&run.latencies, 0.999)), run.answers.slowest_id,
                run.cpu_load.unwrap_or(f64::NAN), run.cpu_total.unwrap_or(f64::NAN),
                kib(run.rss_start), kib(run.rss_end), kib(run.rss_peak), run.exit,
                if run.answers.trouble_summary().is_empty() { "; every id answered exactly once, in order, with a result".into() } else { run.answers.trouble_summary() });
        }
        for f in &failures[i] {
            println!("  {:<8} failed round: {f}", t.name);
        }
    }
    println!("  CPU µs/msg: the target process's own utime + stime during the load over 2 messages per request \
              (for `direct` that is the server's own cost; the others exclude their upstream child).");

    println!("\nratios (same run):");
    let rate = |i: usize| chosen[i].map(|r| cli.requests as f64 / r.wall.as_secs_f64());
    let idx = |name: &str| targets.iter().position(|t| t.name == name);
    let pairs = [
        ("guard", "direct"),
        ("baseline", "direct"),
        ("guard", "baseline"),
        ("gatekit", "direct"),
        ("guard", "gatekit"),
    ];
    for (a, b) in pairs {
        if let (Some(Some(ra)), Some(Some(rb))) = (idx(a).map(rate), idx(b).map(rate)) {
            let (la, lb) = (
                chosen[idx(a).unwrap()].unwrap(),
                chosen[idx(b).unwrap()].unwrap(),
            );
            let p = |run: &Run, q: f64| percentile(&run.latencies, q) as f64;
            let cpu = match (la.cpu_load, lb.cpu_load) {
                (Some(ca), Some(cb)) if cb > 0.0 => {
                    format!(", CPU per message {}x", ratio(ca / cb))
                }
                _ => String::new(),
            };
            println!(
                "  {a}/{b}: throughput {}x, p50 latency {}x, p99 latency {}x{cpu}",
                ratio(ra / rb),
                ratio(p(la, 0.5) / p(lb, 0.5)),
                ratio(p(la, 0.99) / p(lb, 0.99))
            );
        }
    }
    goals(cli, targets, &chosen);
}

/// Issue 38's goals for the stdio guard, each measured on the `guard` target against `direct` in this run
/// (bench/README.md): throughput and CPU per message with 64 in flight, the added p50 at one in flight. A goal
/// whose condition this run does not meet (another `--window`) is printed as not measured.
fn goals(cli: &Cli, targets: &[Target], chosen: &[Option<&Run>]) {
    let run = |name: &str| {
        targets
            .iter()
            .position(|t| t.name == name)
            .and_then(|i| chosen[i])
    };
    let (Some(guard), Some(direct)) = (run("guard"), run("direct")) else {
        return;
    };
    let verdict = |met: bool| if met { "met" } else { "not met" };
    println!("\ngoals (issue 38, the stdio guard against direct in this run):");
    if cli.window == 64 {
        let throughput = direct.wall.as_secs_f64() / guard.wall.as_secs_f64();
        println!(
            "  throughput >= 0.5x direct with 64 in flight: {throughput:.3}x: {}",
            verdict(throughput >= 0.5)
        );
        match guard.cpu_load {
            Some(cpu) => {
                let per_msg = cpu * 1e6 / (2 * cli.requests) as f64;
                println!(
                    "  the guard's CPU <= 1.5 µs per message with 64 in flight: {per_msg:.2} µs: {}",
                    verdict(per_msg <= 1.5)
                );
            }
            None => println!("  the guard's CPU <= 1.5 µs per message: not measured (no /proc)"),
        }
    } else {
        println!(
            "  throughput and CPU per message (with 64 in flight): not measured (--window 64)"
        );
    }
    if cli.window == 1 && cli.result_bytes.is_none() {
        let added = (percentile(&guard.latencies, 0.5) as f64
            - percentile(&direct.latencies, 0.5) as f64)
            / 1e3;
        println!(
            "  added p50 <= 25 µs at one in flight: {added:.0} µs: {}",
            verdict(added <= 25.0)
        );
    } else {
        println!("  added p50 at one in flight: not measured (--window 1, the small result)");
    }
    large_result_goals(cli, guard, direct);
}

/// Issue 38's large-result goals (`--result-bytes` with `--window 1`): the time the guard adds per result
/// (its p50 against direct's) at most what 2 GB/s takes for the largest line, and the memory the load left
/// the guard holding (its RSS after the load less its RSS after the handshake: the runtime and the compiled
/// component before any line are not the line's) at most 1.5x that line.
fn large_result_goals(cli: &Cli, guard: &Run, direct: &Run) {
    let verdict = |met: bool| if met { "met" } else { "not met" };
    if cli.result_bytes.is_none() || cli.window != 1 {
        println!("  large results: not measured (--result-bytes N --window 1)");
        return;
    }
    let line = guard.answers.longest_line as f64;
    let added_ms = (percentile(&guard.latencies, 0.5) as f64
        - percentile(&direct.latencies, 0.5) as f64)
        / 1e6;
    let budget_ms = line / 2e9 * 1e3;
    println!(
        "  added time per result <= {budget_ms:.1} ms (2 GB/s for a {:.1} MB line): {added_ms:.1} ms ({:.2} GB/s): {}",
        line / 1e6,
        line / (added_ms.max(1e-9) * 1e6),
        verdict(added_ms <= budget_ms)
    );
    match (guard.rss_start, guard.rss_end) {
        (Some(start), Some(end)) => {
            let grown = end.saturating_sub(start) as f64 * 1024.0;
            println!(
                "  RSS the load left <= 1.5x the largest line: {:.1} MiB ({:.2}x; {:.1} -> {:.1} MiB): {}",
                grown / 1048576.0,
                grown / line.max(1.0),
                start as f64 / 1024.0,
                end as f64 / 1024.0,
                verdict(grown <= 1.5 * line)
            );
        }
        _ => println!("  RSS the load left: not measured (no /proc)"),
    }
}
