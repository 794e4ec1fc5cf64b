//! The live folds of the agent-event, ACP and Solar Network streams: where each one's
//! turns begin and end. (Pi's and OpenClaw's are in [`crate::formats::pi::gateway`].)
//!
//! - `events`: a `turn-start` begins an assistant message (its `turnId` the id); a
//!   content event (`text-delta` … `config-reload`) begins one when none is open;
//!   lifecycle events do nothing.
//! - `acp`: the fold of [`crate::formats::acp::fold`], which the `acp` history reads by too: user
//!   and agent messages by `messageId`, tool calls as their latest updates left them.
//! - `sn-stream`: a `thought` event (the persisted message) ends the turn and names it.

use std::cell::Cell;

use crate::bytes::event::decode_fields;
use crate::bytes::scan::{scan, Fields, Node as Scanned};
use crate::decode::{decode_event, EventSource, Field, InvalidEvent, ValueType};
use crate::formats::acp::updates::Payload;
use crate::model::{AgentEvent, EventType, LifecycleKind, MessageRole, ShellStream};
use crate::reading::value_source::Node;

use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::formats::sn::thought as sn;
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::FormatEvent;

/// Agent events as parsed JSON values, checked as the drop-in checks JavaScript ones.
struct JsonEvents;

impl EventSource for JsonEvents {
    type Text = Wtf8;
    type Value = Json;
    type Error = InvalidEvent;

    fn field(&self, object: &Json, field: Field) -> Result<Json, InvalidEvent> {
        Ok(match object {
            Json::Object(_) => object.get(field.key()).cloned().unwrap_or(Json::Undefined),
            _ => Json::Undefined,
        })
    }

    fn value_type(&self, value: &Json) -> Result<ValueType, InvalidEvent> {
        Ok(value.kind())
    }

    fn text(&self, value: Json) -> Result<Wtf8, InvalidEvent> {
        Ok(match value {
            Json::String(text) => text,
            _ => Wtf8::new(),
        })
    }

    fn event_type(&self, value: &Json) -> Result<Option<EventType>, InvalidEvent> {
        Ok(value.as_str().map(|tag| EventType::from_tag(tag.as_bytes())))
    }

    fn shell_stream(&self, value: &Json) -> Result<Option<ShellStream>, InvalidEvent> {
        Ok(value.as_str().map(|name| match name.as_bytes() {
            b"stdout" => ShellStream::Stdout,
            b"stderr" => ShellStream::Stderr,
            _ => ShellStream::Other,
        }))
    }

    fn number(&self, value: &Json) -> Result<f64, InvalidEvent> {
        Ok(value.as_f64().unwrap_or(f64::NAN))
    }
}

/// One agent event from its JSON value.
pub fn agent_event(value: &Json) -> FormatResult<FormatEvent> {
    decode_event(&JsonEvents, value).map_err(|e| FormatError::new("", e.to_string()))
}

/// The `events` stream. Its first value decides what it is: agent events, or an AI SDK
/// UI message stream (folded as `ai-sdk` is), as `ChunkStream` tells them apart.
#[derive(Debug, Default)]
pub struct Events {
    /// `None` until the first value; then the UI stream's fold, when it is one.
    ui: Option<Option<crate::formats::ai_sdk::chunks::UiStream>>,
}

impl LiveFold for Events {
    /// Whether the stream is agent events (`"agent-events"`) or a UI message stream (its
    /// state), once its first value decided it; `null` before.
    fn save(&self) -> Json {
        match &self.ui {
            None => Json::Null,
            Some(None) => Json::string("agent-events"),
            Some(Some(ui)) => ui.save_state(),
        }
    }

    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        self.ui = match state {
            Json::Null => None,
            Json::String(s) if *s == "agent-events" => Some(None),
            Json::Object(_) => Some(Some(crate::formats::ai_sdk::chunks::UiStream::restore_state(
                state,
            )?)),
            _ => return Err(" must be null, 'agent-events' or a UI message stream's state".into()),
        };
        Ok(())
    }

    /// Once the stream is known to be agent events, an event is decoded straight from its
    /// frame's bytes, as `reduceEvents` decodes them. A `turn-start`, an event of unknown
    /// type, a value that is no event and an invalid event are left to [`Events::push`],
    /// which says what each one is.
    fn push_frame(
        &mut self,
        bytes: &[u8],
        utf8: bool,
        _line: usize,
        out: &mut Folded,
        _skips: &mut Skips,
    ) -> Option<FormatResult<()>> {
        if !matches!(self.ui, Some(None)) {
            return None;
        }
        match event_from_bytes(bytes, utf8)? {
            AgentEvent::Lifecycle(LifecycleKind::TurnStart) | AgentEvent::Unknown => None,
            AgentEvent::Lifecycle(_) => Some(Ok(())),
            event => {
                out.apply(event);
                Some(Ok(()))
            }
        }
    }

    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let ui = match &mut self.ui {
            Some(ui) => ui,
            None => {
                // Decided for good only by a value that is taken: a refused one changes nothing.
                let first = crate::reading::format::Sniff::Values {
                    values: vec![value.clone()],
                    sse: false,
                    numbers: vec![line],
                };
                let mut ui = (crate::formats::ai_sdk::chunks::AI_SDK.detect)(&first, 0)
                    .then(crate::formats::ai_sdk::chunks::UiStream::default);
                let pushed = match &mut ui {
                    Some(ui) => ui.push(value, line, out, skips),
                    None => agent_events(value, line, out, skips),
                };
                if pushed.is_ok() {
                    self.ui = Some(ui);
                }
                return pushed;
            }
        };
        match ui {
            Some(ui) => ui.push(value, line, out, skips),
            None => agent_events(value, line, out, skips),
        }
    }
}

/// The agent event a frame's bytes hold, decoded without building the frame's value; `None`
/// when they are not a valid event with a string `type`, or may nest deeper than the
/// value reader accepts (which takes more openers than the limit, and as many closers:
/// a shorter frame cannot).
fn event_from_bytes(bytes: &[u8], utf8: bool) -> Option<FormatEvent> {
    let text = match utf8 {
        // SAFETY: the framer checked these bytes as part of a run of whole lines.
        true => unsafe { std::str::from_utf8_unchecked(bytes) },
        false => simdutf8::basic::from_utf8(bytes).ok()?,
    };
    if bytes.len() > 2 * value::MAX_DEPTH
        && bytes.iter().filter(|&&b| matches!(b, b'{' | b'[')).count() > value::MAX_DEPTH
    {
        return None;
    }
    let mut fields = Fields::default();
    if !scan(text, &mut fields).ok()? || !matches!(fields.get(Field::Type), Some(Scanned::String(_))) {
        return None;
    }
    // Set when a text or payload the scanner passed does not read as a value (it cannot).
    let unread = Cell::new(false);
    let event = decode_fields(text, &fields, |body| string_text(text, body, &unread)).ok()?;
    let event = event.map_payloads(|raw| match raw {
        None => Json::Undefined,
        Some(raw) => value::parse_str(raw).unwrap_or_else(|_| {
            unread.set(true);
            Json::Undefined
        }),
    });
    (!unread.get()).then_some(event)
}

/// The text of the JSON string whose escaped body `body` is in `source`: an escaped one is
/// read by the value reader, so that it is the very text the value would hold.
fn string_text(source: &str, body: &str, unread: &Cell<bool>) -> Wtf8 {
    if !body.contains('\\') {
        return Wtf8::from(body);
    }
    match value::parse_str(Scanned::String(body).raw(source)) {
        Ok(Json::String(text)) => text,
        _ => {
            unread.set(true);
            Wtf8::new()
        }
    }
}

/// An agent event (or a `turn-start`, which begins a message) folded into `out`.
fn agent_events(value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
    // Not an event at all: counted as a frame of no known type (an event of a known type
    // with a field of the wrong type is an error, as the drop-in makes it one).
    if !matches!(value, Json::Object(_)) {
        return skips.skip(line, "a value that is not an object");
    }
    if !matches!(value.get("type"), Some(Json::String(_))) {
        return skips.skip(line, "an event without a \"type\"");
    }
    if value
        .get("type")
        .and_then(Json::as_str)
        .is_some_and(|t| *t == "turn-start")
    {
        let id = value
            .get("turnId")
            .and_then(Json::as_str)
            .map(|t| t.to_string_lossy().into_owned());
        out.begin(MessageRole::Assistant, id);
        return Ok(());
    }
    let event = agent_event(&value)?;
    match event {
        AgentEvent::Lifecycle(_) => Ok(()),
        AgentEvent::Unknown => {
            let kind = value
                .get("type")
                .and_then(Json::as_str)
                .cloned()
                .unwrap_or_default();
            skips.skip(line, format_args!("unknown event type \"{kind}\""))
        }
        event => {
            out.apply(event);
            Ok(())
        }
    }
}

fn text(node: Node<'_>) -> Wtf8 {
    node.and_then(Json::as_str).cloned().unwrap_or_default()
}

/// ACP's events over tree values as owned events.
pub fn owned_event(event: AgentEvent<Node<'_>, Payload<Node<'_>>>) -> FormatEvent {
    let payload = |p: Payload<Node<'_>>| match p {
        Payload::Given(node) => node.cloned().unwrap_or(Json::Undefined),
        Payload::Undefined => Json::Undefined,
        Payload::Bool(b) => Json::Bool(b),
    };
    match event {
        AgentEvent::TextDelta { delta } => AgentEvent::TextDelta { delta: text(delta) },
        AgentEvent::ReasoningDelta { delta } => AgentEvent::ReasoningDelta { delta: text(delta) },
        AgentEvent::ToolCall { id, name, arguments } => AgentEvent::ToolCall {
            id: text(id),
            name: text(name),
            arguments: payload(arguments),
        },
        AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error,
        } => AgentEvent::ToolResult {
            tool_call_id: text(tool_call_id),
            result: payload(result),
            is_error: payload(is_error),
        },
        // `acp::to_agent_events` makes no other event.
        _ => AgentEvent::Unknown,
    }
}

/// The `sn-stream` stream.
#[derive(Debug, Default)]
pub struct SnStream;

impl LiveFold for SnStream {
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        match value.get("type") {
            Some(Json::String(kind)) if sn::is_stream_type(kind) => {}
            Some(Json::String(kind)) => {
                return skips.skip(line, format_args!("unknown event type \"{kind}\""))
            }
            _ => return skips.skip(line, "an event without a \"type\""),
        }
        let events = sn::stream_events(&value)?;
        let is_thought = value
            .get("type")
            .and_then(Json::as_str)
            .is_some_and(|t| *t == "thought");
        for event in events {
            out.apply(event);
        }
        if is_thought {
            let id = value
                .get("data")
                .and_then(|d| d.get("id"))
                .and_then(Json::as_str)
                .map(|id| id.to_string_lossy().into_owned());
            out.end(id);
        }
        Ok(())
    }
}

// ─── Rows of the table ───────────────────────────────────────────────────────────

use crate::history;
use crate::reading::format::{is_object, near_nothing, tag, Format, Sniff};

/// The update of an ACP line: a notification (`{ sessionId, update }`), a bare update,
/// or a JSON-RPC `session/update` request.
fn acp_update(value: &Json) -> Option<&Json> {
    let notification = match (tag(value, "method"), value.get("params")) {
        (Some(b"session/update"), Some(params @ Json::Object(_))) => params,
        _ => value,
    };
    match notification.get("update") {
        Some(update @ Json::Object(_)) => Some(update),
        _ => is_object(notification).then_some(notification),
    }
}

const AGENT_EVENT_TYPES: &[&[u8]] = &[
    b"text-delta",
    b"reasoning-delta",
    b"reasoning-end",
    b"tool-call",
    b"tool-result",
    b"shell-output",
    b"error",
    b"notice",
    b"model-changed",
    b"config-reload",
    b"status",
    b"turn-start",
    b"turn-sealed",
    b"done",
    b"usage",
    b"task-list-update",
    b"tab-created",
    b"message-queued",
    b"message-consumed",
    b"message-cancelled",
    b"compaction-started",
    b"compaction-complete",
    b"compaction-error",
];

const SN_STREAM_TYPES: &[&[u8]] = &[
    b"text",
    b"function_call_update",
    b"function_call",
    b"function_result",
    b"topic",
    b"thought",
];

fn has_type_in(value: &Json, types: &[&[u8]]) -> bool {
    tag(value, "type").is_some_and(|t| types.contains(&t))
}

/// Whether a line is ACP's: a notification or update, or (wrapped in a traffic-log
/// record or not) a JSON-RPC message of ACP's.
fn is_acp_line(line: &Json) -> bool {
    if acp_update(line).is_some_and(|update| tag(update, "sessionUpdate").is_some()) {
        return true;
    }
    crate::formats::acp::rpc::message(line).is_some_and(|message| crate::formats::acp::rpc::is_acp(&message))
}

pub const ACP: Format = Format {
    name: "acp",
    summary: "ACP session/update notifications, or the JSON-RPC traffic around them (an agent's output, a client's log), NDJSON",
    detect: |sniff, at| sniff.line(at).is_some_and(is_acp_line),
    near: |line| {
        crate::formats::acp::rpc::message(line)
            .is_some_and(|m| m.get("jsonrpc").is_some())
            .then_some("JSON-RPC messages, none of them ACP's")
    },
    history: Some(history::read_acp_history),
    // The same rules as the history: message ids, titles, plans, tool call updates.
    leaves: false,
    stream: Some((|| Box::new(crate::formats::acp::fold::AcpLive::default()), "turn")),
    write: None,
};

pub const CHATVIEWER: Format = Format {
    name: "chatviewer",
    summary: "a ChatViewer transcript, JSONL or a JSON array of ChatMessageData",
    detect: |sniff, at| match sniff {
        Sniff::Array(Some(first)) => is_object(first) && first.get("uuid").is_some(),
        _ => sniff.line(at).is_some_and(|line| {
            line.get("uuid").and_then(Json::as_str).is_some()
                && matches!(tag(line, "type"), Some(b"user" | b"assistant" | b"tool_call"))
        }),
    },
    near: near_nothing,
    history: Some(history::read_chatviewer_history),
    leaves: false,
    stream: None,
    write: None,
};

pub const SN: Format = Format {
    name: "sn",
    summary: "Solar Network thoughts, a JSON array or one per line",
    near: near_nothing,
    detect: |sniff, at| match sniff {
        Sniff::Array(Some(first)) => is_object(first) && first.get("parts").is_some(),
        _ => sniff.line(at).is_some_and(|line| {
            line.get("id").and_then(Json::as_str).is_some()
                && matches!(line.get("parts"), Some(Json::Array(_)))
                && line.get("role").is_some()
        }),
    },
    history: Some(history::read_sn),
    leaves: false,
    stream: None,
    write: None,
};

pub const SN_STREAM: Format = Format {
    name: "sn-stream",
    summary: "Solar Network stream events, an SSE capture or NDJSON",
    detect: |sniff, at| {
        !sniff.is_array()
            && sniff
                .value(at)
                .is_some_and(|v| has_type_in(v, SN_STREAM_TYPES) && v.get("data").is_some())
    },
    near: near_nothing,
    history: None,
    leaves: false,
    stream: Some((|| Box::new(SnStream), "turn")),
    write: None,
};

pub const EVENTS: Format = Format {
    name: "events",
    summary: "agent events, NDJSON or an SSE capture (one assistant message per turn)",
    detect: |sniff, at| {
        !sniff.is_array() && sniff.value(at).is_some_and(|v| has_type_in(v, AGENT_EVENT_TYPES))
    },
    near: |value| tag(value, "type").map(|_| "objects tagged by \"type\", none of an agent event type"),
    history: Some(history::read_events),
    leaves: false,
    stream: Some((|| Box::new(Events::default()), "turn")),
    write: None,
};
