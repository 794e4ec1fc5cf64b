//! The drop-in's own agent events (`text-delta`, `tool-call`, `turn-start` …), NDJSON or
//! SSE, folded live into one assistant message per turn: a `turn-start` begins one (its
//! `turnId` the id); a content event begins one when none is open; lifecycle events do
//! nothing. Recorded, the same fold reads it as a history.

mod write;

use std::cell::Cell;

use crate::bytes::event::decode_fields;
use crate::bytes::scan::{scan, Fields, Node as Scanned};
use crate::bytes::value::{self, Json};
use crate::bytes::wtf8::Wtf8;
use crate::decode::{decode_event, EventSource, Field, InvalidEvent, ValueType};
use crate::model::{AgentEvent, EventType, LifecycleKind, MessageRole, ShellStream};
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::format::{Format, History, Write};
use crate::reading::model_json::FormatEvent;
use crate::reading::sniff::{tag, tag_in, Sniff};

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

/// The `events` stream. Its first value decides what it is: agent events, or a stream of
/// a format the bytes path also reads (folded as that format is), as `ChunkStream` tells
/// them apart.
pub struct Events {
    /// The table: the formats that may turn out to be what the stream carries.
    formats: &'static [Format],
    /// `None` until the first value; then the other format's fold, when it is one.
    other: Option<Option<Box<dyn LiveFold>>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("decided", &self.other.as_ref().map(Option::is_some))
            .finish()
    }
}

impl Events {
    pub fn new(formats: &'static [Format]) -> Self {
        Events { formats, other: None }
    }

    /// The formats of the table read on the bytes path too, with a live fold.
    fn others(&self) -> impl Iterator<Item = &'static Format> {
        self.formats
            .iter()
            .filter(|f| f.bytes.is_some() && f.stream.is_some())
    }
}

impl LiveFold for Events {
    /// Whether the stream is agent events (`"agent-events"`) or another format's (its
    /// fold's state), once its first value decided it; `null` before.
    fn save(&self) -> Json {
        match &self.other {
            None => Json::Null,
            Some(None) => Json::string("agent-events"),
            Some(Some(fold)) => fold.save(),
        }
    }

    fn restore(&mut self, state: &Json, messages: &Folded) -> Result<(), String> {
        self.other = match state {
            Json::Null => None,
            Json::String(s) if *s == "agent-events" => Some(None),
            Json::Object(_) => {
                let format = self
                    .others()
                    .next()
                    .ok_or(" names another format's state, and no other format is read here")?;
                let (new_fold, _) = format.stream.expect("others() have a live fold");
                let mut fold = new_fold(self.formats);
                fold.restore(state, messages)?;
                Some(Some(fold))
            }
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
        if !matches!(self.other, Some(None)) {
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
        let other = match &mut self.other {
            Some(other) => other,
            None => {
                // Decided for good only by a value that is taken: a refused one changes nothing.
                let first = Sniff::Values {
                    values: vec![value.clone()],
                    sse: false,
                    numbers: vec![line],
                };
                let formats = self.formats;
                let mut other = self
                    .others()
                    .find(|format| (format.detect)(&first, 0))
                    .and_then(|format| format.stream)
                    .map(|(new_fold, _)| new_fold(formats));
                let pushed = match &mut other {
                    Some(fold) => fold.push(value, line, out, skips),
                    None => agent_events(value, line, out, skips),
                };
                if pushed.is_ok() {
                    self.other = Some(other);
                }
                return pushed;
            }
        };
        match other {
            Some(fold) => fold.push(value, line, out, skips),
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

pub const EVENTS: Format = Format {
    name: "events",
    summary: "agent events, NDJSON or an SSE capture (one assistant message per turn)",
    detect: |sniff, at| !sniff.is_array() && sniff.value(at).is_some_and(|v| tag_in(v, AGENT_EVENT_TYPES)),
    near: |value| tag(value, "type").map(|_| "objects tagged by \"type\", none of an agent event type"),
    history: Some(History::Recorded),
    stream: Some((|formats| Box::new(Events::new(formats)), "turn")),
    write: Some(Write {
        write: write::write_events,
        holds: &[MessageRole::Assistant],
    }),
    ..Format::NONE
};
