//! OpenClaw's live stream, folded into the messages its session files hold (pi's own
//! agent events are [`crate::formats::pi::events`]).
//!
//! **OpenClaw gateway frames** (`{"type":"event","event":…,"payload":…}`): a `chat`
//! frame's `message.content` is the whole reply so far (thinking and text), so only what
//! is new since the last frame is folded; a change that does not extend it adds the part
//! after where they part, so no text is lost while it streams. `final` ends the reply as
//! its message holds it (grown, or replaced when it does not extend what streamed: what
//! OpenClaw's UI and a reload of the session show), `error` adds its `errorMessage`,
//! `aborted` adds "Operation aborted", as pi's UI words them. `agent`
//! frames on the `tool` stream give the calls (`start`) and results (`result`; a result or
//! `update` of a call whose start was not seen makes the call first, by its `name`; a
//! tool frame without a `toolCallId`, which OpenClaw's UI passes over, is skipped and
//! counted), and a reply that goes on after a tool's result is the next stored message,
//! as pi writes it. A `chat` frame of state `status` (OpenClaw 2026.9: how the run is
//! being prepared) keeps nothing.
//! The seed's shorthand (`delta`, `thinking-delta`, `thinking-end`, `tool-start`,
//! `tool-end`, `final`) is the same stream simplified: its deltas are increments.

use crate::model::{AgentEvent, Chunk, MessageRole};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::pi::session::{ABORTED, UNKNOWN_PROVIDER};
use crate::reading::blocks::{signature_metadata, tool_result_value};
use crate::reading::check::{object, optional_string, string, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::{FormatChunk, FormatEvent};

/// One shorthand gateway event as agent events: `delta` → `text-delta`,
/// `thinking-delta` → `reasoning-delta`, `thinking-end` → `reasoning-end`, `tool-start`
/// → `tool-call`, `tool-end` → `tool-result`; `final` and unknown types → nothing.
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

fn tag(value: &Json, key: &str) -> Option<Vec<u8>> {
    value
        .get(key)
        .and_then(Json::as_str)
        .map(|t| t.as_bytes().to_vec())
}

/// `b` without the ASCII white space around it.
fn trimmed(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end]
}

/// What a cumulative text adds to what was seen (`None`: nothing, and `now` is not taken
/// as seen): the new suffix, or, when it does not extend it, everything after where the
/// two part. A text that only lost surrounding white space (the final reply is trimmed)
/// adds nothing.
fn fresh(seen: &Wtf8, now: &Wtf8) -> Option<Wtf8> {
    let (old, new) = (seen.as_bytes(), now.as_bytes());
    if new.len() <= old.len() && trimmed(old).starts_with(trimmed(new)) {
        return None;
    }
    let mut at = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    // Part at a code point's first byte.
    while at > 0 && at < new.len() && new[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    Some(Wtf8::from_wtf8_unchecked(new[at..].to_vec()))
}

/// OpenClaw's gateway frames, and the seed's shorthand of them.
#[derive(Debug, Default)]
pub struct Gateway {
    /// The run's text and thinking so far, as the last chat frame gave them whole (a
    /// run's chat frames carry all its text, across the messages a tool's result splits).
    text: Wtf8,
    thinking: Wtf8,
    /// How much of `text` and `thinking` the run's earlier messages hold: the open
    /// message's part of a frame's text is what follows it.
    text_before: usize,
    thinking_before: usize,
    /// A tool's result arrived: the reply's next words are the next stored message.
    after_result: bool,
    /// The `runId` of the run whose chat frames are the reply, from its first chat frame
    /// to its end: chat frames of another run meanwhile are not this reply.
    run: Option<Wtf8>,
}

/// OpenClaw's silent-reply token: a reply that is only this (white space around it) is
/// not shown (`SILENT_REPLY_PATTERN`, `/^\s*NO_REPLY\s*$/`, in its UI's chat controller).
const SILENT_REPLY: &[u8] = b"NO_REPLY";

/// Counted, never refused: a frame OpenClaw writes and its UI deliberately shows nothing of.
const SILENT: &str = "a silent reply (NO_REPLY), which OpenClaw's UI does not show";
const BLANK: &str = "a reply of white space only, which OpenClaw's UI does not show";

/// JavaScript's `\s` (and what `String.prototype.trim` removes).
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// Whether a code point is JavaScript white space (lone surrogates are not).
fn js_space_point(cp: u32) -> bool {
    char::from_u32(cp).is_some_and(js_space)
}

/// Whether `text` is the silent token with only white space around it. Stops at the first
/// code point that cannot be part of that (a reply's text is read at every frame).
fn is_silent(text: &Wtf8) -> bool {
    let mut points = text.code_points().skip_while(|&cp| js_space_point(cp));
    SILENT_REPLY.iter().all(|&b| points.next() == Some(u32::from(b))) && points.all(js_space_point)
}

/// Whether `text` is white space only (or empty). Stops at the first other code point.
fn is_blank(text: &Wtf8) -> bool {
    text.code_points().all(js_space_point)
}

/// What a `final` or `aborted` frame's `message` is to the reply, as OpenClaw's UI takes
/// it (`normalizeFinalAssistantMessage`, `normalizeAbortedAssistantMessage`,
/// `isAssistantSilentReply`).
enum Ending<'a> {
    /// No message: the reply ends as it streamed.
    None,
    /// The reply's message.
    Reply(&'a Json),
    /// The silent token: not shown; the reply ends as it streamed.
    Silent,
    /// Not the assistant's reply (another role, or no message the UI reads): not shown.
    NotReply,
}

fn ending(message: Option<&Json>, aborted: bool) -> Ending<'_> {
    let message = match message {
        None | Some(Json::Null | Json::Undefined) => return Ending::None,
        Some(message @ Json::Object(_)) => message,
        Some(_) => return Ending::NotReply,
    };
    let role = message.get("role");
    let assistant = match role {
        // An aborted frame's message names its role exactly; a final's in any case.
        Some(Json::String(r)) if aborted => *r == "assistant",
        Some(Json::String(r)) => r.to_string_lossy().to_lowercase() == "assistant",
        _ => !aborted,
    };
    let readable = match aborted {
        true => matches!(message.get("content"), Some(Json::Array(_))),
        false => message.get("content").is_some() || message.get("text").is_some(),
    };
    if !assistant || !readable {
        return Ending::NotReply;
    }
    // Only a message that names the assistant is checked for the token (as the UI does).
    let names_assistant =
        matches!(role, Some(Json::String(r)) if r.to_string_lossy().to_lowercase() == "assistant");
    let text = match message.get("text") {
        Some(Json::String(text)) => Some(text.clone()),
        _ => visible_text(message),
    };
    match text {
        Some(text) if names_assistant && is_silent(&text) => Ending::Silent,
        _ => Ending::Reply(message),
    }
}

/// A message's text as OpenClaw's UI extracts it (`extractText`): a string `content`, the
/// `text` blocks joined by line breaks, else a `text` field.
fn visible_text(message: &Json) -> Option<Wtf8> {
    match message.get("content") {
        Some(Json::String(text)) => return Some(text.clone()),
        Some(Json::Array(blocks)) => {
            let mut joined: Option<Wtf8> = None;
            for block in blocks {
                if let (Some(b"text"), Some(Json::String(text))) =
                    (tag(block, "type").as_deref(), block.get("text"))
                {
                    let all = joined.get_or_insert_with(Wtf8::new);
                    if !all.is_empty() {
                        all.push_wtf8(b"\n");
                    }
                    all.push_wtf8(text.as_bytes());
                }
            }
            if joined.is_some() {
                return joined;
            }
        }
        _ => {}
    }
    message.get("text").and_then(Json::as_str).cloned()
}

/// A chunk's text, when it is of the kind asked for.
fn text_of(chunk: &FormatChunk, thinking: bool) -> Option<&Wtf8> {
    match chunk {
        Chunk::Text { text } if !thinking => Some(text),
        Chunk::Thinking { text, .. } if thinking => Some(text),
        _ => None,
    }
}

/// `chunks` with their text of one kind (`thinking` or not) replaced by `target`: the
/// first chunk of that kind holds it, the others go (all of them when it is empty).
fn rewritten(chunks: Vec<FormatChunk>, thinking: bool, target: &Wtf8) -> Vec<FormatChunk> {
    let mut placed = false;
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        if text_of(&chunk, thinking).is_none() {
            out.push(chunk);
            continue;
        }
        if placed || target.is_empty() {
            continue;
        }
        placed = true;
        out.push(match chunk {
            Chunk::Thinking { metadata, .. } => Chunk::Thinking {
                text: target.clone(),
                metadata,
            },
            _ => Chunk::Text { text: target.clone() },
        });
    }
    out
}

/// The whole text and thinking a chat frame's `message` holds (`None` for a kind it holds
/// no block of): the last block of each kind, as the gateway writes one of each; a string
/// `content`, or a `text` beside no `content`, is the text.
fn message_texts(message: &Json) -> (Option<&Wtf8>, Option<&Wtf8>) {
    let (mut thinking, mut text) = (None, None);
    match message.get("content") {
        Some(Json::String(t)) => text = Some(t),
        Some(Json::Array(blocks)) => {
            for block in blocks {
                match tag(block, "type").as_deref() {
                    Some(b"thinking") => thinking = block.get("thinking").and_then(Json::as_str),
                    Some(b"text") => text = block.get("text").and_then(Json::as_str),
                    _ => {}
                }
            }
        }
        None => text = message.get("text").and_then(Json::as_str),
        _ => {}
    }
    (thinking, text)
}

impl Gateway {
    /// The assistant message the reply's next words go to: the open one, or a new one
    /// (after a tool's result, or when none is open), whose part of the run's text begins
    /// after `text_before` and `thinking_before` bytes.
    fn reply_from(&mut self, out: &mut Folded, text_before: usize, thinking_before: usize) {
        if self.after_result || out.open_role() != Some(MessageRole::Assistant) {
            out.begin(MessageRole::Assistant, None);
            self.after_result = false;
            self.text_before = text_before;
            self.thinking_before = thinking_before;
        }
    }

    fn reply(&mut self, out: &mut Folded) {
        self.reply_from(out, self.text.as_bytes().len(), self.thinking.as_bytes().len());
    }

    fn run_ends(&mut self, out: &mut Folded) {
        out.end(None);
        self.text = Wtf8::new();
        self.thinking = Wtf8::new();
        self.text_before = 0;
        self.thinking_before = 0;
        self.after_result = false;
        self.run = None;
    }

    /// A `final` (or `aborted`) frame's message: what OpenClaw shows of the run's reply, and
    /// what a reload of the session shows. The open message ends as it holds it: grown
    /// when the message extends what streamed, replaced when it does not (a reply
    /// rewritten, a partial the final replaces), never glued onto it. A kind of text the
    /// message holds no block of keeps what streamed; so does a message that does not
    /// start with the text the run's earlier messages hold (they are stored already).
    fn ends_as(&mut self, message: Option<&Json>, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let Some(message) = message.filter(|m| !matches!(m, Json::Null)) else {
            return Ok(());
        };
        object(message, "payload.message")?;
        let open = out.open_role() == Some(MessageRole::Assistant) && !self.after_result;
        if !open {
            // Nothing of this run is open: the message's new part begins its own.
            return self.content(Some(message), out, skips);
        }
        let (thinking, text) = message_texts(message);
        // A text of white space only is no text the UI shows: what streamed stays.
        let text = text.filter(|t| !is_blank(t));
        let mut chunks = out.message(out.len() - 1).2.to_vec();
        let mut replaced = false;
        for (is_thinking, now) in [(true, thinking), (false, text)] {
            let Some(now) = now else { continue };
            let (seen, before) = match is_thinking {
                true => (&self.thinking, self.thinking_before),
                false => (&self.text, self.text_before),
            };
            let earlier = seen.as_bytes().get(..before);
            let Some(target) = earlier
                .and_then(|earlier| now.as_bytes().strip_prefix(earlier))
                .map(|rest| Wtf8::from_wtf8_unchecked(rest.to_vec()))
            else {
                // The final rewrote an earlier message's part: add what is new, as a delta would.
                if let Some(delta) = fresh(seen, now) {
                    let event = match is_thinking {
                        true => AgentEvent::ReasoningDelta { delta },
                        false => AgentEvent::TextDelta { delta },
                    };
                    out.apply(event);
                    chunks = out.message(out.len() - 1).2.to_vec();
                }
                self.set_seen(is_thinking, now);
                continue;
            };
            let mut built = Wtf8::new();
            for chunk in &chunks {
                if let Some(t) = text_of(chunk, is_thinking) {
                    built.push_wtf8(t.as_bytes());
                }
            }
            if trimmed(built.as_bytes()) == trimmed(target.as_bytes()) {
                // The final reply is trimmed: what streamed is the stored text.
            } else if let Some(rest) = target.as_bytes().strip_prefix(built.as_bytes()) {
                let delta = Wtf8::from_wtf8_unchecked(rest.to_vec());
                out.apply(match is_thinking {
                    true => AgentEvent::ReasoningDelta { delta },
                    false => AgentEvent::TextDelta { delta },
                });
                chunks = out.message(out.len() - 1).2.to_vec();
            } else {
                chunks = rewritten(chunks, is_thinking, &target);
                replaced = true;
            }
            self.set_seen(is_thinking, now);
        }
        if replaced {
            out.replace_open(chunks);
        }
        Ok(())
    }

    fn set_seen(&mut self, thinking: bool, now: &Wtf8) {
        match thinking {
            true => self.thinking = now.clone(),
            false => self.text = now.clone(),
        }
    }

    /// The new thinking and text of a chat frame's cumulative `message`. A text of white
    /// space only is not shown (OpenClaw's UI keeps no reply of it): it is not taken as
    /// seen, so the white space comes with the first text after it.
    fn content(&mut self, message: Option<&Json>, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let Some(message) = message.filter(|m| !matches!(m, Json::Null)) else {
            return Ok(());
        };
        object(message, "payload.message")?;
        let (thinking, text) = message_texts(message);
        // Where the run's text and thinking stood before this frame: a message this frame
        // begins holds what follows.
        let before = (self.text.as_bytes().len(), self.thinking.as_bytes().len());
        for (is_thinking, now) in [(true, thinking), (false, text)] {
            let Some(now) = now else { continue };
            if !is_thinking && is_blank(now) && !now.is_empty() {
                skips.pass(BLANK);
                continue;
            }
            let seen = if is_thinking { &self.thinking } else { &self.text };
            let Some(delta) = fresh(seen, now) else { continue };
            self.set_seen(is_thinking, now);
            if delta.is_empty() {
                continue;
            }
            self.reply_from(out, before.0, before.1);
            out.apply(match is_thinking {
                true => AgentEvent::ReasoningDelta { delta },
                false => AgentEvent::TextDelta { delta },
            });
        }
        Ok(())
    }

    fn chat(&mut self, payload: &Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let state = tag(payload, "state");
        if matches!(
            state.as_deref(),
            Some(b"delta" | b"final" | b"aborted" | b"error")
        ) {
            let run = payload.get("runId").and_then(Json::as_str);
            match (&self.run, run) {
                // OpenClaw's UI passes over the chat frames of another run while its own
                // is active (its final shows as a message of its own: not this reply).
                (Some(active), Some(run)) if active != run => {
                    return skips.skip(line, "a chat frame of another run while one is active");
                }
                (None, Some(run)) => self.run = Some(run.clone()),
                _ => {}
            }
        }
        match state.as_deref() {
            Some(b"delta") => {
                // The gateway writes one text block: its text is what the UI tests.
                let message = payload.get("message").filter(|m| matches!(m, Json::Object(_)));
                match message.and_then(|m| message_texts(m).1) {
                    Some(text) if is_silent(text) => skips.pass(SILENT),
                    _ => self.content(payload.get("message"), out, skips)?,
                }
            }
            Some(b"final") => {
                self.end_with(payload.get("message"), false, line, out, skips)?;
                self.run_ends(out);
            }
            Some(b"error") => {
                self.reply_unless_open(out);
                let error = optional_string(payload, "errorMessage", "payload")?.cloned();
                out.apply(AgentEvent::Error {
                    error: error.unwrap_or_else(|| Wtf8::from(crate::formats::pi::session::UNKNOWN_ERROR)),
                    status_code: None,
                });
                self.run_ends(out);
            }
            Some(b"aborted") => {
                self.end_with(payload.get("message"), true, line, out, skips)?;
                self.reply_unless_open(out);
                out.apply(AgentEvent::Error {
                    error: Wtf8::from(ABORTED),
                    status_code: None,
                });
                self.run_ends(out);
            }
            // How the run goes before the model answers (OpenClaw 2026.9:
            // `preparing_workspace`, `preparing_context`, `starting_model`, …).
            Some(b"status") => {}
            Some(other) => {
                let other = Wtf8::from_wtf8_unchecked(other.to_vec());
                skips.skip(line, format_args!("unknown chat state \"{other}\""))?;
            }
            None => skips.skip(line, "a chat frame without a \"state\"")?,
        }
        Ok(())
    }

    /// A `final` or `aborted` frame's message, as OpenClaw's UI takes it: the reply's, a
    /// silent one (counted, not shown), or not the reply at all (another role: skipped and
    /// counted, refused under `strict` before anything changes).
    fn end_with(
        &mut self,
        message: Option<&Json>,
        aborted: bool,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let state = if aborted { "an aborted" } else { "a final" };
        match ending(message, aborted) {
            Ending::None => Ok(()),
            Ending::Reply(message) => self.ends_as(Some(message), out, skips),
            Ending::Silent => {
                skips.pass(SILENT);
                Ok(())
            }
            Ending::NotReply => skips.skip(
                line,
                format_args!("{state} frame whose message is not the assistant's reply (the reply ends as it streamed)"),
            ),
        }
    }

    /// A tool's progress or result whose start was not seen (the capture began after
    /// it): the call, by the name (and arguments) the frame gives, as pi's screen shows
    /// an execution no message announced.
    fn unseen_call(&mut self, data: &Json, out: &mut Folded) {
        let Some(id) = data.get("toolCallId").and_then(Json::as_str) else {
            return;
        };
        if out.has_call(id) {
            return;
        }
        let name = data
            .get("name")
            .and_then(Json::as_str)
            .cloned()
            .unwrap_or_default();
        let arguments = data.get("args").cloned().unwrap_or(Json::Undefined);
        self.reply_unless_open(out);
        out.apply(AgentEvent::ToolCall {
            id: id.clone(),
            name,
            arguments,
        });
    }

    /// An error ends the reply it interrupts, or one of its own.
    fn reply_unless_open(&mut self, out: &mut Folded) {
        if out.open_role() != Some(MessageRole::Assistant) {
            out.begin(MessageRole::Assistant, None);
        }
    }

    fn agent(
        &mut self,
        payload: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let data = payload.get("data").unwrap_or(&Json::Undefined);
        let stream = tag(payload, "stream");
        // OpenClaw's own UI passes over a tool frame that names no call (a card cannot be
        // kept or found without its id: `handleAgentEvent` in ui/src/ui/app-tool-stream.ts):
        // skipped and counted, never the whole capture refused for it.
        if stream.as_deref() == Some(b"tool")
            && matches!(data.get("toolCallId"), None | Some(Json::Undefined | Json::Null))
        {
            return skips.skip(line, "a tool frame without a \"toolCallId\"");
        }
        match (stream.as_deref(), tag(data, "phase").as_deref()) {
            (Some(b"tool"), Some(b"start")) => {
                self.reply_unless_open(out);
                out.apply(AgentEvent::ToolCall {
                    id: string(data, "toolCallId", "payload.data")?.clone(),
                    name: string(data, "name", "payload.data")?.clone(),
                    arguments: data.get("args").cloned().unwrap_or(Json::Null),
                });
            }
            (Some(b"tool"), Some(b"result")) => {
                self.unseen_call(data, out);
                let result = match data.get("result") {
                    Some(result @ Json::Object(_)) => match result.get("content") {
                        Some(content) => content.clone(),
                        None => result.clone(),
                    },
                    Some(other) => other.clone(),
                    None => Json::Undefined,
                };
                out.apply_result(AgentEvent::ToolResult {
                    tool_call_id: string(data, "toolCallId", "payload.data")?.clone(),
                    result: tool_result_value(result),
                    is_error: data.get("isError").cloned().unwrap_or(Json::Bool(false)),
                });
                self.after_result = true;
            }
            (Some(b"lifecycle"), Some(b"start")) => self.run_ends(out),
            // Progress: the result comes whole.
            (Some(b"tool"), Some(b"update")) => self.unseen_call(data, out),
            (Some(b"tool"), phase) => {
                let phase = Wtf8::from_wtf8_unchecked(phase.unwrap_or_default().to_vec());
                skips.skip(line, format_args!("unknown tool phase \"{phase}\""))?;
            }
            // The chat frames carry the text, the final reply and the error; the other
            // streams (lifecycle, assistant, thinking, …) say it again or say how the run goes.
            _ => {}
        }
        Ok(())
    }
}

impl LiveFold for Gateway {
    /// The reply's text and thinking as the last chat frame gave them whole (the next one
    /// adds what is new since), and whether a tool's result came since.
    fn save(&self) -> Json {
        use crate::reading::resume::number;
        Json::object([
            ("text", Json::String(self.text.clone())),
            ("thinking", Json::String(self.thinking.clone())),
            ("textBefore", number(self.text_before)),
            ("thinkingBefore", number(self.thinking_before)),
            ("afterResult", Json::Bool(self.after_result)),
            ("run", crate::reading::resume::optional(self.run.as_ref())),
        ])
    }

    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        use crate::reading::resume::{count, flag, object, optional_text};
        object(state)?;
        self.text = optional_text(state, "text")?.unwrap_or_default();
        self.thinking = optional_text(state, "thinking")?.unwrap_or_default();
        // A state saved before these were kept: the open message holds the run's text whole.
        let before = |key| match state.get(key) {
            None => Ok(0),
            Some(_) => count(state, key),
        };
        self.text_before = before("textBefore")?;
        self.thinking_before = before("thinkingBefore")?;
        // Offsets in bytes of the texts, at a code point's first byte.
        let fits = |at: usize, text: &Wtf8| match text.as_bytes().get(at) {
            Some(b) => b & 0xC0 != 0x80,
            None => at == text.as_bytes().len(),
        };
        if !fits(self.text_before, &self.text) || !fits(self.thinking_before, &self.thinking) {
            return Err(
                ".textBefore and .thinkingBefore must each end a part of the text and thinking".into(),
            );
        }
        self.after_result = flag(state, "afterResult")?;
        self.run = optional_text(state, "run")?;
        Ok(())
    }

    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        match tag(&value, "type").as_deref() {
            Some(b"event") => {
                let payload = value.get("payload").unwrap_or(&Json::Undefined);
                match tag(&value, "event").as_deref() {
                    Some(b"chat") => {
                        object(payload, "payload")?;
                        self.chat(payload, line, out, skips)
                    }
                    Some(b"agent") => {
                        object(payload, "payload")?;
                        self.agent(payload, line, out, skips)
                    }
                    // The rest of the gateway's control plane (presence, ticks, health,
                    // cron, pairing, approvals, …, more with each version): nothing a
                    // message keeps.
                    Some(_) => Ok(()),
                    None => skips.skip(line, "an event frame without an \"event\" name"),
                }
            }
            // Responses to requests, and the handshake.
            Some(b"res") | Some(b"req") | Some(b"hello-ok") => Ok(()),
            Some(b"final") => {
                self.run_ends(out);
                Ok(())
            }
            Some(b"delta" | b"thinking-delta" | b"thinking-end" | b"tool-start" | b"tool-end") => {
                let events = gateway_events(&value)?;
                let is_result = tag(&value, "type").as_deref() == Some(b"tool-end");
                if is_result {
                    self.unseen_call(&value, out);
                }
                for event in events {
                    match event {
                        AgentEvent::ToolResult { .. } => out.apply_result(event),
                        AgentEvent::TextDelta { .. } | AgentEvent::ReasoningDelta { .. } => {
                            self.reply(out);
                            out.apply(event);
                        }
                        other => {
                            self.reply_unless_open(out);
                            out.apply(other);
                        }
                    }
                }
                if is_result {
                    self.after_result = true;
                }
                Ok(())
            }
            _ => {
                let shown = tag(&value, "type").map(Wtf8::from_wtf8_unchecked);
                match shown {
                    Some(kind) => skips.skip(line, format_args!("unknown frame type \"{kind}\"")),
                    None => skips.skip(line, "a frame without a \"type\""),
                }
            }
        }
    }
}
