//! An AG-UI stream folded live, event by event, as `@ag-ui/client` 1.0's reducer
//! (`defaultApplyEvents`) builds its messages — one `ChatMessage` per AG-UI message,
//! a tool message a result on its call — but in place, at a cost per event that does not
//! grow with the conversation (the client searches its whole list for each delta and
//! copies it whole after each).
//!
//! Before the reducer, what the client's pipeline does: the retired `THINKING_*` events
//! read as the `REASONING_*` ones it translates them to (the messages named
//! `thinking-<line>` where it mints a random id), the `*_CHUNK` shorthand expanded
//! ([`crate::formats::ag_ui::lanes`]), the order its verifier holds a run to checked
//! and what breaks it counted ([`crate::formats::ag_ui::order`]). A frame whose fields the
//! fold uses are malformed is refused alone, with the field named.

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::events::{self, Type};
use crate::formats::ag_ui::lanes::Lanes;
use crate::formats::ag_ui::messages::{self, ReadPiece, ReadResult};
use crate::formats::ag_ui::order::Order;
use crate::formats::ag_ui::pieces::Kind;
use crate::formats::ag_ui::places::{Place, Places};
use crate::formats::ag_ui::snapshot;
use crate::model::{ChatMessage, Chunk, MessageRole, ToolCallEntry};
use crate::reading::check::{wrong, FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::resume;

/// The `ag-ui` stream's fold.
#[derive(Debug, Default)]
pub struct AgUiFold {
    places: Places,
    lanes: Lanes,
    order: Order,
    /// The ids `THINKING_START` and `THINKING_TEXT_MESSAGE_START` minted, while open.
    thinking: Thinking,
    /// Calls whose input was found streaming ([`messages::streams_args`]) by the
    /// `TOOL_CALL_ARGS` since the last event of another kind, and how long their text has
    /// been since: nothing else changed them, so they need not be compared again.
    streaming: std::collections::HashMap<Wtf8, usize>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Thinking {
    span: Option<Wtf8>,
    message: Option<Wtf8>,
}

/// Kinds of events counted.
fn never_started(ty: Type) -> String {
    format!("{} for a message never started", ty.name())
}

const ORPHAN: &str = "TOOL_CALL_RESULT for a call no message holds";
const REPLACED: &str = "a second result for a call (it replaces the first)";

/// The fields of `event` the fold uses, checked before anything changes.
fn check(ty: Type, event: &Json) -> FormatResult<()> {
    use events::{optional, string};
    match ty {
        Type::TEXT_MESSAGE_START => {
            string(event, "messageId")?;
            match events::get(event, "role") {
                None => {}
                Some(Json::String(role))
                    if matches!(role.as_bytes(), b"assistant" | b"user" | b"system" | b"developer") => {}
                other => {
                    return Err(wrong(
                        "role".into(),
                        "'assistant', 'user', 'system' or 'developer'",
                        other,
                    ))
                }
            }
        }
        Type::TEXT_MESSAGE_CONTENT | Type::REASONING_MESSAGE_CONTENT => {
            string(event, "messageId")?;
            string(event, "delta")?;
        }
        Type::TEXT_MESSAGE_END | Type::REASONING_MESSAGE_START | Type::REASONING_MESSAGE_END => {
            string(event, "messageId")?;
        }
        Type::THINKING_TEXT_MESSAGE_CONTENT => {
            string(event, "delta")?;
        }
        Type::TOOL_CALL_START => {
            string(event, "toolCallId")?;
            string(event, "toolCallName")?;
            optional(event, "parentMessageId")?;
        }
        Type::TOOL_CALL_ARGS => {
            string(event, "toolCallId")?;
            string(event, "delta")?;
        }
        Type::TOOL_CALL_END => {
            string(event, "toolCallId")?;
        }
        Type::TOOL_CALL_RESULT => {
            string(event, "toolCallId")?;
            optional(event, "messageId")?;
            result_content(event)?;
        }
        Type::REASONING_ENCRYPTED_VALUE => {
            match string(event, "subtype")?.as_bytes() {
                b"tool-call" | b"message" => {}
                _ => return Err(FormatError::new("subtype", "must be 'tool-call' or 'message'")),
            }
            string(event, "entityId")?;
            string(event, "encryptedValue")?;
        }
        Type::RUN_ERROR => {
            run_error_message(event)?;
        }
        Type::MESSAGES_SNAPSHOT => match events::find(event, "messages") {
            Some(Json::Array(_)) => {}
            other => return Err(wrong("messages".into(), "an array", other)),
        },
        _ => {}
    }
    Ok(())
}

/// A result's content: `content` (also `result`, as some servers write it).
fn result_content(event: &Json) -> FormatResult<&Json> {
    match events::get(event, "content").or_else(|| events::get(event, "result")) {
        Some(content @ (Json::String(_) | Json::Array(_))) => Ok(content),
        other => Err(wrong(
            "content".into(),
            "a string or an array of content parts",
            other,
        )),
    }
}

/// A run error's message: `message` (also `error`, as some servers write it).
fn run_error_message(event: &Json) -> FormatResult<&Wtf8> {
    match events::get(event, "message").or_else(|| events::get(event, "error")) {
        Some(Json::String(message)) => Ok(message),
        other => Err(wrong("message".into(), "a string", other)),
    }
}

/// `event` with its `type` and the id under `key` replaced.
fn retyped(event: &Json, ty: Type, key: &str, id: &Wtf8) -> Json {
    let mut fields: Vec<(Wtf8, Json)> = match event {
        Json::Object(fields) => fields
            .iter()
            .filter(|(k, _)| *k != "type" && *k != key)
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    fields.insert(0, (Wtf8::from("type"), Json::string(ty.name())));
    fields.insert(1, (Wtf8::from(key), Json::String(id.clone())));
    Json::Object(fields)
}

/// The metadata of an event merged into what a call holds (key by key, the last value
/// winning), its marker taken back.
fn merge_metadata(call: &mut ToolCallEntry<Wtf8, Json>, event: &Json) {
    let (marker, new) = messages::split_marker(events::metadata(event));
    messages::unmark_call(call, marker.as_ref());
    let Some(Json::Object(new)) = new else {
        return;
    };
    let mut merged = match messages::call_meta(call).and_then(|m| m.get("metadata")) {
        Some(Json::Object(old)) => old.clone(),
        _ => Vec::new(),
    };
    for (key, value) in new {
        match merged.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => merged.push((key, value)),
        }
    }
    messages::set_call_meta(call, "metadata", Some(Json::Object(merged)));
}

impl AgUiFold {
    /// `THINKING_*` as the `REASONING_*` event the client translates it to, and the ids
    /// open after it.
    fn translate(&self, ty: Type, event: Json, line: usize) -> (Type, Json, Thinking) {
        let minted = || Wtf8::from(format!("thinking-{line}"));
        let mut thinking = self.thinking.clone();
        let (ty, key, id) = match ty {
            Type::THINKING_START => {
                thinking.span = Some(minted());
                (Type::REASONING_START, "messageId", minted())
            }
            Type::THINKING_END => (
                Type::REASONING_END,
                "messageId",
                thinking.span.take().unwrap_or_else(minted),
            ),
            Type::THINKING_TEXT_MESSAGE_START => {
                thinking.message = Some(minted());
                let mut event = retyped(&event, Type::REASONING_MESSAGE_START, "messageId", &minted());
                if let Json::Object(fields) = &mut event {
                    fields.retain(|(k, _)| *k != "role");
                    fields.insert(2, (Wtf8::from("role"), Json::string("reasoning")));
                }
                return (Type::REASONING_MESSAGE_START, event, thinking);
            }
            Type::THINKING_TEXT_MESSAGE_CONTENT => (
                Type::REASONING_MESSAGE_CONTENT,
                "messageId",
                thinking.message.clone().unwrap_or_else(minted),
            ),
            Type::THINKING_TEXT_MESSAGE_END => (
                Type::REASONING_MESSAGE_END,
                "messageId",
                thinking.message.take().unwrap_or_else(minted),
            ),
            _ => return (ty, event, thinking),
        };
        (ty, retyped(&event, ty, key, &id), thinking)
    }

    fn apply(
        &mut self,
        ty: Type,
        event: Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        match ty {
            Type::TEXT_MESSAGE_START | Type::REASONING_MESSAGE_START => self.start(ty, &event, out),
            Type::TEXT_MESSAGE_CONTENT | Type::REASONING_MESSAGE_CONTENT => {
                self.content(ty, &event, line, out, skips)
            }
            Type::TEXT_MESSAGE_END | Type::REASONING_MESSAGE_END => {
                let id = events::string(&event, "messageId")?;
                match self.places.get(id).cloned() {
                    None => skips.skip(line, never_started(ty)),
                    Some(Place::Piece { message, piece }) => {
                        match self.places.piece(message, piece).kind {
                            Kind::Activity => {
                                skips.skip(line, format!("{} for an activity message", ty.name()))?
                            }
                            Kind::Reasoning => self.seal_from(&event, message, piece, out),
                            _ => {}
                        }
                        Ok(())
                    }
                    Some(Place::Result { .. }) => Ok(()),
                }
            }
            Type::TOOL_CALL_START => self.tool_start(&event, out),
            Type::TOOL_CALL_ARGS | Type::TOOL_CALL_END => {
                let id = events::string(&event, "toolCallId")?;
                let Some((m, j, i)) = self.places.call(id) else {
                    return skips.skip(line, format!("{} for a call never started", ty.name()));
                };
                let ends = ty == Type::TOOL_CALL_END;
                let delta = events::optional(&event, "delta")?.cloned().unwrap_or_default();
                let before = match out.message(m).2.get(j) {
                    Some(Chunk::ToolBatch { calls }) => &calls[i],
                    _ => return Ok(()),
                };
                // A call still streaming its arguments grows in place: what the steps
                // below make of it, without copying its text on every delta.
                let known = self.streaming.get(id).copied();
                if !ends && events::metadata(&event).is_none() && messages::streams_args(before, known) {
                    let grown = messages::args_len(before) + delta.as_bytes().len();
                    if !delta.is_empty() {
                        out.grow_call_args(m, j, i, Some(messages::META), |call| {
                            messages::append_args(call, &delta)
                        });
                    }
                    self.streaming.insert(id.clone(), grown);
                    return Ok(());
                }
                let before = before.clone();
                let mut call = before.clone();
                let mut text = messages::call_args_text(&call);
                text.push_wtf8(delta.as_bytes());
                messages::set_args(&mut call, text, ends);
                merge_metadata(&mut call, &event);
                if call != before {
                    if let Some(slot) = out.call_at_mut(m, j, i) {
                        *slot = call;
                    }
                }
                Ok(())
            }
            Type::TOOL_CALL_RESULT => self.result(&event, line, out, skips),
            Type::REASONING_ENCRYPTED_VALUE => self.encrypted(&event, line, out, skips),
            Type::ACTIVITY_SNAPSHOT => self.activity(&event, line, out, skips),
            Type::MESSAGES_SNAPSHOT => {
                let read = snapshot::read(&event, out, &self.places)?;
                self.count_read(&read.left, read.replaced, line, skips)?;
                out.replace_messages(read.messages);
                self.places = Places::of(out);
                for orphan in read.orphans {
                    self.land(orphan, line, out, skips)?;
                }
                Ok(())
            }
            Type::RUN_STARTED => self.input(&event, line, out, skips),
            Type::RUN_ERROR => self.run_error(&event, line, out),
            Type::STATE_SNAPSHOT
            | Type::STATE_DELTA
            | Type::ACTIVITY_DELTA
            | Type::RAW
            | Type::CUSTOM
            | Type::STEP_STARTED
            | Type::STEP_FINISHED => {
                skips.pass(ty.name());
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A reasoning message's seal from the marker of an event of it.
    fn seal_from(&self, event: &Json, m: usize, k: usize, out: &mut Folded) {
        let (marker, _) = messages::split_marker(events::metadata(event));
        if let Some(seal) = marker.and_then(|m| m.get("seal").cloned()) {
            self.places.seal(out, m, k, seal);
        }
    }

    fn start(&mut self, ty: Type, event: &Json, out: &mut Folded) -> FormatResult<()> {
        let id = events::string(event, "messageId")?;
        if let Some(place) = self.places.get(id).cloned() {
            if let (Type::REASONING_MESSAGE_START, Place::Piece { message, piece }) = (ty, place) {
                if self.places.piece(message, piece).kind == Kind::Reasoning {
                    self.seal_from(event, message, piece, out);
                }
            }
            return Ok(());
        }
        let (marker, _) = messages::split_marker(events::metadata(event));
        let (role, chunk) = match ty {
            Type::REASONING_MESSAGE_START => (
                MessageRole::Assistant,
                Chunk::Thinking {
                    text: Wtf8::new(),
                    metadata: marker.as_ref().and_then(|m| m.get("seal")).cloned(),
                },
            ),
            _ => {
                let role = match events::get(event, "role")
                    .and_then(Json::as_str)
                    .map(Wtf8::as_bytes)
                {
                    Some(b"user") => MessageRole::User,
                    Some(b"system" | b"developer") => MessageRole::System,
                    _ => MessageRole::Assistant,
                };
                (role, Chunk::Text { text: Wtf8::new() })
            }
        };
        self.places.add_piece(
            out,
            ReadPiece {
                id: id.clone(),
                role,
                chunks: vec![chunk],
                marker,
            },
        );
        Ok(())
    }

    fn content(
        &mut self,
        ty: Type,
        event: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let id = events::string(event, "messageId")?;
        let delta = events::string(event, "delta")?.clone();
        match self.places.get(id).cloned() {
            None => skips.skip(line, never_started(ty)),
            Some(Place::Result { call }) => {
                // A tool message's content grows, a string; parts are replaced.
                let Some((m, j, i)) = self.places.call(&call) else {
                    return Ok(());
                };
                if let Some(call) = out.call_at_mut(m, j, i) {
                    if let Some((result, is_error)) = call.result.take() {
                        let mut text = match &result {
                            Json::String(text) => text.clone(),
                            parts if messages::is_content_parts(parts) => Wtf8::new(),
                            other => Wtf8::from_wtf8_unchecked(other.to_json()),
                        };
                        text.push_wtf8(delta.as_bytes());
                        call.result = Some((Json::String(text), is_error));
                    }
                }
                Ok(())
            }
            Some(Place::Piece { message: m, piece: k }) => {
                let piece = self.places.piece(m, k);
                let single_text =
                    piece.len == 1 && matches!(out.message(m).2.get(piece.start), Some(Chunk::Text { .. }));
                match piece.kind {
                    Kind::Activity => {
                        return skips.skip(line, format!("{} for an activity message", ty.name()))
                    }
                    Kind::Assistant { text: true, .. } | Kind::System => {
                        out.extend_text_at(m, piece.start, delta);
                    }
                    Kind::Reasoning => {
                        out.extend_text_at(m, piece.start, delta);
                        self.seal_from(event, m, k, out);
                    }
                    Kind::User if single_text => out.extend_text_at(m, piece.start, delta),
                    // Content for a message of calls only comes before them; a user
                    // message's parts are replaced by the text.
                    Kind::Assistant { text: false, .. } => {
                        out.splice_chunks(m, piece.start..piece.start, vec![Chunk::Text { text: delta }]);
                        self.places.recut(out, m);
                    }
                    Kind::User => {
                        out.splice_chunks(
                            m,
                            piece.start..piece.start + piece.len,
                            vec![Chunk::Text { text: delta }],
                        );
                        self.places.recut(out, m);
                    }
                }
                Ok(())
            }
        }
    }

    fn tool_start(&mut self, event: &Json, out: &mut Folded) -> FormatResult<()> {
        let id = events::string(event, "toolCallId")?.clone();
        let name = events::string(event, "toolCallName")?.clone();
        let parent = events::optional(event, "parentMessageId")?.cloned();
        if let Some((m, j, i)) = self.places.call(&id) {
            // Started again: renamed, its metadata merged.
            let Some(Chunk::ToolBatch { calls }) = out.message(m).2.get(j) else {
                return Ok(());
            };
            let mut call = calls[i].clone();
            call.name = name;
            merge_metadata(&mut call, event);
            if call != calls[i] {
                if let Some(slot) = out.call_at_mut(m, j, i) {
                    *slot = call;
                }
            }
            return Ok(());
        }
        let mut call = ToolCallEntry::new(id.clone(), name, Json::Undefined);
        merge_metadata(&mut call, event);
        let owner = parent.as_ref().and_then(|p| match self.places.get(p) {
            Some(Place::Piece { message, piece }) => Some(Some((*message, *piece))),
            Some(Place::Result { .. }) => Some(None),
            None => None,
        });
        match owner {
            Some(Some((m, k))) if matches!(self.places.piece(m, k).kind, Kind::Assistant { .. }) => {
                let piece = self.places.piece(m, k);
                match piece.calls() {
                    Some(j) => {
                        let i = match out.message(m).2.get(j) {
                            Some(Chunk::ToolBatch { calls }) => calls.len(),
                            _ => return Ok(()),
                        };
                        out.push_call_at(m, j, call);
                        self.places.add_call(&id, (m, j, i));
                    }
                    None => {
                        let at = piece.start + piece.len;
                        let batch = Chunk::ToolBatch { calls: vec![call] };
                        match at == out.message(m).2.len() {
                            true => out.push_chunk_at(m, batch),
                            false => out.splice_chunks(m, at..at, vec![batch]),
                        }
                        self.places.recut(out, m);
                    }
                }
            }
            // The parent is not an assistant message: the client makes one named by the call.
            Some(_) => self.new_calls(out, id.clone(), call, event),
            None => self.new_calls(out, parent.unwrap_or(id), call, event),
        }
        Ok(())
    }

    /// A message of one call, named `id`; the call's marker may make it a piece.
    fn new_calls(&mut self, out: &mut Folded, id: Wtf8, call: ToolCallEntry<Wtf8, Json>, event: &Json) {
        let (marker, _) = messages::split_marker(events::metadata(event));
        self.places.add_piece(
            out,
            ReadPiece {
                id,
                role: MessageRole::Assistant,
                chunks: vec![Chunk::ToolBatch { calls: vec![call] }],
                marker,
            },
        );
    }

    fn result(&mut self, event: &Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let call = events::string(event, "toolCallId")?.clone();
        let id = match events::optional(event, "messageId")? {
            Some(id) => id.clone(),
            None => messages::default_result_id(&call),
        };
        let (marker, metadata) = messages::split_marker(events::metadata(event));
        let result = ReadResult {
            id,
            call,
            content: result_content(event)?.clone(),
            error: None,
            encrypted: None,
            metadata,
            marker,
        };
        self.land(result, line, out, skips)
    }

    /// A result on its call (the first message holding it), or counted.
    fn land(
        &mut self,
        result: ReadResult,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some((m, j, i)) = self.places.call(&result.call) else {
            return skips.skip(line, ORPHAN);
        };
        let has =
            matches!(out.message(m).2.get(j), Some(Chunk::ToolBatch { calls }) if calls[i].result.is_some());
        if has {
            skips.skip(line, REPLACED)?;
        }
        self.places.land(out, (m, j, i), &result);
        Ok(())
    }

    fn encrypted(
        &mut self,
        event: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let entity = events::string(event, "entityId")?;
        let value = events::string(event, "encryptedValue")?.clone();
        let on_call = |out: &mut Folded, (m, j, i), result: bool| {
            if let Some(call) = out.call_at_mut(m, j, i) {
                match result {
                    false => {
                        messages::set_call_meta(call, "encryptedValue", Some(Json::String(value.clone())))
                    }
                    true => {
                        let mut meta = match messages::call_meta(call).and_then(|m| m.get("result")) {
                            Some(Json::Object(fields)) => fields.clone(),
                            _ => Vec::new(),
                        };
                        meta.retain(|(k, _)| *k != "encryptedValue" && *k != "metadata");
                        meta.push((Wtf8::from("encryptedValue"), Json::String(value.clone())));
                        // `metadata` stays last, as a result written back has it.
                        if let Some(Json::Object(old)) =
                            messages::call_meta(call).and_then(|m| m.get("result"))
                        {
                            meta.extend(old.iter().filter(|(k, _)| *k == "metadata").cloned());
                        }
                        messages::set_call_meta(call, "result", Some(Json::Object(meta)));
                    }
                }
            }
        };
        if *events::string(event, "subtype")? == "tool-call" {
            match self.places.call(entity) {
                Some(place) => on_call(out, place, false),
                None => return skips.skip(line, "REASONING_ENCRYPTED_VALUE for a call never started"),
            }
            return Ok(());
        }
        match self.places.get(entity).cloned() {
            None => skips.skip(line, "REASONING_ENCRYPTED_VALUE for a message never started"),
            Some(Place::Result { call }) => {
                if let Some(place) = self.places.call(&call) {
                    on_call(out, place, true);
                }
                Ok(())
            }
            Some(Place::Piece { message, piece }) => match self.places.piece(message, piece).kind {
                Kind::Reasoning => {
                    self.places.seal(out, message, piece, messages::seal_of(&value));
                    Ok(())
                }
                Kind::Activity => skips.skip(line, "REASONING_ENCRYPTED_VALUE for an activity message"),
                _ => skips.skip(
                    line,
                    "REASONING_ENCRYPTED_VALUE for a message that is not reasoning (the chunks hold none)",
                ),
            },
        }
    }

    fn activity(
        &mut self,
        event: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let (Some(Json::String(id)), Some(Json::String(ty)), Some(content)) = (
            events::get(event, "messageId"),
            events::get(event, "activityType"),
            events::get(event, "content"),
        ) else {
            skips.pass("ACTIVITY_SNAPSHOT");
            return Ok(());
        };
        let Some(chunk) = messages::activity_chunk(ty, content) else {
            if matches!(self.places.get(id), Some(Place::Piece { .. })) {
                return skips.skip(
                    line,
                    "ACTIVITY_SNAPSHOT in place of a message (the message is kept)",
                );
            }
            skips.pass("ACTIVITY_SNAPSHOT");
            return Ok(());
        };
        match self.places.get(id).cloned() {
            None => {
                let (marker, _) = messages::split_marker(events::metadata(event));
                self.places.add_piece(
                    out,
                    ReadPiece {
                        id: id.clone(),
                        role: MessageRole::Assistant,
                        chunks: vec![chunk],
                        marker,
                    },
                );
                Ok(())
            }
            Some(Place::Piece { message, piece })
                if self.places.piece(message, piece).kind == Kind::Activity =>
            {
                if !matches!(events::get(event, "replace"), Some(Json::Bool(false))) {
                    let start = self.places.piece(message, piece).start;
                    out.splice_chunks(message, start..start + 1, vec![chunk]);
                    self.places.recut(out, message);
                }
                Ok(())
            }
            Some(_) => skips.skip(
                line,
                "ACTIVITY_SNAPSHOT in place of a message (the message is kept)",
            ),
        }
    }

    /// What the chunks do not hold of messages read, and results that replaced others.
    fn count_read(
        &self,
        left: &[&'static str],
        replaced: usize,
        line: usize,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        for what in left {
            skips.pass(what);
        }
        for _ in 0..replaced {
            skips.skip(line, REPLACED)?;
        }
        Ok(())
    }

    /// A run's input: the messages the conversation does not have yet.
    fn input(&mut self, event: &Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let Some(list) = events::get(event, "input").and_then(|input| events::get(input, "messages")) else {
            return Ok(());
        };
        let Json::Array(list) = list else {
            return Err(wrong("input.messages".into(), "an array", Some(list)));
        };
        let mut seen = std::collections::HashSet::new();
        let fresh: Vec<Json> = list
            .iter()
            .filter(|m| match events::get(m, "id").and_then(Json::as_str) {
                Some(id) => self.places.get(id).is_none() && seen.insert(id.clone()),
                None => true,
            })
            .cloned()
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let read = messages::read_all(&fresh, "input.messages")?;
        self.count_read(&read.left, read.replaced, line, skips)?;
        for message in read.messages {
            self.places.add_message(out, message);
        }
        for (_, result) in read.unplaced {
            self.land(result, line, out, skips)?;
        }
        Ok(())
    }

    fn run_error(&mut self, event: &Json, line: usize, out: &mut Folded) -> FormatResult<()> {
        let message = run_error_message(event)?.clone();
        // What agent-chunks writes names the activity that already shows the error.
        let (marker, _) = messages::split_marker(events::metadata(event));
        if let Some(shown) = marker
            .as_ref()
            .and_then(|m| m.get("activity"))
            .and_then(Json::as_str)
        {
            if let Some(Place::Piece { message: m, piece: k }) = self.places.get(shown) {
                if self.places.piece(*m, *k).kind == Kind::Activity {
                    return Ok(());
                }
            }
        }
        let id = match &self.order.run {
            Some(run) => {
                let mut id = run.clone();
                id.push_wtf8(b".error");
                id
            }
            None => Wtf8::from(format!("run-error-{line}")),
        };
        let chunk = Chunk::Error {
            message,
            status_code: None,
        };
        match self.places.get(&id).cloned() {
            Some(Place::Piece { message: m, .. }) => {
                out.push_chunk_at(m, chunk);
                self.places.recut(out, m);
            }
            _ => {
                self.places.add_message(
                    out,
                    ChatMessage {
                        id: id.to_string_lossy().into_owned(),
                        role: MessageRole::Assistant,
                        chunks: vec![chunk],
                    },
                );
            }
        }
        Ok(())
    }
}

impl LiveFold for AgUiFold {
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let Some(tag) = value.get("type").and_then(Json::as_str) else {
            return skips.skip(line, "an event without a \"type\"");
        };
        let Some(ty) = Type::from_tag(tag.as_bytes()) else {
            let kind = format!(
                "an event of a type AG-UI 1.0 does not list (\"{}\")",
                tag.to_string_lossy()
            );
            return skips.skip(line, kind);
        };
        check(ty, &value)
            .map_err(|e| FormatError::new(e.path, format!("{} (in {})", e.problem, ty.name())))?;
        let (ty, value, thinking) = self.translate(ty, value, line);
        let mut lanes = self.lanes.clone();
        let expanded = lanes.expand(ty, value)?;
        self.lanes = lanes;
        self.thinking = thinking;
        for (ty, event) in expanded {
            if ty != Type::TOOL_CALL_ARGS && !self.streaming.is_empty() {
                self.streaming.clear();
            }
            if let Some(wrong) = self.order.check(ty, &event) {
                skips.skip(line, wrong)?;
            }
            self.apply(ty, event, line, out, skips)?;
        }
        Ok(())
    }

    fn resume(&mut self, messages: &Folded) {
        self.places = Places::of(messages);
        self.streaming.clear();
        self.order.unknown = !messages.is_empty();
    }

    fn save(&self) -> Json {
        Json::object([
            ("lanes", self.lanes.save()),
            ("order", self.order.save()),
            ("thinkingSpan", resume::optional(self.thinking.span.as_ref())),
            (
                "thinkingMessage",
                resume::optional(self.thinking.message.as_ref()),
            ),
        ])
    }

    fn restore(&mut self, state: &Json, messages: &Folded) -> Result<(), String> {
        resume::object(state)?;
        *self = AgUiFold {
            places: Places::of(messages),
            lanes: Lanes::restore(state.get("lanes"))?,
            order: Order::restore(state.get("order"))?,
            thinking: Thinking {
                span: resume::optional_text(state, "thinkingSpan")?,
                message: resume::optional_text(state, "thinkingMessage")?,
            },
            streaming: Default::default(),
        };
        Ok(())
    }
}
