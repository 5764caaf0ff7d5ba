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
//   as many times as it goes, then the rest of the program tried after each count, most first; a position
//   from which that failed is remembered and never tried again;
// - `9 min k (len:u16 body…)×k` alternatives repeated greedily, at least `min` times, each repetition the
//   first alternative that matches alone; the build allows it only where whatever follows always matches,
//   so the repetitions are never given back;
// - `10 set n bytes…` the shortest run of `SETS[set]` followed by the n bytes (a lazy `[…]*?` and a literal),
//   where whatever follows always matches.
// Runs, lazy runs and failed repetitions are remembered per step (`Memo`) while one text is searched:
// a search that starts again at each position of an identifier or a value then reads each byte a bounded
// number of times.
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

/// What the steps of one program learned about one text, each keyed by the step's address (every step
/// is always followed by the same code, so what it learned holds wherever it runs again).
#[derive(Default)]
pub struct Memo {
    /// An unbounded run read from `.1` ends at `.2` (its set's bytes all the way).
    runs: Vec<(usize, usize, usize)>,
    /// A lazy run from `.1`: its literal first stands at `.2`, or (usize::MAX) not before `.3` stops the run.
    untils: Vec<(usize, usize, usize, usize)>,
    /// The positions from which a repeated group, and what follows it, fails (one bit each).
    failed: Vec<(usize, Vec<u64>)>,
}

impl Memo {
    fn failed(&self, step: usize, pos: usize) -> bool {
        self.failed
            .iter()
            .any(|(s, bits)| *s == step && bits[pos / 64] & (1 << (pos % 64)) != 0)
    }

    fn fail(&mut self, step: usize, pos: usize, len: usize) {
        let at = match self.failed.iter().position(|(s, _)| *s == step) {
            Some(at) => at,
            None => {
                self.failed.push((step, vec![0; len / 64 + 1]));
                self.failed.len() - 1
            }
        };
        self.failed[at].1[pos / 64] |= 1 << (pos % 64);
    }
}

/// Where the run of `bytes` that starts at `pos` ends (greedy, unbounded), remembered for `step`.
fn run_end(hay: &[u8], bytes: &[u64; 4], pos: usize, step: usize, memo: &mut Memo) -> usize {
    if let Some(&(_, _, end)) = memo
        .runs
        .iter()
        .find(|&&(s, from, end)| s == step && from <= pos && pos <= end)
    {
        return end;
    }
    let end = pos + hay[pos..].iter().take_while(|b| in_set(bytes, **b)).count();
    match memo.runs.iter_mut().find(|r| r.0 == step) {
        Some(r) => *r = (step, pos, end),
        None => memo.runs.push((step, pos, end)),
    }
    end
}

/// Where `lit` first stands at or after `pos` with only `bytes` before it, remembered for `step`.
fn until(
    hay: &[u8],
    bytes: &[u64; 4],
    lit: &[u8],
    pos: usize,
    step: usize,
    memo: &mut Memo,
) -> Option<usize> {
    let known = memo
        .untils
        .iter()
        .find(|&&(s, from, at, stop)| s == step && from <= pos && pos <= at.min(stop));
    let at = match known {
        Some(&(_, _, at, _)) => at,
        None => {
            let mut p = pos;
            let (at, stop) = loop {
                if hay[p..].starts_with(lit) {
                    break (p, p);
                }
                if p == hay.len() || !in_set(bytes, hay[p]) {
                    break (usize::MAX, p);
                }
                p += 1;
            };
            match memo.untils.iter_mut().find(|u| u.0 == step) {
                Some(u) => *u = (step, pos, at, stop),
                None => memo.untils.push((step, pos, at, stop)),
            }
            at
        }
    };
    (at != usize::MAX).then_some(at)
}

/// The alternatives of an `ALT` or `LOOP` step whose count stands at `at`: their spans, one after another,
/// and where the code after them starts.
fn alternatives(
    code: &[u8],
    at: usize,
) -> (impl Iterator<Item = (usize, usize)> + Clone + '_, usize) {
    let k = code[at] as usize;
    let mut end = at + 1;
    for _ in 0..k {
        end += 2 + u16_at(code, end) as usize;
    }
    let mut next = at + 1;
    let bodies = (0..k).map(move |_| {
        let len = u16_at(code, next) as usize;
        next += 2 + len;
        (next - len, next)
    });
    (bodies, end)
}

fn run(
    hay: &[u8],
    code: &[u8],
    rest: Option<&Rest<'_>>,
    mut pos: usize,
    slots: &mut [usize; 16],
    memo: &mut Memo,
) -> Option<usize> {
    let mut pc = 0;
    while pc < code.len() {
        let step = code.as_ptr() as usize + pc;
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
            5 if code[pc + 4..pc + 6] == [0xFF, 0xFF] && u16_at(code, pc + 2) <= 1 => {
                // Unbounded, at most one character required: the run's end, remembered.
                let end = run_end(hay, &SETS[code[pc + 1] as usize], pos, step, memo);
                if end == pos && code[pc + 2] == 1 {
                    return None;
                }
                pos = end;
                pc += 6;
            }
            5 => {
                let bytes = &SETS[code[pc + 1] as usize];
                let (min, max) = (u16_at(code, pc + 2), u16_at(code, pc + 4));
                let max = if max == u16::MAX {
                    u32::MAX
                } else {
                    u32::from(max)
                };
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
                let (bodies, at) = alternatives(code, pc + 1);
                let after = Rest {
                    code: &code[at..],
                    then: rest,
                };
                let saved = *slots;
                for (s, e) in bodies {
                    if let Some(end) = run(hay, &code[s..e], Some(&after), pos, slots, memo) {
                        return Some(end);
                    }
                    *slots = saved;
                }
                return None;
            }
            8 => {
                // A repeated group. Where each repetition ends (up to a position known to fail), then the rest
                // from the last one back; if none leads to a match, none of them ever will.
                if memo.failed(step, pos) {
                    return None;
                }
                let len = u16_at(code, pc + 1) as usize;
                let (body, after) = (&code[pc + 3..pc + 3 + len], &code[pc + 3 + len..]);
                let mut ends = vec![pos];
                while let Some(end) = run(hay, body, None, pos, slots, memo) {
                    if memo.failed(step, end) {
                        break;
                    }
                    pos = end;
                    ends.push(end);
                }
                let found = ends
                    .iter()
                    .rev()
                    .find_map(|&at| run(hay, after, rest, at, slots, memo));
                if found.is_none() {
                    for at in ends {
                        memo.fail(step, at, hay.len());
                    }
                }
                return found;
            }
            9 => {
                // Repeated alternatives: each time the first that matches alone, until none does.
                let min = code[pc + 1];
                let (bodies, at) = alternatives(code, pc + 2);
                let mut count = 0u8;
                'repeat: loop {
                    for (s, e) in bodies.clone() {
                        // One character of a set (a value's character, most repetitions): checked here.
                        if let [5, set, 1, 0, 1, 0] = code[s..e] {
                            let bytes = &SETS[set as usize];
                            if pos < hay.len() && in_set(bytes, hay[pos]) {
                                pos += 1;
                                while pos < hay.len()
                                    && hay[pos] & 0xC0 == 0x80
                                    && in_set(bytes, hay[pos])
                                {
                                    pos += 1;
                                }
                                count = count.saturating_add(1);
                                continue 'repeat;
                            }
                            continue;
                        }
                        if let Some(end) = run(hay, &code[s..e], None, pos, slots, memo) {
                            pos = end;
                            count = count.saturating_add(1);
                            continue 'repeat;
                        }
                    }
                    break;
                }
                if count < min {
                    return None;
                }
                pc = at;
            }
            _ => {
                // 10: a lazy run and its literal.
                let n = code[pc + 2] as usize;
                let lit = &code[pc + 3..pc + 3 + n];
                pos = until(hay, &SETS[code[pc + 1] as usize], lit, pos, step, memo)? + n;
                pc += 3 + n;
            }
        }
    }
    match rest {
        Some(r) => run(hay, r.code, r.then, pos, slots, memo),
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

/// The program's match starting exactly at `start`, if any (`memo`: what earlier searches of this text by
/// this program learned).
pub fn match_at(program: &[u8], hay: &str, start: usize, memo: &mut Memo) -> Option<Groups> {
    let mut slots = [usize::MAX; 16];
    run(hay.as_bytes(), program, None, start, &mut slots, memo).map(|_| Groups { slots })
}

/// Every match in `hay`, leftmost first and not overlapping, as a regex's `captures_iter` finds them.
pub fn matches<'a>(program: &'a [u8], hay: &'a str) -> impl Iterator<Item = Groups> + 'a {
    let mut at = 0;
    let leading = leading_run(program);
    let first = first_bytes(program);
    let mut memo = Memo::default();
    std::iter::from_fn(move || {
        while at <= hay.len() {
            // A start whose byte no match can begin with is passed over without running the program (most
            // bytes of a window, for a program that opens with a literal or a class).
            if let Some(first) = &first {
                match hay.as_bytes()[at..].iter().position(|b| in_set(first, *b)) {
                    Some(skip) => at += skip,
                    None => break,
                }
            }
            let start = at;
            // Next character boundary (programs never match empty, so no empty-match rule is needed).
            at += hay[at..].chars().next().map_or(1, char::len_utf8);
            if let Some(g) = match_at(program, hay, start, &mut memo) {
                at = g.get(0).map_or(at, |(_, e)| e.max(at));
                return Some(g);
            }
            // A program that opens with an unbounded run (`[A-Za-z0-9._%+\-]+@…`) and got into it here fails
            // from every later start inside the run: each would take the run to the same end and go on from
            // there as this one did. Skipping them keeps a long run (`a.a.a.…`, a word boundary at every
            // byte) linear.
            if let Some((bytes, _)) =
                leading.filter(|&(_, bound)| !bound || at_boundary(hay.as_bytes(), start))
            {
                let run = hay.as_bytes()[start..]
                    .iter()
                    .take_while(|b| in_set(bytes, **b))
                    .count();
                at = at.max(start + run);
            }
        }
        None
    })
}

/// The bytes a match of `program` can begin with, when its opening steps tell (group slots and word
/// boundaries consume nothing; then a literal, a run of at least one character, or alternatives that each
/// tell); None when they do not (an optional run, a repetition).
fn first_bytes(program: &[u8]) -> Option<[u64; 4]> {
    let mut code = program;
    loop {
        match code {
            [6, _, rest @ ..] => code = rest,
            [0, rest @ ..] => code = rest,
            _ => break,
        }
    }
    let mut set = [0u64; 4];
    let mut add = |b: u8| set[(b >> 6) as usize] |= 1 << (b & 63);
    match code {
        [3, n, first, ..] if *n > 0 => add(*first),
        [4, n, first, ..] if *n > 0 => {
            add(first.to_ascii_lowercase());
            add(first.to_ascii_uppercase());
        }
        [5, index, ..] if u16_at(code, 2) > 0 => {
            let bytes = SETS.get(*index as usize)?;
            for (word, bits) in set.iter_mut().zip(bytes) {
                *word |= bits;
            }
        }
        [7, k, ..] => {
            let mut at = 2;
            for _ in 0..*k {
                let len = usize::from(u16_at(code, at));
                let alternative = first_bytes(code.get(at + 2..at + 2 + len)?)?;
                for (word, bits) in set.iter_mut().zip(alternative) {
                    *word |= bits;
                }
                at += 2 + len;
            }
        }
        _ => return None,
    }
    Some(set)
}

/// The set of a program's opening run when it is unbounded (after its group-0 slot and a boundary, if any),
/// and whether that boundary is there.
fn leading_run(program: &[u8]) -> Option<(&'static [u64; 4], bool)> {
    let code = program.strip_prefix(&[6, 0])?;
    let (code, bound) = code
        .strip_prefix(&[0])
        .map_or((code, false), |rest| (rest, true));
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
    match_after_identifier_with(program, hay, &mut Memo::default())
}

/// [`match_after_identifier`] with a memo of the caller's, emptied first (one for many windows: what it
/// learns is about one text, but its room is kept).
pub fn match_after_identifier_with(program: &[u8], hay: &str, memo: &mut Memo) -> Option<Groups> {
    memo.runs.clear();
    memo.untils.clear();
    memo.failed.clear();
    let bytes = hay.as_bytes();
    let run = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    // A program that opens with an unbounded run of every identifier byte (`([A-Za-z0-9_.\-]+)`, a whole
    // name) takes that run to the same end from every start inside the identifier, and goes on from there
    // alike: the first start decides for all.
    let last = if opens_with_a_name(program) { 0 } else { run };
    (0..=last).find_map(|start| match_at(program, hay, start, memo))
}

/// Whether a program opens (after group slots) with an unbounded run whose set holds every identifier byte.
fn opens_with_a_name(program: &[u8]) -> bool {
    let mut code = program;
    while let [6, _, rest @ ..] = code {
        code = rest;
    }
    // `[A-Za-z0-9_.\-]`: `-` `.` `0`-`9` in the first word, `A`-`Z` `_` `a`-`z` in the second.
    const NAME: [u64; 2] = [0x03ff_6000_0000_0000, 0x07ff_fffe_87ff_fffe];
    match code {
        [5, set, _, _, 0xFF, 0xFF, ..] => SETS
            .get(*set as usize)
            .is_some_and(|set| set[0] & NAME[0] == NAME[0] && set[1] & NAME[1] == NAME[1]),
        _ => false,
    }
}
