//! Errors of the format readers, and the checked reads that produce them.
//!
//! Every error names where the bad value is: the line of a JSONL file (when there is
//! one) and the path inside the value, e.g. `line 12: content[1].type must be a string,
//! got number`.

use std::fmt;

use super::value::Json;
use super::wtf8::Wtf8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// 1-based line (or entry) number, for line-oriented inputs.
    pub line: Option<usize>,
    /// Where in the value, e.g. `content[1].type`; empty for the value itself.
    pub path: String,
    pub problem: String,
}

impl FormatError {
    pub fn new(path: impl Into<String>, problem: impl Into<String>) -> Self {
        FormatError {
            line: None,
            path: path.into(),
            problem: problem.into(),
        }
    }

    /// The same error for a value found at `base` (its path prefixed).
    pub fn under(mut self, base: &str) -> Self {
        self.path = if self.path.is_empty() {
            base.to_string()
        } else if self.path.starts_with('[') {
            format!("{base}{}", self.path)
        } else {
            join(base, &self.path)
        };
        self
    }

    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{} ", self.path)?;
        }
        f.write_str(&self.problem)
    }
}

impl std::error::Error for FormatError {}

pub type FormatResult<T> = Result<T, FormatError>;

/// `typeof`-style name of a possibly absent value.
pub fn type_of(value: Option<&Json>) -> &'static str {
    value.map_or("undefined", |v| v.kind().name())
}

/// `base.key`, or `key` at the top.
pub fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// `base[index]`.
pub fn index(base: &str, index: usize) -> String {
    format!("{base}[{index}]")
}

pub fn wrong(path: String, expected: &str, got: Option<&Json>) -> FormatError {
    FormatError::new(path, format!("must be {expected}, got {}", type_of(got)))
}

/// The string at `object.key`.
pub fn string<'a>(object: &'a Json, key: &str, base: &str) -> FormatResult<&'a Wtf8> {
    let value = object.get(key);
    value
        .and_then(Json::as_str)
        .ok_or_else(|| wrong(join(base, key), "a string", value))
}

/// The string at `object.key`, or `None` when the key is absent (or `null`).
pub fn optional_string<'a>(object: &'a Json, key: &str, base: &str) -> FormatResult<Option<&'a Wtf8>> {
    match object.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(text)) => Ok(Some(text)),
        other => Err(wrong(join(base, key), "a string", other)),
    }
}

/// The items of the array at `object.key`.
pub fn array<'a>(object: &'a Json, key: &str, base: &str) -> FormatResult<&'a [Json]> {
    match object.get(key) {
        Some(Json::Array(items)) => Ok(items),
        other => Err(wrong(join(base, key), "an array", other)),
    }
}

/// `value` itself must be an object.
pub fn object<'a>(value: &'a Json, path: &str) -> FormatResult<&'a Json> {
    match value {
        Json::Object(_) => Ok(value),
        other => Err(wrong(path.to_string(), "an object", Some(other))),
    }
}

/// The value under the first of `keys` present: the camelCase and snake_case spellings
/// of one field.
pub fn either<'a>(object: &'a Json, keys: [&'static str; 2]) -> (Option<&'a Json>, &'static str) {
    match object.get(keys[0]) {
        Some(value) => (Some(value), keys[0]),
        None => (
            object.get(keys[1]),
            if object.get(keys[1]).is_some() {
                keys[1]
            } else {
                keys[0]
            },
        ),
    }
}

/// The lines of `text` (split at `\n`, as `str::split` would, an empty last line
/// included), found with `memchr`.
pub fn split_lines(text: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::with_capacity(text.len() / 256 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text) {
        lines.push(&text[start..end]);
        start = end + 1;
    }
    lines.push(&text[start..]);
    lines
}

/// Lines (or items) a reader did not know and skipped, counted; with `strict`, the first
/// one is an error instead.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skips {
    pub strict: bool,
    pub count: u64,
    /// The first few, as `line 4: unknown entry type "x"`, to show where they are.
    pub examples: Vec<String>,
}

/// How many skipped lines [`Skips`] describes by example.
const EXAMPLES: usize = 3;

impl Skips {
    pub fn new(strict: bool) -> Self {
        Skips {
            strict,
            ..Skips::default()
        }
    }

    /// Records that line `line` was skipped because of `what`; an error when strict.
    pub fn skip(&mut self, line: usize, what: impl fmt::Display) -> FormatResult<()> {
        if self.strict {
            return Err(
                FormatError::new("", format!("{what} (strict: unknown lines are refused)")).at_line(line),
            );
        }
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(format!("line {line}: {what}"));
        }
        Ok(())
    }
}
