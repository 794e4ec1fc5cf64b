//! Text exactly as JavaScript holds it.
//!
//! A JavaScript string is any sequence of UTF-16 code units, unpaired surrogates included;
//! a Rust `String` cannot hold those. [`Wtf8`] stores the text as WTF-8 (UTF-8 that also
//! encodes unpaired surrogates as three-byte sequences), so a string read from JSON such as
//! `"\ud83d"` survives, and joining `"\ud83d"` with `"\ude00"` gives the one character 😀,
//! as `+` does in JavaScript.

use std::borrow::Cow;
use std::fmt;

use crate::owned::Text;

#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Wtf8(Vec<u8>);

/// The code unit of a surrogate encoded at `bytes[0..3]`, if it is one.
fn surrogate_at(bytes: &[u8]) -> Option<u16> {
    match bytes {
        [0xED, b1 @ 0xA0..=0xBF, b2, ..] => Some(0xD000 | ((*b1 as u16 & 0x3F) << 6) | (*b2 as u16 & 0x3F)),
        _ => None,
    }
}

impl Wtf8 {
    pub fn new() -> Self {
        Wtf8(Vec::new())
    }

    /// The WTF-8 bytes; plain UTF-8 when the text has no unpaired surrogate.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Wraps bytes known to be WTF-8 (or UTF-8).
    pub fn from_wtf8_unchecked(bytes: Vec<u8>) -> Self {
        Wtf8(bytes)
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The text as `&str` when it holds no unpaired surrogate.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// For display and for derived labels only: unpaired surrogates become U+FFFD.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// Appends one code point, a lone surrogate included. A trail surrogate that follows a
    /// lead surrogate joins it into one supplementary character.
    pub fn push_code_point(&mut self, cp: u32) {
        if (0xDC00..=0xDFFF).contains(&cp) {
            if let Some(lead @ 0xD800..=0xDBFF) = self.trailing_surrogate() {
                self.0.truncate(self.0.len() - 3);
                let joined = 0x10000 + (((lead as u32) - 0xD800) << 10) + (cp - 0xDC00);
                self.push_scalar(joined);
                return;
            }
        }
        self.push_scalar(cp);
    }

    fn push_scalar(&mut self, cp: u32) {
        let b = &mut self.0;
        match cp {
            0..=0x7F => b.push(cp as u8),
            0x80..=0x7FF => b.extend([0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]),
            0x800..=0xFFFF => b.extend([
                0xE0 | (cp >> 12) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ]),
            _ => b.extend([
                0xF0 | (cp >> 18) as u8,
                0x80 | ((cp >> 12) & 0x3F) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ]),
        }
    }

    fn trailing_surrogate(&self) -> Option<u16> {
        let len = self.0.len();
        (len >= 3).then(|| surrogate_at(&self.0[len - 3..])).flatten()
    }

    /// Whether this text is `old` with more appended: `old`'s bytes begin it, or `old`
    /// ended with a lead surrogate that a trail surrogate appended since joined into one
    /// character (what [`Wtf8::push_wtf8`] makes; [`Wtf8::tail_from`] gives what came).
    pub fn grew_from(&self, old: &Wtf8) -> bool {
        if self.0.starts_with(&old.0) {
            return true;
        }
        let Some(lead @ 0xD800..=0xDBFF) = old.trailing_surrogate() else {
            return false;
        };
        let cut = old.0.len() - 3;
        let joined = self.0.get(cut..cut + 4).and_then(|c| std::str::from_utf8(c).ok());
        self.0[..cut.min(self.0.len())] == old.0[..cut]
            && joined
                .and_then(|c| c.chars().next())
                .is_some_and(|c| 0xD800 + ((u32::from(c).wrapping_sub(0x10000)) >> 10) == u32::from(lead))
    }

    /// Appends WTF-8 bytes, joining a lead surrogate at the end of `self` with a trail
    /// surrogate at the start of `other`.
    pub fn push_wtf8(&mut self, other: &[u8]) {
        if let Some(trail @ 0xDC00..=0xDFFF) = surrogate_at(other) {
            if matches!(self.trailing_surrogate(), Some(0xD800..=0xDBFF)) {
                self.push_code_point(trail as u32);
                self.0.extend_from_slice(&other[3..]);
                return;
            }
        }
        self.0.extend_from_slice(other);
    }

    /// What follows the first `from` bytes, for a text that grew by appending: when a lead
    /// surrogate ended those bytes and a trail surrogate appended since joined it into one
    /// character, the trail half comes first (so that the first part and this one,
    /// appended as UTF-16, make the text).
    pub fn tail_from(&self, from: usize) -> Wtf8 {
        let bytes = &self.0[from.min(self.0.len())..];
        match bytes.first() {
            Some(&b) if b & 0xC0 == 0x80 && from >= 3 => {
                let joined = std::str::from_utf8(&self.0[from - 3..from + 1])
                    .ok()
                    .and_then(|c| c.chars().next())
                    .map_or(0xFFFD, u32::from);
                let mut tail = Wtf8::new();
                tail.push_scalar(0xDC00 + ((joined.wrapping_sub(0x10000)) & 0x3FF));
                tail.0.extend_from_slice(&bytes[1..]);
                tail
            }
            _ => Wtf8(bytes.to_vec()),
        }
    }

    pub fn from_utf16(units: &[u16]) -> Self {
        let mut text = Wtf8(Vec::with_capacity(units.len()));
        for unit in char::decode_utf16(units.iter().copied()) {
            match unit {
                Ok(c) => text.push_scalar(c as u32),
                Err(e) => text.push_scalar(e.unpaired_surrogate() as u32),
            }
        }
        text
    }

    /// The code units of the text, as JavaScript would see them.
    pub fn to_utf16(&self) -> Vec<u16> {
        let mut out = Vec::with_capacity(self.0.len());
        for cp in CodePoints(&self.0) {
            if cp >= 0x10000 {
                let v = cp - 0x10000;
                out.push(0xD800 | (v >> 10) as u16);
                out.push(0xDC00 | (v & 0x3FF) as u16);
            } else {
                out.push(cp as u16);
            }
        }
        out
    }

    /// The code points of the text (unpaired surrogates included).
    pub fn code_points(&self) -> impl Iterator<Item = u32> + '_ {
        CodePoints(&self.0)
    }
}

/// Decodes generalized UTF-8; a byte that starts no valid sequence decodes as U+FFFD.
struct CodePoints<'a>(&'a [u8]);

impl Iterator for CodePoints<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let (&b0, rest) = self.0.split_first()?;
        let (len, init) = match b0 {
            0x00..=0x7F => (1, b0 as u32),
            0xC0..=0xDF => (2, (b0 & 0x1F) as u32),
            0xE0..=0xEF => (3, (b0 & 0x0F) as u32),
            0xF0..=0xF7 => (4, (b0 & 0x07) as u32),
            _ => (1, 0xFFFD),
        };
        if len == 1 || rest.len() < len - 1 || rest[..len - 1].iter().any(|b| b & 0xC0 != 0x80) {
            self.0 = rest;
            return Some(if len == 1 { init } else { 0xFFFD });
        }
        let cp = rest[..len - 1]
            .iter()
            .fold(init, |cp, b| (cp << 6) | (b & 0x3F) as u32);
        self.0 = &rest[len - 1..];
        Some(cp)
    }
}

impl From<&str> for Wtf8 {
    fn from(text: &str) -> Self {
        Wtf8(text.as_bytes().to_vec())
    }
}

impl From<String> for Wtf8 {
    fn from(text: String) -> Self {
        Wtf8(text.into_bytes())
    }
}

impl PartialEq<str> for Wtf8 {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for Wtf8 {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl fmt::Debug for Wtf8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(text) => fmt::Debug::fmt(text, f),
            None => {
                f.write_str("\"")?;
                for cp in self.code_points() {
                    match char::from_u32(cp) {
                        Some(c) => write!(f, "{}", c.escape_debug())?,
                        None => write!(f, "\\u{{{cp:x}}}")?,
                    }
                }
                f.write_str("\"")
            }
        }
    }
}

impl fmt::Display for Wtf8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

impl Text for Wtf8 {
    fn empty() -> Self {
        Wtf8::new()
    }
    fn push_text(&mut self, other: &Self) {
        self.push_wtf8(&other.0);
    }
    fn push_literal(&mut self, literal: &str) {
        self.0.extend_from_slice(literal.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::Wtf8;

    fn of(units: &[u16]) -> Wtf8 {
        let mut text = Wtf8::new();
        for &unit in units {
            text.push_code_point(u32::from(unit));
        }
        text
    }

    #[test]
    fn a_text_grew_from_another_by_appending_a_lone_lead_joined_with_its_trail_too() {
        let old = of(&[0x61, 0xD83D]);
        let mut grown = old.clone();
        grown.push_wtf8(of(&[0xDE00, 0x62]).as_bytes());
        assert_eq!(grown.as_bytes(), "a\u{1F600}b".as_bytes());
        assert!(grown.grew_from(&old));
        assert_eq!(grown.tail_from(old.as_bytes().len()).to_utf16(), [0xDE00, 0x62]);
        assert!(grown.grew_from(&of(&[0x61])) && grown.grew_from(&Wtf8::new()));
        // Another lead, another text, or a shorter one: not grown from it.
        assert!(!grown.grew_from(&of(&[0x61, 0xD83C])));
        assert!(!grown.grew_from(&of(&[0x62, 0xD83D])));
        assert!(!of(&[0x61]).grew_from(&old));
        assert!(
            !of(&[0x61, 0xDE00]).grew_from(&old),
            "a trail alone is not the pair"
        );
    }
}
