//! The format adapters' entry points: `adaptACPMessages`, `adaptJSONLMessages`,
//! `toUnifiedMessages` and the `acp` namespace.
//!
//! Each is one bulk call, so an ordinary `#[napi]` function: it reads the caller's values
//! through [`JsSource`], runs the rules of `crate::formats`, and builds the result. Bad
//! input throws a `TypeError` naming the index and field before anything is returned;
//! a panic becomes an `Error`.

use napi::bindgen_prelude::{Env, Result, Status, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::formats::chatviewer::adapter as chatviewer;
use crate::reading::source::{Expect, Key, Reader, Source};
use crate::views::{unified, webui};

use super::super::raw::call;
use super::super::raw::js::{Js, Value};
use super::render::Renderer;
use super::source::{AdaptResult, JsSource};

/// Runs one adapter call; `None` from `with_state` means its exception is thrown.
pub(in crate::napi) fn run_adapter(
    env: &Env,
    name: &str,
    body: impl FnOnce(&Js) -> AdaptResult<Value>,
) -> Result<Unknown<'static>> {
    let outcome = unsafe { call::with_state(env.raw(), name, |js| body(js).map_err(|e| e.into_js(js))) };
    let value = outcome.ok_or_else(|| napi::Error::new(Status::PendingException, "exception pending"))?;
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

/// `options.now`, checked: `None` means the clock (`Date.now()`).
pub(super) fn clock(source: &JsSource, options: Value) -> AdaptResult<Option<f64>> {
    let reader = Reader {
        source,
        root: "options",
    };
    let Some(options) = reader.check(options, Expect::OptionalObject, &[])? else {
        return Ok(None);
    };
    match reader.field(options, Key::Now, Expect::OptionalNumber, &[])? {
        Some(now) => Ok(Some(source.number(now)?)),
        None => Ok(None),
    }
}

/// The webview's messages as timeline rows, exactly as the Qwen Code webui adapter makes
/// them: `msg-${index}` / `tool-${toolCallId}` ids, `user` / `thinking` / `assistant` /
/// `tool_call` types, `timestamp` from the message or the clock (`options.now`, default
/// `Date.now()`), `toolCall` by reference, and `isFirst` / `isLast` around user messages.
/// Throws `Error('Unknown message type: …')` for a type it does not know.
#[napi(
    js_name = "adaptACPMessages",
    ts_args_type = "messages: ACPMessage[], options?: AdaptOptions",
    ts_return_type = "UnifiedMessage[]"
)]
pub fn adapt_acp_messages(env: &Env, messages: Unknown, options: Unknown) -> Result<Unknown<'static>> {
    run_adapter(env, "adaptACPMessages", |js| {
        let source = JsSource { js };
        let now = clock(&source, options.raw())?;
        let rows = webui::adapt_acp_messages(&source, messages.raw())?;
        Ok(Renderer::new(js, now).rows(&rows)?)
    })
}

/// A ChatViewer transcript as timeline rows, exactly as the Qwen Code webui adapter makes
/// them: sorted by `new Date(timestamp)` as `Array.prototype.sort` orders them, Qwen
/// `parts` or Claude `content` as the text, `toolCall` by reference, and `isFirst` /
/// `isLast` around user messages. A line whose `type` names no row type (a Claude Code
/// `summary` or `file-history-snapshot`, a Qwen `tool_result` record) is left out.
#[napi(
    js_name = "adaptJSONLMessages",
    ts_args_type = "messages: ChatMessageData[]",
    ts_return_type = "UnifiedMessage[]"
)]
pub fn adapt_jsonl_messages(env: &Env, messages: Unknown) -> Result<Unknown<'static>> {
    run_adapter(env, "adaptJSONLMessages", |js| {
        let rows = chatviewer::adapt_jsonl_messages(&JsSource { js }, messages.raw())?;
        Ok(Renderer::new(js, None).rows(&rows)?)
    })
}

/// Chat messages (the chunk model) as timeline rows: text → `assistant` (`user` in a user
/// message), thinking → `thinking`, each tool call → `tool_call` with a `ToolCallData`
/// (`in_progress` until its result, then `completed` or `failed`), system notices and
/// errors → `system` / `error`. Rows are stamped with the clock (`options.now`, default
/// `Date.now()`).
#[napi(
    js_name = "toUnifiedMessages",
    ts_args_type = "messages: HistoryMessage[], options?: AdaptOptions",
    ts_return_type = "UnifiedMessage[]"
)]
pub fn to_unified_messages(env: &Env, messages: Unknown, options: Unknown) -> Result<Unknown<'static>> {
    run_adapter(env, "toUnifiedMessages", |js| {
        let source = JsSource { js };
        let now = clock(&source, options.raw())?;
        let rows = unified::to_unified_messages(&source, messages.raw())?;
        Ok(Renderer::new(js, now).rows(&rows)?)
    })
}
