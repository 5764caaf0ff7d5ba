//! The text as the rules see it: look-alike characters folded to the ASCII they imitate, invisible ones
//! dropped, so that `pass\u{200B}word=…`, `ｐａｓｓｗｏｒｄ=…` (full-width) or a token with a Cyrillic `о` in its
//! prefix are found like their plain spelling. Findings on the folded view are mapped back to the original
//! text, whose spans are what is redacted: the replacement covers the characters as they were written.
//!
//! Text that is all ASCII (nearly every log) is never copied: [`view`] answers `None` after one pass.

/// What one character becomes in the view.
enum Fold {
    Keep,
    Drop,
    To(u8),
}

/// Characters that imitate ASCII letters, digits or spaces, and characters that show nothing.
fn fold(c: char) -> Fold {
    let cp = c as u32;
    let to = |b: u8| Fold::To(b);
    match cp {
        // Invisible: soft hyphen, combining grapheme joiner, Mongolian vowel separator, zero-width space,
        // (non-)joiner, direction marks and embeddings, word joiner and invisible operators, direction
        // isolates, variation selectors, byte order mark.
        0xAD
        | 0x34F
        | 0x61C
        | 0x180E
        | 0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x2064
        | 0x2066..=0x2069
        | 0xFE00..=0xFE0F
        | 0xFEFF => Fold::Drop,
        // Spaces of other widths.
        0xA0 | 0x1680 | 0x2000..=0x200A | 0x202F | 0x205F | 0x3000 => to(b' '),
        // Hyphens and the minus sign.
        0x2010..=0x2012 | 0x2212 => to(b'-'),
        // Full-width ASCII.
        0xFF01..=0xFF5E => to((cp - 0xFEE0) as u8),
        // Mathematical alphanumerics: 13 alphabets of 52 letters, then 5 of 10 digits.
        0x1D400..=0x1D6A3 => {
            let i = ((cp - 0x1D400) % 52) as u8;
            to(if i < 26 { b'A' + i } else { b'a' + i - 26 })
        }
        0x1D7CE..=0x1D7FF => to(b'0' + ((cp - 0x1D7CE) % 10) as u8),
        _ => match c {
            // Cyrillic.
            'а' => to(b'a'),
            'е' => to(b'e'),
            'о' => to(b'o'),
            'р' => to(b'p'),
            'с' => to(b'c'),
            'у' => to(b'y'),
            'х' => to(b'x'),
            'ѕ' => to(b's'),
            'і' => to(b'i'),
            'ј' => to(b'j'),
            'ԁ' => to(b'd'),
            'ԛ' => to(b'q'),
            'ԝ' => to(b'w'),
            'һ' => to(b'h'),
            'ӏ' => to(b'l'),
            'А' => to(b'A'),
            'В' => to(b'B'),
            'Е' => to(b'E'),
            'К' => to(b'K'),
            'М' => to(b'M'),
            'Н' => to(b'H'),
            'О' => to(b'O'),
            'Р' => to(b'P'),
            'С' => to(b'C'),
            'Т' => to(b'T'),
            'Х' => to(b'X'),
            'Ѕ' => to(b'S'),
            'І' => to(b'I'),
            'Ј' => to(b'J'),
            'Ү' => to(b'Y'),
            'Ԛ' => to(b'Q'),
            'Ԝ' => to(b'W'),
            // Greek.
            'Α' => to(b'A'),
            'Β' => to(b'B'),
            'Ε' => to(b'E'),
            'Ζ' => to(b'Z'),
            'Η' => to(b'H'),
            'Ι' => to(b'I'),
            'Κ' => to(b'K'),
            'Μ' => to(b'M'),
            'Ν' => to(b'N'),
            'Ο' => to(b'O'),
            'Ρ' => to(b'P'),
            'Τ' => to(b'T'),
            'Υ' => to(b'Y'),
            'Χ' => to(b'X'),
            'ο' => to(b'o'),
            'ν' => to(b'v'),
            'α' => to(b'a'),
            'ι' => to(b'i'),
            'κ' => to(b'k'),
            'ρ' => to(b'p'),
            'υ' => to(b'u'),
            'ϲ' => to(b'c'),
            'ϳ' => to(b'j'),
            // Latin without its dot, and the script g.
            'ı' => to(b'i'),
            'ȷ' => to(b'j'),
            'ɡ' => to(b'g'),
            _ => Fold::Keep,
        },
    }
}

/// The folded text and where its changed characters came from.
pub(super) struct View {
    pub text: String,
    /// Per changed character, in order: where it is in the view, how many bytes it takes there (1, or 0
    /// when dropped), and how many bytes the original has more than the view once past it (cumulative).
    changes: Vec<(usize, usize, usize)>,
}

/// The folded view of `text`, or `None` when folding changes nothing (all ASCII, or no look-alike).
pub(super) fn view(text: &str) -> Option<View> {
    if text.is_ascii() {
        return None;
    }
    let first = text
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() && !matches!(fold(c), Fold::Keep))?
        .0;
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut changes = Vec::new();
    let mut shift = 0;
    for c in text[first..].chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        match fold(c) {
            Fold::Keep => out.push(c),
            Fold::Drop => {
                shift += c.len_utf8();
                changes.push((out.len(), 0, shift));
            }
            Fold::To(b) => {
                shift += c.len_utf8() - 1;
                changes.push((out.len(), 1, shift));
                out.push(b as char);
            }
        }
    }
    Some(View { text: out, changes })
}

impl View {
    /// The offset in the original text of the view's offset `at`: a span's start (`is_end` false) or end.
    /// Dropped characters at a span's edge stay outside it; those inside go with it.
    pub(super) fn original(&self, at: usize, is_end: bool) -> usize {
        // The changes wholly before `at`: for a start, dropped characters at `at` too (the span starts after
        // them); for an end, not (it ends before them).
        let before = self.changes.partition_point(|&(pos, len, _)| {
            if is_end {
                pos + len <= at && !(len == 0 && pos == at)
            } else {
                pos + len <= at
            }
        });
        at + before.checked_sub(1).map_or(0, |i| self.changes[i].2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_fold_and_offsets_map_back() {
        assert!(view("plain ascii").is_none());
        assert!(view("Fehler: Datei „bericht.pdf“ — 文件").is_none());
        let text = "ｐａｓｓ\u{200B}word=х1";
        let v = view(text).unwrap();
        assert_eq!(v.text, "password=x1");
        // "password" in the view: from the first full-width letter to the end of "word".
        assert_eq!(v.original(0, false), 0);
        assert_eq!(v.original(8, true), text.find('=').unwrap());
        // The value "x1": the Cyrillic х is taken whole.
        let x = v.text.find('x').unwrap();
        assert_eq!(
            &text[v.original(x, false)..v.original(v.text.len(), true)],
            "х1"
        );
        // A dropped character at a span's edge stays outside it.
        let v = view("a\u{200B}b").unwrap();
        assert_eq!((v.original(1, false), v.original(1, true)), (4, 1));
    }
}
