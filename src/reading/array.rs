//! The elements of a JSON array read one at a time from a byte reader, so a history
//! stored as one large array is never whole in memory: only the element being read is.
//!
//! The splitter only finds where each element ends (the `,` or `]` outside strings at
//! the array's own depth); each element is then checked and parsed by the one JSON
//! reader, so an element is exactly what [`value::parse`](crate::bytes::value::parse)
//! of the whole array would have made of it.

use std::io::Read;

use crate::bytes::value::{self, Json, ParseError};

use crate::reading::history::HistoryError;
use crate::reading::lines::{hopeless, is_too_long, read_after, read_error, too_long, BLOCK};

/// What comes next in the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// The opening `[`.
    Open,
    /// The first element or `]`.
    First,
    /// `,` or `]`.
    Separator,
    /// Nothing but whitespace.
    End,
}

/// One element and its index.
pub struct Element {
    pub value: Json,
    pub index: usize,
}

pub struct Elements<R> {
    reader: R,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// Offset of `buf[0]` in the input.
    base: u64,
    /// 1-based line of `buf[start]`.
    line: usize,
    eof: bool,
    next: Next,
    index: usize,
}

fn error_at(line: usize, offset: u64, message: impl std::fmt::Display) -> HistoryError {
    HistoryError {
        line: Some(line as u64),
        offset: Some(offset),
        message: format!("line {line}: {message}"),
    }
}

/// JSON's whitespace.
fn blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<R: Read> Elements<R> {
    /// The array of `reader`, which follows `lines` line breaks and `offset` bytes already
    /// read (blank ones, and a byte order mark).
    pub fn after(reader: R, lines: usize, offset: u64) -> Self {
        Elements {
            reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            base: offset,
            line: lines + 1,
            eof: false,
            next: Next::Open,
            index: 0,
        }
    }

    fn offset(&self, at: usize) -> u64 {
        self.base + at as u64
    }

    /// Reads more input after what is unread, keeping `buf[keep..]`; `false` at the end.
    fn fill(&mut self, keep: usize) -> Result<bool, HistoryError> {
        if self.eof {
            return Ok(false);
        }
        if keep > 0 {
            self.buf.copy_within(keep..self.end, 0);
            self.base += keep as u64;
            self.end -= keep;
            self.start -= keep;
        }
        let read =
            read_after(&mut self.reader, &mut self.buf, self.end).map_err(|e| match is_too_long(&e) {
                true => too_long(Some(self.line), self.base),
                false => read_error(e),
            })?;
        if read == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.end += read;
        Ok(true)
    }

    /// The next byte that is not whitespace (not consumed); `None` at the end of input.
    fn peek(&mut self) -> Result<Option<u8>, HistoryError> {
        loop {
            while self.start < self.end {
                let b = self.buf[self.start];
                if !blank(b) {
                    return Ok(Some(b));
                }
                if b == b'\n' {
                    self.line += 1;
                }
                self.start += 1;
            }
            if !self.fill(self.start)? {
                return Ok(None);
            }
        }
    }

    fn unexpected(&self, b: Option<u8>, expected: &str) -> HistoryError {
        let at = self.offset(self.start);
        let got = match b {
            None => "the end of the input".to_string(),
            Some(b) if b.is_ascii_graphic() => format!("'{}'", b as char),
            Some(b) => format!("byte 0x{b:02x}"),
        };
        error_at(
            self.line,
            at,
            format_args!("invalid JSON: expected {expected}, got {got} (byte {at})"),
        )
    }

    /// The next element, parsed; `None` after the closing `]` (and nothing but whitespace
    /// after it).
    pub fn next_element(&mut self) -> Result<Option<Element>, HistoryError> {
        loop {
            let b = self.peek()?;
            match (self.next, b) {
                (Next::Open, Some(b'[')) => {
                    self.start += 1;
                    self.next = Next::First;
                }
                (Next::Open, other) => return Err(self.unexpected(other, "'['")),
                (Next::First | Next::Separator, Some(b']')) => {
                    self.start += 1;
                    self.next = Next::End;
                }
                (Next::Separator, Some(b',')) => {
                    self.start += 1;
                    match self.peek()? {
                        Some(b) if b != b']' => return self.element().map(Some),
                        other => return Err(self.unexpected(other, "an element after ','")),
                    }
                }
                (Next::Separator, other) => return Err(self.unexpected(other, "',' or ']'")),
                (Next::First, Some(_)) => return self.element().map(Some),
                (Next::First, None) => return Err(self.unexpected(None, "an element or ']'")),
                (Next::End, None) => return Ok(None),
                (Next::End, other) => return Err(self.unexpected(other, "nothing after the array")),
            }
        }
    }

    /// Reads the element starting at `buf[start]` up to its `,` or `]`, and parses it.
    fn element(&mut self) -> Result<Element, HistoryError> {
        let mut at = self.start;
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        let mut checked = 0usize;
        let stop = loop {
            let mut found = None;
            for (i, &b) in self.buf[at..self.end].iter().enumerate() {
                if in_string {
                    match b {
                        _ if escaped => escaped = false,
                        b'\\' => escaped = true,
                        b'"' => in_string = false,
                        _ => {}
                    }
                    continue;
                }
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b',' | b']' if depth == 0 => {
                        found = Some(at + i);
                        break;
                    }
                    // A closer with nothing open: the element cannot be valid, and the
                    // reader says so at this byte.
                    b'}' if depth == 0 => {
                        found = Some(at + i + 1);
                        break;
                    }
                    b'}' | b']' => depth -= 1,
                    _ => {}
                }
            }
            if let Some(stop) = found {
                break stop;
            }
            at = self.end;
            let partial = self.end - self.start;
            if partial >= 2 * checked.max(BLOCK / 2) {
                checked = partial;
                if hopeless(&self.buf[self.start..self.end]) {
                    break self.end;
                }
            }
            let before = self.start;
            if !self.fill(self.start)? {
                break self.end;
            }
            at -= before - self.start;
        };
        let mut text_end = stop;
        while text_end > self.start && blank(self.buf[text_end - 1]) {
            text_end -= 1;
        }
        let bytes = &self.buf[self.start..text_end];
        let (line, offset) = (self.line, self.offset(self.start));
        let line_of =
            |within: usize| line + memchr::memchr_iter(b'\n', &bytes[..within.min(bytes.len())]).count();
        let text = simdutf8::compat::from_utf8(bytes).map_err(|e| {
            let bad = offset + e.valid_up_to() as u64;
            let line = line_of(e.valid_up_to());
            HistoryError {
                line: Some(line as u64),
                offset: Some(bad),
                message: format!("line {line}, byte {bad}: invalid UTF-8"),
            }
        })?;
        let value = value::parse_str(text).map_err(|e| {
            let line = line_of(e.offset);
            let absolute = ParseError {
                kind: e.kind,
                offset: offset as usize + e.offset,
            };
            error_at(line, absolute.offset as u64, absolute)
        })?;
        // An element that ends at the end of the input is refused by the parser, or it is
        // a complete value with no `]` after it.
        if stop == self.end {
            self.line += memchr::memchr_iter(b'\n', &self.buf[self.start..stop]).count();
            self.start = stop;
            return Err(self.unexpected(None, "',' or ']'"));
        }
        self.line += memchr::memchr_iter(b'\n', &self.buf[self.start..stop]).count();
        self.start = stop;
        self.next = Next::Separator;
        let index = self.index;
        self.index += 1;
        Ok(Element { value, index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes per read.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn all(text: &str, step: usize) -> Result<Vec<(Json, usize)>, HistoryError> {
        let mut elements = Elements::after(
            Trickle {
                data: text.as_bytes(),
                step,
            },
            0,
            0,
        );
        let mut out = Vec::new();
        while let Some(e) = elements.next_element()? {
            out.push((e.value, e.index));
        }
        Ok(out)
    }

    #[test]
    fn elements_are_what_the_whole_array_parses_to_whatever_the_reads() {
        let text = "[ {\"a\": \"x,]}\\\"\"},\n [1, [2, {\"b\": []}]] ,\"s\"\n,3.5, null ]\n\n";
        let Ok(Json::Array(whole)) = value::parse(text.as_bytes()) else {
            panic!("the sample is an array");
        };
        for step in [1, 2, 7, usize::MAX] {
            let got = all(text, step).unwrap();
            let values: Vec<Json> = got.iter().map(|e| e.0.clone()).collect();
            assert_eq!(values, whole, "step {step}");
            let indexes: Vec<usize> = got.iter().map(|e| e.1).collect();
            assert_eq!(indexes, vec![0, 1, 2, 3, 4]);
        }
        assert!(all("[]", 1).unwrap().is_empty());
        assert!(all(" [ \n ] \n", 3).unwrap().is_empty());
    }

    #[test]
    fn a_bad_array_is_refused_at_its_first_fault() {
        let cases = [
            (
                "[1,]",
                "line 1: invalid JSON: expected an element after ',', got ']' (byte 3)",
            ),
            ("[1 2]", "line 1: invalid JSON: text after the value at column 4"),
            ("[1}", "line 1: invalid JSON: text after the value at column 3"),
            (
                "[1",
                "line 1: invalid JSON: expected ',' or ']', got the end of the input (byte 2)",
            ),
            ("[{\"a\":", "line 1: the JSON text ends early (at column 7)"),
            (
                "[1]\nx",
                "line 2: invalid JSON: expected nothing after the array, got 'x' (byte 4)",
            ),
            (
                "[\n\n\"a\u{1}\"]",
                "line 3: invalid JSON: unexpected byte 0x01 at column 6",
            ),
            ("x", "line 1: invalid JSON: expected '[', got 'x' (byte 0)"),
        ];
        for (text, message) in cases {
            for step in [1, usize::MAX] {
                assert_eq!(
                    all(text, step).err().map(|e| e.message),
                    Some(message.to_string()),
                    "{text:?}"
                );
            }
        }
        let mut bad = b"[\"ok\",\n\"".to_vec();
        bad.extend_from_slice(b"\xFF\"]");
        let mut elements = Elements::after(&bad[..], 0, 0);
        elements.next_element().unwrap();
        let error = elements.next_element().err().unwrap();
        assert_eq!((error.line, error.offset), (Some(2), Some(8)));
    }

    #[test]
    fn an_element_that_cannot_be_json_is_refused_before_its_end() {
        // Four megabytes of NUL in an array, read without ever holding them all.
        let mut data = b"[".to_vec();
        data.resize(4 << 20, 0);
        let mut elements = Elements::after(
            Trickle {
                data: &data,
                step: 64 << 10,
            },
            0,
            0,
        );
        let error = elements.next_element().err().unwrap();
        assert_eq!(error.offset, Some(1));
        assert!(elements.buf.len() <= 2 * BLOCK, "{}", elements.buf.len());
    }
}
