//! The session's tables: client requests in flight (with their deadlines, progress tokens and stream
//! aliases), the upstream's own requests, allowed batches being gathered, and the requests settled without an
//! upstream answer.

use serde_json::Value;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// A client request waiting for the upstream.
pub(super) struct Pending {
    /// The id as the client wrote it: what the answer carries.
    pub(super) id: Value,
    pub(super) method: String,
    /// Order of arrival: failures answer pending requests in this order.
    pub(super) seq: u64,
    pub(super) deadline: Option<u64>,
    pub(super) progress_token: Option<String>,
    /// The MCP revision the request named in its `_meta` (the stateless revisions do, on every request).
    pub(super) revision: Option<String>,
    /// The batch and the position in it, for a member of an allowed batch.
    pub(super) slot: Option<(u64, usize)>,
    /// Where it came from and what it was called there, for a request that arrived on a client stream
    /// (`client_line_on`): its answers go back there, with the client's id and token (streams.rs).
    pub(super) origin: Option<Origin>,
    /// What the session's policy file says of it (none without one).
    pub(super) effective: Option<Box<crate::policy::Effective>>,
    /// The latest it may be answered, progress or not (the policy's `max_wait`).
    pub(super) latest: Option<u64>,
    /// When it arrived (the caller's clock, ms).
    pub(super) arrived: u64,
    /// Answered with many responses (A2A's streaming methods, `a2a::streams`): it stays pending while they
    /// are passed on, until one ends it (or the upstream's stream ends, or it fails, or times out).
    pub(super) streaming: bool,
    /// Responses passed on so far (a streaming request's events).
    pub(super) events: u64,
}

/// A request's stream, and the id and progress token its client wrote (raw JSON), which the upstream knows by
/// names of the session's own.
pub(super) struct Origin {
    pub(super) stream: u64,
    /// The request's key on its stream (`streams::alias`).
    pub(super) alias: String,
    pub(super) client_id: String,
    /// The id the upstream was given (a string of the session's own: `streams::Streams::draw`).
    pub(super) upstream_id: String,
    /// The client's progress token (raw JSON), and the one the upstream was given.
    pub(super) token: Option<(String, String)>,
}

/// The answers of an allowed batch, gathered until the last one arrives.
pub(super) struct Batch {
    pub(super) slots: Vec<Option<String>>,
    pub(super) open: usize,
    /// The keys of the members forwarded upstream: in flight until the array goes out.
    pub(super) members: Vec<String>,
    /// For a batch that came on a client stream: that stream, and its members' keys there (in flight until
    /// the array goes out, as `members`).
    pub(super) stream: Option<u64>,
    pub(super) aliases: Vec<String>,
}

/// Why a request is no longer pending although no upstream answer reached the client: a late answer for it
/// is dropped quietly, as expected, rather than as an anomaly.
#[derive(Clone, Copy)]
pub(super) enum Settled {
    TimedOut,
    Cancelled,
    /// A streaming request's final event came (what follows it is no part of the stream).
    Ended,
}

/// Requests settled without an upstream answer that are remembered (a bounded window: only the logging of
/// late answers depends on it, never what is relayed).
pub(super) const SETTLED_WINDOW: usize = 1024;

/// The upstream's own requests the client has not answered that are remembered. Beyond it the oldest is
/// forgotten (its late response is then dropped): a server that keeps asking a client that never answers
/// must not grow the session without bound. MCP servers ask a client rarely (sampling, elicitation, roots).
pub(super) const SERVER_REQUEST_WINDOW: usize = 1024;

/// What the session's tables hold. One value type for all of them: the npm module, which is downloaded,
/// pays for one hash table instantiation instead of four.
pub(super) enum Entry {
    /// A client request waiting for the upstream. Boxed: a request is over three times the size of any
    /// other entry (320 bytes, 96), which would otherwise each take as much room in the tables.
    Request(Box<Pending>),
    /// One of the upstream's own requests, waiting for the client's response (its order of arrival).
    ServerRequest(u64),
    /// A key of the pending table: the request a progress token, or a stream's request id, stands for.
    Key(String),
    /// An allowed batch's answers being gathered.
    Batch(Batch),
    /// A member of an allowed batch whose array has not gone out yet.
    BatchMember,
}

/// The tables of what is in flight.
#[derive(Default)]
pub(super) struct Tables {
    /// Client requests in flight, by id key.
    pub(super) pending: HashMap<String, Entry>,
    /// Deadlines as (deadline, seq, key), earliest first. An entry whose request has been answered, or whose
    /// deadline moved, is stale and skipped when it reaches the top (cheaper than removing from the middle).
    pub(super) deadlines: BinaryHeap<Reverse<(u64, u64, String)>>,
    /// Progress token → the request it belongs to (progress restarts that request's wait).
    pub(super) progress: HashMap<String, Entry>,
    /// The upstream's own requests to the client, by id key.
    pub(super) server_requests: HashMap<String, Entry>,
    /// Allowed batches being gathered, by batch number.
    pub(super) batches: HashMap<String, Entry>,
    /// The keys of the forwarded members of those batches. A member stays in flight after it leaves the
    /// pending table (answered by the upstream, or by the guard on a timeout) until its array reaches the
    /// client: only then does the client have its answer and may use its id again (found by cargo-fuzz: a
    /// request reusing a timed-out member's id was forwarded, and the client got two answers with that id).
    pub(super) batch_members: HashMap<String, Entry>,
    pub(super) settled: Vec<(String, Settled)>,
    /// Progress tokens of requests no longer in flight (a bounded window): MCP allows progress only for
    /// active requests, and a client SDK reports any other as an error, so late progress is dropped.
    pub(super) finished_tokens: Vec<String>,
    /// A stream's request key (`streams::alias`) → the upstream key it was renamed to, while in flight.
    pub(super) aliases: HashMap<String, Entry>,
    pub(super) seq: u64,
}

impl Tables {
    /// Whether a deadline entry still belongs to a pending request.
    pub(super) fn live(&self, deadline: u64, seq: u64, key: &str) -> bool {
        matches!(self.pending.get(key), Some(Entry::Request(p)) if p.seq == seq && p.deadline == Some(deadline))
    }

    /// Stale entries leave the heap only when they reach its top: behind one request that stays pending,
    /// every later request's entry would stay too (a proxy relaying at full speed past one stuck request
    /// grew without bound, and wasm memory never shrinks). So the heap is rebuilt from its live entries
    /// whenever it holds more than twice as many as there are requests pending: amortized O(1) per request,
    /// and the heap stays within 2 × pending + 64 entries.
    pub(super) fn compact_deadlines(&mut self) {
        if self.deadlines.len() <= 2 * self.pending.len() + 64 {
            return;
        }
        // Sorted (the heap's own sort), so that repeated entries of one request sit together and go as one.
        let mut entries = std::mem::take(&mut self.deadlines).into_sorted_vec();
        entries.dedup();
        entries.retain(|Reverse((d, s, k))| self.live(*d, *s, k));
        self.deadlines = BinaryHeap::from(entries);
    }

    /// The earliest live deadline (stale entries on top are dropped on the way).
    pub(super) fn next_deadline(&mut self) -> Option<u64> {
        while let Some(Reverse((deadline, seq, key))) = self.deadlines.peek() {
            if self.live(*deadline, *seq, key) {
                return Some(*deadline);
            }
            self.deadlines.pop();
        }
        None
    }

    pub(super) fn request(&self, key: &str) -> Option<&Pending> {
        match self.pending.get(key) {
            Some(Entry::Request(p)) => Some(p),
            _ => None,
        }
    }

    pub(super) fn register(
        &mut self,
        key: String,
        mut pending: Pending,
        now: u64,
        default_timeout: Option<u64>,
    ) {
        self.seq += 1;
        pending.seq = self.seq;
        pending.arrived = now;
        pending.latest = pending
            .effective
            .as_ref()
            .and_then(|e| e.max_wait_ms)
            .map(|w| now.saturating_add(w));
        self.place(key, pending, now, default_timeout);
    }

    /// Puts back a streaming request just taken out to pass on one of its events, its wait restarted at
    /// `now` (as progress restarts a request's; never past the policy's longest wait). Its order of arrival
    /// is kept.
    pub(super) fn reinstate(
        &mut self,
        key: String,
        mut pending: Pending,
        now: u64,
        default_timeout: Option<u64>,
    ) {
        pending.events += 1;
        self.place(key, pending, now, default_timeout);
    }

    /// Enters a request in the tables, its deadline `now` plus its timeout (never past its longest wait).
    fn place(&mut self, key: String, mut pending: Pending, now: u64, default_timeout: Option<u64>) {
        let timeout = pending
            .effective
            .as_ref()
            .and_then(|e| e.timeout_ms)
            .unwrap_or(default_timeout);
        pending.deadline = match (timeout.map(|t| now.saturating_add(t)), pending.latest) {
            (Some(d), Some(l)) => Some(d.min(l)),
            (d, l) => d.or(l),
        };
        if let Some(deadline) = pending.deadline {
            self.deadlines
                .push(Reverse((deadline, pending.seq, key.clone())));
        }
        self.compact_deadlines();
        if let Some(token) = &pending.progress_token {
            self.progress.insert(token.clone(), Entry::Key(key.clone()));
        }
        if let Some(origin) = &pending.origin {
            self.aliases
                .insert(origin.alias.clone(), Entry::Key(key.clone()));
        }
        self.pending.insert(key, Entry::Request(Box::new(pending)));
    }

    /// Removes a pending request (its deadline entry goes stale).
    pub(super) fn take_pending(&mut self, key: &str) -> Option<Pending> {
        let Some(Entry::Request(p)) = self.pending.remove(key) else {
            return None;
        };
        let p = *p;
        // A batch member stays in flight on its stream until its array goes out (`fill_slot`).
        if let (Some(origin), None) = (&p.origin, p.slot) {
            self.aliases.remove(&origin.alias);
        }
        if let Some(token) = &p.progress_token {
            if matches!(self.progress.get(token), Some(Entry::Key(k)) if k == key) {
                self.progress.remove(token);
            }
            if self.finished_tokens.len() == SETTLED_WINDOW {
                self.finished_tokens.remove(0);
            }
            self.finished_tokens.push(token.clone());
        }
        Some(p)
    }

    pub(super) fn remember(&mut self, key: String, why: Settled) {
        if self.settled.len() == SETTLED_WINDOW {
            self.settled.remove(0);
        }
        self.settled.push((key, why));
    }

    /// The keys of the requests pending that came on client stream `stream`.
    pub(super) fn requests_on_stream(&self, stream: u64) -> Vec<String> {
        self.pending
            .iter()
            .filter_map(|(k, e)| match e {
                Entry::Request(p) if p.origin.as_ref().is_some_and(|o| o.stream == stream) => {
                    Some(k.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// The pending request a progress token stands for.
    pub(super) fn token_key(&self, token: &str) -> Option<&String> {
        match self.progress.get(token) {
            Some(Entry::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// The upstream key a stream's request key (`streams::alias`) was renamed to.
    pub(super) fn alias_key(&self, alias: &str) -> Option<&String> {
        match self.aliases.get(alias) {
            Some(Entry::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// The upstream key of the one request in flight, on any stream, whose client key is `client_key`
    /// (`streams::alias` without its stream); none when no request, or more than one, has it. For a session
    /// whose streams are all one client's, where a cancellation comes on a stream of its own.
    pub(super) fn alias_key_on_any_stream(&self, client_key: &str) -> Option<&String> {
        let mut found = self.aliases.iter().filter_map(|(alias, entry)| {
            let (_, key) = alias.split_once('\u{0}')?;
            match entry {
                Entry::Key(k) if key == client_key => Some(k),
                _ => None,
            }
        });
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    /// Records one of the upstream's own requests (its order of arrival).
    pub(super) fn add_server_request(&mut self, key: String) {
        self.seq += 1;
        self.server_requests
            .insert(key, Entry::ServerRequest(self.seq));
    }

    /// The upstream's request the client has left unanswered longest.
    pub(super) fn oldest_server_request(&self) -> Option<String> {
        let oldest = self.server_requests.iter().min_by_key(|(_, e)| match e {
            Entry::ServerRequest(arrival) => *arrival,
            _ => u64::MAX,
        });
        oldest.map(|(k, _)| k.clone())
    }

    pub(super) fn insert_batch(&mut self, id: String, batch: Batch) {
        self.batches.insert(id, Entry::Batch(batch));
    }

    pub(super) fn batch_mut(&mut self, id: &str) -> Option<&mut Batch> {
        match self.batches.get_mut(id) {
            Some(Entry::Batch(b)) => Some(b),
            _ => None,
        }
    }

    pub(super) fn take_batch(&mut self, id: &str) -> Option<Batch> {
        match self.batches.remove(id) {
            Some(Entry::Batch(b)) => Some(b),
            _ => None,
        }
    }

    /// A forwarded member of an allowed batch, in flight until its array goes out.
    pub(super) fn add_batch_member(&mut self, key: String) {
        self.batch_members.insert(key, Entry::BatchMember);
    }
}
