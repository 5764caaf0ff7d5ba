//! `./scripts/bench.sh redaction-peers` — the redactors MCP gateway users run, side by side with ours (issue 36):
//! IBM ContextForge's `cpex-secrets-detection`, `cpex-pii-filter` and `cpex-encoded-exfil-detection`, Yelp's
//! `detect-secrets` as LiteLLM drives it, Presidio's analyzer (bench/peers/redaction_peers.py) and secretlint's
//! recommended preset (bench/peers/secretlint-driver.mjs), each installed by the bench, pinned, never a
//! dependency. For every one, on corpora none of them chose (tests/corpora):
//! - the recall corpus (credentials of 244 providers in 20 formats): samples caught, caught in part (16
//!   characters of a secret survive), per context;
//! - the encoded variants the corpora test builds (those samples base64-, base64url-, hex-, percent- (once,
//!   twice) and HTML-entity-encoded): the same;
//! - benign text changed: the real benign lines, the encoded look-alikes (digests, git ids, UUIDs, ETags, image
//!   digests, SSH keys, PNG data URIs, pod names), and the benign lines in every encoding;
//! - MB/s on the 1 MB mixed and secret-dense logs of the host bench, ours in wasmtime (the shipped component),
//!   rounds alternating between all of them (the machine is shared: read the ratios).
//!
//! Then whether ours catches, in every context, at least as many as each peer, and every sample any peer
//! catches. Options: `--rounds N` (default 3), `--peers a,b` (names' prefixes), `--skip-slow` (no detect-secrets
//! and Presidio over the corpora: they take minutes), `--reuse` (each peer's outputs of an earlier run on the
//! same inputs, kept in target/bench/redaction-peers/).

#[path = "../../tests/corpora/evaluate.rs"]
mod corpora;
#[path = "common/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use corpora::Outcome;
use jsonrpc_errors_host::Runtime;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

/// A driver process (Python or Node) speaking the line protocol of bench/peers/redaction_peers.py.
struct Driver {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Driver {
    fn start(program: &Path, args: &[&str], dir: &Path) -> Option<Driver> {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| eprintln!("{} not started: {e}", program.display()))
            .ok()?;
        let input = child.stdin.take()?;
        let output = BufReader::new(child.stdout.take()?);
        Some(Driver {
            child,
            input,
            output,
        })
    }

    fn ask(&mut self, request: Value) -> Value {
        writeln!(self.input, "{request}").expect("the driver reads its requests");
        let mut line = String::new();
        self.output
            .read_line(&mut line)
            .expect("the driver answers");
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("driver answered {line:?}"))
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the corpora hold, in the order the inputs file lists them.
enum Row<'a> {
    Secret(&'a corpora::Sample),
    Benign(String),
}

#[derive(Default)]
struct Figures {
    /// Per context (recall contexts, encodings): (caught, in part, samples).
    caught: BTreeMap<String, (usize, usize, usize)>,
    /// Per kind of benign text: (changed, texts).
    changed: BTreeMap<String, (usize, usize)>,
    /// Which secret rows were caught whole.
    caught_rows: Vec<bool>,
    seconds: f64,
    /// Texts the peer failed on (an exception, a panic): returned as they were.
    failures: u64,
    dense: f64,
    mixed: f64,
}

fn judge(rows: &[(Row, String)], outputs: &[String]) -> Figures {
    let mut f = Figures::default();
    for ((row, group), out) in rows.iter().zip(outputs) {
        match row {
            Row::Secret(sample) => {
                let outcome = corpora::outcome_of(sample, out);
                let e = f.caught.entry(group.clone()).or_default();
                e.2 += 1;
                match outcome {
                    Outcome::Caught => e.0 += 1,
                    Outcome::Partial => e.1 += 1,
                    Outcome::Missed => {}
                }
                f.caught_rows.push(outcome == Outcome::Caught);
            }
            Row::Benign(text) => {
                let e = f.changed.entry(group.clone()).or_default();
                e.1 += 1;
                e.0 += usize::from(out != text);
            }
        }
    }
    f
}

fn write_texts(path: &Path, texts: impl Iterator<Item = String>) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for t in texts {
        writeln!(file, "{}", json!({ "text": t })).unwrap();
    }
}

fn read_texts(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn mb_per_s(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / 1e6 / seconds
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let rounds: usize = flag("--rounds").and_then(|n| n.parse().ok()).unwrap_or(3);
    let only: Option<Vec<String>> =
        flag("--peers").map(|p| p.split(',').map(str::to_string).collect());
    let skip_slow = args.iter().any(|a| a == "--skip-slow");
    let reuse = args.iter().any(|a| a == "--reuse");

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let work = root.join("target/bench/redaction-peers");
    std::fs::create_dir_all(&work).unwrap();

    // The corpora, in one list: every secret sample (plain, then encoded), then every benign text.
    let dir = corpora::corpora_dir();
    let recall = corpora::load_recall(&dir);
    let encoded = corpora::encoded_samples(&recall);
    let (benign, shapes) = (corpora::load_benign(&dir), corpora::load_shapes(&dir));
    let mut rows: Vec<(Row, String)> = Vec::new();
    for s in recall.samples.iter().chain(&encoded) {
        rows.push((Row::Secret(s), s.context.clone()));
    }
    for (_, line) in &benign.lines {
        rows.push((Row::Benign(line.clone()), "benign lines".into()));
    }
    for (what, text) in corpora::encoded_benign(&benign, &shapes) {
        let kind = if what.starts_with("shapes/") {
            "look-alikes (shapes.txt)"
        } else {
            "benign lines, encoded"
        };
        rows.push((Row::Benign(text), kind.into()));
    }
    let text_of = |r: &Row| match r {
        Row::Secret(s) => s.text.clone(),
        Row::Benign(t) => t.clone(),
    };
    let inputs = work.join("inputs.jsonl");
    write_texts(&inputs, rows.iter().map(|(r, _)| text_of(r)));
    let total_bytes: usize = rows.iter().map(|(r, _)| text_of(r).len()).sum();
    let inputs_digest = {
        use sha2::{Digest, Sha256};
        format!("{:x}", Sha256::digest(std::fs::read(&inputs).unwrap()))
    };

    // The logs the host bench writes (built the same way here).
    let dense_log = corpus::dense_log(1_000_000);
    let mixed_log = corpus::mixed_log(1_000_000);
    let (dense_path, mixed_path) = (work.join("dense-1mb.log"), work.join("mixed-1mb.log"));
    std::fs::write(&dense_path, &dense_log).unwrap();
    std::fs::write(&mixed_path, &mixed_log).unwrap();

    // Ours: the corpora natively (the component finds exactly the same: tests/vectors), the speed in wasmtime.
    let start = Instant::now();
    let ours_out: Vec<String> = rows
        .iter()
        .map(|(r, _)| jsonrpc_errors_guest::redact::redact(&text_of(r), &[]).text)
        .collect();
    let mut ours = judge(&rows, &ours_out);
    ours.seconds = start.elapsed().as_secs_f64();
    let rt = Runtime::new(vec![]).expect("the component loads");

    // The peers.
    let venv = root.join("target/bench/redaction-peers-venv/bin/python");
    let peers_dir = root.join("bench/peers");
    let mut drivers: Vec<Driver> = Vec::new();
    if let Some(d) = Driver::start(&venv, &["redaction_peers.py"], &peers_dir) {
        drivers.push(d);
    }
    if let Some(d) = Driver::start(Path::new("node"), &["secretlint-driver.mjs"], &peers_dir) {
        drivers.push(d);
    }
    // (driver index, peer name)
    let mut peers: Vec<(usize, String)> = Vec::new();
    for (i, d) in drivers.iter_mut().enumerate() {
        for name in d.ask(json!({"op": "peers"}))["peers"].as_array().unwrap() {
            let name = name.as_str().unwrap().to_string();
            if only
                .as_ref()
                .is_none_or(|o| o.iter().any(|p| name.starts_with(p.as_str())))
            {
                peers.push((i, name));
            }
        }
    }
    let slow = |name: &str| name.starts_with("detect-secrets") || name.starts_with("presidio");
    let mut figures: Vec<Option<Figures>> = Vec::new();
    for (i, name) in &peers {
        if skip_slow && slow(name) {
            figures.push(None);
            continue;
        }
        let out = work.join(format!("out-{}.jsonl", name.replace(' ', "-")));
        let meta_path = out.with_extension("meta.json");
        // `--reuse`: a peer's outputs from an earlier run on the very same inputs (detect-secrets and Presidio
        // take minutes over the corpora; their outputs do not change with ours).
        let earlier = reuse
            .then(|| std::fs::read_to_string(&meta_path).ok())
            .flatten()
            .and_then(|m| serde_json::from_str::<Value>(&m).ok())
            .filter(|m| m["inputs"].as_str() == Some(inputs_digest.as_str()));
        let reply = match earlier {
            Some(meta) => {
                eprintln!("{name}: its outputs of an earlier run on the same inputs");
                meta
            }
            None => {
                eprintln!(
                    "{name}: redacting {} texts ({:.1} MB)...",
                    rows.len(),
                    total_bytes as f64 / 1e6
                );
                let mut reply = drivers[*i]
                    .ask(json!({"op": "redact", "peer": name, "in": inputs, "out": out}));
                reply["inputs"] = json!(inputs_digest);
                std::fs::write(&meta_path, reply.to_string()).unwrap();
                reply
            }
        };
        let mut f = judge(&rows, &read_texts(&out));
        f.seconds = reply["seconds"].as_f64().unwrap_or(f64::NAN);
        f.failures = reply["failures"].as_u64().unwrap_or(0);
        figures.push(Some(f));
    }
    // Speed: every redactor on each log, round after round.
    let (mut best_dense, mut best_mixed) =
        (vec![f64::MAX; peers.len()], vec![f64::MAX; peers.len()]);
    let (mut ours_dense, mut ours_mixed) = (f64::MAX, f64::MAX);
    for round in 0..rounds {
        eprintln!("speed round {}/{rounds}", round + 1);
        for (log, path, best_ours, best) in [
            (&dense_log, &dense_path, &mut ours_dense, &mut best_dense),
            (&mixed_log, &mixed_path, &mut ours_mixed, &mut best_mixed),
        ] {
            let t = Instant::now();
            rt.redact_json(log).expect("the component redacts");
            *best_ours = best_ours.min(t.elapsed().as_secs_f64());
            for (k, (i, name)) in peers.iter().enumerate() {
                let reply = drivers[*i].ask(json!({"op": "time", "peer": name, "path": path}));
                best[k] = best[k].min(reply["seconds"].as_f64().unwrap_or(f64::MAX));
            }
        }
    }
    ours.dense = ours_dense;
    ours.mixed = ours_mixed;

    // The table.
    let contexts: Vec<String> = ours.caught.keys().cloned().collect();
    let plain: Vec<&String> = contexts
        .iter()
        .filter(|c| !corpora::ENCODINGS.iter().any(|(e, _)| e == c))
        .collect();
    let sum = |f: &Figures, keys: &[&String]| {
        keys.iter().fold((0, 0, 0), |a, k| {
            let v = f.caught.get(*k).copied().unwrap_or_default();
            (a.0 + v.0, a.1 + v.1, a.2 + v.2)
        })
    };
    let encodings: Vec<&String> = contexts
        .iter()
        .filter(|c| corpora::ENCODINGS.iter().any(|(e, _)| e == c))
        .collect();
    let kinds = [
        "benign lines",
        "look-alikes (shapes.txt)",
        "benign lines, encoded",
    ];
    println!("\n== redaction peers: tests/corpora and its encoded variants; speed on the host bench's 1 MB logs ==");
    println!("(caught: none of a sample's secrets survives, not 16 characters of one; in part: some survive; MB/s: best of {rounds} rounds, alternating, machine shared)");
    println!(
        "{:<40} {:>16} {:>16} {:>9} {:>9} {:>11} {:>10} {:>10}",
        "redactor",
        "recall caught",
        "encoded caught",
        "benign Δ",
        "shapes Δ",
        "enc. benign Δ",
        "dense MB/s",
        "mixed MB/s"
    );
    let print_row = |name: &str, f: Option<&Figures>, dense: f64, mixed: f64| {
        let speed = |s: f64, bytes: usize| {
            if s == f64::MAX {
                "-".to_string()
            } else {
                format!("{:.1}", mb_per_s(bytes, s))
            }
        };
        match f {
            Some(f) => {
                let (c, p, n) = sum(f, &plain);
                let (ec, ep, en) = sum(f, &encodings);
                let changed = |k: &str| {
                    let (c, n) = f.changed.get(k).copied().unwrap_or_default();
                    format!("{c}/{n}")
                };
                println!(
                    "{name:<40} {:>16} {:>16} {:>9} {:>9} {:>11} {:>10} {:>10}",
                    format!("{c}+{p}p/{n}"),
                    format!("{ec}+{ep}p/{en}"),
                    changed(kinds[0]),
                    changed(kinds[1]),
                    changed(kinds[2]),
                    speed(dense, dense_log.len()),
                    speed(mixed, mixed_log.len()),
                );
            }
            None => println!(
                "{name:<40} {:>16} {:>16} {:>9} {:>9} {:>11} {:>10} {:>10}",
                "(skipped)",
                "",
                "",
                "",
                "",
                speed(dense, dense_log.len()),
                speed(mixed, mixed_log.len())
            ),
        }
    };
    print_row(
        "jsonrpc-errors (wasmtime)",
        Some(&ours),
        ours.dense,
        ours.mixed,
    );
    for (k, (_, name)) in peers.iter().enumerate() {
        print_row(name, figures[k].as_ref(), best_dense[k], best_mixed[k]);
    }
    println!("\nspeed, ours / each peer (>1: ours faster):");
    for (k, (_, name)) in peers.iter().enumerate() {
        println!(
            "  {name:<40} dense {:>7.2}x   mixed {:>7.2}x",
            best_dense[k] / ours.dense,
            best_mixed[k] / ours.mixed
        );
    }
    println!("\nper context, samples caught (ours | each peer in the order above):");
    for c in &contexts {
        let ours_c = ours.caught[c].0;
        let cells: Vec<String> = figures
            .iter()
            .map(|f| {
                f.as_ref().map_or("-".into(), |f| {
                    f.caught.get(c).map_or(0, |v| v.0).to_string()
                })
            })
            .collect();
        let behind = figures.iter().any(|f| {
            f.as_ref()
                .is_some_and(|f| f.caught.get(c).map_or(0, |v| v.0) > ours_c)
        });
        println!(
            "  {c:<18} {ours_c:>5} | {}{}",
            cells.join(" "),
            if behind {
                "   <- a peer catches more"
            } else {
                ""
            }
        );
    }
    // The union of the peers' catches is a subset of ours.
    let mut beyond = Vec::new();
    let secret_rows: Vec<&corpora::Sample> = rows
        .iter()
        .filter_map(|(r, _)| match r {
            Row::Secret(s) => Some(*s),
            Row::Benign(_) => None,
        })
        .collect();
    for (j, sample) in secret_rows.iter().enumerate() {
        if ours.caught_rows[j] {
            continue;
        }
        let by: Vec<&str> = peers
            .iter()
            .zip(&figures)
            .filter(|(_, f)| f.as_ref().is_some_and(|f| f.caught_rows[j]))
            .map(|((_, n), _)| n.as_str())
            .collect();
        if !by.is_empty() {
            beyond.push(format!(
                "{} in {}: caught by {}",
                sample.provider,
                sample.context,
                by.join(", ")
            ));
        }
    }
    println!(
        "\nsamples a peer catches and ours does not: {}{}",
        beyond.len(),
        if beyond.is_empty() {
            " (the union of the peers' catches is a subset of ours)".to_string()
        } else {
            format!(
                "\n  {}",
                beyond
                    .iter()
                    .take(30)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )
        }
    );
    println!(
        "\ncorpora redaction time (all {} texts, {:.1} MB): ours {:.2} s natively{}",
        rows.len(),
        total_bytes as f64 / 1e6,
        ours.seconds,
        peers
            .iter()
            .zip(&figures)
            .filter_map(|((_, n), f)| f.as_ref().map(|f| {
                let failed = if f.failures > 0 {
                    format!(" (failed on {} texts)", f.failures)
                } else {
                    String::new()
                };
                format!("; {n} {:.2} s{failed}", f.seconds)
            }))
            .collect::<String>()
    );
    let goal_dense = peers
        .iter()
        .position(|(_, n)| n.starts_with("cpex-secrets-detection"))
        .map(|k| best_dense[k] / ours.dense);
    if let Some(ratio) = goal_dense {
        println!(
            "issue 36's goal, no slower than 0.5x cpex-secrets-detection in the same run: dense {ratio:.2}x ({})",
            if ratio >= 0.5 { "met" } else { "not met" }
        );
    }
}
