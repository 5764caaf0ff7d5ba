//! The upstream process: started in a process group of its own (so a wrapper script's children are
//! signalled with it), killed by the kernel if the guard itself dies (no orphan even after SIGKILL), and
//! stopped the way MCP prescribes: stdin closed, then SIGTERM, then SIGKILL.

use jsonrpc_errors_host::guard::UpstreamGone;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use tokio::process::{Child, Command};

/// Exit statuses of the guard that are its own (otherwise it exits with the upstream's status, or 128 + the
/// signal that ended it), after the conventions of timeout(1) and the shells.
pub mod status {
    /// The upstream had to be terminated: it did not exit after its stdin was closed, or it closed its
    /// stdout while still running.
    pub const TERMINATED: u8 = 124;
    /// The guard itself failed (its metrics address, its pipes, its policy component).
    pub const GUARD_FAILED: u8 = 125;
    /// The upstream command exists but could not be run.
    pub const CANNOT_RUN: u8 = 126;
    /// The upstream command was not found.
    pub const NOT_FOUND: u8 = 127;
}

pub fn spawn(command: &[String]) -> std::io::Result<Child> {
    let mut cmd = Command::new(&command[0]);
    cmd.args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: runs in the forked child before exec; prctl is async-signal-safe and touches no memory of ours.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// Sends `signal` to the upstream's process group. Only called before the upstream is reaped, or for its
/// group's leftovers after: a group id is not reused while the group has members.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = i32::try_from(pgid) else { return false };
    // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
    unsafe { libc::kill(-pgid, signal) == 0 }
}

/// Whether any process of the group is still alive.
pub fn group_alive(pgid: u32) -> bool {
    signal_group(pgid, 0)
}

/// How the session is told the upstream ended.
pub fn gone(status: ExitStatus) -> UpstreamGone {
    match (status.code(), status.signal()) {
        (Some(code), _) => UpstreamGone::Exited(code),
        (None, Some(signal)) => UpstreamGone::Killed(signal),
        (None, None) => UpstreamGone::Exited(-1),
    }
}

/// The guard's exit status for an upstream that ended with `status`.
pub fn exit_code(status: ExitStatus, terminated_by_guard: bool) -> u8 {
    if terminated_by_guard {
        return status::TERMINATED;
    }
    match (status.code(), status.signal()) {
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
