//! The `agUi` namespace: AG-UI messages as messages and back, through the one mapping of
//! `crate::formats::ag_ui::messages`; and `Conversation.toAGUIEvents` /
//! `toAGUIStream`, which serve a CopilotKit (or any `@ag-ui/client`) frontend from a live
//! conversation of any stream format.

use std::ffi::CStr;

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::bytes::value::Json;
use crate::formats::ag_ui::{messages, AG_UI};
use crate::reading::model_json::messages_from_json;

use super::super::conversation::{self, Conversation, Served, Serving};
use super::super::json_bridge::Bridge;
use super::super::json_bridge::{array_of, give, give_messages, within};
use super::super::raw::call::caught;
use super::super::raw::js::{Js, JsResult, Value as JsHandle};

/// AG-UI messages (what `@ag-ui/client`'s `agent.messages` holds, a run's
/// `input.messages`) as messages: each AG-UI message one message with its id, a `tool`
/// message the result of its call (the nearest assistant message before it holding the
/// call, else the first after it), the pieces `agUi.fromMessages` cut a message into joined
/// again. Activities of other applications and results whose call no message holds are
/// left out; a message's `name`, `metadata` and `subagentRunId` have no place in the
/// chunks (docs/formats/ag-ui.md).
#[napi(
    namespace = "agUi",
    js_name = "toMessages",
    ts_args_type = "messages: AGUIMessage[]",
    ts_return_type = "HistoryMessage[]"
)]
pub fn ag_ui_to_messages(env: &Env, messages: Unknown) -> Result<Unknown<'static>> {
    caught("agUi.toMessages", || {
        let b = Bridge::new(env, "agUi.toMessages")?;
        let given = messages.raw();
        let Json::Array(items) = array_of(&b, given, "messages")? else {
            return Err(b.type_error("\"messages\" changed while it was read"));
        };
        let read = messages::read_all(&items, "").map_err(|e| within(&b, "messages", given, e))?;
        give_messages(&b, env, &read.messages)
    })
}

/// Messages as the AG-UI messages `@ag-ui/client` holds after `toAGUIEvents` wrote them:
/// each message one AG-UI message with its id, or several when AG-UI cannot hold its
/// chunks in one (`<id>.1`, `<id>.2` …, marked in their `metadata` so that
/// `agUi.toMessages` joins them again); each call's result a `tool` message after its
/// message; system, error and file chunks no content part holds as `activity` messages
/// (`agent-chunks.system`, `.error`, `.file`). `agUi.toMessages` gives the messages back
/// as they were.
#[napi(
    namespace = "agUi",
    js_name = "fromMessages",
    ts_args_type = "messages: HistoryMessage[]",
    ts_return_type = "AGUIMessage[]"
)]
pub fn ag_ui_from_messages(env: &Env, messages: Unknown) -> Result<Unknown<'static>> {
    caught("agUi.fromMessages", || {
        let b = Bridge::new(env, "agUi.fromMessages")?;
        let json = array_of(&b, messages.raw(), "messages")?;
        // A call's `arguments` (a result's `result`, `isError`) that is `undefined` is one
        // JSON leaves out: the call was made without any (AG-UI's arguments `""`).
        let json = super::super::json_bridge::absent_payloads(json);
        let messages = messages_from_json(&json, "messages").map_err(|e| b.type_error(e))?;
        give(&b, env, &Json::Array(messages::write_messages(&messages)))
    })
}

// ─── Serving an AG-UI frontend from a live conversation ──────────────────────

struct Events;

impl Served for Events {
    const NAME: &'static CStr = c"toAGUIEvents";
    const WHAT: &'static str = "Conversation.toAGUIEvents";
    fn serve(js: &Js, c: &Conversation, options: JsHandle) -> JsResult<JsHandle> {
        let options = conversation::writer_options(js, Self::WHAT, options)?;
        c.serve_js(js, Self::WHAT, &AG_UI, Serving::With(options), None)
    }
}

struct Stream;

impl Served for Stream {
    const NAME: &'static CStr = c"toAGUIStream";
    const WHAT: &'static str = "Conversation.toAGUIStream";
    fn serve(js: &Js, c: &Conversation, options: JsHandle) -> JsResult<JsHandle> {
        let options = conversation::writer_options(js, Self::WHAT, options)?;
        c.serve_js(js, Self::WHAT, &AG_UI, Serving::With(options), Some(None))
    }
}

/// `Conversation`'s methods that serve an AG-UI frontend.
pub const CONVERSATION_METHODS: [conversation::Method; 2] =
    [conversation::served::<Events>(), conversation::served::<Stream>()];

/// Options of `toAGUIEvents` / `toAGUIStream`.
#[allow(dead_code)]
#[napi(object, js_name = "AGUIStreamOptions")]
pub struct AguiStreamOptions {
    /// The thread of the run written (the request's `threadId`): needed by the first call.
    pub thread_id: Option<String>,
    /// The run written (the request's `runId`): needed by the first call. Later runs of
    /// the same stream (one per user message, one after a `RUN_ERROR`) are `<runId>.1`,
    /// `<runId>.2`, … Ids other than the current ones start a new run with them: a next
    /// request served from the same conversation.
    pub run_id: Option<String>,
}

#[napi]
impl Conversation {
    /// What the conversation gained since the last call, as AG-UI events for a CopilotKit
    /// (or any `@ag-ui/client`) frontend: `RUN_STARTED` first (the first call names the
    /// run), each message as `TEXT_MESSAGE_*`, `REASONING_*`, `TOOL_CALL_*` and
    /// `ACTIVITY_SNAPSHOT` events, `RUN_FINISHED` after `end`. The client, fed them, holds
    /// `agUi.fromMessages(messages)`. The messages the conversation was given are the
    /// request's and are not written again.
    #[napi(
        js_name = "toAGUIEvents",
        ts_args_type = "options?: AGUIStreamOptions",
        ts_return_type = "Array<{ type: string; [key: string]: unknown }>"
    )]
    pub fn to_agui_events<'env>(
        &self,
        env: &'env Env,
        options: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        conversation::generated::<Events>(self, env, options)
    }

    /// `toAGUIEvents` as the bytes of an SSE response (`data: …` frames, as
    /// `@ag-ui/encoder` writes them), as `HttpAgent` reads them.
    #[napi(
        js_name = "toAGUIStream",
        ts_args_type = "options?: AGUIStreamOptions",
        ts_return_type = "string"
    )]
    pub fn to_agui_stream<'env>(
        &self,
        env: &'env Env,
        options: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        conversation::generated::<Stream>(self, env, options)
    }
}
