//! The `aiSdk` namespace: the Vercel AI SDK's UI message stream chunks and `fullStream`
//! parts as agent events, and its `UIMessage` as a message and back. Each function reads
//! the caller's values as JSON text and runs the rules of `crate::formats::ai_sdk`.

use std::ffi::CStr;

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::formats::ai_sdk::AI_SDK;

use crate::bytes::value::Json;
use crate::formats::ai_sdk::chunks::{self as ai_sdk, StreamState};
use crate::reading::check::FormatError;
use crate::reading::model_json::{event_json, messages_from_json, FormatEvent};

use super::super::conversation::{self, Conversation, Served, Serving};
use super::super::json_bridge::Bridge;
use super::super::json_bridge::{array_of, give, give_messages, object_of, within};
use super::super::raw::call::caught;
use super::super::raw::js::{Js, JsError, JsResult, Value as JsHandle};
use super::super::registry::optional_boolean;
use crate::reading::source::ValueType;

fn events_of(
    b: &Bridge,
    items: Unknown,
    what: &str,
    map: fn(&mut StreamState, &Json) -> crate::reading::check::FormatResult<Vec<FormatEvent>>,
) -> Result<Json> {
    let items_value = items.raw();
    let Json::Array(items) = array_of(b, items_value, what)? else {
        return Err(b.type_error(format!("\"{what}\" changed while it was read")));
    };
    let mut state = StreamState::default();
    let mut events = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mapped = map(&mut state, item).map_err(|e| within(b, what, items_value, at_element(i, e)))?;
        events.extend(mapped.iter().filter_map(event_json));
    }
    Ok(Json::Array(events))
}

/// Maps UI message stream chunks (what `useChat` reads, in order) to agent events for
/// `appendEventToChunks`: `text-delta` → `text-delta`, `reasoning-delta` →
/// `reasoning-delta`, `reasoning-end` → `reasoning-end` with the part's latest
/// `providerMetadata`, `tool-input-available` → `tool-call`, `tool-output-available` /
/// `tool-output-error` → `tool-result`, `tool-input-error` → both, `error` → `error`.
/// Every other chunk gives none (docs/formats/ai-sdk.md names each).
#[napi(
    namespace = "aiSdk",
    js_name = "fromUIMessageChunks",
    ts_args_type = "chunks: Array<{ type: string; [key: string]: unknown }>",
    ts_return_type = "AgentContentEvent[]"
)]
pub fn ai_sdk_from_ui_message_chunks(env: &Env, chunks: Unknown) -> Result<Unknown<'static>> {
    caught("aiSdk.fromUIMessageChunks", || {
        let b = Bridge::new(env, "aiSdk.fromUIMessageChunks")?;
        let events = events_of(&b, chunks, "chunks", StreamState::ui_chunk_events)?;
        give(&b, env, &events)
    })
}

/// Maps `streamText`'s `fullStream` parts (in order) to agent events: `text-delta`,
/// `reasoning-delta`, `reasoning-end` (with the part's latest `providerMetadata`),
/// `tool-call`, `tool-result`, `tool-error` (a `tool-result` with `isError: true` and the
/// error's message) and `error`. Every other part gives none.
#[napi(
    namespace = "aiSdk",
    js_name = "fromFullStreamParts",
    ts_args_type = "parts: Array<{ type: string; [key: string]: unknown }>",
    ts_return_type = "AgentContentEvent[]"
)]
pub fn ai_sdk_from_full_stream_parts(env: &Env, parts: Unknown) -> Result<Unknown<'static>> {
    caught("aiSdk.fromFullStreamParts", || {
        let b = Bridge::new(env, "aiSdk.fromFullStreamParts")?;
        let events = events_of(&b, parts, "parts", StreamState::full_stream_events)?;
        give(&b, env, &events)
    })
}

/// Reads persisted `UIMessage`s (what `useChat` keeps) as messages: each part folded as
/// the events it stands for.
#[napi(
    namespace = "aiSdk",
    js_name = "toMessages",
    ts_args_type = "messages: Array<{ id: string; role: 'system' | 'user' | 'assistant'; parts: Array<{ type: string; [key: string]: unknown }> }>",
    ts_return_type = "HistoryMessage[]"
)]
pub fn ai_sdk_to_messages(env: &Env, messages: Unknown) -> Result<Unknown<'static>> {
    caught("aiSdk.toMessages", || {
        let b = Bridge::new(env, "aiSdk.toMessages")?;
        let messages_value = messages.raw();
        let Json::Array(items) = array_of(&b, messages_value, "messages")? else {
            return Err(b.type_error("\"messages\" changed while it was read"));
        };
        let messages = items
            .iter()
            .enumerate()
            .map(|(i, m)| {
                ai_sdk::read_message(m).map_err(|e| within(&b, "messages", messages_value, at_element(i, e)))
            })
            .collect::<Result<Vec<_>>>()?;
        give_messages(&b, env, &messages)
    })
}

/// Writes a message as a `UIMessage` (`step-start`, `text`, `reasoning` and
/// `tool-<name>` parts); `aiSdk.toMessages` reads it back to the same chunks, error
/// chunks and shell output excepted (a `UIMessage` has no part for them).
#[napi(
    namespace = "aiSdk",
    js_name = "fromMessage",
    ts_args_type = "message: HistoryMessage",
    ts_return_type = "{ id: string; role: 'system' | 'user' | 'assistant'; parts: Array<{ type: string; [key: string]: unknown }> }"
)]
pub fn ai_sdk_from_message(env: &Env, message: Unknown) -> Result<Unknown<'static>> {
    caught("aiSdk.fromMessage", || {
        let b = Bridge::new(env, "aiSdk.fromMessage")?;
        let json = object_of(&b, message.raw(), "message")?;
        let message =
            crate::reading::model_json::message_from_json(&json, "message").map_err(|e| b.type_error(e))?;
        give(&b, env, &ai_sdk::write_message(&message))
    })
}

/// The messages as the `UIMessage`s a `useChat` client holds: each run of assistant
/// messages (between two messages of another role) one `UIMessage`, named by its first
/// message, whose steps are its messages, as `Conversation.toUIMessageStream()` writes
/// them; every other message as `aiSdk.fromMessage` writes it.
#[napi(
    namespace = "aiSdk",
    js_name = "fromMessages",
    ts_args_type = "messages: HistoryMessage[]",
    ts_return_type = "Array<{ id: string; role: 'system' | 'user' | 'assistant'; parts: Array<{ type: string; [key: string]: unknown }> }>"
)]
pub fn ai_sdk_from_messages(env: &Env, messages: Unknown) -> Result<Unknown<'static>> {
    caught("aiSdk.fromMessages", || {
        let b = Bridge::new(env, "aiSdk.fromMessages")?;
        let json = array_of(&b, messages.raw(), "messages")?;
        let messages = messages_from_json(&json, "messages").map_err(|e| b.type_error(e))?;
        give(&b, env, &Json::Array(ai_sdk::write_messages(&messages)))
    })
}

/// An error in element `i` of an array, its path made relative to the array.
fn at_element(i: usize, mut error: FormatError) -> FormatError {
    error.path = match error.path.starts_with('[') || error.path.is_empty() {
        true => format!("[{i}]{}", error.path),
        false => format!("[{i}].{}", error.path),
    };
    error
}

// ─── Serving `useChat` from a live conversation ─────────────────────────────────

struct Chunks;

impl Served for Chunks {
    const NAME: &'static CStr = c"toUIMessageChunks";
    const WHAT: &'static str = "Conversation.toUIMessageChunks";
    fn serve(js: &Js, c: &Conversation, options: JsHandle) -> JsResult<JsHandle> {
        c.serve_js(js, Self::WHAT, &AI_SDK, serving(js, options)?, None)
    }
}

struct Stream;

impl Served for Stream {
    const NAME: &'static CStr = c"toUIMessageStream";
    const WHAT: &'static str = "Conversation.toUIMessageStream";
    fn serve(js: &Js, c: &Conversation, options: JsHandle) -> JsResult<JsHandle> {
        c.serve_js(
            js,
            Self::WHAT,
            &AI_SDK,
            serving(js, options)?,
            Some(Some(b"[DONE]")),
        )
    }
}

/// `toUIMessageChunks` / `toUIMessageStream`'s options: whether to replay the response.
fn serving(js: &Js, options: JsHandle) -> JsResult<Serving> {
    let replay = match js.value_type(options)? {
        ValueType::Undefined => false,
        ValueType::Object => optional_boolean(js, options, c"replay")?,
        got => {
            return Err(JsError::Type(format!(
                "options must be an object, got {}",
                got.name()
            )))
        }
    };
    Ok(if replay { Serving::Replayed } else { Serving::Next })
}

/// `Conversation`'s methods that serve a `useChat` frontend.
pub const CONVERSATION_METHODS: [conversation::Method; 2] =
    [conversation::served::<Chunks>(), conversation::served::<Stream>()];

/// Options of `toUIMessageChunks` / `toUIMessageStream`.
#[allow(dead_code)]
#[napi(object, js_name = "UIMessageStreamOptions")]
pub struct UIMessageStreamOptions {
    /// Write the last response again from its `start` before what is new: for a client
    /// that reconnects to it (`useChat`'s `resumeStream()`, `resume: true`), whose
    /// transport takes a resumed stream as the response replayed from its start. What it
    /// had read of it before is replaced, whatever it was.
    pub replay: Option<bool>,
}

#[napi]
impl Conversation {
    /// What the conversation gained since the last call, as AI SDK UI message stream
    /// chunks, for a `useChat` frontend: each response (a run of assistant messages) one
    /// UI message (`start` … `finish`), its messages as steps, its parts closed once done
    /// (a message of another role began, or `end`). `useChat` (and `readUIMessageStream`)
    /// make of them what `aiSdk.fromMessages` gives. With `replay`, the last response is
    /// written again from its `start` first: for a client reconnecting to it.
    #[napi(
        js_name = "toUIMessageChunks",
        ts_args_type = "options?: UIMessageStreamOptions",
        ts_return_type = "Array<{ type: string; [key: string]: unknown }>"
    )]
    pub fn to_ui_message_chunks<'env>(
        &self,
        env: &'env Env,
        options: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        conversation::generated::<Chunks>(self, env, options)
    }

    /// `toUIMessageChunks` as the bytes of an SSE response (`data: …` frames, and
    /// `data: [DONE]` once after `end`), as `useChat`'s transport reads them.
    #[napi(
        js_name = "toUIMessageStream",
        ts_args_type = "options?: UIMessageStreamOptions",
        ts_return_type = "string"
    )]
    pub fn to_ui_message_stream<'env>(
        &self,
        env: &'env Env,
        options: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        conversation::generated::<Stream>(self, env, options)
    }
}
