//! `buildTimeline`: reads the caller's chunks in place and builds the groups with the
//! caller's own values (`text`, `id`, `args`, `result`) by reference.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;
use napi_derive::napi;

use crate::bytes::wtf8::Wtf8;
use crate::decode::ValueType;
use crate::views::timeline::{build_timeline, CallSource, ItemStatus, Source, TimelineItem, TimelineOptions};

use super::super::json_bridge::{Bridge, Value};
use super::super::raw::call::caught;

/// A string field, or `None` when it is `undefined` or `null`; anything else is an error.
fn optional_text(b: &Bridge, object: Value, key: &std::ffi::CStr, path: &str) -> Result<Option<Wtf8>> {
    let value = b.get(object, key)?;
    match b.value_type(value)? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        ValueType::String => Ok(Some(b.text(value)?)),
        got => Err(b.type_error(format!("{path} must be a string, got {}", got.name()))),
    }
}

fn call_source(b: &Bridge, call: Value, path: &str) -> Result<CallSource<Value, Value>> {
    let name = b.get(call, c"name")?;
    let name = match b.value_type(name)? {
        ValueType::String => b.text(name)?,
        got => return Err(b.type_error(format!("{path}.name must be a string, got {}", got.name()))),
    };
    let args = b.get(call, c"arguments")?;
    let subagent_type = match b.value_type(args)? {
        ValueType::Object | ValueType::Array | ValueType::Function => {
            let subagent = b.get(args, c"subagent_type")?;
            match b.value_type(subagent)? {
                ValueType::String => Some(b.text(subagent)?),
                _ => None,
            }
        }
        _ => None,
    };
    let result = if b.has(call, c"result")? {
        Some((b.get(call, c"result")?, b.truthy(b.get(call, c"isError")?)?))
    } else {
        None
    };
    Ok(CallSource {
        id: b.get(call, c"id")?,
        name,
        args,
        subagent_type,
        result,
        span_id: optional_text(b, call, c"spanId", &format!("{path}.spanId"))?,
    })
}

fn is_object(b: &Bridge, value: Value) -> Result<bool> {
    Ok(matches!(
        b.value_type(value)?,
        ValueType::Object | ValueType::Function
    ))
}

/// The timeline's sources, in chunk order. Holes and chunks of other types are passed
/// over, as the reducer passes over them.
fn sources(b: &Bridge, chunks: Value, len: usize) -> Result<Vec<Source<Value, Value>>> {
    let mut sources = Vec::new();
    for index in 0..len {
        let chunk = b.element(chunks, index)?;
        if !is_object(b, chunk)? {
            continue;
        }
        let tag = b.get(chunk, c"type")?;
        if b.value_type(tag)? != ValueType::String {
            continue;
        }
        match b.text(tag)?.as_bytes() {
            b"thinking" => sources.push(Source::Reasoning {
                chunk: index,
                text: b.get(chunk, c"text")?,
                sealed: b.value_type(b.get(chunk, c"metadata")?)? != ValueType::Undefined,
            }),
            b"tool-batch" => {
                let calls = b.get(chunk, c"calls")?;
                let Some(count) = b.array_len(calls, &format!("chunks[{index}].calls"))? else {
                    return Err(b.type_error(format!("chunks[{index}].calls must be an array")));
                };
                for position in 0..count {
                    let call = b.element(calls, position)?;
                    let path = format!("chunks[{index}].calls[{position}]");
                    if !is_object(b, call)? {
                        return Err(b.type_error(format!("{path} must be an object")));
                    }
                    sources.push(Source::Call(call_source(b, call, &path)?));
                }
            }
            _ => {}
        }
    }
    Ok(sources)
}

fn status(b: &Bridge, status: ItemStatus) -> Result<Value> {
    b.string(&Wtf8::from(status.as_str()))
}

/// The item as an object, keys in the documented order.
fn item_object(b: &Bridge, item: TimelineItem<Value, Value>) -> Result<Value> {
    match item {
        TimelineItem::Reasoning { id, text, status: s } => b.object_with(&[
            (c"kind", b.string(&Wtf8::from("reasoning"))?),
            (c"id", b.string(&Wtf8::from(id))?),
            (c"text", text),
            (c"status", status(b, s)?),
        ]),
        TimelineItem::ToolCall {
            id,
            tool_name,
            title,
            args,
            result,
            status: s,
            span_id,
        } => {
            let result = match result {
                Some(result) => result,
                None => b.undefined()?,
            };
            let mut fields = vec![
                (c"kind", b.string(&Wtf8::from("tool-call"))?),
                (c"id", id),
                (c"toolName", b.string(&tool_name)?),
                (c"title", b.string(&title)?),
                (c"args", args),
                (c"result", result),
                (c"status", status(b, s)?),
            ];
            if let Some(span) = span_id {
                fields.push((c"spanId", b.string(&span)?));
            }
            b.object_with(&fields)
        }
    }
}

/// The timeline of one assistant message: reasoning and tool-call items with statuses
/// derived from the chunks, grouped by the calls' `spanId`. `text`, `args` and `result`
/// are the chunks' own values.
#[napi(
    js_name = "buildTimeline",
    ts_args_type = "chunks: Array<HistoryChunk | SpannedToolBatchChunk>, options?: TimelineOptions",
    ts_return_type = "TimelineGroup[]"
)]
pub fn build_timeline_js(env: &Env, chunks: Unknown, options: Unknown) -> Result<Unknown<'static>> {
    caught("buildTimeline", || {
        let b = Bridge::new(env, "buildTimeline")?;
        let Some(len) = b.array_len(chunks.raw(), "\"chunks\"")? else {
            let got = b.value_type(chunks.raw())?;
            return Err(b.type_error(format!("\"chunks\" must be an array, got {}", got.name())));
        };
        let finished = match b.value_type(options.raw())? {
            ValueType::Undefined | ValueType::Null => false,
            ValueType::Object => b.truthy(b.get(options.raw(), c"finished")?)?,
            got => return Err(b.type_error(format!("\"options\" must be an object, got {}", got.name()))),
        };
        let sources = sources(&b, chunks.raw(), len)?;
        let groups = build_timeline(sources, len, TimelineOptions { finished });
        let mut objects = Vec::with_capacity(groups.len());
        for group in groups {
            let parent = item_object(&b, group.parent)?;
            let children = group
                .children
                .into_iter()
                .map(|child| item_object(&b, child))
                .collect::<Result<Vec<_>>>()?;
            objects.push(b.object_with(&[(c"parent", parent), (c"children", b.array(&children)?)])?);
        }
        let array = b.array(&objects)?;
        Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), array) })
    })
}
