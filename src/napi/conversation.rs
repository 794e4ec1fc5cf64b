//! `Conversation`: a stream format's conversation folded live for JavaScript, over
//! [`crate::formats::conversation::Conversation`] (the path `foldStream` and the command
//! take too).
//!
//! The messages live in Rust; JavaScript holds a copy that each push brings up to date
//! where it changed, and no further: a message added is made from its JSON text, a chunk
//! changed is made anew, except that the text of a text or thinking chunk that grew is
//! the old JavaScript string with the new part appended (V8 makes a rope), so a message
//! streamed in many deltas is never copied whole per push (`napi-facts.md`, quadratic
//! text). Two views, chosen at construction:
//!
//! - `mutable` (the drop-in's way): one array, one object per message and per chunk, for
//!   the conversation's life; a changed chunk gets the new fields assigned onto it.
//! - `immutable` (for React's `useSyncExternalStore` and `memo`, and other stores that
//!   compare by identity): every push that changes something gives a new array, in which
//!   a changed message is a new object with a new `chunks` array and new objects for the
//!   chunks that changed; every other message and chunk is the same object as before.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::{Env, ObjectFinalize, Result, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::decode::ValueType;
use crate::formats::check::FormatError;
use crate::formats::conversation::{Changes, Conversation as Core, LiveError, LiveOptions};
use crate::formats::model_json::{messages_from_json, write_chunk, write_message_head, FormatChunk};
use crate::formats::registry::find;
use crate::formats::value::{self, Json};
use crate::formats::wtf8::Wtf8;
use crate::formats::FORMATS;
use crate::model::Chunk;

use super::entry::caught;
use super::js::{Interned, Js, JsError, JsResult, Value, OBJECT_ASSIGN};
use super::stream::glue;

/// How `Conversation.messages` changes.
#[napi(string_enum = "lowercase")]
pub enum ConversationMode {
    /// One array and the same message and chunk objects for the conversation's life,
    /// changed in place (as `appendEventToChunks` changes chunks).
    Mutable,
    /// A new array after each push that changes something; only the messages and chunks
    /// that changed are new objects (structural sharing).
    Immutable,
}

/// Options of `new Conversation(options)`.
// Read from the JavaScript object field by field (each refusal names its field), so Rust
// never builds one; the declaration is for the typings.
#[allow(dead_code)]
#[napi(object)]
pub struct ConversationOptions {
    /// A stream format (`formats()` lists them: those with `stream: true`).
    #[napi(ts_type = "FormatName")]
    pub format: String,
    /// Refuse values the format does not know instead of skipping and counting them.
    pub strict: Option<bool>,
    /// The largest frame taken, in bytes: a larger one is refused as soon as it is seen
    /// to be larger, and the rest of it is dropped as it arrives, never buffered.
    pub limit: Option<f64>,
    /// Default `mutable`.
    pub mode: Option<ConversationMode>,
    /// Messages to go on from (a history loaded before, e.g. by `readHistory`): the last
    /// one takes what the stream adds to it.
    pub messages: Option<Vec<super::types::ChatMessage>>,
}

/// A message of an earlier push that this push changed.
#[allow(dead_code)]
#[napi(object)]
pub struct MessageChange {
    pub index: u32,
    /// Indexes of its chunks that changed or were added, in order.
    pub chunks: Vec<u32>,
    /// Its id changed (a stream that names a message when it ends).
    pub renamed: Option<bool>,
}

/// What one `push` changed: the indexes of the messages it added, and the earlier
/// messages it changed. Nothing else in `messages` changed.
#[allow(dead_code)]
#[napi(object)]
pub struct ConversationChanges {
    pub added: Vec<u32>,
    pub changed: Vec<MessageChange>,
}

/// What JavaScript holds of one message: per chunk, the length of the text it has (in
/// bytes of the Rust text) when the chunk is text or thinking.
type Synced = Vec<Vec<Option<usize>>>;

struct Live {
    core: Core,
    immutable: bool,
    /// The JavaScript `messages` array (the current one, for `immutable`).
    array: sys::napi_ref,
    synced: Synced,
}

/// A stream format's conversation, folded as it arrives. `push` takes what arrives:
/// bytes of NDJSON or SSE split anywhere (a `Uint8Array`, or a string), or one value
/// already parsed (a frame's JSON, an ACP notification, a JSON-RPC message). After every
/// push, `messages` is what `foldStream` (and for a format with a history, `readHistory`)
/// gives for everything pushed so far; the push returns what it changed. A bad frame
/// throws an `Error` with its `line` (and `offset`, for bytes), changes nothing, and the
/// conversation goes on; frames before it in the same push are folded.
#[napi(custom_finalize)]
pub struct Conversation {
    live: RefCell<Option<Live>>,
}

impl ObjectFinalize for Conversation {
    fn finalize(self, env: Env) -> Result<()> {
        if let Some(live) = self.live.into_inner() {
            // SAFETY: the reference was made in this environment.
            unsafe { sys::napi_delete_reference(env.raw(), live.array) };
        }
        Ok(())
    }
}

fn named(js: &Js, object: Value, key: &std::ffi::CStr) -> JsResult<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: both handles belong to the current scope.
    js.check(
        unsafe { sys::napi_get_named_property(js.env, object, key.as_ptr(), &mut value) },
        "reading a property",
    )?;
    Ok(value)
}

fn call(js: &Js, function: Value, this: Value, args: &[Value]) -> JsResult<Value> {
    let mut result = ptr::null_mut();
    // SAFETY: all handles belong to the current scope.
    js.check(
        unsafe { sys::napi_call_function(js.env, this, function, args.len(), args.as_ptr(), &mut result) },
        "calling a function",
    )?;
    Ok(result)
}

/// `JSON.stringify(value)` as bytes (lone surrogates come out as escapes, so nothing is
/// lost on the way to UTF-8); `None` for a value JSON cannot hold.
fn stringify(js: &Js, value: Value) -> JsResult<Option<String>> {
    let mut global = ptr::null_mut();
    // SAFETY: `env` is live.
    js.check(
        unsafe { sys::napi_get_global(js.env, &mut global) },
        "reading a global",
    )?;
    let json = named(js, global, c"JSON")?;
    let stringify = named(js, json, c"stringify")?;
    let text = call(js, stringify, json, &[value])?;
    match js.value_type(text)? {
        ValueType::String => Ok(Some(js.utf8(text)?)),
        _ => Ok(None),
    }
}

fn reference_value(js: &Js, reference: sys::napi_ref) -> JsResult<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: the reference belongs to this environment.
    js.check(
        unsafe { sys::napi_get_reference_value(js.env, reference, &mut value) },
        "reading a reference",
    )?;
    Ok(value)
}

fn reference(js: &Js, value: Value) -> JsResult<sys::napi_ref> {
    let mut reference = ptr::null_mut();
    // SAFETY: `value` is an object of the current scope.
    js.check(
        unsafe { sys::napi_create_reference(js.env, value, 1, &mut reference) },
        "keeping the messages",
    )?;
    Ok(reference)
}

fn text_len(chunk: &FormatChunk) -> Option<usize> {
    match chunk {
        Chunk::Text { text } | Chunk::Thinking { text, .. } => Some(text.as_bytes().len()),
        _ => None,
    }
}

fn chunk_text(js: &Js, chunk: &FormatChunk) -> JsResult<Value> {
    let mut out = Vec::new();
    write_chunk::<true>(&mut out, chunk);
    js.parse_json(&out)
}

fn message_value(live: &Core, index: usize, head_only: bool) -> Vec<u8> {
    let (id, role, chunks) = live.messages().message(index);
    let mut out = Vec::new();
    write_message_head::<true>(&mut out, id, role);
    if !head_only {
        for (j, chunk) in chunks.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            write_chunk::<true>(&mut out, chunk);
        }
    }
    out.extend_from_slice(b"]}");
    out
}

/// Whether `text` grew from the first `had` bytes by appending: the cut is at a character
/// (a lone surrogate joined with its other half since is not).
fn appended_at(text: &Wtf8, had: usize) -> bool {
    let bytes = text.as_bytes();
    had <= bytes.len() && bytes.get(had).is_none_or(|&b| b & 0xC0 != 0x80)
}

/// Chunk `j` of message `i` as JavaScript should now hold it; `old` is the object it holds.
fn fresh_chunk(js: &Js, chunk: &FormatChunk, had: Option<usize>, old: Option<Value>) -> JsResult<Value> {
    let (text, emptied) = match (chunk, had, old) {
        (Chunk::Text { text }, Some(had), Some(_)) if appended_at(text, had) => {
            (text, Chunk::Text { text: Wtf8::new() })
        }
        (Chunk::Thinking { text, metadata }, Some(had), Some(_)) if appended_at(text, had) => (
            text,
            Chunk::Thinking {
                text: Wtf8::new(),
                metadata: metadata.clone(),
            },
        ),
        _ => return chunk_text(js, chunk),
    };
    let (Some(had), Some(old)) = (had, old) else {
        return chunk_text(js, chunk);
    };
    let fresh = chunk_text(js, &emptied)?;
    let before = js.get(old, Interned::Text)?;
    let added = Wtf8::from_wtf8_unchecked(text.as_bytes()[had..].to_vec()).to_utf16();
    let joined = if added.is_empty() {
        before
    } else {
        js.plus(before, js.create_utf16(&added)?)?
    };
    js.set(fresh, Interned::Text, joined)?;
    Ok(fresh)
}

fn slice(js: &Js, array: Value) -> JsResult<Value> {
    let slice = named(js, array, c"slice")?;
    call(js, slice, array, &[])
}

fn number_list(out: &mut Vec<u8>, numbers: impl Iterator<Item = usize>) {
    out.push(b'[');
    for (i, n) in numbers.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(n.to_string().as_bytes());
    }
    out.push(b']');
}

fn changes_json(changes: &Changes) -> Vec<u8> {
    let mut out = b"{\"added\":".to_vec();
    number_list(&mut out, changes.added.clone());
    out.extend_from_slice(b",\"changed\":[");
    for (i, change) in changes.changed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("{{\"index\":{},\"chunks\":", change.index).as_bytes());
        number_list(&mut out, change.chunks.iter().copied());
        if change.renamed {
            out.extend_from_slice(b",\"renamed\":true");
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}

impl Live {
    /// Brings the JavaScript messages up to date with `changes`.
    fn sync(&mut self, js: &Js, changes: &Changes) -> JsResult<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let held = reference_value(js, self.array)?;
        let array = if self.immutable { slice(js, held)? } else { held };
        let messages = self.core.messages();
        for change in &changes.changed {
            let i = change.index;
            let old_message = js.element(array, i)?;
            let old_chunks = js.get(old_message, Interned::Chunks)?;
            let (message, chunks) = if self.immutable {
                let message = js.parse_json(&message_value(&self.core, i, true))?;
                let chunks = slice(js, old_chunks)?;
                js.set(message, Interned::Chunks, chunks)?;
                js.set_element(array, i, message)?;
                (message, chunks)
            } else {
                (old_message, old_chunks)
            };
            let (id, _, now) = messages.message(i);
            if change.renamed && !self.immutable {
                let id: Vec<u16> = id.encode_utf16().collect();
                js.set(message, Interned::Id, js.create_utf16(&id)?)?;
            }
            let synced = &mut self.synced[i];
            for &j in &change.chunks {
                let held = j < synced.len();
                let old = if held {
                    Some(js.element(old_chunks, j)?)
                } else {
                    None
                };
                let had = synced.get(j).copied().flatten();
                let fresh = fresh_chunk(js, &now[j], had, old)?;
                match old {
                    Some(old) if !self.immutable => {
                        let assign = js.table(OBJECT_ASSIGN)?;
                        call(js, assign, js.undefined()?, &[old, fresh])?;
                    }
                    _ => js.set_element(chunks, j, fresh)?,
                }
                if held {
                    synced[j] = text_len(&now[j]);
                } else {
                    synced.resize(j, None);
                    synced.push(text_len(&now[j]));
                }
            }
        }
        for i in changes.added.clone() {
            let message = js.parse_json(&message_value(&self.core, i, false))?;
            js.set_element(array, i, message)?;
            let (_, _, chunks) = messages.message(i);
            self.synced.push(chunks.iter().map(text_len).collect());
        }
        if self.immutable {
            let next = reference(js, array)?;
            // SAFETY: the old reference belongs to this environment and is no longer used.
            unsafe { sys::napi_delete_reference(js.env, self.array) };
            self.array = next;
        }
        Ok(())
    }
}

fn live_error(error: LiveError) -> JsError {
    JsError::Located {
        message: error.to_string(),
        offset: error.offset,
        line: error.error.line.map(|l| l as u64),
        code: None,
    }
}

fn format_error(error: FormatError) -> JsError {
    live_error(LiveError::from(error))
}

/// What a push was given.
enum Input {
    Bytes(Vec<u8>),
    Value(Json),
}

/// `data` read before the conversation is touched: a getter of a pushed object may run
/// any code, `push` on this conversation included.
fn input(js: &Js, data: Value) -> JsResult<Input> {
    if let Some(bytes) = super::bytes::uint8_bytes(js, data)? {
        return Ok(Input::Bytes(bytes.into_owned()));
    }
    match js.value_type(data)? {
        ValueType::String => Ok(Input::Bytes(js.utf8(data)?.into_bytes())),
        ValueType::Object => {
            let text =
                stringify(js, data)?.ok_or_else(|| JsError::Type("data cannot be written as JSON".into()))?;
            let value = value::parse(text.as_bytes()).map_err(|e| JsError::Type(format!("data: {e}")))?;
            Ok(Input::Value(value))
        }
        got => Err(JsError::Type(format!(
            "data must be a Uint8Array, a string or a parsed frame (an object), got {}",
            got.name()
        ))),
    }
}

fn options(js: &Js, value: Value) -> JsResult<(Core, bool)> {
    if js.value_type(value)? != ValueType::Object {
        return Err(JsError::Type(format!(
            "options must be an object with a format, got {}",
            js.value_type(value)?.name()
        )));
    }
    let streams = || {
        FORMATS
            .iter()
            .filter(|f| f.stream.is_some())
            .map(|f| format!("'{}'", f.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let format = named(js, value, c"format")?;
    let format = match js.value_type(format)? {
        ValueType::String => {
            let name = js.utf8(format)?;
            find(&name).filter(|f| f.stream.is_some()).ok_or_else(|| {
                JsError::Type(format!(
                    "options.format must be one of {}, got '{name}'",
                    streams()
                ))
            })?
        }
        got => {
            return Err(JsError::Type(format!(
                "options.format must be one of {}, got {}",
                streams(),
                got.name()
            )))
        }
    };
    let strict = named(js, value, c"strict")?;
    let strict = match js.value_type(strict)? {
        ValueType::Undefined => false,
        ValueType::Boolean => js.truthy(strict)?,
        got => {
            return Err(JsError::Type(format!(
                "options.strict must be a boolean, got {}",
                got.name()
            )))
        }
    };
    let limit = named(js, value, c"limit")?;
    let limit = match js.value_type(limit)? {
        ValueType::Undefined => None,
        ValueType::Number => {
            let n = js.number(limit)?;
            if !(n >= 1.0 && n.fract() == 0.0) {
                return Err(JsError::Type(format!(
                    "options.limit must be a positive whole number of bytes, got {n}"
                )));
            }
            Some(if n >= usize::MAX as f64 {
                usize::MAX
            } else {
                n as usize
            })
        }
        got => {
            return Err(JsError::Type(format!(
                "options.limit must be a number, got {}",
                got.name()
            )))
        }
    };
    let mode = named(js, value, c"mode")?;
    let mut buf = [0u8; 32];
    let immutable = match js.tag(mode, &mut buf)? {
        None if js.value_type(mode)? == ValueType::Undefined => false,
        Some(b"mutable") => false,
        Some(b"immutable") => true,
        _ => {
            return Err(JsError::Type(format!(
                "options.mode must be 'mutable' or 'immutable', got {}",
                js.describe(mode)?
            )))
        }
    };
    let messages = named(js, value, c"messages")?;
    let messages = match js.value_type(messages)? {
        ValueType::Undefined => Vec::new(),
        _ if js.is_array(messages)? => {
            let text = stringify(js, messages)?.unwrap_or_default();
            let json =
                value::parse(text.as_bytes()).map_err(|e| JsError::Type(format!("options.messages: {e}")))?;
            messages_from_json(&json, "options.messages").map_err(|e| JsError::Type(e.to_string()))?
        }
        got => {
            return Err(JsError::Type(format!(
                "options.messages must be an array of ChatMessage, got {}",
                got.name()
            )))
        }
    };
    let options = LiveOptions { strict, limit };
    let core = Core::resume(format, options, messages).map_err(JsError::Type)?;
    Ok((core, immutable))
}

impl Conversation {
    /// Runs `body` on the conversation; a call made while another runs (from a getter of
    /// a pushed value, a setter on a message) is refused.
    fn with(
        &self,
        js: &Js,
        what: &str,
        body: impl FnOnce(&Js, &mut Live) -> JsResult<Value>,
    ) -> JsResult<Value> {
        let Ok(mut live) = self.live.try_borrow_mut() else {
            return Err(JsError::Type(format!(
                "{what} called while this conversation is busy (from a getter or setter it ran)"
            )));
        };
        let live = live
            .as_mut()
            .ok_or_else(|| JsError::Internal("the conversation is gone".into()))?;
        body(js, live)
    }

    fn apply(
        js: &Js,
        live: &mut Live,
        result: std::result::Result<Changes, (Changes, JsError)>,
    ) -> JsResult<Value> {
        let (changes, error) = match result {
            Ok(changes) => (changes, None),
            Err((changes, error)) => (changes, Some(error)),
        };
        live.sync(js, &changes)?;
        match error {
            Some(error) => Err(error),
            None => js.parse_json(&changes_json(&changes)),
        }
    }
}

#[napi]
impl Conversation {
    #[napi(constructor, ts_args_type = "options: ConversationOptions")]
    pub fn new(env: &Env, options_value: Unknown) -> Result<Self> {
        let mut made = None;
        glue(env, "Conversation", |js| {
            let (core, immutable) = options(js, options_value.raw())?;
            let messages = core.messages();
            let mut text = b"[".to_vec();
            let mut synced = Vec::with_capacity(messages.len());
            for i in 0..messages.len() {
                if i > 0 {
                    text.push(b',');
                }
                text.extend_from_slice(&message_value(&core, i, false));
                synced.push(messages.message(i).2.iter().map(text_len).collect());
            }
            text.push(b']');
            let array = js.parse_json_owned(text)?;
            made = Some(Live {
                core,
                immutable,
                array: reference(js, array)?,
                synced,
            });
            js.undefined()
        })?;
        Ok(Conversation {
            live: RefCell::new(made),
        })
    }

    /// Folds what arrived: bytes (a `Uint8Array`, or a string) of NDJSON or SSE split
    /// anywhere, or one value already parsed. Returns what changed.
    #[napi(
        ts_args_type = "data: Uint8Array | string | object",
        ts_return_type = "ConversationChanges"
    )]
    pub fn push<'env>(&self, env: &'env Env, data: Unknown) -> Result<Unknown<'env>> {
        const WHAT: &str = "Conversation.push";
        let mut read = None;
        glue(env, WHAT, |js| {
            read = Some(input(js, data.raw())?);
            js.undefined()
        })?;
        let read = read.expect("read above");
        glue(env, WHAT, |js| {
            self.with(js, WHAT, |js, live| {
                let result = match read {
                    Input::Bytes(bytes) => live.core.push_bytes(&bytes).map_err(|(c, e)| (c, live_error(e))),
                    Input::Value(value) => live.core.push_value(value).map_err(|e| {
                        let changes = Changes::default();
                        (changes, format_error(e))
                    }),
                };
                Self::apply(js, live, result)
            })
        })
    }

    /// The end of the stream: a last line without a line break is folded; a frame cut
    /// short throws.
    #[napi(ts_return_type = "ConversationChanges")]
    pub fn end<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        const WHAT: &str = "Conversation.end";
        glue(env, WHAT, |js| {
            self.with(js, WHAT, |js, live| {
                let result = live.core.end().map_err(|(c, e)| (c, live_error(e)));
                Self::apply(js, live, result)
            })
        })
    }

    /// The messages so far (see `mode` for when it is a new array).
    #[napi(getter, ts_return_type = "ChatMessage[]")]
    pub fn messages<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        const WHAT: &str = "Conversation.messages";
        glue(env, WHAT, |js| {
            self.with(js, WHAT, |js, live| reference_value(js, live.array))
        })
    }

    /// Values skipped so far (with `strict` they are refused).
    #[napi(getter, ts_return_type = "SkippedLines")]
    pub fn skipped<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        const WHAT: &str = "Conversation.skipped";
        glue(env, WHAT, |js| {
            self.with(js, WHAT, |js, live| {
                let skips = live.core.skips();
                let json = Json::object([
                    ("count", Json::Number(skips.count.to_string().into())),
                    (
                        "examples",
                        Json::Array(skips.examples.iter().map(|e| Json::string(e.as_str())).collect()),
                    ),
                ]);
                let mut out = Vec::new();
                value::write_ascii(&mut out, &json);
                js.parse_json(&out)
            })
        })
    }

    /// The stream format.
    #[napi(getter, ts_return_type = "FormatName")]
    pub fn format(&self) -> Result<String> {
        caught("Conversation.format", || {
            let live = self
                .live
                .try_borrow()
                .map_err(|_| napi::Error::from_reason("Conversation.format: busy"))?;
            Ok(live.as_ref().map_or("", |l| l.core.format().name).to_string())
        })
    }
}
