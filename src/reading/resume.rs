//! A live conversation's resume state: what its fold remembers between values that its
//! messages do not show, as a JSON value an application keeps next to the messages.
//!
//! Messages alone cannot say everything a stream said: a part's id names the chunk its
//! next deltas extend, a call's content may wait for the update that completes it, a
//! stream may repeat the whole reply so far in each frame, and whether the last message
//! still takes events is not a property of the message. A conversation
//! given its messages and this state goes on exactly as if it had read the stream from
//! its start, at any frame boundary. The state is plain JSON (strings, numbers, booleans,
//! arrays and objects), so it survives `JSON.stringify` and a reload.
//!
//! ```json
//! { "version": 1, "format": "ai-sdk", "line": 42, "messages": 3, "open": true,
//!   "pending": 0, "fold": { … }, "skipped": { "count": 1, … }, "ui": { … } }
//! ```
//!
//! `skipped` is what was skipped so far (as `skipped` reports it), so that a conversation
//! gone on from the state counts what the whole recording would; each format that serves
//! live conversations keeps what it wrote under its own key (`ui`: the UI message
//! stream; see [`crate::reading::writer`]), so that what it writes goes on with what is
//! new. They may be absent (nothing skipped, nothing written).

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::Skips;

/// The version of the state's layout; a state of another version is refused.
pub const VERSION: u32 = 1;

/// The conversation-level part of a resume state.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub format: String,
    /// The line the next value is numbered by.
    pub line: usize,
    /// How many messages the state goes with.
    pub messages: usize,
    /// The last message still takes events.
    pub open: bool,
    /// Bytes pushed after the last whole frame, which the state does not hold: they are
    /// to be pushed again.
    pub pending: usize,
    /// The last byte pushed was the CR of a line break: an LF first pushed next is the
    /// rest of that CRLF, not an empty line (which would number every later line one
    /// further). Written only when true, so states of LF streams are as they were.
    pub cr: bool,
    /// The format's own part.
    pub fold: Json,
    /// What was skipped so far ([`skipped`]); `null`: nothing.
    pub skipped: Json,
    /// What was written of the conversation in each format that serves it, by the key
    /// of its writer's state (`ui`: the UI message stream).
    pub served: Vec<(&'static str, Json)>,
}

impl Envelope {
    pub fn to_json(&self) -> Json {
        let mut fields = vec![
            ("version", number(VERSION as usize)),
            ("format", Json::string(self.format.as_str())),
            ("line", number(self.line)),
            ("messages", number(self.messages)),
            ("open", Json::Bool(self.open)),
            ("pending", number(self.pending)),
        ];
        if self.cr {
            fields.push(("cr", Json::Bool(true)));
        }
        fields.extend([("fold", self.fold.clone()), ("skipped", self.skipped.clone())]);
        // A writer that has nothing to keep (wrote nothing) keeps no key.
        fields.extend(
            self.served
                .iter()
                .filter(|(_, state)| !matches!(state, Json::Null))
                .map(|(key, state)| (*key, state.clone())),
        );
        Json::Object(fields.into_iter().map(|(k, v)| (Wtf8::from(k), v)).collect())
    }

    /// Reads a state, with the writers' states under `served` (each `null` when absent);
    /// the error names the field that is wrong.
    pub fn from_json(state: &Json, served: &[&'static str]) -> Result<Self, String> {
        if !matches!(state, Json::Object(_)) {
            return Err(format!(
                " must be an object (a Conversation's resume), got {}",
                state.kind().name()
            ));
        }
        let version = count(state, "version")?;
        if version != VERSION as usize {
            return Err(format!(
                ".version {version} is not one this version reads ({VERSION})"
            ));
        }
        Ok(Envelope {
            // No format's name holds a lone surrogate: one is named as written, not as
            // the U+FFFD a lossy reading would show.
            format: match text(state, "format")?.as_str() {
                Some(name) => name.to_string(),
                None => {
                    let mut written = Vec::new();
                    crate::bytes::value::write_ascii(
                        &mut written,
                        &state.get("format").cloned().unwrap_or(Json::Null),
                    );
                    return Err(format!(
                        ".format {} is no format's name",
                        String::from_utf8_lossy(&written)
                    ));
                }
            },
            line: count(state, "line")?.max(1),
            messages: count(state, "messages")?,
            open: flag(state, "open")?,
            pending: count(state, "pending")?,
            cr: flag(state, "cr")?,
            fold: state.get("fold").cloned().unwrap_or(Json::Null),
            skipped: state.get("skipped").cloned().unwrap_or(Json::Null),
            served: served
                .iter()
                .map(|&key| (key, state.get(key).cloned().unwrap_or(Json::Null)))
                .collect(),
        })
    }
}

/// A reading's `skipped` report: how many values were skipped, the first few by example,
/// and how many of each kind (lines known and passed over included), and what was left
/// out of the conversation, by reason (`leftOut`, absent when nothing was).
pub fn skipped(skips: &Skips) -> Json {
    let mut report = Json::object([
        ("count", Json::Number(skips.count.to_string().into())),
        (
            "examples",
            Json::Array(skips.examples.iter().map(|e| Json::string(e.as_str())).collect()),
        ),
        (
            "kinds",
            Json::Object(
                skips
                    .kinds
                    .iter()
                    .map(|(kind, n)| (Wtf8::from(kind.as_str()), Json::Number(n.to_string().into())))
                    .collect(),
            ),
        ),
    ]);
    let left = &skips.left_out;
    if left.count > 0 {
        let left_out = Json::object([
            ("count", Json::Number(left.count.to_string().into())),
            (
                "examples",
                Json::Array(left.examples.iter().map(|e| Json::string(e.as_str())).collect()),
            ),
            (
                "reasons",
                Json::Object(
                    left.reasons
                        .iter()
                        .map(|(reason, n)| (Wtf8::from(reason.as_str()), Json::Number(n.to_string().into())))
                        .collect(),
                ),
            ),
        ]);
        if let Json::Object(fields) = &mut report {
            fields.push((Wtf8::from("leftOut"), left_out));
        }
    }
    report
}

/// The strings of the array at `key` (absent: none), the error naming it.
fn string_list(state: &Json, key: &str) -> Result<Vec<String>, String> {
    match state.get(key) {
        None | Some(Json::Undefined | Json::Null) => Ok(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(|s| s.to_string_lossy().into_owned()))
            .collect::<Option<_>>()
            .ok_or_else(|| format!(".{key} must hold strings only")),
        Some(_) => Err(format!(".{key} must be an array of strings")),
    }
}

/// Counts by name at `key`, the error naming the entry.
fn counts(state: &Json, key: &str) -> Result<std::collections::BTreeMap<String, u64>, String> {
    let mut out = std::collections::BTreeMap::new();
    for (name, n) in members(state, key)? {
        let n = whole(n).ok_or_else(|| {
            format!(
                ".{key}[{:?}] must be a whole number from 0",
                name.to_string_lossy()
            )
        })?;
        out.insert(name.to_string_lossy().into_owned(), n as u64);
    }
    Ok(out)
}

/// What [`skipped`] wrote, read back (`null`: nothing skipped); the error names the field,
/// after `.skipped`.
pub fn read_skipped(state: &Json, strict: bool) -> Result<Skips, String> {
    let mut skips = Skips::new(strict);
    if matches!(state, Json::Null | Json::Undefined) {
        return Ok(skips);
    }
    object(state)?;
    skips.count = count(state, "count")? as u64;
    skips.examples = string_list(state, "examples")?;
    skips.kinds = counts(state, "kinds")?;
    match state.get("leftOut") {
        None | Some(Json::Undefined | Json::Null) => {}
        Some(left @ Json::Object(_)) => {
            let at = |e: String| format!(".leftOut{e}");
            skips.left_out.count = count(left, "count").map_err(at)? as u64;
            skips.left_out.examples = string_list(left, "examples").map_err(at)?;
            skips.left_out.reasons = counts(left, "reasons").map_err(at)?;
        }
        Some(_) => return Err(".leftOut must be an object".into()),
    }
    Ok(skips)
}

/// A fold's state must be an object.
pub fn object(state: &Json) -> Result<(), String> {
    match state {
        Json::Object(_) => Ok(()),
        other => Err(format!(" must be an object, got {}", other.kind().name())),
    }
}

/// A whole number as JSON.
pub fn number(n: usize) -> Json {
    Json::Number(n.to_string().into_boxed_str())
}

/// A whole number that is not negative, at `key`.
pub fn count(state: &Json, key: &str) -> Result<usize, String> {
    state
        .get(key)
        .and_then(whole)
        .ok_or_else(|| format!(".{key} must be a whole number from 0"))
}

/// The value as a whole number that is not negative.
pub fn whole(value: &Json) -> Option<usize> {
    match value.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => Some(n as usize),
        _ => None,
    }
}

/// A boolean at `key` (absent: false).
pub fn flag(state: &Json, key: &str) -> Result<bool, String> {
    match state.get(key) {
        None | Some(Json::Undefined) => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(_) => Err(format!(".{key} must be a boolean")),
    }
}

/// A string at `key`.
pub fn text<'a>(state: &'a Json, key: &str) -> Result<&'a Wtf8, String> {
    state
        .get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| format!(".{key} must be a string"))
}

/// A string at `key`, or nothing when it is absent or `null`.
pub fn optional_text(state: &Json, key: &str) -> Result<Option<Wtf8>, String> {
    match state.get(key) {
        None | Some(Json::Undefined | Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!(".{key} must be a string or null")),
    }
}

/// A string, or `null` for nothing.
pub fn optional(text: Option<&Wtf8>) -> Json {
    text.map_or(Json::Null, |t| Json::String(t.clone()))
}

/// The members of the object at `key` (absent: none).
pub fn members<'a>(state: &'a Json, key: &str) -> Result<&'a [(Wtf8, Json)], String> {
    match state.get(key) {
        None | Some(Json::Undefined | Json::Null) => Ok(&[]),
        Some(Json::Object(fields)) => Ok(fields),
        Some(_) => Err(format!(".{key} must be an object")),
    }
}

/// A set of strings, as an array in byte order (so equal states are equal JSON).
pub fn string_set(items: &std::collections::HashSet<Wtf8>) -> Json {
    let mut items: Vec<&Wtf8> = items.iter().collect();
    items.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    Json::Array(items.into_iter().map(|item| Json::String(item.clone())).collect())
}

/// The strings of the array at `key` (absent: none).
pub fn strings(state: &Json, key: &str) -> Result<std::collections::HashSet<Wtf8>, String> {
    match state.get(key) {
        None | Some(Json::Undefined | Json::Null) => Ok(Default::default()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .cloned()
                    .ok_or_else(|| format!(".{key} must hold strings only"))
            })
            .collect(),
        Some(_) => Err(format!(".{key} must be an array of strings")),
    }
}
