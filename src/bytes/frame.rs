//! Cutting a byte stream into event frames: NDJSON lines or Server-Sent Events.
//!
//! Bytes may arrive split anywhere (inside a line, inside a UTF-8 sequence, between the
//! CR and the LF of a CRLF); only the incomplete tail is buffered. Lines are cut as the
//! WHATWG event-stream rules say, in every framing: a byte order mark at the very start
//! is skipped, and CRLF, LF and CR each end one line. SSE frames are `data:` lines ended
//! by a blank line, with `event:`, `id:`, `retry:` and `:` comment lines allowed and
//! ignored; several `data:` lines of one frame are joined with `\n`. A stream whose server
//! writes some events under field names of their own (`topic:`, `thought:`) names them
//! ([`Framer::with_data_fields`]): their lines carry data as `data:` lines do.

use std::borrow::Cow;

/// How the stream is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Decided by the first non-blank line: an SSE field or comment means SSE.
    Auto,
    Ndjson,
    Sse,
}

/// One event's text and where it starts in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'a> {
    pub bytes: Cow<'a, [u8]>,
    /// Already known to be UTF-8 (checked for a whole run of lines at once).
    pub utf8: bool,
    /// Byte offset of the frame's text from the start of the stream (for SSE, of the
    /// first `data:` line's value).
    pub offset: u64,
    /// 1-based line number of the frame's first line.
    pub line: u64,
}

/// An SSE frame being collected.
#[derive(Debug, Default)]
struct SseFrame {
    data: Vec<u8>,
    has_data: bool,
    utf8: bool,
    offset: u64,
    line: u64,
    /// Where its first data line starts.
    start: u64,
}

#[derive(Debug)]
pub struct Framer {
    framing: Framing,
    /// Bytes received but not yet cut into lines.
    pending: Vec<u8>,
    /// `pending` may hold a line break: it holds what followed a failed line. Otherwise
    /// it is the start of one unfinished line, and bytes without a line break only add to
    /// it (a long line arriving in many pieces is scanned once, not once per piece).
    pending_break: bool,
    /// Stream offset and line number of `pending[0]`.
    offset: u64,
    line: u64,
    sse: SseFrame,
    /// The last line ended with a CR that was the last byte received: an LF first in the
    /// next bytes completes that CRLF and ends no line of its own.
    after_cr: bool,
    /// The first bytes were checked for a byte order mark.
    bom_checked: bool,
    /// The rest of a line given up on ([`Framer::drop_unfinished`]) is dropped as it comes.
    dropping_line: bool,
    /// The rest of an SSE frame given up on is dropped, up to the blank line that ends it.
    dropping_frame: bool,
    /// Field names whose lines carry a frame's data, besides `data` (see the module).
    data_fields: &'static [&'static [u8]],
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where the next line end (CR or LF) in `bytes` is.
fn line_end(bytes: &[u8]) -> Option<usize> {
    memchr::memchr2(b'\n', b'\r', bytes)
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

fn looks_like_sse(line: &[u8], data_fields: &[&[u8]]) -> bool {
    [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
        .iter()
        .any(|field| line.starts_with(field))
        || data_field(line, data_fields).is_some()
}

/// The value of a line of one of the `fields` (`name:` then the value, one space after the
/// colon dropped), when it is one.
fn data_field<'l>(line: &'l [u8], fields: &[&[u8]]) -> Option<&'l [u8]> {
    fields.iter().find_map(|field| match line.strip_prefix(*field)? {
        [b':', b' ', value @ ..] | [b':', value @ ..] => Some(value),
        _ => None,
    })
}

impl Framer {
    pub fn new(framing: Framing) -> Self {
        Framer {
            framing,
            pending: Vec::new(),
            pending_break: false,
            offset: 0,
            line: 1,
            sse: SseFrame::default(),
            after_cr: false,
            bom_checked: false,
            dropping_line: false,
            dropping_frame: false,
            data_fields: &[],
        }
    }

    /// This framer, reading lines of the field names `fields` as data lines too (a server
    /// that writes some events under names of their own).
    pub fn with_data_fields(self, fields: &'static [&'static [u8]]) -> Self {
        Framer {
            data_fields: fields,
            ..self
        }
    }

    /// A framer whose first line is numbered `line` (a stream that goes on from lines
    /// read before).
    pub fn starting_at(framing: Framing, line: u64) -> Self {
        Framer {
            line,
            ..Framer::new(framing)
        }
    }

    /// Gives up the unfinished line (and, in SSE, the unfinished frame): what is buffered
    /// is dropped now, and what is left of it is dropped as it arrives, never buffered.
    /// For a frame larger than a reader will take.
    pub fn drop_unfinished(&mut self) {
        self.offset += self.pending.len() as u64;
        self.pending.clear();
        self.pending_break = false;
        self.dropping_line = true;
        if self.sse.has_data {
            self.sse = SseFrame::default();
            self.dropping_frame = true;
        }
    }

    /// Drops the start of `bytes` that belongs to a line given up on.
    fn skip_dropped<'b>(&mut self, bytes: &'b [u8]) -> &'b [u8] {
        if !self.dropping_line {
            return bytes;
        }
        match line_end(bytes) {
            Some(at) => {
                // The dropped line ends here: its line break goes with it.
                self.dropping_line = false;
                let mut next = at + 1;
                if bytes[at] == b'\r' {
                    match bytes.get(next) {
                        Some(b'\n') => next += 1,
                        Some(_) => {}
                        None => self.after_cr = true,
                    }
                }
                self.offset += next as u64;
                self.line += 1;
                &bytes[next..]
            }
            None => {
                self.offset += bytes.len() as u64;
                &[]
            }
        }
    }

    /// Adds `bytes` and hands every complete frame to `each`, in order. When `each` fails,
    /// that frame is dropped, the bytes after it stay buffered for the next call, and the
    /// error is returned.
    pub fn push<E>(
        &mut self,
        bytes: &[u8],
        mut each: impl FnMut(Frame<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let bytes = if self.dropping_line {
            match self.skip_dropped(bytes) {
                [] => return Ok(()),
                rest => rest,
            }
        } else {
            bytes
        };
        if self.pending.is_empty() {
            // Lines are cut straight from the caller's bytes; only a tail is copied.
            let (used, result) = self.lines(bytes, false, &mut each);
            self.pending.extend_from_slice(&bytes[used..]);
            self.pending_break = result.is_err();
            return result;
        }
        let no_line_ends = !self.pending_break && self.bom_checked && line_end(bytes).is_none();
        self.pending.extend_from_slice(bytes);
        if no_line_ends {
            return Ok(());
        }
        self.drain(false, each)
    }

    /// The framing, once the first non-blank line has decided it.
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// Line and byte offset of the unfinished frame (its first line in SSE).
    pub fn position(&self) -> (u64, u64) {
        if self.sse.has_data {
            (self.sse.line, self.sse.offset)
        } else {
            (self.line, self.offset)
        }
    }

    /// Bytes received since the unfinished frame began (in SSE, from its first data
    /// line, as received): what is to be given again to a framer that goes on from the
    /// frames before it.
    pub fn unfinished(&self) -> u64 {
        let start = if self.sse.has_data {
            self.sse.start
        } else {
            self.offset
        };
        (self.offset + self.pending.len() as u64).saturating_sub(start)
    }

    /// The last byte received was a CR that ended a line: an LF first in the next bytes
    /// completes that CRLF. Part of what a framer that goes on from here must know.
    pub fn after_cr(&self) -> bool {
        self.after_cr
    }

    /// This framer, going on after a CR that ended a line ([`Framer::after_cr`]).
    pub fn following_cr(self, after_cr: bool) -> Self {
        Framer { after_cr, ..self }
    }

    /// Bytes held for an unfinished line or SSE frame.
    pub fn buffered(&self) -> usize {
        self.pending.len() + self.sse.data.len()
    }

    /// Processes what is left as if the stream ended with a line break and a blank line.
    pub fn finish<E>(&mut self, mut each: impl FnMut(Frame<'_>) -> Result<(), E>) -> Result<(), E> {
        self.dropping_line = false;
        self.dropping_frame = false;
        self.drain(true, &mut each)?;
        self.end_sse_frame(&mut each)
    }

    fn drain<E>(&mut self, at_end: bool, mut each: impl FnMut(Frame<'_>) -> Result<(), E>) -> Result<(), E> {
        let mut pending = std::mem::take(&mut self.pending);
        let (used, result) = self.lines(&pending, at_end, &mut each);
        pending.drain(..used);
        self.pending = pending;
        self.pending_break = result.is_err();
        result
    }

    /// Hands the complete lines of `buffer` (all of it `at_end`) to [`Self::line`]; returns
    /// how many bytes were used, up to and including a failing line.
    fn lines<E>(
        &mut self,
        buffer: &[u8],
        at_end: bool,
        each: &mut impl FnMut(Frame<'_>) -> Result<(), E>,
    ) -> (usize, Result<(), E>) {
        let mut start = 0;
        if !self.bom_checked {
            if !at_end && buffer.len() < BOM.len() && BOM.starts_with(buffer) {
                // Perhaps the start of a byte order mark: wait for the rest.
                return (0, Ok(()));
            }
            self.bom_checked = true;
            if buffer.starts_with(BOM) {
                start = BOM.len();
            }
        }
        if self.after_cr && start < buffer.len() {
            self.after_cr = false;
            if buffer[start] == b'\n' {
                start += 1;
            }
        }
        // Lines end at a line break, never inside a UTF-8 sequence, so one check of all the
        // complete lines (usually valid) spares a check per line.
        let complete = if at_end {
            buffer.len()
        } else {
            memchr::memrchr2(b'\n', b'\r', buffer).map_or(0, |i| i + 1)
        };
        let utf8 = simdutf8::basic::from_utf8(&buffer[start.min(complete)..complete]).is_ok();
        let mut result = Ok(());
        while start < buffer.len() {
            let (line_end, next) = match line_end(&buffer[start..]) {
                Some(i) if buffer[start + i] == b'\r' => {
                    let cr = start + i;
                    match buffer.get(cr + 1) {
                        Some(b'\n') => (cr, cr + 2),
                        Some(_) => (cr, cr + 1),
                        None => {
                            // The LF of a CRLF may come with the next bytes.
                            self.after_cr = !at_end;
                            (cr, cr + 1)
                        }
                    }
                }
                Some(i) => (start + i, start + i + 1),
                None if at_end => (buffer.len(), buffer.len()),
                None => break,
            };
            let line = &buffer[start..line_end];
            let offset = self.offset + start as u64;
            let line_number = self.line;
            self.line += 1;
            start = next;
            if let Err(error) = self.line(line, utf8, offset, line_number, each) {
                result = Err(error);
                break;
            }
        }
        self.offset += start as u64;
        (start, result)
    }

    fn line<E>(
        &mut self,
        line: &[u8],
        utf8: bool,
        offset: u64,
        line_number: u64,
        each: &mut impl FnMut(Frame<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.framing == Framing::Auto && !is_blank(line) {
            self.framing = if looks_like_sse(line, self.data_fields) {
                Framing::Sse
            } else {
                Framing::Ndjson
            };
        }
        match self.framing {
            Framing::Auto => Ok(()),
            Framing::Ndjson if is_blank(line) => Ok(()),
            Framing::Ndjson => each(Frame {
                bytes: Cow::Borrowed(line),
                utf8,
                offset,
                line: line_number,
            }),
            Framing::Sse => self.sse_line(line, utf8, offset, line_number, each),
        }
    }

    fn sse_line<E>(
        &mut self,
        line: &[u8],
        utf8: bool,
        offset: u64,
        line_number: u64,
        each: &mut impl FnMut(Frame<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if line.is_empty() {
            self.dropping_frame = false;
            return self.end_sse_frame(each);
        }
        if self.dropping_frame {
            return Ok(());
        }
        let value = match line.strip_prefix(b"data") {
            Some(b"") => b"",
            Some([b':', b' ', value @ ..]) | Some([b':', value @ ..]) => value,
            // `event:`, `id:`, `retry:`, comments and other fields carry no event data,
            // unless the stream's server writes events under that name.
            _ => match data_field(line, self.data_fields) {
                Some(value) => value,
                None => return Ok(()),
            },
        };
        let frame = &mut self.sse;
        if frame.has_data {
            frame.data.push(b'\n');
            frame.utf8 &= utf8;
        } else {
            frame.has_data = true;
            frame.utf8 = utf8;
            // Where the value starts, so that an offset within the data is one in the stream.
            frame.offset = offset + (line.len() - value.len()) as u64;
            frame.line = line_number;
            frame.start = offset;
        }
        frame.data.extend_from_slice(value);
        Ok(())
    }

    fn end_sse_frame<E>(&mut self, each: &mut impl FnMut(Frame<'_>) -> Result<(), E>) -> Result<(), E> {
        if !self.sse.has_data {
            return Ok(());
        }
        // The data buffer is lent to `each` and kept for the next frame (no allocation
        // per frame).
        let data = std::mem::take(&mut self.sse.data);
        let result = each(Frame {
            bytes: Cow::Borrowed(&data),
            utf8: self.sse.utf8,
            offset: self.sse.offset,
            line: self.sse.line,
        });
        self.sse = SseFrame {
            data,
            ..SseFrame::default()
        };
        self.sse.data.clear();
        result
    }
}
