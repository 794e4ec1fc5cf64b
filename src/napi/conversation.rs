//! `Conversation`: a stream format's conversation folded live for JavaScript, over
//! [`crate::live::conversation::Conversation`] (the path `foldStream` and the command
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
use std::collections::HashSet;
use std::ffi::c_void;
use std::ptr;

use napi::bindgen_prelude::{Env, ObjectFinalize, Result, Unknown};
use napi::{sys, JsValue};
use napi_derive::napi;

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::decode::ValueType;
use crate::formats::find;
use crate::formats::FORMATS;
use crate::live::conversation::{Changes, Conversation as Core, LiveError, LiveOptions};
use crate::model::Chunk;
use crate::reading::fold::CallTouch;
use crate::reading::format::Format;
use crate::reading::model_json::{
    messages_from_json, write_call, write_chunk, write_message_head, FormatChunk,
};

use super::json_bridge::Bridge;
use super::raw::call::run;
use super::raw::js::{Interned, Js, JsError, JsResult, State, Value, OBJECT_ASSIGN};
use super::registry::{named, optional_boolean};
use super::stream::{call_info, class_property, define_class, glue};
use super::types::ConversationResume;

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
    /// Messages to go on from (a history loaded before, e.g. by `readHistory` or
    /// `foldStream`): the last one takes what the stream adds to it.
    pub messages: Option<Vec<super::types::HistoryMessage>>,
    /// The line number of the first line pushed (default 1): after a history of n lines,
    /// n + 1, so that errors, and the messages a format names by their line (ACP's
    /// without a `messageId`), are numbered as in the whole recording.
    pub line: Option<f64>,
    /// The `resume` of the conversation `messages` came from (or of `foldStream`'s
    /// result): the conversation then goes on exactly, at any frame boundary, numbering
    /// lines as the state says.
    pub resume: Option<ConversationResume>,
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
    /// Its chunks from this index on are new objects, not the ones it had changed: the
    /// message's end held the whole of it and it differed from what streamed (pi's
    /// `message_end` after lost updates). It may have fewer chunks than before.
    pub replaced: Option<u32>,
}

/// What one `push` changed: the indexes of the messages it added, and the earlier
/// messages it changed. Nothing else in `messages` changed.
#[allow(dead_code)]
#[napi(object)]
pub struct ConversationChanges {
    pub added: Vec<u32>,
    pub changed: Vec<MessageChange>,
    /// The messages were replaced whole, some removed or moved (an AG-UI
    /// `MESSAGES_SNAPSHOT` that drops or reorders messages): `added` and `changed` are
    /// empty; read `messages` again. A message that stayed as it was is the same object
    /// as before, at its new index.
    pub reset: Option<bool>,
}

/// What JavaScript holds of one message: per chunk, the length of the text it has (in
/// bytes of the Rust text) when the chunk is text or thinking.
type Synced = Vec<Vec<Option<usize>>>;

struct Live {
    core: Core,
    immutable: bool,
    /// The JavaScript messages. `mutable`: the array `messages` gives. `immutable`: an
    /// array no caller sees, brought up to date in place by each push, of which
    /// `messages` gives a copy once per change (see `snapshot`), so that a push costs
    /// what it changed whatever the conversation's length.
    array: sys::napi_ref,
    /// `immutable`: the copy `messages` gave since the last change; `None` once a push
    /// changed something (the next read makes a new one).
    snapshot: Option<sys::napi_ref>,
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
            live.release(env.raw());
        }
        Ok(())
    }
}

impl Live {
    /// Lets go of the JavaScript arrays held.
    fn release(self, env: sys::napi_env) {
        for reference in std::iter::once(self.array).chain(self.snapshot) {
            // SAFETY: the references were made in this environment and are used no more.
            unsafe { sys::napi_delete_reference(env, reference) };
        }
    }

    /// The `messages` a caller gets: in `immutable` mode, a copy of the array made at the
    /// first read after a change (V8's own `slice`, one pass over the references), then
    /// the same one until the next change.
    fn messages(&mut self, js: &Js) -> JsResult<Value> {
        let held = reference_value(js, self.array)?;
        if !self.immutable {
            return Ok(held);
        }
        if let Some(snapshot) = self.snapshot {
            return reference_value(js, snapshot);
        }
        let copy = slice(js, held)?;
        self.snapshot = Some(reference(js, copy)?);
        Ok(copy)
    }
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

/// `JSON.stringify(value)` as UTF-8 (lone surrogates come out as escapes, so nothing is
/// lost on the way to UTF-8); `None` for a value JSON cannot hold. A bigint or a cycle is
/// a `TypeError` naming `what` (`"options.resume.line" is a bigint …`), as the format
/// functions name their arguments; an exception of the value's own code (a getter, a
/// `toJSON`) propagates as it is.
fn stringify(js: &Js, value: Value, name: &'static str, what: &str) -> JsResult<Option<Vec<u8>>> {
    let env = Env::from_raw(js.env);
    let taken = Bridge::new(&env, name).and_then(|bridge| bridge.stringify_named(value, what));
    match taken {
        Ok(text) => Ok(text),
        Err(error) => {
            let mut pending = false;
            // SAFETY: `js.env` is live.
            unsafe { sys::napi_is_exception_pending(js.env, &mut pending) };
            Err(if pending {
                JsError::Pending
            } else {
                JsError::Internal(error.reason)
            })
        }
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

/// Makes anew (or, for a call whose arguments only grew, appends to) the calls of chunk
/// `j` of message `i` that changed, when that is all that changed of the chunk
/// ([`Changes::calls`]) and the mechanics are compiled; `chunk` is the batch JavaScript
/// holds. `false`, nothing done, else.
fn sync_calls(
    js: &Js,
    core: &Core,
    array: Value,
    chunk: Value,
    touches: &[CallTouch],
    i: usize,
    j: usize,
) -> JsResult<bool> {
    let here: Vec<&CallTouch> = touches
        .iter()
        .filter(|t| (t.message, t.chunk) == (i, j))
        .collect();
    let Some(now) = core.messages().message(i).2.get(j).and_then(Chunk::calls) else {
        return Ok(false);
    };
    if here.is_empty() {
        return Ok(false);
    }
    // Each call once: its growth from where JavaScript's text ends (its first in the
    // push), or `None` to make it anew.
    let mut each: Vec<(usize, Option<Wtf8>, Option<&str>)> = Vec::new();
    for touch in &here {
        let tail = touch
            .grown
            .as_ref()
            .and_then(|g| match &now.get(touch.call)?.arguments {
                Json::String(text) if appended_at(text, g.from) => Some(text.tail_from(g.from)),
                _ => None,
            });
        match each.iter_mut().find(|(call, _, _)| *call == touch.call) {
            // Grown again in the same push: the first growth's tail holds it.
            Some((_, Some(_), _)) if touch.grown.is_some() => {}
            Some(other) => other.1 = None,
            None => each.push((touch.call, tail, touch.grown.as_ref().and_then(|g| g.mirror))),
        }
    }
    each.sort_by_key(|(call, _, _)| *call);
    let calls = js.get(chunk, Interned::Calls)?;
    let Some(mut len) = js.array_len(calls)? else {
        return Ok(false);
    };
    // A call made anew replaces one JavaScript holds or follows them; a grown one is held.
    for (call, tail, _) in &each {
        match (*call < len, tail) {
            (true, _) => {}
            (false, None) if *call == len && *call < now.len() => len += 1,
            _ => return Ok(false),
        }
    }
    // A call grown is appended to where JavaScript holds it, so it must be an object
    // there (else the batch is made anew). Each is read once, and grown as read: both
    // ways run the caller's getters and traps alike. Where the mechanics do not run, one
    // step at a time.
    let stepwise = !js.compiled();
    let mut held = Vec::with_capacity(each.len());
    for (call, tail, _) in &each {
        if tail.is_none() {
            held.push(None);
            continue;
        }
        let entry = js.element(calls, *call)?;
        if js.value_type(entry)? != ValueType::Object {
            return Ok(false);
        }
        held.push(Some(entry));
    }
    for ((call, tail, mirror), entry) in each.into_iter().zip(held) {
        match (tail, entry) {
            (Some(tail), Some(entry)) if stepwise => grow_stepwise(js, entry, mirror, &tail)?,
            (Some(tail), Some(entry)) => {
                js.conversation_pushed(array, Some((i, j)), &tail, Some((entry, mirror)))?;
            }
            _ => {
                let mut out = Vec::new();
                write_call::<true>(&mut out, &now[call]);
                js.set_element(calls, call, js.parse_json(&out)?)?;
            }
        }
    }
    Ok(true)
}

/// `call.arguments += tail`, and the same of `call.meta[mirror]` when it is an object,
/// through N-API one step at a time (what `pushed` of the mechanics does in one call).
fn grow_stepwise(js: &Js, call: Value, mirror: Option<&str>, tail: &Wtf8) -> JsResult<()> {
    let added = js.wtf8_string(tail)?;
    let before = js.get(call, Interned::Arguments)?;
    js.set(call, Interned::Arguments, js.plus(before, added)?)?;
    let Some(mirror) = mirror else {
        return Ok(());
    };
    let meta = property(js, call, "meta")?;
    let held = match js.value_type(meta)? {
        ValueType::Object => property(js, meta, mirror)?,
        _ => return Ok(()),
    };
    if js.value_type(held)? == ValueType::Object {
        let before = js.get(held, Interned::Arguments)?;
        js.set(held, Interned::Arguments, js.plus(before, added)?)?;
    }
    Ok(())
}

/// `object[key]` of an object.
fn property(js: &Js, object: Value, key: &str) -> JsResult<Value> {
    let key = js.ascii_string(key)?;
    let mut value = ptr::null_mut();
    // SAFETY: all handles belong to the current scope; `object` is an object.
    js.check(
        unsafe { sys::napi_get_property(js.env, object, key, &mut value) },
        "reading a property",
    )?;
    Ok(value)
}

/// Whether `text` grew from the first `had` bytes by appending (the text of a chunk only
/// grows; a lone lead surrogate joined with its trail since is an append too, see
/// [`Wtf8::tail_from`]).
fn appended_at(text: &Wtf8, had: usize) -> bool {
    had <= text.as_bytes().len()
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
    let added = text.tail_from(had);
    let joined = if added.is_empty() {
        before
    } else {
        js.plus(before, js.wtf8_string(&added)?)?
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
    if changes.reset.is_some() {
        return b"{\"added\":[],\"changed\":[],\"reset\":true}".to_vec();
    }
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
        if let Some(from) = change.replaced {
            out.extend_from_slice(format!(",\"replaced\":{from}").as_bytes());
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}

impl Live {
    /// The pushes most made, synced and reported in one call into V8 where the mechanics
    /// are compiled: one that changed nothing, and in `mutable` mode a streamed delta (one
    /// text or thinking chunk grown by appending, nothing else changed). `None` for the
    /// others, which [`Live::sync`] and [`changes_json`] take.
    fn pushed(&mut self, js: &Js, changes: &Changes) -> JsResult<Option<Value>> {
        if changes.is_empty() {
            return js.conversation_pushed(js.undefined()?, None, &Wtf8::new(), None);
        }
        if self.immutable || !changes.added.is_empty() || changes.reset.is_some() {
            return Ok(None);
        }
        if !changes.calls.is_empty() {
            return self.pushed_calls(js, changes);
        }
        let [change] = changes.changed.as_slice() else {
            return Ok(None);
        };
        let (i, [j]) = (change.index, change.chunks.as_slice()) else {
            return Ok(None);
        };
        if change.renamed || change.replaced.is_some() {
            return Ok(None);
        }
        let Some(had) = self
            .synced
            .get(i)
            .and_then(|held| held.get(*j))
            .copied()
            .flatten()
        else {
            return Ok(None);
        };
        let text = match self.core.messages().message(i).2.get(*j) {
            Some(Chunk::Text { text } | Chunk::Thinking { text, metadata: None })
                if appended_at(text, had) =>
            {
                text
            }
            _ => return Ok(None),
        };
        let added = text.tail_from(had);
        let len = text.as_bytes().len();
        let array = reference_value(js, self.array)?;
        let Some(reported) = js.conversation_pushed(array, Some((i, *j)), &added, None)? else {
            return Ok(None);
        };
        // `undefined`: the chunk is not where it was (the caller's doing); synced as the
        // other pushes are.
        if js.value_type(reported)? == ValueType::Undefined {
            return Ok(None);
        }
        self.synced[i][*j] = Some(len);
        Ok(Some(reported))
    }

    /// [`Live::pushed`] of a push whose one change was to some calls of one tool batch.
    fn pushed_calls(&mut self, js: &Js, changes: &Changes) -> JsResult<Option<Value>> {
        let [change] = changes.changed.as_slice() else {
            return Ok(None);
        };
        let (i, [j]) = (change.index, change.chunks.as_slice()) else {
            return Ok(None);
        };
        if change.renamed || change.replaced.is_some() || !js.compiled() {
            return Ok(None);
        }
        if changes.calls.iter().any(|c| (c.message, c.chunk) != (i, *j)) {
            return Ok(None);
        }
        // Synced as [`Live::sync`] syncs it, the caller's objects read once each as there
        // (a batch that cannot be grown where it is is made anew there, not read twice);
        // only the report is the mechanics' literal.
        self.sync(js, changes)?;
        let array = reference_value(js, self.array)?;
        match js.conversation_pushed(array, Some((i, *j)), &Wtf8::new(), None)? {
            Some(reported) => Ok(Some(reported)),
            None => js.parse_json(&changes_json(changes)).map(Some),
        }
    }

    /// After the caller's own code threw midway through syncing `changes` (a getter, a
    /// setter or a trap on its messages): the messages the push touched are made anew, so
    /// that the messages JavaScript holds, and what is known of them, are one for one with
    /// the conversation's again (else a message the push added would be missing there, and
    /// the next push would look for it). The caller's exception goes on; one thrown here
    /// is dropped.
    fn remake(&mut self, js: &Js, changes: &Changes) {
        let messages = self.core.messages();
        let len = messages.len();
        let touched: Vec<usize> = if changes.reset.is_some() {
            (0..len).collect()
        } else {
            let changed = changes.changed.iter().map(|change| change.index);
            changed
                .chain(changes.added.clone())
                .filter(|&i| i < len)
                .collect()
        };
        self.synced.resize(len, Vec::new());
        for &i in &touched {
            self.synced[i] = messages.message(i).2.iter().map(text_len).collect();
        }
        if let Some(snapshot) = self.snapshot.take() {
            // SAFETY: the reference belongs to this environment.
            unsafe { sys::napi_delete_reference(js.env, snapshot) };
        }
        let made = (|| -> JsResult<()> {
            let array = reference_value(js, self.array)?;
            for &i in &touched {
                js.set_element(array, i, js.parse_json(&message_value(&self.core, i, false))?)?;
            }
            js.set(array, Interned::Length, js.create_number(len as f64)?)
        })();
        if made.is_err() {
            let _ = js.take_exception();
        }
    }

    /// Brings the JavaScript messages up to date with `changes`.
    fn sync(&mut self, js: &Js, changes: &Changes) -> JsResult<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let array = reference_value(js, self.array)?;
        if let Some(snapshot) = self.snapshot.take() {
            // SAFETY: the reference belongs to this environment; callers keep the array.
            unsafe { sys::napi_delete_reference(js.env, snapshot) };
        }
        let messages = self.core.messages();
        if let Some(reset) = &changes.reset {
            let kept = &reset.kept;
            // The messages were replaced whole: those that stayed as they were keep their
            // objects, the others are made anew, in the order they have now.
            let old: Vec<Value> = (0..self.synced.len())
                .map(|i| js.element(array, i))
                .collect::<JsResult<_>>()?;
            let mut synced = Vec::with_capacity(messages.len());
            for (i, was) in kept.iter().enumerate() {
                let message = match was.and_then(|j| old.get(j).copied().zip(self.synced.get(j))) {
                    Some((object, held)) => {
                        synced.push(held.clone());
                        object
                    }
                    None => {
                        synced.push(messages.message(i).2.iter().map(text_len).collect());
                        js.parse_json(&message_value(&self.core, i, false))?
                    }
                };
                js.set_element(array, i, message)?;
            }
            js.set(array, Interned::Length, js.create_number(kept.len() as f64)?)?;
            self.synced = synced;
            return Ok(());
        }
        for change in &changes.changed {
            let i = change.index;
            let old_message = js.element(array, i)?;
            let old_chunks = match js.value_type(old_message)? {
                ValueType::Object | ValueType::Array => js.get(old_message, Interned::Chunks)?,
                _ => js.undefined()?,
            };
            if !matches!(js.value_type(old_chunks)?, ValueType::Object | ValueType::Array) {
                // A message JavaScript does not hold as one (the caller froze or cut the
                // array before it came, or put something else there): made anew whole.
                js.set_element(array, i, js.parse_json(&message_value(&self.core, i, false))?)?;
                self.synced[i] = messages.message(i).2.iter().map(text_len).collect();
                continue;
            }
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
            // Replaced chunks are new objects: neither appended to nor assigned onto.
            let replaced = change.replaced.unwrap_or(usize::MAX);
            for &j in &change.chunks {
                if j >= replaced {
                    if j >= synced.len() {
                        synced.resize(j + 1, None);
                    }
                    js.set_element(chunks, j, chunk_text(js, &now[j])?)?;
                    synced[j] = text_len(&now[j]);
                    continue;
                }
                let held = j < synced.len();
                let old = if held {
                    Some(js.element(old_chunks, j)?)
                } else {
                    None
                };
                // Calls whose arguments only grew get what they gained appended.
                if let (Some(old), false) = (old, self.immutable) {
                    if sync_calls(js, &self.core, array, old, &changes.calls, i, j)? {
                        continue;
                    }
                }
                let had = synced.get(j).copied().flatten();
                match (old, &now[j], had) {
                    // The common push, a streamed delta: only the text grew, and in place
                    // the old string gets the new part appended (a rope), nothing else.
                    (
                        Some(old),
                        Chunk::Text { text } | Chunk::Thinking { text, metadata: None },
                        Some(had),
                    ) if !self.immutable && appended_at(text, had) => {
                        let added = text.tail_from(had);
                        if !added.is_empty() {
                            let before = js.get(old, Interned::Text)?;
                            js.set(old, Interned::Text, js.plus(before, js.wtf8_string(&added)?)?)?;
                        }
                    }
                    _ => {
                        let fresh = fresh_chunk(js, &now[j], had, old)?;
                        match old {
                            Some(old) if !self.immutable => {
                                let assign = js.table(OBJECT_ASSIGN)?;
                                call(js, assign, js.undefined()?, &[old, fresh])?;
                            }
                            _ => js.set_element(chunks, j, fresh)?,
                        }
                    }
                }
                if held {
                    synced[j] = text_len(&now[j]);
                } else {
                    synced.resize(j, None);
                    synced.push(text_len(&now[j]));
                }
            }
            if now.len() < synced.len() {
                synced.truncate(now.len());
                js.set(chunks, Interned::Length, js.create_number(now.len() as f64)?)?;
            }
        }
        for i in changes.added.clone() {
            let message = js.parse_json(&message_value(&self.core, i, false))?;
            js.set_element(array, i, message)?;
            let (_, _, chunks) = messages.message(i);
            self.synced.push(chunks.iter().map(text_len).collect());
        }
        Ok(())
    }
}

/// A refused frame as the `Error` thrown: its message prefixed with the method, its
/// `line` and `offset` as properties.
fn live_error(error: LiveError, what: &str) -> JsError {
    JsError::Located {
        message: format!("{what}: {error}"),
        offset: error.offset,
        line: error.error.line.map(|l| l as u64),
        code: None,
    }
}

/// What a push was given.
enum Input<'a> {
    /// A typed array's bytes are read where they are: no JavaScript runs before the push
    /// takes them.
    Bytes(std::borrow::Cow<'a, [u8]>),
    Value(Json),
}

/// `data` read before the conversation is touched: a getter of a pushed object may run
/// any code, `push` on this conversation included.
fn input<'a>(js: &'a Js, data: Value) -> JsResult<Input<'a>> {
    if let Some(bytes) = super::bytes::uint8_bytes(js, data)? {
        return Ok(Input::Bytes(bytes));
    }
    match js.value_type(data)? {
        ValueType::String => Ok(Input::Bytes(js.utf8(data)?.into_bytes().into())),
        ValueType::Object => {
            let text = stringify(js, data, "Conversation.push", "data")?
                .ok_or_else(|| JsError::Type("data cannot be written as JSON".into()))?;
            let value = value::parse(&text).map_err(|e| JsError::Type(format!("data: {e}")))?;
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
    let strict = optional_boolean(js, value, c"strict")?;
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
            let text = stringify(js, messages, "Conversation", "options.messages")?.unwrap_or_default();
            let json = value::parse(&text).map_err(|e| JsError::Type(format!("options.messages: {e}")))?;
            messages_from_json(&super::json_bridge::absent_payloads(json), "options.messages")
                .map_err(|e| JsError::Type(e.to_string()))?
        }
        got => {
            return Err(JsError::Type(format!(
                "options.messages must be an array of ChatMessage, got {}",
                got.name()
            )))
        }
    };
    let line = named(js, value, c"line")?;
    let line_given = js.value_type(line)? != ValueType::Undefined;
    let first_line = match js.value_type(line)? {
        ValueType::Undefined => 1,
        ValueType::Number => {
            let n = js.number(line)?;
            if !(n >= 1.0 && n.fract() == 0.0 && n <= u32::MAX as f64) {
                return Err(JsError::Type(format!(
                    "options.line must be a whole number from 1, got {n}"
                )));
            }
            n as usize
        }
        got => {
            return Err(JsError::Type(format!(
                "options.line must be a number, got {}",
                got.name()
            )))
        }
    };
    let resume = named(js, value, c"resume")?;
    let resume = match js.value_type(resume)? {
        ValueType::Undefined => None,
        ValueType::Object => {
            let text = stringify(js, resume, "Conversation", "options.resume")?.unwrap_or_default();
            let state = value::parse(&text).map_err(|e| JsError::Type(format!("options.resume: {e}")))?;
            match state.get("line").and_then(Json::as_f64) {
                Some(line) if line_given && line != first_line as f64 => {
                    return Err(JsError::Type(format!(
                        "options.line ({first_line}) is not options.resume.line ({line}): give one of them"
                    )))
                }
                _ => {}
            }
            Some(state)
        }
        got => {
            return Err(JsError::Type(format!(
                "options.resume must be an object (a Conversation's resume), got {}",
                got.name()
            )))
        }
    };
    let options = LiveOptions {
        strict,
        limit,
        first_line,
        // Live, a bad frame is an error that changes nothing.
        recording: false,
    };
    let core = Core::resume(format, options, messages, resume.as_ref())
        .map_err(|e| JsError::Type(format!("options.{e}")))?;
    Ok((core, immutable))
}

// ─── The raw class ───────────────────────────────────────────────────────────

thread_local! {
    /// The conversations this thread's constructor made that are not finalized yet: a
    /// method called on anything else throws instead of reading foreign memory (as
    /// `stream.rs` keeps its streams).
    static MADE: RefCell<HashSet<usize, Addresses>> = RefCell::new(HashSet::default());
}

/// Hashes the addresses in [`MADE`]: a multiply spreads their bits, as they are not
/// chosen by anyone's input (SipHash's defence costs every method call).
#[derive(Default, Clone, Copy)]
struct Addresses;

impl std::hash::BuildHasher for Addresses {
    type Hasher = AddressHasher;
    fn build_hasher(&self) -> AddressHasher {
        AddressHasher(0)
    }
}

struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64 ^ (n as u64 >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

unsafe extern "C" fn finalize(env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    let _ = MADE.try_with(|made| {
        made.try_borrow_mut()
            .map(|mut made| made.remove(&(data as usize)))
    });
    // SAFETY: `data` is the box `construct` leaked for this object; finalizers run once.
    let conversation = unsafe { Box::from_raw(data as *mut Conversation) };
    if let Some(live) = conversation.live.into_inner() {
        live.release(env);
    }
}

/// The conversation behind `this`, if `construct` made it.
fn this_conversation<'a>(js: &Js, this: Value, what: &str) -> JsResult<&'a Conversation> {
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: `this` belongs to the current call.
    let unwrapped = unsafe { sys::napi_unwrap(js.env, this, &mut data) } == sys::Status::napi_ok;
    if !unwrapped || !MADE.with(|made| made.borrow().contains(&(data as usize))) {
        return Err(JsError::Type(format!(
            "{what} called on an object that is not a Conversation"
        )));
    }
    // SAFETY: a live conversation made by `construct`, alive while `this` is; it is only
    // used through shared references (its state is behind a `RefCell`).
    Ok(unsafe { &*(data as *const Conversation) })
}

/// A method of the raw class: `body` gets the conversation behind `this` and the arguments.
pub(in crate::napi) unsafe fn method<const N: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    what: &str,
    body: impl FnOnce(&Js, &Conversation, [Value; N]) -> JsResult<Value>,
) -> sys::napi_value {
    let Some((args, this, data)) = (unsafe { call_info::<N>(env, info) }) else {
        return ptr::null_mut();
    };
    unsafe {
        run(env, data, what, &[], |js| {
            body(js, this_conversation(js, this, what)?, args)
        })
    }
    .unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn construct(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let Some(([options], this, data)) = (unsafe { call_info::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    let mut new_target = ptr::null_mut();
    unsafe { sys::napi_get_new_target(env, info, &mut new_target) };
    let construct = |js: &Js| {
        if new_target.is_null() {
            return Err(JsError::Type("a class constructor: call it with `new`".into()));
        }
        let conversation = Box::into_raw(Box::new(Conversation::made(js, options)?));
        // SAFETY: `this` is the new object; the finalizer frees the box with it.
        let status = unsafe {
            sys::napi_wrap(
                env,
                this,
                conversation.cast(),
                Some(finalize),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        if status != sys::Status::napi_ok {
            // SAFETY: not wrapped, so still ours alone.
            let conversation = unsafe { Box::from_raw(conversation) };
            if let Some(live) = conversation.live.into_inner() {
                live.release(env);
            }
            return Err(JsError::Internal(format!(
                "wrapping the conversation failed with status {status}"
            )));
        }
        MADE.with(|made| made.borrow_mut().insert(conversation as usize));
        Ok(this)
    };
    unsafe { run(env, data, "Conversation", &[], construct) }.unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn raw_push(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        method(env, info, "Conversation.push", |js, c, [data]| {
            c.push_js(js, data)
        })
    }
}

unsafe extern "C" fn raw_end(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.end", |js, c, []| c.end_js(js)) }
}

unsafe extern "C" fn raw_messages(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.messages", |js, c, []| c.messages_js(js)) }
}

unsafe extern "C" fn raw_skipped(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.skipped", |js, c, []| c.skipped_js(js)) }
}

unsafe extern "C" fn raw_at(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.at", |js, c, [index]| c.at_js(js, index)) }
}

unsafe extern "C" fn raw_length(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.length", |js, c, []| c.length_js(js)) }
}

unsafe extern "C" fn raw_resume(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.resume", |js, c, []| c.resume_js(js)) }
}

unsafe extern "C" fn raw_format(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe { method(env, info, "Conversation.format", |js, c, []| c.format_js(js)) }
}

/// A method a format's face adds to `Conversation`: its name and raw callback.
pub type Method = (
    &'static std::ffi::CStr,
    unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value,
);

/// A method of `Conversation` that a format serving live conversations adds: its name, and
/// what it makes of the conversation and its one argument (its options: `undefined` when
/// not given). The rest — the raw callback the class runs, the body of the generated
/// declaration the typings come from — is the same for every such method.
pub trait Served {
    /// Its name in JavaScript.
    const NAME: &'static std::ffi::CStr;
    /// The name its errors give (`Conversation.<NAME>`).
    const WHAT: &'static str;
    fn serve(js: &Js, conversation: &Conversation, options: Value) -> JsResult<Value>;
}

/// `S` as a method of the raw class.
pub const fn served<S: Served>() -> Method {
    (S::NAME, raw_served::<S>)
}

unsafe extern "C" fn raw_served<S: Served>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    unsafe { method(env, info, S::WHAT, |js, c, [options]| S::serve(js, c, options)) }
}

/// The body of `S`'s generated declaration (the raw class replaces the generated one, so
/// this runs only if it is not installed): the same call.
pub(in crate::napi) fn generated<'env, S: Served>(
    conversation: &Conversation,
    env: &'env Env,
    options: Option<Unknown<'env>>,
) -> Result<Unknown<'env>> {
    glue(env, S::WHAT, |js| {
        let options = match options {
            Some(value) => value.raw(),
            None => js.undefined()?,
        };
        S::serve(js, conversation, options)
    })
}

/// How [`Conversation::serve_js`] writes.
pub(in crate::napi) enum Serving {
    /// What is new since the last call.
    Next,
    /// The response being written again from its start, then what is new: for a client
    /// reconnecting to it.
    Replayed,
    /// What is new, with options for the format's writer (the names of the stream).
    With(Json),
}

/// A served method's options for its format's writer: `undefined`, or an object read as
/// JSON.
pub(in crate::napi) fn writer_options(js: &Js, what: &'static str, options: Value) -> JsResult<Json> {
    match js.value_type(options)? {
        ValueType::Undefined => Ok(Json::Undefined),
        ValueType::Object => {
            let text = stringify(js, options, what, "options")?.unwrap_or_default();
            value::parse(&text).map_err(|e| JsError::Type(format!("options: {e}")))
        }
        got => Err(JsError::Type(format!(
            "options must be an object, got {}",
            got.name()
        ))),
    }
}

/// Defines the raw `Conversation` class and puts it on `exports`, replacing the generated
/// one; `served` are the methods of the formats that serve live conversations.
///
/// # Safety
/// `env` and `exports` must be the module's; `state` its state, alive as long as `env`.
pub unsafe fn install_class(
    env: sys::napi_env,
    exports: sys::napi_value,
    state: *mut State,
    served: &[Method],
) -> JsResult<()> {
    let property = |name, method, getter| class_property(name, method, getter, state);
    let mut properties = vec![
        property(c"push", Some(raw_push), None),
        property(c"end", Some(raw_end), None),
        property(c"messages", None, Some(raw_messages)),
        property(c"skipped", None, Some(raw_skipped)),
        property(c"format", None, Some(raw_format)),
        property(c"resume", None, Some(raw_resume)),
        property(c"at", Some(raw_at), None),
        property(c"length", None, Some(raw_length)),
    ];
    // The methods of the formats that serve live conversations, after `end`.
    let at = 2;
    for (i, &(name, callback)) in served.iter().enumerate() {
        properties.insert(at + i, property(name, Some(callback), None));
    }
    // SAFETY: as this function's own contract.
    unsafe { define_class(env, exports, c"Conversation", construct, state, &properties) }
}

// ─── The glue both classes run ──────────────────────────────────────────────────

impl Conversation {
    fn made(js: &Js, options_value: Value) -> JsResult<Self> {
        let (core, immutable) = options(js, options_value)?;
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
        Ok(Conversation {
            live: RefCell::new(Some(Live {
                core,
                immutable,
                array: reference(js, array)?,
                snapshot: None,
                synced,
            })),
        })
    }

    /// Runs `body` on the conversation; a call made while another runs (from a getter of
    /// a pushed value, a setter on a message) is refused.
    fn with(&self, what: &str, body: impl FnOnce(&mut Live) -> JsResult<Value>) -> JsResult<Value> {
        let Ok(mut live) = self.live.try_borrow_mut() else {
            return Err(JsError::Type(format!(
                "{what} called while this conversation is busy (from a getter or setter it ran)"
            )));
        };
        let live = live
            .as_mut()
            .ok_or_else(|| JsError::Internal("the conversation is gone".into()))?;
        body(live)
    }

    /// Brings JavaScript's messages up to date, then reports the changes or throws.
    fn apply(
        js: &Js,
        live: &mut Live,
        result: std::result::Result<Changes, (Changes, LiveError)>,
        what: &str,
    ) -> JsResult<Value> {
        let (changes, error) = match result {
            Ok(changes) => (changes, None),
            Err((changes, error)) => (changes, Some(error)),
        };
        let synced = match error {
            None => live.pushed(js, &changes),
            Some(_) => Ok(None),
        };
        let synced = match synced {
            Ok(Some(reported)) => return Ok(reported),
            Ok(None) => live.sync(js, &changes),
            Err(thrown) => Err(thrown),
        };
        if let Err(thrown) = synced {
            let thrown = match thrown {
                JsError::Pending => JsError::Throw(js.take_exception()?),
                other => other,
            };
            live.remake(js, &changes);
            return Err(thrown);
        }
        match error {
            Some(error) => Err(live_error(error, what)),
            None => js.parse_json(&changes_json(&changes)),
        }
    }

    fn push_js(&self, js: &Js, data: Value) -> JsResult<Value> {
        const WHAT: &str = "Conversation.push";
        // Read first: a getter of the value may run any code, a push on this conversation too.
        let read = input(js, data)?;
        self.with(WHAT, |live| {
            let result = match read {
                Input::Bytes(bytes) => live.core.push_bytes(&bytes),
                Input::Value(value) => live
                    .core
                    .push_value(value)
                    .map_err(|e| (Changes::default(), LiveError::from(e))),
            };
            Self::apply(js, live, result, WHAT)
        })
    }

    fn end_js(&self, js: &Js) -> JsResult<Value> {
        const WHAT: &str = "Conversation.end";
        self.with(WHAT, |live| {
            let result = live.core.end();
            Self::apply(js, live, result, WHAT)
        })
    }

    fn messages_js(&self, js: &Js) -> JsResult<Value> {
        self.with("Conversation.messages", |live| live.messages(js))
    }

    fn skipped_js(&self, js: &Js) -> JsResult<Value> {
        self.with("Conversation.skipped", |live| {
            let json = super::registry::skipped_json(live.core.skips());
            let mut out = Vec::new();
            value::write_ascii(&mut out, &json);
            js.parse_json(&out)
        })
    }

    /// What the conversation gained since the last call, written in `format` (a format
    /// that serves live conversations): as an array of its values, or with `sse` as the
    /// body of an SSE response, a `data:` frame per value and `data: <end>` once after
    /// the stream ended when the format has an end marker.
    pub(in crate::napi) fn serve_js(
        &self,
        js: &Js,
        what: &str,
        format: &'static Format,
        how: Serving,
        sse: Option<Option<&[u8]>>,
    ) -> JsResult<Value> {
        self.with(what, |live| {
            let written = match how {
                Serving::Next => live.core.serve(format),
                Serving::Replayed => live.core.serve_replayed(format),
                Serving::With(options) => live.core.serve_with(format, &options).map_err(JsError::Type)?,
            };
            let mut out = Vec::new();
            let Some(end) = sse else {
                if written.is_empty() {
                    // Nothing new, the most frequent answer after a push: no text to parse.
                    return js.array(&[]);
                }
                value::write_ascii(&mut out, &Json::Array(written));
                return js.parse_json_owned(out);
            };
            for value in written {
                out.extend_from_slice(b"data: ");
                value::write_ascii(&mut out, &value);
                out.extend_from_slice(b"\n\n");
            }
            if let Some(end) = end.filter(|_| live.core.serve_end_marker(format)) {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(end);
                out.extend_from_slice(b"\n\n");
            }
            js.ascii_string_owned(out)
        })
    }

    fn at_js(&self, js: &Js, index: Value) -> JsResult<Value> {
        const WHAT: &str = "Conversation.at";
        let index = match js.value_type(index)? {
            ValueType::Number => js.number(index)?,
            got => {
                return Err(JsError::Type(format!(
                    "index must be a number, got {}",
                    got.name()
                )))
            }
        };
        if index.fract() != 0.0 {
            return Err(JsError::Type(format!(
                "index must be a whole number, got {index}"
            )));
        }
        self.with(WHAT, |live| {
            let len = live.core.messages().len() as f64;
            // As `Array.prototype.at`: a negative index counts from the end.
            let at = if index < 0.0 { len + index } else { index };
            if !(0.0..len).contains(&at) {
                return js.undefined();
            }
            js.element(reference_value(js, live.array)?, at as usize)
        })
    }

    fn length_js(&self, js: &Js) -> JsResult<Value> {
        self.with("Conversation.length", |live| {
            js.create_number(live.core.messages().len() as f64)
        })
    }

    fn resume_js(&self, js: &Js) -> JsResult<Value> {
        self.with("Conversation.resume", |live| {
            let mut out = Vec::new();
            value::write_ascii(&mut out, &live.core.resume_state());
            js.parse_json_owned(out)
        })
    }

    fn format_js(&self, js: &Js) -> JsResult<Value> {
        self.with("Conversation.format", |live| {
            js.ascii_string(live.core.format().name)
        })
    }
}

// ─── The generated declarations ───────────────────────────────────────────────

#[napi]
impl Conversation {
    #[napi(constructor, ts_args_type = "options: ConversationOptions")]
    pub fn new(env: &Env, options: Unknown) -> Result<Self> {
        let mut made = None;
        glue(env, "Conversation", |js| {
            made = Some(Conversation::made(js, options.raw())?);
            js.undefined()
        })?;
        made.ok_or_else(|| napi::Error::new(napi::Status::PendingException, "exception pending"))
    }

    /// Folds what arrived: bytes (a `Uint8Array`, or a string) of NDJSON or SSE split
    /// anywhere, or one value already parsed. Returns what changed.
    #[napi(
        ts_args_type = "data: Uint8Array | string | object",
        ts_return_type = "ConversationChanges"
    )]
    pub fn push<'env>(&self, env: &'env Env, data: Unknown) -> Result<Unknown<'env>> {
        glue(env, "Conversation.push", |js| self.push_js(js, data.raw()))
    }

    /// The end of the stream: a last line without a line break is folded; a frame cut
    /// short throws.
    #[napi(ts_return_type = "ConversationChanges")]
    pub fn end<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "Conversation.end", |js| self.end_js(js))
    }

    /// The messages so far (see `mode` for when it is a new array).
    #[napi(getter, ts_return_type = "ChatMessage[]")]
    pub fn messages<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "Conversation.messages", |js| self.messages_js(js))
    }

    /// Values skipped so far (with `strict` they are refused).
    #[napi(getter, ts_return_type = "SkippedLines")]
    pub fn skipped<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "Conversation.skipped", |js| self.skipped_js(js))
    }

    /// What the conversation remembers beyond its messages, as plain JSON: kept with
    /// `messages` (e.g. `JSON.stringify({ messages, resume })`), it lets
    /// `new Conversation({ format, messages, resume })` go on exactly as if it had read
    /// the stream from its start, at any frame boundary (an AI SDK part still open, an
    /// ACP call whose content came before its completion). `pending` counts the bytes
    /// pushed after the last whole frame, which it does not hold: push them again.
    #[napi(getter, ts_return_type = "ConversationResume")]
    pub fn resume<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "Conversation.resume", |js| self.resume_js(js))
    }

    /// Message `index` (negative: from the end, as `Array.prototype.at`), the very object
    /// `messages[index]` is, without making `messages`: in `immutable` mode a view that
    /// draws each message on its own (`useSyncExternalStore(subscribe, () =>
    /// live.at(i))`) then costs what changed, however long the conversation.
    #[napi(ts_args_type = "index: number", ts_return_type = "ChatMessage | undefined")]
    pub fn at<'env>(&self, env: &'env Env, index: Unknown) -> Result<Unknown<'env>> {
        glue(env, "Conversation.at", |js| self.at_js(js, index.raw()))
    }

    /// How many messages there are (`messages.length`, without making `messages`).
    #[napi(getter, ts_return_type = "number")]
    pub fn length<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "Conversation.length", |js| self.length_js(js))
    }

    /// The stream format.
    #[napi(getter, ts_return_type = "FormatName")]
    pub fn format<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        glue(env, "Conversation.format", |js| self.format_js(js))
    }
}
