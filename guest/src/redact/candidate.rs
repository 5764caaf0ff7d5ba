//! A candidate: one validated match of a rule (or an environment value) in a text, before overlaps are
//! resolved (`scan` gathers them, `apply` settles them).

use std::borrow::Cow;

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
