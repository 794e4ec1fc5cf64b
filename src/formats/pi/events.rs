//! Pi's agent events (`pi --mode json`, and the events of `--mode rpc`; a session header
//! may lead), folded into the messages pi's session file holds.
//!
//! `message_start` of an assistant message begins a message, whose `message_update`s
//! carry the content as `assistantMessageEvent`s (`text_delta` → `text-delta`,
//! `thinking_delta` → `reasoning-delta`, `thinking_end` → `reasoning-end` with the
//! block's signature — or, for a block no delta built, its text — `toolcall_end` →
//! `tool-call`); its `message_end` holds the whole message, and the message ends as it
//! holds it, since that is what pi shows (its screen redraws the message from it, its
//! session file stores it): updates lost are filled in, calls keep their results, and an
//! end that contradicts its updates is counted (refused under `strict`). Other messages (user, tool
//! results, bash executions, custom messages) are read whole from their `message_end`,
//! as the session file reads them; `auto_compaction_end` (pi 0.84: `compaction_end`)
//! gives the compaction summary.
//!
//! **Tool executions.** `tool_execution_start` / `_update` of a call no assistant message
//! announced is that call, as pi's screen shows it (a tool component of the name and
//! arguments the event gives, where the event came): in the open assistant message, or
//! in one of its own. `tool_execution_end` gives a call its result (the result's
//! `content`, as the tool result message that follows holds it) and makes the call first
//! when nothing announced or started it. A message announcing a call after its
//! execution (out of order) does not add it again: the call stays where it was made.
//!
//! A `turn_start` ends the open message (a turn is one assistant message and its tools'
//! executions). Lifecycle events (`agent_*`, `agent_settled` included, `turn_end`,
//! `auto_compaction_start` / `compaction_start`, `auto_retry_*`, `summarization_retry_*`,
//! `queue_update`, RPC `response`s and `bash_execution_update`s, extension UI requests and
//! errors) carry nothing a message keeps. Every other value (an unknown type, an unknown
//! `assistantMessageEvent` type, a value that is not an object, a tool result whose call
//! was never seen) is counted in `skipped`, and refused under `strict`.

use std::collections::HashSet;

use crate::model::{AgentEvent, Chunk, MessageRole, SystemChunkKind};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::pi::message_end::{covers, target, DIFFERS};
use crate::formats::pi::session::{
    error_event, provider, read_message, tool_call_event, Stored, UNKNOWN_PROVIDER,
};
use crate::reading::blocks::{signature_metadata, tool_result_value};
use crate::reading::check::{object, string, FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};

fn tag(value: &Json, key: &str) -> Option<Vec<u8>> {
    value
        .get(key)
        .and_then(Json::as_str)
        .map(|t| t.as_bytes().to_vec())
}

/// The `assistantMessageEvent` types that carry nothing beyond what the folded ones do.
const PLAIN_UPDATES: &[&[u8]] = &[
    b"start",
    b"text_start",
    b"text_end",
    b"thinking_start",
    b"toolcall_start",
    b"toolcall_delta",
    b"done",
    b"error",
];

/// Pi's own agent events.
#[derive(Debug, Default)]
pub struct PiEvents {
    /// The provider of the assistant message being streamed, for its signatures.
    provider: Option<Wtf8>,
    /// An update built some of the open assistant message.
    streamed: bool,
    /// The calls the latest assistant message announced: their executions are theirs.
    announced: HashSet<Wtf8>,
    /// Calls an execution made that no message has announced yet.
    executed: HashSet<Wtf8>,
}

impl LiveFold for PiEvents {
    /// The provider of the message being streamed, whether an update built some of it,
    /// the calls it announced, and the calls executions made that no message announced.
    fn save(&self) -> Json {
        use crate::reading::resume::{optional, string_set};
        Json::object([
            ("provider", optional(self.provider.as_ref())),
            ("streamed", Json::Bool(self.streamed)),
            ("announced", string_set(&self.announced)),
            ("executed", string_set(&self.executed)),
        ])
    }

    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        use crate::reading::resume::{flag, object, optional_text, strings};
        object(state)?;
        self.provider = optional_text(state, "provider")?;
        self.streamed = flag(state, "streamed")?;
        self.announced = strings(state, "announced")?;
        self.executed = strings(state, "executed")?;
        Ok(())
    }

    fn push(
        &mut self,
        mut value: Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let Some(kind) = tag(&value, "type") else {
            return skips.skip(line, "a value without a \"type\"");
        };
        match kind.as_slice() {
            b"message_start" => {
                let message = value.get("message").unwrap_or(&Json::Undefined);
                object(message, "message")?;
                if tag(message, "role").as_deref() == Some(b"assistant") {
                    self.provider = Some(provider(message, "message")?);
                    self.begin(out);
                }
            }
            b"message_update" => self.update(&mut value, line, out, skips)?,
            b"message_end" => {
                let mut message = value.take("message").unwrap_or(Json::Undefined);
                object(&message, "message")?;
                if tag(&message, "role").as_deref() == Some(b"assistant") {
                    return self.assistant_end(message, line, out, skips);
                }
                match read_message(&mut message, "message", String::new(), line, skips)? {
                    Stored::Message(mut message) => {
                        // Executions follow their assistant message, with only its
                        // results between: after any other message, an id is a new call.
                        self.announced.clear();
                        self.executed.clear();
                        message.id = String::new();
                        out.end(None);
                        let role = message.role;
                        out.begin(role, None);
                        for chunk in message.chunks {
                            out.push_chunk(chunk);
                        }
                        out.end(None);
                    }
                    Stored::ToolResult {
                        call_id,
                        result,
                        is_error,
                        ..
                    } => {
                        if !out.has_call(&call_id) {
                            return skips.skip(line, "a tool result for a call not seen");
                        }
                        out.apply_result(AgentEvent::ToolResult {
                            tool_call_id: call_id,
                            result,
                            is_error,
                        })
                    }
                    Stored::Hidden => {}
                }
            }
            b"tool_execution_start" | b"tool_execution_update" | b"tool_execution_end" => {
                self.execution(&value, kind.as_slice(), line, out, skips)?
            }
            // `compaction_end` is pi 0.84's name, for manual and automatic compaction alike.
            b"auto_compaction_end" | b"compaction_end" => {
                let summary = value
                    .get("result")
                    .and_then(|r| r.get("summary"))
                    .and_then(Json::as_str);
                if let Some(summary) = summary {
                    let text = summary.clone();
                    out.end(None);
                    out.begin(MessageRole::System, None);
                    out.push_chunk(Chunk::System {
                        kind: SystemChunkKind::Compaction,
                        text,
                    });
                    out.end(None);
                }
            }
            // A turn is one assistant message and its tools' executions: one made by
            // executions alone ends here.
            b"turn_start" => out.end(None),
            b"session"
            | b"agent_start"
            | b"agent_end"
            | b"turn_end"
            | b"auto_compaction_start"
            | b"compaction_start"
            | b"auto_retry_start"
            | b"auto_retry_end"
            | b"agent_settled"
            | b"queue_update"
            | b"summarization_retry_scheduled"
            | b"summarization_retry_attempt_start"
            | b"summarization_retry_finished"
            // Output chunks of a bash command the RPC client ran: the command's own
            // message (`bashExecution`) comes whole.
            | b"bash_execution_update"
            | b"response"
            | b"extension_ui_request"
            | b"extension_error" => {}
            other => {
                let other = Wtf8::from_wtf8_unchecked(other.to_vec());
                skips.skip(line, format_args!("unknown event type \"{other}\""))?;
            }
        }
        Ok(())
    }

    /// The calls of the last assistant message were announced; an open one was streamed.
    fn resume(&mut self, messages: &Folded) {
        let last = (0..messages.len())
            .rev()
            .find(|&i| messages.message(i).1 == MessageRole::Assistant);
        let Some(last) = last else { return };
        let (_, _, chunks) = messages.message(last);
        for chunk in chunks {
            if let Chunk::ToolBatch { calls } = chunk {
                self.announced.extend(calls.iter().map(|call| call.id.clone()));
            }
        }
        self.streamed = last + 1 == messages.len() && !chunks.is_empty();
    }
}

impl PiEvents {
    /// An assistant message begins: the calls it announces are new.
    fn begin(&mut self, out: &mut Folded) {
        out.begin(MessageRole::Assistant, None);
        self.announced.clear();
        self.streamed = false;
    }

    fn known(&self, id: &Wtf8) -> bool {
        self.announced.contains(id) || self.executed.contains(id)
    }

    fn update(
        &mut self,
        value: &mut Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some(event) = value.get_mut("assistantMessageEvent") else {
            return skips.skip(line, "a message_update without an \"assistantMessageEvent\"");
        };
        object(event, "assistantMessageEvent")?;
        let base = "assistantMessageEvent";
        let kind = tag(event, "type");
        let mut folded = Vec::with_capacity(2);
        match kind.as_deref() {
            Some(b"text_delta") => folded.push(AgentEvent::TextDelta {
                delta: string(event, "delta", base)?.clone(),
            }),
            Some(b"thinking_delta") => folded.push(AgentEvent::ReasoningDelta {
                delta: string(event, "delta", base)?.clone(),
            }),
            Some(b"thinking_end") => {
                let index = event.get("contentIndex").and_then(Json::as_f64).unwrap_or(-1.0);
                let block = match event.get("partial").and_then(|p| p.get("content")) {
                    Some(Json::Array(blocks)) if index >= 0.0 => blocks.get(index as usize),
                    _ => None,
                };
                // A block no delta built (a redacted thought, whose text comes with its
                // start; an empty one that carries only its signature) is its content.
                let streaming = out.open_role() == Some(MessageRole::Assistant)
                    && matches!(
                        out.message(out.len() - 1).2.last(),
                        Some(Chunk::Thinking { metadata: None, .. })
                    );
                let content = event
                    .get("content")
                    .or_else(|| block.and_then(|b| b.get("thinking")))
                    .and_then(Json::as_str);
                if let (false, Some(content)) = (streaming, content) {
                    folded.push(AgentEvent::ReasoningDelta {
                        delta: content.clone(),
                    });
                }
                let signature = block
                    .and_then(|b| b.get("thinkingSignature"))
                    .and_then(Json::as_str);
                let provider = self
                    .provider
                    .clone()
                    .unwrap_or_else(|| Wtf8::from(UNKNOWN_PROVIDER));
                folded.extend(signature.map(|signature| AgentEvent::ReasoningEnd {
                    metadata: Some(signature_metadata(&provider, signature)),
                }));
            }
            Some(b"toolcall_end") => {
                let mut call = event.take("toolCall").unwrap_or(Json::Undefined);
                object(&call, "assistantMessageEvent.toolCall")?;
                let call = tool_call_event(&mut call, skips.strict)
                    .map_err(|e| e.under("assistantMessageEvent.toolCall"))?;
                match &call {
                    // Executed before it was announced: the call is where the execution made it.
                    AgentEvent::ToolCall { id, .. } if self.executed.contains(id) => {
                        self.announced.insert(id.clone());
                        self.streamed = true;
                    }
                    _ => folded.push(call),
                }
            }
            Some(other) if PLAIN_UPDATES.contains(&other) => {}
            Some(other) => {
                let other = Wtf8::from_wtf8_unchecked(other.to_vec());
                return skips.skip(
                    line,
                    format_args!("unknown assistantMessageEvent type \"{other}\""),
                );
            }
            None => return skips.skip(line, "an assistantMessageEvent without a \"type\""),
        };
        for event in folded {
            if out.open_role() != Some(MessageRole::Assistant) {
                self.begin(out);
            }
            if let AgentEvent::ToolCall { id, .. } = &event {
                self.announced.insert(id.clone());
            }
            self.streamed = true;
            out.apply(event);
        }
        Ok(())
    }

    /// An assistant message's end: the message as it holds it, which is what pi shows (its
    /// screen redraws the message from it, and its session file stores it). Everything
    /// is read before anything changes: a refused frame changes nothing.
    fn assistant_end(
        &mut self,
        mut message: Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let open = out.open_role() == Some(MessageRole::Assistant);
        if open && self.streamed {
            return self.streamed_end(message, line, out, skips);
        }
        let mut chunks = Vec::new();
        if let Stored::Message(whole) = read_message(&mut message, "message", String::new(), line, skips)? {
            chunks = whole.chunks;
        }
        if !open {
            self.begin(out);
        }
        for chunk in chunks {
            match chunk {
                Chunk::ToolBatch { mut calls } => {
                    calls.retain(|call| !self.executed.contains(&call.id));
                    self.announced.extend(calls.iter().map(|call| call.id.clone()));
                    if !calls.is_empty() {
                        out.push_chunk(Chunk::ToolBatch { calls });
                    }
                }
                chunk => out.push_chunk(chunk),
            }
        }
        self.ended(out);
        Ok(())
    }

    /// The end of a message updates built: it becomes the message its end holds (updates
    /// lost are filled in), its calls keeping the results executions gave them. What the
    /// updates built and the end does not hold (a different text) is counted, and refused
    /// under `strict`. A content that is not blocks keeps what the updates built.
    fn streamed_end(
        &mut self,
        mut message: Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        if !matches!(message.get("content"), Some(Json::Array(_))) {
            let error = error_event(&message, "message")?;
            skips.skip(
                line,
                "a message_end whose content is not blocks (what its updates built is kept)",
            )?;
            if let Some(error) = error {
                out.apply(error);
            }
            self.ended(out);
            return Ok(());
        }
        let Stored::Message(whole) = read_message(&mut message, "message", String::new(), line, skips)?
        else {
            return Ok(());
        };
        let streamed = out.message(out.len() - 1).2;
        let target = target(whole.chunks, streamed, &self.executed);
        if target.as_slice() != streamed && !covers(&target, streamed) {
            if skips.strict {
                return Err(FormatError::new(
                    "message.content",
                    "differs from what the message's updates built (strict: a message_end that contradicts its updates is refused)",
                )
                .at_line(line));
            }
            skips.skip(line, DIFFERS)?;
        }
        for chunk in &target {
            if let Chunk::ToolBatch { calls } = chunk {
                self.announced.extend(calls.iter().map(|call| call.id.clone()));
            }
        }
        out.replace_open(target);
        self.ended(out);
        Ok(())
    }

    /// The message is done: what it announced stays known, nothing else.
    fn ended(&mut self, out: &mut Folded) {
        out.end(None);
        self.provider = None;
        self.streamed = false;
        self.executed.clear();
    }

    /// A `tool_execution_*` event: the call when nothing announced it, and its result.
    fn execution(
        &mut self,
        value: &Json,
        kind: &[u8],
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some(id) = value.get("toolCallId").and_then(Json::as_str).cloned() else {
            let kind = Wtf8::from_wtf8_unchecked(kind.to_vec());
            return skips.skip(line, format_args!("a {kind} without a \"toolCallId\""));
        };
        if !self.known(&id) {
            let name = value
                .get("toolName")
                .and_then(Json::as_str)
                .cloned()
                .unwrap_or_default();
            // The end names no arguments.
            let arguments = value.get("args").cloned().unwrap_or(Json::Undefined);
            self.executed.insert(id.clone());
            // Into the open assistant message (not a user message a resumed history left open).
            if out.open_role() != Some(MessageRole::Assistant) {
                out.begin(MessageRole::Assistant, None);
            }
            out.apply(AgentEvent::ToolCall {
                id: id.clone(),
                name,
                arguments,
            });
        }
        if kind == b"tool_execution_end" {
            let result = match value.get("result") {
                Some(result @ Json::Object(_)) => result.get("content").unwrap_or(result).clone(),
                Some(other) => other.clone(),
                None => Json::Undefined,
            };
            out.apply_result(AgentEvent::ToolResult {
                tool_call_id: id,
                result: tool_result_value(result),
                is_error: value.get("isError").cloned().unwrap_or(Json::Bool(false)),
            });
        }
        Ok(())
    }
}
