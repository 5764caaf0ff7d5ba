//! The legacy transport's event stream as a link holds it (what [`super::legacy`] does with it is there).

use hyper::Uri;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// One event stream, and the requests posted on it awaiting their answer.
pub(super) struct Stream {
    /// Where messages are POSTed.
    pub(super) post: Uri,
    /// Requests posted and not answered: key → id as sent.
    pub(super) outstanding: Mutex<HashMap<String, String>>,
    /// Answers that are the guard's own (its `initialize` sent again): never handed to the relay.
    pub(super) own: Mutex<HashSet<String>>,
    pub(super) alive: AtomicBool,
    pub(super) reader: Mutex<Option<tokio::task::AbortHandle>>,
}
