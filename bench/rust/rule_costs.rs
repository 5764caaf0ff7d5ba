//! `cargo run --release -p jsonrpc-errors-bench --bin rule_costs` — where redaction spends its time on
//! secret-dense text: natively, the 1 MB dense log of the benchmarks redacted with every rule, then with each
//! rule switched off in turn (the difference is that rule's cost, windows and matching included), and with
//! none. Best of 3 per figure; a measurement, not a test.
//! `rule_costs --repeat N [--only RULE] [--mixed]`: only the all-rules run (or one rule's; on the mixed log), N
//! times, and its CPU time per run (best, median): a steady load for a
//! profiler (`perf record -g`), with nothing else in the profile.

#[path = "common/corpus.rs"]
#[allow(dead_code)] // the shared corpus module; this benchmark needs only the dense and mixed logs
mod corpus;
use jsonrpc_errors_guest::redact::{self, Redactor, Secrets};
fn time(text: &str, p: &Redactor) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        std::hint::black_box(redact::redact_with(text, Secrets::none(), p));
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    best
}
/// This thread's CPU time: on a shared machine, less noisy than the wall clock.
fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn main() {
    let dense = corpus::dense_log(1_000_000);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, n, rest @ ..] = args.as_slice() {
        assert_eq!(
            flag, "--repeat",
            "usage: rule_costs [--repeat N [--only RULE] [--mixed]]"
        );
        let n: u32 = n.parse().expect("--repeat N");
        // `--only RULE`: every other rule switched off, to profile one rule with the pipeline's fixed cost.
        let only = rest
            .iter()
            .position(|a| a == "--only")
            .map(|i| rest.get(i + 1).expect("--only RULE").as_str());
        let policy = match only {
            Some(rule) => {
                let others: Vec<&str> = redact::catalogue_rules()
                    .iter()
                    .map(|r| r.id.as_str())
                    .filter(|id| *id != rule)
                    .collect();
                Redactor::disabling(&others)
            }
            None => Redactor::default(),
        };
        // `--mixed`: the 1 MB mixed log (the other benchmarks' ordinary text) instead of the dense one.
        let mixed = rest.iter().any(|a| a == "--mixed");
        let (label, dense) = if mixed {
            ("mixed", corpus::mixed_log(1_000_000))
        } else {
            ("dense", dense)
        };
        let mut runs: Vec<f64> = (0..n)
            .map(|_| {
                let t = thread_cpu_ms();
                std::hint::black_box(redact::redact_with(&dense, Secrets::none(), &policy));
                thread_cpu_ms() - t
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        println!(
            "{label} 1 MB log, {}, {n} runs: best {:.2} ms, median {:.2} ms of CPU",
            only.map_or("all rules".to_string(), |r: &str| format!("only {r}")),
            runs[0],
            runs[runs.len() / 2]
        );
        return;
    }
    let all = time(&dense, &Redactor::default());
    println!("dense 1 MB log, all {} rules: {all:.1} ms; the 15 costliest rules (ms saved when switched off):", redact::catalogue_rules().len());
    println!(
        "(disabling nothing: {:.1} ms)",
        time(&dense, &Redactor::disabling(&["no-such-rule"]))
    );
    let mut rows = vec![];
    for r in redact::catalogue_rules() {
        let t = time(&dense, &Redactor::disabling(&[&r.id]));
        rows.push((all - t, r.id.clone()));
    }
    rows.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    for (d, id) in rows.iter().take(15) {
        println!("{d:7.1} ms  {id}");
    }
    let none: Vec<&str> = redact::catalogue_rules()
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    println!(
        "no rules: {:.1} ms",
        time(&dense, &Redactor::disabling(&none))
    );
}
