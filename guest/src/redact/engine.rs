//! The engine: the built-in catalogue compiled once per process (its rules as a [`RuleSet`], the
//! environment's name pattern, the allowlist's markers).

use super::rules::{self, Catalogue};
use super::ruleset::{cannot_fail, RuleSet};
use super::validators;
use super::windows::LiteralSet;
use regex_lite::Regex;
use std::sync::OnceLock;

pub(super) struct Engine {
    pub(super) catalogue: Catalogue,
    pub(super) builtin: RuleSet,
    pub(super) env_name: Regex,
    /// The allowlist's markers, looked for in every candidate secret.
    markers: LiteralSet,
}

pub(super) fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut catalogue = rules::load();
        let builtin = RuleSet::new(std::mem::take(&mut catalogue.rules), true);
        let env_name = Regex::new(&catalogue.environment.name_pattern)
            .unwrap_or_else(|_| cannot_fail("environment.name_pattern compiles"));
        let markers = LiteralSet::new(&catalogue.allowlist.markers);
        Engine {
            catalogue,
            builtin,
            env_name,
            markers,
        }
    })
}

impl Engine {
    pub(super) fn allowlisted(&self, secret: &str) -> bool {
        let allow = &self.catalogue.allowlist;
        allow.values.iter().any(|v| v == secret)
            || validators::is_template(secret)
            || (!secret.contains(char::is_whitespace) && self.markers.found_in(secret))
    }
}
