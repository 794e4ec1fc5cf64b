//! Pi / OpenClaw: session history as JSONL, and the gateway's stream events.
//!
//! History lines are Pi messages, either bare (`{"role":"user",…}`) or wrapped in the
//! entries of a versioned session file (`{"type":"session","version":3,…}` first, then
//! `{"type":"message","id","parentId","message":{…}}`). A user message becomes a `user`
//! [`ChatMessage`](crate::ChatMessage); the assistant messages and tool results up to the
//! next user message become one `assistant` message. Its chunks are built by folding the
//! [`AgentEvent`](crate::AgentEvent)s each block stands for through [`append_event`], the
//! same rules a live stream goes through, so history and stream agree by construction.
//!
//! | history | event |
//! | --- | --- |
//! | `text` block (user or assistant) | `text-delta` |
//! | `thinking` block | `reasoning-delta`, then `reasoning-end` with `{ [provider]: { signature } }` when it has a `thinkingSignature` |
//! | `toolCall` block | `tool-call` |
//! | `toolResult` message | `tool-result`: joined text when every content block is text, else the content as given; `isError` as given, `false` when absent |
//!
//! The gateway's events map the same way: `delta` → `text-delta`, `thinking-delta` →
//! `reasoning-delta`, `thinking-end` → `reasoning-end`, `tool-start` → `tool-call`,
//! `tool-end` → `tool-result`, `final` and unknown types → nothing.

use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole};
use crate::owned::IndexedChunks;
use crate::reducer::append_event;

use super::check::{
    index, join, object, optional_string, split_lines, string, wrong, FormatError, FormatResult,
};
use super::model_json::{FormatEvent, FormatMessage};
use super::value::{self, Json, ParseErrorKind};
use super::wtf8::Wtf8;

/// The provider named in signatures when an assistant message names none.
pub const UNKNOWN_PROVIDER: &str = "unknown";

/// Reads a session file's bytes (UTF-8, or WTF-8 from a JavaScript string). Blank lines
/// are skipped; a line cut short at the end of the file is reported as such.
pub fn read_session(text: &[u8]) -> FormatResult<Vec<FormatMessage>> {
    let mut messages = Vec::new();
    read_session_with(text, |message| {
        messages.push(message);
        true
    })?;
    Ok(messages)
}

/// [`read_session`], handing each message to `emit` as soon as it is complete (a turn
/// when the next user message begins). `emit` returns `false` to stop reading.
pub fn read_session_with(text: &[u8], mut emit: impl FnMut(FormatMessage) -> bool) -> FormatResult<()> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let lines = split_lines(text);
    let last = lines.iter().rposition(|line| !is_blank(line));
    let mut reader = SessionReader::default();
    for (i, line) in lines.iter().enumerate() {
        reader.read_line(line, i + 1, || Some(i) == last)?;
        if !reader.hand_on(&mut emit) {
            return Ok(());
        }
    }
    reader.finish_with(emit);
    Ok(())
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Parses a session line, building only what the reader reads.
pub fn parse_line(line: &[u8]) -> Result<Json, value::ParseError> {
    value::parse_keeping(line, read_member)
}

/// [`parse_line`] of a line already known to be UTF-8.
pub fn parse_str_line(line: &str) -> Result<Json, value::ParseError> {
    value::parse_keeping_str(line, read_member)
}

/// The error for a line that is not JSON; `is_last`: nothing but blank lines follows.
pub fn line_error(e: value::ParseError, number: usize, is_last: bool) -> FormatError {
    let problem = if e.kind == ParseErrorKind::Truncated && is_last {
        format!(
            "truncated JSON: the file ends inside this line (at column {})",
            e.offset + 1
        )
    } else {
        e.to_string()
    };
    FormatError::new("", problem).at_line(number)
}

/// The members of an entry and of its message that the reader reads; the rest (usage,
/// details, timestamps, model names …) is checked as JSON but not built.
fn read_member(depth: usize, key: &[u8]) -> bool {
    depth > 1
        || matches!(
            key,
            b"type" | b"id" | b"message" | b"role" | b"content" | b"provider" | b"toolCallId" | b"isError"
        )
}

/// Reads lines that are already parsed; entry `i` is reported as line `i + 1`.
pub fn read_lines(lines: Vec<Json>) -> FormatResult<Vec<FormatMessage>> {
    let mut reader = SessionReader::default();
    for (i, line) in lines.into_iter().enumerate() {
        reader.read_parsed(line, i + 1)?;
    }
    Ok(reader.finish())
}

/// Reads a session line by line: finished messages are handed on with [`hand_on`] after
/// each line, the rest with [`finish_with`] at the end.
///
/// [`hand_on`]: SessionReader::hand_on
/// [`finish_with`]: SessionReader::finish_with
#[derive(Default)]
pub struct SessionReader {
    messages: Vec<FormatMessage>,
    /// The id and chunks of the assistant message that tool results and later assistant
    /// messages join (indexed: a turn can hold any number of calls and results).
    turn: Option<(String, IndexedChunks<Wtf8, Json>)>,
}

fn fold(chunks: &mut IndexedChunks<Wtf8, Json>, event: FormatEvent) {
    // The owned store cannot fail.
    let Ok(()) = append_event(chunks, event);
}

impl SessionReader {
    /// Parses and reads line `number` (blank lines are skipped). `is_last` tells whether
    /// nothing but blank lines follows, so that a line cut short is reported as such.
    fn read_line(&mut self, line: &[u8], number: usize, is_last: impl FnOnce() -> bool) -> FormatResult<()> {
        if is_blank(line) {
            return Ok(());
        }
        let parsed = parse_line(line).map_err(|e| line_error(e, number, is_last()))?;
        self.read_parsed(parsed, number)
    }

    /// Reads line `number`, already parsed (its strings are moved into the messages).
    pub fn read_parsed(&mut self, line: Json, number: usize) -> FormatResult<()> {
        self.line(line, number).map_err(|e| e.at_line(number))
    }

    /// Hands the messages finished so far to `emit`; `false` when it asked to stop.
    pub fn hand_on(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        self.messages.drain(..).all(emit)
    }

    /// Hands on the rest, the open turn included.
    pub fn finish_with(self, emit: impl FnMut(FormatMessage) -> bool) {
        self.finish().into_iter().all(emit);
    }

    fn line(&mut self, mut line: Json, number: usize) -> FormatResult<()> {
        object(&line, "")?;
        match optional_string(&line, "type", "")?.map(Wtf8::as_bytes) {
            Some(b"message") => {
                let id = optional_string(&line, "id", "")?.cloned();
                let message = line.take("message").unwrap_or(Json::Null);
                object(&message, "message")?;
                self.message(message, "message", id, number)
            }
            // The header and entries that are not messages (model changes, labels, …).
            Some(_) => Ok(()),
            None if line.get("role").is_some() => self.message(line, "", None, number),
            None => Ok(()),
        }
    }

    fn message(
        &mut self,
        mut message: Json,
        base: &str,
        id: Option<Wtf8>,
        number: usize,
    ) -> FormatResult<()> {
        let id = || {
            id.map_or_else(
                || format!("line-{number}"),
                |id| id.to_string_lossy().into_owned(),
            )
        };
        match string(&message, "role", base)?.as_bytes() {
            b"user" => {
                self.close_turn();
                let mut chunks = IndexedChunks::new();
                for delta in user_text(&mut message, base)? {
                    fold(&mut chunks, AgentEvent::TextDelta { delta });
                }
                self.messages.push(ChatMessage {
                    id: id(),
                    role: MessageRole::User,
                    chunks: chunks.into_chunks(),
                });
            }
            b"assistant" => {
                let events = assistant_events(&mut message, base)?;
                let turn = self.turn(id);
                for event in events {
                    fold(turn, event);
                }
            }
            b"toolResult" => {
                string(&message, "toolCallId", base)?;
                content(&message, base)?;
                let event = AgentEvent::ToolResult {
                    tool_call_id: take_string(&mut message, "toolCallId"),
                    result: tool_result_value(message.take("content").unwrap_or(Json::Null)),
                    is_error: message.take("isError").unwrap_or(Json::Bool(false)),
                };
                fold(self.turn(id), event);
            }
            // Roles that carry no chat content for this model (bash executions, custom …).
            _ => {}
        }
        Ok(())
    }

    fn turn(&mut self, id: impl FnOnce() -> String) -> &mut IndexedChunks<Wtf8, Json> {
        &mut self.turn.get_or_insert_with(|| (id(), IndexedChunks::new())).1
    }

    fn close_turn(&mut self) {
        self.messages
            .extend(self.turn.take().map(|(id, chunks)| ChatMessage {
                id,
                role: MessageRole::Assistant,
                chunks: chunks.into_chunks(),
            }));
    }

    /// The messages not yet taken, the open turn included.
    pub fn finish(mut self) -> Vec<FormatMessage> {
        self.close_turn();
        self.messages
    }
}

fn content<'a>(message: &'a Json, base: &str) -> FormatResult<&'a Json> {
    match message.get("content") {
        Some(value @ (Json::Array(_) | Json::String(_))) => Ok(value),
        other => Err(wrong(join(base, "content"), "an array or a string", other)),
    }
}

/// A content block's `type`; the block must be an object.
fn block_type(block: &Json) -> FormatResult<&[u8]> {
    object(block, "")?;
    Ok(string(block, "type", "")?.as_bytes())
}

/// Moves the string at `object.key` out; the caller has checked that it is one.
fn take_string(object: &mut Json, key: &str) -> Wtf8 {
    match object.take(key) {
        Some(Json::String(text)) => text,
        _ => Wtf8::new(),
    }
}

/// The blocks of `content`, each with a function naming its path for errors (built only
/// when one is reported).
fn blocks<'a>(message: &'a mut Json, base: &str) -> FormatResult<(&'a mut [Json], String)> {
    let content_path = join(base, "content");
    match message.get_mut("content") {
        Some(Json::Array(blocks)) => Ok((blocks, content_path)),
        other => Err(wrong(content_path, "an array", other.map(|v| &*v))),
    }
}

fn user_text(message: &mut Json, base: &str) -> FormatResult<Vec<Wtf8>> {
    if let Json::String(_) = content(message, base)? {
        return Ok(vec![take_string(message, "content")]);
    }
    let (blocks, content_path) = blocks(message, base)?;
    let mut texts = Vec::new();
    for (i, block) in blocks.iter_mut().enumerate() {
        let under = |e: FormatError| e.under(&index(&content_path, i));
        if block_type(block).map_err(under)? == b"text" {
            string(block, "text", "").map_err(under)?;
            texts.push(take_string(block, "text"));
        }
    }
    Ok(texts)
}

/// `{ [provider]: { signature } }`.
pub fn signature_metadata(provider: &Wtf8, signature: &Wtf8) -> Json {
    Json::Object(vec![(
        provider.clone(),
        Json::object([("signature", Json::String(signature.clone()))]),
    )])
}

fn assistant_events(message: &mut Json, base: &str) -> FormatResult<Vec<FormatEvent>> {
    let provider = optional_string(message, "provider", base)?
        .cloned()
        .unwrap_or_else(|| Wtf8::from(UNKNOWN_PROVIDER));
    let (blocks, content_path) = blocks(message, base)?;
    let mut events = Vec::with_capacity(blocks.len() + 1);
    for (i, block) in blocks.iter_mut().enumerate() {
        let under = |e: FormatError| e.under(&index(&content_path, i));
        match block_type(block).map_err(under)? {
            b"text" => {
                string(block, "text", "").map_err(under)?;
                events.push(AgentEvent::TextDelta {
                    delta: take_string(block, "text"),
                });
            }
            b"thinking" => {
                string(block, "thinking", "").map_err(under)?;
                let signature = optional_string(block, "thinkingSignature", "").map_err(under)?;
                let metadata = signature.map(|signature| signature_metadata(&provider, signature));
                events.push(AgentEvent::ReasoningDelta {
                    delta: take_string(block, "thinking"),
                });
                if let Some(metadata) = metadata {
                    events.push(AgentEvent::ReasoningEnd {
                        metadata: Some(metadata),
                    });
                }
            }
            b"toolCall" => {
                string(block, "id", "").map_err(under)?;
                string(block, "name", "").map_err(under)?;
                events.push(AgentEvent::ToolCall {
                    id: take_string(block, "id"),
                    name: take_string(block, "name"),
                    arguments: block.take("arguments").unwrap_or(Json::Null),
                });
            }
            // Images and block types of later versions: not chat chunks.
            _ => {}
        }
    }
    Ok(events)
}

/// A tool result's content as a call's `result`: the joined text when every block is a
/// text block, else the content as given.
pub fn tool_result_value(content: Json) -> Json {
    let Json::Array(blocks) = &content else {
        return content;
    };
    let mut joined = Wtf8::new();
    for block in blocks {
        match (block.get("type").and_then(Json::as_str), block.get("text")) {
            (Some(tag), Some(Json::String(text))) if *tag == "text" => joined.push_wtf8(text.as_bytes()),
            _ => return content,
        }
    }
    Json::String(joined)
}

/// One gateway event as agent events.
pub fn gateway_events(event: &Json) -> FormatResult<Vec<FormatEvent>> {
    object(event, "")?;
    Ok(match string(event, "type", "")?.as_bytes() {
        b"delta" => vec![AgentEvent::TextDelta {
            delta: string(event, "text", "")?.clone(),
        }],
        b"thinking-delta" => vec![AgentEvent::ReasoningDelta {
            delta: string(event, "text", "")?.clone(),
        }],
        b"thinking-end" => {
            let provider = optional_string(event, "provider", "")?
                .cloned()
                .unwrap_or_else(|| Wtf8::from(UNKNOWN_PROVIDER));
            match optional_string(event, "signature", "")? {
                Some(signature) => vec![AgentEvent::ReasoningEnd {
                    metadata: Some(signature_metadata(&provider, signature)),
                }],
                None => Vec::new(),
            }
        }
        b"tool-start" => vec![AgentEvent::ToolCall {
            id: string(event, "toolCallId", "")?.clone(),
            name: string(event, "name", "")?.clone(),
            arguments: event.get("args").cloned().unwrap_or(Json::Null),
        }],
        b"tool-end" => vec![AgentEvent::ToolResult {
            tool_call_id: string(event, "toolCallId", "")?.clone(),
            result: tool_result_value(event.get("result").cloned().unwrap_or(Json::Null)),
            is_error: event.get("isError").cloned().unwrap_or(Json::Bool(false)),
        }],
        _ => Vec::new(),
    })
}

/// The session file for `messages`: a version 3 header, then one entry per Pi message,
/// chained by `parentId`. A user message becomes one user entry (its text chunks as text
/// blocks); an assistant message becomes assistant entries split after each tool batch,
/// each followed by the results of that batch. The first entry of a message carries its
/// id, the following ones `<id>:<n>`. Chunks Pi cannot hold (errors, system notices) and
/// `system` messages are left out.
pub fn write_session(messages: &[FormatMessage]) -> Vec<u8> {
    let mut writer = SessionWriter {
        out: Vec::new(),
        parent: None,
    };
    writer.line(&Json::object([
        ("type", Json::string("session")),
        ("version", Json::Number("3".into())),
    ]));
    for message in messages {
        match message.role {
            MessageRole::User => {
                let blocks = message
                    .chunks
                    .iter()
                    .filter_map(|chunk| match chunk {
                        Chunk::Text { text } => Some(text_block(text)),
                        _ => None,
                    })
                    .collect();
                let user = Json::object([("role", Json::string("user")), ("content", Json::Array(blocks))]);
                writer.entry(&message.id, 0, user);
            }
            MessageRole::Assistant => writer.assistant(message),
            MessageRole::System => {}
        }
    }
    writer.out
}

fn text_block(text: &Wtf8) -> Json {
    Json::object([
        ("type", Json::string("text")),
        ("text", Json::String(text.clone())),
    ])
}

/// The `(provider, signature)` of metadata shaped `{ [provider]: { signature } }`.
fn signature_of(metadata: &Json) -> Option<(&Wtf8, &Wtf8)> {
    match metadata {
        Json::Object(fields) => match fields.as_slice() {
            [(provider, Json::Object(inner))] => match inner.as_slice() {
                [(key, Json::String(signature))] if *key == "signature" => Some((provider, signature)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

struct SessionWriter {
    out: Vec<u8>,
    parent: Option<Json>,
}

impl SessionWriter {
    fn line(&mut self, line: &Json) {
        value::write(&mut self.out, line);
        self.out.push(b'\n');
    }

    fn entry(&mut self, id: &str, part: usize, message: Json) {
        let id = Json::string(if part == 0 {
            id.to_string()
        } else {
            format!("{id}:{part}")
        });
        let parent = self.parent.replace(id.clone()).unwrap_or(Json::Null);
        self.line(&Json::object([
            ("type", Json::string("message")),
            ("id", id),
            ("parentId", parent),
            ("message", message),
        ]));
    }

    fn assistant(&mut self, message: &FormatMessage) {
        let mut part = 0;
        let mut blocks: Vec<Json> = Vec::new();
        let mut provider: Option<Wtf8> = None;
        let flush =
            |this: &mut Self, blocks: &mut Vec<Json>, provider: &mut Option<Wtf8>, part: &mut usize| {
                let mut fields = vec![
                    (Wtf8::from("role"), Json::string("assistant")),
                    (Wtf8::from("content"), Json::Array(std::mem::take(blocks))),
                ];
                fields.extend(provider.take().map(|p| (Wtf8::from("provider"), Json::String(p))));
                this.entry(&message.id, *part, Json::Object(fields));
                *part += 1;
            };
        for chunk in &message.chunks {
            match chunk {
                Chunk::Text { text } => blocks.push(text_block(text)),
                Chunk::Thinking { text, metadata } => {
                    let mut block = vec![
                        (Wtf8::from("type"), Json::string("thinking")),
                        (Wtf8::from("thinking"), Json::String(text.clone())),
                    ];
                    if let Some((name, signature)) = metadata.as_ref().and_then(signature_of) {
                        // One provider per Pi message: another one starts the next message.
                        if provider.as_ref().is_some_and(|p| p != name) {
                            flush(self, &mut blocks, &mut provider, &mut part);
                        }
                        if name != UNKNOWN_PROVIDER {
                            provider = Some(name.clone());
                        }
                        block.push((Wtf8::from("thinkingSignature"), Json::String(signature.clone())));
                    }
                    blocks.push(Json::Object(block));
                }
                Chunk::ToolBatch { calls } => {
                    for call in calls {
                        blocks.push(Json::object([
                            ("type", Json::string("toolCall")),
                            ("id", Json::String(call.id.clone())),
                            ("name", Json::String(call.name.clone())),
                            ("arguments", call.arguments.clone()),
                        ]));
                    }
                    flush(self, &mut blocks, &mut provider, &mut part);
                    for call in calls {
                        if let Some((result, is_error)) = &call.result {
                            let result =
                                self.tool_result(call.id.clone(), call.name.clone(), result, is_error);
                            self.entry(&message.id, part, result);
                            part += 1;
                        }
                    }
                }
                Chunk::Error { .. } | Chunk::System { .. } | Chunk::File { .. } => {}
            }
        }
        if !blocks.is_empty() || part == 0 {
            flush(self, &mut blocks, &mut provider, &mut part);
        }
    }

    fn tool_result(&self, id: Wtf8, name: Wtf8, result: &Json, is_error: &Json) -> Json {
        let content = match result {
            Json::String(text) => Json::Array(vec![text_block(text)]),
            Json::Array(_) => result.clone(),
            // Pi content is text or blocks: anything else is kept as its JSON text.
            other => Json::Array(vec![text_block(&Wtf8::from_wtf8_unchecked(other.to_json()))]),
        };
        let is_error = match is_error {
            Json::Null => Json::Bool(false),
            other => other.clone(),
        };
        Json::object([
            ("role", Json::string("toolResult")),
            ("toolCallId", Json::String(id)),
            ("toolName", Json::String(name)),
            ("content", content),
            ("isError", is_error),
        ])
    }
}
