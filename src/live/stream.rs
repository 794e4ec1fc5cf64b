//! Bytes in, chunks out: frames are scanned, checked and folded by the one set of rules,
//! with no JavaScript object per event.

use std::fmt;

use crate::decode::Field;
use crate::decode::InvalidEvent;
use crate::model::{AgentEvent, Chunk, LifecycleKind};
use crate::owned::IndexedChunks;
use crate::reducer::append_event;

use crate::bytes::event::event_from_fields;
use crate::bytes::frame::{Frame, Framer, Framing};
use crate::bytes::scan::{scan, string_at, Fields, Node, SyntaxError};
use crate::bytes::text::{JsonText, Payload};
use crate::bytes::write::chunks_json;
use crate::formats::FORMATS;
use crate::reading::frames::{FrameMeaning as Meaning, FrameReader, FrameStep as Step};

/// What was wrong with a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameProblem {
    /// Not UTF-8; `at` is the offending byte's offset within the frame.
    InvalidUtf8 {
        at: usize,
    },
    Syntax(SyntaxError),
    NotAnObject,
    Invalid(InvalidEvent),
    /// The stream ended inside a frame.
    Truncated(SyntaxError),
    /// A frame of a format read on the bytes path (see [`BytesFace`]) that is not one:
    /// what a frame of the format is called, and the reason, with its path.
    Unreadable {
        frame: &'static str,
        reason: String,
    },
}

/// A frame that could not be folded, and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    /// Byte offset of the problem from the start of the stream.
    pub offset: u64,
    /// 1-based line of the frame.
    pub line: u64,
    pub problem: FrameProblem,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, byte {}: ", self.line, self.offset)?;
        match &self.problem {
            FrameProblem::InvalidUtf8 { .. } => write!(f, "invalid UTF-8"),
            FrameProblem::Syntax(e) => write!(f, "invalid JSON: {}", e.reason),
            FrameProblem::NotAnObject => write!(f, "an event must be a JSON object"),
            FrameProblem::Invalid(e) => write!(f, "{e}"),
            FrameProblem::Truncated(e) => write!(f, "the stream ends inside this frame ({})", e.reason),
            FrameProblem::Unreadable { frame, reason } => write!(f, "{frame}: {reason}"),
        }
    }
}

impl std::error::Error for StreamError {}

/// The chunks this path builds: text as JSON bodies, payloads as JSON source text.
pub type ByteChunk = Chunk<JsonText, Payload>;

/// A stream of NDJSON or SSE bytes folded into one message's chunks.
#[derive(Debug)]
pub struct EventStream {
    framer: Framer,
    chunks: IndexedChunks<JsonText, Payload>,
    events: u64,
    flavor: Flavor,
}

/// Which protocol the stream speaks, decided by its first frame: agent events, or a
/// format of the table read on the bytes path too (its `bytes` face).
#[derive(Debug, Default)]
enum Flavor {
    #[default]
    Undecided,
    AgentEvents,
    Other(Box<dyn FrameReader>),
}

fn frame_text<'f>(frame: &'f Frame<'_>) -> Result<&'f str, StreamError> {
    if frame.utf8 {
        // SAFETY: the framer checked these bytes as part of a run of whole lines.
        return Ok(unsafe { std::str::from_utf8_unchecked(&frame.bytes) });
    }
    std::str::from_utf8(&frame.bytes).map_err(|e| StreamError {
        offset: frame.offset + e.valid_up_to() as u64,
        line: frame.line,
        problem: FrameProblem::InvalidUtf8 { at: e.valid_up_to() },
    })
}

/// The reader of the format whose stream a first frame opens, when it is not agent events.
fn reader_for(text: &str) -> Option<Box<dyn FrameReader>> {
    FORMATS
        .iter()
        .filter_map(|format| format.bytes)
        .find(|face| (face.opens)(text))
        .map(|face| (face.reader)())
}

impl Flavor {
    /// The frame's meaning in a message of `len` chunks; the first frame decides the
    /// protocol.
    fn meaning(&mut self, frame: &Frame<'_>, at_end: bool, len: usize) -> Result<Meaning, StreamError> {
        if let Flavor::Undecided = self {
            *self = match reader_for(frame_text(frame)?) {
                Some(reader) => Flavor::Other(reader),
                None => Flavor::AgentEvents,
            };
        }
        match self {
            Flavor::Other(reader) => {
                let text = frame_text(frame)?;
                match reader.frame(text, len) {
                    Ok(meaning) => Ok(meaning),
                    Err(reason) => Err(StreamError {
                        offset: frame.offset,
                        line: frame.line,
                        problem: FrameProblem::Unreadable {
                            frame: reader.frame_name(),
                            reason,
                        },
                    }),
                }
            }
            _ => {
                let (event, turn_id) = frame_event(frame, at_end)?;
                Ok(match event {
                    AgentEvent::Lifecycle(LifecycleKind::TurnStart) => Meaning::Start(turn_id),
                    event => Meaning::Steps(vec![Step::Event(event)]),
                })
            }
        }
    }
}

/// A delta event written exactly as `JSON.stringify` writes it (most of a real stream):
/// recognised without the general scanner. Anything else, or anything invalid, is left to
/// the general path, which gives the same event or the error.
fn stringified_delta(text: &str) -> Option<AgentEvent<JsonText, Payload>> {
    let bytes = text.as_bytes();
    const TEXT: &[u8] = br#"{"type":"text-delta","delta":""#;
    const REASONING: &[u8] = br#"{"type":"reasoning-delta","delta":""#;
    let (start, reasoning) = if bytes.starts_with(TEXT) {
        (TEXT.len() - 1, false)
    } else if bytes.starts_with(REASONING) {
        (REASONING.len() - 1, true)
    } else {
        return None;
    };
    if !bytes.ends_with(b"\"}") {
        return None;
    }
    let text = &text[start..];
    let (body, end) = string_at(text, 0).ok()?;
    if end != text.len() - 1 {
        return None;
    }
    let delta = JsonText::from(body);
    Some(match reasoning {
        false => AgentEvent::TextDelta { delta },
        true => AgentEvent::ReasoningDelta { delta },
    })
}

/// Scans and checks one frame: its event, and the `turnId` string body when it has one.
fn frame_event(
    frame: &Frame<'_>,
    at_end: bool,
) -> Result<(AgentEvent<JsonText, Payload>, Option<JsonText>), StreamError> {
    let fail = |at: usize, problem| StreamError {
        offset: frame.offset + at as u64,
        line: frame.line,
        problem,
    };
    let text = if frame.utf8 {
        // SAFETY: the framer checked these bytes as part of a run of whole lines.
        unsafe { std::str::from_utf8_unchecked(&frame.bytes) }
    } else {
        std::str::from_utf8(&frame.bytes)
            .map_err(|e| fail(e.valid_up_to(), FrameProblem::InvalidUtf8 { at: e.valid_up_to() }))?
    };
    if let Some(event) = stringified_delta(text) {
        return Ok((event, None));
    }
    let mut fields = Fields::default();
    let is_object = scan(text, &mut fields).map_err(|e| {
        let truncated = at_end && e.at >= text.len();
        let at = e.at;
        fail(
            at,
            if truncated {
                FrameProblem::Truncated(e)
            } else {
                FrameProblem::Syntax(e)
            },
        )
    })?;
    if !is_object {
        return Err(fail(0, FrameProblem::NotAnObject));
    }
    let event = event_from_fields(text, &fields).map_err(|e| fail(0, FrameProblem::Invalid(e)))?;
    let turn_id = match fields.get(Field::TurnId) {
        Some(Node::String(body)) => Some(JsonText::from(*body)),
        _ => None,
    };
    Ok((event, turn_id))
}

/// Scans, checks and folds one frame; nothing changes unless all of it is valid. Returns
/// whether it was an event (the UI stream's `[DONE]` is not).
fn fold_frame(
    chunks: &mut IndexedChunks<JsonText, Payload>,
    flavor: &mut Flavor,
    frame: &Frame<'_>,
    at_end: bool,
) -> Result<bool, StreamError> {
    if let Flavor::AgentEvents = flavor {
        // The common case, without the detour through `Meaning`.
        let (event, _) = frame_event(frame, at_end)?;
        let Ok(()) = append_event(chunks, event);
        return Ok(true);
    }
    match flavor.meaning(frame, at_end, chunks.chunks().len())? {
        Meaning::Steps(steps) => {
            for step in steps {
                step.fold(chunks);
            }
            Ok(true)
        }
        // One stream folds into one message: a turn start is a lifecycle event.
        Meaning::Start(_) => Ok(true),
        Meaning::Nothing => Ok(false),
    }
}

impl EventStream {
    pub fn new(framing: Framing) -> Self {
        EventStream {
            framer: Framer::new(framing),
            chunks: IndexedChunks::new(),
            events: 0,
            flavor: Flavor::Undecided,
        }
    }

    /// Folds every complete frame in `bytes` (with what earlier pushes left over). On a
    /// bad frame, the frames before it are folded, it is dropped, the bytes after it wait
    /// for the next push, and the error says where it was.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), StreamError> {
        let (chunks, events, flavor) = (&mut self.chunks, &mut self.events, &mut self.flavor);
        self.framer.push(bytes, |frame| {
            *events += fold_frame(chunks, flavor, &frame, false)? as u64;
            Ok(())
        })
    }

    /// Folds what is left: a last line without a line break, a last SSE frame without a
    /// blank line. A frame cut short is reported as truncated, with its offset.
    pub fn end(&mut self) -> Result<(), StreamError> {
        let (chunks, events, flavor) = (&mut self.chunks, &mut self.events, &mut self.flavor);
        self.framer.finish(|frame| {
            *events += fold_frame(chunks, flavor, &frame, true)? as u64;
            Ok(())
        })
    }

    pub fn chunks(&self) -> &[ByteChunk] {
        self.chunks.chunks()
    }

    /// Events folded so far (lifecycle and unknown ones included).
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// The chunks as JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        chunks_json(self.chunks.chunks(), &mut out);
        out
    }
}

/// All events of `bytes`, folded, as JSON text.
pub fn reduce_to_json(bytes: &[u8], framing: Framing) -> Result<String, StreamError> {
    let mut stream = EventStream::new(framing);
    stream.push(bytes)?;
    stream.end()?;
    Ok(stream.to_json())
}

/// One turn of a recorded stream: the chunks its events build.
#[derive(Debug)]
pub struct Turn {
    /// The `turnId` of its `turn-start` event (a JSON string body), else `turn-<n>`.
    pub id: JsonText,
    pub chunks: Vec<ByteChunk>,
}

/// A turn being collected.
struct Open {
    id: Option<JsonText>,
    chunks: IndexedChunks<JsonText, Payload>,
    /// Begun by a `turn-start` (kept even when empty).
    explicit: bool,
}

/// The turns of a recorded stream, as its bytes arrive.
struct Turns<F> {
    open: Option<Open>,
    emitted: usize,
    stopped: bool,
    /// Agent events or another format's frames, told by the first frame.
    flavor: Flavor,
    emit: F,
}

impl<F: FnMut(Turn) -> bool> Turns<F> {
    fn close(&mut self) {
        if let Some(turn) = self
            .open
            .take()
            .filter(|t| t.explicit || !t.chunks.chunks().is_empty())
        {
            self.emitted += 1;
            let emitted = self.emitted;
            let id = turn.id.unwrap_or_else(|| JsonText(format!("turn-{emitted}")));
            self.stopped = !(self.emit)(Turn {
                id,
                chunks: turn.chunks.into_chunks(),
            });
        }
    }

    fn frame(&mut self, frame: Frame<'_>, at_end: bool) -> Result<(), StreamError> {
        if self.stopped {
            return Ok(());
        }
        let len = self.open.as_ref().map_or(0, |turn| turn.chunks.chunks().len());
        let steps = match self.flavor.meaning(&frame, at_end, len)? {
            Meaning::Start(id) => {
                self.close();
                self.open = Some(Open {
                    id,
                    chunks: IndexedChunks::new(),
                    explicit: true,
                });
                return Ok(());
            }
            Meaning::Nothing => return Ok(()),
            Meaning::Steps(steps) => steps,
        };
        let turn = self.open.get_or_insert_with(|| Open {
            id: None,
            chunks: IndexedChunks::new(),
            explicit: false,
        });
        for step in steps {
            step.fold(&mut turn.chunks);
        }
        Ok(())
    }
}

/// A recorded stream read as history, pushed a block at a time: each `turn-start` event
/// begins a new assistant turn; events before the first one form a turn of their own when
/// they build anything. `emit` gets each turn as soon as the next one begins (and the
/// last at [`TurnReader::finish`]), and returns `false` to stop reading.
pub struct TurnReader<F> {
    framer: Framer,
    turns: Turns<F>,
}

impl<F: FnMut(Turn) -> bool> TurnReader<F> {
    pub fn new(framing: Framing, emit: F) -> Self {
        TurnReader {
            framer: Framer::new(framing),
            turns: Turns {
                open: None,
                emitted: 0,
                stopped: false,
                flavor: Flavor::Undecided,
                emit,
            },
        }
    }

    /// Reads every complete frame of `bytes` (after what earlier pushes left over).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), StreamError> {
        let turns = &mut self.turns;
        self.framer.push(bytes, |frame| turns.frame(frame, false))
    }

    /// Reads what is left and hands on the last turn.
    pub fn finish(mut self) -> Result<(), StreamError> {
        let turns = &mut self.turns;
        self.framer.finish(|frame| turns.frame(frame, true))?;
        if !self.turns.stopped {
            self.turns.close();
        }
        Ok(())
    }

    /// `emit` asked to stop.
    pub fn stopped(&self) -> bool {
        self.turns.stopped
    }

    /// The framing, once the first non-blank line has decided it.
    pub fn framing(&self) -> Framing {
        self.framer.framing()
    }

    /// Bytes held for an unfinished line or frame.
    pub fn buffered(&self) -> usize {
        self.framer.buffered()
    }
}

/// [`TurnReader`] over bytes that are all there.
pub fn read_turns(bytes: &[u8], framing: Framing, emit: impl FnMut(Turn) -> bool) -> Result<(), StreamError> {
    let mut reader = TurnReader::new(framing, emit);
    reader.push(bytes)?;
    reader.finish()
}

impl From<StreamError> for crate::reading::history::HistoryError {
    fn from(e: StreamError) -> Self {
        crate::reading::history::HistoryError {
            line: Some(e.line),
            offset: Some(e.offset),
            message: e.to_string(),
        }
    }
}
