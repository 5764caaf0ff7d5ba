//! The reference model: what a session must have done, kept from its own steps.

use jsonrpc_errors_guest::guard::{EventName, Outcome, Peer, Step};
use jsonrpc_errors_guest::message::RawObject;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;

use super::ids::key;

/// An id as the guard's events carry it: a string one redacted and cut for the operator's log.
fn logged_form(id: &Value) -> Value {
    match id {
        Value::String(s) => Value::String(jsonrpc_errors_guest::guard::steps::quoted(s)),
        other => other.clone(),
    }
}

/// The key of the one id among a client batch's members that the operator's log shows as `logged` (ids are
/// redacted there: a member holding a secret in its id is answered with its id whole, and logged redacted).
fn member_key_logged_as(line: &[u8], logged: &Value) -> Option<String> {
    let Ok(Value::Array(members)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    let logged_key = key(&logged.to_string());
    let mut keys: Vec<String> = members
        .iter()
        .filter_map(|m| m.get("id"))
        .filter(|id| key(&logged_form(id).to_string()) == logged_key)
        .map(|id| key(&id.to_string()))
        .collect();
    keys.dedup();
    (keys.len() == 1).then(|| keys.remove(0))
}

/// The request ids a client line's cancellations name (the line alone, or each member of a batch).
fn cancelled_ids(line: &[u8]) -> Vec<Value> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    let members = match value {
        Value::Array(members) => members,
        one => vec![one],
    };
    members
        .into_iter()
        .filter(|m| m["method"] == "notifications/cancelled")
        .filter_map(|m| m["params"].get("requestId").cloned())
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    /// Forwarded as a line of its own: its answer is a response of its own.
    Alone,
    /// A member of allowed batch number N (counted from 1 in the order the client sent them): its answer
    /// arrives in that batch's array.
    InBatch(u32),
    /// A member of batch N answered (by the upstream, or by the guard at its deadline), held by the guard
    /// until the batch's array is complete: owed to the client still, and so in flight (its id may not be
    /// used again yet), but no longer pending (a second or late upstream answer to it answers nothing).
    Filled(u32),
}

/// What a session call was.
pub enum Origin<'a> {
    Client(&'a [u8]),
    Upstream(&'a [u8]),
    ClientOversize,
    UpstreamOversize,
    Expire(u64),
    Failed,
}

/// What the client is owed, kept from the session's own steps, and checked against them after every call.
#[derive(Default)]
pub struct Model {
    timeout: bool,
    /// Requests forwarded and not yet answered, cancelled or timed out, by [`key`]. A list per key, so that
    /// the model keeps counting when a finding listed in `FUZZ_KNOWN` lets two through.
    waiting: HashMap<String, Vec<Waiting>>,
    /// Requests forwarded in all.
    forwarded: usize,
    /// Every request id forwarded (as the client wrote it), every progress token, every id of the
    /// upstream's own requests: what built lines refer to.
    pub ids: Vec<String>,
    pub tokens: Vec<String>,
    pub server_ids: Vec<String>,
    /// Replies the guard wrote into an allowed batch for members it did not forward (its `answered` events
    /// in the batch's call), by batch number and key: they reach the client inside that batch's array.
    batch_replies: HashMap<(u32, String), usize>,
    /// Client lines that were arrays: the number of the last one.
    batches: u32,
    down: bool,
    /// The session's `pending` after the last call.
    pending: usize,
}

/// What a line reads as.
enum Msg<'a> {
    Request {
        id: &'a RawValue,
        params: Option<&'a RawValue>,
    },
    Notification,
    Response {
        id: Option<&'a RawValue>,
        error: bool,
    },
    Batch(Vec<&'a RawValue>),
    Other,
}

fn classify(text: &str) -> Msg<'_> {
    if text.trim_start().starts_with('[') {
        return serde_json::from_str::<Vec<&RawValue>>(text).map_or(Msg::Other, Msg::Batch);
    }
    let Ok(obj) = serde_json::from_str::<RawObject<'_>>(text) else {
        return Msg::Other;
    };
    match (obj.get("method"), obj.get("id")) {
        (Some(_), Some(id)) => Msg::Request {
            id,
            params: obj.get("params"),
        },
        (Some(_), None) => Msg::Notification,
        (None, id) if obj.get("result").is_some() || obj.get("error").is_some() => Msg::Response {
            id,
            error: obj.get("error").is_some(),
        },
        _ => Msg::Other,
    }
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

impl Model {
    pub fn new(timeout: bool) -> Self {
        Model {
            timeout,
            ..Model::default()
        }
    }

    pub fn is_down(&self) -> bool {
        self.down
    }

    /// How the request with this key is waiting, if it is: what a built answer to it must lead to.
    pub fn expectation(&self, key: &str) -> Option<bool> {
        let w = self.waiting.get(key)?;
        w.iter()
            .any(|w| !matches!(w, Waiting::Filled(_)))
            .then(|| w.contains(&Waiting::Alone))
    }

    /// Requests owed an answer that the upstream has not given yet.
    fn owed(&self) -> usize {
        self.waiting
            .values()
            .flatten()
            .filter(|w| !matches!(w, Waiting::Filled(_)))
            .count()
    }

    fn owed_alone(&self) -> usize {
        self.waiting
            .values()
            .flatten()
            .filter(|w| **w == Waiting::Alone)
            .count()
    }

    /// The key of a waiting request whose id the operator's log shows as `logged` (ids are redacted there);
    /// `logged`'s own key when none is waiting (the guard's replies to requests it never forwarded).
    fn waiting_key_logged_as(&self, logged: &Value) -> String {
        let logged_key = key(&logged.to_string());
        let mut keys: Vec<&String> = self.waiting.keys().collect();
        keys.sort();
        keys.into_iter()
            .find(|k| {
                serde_json::from_str::<Value>(k)
                    .is_ok_and(|id| key(&logged_form(&id).to_string()) == logged_key)
            })
            .cloned()
            .unwrap_or_else(|| key(&logged.to_string()))
    }

    fn take(&mut self, key: &str, how: Waiting) -> bool {
        let Some(list) = self.waiting.get_mut(key) else {
            return false;
        };
        let Some(i) = list.iter().position(|w| *w == how) else {
            return false;
        };
        list.remove(i);
        if list.is_empty() {
            self.waiting.remove(key);
        }
        true
    }

    /// Checks one call's outcome and brings the model up to date. `expect`: the key of the request a built
    /// answer picked, with whether it was waiting alone (its answer must reach the client now) or in a batch
    /// (its slot must be filled now: one request fewer pending).
    pub fn check(&mut self, origin: &Origin<'_>, out: &Outcome, expect: Option<(String, bool)>) {
        let json = out.to_json();
        if std::env::var_os("FUZZ_SHOW").is_some() {
            // Replaying a finding: each call, its outcome and what the model expected before it.
            let call = match origin {
                Origin::Client(l) => format!("client_line {:?}", String::from_utf8_lossy(l)),
                Origin::Upstream(l) => format!("upstream_line {:?}", String::from_utf8_lossy(l)),
                Origin::ClientOversize => "client_oversize".into(),
                Origin::UpstreamOversize => "upstream_oversize".into(),
                Origin::Expire(now) => format!("expire {now}"),
                Origin::Failed => "upstream_failed".into(),
            };
            eprintln!(
                "== {call}\n   -> {json}\n   owed before: {:?}, batch replies {:?}",
                self.waiting, self.batch_replies
            );
        }
        assert!(
            serde_json::from_str::<&RawValue>(&json).is_ok(),
            "the outcome is not JSON: {json}"
        );
        let client_batch = matches!(origin, Origin::Client(line) if std::str::from_utf8(line).is_ok_and(|t| matches!(classify(t), Msg::Batch(_))));
        if client_batch {
            self.batches += 1;
        }
        let mut replies: Vec<String> = Vec::new();
        let mut last_answered: Option<String> = None;
        // At a deadline, the request the guard just cancelled upstream (named exactly, where the event that
        // follows names it as the operator's log shows it).
        let mut last_cancelled: Option<String> = None;

        let mut answered: Vec<String> = Vec::new();
        let mut sent_members: Vec<&str> = Vec::new();
        for step in &out.steps {
            match step {
                Step::Forward { to, .. } => {
                    let line = match (origin, to) {
                        (Origin::Client(l), Peer::Upstream)
                        | (Origin::Upstream(l), Peer::Client) => *l,
                        _ => panic!("{step:?} after a call that forwards nothing there"),
                    };
                    let text = std::str::from_utf8(line)
                        .unwrap_or_else(|_| panic!("forwarded invalid UTF-8 as it is: {line:?}"));
                    match to {
                        Peer::Upstream => self.forwarded_to_upstream(text, Waiting::Alone),
                        Peer::Client => self.reached_client(
                            text,
                            origin,
                            last_answered.as_deref(),
                            &mut answered,
                        ),
                    }
                }
                Step::Send { to, line, .. } => {
                    assert!(
                        !line.contains('\n'),
                        "a line with a newline in it: {line:?}"
                    );
                    assert!(
                        serde_json::from_str::<&RawValue>(line).is_ok(),
                        "sent a line that is not JSON: {line}"
                    );
                    match (to, origin) {
                        (Peer::Upstream, _) if self.down => {
                            panic!("wrote to the upstream after it failed: {line}")
                        }
                        (Peer::Upstream, Origin::Client(_)) => {
                            sent_members.push(line);
                            self.forwarded_to_upstream(line, Waiting::InBatch(self.batches));
                        }
                        (Peer::Upstream, Origin::Expire(_)) => {
                            assert!(
                                line.contains(r#""method":"notifications/cancelled""#),
                                "expire wrote {line} upstream"
                            );
                            last_cancelled = cancelled_ids(line.as_bytes())
                                .first()
                                .map(|id| key(&id.to_string()));
                        }
                        (Peer::Upstream, _) => {
                            panic!("wrote {line} upstream in answer to the upstream")
                        }
                        // The guard's replies to the client's own message: not answers to anything forwarded.
                        (Peer::Client, Origin::Client(_) | Origin::ClientOversize) => {}
                        (Peer::Client, _) => self.reached_client(
                            line,
                            origin,
                            last_answered.as_deref(),
                            &mut answered,
                        ),
                    }
                }
                Step::Event(e) if e.event == EventName::ClientCancelled => {
                    // An event's id is the id as the operator's log shows it (a string one redacted): the request
                    // is one the client's cancellation named whose logged form that is, and which waited alone.
                    let logged = e.id.as_ref().expect("a cancellation names its request");
                    let Origin::Client(line) = origin else {
                        panic!("a cancellation reported outside a client call: {e:?}")
                    };
                    let named = cancelled_ids(line);
                    // Compared by key, as the guard compares ids: `-0` names the request `0`.
                    let logged_key = key(&logged.to_string());
                    let k = named
                        .iter()
                        .filter(|id| key(&logged_form(id).to_string()) == logged_key)
                        .map(|id| key(&id.to_string()))
                        .find(|k| self.take(k, Waiting::Alone));
                    assert!(k.is_some(), "cancelled {logged}, which no cancellation in the line named while it waited alone (named: {named:?})");
                }
                // A request answered with many responses (A2A's streaming methods, dialect `a2a`) is settled:
                // its answers were the steps before (guest/tests/guard_a2a_streams.rs models those streams).
                Step::End { .. } => {}
                Step::Event(e) => {
                    // In a client batch's call, the guard's own replies to its members: each is reported.
                    if e.event == EventName::Answered {
                        let logged = e.id.as_ref().map_or_else(
                            || "null".to_string(),
                            |id| match origin {
                                // A batch member answered here (never forwarded): its id is one of the line's.
                                Origin::Client(line) if client_batch => {
                                    member_key_logged_as(line, id)
                                        .unwrap_or_else(|| self.waiting_key_logged_as(id))
                                }
                                _ => self.waiting_key_logged_as(id),
                            },
                        );
                        let k = match origin {
                            Origin::Expire(_) => last_cancelled.take().unwrap_or(logged),
                            _ => logged,
                        };
                        if client_batch {
                            replies.push(k.clone());
                        }
                        // A batch member answered at its deadline: its answer waits in the array, and a late
                        // upstream answer to it is dropped.
                        if matches!(origin, Origin::Expire(_)) {
                            self.fill(&k);
                        }
                        last_answered = Some(k);
                    }
                }
            }
        }
        // A batch that stays open (a member went upstream as a request): the replies wait in its array.
        if client_batch
            && sent_members
                .iter()
                .any(|s| matches!(classify(s), Msg::Request { .. }))
        {
            for k in replies {
                *self.batch_replies.entry((self.batches, k)).or_default() += 1;
            }
        }
        match origin {
            Origin::Failed => {
                self.down = true;
                assert_eq!(
                    out.pending, 0,
                    "requests still pending after the upstream failed"
                );
                assert!(
                    self.waiting.is_empty(),
                    "the upstream failed and these requests got no answer: {:?}",
                    self.waiting
                );
            }
            Origin::Expire(now) => {
                assert!(
                    out.deadline.is_none_or(|d| d > *now),
                    "after expire at {now}, a deadline of {:?} is left",
                    out.deadline
                );
            }
            _ => {}
        }
        // A raw upstream line (not built from a template, so no expectation) that the guard took for the
        // answer to a batch member: its slot is filled now, as a built answer's would be.
        if let (None, Origin::Upstream(line)) = (&expect, origin) {
            // As the guard reads it: invalid UTF-8 repaired.
            let text = String::from_utf8_lossy(line);
            let id = match classify(&text) {
                Msg::Response { id: Some(id), .. } => Some(key(id.get())),
                _ => None,
            };
            if let Some(k) = id.filter(|_| out.pending + 1 == self.pending) {
                self.fill(&k);
            }
        }
        if let Some((k, alone)) = expect {
            if alone {
                assert!(
                    answered.contains(&k),
                    "the upstream answered {k}, and the client got no answer: {json}"
                );
            } else {
                assert_eq!(
                    out.pending + 1,
                    self.pending,
                    "the upstream answered batch member {k}; pending did not drop: {json}"
                );
                // One of its slots is filled now; the array that carries it reaches the client later (unless
                // it was the last slot: then the array went out in this very call and took the entry).
                self.fill(&k);
            }
        }
        assert!(
            out.pending <= self.forwarded,
            "{} pending, {} forwarded",
            out.pending,
            self.forwarded
        );
        assert!(
            out.pending >= self.owed_alone(),
            "{} pending, yet {} requests forwarded alone are owed an answer: one was dropped without one",
            out.pending,
            self.owed_alone()
        );
        assert!(
            out.pending <= self.owed(),
            "{} pending, only {} owed an answer",
            out.pending,
            self.owed()
        );
        assert_eq!(
            out.deadline.is_some(),
            self.timeout && out.pending > 0,
            "deadline {:?} with {} pending",
            out.deadline,
            out.pending
        );
        self.pending = out.pending;
    }

    /// A batch member's slot is filled: its answer waits for the rest of the array.
    fn fill(&mut self, k: &str) {
        if let Some(w) = self
            .waiting
            .get_mut(k)
            .and_then(|list| list.iter_mut().find(|w| matches!(w, Waiting::InBatch(_))))
        {
            if let Waiting::InBatch(n) = *w {
                *w = Waiting::Filled(n);
            }
        }
    }

    /// A client message the guard passed upstream: a request is now owed an answer.
    fn forwarded_to_upstream(&mut self, text: &str, how: Waiting) {
        assert!(
            !self.down,
            "forwarded to the upstream after it failed: {text}"
        );
        match classify(text) {
            Msg::Request { id, params } => {
                let k = key(id.get());
                // In flight until its answer reaches the client (a batch member's, in its array).
                let in_flight = self.waiting.get(&k).is_some_and(|w| !w.is_empty());
                assert!(
                    !in_flight,
                    "forwarded a request whose id {k} is already in flight: {text}"
                );
                self.waiting.entry(k).or_default().push(how);
                self.forwarded += 1;
                self.ids.push(id.get().to_string());
                let token = params
                    .and_then(RawObject::of)
                    .and_then(|p| p.get("_meta"))
                    .and_then(RawObject::of)
                    .and_then(|m| m.get("progressToken"));
                if let Some(t) = token {
                    self.tokens.push(t.get().to_string());
                }
            }
            Msg::Notification | Msg::Response { .. } => {}
            Msg::Batch(_) => panic!("forwarded a batch whole: {text}"),
            Msg::Other => panic!("forwarded something that is no JSON-RPC message: {text}"),
        }
    }

    /// A message that reached the client from the upstream, or an answer of the guard's own: an answer must
    /// be owed, and is then no longer.
    /// `last_answered`: the request the guard last reported answering in this call (after a failure or a
    /// deadline, the array that follows is the batch that answer completed).
    fn reached_client(
        &mut self,
        text: &str,
        origin: &Origin<'_>,
        last_answered: Option<&str>,
        answered: &mut Vec<String>,
    ) {
        let from_upstream = matches!(origin, Origin::Upstream(_));
        match classify(text) {
            Msg::Request { .. } | Msg::Notification => {
                assert!(
                    from_upstream,
                    "the guard itself wrote a call to the client: {text}"
                );
                if let Msg::Request { id, .. } = classify(text) {
                    self.server_ids.push(id.get().to_string());
                }
            }
            Msg::Response { id: None, .. } => {
                panic!("a response without an id reached the client: {text}")
            }
            // An upstream error about a request it could not read: sanitized and passed on, answering none.
            Msg::Response {
                id: Some(id),
                error,
            } if from_upstream && is_null(id) => {
                assert!(
                    error,
                    "a success response with a null id reached the client: {text}"
                );
            }
            Msg::Response { id: Some(id), .. } => {
                let k = key(id.get());
                assert!(self.take(&k, Waiting::Alone), "an answer to {k}, which is owed none (answered twice, or never forwarded): {text}");
                answered.push(k);
            }
            Msg::Batch(members) => {
                assert!(!members.is_empty(), "an empty array reached the client");
                let keys: Vec<String> = members
                    .iter()
                    .map(|m| match classify(m.get()) {
                        Msg::Response { id: Some(id), .. } => key(id.get()),
                        _ => panic!("a batch answer holds {}, which is no response", m.get()),
                    })
                    .collect();
                // One batch's array: the batch whose members account for every answer in it (an id can be in
                // flight in one batch and refused as a duplicate in a later one).
                // An upstream answer completes the batch of the request it answers (in flight in one batch
                // only); after a failure or a deadline, any batch that accounts for the answers will do.
                // The request whose answer completed the batch: the upstream's, or the guard's own (reported
                // just before the array); it is in flight in one batch only. Else any batch that accounts for
                // every answer in the array.
                let completed_by = match origin {
                    Origin::Upstream(line) => match classify(&String::from_utf8_lossy(line)) {
                        Msg::Response { id: Some(id), .. } => Some(key(id.get())),
                        _ => None,
                    },
                    _ => last_answered.map(str::to_string),
                };
                let completing = completed_by.and_then(|k| {
                    self.waiting
                        .get(&k)
                        .into_iter()
                        .flatten()
                        .find_map(|w| match w {
                            Waiting::InBatch(n) | Waiting::Filled(n) => Some(*n),
                            Waiting::Alone => None,
                        })
                });
                let batch = completing
                    .or_else(|| self.batch_answered_by(&keys))
                    .unwrap_or_else(|| {
                        panic!("a batch answer holding answers owed to no one batch: {text}")
                    });
                for k in keys {
                    if !self.take(&k, Waiting::Filled(batch))
                        && !self.take(&k, Waiting::InBatch(batch))
                    {
                        let allowance = self
                            .batch_replies
                            .get_mut(&(batch, k.clone()))
                            .filter(|n| **n > 0);
                        let Some(n) = allowance else {
                            panic!("batch {batch}'s array holds an answer to {k}, which it is not owed: {text}")
                        };
                        *n -= 1;
                    }
                    answered.push(k);
                }
                // The array goes out once, complete: nothing of that batch is owed any more.
                let left: Vec<&String> = self
                    .waiting
                    .iter()
                    .filter(|(_, w)| w.iter().any(|w| matches!(w, Waiting::InBatch(n) | Waiting::Filled(n) if *n == batch)))
                    .map(|(k, _)| k)
                    .collect();
                assert!(
                    left.is_empty(),
                    "batch {batch}'s array reached the client without answers to {left:?}: {text}"
                );
            }
            Msg::Other => {
                panic!("something that is no JSON-RPC message reached the client: {text}")
            }
        }
    }

    /// The batch whose members and replies can account for every one of `keys` (an array's answers).
    fn batch_answered_by(&self, keys: &[String]) -> Option<u32> {
        let first = keys.first()?;
        let mut candidates: Vec<u32> = self
            .waiting
            .get(first)
            .into_iter()
            .flatten()
            .filter_map(|w| match w {
                Waiting::InBatch(n) | Waiting::Filled(n) => Some(*n),
                Waiting::Alone => None,
            })
            .collect();
        candidates.extend(
            self.batch_replies
                .iter()
                .filter(|((_, k), c)| k == first && **c > 0)
                .map(|((n, _), _)| *n),
        );
        let slots = |n: u32, k: &String| {
            self.waiting.get(k).map_or(0, |w| {
                w.iter()
                    .filter(|w| matches!(w, Waiting::InBatch(b) | Waiting::Filled(b) if *b == n))
                    .count()
            })
        };
        candidates.into_iter().find(|&n| {
            // Every answer in the array is one of batch n's slots or replies, and every slot of batch n still
            // owed is in the array (it goes out complete).
            let accounted = keys.iter().all(|k| {
                let replies = self
                    .batch_replies
                    .get(&(n, k.clone()))
                    .copied()
                    .unwrap_or(0);
                keys.iter().filter(|x| *x == k).count() <= slots(n, k) + replies
            });
            let complete = self
                .waiting
                .keys()
                .all(|k| slots(n, k) <= keys.iter().filter(|x| *x == k).count());
            accounted && complete
        })
    }
}
