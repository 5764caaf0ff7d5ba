//! How a session's requests end without their answer: the upstream failed (every pending request answered,
//! every later one at once) or a deadline passed (answered, cancelled upstream).
use super::*;

impl Session {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn upstream_gone_answer(
        &self,
        call: &mut Call,
        failure: Failure,
        id: Value,
        method: &str,
        revision: Option<&str>,
        when: &str,
    ) -> Answer {
        let reason = failure.describe();
        let f = fields(&[
            ("url", json!(self.options.upstream)),
            ("reason", json!(reason)),
        ]);
        let detail = format!("{method} {when} {reason}");
        self.answer(
            call,
            "upstream-connection-failed",
            f,
            id,
            Some(method),
            revision,
            detail,
        )
    }

    /// The upstream can no longer answer: every pending request is answered, in the order it arrived, and
    /// every later request is answered at once. Only the first failure counts.
    pub fn upstream_failed(&mut self, failure: Failure, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        if self.down.is_some() {
            return self.finish(call);
        }
        let level = if failure == Failure::Exited(0) && self.tables.pending.is_empty() {
            "info"
        } else {
            "error"
        };
        let detail = format!(
            "{} ({} requests pending)",
            failure.describe(),
            self.tables.pending.len()
        );
        call.event(Event::new(EventName::UpstreamEnded, level).detail(detail));
        self.down = Some(failure.clone());
        // Answered in order of arrival: drained into a heap keyed by arrival (the deadline heap's type, so
        // no sort is instantiated for this one use).
        let mut table = std::mem::take(&mut self.tables.pending);
        let mut order: BinaryHeap<Reverse<(u64, u64, String)>> = table
            .iter()
            .filter_map(|(k, e)| {
                if let Entry::Request(p) = e {
                    Some(Reverse((p.seq, 0, k.clone())))
                } else {
                    None
                }
            })
            .collect();
        self.tables.deadlines.clear();
        self.tables.progress.clear();
        self.tables.server_requests.clear();
        while let Some(Reverse((_, _, key))) = order.pop() {
            let Some(Entry::Request(p)) = table.remove(&key) else {
                continue;
            };
            let revision = self.revision_for(p.revision.as_deref());
            let a = self.upstream_gone_answer(
                &mut call,
                failure.clone(),
                p.id.clone(),
                &p.method,
                revision,
                "was pending when",
            );
            let mut event = a.event;
            event.tool = p.effective.as_ref().and_then(|e| e.tool.clone());
            call.event(event);
            self.deliver_answer(*p, a.response, &mut call);
        }
        self.finish(call)
    }

    /// Answers every request whose deadline is at or before `ctx.unix_millis` (or within
    /// [`EXPIRE_EARLY_MS`] after it) with the timeout error, and cancels it upstream (except `initialize`,
    /// which MCP forbids cancelling).
    pub fn expire(&mut self, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let due = ctx.unix_millis.saturating_add(EXPIRE_EARLY_MS);
        while let Some(deadline) = self.tables.next_deadline() {
            if deadline > due {
                break;
            }
            let Some(Reverse((_, _, key))) = self.tables.deadlines.pop() else {
                break;
            };
            let Some(p) = self.tables.take_pending(&key) else {
                continue;
            };
            self.tables.remember(key, Settled::TimedOut);
            let cancel = p.method != "initialize" && self.down.is_none();
            // The request's own timeout (a tool's or method's override, else the session's), or the
            // policy's longest wait when that came first.
            let own = p
                .effective
                .as_ref()
                .and_then(|e| e.timeout_ms)
                .unwrap_or(self.options.timeout_millis);
            let capped = p.latest.filter(|&l| l == deadline);
            let timeout = match capped {
                Some(latest) => latest.saturating_sub(p.arrived),
                None => own.unwrap_or(0),
            };
            let secs = timeout.div_ceil(1000);
            let detail = format!(
                "no response within {timeout} ms{}{}",
                if capped.is_some() {
                    " (the policy's longest wait, progress or not)"
                } else {
                    ""
                },
                if cancel {
                    "; cancelled upstream"
                } else {
                    "; not cancelled (MCP forbids cancelling initialize)"
                }
            );
            let f = fields(&[("timeout_secs", json!(secs))]);
            let revision = self.revision_for(p.revision.as_deref());
            let a = self.answer(
                &mut call,
                "upstream-timeout",
                f,
                p.id.clone(),
                Some(&p.method),
                revision,
                detail,
            );
            if cancel {
                let reason = format!("no response within {secs}s (jsonrpc-errors guard)");
                // The id the upstream knows it by: renamed, for a request that came on a stream.
                let request_id = p
                    .origin
                    .as_ref()
                    .map_or_else(|| p.id.clone(), |o| json!(o.upstream_id));
                let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": request_id, "reason": reason}});
                call.send(Peer::Upstream, notification.to_string());
            }
            let mut event = a.event;
            event.tool = p.effective.as_ref().and_then(|e| e.tool.clone());
            call.event(event);
            self.deliver_answer(p, a.response, &mut call);
        }
        self.finish(call)
    }
}
