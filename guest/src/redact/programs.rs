//! Step programs: the patterns of the catalogue that need no regex engine, run as a short walk over the
//! bytes. A program is derived from the rule's own pattern at build time (`build/programs.rs`) only when it
//! finds exactly the matches and groups regex-lite finds (leftmost-first, greedy); the rest of the catalogue
//! stays with regex-lite. Why: on secret-dense text regex-lite's PikeVM, with its capture slots, is where the
//! time goes, while most catalogue rules are literals and classes whose greedy runs never give a byte back,
//! which a walk decides without backtracking and whose groups are just where the walk was.

// A program is byte code, one step after another:
// - `0` an ASCII word boundary (`\b`); `1` the start of the text searched; `2` its end;
// - `3 n bytes…` n bytes exactly; `4 n bytes…` n bytes with ASCII letters compared case-insensitively
//   (written in lower case; what `(?i)` makes of a literal);
// - `5 set min:u16 max:u16` min..=max characters (u16::MAX: no limit) whose bytes are all in `SETS[set]`,
//   taken greedily and whole: the build proved a shorter run can never lead to a match;
// - `6 slot` records the position in a group slot (group g: slots 2g and 2g+1);
// - `7 k (len:u16 body…)×k` alternatives, tried in order, each followed by the rest of the program;
// - `8 len:u16 body…` the body (literals, runs, boundaries: one way to match at most) repeated greedily:
//   as many times as it goes, then the rest of the program tried after each count, most first. The build
//   allows it only where the rest takes a bounded number of bytes.
// Byte code rather than a tree of enum values: a quarter of the size in the npm module, where every
// kilobyte counts.
#[cfg(feature = "step-programs")]
include!(concat!(env!("OUT_DIR"), "/redaction_programs.rs"));

/// The program of the catalogue's `index`-th rule, if its pattern has one (none without the
/// `step-programs` feature: every rule then runs its regex, with the same findings).
#[cfg(feature = "step-programs")]
pub fn for_rule(index: usize) -> Option<&'static [u8]> {
    PROGRAMS.get(index).copied().flatten()
}

#[cfg(not(feature = "step-programs"))]
pub fn for_rule(_index: usize) -> Option<&'static [u8]> {
    None
}

#[cfg(not(feature = "step-programs"))]
static SETS: [[u64; 4]; 0] = [];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn in_set(bytes: &[u64; 4], b: u8) -> bool {
    bytes[(b >> 6) as usize] & (1 << (b & 63)) != 0
}

/// The rest of the program after an alternative: code and what follows it, innermost first.
struct Rest<'a> {
    code: &'a [u8],
    then: Option<&'a Rest<'a>>,
}

fn u16_at(code: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([code[at], code[at + 1]])
}

fn run(hay: &[u8], code: &[u8], rest: Option<&Rest<'_>>, mut pos: usize, slots: &mut [usize; 16]) -> Option<usize> {
    let mut pc = 0;
    while pc < code.len() {
        match code[pc] {
            0 => {
                if !at_boundary(hay, pos) {
                    return None;
                }
                pc += 1;
            }
            1 => {
                if pos != 0 {
                    return None;
                }
                pc += 1;
            }
            2 => {
                if pos != hay.len() {
                    return None;
                }
                pc += 1;
            }
            op @ (3 | 4) => {
                let n = code[pc + 1] as usize;
                let lit = &code[pc + 2..pc + 2 + n];
                let here = hay.get(pos..pos + n)?;
                if (op == 3 && here != lit) || (op == 4 && !here.eq_ignore_ascii_case(lit)) {
                    return None;
                }
                pos += n;
                pc += 2 + n;
            }
            5 => {
                let bytes = &SETS[code[pc + 1] as usize];
                let (min, max) = (u16_at(code, pc + 2), u16_at(code, pc + 4));
                let max = if max == u16::MAX { u32::MAX } else { u32::from(max) };
                // Characters are counted at their first byte; a set holding non-ASCII bytes holds them all,
                // so a character is taken whole or not at all.
                let mut chars = 0u32;
                while pos < hay.len() && in_set(bytes, hay[pos]) {
                    if hay[pos] & 0xC0 != 0x80 {
                        if chars == max {
                            break;
                        }
                        chars += 1;
                    }
                    pos += 1;
                }
                if chars < u32::from(min) {
                    return None;
                }
                pc += 6;
            }
            6 => {
                slots[code[pc + 1] as usize] = pos;
                pc += 2;
            }
            7 => {
                // Alternatives; the code after the last one is what follows each.
                let k = code[pc + 1] as usize;
                let mut at = pc + 2;
                let mut bodies = [(0usize, 0usize); 32];
                for body in bodies.iter_mut().take(k) {
                    let len = u16_at(code, at) as usize;
                    *body = (at + 2, at + 2 + len);
                    at += 2 + len;
                }
                let after = Rest { code: &code[at..], then: rest };
                let saved = *slots;
                for &(s, e) in &bodies[..k] {
                    if let Some(end) = run(hay, &code[s..e], Some(&after), pos, slots) {
                        return Some(end);
                    }
                    *slots = saved;
                }
                return None;
            }
            _ => {
                // 8: a repeated group. Where each repetition ends, then the rest from the last one back.
                let len = u16_at(code, pc + 1) as usize;
                let (body, after) = (&code[pc + 3..pc + 3 + len], &code[pc + 3 + len..]);
                let mut ends = vec![pos];
                while let Some(end) = run(hay, body, None, pos, slots) {
                    pos = end;
                    ends.push(end);
                }
                return ends.into_iter().rev().find_map(|at| run(hay, after, rest, at, slots));
            }
        }
    }
    match rest {
        Some(r) => run(hay, r.code, r.then, pos, slots),
        None => Some(pos),
    }
}

/// Group spans of one match (group 0 is the whole match), as offsets into the text searched.
pub struct Groups {
    slots: [usize; 16],
}

impl Groups {
    pub fn get(&self, group: usize) -> Option<(usize, usize)> {
        let (s, e) = (*self.slots.get(2 * group)?, *self.slots.get(2 * group + 1)?);
        (s != usize::MAX && e != usize::MAX).then_some((s, e))
    }
}

/// The program's match starting exactly at `start`, if any.
pub fn match_at(program: &[u8], hay: &str, start: usize) -> Option<Groups> {
    let mut slots = [usize::MAX; 16];
    run(hay.as_bytes(), program, None, start, &mut slots).map(|_| Groups { slots })
}

/// Every match in `hay`, leftmost first and not overlapping, as a regex's `captures_iter` finds them.
pub fn matches<'a>(program: &'a [u8], hay: &'a str) -> impl Iterator<Item = Groups> + 'a {
    let mut at = 0;
    let leading = leading_run(program);
    std::iter::from_fn(move || {
        while at <= hay.len() {
            let start = at;
            // Next character boundary (programs never match empty, so no empty-match rule is needed).
            at += hay[at..].chars().next().map_or(1, char::len_utf8);
            if let Some(g) = match_at(program, hay, start) {
                at = g.get(0).map_or(at, |(_, e)| e.max(at));
                return Some(g);
            }
            // A program that opens with an unbounded run (`[A-Za-z0-9._%+\-]+@…`) and got into it here fails
            // from every later start inside the run: each would take the run to the same end and go on from
            // there as this one did. Skipping them keeps a long run (`a.a.a.…`, a word boundary at every
            // byte) linear.
            if let Some((bytes, _)) = leading.filter(|&(_, bound)| !bound || at_boundary(hay.as_bytes(), start)) {
                let run = hay.as_bytes()[start..].iter().take_while(|b| in_set(bytes, **b)).count();
                at = at.max(start + run);
            }
        }
        None
    })
}

/// The set of a program's opening run when it is unbounded (after its group-0 slot and a boundary, if any),
/// and whether that boundary is there.
fn leading_run(program: &[u8]) -> Option<(&'static [u64; 4], bool)> {
    let code = program.strip_prefix(&[6, 0])?;
    let (code, bound) = code.strip_prefix(&[0]).map_or((code, false), |rest| (rest, true));
    match code {
        [5, set, _, _, 0xFF, 0xFF, ..] => Some((SETS.get(*set as usize)?, bound)),
        _ => None,
    }
}

/// An ASCII word boundary (`\b`) at `pos`.
fn at_boundary(hay: &[u8], pos: usize) -> bool {
    let before = pos > 0 && is_word(hay[pos - 1]);
    let after = pos < hay.len() && is_word(hay[pos]);
    before != after
}

/// The match an assignment window's anchored regex finds (`^[A-Za-z0-9_.\-]*?(?:pattern)`): the first start,
/// from the window's start through the identifier run there, at which the program matches.
pub fn match_after_identifier(program: &[u8], hay: &str) -> Option<Groups> {
    let bytes = hay.as_bytes();
    let run = bytes.iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')).count();
    (0..=run).find_map(|start| match_at(program, hay, start))
}
