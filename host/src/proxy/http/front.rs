//! What the HTTP front's handlers share ([`Front`]), and the requests open on one connection ([`Busy`]).

use super::listen::Listen;
use super::upstream::Children;
use super::{security, sessions, shared};
use crate::proxy::core::PolicyText;
use crate::proxy::metrics::Metrics;
use crate::proxy::platform;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Everything the handlers share.
pub struct Front {
    /// How children start (the guard session's options among it), and those running.
    pub children: Children,
    pub max_bytes: usize,
    pub listen: Listen,
    pub metrics: Arc<Metrics>,
    pub(super) access: security::Access,
    /// An `Arc`: the reaper task holds it too.
    pub sessions: Arc<sessions::Sessions>,
    pub shared: shared::Shared,
    /// SIGTERM: no new work; `/readyz` says so.
    pub draining: AtomicBool,
    /// Response streams open (POSTs waiting for their answer, GET streams), against `--max-streams`.
    pub open_streams: AtomicUsize,
}

impl Front {
    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }

    /// A reloaded policy file: for the relays started from now on, and for every running one's new requests.
    pub(super) fn reload(&self, policy: Arc<PolicyText>) {
        *self
            .children
            .reloaded
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some(policy.clone());
        for up in self.sessions.all().into_iter().chain(self.shared.current()) {
            up.reload(policy.clone());
        }
    }
}

/// Requests (and response streams) open on one connection, and a wake-up when one opens.
#[derive(Default)]
pub struct Busy {
    open: AtomicUsize,
    opened: Notify,
    /// The connection is to be closed now (a response whose client stopped taking it).
    closing: Notify,
}

impl Busy {
    /// Closes the connection: its responses end and what they held is let go (the connection's task drops
    /// it, and with it the socket).
    pub fn abort(&self) {
        self.closing.notify_one();
    }

    /// Returns once [`Busy::abort`] has been called.
    pub async fn aborted(&self) {
        self.closing.notified().await;
    }
}

/// One open request or stream on a connection, for as long as it lives.
pub struct Held(Arc<Busy>);

impl Held {
    pub fn enter(busy: &Arc<Busy>) -> Held {
        busy.open.fetch_add(1, Ordering::AcqRel);
        busy.opened.notify_one();
        Held(busy.clone())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How often a connection with something open is checked for a client that left.
const PEER_CHECK: Duration = Duration::from_millis(200);

/// Returns when the client closed (or reset) a connection on which a request or a stream is open. HTTP/1
/// servers do not read while they answer, so without this a client that left would be noticed only at the
/// next write; an idle connection costs nothing here.
pub(super) async fn peer_gone(socket: platform::RawSocket, busy: Arc<Busy>) {
    loop {
        if busy.open.load(Ordering::Acquire) == 0 {
            let opened = busy.opened.notified();
            tokio::pin!(opened);
            opened.as_mut().enable();
            if busy.open.load(Ordering::Acquire) == 0 {
                opened.await;
            }
            continue;
        }
        tokio::time::sleep(PEER_CHECK).await;
        if busy.open.load(Ordering::Acquire) == 0 {
            continue;
        }
        if platform::peer_closed(socket) {
            return;
        }
    }
}
