//! macOS (and any Unix without Linux's child subreaper and parent-death signal): the upstream leads a
//! process group of its own, and a watcher ends that group when the guard dies.
//!
//! The watcher is `jsonrpc-errors __watch`, started before the upstream with the read end of a lifeline on
//! its stdin. The upstream, forked but not yet executed, writes its pid (its group's id) into the lifeline,
//! so the watcher knows the group before any of the upstream's own code runs; the write end is then the
//! guard's alone. The watcher outlives neither: at end-of-file on the lifeline (the guard exited, or was
//! SIGKILLed: the kernel closes its end either way) it SIGKILLs the group and exits, and it exits by itself
//! once the group is empty. It ignores SIGINT, SIGTERM and SIGHUP, as the keeper does on Linux.
//!
//! What Linux does and this cannot (no subreaper, no PDEATHSIG): a grandchild that leaves the group
//! (`setsid`) is not ended with the tree, and an upstream whose watcher is SIGKILLed together with the guard
//! outlives them (docs/guard.md, per platform).
//!
//! Compiled on every Unix for the unit tests, which run the watcher's loop on Linux too.

use super::unix::{self, Tree};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

/// How often the watcher looks whether the group still has a member.
const POLL: Duration = Duration::from_millis(100);

/// Starts `command` with piped stdio, leading a process group of its own, under a watcher (in the unit
/// tests, whose executable is not the CLI that runs the watcher, without one).
pub fn spawn(command: &[String]) -> io::Result<(tokio::process::Child, Tree)> {
    #[cfg(test)]
    {
        unix::spawn_grouped(command)
    }
    #[cfg(not(test))]
    {
        let (lifeline_read, lifeline_write) = unix::pipe()?;
        // Let go once started: tokio reaps a dropped child when it exits, and the guard never signals it.
        tokio::process::Command::new(std::env::current_exe()?)
            .arg("__watch")
            .stdin(std::process::Stdio::from(lifeline_read))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()?;
        let child = spawn_reporting(command, &lifeline_write)?;
        let pid = child.id().unwrap_or(0);
        Ok((child, Tree::new(pid, Some(lifeline_write))))
    }
}

/// Runs the watcher when this process was started as one (`jsonrpc-errors __watch`, the lifeline on its
/// stdin): called first thing in `main`.
pub fn run_helper(args: &[String]) {
    if args.len() == 2 && args[1] == "__watch" {
        // SAFETY: signal(2) with SIG_IGN takes no pointers into our memory.
        unsafe {
            for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE] {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
        let stdin = io::stdin().as_raw_fd();
        // SAFETY: the guard gave this process the lifeline as its stdin, which nothing else here uses.
        let lifeline = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(stdin) };
        watch(lifeline);
        std::process::exit(0);
    }
}

/// Starts `command` in a process group of its own; the child writes its pid (`N\n`) to `lifeline` between
/// fork and exec.
pub fn spawn_reporting(
    command: &[String],
    lifeline: &OwnedFd,
) -> io::Result<tokio::process::Child> {
    let mut cmd = unix::command(command[0].as_ref(), &command[1..]);
    let fd = lifeline.as_raw_fd();
    // SAFETY: runs in the forked child before exec, after it joined its new group: getpid and write are
    // async-signal-safe, and the digits are written from a buffer on this stack, without allocating.
    unsafe {
        cmd.pre_exec(move || {
            let mut text = [0u8; 12];
            let mut at = text.len() - 1;
            text[at] = b'\n';
            let mut pid = libc::getpid() as u32;
            loop {
                at -= 1;
                text[at] = b'0' + (pid % 10) as u8;
                pid /= 10;
                if pid == 0 {
                    break;
                }
            }
            let line = &text[at..];
            if libc::write(fd, line.as_ptr().cast(), line.len()) != line.len() as isize {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// How a watch ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Watched {
    /// The lifeline closed before any upstream reported itself: nothing to watch.
    NoUpstream,
    /// The lifeline closed: the guard is gone, and so is the group (SIGKILL).
    GuardGone,
    /// The group has no member left.
    GroupGone,
}

/// Reads the upstream's pid from `lifeline`, then watches both: the guard's end closing, and the group
/// emptying.
pub fn watch(lifeline: OwnedFd) -> Watched {
    let mut lifeline = std::fs::File::from(lifeline);
    let Some(pgid) = read_pid(&mut lifeline) else {
        return Watched::NoUpstream;
    };
    loop {
        if closed_within(&mut lifeline, POLL) {
            unix::signal_group(pgid, libc::SIGKILL);
            return Watched::GuardGone;
        }
        if !unix::signal_group(pgid, 0)
            && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
        {
            return Watched::GroupGone;
        }
    }
}

/// The first line of the lifeline, a pid; None at end-of-file (or garbage) before it.
fn read_pid(lifeline: &mut std::fs::File) -> Option<u32> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match lifeline.read(&mut byte) {
            Ok(0) => return None,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if line.len() < 12 => line.push(byte[0]),
            Ok(_) => return None,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    std::str::from_utf8(&line)
        .ok()?
        .parse()
        .ok()
        .filter(|&pid| pid > 0)
}

/// Waits up to `timeout` for the lifeline's write end to close; true if it has (end-of-file or an error).
fn closed_within(lifeline: &mut std::fs::File, timeout: Duration) -> bool {
    let mut poll = libc::pollfd {
        fd: lifeline.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll(2) reads and writes the one pollfd it is given.
    let ready = unsafe { libc::poll(&mut poll, 1, timeout.as_millis() as libc::c_int) };
    if ready <= 0 {
        return false;
    }
    // Readable: end-of-file, or bytes nobody should have written (read and ignored).
    let mut bytes = [0u8; 64];
    match lifeline.read(&mut bytes) {
        Ok(n) => n == 0,
        Err(e) => !matches!(
            e.kind(),
            io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
        ),
    }
}

#[cfg(test)]
mod tests {
    //! The watcher's loop runs on a thread here (it is a process of its own in the CLI), against real
    //! process groups: on Linux too, where the CLI uses the keeper instead.
    use super::*;
    use std::time::Instant;

    fn start(
        script: &str,
    ) -> (
        tokio::process::Child,
        OwnedFd,
        std::thread::JoinHandle<Watched>,
    ) {
        let (read, write) = unix::pipe().unwrap();
        let command = ["sh".to_string(), "-c".to_string(), script.to_string()];
        let child = spawn_reporting(&command, &write).unwrap();
        let watcher = std::thread::spawn(move || watch(read));
        (child, write, watcher)
    }

    fn wait_gone(pgid: u32) -> bool {
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if !unix::signal_group(pgid, 0) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[tokio::test]
    async fn the_guards_end_kills_the_whole_group_and_the_watcher_leaves() {
        // A grandchild in the group that ignores SIGTERM, as a stubborn server's worker would.
        let (mut child, lifeline, watcher) = start("trap '' TERM; sleep 60 & sleep 60; wait");
        let pgid = child.id().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(unix::signal_group(pgid, 0), "the group runs");
        assert!(
            !watcher.is_finished(),
            "the watcher waits while the guard lives"
        );
        drop(lifeline);
        assert_eq!(watcher.join().unwrap(), Watched::GuardGone);
        let _ = child.wait().await;
        assert!(wait_gone(pgid), "the group outlived the guard's lifeline");
    }

    #[tokio::test]
    async fn the_watcher_leaves_once_the_group_is_empty() {
        let (mut child, _lifeline, watcher) = start("exit 3");
        assert_eq!(child.wait().await.unwrap().code(), Some(3));
        let until = Instant::now() + Duration::from_secs(10);
        while !watcher.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(watcher.join().unwrap(), Watched::GroupGone);
    }

    #[test]
    fn a_lifeline_closed_before_any_pid_leaves_nothing_to_watch() {
        let (read, write) = unix::pipe().unwrap();
        drop(write);
        assert_eq!(watch(read), Watched::NoUpstream);
    }

    #[tokio::test]
    async fn the_reported_pid_is_the_group_the_child_leads() {
        let (read, write) = unix::pipe().unwrap();
        let command = ["sh".to_string(), "-c".to_string(), "exit 0".to_string()];
        let mut child = spawn_reporting(&command, &write).unwrap();
        let mut read = std::fs::File::from(read);
        assert_eq!(read_pid(&mut read), child.id());
        let _ = child.wait().await;
    }
}
