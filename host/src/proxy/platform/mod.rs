//! The guard's platform seam: everything that differs between Linux, macOS and Windows, one file per
//! platform, each exporting the same names (as the relay keeps its transports apart):
//!
//! - the upstream's process tree ([`Tree`], started by [`spawn`]): asked to stop, killed, and ended with the
//!   guard however the guard ends — Linux: a process group under the keeper, a child subreaper
//!   ([`linux`]); macOS: a process group and a watcher process ([`macos`]); Windows: a job object that kills
//!   on close ([`windows`]);
//! - the guard's own signals ([`Signals`]): SIGTERM, SIGINT and SIGHUP on Unix, console control events on
//!   Windows;
//! - the guard's stdin and stdout ([`stdin`], [`stdout`]), its pipes' size on Linux ([`widen_pipe`]), the
//!   exit status of a process a signal ended ([`signal_of`]), a connection's socket as the HTTP front peeks
//!   at it ([`peer_closed`]), the listening socket's options ([`allow_rebind`]) and the descriptor limit
//!   ([`raise_descriptor_limit`]);
//! - the helper process the CLI runs as before anything else ([`run_helper`]: the keeper, the watcher).
//!
//! What each platform guarantees, and where they differ: docs/guard.md ("Platforms").

#[cfg(target_os = "linux")]
mod linux;
#[cfg(any(all(unix, not(target_os = "linux")), all(unix, test)))]
#[cfg_attr(target_os = "linux", allow(dead_code))]
mod macos;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(target_os = "linux")]
pub use linux::{run_helper, spawn};
#[cfg(all(unix, not(target_os = "linux")))]
pub use macos::{run_helper, spawn};
#[cfg(unix)]
pub use unix::{
    allow_rebind, raw_socket, signal_of, stdin, stdout, widen_pipe, RawSocket, Signals, Tree,
};
#[cfg(windows)]
pub use windows::{
    allow_rebind, raw_socket, run_helper, signal_of, spawn, stdin, stdout, RawSocket, Signals, Tree,
};

#[cfg(unix)]
use unix::peek;
#[cfg(windows)]
use windows::peek;

/// Whether the client closed (or reset) the connection on `socket`, consuming nothing it sent. The socket
/// must be open and non-blocking (tokio's are) for as long as this runs.
pub fn peer_closed(socket: RawSocket) -> bool {
    closed_by(peek(socket))
}

/// What one non-blocking peek says: end-of-file, or an error other than "nothing yet", means the peer left.
fn closed_by(peek: std::io::Result<usize>) -> bool {
    match peek {
        Ok(n) => n == 0,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
        ),
    }
}

/// Raises the soft limit on open descriptors as far as the system allows (the hard limit; on macOS also
/// `kern.maxfilesperproc`, without which the hard limit is refused and the soft one stays at 256): 10,000
/// idle connections need as many. Windows has no such limit on sockets.
pub fn raise_descriptor_limit() {
    let _ = rlimit::increase_nofile_limit(u64::MAX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;

    #[test]
    fn a_peek_tells_a_closed_connection_from_a_quiet_one() {
        assert!(closed_by(Ok(0)), "end-of-file");
        assert!(!closed_by(Ok(1)), "bytes waiting");
        assert!(!closed_by(Err(std::io::ErrorKind::WouldBlock.into())));
        assert!(!closed_by(Err(std::io::ErrorKind::Interrupted.into())));
        assert!(closed_by(Err(std::io::ErrorKind::ConnectionReset.into())));
    }

    /// Over a real loopback connection: quiet and open, then a byte sent (peeked, not consumed), then
    /// closed by the client.
    #[tokio::test]
    async fn peer_closed_sees_the_client_leave_and_consumes_nothing() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let socket = raw_socket(&server);
        assert!(!peer_closed(socket), "an open, quiet connection");
        client.write_all(b"x").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert!(!peer_closed(socket), "a byte waiting is no close");
        let mut byte = [0u8; 1];
        assert_eq!(
            server.try_read(&mut byte).unwrap(),
            1,
            "the peeked byte is still there"
        );
        drop(client);
        let mut closed = false;
        for _ in 0..100 {
            if peer_closed(socket) {
                closed = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(closed, "the client's close was not seen");
    }

    #[test]
    fn the_descriptor_limit_goes_up_to_the_hard_one() {
        raise_descriptor_limit();
        #[cfg(unix)]
        {
            let (soft, hard) = rlimit::Resource::NOFILE.get().unwrap();
            assert!(
                soft == hard || cfg!(target_os = "macos"),
                "soft {soft}, hard {hard}"
            );
        }
    }
}
