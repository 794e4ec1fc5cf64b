//! The first values of a file, as detection looks at them: JSON lines, SSE frames, a JSON
//! array's first element, or the records of one JSON document, past lines no format
//! knows and lines that are not JSON.

use crate::bytes::value::{self, Json};

/// The first values of a file, as detection sees them.
#[derive(Debug, Clone, PartialEq)]
pub enum Sniff {
    /// A JSON array and its first element (`None` when empty).
    Array(Option<Json>),
    /// JSON lines, or the data of SSE frames (`sse`), up to the first few, with the
    /// 1-based line each starts on.
    Values {
        values: Vec<Json>,
        sse: bool,
        numbers: Vec<usize>,
    },
}

impl Sniff {
    /// The first value (line, frame or element).
    pub fn first(&self) -> Option<&Json> {
        match self {
            Sniff::Array(first) => first.as_ref(),
            Sniff::Values { values, .. } => values.first(),
        }
    }

    /// The values of a line format (none for an array).
    pub fn lines(&self) -> &[Json] {
        match self {
            Sniff::Values {
                values, sse: false, ..
            } => values,
            _ => &[],
        }
    }

    /// The line at `at` of a line format.
    pub fn line(&self, at: usize) -> Option<&Json> {
        self.lines().get(at)
    }

    /// The value at `at`: a line, a frame, or (at 0) an array's first element.
    pub fn value(&self, at: usize) -> Option<&Json> {
        match self {
            Sniff::Array(first) => first.as_ref().filter(|_| at == 0),
            Sniff::Values { values, .. } => values.get(at),
        }
    }

    /// How many values there are to look at.
    pub fn len(&self) -> usize {
        match self {
            Sniff::Array(first) => first.is_some() as usize,
            Sniff::Values { values, .. } => values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn is_sse(&self) -> bool {
        matches!(self, Sniff::Values { sse: true, .. })
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Sniff::Array(_))
    }
}

/// Why a file's format cannot be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undetected {
    pub message: String,
    /// 1-based line the message is about.
    pub line: Option<usize>,
}

/// Bytes detection looks at: headers and snapshots that lead a file fit in them. The
/// readers look past lines that are no JSON before a file's first value in this window
/// too (with [`SNIFF_VALUES`] lines).
pub(crate) const SNIFF_BYTES: usize = 1 << 20;
/// Values detection looks at: lines of kinds no format knows (session state a newer
/// tool writes first, protocol traffic) are looked past up to this many.
pub(crate) const SNIFF_VALUES: usize = 64;
/// Values looked at first: most files tell their format in their first lines.
pub(crate) const FIRST_VALUES: usize = 16;

pub(crate) fn shorten(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(59).collect::<String>())
    } else {
        text.to_string()
    }
}

/// The first values of `bytes`.
pub fn sniff(bytes: &[u8]) -> Result<Sniff, Undetected> {
    sniff_values(bytes, SNIFF_VALUES, &[]).map(|(sniffed, _)| sniffed)
}

/// The first values of `bytes`, and why the first line is not JSON when it is not (the
/// error when no value tells the format: a text file is not a file of unknown lines).
/// `data_fields`: SSE field names besides `data` whose lines carry events (a server that
/// writes some events under names of their own: the streams' folds name them).
pub(crate) fn sniff_values(
    bytes: &[u8],
    limit: usize,
    data_fields: &[&[u8]],
) -> Result<(Sniff, Option<Undetected>), Undetected> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let window = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let Some(start) = window.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Err(Undetected {
            message: "the file is empty".into(),
            line: None,
        });
    };
    if window[start] == b'[' {
        // The whole array is parsed only when it fits; else its first element alone.
        return match value::parse(bytes) {
            Ok(Json::Array(items)) => Ok((Sniff::Array(items.into_iter().next()), None)),
            _ => first_element(&window[start + 1..])
                .map(|first| (Sniff::Array(Some(first)), None))
                .ok_or(Undetected {
                    message: "a JSON array whose first element cannot be read".into(),
                    line: Some(1),
                }),
        };
    }
    // A document spread over lines (its first line no whole value) is parsed whole, however
    // long: a pretty-printed export of a few MiB has no value in its first MiB to tell by.
    if window[start] == b'{' {
        // One JSON document that holds the records (a traffic recorder's export: `messages`).
        if let Some(records) = document_records(bytes) {
            let numbers = vec![1; records.len().min(limit)];
            let values = records.iter().take(limit).cloned().collect();
            return Ok((
                Sniff::Values {
                    values,
                    sse: false,
                    numbers,
                },
                None,
            ));
        }
        // One JSON document that is itself the record (a session written whole).
        if let Some(document) = whole_document(bytes) {
            return Ok((
                Sniff::Values {
                    values: vec![document],
                    sse: false,
                    numbers: vec![1],
                },
                None,
            ));
        }
    }
    let first_line = start_line(window, start);
    // The lines of `data_fields` are data lines too.
    let field_value = |line: &'_ [u8]| -> Option<usize> {
        if line.starts_with(b"data:") {
            return Some(5);
        }
        data_fields
            .iter()
            .find(|field| line.starts_with(field) && line.get(field.len()) == Some(&b':'))
            .map(|field| field.len() + 1)
    };
    let sse = [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
        .iter()
        .any(|field| window[first_line..].starts_with(field))
        || field_value(&window[first_line..]).is_some();
    let mut values = Vec::new();
    let (mut first_not_json, mut first_error) = (false, None);
    // The 1-based line of each value.
    let mut numbers = Vec::new();
    let mut number = 1 + window[..first_line].iter().filter(|&&b| b == b'\n').count();
    if sse {
        let mut data: Option<(Vec<u8>, usize)> = None;
        // A frame whose data is not JSON (a damaged recording) is looked past, as the
        // readers look past it; the first one is the error when nothing else is there.
        let mut not_json: Option<Undetected> = None;
        for line in stream_lines(&window[first_line..]) {
            if line.is_empty() {
                if let Some((json, at)) = data.take().filter(|(json, _)| json != b"[DONE]") {
                    let first = values.is_empty() && not_json.is_none();
                    match parse_sniffed(&json, at, first) {
                        Ok(value) => {
                            values.push(value);
                            numbers.push(at);
                        }
                        Err(e) => {
                            // Events written back to back in one frame tell the format
                            // as the readers read them: each one.
                            let found = glued(&json);
                            if found.is_empty() {
                                not_json.get_or_insert(e);
                                first_not_json |= first;
                            }
                            for value in found.into_iter().take(limit - values.len()) {
                                values.push(value);
                                numbers.push(at);
                            }
                        }
                    }
                    if values.len() == limit {
                        break;
                    }
                }
            } else if let Some(at) = field_value(line) {
                let rest = &line[at..];
                let rest = rest.strip_prefix(b" ").unwrap_or(rest);
                match &mut data {
                    Some((json, _)) => {
                        json.push(b'\n');
                        json.extend_from_slice(rest);
                    }
                    None => data = Some((rest.to_vec(), number)),
                }
            }
            number += 1;
        }
        if let Some((json, at)) = data.filter(|_| values.len() < limit) {
            // The last frame may be cut short by the window: only a whole value counts.
            if let Ok(value) = value::parse(&json) {
                values.push(value);
                numbers.push(at);
            } else if values.is_empty() && not_json.is_none() {
                parse_sniffed(&json, at, true)?;
            }
        }
        if first_not_json {
            first_error = not_json.clone();
        }
        if values.is_empty() {
            return Err(not_json.unwrap_or_else(|| Undetected {
                message: "an SSE capture without a data frame".into(),
                line: Some(number),
            }));
        }
    } else {
        let lines: Vec<&[u8]> = stream_lines(&window[first_line..]);
        let complete = if window.len() < bytes.len() {
            lines.len() - 1
        } else {
            lines.len()
        };
        // A line that is not JSON (a log line, a torn line) is looked past like a line
        // of no known kind; the first one is the error when nothing else is there.
        let mut not_json: Option<Undetected> = None;
        for line in &lines[..complete] {
            if !line.iter().all(u8::is_ascii_whitespace) {
                let first = values.is_empty() && not_json.is_none();
                match parse_sniffed(line, number, first) {
                    Ok(value) => {
                        values.push(value);
                        numbers.push(number);
                    }
                    Err(e) => {
                        // Values written back to back (an append whose line end was lost)
                        // tell the format as the readers read them: each one.
                        let found = glued(line);
                        if found.is_empty() {
                            not_json.get_or_insert(e);
                            first_not_json |= first;
                        }
                        for value in found.into_iter().take(limit - values.len()) {
                            values.push(value);
                            numbers.push(number);
                        }
                    }
                }
                if values.len() == limit {
                    break;
                }
            }
            number += 1;
        }
        if first_not_json {
            first_error = not_json.clone();
        }
        if values.is_empty() {
            return Err(not_json.unwrap_or_else(|| Undetected {
                message: format!(
                    "cannot tell the format: the first line is too long to look at ({})",
                    shorten(lines[0])
                ),
                line: Some(number),
            }));
        }
    }
    Ok((Sniff::Values { values, sse, numbers }, first_error))
}

/// The records of a file that is one JSON document holding them in its `messages` array
/// (as a traffic recorder exports a session), when it is one; `None` for any other file,
/// and for a file whose first line is a whole JSON value (JSON lines).
pub fn document_records(bytes: &[u8]) -> Option<Vec<Json>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let first_line = bytes[start..].split(|&b| b == b'\n').next()?;
    if bytes[start] != b'{' || value::parse(first_line).is_ok() {
        return None;
    }
    match value::parse(bytes).ok()? {
        Json::Object(fields) => fields.into_iter().find_map(|(key, value)| match value {
            Json::Array(records) if key == "messages" => Some(records),
            _ => None,
        }),
        _ => None,
    }
}

/// A file that is one JSON object spread over lines (its first line no whole JSON value),
/// when it is one.
pub fn whole_document(bytes: &[u8]) -> Option<Json> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let first_line = bytes[start..].split(|&b| b == b'\n').next()?;
    if bytes[start] != b'{' || value::parse(first_line).is_ok() {
        return None;
    }
    match value::parse(bytes).ok()? {
        document @ Json::Object(_) => Some(document),
        _ => None,
    }
}

/// The lines of `bytes` as the event-stream rules cut them: CRLF, LF and CR each end one
/// (the last piece, possibly empty, is the unfinished line).
fn stream_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
        let end = i + at;
        lines.push(&bytes[start..end]);
        i = end + 1;
        if bytes[end] == b'\r' && bytes.get(i) == Some(&b'\n') {
            i += 1;
        }
        start = i;
    }
    lines.push(&bytes[start..]);
    lines
}

fn start_line(window: &[u8], start: usize) -> usize {
    window[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The whole values on a line that is no single JSON value.
fn glued(line: &[u8]) -> Vec<Json> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Vec::new();
    };
    let (ranges, _) = value::split_values(text, &value::parse_str);
    ranges
        .into_iter()
        .filter_map(|range| value::parse_str(&text[range]).ok())
        .collect()
}

fn parse_sniffed(text: &[u8], line: usize, first: bool) -> Result<Json, Undetected> {
    value::parse(text).map_err(|_| Undetected {
        message: if first {
            format!(
                "cannot tell the format: the first line is not JSON ({}); pass --format",
                shorten(text)
            )
        } else {
            format!("line {line} is not JSON ({})", shorten(text))
        },
        line: Some(line),
    })
}

/// The first element of an array whose text is cut short: the shortest prefix that parses.
fn first_element(after_bracket: &[u8]) -> Option<Json> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in after_bracket.iter().enumerate() {
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
            b'}' | b']' if depth > 0 => depth -= 1,
            b',' | b']' if depth == 0 => return value::parse(&after_bracket[..i]).ok(),
            _ => {}
        }
        if depth == 0 && matches!(b, b'}' | b']') {
            return value::parse(&after_bracket[..=i]).ok();
        }
    }
    None
}

/// For a format no value comes near to.
pub fn near_nothing(_: &Json) -> Option<&'static str> {
    None
}

// ─── Helpers for the formats' `detect` ───────────────────────────────────────────

/// The string at `value.key`.
pub fn tag<'a>(value: &'a Json, key: &str) -> Option<&'a [u8]> {
    value.get(key).and_then(Json::as_str).map(|t| t.as_bytes())
}

pub fn is_object(value: &Json) -> bool {
    matches!(value, Json::Object(_))
}

/// Whether `value.type` is one of `types`.
pub fn tag_in(value: &Json, types: &[&[u8]]) -> bool {
    tag(value, "type").is_some_and(|t| types.contains(&t))
}
