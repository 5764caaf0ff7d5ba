//! A server at a URL as the command line names it: where requests go, the guard's own headers for it (its
//! credentials), one connection pool for every relay, and the limits its messages are read with.

use super::client::{self, Client};
use super::url::Target;
use hyper::header::{HeaderName, HeaderValue};
use std::time::Duration;

/// What the server at the URL speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// MCP: Streamable HTTP in both eras, or HTTP+SSE.
    Mcp,
    /// A2A 1.0 over JSON-RPC: each request a POST with `A2A-Version: 1.0`, answered with JSON or (a streaming
    /// method) an SSE stream; no session, no handshake.
    A2a,
}

/// The A2A protocol version the guard speaks to an agent (its `A2A-Version` header).
pub const A2A_VERSION: &str = "1.0";

/// A server at a URL, and how the guard reaches it.
pub struct Spec {
    pub url: Target,
    pub protocol: Protocol,
    /// The guard's own headers for the upstream (`--upstream-header`): its credentials. Never a client's.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Everything above that may be a credential (header values, the URL's password and query values): the
    /// guard session redacts it wherever the upstream reflects it (`upstream-credentials`).
    pub credentials: Vec<String>,
    /// One pool of connections for every relay.
    pub client: Client,
    /// The longest message read (a JSON body, an SSE event's data); a longer one is discarded as it streams.
    pub max_upstream_bytes: usize,
    /// How long open exchanges get to finish once the relay stops the upstream.
    pub grace: Duration,
}

impl Spec {
    /// The upstream at `url`, with `headers` (`Name: env:VAR`, the value read from the environment, or
    /// `Name: value`) and the extra trusted certificates. Errors name no header value and no URL part.
    pub fn new(
        url: &str,
        protocol: Protocol,
        headers: &[String],
        ca: &[rustls_pki_types::CertificateDer<'static>],
        max_upstream_bytes: usize,
        grace: Duration,
    ) -> Result<Spec, String> {
        let url = Target::parse(url)?;
        let mut credentials = url.credentials.clone();
        let mut parsed = Vec::new();
        for spec in headers {
            let (name, value) = spec
                .split_once(':')
                .ok_or("--upstream-header must be 'Name: env:VAR' (or 'Name: value')")?;
            let name = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| "--upstream-header: not a header name".to_string())?;
            let value = value.trim();
            let value = match value.strip_prefix("env:") {
                Some(var) => std::env::var(var.trim()).map_err(|_| {
                    format!(
                        "--upstream-header {name}: environment variable {} is not set",
                        var.trim()
                    )
                })?,
                None => value.to_string(),
            };
            let value = value.trim();
            // The value, and the token after its scheme (`Bearer TOKEN`) as it also travels alone.
            credentials.push(value.to_string());
            if let Some((_, token)) = value.rsplit_once(' ') {
                credentials.push(token.to_string());
            }
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| format!("--upstream-header {name}: not a valid header value"))?;
            // Kept out of every Debug rendering (hyper's included).
            value.set_sensitive(true);
            parsed.push((name, value));
        }
        Ok(Spec {
            url,
            protocol,
            headers: parsed,
            credentials,
            client: client::build(ca)?,
            max_upstream_bytes,
            grace,
        })
    }
}
