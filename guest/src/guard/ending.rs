//! How a session's requests end without their answer: the upstream failed (every pending request answered,
//! every later one at once), one request's exchange with an upstream reached request by request failed (it
//! alone answered), or a deadline passed (answered, cancelled upstream).
use super::*;

impl Session {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn upstream_gone_answer(
        &self,
        call: &mut Call,
        failure: UpstreamFailure,
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
    pub fn upstream_failed(&mut self, failure: UpstreamFailure, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        if self.down.is_some() {
            return self.finish(call);
        }
        let level = if failure == UpstreamFailure::Exited(0) && self.tables.pending.is_empty() {
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

    /// Request `id` (JSON text, as the upstream was sent it) got no answer from an upstream reached request by
    /// request: it alone is answered, with the kind `failure` calls for. An id not pending is logged and
    /// answered nothing (a request is answered once: its answer, a timeout or an earlier failure came first).
    pub fn upstream_request_failed(
        &mut self,
        id: &str,
        failure: RequestFailure,
        ctx: CallContext,
    ) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let key = serde_json::from_str::<&RawValue>(id)
            .ok()
            .map(message::id_key);
        let Some(pending) = key.and_then(|key| self.tables.take_pending(&key)) else {
            call.event(
                Event::new(EventName::Dropped, "debug")
                    .detail("a failed exchange for a request no longer pending"),
            );
            return self.finish(call);
        };
        let (kind, f, why) = request_failure(&self.options.upstream, &failure);
        let detail = format!("{} {why}", pending.method);
        let revision = self.revision_for(pending.revision.as_deref());
        let a = self.answer(
            &mut call,
            kind,
            f,
            pending.id.clone(),
            Some(&pending.method),
            revision,
            detail,
        );
        let mut event = a.event;
        event.tool = pending.effective.as_ref().and_then(|e| e.tool.clone());
        call.event(event);
        self.deliver_answer(pending, a.response, &mut call);
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
                .unwrap_or(self.options.settings.timeout_ms);
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
                cancel_upstream(&p, reason, &mut call);
            }
            let mut event = a.event;
            event.tool = p.effective.as_ref().and_then(|e| e.tool.clone());
            call.event(event);
            self.deliver_answer(p, a.response, &mut call);
        }
        self.finish(call)
    }
}

/// The kind a failed exchange is answered with, its fields, and what the operator's log says of it. The
/// upstream's own words (an HTML error page, a proxy's text) are never among them: only its status.
fn request_failure(upstream: &str, failure: &RequestFailure) -> (&'static str, Fields, String) {
    let unreachable = |reason: String| {
        let f = fields(&[("url", json!(upstream)), ("reason", json!(reason))]);
        ("upstream-connection-failed", f, reason)
    };
    match failure {
        RequestFailure::Unreachable(reason) => {
            let (kind, f, why) = unreachable(reason.clone());
            (kind, f, format!("got no answer: {why}"))
        }
        RequestFailure::SessionGone => unreachable(
            "the upstream ended its session (HTTP 404) and no new one could be opened".into(),
        ),
        RequestFailure::Refused {
            status,
            retry_after_secs,
        } => match status {
            // Whose fault: the guard's own credential for the upstream (`--upstream-header`), never the
            // client's, which is not forwarded. Retrying will not help until the operator fixes it.
            401 | 403 => {
                let message = format!(
                    "the upstream refused the guard's credentials (HTTP {status}): the guard's configuration, not this request"
                );
                let f = fields(&[("message", json!(message))]);
                ("upstream-error", f, message)
            }
            429 => {
                let f = match retry_after_secs {
                    Some(secs) => fields(&[("retry_after_secs", json!(secs))]),
                    None => Fields::new(),
                };
                (
                    "rate-limited",
                    f,
                    format!("was refused HTTP {status} (rate limited)"),
                )
            }
            408 | 503 => {
                let reason = format!("the upstream is unavailable (HTTP {status})");
                let mut pairs = vec![("reason", json!(reason))];
                if let Some(secs) = retry_after_secs {
                    pairs.push(("retry_after_secs", json!(secs)));
                }
                ("service-unavailable", fields(&pairs), reason)
            }
            // A gateway in front of the upstream could not reach it.
            502 | 504 => unreachable(format!(
                "a gateway could not reach the upstream (HTTP {status})"
            )),
            _ => {
                let message =
                    format!("the upstream answered HTTP {status} and no JSON-RPC response");
                let f = fields(&[("message", json!(message))]);
                ("upstream-error", f, message)
            }
        },
    }
}
