//! The table of formats for JavaScript: `formats`, `detectFormat`, `readHistory` and
//! `foldStream`, all over `crate::formats::FORMATS`.

use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::decode::ValueType;
use crate::formats::FORMATS;
use crate::formats::{detect, find};
use crate::history::batch::Slicer;
use crate::history::leaf_refused;
use crate::history::{self, HistoryFormat};
use crate::live::fold_stream;
use crate::reading::check::Skips;
use crate::reading::format::{Format, Input, ReadOptions, View};
use crate::reading::model_json::{role_name, write_chunk, write_message_head, FormatMessage};

use super::raw::call::caught;
use super::raw::js::{Js, JsError, JsResult, Value};
use super::stream::glue;

/// What the table says of one format.
#[napi(object)]
pub struct FormatInfo {
    #[napi(ts_type = "FormatName")]
    pub name: String,
    /// What a file in it is, in a line.
    pub summary: String,
    /// `readHistory` / `loadHistory` read it.
    pub history: bool,
    /// `foldStream` folds it.
    pub stream: bool,
    /// `writeMessages` writes messages in it (`agent-chunks convert --to`).
    pub write: bool,
    /// The roles of the messages it holds, when it is written (`write`): the others are
    /// left out of what `writeMessages` writes. Empty for a format not written.
    #[napi(ts_type = "Array<'user' | 'assistant' | 'system'>")]
    pub holds: Vec<String>,
    /// Its tool keeps many sessions in one store (a database, a folder) that
    /// `loadHistory` reads from its path, a session at a time (`storeSessions` lists them).
    pub store: bool,
    /// Where the tool that writes it keeps its files when nothing else is said (`scan`
    /// with no folder looks there).
    pub homes: Vec<FormatHome>,
}

/// A tool's folder of session files: `sessions` under `$variable` when that is set, else
/// under `folder` in the user's home.
#[napi(object)]
pub struct FormatHome {
    /// The environment variable naming the tool's folder (`CODEX_HOME`).
    pub variable: Option<String>,
    /// The tool's folder in the user's home when the variable is not set (`.codex`).
    pub folder: String,
    /// The folders of session files in it (`sessions`, `archived_sessions`).
    pub sessions: Vec<String>,
}

/// Every format, in the order detection tries them.
#[napi(js_name = "formats")]
pub fn format_infos() -> Result<Vec<FormatInfo>> {
    caught("formats", || {
        Ok(FORMATS
            .iter()
            .map(|f| FormatInfo {
                name: f.name.to_string(),
                summary: f.summary.to_string(),
                history: f.history.is_some(),
                stream: f.stream.is_some(),
                write: f.write.is_some(),
                holds: f
                    .write
                    .map(|write| {
                        write
                            .holds
                            .iter()
                            .map(|&role| role_name(role).to_string())
                            .collect()
                    })
                    .unwrap_or_default(),
                store: f.store.is_some(),
                homes: f
                    .homes
                    .iter()
                    .map(|home| FormatHome {
                        variable: home.variable.map(str::to_string),
                        folder: home.folder.to_string(),
                        sessions: home.sessions.iter().map(|s| s.to_string()).collect(),
                    })
                    .collect(),
            })
            .collect())
    })
}

/// What `detectFormat` found: the format, or why it cannot tell.
#[allow(dead_code)]
#[napi(object)]
pub struct Detection {
    #[napi(ts_type = "FormatName")]
    pub format: Option<String>,
    /// Why no format was recognised.
    pub problem: Option<String>,
    /// The 1-based line the problem is about.
    pub line: Option<u32>,
}

/// Lines a reader did not read into any message.
#[allow(dead_code)]
#[napi(object)]
pub struct SkippedLines {
    /// Lines this version does not know or cannot read (not JSON, cut short): skipped
    /// and counted here (with `strict` they are refused).
    pub count: u32,
    /// The first few of those, as `line 4: unknown entry type "x"`.
    pub examples: Vec<String>,
    /// Every skipped line by kind: those, and the lines this version knows and that show
    /// nothing (a Claude Code `attachment`, a Qwen `ui_telemetry` record …).
    pub kinds: std::collections::HashMap<String, u32>,
}

/// Entries read and understood but not in the conversation read, by reason: another
/// branch, unreachable (its parent is not in the file), before a compaction's kept part,
/// a sub-agent's line, a tool result whose call is not there. `view: 'all'` reads them.
#[allow(dead_code)]
#[napi(object)]
pub struct LeftOutEntries {
    pub count: u32,
    /// How many were left out for each reason.
    pub reasons: std::collections::HashMap<String, u32>,
    /// The first few, as `line 7 (id "x"): off the current branch`.
    pub examples: Vec<String>,
}

/// Which entries of a session are read (the formats whose sessions branch or compact;
/// the others read every entry in each view).
#[napi(string_enum = "lowercase")]
pub enum HistoryView {
    /// The conversation as the tool shows it when the session is opened again: the
    /// current branch; for pi and Claude Code from its last compaction on (the summary,
    /// then what it kept); Qwen Code shows its whole chain.
    Resumed,
    /// The current branch whole, compaction summaries where they were made.
    Transcript,
    /// Every entry of the file in file order: every branch, sub-agent lines, entries no
    /// branch reaches.
    All,
}

/// Options of `readHistory` and `foldStream`.
#[allow(dead_code)]
#[napi(object)]
pub struct ReadHistoryOptions {
    /// Detected from the first lines when absent.
    #[napi(ts_type = "FormatName")]
    pub format: Option<String>,
    /// Refuse lines the reader does not know instead of skipping and counting them.
    pub strict: Option<bool>,
    /// A Pi session's leaf to read (an entry id; `pi.leaves` lists them); default the
    /// current one, the last entry.
    pub leaf: Option<String>,
    /// Default `'resumed'`.
    pub view: Option<HistoryView>,
}

/// Options of `loadHistory` / `loadHistorySync`.
#[allow(dead_code)]
#[napi(object)]
pub struct HistoryOptions {
    /// Refuse lines the reader does not know instead of skipping them.
    pub strict: Option<bool>,
    /// A Pi session's leaf to read (an entry id); default the last entry.
    pub leaf: Option<String>,
    /// Default `'resumed'`.
    pub view: Option<HistoryView>,
    /// For a store of many sessions given by its path (a database, a folder): the
    /// session read (its id); default the latest.
    pub session: Option<String>,
}

/// `loadHistory`'s `options` (a `format` there is the argument before).
pub(super) fn history_options(js: &Js, value: Value) -> JsResult<ReadOptions> {
    Ok(options(js, value)?.1)
}

/// A history read by `readHistory`.
#[allow(dead_code)]
#[napi(object)]
pub struct HistoryRead {
    #[napi(ts_type = "FormatName")]
    pub format: String,
    pub messages: Vec<super::types::HistoryMessage>,
    pub skipped: SkippedLines,
    #[napi(js_name = "leftOut")]
    pub left_out: LeftOutEntries,
}

/// Which stream lines built a message: its first and last line, and each chunk's.
#[allow(dead_code)]
#[napi(object)]
pub struct StreamOrigin {
    #[napi(ts_type = "[number, number]")]
    pub lines: Vec<u32>,
    #[napi(ts_type = "Array<[number, number] | null>")]
    pub chunks: Vec<Option<Vec<u32>>>,
}

/// A stream folded by `foldStream`.
#[allow(dead_code)]
#[napi(object)]
pub struct FoldedStream {
    #[napi(ts_type = "FormatName")]
    pub format: String,
    pub messages: Vec<super::types::HistoryMessage>,
    /// Per message, the lines that built it.
    pub origins: Vec<StreamOrigin>,
    pub skipped: SkippedLines,
    /// What a live `Conversation` given these messages needs to go on exactly (its
    /// `resume` option), as plain JSON.
    pub resume: super::types::ConversationResume,
}

/// The bytes of a string (UTF-8) or of a Buffer / Uint8Array (borrowed for the call).
fn with_source<T>(
    js: &Js,
    source: Value,
    what: &str,
    use_bytes: impl FnOnce(&[u8]) -> JsResult<T>,
) -> JsResult<T> {
    if let Some(bytes) = super::bytes::uint8_bytes(js, source)? {
        return use_bytes(&bytes);
    }
    match js.value_type(source)? {
        ValueType::String => use_bytes(js.utf8(source)?.as_bytes()),
        got => Err(JsError::Type(format!(
            "{what} must be a string, a Buffer or a Uint8Array, got {}",
            got.name()
        ))),
    }
}

/// `options[key]`, through the object's own [[Get]].
pub(super) fn named(js: &Js, object: Value, key: &CStr) -> JsResult<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: both handles belong to the current scope.
    let status = unsafe { sys::napi_get_named_property(js.env, object, key.as_ptr(), &mut value) };
    if status != sys::Status::napi_ok {
        return Err(JsError::Internal(format!(
            "reading options.{}",
            key.to_string_lossy()
        )));
    }
    Ok(value)
}

/// `options[key]` as a boolean, `false` when absent; a `TypeError` naming it otherwise.
pub(super) fn optional_boolean(js: &Js, object: Value, key: &CStr) -> JsResult<bool> {
    let value = named(js, object, key)?;
    match js.value_type(value)? {
        ValueType::Undefined => Ok(false),
        ValueType::Boolean => js.truthy(value),
        got => Err(JsError::Type(format!(
            "options.{} must be a boolean, got {}",
            key.to_string_lossy(),
            got.name()
        ))),
    }
}

/// `options` read: the format (when given), strict, leaf.
fn options(js: &Js, value: Value) -> JsResult<(Option<&'static Format>, ReadOptions)> {
    match js.value_type(value)? {
        ValueType::Undefined => return Ok((None, ReadOptions::default())),
        ValueType::Object => {}
        got => {
            return Err(JsError::Type(format!(
                "options must be an object, got {}",
                got.name()
            )))
        }
    }
    let format = named(js, value, c"format")?;
    let format = match js.value_type(format)? {
        ValueType::Undefined => None,
        ValueType::String => {
            let name = js.utf8(format)?;
            Some(find(&name).ok_or_else(|| {
                let names: Vec<String> = FORMATS.iter().map(|f| format!("'{}'", f.name)).collect();
                JsError::Type(format!(
                    "options.format must be one of {}, got '{name}'",
                    names.join(", ")
                ))
            })?)
        }
        got => {
            return Err(JsError::Type(format!(
                "options.format must be a string, got {}",
                got.name()
            )))
        }
    };
    let strict = optional_boolean(js, value, c"strict")?;
    let leaf = named(js, value, c"leaf")?;
    let leaf = match js.value_type(leaf)? {
        ValueType::Undefined => None,
        ValueType::String => Some(js.utf8(leaf)?),
        got => {
            return Err(JsError::Type(format!(
                "options.leaf must be a string, got {}",
                got.name()
            )))
        }
    };
    let session = named(js, value, c"session")?;
    let session = match js.value_type(session)? {
        ValueType::Undefined => None,
        ValueType::String => Some(js.utf8(session)?),
        got => {
            return Err(JsError::Type(format!(
                "options.session must be a string, got {}",
                got.name()
            )))
        }
    };
    let view = named(js, value, c"view")?;
    let view = match js.value_type(view)? {
        ValueType::Undefined => View::default(),
        ValueType::String => {
            let name = js.utf8(view)?;
            View::from_name(&name).ok_or_else(|| {
                JsError::Type(format!(
                    "options.view must be one of 'resumed', 'transcript', 'all', got '{name}'"
                ))
            })?
        }
        got => {
            return Err(JsError::Type(format!(
                "options.view must be a string, got {}",
                got.name()
            )))
        }
    };
    Ok((
        format,
        ReadOptions {
            strict,
            leaf,
            view,
            session,
            ..ReadOptions::default()
        },
    ))
}

fn located(message: String, line: Option<u64>, offset: Option<u64>) -> JsError {
    JsError::Located {
        message,
        offset,
        line,
        code: None,
    }
}

/// The given format, else the detected one.
fn format_of(bytes: &[u8], given: Option<&'static Format>) -> JsResult<&'static Format> {
    match given {
        Some(format) => Ok(format),
        None => detect(bytes).map_err(|e| located(e.message, e.line.map(|l| l as u64), None)),
    }
}

fn number(n: u64) -> Json {
    Json::Number(n.to_string().into())
}

fn counts(counts: &std::collections::BTreeMap<String, u64>) -> Json {
    Json::Object(
        counts
            .iter()
            .map(|(kind, &n)| (Wtf8::from(kind.as_str()), number(n)))
            .collect(),
    )
}

fn strings(texts: &[String]) -> Json {
    Json::Array(texts.iter().map(|e| Json::string(e.as_str())).collect())
}

/// A reading's `skipped` report, as `readHistory`, `foldStream` and a `Conversation` give it.
pub fn skipped_json(skips: &Skips) -> Json {
    crate::reading::resume::skipped(skips)
}

fn left_out_json(skips: &Skips) -> Json {
    let left = &skips.left_out;
    Json::object([
        ("count", number(left.count)),
        ("reasons", counts(&left.reasons)),
        ("examples", strings(&left.examples)),
    ])
}

/// The format of a file's bytes (or text), from its first lines: leading headers and
/// snapshots are looked past. Never throws for content it cannot tell: `format` is then
/// absent and `problem` says why.
#[napi(
    js_name = "detectFormat",
    ts_args_type = "source: string | Uint8Array",
    ts_return_type = "Detection"
)]
pub fn detect_format<'env>(env: &'env Env, source: Unknown) -> Result<Unknown<'env>> {
    glue(env, "detectFormat", |js| {
        let detection = with_source(js, source.raw(), "source", |bytes| {
            Ok(match detect(bytes) {
                Ok(format) => Json::object([("format", Json::string(format.name))]),
                Err(e) => {
                    let mut fields = vec![(Wtf8::from("problem"), Json::string(e.message))];
                    fields.extend(
                        e.line
                            .map(|l| (Wtf8::from("line"), Json::Number(l.to_string().into()))),
                    );
                    Json::Object(fields)
                }
            })
        })?;
        js.parse_json_owned(ascii(&detection))
    })
}

/// Reads a whole history synchronously: bytes or text in `options.format`, or in the
/// format its first lines show. Lines the reader does not know are skipped and counted
/// in `skipped`; `strict` refuses them. Throws an `Error` with `line` for an invalid
/// history or one whose format cannot be told, a `TypeError` for bad arguments.
#[napi(
    js_name = "readHistory",
    ts_args_type = "source: string | Uint8Array, options?: ReadHistoryOptions",
    ts_return_type = "HistoryRead"
)]
pub fn read_history<'env>(env: &'env Env, source: Unknown, options_value: Unknown) -> Result<Unknown<'env>> {
    const WHAT: &str = "readHistory";
    glue(env, WHAT, |js| {
        let (given, options) = options(js, options_value.raw())?;
        let json = with_source(js, source.raw(), "source", |bytes| {
            let format = format_of(bytes, given)?;
            if format.history.is_none() {
                return Err(located(
                    format!(
                        "{WHAT}: a {} file is a stream, not a history (foldStream folds it)",
                        format.name
                    ),
                    None,
                    None,
                ));
            }
            let mut messages = None;
            let mut slicer = Slicer::new(usize::MAX, |slice| {
                messages = Some(slice.json);
                true
            });
            let skips = history::read_with(Input::Bytes(bytes), HistoryFormat(format), &options, &mut |m| {
                slicer.message(&m);
                true
            })
            .map_err(|e| {
                located(
                    format!("{WHAT}: {} history, {}", format.name, e.message),
                    e.line,
                    e.offset,
                )
            })?;
            slicer.finish();
            let mut out = Vec::new();
            out.extend_from_slice(b"{\"format\":\"");
            out.extend_from_slice(format.name.as_bytes());
            out.extend_from_slice(b"\",\"messages\":");
            out.extend_from_slice(messages.as_deref().unwrap_or(b"[]"));
            out.extend_from_slice(b",\"skipped\":");
            out.extend_from_slice(&ascii(&skipped_json(&skips)));
            out.extend_from_slice(b",\"leftOut\":");
            out.extend_from_slice(&ascii(&left_out_json(&skips)));
            out.push(b'}');
            Ok(out)
        })?;
        js.parse_json_owned(json)
    })
}

/// Folds a recorded stream (NDJSON, or SSE) as a chat UI folds it live, by the stream
/// format's rules: `{ format, messages, origins, skipped }`, where `origins` names the
/// lines that built each message and chunk. Throws an `Error` with `line` for a value
/// that is not JSON or not valid, a `TypeError` for bad arguments.
#[napi(
    js_name = "foldStream",
    ts_args_type = "source: string | Uint8Array, options?: ReadHistoryOptions",
    ts_return_type = "FoldedStream"
)]
pub fn fold_stream_js<'env>(
    env: &'env Env,
    source: Unknown,
    options_value: Unknown,
) -> Result<Unknown<'env>> {
    const WHAT: &str = "foldStream";
    glue(env, WHAT, |js| {
        let (given, options) = options(js, options_value.raw())?;
        let json = with_source(js, source.raw(), "source", |bytes| {
            let format = format_of(bytes, given)?;
            if format.stream.is_none() {
                return Err(located(
                    format!(
                        "{WHAT}: a {} file is a history, not a stream (readHistory reads it)",
                        format.name
                    ),
                    None,
                    None,
                ));
            }
            if let Some(message) = leaf_refused(format, &options) {
                return Err(located(format!("{WHAT}: {message}"), None, None));
            }
            let folded = fold_stream(format, bytes, options.strict).map_err(|e| {
                located(
                    format!("{WHAT}: {} stream, {e}", format.name),
                    e.line.map(|l| l as u64),
                    None,
                )
            })?;
            let span = |(a, b): (usize, usize)| {
                Json::Array(vec![
                    Json::Number(a.to_string().into()),
                    Json::Number(b.to_string().into()),
                ])
            };
            let origins = folded
                .origins
                .iter()
                .map(|o| {
                    Json::object([
                        ("lines", span(o.lines)),
                        (
                            "chunks",
                            Json::Array(o.chunks.iter().map(|c| c.map_or(Json::Null, span)).collect()),
                        ),
                    ])
                })
                .collect();
            let mut out = Vec::new();
            out.extend_from_slice(b"{\"format\":\"");
            out.extend_from_slice(format.name.as_bytes());
            out.extend_from_slice(b"\",\"messages\":");
            write_messages_ascii(&mut out, &folded.messages);
            out.extend_from_slice(b",\"origins\":");
            out.extend_from_slice(&ascii(&Json::Array(origins)));
            out.extend_from_slice(b",\"skipped\":");
            out.extend_from_slice(&ascii(&skipped_json(&folded.skips)));
            out.extend_from_slice(b",\"resume\":");
            out.extend_from_slice(&ascii(&folded.resume));
            out.push(b'}');
            Ok(out)
        })?;
        js.parse_json_owned(json)
    })
}

/// JSON text with every non-ASCII character escaped, as `JSON.parse` here takes it.
fn ascii(json: &Json) -> Vec<u8> {
    let mut out = Vec::new();
    value::write_ascii(&mut out, json);
    out
}

fn write_messages_ascii(out: &mut Vec<u8>, messages: &[FormatMessage]) {
    out.push(b'[');
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_message_head::<true>(out, &message.id, message.role);
        for (j, chunk) in message.chunks.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            write_chunk::<true>(out, chunk);
        }
        out.extend_from_slice(b"]}");
    }
    out.push(b']');
}

/// What `lockstep` gives: the history's messages as the stream can carry them, and what
/// was set aside, a line per reason.
#[allow(dead_code)]
#[napi(object)]
pub struct Lockstep {
    pub history: Vec<super::types::HistoryMessage>,
    pub notes: Vec<String>,
}

/// The messages of `value`, a `ChatMessage[]` (through `JSON.stringify`).
fn chat_messages(js: &Js, value: Value, name: &str) -> JsResult<Vec<FormatMessage>> {
    if !js.is_array(value)? {
        return Err(JsError::Type(format!(
            "lockstep: {name} must be an array of ChatMessage, got {}",
            js.value_type(value)?.name()
        )));
    }
    let env = Env::from_raw(js.env);
    let text = super::json_bridge::Bridge::new(&env, "lockstep")
        .and_then(|bridge| bridge.stringify_named(value, name))
        .map_err(|e| JsError::Type(e.reason))?
        .unwrap_or_default();
    let json = value::parse(&text).map_err(|e| JsError::Type(format!("lockstep: {name}: {e}")))?;
    crate::reading::model_json::messages_from_json(&super::json_bridge::absent_payloads(json), name)
        .map_err(|e| JsError::Type(format!("lockstep: {e}")))
}

/// For `agent-chunks check`: the history its tool keeps of a run, brought to what the
/// run's live stream in `format` can carry, for a stream format whose tool writes the two
/// differently (`codex-exec` beside a Codex rollout: call ids, reasoning's encrypted
/// content, …); `null` for the other formats. What `notes` lists was set aside; every
/// other difference between the two is one.
#[napi(
    js_name = "lockstep",
    ts_args_type = "format: FormatName, stream: HistoryMessage[], history: HistoryMessage[]",
    ts_return_type = "Lockstep | null"
)]
pub fn lockstep<'env>(
    env: &'env Env,
    format: Unknown,
    stream: Unknown,
    history: Unknown,
) -> Result<Unknown<'env>> {
    glue(env, "lockstep", |js| {
        let mut buf = [0u8; 32];
        let name = match js.tag(format.raw(), &mut buf)? {
            Some(name) => String::from_utf8_lossy(name).into_owned(),
            None => {
                return Err(JsError::Type(format!(
                    "lockstep: format must be a format name, got {}",
                    js.value_type(format.raw())?.name()
                )))
            }
        };
        let Some(row) = find(&name) else {
            return Err(JsError::Type(format!("lockstep: unknown format {name:?}")));
        };
        let mut stream = chat_messages(js, stream.raw(), "stream")?;
        let mut history = chat_messages(js, history.raw(), "history")?;
        let Some(reconcile) = row.lockstep else {
            return js.parse_json_owned(b"null".to_vec());
        };
        let notes = reconcile(&mut stream, &mut history);
        let mut out = b"{\"history\":".to_vec();
        write_messages_ascii(&mut out, &history);
        out.extend_from_slice(b",\"notes\":");
        value::write_ascii(
            &mut out,
            &Json::Array(notes.into_iter().map(|n| Json::string(n.as_str())).collect()),
        );
        out.push(b'}');
        js.parse_json_owned(out)
    })
}

/// Messages written in a format that has a writer (`formats()` says which: `write`), as
/// the text of a file in it: what its own reader reads back to the messages of the roles
/// it holds (`holds`), as far as the format can carry them; messages of other roles are
/// left out. `agent-chunks convert --to` writes with it.
#[napi(
    js_name = "writeMessages",
    ts_args_type = "format: FormatName, messages: HistoryMessage[]",
    ts_return_type = "string"
)]
pub fn write_messages(env: &Env, format: Unknown, messages: Unknown) -> Result<Unknown<'static>> {
    caught("writeMessages", || {
        let b = super::json_bridge::Bridge::new(env, "writeMessages")?;
        let written = || {
            let names: Vec<String> = FORMATS
                .iter()
                .filter(|f| f.write.is_some())
                .map(|f| format!("'{}'", f.name))
                .collect();
            names.join(", ")
        };
        let row = match b.value_type(format.raw())? {
            ValueType::String => {
                let name = b.text(format.raw())?;
                let row = std::str::from_utf8(name.as_bytes()).ok().and_then(find);
                match row.and_then(|row| row.write.map(|write| (row, write))) {
                    Some(found) => found,
                    None => {
                        return Err(b.type_error(format!(
                            "format must be one of {}, got '{}'",
                            written(),
                            name.to_string_lossy()
                        )))
                    }
                }
            }
            got => {
                return Err(b.type_error(format!("format must be one of {}, got {}", written(), got.name())))
            }
        };
        let (row, write) = row;
        let json = super::json_bridge::array_of(&b, messages.raw(), "messages")?;
        let messages = crate::reading::model_json::messages_from_json(
            &super::json_bridge::absent_payloads(json),
            "messages",
        )
        .map_err(|e| b.type_error(e))?;
        let text = (write.write)(&messages).map_err(|e| b.type_error(format!("{}: {e}", row.name)))?;
        // The writers escape unpaired surrogates, so the text is UTF-8.
        let string = b.string(&Wtf8::from_wtf8_unchecked(text))?;
        Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), string) })
    })
}
