//! A session's client side: each line (or oversize line) from the client, whole or on a stream, judged and
//! forwarded, answered here, or split into a batch's members; the client's answers to the upstream's requests
//! and its cancellations.
use super::*;

impl Session {
    /// One line from the client (its newline removed).
    pub fn client_line(&mut self, line: &[u8], ctx: CallContext) -> Outcome {
        let _env = self.scope();
        self.client_line_from(None, line, ctx)
    }

    pub(super) fn client_line_from(
        &mut self,
        origin: Option<u64>,
        line: &[u8],
        ctx: CallContext,
    ) -> Outcome {
        let mut call = Call::new(ctx);
        call.origin = origin;
        if line.len() as u64 > self.options.settings.max_bytes {
            let edge = SNIFF_BYTES.min(line.len());
            self.reject_oversize(
                line.len() as u64,
                &line[..edge],
                &line[line.len() - edge..],
                &mut call,
            );
            return self.finish(call);
        }
        match std::str::from_utf8(line) {
            Err(e) => {
                let details = format!("invalid UTF-8 at byte {}", e.valid_up_to());
                self.reply(
                    &mut call,
                    "parse-error",
                    fields(&[("details", json!(details))]),
                    Value::Null,
                    details.clone(),
                );
            }
            Ok(text) if text.trim().is_empty() => {
                call.event(
                    Event::new(EventName::Dropped, "debug").detail("an empty line from the client"),
                );
            }
            Ok(text) => {
                // A byte order mark is no part of JSON (RFC 8259 §8.1): read past it, and the message goes on
                // without it, since the upstream's reader would refuse it as the guard's did.
                let (text, marked) = match text.strip_prefix(BYTE_ORDER_MARK) {
                    Some(rest) => {
                        call.event(
                            Event::new(EventName::Repaired, "debug")
                                .detail("a byte order mark before a client message removed"),
                        );
                        (rest, true)
                    }
                    None => (text, false),
                };
                let joined = one_line(text);
                if joined.is_some() {
                    call.event(Event::new(EventName::Repaired, "debug").detail(
                        "line breaks between a client message's tokens written as spaces: one line",
                    ));
                }
                match &joined {
                    Some(line) => self.client_text(line, Some(line), &mut call),
                    None if marked => self.client_text(text, Some(text), &mut call),
                    None => self.client_text(text, None, &mut call),
                }
            }
        }
        self.finish(call)
    }

    /// A line from client stream `stream` (an HTTP front's request, a session's GET stream; its newline
    /// removed). Requests are renamed for the upstream, their answers renamed back and sent on `stream`
    /// (streams.rs); from the first such line on, every step toward the client names its stream.
    pub fn client_line_on(&mut self, stream: u64, line: &[u8], ctx: CallContext) -> Outcome {
        let _env = self.scope();
        self.streams
            .get_or_insert_with(|| streams::Streams::new(ctx.entropy));
        self.client_line_from(Some(stream), line, ctx)
    }

    /// Client stream `stream` is gone before everything owed to it was written (an HTTP client that went
    /// away: for MCP's stateless revision, a request's cancellation): each request still pending on it is
    /// cancelled upstream and owed nothing.
    pub fn stream_closed(&mut self, stream: u64, ctx: CallContext) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        let on_stream = self.tables.requests_on_stream(stream);
        for key in on_stream {
            let Some(p) = self.tables.take_pending(&key) else {
                continue;
            };
            if let Some((batch_id, _)) = p.slot {
                if let Some(batch) = self.tables.take_batch(&batch_id.to_string()) {
                    for member in &batch.members {
                        self.tables.batch_members.remove(member);
                    }
                }
            }
            self.tables.remember(key, Settled::Cancelled);
            if self.down.is_none() {
                cancel_upstream(
                    &p,
                    "the client's stream closed (jsonrpc-errors guard)".into(),
                    &mut call,
                );
            }
            let event = Event::new(EventName::ClientCancelled, "debug")
                .id(&p.id)
                .method(&p.method);
            call.event(
                event.detail("the client's stream closed: cancelled upstream, no response is owed"),
            );
        }
        self.finish(call)
    }

    /// A client line longer than `max-bytes`, which the shell discarded unread: only its length is known.
    /// `head` and `tail`: the line's first and last bytes as the shell saw them pass (a few KiB each, or
    /// none), from which its id is read so that the answer carries it.
    pub fn client_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: CallContext,
    ) -> Outcome {
        let _env = self.scope();
        let mut call = Call::new(ctx);
        self.reject_oversize(length, head, tail, &mut call);
        self.finish(call)
    }

    /// Answers a client line too long to read. A request is answered with its own id when its head or tail
    /// shows it (the client can then match the answer; with `null` it waited for its own timeout), unless
    /// that id is in flight (the answer would be a second one for it). A response to one of the upstream's
    /// requests is answered to the upstream instead, which would otherwise wait for it for ever.
    pub(super) fn reject_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        call: &mut Call,
    ) {
        let details = format!("request exceeds {} bytes", self.options.settings.max_bytes);
        let detail = format!(
            "a client line of {length} bytes exceeds the limit of {} bytes; not read",
            self.options.settings.max_bytes
        );
        let sniffed = sniff::sniff(head, tail);
        let id = sniffed
            .id
            .as_deref()
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok());
        if sniffed.response && !sniffed.method {
            let key = id.map(message::id_key);
            if key
                .as_ref()
                .is_some_and(|k| self.tables.server_requests.remove(k).is_some())
                && self.down.is_none()
            {
                let data = json!({"reason": "oversize", "details": "the client's response exceeds the guard's limit"});
                refuse_to_upstream(
                    call,
                    "invalid-request",
                    id.map(message::value).unwrap_or(Value::Null),
                    data,
                );
            }
            call.event(
                Event::new(EventName::Dropped, "warn").detail(format!("{detail} (a response)")),
            );
            return;
        }
        let in_flight = |raw: &RawValue| {
            let key = message::id_key(raw);
            self.tables.pending.contains_key(&key) || self.tables.batch_members.contains_key(&key)
        };
        let id = id
            .filter(|raw| !in_flight(raw))
            .map(message::value)
            .unwrap_or(Value::Null);
        self.reply(
            call,
            "invalid-request",
            invalid_request("oversize", &details),
            id,
            detail,
        );
    }

    /// A client line's text; `rewritten`: the text to send in place of the line as read (when it was changed).
    pub(super) fn client_text(&mut self, text: &str, rewritten: Option<&str>, call: &mut Call) {
        let forward = |call: &mut Call| match rewritten {
            Some(text) => call.send(Peer::Upstream, text),
            None => call.steps.push(Step::Forward {
                to: Peer::Upstream,
                stream: None,
            }),
        };
        match message::parse(text) {
            Parsed::NotJson(details) => {
                self.reply(
                    call,
                    "parse-error",
                    fields(&[("details", json!(details))]),
                    Value::Null,
                    details.clone(),
                );
            }
            Parsed::Scalar => {
                let f = invalid_request("not-an-object", "a request must be a JSON object");
                self.reply(
                    call,
                    "invalid-request",
                    f,
                    Value::Null,
                    "a JSON value that is not an object".into(),
                );
            }
            Parsed::Duplicate(name) => {
                let details = format!("member \"{name}\" appears more than once");
                self.reply(
                    call,
                    "invalid-request",
                    invalid_request("duplicate-member", &details),
                    Value::Null,
                    details.clone(),
                );
            }
            Parsed::Batch(members) => self.client_batch(&members, call),
            Parsed::Object(envelope) => match self.client_message(&envelope, text, call) {
                Verdict::Forward => forward(call),
                Verdict::ForwardText(renamed) => call.send(Peer::Upstream, renamed),
                Verdict::Await(key, pending, renamed) => {
                    match renamed {
                        Some(text) => call.send(Peer::Upstream, text),
                        None => forward(call),
                    }
                    self.admit(key, pending, call);
                }
                Verdict::Reply(a) => {
                    call.send_to_client(call.origin, a.response);
                    call.event(a.event);
                }
                Verdict::Drop(event) => call.event(event),
            },
        }
    }

    /// A request just sent upstream, pending from now on: its deadline counted from this call's clock, under
    /// the policy's timeout for it (in `pending`), else the session's. Alone or as a batch's member, a request
    /// is admitted the same way.
    fn admit(&mut self, key: String, pending: Pending, call: &Call) {
        self.tables.register(
            key,
            pending,
            call.ctx.unix_millis,
            self.options.settings.timeout_ms,
        );
    }

    /// Decides one client message (a whole line or a batch member; `text`, which `envelope` was read from).
    pub(super) fn client_message(
        &mut self,
        envelope: &Envelope<'_>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        if message::is_response(envelope) {
            return self.client_response(envelope);
        }
        let checked = match message::check_request(envelope) {
            Ok(c) => c,
            Err(invalid) => {
                let id = message::readable_id(envelope);
                let detail = format!("invalid request: {}", invalid.details);
                let f = invalid_request(invalid.reason, invalid.details);
                return Verdict::Reply(self.answer(
                    call,
                    "invalid-request",
                    f,
                    id,
                    None,
                    None,
                    detail,
                ));
            }
        };
        // The members the guard reads, each given once (a repeated one is refused, never read one way of two).
        let params = message::RequestParams::read(envelope.params);
        match (checked.id, params) {
            (Some(raw_id), params) => {
                self.client_request(checked.method, raw_id, params, text, call)
            }
            (None, Ok(params)) => self.client_notification(&checked.method, &params, text, call),
            (None, Err(path)) => Verdict::Drop(
                Event::new(EventName::Dropped, "warn")
                    .method(&checked.method)
                    .detail(format!(
                        "a client notification with member \"{path}\" more than once"
                    )),
            ),
        }
    }

    /// A client request (`params`: its members the guard reads, or the one given twice): answered here when
    /// it cannot be forwarded, else awaited, its arguments redacted where the policy says so.
    fn client_request<'t>(
        &mut self,
        method: String,
        raw_id: &'t RawValue,
        params: Result<message::RequestParams<'t>, String>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        if let Some(refusal) = unanswerable_id(raw_id, &method) {
            return self.refuse(call, refusal, &method);
        }
        let id = message::value(raw_id);
        let in_flight = self.in_flight(call.origin, &message::id_key(raw_id));
        // A tool's `name` given twice skipped its `[[tool]]` override, `arguments` twice the `requests` scope's
        // redaction, a second `_meta.progressToken` slipped past the renaming: the servers read the last.
        let params = match params {
            Ok(params) => params,
            Err(path) => {
                let details = format!("member \"{path}\" appears more than once");
                let refusal = Refusal {
                    kind: "invalid-request",
                    fields: invalid_request("duplicate-member", &details),
                    id: if in_flight { Value::Null } else { id },
                    detail: details,
                };
                return self.refuse(call, refusal, &method);
            }
        };
        let meta = params.request_meta();
        if let Some(failure) = &self.down {
            let revision = self.revision_for(meta.protocol_version.as_deref());
            let failure = failure.clone();
            let a =
                self.upstream_gone_answer(call, failure, id, &method, revision, "arrived after");
            return Verdict::Reply(a);
        }
        let tool = policy::tool_name(&method, &params);
        if let Some(refusal) = self.refusal(&method, raw_id, &id, in_flight, tool.is_some()) {
            return self.refuse(call, refusal, &method);
        }
        let effective = self
            .policy
            .as_mut()
            .map(|p| Box::new(p.for_request(&method, tool.as_deref())));
        // What the client sends the server, redacted where the policy says so (the `requests` scope): a tool
        // call's arguments.
        let mut parts: Vec<(&RawValue, String)> = Vec::new();
        let arguments = params.get("arguments");
        let requests = effective
            .as_deref()
            .filter(|e| e.redacts(crate::policy::Scope::Requests));
        if let (Some(e), Some(raw)) = (requests, arguments) {
            match self.redacted_arguments(e, raw, &id, &method, tool.as_deref(), call) {
                Ok(Some(redacted)) => parts.push((raw, redacted)),
                Ok(None) => {}
                Err(answer) => return Verdict::Reply(*answer),
            }
        }
        let pending = Pending {
            id,
            streaming: a2a::streams(&self.options.settings.dialect, &method),
            events: 0,
            method,
            seq: 0,
            deadline: None,
            progress_token: meta.progress_token,
            revision: meta.protocol_version,
            slot: None,
            origin: None,
            effective,
            latest: None,
            arrived: 0,
        };
        self.await_request(pending, raw_id, &params, parts, text, call)
    }

    /// Answers a request here with `refusal`.
    fn refuse(&self, call: &mut Call, refusal: Refusal, method: &str) -> Verdict {
        let Refusal {
            kind,
            fields,
            id,
            detail,
        } = refusal;
        Verdict::Reply(self.answer(call, kind, fields, id, Some(method), None, detail))
    }

    /// Why a well-formed request (`id`: its id) is not forwarded, if it is not: its id is in flight, the
    /// policy file was refused (nothing is relayed without it), or under a policy a tool call names no tool
    /// (none, or not a string: refused rather than let past the `[[tool]]` it may have meant; the servers
    /// refuse it too).
    fn refusal(
        &self,
        method: &str,
        raw_id: &RawValue,
        id: &Value,
        in_flight: bool,
        names_tool: bool,
    ) -> Option<Refusal> {
        if in_flight {
            return Some(Refusal {
                kind: "invalid-request",
                fields: invalid_request(
                    "duplicate-id",
                    "a request with this id is already in flight",
                ),
                id: id.clone(),
                detail: format!("id {} is already in flight", raw_id.get()),
            });
        }
        if let Some(why) = &self.policy_error {
            return Some(Refusal {
                kind: "configuration-error",
                fields: fields(&[("details", json!("the guard's policy file is not valid"))]),
                id: id.clone(),
                detail: format!("the policy file was refused: {why}"),
            });
        }
        if self.policy.is_some() && method == rewrite::TOOL_CALL && !names_tool {
            return Some(Refusal {
                kind: "invalid-params",
                fields: fields(&[
                    ("param", json!("name")),
                    ("expected", json!("string")),
                    ("details", json!("a tool call names its tool by a string")),
                ]),
                id: id.clone(),
                detail: "a tools/call without a string name, refused under the policy".to_string(),
            });
        }
        None
    }

    /// A request's arguments under the policy's `requests` scope: `Some` redacted text when a rule changed
    /// them, `None` when none did; Err: the request's answer (the policy blocks what they carry, or they
    /// cannot be read one way only).
    fn redacted_arguments(
        &self,
        e: &crate::policy::Effective,
        raw: &RawValue,
        id: &Value,
        method: &str,
        tool: Option<&str>,
        call: &mut Call,
    ) -> Result<Option<String>, Box<Answer>> {
        // Read strictly: what is redacted must be what the server reads (a member repeated anywhere in the
        // arguments, or arguments too deeply nested to read, are refused, never passed unread).
        let mut arguments = match message::strict_value(raw.get()) {
            Ok(arguments) => arguments,
            Err(unreadable) => {
                return Err(Box::new(self.unreadable_arguments(
                    call,
                    unreadable,
                    id.clone(),
                    method,
                    tool,
                )))
            }
        };
        let (found, changed) = policy::redact_value(&mut arguments, e, &crate::environment());
        let found = rules_found(&found);
        let decision = enforce(call, e, pairs(&found), Some(id), method);
        if decision.blocked.is_some() {
            let f = fields(&[
                ("tool", json!(tool.unwrap_or(method))),
                (
                    "reason",
                    json!("the request carries what the policy blocks"),
                ),
            ]);
            let detail =
                format!("{method} not forwarded: the policy blocks what its arguments carry");
            let id = id.clone();
            let answer = self.answer(call, "policy-denied", f, id, Some(method), None, detail);
            return Err(Box::new(answer));
        }
        if !changed {
            return Ok(None);
        }
        let mut redacted = Event::new(EventName::Redacted, "warn")
            .id(id)
            .method(method);
        redacted.detail = Some(format!(
            "the request's arguments, redacted: {}",
            decision.redacted.join(", ")
        ));
        redacted.tool = e.tool.clone().or(tool.map(str::to_string));
        redacted.rule = Some(decision.redacted.join(","));
        call.event(redacted);
        Ok(Some(arguments.to_string()))
    }

    /// A request to forward and wait for (`parts`: what is written in place of what in its text). One that
    /// came on a stream is renamed for the upstream: ids (and progress tokens) of the session's own,
    /// unguessable, unique.
    fn await_request<'t>(
        &mut self,
        mut pending: Pending,
        raw_id: &'t RawValue,
        params: &message::RequestParams<'t>,
        mut parts: Vec<(&'t RawValue, String)>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        let key = message::id_key(raw_id);
        let Some(stream) = call.origin else {
            let renamed = (!parts.is_empty()).then(|| streams::splice(text, &parts));
            return Verdict::Await(key, pending, renamed);
        };
        let upstream_id = self.fresh_name(call.ctx.entropy, |t, key| {
            t.pending.contains_key(key) || t.batch_members.contains_key(key)
        });
        let raw_token = params.meta("progressToken");
        let token = raw_token.map(|raw| {
            let upstream = self.fresh_name(call.ctx.entropy, |t, key| t.progress.contains_key(key));
            (raw.get().to_string(), upstream)
        });
        parts.push((raw_id, json_string(&upstream_id)));
        if let (Some(raw), Some((_, upstream_token))) = (raw_token, &token) {
            parts.push((raw, json_string(upstream_token)));
            pending.progress_token = Some(json_string(upstream_token));
        }
        let renamed = streams::splice(text, &parts);
        let upstream_key = json_string(&upstream_id);
        pending.origin = Some(Origin {
            stream,
            alias: streams::alias(stream, &key),
            client_id: raw_id.get().to_string(),
            upstream_id,
            token,
        });
        Verdict::Await(upstream_key, pending, Some(renamed))
    }

    /// A name for the upstream (an id, a token) that `taken` says nothing in flight has: drawn from the
    /// streams' state (`Streams::draw`), again in the (2^-128) case it is taken.
    pub(super) fn fresh_name(
        &mut self,
        entropy: u64,
        taken: impl Fn(&pending::Tables, &str) -> bool,
    ) -> String {
        let streams = self
            .streams
            .get_or_insert_with(|| streams::Streams::new(entropy));
        loop {
            let name = streams.draw(entropy);
            if !taken(&self.tables, &json_string(&name)) {
                return name;
            }
        }
    }

    /// Whether a request id (its key) is in flight: from the moment it is forwarded until its answer reaches
    /// the client (on its own stream, for a request that came on one).
    pub(super) fn in_flight(&self, stream: Option<u64>, key: &str) -> bool {
        match stream {
            Some(stream) => self
                .tables
                .aliases
                .contains_key(&streams::alias(stream, key)),
            None => {
                self.tables.pending.contains_key(key) || self.tables.batch_members.contains_key(key)
            }
        }
    }

    /// The answer to a request whose arguments the `requests` scope could not read one way only.
    pub(super) fn unreadable_arguments(
        &self,
        call: &mut Call,
        unreadable: message::Unreadable,
        id: Value,
        method: &str,
        tool: Option<&str>,
    ) -> Answer {
        match unreadable {
            message::Unreadable::Repeated(name) => {
                let details =
                    format!("member \"{name}\" appears more than once in params.arguments");
                self.answer(
                    call,
                    "invalid-request",
                    invalid_request("duplicate-member", &details),
                    id,
                    Some(method),
                    None,
                    details.clone(),
                )
            }
            message::Unreadable::Invalid => {
                let f = fields(&[
                    ("tool", json!(tool.unwrap_or(method))),
                    (
                        "reason",
                        json!("the guard could not read the arguments to redact them"),
                    ),
                ]);
                let detail = format!(
                    "{method} not forwarded: its arguments are too deeply nested to redact"
                );
                self.answer(call, "policy-denied", f, id, Some(method), None, detail)
            }
        }
    }

    pub(super) fn client_notification(
        &mut self,
        method: &str,
        params: &message::RequestParams<'_>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        if self.down.is_some() {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .method(method)
                    .detail("a notification after the upstream failed"),
            );
        }
        if method == "notifications/cancelled" {
            if let Some(stream) = call.origin {
                return self.client_cancelled_on(stream, params, text, call);
            }
            if let Some(key) = params.get("requestId").map(message::id_key) {
                // A batch member's slot still waits for its answer (the array must stay whole), so only a
                // request of its own stops being owed one.
                if self.tables.request(&key).is_some_and(|p| p.slot.is_none()) {
                    if let Some(p) = self.tables.take_pending(&key) {
                        self.tables.remember(key, Settled::Cancelled);
                        let event = Event::new(EventName::ClientCancelled, "debug")
                            .id(&p.id)
                            .method(&p.method);
                        call.event(event.detail("cancelled by the client: no response is owed"));
                    }
                }
            }
        }
        Verdict::Forward
    }

    /// A cancellation that came on a stream: the request it names is that stream's, renamed upstream.
    pub(super) fn client_cancelled_on(
        &mut self,
        stream: u64,
        params: &message::RequestParams<'_>,
        text: &str,
        call: &mut Call,
    ) -> Verdict {
        let raw = params.get("requestId");
        // Its own stream's request; on a session whose streams are all one client's (a legacy session,
        // where each POST is a stream and a cancellation comes on one of its own), that client's request
        // on any of them. Never another client's.
        let upstream_key = raw.and_then(|r| {
            let client_key = message::id_key(r);
            self.tables
                .alias_key(&streams::alias(stream, &client_key))
                .or_else(|| {
                    (!self.options.many_clients)
                        .then(|| self.tables.alias_key_on_any_stream(&client_key))
                        .flatten()
                })
                .cloned()
        });
        let (Some(raw), Some(key)) = (raw, upstream_key) else {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .detail("a cancellation of no request in flight on its stream"),
            );
        };
        let Some(upstream_id) = self
            .tables
            .request(&key)
            .and_then(|p| p.origin.as_ref())
            .map(|o| json_string(&o.upstream_id))
        else {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .detail("a cancellation of no request in flight on its stream"),
            );
        };
        if self.tables.request(&key).is_some_and(|p| p.slot.is_none()) {
            if let Some(p) = self.tables.take_pending(&key) {
                self.tables.remember(key, Settled::Cancelled);
                let event = Event::new(EventName::ClientCancelled, "debug")
                    .id(&p.id)
                    .method(&p.method);
                call.event(event.detail("cancelled by the client: no response is owed"));
            }
        }
        Verdict::ForwardText(streams::splice(text, &[(raw, upstream_id)]))
    }

    /// Makes room for one more of the upstream's requests: the oldest the client has not answered is
    /// forgotten, and the operator told.
    pub(super) fn forget_oldest_server_request(&mut self, call: &mut Call) {
        if let Some(key) = self.tables.oldest_server_request() {
            self.tables.server_requests.remove(&key);
            let detail = format!(
                "the upstream has {SERVER_REQUEST_WINDOW} requests the client has not answered: the oldest is forgotten, and a client response to it will be dropped"
            );
            call.event(Event::new(EventName::Dropped, "warn").detail(&detail));
        }
    }

    /// A client's response to one of the upstream's requests.
    pub(super) fn client_response(&mut self, envelope: &Envelope<'_>) -> Verdict {
        // Nothing goes to an upstream that has failed, not even the answer to a request it made before it
        // went (found by cargo-fuzz: such an answer was still forwarded).
        if self.down.is_some() {
            return Verdict::Drop(
                Event::new(EventName::Dropped, "debug")
                    .detail("a client response after the upstream failed"),
            );
        }
        let key = envelope.id.map(message::id_key);
        match key.and_then(|k| self.tables.server_requests.remove(&k)) {
            Some(_) => Verdict::Forward,
            None => {
                let id = envelope.id.map(message::value).unwrap_or(Value::Null);
                Verdict::Drop(
                    Event::new(EventName::Dropped, "warn")
                        .id(&id)
                        .detail("a client response to no request of the upstream's"),
                )
            }
        }
    }

    pub(super) fn client_batch(&mut self, members: &[&RawValue], call: &mut Call) {
        if self.options.settings.batch == BatchPolicy::Reject {
            let f = invalid_request("batch-not-supported", "batch requests are not supported");
            self.reply(
                call,
                "invalid-request",
                f,
                Value::Null,
                "a batch (refused by the batch policy)".into(),
            );
            return;
        }
        if members.is_empty() {
            let f = invalid_request("empty-batch", "a batch must not be empty");
            self.reply(
                call,
                "invalid-request",
                f,
                Value::Null,
                "an empty batch".into(),
            );
            return;
        }
        self.tables.seq += 1;
        let batch_id = self.tables.seq;
        let stream = self.streams.as_ref().map(|_| call.origin.unwrap_or(0));
        let mut batch = Batch {
            slots: Vec::new(),
            open: 0,
            members: Vec::new(),
            stream,
            aliases: Vec::new(),
        };
        for member in members {
            let text = member.get();
            let verdict = self.batch_member(text, call);
            self.add_to_batch(&mut batch, batch_id, verdict, text, call);
        }
        if batch.open > 0 {
            self.tables.insert_batch(batch_id.to_string(), batch);
        } else if !batch.slots.is_empty() {
            call.send_to_client(batch.stream, join_batch(batch.slots));
        }
    }

    /// Decides one member of a client batch (`text`).
    fn batch_member(&mut self, text: &str, call: &mut Call) -> Verdict {
        let (reason, details, detail) = match message::parse(text) {
            Parsed::Object(envelope) => return self.client_message(&envelope, text, call),
            Parsed::Duplicate(name) => {
                let details = format!("member \"{name}\" appears more than once");
                ("duplicate-member", details.clone(), details)
            }
            _ => (
                "not-an-object",
                "a request must be a JSON object".to_string(),
                "a batch member that is not an object".to_string(),
            ),
        };
        let f = invalid_request(reason, &details);
        Verdict::Reply(self.answer(call, "invalid-request", f, Value::Null, None, None, detail))
    }

    /// What becomes of a batch member (`text`, judged `verdict`): forwarded, awaited in its slot of the
    /// batch's answer, answered in its slot, or dropped.
    fn add_to_batch(
        &mut self,
        batch: &mut Batch,
        batch_id: u64,
        verdict: Verdict,
        text: &str,
        call: &mut Call,
    ) {
        match verdict {
            Verdict::Forward => call.send(Peer::Upstream, text),
            Verdict::ForwardText(renamed) => call.send(Peer::Upstream, renamed),
            Verdict::Await(key, mut pending, renamed) => {
                pending.slot = Some((batch_id, batch.slots.len()));
                // A batch's array holds one answer per member: a member is answered once, streaming or not.
                pending.streaming = false;
                batch.slots.push(None);
                batch.open += 1;
                call.send(Peer::Upstream, renamed.as_deref().unwrap_or(text));
                if let Some(origin) = &pending.origin {
                    batch.aliases.push(origin.alias.clone());
                }
                self.tables.add_batch_member(key.clone());
                batch.members.push(key.clone());
                self.admit(key, pending, call);
            }
            Verdict::Reply(a) => {
                batch.slots.push(Some(a.response));
                call.event(a.event);
            }
            Verdict::Drop(event) => call.event(event),
        }
    }
}

/// A client request answered here rather than forwarded: the kind it is answered with, its fields, the id the
/// answer carries, and the operator's detail.
struct Refusal {
    kind: &'static str,
    fields: Fields,
    id: Value,
    detail: String,
}

/// A request id no answer could be matched to, answered here with a null id (the one answer every shell can
/// write). JSON-RPC allows a null id but no answer to it could be told from an error about an unreadable
/// request, and MCP forbids it (forwarded, it waited for the timeout, as the upstream's answer carried no id
/// to match). MCP ids are strings or integers: no MCP server could answer `1.5`, and a shell on an SDK could
/// not carry it either way (the Python proxy left it unanswered).
fn unanswerable_id(raw_id: &RawValue, method: &str) -> Option<Refusal> {
    let (reason, details, what) = if json_type(raw_id) == JsonType::Null {
        (
            "null-id",
            "id must not be null: an answer to it could not be matched",
            "null",
        )
    } else if message::fractional_id(raw_id) {
        (
            "fractional-id",
            "id must be a string or an integer: MCP allows no fractional id",
            "fractional",
        )
    } else {
        return None;
    };
    Some(Refusal {
        kind: "invalid-request",
        fields: invalid_request(reason, details),
        id: Value::Null,
        detail: format!("a {method} request with a {what} id"),
    })
}
