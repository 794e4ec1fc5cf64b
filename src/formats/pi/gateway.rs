//! OpenClaw's live stream, folded into the messages its session files hold (pi's own
//! agent events are [`crate::formats::pi::events`]).
//!
//! **OpenClaw gateway frames** (`{"type":"event","event":…,"payload":…}`): a `chat`
//! frame's `message.content` is the whole reply so far (thinking and text), so only what
//! is new since the last frame is folded; a change that does not extend it adds the part
//! after where they part, so no text is lost. `final` ends the reply, `error` adds its
//! `errorMessage`, `aborted` adds "Operation aborted", as pi's UI words them. `agent`
//! frames on the `tool` stream give the calls (`start`) and results (`result`; a result or
//! `update` of a call whose start was not seen makes the call first, by its `name`; a
//! tool frame without a `toolCallId`, which OpenClaw's UI passes over, is skipped and
//! counted), and a reply that goes on after a tool's result is the next stored message,
//! as pi writes it. A `chat` frame of state `status` (OpenClaw 2026.9: how the run is
//! being prepared) keeps nothing.
//! The seed's shorthand (`delta`, `thinking-delta`, `thinking-end`, `tool-start`,
//! `tool-end`, `final`) is the same stream simplified: its deltas are increments.

use crate::model::{AgentEvent, MessageRole};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::pi::session::{ABORTED, UNKNOWN_PROVIDER};
use crate::reading::blocks::{signature_metadata, tool_result_value};
use crate::reading::check::{object, optional_string, string, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::FormatEvent;

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

/// What a cumulative text adds to what was seen: the new suffix, or, when it does not
/// extend it, everything after where the two part. A text that only lost surrounding
/// white space (the final reply is trimmed) adds nothing.
fn fresh(seen: &mut Wtf8, now: &Wtf8) -> Option<Wtf8> {
    let (old, new) = (seen.as_bytes(), now.as_bytes());
    let trimmed = |b: &[u8]| {
        let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
        let end = b
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .map_or(start, |e| e + 1);
        b[start..end].to_vec()
    };
    if new.len() <= old.len() && trimmed(old).starts_with(&trimmed(new)) {
        return None;
    }
    let mut at = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    // Part at a code point's first byte.
    while at > 0 && at < new.len() && new[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    let added = Wtf8::from_wtf8_unchecked(new[at..].to_vec());
    *seen = now.clone();
    (!added.is_empty()).then_some(added)
}

/// OpenClaw's gateway frames, and the seed's shorthand of them.
#[derive(Debug, Default)]
pub struct Gateway {
    text: Wtf8,
    thinking: Wtf8,
    /// A tool's result arrived: the reply's next words are the next stored message.
    after_result: bool,
}

impl Gateway {
    fn reply(&mut self, out: &mut Folded) {
        if self.after_result || out.open_role() != Some(MessageRole::Assistant) {
            out.begin(MessageRole::Assistant, None);
            self.after_result = false;
        }
    }

    fn run_ends(&mut self, out: &mut Folded) {
        out.end(None);
        self.text = Wtf8::new();
        self.thinking = Wtf8::new();
        self.after_result = false;
    }

    /// The new thinking and text of a chat frame's cumulative `message`.
    fn content(&mut self, message: Option<&Json>, out: &mut Folded) -> FormatResult<()> {
        let Some(message) = message.filter(|m| !matches!(m, Json::Null)) else {
            return Ok(());
        };
        object(message, "payload.message")?;
        let mut thinking = None;
        let mut text = None;
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
            _ => {}
        }
        if let Some(delta) = thinking.and_then(|t| fresh(&mut self.thinking, t)) {
            self.reply(out);
            out.apply(AgentEvent::ReasoningDelta { delta });
        }
        if let Some(delta) = text.and_then(|t| fresh(&mut self.text, t)) {
            self.reply(out);
            out.apply(AgentEvent::TextDelta { delta });
        }
        Ok(())
    }

    fn chat(&mut self, payload: &Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        match tag(payload, "state").as_deref() {
            Some(b"delta") => self.content(payload.get("message"), out)?,
            Some(b"final") => {
                self.content(payload.get("message"), out)?;
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
                self.content(payload.get("message"), out)?;
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
        Json::object([
            ("text", Json::String(self.text.clone())),
            ("thinking", Json::String(self.thinking.clone())),
            ("afterResult", Json::Bool(self.after_result)),
        ])
    }

    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        use crate::reading::resume::{flag, object, optional_text};
        object(state)?;
        self.text = optional_text(state, "text")?.unwrap_or_default();
        self.thinking = optional_text(state, "thinking")?.unwrap_or_default();
        self.after_result = flag(state, "afterResult")?;
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
