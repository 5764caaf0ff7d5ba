//! A newline-delimited JSON-RPC server on stdin/stdout that misbehaves when asked, written in Rust so that it
//! cross-builds for Windows: the upstream of the guard's Windows tests (tests/platforms/), run under Wine.
//!
//! `misbehaving-server [--log FILE]` serves; each request's `method` says what to do:
//!
//! - `say` `{"line": TEXT}` or `{"lines": [TEXT, ...]}`: writes each TEXT as it is, as one line (the test
//!   writes the answer, byte for byte);
//! - `slow` `{"ms": N, "line": TEXT}`: the same after N ms, from another thread (reading goes on);
//! - `hang`: never answers;
//! - `crash`: panics at once (exit status 101), with the request unanswered;
//! - `spawn` `{"marker": M}`: starts `misbehaving-server sleep M` (a grandchild of the guard, which sleeps
//!   until killed) and answers `{"pid": ITS_PID}`;
//! - anything else: answered `{"echo": PARAMS}`.
//!
//! `--log FILE` appends every line received, as received. At the end of its input it waits for its `slow`
//! answers, then exits 0: a server that finishes what it was asked before it leaves.
//!
//! `misbehaving-server sleep MARKER` sleeps until killed (MARKER only names it in a process list).

use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("sleep") {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    let mut log = match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("--log"), Some(path)) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .expect("the log file opens"),
        ),
        _ => None,
    };
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let mut slow = Vec::new();
    for line in std::io::stdin().lock().split(b'\n') {
        let Ok(line) = line else { break };
        if let Some(log) = &mut log {
            let _ = log.write_all(&line);
            let _ = log.write_all(b"\n");
            let _ = log.flush();
        }
        let Ok(request) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (request.get("id"), request["method"].as_str()) else {
            continue;
        };
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let text = params["line"].as_str().unwrap_or_default().to_string();
        match method {
            "say" => match params["lines"].as_array() {
                Some(lines) => lines
                    .iter()
                    .for_each(|line| write_line(&out, line.as_str().unwrap_or_default())),
                None => write_line(&out, &text),
            },
            "slow" => {
                let (out, ms) = (out.clone(), params["ms"].as_u64().unwrap_or(0));
                slow.push(std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(ms));
                    write_line(&out, &text);
                }));
            }
            "hang" => {}
            "crash" => panic!("crashing on purpose, with request {id} unanswered"),
            "spawn" => {
                let marker = params["marker"].as_str().unwrap_or("grandchild");
                let exe = std::env::current_exe().expect("its own path");
                #[allow(
                    clippy::zombie_processes,
                    reason = "left running on purpose: whether it outlives this server is what is tested"
                )]
                let child = std::process::Command::new(exe)
                    .args(["sleep", marker])
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .expect("the grandchild starts");
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"pid": child.id()}});
                write_line(&out, &answer.to_string());
            }
            _ => {
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"echo": params}});
                write_line(&out, &answer.to_string());
            }
        }
    }
    for answer in slow {
        let _ = answer.join();
    }
}

fn write_line(out: &Mutex<std::io::Stdout>, text: &str) {
    let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
    let _ = out.write_all(text.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}
