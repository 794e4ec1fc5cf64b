//! A loosely typed JSON value with exact strings and numbers, its reader and its writer.
//!
//! `serde_json` rejects the escape `\ud83d` when no trail surrogate follows it, yet
//! `JSON.stringify` writes exactly that for a JavaScript string holding half an emoji (a
//! delta cut mid-character). The format readers therefore parse JSON here: strings become
//! [`Wtf8`], numbers keep their source text (so `1.0` and 20-digit ids pass through
//! unchanged), objects keep their key order. The writer escapes unpaired surrogates back
//! to `\uXXXX`, so `JSON.parse` of its output gives the very same JavaScript strings.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use crate::bytes::scan::{bytes_equal, high_bytes, ordinary_run, run_without};
use crate::decode::ValueType;

use crate::bytes::wtf8::Wtf8;

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// Not JSON: a payload that was `undefined` (a call sent without its input). Written
    /// as `JSON.stringify` writes it: an object member with it is left out, an array
    /// element is `null`.
    Undefined,
    Null,
    Bool(bool),
    /// The number's JSON text, as written.
    Number(Box<str>),
    String(Wtf8),
    Array(Vec<Json>),
    /// Keys in first-seen order; a repeated key keeps its place and takes the last value,
    /// as `JSON.parse` does.
    Object(Vec<(Wtf8, Json)>),
}

impl Json {
    pub fn string(text: impl Into<Wtf8>) -> Json {
        Json::String(text.into())
    }

    /// An object from `(key, value)` pairs, in that order.
    pub fn object<const N: usize>(fields: [(&str, Json); N]) -> Json {
        Json::Object(fields.into_iter().map(|(k, v)| (Wtf8::from(k), v)).collect())
    }

    pub fn kind(&self) -> ValueType {
        match self {
            Json::Undefined => ValueType::Undefined,
            Json::Null => ValueType::Null,
            Json::Bool(_) => ValueType::Boolean,
            Json::Number(_) => ValueType::Number,
            Json::String(_) => ValueType::String,
            Json::Array(_) => ValueType::Array,
            Json::Object(_) => ValueType::Object,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(fields) => fields.iter_mut().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Moves the value of `key` out (leaving `null` behind).
    pub fn take(&mut self, key: &str) -> Option<Json> {
        match self {
            Json::Object(fields) => fields
                .iter_mut()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| std::mem::replace(v, Json::Null)),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&Wtf8> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// The number's value, when it is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The value as JSON text.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, self);
        out
    }
}

/// The string at `key` of an object.
pub fn str_of<'a>(value: &'a Json, key: &str) -> Option<&'a Wtf8> {
    value.get(key).and_then(Json::as_str)
}

/// Whether `key` of an object is `true`.
pub fn is_true(value: &Json, key: &str) -> bool {
    matches!(value.get(key), Some(Json::Bool(true)))
}

/// Why a text is not JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The text ends inside a value.
    Truncated,
    Unexpected(u8),
    TrailingCharacters,
    InvalidEscape,
    InvalidNumber,
    /// Arrays and objects nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A string holds bytes that are neither UTF-8 nor an encoded surrogate (WTF-8).
    InvalidUtf8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    /// Byte offset into the parsed text.
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset + 1;
        match &self.kind {
            ParseErrorKind::Truncated => write!(f, "the JSON text ends early (at column {at})"),
            ParseErrorKind::Unexpected(b) if b.is_ascii_graphic() => {
                write!(f, "invalid JSON: unexpected '{}' at column {at}", *b as char)
            }
            ParseErrorKind::Unexpected(b) => {
                write!(f, "invalid JSON: unexpected byte 0x{b:02x} at column {at}")
            }
            ParseErrorKind::TrailingCharacters => {
                write!(f, "invalid JSON: text after the value at column {at}")
            }
            ParseErrorKind::InvalidEscape => write!(f, "invalid JSON: bad escape at column {at}"),
            ParseErrorKind::InvalidNumber => write!(f, "invalid JSON: bad number at column {at}"),
            ParseErrorKind::TooDeep => write!(
                f,
                "JSON nested deeper than the limit of {MAX_DEPTH} arrays and objects, at column {at}"
            ),
            ParseErrorKind::InvalidUtf8 => write!(f, "invalid UTF-8 in a string at column {at}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// The deepest nesting of arrays and objects the reader accepts. Values are read, copied,
/// compared and dropped recursively, so deeper input is refused (with its position)
/// rather than risking the stack; 512 levels is far beyond any tool call's arguments and
/// well within the smallest thread stack the binding runs on.
pub const MAX_DEPTH: usize = 512;

/// An object with this many keys finds a repeated key through a hash map while it is read,
/// so reading an object costs time linear in its keys, not quadratic.
const INDEXED_OBJECT: usize = 32;

/// Parses one JSON value (surrounding whitespace allowed).
pub fn parse(text: &[u8]) -> Result<Json, ParseError> {
    parse_keeping(text, |_, _| true)
}

/// [`parse`], leaving out the object members `keep(depth, key)` refuses (the top-level
/// value is at depth 0): they are checked as JSON but never built. A reader that needs a
/// few members of a large record uses it to skip the rest without allocating.
pub fn parse_keeping(text: &[u8], keep: fn(usize, &[u8]) -> bool) -> Result<Json, ParseError> {
    parse_with(text, keep, false)
}

/// [`parse`] of text already known to be UTF-8: its strings are not checked again.
pub fn parse_str(text: &str) -> Result<Json, ParseError> {
    parse_with(text.as_bytes(), |_, _| true, true)
}

/// [`parse`] of text whose UTF-8 is already checked (`utf8`: a frame reader checks a whole
/// run of lines at once), so that its strings are not checked again one by one.
pub fn parse_checked(text: &[u8], utf8: bool) -> Result<Json, ParseError> {
    parse_with(text, |_, _| true, utf8)
}

/// [`parse_keeping`] of text already known to be UTF-8.
pub fn parse_keeping_str(text: &str, keep: fn(usize, &[u8]) -> bool) -> Result<Json, ParseError> {
    parse_with(text.as_bytes(), keep, true)
}

fn parse_with(text: &[u8], keep: fn(usize, &[u8]) -> bool, utf8: bool) -> Result<Json, ParseError> {
    let mut parser = Parser {
        text,
        pos: 0,
        keep,
        utf8,
    };
    parser.skip_ws();
    let value = parser.value(0)?;
    parser.skip_ws();
    if parser.pos < text.len() {
        return Err(parser.error(ParseErrorKind::TrailingCharacters));
    }
    Ok(value)
}

/// The complete JSON values of a line that does not parse as one, by their place in it,
/// and where each stretch that is no value starts, with why. An append cut short and the
/// next entry written onto the same line fails where the next entry starts (or a few
/// bytes in, when the cut left a string open): the next value is taken to start at the
/// last `{` the parser reached. Each step starts past the one before and costs at most
/// the bytes it parses, so a line is split in time linear in its length.
pub fn split_values<T>(
    text: &str,
    parse: &impl Fn(&str) -> Result<T, ParseError>,
) -> (Vec<Range<usize>>, Vec<(usize, ParseError)>) {
    let (mut values, mut torn) = (Vec::new(), Vec::new());
    let bytes = text.as_bytes();
    let mut pos = 0;
    loop {
        while bytes
            .get(pos)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            pos += 1;
        }
        if pos >= bytes.len() {
            break;
        }
        let e = match parse(&text[pos..]) {
            Ok(_) => {
                values.push(pos..text.len());
                break;
            }
            Err(e) => ParseError {
                offset: pos + e.offset,
                ..e
            },
        };
        if e.kind == ParseErrorKind::TrailingCharacters {
            if let Some(value) = text.get(pos..e.offset).filter(|v| parse(v).is_ok()) {
                values.push(pos..pos + value.len());
                pos = e.offset;
                continue;
            }
        }
        let next = match e.kind {
            // The text ends inside the value: no other starts on this line.
            ParseErrorKind::Truncated => None,
            _ => {
                let reached = e.offset.min(bytes.len() - 1);
                memchr::memrchr(b'{', &bytes[pos + 1..=reached]).map(|at| pos + 1 + at)
            }
        };
        torn.push((
            pos,
            ParseError {
                offset: e.offset - pos,
                ..e
            },
        ));
        match next {
            Some(next) => pos = next,
            None => break,
        }
    }
    (values, torn)
}

/// A string as [`Parser::string_ref`] read it.
enum Str {
    /// Its bytes in the text, exactly (no escapes).
    InText(std::ops::Range<usize>),
    Decoded(Wtf8),
}

impl Str {
    fn bytes<'t>(&'t self, text: &'t [u8]) -> &'t [u8] {
        match self {
            Str::InText(range) => &text[range.clone()],
            Str::Decoded(key) => key.as_bytes(),
        }
    }

    fn into_wtf8(self, text: &[u8]) -> Wtf8 {
        match self {
            Str::InText(range) => Wtf8::from_wtf8_unchecked(text[range].to_vec()),
            Str::Decoded(key) => key,
        }
    }
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
    keep: fn(usize, &[u8]) -> bool,
    /// The text is known to be UTF-8, so string contents need no check of their own.
    utf8: bool,
}

impl Parser<'_> {
    fn error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError {
            kind,
            offset: self.pos,
        }
    }

    fn unexpected(&self) -> ParseError {
        match self.text.get(self.pos) {
            Some(&b) => self.error(ParseErrorKind::Unexpected(b)),
            None => self.error(ParseErrorKind::Truncated),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Result<(), ParseError> {
        if self.text.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn literal(&mut self, word: &[u8], value: Json) -> Result<Json, ParseError> {
        for &b in word {
            self.eat(b)?;
        }
        Ok(value)
    }

    /// A value inside `depth` arrays and objects.
    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        match self.text.get(self.pos) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected()),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(ParseErrorKind::TooDeep));
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.text.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.text.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(ParseErrorKind::TooDeep));
        }
        self.pos += 1;
        let mut fields: Vec<(Wtf8, Json)> = Vec::new();
        let mut places: Option<HashMap<Wtf8, usize>> = None;
        self.skip_ws();
        if self.text.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Json::Object(fields));
        }
        loop {
            self.skip_ws();
            if self.text.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected());
            }
            let key = self.string_ref()?;
            self.skip_ws();
            self.eat(b':')?;
            self.skip_ws();
            if !(self.keep)(depth, key.bytes(self.text)) {
                self.skip_value(depth + 1)?;
            } else {
                let key = key.into_wtf8(self.text);
                let value = self.value(depth + 1)?;
                let place = match &places {
                    Some(places) => places.get(&key).copied(),
                    None => fields.iter().position(|(k, _)| *k == key),
                };
                match place {
                    Some(at) => fields[at].1 = value,
                    None => {
                        if let Some(places) = &mut places {
                            places.insert(key.clone(), fields.len());
                        }
                        fields.push((key, value));
                        if fields.len() == INDEXED_OBJECT {
                            places = Some(
                                fields
                                    .iter()
                                    .enumerate()
                                    .map(|(i, (k, _))| (k.clone(), i))
                                    .collect(),
                            );
                        }
                    }
                }
            }
            self.skip_ws();
            match self.text.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(fields));
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let Some(digits) = self.text.get(self.pos..self.pos + 4) else {
            self.pos = self.text.len();
            return Err(self.error(ParseErrorKind::Truncated));
        };
        let mut value = 0;
        for &d in digits {
            let nibble = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.error(ParseErrorKind::InvalidEscape))?;
            value = (value << 4) | nibble;
        }
        self.pos += 4;
        Ok(value)
    }

    /// A string (a key or a value): where it has no escape (nearly always), only its place
    /// in the text, so a key whose member is skipped allocates nothing.
    fn string_ref(&mut self) -> Result<Str, ParseError> {
        self.pos += 1;
        let start = self.pos;
        let len = ordinary_run(&self.text[start..]);
        if self.text.get(start + len) == Some(&b'"') {
            self.check_wtf8(start, start + len)?;
            self.pos = start + len + 1;
            return Ok(Str::InText(start..start + len));
        }
        self.escaped_string().map(Str::Decoded)
    }

    fn string(&mut self) -> Result<Wtf8, ParseError> {
        let text = self.text;
        Ok(self.string_ref()?.into_wtf8(text))
    }

    /// The rest of a string that holds an escape, from its first character.
    fn escaped_string(&mut self) -> Result<Wtf8, ParseError> {
        let mut out = Wtf8::new();
        let mut run = self.pos;
        loop {
            let Some(&b) = self.text.get(self.pos) else {
                return Err(self.error(ParseErrorKind::Truncated));
            };
            match b {
                b'"' => {
                    self.check_wtf8(run, self.pos)?;
                    out.push_wtf8(&self.text[run..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.check_wtf8(run, self.pos)?;
                    out.push_wtf8(&self.text[run..self.pos]);
                    self.pos += 1;
                    let Some(&escape) = self.text.get(self.pos) else {
                        return Err(self.error(ParseErrorKind::Truncated));
                    };
                    self.pos += 1;
                    let cp = match escape {
                        b'"' => 0x22,
                        b'\\' => 0x5C,
                        b'/' => 0x2F,
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => 0x0A,
                        b'r' => 0x0D,
                        b't' => 0x09,
                        // Lone surrogates are kept; a pair joins in `push_code_point`.
                        b'u' => self.hex4()?,
                        _ => {
                            self.pos -= 1;
                            return Err(self.error(ParseErrorKind::InvalidEscape));
                        }
                    };
                    out.push_code_point(cp);
                    run = self.pos;
                }
                0x00..=0x1F => return Err(self.unexpected()),
                _ => self.pos += 1 + ordinary_run(&self.text[self.pos + 1..]),
            }
        }
    }

    /// Checks a value as [`Parser::value`] does, building nothing.
    fn skip_value(&mut self, depth: usize) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error(ParseErrorKind::TooDeep));
        }
        let (close, is_object) = match self.text.get(self.pos) {
            Some(b'{') => (b'}', true),
            Some(b'[') => (b']', false),
            Some(b'"') => return self.skip_string(),
            Some(b't') => return self.literal(b"true", Json::Null).map(|_| ()),
            Some(b'f') => return self.literal(b"false", Json::Null).map(|_| ()),
            Some(b'n') => return self.literal(b"null", Json::Null).map(|_| ()),
            Some(b'-' | b'0'..=b'9') => return self.number_end(),
            _ => return Err(self.unexpected()),
        };
        self.pos += 1;
        self.skip_ws();
        if self.text.get(self.pos) == Some(&close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            if is_object {
                if self.text.get(self.pos) != Some(&b'"') {
                    return Err(self.unexpected());
                }
                self.skip_string()?;
                self.skip_ws();
                self.eat(b':')?;
                self.skip_ws();
            }
            self.skip_value(depth + 1)?;
            self.skip_ws();
            match self.text.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(&b) if b == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.unexpected()),
            }
        }
    }

    /// Checks a string as [`Parser::string`] does, building nothing.
    fn skip_string(&mut self) -> Result<(), ParseError> {
        self.pos += 1;
        loop {
            let run = self.pos;
            self.pos += ordinary_run(&self.text[self.pos..]);
            self.check_wtf8(run, self.pos)?;
            match self.text.get(self.pos) {
                None => return Err(self.error(ParseErrorKind::Truncated)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.text.get(self.pos) {
                        None => return Err(self.error(ParseErrorKind::Truncated)),
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 1,
                        Some(b'u') => {
                            self.pos += 1;
                            self.hex4()?;
                        }
                        Some(_) => return Err(self.error(ParseErrorKind::InvalidEscape)),
                    }
                }
                Some(_) => return Err(self.unexpected()),
            }
        }
    }

    /// Checks that `text[start..end]` is WTF-8: UTF-8, where a surrogate may also be
    /// encoded on its own (as a JavaScript string's text holds an unpaired one), but not a
    /// lead surrogate followed by a trail one (that pair is one 4-byte character).
    fn check_wtf8(&self, start: usize, end: usize) -> Result<(), ParseError> {
        if self.utf8 {
            return Ok(());
        }
        let mut at = start;
        while at < end {
            let valid = match std::str::from_utf8(&self.text[at..end]) {
                Ok(_) => return Ok(()),
                Err(e) => e.valid_up_to(),
            };
            at += valid;
            let lead = match self.text[at..end] {
                [0xED, second @ 0xA0..=0xBF, 0x80..=0xBF, ..] => second < 0xB0,
                _ => {
                    return Err(ParseError {
                        kind: ParseErrorKind::InvalidUtf8,
                        offset: at,
                    })
                }
            };
            if lead && matches!(self.text[at + 3..end], [0xED, 0xB0..=0xBF, 0x80..=0xBF, ..]) {
                return Err(ParseError {
                    kind: ParseErrorKind::InvalidUtf8,
                    offset: at,
                });
            }
            at += 3;
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.text.get(self.pos) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.pos;
        self.number_end()?;
        // The bytes are ASCII digits and signs, so this cannot fail.
        let text = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("0");
        Ok(Json::Number(text.into()))
    }

    /// Moves past a number, checking its grammar.
    fn number_end(&mut self) -> Result<(), ParseError> {
        let fail = |p: &Self| match p.text.get(p.pos) {
            None => p.error(ParseErrorKind::Truncated),
            Some(_) => p.error(ParseErrorKind::InvalidNumber),
        };
        if self.text[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.text.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(fail(self)),
        }
        if self.text.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(fail(self));
            }
        }
        if let Some(b'e' | b'E') = self.text.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.text.get(self.pos) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(fail(self));
            }
        }
        Ok(())
    }
}

/// Writes `value` as compact JSON.
pub fn write(out: &mut Vec<u8>, value: &Json) {
    write_with::<false>(out, value)
}

/// Writes `value` as compact JSON in ASCII: other characters as `\u` escapes (V8 makes a
/// one-byte string of ASCII by copying, where UTF-8 would have to be decoded).
pub fn write_ascii(out: &mut Vec<u8>, value: &Json) {
    write_with::<true>(out, value)
}

pub fn write_with<const ASCII: bool>(out: &mut Vec<u8>, value: &Json) {
    match value {
        Json::Undefined | Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(true) => out.extend_from_slice(b"true"),
        Json::Bool(false) => out.extend_from_slice(b"false"),
        Json::Number(text) => out.extend_from_slice(text.as_bytes()),
        Json::String(text) => write_str_with::<ASCII>(out, text.as_bytes()),
        Json::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_with::<ASCII>(out, item);
            }
            out.push(b']');
        }
        Json::Object(fields) => {
            out.push(b'{');
            let mut first = true;
            for (key, item) in fields.iter().filter(|(_, item)| *item != Json::Undefined) {
                if !first {
                    out.push(b',');
                }
                first = false;
                write_str_with::<ASCII>(out, key.as_bytes());
                out.push(b':');
                write_with::<ASCII>(out, item);
            }
            out.push(b'}');
        }
    }
}

/// Writes `value` as `JSON.stringify(value, null, 2)` does: each member and element on a
/// line of its own, indented by two spaces a level; empty arrays and objects as `[]` and
/// `{}`.
pub fn write_pretty(out: &mut Vec<u8>, value: &Json, depth: usize) {
    let line = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 2));
    };
    match value {
        Json::Array(items) if !items.is_empty() => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                line(out, depth + 1);
                write_pretty(out, item, depth + 1);
            }
            line(out, depth);
            out.push(b']');
        }
        Json::Object(fields) if fields.iter().any(|(_, item)| *item != Json::Undefined) => {
            out.push(b'{');
            let mut first = true;
            for (key, item) in fields.iter().filter(|(_, item)| *item != Json::Undefined) {
                if !first {
                    out.push(b',');
                }
                first = false;
                line(out, depth + 1);
                write_str(out, key.as_bytes());
                out.extend_from_slice(b": ");
                write_pretty(out, item, depth + 1);
            }
            line(out, depth);
            out.push(b'}');
        }
        _ => write(out, value),
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

pub(crate) fn escape_unit(out: &mut Vec<u8>, unit: u16) {
    let hex = |shift: u16| HEX[((unit >> shift) & 0xF) as usize];
    out.extend_from_slice(&[b'\\', b'u', hex(12), hex(8), hex(4), hex(0)]);
}

/// Bytes a JSON string cannot hold as they are: controls, the quote, the backslash, and
/// the lead byte of a WTF-8 surrogate (ASCII output: every byte beyond ASCII).
const fn specials(ascii: bool) -> [bool; 256] {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = byte < 0x20
            || byte == b'"' as usize
            || byte == b'\\' as usize
            || byte == 0xED
            || (ascii && byte >= 0x80);
        byte += 1;
    }
    table
}
static SPECIAL: [bool; 256] = specials(false);
static SPECIAL_ASCII: [bool; 256] = specials(true);

/// Writes WTF-8 text as a JSON string, escaping as `JSON.stringify` does, plus unpaired
/// surrogates as `\uXXXX` (which `JSON.stringify` also does since ES2019).
pub fn write_str(out: &mut Vec<u8>, text: &[u8]) {
    write_str_with::<false>(out, text)
}

pub fn write_str_with<const ASCII: bool>(out: &mut Vec<u8>, text: &[u8]) {
    let special = if ASCII { &SPECIAL_ASCII } else { &SPECIAL };
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut i = 0;
    loop {
        // Eight bytes at a time up to the next byte to escape.
        let run = i;
        i += match ASCII {
            true => run_without(&text[i..], high_bytes, special),
            false => run_without(&text[i..], |x| bytes_equal(x, 0xED), special),
        };
        out.extend_from_slice(&text[run..i]);
        let Some(&b) = text.get(i) else { break };
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0C => b"\\f",
            _ => b"",
        };
        if !escape.is_empty() {
            out.extend_from_slice(escape);
            i += 1;
        } else if b < 0x20 {
            escape_unit(out, b as u16);
            i += 1;
        } else {
            // A multi-byte sequence: a surrogate is always escaped, anything else only in
            // ASCII output.
            let len = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            }
            .min(text.len() - i);
            let cp = decode_at(&text[i..i + len]);
            let surrogate = (0xD800..0xE000).contains(&cp);
            if ASCII || surrogate {
                let mut units = [0u16; 2];
                let units: &[u16] = match char::from_u32(cp) {
                    Some(c) => c.encode_utf16(&mut units),
                    None => {
                        units[0] = cp as u16;
                        &units[..1]
                    }
                };
                for &unit in units {
                    escape_unit(out, unit);
                }
            } else {
                out.extend_from_slice(&text[i..i + len]);
            }
            i += len;
        }
    }
    out.push(b'"');
}

/// The code point of one WTF-8 sequence.
fn decode_at(bytes: &[u8]) -> u32 {
    let tail = |b: u8| (b & 0x3F) as u32;
    match *bytes {
        [b0, b1] => ((b0 as u32 & 0x1F) << 6) | tail(b1),
        [b0, b1, b2] => ((b0 as u32 & 0x0F) << 12) | (tail(b1) << 6) | tail(b2),
        [b0, b1, b2, b3] => ((b0 as u32 & 0x07) << 18) | (tail(b1) << 12) | (tail(b2) << 6) | tail(b3),
        _ => 0xFFFD,
    }
}
