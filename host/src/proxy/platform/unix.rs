//! What every Unix shares (Linux and macOS add how the upstream is started: [`super::linux`],
//! [`super::macos`]): the upstream's process group and its signals, the guard's own signals, its stdin and
//! stdout, its sockets, and the exit status of a process a signal ended.
//!
//! The guard's own stdin and stdout are readiness-driven pipes. `tokio::io::stdin()`/`stdout()` do every
//! read and write on the blocking thread pool: one thread handoff (two wake-ups) per read and per write,
//! which cost the stdio guard a third of its CPU. When fd 0 or 1 is a pipe or a socket (what an MCP client
//! gives its server), it is made non-blocking and driven by the runtime's reactor, as the upstream's pipes
//! are; anything else (a terminal, a file) keeps tokio's blocking path. The flags are restored when the
//! pipe is dropped, so a descriptor shared with another process is non-blocking only while the guard runs.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::task::{ready, Context, Poll};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::process::Command;
use tokio::signal::unix::{signal, Signal, SignalKind};

/// A descriptor the guard does not own (0 or 1), non-blocking while this value lives.
pub struct Borrowed {
    fd: RawFd,
    flags: libc::c_int,
}

impl AsRawFd for Borrowed {
    fn as_raw_fd(&self) -> RawFd {
        self.fd
    }
}

impl Drop for Borrowed {
    fn drop(&mut self) {
        // SAFETY: fcntl on a descriptor number; at worst it fails with EBADF.
        unsafe { libc::fcntl(self.fd, libc::F_SETFL, self.flags) };
    }
}

/// How many bytes a pipe the guard reads or writes holds, on Linux (elsewhere the system's size stays).
/// The kernel's default, 64 KiB, passes a 16.8 MB line in 256 pieces, each a wake-up of the reader and
/// of the writer; on a busy machine each wake-up waits its turn for a CPU, and a large result took twice
/// as long through the guard. 1 MiB is what an unprivileged process may ask for by default
/// (`/proc/sys/fs/pipe-max-size`); the pages are the kernel's, taken only as the pipe fills.
#[cfg(target_os = "linux")]
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Grows the pipe behind `fd` to [`PIPE_BYTES`], if the system allows (a refusal leaves it as it was: the
/// guard only goes slower). A no-op on other systems.
pub fn widen_pipe(fd: RawFd) {
    #[cfg(target_os = "linux")]
    // SAFETY: F_SETPIPE_SZ only resizes the pipe's buffer (or fails); no memory of ours is involved.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// `fd` made non-blocking and registered with the reactor for `interest`, when it is a pipe or a socket.
fn readiness(fd: RawFd, interest: Interest) -> Option<AsyncFd<Borrowed>> {
    // SAFETY: fstat writes into the zeroed struct it is given; fcntl only reads and sets file status flags;
    // see below for `register`.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 {
            return None;
        }
        let kind = st.st_mode & libc::S_IFMT;
        if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
            return None;
        }
        if kind == libc::S_IFIFO {
            widen_pipe(fd);
        }
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return None;
        }
        // From here on `Borrowed` restores the flags, whatever happens. Descriptors 0 and 1 stay open for
        // the process's life (nothing in the guard closes them), as `register` requires.
        AsyncFd::register_with_interest(Borrowed { fd, flags }, interest).ok()
    }
}

/// Retries a non-blocking call until it does not report `WouldBlock`, waiting for readiness in between.
fn poll_io<T>(
    fd: &AsyncFd<Borrowed>,
    cx: &mut Context<'_>,
    readable: bool,
    mut op: impl FnMut(RawFd) -> io::Result<T>,
) -> Poll<io::Result<T>> {
    loop {
        let mut guard = if readable {
            ready!(fd.poll_read_ready(cx))?
        } else {
            ready!(fd.poll_write_ready(cx))?
        };
        match guard.try_io(|inner| op(inner.get_ref().fd)) {
            Ok(result) => return Poll::Ready(result),
            Err(_would_block) => continue,
        }
    }
}

fn check(n: isize) -> io::Result<usize> {
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// The guard's stdin.
pub enum Stdin {
    Ready(AsyncFd<Borrowed>),
    Blocking(tokio::io::Stdin),
}

pub fn stdin() -> Stdin {
    match readiness(0, Interest::READABLE) {
        Some(fd) => Stdin::Ready(fd),
        None => Stdin::Blocking(tokio::io::stdin()),
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stdin::Blocking(s) => Pin::new(s).poll_read(cx, buf),
            Stdin::Ready(fd) => {
                let room = buf.initialize_unfilled();
                let n = ready!(poll_io(fd, cx, true, |raw| {
                    // SAFETY: reads into the initialized, unfilled part of the buffer, at most its length.
                    check(unsafe { libc::read(raw, room.as_mut_ptr().cast(), room.len()) })
                }))?;
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
        }
    }
}

/// The guard's stdout.
pub enum Stdout {
    Ready(AsyncFd<Borrowed>),
    Blocking(tokio::io::Stdout),
}

pub fn stdout() -> Stdout {
    match readiness(1, Interest::WRITABLE) {
        Some(fd) => Stdout::Ready(fd),
        None => Stdout::Blocking(tokio::io::stdout()),
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stdout::Blocking(s) => Pin::new(s).poll_write(cx, data),
            Stdout::Ready(fd) => poll_io(fd, cx, false, |raw| {
                // SAFETY: writes from a live slice, at most its length.
                check(unsafe { libc::write(raw, data.as_ptr().cast(), data.len()) })
            }),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stdout::Blocking(s) => Pin::new(s).poll_flush(cx),
            // Nothing is buffered here: every write went to the descriptor.
            Stdout::Ready(_) => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stdout::Blocking(s) => Pin::new(s).poll_shutdown(cx),
            // The descriptor is the process's; it closes when the process exits.
            Stdout::Ready(_) => Poll::Ready(Ok(())),
        }
    }
}

/// The upstream's process tree: its process group (the upstream leads it, so a wrapper script's children
/// are signalled with it), and the write end of the lifeline its keeper or watcher holds the other end of
/// (none in unit tests): the kernel closes it when the guard dies, however it dies, and the tree is ended.
pub struct Tree {
    pgid: u32,
    #[allow(dead_code)]
    lifeline: Option<OwnedFd>,
}

impl Tree {
    pub fn new(pgid: u32, lifeline: Option<OwnedFd>) -> Self {
        Tree { pgid, lifeline }
    }

    /// The upstream's pid, which is also its process group's id.
    pub fn pid(&self) -> u32 {
        self.pgid
    }

    /// Asks the tree to stop: SIGTERM to the group. Returns what was sent (Unix always has a polite signal).
    pub fn terminate(&self) -> Option<&'static str> {
        self.signal(libc::SIGTERM);
        Some("SIGTERM")
    }

    /// Ends the tree now: SIGKILL to the group. Returns what was sent.
    pub fn kill(&self) -> &'static str {
        self.signal(libc::SIGKILL);
        "SIGKILL"
    }

    /// Whether any process of the group is still alive. Only asked before the upstream is reaped, or for its
    /// group's leftovers after: a group id is not reused while the group has members.
    pub fn alive(&self) -> bool {
        self.signal(0)
    }

    fn signal(&self, signal: i32) -> bool {
        signal_group(self.pgid, signal)
    }
}

/// Sends `signal` to process group `pgid` (0: only asks whether it has a member); false if none was reached.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = i32::try_from(pgid) else {
        return false;
    };
    // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
    pgid > 0 && unsafe { libc::kill(-pgid, signal) == 0 }
}

/// `command` with piped stdio, killed if its handle is dropped, leading a process group of its own.
pub fn command(program: &std::ffi::OsStr, args: &[String]) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    cmd
}

/// Starts `command` in a process group of its own, with nobody keeping its tree: what the unit tests run
/// (their executable is not the CLI, which runs the keeper and the watcher).
#[cfg(test)]
pub fn spawn_grouped(command_line: &[String]) -> io::Result<(tokio::process::Child, Tree)> {
    let child = command(command_line[0].as_ref(), &command_line[1..]).spawn()?;
    let pid = child.id().unwrap_or(0);
    Ok((child, Tree::new(pid, None)))
}

/// A pipe whose two ends are closed on exec (std's: atomically where the system can).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    Ok((read.into(), write.into()))
}

/// The signal that ended a process, if one did.
pub fn signal_of(status: ExitStatus) -> Option<i32> {
    status.signal()
}

/// SIGTERM, SIGINT and SIGHUP to the guard stop the upstream the same way a closed client does (SIGHUP
/// reloads the policy file instead when the guard has one, `--config`).
pub struct Signals {
    term: Option<Signal>,
    int: Option<Signal>,
    hup: Option<Signal>,
}

impl Signals {
    pub fn new() -> Self {
        Signals {
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// The next signal's name (`SIGHUP` is the one that may reload the policy file).
    pub async fn recv(&mut self) -> &'static str {
        async fn one(s: &mut Option<Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            _ = one(&mut self.term) => "SIGTERM",
            _ = one(&mut self.int) => "SIGINT",
            _ = one(&mut self.hup) => "SIGHUP",
        }
    }
}

/// A connection's socket, as the HTTP front keeps it to look for a client that left.
pub type RawSocket = RawFd;

pub fn raw_socket(stream: &tokio::net::TcpStream) -> RawSocket {
    stream.as_raw_fd()
}

/// Peeks at one byte of what the client sent on `socket`, consuming nothing. The socket must be open and
/// non-blocking (tokio's are) for as long as this runs.
pub fn peek(socket: RawSocket) -> io::Result<usize> {
    // SAFETY: the caller's connection owns the descriptor and keeps it open while this call borrows it.
    let fd = unsafe { BorrowedFd::borrow_raw(socket) };
    socket2::SockRef::from(&fd).peek(&mut [std::mem::MaybeUninit::uninit()])
}

/// The listening socket may be bound again at once after the guard restarts (connections of the last
/// run in TIME_WAIT do not hold its port).
pub fn allow_rebind(socket: &tokio::net::TcpSocket) -> io::Result<()> {
    socket.set_reuseaddr(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn sh(script: &str) -> (tokio::process::Child, Tree) {
        spawn_grouped(&["sh".into(), "-c".into(), script.into()]).unwrap()
    }

    fn gone_within(tree: &Tree, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if !tree.alive() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[tokio::test]
    async fn a_tree_is_asked_to_stop_then_killed_with_everything_in_its_group() {
        // Obeys SIGTERM: its group is gone once asked.
        let (mut child, tree) = sh("sleep 60 & sleep 60; wait");
        assert!(tree.alive());
        assert_eq!(
            tree.pid(),
            child.id().unwrap(),
            "the upstream leads its group"
        );
        assert_eq!(tree.terminate(), Some("SIGTERM"));
        assert_eq!(child.wait().await.unwrap().signal(), Some(libc::SIGTERM));
        assert!(gone_within(&tree, Duration::from_secs(10)));

        // Ignores SIGTERM, and so does its child: only the kill ends them.
        let (mut child, tree) = sh("trap '' TERM; sleep 60 & sleep 60; wait");
        std::thread::sleep(Duration::from_millis(200));
        tree.terminate();
        std::thread::sleep(Duration::from_millis(200));
        assert!(tree.alive(), "SIGTERM was ignored");
        assert_eq!(tree.kill(), "SIGKILL");
        assert_eq!(signal_of(child.wait().await.unwrap()), Some(libc::SIGKILL));
        assert!(gone_within(&tree, Duration::from_secs(10)));
    }

    #[test]
    fn a_group_that_never_was_is_not_alive() {
        assert!(
            !Tree::new(0, None).alive(),
            "pgid 0 would be the guard's own group"
        );
        assert!(!signal_group(u32::MAX, 0));
    }
}
