//! `codex exec --json`: the events Codex writes to stdout as it runs a prompt, folded
//! into the messages a live view shows — the same messages, item for item, as the rollout
//! of the same run reads as ([`super::items`]), but for what the stream does not carry.
//!
//! From 0.40 the lines are `ThreadEvent`s: `thread.started`, `turn.started` (a turn's
//! assistant message begins with its first item), `item.started` / `item.updated` /
//! `item.completed` with an item (`agent_message` — `assistant_message` in earlier versions —,
//! `reasoning`, `command_execution`, `file_change`, `mcp_tool_call`, `collab_tool_call`,
//! `web_search`, `todo_list`, `plan`, `error`), `turn.completed` / `turn.failed` (its error
//! an `error` chunk), `error`. An agent message or reasoning item is shown once completed
//! (the stream never sends them before); a tool item is a call from its start, updated in
//! place, its result set when it completes; a to-do list is a `plan` chunk kept up to
//! date; an `error` item in a turn is an `error` chunk, one outside a turn (the warnings
//! Codex prints before the first turn) a `system` message of its own.
//!
//! Before 0.40 (and `codex proto`), each line was `{ id, msg }` with one of Codex's events
//! in `msg`, after a first line summing up the configuration and one with the `prompt`:
//! the prompt is a `user` message; `task_started` / `task_complete` are a turn;
//! `agent_message`, `agent_reasoning` and `agent_reasoning_raw_content` are the whole
//! message or reasoning part (the `_delta` events that stream them before are passed
//! over: the whole one follows); the tool events (`exec_command_*`, `patch_apply_*`,
//! `mcp_tool_call_*`, `web_search_*`) are calls; `turn_aborted` a `cancelled` chunk.
//!
//! What the stream does not carry, a rollout read beside it has: the user's prompt (from
//! 0.40), the model's call ids (the stream numbers its items `item_N`), reasoning's
//! encrypted content and raw text, a call of a tool that does not exist, compactions, and
//! anything of a turn interrupted (the stream stops after `turn.started`).

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{AgentEvent, Chunk, MessageRole, SystemChunkKind};
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::FormatChunk;

use super::items::{self, display_kind, Reasoning, Shown};

/// The fold of `codex exec --json` output.
#[derive(Debug, Default)]
pub struct ExecStream {
    /// A turn is running.
    in_turn: bool,
    /// The chunks of the open message the reasoning it ends with is: its summary's and its
    /// raw text's (the events of one reasoning item's parts follow each other).
    reasoning: Option<(Option<usize>, Option<usize>)>,
    /// The to-do list being kept up to date: its item id and its chunk in the open message.
    todo: Option<(Wtf8, usize)>,
}

/// The `ThreadEvent` types that carry nothing a message keeps.
const QUIET: &[&[u8]] = &[b"thread.started", b"item.plan.delta", b"request_user_input"];

/// The legacy events that carry nothing a message keeps.
const QUIET_LEGACY: &[&[u8]] = &[
    b"session_configured",
    b"token_count",
    b"background_event",
    b"stream_error",
    b"warning",
    b"turn_diff",
    b"plan_update",
    b"exec_command_output_delta",
    b"agent_message_delta",
    b"agent_reasoning_delta",
    b"agent_reasoning_raw_content_delta",
    b"agent_reasoning_section_break",
    b"exec_approval_request",
    b"apply_patch_approval_request",
    b"get_history_entry_response",
    b"mcp_list_tools_response",
    b"list_custom_prompts_response",
    b"shutdown_complete",
    b"user_message",
    b"deprecation_notice",
];

impl LiveFold for ExecStream {
    /// A value this version knows but cannot read (a field of the wrong type) is skipped
    /// and counted with what is wrong, as Codex's own readers pass over a line they cannot
    /// parse; `strict` refuses it.
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let folded = self.fold(value, line, out, skips);
        skips.unreadable_skipped(line, folded)
    }

    fn save(&self) -> Json {
        let index = |i: Option<usize>| i.map_or(Json::Null, crate::reading::resume::number);
        Json::object([
            ("inTurn", Json::Bool(self.in_turn)),
            (
                "reasoning",
                match self.reasoning {
                    Some((summary, raw)) => Json::Array(vec![index(summary), index(raw)]),
                    None => Json::Null,
                },
            ),
            (
                "todo",
                match &self.todo {
                    Some((id, at)) => {
                        Json::object([("id", Json::String(id.clone())), ("chunk", index(Some(*at)))])
                    }
                    None => Json::Null,
                },
            ),
        ])
    }

    fn restore(&mut self, state: &Json, messages: &Folded) -> Result<(), String> {
        use crate::reading::resume::{flag, object, whole};
        object(state)?;
        self.in_turn = flag(state, "inTurn")?;
        let open = messages.open_len();
        let chunk = |value: &Json, what: &str| -> Result<Option<usize>, String> {
            match value {
                Json::Null => Ok(None),
                v => match whole(v) {
                    Some(i) if i < open => Ok(Some(i)),
                    _ => Err(format!(
                        ".{what} must be the index of a chunk of the open message or null"
                    )),
                },
            }
        };
        self.reasoning = match state.get("reasoning") {
            Some(Json::Null) => None,
            Some(Json::Array(pair)) if pair.len() == 2 => {
                Some((chunk(&pair[0], "reasoning[0]")?, chunk(&pair[1], "reasoning[1]")?))
            }
            _ => return Err(".reasoning must be a pair of chunk indexes or null".into()),
        };
        self.todo = match state.get("todo") {
            Some(Json::Null) => None,
            Some(todo @ Json::Object(_)) => {
                let id = str_of(todo, "id").ok_or(".todo.id must be a string")?.clone();
                let at = chunk(todo.get("chunk").unwrap_or(&Json::Undefined), "todo.chunk")?
                    .ok_or(".todo.chunk must be the index of a chunk of the open message")?;
                Some((id, at))
            }
            _ => return Err(".todo must be an object or null".into()),
        };
        Ok(())
    }
}

impl ExecStream {
    fn fold(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        if let Some(msg) = value.get("msg") {
            return self.legacy(msg, line, out, skips);
        }
        let Some(kind) = str_of(&value, "type").cloned() else {
            if let Some(prompt) = str_of(&value, "prompt") {
                self.user(prompt.clone(), out);
                return Ok(());
            }
            if value.get("model").is_some() || value.get("workdir").is_some() {
                // The configuration summed up before the events (0.20–0.39).
                skips.pass("config");
                return Ok(());
            }
            return skips.skip(line, "a value without a \"type\"");
        };
        match kind.as_bytes() {
            b"turn.started" => {
                self.close(out);
                self.in_turn = true;
            }
            b"turn.completed" => {
                self.close(out);
                self.in_turn = false;
            }
            b"turn.failed" | b"error" => {
                let error = if kind == "error" {
                    &value
                } else {
                    value.get("error").unwrap_or(&Json::Null)
                };
                let message = str_of(error, "message").cloned().unwrap_or_default();
                self.error(message, out);
                if kind == "turn.failed" {
                    self.close(out);
                    self.in_turn = false;
                }
            }
            b"item.started" | b"item.updated" | b"item.completed" => {
                let item = value.get("item").unwrap_or(&Json::Undefined);
                if !matches!(item, Json::Object(_)) {
                    return Err(FormatError::new("item", "must be an object"));
                }
                self.item(item, kind == "item.completed", line, out, skips)?;
            }
            other if QUIET.contains(&other) => skips.pass(&kind.to_string_lossy()),
            _ => skips.skip(line, format_args!("unknown event type \"{kind}\""))?,
        }
        Ok(())
    }
}

impl ExecStream {
    /// Ends the open message.
    fn close(&mut self, out: &mut Folded) {
        out.end(None);
        self.reasoning = None;
        self.todo = None;
    }

    fn user(&mut self, text: Wtf8, out: &mut Folded) {
        self.close(out);
        out.begin(MessageRole::User, None);
        out.push_chunk(Chunk::Text { text });
        out.end(None);
    }

    /// An assistant message is open for the turn's next item.
    fn open(&mut self, out: &mut Folded) {
        if out.open_role() != Some(MessageRole::Assistant) {
            out.end(None);
            out.begin(MessageRole::Assistant, None);
            self.reasoning = None;
            self.todo = None;
        }
    }

    /// An error: in the turn's message, or (outside a turn) a message of its own.
    fn error(&mut self, message: Wtf8, out: &mut Folded) {
        let chunk = Chunk::Error {
            message,
            status_code: None,
        };
        if self.in_turn {
            self.open(out);
            self.reasoning = None;
            out.push_chunk(chunk);
        } else {
            self.close(out);
            out.begin(MessageRole::System, None);
            out.push_chunk(chunk);
            out.end(None);
        }
    }

    fn add(&mut self, chunk: FormatChunk, out: &mut Folded) {
        self.open(out);
        self.reasoning = None;
        out.push_chunk(chunk);
    }

    /// A part of reasoning: on the reasoning the message ends with, else a new one.
    fn reasoning_part(&mut self, text: Wtf8, raw: bool, out: &mut Folded) {
        self.open(out);
        let (summary, raw_at) = self.reasoning.unwrap_or((None, None));
        let at = if raw { raw_at } else { summary };
        match at {
            Some(at) => {
                let mut part = Wtf8::from("\n");
                part.push_wtf8(text.as_bytes());
                out.fold_open(crate::reading::steps::ChunkStep::Extend(at, part));
            }
            None => {
                out.push_chunk(Chunk::Thinking { text, metadata: None });
                let at = out.open_len() - 1;
                self.reasoning = Some(if raw {
                    (summary, Some(at))
                } else {
                    (Some(at), raw_at)
                });
            }
        }
    }

    /// A tool item: a call from its start, its result once it has one.
    fn call(&mut self, id: Wtf8, shown: Shown, out: &mut Folded) {
        self.reasoning = None;
        if out.has_call(&id) {
            if let Some(call) = out.call_mut(&id) {
                call.name = shown.name;
                if !matches!(shown.arguments, Json::Undefined) {
                    call.arguments = shown.arguments;
                }
                if let Some((result, error)) = shown.outcome {
                    call.result = Some((result, Json::Bool(error)));
                }
            }
            return;
        }
        self.open(out);
        out.apply(AgentEvent::ToolCall {
            id: id.clone(),
            name: shown.name,
            arguments: shown.arguments,
        });
        if let Some((result, error)) = shown.outcome {
            out.apply_result(AgentEvent::ToolResult {
                tool_call_id: id,
                result,
                is_error: Json::Bool(error),
            });
        }
    }

    fn item(
        &mut self,
        item: &Json,
        completed: bool,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some(kind) = str_of(item, "type") else {
            return Err(FormatError::new("item.type", "must be a string"));
        };
        let id = str_of(item, "id").cloned();
        match kind.as_bytes() {
            // Shown once completed: the stream sends them whole.
            b"agent_message" | b"assistant_message" => {
                if completed {
                    if let Some(text) = str_of(item, "text").filter(|t| !t.is_empty()) {
                        self.add(Chunk::Text { text: text.clone() }, out);
                    }
                }
            }
            b"reasoning" => {
                if completed {
                    let reasoning = Reasoning {
                        summary: str_of(item, "text").cloned().into_iter().collect(),
                        ..Reasoning::default()
                    };
                    self.open(out);
                    for chunk in reasoning.chunks() {
                        out.push_chunk(chunk);
                    }
                    self.reasoning = None;
                }
            }
            b"error" => {
                if completed {
                    self.error(str_of(item, "message").cloned().unwrap_or_default(), out);
                }
            }
            b"todo_list" => {
                let steps: &[Json] = match item.get("items") {
                    Some(Json::Array(steps)) => steps,
                    _ => &[],
                };
                let text = items::plan_text(steps);
                self.plan(id.unwrap_or_default(), text, out);
            }
            b"plan" => {
                if completed {
                    if let Some(text) = str_of(item, "text").filter(|t| !t.is_empty()) {
                        self.add(items::plan_chunk(text.clone()), out);
                    }
                }
            }
            other => match display_kind(other) {
                Some(display) => {
                    let Some(id) = id else {
                        return Err(FormatError::new("item.id", "must be a string"));
                    };
                    self.call(id, items::shown_item(display, item), out);
                }
                None => skips.skip(line, format_args!("unknown item type \"{kind}\""))?,
            },
        }
        Ok(())
    }

    /// A to-do list: its plan chunk, replaced as the list changes.
    fn plan(&mut self, id: Wtf8, text: Wtf8, out: &mut Folded) {
        self.open(out);
        self.reasoning = None;
        match &self.todo {
            Some((todo, at)) if *todo == id && *at < out.open_len() => {
                let at = *at;
                let (_, _, chunks) = out.message(out.len() - 1);
                let mut chunks = chunks.to_vec();
                chunks[at] = items::plan_chunk(text);
                out.replace_open(chunks);
            }
            _ => {
                out.push_chunk(items::plan_chunk(text));
                self.todo = Some((id, out.open_len() - 1));
            }
        }
    }

    /// A line of the output before 0.40: `{ id, msg }`.
    fn legacy(&mut self, msg: &Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let Some(kind) = str_of(msg, "type").cloned() else {
            return Err(FormatError::new("msg.type", "must be a string"));
        };
        match kind.as_bytes() {
            b"task_started" => {
                self.close(out);
                self.in_turn = true;
            }
            b"task_complete" => {
                self.close(out);
                self.in_turn = false;
            }
            b"agent_message" => {
                if let Some(text) = str_of(msg, "message").filter(|t| !t.is_empty()) {
                    self.add(Chunk::Text { text: text.clone() }, out);
                }
            }
            b"agent_reasoning" | b"agent_reasoning_raw_content" => {
                if let Some(text) = str_of(msg, "text").filter(|t| !t.is_empty()) {
                    self.reasoning_part(text.clone(), kind == "agent_reasoning_raw_content", out);
                }
            }
            b"error" => self.error(str_of(msg, "message").cloned().unwrap_or_default(), out),
            b"turn_aborted" => {
                let reason = str_of(msg, "reason")
                    .cloned()
                    .unwrap_or_else(|| Wtf8::from("interrupted"));
                self.add(
                    Chunk::System {
                        kind: SystemChunkKind::Cancelled,
                        text: reason,
                    },
                    out,
                );
                self.close(out);
            }
            other if items::is_call_event(other) => {
                if let Some((id, shown)) = items::event_call(other, msg).map_err(|e| e.under("msg"))? {
                    self.call(id, shown, out);
                }
            }
            other if QUIET_LEGACY.contains(&other) => skips.pass(&format!("msg/{kind}")),
            _ => skips.skip(line, format_args!("unknown event type \"{kind}\""))?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::value;

    #[test]
    fn a_resume_state_names_the_field_it_cannot_take() {
        let mut out = Folded::new("turn");
        let mut skips = Skips::new(false);
        let mut fold = ExecStream::default();
        for line in [
            r#"{"type":"turn.started"}"#,
            r#"{"type":"item.started","item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":false}]}}"#,
        ] {
            fold.push(value::parse_str(line).unwrap(), 1, &mut out, &mut skips)
                .unwrap();
        }
        let saved = fold.save();
        let mut again = ExecStream::default();
        again.restore(&saved, &out).unwrap();
        assert_eq!(again.todo, fold.todo);
        let bad = |text: &str| {
            ExecStream::default()
                .restore(&value::parse_str(text).unwrap(), &out)
                .unwrap_err()
        };
        assert_eq!(
            bad(r#"{"inTurn":true,"reasoning":[7,null],"todo":null}"#),
            ".reasoning[0] must be the index of a chunk of the open message or null"
        );
        assert_eq!(
            bad(r#"{"inTurn":true,"reasoning":null,"todo":{"id":1}}"#),
            ".todo.id must be a string"
        );
        assert_eq!(bad(r#"{"inTurn":1}"#), ".inTurn must be a boolean");
    }
}
