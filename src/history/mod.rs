//! History loading: a persisted conversation in any supported format, read from its bytes
//! into [`ChatMessage`](crate::ChatMessage)s, each handed on as soon as it is complete.
//!
//! | format | input | messages |
//! | --- | --- | --- |
//! | `events` | agent events as NDJSON or SSE (framing detected) | one `assistant` message per turn: a `turn-start` event begins one (`id` its `turnId`, else `turn-<n>`); events before the first turn-start form a turn when they build anything |
//! | `pi` | a Pi session file (JSONL) | as `pi.toMessages` |
//! | `sn` | Solar Network thoughts: a JSON array, or one per line | as `sn.toMessages` |
//! | `acp` | ACP `session/update` notifications, one per line (`{sessionId, update}`, a bare update, or a JSON-RPC `session/update` request) | a `user` message per run of user chunks, an `assistant` message per run of everything else, folded through `acp.toAgentEvents`; `id` is `line-<n>` of the run's first line |
//! | `chatviewer` | ChatViewer `ChatMessageData`: a JSON array, or one per line | ordered by timestamp as `adaptJSONLMessages` orders them; a `user` message per user line, an `assistant` message per run of other lines (`id` the run's first `uuid`): assistant text → `text-delta`, `thinking` → `reasoning-delta`, a tool call → `tool-call` (+ `tool-result` when completed or failed), as ACP maps them |
//!
//! The readers only fold events through [`append_event`], the rules every stream goes
//! through, so a recorded stream and the history persisted from it agree by construction.
//! [`batch`] writes the messages as JSON in bounded slices.

pub mod batch;
pub mod lines;

use std::fmt;
use std::io::{Read, Seek, SeekFrom};

use crate::bytes::{read_turns, Framing, StreamError, Turn};
use crate::formats::acp::{self, Role, SessionUpdate};
use crate::formats::chatviewer::adapt_jsonl_messages;
use crate::formats::check::FormatError;
use crate::formats::check::Skips;
use crate::formats::model_json::{FormatEvent, FormatMessage};
use crate::formats::registry::{Format, Input, ReadOptions};
use crate::formats::source::{Invalid, Reader, Source};
use crate::formats::streams::owned_event;
use crate::formats::tree::{Node, TreeSource};
use crate::formats::unified::{Content, ToolCallSlot, UnifiedId, UnifiedType};
use crate::formats::value::{self, Json, ParseError, ParseErrorKind};
use crate::formats::wtf8::Wtf8;
use crate::formats::{pi, sn, FORMATS};
use crate::model::{AgentEvent, ChatMessage, MessageRole};
use crate::owned::IndexedChunks;
use crate::reducer::append_event;

use lines::Lines;

/// A format [`read`] takes: a row of the table of formats that reads histories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryFormat(pub &'static Format);

/// The history formats by name, as callers in Rust write them.
#[allow(non_upper_case_globals)]
impl HistoryFormat {
    pub const Events: HistoryFormat = HistoryFormat(&crate::formats::streams::EVENTS);
    pub const Acp: HistoryFormat = HistoryFormat(&crate::formats::streams::ACP);
    pub const ChatViewer: HistoryFormat = HistoryFormat(&crate::formats::streams::CHATVIEWER);
    pub const Pi: HistoryFormat = HistoryFormat(&crate::formats::pi::PI);
    pub const Sn: HistoryFormat = HistoryFormat(&crate::formats::streams::SN);
}

impl HistoryFormat {
    /// The formats that read histories, in the table's order.
    pub fn all() -> impl Iterator<Item = HistoryFormat> {
        FORMATS.iter().filter(|f| f.history.is_some()).map(HistoryFormat)
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().find(|f| f.name() == name)
    }
}

/// Why a history could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryError {
    /// 1-based line of the input, when a line is at fault.
    pub line: Option<u64>,
    /// Byte offset from the start of the input, when known.
    pub offset: Option<u64>,
    pub message: String,
}

impl HistoryError {
    fn at_line(line: usize, message: impl fmt::Display) -> Self {
        HistoryError {
            line: Some(line as u64),
            offset: None,
            message: format!("line {line}: {message}"),
        }
    }
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HistoryError {}

impl From<StreamError> for HistoryError {
    fn from(e: StreamError) -> Self {
        HistoryError {
            line: Some(e.line),
            offset: Some(e.offset),
            message: e.to_string(),
        }
    }
}

/// A finished message, in the model its reader builds.
#[derive(Debug)]
pub enum Message {
    /// Read from a wire format (text as WTF-8, payloads as values).
    Format(FormatMessage),
    /// A turn of a recorded event stream (text and payloads as JSON source text).
    Turn(Turn),
}

/// Reads `bytes` as a history in `format`, handing each message to `emit` in order, as
/// soon as it is complete. `emit` returns `false` to stop.
pub fn read(
    bytes: &[u8],
    format: HistoryFormat,
    mut emit: impl FnMut(Message) -> bool,
) -> Result<(), HistoryError> {
    read_with(Input::Bytes(bytes), format, &ReadOptions::default(), &mut emit).map(drop)
}

/// [`read`] from a reader (a file): line formats (`pi`, `acp`) a block at a time, so the
/// whole input is never in memory at once; the others read whole first.
pub fn read_from(
    mut reader: impl Read + Seek,
    format: HistoryFormat,
    mut emit: impl FnMut(Message) -> bool,
) -> Result<(), HistoryError> {
    read_with(
        Input::Reader(&mut reader),
        format,
        &ReadOptions::default(),
        &mut emit,
    )
    .map(drop)
}

/// Reads `input` as a history in `format` with `options`; returns the lines skipped.
pub fn read_with(
    input: Input<'_>,
    format: HistoryFormat,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    match format.0.history {
        Some(read) => read(input, options, emit),
        None => Err(HistoryError {
            line: None,
            offset: None,
            message: format!("{} is a stream, not a history", format.name()),
        }),
    }
}

/// Lines of a reader or of bytes.
fn lines_of<'a>(input: Input<'a>) -> Lines<Box<dyn Read + 'a>> {
    match input {
        Input::Bytes(bytes) => Lines::new(Box::new(bytes)),
        Input::Reader(reader) => Lines::new(Box::new(reader)),
    }
}

/// The `events` history: a recorded stream, one message per turn.
pub fn read_events(
    input: Input<'_>,
    _options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let bytes = input.bytes()?;
    read_turns(&bytes, Framing::Auto, |turn| emit(Message::Turn(turn)))?;
    Ok(Skips::default())
}

/// The `sn` history: one message per thought.
pub fn read_sn(
    input: Input<'_>,
    _options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let bytes = input.bytes()?;
    for (item, at) in items(&bytes)? {
        let message = sn::read_thought(&item).map_err(|e| at.error(e))?;
        if !emit(Message::Format(message)) {
            break;
        }
    }
    Ok(Skips::default())
}

/// The `acp` history.
pub fn read_acp_history(
    input: Input<'_>,
    _options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_acp(lines_of(input), |message| emit(Message::Format(message)))?;
    Ok(Skips::default())
}

/// The `chatviewer` history.
pub fn read_chatviewer_history(
    input: Input<'_>,
    _options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let bytes = input.bytes()?;
    read_chatviewer(&bytes, |message| emit(Message::Format(message)))?;
    Ok(Skips::default())
}

/// The `pi` history: the path to the current leaf (or `options.leaf`). The path is found
/// first from the entries' leading ids (see [`pi::Planner`]), so that only its lines are
/// parsed and each message is handed on as soon as it is complete.
pub fn read_pi_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let session = pi::SessionOptions {
        leaf: options.leaf.clone(),
        strict: options.strict,
    };
    let emit = |message| emit(Message::Format(message));
    match input {
        Input::Bytes(bytes) => {
            let plan = pi::plan(bytes, session.leaf.as_deref());
            read_pi(Lines::new(bytes), session, plan, emit)
        }
        Input::Reader(reader) => {
            let mut planner = pi::Planner::default();
            let mut lines = Lines::new(&mut *reader);
            while let Some(line) = lines.next_line()? {
                if !planner.line(line.number, line.text.as_bytes()) {
                    break;
                }
            }
            drop(lines);
            let plan = planner.finish(session.leaf.as_deref());
            reader.seek(SeekFrom::Start(0)).map_err(|e| HistoryError {
                line: None,
                offset: None,
                message: format!("reading failed: {e}"),
            })?;
            read_pi(Lines::new(reader), session, plan, emit)
        }
    }
}

fn read_pi(
    mut lines: Lines<impl Read>,
    options: pi::SessionOptions,
    plan: Option<Vec<bool>>,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    let mut reader = pi::SessionReader::new(options);
    if plan.is_some() {
        reader.follow_plan();
    }
    let wanted = |number: usize| {
        plan.as_ref()
            .is_none_or(|plan| plan.get(number).copied().unwrap_or(false))
    };
    let error = |e: FormatError| HistoryError {
        line: e.line.map(|l| l as u64),
        offset: None,
        message: e.to_string(),
    };
    while let Some((parsed, number)) =
        lines.next_parsed_of(wanted, pi::parse_str_line, |e, number, last| {
            error(pi::line_error(e, number, last))
        })?
    {
        reader.read_parsed(parsed, number).map_err(error)?;
        if !reader.hand_on(&mut emit) {
            return Ok(reader.skips);
        }
    }
    let skips = reader.skips.clone();
    reader.finish_with(emit).map_err(error)?;
    Ok(skips)
}

/// Invalid UTF-8 is refused with its place (JavaScript would have read it as U+FFFD), as
/// the line reader places it.
fn check_utf8(bytes: &[u8]) -> Result<(), HistoryError> {
    let mut lines = Lines::new(bytes);
    while lines.next_line()?.is_some() {}
    Ok(())
}

/// Where an item of a history is: a line of a JSONL file, or an element of a JSON array.
#[derive(Debug, Clone, Copy)]
enum At {
    Line(usize),
    Element(usize),
}

impl At {
    fn error(self, e: impl fmt::Display) -> HistoryError {
        match self {
            At::Line(line) => HistoryError::at_line(line, e),
            At::Element(index) => HistoryError {
                line: None,
                offset: None,
                message: format!("[{index}]: {e}"),
            },
        }
    }

    fn id(self) -> String {
        match self {
            At::Line(line) => format!("line-{line}"),
            At::Element(index) => format!("item-{index}"),
        }
    }
}

fn parse_error(e: ParseError, line: usize, last: bool) -> HistoryError {
    if e.kind == ParseErrorKind::Truncated && last {
        HistoryError::at_line(
            line,
            format_args!(
                "truncated JSON: the input ends inside this line (at column {})",
                e.offset + 1
            ),
        )
    } else {
        HistoryError::at_line(line, e)
    }
}

/// The items of a JSON array, or of JSON lines (blank lines skipped), with their places.
fn items(bytes: &[u8]) -> Result<Vec<(Json, At)>, HistoryError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        check_utf8(bytes)?;
        return match value::parse(bytes) {
            Ok(Json::Array(items)) => Ok(items
                .into_iter()
                .enumerate()
                .map(|(i, item)| (item, At::Element(i)))
                .collect()),
            Ok(_) => unreachable!("a text starting with '[' parses to an array"),
            Err(e) => {
                let line = 1 + memchr::memchr_iter(b'\n', &bytes[..e.offset.min(bytes.len())]).count();
                Err(HistoryError {
                    line: Some(line as u64),
                    offset: Some(e.offset as u64),
                    message: format!("line {line}: {e}"),
                })
            }
        };
    }
    let mut lines = Lines::new(bytes);
    let mut items = Vec::new();
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        items.push((item, At::Line(number)));
    }
    Ok(items)
}

/// Messages being built from a run of items of one side (user or assistant).
struct Runs<F> {
    /// The open message: id, role and chunks (indexed: a run can hold any number of
    /// calls and results).
    open: Option<(String, MessageRole, IndexedChunks<Wtf8, Json>)>,
    emit: F,
    stopped: bool,
}

impl<F: FnMut(FormatMessage) -> bool> Runs<F> {
    fn new(emit: F) -> Self {
        Runs {
            open: None,
            emit,
            stopped: false,
        }
    }

    /// Folds `events` into the open message when it has `role`, else into a new one named
    /// by `id` (the open one is finished).
    fn fold(&mut self, role: MessageRole, id: impl FnOnce() -> String, events: Vec<FormatEvent>) {
        if self.open.as_ref().is_some_and(|(_, open, _)| *open != role) {
            self.close();
        }
        let (_, _, chunks) = self
            .open
            .get_or_insert_with(|| (id(), role, IndexedChunks::new()));
        for event in events {
            let Ok(()) = append_event(chunks, event);
        }
    }

    fn close(&mut self) {
        if let Some((id, role, chunks)) = self.open.take() {
            self.stopped |= !(self.emit)(ChatMessage {
                id,
                role,
                chunks: chunks.into_chunks(),
            });
        }
    }
}

fn text(node: Node<'_>) -> Wtf8 {
    node.and_then(Json::as_str).cloned().unwrap_or_default()
}

fn read_acp(
    mut lines: Lines<impl Read>,
    emit: impl FnMut(FormatMessage) -> bool,
) -> Result<(), HistoryError> {
    let source = TreeSource::default();
    let reader = Reader {
        source: &source,
        root: "notification",
    };
    let mut runs = Runs::new(emit);
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        // A JSON-RPC request carries the notification as its `params`.
        let notification = match item.get("method") {
            Some(Json::String(method)) if method.as_bytes() == b"session/update" => {
                item.get("params").unwrap_or(&Json::Undefined)
            }
            _ => &item,
        };
        let update = acp::read_update(&reader, Some(notification), &[])
            .map_err(|e| HistoryError::at_line(number, e))?;
        let id = || At::Line(number).id();
        match &update {
            SessionUpdate::Chunk {
                role: Role::User,
                text: user,
            } => {
                let events = user
                    .map(|t| vec![AgentEvent::TextDelta { delta: text(t) }])
                    .unwrap_or_default();
                runs.fold(MessageRole::User, id, events);
            }
            SessionUpdate::Other => {}
            other => {
                let events = acp::to_agent_events(other).into_iter().map(owned_event).collect();
                runs.fold(MessageRole::Assistant, id, events);
            }
        }
        if runs.stopped {
            return Ok(());
        }
    }
    runs.close();
    Ok(())
}

fn read_chatviewer(bytes: &[u8], emit: impl FnMut(FormatMessage) -> bool) -> Result<(), HistoryError> {
    let (items, places): (Vec<Json>, Vec<At>) = items(bytes)?.into_iter().unzip();
    let all = Json::Array(items);
    let source = TreeSource::default();
    // The adapter checks each line and orders them as the webui does.
    let rows = adapt_jsonl_messages(&source, Some(&all)).map_err(|e| chatviewer_error(e, &places))?;
    let reader = Reader {
        source: &source,
        root: "toolCall",
    };
    let mut runs = Runs::new(emit);
    for row in rows {
        let uuid = match row.id {
            UnifiedId::Given(uuid) => text(uuid).to_string_lossy().into_owned(),
            _ => String::new(),
        };
        let content = match row.content {
            Some(Content::Joined(pieces)) => {
                let mut joined = Wtf8::new();
                for piece in pieces {
                    joined.push_wtf8(text(piece).as_bytes());
                }
                Some(joined)
            }
            Some(Content::Given(Some(Json::String(given)))) => Some(given.clone()),
            Some(Content::Given(Some(Json::Array(blocks)))) => {
                let mut joined = Wtf8::new();
                for block in blocks {
                    if let (Some(Json::String(ty)), Some(Json::String(t))) =
                        (block.get("type"), block.get("text"))
                    {
                        if ty.as_bytes() == b"text" {
                            joined.push_wtf8(t.as_bytes());
                        }
                    }
                }
                Some(joined)
            }
            _ => None,
        }
        .filter(|t| !t.is_empty());
        let id = || uuid.clone();
        match row.kind {
            UnifiedType::User => {
                let events = content.map(|delta| AgentEvent::TextDelta { delta });
                runs.fold(MessageRole::User, id, events.into_iter().collect());
            }
            UnifiedType::Given(ty) if source.tag(ty, &mut [0; 32]).ok().flatten() == Some(b"user") => {
                let events = content.map(|delta| AgentEvent::TextDelta { delta });
                runs.fold(MessageRole::User, id, events.into_iter().collect());
            }
            UnifiedType::Thinking => {
                let events = content.map(|delta| AgentEvent::ReasoningDelta { delta });
                runs.fold(MessageRole::Assistant, id, events.into_iter().collect());
            }
            UnifiedType::ToolCall => {
                let call = match row.tool_call {
                    Some(ToolCallSlot::Given(call)) => call,
                    _ => None,
                };
                let events = match call {
                    Some(Json::Object(_)) => {
                        let fields =
                            acp::read_tool_call(&reader, call, &[], true).map_err(|e| HistoryError {
                                line: None,
                                offset: None,
                                message: format!("the message with uuid {uuid:?}: {e}"),
                            })?;
                        acp::to_agent_events(&SessionUpdate::ToolCall(fields))
                            .into_iter()
                            .map(owned_event)
                            .collect()
                    }
                    _ => Vec::new(),
                };
                runs.fold(MessageRole::Assistant, id, events);
            }
            _ => {
                let events = content.map(|delta| AgentEvent::TextDelta { delta });
                runs.fold(MessageRole::Assistant, id, events.into_iter().collect());
            }
        }
        if runs.stopped {
            return Ok(());
        }
    }
    runs.close();
    Ok(())
}

/// The adapter names items `messages[i]`; say which line or element that is.
fn chatviewer_error(e: Invalid, places: &[At]) -> HistoryError {
    let index = e
        .path
        .strip_prefix("messages[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|i| i.parse::<usize>().ok());
    match index.and_then(|i| places.get(i)) {
        Some(&At::Line(line)) => {
            let rest = e
                .path
                .split_once(']')
                .map_or("", |(_, rest)| rest)
                .trim_start_matches('.');
            let path = if rest.is_empty() {
                "the line".to_string()
            } else {
                rest.to_string()
            };
            HistoryError::at_line(
                line,
                format_args!("{path} must be {}, got {}", e.expected, e.got.name()),
            )
        }
        _ => HistoryError {
            line: None,
            offset: None,
            message: e.to_string(),
        },
    }
}
