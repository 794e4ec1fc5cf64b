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

mod array;
pub mod batch;
pub mod lines;

use std::fmt;
use std::io::Read;

use crate::bytes::{Framing, StreamError, Turn, TurnReader};
use crate::formats::acp::{self, Payload, Role, SessionUpdate};
use crate::formats::chatviewer::adapt_jsonl_messages;
use crate::formats::check::FormatError;
use crate::formats::model_json::{FormatEvent, FormatMessage};
use crate::formats::source::{Invalid, Reader, Source};
use crate::formats::tree::{Node, TreeSource};
use crate::formats::unified::{Content, ToolCallSlot, UnifiedId, UnifiedType};
use crate::formats::value::{self, Json, ParseError, ParseErrorKind};
use crate::formats::wtf8::Wtf8;
use crate::formats::{pi, sn};
use crate::model::{AgentEvent, ChatMessage, MessageRole};
use crate::owned::IndexedChunks;
use crate::reducer::append_event;

use lines::Lines;

/// The formats [`read`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryFormat {
    Events,
    Acp,
    ChatViewer,
    Pi,
    Sn,
}

impl HistoryFormat {
    pub const ALL: [HistoryFormat; 5] = [
        HistoryFormat::Events,
        HistoryFormat::Acp,
        HistoryFormat::ChatViewer,
        HistoryFormat::Pi,
        HistoryFormat::Sn,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HistoryFormat::Events => "events",
            HistoryFormat::Acp => "acp",
            HistoryFormat::ChatViewer => "chatviewer",
            HistoryFormat::Pi => "pi",
            HistoryFormat::Sn => "sn",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
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
    emit: impl FnMut(Message) -> bool,
) -> Result<(), HistoryError> {
    read_from(bytes, format, emit)
}

/// [`read`] from a reader (a file), a block at a time in every format: memory is bounded
/// by the longest line (at most [`lines::MAX_LINE`]) and what the messages themselves hold,
/// never by the size of the input, and a line that cannot be valid is refused as soon as
/// it is read. A reader that fails (one that is cancelled) ends the read with its error.
pub fn read_from(
    reader: impl Read,
    format: HistoryFormat,
    mut emit: impl FnMut(Message) -> bool,
) -> Result<(), HistoryError> {
    let mut emit_format = |message| emit(Message::Format(message));
    match format {
        HistoryFormat::Events => read_events(reader, |turn| emit(Message::Turn(turn))),
        HistoryFormat::Pi => read_pi(Lines::new(reader), emit_format),
        HistoryFormat::Acp => read_acp(Lines::new(reader), emit_format),
        HistoryFormat::Sn => read_items(reader, |item, at| {
            let message = sn::read_thought(&item).map_err(|e| at.error(e))?;
            Ok(emit_format(message))
        }),
        HistoryFormat::ChatViewer => read_chatviewer(reader, emit_format),
    }
}

/// Fills `block` from `reader` as far as one read goes; 0 at the end.
fn read_block(reader: &mut impl Read, block: &mut [u8]) -> Result<usize, HistoryError> {
    loop {
        match reader.read(block) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            read => return read.map_err(lines::read_error),
        }
    }
}

/// The start of the line an event stream is in the middle of.
#[derive(Default)]
struct LineHead {
    /// Its first bytes.
    head: Vec<u8>,
    /// Its length so far.
    len: usize,
}

impl LineHead {
    const KEPT: usize = 8;

    fn track(&mut self, bytes: &[u8], at_start: bool) {
        let rest = match memchr::memrchr2(b'\n', b'\r', bytes) {
            Some(at) => {
                self.head.clear();
                self.len = 0;
                &bytes[at + 1..]
            }
            None => bytes,
        };
        self.len += rest.len();
        let rest = match at_start {
            true => rest.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(rest),
            false => rest,
        };
        let room = Self::KEPT - self.head.len().min(Self::KEPT);
        self.head.extend_from_slice(&rest[..room.min(rest.len())]);
    }

    /// The line can be no event and no SSE field, however it goes on (`framing` as decided
    /// so far).
    fn hopeless(&self, framing: Framing) -> bool {
        const FIELDS: [&[u8]; 5] = [b"data:", b"event:", b"id:", b"retry:", b":"];
        let head = &self.head[..];
        match framing {
            Framing::Sse => return false,
            Framing::Auto if FIELDS.iter().any(|f| f.starts_with(head) || head.starts_with(f)) => {
                return false
            }
            _ => {}
        }
        matches!(head.iter().find(|b| !matches!(b, b' ' | b'\t')), Some(b) if *b != b'{')
    }
}

/// A recorded event stream (NDJSON or SSE) a block at a time, as [`read_turns`].
fn read_events(mut reader: impl Read, emit: impl FnMut(Turn) -> bool) -> Result<(), HistoryError> {
    let mut turns = TurnReader::new(Framing::Auto, emit);
    let mut block = vec![0; lines::BLOCK];
    let mut head = LineHead::default();
    let mut offset = 0u64;
    loop {
        let n = read_block(&mut reader, &mut block)?;
        if n == 0 {
            break;
        }
        turns.push(&block[..n])?;
        if turns.stopped() {
            return Ok(());
        }
        head.track(&block[..n], offset == 0);
        offset += n as u64;
        // A line that cannot be valid is ended here, so that it is refused now (with the
        // error its whole would give: the fault is in its first bytes); a line or frame
        // past the limit is refused as too long.
        if head.len >= lines::BLOCK && head.hopeless(turns.framing()) {
            turns.push(b"\n")?;
        }
        if turns.buffered() > lines::MAX_LINE {
            return Err(lines::too_long(None, offset - turns.buffered() as u64));
        }
    }
    Ok(turns.finish()?)
}

fn read_pi(
    mut lines: Lines<impl Read>,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<(), HistoryError> {
    let mut reader = pi::SessionReader::default();
    let error = |e: FormatError| HistoryError {
        line: e.line.map(|l| l as u64),
        offset: None,
        message: e.to_string(),
    };
    while let Some((parsed, number)) = lines.next_parsed(pi::parse_str_line, |e, number, last| {
        error(pi::line_error(e, number, last))
    })? {
        reader.read_parsed(parsed, number).map_err(error)?;
        if !reader.hand_on(&mut emit) {
            return Ok(());
        }
    }
    reader.finish_with(emit);
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

/// The items of a JSON array, or of JSON lines (blank lines skipped), with their places,
/// handed to `each` one at a time as they are read; `each` returns `false` to stop.
fn read_items(
    mut reader: impl Read,
    mut each: impl FnMut(Json, At) -> Result<bool, HistoryError>,
) -> Result<(), HistoryError> {
    // Whole blank lines before the first item are skipped here; the line the first item
    // starts on is read on by the array or line reader.
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut block = vec![0; 64 << 10];
    let mut head = Vec::new();
    let (mut lines_before, mut offset) = (0usize, 0u64);
    let first = loop {
        let n = read_block(&mut reader, &mut block)?;
        if n == 0 {
            if head.iter().all(u8::is_ascii_whitespace) {
                return Ok(());
            }
            break 0;
        }
        let from = head.len();
        head.extend_from_slice(&block[..n]);
        let at_start = offset == 0 && lines_before == 0;
        if at_start && head.len() < BOM.len() && BOM.starts_with(&head) {
            continue;
        }
        let skip = if at_start && head.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        let from = from.max(skip);
        if let Some(at) = head[from..].iter().position(|b| !b.is_ascii_whitespace()) {
            break from + at;
        }
        if let Some(end) = memchr::memrchr(b'\n', &head) {
            lines_before += memchr::memchr_iter(b'\n', &head[..=end]).count();
            offset += end as u64 + 1;
            head.drain(..=end);
        }
        if head.len() > lines::MAX_LINE {
            return Err(lines::too_long(Some(lines_before + 1), offset));
        }
    };
    if head.get(first) == Some(&b'[') {
        // The array reader expects JSON alone: a leading byte order mark is dropped.
        if offset == 0 && lines_before == 0 && head.starts_with(BOM) {
            head.drain(..BOM.len());
            offset += BOM.len() as u64;
        }
        let reader = std::io::Cursor::new(head).chain(reader);
        let mut elements = array::Elements::after(reader, lines_before, offset);
        while let Some(element) = elements.next_element()? {
            if !each(element.value, At::Element(element.index))? {
                break;
            }
        }
        return Ok(());
    }
    let reader = std::io::Cursor::new(head).chain(reader);
    let mut lines = Lines::after(reader, lines_before, offset);
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        if !each(item, At::Line(number))? {
            break;
        }
    }
    Ok(())
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

/// ACP's events over tree values as owned events.
fn owned_event(event: AgentEvent<Node<'_>, Payload<Node<'_>>>) -> FormatEvent {
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

fn read_chatviewer(reader: impl Read, emit: impl FnMut(FormatMessage) -> bool) -> Result<(), HistoryError> {
    // The rows are ordered by timestamp, so all of them are needed before the first
    // message; each is checked as soon as it is read, so a bad one fails the load at once.
    let (mut items, mut places) = (Vec::new(), Vec::new());
    read_items(reader, |item, at| {
        let one = Json::Array(vec![item]);
        adapt_jsonl_messages(&TreeSource::default(), Some(&one)).map_err(|e| chatviewer_error(e, &[at]))?;
        if let Json::Array(one) = one {
            items.extend(one);
            places.push(at);
        }
        Ok(true)
    })?;
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
        // Items are checked one at a time, each as `messages[0]`.
        Some(&At::Element(index)) => HistoryError {
            line: None,
            offset: None,
            message: e
                .to_string()
                .replacen("messages[0]", &format!("messages[{index}]"), 1),
        },
        _ => HistoryError {
            line: None,
            offset: None,
            message: e.to_string(),
        },
    }
}
