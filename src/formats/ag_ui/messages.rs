//! AG-UI `Message`s and the chunk model, both ways: the one mapping `agUi.fromMessages`,
//! `agUi.toMessages`, the fold and the writer share.
//!
//! A message is written as its pieces ([`crate::formats::ag_ui::pieces`]), each an AG-UI
//! message, each tool call's result a `tool` message right after the piece holding the
//! call. What AG-UI has no field for but the chunk model holds rides in the `metadata`
//! of what is written, under `"agent-chunks"` (the *marker*): on piece *k* ≥ 1 the message
//! it belongs to (`{message, piece}`), on a first piece whose role is not the one its
//! kind says (`role`), a seal that is not an AG-UI `encryptedValue` (`seal`), a result
//! that is not a string or content parts (`result`), an `isError` a tool message cannot
//! say (`isError`). A piece that is only tool calls is opened by its first call, so its
//! marker is on that call's `metadata`. Reading takes the marker back out: whatever
//! message went through `fromMessages` comes back from `toMessages` as it was.
//!
//! What AG-UI carries that the chunk model has a place for is kept there: a call's
//! arguments text exactly as streamed, its `encryptedValue` and `metadata`, and its result
//! message's id, place, `error`, `encryptedValue` and `metadata` in the call's
//! `meta.agUi`; a reasoning message's `encryptedValue` as its seal
//! (`{"ag-ui": {encryptedValue}}`). A message's own `name`, `metadata`, `encryptedValue`
//! (but a reasoning message's), `subagentRunId` and the `developer` role have no place and
//! are not kept (docs/formats/ag-ui.md).

use std::collections::HashMap;

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::pieces::{self, Kind, Piece};
use crate::model::{ChatMessage, Chunk, MessageRole, SystemChunkKind, ToolCallEntry};
use crate::reading::check::{index, join, wrong, FormatResult};
use crate::reading::model_json::{role_name, FormatChunk, FormatMessage};

/// The key of what agent-chunks writes into an AG-UI `metadata`.
pub const MARKER: &str = "agent-chunks";
/// The key of what a call's `meta` holds of AG-UI.
pub const META: &str = "agUi";

/// The activity types the chunks no AG-UI message holds are written as.
pub const SYSTEM_ACTIVITY: &str = "agent-chunks.system";
pub const ERROR_ACTIVITY: &str = "agent-chunks.error";
pub const FILE_ACTIVITY: &str = "agent-chunks.file";
pub const ACTIVITY_TYPES: [&str; 3] = [SYSTEM_ACTIVITY, ERROR_ACTIVITY, FILE_ACTIVITY];

fn text(value: &Wtf8) -> Json {
    Json::String(value.clone())
}

fn object(fields: Vec<(&str, Json)>) -> Json {
    Json::Object(fields.into_iter().map(|(k, v)| (Wtf8::from(k), v)).collect())
}

fn marker(fields: Vec<(&str, Json)>) -> Option<Json> {
    (!fields.is_empty()).then(|| object(vec![(MARKER, object(fields))]))
}

// ─── Arguments ───────────────────────────────────────────────────────────────

/// A call's arguments as AG-UI's JSON text: `""` for none.
pub fn args_text(arguments: &Json) -> Wtf8 {
    match arguments {
        Json::Undefined => Wtf8::new(),
        other => Wtf8::from_wtf8_unchecked(other.to_json()),
    }
}

/// A call's arguments from their JSON text: none for `""`; parsed when `parse` (the call
/// ended) and the text is JSON; else the text itself.
pub fn read_args(text: &Wtf8, parse: bool) -> Json {
    if text.is_empty() {
        return Json::Undefined;
    }
    if parse {
        if let Ok(value) = value::parse(text.as_bytes()) {
            return value;
        }
    }
    Json::String(text.clone())
}

/// The call's `meta.agUi`, read.
pub fn call_meta(call: &ToolCallEntry<Wtf8, Json>) -> Option<&Json> {
    call.meta.as_ref()?.get(META)
}

/// The arguments text of a call as AG-UI holds it: its `meta.agUi.arguments`, else the
/// text of its arguments.
pub fn call_args_text(call: &ToolCallEntry<Wtf8, Json>) -> Wtf8 {
    call_args(call).into_owned()
}

/// [`call_args_text`], borrowed where the call holds it.
pub fn call_args(call: &ToolCallEntry<Wtf8, Json>) -> std::borrow::Cow<'_, Wtf8> {
    match call_meta(call).and_then(|m| m.get("arguments")) {
        Some(Json::String(text)) => std::borrow::Cow::Borrowed(text),
        _ => std::borrow::Cow::Owned(args_text(&call.arguments)),
    }
}

/// Sets `key` of a call's `meta.agUi` (`None`: removes it), keeping its keys in the order
/// `arguments`, `encryptedValue`, `metadata`, `result`; the meta goes when it holds nothing.
pub fn set_call_meta(call: &mut ToolCallEntry<Wtf8, Json>, key: &str, value: Option<Json>) {
    const ORDER: [&str; 4] = ["arguments", "encryptedValue", "metadata", "result"];
    let mut fields: Vec<(Wtf8, Json)> = match call.meta.take() {
        Some(Json::Object(mut outer)) => match outer.iter().position(|(k, _)| *k == META) {
            Some(at) => match outer.remove(at).1 {
                Json::Object(inner) => {
                    call.meta = (!outer.is_empty()).then_some(Json::Object(outer));
                    inner
                }
                _ => Vec::new(),
            },
            None => {
                call.meta = Some(Json::Object(outer));
                Vec::new()
            }
        },
        other => {
            call.meta = other;
            Vec::new()
        }
    };
    fields.retain(|(k, _)| *k != key);
    if let Some(value) = value {
        fields.push((Wtf8::from(key), value));
    }
    let rank = |k: &Wtf8| ORDER.iter().position(|o| *k == *o).unwrap_or(ORDER.len());
    fields.sort_by_key(|(k, _)| rank(k));
    if fields.is_empty() {
        return;
    }
    let agui = (Wtf8::from(META), Json::Object(fields));
    match &mut call.meta {
        Some(Json::Object(outer)) => outer.push(agui),
        _ => call.meta = Some(Json::Object(vec![agui])),
    }
}

/// Whether a call is streaming its arguments as [`set_args`] leaves it: the text as a
/// string in `arguments` and, the same, first in `meta.agUi` (the meta's last key, its
/// keys in order). Then [`append_args`] of a delta is what [`set_args`] of the longer
/// text makes. `known`: both texts were this long and the same when last looked at, and
/// nothing but [`append_args`] and [`set_args`] changed them since, so only their
/// lengths are compared.
pub fn streams_args(call: &ToolCallEntry<Wtf8, Json>, known: Option<usize>) -> bool {
    const ORDER: [&str; 4] = ["arguments", "encryptedValue", "metadata", "result"];
    let (Json::String(arguments), Some(Json::Object(outer))) = (&call.arguments, &call.meta) else {
        return false;
    };
    let Some((key, Json::Object(inner))) = outer.last() else {
        return false;
    };
    let rank = |k: &Wtf8| ORDER.iter().position(|o| *k == *o).unwrap_or(ORDER.len());
    *key == META
        && inner.windows(2).all(|w| rank(&w[0].0) <= rank(&w[1].0))
        && matches!(inner.first(), Some((key, Json::String(text))) if *key == "arguments"
        && match known {
            Some(len) => text.as_bytes().len() == len && arguments.as_bytes().len() == len,
            None => text == arguments,
        })
}

/// The length in bytes of a call's arguments text when they are a string (else 0).
pub fn args_len(call: &ToolCallEntry<Wtf8, Json>) -> usize {
    match &call.arguments {
        Json::String(text) => text.as_bytes().len(),
        _ => 0,
    }
}

/// Appends `delta` to the arguments of a call that [`streams_args`], in place: a long
/// input streamed in many deltas is not copied on each.
pub fn append_args(call: &mut ToolCallEntry<Wtf8, Json>, delta: &Wtf8) {
    debug_assert!(streams_args(call, None));
    if let Json::String(arguments) = &mut call.arguments {
        arguments.push_wtf8(delta.as_bytes());
    }
    if let Some(Json::Object(outer)) = &mut call.meta {
        if let Some((_, Json::Object(inner))) = outer.last_mut() {
            if let Some((_, Json::String(text))) = inner.first_mut() {
                text.push_wtf8(delta.as_bytes());
            }
        }
    }
}

/// Sets the arguments of a call from its text: `meta.agUi.arguments` holds the text when
/// the arguments do not write back to it.
pub fn set_args(call: &mut ToolCallEntry<Wtf8, Json>, text: Wtf8, parse: bool) {
    call.arguments = read_args(&text, parse);
    let exact = args_text(&call.arguments) == text;
    set_call_meta(call, "arguments", (!exact).then_some(Json::String(text)));
}

// ─── Content parts ───────────────────────────────────────────────────────────

/// Whether `value` is AG-UI content parts (`ContentPart[]`), as its schema says.
pub fn is_content_parts(value: &Json) -> bool {
    let Json::Array(parts) = value else {
        return false;
    };
    parts.iter().all(|part| {
        let string = |key: &str| matches!(part.get(key), Some(Json::String(_)));
        let optional = |key: &str| matches!(part.get(key), None | Some(Json::String(_)));
        let metadata = !matches!(part.get("metadata"), Some(Json::Null));
        let source = part.get("source").is_some_and(|source| {
            let s = |key: &str| matches!(source.get(key), Some(Json::String(_)));
            let o = |key: &str| matches!(source.get(key), None | Some(Json::String(_)));
            match source.get("type").and_then(Json::as_str).map(Wtf8::as_bytes) {
                Some(b"data") => s("value") && s("mimeType"),
                Some(b"url") => s("value") && o("mimeType"),
                Some(b"file") => s("value") && o("mimeType") && o("provider"),
                _ => false,
            }
        });
        match part.get("type").and_then(Json::as_str).map(Wtf8::as_bytes) {
            Some(b"text") => string("text") && optional("id") && metadata,
            Some(b"image" | b"audio" | b"video" | b"document") => source && optional("id") && metadata,
            _ => false,
        }
    })
}

/// The part type of a file by its media type, as the client names legacy binary parts.
fn part_type(media_type: &Wtf8) -> &'static str {
    let media = media_type.as_bytes();
    if media.starts_with(b"image/") {
        "image"
    } else if media.starts_with(b"audio/") {
        "audio"
    } else if media.starts_with(b"video/") {
        "video"
    } else {
        "document"
    }
}

/// A file chunk as a content part (see [`pieces::simple_file`]).
fn file_part(chunk: &FormatChunk) -> Json {
    let Chunk::File {
        media_type,
        data,
        url,
        filename,
    } = chunk
    else {
        return Json::Null;
    };
    let source = match (data, url) {
        (Some(data), _) => object(vec![
            ("type", Json::string("data")),
            ("value", text(data)),
            ("mimeType", text(media_type)),
        ]),
        (None, url) => {
            let mut fields = vec![
                ("type", Json::string("url")),
                ("value", url.as_ref().map_or(Json::string(""), text)),
            ];
            if !media_type.is_empty() {
                fields.push(("mimeType", text(media_type)));
            }
            object(fields)
        }
    };
    let mut fields = vec![("type", Json::string(part_type(media_type))), ("source", source)];
    if let Some(name) = filename {
        fields.push(("metadata", object(vec![("filename", text(name))])));
    }
    object(fields)
}

/// A content part as a chunk; `None` for a part that holds nothing the chunks can.
fn part_chunk(part: &Json) -> Option<FormatChunk> {
    let ty = part.get("type").and_then(Json::as_str)?;
    let filename = part
        .get("metadata")
        .and_then(|m| m.get("filename"))
        .or_else(|| part.get("filename"))
        .and_then(Json::as_str)
        .cloned();
    match ty.as_bytes() {
        b"text" => Some(Chunk::Text {
            text: part.get("text").and_then(Json::as_str)?.clone(),
        }),
        b"image" | b"audio" | b"video" | b"document" => {
            let source = part.get("source")?;
            let value = source.get("value").and_then(Json::as_str)?.clone();
            let media_type = source
                .get("mimeType")
                .and_then(Json::as_str)
                .cloned()
                .unwrap_or_default();
            let inline = source
                .get("type")
                .and_then(Json::as_str)
                .is_some_and(|t| *t == "data");
            Some(Chunk::File {
                media_type,
                data: inline.then(|| value.clone()),
                url: (!inline).then_some(value),
                filename,
            })
        }
        // The content part of AG-UI before 1.0, which the client converts.
        b"binary" => {
            let media_type = part.get("mimeType").and_then(Json::as_str)?.clone();
            let data = part
                .get("data")
                .and_then(Json::as_str)
                .filter(|d| !d.is_empty())
                .cloned();
            let url = match data {
                Some(_) => None,
                None => Some(
                    part.get("url")
                        .and_then(Json::as_str)
                        .filter(|u| !u.is_empty())?
                        .clone(),
                ),
            };
            Some(Chunk::File {
                media_type,
                data,
                url,
                filename,
            })
        }
        _ => None,
    }
}

// ─── Writing: fromMessages ───────────────────────────────────────────────────

/// The AG-UI messages the client holds for `messages` (`agUi.fromMessages`).
pub fn write_messages(messages: &[FormatMessage]) -> Vec<Json> {
    let mut out = Vec::new();
    for message in messages {
        let pieces = pieces::cut(message.role, &message.chunks);
        for k in 0..pieces.len() {
            out.push(piece_json(&message.id, message.role, &message.chunks, &pieces, k));
            out.extend(result_messages(&message.chunks, &pieces[k]));
        }
    }
    out
}

/// What marks piece `k` of a message: the message it belongs to, and for a first piece
/// whose kind does not say its role, the role.
pub fn piece_marker(id: &str, role: MessageRole, pieces: &[Piece], k: usize) -> Vec<(&'static str, Json)> {
    let mut fields = Vec::new();
    if k > 0 {
        fields.push(("message", Json::string(id)));
        fields.push(("piece", crate::reading::resume::number(k)));
    } else if pieces::natural_role(pieces[0].kind) != role {
        fields.push(("role", Json::string(role_name(role))));
    }
    fields
}

/// Piece `k` of a message as an AG-UI message (its results not included).
pub fn piece_json(id: &str, role: MessageRole, chunks: &[FormatChunk], pieces: &[Piece], k: usize) -> Json {
    let piece = pieces[k];
    let mut marks = piece_marker(id, role, pieces, k);
    let held = &chunks[piece.start..piece.start + piece.len];
    let mut fields = vec![("id", Json::String(pieces::piece_id(id, k)))];
    match piece.kind {
        Kind::User => {
            fields.push(("role", Json::string("user")));
            let content = match held {
                [Chunk::Text { text: t }] => text(t),
                _ => Json::Array(
                    held.iter()
                        .map(|chunk| match chunk {
                            Chunk::Text { text: t } => {
                                object(vec![("type", Json::string("text")), ("text", text(t))])
                            }
                            file => file_part(file),
                        })
                        .collect(),
                ),
            };
            fields.push(("content", content));
        }
        Kind::System => {
            fields.push(("role", Json::string("system")));
            fields.push(("content", chunk_text(&held[0])));
        }
        Kind::Assistant {
            text: has_text,
            calls,
        } => {
            fields.push(("role", Json::string("assistant")));
            if has_text {
                fields.push(("content", chunk_text(&held[0])));
            }
            if calls {
                let batch = match &held[usize::from(has_text)] {
                    Chunk::ToolBatch { calls } => calls.as_slice(),
                    _ => &[],
                };
                // A piece of calls only is opened by its first call: its marker goes there.
                let on_call = !has_text && !batch.is_empty();
                let calls = batch
                    .iter()
                    .enumerate()
                    .map(|(i, call)| {
                        let marks = if on_call && i == 0 {
                            std::mem::take(&mut marks)
                        } else {
                            Vec::new()
                        };
                        call_json(call, marks)
                    })
                    .collect();
                fields.push(("toolCalls", Json::Array(calls)));
            }
        }
        Kind::Reasoning => {
            fields.push(("role", Json::string("reasoning")));
            let (content, seal) = match &held[0] {
                Chunk::Thinking { text: t, metadata } => (text(t), metadata.as_ref()),
                _ => (Json::string(""), None),
            };
            fields.push(("content", content));
            match seal.map(encrypted_value) {
                Some(Some(value)) => fields.push(("encryptedValue", value)),
                Some(None) => marks.extend(
                    seal.filter(|s| **s != Json::Undefined)
                        .map(|s| ("seal", s.clone())),
                ),
                None => {}
            }
        }
        Kind::Activity => {
            fields.push(("role", Json::string("activity")));
            let (ty, content) = activity(&held[0]);
            fields.push(("activityType", Json::string(ty)));
            fields.push(("content", content));
        }
    }
    fields.extend(marker(marks).map(|m| ("metadata", m)));
    object(fields)
}

/// The text of a text or thinking chunk.
fn chunk_text(chunk: &FormatChunk) -> Json {
    match chunk {
        Chunk::Text { text: t } | Chunk::Thinking { text: t, .. } => text(t),
        _ => Json::string(""),
    }
}

/// A seal that is an AG-UI `encryptedValue`: `{"ag-ui": {"encryptedValue": "…"}}`.
pub fn encrypted_value(seal: &Json) -> Option<Json> {
    match seal {
        Json::Object(fields) if fields.len() == 1 && fields[0].0 == "ag-ui" => match &fields[0].1 {
            Json::Object(inner) if inner.len() == 1 && inner[0].0 == "encryptedValue" => {
                matches!(inner[0].1, Json::String(_)).then(|| inner[0].1.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

/// The seal of a reasoning message's `encryptedValue`.
pub fn seal_of(value: &Wtf8) -> Json {
    object(vec![("ag-ui", object(vec![("encryptedValue", text(value))]))])
}

/// An activity piece's type and content.
pub fn activity(chunk: &FormatChunk) -> (&'static str, Json) {
    match chunk {
        Chunk::System { kind, text: t } => (
            SYSTEM_ACTIVITY,
            object(vec![("kind", Json::string(kind.as_str())), ("text", text(t))]),
        ),
        Chunk::Error { message, status_code } => {
            let mut fields = vec![("message", text(message))];
            fields.extend(status_code.map(|code| ("statusCode", crate::reading::model_json::number(code))));
            (ERROR_ACTIVITY, object(fields))
        }
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => {
            let mut fields = vec![("mediaType", text(media_type))];
            for (key, value) in [("data", data), ("url", url), ("filename", filename)] {
                fields.extend(value.as_ref().map(|v| (key, text(v))));
            }
            (FILE_ACTIVITY, object(fields))
        }
        _ => (SYSTEM_ACTIVITY, object(Vec::new())),
    }
}

/// The chunk an activity of agent-chunks holds; `None` for any other activity.
pub fn activity_chunk(ty: &Wtf8, content: &Json) -> Option<FormatChunk> {
    let string = |key: &str| content.get(key).and_then(Json::as_str).cloned();
    let optional = |key: &str| match content.get(key) {
        None => Some(None),
        Some(Json::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    };
    match ty.as_str()? {
        SYSTEM_ACTIVITY => Some(Chunk::System {
            kind: string("kind")?.as_str().and_then(SystemChunkKind::from_name)?,
            text: string("text")?,
        }),
        ERROR_ACTIVITY => Some(Chunk::Error {
            message: string("message")?,
            status_code: match content.get("statusCode") {
                None => None,
                Some(code @ Json::Number(_)) => Some(code.as_f64()?),
                Some(_) => return None,
            },
        }),
        FILE_ACTIVITY => Some(Chunk::File {
            media_type: string("mediaType")?,
            data: optional("data")?,
            url: optional("url")?,
            filename: optional("filename")?,
        }),
        _ => None,
    }
}

/// What marks a call beyond the marks of the piece it opens: its shell output.
pub fn call_marks(call: &ToolCallEntry<Wtf8, Json>) -> Vec<(&'static str, Json)> {
    let Some(output) = &call.shell_output else {
        return Vec::new();
    };
    let mut marks = vec![(
        "shellOutput",
        object(vec![
            ("stdout", text(&output.stdout)),
            ("stderr", text(&output.stderr)),
        ]),
    )];
    if call.shell_output_first {
        marks.push(("shellOutputFirst", Json::Bool(true)));
    }
    marks
}

/// Takes a call's marker back: its shell output.
pub fn unmark_call(call: &mut ToolCallEntry<Wtf8, Json>, marker: Option<&Json>) {
    let output = marker.and_then(|m| m.get("shellOutput"));
    let stream = |key: &str| output.and_then(|o| o.get(key)).and_then(Json::as_str).cloned();
    if let (Some(stdout), Some(stderr)) = (stream("stdout"), stream("stderr")) {
        call.shell_output = Some(crate::model::ShellOutput { stdout, stderr });
        call.shell_output_first = matches!(
            marker.and_then(|m| m.get("shellOutputFirst")),
            Some(Json::Bool(true))
        );
    }
}

/// A call as AG-UI holds it, with the marks of the piece it opens (if any) and its own
/// added to its `metadata`.
pub fn call_json(call: &ToolCallEntry<Wtf8, Json>, mut marks: Vec<(&str, Json)>) -> Json {
    marks.extend(call_marks(call));
    let meta = call_meta(call);
    let mut fields = vec![
        ("id", text(&call.id)),
        ("type", Json::string("function")),
        (
            "function",
            object(vec![
                ("name", text(&call.name)),
                ("arguments", Json::String(call_args_text(call))),
            ]),
        ),
    ];
    fields.extend(
        meta.and_then(|m| m.get("encryptedValue"))
            .map(|v| ("encryptedValue", v.clone())),
    );
    fields.extend(with_marks(meta.and_then(|m| m.get("metadata")), marks).map(|m| ("metadata", m)));
    object(fields)
}

/// `metadata` with the marks added under [`MARKER`].
pub fn with_marks(metadata: Option<&Json>, marks: Vec<(&str, Json)>) -> Option<Json> {
    if marks.is_empty() {
        return metadata.cloned();
    }
    let mut fields = match metadata {
        Some(Json::Object(fields)) => fields.clone(),
        _ => Vec::new(),
    };
    fields.retain(|(k, _)| *k != MARKER);
    fields.push((Wtf8::from(MARKER), object(marks)));
    Some(Json::Object(fields))
}

/// The id of the tool message holding a call's result.
pub fn result_id(call: &ToolCallEntry<Wtf8, Json>) -> Wtf8 {
    match result_meta(call).and_then(|r| r.get("id")) {
        Some(Json::String(id)) => id.clone(),
        _ => default_result_id(&call.id),
    }
}

/// The id a result is given when nothing names it.
pub fn default_result_id(call: &Wtf8) -> Wtf8 {
    let mut id = call.clone();
    id.push_wtf8(b"-result");
    id
}

fn result_meta(call: &ToolCallEntry<Wtf8, Json>) -> Option<&Json> {
    call_meta(call)?.get("result")
}

/// Where a result goes among the results after its piece: the order it came in.
pub fn result_rank(call: &ToolCallEntry<Wtf8, Json>, index: usize) -> usize {
    result_meta(call)
        .and_then(|r| r.get("order"))
        .and_then(crate::reading::resume::whole)
        .unwrap_or(index)
}

/// The `tool` messages of a piece's calls that have a result, in the order they came.
pub fn result_messages(chunks: &[FormatChunk], piece: &Piece) -> Vec<Json> {
    let Some(Chunk::ToolBatch { calls }) = piece.calls().and_then(|j| chunks.get(j)) else {
        return Vec::new();
    };
    let mut results: Vec<(usize, Json)> = calls
        .iter()
        .enumerate()
        .filter_map(|(i, call)| Some((result_rank(call, i), tool_message(call)?)))
        .collect();
    results.sort_by_key(|(rank, _)| *rank);
    results.into_iter().map(|(_, message)| message).collect()
}

/// A call's result as the `tool` message the client holds.
pub fn tool_message(call: &ToolCallEntry<Wtf8, Json>) -> Option<Json> {
    let (result, is_error) = call.result.as_ref()?;
    // A result that carried neither a value nor `isError` leaves nothing in the message's
    // JSON (nor in the binding's objects): the reloaded call is unanswered, so it has no
    // tool message here either.
    if matches!((result, is_error), (Json::Undefined, Json::Undefined)) {
        return None;
    }
    let meta = result_meta(call);
    let given = |key: &str| meta.and_then(|m| m.get(key)).cloned();
    let mut marks = Vec::new();
    let content = match result {
        Json::String(_) => result.clone(),
        parts if is_content_parts(parts) => parts.clone(),
        Json::Undefined => {
            marks.push(("resultUndefined", Json::Bool(true)));
            Json::string("")
        }
        other => {
            marks.push(("result", other.clone()));
            Json::String(Wtf8::from_wtf8_unchecked(other.to_json()))
        }
    };
    let error = given("error");
    match (is_error, &error) {
        (Json::Bool(false), None) | (Json::Bool(true), Some(_)) => {}
        (Json::Undefined, _) => marks.push(("isErrorUndefined", Json::Bool(true))),
        (other, _) => marks.push(("isError", other.clone())),
    }
    let mut fields = vec![
        ("id", Json::String(result_id(call))),
        ("role", Json::string("tool")),
        ("content", content),
        ("toolCallId", text(&call.id)),
    ];
    fields.extend(error.map(|e| ("error", e)));
    fields.extend(given("encryptedValue").map(|v| ("encryptedValue", v)));
    fields.extend(with_marks(meta.and_then(|m| m.get("metadata")), marks).map(|m| ("metadata", m)));
    Some(object(fields))
}

// ─── Reading: toMessages ─────────────────────────────────────────────────────

/// `key` of an AG-UI object, or its snake_case spelling (what a producer writes that
/// serialises without aliases); `null` reads as absent.
pub fn field<'a>(value: &'a Json, key: &str) -> Option<&'a Json> {
    crate::formats::ag_ui::events::get(value, key)
}

fn string_field<'a>(value: &'a Json, key: &str, path: &str) -> FormatResult<&'a Wtf8> {
    crate::formats::ag_ui::events::string_at(value, key, path)
}

fn optional_string<'a>(value: &'a Json, key: &str, path: &str) -> FormatResult<Option<&'a Wtf8>> {
    crate::formats::ag_ui::events::optional_at(value, key, path)
}

/// The marker of a `metadata` value, and the metadata without it (`None` when nothing
/// else was there).
pub fn split_marker(metadata: Option<&Json>) -> (Option<Json>, Option<Json>) {
    match metadata {
        Some(Json::Object(fields)) if fields.iter().any(|(k, _)| *k == MARKER) => {
            let mut rest = fields.clone();
            let at = rest.iter().position(|(k, _)| *k == MARKER).expect("found above");
            let (_, mark) = rest.remove(at);
            (Some(mark), (!rest.is_empty()).then_some(Json::Object(rest)))
        }
        other => (None, other.cloned()),
    }
}

/// A message read from AG-UI, before it is placed.
#[derive(Debug, Clone)]
pub enum Read {
    /// A message that becomes a piece.
    Piece(ReadPiece),
    /// A `tool` message: a result for a call.
    Result(ReadResult),
    /// A message the chunks do not hold (an activity of another application, a role no
    /// version knows): what it is.
    Left(&'static str),
}

#[derive(Debug, Clone)]
pub struct ReadPiece {
    pub id: Wtf8,
    pub role: MessageRole,
    pub chunks: Vec<FormatChunk>,
    /// The marker: of the message, or for a piece of calls only, of its first call.
    pub marker: Option<Json>,
}

#[derive(Debug, Clone)]
pub struct ReadResult {
    pub id: Wtf8,
    pub call: Wtf8,
    pub content: Json,
    pub error: Option<Wtf8>,
    pub encrypted: Option<Wtf8>,
    pub metadata: Option<Json>,
    pub marker: Option<Json>,
}

/// A call from AG-UI's `ToolCall`.
fn read_call(value: &Json, path: &str) -> FormatResult<(ToolCallEntry<Wtf8, Json>, Option<Json>)> {
    crate::reading::check::object(value, path)?;
    let id = string_field(value, "id", path)?.clone();
    let function = field(value, "function");
    let function_path = join(path, "function");
    let function = match function {
        Some(f @ Json::Object(_)) => f,
        other => return Err(wrong(function_path, "an object", other)),
    };
    let name = string_field(function, "name", &function_path)?.clone();
    let arguments = match field(function, "arguments") {
        None | Some(Json::Null | Json::Undefined) => Wtf8::new(),
        Some(Json::String(text)) => text.clone(),
        other => return Err(wrong(join(&function_path, "arguments"), "a string", other)),
    };
    let mut call = ToolCallEntry::new(id, name, Json::Undefined);
    set_args(&mut call, arguments, true);
    if let Some(value) = optional_string(value, "encryptedValue", path)? {
        set_call_meta(&mut call, "encryptedValue", Some(Json::String(value.clone())));
    }
    let (mark, metadata) = split_marker(field(value, "metadata"));
    set_call_meta(&mut call, "metadata", metadata);
    unmark_call(&mut call, mark.as_ref());
    Ok((call, mark))
}

/// One AG-UI message, read; `path` names it in errors.
pub fn read_message(value: &Json, path: &str) -> FormatResult<Read> {
    crate::reading::check::object(value, path)?;
    let id = string_field(value, "id", path)?.clone();
    let role = string_field(value, "role", path)?;
    let (marker, _) = split_marker(field(value, "metadata"));
    let content_path = join(path, "content");
    let string_content = || -> FormatResult<Wtf8> {
        match field(value, "content") {
            Some(Json::String(s)) => Ok(s.clone()),
            other => Err(wrong(content_path.clone(), "a string", other)),
        }
    };
    let piece = |role, chunks, marker| {
        Ok(Read::Piece(ReadPiece {
            id: id.clone(),
            role,
            chunks,
            marker,
        }))
    };
    match role.as_bytes() {
        b"user" => {
            let chunks = match field(value, "content") {
                Some(Json::String(s)) => vec![Chunk::Text { text: s.clone() }],
                Some(Json::Array(parts)) => parts.iter().filter_map(part_chunk).collect(),
                other => {
                    return Err(wrong(
                        content_path,
                        "a string or an array of content parts",
                        other,
                    ))
                }
            };
            piece(MessageRole::User, chunks, marker)
        }
        b"system" | b"developer" => piece(
            MessageRole::System,
            vec![Chunk::Text {
                text: string_content()?,
            }],
            marker,
        ),
        b"assistant" => {
            let mut chunks = Vec::new();
            match field(value, "content") {
                None | Some(Json::Null | Json::Undefined) => {}
                Some(Json::String(s)) => chunks.push(Chunk::Text { text: s.clone() }),
                other => return Err(wrong(content_path, "a string", other)),
            }
            let mut marker = marker;
            match field(value, "toolCalls") {
                None | Some(Json::Null | Json::Undefined) => {}
                Some(Json::Array(items)) => {
                    let calls_path = join(path, "toolCalls");
                    let mut calls = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        let (call, mark) = read_call(item, &index(&calls_path, i))?;
                        // A piece of calls only carries its marker on its first call.
                        if i == 0 && chunks.is_empty() {
                            marker = mark;
                        }
                        calls.push(call);
                    }
                    chunks.push(Chunk::ToolBatch { calls });
                }
                other => return Err(wrong(join(path, "toolCalls"), "an array", other)),
            }
            piece(MessageRole::Assistant, chunks, marker)
        }
        b"reasoning" => {
            let mut seal = optional_string(value, "encryptedValue", path)?.map(seal_of);
            if let Some(given) = marker.as_ref().and_then(|m| m.get("seal")) {
                seal = Some(given.clone());
            }
            piece(
                MessageRole::Assistant,
                vec![Chunk::Thinking {
                    text: string_content()?,
                    metadata: seal,
                }],
                marker,
            )
        }
        b"activity" => {
            let ty = string_field(value, "activityType", path)?;
            match field(value, "content").and_then(|c| activity_chunk(ty, c)) {
                Some(chunk) => piece(MessageRole::Assistant, vec![chunk], marker),
                None => Ok(Read::Left("an activity message (not conversation)")),
            }
        }
        b"tool" => {
            let content = match field(value, "content") {
                Some(content @ (Json::String(_) | Json::Array(_))) => content.clone(),
                other => {
                    return Err(wrong(
                        content_path,
                        "a string or an array of content parts",
                        other,
                    ))
                }
            };
            let (marker, metadata) = split_marker(field(value, "metadata"));
            Ok(Read::Result(ReadResult {
                id,
                call: string_field(value, "toolCallId", path)?.clone(),
                content,
                error: optional_string(value, "error", path)?.cloned(),
                encrypted: optional_string(value, "encryptedValue", path)?.cloned(),
                metadata,
                marker,
            }))
        }
        _ => Ok(Read::Left("a message of a role AG-UI 1.0 does not list")),
    }
}

/// The key the results of a batch after this one must come after: the greatest of
/// those it has (but the one at `except`), by [`result_rank`].
pub fn last_rank(calls: &[ToolCallEntry<Wtf8, Json>], except: usize) -> Option<usize> {
    calls
        .iter()
        .enumerate()
        .filter(|&(i, c)| i != except && c.result.is_some())
        .map(|(i, c)| result_rank(c, i))
        .max()
}

/// What a read result makes of `call` (the `index`-th of its batch), its result, `isError`
/// and the `meta.agUi.result` that writes it back. Results are written in the order of
/// their keys ([`result_rank`]): a call's index, or where it came after the results
/// before it (`after`, the greatest key of those) when its index does not put it there.
/// `replaces`: the call had a result, whose place the new one takes.
pub fn land(
    call: &mut ToolCallEntry<Wtf8, Json>,
    result: &ReadResult,
    after: Option<usize>,
    index: usize,
    replaces: bool,
) {
    let mark = |key: &str| result.marker.as_ref().and_then(|m| m.get(key));
    let flag = |key: &str| matches!(mark(key), Some(Json::Bool(true)));
    let value = match (mark("result"), flag("resultUndefined")) {
        (_, true) => Json::Undefined,
        (Some(value), _) => value.clone(),
        (None, _) => result.content.clone(),
    };
    let is_error = match (mark("isError"), flag("isErrorUndefined")) {
        (_, true) => Json::Undefined,
        (Some(value), _) => value.clone(),
        (None, _) => Json::Bool(result.error.is_some()),
    };
    let order = match (replaces, after) {
        (true, _) => result_meta(call).and_then(|r| r.get("order")).cloned(),
        (false, Some(after)) if index <= after => Some(crate::reading::resume::number(after + 1)),
        (false, _) => None,
    };
    let mut meta = Vec::new();
    if result.id != default_result_id(&call.id) {
        meta.push(("id", Json::String(result.id.clone())));
    }
    meta.extend(order.map(|o| ("order", o)));
    meta.extend(result.error.as_ref().map(|e| ("error", text(e))));
    meta.extend(result.encrypted.as_ref().map(|e| ("encryptedValue", text(e))));
    meta.extend(result.metadata.clone().map(|m| ("metadata", m)));
    call.result = Some((value, is_error));
    set_call_meta(call, "result", (!meta.is_empty()).then(|| object(meta)));
}

/// Whether a piece read with `marker` is piece `k` of `message` (the message before it
/// among those read, `pieces` its pieces) and joins it: the marker names the message and
/// the piece, the id is `<message>.<k>`, and the chunks cut as they would be written.
pub fn joins(piece: &ReadPiece, id: &str, role: MessageRole, pieces: &[Piece]) -> bool {
    let Some(marker) = &piece.marker else {
        return false;
    };
    let k = pieces.len();
    let names = marker
        .get("message")
        .and_then(Json::as_str)
        .is_some_and(|m| *m == id)
        && marker.get("piece").and_then(crate::reading::resume::whole) == Some(k);
    if !names || piece.id != pieces::piece_id(id, k) || piece.chunks.is_empty() {
        return false;
    }
    let mut grown = pieces.to_vec();
    for chunk in &piece.chunks {
        pieces::grow(&mut grown, role, chunk);
    }
    grown.len() == k + 1 && grown[..k] == *pieces
}

/// The role a first piece read with `marker` gives its message: the marker's, when the
/// chunks cut for it as they do for the role the piece says.
pub fn role_of(piece: &ReadPiece) -> MessageRole {
    let marked = piece
        .marker
        .as_ref()
        .and_then(|m| m.get("role"))
        .and_then(Json::as_str)
        .and_then(|r| match r.as_bytes() {
            b"user" => Some(MessageRole::User),
            b"assistant" => Some(MessageRole::Assistant),
            b"system" => Some(MessageRole::System),
            _ => None,
        });
    match marked {
        Some(role) if pieces::cut(role, &piece.chunks) == pieces::cut(piece.role, &piece.chunks) => role,
        _ => piece.role,
    }
}

/// AG-UI messages read into messages (`agUi.toMessages`, a snapshot, a run's input): each
/// piece joined to the message it belongs to, each result on its call (the nearest
/// message before it holding the call, else the first after it).
#[derive(Debug, Default)]
pub struct ReadAll {
    pub messages: Vec<FormatMessage>,
    /// The pieces of each message.
    pub pieces: Vec<Vec<Piece>>,
    /// Results whose call no message read holds, with their place in the list.
    pub unplaced: Vec<(usize, ReadResult)>,
    /// Results that replaced an earlier result for the same call.
    pub replaced: usize,
    /// What was left out, by kind.
    pub left: Vec<&'static str>,
}

pub fn read_all(list: &[Json], path: &str) -> FormatResult<ReadAll> {
    let mut all = ReadAll::default();
    // Per call id: where pieces holding it are (list position, message, chunk).
    let mut holders: HashMap<Wtf8, Vec<(usize, usize, usize)>> = HashMap::new();
    let mut results = Vec::new();
    for (at, value) in list.iter().enumerate() {
        match read_message(value, &index(path, at))? {
            Read::Left(what) => all.left.push(what),
            Read::Result(result) => results.push((at, result)),
            Read::Piece(piece) => {
                let joined = match (all.messages.last(), all.pieces.last()) {
                    (Some(last), Some(cut)) => joins(&piece, &last.id, last.role, cut),
                    _ => false,
                };
                if !joined {
                    let role = role_of(&piece);
                    all.messages.push(ChatMessage {
                        id: piece.id.to_string_lossy().into_owned(),
                        role,
                        chunks: Vec::new(),
                    });
                    all.pieces.push(Vec::new());
                }
                let m = all.messages.len() - 1;
                let message = all.messages.last_mut().expect("pushed above");
                let cut = all.pieces.last_mut().expect("pushed above");
                let start = message.chunks.len();
                for chunk in piece.chunks {
                    if let Chunk::ToolBatch { calls } = &chunk {
                        for call in calls {
                            holders
                                .entry(call.id.clone())
                                .or_default()
                                .push((at, m, message.chunks.len()));
                        }
                    }
                    pieces::grow(cut, message.role, &chunk);
                    message.chunks.push(chunk);
                }
                if message.chunks.len() == start {
                    *cut = pieces::cut(message.role, &message.chunks);
                }
            }
        }
    }
    for (at, result) in results {
        let owner = holders.get(&result.call).and_then(|places| {
            let before = places.iter().rev().find(|(p, ..)| *p < at);
            before.or_else(|| places.iter().find(|(p, ..)| *p > at)).copied()
        });
        let Some((_, m, chunk)) = owner else {
            all.unplaced.push((at, result));
            continue;
        };
        let Chunk::ToolBatch { calls } = &mut all.messages[m].chunks[chunk] else {
            continue;
        };
        let Some(i) = calls.iter().position(|c| c.id == result.call) else {
            continue;
        };
        let after = last_rank(calls, i);
        let replaces = calls[i].result.is_some();
        all.replaced += usize::from(replaces);
        land(&mut calls[i], &result, after, i, replaces);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::model_json::{message_json, messages_from_json};

    fn json(text: &str) -> Json {
        value::parse(text.as_bytes()).unwrap()
    }

    /// A call's input streamed delta by delta: appended in place where [`streams_args`]
    /// says it may be, else set from the whole text; both ways end alike.
    #[test]
    fn an_input_appended_in_place_is_the_input_set_from_its_whole_text() {
        let deltas: [&[u8]; 5] = [b"{\"a\":", b"\"x \xED\xA0\xBD", b"\xED\xB8\x80", b"\"", b"}"];
        let mut set = ToolCallEntry::new(Wtf8::from("c"), Wtf8::from("t"), Json::Undefined);
        // Another key of the meta, before and after `agUi`; metadata inside it.
        set.meta = Some(json(r#"{"other":1}"#));
        set_call_meta(&mut set, "metadata", Some(json(r#"{"m":2}"#)));
        let mut appended = set.clone();
        let mut in_place = 0;
        for delta in deltas {
            let delta = Wtf8::from_wtf8_unchecked(delta.to_vec());
            let mut text = call_args_text(&set);
            text.push_wtf8(delta.as_bytes());
            set_args(&mut set, text, false);
            if streams_args(&appended, None) {
                append_args(&mut appended, &delta);
                in_place += 1;
            } else {
                let mut text = call_args_text(&appended);
                text.push_wtf8(delta.as_bytes());
                set_args(&mut appended, text, false);
            }
            assert_eq!(appended, set);
        }
        assert_eq!(
            in_place,
            deltas.len() - 1,
            "every delta after the first is appended in place"
        );
        assert_eq!(
            call_args_text(&set).to_utf16(),
            "{\"a\":\"x \u{1F600}\"}".encode_utf16().collect::<Vec<_>>()
        );
        // A meta whose keys another writer left out of order is not appended to.
        let mut unordered = set.clone();
        if let Some(Json::Object(outer)) = &mut unordered.meta {
            if let Some((_, Json::Object(inner))) = outer.last_mut() {
                inner.reverse();
            }
        }
        assert!(!streams_args(&unordered, None));
        // Nor one whose `agUi` is not its last key, as `set_call_meta` leaves it.
        let mut moved = set.clone();
        if let Some(Json::Object(outer)) = &mut moved.meta {
            outer.rotate_right(1);
        }
        assert!(!streams_args(&moved, None));
    }

    fn back(messages: &[FormatMessage]) -> Vec<FormatMessage> {
        let written = write_messages(messages);
        let read = read_all(&written, "messages").unwrap();
        assert!(read.unplaced.is_empty() && read.left.is_empty(), "{read:?}");
        read.messages
    }

    fn chat(text: &str) -> Vec<FormatMessage> {
        messages_from_json(&json(text), "messages").unwrap()
    }

    #[test]
    fn a_message_of_every_chunk_comes_back_as_it_was() {
        let messages = chat(
            r#"[
            {"id":"u","role":"user","chunks":[{"type":"text","text":"look"},{"type":"file","mediaType":"image/png","data":"AA","filename":"a.png"},{"type":"file","mediaType":"","url":"https://x"}]},
            {"id":"a","role":"assistant","chunks":[
              {"type":"thinking","text":"hm","metadata":{"anthropic":{"signature":"s"}}},
              {"type":"text","text":"calling"},
              {"type":"tool-batch","calls":[{"id":"c1","name":"f","arguments":{"x":1.0},"result":{"ok":true},"isError":false},{"id":"c2","name":"g","result":"no","isError":true}]},
              {"type":"tool-batch","calls":[{"id":"c3","name":"h","arguments":"raw"}]},
              {"type":"system","kind":"notice","text":"n"},
              {"type":"error","message":"boom","statusCode":429},
              {"type":"thinking","text":"again","metadata":{"ag-ui":{"encryptedValue":"e"}}},
              {"type":"text","text":"done"},
              {"type":"file","mediaType":"image/png","url":"https://y"}
            ]},
            {"id":"s","role":"system","chunks":[{"type":"system","kind":"cancelled","text":"stop"}]},
            {"id":"e","role":"system","chunks":[]},
            {"id":"n","role":"user","chunks":[]}
        ]"#,
        );
        assert_eq!(back(&messages), messages);
    }

    #[test]
    fn what_the_client_holds_reads_and_writes_back() {
        let held = json(
            r#"[
            {"id":"u","role":"user","content":"hi"},
            {"id":"a","role":"assistant","content":"","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{ \"x\" : 1 }"},"encryptedValue":"v","metadata":{"k":1}},{"id":"c2","type":"function","function":{"name":"g","arguments":""}}]},
            {"id":"t2","role":"tool","content":"two","toolCallId":"c2"},
            {"id":"t1","role":"tool","content":[{"type":"text","text":"one"}],"toolCallId":"c1","error":"failed"},
            {"id":"r","role":"reasoning","content":"think","encryptedValue":"sealed"}
        ]"#,
        );
        let read = read_all(held.as_array(), "messages").unwrap();
        let written = Json::Array(write_messages(&read.messages));
        assert_eq!(written, held);
        let call = |j: usize, i: usize| match &read.messages[1].chunks[j] {
            Chunk::ToolBatch { calls } => calls[i].clone(),
            _ => unreachable!(),
        };
        assert_eq!(call(1, 0).arguments, json(r#"{"x":1}"#));
        assert_eq!(call(1, 1).arguments, Json::Undefined);
        assert_eq!(
            call(1, 0).result,
            Some((json(r#"[{"type":"text","text":"one"}]"#), Json::Bool(true)))
        );
        assert_eq!(
            message_json(&read.messages[2]).to_json(),
            br#"{"id":"r","role":"assistant","chunks":[{"type":"thinking","text":"think","metadata":{"ag-ui":{"encryptedValue":"sealed"}}}]}"#
        );
    }

    #[test]
    fn a_piece_joins_only_the_message_it_names_and_follows() {
        let list = json(
            r#"[
            {"id":"a","role":"assistant","content":"x"},
            {"id":"b","role":"assistant","content":"y"},
            {"id":"a.1","role":"reasoning","content":"z","metadata":{"agent-chunks":{"message":"a","piece":1}}},
            {"id":"b.2","role":"reasoning","content":"w","metadata":{"agent-chunks":{"message":"b","piece":2}}}
        ]"#,
        );
        let read = read_all(list.as_array(), "messages").unwrap();
        let ids: Vec<&str> = read.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "a.1", "b.2"]);
    }

    #[test]
    fn a_result_lands_on_the_nearest_call_before_it_else_after() {
        let list = json(
            r#"[
            {"id":"t0","role":"tool","content":"early","toolCallId":"c"},
            {"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":""}}]},
            {"id":"t9","role":"tool","content":"lost","toolCallId":"nowhere"}
        ]"#,
        );
        let read = read_all(list.as_array(), "messages").unwrap();
        assert_eq!(read.unplaced.len(), 1);
        let Chunk::ToolBatch { calls } = &read.messages[0].chunks[0] else {
            unreachable!()
        };
        assert_eq!(calls[0].result, Some((Json::string("early"), Json::Bool(false))));
    }

    #[test]
    fn a_malformed_field_is_named() {
        let error = read_all(
            json(r#"[{"id":"a","role":"assistant","content":5}]"#).as_array(),
            "messages",
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "messages[0].content must be a string, got number"
        );
    }

    #[test]
    fn snake_case_fields_are_read() {
        let list = json(
            r#"[{"id":"a","role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},
                {"id":"t","role":"tool","content":"ok","tool_call_id":"c"}]"#,
        );
        let read = read_all(list.as_array(), "messages").unwrap();
        assert!(read.unplaced.is_empty());
    }

    trait AsArray {
        fn as_array(&self) -> &[Json];
    }
    impl AsArray for Json {
        fn as_array(&self) -> &[Json] {
            match self {
                Json::Array(items) => items,
                _ => &[],
            }
        }
    }
}
