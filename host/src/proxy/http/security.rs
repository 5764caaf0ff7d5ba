//! Who may talk to the HTTP front: the `Origin` a browser sends must be on the allow-list (403), a front
//! bound to loopback answers only requests addressed to a loopback name (`Host`, against DNS rebinding:
//! 403), and with `--auth-token-env` every request to the MCP endpoint carries the bearer token (401;
//! compared in constant time). A request with two `Host` fields is malformed (RFC 9112: 400); one with two
//! `Origin` fields is refused (403): no browser sends two, and each would be checked against another rule.

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};

pub struct Access {
    /// Origins allowed besides none at all (non-browser clients send none). Empty: loopback origins only.
    pub allowed_origins: Vec<String>,
    /// The front listens on a loopback address: `Host` must name one.
    pub loopback_only: bool,
    /// SHA-256 of the bearer token, when one is required.
    token_digest: Option<[u8; 32]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 403: an `Origin` not on the allow-list.
    Origin,
    /// 403: a `Host` that is not a loopback name, on a front bound to loopback.
    Host,
    /// 401: no bearer token, or the wrong one.
    Token,
    /// 400: more than one `Host` field.
    HostRepeated,
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Equal in time independent of where the two differ (both are digests: their lengths are equal).
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let mut diff = 0u8;
    for i in 0..32 {
        diff |= std::hint::black_box(a[i] ^ b[i]);
    }
    diff == 0
}

/// Whether `host` (a `Host` header or an origin's authority, with or without a port) is a loopback name.
fn loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                authority
            }
        }),
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl Access {
    pub fn new(allowed_origins: Vec<String>, loopback_only: bool, token: Option<&str>) -> Access {
        let allowed_origins = allowed_origins
            .into_iter()
            .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
            .collect();
        Access {
            allowed_origins,
            loopback_only,
            token_digest: token.map(|t| digest(t.as_bytes())),
        }
    }

    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        if headers.get_all(header::HOST).iter().count() > 1 {
            return Err(Refusal::HostRepeated);
        }
        if headers.get_all(header::ORIGIN).iter().count() > 1 {
            return Err(Refusal::Origin);
        }
        if self.loopback_only {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("");
            if !loopback_authority(host) {
                return Err(Refusal::Host);
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin
                .to_str()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .map_err(|_| Refusal::Origin)?;
            let allowed = if self.allowed_origins.is_empty() {
                origin
                    .strip_prefix("http://")
                    .or_else(|| origin.strip_prefix("https://"))
                    .is_some_and(loopback_authority)
            } else {
                self.allowed_origins
                    .iter()
                    .any(|a| a == "*" || *a == origin)
            };
            if !allowed {
                return Err(Refusal::Origin);
            }
        }
        if let Some(expected) = &self.token_digest {
            let given = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| {
                    v.get(..7)
                        .filter(|s| s.eq_ignore_ascii_case("bearer "))
                        .map(|_| v[7..].trim())
                });
            match given {
                Some(token) if same(&digest(token.as_bytes()), expected) => {}
                _ => return Err(Refusal::Token),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn origins_hosts_and_tokens() {
        let open = Access::new(vec![], true, None);
        assert_eq!(open.check(&headers(&[("host", "127.0.0.1:8080")])), Ok(()));
        assert_eq!(open.check(&headers(&[("host", "localhost")])), Ok(()));
        assert_eq!(open.check(&headers(&[("host", "[::1]:80")])), Ok(()));
        assert_eq!(
            open.check(&headers(&[("host", "evil.example:8080")])),
            Err(Refusal::Host)
        );
        assert_eq!(
            open.check(&headers(&[
                ("host", "localhost:1"),
                ("origin", "http://localhost:3000")
            ])),
            Ok(())
        );
        assert_eq!(
            open.check(&headers(&[
                ("host", "localhost:1"),
                ("origin", "https://evil.example")
            ])),
            Err(Refusal::Origin)
        );
        let listed = Access::new(vec!["https://app.example/".into()], false, Some("s3cret"));
        let ok = [
            ("host", "mcp.example"),
            ("origin", "https://app.example"),
            ("authorization", "Bearer s3cret"),
        ];
        assert_eq!(listed.check(&headers(&ok)), Ok(()));
        assert_eq!(
            listed.check(&headers(&[
                ("host", "mcp.example"),
                ("authorization", "bearer s3cret")
            ])),
            Ok(())
        );
        assert_eq!(
            listed.check(&headers(&[
                ("origin", "http://localhost"),
                ("authorization", "Bearer s3cret")
            ])),
            Err(Refusal::Origin)
        );
        assert_eq!(
            listed.check(&headers(&[("authorization", "Bearer s3cre")])),
            Err(Refusal::Token)
        );
        assert_eq!(
            listed.check(&headers(&[("authorization", "Basic czNjcmV0")])),
            Err(Refusal::Token)
        );
        assert_eq!(listed.check(&headers(&[])), Err(Refusal::Token));
    }

    #[test]
    fn repeated_host_and_origin_fields_are_refused_whatever_their_values() {
        let open = Access::new(vec![], true, None);
        assert_eq!(
            open.check(&headers(&[("host", "localhost"), ("host", "localhost")])),
            Err(Refusal::HostRepeated)
        );
        assert_eq!(
            open.check(&headers(&[("host", "localhost"), ("host", "evil.example")])),
            Err(Refusal::HostRepeated)
        );
        assert_eq!(
            open.check(&headers(&[
                ("host", "localhost"),
                ("origin", "http://localhost"),
                ("origin", "https://evil.example")
            ])),
            Err(Refusal::Origin)
        );
        let anywhere = Access::new(vec!["*".into()], false, None);
        assert_eq!(
            anywhere.check(&headers(&[
                ("origin", "https://a.example"),
                ("origin", "https://b.example")
            ])),
            Err(Refusal::Origin)
        );
        assert_eq!(
            anywhere.check(&headers(&[("host", "a"), ("host", "b")])),
            Err(Refusal::HostRepeated)
        );
    }
}
