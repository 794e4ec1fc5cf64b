//! Errors of the format readers, and the checked reads that produce them.
//!
//! Every error names where the bad value is: the line of a JSONL file (when there is
//! one) and the path inside the value, e.g. `line 12: content[1].type must be a string,
//! got number`.

use std::collections::BTreeMap;
use std::fmt;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;

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

/// What a reader left out of the messages it read, and why: one report for every
/// format, printed as it is by the command (`skipped`, `leftOut`).
///
/// - `count` / `examples`: lines (or items) skipped because this version does not know
///   them or cannot read them (not JSON, cut short); with `strict`, the first one is an
///   error instead;
/// - `kinds`: every skipped line by kind: those, and the lines this version knows and
///   that show nothing (bookkeeping lines such as `attachment`, `queue-operation` …; strict keeps
///   reading past those);
/// - `left_out`: entries read and understood, but not part of the conversation shown
///   (another branch, unreachable, compacted away), by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skips {
    pub strict: bool,
    pub count: u64,
    /// The first few, as `line 4: unknown entry type "x"`, to show where they are.
    pub examples: Vec<String>,
    pub kinds: BTreeMap<String, u64>,
    pub left_out: LeftOut,
}

/// Entries of a file not in the conversation read, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    pub count: u64,
    pub reasons: BTreeMap<String, u64>,
    /// The first few, as `line 7 (id "x"): off the current branch`.
    pub examples: Vec<String>,
}

/// Why an entry is left out of the conversation.
pub const OFF_BRANCH: &str = "off the current branch";
/// The entry is on no branch the conversation's leaf is on: its chain of parents ends
/// at a parent the file does not hold (an earlier part removed), or at none.
pub const UNREACHABLE: &str = "unreachable: on no branch of the conversation (its parent is missing or null)";
/// Before a compaction: the tool shows the compaction's summary instead.
pub const COMPACTED: &str = "compacted: before the kept part of a compaction";
/// Before a line that names no parent and is no compaction (a file whose lines were
/// written without a `parentUuid`, a chain cleared or cut): the conversation as the tool
/// resumes it starts after the break; the transcript goes on through it.
pub const BEFORE_BREAK: &str =
    "before a break: the conversation starts at a later line that names no parent (no compaction)";
/// A sub-agent's line in the main session's file.
pub const SIDECHAIN: &str = "a sub-agent's line (isSidechain)";

/// Kinds of lines skipped because they cannot be read.
pub const TORN: &str = "an entry cut short, the next written onto its line";
pub const CUT_SHORT: &str = "a line cut short";
pub const NOT_JSON: &str = "a line that is not JSON";
pub const NOT_UTF8: &str = "a line that is not UTF-8";

/// The kind of a stretch of a line that is no value, starting at `at`, when `followed`
/// values were found on the line too.
pub fn unreadable_kind(at: usize, problem: &crate::bytes::value::ParseError, followed: bool) -> &'static str {
    match problem.kind {
        _ if followed && at == 0 => TORN,
        crate::bytes::value::ParseErrorKind::Truncated => CUT_SHORT,
        _ => NOT_JSON,
    }
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
    /// `folded`, except that a value the fold could not read (an error naming no line of
    /// its own: a field of the wrong type) is skipped and counted with what is wrong, as
    /// a tool passes over a line it cannot parse; `strict` refuses it.
    pub fn unreadable_skipped(&mut self, line: usize, folded: FormatResult<()>) -> FormatResult<()> {
        match folded {
            Err(e) if !self.strict && e.line.is_none() => self.skip(line, e),
            other => other,
        }
    }

    pub fn skip(&mut self, line: usize, what: impl fmt::Display) -> FormatResult<()> {
        if self.strict {
            return Err(
                FormatError::new("", format!("{what} (strict: unknown lines are refused)")).at_line(line),
            );
        }
        let what = what.to_string();
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(format!("line {line}: {what}"));
        }
        *self.kinds.entry(what).or_default() += 1;
        Ok(())
    }

    /// Records that line `line` could not be read (`problem`); an error (`problem`
    /// itself) when strict.
    pub fn unreadable(&mut self, line: usize, kind: &str, problem: impl fmt::Display) -> FormatResult<()> {
        if self.strict {
            return Err(FormatError::new("", problem.to_string()).at_line(line));
        }
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(format!("line {line}: {kind} ({problem})"));
        }
        *self.kinds.entry(kind.to_string()).or_default() += 1;
        Ok(())
    }

    /// Records a line this version knows and that shows nothing (never refused).
    pub fn pass(&mut self, kind: &str) {
        *self.kinds.entry(kind.to_string()).or_default() += 1;
    }

    /// Records an entry left out of the conversation, `what` naming it (`line 7 (id
    /// "x")`).
    pub fn leave_out(&mut self, what: impl FnOnce() -> String, reason: &str) {
        let left = &mut self.left_out;
        left.count += 1;
        if left.examples.len() < EXAMPLES {
            left.examples.push(format!("{}: {reason}", what()));
        }
        *left.reasons.entry(reason.to_string()).or_default() += 1;
    }

    /// Adds what `other` recorded (its examples after these, up to the limit).
    pub fn merge(&mut self, other: Skips) {
        self.count += other.count;
        for example in other.examples {
            if self.examples.len() < EXAMPLES {
                self.examples.push(example);
            }
        }
        for (kind, n) in other.kinds {
            *self.kinds.entry(kind).or_default() += n;
        }
        let left = &mut self.left_out;
        left.count += other.left_out.count;
        for example in other.left_out.examples {
            if left.examples.len() < EXAMPLES {
                left.examples.push(example);
            }
        }
        for (reason, n) in other.left_out.reasons {
            *left.reasons.entry(reason).or_default() += n;
        }
    }
}

/// Why a tool result is left out: its call is not in the conversation read.
pub const ORPHAN_RESULT: &str = "a tool result whose call is not in the conversation";

/// Content blocks skipped because they name nothing to place them by.
pub const NO_CALL_ID: &str = "a tool_use block without an id or a name";
pub const NO_TOOL_USE_ID: &str = "a tool_result block without a tool_use_id";
