//! The guest's sorts, through the standard binary heap rather than `slice::sort*`.
//!
//! Each `sort_unstable` of a new element type (or comparator) instantiates the whole pattern-defeating
//! quicksort (its partitions, heapsort fallback and small-sort networks): ~4 KB of wasm per call site at
//! `opt-level = "z"`, ~20 KB over the npm base module's five sorts. A heap's `into_sorted_vec` is a few
//! hundred bytes per type, and `BinaryHeap::from` then `into_sorted_vec` sort in place, in O(n log n) with
//! no allocation. The sorts here are short (a text's candidates, an object's member names), so the
//! heapsort's constant factor does not show in the redaction bench.

use std::collections::BinaryHeap;

/// Sorts `items` ascending. Not stable: for values whose equal ones are interchangeable (or that carry
/// their original position as the last key).
pub(crate) fn sort<T: Ord>(items: &mut Vec<T>) {
    *items = BinaryHeap::from(std::mem::take(items)).into_sorted_vec();
}
