//! `--listen HOST:PORT` and the options that go with it.

use std::time::Duration;

/// `--listen` and the options that go with it.
#[derive(Debug, Clone)]
pub struct Listen {
    pub host: String,
    pub port: u16,
    /// The bearer token every MCP request must carry (`--auth-token-env VAR`: read once at start).
    pub token: Option<String>,
    pub allowed_origins: Vec<String>,
    pub max_sessions: usize,
    pub idle_timeout: Duration,
    pub max_streams: usize,
    pub max_connections: usize,
}

impl Listen {
    /// Parses `HOST:PORT` (an IP, bracketed for IPv6, or a name).
    pub fn parse_addr(text: &str) -> Result<(String, u16), String> {
        let bad = |why: &str| {
            format!("--listen {text:?}: {why} (expected HOST:PORT, e.g. 127.0.0.1:8080)")
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
        Ok((host.to_string(), port))
    }
}
