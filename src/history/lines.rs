//! Lines of a history read block by block, so a large file is never whole in memory.

use std::io::{self, Read};

use crate::formats::value::{ParseError, ParseErrorKind};

use super::HistoryError;

const BLOCK: usize = 1 << 20;

/// One line, without its `\n`.
pub struct Line<'a> {
    pub text: &'a str,
    /// 1-based.
    pub number: usize,
    /// Byte offset of its first byte from the start of the input.
    pub offset: u64,
}

pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// Offset of `buf[0]` in the input.
    base: u64,
    number: usize,
    eof: bool,
}

impl<R: Read> Lines<R> {
    pub fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            base: 0,
            number: 0,
            eof: false,
        }
    }

    /// Reads more input after what is unread; `false` at the end of it.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < BLOCK / 2 {
            self.buf.resize((self.buf.len() * 2).max(BLOCK), 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next line (the last one may lack its `\n`), checked as UTF-8; `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, HistoryError> {
        let mut searched = self.start;
        let end = loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf[searched..self.end]) {
                break searched + at;
            }
            searched = self.end;
            let before = self.start;
            if !self.fill().map_err(read_error)? {
                if self.start == self.end {
                    return Ok(None);
                }
                break self.end;
            }
            searched -= before - self.start;
        };
        let start = self.start;
        self.start = (end + 1).min(self.end);
        self.number += 1;
        let mut bytes = &self.buf[start..end];
        let offset = self.base + start as u64;
        if self.number == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let text = simdutf8::compat::from_utf8(bytes).map_err(|e| {
            let at = offset + (end - start - bytes.len()) as u64 + e.valid_up_to() as u64;
            HistoryError {
                line: Some(self.number as u64),
                offset: Some(at),
                message: format!("line {}, byte {at}: invalid UTF-8", self.number),
            }
        })?;
        Ok(Some(Line {
            text,
            number: self.number,
            offset,
        }))
    }

    /// The next non-blank line, parsed by `parse`, and its number. A line that does not
    /// parse is reported by `error(e, number, is_last)`; `is_last`: nothing but blank
    /// lines follows (so a line cut short can be told from one that is wrong).
    pub fn next_parsed<T>(
        &mut self,
        parse: impl Fn(&str) -> Result<T, ParseError>,
        error: impl FnOnce(ParseError, usize, bool) -> HistoryError,
    ) -> Result<Option<(T, usize)>, HistoryError> {
        loop {
            let Some(line) = self.next_line()? else {
                return Ok(None);
            };
            if line.text.bytes().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            let number = line.number;
            return match parse(line.text) {
                Ok(parsed) => Ok(Some((parsed, number))),
                Err(e) => {
                    let last = e.kind == ParseErrorKind::Truncated && self.rest_is_blank();
                    Err(error(e, number, last))
                }
            };
        }
    }

    /// [`Lines::next_parsed`] of the lines `wanted` keeps (by number); the others are
    /// not parsed.
    pub fn next_parsed_of<T>(
        &mut self,
        wanted: impl Fn(usize) -> bool,
        parse: impl Fn(&str) -> Result<T, ParseError>,
        error: impl FnOnce(ParseError, usize, bool) -> HistoryError,
    ) -> Result<Option<(T, usize)>, HistoryError> {
        loop {
            let Some(line) = self.next_line()? else {
                return Ok(None);
            };
            if !wanted(line.number) || line.text.bytes().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            let number = line.number;
            return match parse(line.text) {
                Ok(parsed) => Ok(Some((parsed, number))),
                Err(e) => {
                    let last = e.kind == ParseErrorKind::Truncated && self.rest_is_blank();
                    Err(error(e, number, last))
                }
            };
        }
    }

    /// Whether nothing but whitespace is left to read.
    fn rest_is_blank(&mut self) -> bool {
        loop {
            if !self.buf[self.start..self.end].iter().all(u8::is_ascii_whitespace) {
                return false;
            }
            self.start = self.end;
            match self.fill() {
                Ok(true) => continue,
                Ok(false) => return true,
                Err(_) => return false,
            }
        }
    }
}

fn read_error(e: io::Error) -> HistoryError {
    HistoryError {
        line: None,
        offset: None,
        message: format!("reading failed: {e}"),
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
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn collect(data: &[u8], step: usize) -> Vec<(Vec<u8>, usize, u64)> {
        let mut lines = Lines::new(Trickle { data, step });
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            out.push((line.text.as_bytes().to_vec(), line.number, line.offset));
        }
        out
    }

    #[test]
    fn lines_numbers_and_offsets_whatever_the_reads() {
        let long = "é".repeat(BLOCK);
        let text = format!("\u{feff}one\n\ntwo\r\n{long}\nlast");
        let expected = vec![
            (b"one".to_vec(), 1, 0),
            (b"".to_vec(), 2, 7),
            (b"two\r".to_vec(), 3, 8),
            (long.clone().into_bytes(), 4, 13),
            (b"last".to_vec(), 5, 13 + long.len() as u64 + 1),
        ];
        for step in [1, 3, 4096, usize::MAX] {
            if step == 1 {
                // Byte by byte through a 2 MB line is slow; a short text shows the same.
                assert_eq!(
                    collect(b"a\nbc\n", 1),
                    vec![(b"a".to_vec(), 1, 0), (b"bc".to_vec(), 2, 2)]
                );
                continue;
            }
            assert_eq!(collect(text.as_bytes(), step), expected, "step {step}");
        }
    }

    #[test]
    fn invalid_utf8_is_placed_and_the_rest_can_be_judged() {
        let mut lines = Lines::new(&b"ok\nab\xFFc\n"[..]);
        assert_eq!(lines.next_line().unwrap().unwrap().text, "ok");
        let error = lines.next_line().err().unwrap();
        assert_eq!((error.line, error.offset), (Some(2), Some(5)));
        let mut lines = Lines::new(&b"{\"a\":\n \n\t\n"[..]);
        lines.next_line().unwrap();
        assert!(lines.rest_is_blank());
        let mut lines = Lines::new(&b"{\"a\":\n \nx"[..]);
        lines.next_line().unwrap();
        assert!(!lines.rest_is_blank());
    }
}
