//! Copilot CLI's session events, folded into the conversation Copilot shows: the same
//! fold reads the live stream (`copilot -p --output-format json`, the SDK's
//! `session.on()`) and the session's `events.jsonl`, which holds the same events less the
//! ephemeral ones.
//!
//! - `user.message`: the prompt as the user typed it (`content`, not `transformedContent`,
//!   which prepends the context Copilot adds), named by the event's `id`.
//! - `assistant.message`: one assistant message named by its `messageId`: `reasoningText`
//!   as thinking (sealed with `{ copilot: { reasoningOpaque, encryptedContent } }` where
//!   those are given; an opaque or encrypted reasoning with no text is kept as an empty
//!   sealed thinking chunk, as redacted thinking is), `content` as text, `toolRequests` as
//!   calls. Live, the ephemeral `assistant.reasoning_delta` / `message_delta` events show
//!   the message as it streams, and its `assistant.message` replaces what they built (so
//!   the live fold ends as the file does).
//! - `tool.execution_complete`: the call's result (`result.content`, or `error.message`),
//!   `success: false` as `isError`.
//! - `session.compaction_complete` with a `summaryContent`: a `system` message with a
//!   `compaction` chunk; `session.error`: an assistant message with an `error` chunk.
//!   What a model call streamed before it failed (`model.call_failure`, then
//!   `assistant.turn_retry`) is taken back: the retry streams the answer anew, and the file
//!   keeps only the message that ended.
//! - A sub-agent's events (`agentId` on the envelope, or `parentToolCallId` in `data`) are
//!   left out, with their reason: Copilot shows them under the task call that started
//!   them, not in the conversation.
//! - Every other known event (session state, turns, hooks, permissions, usage, the
//!   system prompt's `system.message`, the stream's closing `result` line, …) shows
//!   nothing: counted by type. Unknown types are skipped and counted (refused under
//!   `strict`). A `session.snapshot_rewind` (ephemeral: the file has the events removed) is
//!   counted, not applied to messages already folded.

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{AgentEvent, Chunk, MessageRole, SystemChunkKind};
use crate::reading::check::{FormatResult, Skips, ORPHAN_RESULT};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::{FormatChunk, FormatEvent};
use crate::reducer::append_event;

/// Why a sub-agent's event is left out.
pub const SUB_AGENT: &str =
    "a sub-agent's event (agentId / parentToolCallId): shown under its task call, not in the conversation";

/// Event types that show nothing.
pub const QUIET: &[&str] = &[
    "session.start",
    "session.resume",
    "session.shutdown",
    "session.model_change",
    "session.mode_changed",
    "session.permissions_changed",
    "session.usage_record",
    "session.usage_checkpoint",
    "session.usage_info",
    "session.compaction_start",
    "session.truncation",
    "session.snapshot_rewind",
    "session.info",
    "session.warning",
    "session.idle",
    "session.title_changed",
    "session.tools_updated",
    "session.skills_loaded",
    "session.mcp_servers_loaded",
    "session.background_tasks_changed",
    "session.context_changed",
    "session.plan_changed",
    "session.todos_changed",
    "session.workspace_file_changed",
    "session.handoff",
    "session.task_complete",
    "session.auto_mode_resolved",
    "session.remote_steerable_changed",
    "session.session_limits_changed",
    "system.message",
    "system.notification",
    "assistant.turn_end",
    "assistant.idle",
    "assistant.intent",
    "assistant.usage",
    "assistant.reasoning",
    "assistant.tool_call_delta",
    "assistant.streaming_delta",
    "assistant.server_tool_progress",
    "model.call_start",
    "model.call_finished",
    "model.call_final_result",
    "tool.execution_start",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "tool.shell_output",
    "tool.user_requested",
    "subagent.started",
    "subagent.configured",
    "subagent.completed",
    "subagent.failed",
    "subagent.selected",
    "subagent.deselected",
    "hook.start",
    "hook.end",
    "hook.progress",
    "permission.requested",
    "permission.completed",
    "agent.interrupted",
    "pending_messages.modified",
    "skill.invoked",
    "abort",
    "result",
];

/// The fold of Copilot's session events.
#[derive(Debug, Default)]
pub struct CopilotEvents {
    /// The open assistant message was begun by deltas and has no `messageId` yet.
    streaming: bool,
}

fn text_of(data: &Json, key: &str) -> Option<Wtf8> {
    str_of(data, key).cloned()
}

/// An `assistant.message`'s chunks, in the order Copilot shows them.
fn message_chunks(data: &Json) -> Vec<FormatChunk> {
    let mut chunks: Vec<FormatChunk> = Vec::new();
    let reasoning = str_of(data, "reasoningText").filter(|t| !t.is_empty());
    let mut seal: Vec<(Wtf8, Json)> = Vec::new();
    for key in ["reasoningOpaque", "encryptedContent"] {
        if let Some(value) = str_of(data, key).filter(|v| !v.is_empty()) {
            seal.push((Wtf8::from(key), Json::String(value.clone())));
        }
    }
    if reasoning.is_some() || !seal.is_empty() {
        chunks.push(Chunk::Thinking {
            text: reasoning.cloned().unwrap_or_default(),
            metadata: (!seal.is_empty())
                .then(|| Json::Object(vec![(Wtf8::from("copilot"), Json::Object(seal))])),
        });
    }
    if let Some(text) = str_of(data, "content").filter(|t| !t.is_empty()) {
        let Ok(()) = append_event(&mut chunks, FormatEvent::TextDelta { delta: text.clone() });
    }
    if let Some(Json::Array(requests)) = data.get("toolRequests") {
        for request in requests {
            let (Some(id), Some(name)) = (str_of(request, "toolCallId"), str_of(request, "name")) else {
                continue;
            };
            let event = AgentEvent::ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: request.get("arguments").cloned().unwrap_or(Json::Undefined),
            };
            let Ok(()) = append_event(&mut chunks, event);
        }
    }
    chunks
}

impl CopilotEvents {
    /// The open assistant message the deltas build, begun when none is.
    fn streamed(&mut self, out: &mut Folded) {
        if out.open_role() != Some(MessageRole::Assistant) {
            out.begin(MessageRole::Assistant, None);
            self.streaming = true;
        }
    }

    fn assistant_message(
        &mut self,
        data: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let chunks = message_chunks(data);
        let requests = data.get("toolRequests").and_then(|r| match r {
            Json::Array(items) => Some(items.len()),
            _ => None,
        });
        let placed = chunks
            .iter()
            .filter_map(|c| c.calls())
            .map(<[_]>::len)
            .sum::<usize>();
        if requests.is_some_and(|n| n > placed) {
            skips.skip(line, "a tool request without a toolCallId or a name")?;
        }
        let id = text_of(data, "messageId").map(|id| id.to_string_lossy().into_owned());
        if self.streaming && out.open_role() == Some(MessageRole::Assistant) {
            out.replace_open(chunks);
        } else {
            out.begin(MessageRole::Assistant, id.clone());
            for chunk in chunks {
                out.push_chunk(chunk);
            }
        }
        self.streaming = false;
        out.end(id);
        Ok(())
    }
}

impl LiveFold for CopilotEvents {
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let Some(kind) = str_of(&value, "type").map(|t| t.to_string_lossy().into_owned()) else {
            return skips.skip(line, "an event without a \"type\"");
        };
        let data = value.get("data").unwrap_or(&Json::Undefined);
        if str_of(&value, "agentId").is_some() || str_of(data, "parentToolCallId").is_some() {
            skips.leave_out(|| format!("line {line} ({kind})"), SUB_AGENT);
            return Ok(());
        }
        let id = str_of(&value, "id").map(|id| id.to_string_lossy().into_owned());
        match kind.as_str() {
            "user.message" => {
                let Some(text) = text_of(data, "content") else {
                    return skips.skip(line, "a user.message without a content");
                };
                self.streaming = false;
                out.begin(MessageRole::User, id);
                out.apply(FormatEvent::TextDelta { delta: text });
                out.end(None);
            }
            "assistant.reasoning_delta" | "assistant.message_delta" => {
                let delta = text_of(data, "deltaContent").unwrap_or_default();
                self.streamed(out);
                out.apply(if kind == "assistant.reasoning_delta" {
                    FormatEvent::ReasoningDelta { delta }
                } else {
                    FormatEvent::TextDelta { delta }
                });
            }
            "assistant.message_start" => {
                self.streamed(out);
                if let Some(id) = text_of(data, "messageId") {
                    out.rename_open(id.to_string_lossy().into_owned());
                }
            }
            "assistant.message" => self.assistant_message(data, line, out, skips)?,
            "tool.execution_complete" => {
                let Some(call) = str_of(data, "toolCallId").cloned() else {
                    return skips.skip(line, "a tool.execution_complete without a toolCallId");
                };
                if !out.has_call(&call) {
                    skips.leave_out(|| format!("line {line} (toolCallId \"{call}\")"), ORPHAN_RESULT);
                    return Ok(());
                }
                let success = matches!(data.get("success"), Some(Json::Bool(true)));
                let result = match (data.get("result"), data.get("error")) {
                    (Some(result), _) if result.get("content").is_some() => result.get("content").cloned(),
                    (_, Some(error)) if error.get("message").is_some() => error.get("message").cloned(),
                    (Some(result), _) => Some(result.clone()),
                    (None, error) => error.cloned(),
                };
                out.apply_result(AgentEvent::ToolResult {
                    tool_call_id: call,
                    result: result.unwrap_or(Json::Undefined),
                    is_error: Json::Bool(!success),
                });
            }
            "session.compaction_complete" => {
                match text_of(data, "summaryContent").filter(|s| !s.is_empty()) {
                    Some(summary) => {
                        self.streaming = false;
                        out.begin(MessageRole::System, id);
                        out.push_chunk(Chunk::System {
                            kind: SystemChunkKind::Compaction,
                            text: summary,
                        });
                        out.end(None);
                    }
                    None => skips.pass(&kind),
                }
            }
            "session.error" => {
                let error = Chunk::Error {
                    message: text_of(data, "message").unwrap_or_default(),
                    status_code: data.get("statusCode").and_then(Json::as_f64),
                };
                // A failed call's streamed message emptied (below) is where the error goes.
                if self.streaming && out.open_role() == Some(MessageRole::Assistant) {
                    out.replace_open(vec![error]);
                    out.end(id);
                } else {
                    out.begin(MessageRole::Assistant, id);
                    out.push_chunk(error);
                    out.end(None);
                }
                self.streaming = false;
            }
            // A model call that failed is retried: what it streamed is not the answer.
            "model.call_failure" | "assistant.turn_retry" => {
                if self.streaming && out.open_role() == Some(MessageRole::Assistant) {
                    out.replace_open(Vec::new());
                }
                skips.pass(&kind);
            }
            // A turn's streamed message that never ended (its call failed) ends with it.
            "assistant.turn_start" => {
                if self.streaming {
                    out.end(None);
                    self.streaming = false;
                }
                skips.pass(&kind);
            }
            kind if QUIET.contains(&kind) => skips.pass(kind),
            _ => return skips.skip(line, "an event of a type this version does not know"),
        }
        Ok(())
    }

    /// Whether the open message was begun by deltas (its `assistant.message` replaces it).
    fn save(&self) -> Json {
        Json::object([("streaming", Json::Bool(self.streaming))])
    }

    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        crate::reading::resume::object(state)?;
        self.streaming = crate::reading::resume::flag(state, "streaming")?;
        Ok(())
    }
}
