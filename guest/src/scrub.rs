//! The outbound scrubber: everything that leaves toward a client passes through [`scrub`].

use crate::redact;
use crate::redact::Secrets;
use crate::taxonomy::taxonomy;

/// Where a text longer than `limit` is cut so that the cut and the marker fit in `limit` bytes: the last
/// UTF-8 boundary at or before `limit - marker`.
fn cut_point(text: &str, limit: usize, marker: &str) -> usize {
    let mut end = limit.saturating_sub(marker.len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// Cuts `text` to at most `limit` bytes (marker included) at a UTF-8 boundary, appending the marker when cut.
pub fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let marker = &taxonomy().meta.truncation_marker;
    format!("{}{marker}", &text[..cut_point(text, limit, marker)])
}

/// Cuts `text` to at most `limit` bytes by taking out its middle: three quarters of what fits are its start,
/// a quarter its end, and a marker between says how many bytes went. For texts written for a reader who acts
/// on their end too (a failed tool result's guidance to the model). Cut at UTF-8 boundaries.
pub fn cut_middle(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    // The marker is sized for the most bytes that could go (the whole text): it never overflows `limit`.
    let room = limit.saturating_sub(format!("…[{} bytes cut]…", text.len()).len());
    let mut head = room * 3 / 4;
    while head > 0 && !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (room - head).min(text.len() - head);
    while tail < text.len() && !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}…[{} bytes cut]…{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// [`truncate`] in place.
fn truncate_owned(mut text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let marker = &taxonomy().meta.truncation_marker;
    text.truncate(cut_point(&text, limit, marker));
    text.push_str(marker);
    text
}

/// Invalid UTF-8 becomes U+FFFD.
pub fn repair_utf8(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Redacts (catalogue + the caller's secret environment values) and truncates to the taxonomy's limit.
pub fn scrub(text: &str, env: &Secrets) -> String {
    scrub_owned(text.to_string(), env)
}

/// [`scrub`] for a text the caller already owns: no copy when there is nothing to cut.
pub fn scrub_owned(text: String, env: &Secrets) -> String {
    scrub_owned_with(text, env, &redact::Redactor::default())
}

/// [`scrub`] under redaction options (a guard's policy file's: rules off, values allowed).
pub fn scrub_with(text: &str, env: &Secrets, redactor: &redact::Redactor) -> String {
    scrub_owned_with(text.to_string(), env, redactor)
}

/// [`scrub_owned`] under redaction options.
pub fn scrub_owned_with(text: String, env: &Secrets, redactor: &redact::Redactor) -> String {
    let redacted = redact::redact_owned(text, env, redactor);
    truncate_owned(redacted, taxonomy().meta.truncate_bytes)
}

/// Drops userinfo, query and fragment from a URL so no credential or token parameter survives.
pub fn strip_auth(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or(authority);
    format!("{scheme}{host}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_middle_cut_keeps_start_and_end_within_the_limit() {
        let text = format!(
            "{}{}{}",
            "start ",
            "é".repeat(5000),
            " the end: do not retry"
        );
        for limit in [64, 100, 1024, 8192] {
            let cut = cut_middle(&text, limit);
            assert!(cut.len() <= limit, "{limit}: {}", cut.len());
            assert!(
                cut.starts_with("start ") && cut.ends_with("retry") && cut.contains("bytes cut]"),
                "{cut}"
            );
        }
        assert!(cut_middle(&text, 200).ends_with("the end: do not retry"));
        assert_eq!(cut_middle("short", 8), "short");
    }

    #[test]
    fn truncation_respects_utf8_and_limit() {
        let text = "é".repeat(2000);
        let cut = truncate(&text, 1024);
        assert!(cut.len() <= 1024);
        assert!(cut.ends_with(&taxonomy().meta.truncation_marker));
        assert_eq!(truncate("short", 1024), "short");
    }

    #[test]
    fn strip_auth_removes_credentials() {
        assert_eq!(
            strip_auth("https://u:p@host:8080/a/b?token=x#f"),
            "https://host:8080/a/b"
        );
        assert_eq!(strip_auth("host/path"), "host/path");
    }

    #[test]
    fn repair_replaces_invalid_bytes() {
        assert_eq!(repair_utf8(b"a\xffb"), "a\u{fffd}b");
    }
}
