//! The guest's sorts, through the standard binary heap rather than `slice::sort*`.
//!
//! Each `sort_unstable` of a new element type (or comparator) instantiates the whole pattern-defeating
//! quicksort (its partitions, heapsort fallback and small-sort networks): ~4 KB of wasm per call site at
//! `opt-level = "z"`. A heap's `into_sorted_vec` is a few hundred bytes per type, and `BinaryHeap::from`
//! then `into_sorted_vec` sort in place, in O(n log n) with no allocation. For the sorts off the hot paths
//! (an object's member names, a finding's spans, a table's rows); redaction's candidates keep the slice's
//! own sort (see `redact::apply`).

use std::collections::BinaryHeap;

/// Sorts `items` ascending. Not stable: for values whose equal ones are interchangeable (or that carry
/// their original position as the last key).
pub(crate) fn sort<T: Ord>(items: &mut Vec<T>) {
    *items = BinaryHeap::from(std::mem::take(items)).into_sorted_vec();
}
