//! A candidate: one validated match of a rule (or an environment value) in a text, before overlaps are
//! resolved (`scan` gathers them, `apply` settles them).

use std::borrow::Cow;
use std::cmp::Ordering;

pub(super) struct Candidate {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) priority: usize,
    /// The rule's id and category: borrowed from the catalogue (which lives as long as the process), so
    /// that the many candidates of a text allocate nothing for them.
    pub(super) rule: Cow<'static, str>,
    pub(super) category: Cow<'static, str>,
    /// The rule's match ends at a delimiter of the text's structure (see `Rule::delimits`).
    pub(super) delimits: bool,
    /// Judged no secret (a placeholder, an allowlisted value): redacted only when it overlaps a redaction
    /// (see `apply`).
    pub(super) refused: bool,
}

/// The order `apply` sweeps candidates in: by start; at one start a secret before a refused value (the span
/// takes the secret's name), then by rule priority, then the longest first. Candidates equal in it (one
/// span of one rule) are interchangeable.
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.start
            .cmp(&other.start)
            .then(self.refused.cmp(&other.refused))
            .then(self.priority.cmp(&other.priority))
            .then(other.end.cmp(&self.end))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}
