//! The signals the guard acts on.

use tokio::signal::unix::{signal, SignalKind};

/// SIGTERM, SIGINT and SIGHUP to the guard stop the upstream the same way a closed client does (SIGHUP
/// reloads the policy file instead when the guard has one, `--config`).
pub(crate) struct Signals {
    term: Option<tokio::signal::unix::Signal>,
    int: Option<tokio::signal::unix::Signal>,
    hup: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    pub(crate) fn new() -> Self {
        Signals {
            term: signal(SignalKind::terminate()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    pub(crate) async fn recv(&mut self) -> &'static str {
        async fn one(s: &mut Option<tokio::signal::unix::Signal>) {
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
