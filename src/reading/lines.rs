//! Lines of a history read block by block, so a large file is never whole in memory.
//!
//! Memory stays bounded whatever the input: a line longer than [`MAX_LINE`] is refused,
//! and a line that cannot be JSON whatever follows (it starts with a byte no JSON value
//! starts with, or holds bytes that are not UTF-8) is refused as soon as its first block
//! is read, not when its end is found (`/dev/zero` has none).

use std::collections::VecDeque;
use std::io::{self, Read};

use crate::bytes::value::{split_values, ParseError, ParseErrorKind};
use crate::reading::check::{unreadable_kind, Skips, NOT_JSON, NOT_UTF8};
use crate::reading::sniff::{SNIFF_BYTES, SNIFF_VALUES};

use crate::reading::history::HistoryError;

pub(crate) const BLOCK: usize = 1 << 20;

/// The longest line (or array element) a history may have: 256 MiB, half of the longest
/// string V8 can hold, and far above the largest line a real session writes (a
/// base64-encoded screenshot is a few megabytes).
pub const MAX_LINE: usize = 256 << 20;

/// The error for an item longer than [`MAX_LINE`], starting at `offset`.
pub(crate) fn too_long(line: Option<usize>, offset: u64) -> HistoryError {
    let place = match line {
        Some(line) => format!("line {line}, byte {offset}"),
        None => format!("byte {offset}"),
    };
    HistoryError {
        line: line.map(|l| l as u64),
        offset: Some(offset),
        message: format!(
            "{place}: longer than {} MiB, the longest line a history may have",
            MAX_LINE >> 20
        ),
    }
}

/// Whether a partly read line cannot become valid JSON however it goes on: its first
/// non-blank byte starts no JSON value, or it holds bytes that are not UTF-8 (an
/// incomplete sequence at the end may still be completed).
pub(crate) fn hopeless(partial: &[u8]) -> bool {
    let partial = partial.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(partial);
    match partial.iter().find(|b| !b.is_ascii_whitespace()) {
        None => return false,
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {}
        Some(_) => return true,
    }
    matches!(simdutf8::compat::from_utf8(partial), Err(e) if e.error_len().is_some())
}

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
    /// Length of the unfinished line when [`hopeless`] last looked at it.
    checked: usize,
    /// The lines are JSON texts (read by [`Self::next_parsed`]): one that cannot be is
    /// handed on before its end.
    json: bool,
    /// The last line was handed on before its end (it can be no JSON); the rest of it is
    /// passed over before the next line.
    cut_short: bool,
    discard_rest: bool,
    /// Values found on a line beside others, not handed on yet, with their line and
    /// whether each starts it.
    pending: VecDeque<(String, usize, bool)>,
    /// The value handed on last starts its line (it is not one found after another).
    pub starts_line: bool,
    /// The value handed on last is its whole line.
    pub whole_line: bool,
    /// A value was read: lines that cannot be read are skipped from now on.
    read_any: bool,
    /// The error of the first line that could not be read before any value was: the
    /// file's refusal when no value follows within the window detection looks in
    /// ([`SNIFF_VALUES`] lines, [`SNIFF_BYTES`] bytes).
    unread_first: Option<HistoryError>,
    /// Lines skipped because they could not be read.
    pub skips: Skips,
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
            checked: 0,
            json: false,
            cut_short: false,
            discard_rest: false,
            pending: VecDeque::new(),
            starts_line: true,
            whole_line: true,
            read_any: false,
            unread_first: None,
            skips: Skips::default(),
        }
    }

    /// Lines of `reader`, which follows `lines` lines and `offset` bytes already read.
    pub fn after(reader: R, lines: usize, offset: u64) -> Self {
        Lines {
            number: lines,
            base: offset,
            ..Lines::new(reader)
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
        let read = read_after(&mut self.reader, &mut self.buf, self.end)?;
        if read == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.end += read;
        Ok(true)
    }

    /// The next line (the last one may lack its `\n`), checked as UTF-8; `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, HistoryError> {
        Ok(match self.next_raw()? {
            None => None,
            Some((Ok(text), number, offset)) => Some(Line { text, number, offset }),
            Some((Err(e), _, _)) => return Err(e),
        })
    }

    /// Passes over the rest of a line handed on before its end, without keeping it.
    fn pass_rest(&mut self) -> Result<(), HistoryError> {
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                self.start += at + 1;
                self.discard_rest = false;
                return Ok(());
            }
            self.start = self.end;
            if !self.fill().map_err(read_error)? {
                self.discard_rest = false;
                return Ok(());
            }
        }
    }

    /// The next line, its number and offset; the text is an error when it is not UTF-8
    /// (the line is passed over either way).
    #[allow(clippy::type_complexity)]
    fn next_raw(&mut self) -> Result<Option<(Result<&str, HistoryError>, usize, u64)>, HistoryError> {
        if self.discard_rest {
            self.pass_rest()?;
        }
        self.cut_short = false;
        let mut searched = self.start;
        let end = loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf[searched..self.end]) {
                break searched + at;
            }
            searched = self.end;
            let before = self.start;
            let filled = self.fill().map_err(|e| match is_too_long(&e) {
                true => too_long(Some(self.number + 1), self.base + self.start as u64),
                false => read_error(e),
            })?;
            if !filled {
                if self.start == self.end {
                    return Ok(None);
                }
                break self.end;
            }
            searched -= before - self.start;
            // A line that cannot be JSON is handed on (and refused) now, not at its end;
            // looked at again each time it has doubled, so a long line costs one pass more.
            let partial = self.end - self.start;
            if self.json && partial >= 2 * self.checked.max(BLOCK / 2) {
                self.checked = partial;
                let partial = &self.buf[self.start..self.end];
                if hopeless(partial) {
                    self.cut_short = true;
                    // Without a sequence the next block may complete.
                    break match simdutf8::compat::from_utf8(partial) {
                        Err(e) if e.error_len().is_none() => self.start + e.valid_up_to(),
                        _ => self.end,
                    };
                }
            }
        };
        self.checked = 0;
        let start = self.start;
        self.start = match end < self.end && self.buf[end] == b'\n' {
            true => end + 1,
            false => end,
        };
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
        });
        Ok(Some((text, self.number, offset)))
    }

    /// Lines are JSON texts: one that cannot become JSON however it goes on is handed on
    /// after its first block, not at its end (see [`hopeless`]).
    pub fn expect_json(&mut self) {
        self.json = true;
    }

    /// Refuse a line that cannot be read (strict) instead of skipping and counting it in
    /// [`Self::skips`].
    pub fn strict(mut self, strict: bool) -> Self {
        self.skips.strict = strict;
        self
    }

    /// The next non-blank line, parsed by `parse`, and its number. A line that does not
    /// parse is reported by `error(e, number, is_last)` when strict; `is_last`: nothing
    /// but blank lines follows (so a line cut short can be told from one that is wrong).
    /// Otherwise it is read as far as it can be: each complete value on it is handed on
    /// (an append cut short and the next entry written onto the same line), and what is
    /// no value is skipped and counted in [`Self::skips`]. Before the first value, such
    /// lines are looked past only within the window detection looks in (the first
    /// [`SNIFF_VALUES`] lines and [`SNIFF_BYTES`] bytes), and only whole UTF-8 lines: a file with no value there, or that starts
    /// with bytes that are no text, is no file of this format and is refused with its
    /// first line that could not be read.
    pub fn next_parsed<T>(
        &mut self,
        parse: impl Fn(&str) -> Result<T, ParseError>,
        error: impl Fn(ParseError, usize, bool) -> HistoryError,
    ) -> Result<Option<(T, usize)>, HistoryError> {
        self.expect_json();
        self.next_parsed_of(|_| true, parse, error)
    }

    /// [`Lines::next_parsed`] of the lines `wanted` keeps (by number); the others are
    /// not parsed.
    pub fn next_parsed_of<T>(
        &mut self,
        wanted: impl Fn(usize) -> bool,
        parse: impl Fn(&str) -> Result<T, ParseError>,
        error: impl Fn(ParseError, usize, bool) -> HistoryError,
    ) -> Result<Option<(T, usize)>, HistoryError> {
        loop {
            if let Some((text, number, first)) = self.pending.pop_front() {
                self.starts_line = first;
                self.whole_line = false;
                match parse(&text) {
                    Ok(parsed) => return Ok(Some((parsed, number))),
                    // Checked when the line was split.
                    Err(e) => return Err(error(e, number, false)),
                }
            }
            let lenient = !self.skips.strict && self.read_any;
            let line = match self.next_raw()? {
                // Nothing but lines that could not be read: refused at the first.
                None => {
                    return match self.unread_first.take() {
                        Some(first) if !self.read_any => Err(first),
                        _ => Ok(None),
                    }
                }
                Some((Ok(text), number, offset)) => Line { text, number, offset },
                Some((Err(e), number, _)) => {
                    if !lenient {
                        // Before any value: refused at the first line that could not be read.
                        return Err(self.unread_first.take().unwrap_or(e));
                    }
                    let _ = self.skips.unreadable(number, NOT_UTF8, "invalid UTF-8");
                    if self.cut_short {
                        self.discard_rest = true;
                    }
                    continue;
                }
            };
            if !wanted(line.number) || line.text.bytes().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            let (number, offset) = (line.number, line.offset);
            let e = match parse(line.text) {
                Ok(parsed) => {
                    self.read_any = true;
                    self.starts_line = true;
                    self.whole_line = true;
                    return Ok(Some((parsed, number)));
                }
                Err(e) => e,
            };
            // A line that does not parse is rare: it is copied, and split.
            let text = line.text.to_owned();
            let (values, torn) = split_values(&text, &parse);
            let cut = self.cut_short;
            if !torn.is_empty() && (self.skips.strict || !self.read_any) {
                let look_past =
                    !self.skips.strict && !cut && number <= SNIFF_VALUES && offset < SNIFF_BYTES as u64;
                if !look_past {
                    if let Some(first) = self.unread_first.take() {
                        return Err(first);
                    }
                    let last = e.kind == ParseErrorKind::Truncated && !cut && self.rest_is_blank();
                    return Err(error(e, number, last));
                }
                if self.unread_first.is_none() {
                    let last = e.kind == ParseErrorKind::Truncated && self.rest_is_blank();
                    self.unread_first = Some(error(e, number, last));
                }
            }
            let values: Vec<(String, bool)> = values
                .into_iter()
                .map(|v| (text[v.clone()].to_string(), text[..v.start].trim().is_empty()))
                .collect();
            let followed = !values.is_empty();
            for (at, problem) in torn {
                let kind = match cut {
                    true => NOT_JSON,
                    false => unreadable_kind(at, &problem, followed),
                };
                let _ = self.skips.unreadable(number, kind, problem);
            }
            if cut {
                self.discard_rest = true;
            }
            self.pending
                .extend(values.into_iter().map(|(v, first)| (v, number, first)));
            if !self.pending.is_empty() {
                self.read_any = true;
            }
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

/// The line being read would pass [`MAX_LINE`].
#[derive(Debug)]
struct TooLong;

/// Whether a read failed because its line would pass [`MAX_LINE`].
pub(crate) fn is_too_long(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<TooLong>())
}

/// One read into `buf` after its first `end` bytes (0 at the end of the input). The
/// buffer grows first when less than half a block is free, to room for the longest line
/// and one block more, never beyond: a longer line fails with [`is_too_long`].
pub(crate) fn read_after(reader: &mut impl Read, buf: &mut Vec<u8>, end: usize) -> io::Result<usize> {
    if buf.len() - end < BLOCK / 2 {
        if end > MAX_LINE {
            return Err(io::Error::other(TooLong));
        }
        buf.resize((buf.len() * 2).clamp(BLOCK, MAX_LINE + BLOCK), 0);
    }
    loop {
        match reader.read(&mut buf[end..]) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            read => return read,
        }
    }
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a line too long")
    }
}

impl std::error::Error for TooLong {}

pub(crate) fn read_error(e: io::Error) -> HistoryError {
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
