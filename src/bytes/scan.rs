//! A JSON scanner for event lines: validates the whole text as `JSON.parse` would, and
//! indexes only the members the rules read (the event object and the objects directly
//! inside it). Every other value is kept as its exact source text.
//!
//! Nesting is handled with an explicit stack, so depth is bounded by memory, not by the
//! call stack.

use std::fmt;

use crate::decode::Field;

/// The length of the leading run of `bytes` with no quote, backslash or control byte.
pub(crate) fn ordinary_run(bytes: &[u8]) -> usize {
    run_without(bytes, |_| 0, &SPECIAL_IN_STRING)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Per byte of `x`, the high bit set where the byte is zero (exact up to the first).
#[inline(always)]
pub(crate) const fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Per byte of `x`, the high bit set where the byte is `byte` (exact up to the first).
#[inline(always)]
pub(crate) const fn bytes_equal(x: u64, byte: u8) -> u64 {
    zero_bytes(x ^ (ONES * byte as u64))
}

/// Per byte of `x`, the high bit set where the byte is at or beyond 0x80.
#[inline(always)]
pub(crate) const fn high_bytes(x: u64) -> u64 {
    x & HIGHS
}

/// The length of the leading run of `bytes` holding no quote, backslash or control byte and
/// none that `more` marks in a word (per byte, its high bit; exact up to the first), eight
/// bytes at a time; `special` says the same of one byte, for the tail.
#[inline(always)]
pub(crate) fn run_without(bytes: &[u8], more: impl Fn(u64) -> u64, special: &[bool; 256]) -> usize {
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let found = bytes_equal(x, b'"') | bytes_equal(x, b'\\') | control | more(x);
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && !special[bytes[at] as usize] {
        at += 1;
    }
    at
}

/// Bytes that end a run of ordinary string content: the quote, the backslash, controls.
static SPECIAL_IN_STRING: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Why a frame is not a JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset within the frame.
    pub at: usize,
    pub reason: &'static str,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {} of the frame", self.reason, self.at)
    }
}

/// A scanned value. Strings are their escaped bodies (between the quotes); everything
/// else that is not indexed is its exact source text.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Number(&'a str),
    String(&'a str),
    Array(&'a str),
    /// `fields` is `Some` for indexed objects; `raw` is the object's source text either way.
    Object {
        fields: Option<Box<Fields<'a>>>,
        raw: &'a str,
    },
}

/// The members of an indexed object that the rules can read, one slot per [`Field`]
/// (a later duplicate key replaces an earlier one, as in `JSON.parse`). Other members are
/// validated and passed over.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields<'a> {
    slots: [Option<Node<'a>>; Field::ALL.len()],
}

impl<'a> Fields<'a> {
    pub fn get(&self, field: Field) -> Option<&Node<'a>> {
        self.slots[field as usize].as_ref()
    }
}

impl<'a> Node<'a> {
    /// The exact source text of the value (strings with their quotes).
    pub fn raw(&self, source: &'a str) -> &'a str {
        match self {
            Node::Null => "null",
            Node::Bool(true) => "true",
            Node::Bool(false) => "false",
            Node::Number(raw) | Node::Array(raw) | Node::Object { raw, .. } => raw,
            Node::String(body) => {
                // The body is a slice of `source`; widen it by its quotes.
                let start = body.as_ptr() as usize - source.as_ptr() as usize - 1;
                &source[start..start + body.len() + 2]
            }
        }
    }

    /// The member `field` of an indexed object.
    pub fn member(&self, field: Field) -> Option<&Node<'a>> {
        match self {
            Node::Object {
                fields: Some(fields), ..
            } => fields.get(field),
            _ => None,
        }
    }
}

/// The field an escaped key body names, if the rules read it. A body with an escape
/// never equals a plain key, so it is decoded only when the plain match fails.
fn field_of(name: &str) -> Option<Field> {
    Field::from_key(name).or_else(|| match name.contains('\\') {
        true => Field::from_key(&crate::bytes::text::decode_string(name)?),
        false => None,
    })
}

/// The body of the JSON string whose opening quote is at `start` of `source`, and the
/// offset just past its closing quote.
pub fn string_at(source: &str, start: usize) -> Result<(&str, usize), SyntaxError> {
    let mut scanner = Scanner {
        bytes: source.as_bytes(),
        source,
        pos: start,
    };
    let body = scanner.string()?;
    Ok((body, scanner.pos))
}

/// Which objects get indexed: the event itself, and its `toolCall` / `toolResult`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Index {
    Top,
    Nested,
    No,
}

/// Scans `source` as one JSON text. When it is an object, its members the rules read
/// (and those of its `toolCall` / `toolResult`) are put in `fields` and `true` returned.
pub fn scan<'a>(source: &'a str, fields: &mut Fields<'a>) -> Result<bool, SyntaxError> {
    let mut scanner = Scanner {
        bytes: source.as_bytes(),
        source,
        pos: 0,
    };
    scanner.whitespace();
    let node = if scanner.peek() == Some(b'{') {
        scanner.object_fields(Index::Top, fields)?;
        true
    } else {
        scanner.value(Index::No)?;
        false
    };
    scanner.whitespace();
    if scanner.pos != scanner.bytes.len() {
        return Err(scanner.error("unexpected text after the JSON value"));
    }
    Ok(node)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    source: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn error(&self, reason: &'static str) -> SyntaxError {
        SyntaxError { at: self.pos, reason }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), SyntaxError> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.error("invalid literal"))
        }
    }

    fn value(&mut self, index: Index) -> Result<Node<'a>, SyntaxError> {
        match self.peek() {
            Some(b'{') if index != Index::No => self.indexed_object(index),
            Some(b'{' | b'[') => {
                let start = self.pos;
                self.skip_container()?;
                let raw = &self.source[start..self.pos];
                Ok(if raw.starts_with('{') {
                    Node::Object { fields: None, raw }
                } else {
                    Node::Array(raw)
                })
            }
            Some(b'"') => self.string().map(Node::String),
            Some(b'-' | b'0'..=b'9') => self.number().map(Node::Number),
            Some(b't') => self.literal(b"true").map(|()| Node::Bool(true)),
            Some(b'f') => self.literal(b"false").map(|()| Node::Bool(false)),
            Some(b'n') => self.literal(b"null").map(|()| Node::Null),
            Some(_) => Err(self.error("unexpected character")),
            None => Err(self.error("unexpected end of JSON")),
        }
    }

    fn indexed_object(&mut self, index: Index) -> Result<Node<'a>, SyntaxError> {
        let start = self.pos;
        let mut fields = Box::<Fields<'a>>::default();
        self.object_fields(index, &mut fields)?;
        Ok(Node::Object {
            fields: Some(fields),
            raw: &self.source[start..self.pos],
        })
    }

    /// An object starting at `{`, with the members the rules read put in their slots.
    fn object_fields(&mut self, index: Index, fields: &mut Fields<'a>) -> Result<(), SyntaxError> {
        self.pos += 1;
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let key = self.property_name()?;
                let field = field_of(key);
                let nested = match field {
                    Some(Field::ToolCall | Field::ToolResult) if index == Index::Top => Index::Nested,
                    _ => Index::No,
                };
                let value = self.value(nested)?;
                if let Some(field) = field {
                    fields.slots[field as usize] = Some(value);
                }
                self.whitespace();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    Some(_) => return Err(self.error("expected ',' or '}'")),
                    None => return Err(self.error("unexpected end of JSON")),
                }
            }
        }
        Ok(())
    }

    /// A string starting at the opening quote; returns its escaped body.
    fn string(&mut self) -> Result<&'a str, SyntaxError> {
        self.pos += 1;
        let start = self.pos;
        loop {
            // Runs of ordinary bytes are the common case: skip them eight at a time.
            self.pos += ordinary_run(&self.bytes[self.pos..]);
            match self.peek() {
                Some(b'"') => {
                    let body = &self.source[start..self.pos];
                    self.pos += 1;
                    return Ok(body);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 1,
                        Some(b'u') => {
                            let hex = self.bytes.get(self.pos + 1..self.pos + 5);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                return Err(self.error("invalid \\u escape"));
                            }
                            self.pos += 5;
                        }
                        _ => return Err(self.error("invalid escape")),
                    }
                }
                Some(0..=0x1f) => return Err(self.error("control character in a string")),
                Some(_) => self.pos += 1,
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<&'a str, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        Ok(&self.source[start..self.pos])
    }

    /// Validates an array or object without indexing it, iteratively: the stack holds
    /// the closing bracket each open container expects.
    fn skip_container(&mut self) -> Result<(), SyntaxError> {
        let mut stack: Vec<u8> = Vec::new();
        loop {
            // At the start of a value.
            self.whitespace();
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    self.pos += 1;
                    self.whitespace();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                    } else {
                        stack.push(close);
                        if close == b'}' {
                            self.property_name()?;
                        }
                        continue;
                    }
                }
                _ => {
                    self.value(Index::No)?;
                }
            }
            // A value just ended: a comma starts the next one, brackets close containers.
            loop {
                let Some(&close) = stack.last() else {
                    return Ok(());
                };
                self.whitespace();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if close == b'}' {
                            self.property_name()?;
                        }
                        break;
                    }
                    Some(c) if c == close => {
                        self.pos += 1;
                        stack.pop();
                    }
                    Some(_) if close == b'}' => return Err(self.error("expected ',' or '}'")),
                    Some(_) => return Err(self.error("expected ',' or ']'")),
                    None => return Err(self.error("unexpected end of JSON")),
                }
            }
        }
    }

    /// `"name":` inside an object; returns the name's escaped body.
    fn property_name(&mut self) -> Result<&'a str, SyntaxError> {
        self.whitespace();
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a property name"));
        }
        let name = self.string()?;
        self.whitespace();
        if self.peek() != Some(b':') {
            return Err(self.error("expected ':'"));
        }
        self.pos += 1;
        self.whitespace();
        Ok(name)
    }
}
