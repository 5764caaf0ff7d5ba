//! Where one child's messages for its clients go: each to the response of its client stream, with a byte
//! budget per stream, so that no client's pace costs another anything.
//!
//! The relay reads the child's output against one budget (the core's: a line holds it until written), and
//! lines for clients are "written" once they are handed to their stream here. So a message never holds
//! the child's budget while it waits for a client: what waits is charged to its own stream's budget
//! ([`STREAM_BYTES`]). A stream whose client does not take what it is sent (its response is not read) runs
//! out of budget and is closed: counted, logged, its connection dropped, and its requests cancelled upstream
//! by the session as for a client that left. A message is never refused for its size alone (a stream with
//! nothing waiting takes it whole), and a stream's answer is always taken (it ends the stream).
//!
//! Stream 0 is the session's own: a legacy session's GET stream, and while none is open a backlog bounded
//! in messages and bytes that holds no budget; the shared child has no such stream, so what goes there is
//! dropped at once. Either way what no stream can receive is dropped and counted, never held.

use super::body::is_final;
use crate::proxy::core::ClientSink;
use crate::proxy::io::{Budget, Outgoing};
use crate::proxy::metrics::Metrics;
use jsonrpc_errors_host::guard::Peer;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Bytes of messages a client stream may have waiting for its client to take them (what one child had for
/// all its streams before streams had budgets of their own).
pub const STREAM_BYTES: usize = 16 * 1024 * 1024;
/// Messages, and bytes, held for a legacy session's GET stream while none is open; the oldest go beyond.
pub const BACKLOG: usize = 256;
pub const BACKLOG_BYTES: usize = 4 * 1024 * 1024;

/// What the front does when a stream's client stops taking its messages: it closes the connection.
pub type Abort = Box<dyn FnOnce() + Send>;

/// One client stream's way to its response.
struct Route {
    tx: mpsc::UnboundedSender<Outgoing>,
    budget: Budget,
    abort: Option<Abort>,
    /// Its request is answered with many responses (A2A's streaming methods): none of them ends it, so each
    /// is held to the budget like any other message (the session's `end` step ends it).
    many: bool,
}

impl Route {
    fn new(tx: mpsc::UnboundedSender<Outgoing>, abort: Option<Abort>) -> Route {
        Route {
            tx,
            budget: Budget::with_bytes(STREAM_BYTES),
            abort,
            many: false,
        }
    }

    /// Queues `out` for the client, charged to this stream's budget. Err: the client stopped taking what it
    /// is sent (the stream is to be closed), or its response is gone; `out` is handed back.
    fn offer(&self, mut out: Outgoing) -> Result<(), (Outgoing, Refused)> {
        let len = out.bytes.len() + 1;
        let charge = match self.budget.try_take(len) {
            Some(permit) => Some(permit),
            // Nothing waiting: taken whatever its size. Its answer: taken, it ends the stream.
            None if self.budget.unused() || (!self.many && is_final(&out.bytes)) => {
                self.budget.charge(len)
            }
            None => return Err((out, Refused::Stalled)),
        };
        out.permit = charge;
        self.tx
            .send(out)
            .map_err(|mpsc::error::SendError(out)| (out, Refused::Gone))
    }

    /// Closes the stream's response: what it held goes, and the front drops its connection.
    fn close(mut self) {
        if let Some(abort) = self.abort.take() {
            abort();
        }
    }
}

enum Refused {
    Stalled,
    Gone,
}

#[derive(Default)]
pub struct Routes {
    streams: HashMap<u64, Route>,
    own: Option<Route>,
    backlog: VecDeque<Outgoing>,
    backlog_bytes: usize,
    /// A legacy session's child: stream 0 is its GET stream (else nothing can receive what goes there).
    has_own: bool,
    /// Whether a drop has been logged since the GET stream was last open (one warning per spell).
    dropping: bool,
    /// The relay has ended: nothing more will be delivered.
    pub ended: bool,
}

impl Routes {
    pub fn new(has_own: bool) -> Routes {
        Routes {
            has_own,
            ..Routes::default()
        }
    }

    /// A new client stream's route (nothing once the relay has ended: its receiver then ends at once).
    pub fn open(&mut self, stream: u64, tx: mpsc::UnboundedSender<Outgoing>, abort: Option<Abort>) {
        if !self.ended {
            self.streams.insert(stream, Route::new(tx, abort));
        }
    }

    /// A route for a stream whose request is answered with many responses (ended by the session's `end`
    /// step, not by an answer): every message on it is held to its budget.
    pub fn open_many(
        &mut self,
        stream: u64,
        tx: mpsc::UnboundedSender<Outgoing>,
        abort: Option<Abort>,
    ) {
        if !self.ended {
            let mut route = Route::new(tx, abort);
            route.many = true;
            self.streams.insert(stream, route);
        }
    }

    pub fn close(&mut self, stream: u64) {
        self.streams.remove(&stream);
    }

    /// Whether a GET stream is open.
    pub fn own_open(&self) -> bool {
        self.own.as_ref().is_some_and(|r| !r.tx.is_closed())
    }

    /// The GET stream: what was held for it, then what comes.
    pub fn open_own(&mut self, tx: mpsc::UnboundedSender<Outgoing>, abort: Option<Abort>) {
        let route = Route::new(tx, abort);
        self.backlog_bytes = 0;
        self.dropping = false;
        for mut out in self.backlog.drain(..) {
            out.permit = route.budget.charge(out.bytes.len() + 1);
            let _ = route.tx.send(out);
        }
        if !self.ended {
            self.own = Some(route);
        }
    }

    pub fn close_own(&mut self) {
        self.own = None;
    }

    /// The relay ended: every response ends (what was sent to it is still taken).
    pub fn end(&mut self) {
        self.ended = true;
        self.streams.clear();
        self.own = None;
    }

    fn deliver(&mut self, stream: u64, out: Outgoing, metrics: &Metrics) {
        if stream != 0 {
            let Some(route) = self.streams.get(&stream) else {
                return; // the stream is gone (its client left): nothing is owed to it
            };
            if let Err((out, Refused::Stalled)) = route.offer(out) {
                let route = self.streams.remove(&stream).expect("just found");
                stalled(metrics, stream, &out, &route);
                route.close();
            }
            return;
        }
        let out = match &self.own {
            Some(route) => match route.offer(out) {
                Ok(()) => return,
                Err((out, why)) => {
                    let route = self.own.take().expect("just found");
                    if matches!(why, Refused::Stalled) {
                        stalled(metrics, 0, &out, &route);
                        route.close();
                    }
                    out
                }
            },
            None => out,
        };
        self.hold(out, metrics);
    }

    /// A message for stream 0 while no GET stream takes it: kept for one (a legacy session's, within
    /// [`BACKLOG`] and [`BACKLOG_BYTES`], holding no budget), else dropped and counted.
    fn hold(&mut self, mut out: Outgoing, metrics: &Metrics) {
        out.permit = None;
        if !self.has_own {
            self.dropped(
                metrics,
                1,
                "no stream can receive it (the shared upstream has none of its own)",
            );
            return;
        }
        self.backlog_bytes += out.bytes.len();
        self.backlog.push_back(out);
        let mut dropped = 0;
        while self.backlog.len() > BACKLOG
            || (self.backlog_bytes > BACKLOG_BYTES && self.backlog.len() > 1)
        {
            if let Some(old) = self.backlog.pop_front() {
                self.backlog_bytes -= old.bytes.len();
                dropped += 1;
            }
        }
        if self.backlog_bytes > BACKLOG_BYTES {
            // One message larger than the whole backlog: not kept either.
            self.backlog.clear();
            self.backlog_bytes = 0;
            dropped += 1;
        }
        if dropped > 0 {
            self.dropped(
                metrics,
                dropped,
                "no GET stream read it, and the backlog for one is full",
            );
        }
    }

    fn dropped(&mut self, metrics: &Metrics, n: u64, why: &str) {
        metrics.undeliverable_dropped(n);
        if !std::mem::replace(&mut self.dropping, true) {
            tracing::warn!(
                event = "dropped",
                "a message for the session's own stream was dropped: {why} (counted in _undeliverable_dropped_total; further drops are not logged until a GET stream opens)"
            );
        }
    }
}

fn stalled(metrics: &Metrics, stream: u64, out: &Outgoing, route: &Route) {
    metrics.stream_stalled();
    let waiting = STREAM_BYTES - route.budget.free().min(STREAM_BYTES);
    tracing::warn!(
        event = "stream-stalled",
        stream,
        detail = format!(
            "{waiting} bytes waiting for the client, {} more arrived",
            out.bytes.len()
        ),
        "a client stopped reading its response: its stream is closed (its requests cancelled upstream)"
    );
}

/// What the relay delivers to the client side: each line to the response of its stream.
pub struct HttpSink {
    pub routes: Arc<Mutex<Routes>>,
    pub metrics: Arc<Metrics>,
}

impl ClientSink for HttpSink {
    fn deliver(&mut self, stream: Option<u64>, mut out: Outgoing) {
        self.metrics.written(Peer::Client, out.forwarded);
        if let Some(at) = out.read_at {
            self.metrics.latency(Peer::Client, at.elapsed());
        }
        // Handed over: the reader's budget (the child's, or a client line's) is free again; what waits for
        // the client from now on is its stream's to hold.
        out.permit = None;
        self.routes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .deliver(stream.unwrap_or(0), out, &self.metrics);
    }

    /// A request answered with many responses is settled: its stream's route goes, so that its response ends
    /// once what was queued is written (the receiver drains, then ends).
    fn end_stream(&mut self, stream: Option<u64>) {
        if let Some(stream) = stream.filter(|s| *s != 0) {
            self.routes
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .close(stream);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn line(bytes: usize, last: bool) -> Outgoing {
        let mut text = if last {
            r#"{"jsonrpc":"2.0","id":1,"result":{"p":""#.to_string()
        } else {
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"p":""#.to_string()
        };
        text.push_str(&"x".repeat(bytes));
        text.push_str(r#""}}"#);
        Outgoing {
            bytes: text.into_bytes(),
            forwarded: true,
            read_at: None,
            permit: None,
        }
    }

    fn counted(aborts: &Arc<AtomicUsize>) -> Option<Abort> {
        let aborts = aborts.clone();
        Some(Box::new(move || {
            aborts.fetch_add(1, Ordering::SeqCst);
        }))
    }

    #[test]
    fn a_stream_whose_client_takes_nothing_is_closed_and_costs_no_one_else() {
        let metrics = Metrics::new();
        let mut routes = Routes::new(false);
        let aborts = Arc::new(AtomicUsize::new(0));
        let (slow_tx, slow_rx) = mpsc::unbounded_channel();
        let (fast_tx, mut fast_rx) = mpsc::unbounded_channel();
        routes.open(1, slow_tx, counted(&aborts));
        routes.open(2, fast_tx, counted(&aborts));
        let chunk = 1024 * 1024;
        for _ in 0..STREAM_BYTES / chunk + 2 {
            routes.deliver(1, line(chunk, false), &metrics);
            routes.deliver(2, line(chunk, false), &metrics);
            while fast_rx.try_recv().is_ok() {}
        }
        assert_eq!(
            aborts.load(Ordering::SeqCst),
            1,
            "the slow stream is closed, once"
        );
        assert!(!routes.streams.contains_key(&1) && routes.streams.contains_key(&2));
        // What the slow stream held is let go with its receiver (the connection the front drops).
        drop(slow_rx);
        routes.deliver(2, line(10, true), &metrics);
        assert!(
            fast_rx.try_recv().is_ok(),
            "the reading stream still gets its answer"
        );
        assert!(metrics.encode().contains("streams_stalled_total 1"));
    }

    #[test]
    fn a_large_message_or_an_answer_is_never_refused_for_its_size() {
        let metrics = Metrics::new();
        let mut routes = Routes::new(false);
        let aborts = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::unbounded_channel();
        routes.open(1, tx, counted(&aborts));
        // Larger than the whole budget, with nothing waiting: taken.
        routes.deliver(1, line(STREAM_BYTES + 10, false), &metrics);
        // The answer, with the budget spent: taken too.
        routes.deliver(1, line(STREAM_BYTES, true), &metrics);
        assert_eq!(aborts.load(Ordering::SeqCst), 0);
        assert!(rx.try_recv().is_ok() && rx.try_recv().is_ok());
    }

    #[test]
    fn a_stream_of_many_answers_holds_each_to_its_budget() {
        let metrics = Metrics::new();
        let mut routes = Routes::new(false);
        let aborts = Arc::new(AtomicUsize::new(0));
        let (tx, _rx) = mpsc::unbounded_channel();
        routes.open_many(1, tx, counted(&aborts));
        let chunk = 1024 * 1024;
        // Every event of an A2A stream is a response: none may slip past the budget as "the answer".
        for _ in 0..STREAM_BYTES / chunk + 2 {
            routes.deliver(1, line(chunk, true), &metrics);
        }
        assert_eq!(aborts.load(Ordering::SeqCst), 1, "closed once, as stalled");
        assert!(!routes.streams.contains_key(&1));
    }

    #[test]
    fn what_no_stream_can_receive_is_dropped_and_a_backlog_is_bounded_in_bytes() {
        let metrics = Metrics::new();
        let mut shared = Routes::new(false);
        for _ in 0..10 {
            shared.deliver(0, line(100, false), &metrics);
        }
        assert!(shared.backlog.is_empty());
        let mut session = Routes::new(true);
        for _ in 0..100 {
            session.deliver(0, line(100_000, false), &metrics);
        }
        assert!(session.backlog_bytes <= BACKLOG_BYTES && !session.backlog.is_empty());
        assert!(session.backlog.iter().all(|o| o.permit.is_none()));
        let kept = session.backlog.len();
        let (tx, mut rx) = mpsc::unbounded_channel();
        session.open_own(tx, None);
        let mut got = 0;
        while rx.try_recv().is_ok() {
            got += 1;
        }
        assert_eq!(got, kept);
        let text = metrics.encode();
        let dropped = text
            .lines()
            .find(|l| l.starts_with("jsonrpc_errors_guard_undeliverable_dropped_total "))
            .unwrap();
        assert_eq!(
            dropped,
            format!(
                "jsonrpc_errors_guard_undeliverable_dropped_total {}",
                10 + 100 - kept
            )
        );
    }
}
