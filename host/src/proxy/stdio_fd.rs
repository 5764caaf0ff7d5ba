//! The guard's own stdin and stdout as readiness-driven pipes. `tokio::io::stdin()`/`stdout()` do every
//! read and write on the blocking thread pool: one thread handoff (two wake-ups) per read and per write,
//! which cost the stdio guard a third of its CPU. When fd 0 or 1 is a pipe or a socket (what an MCP client
//! gives its server), it is made non-blocking and driven by the runtime's reactor, as the upstream's pipes
//! are; anything else (a terminal, a file) keeps tokio's blocking path. The flags are restored when the
//! pipe is dropped, so a descriptor shared with another process is non-blocking only while the guard runs.

use std::io;
use std::os::fd::RawFd;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// A descriptor the guard does not own (0 or 1), non-blocking while this value lives.
pub struct Borrowed {
    fd: RawFd,
    flags: libc::c_int,
}

impl std::os::fd::AsRawFd for Borrowed {
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
