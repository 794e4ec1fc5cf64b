//! A JSON scanner for event lines: validates the whole text as `JSON.parse` would, and
//! indexes only the members the rules read (the event object and the objects directly
//! inside it). Every other value is kept as its exact source text.
//!
//! Nesting is handled with an explicit stack, so depth is bounded by memory, not by the
//! call stack.

use std::fmt;

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
    /// `members` is `Some` for indexed objects (last duplicate key wins on lookup, as in
    /// `JSON.parse`); `raw` is the object's source text either way.
    Object {
        members: Option<Vec<(&'a str, Node<'a>)>>,
        raw: &'a str,
    },
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

    /// The member `key` of an indexed object (the last one, for duplicate keys).
    pub fn member(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Object {
                members: Some(members),
                ..
            } => members
                .iter()
                .rev()
                .find(|(name, _)| key_matches(name, key))
                .map(|(_, value)| value),
            _ => None,
        }
    }
}

/// Whether the escaped key body `name` decodes to `key` (plain ASCII keys compare bytes).
fn key_matches(name: &str, key: &str) -> bool {
    if !name.contains('\\') {
        return name == key;
    }
    super::text::decode_utf16(name).eq(key.encode_utf16())
}

/// Scans `source` as one JSON text. Objects at nesting levels below `index_depth` are
/// indexed (level 0 is the top value).
pub fn scan(source: &str, index_depth: usize) -> Result<Node<'_>, SyntaxError> {
    let mut scanner = Scanner {
        bytes: source.as_bytes(),
        source,
        pos: 0,
    };
    scanner.whitespace();
    let node = scanner.value(0, index_depth)?;
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

    fn value(&mut self, depth: usize, index_depth: usize) -> Result<Node<'a>, SyntaxError> {
        match self.peek() {
            Some(b'{') if depth < index_depth => self.indexed_object(depth, index_depth),
            Some(b'{' | b'[') => {
                let start = self.pos;
                self.skip_container()?;
                let raw = &self.source[start..self.pos];
                Ok(if raw.starts_with('{') {
                    Node::Object { members: None, raw }
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

    fn indexed_object(&mut self, depth: usize, index_depth: usize) -> Result<Node<'a>, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let key = self.property_name()?;
                let value = self.value(depth + 1, index_depth)?;
                members.push((key, value));
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
        Ok(Node::Object {
            members: Some(members),
            raw: &self.source[start..self.pos],
        })
    }

    /// A string starting at the opening quote; returns its escaped body.
    fn string(&mut self) -> Result<&'a str, SyntaxError> {
        self.pos += 1;
        let start = self.pos;
        loop {
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
                    self.value(usize::MAX, 0)?;
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
