//! Build time: lowers a redaction rule's pattern to a step program (see `src/redact/programs.rs`) when the
//! pattern is made only of what such a program runs exactly like regex-lite: literals, byte classes repeated
//! greedily where the greedy run can never have to give a byte back, ASCII word boundaries, text start and
//! end, capture groups, alternations (tried in order, backtracking only there), a group repeated greedily
//! (`(?:\.[a-z0-9-]+)*`, the labels of a domain; `(?:[a-z0-9]+[_.\-])*`, the parts of a key) whose body is
//! literals and such runs (the runner backtracks over its repetitions and remembers the positions that
//! failed), and, where whatever follows always matches, alternatives repeated greedily (a value's characters,
//! `${…}` and `{{…}}`) and a lazy run up to a literal. Anything else (a class that shares a byte with what
//! may follow it, a repeated group with groups inside, a lazy run elsewhere, Unicode classes) gets no program
//! and stays with regex-lite. The answer is written out as Rust static tables.

use regex_syntax::hir::{Class, Hir, HirKind, Look};
use std::fmt::Write;

/// A set of bytes.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Bytes([u64; 4]);

impl Bytes {
    fn add(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }
    fn union(&mut self, o: &Bytes) {
        for i in 0..4 {
            self.0[i] |= o.0[i];
        }
    }
    fn meets(&self, o: &Bytes) -> bool {
        (0..4).any(|i| self.0[i] & o.0[i] != 0)
    }
    fn word() -> Bytes {
        let mut w = Bytes::default();
        for b in (b'0'..=b'9')
            .chain(b'A'..=b'Z')
            .chain(b'a'..=b'z')
            .chain([b'_'])
        {
            w.add(b);
        }
        w
    }
    fn subset_of(&self, o: &Bytes) -> bool {
        (0..4).all(|i| self.0[i] & !o.0[i] == 0)
    }
    /// Non-ASCII bytes: none, or all of them (a class that takes some code points above ASCII but not others
    /// cannot be run byte by byte).
    fn high_is_all_or_none(&self) -> bool {
        let high = (self.0[2], self.0[3]);
        high == (0, 0) || high == (u64::MAX, u64::MAX)
    }
}

#[derive(Clone)]
enum Node {
    Bound,
    Start,
    End,
    Lit(Vec<u8>),
    /// ASCII letters compared case-insensitively, other bytes exactly (what `(?i)` makes of a literal).
    LitFold(Vec<u8>),
    Set {
        bytes: Bytes,
        min: u32,
        max: u32,
    },
    Save(usize),
    Alt(Vec<Vec<Node>>),
    /// A group repeated greedily, any number of times; its body consumes bytes and holds only literals, runs
    /// and boundaries (no group, no alternation), so each repetition can end in one place only.
    Star(Vec<Node>),
    /// A group of alternatives repeated greedily, at least `min` times, where whatever follows always
    /// matches: each repetition takes the first alternative that matches (alone), and the repetitions stop
    /// where none does. Never given back, since a match that ends sooner is never the first found.
    Loop {
        min: u32,
        alts: Vec<Vec<Node>>,
    },
    /// `[set]*?` and a literal (`\{\{[^\r\n]*?\}\}`'s tail), where whatever follows always matches: the
    /// shortest run of the set that the literal follows.
    Until {
        bytes: Bytes,
        lit: Vec<u8>,
    },
}

fn lower(hir: &Hir, out: &mut Vec<Node>) -> Option<()> {
    match hir.kind() {
        HirKind::Empty => {}
        HirKind::Literal(lit) => out.push(Node::Lit(lit.0.to_vec())),
        HirKind::Class(class) => out.push(Node::Set {
            bytes: class_bytes(class)?,
            min: 1,
            max: 1,
        }),
        HirKind::Look(Look::WordAscii) => out.push(Node::Bound),
        HirKind::Look(Look::Start) => out.push(Node::Start),
        HirKind::Look(Look::End) => out.push(Node::End),
        HirKind::Look(_) => return None,
        HirKind::Repetition(rep) => {
            if !rep.greedy {
                return None;
            }
            let max = rep.max.unwrap_or(u32::MAX);
            match rep.sub.kind() {
                HirKind::Class(class) => out.push(Node::Set {
                    bytes: class_bytes(class)?,
                    min: rep.min,
                    max,
                }),
                HirKind::Literal(lit) if lit.0.len() == 1 => {
                    let mut bytes = Bytes::default();
                    bytes.add(lit.0[0]);
                    out.push(Node::Set {
                        bytes,
                        min: rep.min,
                        max,
                    });
                }
                // `(?:...)?`: the group, else nothing.
                _ if rep.min == 0 && max == 1 => {
                    let mut once = Vec::new();
                    lower(&rep.sub, &mut once)?;
                    out.push(Node::Alt(vec![once, Vec::new()]));
                }
                // `(?:...)*`, `(?:...)+` and `(?:...){n,}` (the body n times, then any number more).
                _ if rep.min <= 255 && max == u32::MAX => {
                    let mut body = Vec::new();
                    lower(&rep.sub, &mut body)?;
                    let simple = body.iter().all(|n| {
                        matches!(
                            n,
                            Node::Bound | Node::Lit(_) | Node::LitFold(_) | Node::Set { .. }
                        )
                    });
                    if !simple {
                        // Alternatives (or one body) repeated: a Loop, if what follows allows one (checked later).
                        let alts = match <[Node; 1]>::try_from(body) {
                            Ok([Node::Alt(alts)]) => alts,
                            Ok([one]) => vec![vec![one]],
                            Err(body) => vec![body],
                        };
                        out.push(Node::Loop { min: rep.min, alts });
                        return Some(());
                    }
                    if min_len(&body) == 0 {
                        return None;
                    }
                    for _ in 0..rep.min {
                        out.extend(body.iter().cloned());
                    }
                    out.push(Node::Star(body));
                }
                _ => return None,
            }
        }
        HirKind::Capture(cap) => {
            out.push(Node::Save(2 * cap.index as usize));
            lower(&cap.sub, out)?;
            out.push(Node::Save(2 * cap.index as usize + 1));
        }
        HirKind::Concat(subs) => {
            let mut i = 0;
            while i < subs.len() {
                // A lazy run of a class and the literal it runs to: one step.
                if let (HirKind::Repetition(rep), Some(HirKind::Literal(lit))) =
                    (subs[i].kind(), subs.get(i + 1).map(|h| h.kind()))
                {
                    // The literal's first byte is ASCII: it never stands inside a character the run reads.
                    if let (false, 0, None, HirKind::Class(class), true) = (
                        rep.greedy,
                        rep.min,
                        rep.max,
                        rep.sub.kind(),
                        lit.0[0].is_ascii(),
                    ) {
                        out.push(Node::Until {
                            bytes: class_bytes(class)?,
                            lit: lit.0.to_vec(),
                        });
                        i += 2;
                        continue;
                    }
                }
                lower(&subs[i], out)?;
                i += 1;
            }
        }
        HirKind::Alternation(subs) => {
            let mut alts = Vec::new();
            for s in subs {
                let mut alt = Vec::new();
                lower(s, &mut alt)?;
                alts.push(alt);
            }
            out.push(Node::Alt(alts));
        }
    }
    Some(())
}

fn class_bytes(class: &Class) -> Option<Bytes> {
    let Class::Bytes(c) = class else { return None };
    let mut bytes = Bytes::default();
    for r in c.ranges() {
        for b in r.start()..=r.end() {
            bytes.add(b);
        }
    }
    bytes.high_is_all_or_none().then_some(bytes)
}

/// What may come right after a point: the bytes that may be read next, whether the match may end there
/// (through zero-width steps only), and whether a word boundary stands on that way to the end.
#[derive(Clone, Copy, Default)]
struct Next {
    bytes: Bytes,
    may_end: bool,
    bound_before_end: bool,
}

/// `Next` for `seq[from..]` followed by the continuation `cont` (innermost first).
fn next(seq: &[Node], from: usize, cont: &[(&[Node], usize)]) -> Next {
    let mut n = Next::default();
    let mut bound = false;
    let mut levels: Vec<(&[Node], usize)> = cont.to_vec();
    levels.push((seq, from));
    // Walk outward: the current sequence first, then each enclosing one after its Alt.
    while let Some((seq, from)) = levels.pop() {
        for (i, node) in seq.iter().enumerate().skip(from) {
            match node {
                Node::Bound => bound = true,
                Node::Start | Node::End | Node::Save(_) => {}
                Node::Lit(l) => {
                    n.bytes.add(l[0]);
                    return n;
                }
                Node::LitFold(l) => {
                    n.bytes.add(l[0]);
                    n.bytes.add(l[0].to_ascii_uppercase());
                    return n;
                }
                Node::Set { bytes, min, .. } => {
                    n.bytes.union(bytes);
                    if *min > 0 {
                        return n;
                    }
                }
                Node::Alt(alts) => {
                    let mut inner = levels.clone();
                    inner.push((seq, i + 1));
                    for alt in alts {
                        let a = next(alt, 0, &inner);
                        n.bytes.union(&a.bytes);
                        n.may_end |= a.may_end;
                        n.bound_before_end |= a.bound_before_end || (a.may_end && bound);
                    }
                    return n;
                }
                // Another repetition (whose body always reads a byte), or what follows the group.
                Node::Star(body) => n.bytes.union(&next(body, 0, &[]).bytes),
                Node::Loop { min, alts } => {
                    for alt in alts {
                        n.bytes.union(&next(alt, 0, &[]).bytes);
                    }
                    if *min > 0 {
                        return n;
                    }
                }
                Node::Until { bytes, lit } => {
                    n.bytes.union(bytes);
                    n.bytes.add(lit[0]);
                    return n;
                }
            }
        }
    }
    n.may_end = true;
    n.bound_before_end |= bound;
    n
}

/// Whether every greedy run in `seq` (inside `cont`) can be taken whole: what may follow it never starts
/// with one of its bytes, and a boundary right after it cannot be met by a shorter run.
fn possessive_safe(seq: &[Node], cont: &[(&[Node], usize)]) -> bool {
    let word = Bytes::word();
    for (i, node) in seq.iter().enumerate() {
        match node {
            Node::Set { bytes, min, max } if min < max => {
                let after = next(seq, i + 1, cont);
                if bytes.meets(&after.bytes) {
                    return false;
                }
                // A boundary after the run: a shorter run ends between two of its own bytes, which is a
                // boundary only if the class mixes word and non-word bytes (or the run may be empty).
                let bound_follows =
                    matches!(seq.get(i + 1), Some(Node::Bound)) || after.bound_before_end;
                let mixes_word_and_not = !bytes.subset_of(&word) && bytes.meets(&word);
                if bound_follows && (*min == 0 || mixes_word_and_not) {
                    return false;
                }
            }
            Node::Alt(alts) => {
                let mut inner = cont.to_vec();
                inner.push((seq, i + 1));
                if !alts.iter().all(|a| possessive_safe(a, &inner)) {
                    return false;
                }
            }
            // After the body comes the group again (another repetition, or what follows it): the
            // continuation is the group's own node.
            Node::Star(body) => {
                let mut inner = cont.to_vec();
                inner.push((seq, i));
                if !possessive_safe(body, &inner) {
                    return false;
                }
            }
            // A repetition's alternative runs alone (its own first match is taken): nothing follows it.
            Node::Loop { alts, .. } if !alts.iter().all(|a| possessive_safe(a, &[])) => {
                return false
            }
            _ => {}
        }
    }
    true
}

/// Whether `seq[from..]`, then the continuation, matches wherever it is tried (reading nothing, or what it
/// may): only group slots, optional runs, alternations with such an alternative, and optional repetitions.
fn always_matches(seq: &[Node], from: usize, cont: &[(&[Node], usize)]) -> bool {
    let own = seq[from..].iter().all(|n| match n {
        Node::Save(_) | Node::Star(_) | Node::Set { min: 0, .. } | Node::Loop { min: 0, .. } => {
            true
        }
        Node::Alt(alts) => alts.iter().any(|a| always_matches(a, 0, &[])),
        _ => false,
    });
    own && cont.iter().all(|&(s, f)| always_matches(s, f, &[]))
}

/// Loops and lazy runs stand only where whatever follows them always matches (the first match they find is
/// then the regex's), and a loop's alternatives each read a byte and record no group.
fn loops_are_sound(seq: &[Node], cont: &[(&[Node], usize)]) -> bool {
    seq.iter().enumerate().all(|(i, n)| match n {
        Node::Loop { alts, .. } => {
            always_matches(seq, i + 1, cont)
                && alts
                    .iter()
                    .all(|a| min_len(a) > 0 && !records_or_repeats(a) && loops_are_sound(a, &[]))
        }
        Node::Until { .. } => always_matches(seq, i + 1, cont),
        Node::Alt(alts) => {
            let mut inner = cont.to_vec();
            inner.push((seq, i + 1));
            alts.iter().all(|a| loops_are_sound(a, &inner))
        }
        _ => true,
    })
}

fn records_or_repeats(seq: &[Node]) -> bool {
    seq.iter().any(|n| match n {
        Node::Save(_) | Node::Star(_) | Node::Loop { .. } => true,
        Node::Alt(alts) => alts.iter().any(|a| records_or_repeats(a)),
        _ => false,
    })
}

/// The least number of bytes a match takes.
fn min_len(seq: &[Node]) -> usize {
    seq.iter()
        .map(|n| match n {
            Node::Lit(l) | Node::LitFold(l) => l.len(),
            Node::Set { min, .. } => *min as usize,
            Node::Alt(alts) => alts.iter().map(|a| min_len(a)).min().unwrap_or(0),
            Node::Loop { min, alts } => {
                *min as usize * alts.iter().map(|a| min_len(a)).min().unwrap_or(0)
            }
            Node::Until { lit, .. } => lit.len(),
            _ => 0,
        })
        .sum()
}

/// Repeated groups stand in the program's own sequence (not in an alternative). The runner tries what
/// follows after each repetition count, most first, and remembers the positions from which that failed
/// (`src/redact/programs.rs`), so no position is tried twice whatever the tail.
fn repetitions_are_unnested(seq: &[Node]) -> bool {
    seq.iter().all(|n| match n {
        Node::Alt(alts) => !alts.iter().any(|a| has_star(a)),
        _ => true,
    })
}

fn has_star(seq: &[Node]) -> bool {
    seq.iter().any(|n| match n {
        Node::Star(_) => true,
        Node::Alt(alts) => alts.iter().any(|a| has_star(a)),
        _ => false,
    })
}

/// The one byte a single-byte set stands for, folded: `Some((b, false))` for {b}, `Some((lower, true))` for an
/// ASCII letter in both cases.
fn literal_byte(bytes: &Bytes) -> Option<(u8, bool)> {
    let members: Vec<u8> = (0..=255u8)
        .filter(|b| bytes.0[(b >> 6) as usize] & (1 << (b & 63)) != 0)
        .collect();
    match members[..] {
        [b] => Some((b, false)),
        [upper, lower] if upper.is_ascii_uppercase() && lower == upper.to_ascii_lowercase() => {
            Some((lower, true))
        }
        _ => None,
    }
}

/// Runs of single-character steps become one literal step (exact, or folded when any letter is folded);
/// smaller tables, fewer steps.
fn fold_literals(seq: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    for node in seq {
        let piece = match &node {
            Node::Lit(l) => Some((l.clone(), false)),
            Node::Set {
                bytes,
                min: 1,
                max: 1,
            } => literal_byte(bytes).map(|(b, fold)| (vec![b], fold)),
            _ => None,
        };
        let Some((piece, fold)) = piece else {
            out.push(match node {
                Node::Alt(alts) => Node::Alt(alts.into_iter().map(fold_literals).collect()),
                Node::Star(body) => Node::Star(fold_literals(body)),
                Node::Loop { min, alts } => Node::Loop {
                    min,
                    alts: alts.into_iter().map(fold_literals).collect(),
                },
                other => other,
            });
            continue;
        };
        // Exact and folded pieces join only where folding changes nothing: no letter on the exact side.
        let no_letters = |l: &[u8]| !l.iter().any(u8::is_ascii_alphabetic);
        match out.last_mut() {
            Some(Node::Lit(l)) if !fold => l.extend(piece),
            Some(Node::LitFold(l)) if fold || no_letters(&piece) => l.extend(piece),
            Some(Node::Lit(l)) if no_letters(l) => {
                let mut joined = std::mem::take(l);
                joined.extend(piece);
                *out.last_mut().unwrap() = Node::LitFold(joined);
            }
            _ => out.push(if fold {
                Node::LitFold(piece)
            } else {
                Node::Lit(piece)
            }),
        }
    }
    out
}

/// The program for `pattern`, or None when it must stay with regex-lite.
fn program(pattern: &str) -> Option<Vec<Node>> {
    // regex-lite's semantics: ASCII classes, ASCII case folding, ASCII `\b`; a negated class takes every code
    // point it does not list, i.e. every non-ASCII byte here.
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    let mut seq = vec![Node::Save(0)];
    lower(&hir, &mut seq)?;
    seq.push(Node::Save(1));
    // Group slots: a program records at most 8 groups (programs.rs keeps 16 slots).
    let slots_fit = max_slot(&seq) < 16 && max_alternatives(&seq) <= 32;
    (slots_fit
        && min_len(&seq) > 0
        && repetitions_are_unnested(&seq)
        && loops_are_sound(&seq, &[])
        && possessive_safe(&seq, &[]))
    .then(|| fold_literals(seq))
}

/// The most alternatives one step offers (the runner keeps at most 32 at a time).
fn max_alternatives(seq: &[Node]) -> usize {
    seq.iter()
        .map(|n| match n {
            Node::Alt(alts) | Node::Loop { alts, .. } => alts
                .iter()
                .map(|a| max_alternatives(a))
                .max()
                .unwrap_or(0)
                .max(alts.len()),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

fn max_slot(seq: &[Node]) -> usize {
    seq.iter()
        .map(|n| match n {
            Node::Save(s) => *s,
            Node::Alt(alts) => alts.iter().map(|a| max_slot(a)).max().unwrap_or(0),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// Step codes (read by `src/redact/programs.rs`, which documents them).
const BOUND: u8 = 0;
const START: u8 = 1;
const END: u8 = 2;
const LIT: u8 = 3;
const LIT_FOLD: u8 = 4;
const SET: u8 = 5;
const SAVE: u8 = 6;
const ALT: u8 = 7;
const STAR: u8 = 8;
const LOOP: u8 = 9;
const UNTIL: u8 = 10;

fn intern(sets: &mut Vec<Bytes>, bytes: &Bytes) -> usize {
    sets.iter().position(|s| s == bytes).unwrap_or_else(|| {
        sets.push(*bytes);
        sets.len() - 1
    })
}

/// Appends each alternative's byte code, led by its length (how ALT and LOOP steps skip to the next one).
fn encode_alternatives(alts: &[Vec<Node>], sets: &mut Vec<Bytes>, code: &mut Vec<u8>) {
    for a in alts {
        let mut body = Vec::new();
        encode(a, sets, &mut body);
        code.extend(
            u16::try_from(body.len())
                .expect("an alternative below 64 KiB")
                .to_le_bytes(),
        );
        code.extend(body);
    }
}

/// Appends the byte code of `seq`; sets are interned in `sets`.
fn encode(seq: &[Node], sets: &mut Vec<Bytes>, code: &mut Vec<u8>) {
    let short = |n: usize, what: &str| {
        u8::try_from(n).unwrap_or_else(|_| panic!("a program's {what} must fit a byte"))
    };
    for n in seq {
        match n {
            Node::Bound => code.push(BOUND),
            Node::Start => code.push(START),
            Node::End => code.push(END),
            Node::Lit(l) | Node::LitFold(l) => {
                code.push(if matches!(n, Node::Lit(_)) {
                    LIT
                } else {
                    LIT_FOLD
                });
                code.push(short(l.len(), "literal"));
                code.extend(l);
            }
            Node::Set { bytes, min, max } => {
                let set = intern(sets, bytes);
                code.extend([SET, short(set, "set index")]);
                // Counts as u16; u16::MAX stands for "no limit".
                let count = |c: u32| {
                    if c == u32::MAX {
                        u16::MAX
                    } else {
                        u16::try_from(c).expect("a count below 65535")
                    }
                };
                code.extend(count(*min).to_le_bytes());
                code.extend(count(*max).to_le_bytes());
            }
            Node::Save(slot) => code.extend([SAVE, short(*slot, "slot")]),
            Node::Alt(alts) => {
                code.extend([ALT, short(alts.len(), "alternative count")]);
                encode_alternatives(alts, sets, code);
            }
            Node::Loop { min, alts } => {
                code.extend([
                    LOOP,
                    short(*min as usize, "loop minimum"),
                    short(alts.len(), "alternative count"),
                ]);
                encode_alternatives(alts, sets, code);
            }
            Node::Until { bytes, lit } => {
                let set = intern(sets, bytes);
                code.extend([UNTIL, short(set, "set index"), short(lit.len(), "literal")]);
                code.extend(lit);
            }
            Node::Star(body) => {
                let mut inner = Vec::new();
                encode(body, sets, &mut inner);
                code.push(STAR);
                code.extend(
                    u16::try_from(inner.len())
                        .expect("a repeated group below 64 KiB")
                        .to_le_bytes(),
                );
                code.extend(inner);
            }
        }
    }
}

/// `PROGRAMS`: per rule, in order, its program or None.
pub fn programs(rules: &[(String, String)]) -> String {
    let mut sets = Vec::new();
    let mut out = format!("/// Per catalogue rule, in the file's order: its program, if its pattern has one.\npub static PROGRAMS: [Option<&[u8]>; {}] = [\n", rules.len());
    for (id, pattern) in rules {
        match program(pattern) {
            Some(seq) => {
                let mut code = Vec::new();
                encode(&seq, &mut sets, &mut code);
                let _ = writeln!(out, "    Some({:?}), // {id}", Literal(&code));
            }
            None => {
                let _ = writeln!(out, "    None, // {id}");
            }
        }
    }
    out.push_str("];\n");
    let _ = writeln!(out, "/// The byte sets the programs' `SET` steps refer to (each written once).\nstatic SETS: [[u64; 4]; {}] = {:?};", sets.len(), sets.iter().map(|s| s.0).collect::<Vec<_>>());
    out
}

/// A byte string as a Rust byte string literal (`b"..."`): shorter than an array in the generated code.
struct Literal<'a>(&'a [u8]);

impl std::fmt::Debug for Literal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("b\"")?;
        for &b in self.0 {
            write!(f, "{}", std::ascii::escape_default(b))?;
        }
        f.write_str("\"")
    }
}
