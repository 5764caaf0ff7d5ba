//! Linux: the upstream runs under the keeper, a small process between the guard and its upstream that
//! leaves no process of the upstream's tree behind, whatever happens to the guard.
//!
//! PDEATHSIG reaches only the process it is set on, and a process group only the processes that stay in it:
//! a grandchild that calls `setsid`, or any grandchild once the guard itself is SIGKILLed, outlived the guard.
//! So the guard starts `jsonrpc-errors __keep` (this module), which
//!
//! - makes itself a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): every descendant of the upstream whose
//!   parent dies is re-parented to the keeper, never to init, so the keeper can always find the whole tree;
//! - starts the upstream in a process group of its own (the group the guard signals, as before), with
//!   PDEATHSIG on the keeper, and reports its pid (or why it could not start) on fd 4;
//! - holds fd 3, the read end of a pipe only the guard can write: when it reads end-of-file, the guard is
//!   gone (exited, or SIGKILLed: the kernel closes its end either way), and the keeper kills the whole tree;
//! - when the upstream exits, ends what is left of its tree (SIGTERM, then SIGKILL after `GRACE`), and
//!   exits with the upstream's status (re-raising the signal that killed it), which the guard reports.
//!
//! It ignores SIGTERM, SIGINT and SIGHUP: the guard signals the upstream's group, never the keeper, and a
//! terminal's signals must not take the keeper before the tree it keeps.

use super::unix::{self, Tree};
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

/// The lifeline: end-of-file on it means the guard is gone.
const LIFELINE_FD: i32 = 3;
/// Where the keeper reports `pid N` or `error ERRNO` once, then closes.
const REPORT_FD: i32 = 4;
/// How long what is left of the tree gets after SIGTERM before SIGKILL.
const GRACE: Duration = Duration::from_millis(500);

/// Starts `command` with piped stdio through the keeper (in the unit tests, whose executable is not the CLI
/// that runs the keeper, directly in a process group of its own). The child the guard waits for is the
/// keeper, whose exit mirrors the upstream's.
pub fn spawn(command: &[String]) -> std::io::Result<(tokio::process::Child, Tree)> {
    #[cfg(test)]
    {
        unix::spawn_grouped(command)
    }
    #[cfg(not(test))]
    {
        spawn_kept(command)
    }
}

/// Runs the keeper when this process was started as one (`jsonrpc-errors __keep -- COMMAND`): called first
/// thing in `main`, before the component, clap or logging.
pub fn run_helper(args: &[String]) {
    if args.get(1).map(String::as_str) == Some("__keep")
        && args.get(2).map(String::as_str) == Some("--")
        && args.len() > 3
    {
        run(&args[3..]);
    }
}

/// `jsonrpc-errors __keep -- COMMAND`, with the lifeline's read end as its fd 3 and the report pipe's write
/// end as its fd 4; then reads the report: the upstream's pid, or the error that kept it from starting.
#[cfg(not(test))]
fn spawn_kept(command: &[String]) -> std::io::Result<(tokio::process::Child, Tree)> {
    use std::os::fd::AsRawFd;
    let (lifeline_read, lifeline_write) = unix::pipe()?;
    let (report_read, report_write) = unix::pipe()?;
    let keeper_args: Vec<String> = ["__keep", "--"]
        .into_iter()
        .map(String::from)
        .chain(command.iter().cloned())
        .collect();
    let mut cmd = unix::command("/proc/self/exe".as_ref(), &keeper_args);
    let (lifeline_fd, report_fd) = (lifeline_read.as_raw_fd(), report_write.as_raw_fd());
    // SAFETY: runs in the forked child before exec: dup2 is async-signal-safe and touches no memory of ours
    // (the copies it makes are not close-on-exec, the originals are).
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(lifeline_fd, LIFELINE_FD) < 0 || libc::dup2(report_fd, REPORT_FD) < 0 {
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
        (Some("pid"), Some(pid)) => Ok((child, Tree::new(pid as u32, Some(lifeline_write)))),
        (Some("error"), Some(errno)) => Err(std::io::Error::from_raw_os_error(errno)),
        _ => Err(std::io::Error::other("the upstream's keeper did not start")),
    }
}

/// Runs the keeper for `command`; never returns.
fn run(command: &[String]) -> ! {
    // SAFETY: prctl and signal take no pointers into our memory.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
    // SAFETY: the guard passed these descriptors open; nothing else in this process owns them.
    let (lifeline, mut report) = unsafe {
        (
            std::fs::File::from_raw_fd(LIFELINE_FD),
            std::fs::File::from_raw_fd(REPORT_FD),
        )
    };
    for fd in [LIFELINE_FD, REPORT_FD] {
        // SAFETY: fcntl on descriptors we own; the upstream must not inherit them.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    let upstream = match start(command) {
        Ok(pid) => pid,
        Err(e) => {
            let _ = writeln!(
                report,
                "error {}",
                e.raw_os_error().unwrap_or(libc::ENOEXEC)
            );
            std::process::exit(127);
        }
    };
    let _ = writeln!(report, "pid {upstream}");
    drop(report);
    // The pipes are the upstream's now: a copy held here would keep the guard from seeing the upstream close
    // its output (end-of-file comes only when every writer is gone).
    if let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        use std::os::fd::AsRawFd;
        for fd in 0..3 {
            // SAFETY: dup2 onto our own standard descriptors.
            unsafe { libc::dup2(null.as_raw_fd(), fd) };
        }
    }
    std::thread::spawn(move || watch_lifeline(lifeline, upstream));
    let status = wait_for(upstream);
    end_tree(upstream, GRACE);
    mirror(status)
}

/// Starts the upstream as the leader of a process group of its own, killed if the keeper dies.
fn start(command: &[String]) -> std::io::Result<i32> {
    let mut cmd = Command::new(&command[0]);
    cmd.args(&command[1..]).process_group(0);
    // SAFETY: runs in the forked child before exec: async-signal-safe calls only, no memory of ours touched.
    unsafe {
        cmd.pre_exec(|| {
            for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE] {
                libc::signal(signal, libc::SIG_DFL);
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The Child is let go without waiting: the keeper reaps with waitpid(-1), orphans included.
    Ok(cmd.spawn()?.id() as i32)
}

/// Blocks until the guard is gone, then kills the whole tree at once and leaves.
fn watch_lifeline(mut lifeline: std::fs::File, upstream: i32) {
    let mut byte = [0u8; 1];
    while matches!(lifeline.read(&mut byte), Ok(n) if n > 0) {}
    end_tree(upstream, Duration::ZERO);
    std::process::exit(128 + libc::SIGKILL);
}

/// Reaps children until the upstream itself has exited (orphans re-parented here are reaped on the way).
fn wait_for(upstream: i32) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes only to `status`.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == upstream {
            return status;
        }
        if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 0;
        }
    }
}

/// Every live descendant of this process (the keeper is a subreaper: orphans of the tree are its children).
fn descendants() -> Vec<i32> {
    let me = std::process::id() as i32;
    let mut parent_of = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            // The state and the parent follow the command name, which is in parentheses and may hold anything.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            let mut fields = rest.split_whitespace();
            let (state, ppid) = (
                fields.next(),
                fields.next().and_then(|p| p.parse::<i32>().ok()),
            );
            if let (Some(state), Some(ppid)) = (state, ppid) {
                if state != "Z" && state != "X" {
                    parent_of.push((pid, ppid));
                }
            }
        }
    }
    let mut tree = vec![me];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parent_of
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    tree.remove(0);
    tree
}

/// Ends what is left of the tree: the upstream's group and every descendant, SIGTERM first and SIGKILL
/// after `grace` (at once when `grace` is zero); reaps them.
fn end_tree(upstream: i32, grace: Duration) {
    let signal_all = |signal: i32| {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe { libc::kill(-upstream, signal) };
        for pid in descendants() {
            // SAFETY: as above, one process.
            unsafe { libc::kill(pid, signal) };
        }
    };
    let reap = || loop {
        let mut status = 0;
        // SAFETY: waitpid writes only to `status`.
        if unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } <= 0 {
            break;
        }
    };
    if !grace.is_zero() {
        signal_all(libc::SIGTERM);
        let until = Instant::now() + grace;
        while Instant::now() < until {
            reap();
            if descendants().is_empty() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    for _ in 0..50 {
        signal_all(libc::SIGKILL);
        reap();
        if descendants().is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Exits as the upstream did: its exit code, or the signal that killed it.
fn mirror(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: restores the default action and raises the signal on this process.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(signal);
        }
        std::process::exit(128 + signal);
    }
    std::process::exit(libc::WEXITSTATUS(status))
}
