//! Measuring and reporting helpers shared by the benchmarks (guard_bench, http_bench): /proc readings, the
//! tail of a target's stderr, percentiles and ratios as the reports print them.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

/// A `Vm…` line of /proc/<pid>/status, in KiB.
pub fn memory_kib(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| {
        l.strip_prefix(key)?
            .strip_prefix(':')?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

/// The last lines of a run's stderr file, for an error message.
pub fn stderr_tail(path: &Path) -> String {
    let mut text = String::new();
    if File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .is_err()
        || text.trim().is_empty()
    {
        return String::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(8)..].join("\n    ");
    format!("\n  last stderr lines ({}):\n    {tail}", path.display())
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// A ratio with three significant digits (0.00150x, 0.102x, 65.3x, 799x).
pub fn ratio(r: f64) -> String {
    if !r.is_finite() || r <= 0.0 {
        return format!("{r}");
    }
    let decimals = (2 - r.log10().floor() as i32).max(0) as usize;
    format!("{r:.decimals$}")
}

pub fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "\"'$\\".contains(c)) {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
