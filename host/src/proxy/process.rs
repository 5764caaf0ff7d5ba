//! The upstream process: started with piped stdio as the leader of a process tree the guard can stop and
//! that ends with the guard however the guard ends ([`super::platform`]: a keeper on Linux, a watcher on
//! macOS, a job object on Windows), stopped the way MCP prescribes: stdin closed, then a polite signal where
//! the platform has one (SIGTERM), then kill.

use super::platform::{self, Tree};
use jsonrpc_errors_host::guard::UpstreamFailure;
use std::process::ExitStatus;
use tokio::process::Child;

/// Exit statuses of the guard that are its own (otherwise it exits with the upstream's status, or 128 + the
/// signal that ended it), after the conventions of timeout(1) and the shells.
pub mod status {
    /// The upstream had to be terminated: it did not exit after its stdin was closed, or it closed its
    /// stdout while still running.
    pub const TERMINATED: u8 = 124;
    /// The guard itself failed (its metrics address, its pipes, the component).
    pub const GUARD_FAILED: u8 = 125;
    /// The upstream command exists but could not be run.
    pub const CANNOT_RUN: u8 = 126;
    /// The upstream command was not found.
    pub const NOT_FOUND: u8 = 127;
}

/// The upstream, running.
pub struct Upstream {
    /// What the guard waits for: the keeper on Linux (whose exit mirrors the upstream's), else the upstream.
    pub child: Child,
    /// Its process tree.
    pub tree: Tree,
}

/// Starts `command` with piped stdio.
pub fn spawn(command: &[String]) -> std::io::Result<Upstream> {
    let (child, tree) = platform::spawn(command)?;
    Ok(Upstream { child, tree })
}

/// How the session is told the upstream ended.
pub fn gone(status: ExitStatus) -> UpstreamFailure {
    match (status.code(), platform::signal_of(status)) {
        (Some(code), _) => UpstreamFailure::Exited(code),
        (None, Some(signal)) => UpstreamFailure::Killed(signal),
        (None, None) => UpstreamFailure::Exited(-1),
    }
}

/// The guard's exit status for an upstream that ended with `status`.
pub fn exit_code(status: ExitStatus, terminated_by_guard: bool) -> u8 {
    if terminated_by_guard {
        return status::TERMINATED;
    }
    match (status.code(), platform::signal_of(status)) {
        (Some(code), _) => (code & 0xff) as u8,
        (None, Some(signal)) => (128 + signal).clamp(0, 255) as u8,
        (None, None) => status::GUARD_FAILED,
    }
}

/// The guard's exit status when the upstream could not be started.
pub fn spawn_failure_code(e: &std::io::Error) -> u8 {
    match e.kind() {
        std::io::ErrorKind::NotFound => status::NOT_FOUND,
        _ => status::CANNOT_RUN,
    }
}
