//! The guard target's input and its model of a session.
//!
//! The payload is a script: one session call per line (a line never holds a newline, as the shell splits
//! what it reads on them), its first byte saying which. Raw lines are there for the fuzzer to mutate and for
//! the seeds (`tests/vectors/guard.json` converts line for line); built lines (`r`, `b`, `a`, `x`, `p`, `s`,
//! `S`) decode their bytes with `arbitrary` into a template and take their ids from what the session was
//! sent before, so requests get answered, cancelled, timed out and answered late without the fuzzer having
//! to spell matching ids.
//!
//! | line | call |
//! |---|---|
//! | `c` LINE | `client_line(LINE)` |
//! | `r` BYTES | `client_line` of a request or notification built from a [`RequestTemplate`] |
//! | `b` BYTES | `client_line` of a batch of [`Member`]s |
//! | `x` N | `client_line`: the client cancels the N-th request it sent (N: one byte) |
//! | `S` N | `client_line`: the client answers the upstream's N-th request |
//! | `o` DECIMAL | `client_oversize(DECIMAL)` |
//! | `u` LINE | `upstream_line(LINE)` |
//! | `a` BYTES | `upstream_line` of an answer built from an [`AnswerTemplate`] |
//! | `p` N | `upstream_line`: progress for the N-th progress token the client sent |
//! | `s` BYTES | `upstream_line`: the upstream's own request to the client (id from an [`IdChoice`]) |
//! | `O` DECIMAL | `upstream_oversize(DECIMAL)` |
//! | `f` `e`N / `k`N / `s`TEXT / `c` | `upstream_failed`: exited N, killed by N, could not start, closed output |
//! | `e` | `expire` |
//! | `t` DECIMAL | the clock: DECIMAL milliseconds after the header's time (no call) |
//! | `l` TEXT / `L` N TEXT | `upstream_log(TEXT)` / with secret N planted in its middle |
//! | `E` BYTES | `upstream_stderr(BYTES)`, each `~` in them a line break |
//! | `Z` | `upstream_stderr_end()` |
//! | `K` N C BYTES | `upstream_stderr` of BYTES (`~`: a line break) with secret N planted in their middle, given in two pieces cut at C/256 of the length (anywhere: inside the secret, inside a character), then `upstream_stderr_end()` |
//!
//! Any other line is skipped.
//!
//! Layout: ids and their keys in `ids`, the templates in `templates`, the script decoder in `script`, the
//! reference model in `model`.

mod ids;
mod model;
mod script;
mod templates;

pub use ids::key;
pub use model::*;
pub use script::*;
pub use templates::*;
