//! Text and payloads as the bytes path keeps them: in their JSON source form.
//!
//! A string is kept as its escaped JSON body. Joining two bodies gives the body of the
//! joined string, escape sequences included, so `"\ud83d"` then `"\ude00"` becomes one
//! emoji when the output is parsed, and a lone `"\ud83d"` stays lone: exact to the UTF-16
//! unit with no decoding on the way. Payloads (`arguments`, `result`, `metadata`, …) are
//! kept as their exact source text, so `JSON.parse` of the output gives what `JSON.parse`
//! of the input gave: every number spelling, key order, `"__proto__"` keys.

use std::hash::{Hash, Hasher};

use crate::owned::Text;

/// A JSON string body (the text between the quotes, escapes kept).
#[derive(Debug, Clone, Default)]
pub struct JsonText(pub String);

impl From<&str> for JsonText {
    fn from(body: &str) -> Self {
        JsonText(body.to_owned())
    }
}

/// A payload value: its JSON source text, or absent (`undefined` in JavaScript, which
/// `JSON.stringify` leaves out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    Undefined,
    Json(Box<str>),
}

impl PartialEq for JsonText {
    /// Equal as the JavaScript strings they denote (`"a"` equals `"\u0061"`).
    fn eq(&self, other: &Self) -> bool {
        if !self.0.contains('\\') && !other.0.contains('\\') {
            return self.0 == other.0;
        }
        decode_utf16(&self.0).eq(decode_utf16(&other.0))
    }
}

impl Eq for JsonText {}

impl Hash for JsonText {
    /// Hashes the UTF-16 units the body denotes, which equality compares.
    fn hash<H: Hasher>(&self, state: &mut H) {
        for unit in decode_utf16(&self.0) {
            state.write_u16(unit);
        }
    }
}

impl Text for JsonText {
    fn empty() -> Self {
        JsonText(String::new())
    }

    fn push_text(&mut self, other: &Self) {
        self.0.push_str(&other.0);
    }

    fn push_literal(&mut self, literal: &str) {
        escape_into(literal, &mut self.0);
    }
}

/// Appends `text` as a JSON string body.
pub fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// The UTF-16 units a valid JSON string body denotes.
pub fn decode_utf16(body: &str) -> impl Iterator<Item = u16> + '_ {
    let mut chars = body.chars();
    let mut pending: Option<u16> = None;
    std::iter::from_fn(move || {
        if let Some(unit) = pending.take() {
            return Some(unit);
        }
        let c = chars.next()?;
        if c != '\\' {
            let mut units = [0u16; 2];
            let encoded = c.encode_utf16(&mut units);
            if encoded.len() == 2 {
                pending = Some(encoded[1]);
            }
            return Some(encoded[0]);
        }
        Some(match chars.next()? {
            'b' => 0x08,
            'f' => 0x0c,
            'n' => 0x0a,
            'r' => 0x0d,
            't' => 0x09,
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                u16::from_str_radix(&hex, 16).unwrap_or(0xfffd)
            }
            other => other as u16,
        })
    })
}

/// The body as a Rust string when it denotes valid Unicode (no lone surrogates).
pub fn decode_string(body: &str) -> Option<String> {
    let units: Vec<u16> = decode_utf16(body).collect();
    String::from_utf16(&units).ok()
}
