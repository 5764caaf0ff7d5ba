//! A session's upstream side: each line from the upstream, passed on byte for byte or rewritten (errors
//! sanitized, failed tool results redacted, a policy's scopes), delivered to the request it answers, its batch
//! slot or its stream; the upstream's own requests and progress.
use super::*;

impl Session {
    /// One line from the upstream's output (its newline removed).
    pub fn upstream_line(&mut self, line: &[u8], ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let (text, repaired) = match std::str::from_utf8(line) {
            Ok(t) => (Cow::Borrowed(t), false),
            Err(_) => (String::from_utf8_lossy(line), true),
        };
        if text.trim().is_empty() {
            call.event(
                Event::new(EventName::Dropped, "debug").detail("an empty line from the upstream"),
            );
            return self.finish(call);
        }
        let (text, source) = match text.strip_prefix(BYTE_ORDER_MARK) {
            // As from the client: read past a byte order mark, and pass the message on without it.
            Some(rest) => {
                call.event(
                    Event::new(EventName::Repaired, "debug")
                        .detail("a byte order mark before an upstream message removed"),
                );
                (rest, Source::Text(rest))
            }
            None if repaired => (&*text, Source::Text(&text)),
            None => (&*text, Source::Line(&text)),
        };
        // An upstream reached over HTTP hands over a body or an SSE event's data, which may hold line breaks:
        // passed on, they let the server write lines of its own to a line-framed client, past the session.
        let joined = one_line(text);
        let (text, source) = match &joined {
            Some(line) => {
                call.event(Event::new(EventName::Repaired, "debug").detail(
                    "line breaks between an upstream message's tokens written as spaces: one line",
                ));
                (line.as_str(), Source::Text(line))
            }
            None => (text, source),
        };
        self.upstream_text(text, source, repaired, &mut call);
        self.finish(call)
    }

    /// An upstream line's text (as one line, without a byte order mark): each message in it handled, what is
    /// no message dropped.
    fn upstream_text(&mut self, text: &str, source: Source<'_>, repaired: bool, call: &mut Call) {
        let env = crate::environment();
        let dropped = |call: &mut Call, detail: String| {
            call.event(Event::new(EventName::Dropped, "warn").detail(detail));
        };
        match message::parse(text) {
            Parsed::NotJson(why) => dropped(
                call,
                format!(
                    "a line from the upstream that is not JSON ({why}): {}",
                    excerpt(text, &env)
                ),
            ),
            Parsed::Scalar => dropped(
                call,
                format!(
                    "a JSON value from the upstream that is not a message: {}",
                    excerpt(text, &env)
                ),
            ),
            Parsed::Duplicate(name) => dropped(
                call,
                format!(
                    "an upstream message with member \"{name}\" twice: {}",
                    excerpt(text, &env)
                ),
            ),
            // MCP servers no longer send batches; a JSON-RPC server answering several requests at once may.
            // Each member is handled (and written) as a message of its own.
            Parsed::Batch(members) => {
                for member in members {
                    let text = member.get();
                    match message::parse(text) {
                        Parsed::Object(envelope) => {
                            self.upstream_message(&envelope, Source::Text(text), repaired, call)
                        }
                        _ => dropped(
                            call,
                            format!(
                                "an upstream batch member that is not a message: {}",
                                excerpt(text, &env)
                            ),
                        ),
                    }
                }
            }
            Parsed::Object(envelope) => self.upstream_message(&envelope, source, repaired, call),
        }
    }

    /// An upstream line longer than the shell's limit, discarded unread.
    /// `head` and `tail`: its first and last bytes as the shell saw them pass. A response whose id they show
    /// answers its pending request at once, with the guard's error (it waited for its timeout, and was then
    /// answered as one); a request of the upstream's whose id they show is refused to the upstream.
    pub fn upstream_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: CallContext,
    ) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let detail = format!("a line of {length} bytes from the upstream exceeds the guard's limit; discarded unread");
        call.event(Event::new(EventName::Dropped, "error").detail(&detail));
        let sniffed = sniff::sniff(head, tail);
        let Some(id) = sniffed
            .id
            .as_deref()
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok())
        else {
            return self.finish(call);
        };
        if sniffed.method {
            let data =
                json!({"reason": "oversize", "details": "the request exceeds the guard's limit"});
            refuse_to_upstream(&mut call, "invalid-request", message::value(id), data);
        } else if let Some(pending) = self.tables.take_pending(&message::id_key(id)) {
            let f = fields(&[(
                "message",
                json!(format!(
                    "the upstream's response of {length} bytes exceeds the guard's limit"
                )),
            )]);
            let revision = self.revision_for(pending.revision.as_deref());
            let a = self.answer(
                &mut call,
                "upstream-error",
                f,
                pending.id.clone(),
                Some(&pending.method),
                revision,
                detail,
            );
            call.event(a.event);
            self.deliver_answer(pending, a.response, &mut call);
        }
        self.finish(call)
    }

    /// Passes an upstream message to the client unchanged (on `stream`, when the session serves several).
    pub(super) fn pass(
        &self,
        source: Source<'_>,
        stream: Option<u64>,
        repaired: bool,
        call: &mut Call,
    ) {
        match source {
            Source::Line(_) => call.steps.push(Step::Forward {
                to: Peer::Client,
                stream,
            }),
            Source::Text(text) => call.send_to_client(stream, text.trim()),
        }
        if repaired {
            call.event(
                Event::new(EventName::Repaired, "warn")
                    .detail("invalid UTF-8 from the upstream replaced by U+FFFD"),
            );
        }
    }

    /// One upstream message (a whole line or a batch member): the upstream's own call, or an answer to a
    /// pending request (a response to nothing pending is dropped, an error without an id sanitized).
    pub(super) fn upstream_message(
        &mut self,
        envelope: &Envelope<'_>,
        source: Source<'_>,
        repaired: bool,
        call: &mut Call,
    ) {
        if envelope.method.is_some() {
            return self.upstream_call_message(envelope, source, repaired, call);
        }
        if !message::is_response(envelope) {
            let detail = format!(
                "an upstream message that is neither a call nor a response: {}",
                excerpt(source.text(), &crate::environment())
            );
            call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            return;
        }
        let Some(raw_id) = envelope.id.filter(|id| json_type(id) != JsonType::Null) else {
            self.upstream_error_without_id(envelope, source, call);
            return;
        };
        let key = message::id_key(raw_id);
        match self.tables.take_pending(&key) {
            Some(pending) => {
                self.upstream_answer(pending, envelope, source, raw_id, repaired, call)
            }
            None => self.unmatched_response(&key, raw_id, call),
        }
    }

    /// The upstream's own request or notification: relayed as it is, whatever its method, when it is a valid
    /// JSON-RPC call. One that is not (an object for an id, no version, a method that is no string) would break
    /// the client that reads it: it is dropped and, unless it is a notification, answered to the upstream with
    /// the error its peer would have given it (id null: its id is unusable). A fractional id too: no MCP client
    /// could answer it (see `message::fractional_id`).
    fn upstream_call_message(
        &mut self,
        envelope: &Envelope<'_>,
        source: Source<'_>,
        repaired: bool,
        call: &mut Call,
    ) {
        let env = crate::environment();
        let checked = message::check_request(envelope).and_then(|c| match c.id {
            Some(id) if message::fractional_id(id) => Err(message::Invalid {
                reason: "fractional-id",
                details: "id must be a string or an integer: MCP allows no fractional id",
            }),
            _ => Ok(c),
        });
        let checked = match checked {
            Ok(checked) => checked,
            Err(invalid) => {
                let detail = format!(
                    "an upstream call that is not valid JSON-RPC ({}): {}",
                    invalid.details,
                    excerpt(source.text(), &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
                if envelope.id.is_some() {
                    let data = json!({"reason": invalid.reason, "details": invalid.details});
                    refuse_to_upstream(call, "invalid-request", Value::Null, data);
                }
                return;
            }
        };
        let params = match message::RequestParams::read(envelope.params) {
            Ok(params) => params,
            Err(path) => {
                // A member the client's reader and the guard's could read two ways (a progress token):
                // not relayed; a request is refused to the upstream, which would otherwise wait for it.
                let what = match checked.id {
                    Some(_) => "request",
                    None => "notification",
                };
                let detail = format!(
                    "an upstream {what} with member \"{path}\" more than once: {}",
                    excerpt(source.text(), &env)
                );
                call.event(
                    Event::new(EventName::Dropped, "warn")
                        .method(&checked.method)
                        .detail(detail),
                );
                if let Some(id) = checked.id {
                    let data = json!({"reason": "duplicate-member",
                        "details": format!("member \"{path}\" appears more than once")});
                    refuse_to_upstream(call, "invalid-request", message::value(id), data);
                }
                return;
            }
        };
        self.upstream_call(&checked, &params, source, repaired, call);
    }

    /// A response whose id no request pending has: dropped, at the level its reason deserves (a late answer
    /// to a request the guard settled is expected; one to nothing at all is not).
    fn unmatched_response(&mut self, key: &str, raw_id: &RawValue, call: &mut Call) {
        let late = self
            .tables
            .settled
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, why)| *why);
        let (level, why) = match late {
            Some(Settled::TimedOut) => (
                "info",
                "a late response to a request the guard already answered (timeout)",
            ),
            Some(Settled::Cancelled) => ("debug", "a response to a request the client cancelled"),
            Some(Settled::Ended) => (
                "debug",
                "a streamed response after its stream's final event",
            ),
            None => ("warn", "a response to no pending request"),
        };
        let id = message::value(raw_id);
        call.event(Event::new(EventName::Dropped, level).id(&id).detail(why));
    }

    /// The upstream's answer to `pending`: passed on as it came, or rewritten (an error sanitized, a failed
    /// result redacted, a result in a scope the policy redacts), the policy's actions taken on what the
    /// rewriting found in one place ([`Session::deliver_rewrite`]). A response the guard cannot read is still
    /// owed its answer: its request is out of the pending table.
    fn upstream_answer(
        &mut self,
        pending: Pending,
        envelope: &Envelope<'_>,
        source: Source<'_>,
        raw_id: &RawValue,
        repaired: bool,
        call: &mut Call,
    ) {
        let rewrite = match read_answer(envelope, source, &self.options.settings.dialect) {
            Err((what, message)) => {
                return self
                    .deliver_unreadable(pending, &what, message, source, raw_id, repaired, call)
            }
            Ok(AnswerRead::Error(response)) => self.sanitized_answer(&pending, &response, call),
            Ok(AnswerRead::Result(result)) => {
                self.learn_from_result(&pending, envelope.result, &result);
                let scoped = pending.effective.as_deref().is_some_and(|e| {
                    policy::result_scope(&pending.method).is_some_and(|s| e.redacts(s))
                });
                if !result.is_error && !scoped {
                    let delivery = Delivery::Unchanged(envelope.result);
                    return self.deliver(pending, delivery, source, raw_id, repaired, call);
                }
                // Read whole, strictly: what is scanned is what the client reads. One that cannot be read one
                // way only is not passed on unscanned (it was, when too deeply nested to read).
                let response = match message::strict_value(source.text()) {
                    Ok(Value::Object(response)) => response,
                    unreadable => {
                        let what = match unreadable {
                            Err(message::Unreadable::Repeated(name)) => {
                                format!("an upstream result with member \"{name}\" more than once")
                            }
                            _ => "an upstream result too deeply nested to scan".to_string(),
                        };
                        return self.deliver_unreadable(
                            pending,
                            &what,
                            READ_ONE_WAY,
                            source,
                            raw_id,
                            repaired,
                            call,
                        );
                    }
                };
                match result.is_error {
                    true => self.redacted_failed_result(&pending, response),
                    false => self.redacted_result(&pending, response),
                }
            }
        };
        self.deliver_rewrite(
            pending,
            rewrite,
            envelope.result,
            source,
            raw_id,
            repaired,
            call,
        );
    }

    /// What a successful answer teaches the session: the revision an `initialize` handshake agreed on, and
    /// the tools a `tools/list` names (the names an event may label itself with: labels.rs).
    fn learn_from_result(
        &mut self,
        pending: &Pending,
        listing: Option<&RawValue>,
        result: &ResultMembers,
    ) {
        if pending.method == "initialize" {
            if let Some(revision) = result.protocol_version.as_deref() {
                self.revision = Some(revision.to_string());
            }
        }
        if let (Some(listing), "tools/list") = (listing, pending.method.as_str()) {
            self.listed_tools.learn(listing);
        }
    }

    /// An upstream error response sanitized for its request; under a policy, redacted under its options (the
    /// rules it audits found, but left in).
    fn sanitized_answer(
        &self,
        pending: &Pending,
        response: &serde_json::Map<String, Value>,
        call: &mut Call,
    ) -> Rewrite {
        let env = crate::environment();
        let ctx = call.next_ctx();
        let revision = self.revision_for(pending.revision.as_deref());
        let e = pending.effective.as_deref();
        let auditing = e.filter(|e| e.audits_any());
        let sanitized = |redaction: Option<std::sync::Arc<redact::Redactor>>,
                         found: Option<&mut Vec<String>>| {
            rewrite::sanitized_error(
                response,
                &self.options.settings.dialect,
                &pending.id,
                Some(&pending.method),
                revision,
                redaction,
                found,
                &ctx,
                &env,
            )
        };
        let mut found = Vec::new();
        if let Some(e) = auditing {
            sanitized(Some(e.redaction.clone()), Some(&mut found));
        }
        let quiet = e.map(|e| e.quiet.clone());
        let a = sanitized(quiet, auditing.is_none().then_some(&mut found));
        let found = found
            .into_iter()
            .map(|rule| {
                let category = catalogue_category(&rule).to_string();
                (rule, category)
            })
            .collect();
        Rewrite {
            found,
            rewritten: Some((Delivery::Rewritten(a.response), a.event)),
        }
    }

    /// A failed result (`isError`, an A2A agent's failed task) with its texts redacted and cut to the
    /// session's (or its tool's) length; under a policy that audits, the audited rules found but left in.
    fn redacted_failed_result(
        &self,
        pending: &Pending,
        mut response: serde_json::Map<String, Value>,
    ) -> Rewrite {
        let env = crate::environment();
        let e = pending.effective.as_deref();
        let limit = e
            .and_then(|e| e.failed_result_bytes)
            .unwrap_or(self.options.settings.failed_result_bytes) as usize;
        let (id, method) = (&pending.id, pending.method.as_str());
        let mut found = Vec::new();
        let default_redactor = redact::Redactor::default();
        let redacted = match e {
            // Audited rules are found under the whole policy but left in.
            Some(e) if e.audits_any() => {
                let original = Value::Object(response.clone());
                let mut probe = response.clone();
                let policy = &e.redaction;
                rewrite::redacted_tool_error(
                    &mut probe, id, method, &env, policy, None, &mut found,
                );
                let quiet = e.quiet_allowing(policy::audited_values(&original, &found, e));
                let limit = Some(limit);
                rewrite::redacted_tool_error(
                    &mut response,
                    id,
                    method,
                    &env,
                    &quiet,
                    limit,
                    &mut Vec::new(),
                )
            }
            _ => {
                let policy = e.map_or(&default_redactor, |e| &*e.redaction);
                let limit = Some(limit);
                rewrite::redacted_tool_error(
                    &mut response,
                    id,
                    method,
                    &env,
                    policy,
                    limit,
                    &mut found,
                )
            }
        };
        let rewritten = redacted.map(|(text, mut event)| {
            event.tool = e.and_then(|e| e.tool.clone());
            let mut rules: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
            crate::heap_sort::sort(&mut rules);
            rules.dedup();
            event.rule = (!rules.is_empty()).then(|| rules.join(","));
            (Delivery::RewrittenResult(text), event)
        });
        Rewrite {
            found: rules_found(&found),
            rewritten,
        }
    }

    /// A successful answer in a scope the policy redacts (tool results, resource contents, prompt messages);
    /// untouched when no rule finds anything.
    fn redacted_result(
        &self,
        pending: &Pending,
        mut response: serde_json::Map<String, Value>,
    ) -> Rewrite {
        let (Some(e), Some(result)) = (pending.effective.as_deref(), response.get_mut("result"))
        else {
            return Rewrite::default();
        };
        let (found, changed) = policy::redact_value(result, e, &crate::environment());
        let found = rules_found(&found);
        if !changed {
            return Rewrite {
                found,
                rewritten: None,
            };
        }
        let redacted = policy::decide(e, pairs(&found)).redacted;
        let mut event = Event::new(EventName::Redacted, "warn")
            .id(&pending.id)
            .method(&pending.method);
        event.detail = Some(format!(
            "a successful result, redacted: {}",
            redacted.join(", ")
        ));
        event.tool = e.tool.clone();
        event.rule = Some(redacted.join(","));
        response.insert("id".into(), pending.id.clone());
        let text = Value::Object(response).to_string();
        Rewrite {
            found,
            rewritten: Some((Delivery::RewrittenResult(text), event)),
        }
    }

    /// The one place the policy's actions are taken on an upstream answer: what rewriting it found is decided
    /// on (its events logged), and a `block` answers the request with the policy's refusal; else the answer is
    /// delivered, rewritten (its event logged) or as it came (`result`: its result, if it has one).
    #[allow(clippy::too_many_arguments)]
    fn deliver_rewrite(
        &mut self,
        pending: Pending,
        rewrite: Rewrite,
        result: Option<&RawValue>,
        source: Source<'_>,
        raw_id: &RawValue,
        repaired: bool,
        call: &mut Call,
    ) {
        if let Some(e) = pending.effective.as_deref() {
            let decision = enforce(
                call,
                e,
                pairs(&rewrite.found),
                Some(&pending.id),
                &pending.method,
            );
            if decision.blocked.is_some() {
                return self.deliver_blocked(pending, call);
            }
        }
        let delivery = match rewrite.rewritten {
            Some((delivery, event)) => {
                call.event(event);
                delivery
            }
            None => Delivery::Unchanged(result),
        };
        self.deliver(pending, delivery, source, raw_id, repaired, call);
    }

    /// A response the guard could not read (one way only): its request answered `upstream-error` instead.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn deliver_unreadable(
        &mut self,
        pending: Pending,
        what: &str,
        message: &str,
        source: Source<'_>,
        raw_id: &RawValue,
        repaired: bool,
        call: &mut Call,
    ) {
        let env = crate::environment();
        let detail = format!("{what}: {}", excerpt(source.text(), &env));
        let f = fields(&[("message", json!(message))]);
        let revision = self.revision_for(pending.revision.as_deref());
        let a = self.answer(
            call,
            "upstream-error",
            f,
            pending.id.clone(),
            Some(&pending.method),
            revision,
            detail,
        );
        call.event(a.event);
        self.deliver(
            pending,
            Delivery::Rewritten(a.response),
            source,
            raw_id,
            repaired,
            call,
        );
    }

    /// The upstream's own request or notification, valid JSON-RPC with its params read once: admitted (or
    /// answered, or dropped), its texts under the policy's scope, then relayed to the client stream it belongs
    /// to.
    pub(super) fn upstream_call(
        &mut self,
        checked: &message::Request<'_>,
        params: &message::RequestParams<'_>,
        source: Source<'_>,
        repaired: bool,
        call: &mut Call,
    ) {
        let progress = checked.id.is_none() && checked.method == "notifications/progress";
        let raw_token = params.get("progressToken").filter(|_| progress);
        let token = raw_token.map(message::id_key);
        if !self.admit_upstream_call(checked, token.as_deref(), call) {
            return;
        }
        // The request in flight a notification belongs to (progress, by its token).
        let owner = token.and_then(|t| self.tables.token_key(&t).cloned());
        if self.options.many_clients && checked.id.is_none() && owner.is_none() {
            // A notification that answers no request in flight (a log line, a list change, progress under
            // a token nobody owns): no stream caused it, and the others' clients are strangers to it.
            let detail = "a notification of the upstream's that no client stream owns (the session serves many clients)";
            call.event(
                Event::new(EventName::Dropped, "debug")
                    .method(&checked.method)
                    .detail(detail),
            );
            return;
        }
        let rewritten = match self.scoped(checked, owner.as_deref(), source, call) {
            Scoped::Untouched => None,
            Scoped::Rewritten(message) => Some(message),
            Scoped::Refused => return,
        };
        if let Some(id) = checked.id {
            let key = message::id_key(id);
            if !self.tables.server_requests.contains_key(&key)
                && self.tables.server_requests.len() >= SERVER_REQUEST_WINDOW
            {
                self.forget_oldest_server_request(call);
            }
            self.tables.add_server_request(key);
        }
        // Progress of a request that came on a stream goes there, with the client's token in place of the one
        // the upstream was given.
        if let (Some(raw), Some((stream, client_token))) = (
            raw_token,
            owner.as_deref().and_then(|k| self.stream_token(k)),
        ) {
            let line = match rewritten {
                Some(mut message) => {
                    if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                        let token = serde_json::from_str(&client_token).unwrap_or(Value::Null);
                        params.insert("progressToken".into(), token);
                    }
                    message.to_string()
                }
                None => streams::splice(source.text().trim(), &[(raw, client_token)]),
            };
            call.send_to_client(Some(stream), line);
            return;
        }
        match rewritten {
            Some(message) => {
                let text = message.to_string();
                self.pass(Source::Text(&text), self.own_stream(), repaired, call);
            }
            None => self.pass(source, self.own_stream(), repaired, call),
        }
    }

    /// Whether an upstream call goes on: a request no client can be asked is answered at once, progress for
    /// a request no longer in flight is dropped; progress for one in flight restarts its wait (`token`: its
    /// progress token, as a key).
    fn admit_upstream_call(
        &mut self,
        checked: &message::Request<'_>,
        token: Option<&str>,
        call: &mut Call,
    ) -> bool {
        match (checked.id, token) {
            // Its streams belong to different clients, and no stdio server says which request of theirs one
            // of its requests serves (neither official SDK writes a marker on the wire; MCP's stateless
            // revision has no way back to a client for it): no client can be asked it, nor answer it (a
            // stream that could would answer what another client's call raised). Answered at once, so that
            // the server is never left waiting for it.
            (Some(id), _) if self.options.many_clients => {
                let data = json!({"reason": "no-client",
                    "details": "the guard serves this server to many clients: no client can be asked a request of the server's"});
                let error = refuse_to_upstream(call, "method-not-found", message::value(id), data);
                let detail = format!("a request of the upstream's that no client can answer (the session serves many clients): answered {} at once", error.code);
                call.event(
                    Event::new(EventName::Dropped, "info")
                        .id(&message::value(id))
                        .method(&checked.method)
                        .detail(detail),
                );
                false
            }
            (None, Some(token))
                if !self.tables.progress.contains_key(token)
                    && self.tables.finished_tokens.iter().any(|t| t == token) =>
            {
                let detail =
                    "progress for a request no longer in flight (answered, timed out or cancelled)";
                call.event(
                    Event::new(EventName::Dropped, "debug")
                        .method("notifications/progress")
                        .detail(detail),
                );
                false
            }
            (None, Some(token)) => {
                self.progress_made(token, call.ctx.unix_millis);
                true
            }
            _ => true,
        }
    }

    /// A message of the upstream's own under its policy scope (`policy::message_scope`): its texts redacted,
    /// or the message refused (a `block` finding, or what cannot be read one way only: not relayed; a request
    /// is answered to the upstream). `owner`: the request in flight it belongs to, whose policy it falls
    /// under (its tool's overrides); else the policy's for the message's method.
    pub(super) fn scoped(
        &mut self,
        checked: &message::Request<'_>,
        owner: Option<&str>,
        source: Source<'_>,
        call: &mut Call,
    ) -> Scoped {
        let Some(scope) = policy::message_scope(&checked.method) else {
            return Scoped::Untouched;
        };
        let owned = owner
            .and_then(|k| self.tables.request(k))
            .and_then(|p| p.effective.as_deref().cloned());
        let Some(effective) =
            owned.or_else(|| Some(self.policy.as_mut()?.for_request(&checked.method, None)))
        else {
            return Scoped::Untouched;
        };
        if !effective.redacts(scope) {
            return Scoped::Untouched;
        }
        let env = crate::environment();
        // Read strictly: what is redacted must be what the client reads.
        let mut message = match message::strict_value(source.text()) {
            Ok(message @ Value::Object(_)) => message,
            _ => {
                let reason = "the guard could not read the message to redact it";
                let detail = format!(
                    "an upstream {} the policy's scope could not read one way only",
                    checked.method
                );
                return self.refuse_upstream_call(checked, source, reason, detail, call);
            }
        };
        let Some(params) = message.get_mut("params") else {
            return Scoped::Untouched;
        };
        let (found, changed) = policy::redact_message(params, scope, &effective, &env);
        let found = rules_found(&found);
        let id = checked.id.map(message::value);
        let decision = enforce(
            call,
            &effective,
            pairs(&found),
            id.as_ref(),
            &checked.method,
        );
        if decision.blocked.is_some() {
            let reason = "the message carries what the policy blocks";
            let detail = format!("an upstream {} blocked by the policy", checked.method);
            return self.refuse_upstream_call(checked, source, reason, detail, call);
        }
        if !changed {
            return Scoped::Untouched;
        }
        let mut event = Event::new(EventName::Redacted, "warn").method(&checked.method);
        if let Some(id) = &id {
            event = event.id(id);
        }
        event.detail = Some(format!(
            "the upstream's {}, redacted: {}",
            checked.method,
            decision.redacted.join(", ")
        ));
        event.tool = effective.tool.clone();
        event.rule = Some(decision.redacted.join(","));
        call.event(event);
        Scoped::Rewritten(message)
    }

    /// An upstream call its policy scope refuses: dropped, and a request answered to the upstream with the
    /// policy's refusal (`reason`), which would otherwise wait for it.
    fn refuse_upstream_call(
        &mut self,
        checked: &message::Request<'_>,
        source: Source<'_>,
        reason: &str,
        detail: String,
        call: &mut Call,
    ) -> Scoped {
        let env = crate::environment();
        call.event(
            Event::new(EventName::Dropped, "warn")
                .method(&checked.method)
                .detail(format!("{detail}: {}", excerpt(source.text(), &env))),
        );
        if let Some(id) = checked.id {
            let f = fields(&[("tool", json!(checked.method)), ("reason", json!(reason))]);
            let id = message::value(id);
            let a = self.answer(
                call,
                "policy-denied",
                f,
                id,
                Some(&checked.method),
                None,
                detail,
            );
            call.send(Peer::Upstream, a.response);
            call.event(a.event);
        }
        Scoped::Refused
    }

    /// The stream a request in flight (its key) came on, and the progress token its client wrote (raw JSON).
    pub(super) fn stream_token(&self, key: &str) -> Option<(u64, String)> {
        let origin = self.tables.request(key)?.origin.as_ref()?;
        let (client_token, _) = origin.token.as_ref()?;
        Some((origin.stream, client_token.clone()))
    }

    /// An error response with a null id (the upstream could not read some request): sanitized and passed on,
    /// since no pending request can be told to be its cause. Anything else without an id is dropped.
    pub(super) fn upstream_error_without_id(
        &mut self,
        envelope: &Envelope<'_>,
        source: Source<'_>,
        call: &mut Call,
    ) {
        let env = crate::environment();
        let parsed = serde_json::from_str::<Value>(source.text());
        match (envelope.error.is_some(), parsed) {
            // No stream can be told to be its cause: when the streams are many clients', none is told.
            (true, Ok(Value::Object(_))) if self.options.many_clients => {
                let detail = format!(
                    "an upstream error without an id, which no client stream owns (the session serves many clients): {}",
                    excerpt(source.text(), &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            }
            (true, Ok(Value::Object(response))) => {
                let ctx = call.next_ctx();
                let a = rewrite::sanitized_error(
                    &response,
                    &self.options.settings.dialect,
                    &Value::Null,
                    None,
                    None,
                    None,
                    None,
                    &ctx,
                    &env,
                );
                call.send_to_client(self.own_stream(), a.response);
                call.event(a.event);
            }
            _ => {
                let detail = format!(
                    "an upstream response without an id: {}",
                    excerpt(source.text(), &env)
                );
                call.event(Event::new(EventName::Dropped, "warn").detail(detail));
            }
        }
    }

    /// An upstream answer (or the guard's own) for a pending request, to the client or into its batch.
    /// `upstream_id`: the answer's id as the upstream wrote it (renamed back for a request from a stream).
    /// A result to a request that names a revision requiring `resultType` in its `_meta` (MCP's stateless
    /// revision, served by a handshake-era server) gets what that revision requires of it and it lacks
    /// (`completed_result`), the rest byte for byte; one that cannot be given it is answered -32022. A
    /// revision a handshake agreed on is the server's own: its results are as it agreed to write them.
    pub(super) fn deliver(
        &mut self,
        pending: Pending,
        delivery: Delivery<'_>,
        source: Source<'_>,
        upstream_id: &RawValue,
        repaired: bool,
        call: &mut Call,
    ) {
        // A streaming request's event: the last one only when it ends the stream (an error always does).
        let streaming = pending.streaming && pending.slot.is_none();
        let last = !streaming
            || match &delivery {
                Delivery::Rewritten(_) => true,
                _ => ends_stream(source.text()),
            };
        let Ok(delivery) = completed_delivery(&pending, delivery, source, upstream_id) else {
            return self.deliver_unsupported(pending, call);
        };
        let Some((batch_id, slot)) = pending.slot else {
            match delivery {
                Delivery::Unchanged(_) => {
                    self.pass(source, self.stream_of(&pending), repaired, call)
                }
                Delivery::Rewritten(text) | Delivery::RewrittenResult(text) => {
                    call.send_to_client(self.stream_of(&pending), text)
                }
            }
            if streaming {
                let key = message::id_key(upstream_id);
                match last {
                    true => self.end_stream(&pending, key, call),
                    false => {
                        let now = call.ctx.unix_millis;
                        let timeout = self.options.settings.timeout_ms;
                        self.tables.reinstate(key, pending, now, timeout);
                    }
                }
            }
            return;
        };
        let text = match delivery {
            Delivery::Unchanged(_) => source.text().trim().to_string(),
            Delivery::Rewritten(text) | Delivery::RewrittenResult(text) => text,
        };
        self.fill_slot(batch_id, slot, text, call);
    }

    /// A result the request's revision cannot be given (no object to carry `resultType`): MCP's unsupported
    /// protocol version (the taxonomy's `unsupported-protocol-version`), with the revision the upstream speaks
    /// (`data.supported`, when the handshake said) and the one asked for.
    pub(super) fn deliver_unsupported(&mut self, pending: Pending, call: &mut Call) {
        let requested = pending.revision.clone();
        let supported: Vec<Value> = self
            .revision
            .iter()
            .map(|r| Value::from(r.as_str()))
            .collect();
        let mut data = serde_json::Map::new();
        data.insert("supported".into(), Value::Array(supported));
        data.insert(
            "requested".into(),
            requested.as_deref().map_or(Value::Null, Value::from),
        );
        // MCP's own error, with the data MCP defines for it: told as MCP words it, whatever the dialect.
        let error =
            crate::error::ErrorObject::of_kind("unsupported-protocol-version", Some(data.into()));
        let response = crate::error::error_response(&error, pending.id.clone()).to_string();
        let mut event = Event::new(EventName::Answered, "warn")
            .id(&pending.id)
            .method(&pending.method)
            .detail(format!(
                "the upstream's result to {} cannot carry what revision {} requires (it is no object)",
                pending.method,
                requested.as_deref().unwrap_or("?")
            ));
        event.code = Some(error.code);
        call.event(event);
        self.deliver_answer(pending, response, call);
    }

    /// The policy's refusal in place of an answer it blocks (`policy-denied`, the taxonomy's policy gate).
    pub(super) fn deliver_blocked(&mut self, pending: Pending, call: &mut Call) {
        let tool = pending
            .effective
            .as_ref()
            .and_then(|e| e.tool.clone())
            .unwrap_or_else(|| pending.method.clone());
        let f = fields(&[
            ("tool", json!(tool)),
            ("reason", json!("the answer carries what the policy blocks")),
        ]);
        let revision = self
            .revision_for(pending.revision.as_deref())
            .map(str::to_string);
        let detail = format!(
            "the upstream's answer to {} blocked by the policy",
            pending.method
        );
        let a = self.answer(
            call,
            "policy-denied",
            f,
            pending.id.clone(),
            Some(&pending.method),
            revision.as_deref(),
            detail,
        );
        call.event(a.event);
        self.deliver_answer(pending, a.response, call);
    }

    /// The guard's own answer for a pending request (for a streaming one, the last thing its stream gets).
    pub(super) fn deliver_answer(&mut self, pending: Pending, response: String, call: &mut Call) {
        match pending.slot {
            Some((batch_id, slot)) => self.fill_slot(batch_id, slot, response, call),
            None => {
                call.send_to_client(self.stream_of(&pending), response);
                if pending.streaming {
                    call.steps.push(Step::End {
                        stream: self.stream_of(&pending),
                    });
                }
            }
        }
    }

    /// A streaming request settled by its final event (`key`: as the upstream knows it): its client stream
    /// ends, and its exchange is closed (the cancellation; A2A's way to stop reading a stream), since what the
    /// upstream sends after it is no part of it.
    pub(super) fn end_stream(&mut self, pending: &Pending, key: String, call: &mut Call) {
        self.tables.remember(key, Settled::Ended);
        if self.down.is_none() {
            let reason = "the stream's final event came (jsonrpc-errors guard)";
            cancel_upstream(pending, reason.into(), call);
        }
        call.steps.push(Step::End {
            stream: self.stream_of(pending),
        });
    }

    /// The upstream's response to request `id` (JSON text, as the upstream was sent it) ended: its stream
    /// closed, with nothing owed after it. A streaming request still pending that got events is settled
    /// (its client stream ends; nothing more is owed); one that got no answer at all is answered as an
    /// exchange cut short is; an id not pending is only logged (its answer came, or it was settled).
    pub fn upstream_exchange_ended(&mut self, id: &str, ctx: CallContext) -> Outcome {
        let key = serde_json::from_str::<&RawValue>(id)
            .ok()
            .map(message::id_key);
        let Some(pending) = key.as_deref().and_then(|k| self.tables.request(k)) else {
            let _env = self.scope();
            let mut call = Call::new(ctx);
            call.event(Event::new(EventName::Dropped, "debug").detail(
                "the upstream's response ended for a request no longer pending (answered, settled or cancelled)",
            ));
            return self.finish(call);
        };
        if !(pending.streaming && pending.events > 0) {
            let cut = RequestFailure::Unreachable(
                "the upstream's response ended before its answer".into(),
            );
            return self.upstream_request_failed(id, cut, ctx);
        }
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let key = key.expect("a pending request's key");
        if let Some(pending) = self.tables.take_pending(&key) {
            self.tables.remember(key, Settled::Ended);
            call.steps.push(Step::End {
                stream: self.stream_of(&pending),
            });
        }
        self.finish(call)
    }

    pub(super) fn fill_slot(&mut self, batch_id: u64, slot: usize, text: String, call: &mut Call) {
        let id = batch_id.to_string();
        let Some(batch) = self.tables.batch_mut(&id) else {
            return;
        };
        if batch.slots[slot].is_none() {
            batch.open -= 1;
        }
        batch.slots[slot] = Some(text);
        if batch.open == 0 {
            if let Some(batch) = self.tables.take_batch(&id) {
                for key in &batch.members {
                    self.tables.batch_members.remove(key);
                }
                for alias in &batch.aliases {
                    self.tables.aliases.remove(alias);
                }
                call.send_to_client(batch.stream, join_batch(batch.slots));
            }
        }
    }

    /// Progress for a request restarts its wait (the old deadline entry goes stale).
    pub(super) fn progress_made(&mut self, token: &str, now: u64) {
        let Some(key) = self.tables.token_key(token).cloned() else {
            return;
        };
        let default_timeout = self.options.settings.timeout_ms;
        // The table's field, not `request_mut`: the deadline heap is pushed to while `p` is held.
        let Some(Entry::Request(p)) = self.tables.pending.get_mut(&key) else {
            return;
        };
        let Some(timeout) = p
            .effective
            .as_ref()
            .and_then(|e| e.timeout_ms)
            .unwrap_or(default_timeout)
        else {
            return;
        };
        // Never past the policy's longest wait, progress or not.
        let new = p.latest.map_or(now.saturating_add(timeout), |l| {
            now.saturating_add(timeout).min(l)
        });
        if p.deadline.is_some_and(|old| old != new) {
            p.deadline = Some(new);
            self.tables.deadlines.push(Reverse((new, p.seq, key)));
            self.tables.compact_deadlines();
        }
    }
}

/// Whether an upstream message ends a streaming request's stream: an error, or a final event (`a2a.rs`).
fn ends_stream(text: &str) -> bool {
    match message::parse(text) {
        Parsed::Object(envelope) => envelope.result.is_none_or(a2a::final_event),
        _ => true,
    }
}

/// An answer for `pending` as its client gets it: the client's id back in place of the one the upstream was
/// given (a request that came on a stream), and a result with what the request's revision requires of it
/// (`completed_result`). Err: a result that cannot be given it (see [`Session::deliver_unsupported`]).
fn completed_delivery<'a>(
    pending: &Pending,
    delivery: Delivery<'a>,
    source: Source<'_>,
    upstream_id: &RawValue,
) -> Result<Delivery<'a>, ()> {
    let requires = rewrite::requires_result_type(pending.revision.as_deref());
    Ok(match delivery {
        Delivery::Unchanged(result) => {
            let mut parts: Vec<(&RawValue, String)> = Vec::new();
            if let Some(origin) = &pending.origin {
                parts.push((upstream_id, origin.client_id.clone()));
            }
            if let Some(result) = result.filter(|_| requires) {
                if let Some(completed) = completed_result(result, &pending.method)? {
                    parts.push((result, completed));
                }
            }
            if parts.is_empty() {
                Delivery::Unchanged(None)
            } else {
                Delivery::Rewritten(streams::splice(source.text().trim(), &parts))
            }
        }
        Delivery::RewrittenResult(text) if requires => {
            let completed = match message::parse(&text) {
                Parsed::Object(Envelope {
                    result: Some(result),
                    ..
                }) => completed_result(result, &pending.method)?
                    .map(|completed| streams::splice(&text, &[(result, completed)])),
                _ => None,
            };
            Delivery::Rewritten(completed.unwrap_or(text))
        }
        Delivery::RewrittenResult(text) => Delivery::Rewritten(text),
        other => other,
    })
}

/// What the client is told of an upstream response the guard could not read one way only.
const READ_ONE_WAY: &str = "the upstream's response could not be read one way only";

/// An upstream answer to a pending request, once read.
enum AnswerRead {
    /// A well-formed error response, read whole.
    Error(serde_json::Map<String, Value>),
    /// A result (or a response that is neither), with what the guard reads of it.
    Result(ResultMembers),
}

/// Reads an upstream answer: what the guard reads of its result, each member given once (a result read one
/// way by the guard and another by the client, `"isError": false, …, "isError": true`, is no result to pass
/// on), or its error response whole. Err: why it cannot be passed on (for the log, and for the client).
fn read_answer(
    envelope: &Envelope<'_>,
    source: Source<'_>,
    dialect: &str,
) -> Result<AnswerRead, (String, &'static str)> {
    let result = match envelope
        .result
        .map(|r| message::top_members(r, &RESULT_MEMBERS))
    {
        Some(Err(i)) => {
            let what = format!(
                "an upstream result with member \"{}\" more than once",
                RESULT_MEMBERS[i]
            );
            return Err((what, READ_ONE_WAY));
        }
        Some(Ok(members)) => ResultMembers::of(&members),
        None => ResultMembers::default(),
    };
    // An A2A agent's failed task is its error told as a result: redacted as a failed tool result is.
    let result = ResultMembers {
        is_error: result.is_error
            || (dialect == "a2a" && envelope.result.is_some_and(a2a::failed_task)),
        ..result
    };
    match (
        message::is_well_formed_response(envelope),
        envelope.error.is_some(),
    ) {
        (false, _) => Err((
            "not a valid JSON-RPC response".to_string(),
            "the upstream's response was not valid JSON-RPC",
        )),
        (true, false) => Ok(AnswerRead::Result(result)),
        // Well-formed, yet serde_json refuses the whole text: members nested deeper than its recursion
        // limit (found by cargo-fuzz: such a response got no answer); or a member repeated in it.
        (true, true) => match message::strict_value(source.text()) {
            Ok(Value::Object(response)) => Ok(AnswerRead::Error(response)),
            Err(message::Unreadable::Repeated(name)) => Err((
                format!("an upstream error response with member \"{name}\" more than once"),
                "the upstream's error response could not be read one way only",
            )),
            _ => Err((
                "an upstream error response too deeply nested to read".to_string(),
                "the upstream's error response could not be read",
            )),
        },
    }
}

/// What rewriting an upstream answer came to: what its redaction found, on which the policy's actions are
/// decided, and the answer to deliver in its place with the event that reports it (none: it passes as it came).
#[derive(Default)]
struct Rewrite {
    found: Vec<(String, String)>,
    rewritten: Option<(Delivery<'static>, Event)>,
}
