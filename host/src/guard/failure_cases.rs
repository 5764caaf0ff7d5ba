// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

//! Each failure's case by the name the WIT gives it: the word a metric's label and a log use, so none
//! spells it by hand.

use super::{RequestFailure, UpstreamFailure};

impl UpstreamFailure {
    /// The case's name in `wit/world.wit` (`upstream-failure`).
    pub fn case_name(&self) -> &'static str {
        match self {
            UpstreamFailure::SpawnFailed(_) => "spawn-failed",
            UpstreamFailure::Exited(_) => "exited",
            UpstreamFailure::Killed(_) => "killed",
            UpstreamFailure::ClosedOutput => "closed-output",
        }
    }
}

impl RequestFailure {
    /// The case's name in `wit/world.wit` (`request-failure`).
    pub fn case_name(&self) -> &'static str {
        match self {
            RequestFailure::Unreachable(_) => "unreachable",
            RequestFailure::Refused(_) => "refused",
            RequestFailure::SessionGone => "session-gone",
        }
    }
}
