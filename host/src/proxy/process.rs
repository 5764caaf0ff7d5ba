//! The upstream process: started in a process group of its own (so a wrapper script's children are
//! signalled with it), through a keeper ([`super::keeper`], on Linux) that leaves nothing of its tree
//! behind when it exits or when the guard dies, even by SIGKILL, even a grandchild that left the group, and
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

/// The upstream, running.
pub struct Upstream {
    /// What the guard waits for: the keeper (whose exit mirrors the upstream's), or the upstream itself.
    pub child: Child,
    /// The upstream's pid, which is also its process group's id.
    pub pid: u32,
    /// The write end of the keeper's lifeline, held for the guard's whole life: the kernel closes it when
    /// the guard dies, however it dies, and the keeper then ends the tree.
    #[allow(dead_code)]
    lifeline: Option<std::os::fd::OwnedFd>,
}

/// Starts `command` with piped stdio: through the keeper on Linux, directly elsewhere (and in the unit
/// tests, whose executable is not the CLI that runs the keeper).
pub fn spawn(command: &[String]) -> std::io::Result<Upstream> {
    #[cfg(all(target_os = "linux", not(test)))]
    {
        spawn_kept(command)
    }
    #[cfg(any(not(target_os = "linux"), test))]
    {
        let mut cmd = Command::new(&command[0]);
        cmd.args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        let child = cmd.spawn()?;
        let pid = child.id().unwrap_or(0);
        Ok(Upstream {
            child,
            pid,
            lifeline: None,
        })
    }
}

#[cfg(all(target_os = "linux", not(test)))]
fn pipe() -> std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    })
}

/// `jsonrpc-errors __keep -- COMMAND`, with the lifeline's read end as its fd 3 and the report pipe's write
/// end as its fd 4; then reads the report: the upstream's pid, or the error that kept it from starting.
#[cfg(all(target_os = "linux", not(test)))]
fn spawn_kept(command: &[String]) -> std::io::Result<Upstream> {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let (lifeline_read, lifeline_write) = pipe()?;
    let (report_read, report_write) = pipe()?;
    let mut cmd = Command::new("/proc/self/exe");
    cmd.arg("__keep").arg("--").args(command);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let (lifeline_fd, report_fd) = (lifeline_read.as_raw_fd(), report_write.as_raw_fd());
    // SAFETY: runs in the forked child before exec: dup2 is async-signal-safe and touches no memory of ours
    // (the copies it makes are not close-on-exec, the originals are).
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(lifeline_fd, super::keeper::LIFELINE_FD) < 0
                || libc::dup2(report_fd, super::keeper::REPORT_FD) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    drop((lifeline_read, report_write));
    let mut report = String::new();
    std::fs::File::from(report_read).read_to_string(&mut report)?;
    let mut words = report.split_whitespace();
    match (
        words.next(),
        words.next().and_then(|n| n.parse::<i32>().ok()),
    ) {
        (Some("pid"), Some(pid)) => Ok(Upstream {
            child,
            pid: pid as u32,
            lifeline: Some(lifeline_write),
        }),
        (Some("error"), Some(errno)) => Err(std::io::Error::from_raw_os_error(errno)),
        _ => Err(std::io::Error::other("the upstream's keeper did not start")),
    }
}

/// Sends `signal` to the upstream's process group. Only called before the upstream is reaped, or for its
/// group's leftovers after: a group id is not reused while the group has members.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = i32::try_from(pgid) else {
        return false;
    };
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
