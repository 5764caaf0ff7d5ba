//! `cargo run --release -p jsonrpc-errors-bench --bin rule_costs` — where redaction spends its time on
//! secret-dense text: natively, the 1 MB dense log of the benchmarks redacted with every rule, then with each
//! rule switched off in turn (the difference is that rule's cost, windows and matching included), and with
//! none. Best of 3 per figure; a measurement, not a test.

#[path = "common/corpus.rs"]
#[allow(dead_code)] // the shared corpus module; this benchmark needs only the dense log
mod corpus;
use jsonrpc_errors_guest::redact::{self, Policy, Secrets};
fn time(text: &str, p: &Policy) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        std::hint::black_box(redact::redact_with(text, Secrets::none(), p));
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    best
}
fn main() {
    let dense = corpus::dense_log(1_000_000);
    let all = time(&dense, &Policy::default());
    println!("dense 1 MB log, all {} rules: {all:.1} ms; the 15 costliest rules (ms saved when switched off):", redact::catalogue_rules().len());
    println!(
        "(disabling nothing: {:.1} ms)",
        time(&dense, &Policy::disabling(&["no-such-rule"]))
    );
    let mut rows = vec![];
    for r in redact::catalogue_rules() {
        let t = time(&dense, &Policy::disabling(&[&r.id]));
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
        time(&dense, &Policy::disabling(&none))
    );
}
