//! Claude Code's live output: `claude -p --output-format stream-json --verbose`
//! (`--include-partial-messages` adds `stream_event` lines), the Agent SDK's messages one
//! per line (their types: the SDK's `sdk.d.ts`, `SDKMessage`). Qwen Code's `stream-json`
//! and Amp's `--stream-json` write the same shape.
//!
//! Folded into the messages the transcript of the same run holds ([`super::transcript`]),
//! block by block by the same rules ([`super::blocks`]):
//!
//! - `assistant` lines carry one content block each (older writers, Amp: several), the
//!   lines of one API response sharing `message.id`: one message per response, named by
//!   it. Qwen Code names each block's line anew: when its `init` line says the stream is
//!   Qwen's, a response is the `assistant` lines until a `user` line, named by its first,
//!   as its chat recording has one record per response. An `assistant` line with an
//!   `error` is an API error Claude Code recorded as a message (the transcript's
//!   `isApiErrorMessage`): its text is an error.
//! - `user` lines: `tool_result` blocks land on their call (`is_error` as given); text
//!   and images are a user message, named by the line's `uuid`. The text after a
//!   `compact_boundary` is the summary the compaction left: a `system` message with a
//!   `compaction` chunk, as the transcript's `isCompactSummary` line (Claude Code's own
//!   view of a session, `getSessionMessages`, marks it so too; its `is_meta` lines, like
//!   the transcript's `isMeta`, are context for the model and show nothing). The prompt `-p` was
//!   given is not written to the stream (unless `--replay-user-messages`): the transcript
//!   has it, the stream does not.
//! - `stream_event` lines (partial messages) are the Messages API's own events: a block
//!   shows as its deltas arrive, and when its `assistant` line comes (before its
//!   `content_block_stop`) the block is replaced by what that line holds, so a stream
//!   read with partial messages ends as the same stream without them. A block whose
//!   `assistant` line never came (a stream cut short) stays as its deltas built it, a
//!   thinking block sealed by its `signature_delta` and a call given its streamed input
//!   at `content_block_stop`.
//! - Lines of a sub-agent (`parent_tool_use_id` set) are left out, with their reason:
//!   Claude Code keeps them in the sub-agent's own transcript, not in the session's
//!   conversation (its resumed view does not show them).
//! - `system` lines (`init`, `status`, `compact_boundary`, `thinking_tokens`, task and
//!   hook progress, …), `result` and the SDK's other messages show nothing: counted by
//!   kind. `system` `local_command_output` and `informational` are notices, as the
//!   transcript's `system` lines with a `content`. Lines of a kind this version does not
//!   know are skipped and counted (refused under `strict`).

use crate::bytes::value::{self, is_true, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{AgentEvent, Chunk, MessageRole, SystemChunkKind};
use crate::reading::blocks::{blocks, plain_text};
use crate::reading::check::{FormatResult, Skips, NO_TOOL_USE_ID, ORPHAN_RESULT};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::{FormatChunk, FormatEvent};
use crate::reducer::append_event;

use super::blocks::{assistant_block, error_block, signature, user_block, Added, UserAdded};

/// Why a sub-agent's line is left out.
pub const SUB_AGENT: &str =
    "a sub-agent's line (parent_tool_use_id): in the sub-agent's own transcript, not the session's conversation";

/// The Agent SDK's `system` subtypes that show nothing.
const QUIET_SYSTEM: &[&[u8]] = &[
    b"init",
    b"status",
    b"compact_boundary",
    b"thinking_tokens",
    b"api_retry",
    b"hook_started",
    b"hook_progress",
    b"hook_response",
    b"task_started",
    b"task_progress",
    b"task_updated",
    b"task_notification",
    b"background_tasks_changed",
    b"session_state_changed",
    b"files_persisted",
    b"commands_changed",
    b"notification",
    b"elicitation_complete",
    b"memory_recall",
    b"mirror_error",
    b"model_refusal_fallback",
    b"model_refusal_no_fallback",
    b"permission_denied",
    b"plugin_install",
    b"worker_shutting_down",
    b"session_writes_lost",
    b"control_request_progress",
    b"auth_status",
];

/// The Agent SDK's other messages that show nothing.
const QUIET: &[&[u8]] = &[
    b"result",
    b"rate_limit_event",
    b"tool_progress",
    b"tool_use_summary",
    b"prompt_suggestion",
    b"auth_status",
    b"keep_alive",
    b"active_goal",
    b"conversation_reset",
    b"control_request",
    b"control_response",
    b"control_cancel_request",
];

/// The Messages API's stream events that change nothing a message keeps.
const QUIET_EVENTS: &[&[u8]] = &[b"message_delta", b"message_stop", b"ping", b"error"];

/// Qwen Code's own stream events, in its stream only: the state of its session's goal
/// (`goal_state`), which no message keeps (its recording's `goal_state` records are
/// bookkeeping as well).
const QWEN_EVENTS: &[&[u8]] = &[b"goal_state"];

/// What the open message was when a streamed block began: how many chunks, and the size
/// of the last (UTF-16 units of a text or thinking chunk, calls of a tool batch), which
/// the block's deltas may have grown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    chunks: usize,
    last: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    Call,
    /// A block whose deltas show nothing (its `assistant` line will).
    Other,
}

impl Kind {
    const NAMES: [(&'static str, Kind); 4] = [
        ("text", Kind::Text),
        ("thinking", Kind::Thinking),
        ("call", Kind::Call),
        ("other", Kind::Other),
    ];

    fn name(self) -> &'static str {
        Kind::NAMES
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("other", |(n, _)| n)
    }
}

/// A content block streaming by its deltas, before its `assistant` line.
#[derive(Debug, Clone, PartialEq)]
struct Partial {
    index: Json,
    kind: Kind,
    mark: Mark,
    /// The `signature_delta`s of a thinking block.
    signature: Wtf8,
    /// The `input_json_delta`s of a call, and the call's id.
    input: Wtf8,
    call: Option<Wtf8>,
}

/// The fold of Claude Code's stream-json.
#[derive(Debug, Default)]
pub struct ClaudeStream {
    /// A `compact_boundary` came: the next user text is the compaction's summary.
    summary_next: bool,
    /// The response whose stream events are arriving (`message_start`'s `message.id`).
    streaming: Option<Wtf8>,
    partial: Option<Partial>,
    /// The stream is Qwen Code's (its `init` line names `qwen_code_version`): it names
    /// each content block's line (and its `message_start`) anew, so a response is the
    /// `assistant` lines between two lines of another kind, not those sharing an id.
    blocks_apart: bool,
    /// In such a stream, a line came since the last `assistant` line that ends the
    /// response it was in (a `user` line: the results of its calls).
    response_over: bool,
}

fn tag(value: &Json, key: &str) -> Option<Vec<u8>> {
    str_of(value, key).map(|t| t.as_bytes().to_vec())
}

/// Whether a line is a sub-agent's (`parent_tool_use_id` names the call that started it).
fn is_sub_agent(line: &Json) -> bool {
    matches!(line.get("parent_tool_use_id"), Some(Json::String(_)))
}

/// The id of the open message, when it is an assistant's.
fn open_response(out: &Folded) -> Option<&str> {
    (out.open_role() == Some(MessageRole::Assistant)).then(|| out.message(out.len() - 1).0)
}

/// The open message's chunks (none when no message is open).
fn open_chunks(out: &Folded) -> &[FormatChunk] {
    if out.is_open() {
        out.message(out.len() - 1).2
    } else {
        &[]
    }
}

fn units(text: &Wtf8) -> usize {
    text.code_points().map(|cp| if cp > 0xFFFF { 2 } else { 1 }).sum()
}

fn measure(chunks: &[FormatChunk]) -> Mark {
    let last = match chunks.last() {
        Some(Chunk::Text { text } | Chunk::Thinking { text, .. }) => units(text),
        Some(Chunk::ToolBatch { calls }) => calls.len(),
        _ => 0,
    };
    Mark {
        chunks: chunks.len(),
        last,
    }
}

/// The chunks as they were at `mark`.
fn cut(chunks: &[FormatChunk], mark: Mark) -> Vec<FormatChunk> {
    let mut kept = chunks[..mark.chunks.min(chunks.len())].to_vec();
    match kept.last_mut() {
        Some(Chunk::Text { text } | Chunk::Thinking { text, .. }) if units(text) > mark.last => {
            *text = Wtf8::from_utf16(&text.to_utf16()[..mark.last]);
        }
        Some(Chunk::ToolBatch { calls }) => calls.truncate(mark.last),
        _ => {}
    }
    kept
}

/// Whether the open message holds a call with this id (the transcript adds a call once
/// per message).
fn holds_call(chunks: &[FormatChunk], id: &Wtf8) -> bool {
    chunks
        .iter()
        .filter_map(|chunk| chunk.calls())
        .any(|calls| calls.iter().any(|call| call.id == *id))
}

/// What an `assistant` line's blocks add, in order; the blocks that add nothing are
/// counted.
fn added(line: &Json, message: &Json, number: usize, skips: &mut Skips) -> Vec<Added> {
    let error = line
        .get("error")
        .is_some_and(|e| !matches!(e, Json::Null | Json::Undefined));
    let mut added = Vec::new();
    if let Some(Json::String(text)) = message.get("content") {
        added.push(Added::Text(text.clone()));
    }
    for block in blocks(message.get("content")) {
        if error {
            added.extend(error_block(block).map(Added::Chunk));
            continue;
        }
        match assistant_block(block) {
            Added::Unplaced(what) => {
                let _ = skips.skip(number, what);
            }
            other => added.push(other),
        }
    }
    added
}

/// Adds what a block adds to a message's chunks, as the transcript adds it.
fn add_to(chunks: &mut Vec<FormatChunk>, added: Added) {
    let event = match added {
        Added::Text(delta) => FormatEvent::TextDelta { delta },
        Added::Chunk(chunk) => return chunks.push(chunk),
        Added::Call { id, name, input } => {
            if holds_call(chunks, &id) {
                return;
            }
            AgentEvent::ToolCall {
                id,
                name,
                arguments: input,
            }
        }
        Added::Unplaced(_) | Added::Nothing => return,
    };
    let Ok(()) = append_event(chunks, event);
}

/// Adds what a block adds to the open message.
fn add_open(out: &mut Folded, added: Added) {
    match added {
        Added::Text(delta) => out.apply(FormatEvent::TextDelta { delta }),
        Added::Chunk(chunk) => out.push_chunk(chunk),
        Added::Call { id, name, input } => {
            if !holds_call(open_chunks(out), &id) {
                out.apply(AgentEvent::ToolCall {
                    id,
                    name,
                    arguments: input,
                })
            }
        }
        Added::Unplaced(_) | Added::Nothing => {}
    }
}

impl ClaudeStream {
    /// Keeps the open message when it is the response `id`, else begins one.
    fn response(&mut self, out: &mut Folded, id: Option<&Wtf8>) {
        let continues = match (id, open_response(out)) {
            // Qwen Code: every block of one response is a line of its own, named anew.
            (_, Some(_)) if self.blocks_apart && !self.response_over => true,
            (Some(id), Some(open)) => id.as_bytes() == open.as_bytes(),
            _ => false,
        };
        self.response_over = false;
        if !continues {
            self.partial = None;
            out.begin(
                MessageRole::Assistant,
                id.map(|id| id.to_string_lossy().into_owned()),
            );
        }
    }

    fn assistant(
        &mut self,
        line: &Json,
        number: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some(message) = line.get("message").filter(|m| matches!(m, Json::Object(_))) else {
            return skips.skip(number, "an assistant line without a message");
        };
        let id = str_of(message, "id");
        let added = added(line, message, number, skips);
        if let Some(partial) = self.partial.take() {
            // The streamed block, as its line holds it. Qwen Code names each block's line
            // anew, where its stream events named one message: the block goes where the
            // same stream without partial messages puts it.
            let same = matches!((id, open_response(out)), (Some(id), Some(open)) if id.as_bytes() == open.as_bytes());
            let mut chunks = cut(open_chunks(out), partial.mark);
            if same || chunks.is_empty() {
                for added in added {
                    add_to(&mut chunks, added);
                }
                out.replace_open(chunks);
                if let (false, Some(id)) = (same, id) {
                    out.rename_open(id.to_string_lossy().into_owned());
                }
                return Ok(());
            }
            out.replace_open(chunks);
        }
        self.response(out, id);
        for added in added {
            add_open(out, added);
        }
        Ok(())
    }

    fn user(&mut self, line: &Json, number: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let Some(message) = line.get("message").filter(|m| matches!(m, Json::Object(_))) else {
            return skips.skip(number, "a user line without a message");
        };
        let content = message.get("content");
        let uuid = str_of(line, "uuid").map(|u| u.to_string_lossy().into_owned());
        // A user line ends the response a streamed block was in.
        self.partial = None;
        self.response_over = true;
        let results = blocks(content)
            .iter()
            .any(|b| str_of(b, "type").is_some_and(|t| *t == "tool_result"));
        let summary = std::mem::take(&mut self.summary_next) || is_true(line, "isCompactSummary");
        if summary && !results {
            out.begin(MessageRole::System, uuid);
            out.push_chunk(Chunk::System {
                kind: SystemChunkKind::Compaction,
                text: plain_text(content),
            });
            out.end(None);
            return Ok(());
        }
        if is_true(line, "isMeta") || is_true(line, "is_meta") {
            // Context Claude Code adds for the model and does not show (the transcript's
            // `isMeta` lines; Claude Code's own view of a session marks them `is_meta`).
            skips.pass("isMeta (context for the model, not shown)");
            return Ok(());
        }
        if let Some(Json::String(text)) = content {
            out.begin(MessageRole::User, uuid);
            out.apply(FormatEvent::TextDelta { delta: text.clone() });
            out.end(None);
            return Ok(());
        }
        let mut started = false;
        for block in blocks(content) {
            let added = user_block(block);
            if added.is_users() && !started {
                out.begin(MessageRole::User, uuid.clone());
                started = true;
            }
            match added {
                UserAdded::Result { id, result, is_error } => {
                    if !out.has_call(&id) {
                        skips.leave_out(|| format!("line {number} (tool_use_id \"{id}\")"), ORPHAN_RESULT);
                        continue;
                    }
                    out.apply_result(AgentEvent::ToolResult {
                        tool_call_id: id,
                        result,
                        is_error: Json::Bool(is_error),
                    });
                }
                UserAdded::NoCall => skips.skip(number, NO_TOOL_USE_ID)?,
                UserAdded::Text(delta) => out.apply(FormatEvent::TextDelta { delta }),
                UserAdded::Chunk(chunk) => out.push_chunk(chunk),
                UserAdded::Unplaced(what) => skips.skip(number, what)?,
                UserAdded::Nothing => {}
            }
        }
        if started {
            out.end(None);
        }
        Ok(())
    }

    fn stream_event(
        &mut self,
        line: &Json,
        number: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some(event) = line.get("event") else {
            return skips.skip(number, "a stream_event without an event");
        };
        let kind = tag(event, "type").unwrap_or_default();
        match kind.as_slice() {
            b"message_start" => {
                self.streaming = event.get("message").and_then(|m| str_of(m, "id")).cloned();
            }
            b"content_block_start" => {
                let Some(block) = event.get("content_block") else {
                    return skips.skip(number, "a content_block_start without a content_block");
                };
                let streaming = self.streaming.clone();
                self.response(out, streaming.as_ref());
                // Blocks whose line has not come yet are replaced with this one's by the
                // next line (Qwen Code writes one line for all the calls it streamed).
                let mark = match &self.partial {
                    Some(pending) => pending.mark,
                    None => measure(open_chunks(out)),
                };
                let mut partial = Partial {
                    index: event.get("index").cloned().unwrap_or(Json::Undefined),
                    kind: Kind::Other,
                    mark,
                    signature: Wtf8::new(),
                    input: Wtf8::new(),
                    call: None,
                };
                match str_of(block, "type").map(Wtf8::as_bytes) {
                    Some(b"text") => {
                        partial.kind = Kind::Text;
                        if let Some(text) = str_of(block, "text").filter(|t| !t.is_empty()) {
                            out.apply(FormatEvent::TextDelta { delta: text.clone() });
                        }
                    }
                    Some(b"thinking") => {
                        partial.kind = Kind::Thinking;
                        if let Some(text) = str_of(block, "thinking").filter(|t| !t.is_empty()) {
                            out.apply(FormatEvent::ReasoningDelta { delta: text.clone() });
                        }
                    }
                    _ => {
                        if let Added::Call { id, name, input } = assistant_block(block) {
                            partial.kind = Kind::Call;
                            partial.call = Some(id.clone());
                            add_open(out, Added::Call { id, name, input });
                        }
                    }
                }
                self.partial = Some(partial);
            }
            b"content_block_delta" => {
                let delta = event.get("delta").unwrap_or(&Json::Undefined);
                let Some(partial) = self
                    .partial
                    .as_mut()
                    .filter(|p| event.get("index").is_some_and(|i| *i == p.index))
                else {
                    return skips.skip(number, "a content_block_delta of no block that started");
                };
                let text = |key| str_of(delta, key).cloned().unwrap_or_default();
                match (tag(delta, "type").as_deref(), partial.kind) {
                    (Some(b"text_delta"), Kind::Text) => {
                        out.apply(FormatEvent::TextDelta { delta: text("text") })
                    }
                    (Some(b"thinking_delta"), Kind::Thinking) => out.apply(FormatEvent::ReasoningDelta {
                        delta: text("thinking"),
                    }),
                    (Some(b"signature_delta"), _) => {
                        partial.signature.push_wtf8(text("signature").as_bytes())
                    }
                    (Some(b"input_json_delta"), _) => {
                        partial.input.push_wtf8(text("partial_json").as_bytes())
                    }
                    // Citations and deltas of blocks shown only whole: their line holds them.
                    _ => skips.pass("stream_event/content_block_delta"),
                }
            }
            b"content_block_stop" => {
                // A block whose line has not come: it stays as its deltas built it.
                let Some(partial) = self
                    .partial
                    .as_ref()
                    .filter(|p| event.get("index").is_some_and(|i| *i == p.index))
                else {
                    return Ok(());
                };
                match partial.kind {
                    Kind::Thinking if !partial.signature.is_empty() => {
                        let seal = signature(&Json::object([(
                            "signature",
                            Json::String(partial.signature.clone()),
                        )]));
                        out.apply(FormatEvent::ReasoningEnd { metadata: seal });
                    }
                    Kind::Call => {
                        let input = value::parse(partial.input.as_bytes());
                        if let (Some(id), Ok(input)) = (&partial.call, input) {
                            if let Some(call) = out.call_mut(id) {
                                call.arguments = input;
                            }
                        }
                    }
                    _ => {}
                }
            }
            kind if QUIET_EVENTS.contains(&kind) || self.blocks_apart && QWEN_EVENTS.contains(&kind) => {
                skips.pass(&format!("stream_event/{}", String::from_utf8_lossy(kind)))
            }
            _ => return skips.skip(number, "a stream_event of a type this version does not know"),
        }
        Ok(())
    }
}

impl LiveFold for ClaudeStream {
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let Some(kind) = tag(&value, "type") else {
            return skips.skip(line, "a line without a \"type\"");
        };
        if matches!(kind.as_slice(), b"assistant" | b"user" | b"stream_event") && is_sub_agent(&value) {
            skips.leave_out(|| format!("line {line}"), SUB_AGENT);
            return Ok(());
        }
        match kind.as_slice() {
            b"assistant" => self.assistant(&value, line, out, skips),
            b"user" => self.user(&value, line, out, skips),
            b"stream_event" => self.stream_event(&value, line, out, skips),
            b"system" => {
                let subtype = tag(&value, "subtype").unwrap_or_default();
                match subtype.as_slice() {
                    b"local_command_output" | b"informational" => {
                        let Some(text) = str_of(&value, "content") else {
                            return skips.skip(line, "a system notice without a content");
                        };
                        let uuid = str_of(&value, "uuid").map(|u| u.to_string_lossy().into_owned());
                        self.partial = None;
                        out.begin(MessageRole::System, uuid);
                        out.push_chunk(Chunk::System {
                            kind: SystemChunkKind::Notice,
                            text: text.clone(),
                        });
                        out.end(None);
                        Ok(())
                    }
                    subtype if QUIET_SYSTEM.contains(&subtype) => {
                        if subtype == b"compact_boundary" {
                            self.summary_next = true;
                        }
                        if subtype == b"init" && value.get("qwen_code_version").is_some() {
                            self.blocks_apart = true;
                        }
                        skips.pass(&format!("system/{}", String::from_utf8_lossy(subtype)));
                        Ok(())
                    }
                    _ => skips.skip(line, "a system line of a subtype this version does not know"),
                }
            }
            kind if QUIET.contains(&kind) => {
                skips.pass(&String::from_utf8_lossy(kind));
                Ok(())
            }
            _ => skips.skip(line, "a line of a type this version does not know"),
        }
    }

    /// Whether a compaction's summary comes next, the response being streamed, and the
    /// block streaming by its deltas.
    fn save(&self) -> Json {
        use crate::reading::resume::{number, optional};
        let partial = match &self.partial {
            None => Json::Null,
            Some(p) => Json::object([
                ("index", p.index.clone()),
                ("kind", Json::string(p.kind.name())),
                ("chunks", number(p.mark.chunks)),
                ("last", number(p.mark.last)),
                ("signature", Json::String(p.signature.clone())),
                ("input", Json::String(p.input.clone())),
                ("call", optional(p.call.as_ref())),
            ]),
        };
        Json::object([
            ("summaryNext", Json::Bool(self.summary_next)),
            ("streaming", optional(self.streaming.as_ref())),
            ("partial", partial),
            ("blocksApart", Json::Bool(self.blocks_apart)),
            ("responseOver", Json::Bool(self.response_over)),
        ])
    }

    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        use crate::reading::resume::{count, flag, object, optional_text, text};
        object(state)?;
        self.summary_next = flag(state, "summaryNext")?;
        self.streaming = optional_text(state, "streaming")?;
        // Absent (false) from a state saved before they were kept: Claude Code's stream.
        self.blocks_apart = flag(state, "blocksApart")?;
        self.response_over = flag(state, "responseOver")?;
        self.partial = match state.get("partial") {
            None | Some(Json::Null | Json::Undefined) => None,
            Some(p @ Json::Object(_)) => {
                let kind = text(p, "kind").map_err(|e| format!(".partial{e}"))?;
                let kind = Kind::NAMES
                    .iter()
                    .find(|(name, _)| *kind == *name)
                    .map(|(_, k)| *k)
                    .ok_or(".partial.kind must be text, thinking, call or other")?;
                let at = |e: String| format!(".partial{e}");
                Some(Partial {
                    index: p.get("index").cloned().unwrap_or(Json::Undefined),
                    kind,
                    mark: Mark {
                        chunks: count(p, "chunks").map_err(at)?,
                        last: count(p, "last").map_err(at)?,
                    },
                    signature: text(p, "signature").map_err(at)?.clone(),
                    input: text(p, "input").map_err(at)?.clone(),
                    call: optional_text(p, "call").map_err(at)?,
                })
            }
            Some(_) => return Err(".partial must be an object or null".into()),
        };
        Ok(())
    }
}
