//! The inputs a history reader reads: a reader over the bytes or the file, its lines
//! (torn and unreadable ones counted), a JSON array's elements or JSON lines one at a
//! time, and where each item is, for the errors.

use std::fmt;
use std::io::Read;

use crate::bytes::value::{self, Json, ParseError, ParseErrorKind};
use crate::reading::array;
use crate::reading::check::{FormatError, Skips};
use crate::reading::format::Input;
use crate::reading::history::HistoryError;
use crate::reading::lines::{self, Lines};

/// A reader of the input, whichever it is.
pub fn reader_of<'a>(input: Input<'a>) -> Box<dyn Read + 'a> {
    match input {
        Input::Bytes(bytes) => Box::new(bytes),
        Input::Reader(reader) => Box::new(reader),
    }
}

/// Lines of a reader or of bytes; with `strict`, a line that cannot be read is refused.
pub fn lines_of<'a>(input: Input<'a>, strict: bool) -> Lines<Box<dyn Read + 'a>> {
    Lines::new(reader_of(input)).strict(strict)
}

/// Fills `block` from `reader` as far as one read goes; 0 at the end.
pub fn read_block(reader: &mut impl Read, block: &mut [u8]) -> Result<usize, HistoryError> {
    loop {
        match reader.read(block) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            read => return read.map_err(lines::read_error),
        }
    }
}

/// Where an item of a history is: a line of a JSONL file, or an element of a JSON array.
#[derive(Debug, Clone, Copy)]
pub enum At {
    Line(usize),
    Element(usize),
}

impl At {
    pub fn error(self, e: impl fmt::Display) -> HistoryError {
        match self {
            At::Line(line) => HistoryError::at_line(line, e),
            At::Element(index) => HistoryError {
                line: None,
                offset: None,
                message: format!("[{index}]: {e}"),
            },
        }
    }
}

pub fn parse_error(e: ParseError, line: usize, last: bool) -> HistoryError {
    if e.kind == ParseErrorKind::Truncated && last {
        HistoryError::at_line(
            line,
            format_args!(
                "truncated JSON: the input ends inside this line (at column {})",
                e.offset + 1
            ),
        )
    } else {
        HistoryError::at_line(line, e)
    }
}

/// The items of a JSON array, or of JSON lines (blank lines skipped), with their places,
/// handed to `each` one at a time as they are read; `each` returns `false` to stop.
pub fn read_items(
    mut reader: impl Read,
    strict: bool,
    mut each: impl FnMut(Json, At) -> Result<bool, HistoryError>,
) -> Result<Skips, HistoryError> {
    // Whole blank lines before the first item are skipped here; the line the first item
    // starts on is read on by the array or line reader.
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut block = vec![0; 64 << 10];
    let mut head = Vec::new();
    let (mut lines_before, mut offset) = (0usize, 0u64);
    let first = loop {
        let n = read_block(&mut reader, &mut block)?;
        if n == 0 {
            if head.iter().all(u8::is_ascii_whitespace) {
                return Ok(Skips::new(strict));
            }
            break 0;
        }
        let from = head.len();
        head.extend_from_slice(&block[..n]);
        let at_start = offset == 0 && lines_before == 0;
        if at_start && head.len() < BOM.len() && BOM.starts_with(&head) {
            continue;
        }
        let skip = if at_start && head.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        let from = from.max(skip);
        if let Some(at) = head[from..].iter().position(|b| !b.is_ascii_whitespace()) {
            break from + at;
        }
        if let Some(end) = memchr::memrchr(b'\n', &head) {
            lines_before += memchr::memchr_iter(b'\n', &head[..=end]).count();
            offset += end as u64 + 1;
            head.drain(..=end);
        }
        if head.len() > lines::MAX_LINE {
            return Err(lines::too_long(Some(lines_before + 1), offset));
        }
    };
    if head.get(first) == Some(&b'[') {
        // The array reader expects JSON alone: a leading byte order mark is dropped.
        if offset == 0 && lines_before == 0 && head.starts_with(BOM) {
            head.drain(..BOM.len());
            offset += BOM.len() as u64;
        }
        let reader = std::io::Cursor::new(head).chain(reader);
        let mut elements = array::Elements::after(reader, lines_before, offset);
        while let Some(element) = elements.next_element()? {
            if !each(element.value, At::Element(element.index))? {
                break;
            }
        }
        return Ok(Skips::new(strict));
    }
    let reader = std::io::Cursor::new(head).chain(reader);
    let mut lines = Lines::after(reader, lines_before, offset).strict(strict);
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        if !each(item, At::Line(number))? {
            break;
        }
    }
    Ok(lines.skips)
}

pub fn format_error(e: FormatError) -> HistoryError {
    HistoryError {
        line: e.line.map(|l| l as u64),
        offset: None,
        message: e.to_string(),
    }
}

/// The values of JSON lines with their line numbers, blank lines skipped. A transcript
/// is a tree of lines, so its conversation is known only once every line is read.
pub fn json_lines(input: Input<'_>, strict: bool) -> Result<(Vec<Json>, Vec<usize>, Skips), HistoryError> {
    let mut lines = lines_of(input, strict);
    let mut values = Vec::new();
    let mut numbers = Vec::new();
    while let Some((value, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        values.push(value);
        numbers.push(number);
    }
    Ok((values, numbers, lines.skips))
}
