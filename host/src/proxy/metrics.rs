//! The guard's Prometheus metrics (`--metrics-addr`), served as text on any path.

use jsonrpc_errors_host::guard::{Event, Peer};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PeerLabels {
    pub peer: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WrittenLabels {
    pub to: String,
    /// "forwarded" (the line as read) or "generated" (written by the guard: answers, rewrites, batch
    /// members, cancellations).
    pub how: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub code: String,
    pub kind: String,
    pub category: String,
    pub gate: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EventLabels {
    pub event: String,
}

/// A policy file's decision: `decision` is blocked, audited, redacted or timed-out; `rule` the rule (or
/// category) that decided (empty for a timeout); `tool` the tool called (empty outside `tools/call`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DecisionLabels {
    pub decision: String,
    pub rule: String,
    pub tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpLabels {
    pub route: String,
    pub method: String,
    pub status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ExitLabels {
    pub how: String,
}

/// The longest label value (bytes): a value from outside the guard (a tool's name, a rule's) is cut there, at
/// a character boundary, so no client makes a series as large as it likes.
pub const LABEL_BYTES: usize = 128;

/// `text` as a label value, at most [`LABEL_BYTES`] long.
fn label(text: &str) -> String {
    let mut end = text.len().min(LABEL_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

fn latency_histogram() -> Histogram {
    // 10 µs .. ~5 s.
    Histogram::new(exponential_buckets(0.000_01, 2.0, 20))
}

pub struct Metrics {
    pub registry: Registry,
    read: Family<PeerLabels, Counter>,
    written: Family<WrittenLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    events: Family<EventLabels, Counter>,
    decisions: Family<DecisionLabels, Counter>,
    upstream_exits: Family<ExitLabels, Counter>,
    pending: Gauge,
    latency: Family<PeerLabels, Histogram, fn() -> Histogram>,
    log_dropped: Counter,
    http: Family<HttpLabels, Counter>,
    sessions: Gauge,
    sessions_evicted: Counter,
    streams: Gauge,
    streams_stalled: Counter,
    undeliverable_dropped: Counter,
    connections: Gauge,
    per_message: PerMessage,
}

/// The series every relayed line touches, each looked up in its family once (on first use, so a series
/// still appears only once it has counted something): a family lookup hashes and allocates its labels,
/// three times per line.
#[derive(Default)]
struct PerMessage {
    /// By peer (client, upstream).
    read: [OnceLock<Counter>; 2],
    /// By peer, then forwarded (0) or generated (1).
    written: [[OnceLock<Counter>; 2]; 2],
    latency: [OnceLock<Histogram>; 2],
    /// `http_responses` of POSTs to the MCP endpoint answered 200, 202.
    mcp_post: [OnceLock<Counter>; 2],
}

fn peer_index(peer: Peer) -> usize {
    match peer {
        Peer::Client => 0,
        Peer::Upstream => 1,
    }
}

pub fn peer_name(peer: Peer) -> &'static str {
    match peer {
        Peer::Client => "client",
        Peer::Upstream => "upstream",
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("jsonrpc_errors_guard");
        let read = Family::<PeerLabels, Counter>::default();
        registry.register(
            "lines_read",
            "Lines read, by the peer that wrote them",
            read.clone(),
        );
        let written = Family::<WrittenLabels, Counter>::default();
        registry.register(
            "messages_written",
            "Lines written, by destination and by whether the guard wrote them itself",
            written.clone(),
        );
        let errors = Family::<ErrorLabels, Counter>::default();
        registry.register(
            "errors",
            "Errors the client received that the guard answered or rewrote, by code, kind, category and gate",
            errors.clone(),
        );
        let events = Family::<EventLabels, Counter>::default();
        registry.register(
            "events",
            "Logged events, by name (answered, sanitized, redacted, dropped, ...)",
            events.clone(),
        );
        let decisions = Family::<DecisionLabels, Counter>::default();
        registry.register(
            "policy_decisions",
            "Decisions of the policy file, by decision (blocked, audited, redacted, timed-out), rule and tool",
            decisions.clone(),
        );
        let upstream_exits = Family::<ExitLabels, Counter>::default();
        registry.register(
            "upstream_exits",
            "Upstream endings (exited, killed, closed-output, spawn-failed); over stdio the guard never restarts an upstream",
            upstream_exits.clone(),
        );
        let pending = Gauge::default();
        registry.register(
            "pending_requests",
            "Client requests waiting for the upstream",
            pending.clone(),
        );
        let latency = Family::<PeerLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        registry.register(
            "added_latency_seconds",
            "Time from reading a line to writing what it became, by destination",
            latency.clone(),
        );
        let log_dropped = Counter::default();
        registry.register(
            "log_records_dropped",
            "Log records dropped because stderr was not read fast enough (logging never holds up the relay)",
            log_dropped.clone(),
        );
        let http = Family::<HttpLabels, Counter>::default();
        registry.register(
            "http_responses",
            "HTTP responses of guard --listen, by route, method and status",
            http.clone(),
        );
        let sessions = Gauge::default();
        registry.register(
            "open_sessions",
            "Legacy (initialize) HTTP sessions open, each with its own upstream",
            sessions.clone(),
        );
        let sessions_evicted = Counter::default();
        registry.register(
            "sessions_evicted",
            "Legacy HTTP sessions ended at --max-sessions to make room for a new one (the least recently used with nothing open)",
            sessions_evicted.clone(),
        );
        let streams = Gauge::default();
        registry.register(
            "open_streams",
            "HTTP response streams open (requests waiting for their answer, GET streams)",
            streams.clone(),
        );
        let streams_stalled = Counter::default();
        registry.register(
            "streams_stalled",
            "HTTP response streams closed because their client stopped taking what it was sent (its stream's budget ran out)",
            streams_stalled.clone(),
        );
        let undeliverable_dropped = Counter::default();
        registry.register(
            "undeliverable_dropped",
            "Upstream messages for no client stream that nothing could receive (the shared upstream has no stream of its own; a legacy session's backlog was full): dropped",
            undeliverable_dropped.clone(),
        );
        let connections = Gauge::default();
        registry.register(
            "open_connections",
            "HTTP connections open",
            connections.clone(),
        );
        Metrics {
            registry,
            read,
            written,
            errors,
            events,
            decisions,
            upstream_exits,
            pending,
            latency,
            log_dropped,
            http,
            sessions,
            sessions_evicted,
            streams,
            streams_stalled,
            undeliverable_dropped,
            connections,
            per_message: PerMessage::default(),
        }
    }

    pub fn line_read(&self, from: Peer) {
        self.per_message.read[peer_index(from)]
            .get_or_init(|| {
                self.read
                    .get_or_create(&PeerLabels {
                        peer: peer_name(from).into(),
                    })
                    .clone()
            })
            .inc();
    }

    pub fn written(&self, to: Peer, forwarded: bool) {
        self.per_message.written[peer_index(to)][usize::from(!forwarded)]
            .get_or_init(|| {
                let how = if forwarded { "forwarded" } else { "generated" };
                self.written
                    .get_or_create(&WrittenLabels {
                        to: peer_name(to).into(),
                        how: how.into(),
                    })
                    .clone()
            })
            .inc();
    }

    pub fn latency(&self, to: Peer, elapsed: Duration) {
        self.per_message.latency[peer_index(to)]
            .get_or_init(|| {
                self.latency
                    .get_or_create(&PeerLabels {
                        peer: peer_name(to).into(),
                    })
                    .clone()
            })
            .observe(elapsed.as_secs_f64());
    }

    pub fn event(&self, e: &Event) {
        self.events
            .get_or_create(&EventLabels {
                event: label(&e.event),
            })
            .inc();
        // A decision names its rule(s) (a redaction may name several, comma-separated) or, for a timeout
        // a tool's own override decided, its tool.
        let decision = match (e.event.as_str(), e.kind.as_deref()) {
            ("blocked" | "audited" | "redacted", _) if e.rule.is_some() => Some(e.event.as_str()),
            ("answered", Some("upstream-timeout")) if e.tool.is_some() => Some("timed-out"),
            _ => None,
        };
        if let Some(decision) = decision {
            let tool = label(e.tool.as_deref().unwrap_or_default());
            for rule in e.rule.as_deref().unwrap_or("").split(',') {
                let labels = DecisionLabels {
                    decision: decision.into(),
                    rule: label(rule),
                    tool: tool.clone(),
                };
                self.decisions.get_or_create(&labels).inc();
            }
        }
        if let Some(kind) = &e.kind {
            if matches!(e.event.as_str(), "answered" | "sanitized") {
                let labels = ErrorLabels {
                    code: e.code.map(|c| c.to_string()).unwrap_or_default(),
                    kind: label(kind),
                    category: label(e.category.as_deref().unwrap_or_default()),
                    gate: label(e.gate.as_deref().unwrap_or_default()),
                };
                self.errors.get_or_create(&labels).inc();
            }
        }
    }

    /// The counter the log writer increments for each record it had no room for.
    pub fn log_records_dropped(&self) -> Counter {
        self.log_dropped.clone()
    }

    pub fn upstream_ended(&self, how: &str) {
        self.upstream_exits
            .get_or_create(&ExitLabels { how: label(how) })
            .inc();
    }

    /// Client requests waiting changed by `delta` (every relay adds its own).
    pub fn add_pending(&self, delta: i64) {
        if delta != 0 {
            self.pending.inc_by(delta);
        }
    }

    /// One HTTP response, by route, method and status (the front passes labels from fixed sets).
    pub fn http_response(&self, route: &'static str, method: &'static str, status: u16) {
        // The MCP endpoint's answers to POSTs: looked up once (a lookup allocates three labels).
        if route == "/mcp" && method == "POST" {
            let common = match status {
                200 => Some(&self.per_message.mcp_post[0]),
                202 => Some(&self.per_message.mcp_post[1]),
                _ => None,
            };
            if let Some(cell) = common {
                cell.get_or_init(|| self.http_series(route, method, status))
                    .inc();
                return;
            }
        }
        self.http_series(route, method, status).inc();
    }

    fn http_series(&self, route: &'static str, method: &'static str, status: u16) -> Counter {
        self.http
            .get_or_create(&HttpLabels {
                route: route.into(),
                method: method.into(),
                status: status.to_string(),
            })
            .clone()
    }

    pub fn sessions(&self) -> &Gauge {
        &self.sessions
    }

    pub fn stream_stalled(&self) {
        self.streams_stalled.inc();
    }

    pub fn undeliverable_dropped(&self, n: u64) {
        self.undeliverable_dropped.inc_by(n);
    }

    pub fn session_evicted(&self) {
        self.sessions_evicted.inc();
    }

    pub fn streams(&self) -> &Gauge {
        &self.streams
    }

    pub fn connections(&self) -> &Gauge {
        &self.connections
    }

    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// Serves the metrics on `listener` until the guard exits.
/// Scrapes served at once; further connections wait in the kernel's backlog instead of holding descriptors
/// (a peer opening connections without end would otherwise take every descriptor the guard may have).
const MAX_CONNECTIONS: usize = 32;
/// How long a connection may take to send its request head, and to be served in all. Each connection
/// serves one scrape (no keep-alive), so an idle one cannot hold a slot for longer.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
const CONNECTION_DEADLINE: Duration = Duration::from_secs(15);
/// The pause after a failed accept (out of descriptors, say): it fails again at once until something
/// changes, and this loop runs on the thread that relays the session.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

pub async fn serve(listener: tokio::net::TcpListener, metrics: Arc<Metrics>) {
    use http_body_util::Full;
    use hyper::body::Bytes;
    use hyper::service::service_fn;
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut accept_failed = false;
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                if !accept_failed {
                    tracing::warn!(event = "metrics-accept-failed", detail = %e, "cannot accept a metrics connection; retrying every {ACCEPT_RETRY:?}");
                    accept_failed = true;
                }
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        accept_failed = false;
        let metrics = metrics.clone();
        tokio::spawn(async move {
            let service = service_fn(move |_request| {
                let body = metrics.encode();
                async move {
                    hyper::Response::builder()
                        .header(
                            "content-type",
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        )
                        .body(Full::new(Bytes::from(body)))
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_DEADLINE, connection).await;
            drop(slot);
        });
    }
}

/// `--metrics-addr`: a host (an IP, bracketed for IPv6, or a name) and a port; a name is resolved when the
/// guard binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsAddr {
    host: String,
    port: u16,
}

impl MetricsAddr {
    pub fn parse(text: &str) -> Result<MetricsAddr, String> {
        let bad = |why: &str| {
            format!("--metrics-addr {text:?}: {why} (expected HOST:PORT, e.g. 127.0.0.1:9464 or localhost:9464)")
        };
        let (host, port) = text.rsplit_once(':').ok_or_else(|| bad("no port"))?;
        let port = port
            .parse::<u16>()
            .map_err(|_| bad("the port is not a number from 0 to 65535"))?;
        let host = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Some(v6) => v6,
            None if host.contains(':') => return Err(bad("an IPv6 address must be in brackets")),
            None => host,
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(MetricsAddr {
            host: host.to_string(),
            port,
        })
    }
}

impl std::fmt::Display for MetricsAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.host.contains(':') {
            true => write!(f, "[{}]:{}", self.host, self.port),
            false => write!(f, "{}:{}", self.host, self.port),
        }
    }
}

/// Binds the metrics address before the upstream starts, so a bad address fails the guard at once. A name
/// that resolves to several addresses is bound on the first that works.
pub async fn bind(addr: &MetricsAddr) -> std::io::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind((addr.host.as_str(), addr.port)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_addresses_take_ips_names_and_bracketed_ipv6() {
        for (text, host, port) in [
            ("127.0.0.1:9464", "127.0.0.1", 9464),
            ("localhost:0", "localhost", 0),
            ("[::1]:80", "::1", 80),
        ] {
            assert_eq!(
                MetricsAddr::parse(text),
                Ok(MetricsAddr {
                    host: host.into(),
                    port
                }),
                "{text}"
            );
            assert_eq!(MetricsAddr::parse(text).unwrap().to_string(), text);
        }
        for bad in ["localhost", ":9464", "::1:80", "host:http", "host:70000"] {
            assert!(MetricsAddr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn label_values_are_capped_at_a_character_boundary() {
        assert_eq!(label("tool"), "tool");
        let long = "é".repeat(LABEL_BYTES);
        let cut = label(&long);
        assert!(
            cut.len() <= LABEL_BYTES && cut.len() >= LABEL_BYTES - 1,
            "{}",
            cut.len()
        );
        assert!(long.starts_with(&cut));
        let metrics = Metrics::new();
        let mut event = serde_json::from_str::<Event>(
            r#"{"event":"blocked","level":"warn","message":"m","rule":"r"}"#,
        )
        .unwrap();
        event.tool = Some("t".repeat(10_000));
        metrics.event(&event);
        assert!(
            metrics
                .encode()
                .lines()
                .all(|l| l.len() < 2 * LABEL_BYTES + 200),
            "a label over its cap"
        );
    }

    #[tokio::test]
    async fn a_host_name_is_resolved_when_bound() {
        let listener = bind(&MetricsAddr::parse("localhost:0").unwrap())
            .await
            .unwrap();
        assert!(listener.local_addr().unwrap().ip().is_loopback());
    }
}
