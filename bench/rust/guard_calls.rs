//! `cargo run --release -p jsonrpc-errors-bench --bin guard_calls -- [--pairs N] [--only MODE]` — where the
//! stdio guard's CPU per message goes, without pipes or tokio: one guard session fed the `guard` benchmark's
//! workload (an MCP handshake, then `tools/call` requests and their small results, one in flight), timed per
//! request/response pair (this thread's CPU time) at each layer a relayed line crosses:
//! - `native`: the guest's session called natively (the decision alone: parse, judge, steps);
//! - `native-json`: the same, each outcome written as the JSON text the component returns;
//! - `component-json`: the session in the component through wasmtime, the outcome's JSON text as returned;
//! - `component-json-read`: the same, the JSON text read into the host's `Outcome` (the relay's path before
//!   the `*-outcome` calls);
//! - `component`: the session's `Outcome` as the relay gets it (`SessionCalls::outcome`: a line's outcome
//!   lifted from the component's `session-outcome` record);
//! - `component-batch`: the same lines, `--batch` of them (64: the relay's most) per component call
//!   (`SessionCalls::outcomes`: `lines-outcome`), as the relay calls it under load.
//!
//! The differences between the rows are each layer's cost; `component` less `component-batch` is about what
//! entering and leaving the component costs per call (with the call context and the arguments' lowering),
//! `component-batch` less `native` what running the guest in wasmtime and lifting its records costs.
//! `--only MODE --pairs N` runs one mode alone, a steady load for `perf record`. `--result-bytes N` makes
//! each result the `guard` benchmark's large one (`guard_bench --result-bytes N`) and times the upstream
//! line alone (ms per result, and GB/s), with the native steps of reading it beside it: its UTF-8 check, the
//! envelope's read, the result's members. Benchmarks measure; they are not tests (bench/README.md).

#[path = "common/stdio_server.rs"]
#[allow(dead_code)]
mod stdio_server;

use clap::Parser;
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_host::guard::{Call, Outcome, Session, SessionCalls};
use jsonrpc_errors_host::{Context, Runtime};

/// This thread's CPU time in ns: what the calls cost, not how long a shared machine let them run.
fn thread_cpu() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given, nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[derive(Parser)]
#[command(about = "Per-layer cost of a guard session's calls on the guard benchmark's workload")]
struct Cli {
    /// Request/response pairs per mode.
    #[arg(long, default_value_t = 200_000)]
    pairs: u64,
    /// Run this mode alone (native, native-json, component-json, component-json-read, component).
    #[arg(long)]
    only: Option<String>,
    /// Each result's text length in bytes (default: the small fixed result): the upstream line's cost alone.
    #[arg(long, value_name = "BYTES")]
    result_bytes: Option<usize>,
    /// Lines per call in `component-batch`.
    #[arg(long, default_value_t = 64)]
    batch: usize,
}

const MODES: [&str; 6] = [
    "native",
    "native-json",
    "component-json",
    "component-json-read",
    "component",
    "component-batch",
];

fn request(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"bench__get_weather","arguments":{{"city":"Berlin","units":"metric"}}}}}}"#
    )
}

fn response(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#,
        stdio_server::TOOL_RESULT
    )
}

fn handshake() -> Vec<(bool, String)> {
    vec![
        (true, r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"guard-bench","version":"0.1.0"}}}"#.into()),
        (false, format!(r#"{{"jsonrpc":"2.0","id":0,"result":{}}}"#, stdio_server::INITIALIZE_RESULT)),
        (true, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into()),
    ]
}

/// Runs `pairs` request/response pairs through `step` (client line?, line, clock), returning ns per pair.
fn run(pairs: u64, mut step: impl FnMut(bool, &[u8], u64) -> usize) -> f64 {
    for (client, line) in handshake() {
        step(client, line.as_bytes(), 1_700_000_000_000);
    }
    // The lines are made before the clock starts: the bench server's and client's work is not the guard's.
    let lines: Vec<(String, String)> = (1..=1000).map(|i| (request(i), response(i))).collect();
    let mut sink = 0usize;
    let start = thread_cpu();
    let mut n = 0u64;
    while n < pairs {
        for (req, resp) in &lines {
            let now = 1_700_000_000_000 + n / 1000;
            sink += step(true, req.as_bytes(), now);
            sink += step(false, resp.as_bytes(), now);
            n += 1;
            if n == pairs {
                break;
            }
        }
    }
    let ns = (thread_cpu() - start) as f64 / pairs as f64;
    std::hint::black_box(sink);
    ns
}

fn native(pairs: u64, json: bool) -> f64 {
    let args = jsonrpc_errors_guest::api::SessionArgs::default();
    let mut s = jsonrpc_errors_guest::api::guard_session(args).expect("a session");
    run(pairs, |client, line, now| {
        let ctx = CallContext {
            unix_millis: now,
            entropy: now,
        };
        let o = if client {
            s.client_line(line, ctx)
        } else {
            s.upstream_line(line, ctx)
        };
        if json {
            o.to_json().len()
        } else {
            o.steps.len()
        }
    })
}

/// How `component` gets its outcome.
#[derive(Clone, Copy, PartialEq)]
enum Read {
    /// The JSON text, as returned.
    Text,
    /// The JSON text, read into an `Outcome`.
    ParsedText,
    /// `SessionCalls::outcome` (the record).
    Outcome,
}

fn component(pairs: u64, read: Read) -> f64 {
    let runtime = Runtime::new(Vec::new()).expect("the component");
    let mut s = runtime
        .guard_session(&Default::default())
        .expect("a session");
    run(pairs, |client, line, now| {
        component_step(&mut s, read, client, line, now)
    })
}

/// One line through the component's session, its outcome read as `read` says: the step `component` and
/// `large` time (a size of what came back, so that nothing is optimised away).
fn component_step(s: &mut Session, read: Read, client: bool, line: &[u8], now: u64) -> usize {
    let ctx = Context {
        unix_millis: now,
        entropy: now,
    };
    let call = if client {
        Call::ClientLine(line)
    } else {
        Call::UpstreamLine(line)
    };
    match read {
        Read::Text => s.outcome_json(call, ctx).expect("an outcome").len(),
        Read::ParsedText => {
            let text = s.outcome_json(call, ctx).expect("an outcome");
            Outcome::parse(&text).expect("an outcome").steps.len()
        }
        Read::Outcome => s.outcome(call, ctx).expect("an outcome").steps.len(),
    }
}

/// `pairs` pairs through `SessionCalls::outcomes`, `batch` lines (requests and their responses, in order) per
/// call; ns per pair.
fn component_batch(pairs: u64, batch: usize) -> f64 {
    let runtime = Runtime::new(Vec::new()).expect("the component");
    let mut s = runtime
        .guard_session(&Default::default())
        .expect("a session");
    let ctx = Context {
        unix_millis: 1_700_000_000_000,
        entropy: 1,
    };
    for (client, line) in handshake() {
        let call = if client {
            Call::ClientLine(line.as_bytes())
        } else {
            Call::UpstreamLine(line.as_bytes())
        };
        s.outcome(call, ctx).expect("an outcome");
    }
    let lines: Vec<(bool, String)> = (1..=1000)
        .flat_map(|i| [(true, request(i)), (false, response(i))])
        .collect();
    let batch = batch.max(1);
    let mut sink = 0usize;
    let start = thread_cpu();
    let mut n = 0u64;
    while n < pairs * 2 {
        for chunk in lines.chunks(batch) {
            let take = chunk.len().min((pairs * 2 - n) as usize);
            let calls: Vec<Call<'_>> = chunk[..take]
                .iter()
                .map(|(client, line)| {
                    if *client {
                        Call::ClientLine(line.as_bytes())
                    } else {
                        Call::UpstreamLine(line.as_bytes())
                    }
                })
                .collect();
            let ctx = Context {
                unix_millis: 1_700_000_000_000 + n / 2000,
                entropy: n,
            };
            let outcomes = s.outcomes(&calls, ctx).expect("outcomes");
            sink += outcomes.iter().map(|o| o.steps.len()).sum::<usize>();
            n += take as u64;
            if n == pairs * 2 {
                break;
            }
        }
    }
    let ns = (thread_cpu() - start) as f64 / pairs as f64;
    std::hint::black_box(sink);
    ns
}

fn measure(mode: &str, pairs: u64, batch: usize) -> f64 {
    match mode {
        "native" => native(pairs, false),
        "native-json" => native(pairs, true),
        "component-json" => component(pairs, Read::Text),
        "component-json-read" => component(pairs, Read::ParsedText),
        "component" => component(pairs, Read::Outcome),
        "component-batch" => component_batch(pairs, batch),
        other => panic!("unknown mode {other}"),
    }
}

/// The large-result rows: `pairs` requests, each answered by a line of a `bytes`-long result; this thread's
/// CPU time in the session's `upstream_line` alone (the request and the line's making are not timed).
fn large(mode: &str, pairs: u64, bytes: usize) -> f64 {
    let result = stdio_server::large_result(bytes);
    let mut line = String::new();
    let mut timed = 0u64;
    let mut time = |id: u64, step: &mut dyn FnMut(bool, &[u8], u64) -> usize| {
        step(true, request(id).as_bytes(), 1_700_000_000_000);
        line.clear();
        line.push_str(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#));
        line.push_str(&result);
        line.push('}');
        let start = thread_cpu();
        std::hint::black_box(step(false, line.as_bytes(), 1_700_000_000_000));
        timed += thread_cpu() - start;
    };
    let handshake = |step: &mut dyn FnMut(bool, &[u8], u64) -> usize| {
        for (client, line) in handshake() {
            step(client, line.as_bytes(), 1_700_000_000_000);
        }
    };
    match mode {
        "utf8" | "parse" | "members" => {
            let mut step = |client: bool, line: &[u8], _: u64| -> usize {
                if client {
                    return 0;
                }
                let Ok(text) = std::str::from_utf8(line) else {
                    return 0;
                };
                if mode == "utf8" {
                    return text.len();
                }
                match jsonrpc_errors_guest::message::parse(text) {
                    jsonrpc_errors_guest::message::Parsed::Object(e) if mode == "members" => e
                        .result
                        .map(|r| {
                            jsonrpc_errors_guest::message::top_members(r, &["isError"])
                                .map_or(0, |m| m.len())
                        })
                        .unwrap_or(0),
                    jsonrpc_errors_guest::message::Parsed::Object(_) => 1,
                    _ => 0,
                }
            };
            for id in 1..=pairs {
                time(id, &mut step);
            }
        }
        "native" | "native-json" => {
            let args = jsonrpc_errors_guest::api::SessionArgs::default();
            let mut s = jsonrpc_errors_guest::api::guard_session(args).expect("a session");
            let mut step = |client: bool, line: &[u8], now: u64| -> usize {
                let ctx = CallContext {
                    unix_millis: now,
                    entropy: now,
                };
                let o = if client {
                    s.client_line(line, ctx)
                } else {
                    s.upstream_line(line, ctx)
                };
                match mode {
                    "native-json" => o.to_json().len(),
                    _ => o.steps.len(),
                }
            };
            handshake(&mut step);
            for id in 1..=pairs {
                time(id, &mut step);
            }
        }
        _ => {
            let read = match mode {
                "component-json" => Read::Text,
                "component-json-read" => Read::ParsedText,
                "component" => Read::Outcome,
                other => panic!("unknown mode {other}"),
            };
            let runtime = Runtime::new(Vec::new()).expect("the component");
            let mut s = runtime
                .guard_session(&Default::default())
                .expect("a session");
            let mut step = |client: bool, line: &[u8], now: u64| -> usize {
                component_step(&mut s, read, client, line, now)
            };
            handshake(&mut step);
            for id in 1..=pairs {
                time(id, &mut step);
            }
        }
    }
    timed as f64 / pairs as f64
}

/// The native steps of reading a large result's line, timed on their own (`--result-bytes`).
const LARGE_STEPS: [&str; 3] = ["utf8", "parse", "members"];

fn main() {
    let cli = Cli::parse();
    if let Some(bytes) = cli.result_bytes {
        let pairs = cli.pairs.min(1_000);
        let modes: Vec<&str> = match &cli.only {
            Some(m) => vec![m.as_str()],
            None => LARGE_STEPS.iter().chain(MODES.iter()).copied().collect(),
        };
        println!(
            "{pairs} results of {bytes} bytes per mode; this thread's CPU ms per result line (the request not counted)"
        );
        for mode in modes {
            let ns = large(mode, pairs, bytes);
            println!(
                "{mode:<20} {:>8.3} ms/result {:>7.2} GB/s",
                ns / 1e6,
                bytes as f64 / ns
            );
        }
        return;
    }
    let modes: Vec<&str> = match &cli.only {
        Some(m) => vec![m.as_str()],
        None => MODES.to_vec(),
    };
    println!(
        "{} request/response pairs per mode; this thread's CPU µs per message (2 per pair)",
        cli.pairs
    );
    for mode in modes {
        let ns = measure(mode, cli.pairs, cli.batch);
        println!("{mode:<16} {:>8.3} µs/msg", ns / 2000.0);
    }
}
