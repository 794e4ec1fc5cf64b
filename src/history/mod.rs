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

use std::fmt;
use std::io::{Read, Seek, SeekFrom};

use crate::bytes::Framing;
use crate::live::{StreamError, Turn};
use std::collections::HashMap;

use crate::bytes::value::{self, Json, ParseError, ParseErrorKind};
use crate::bytes::wtf8::Wtf8;
use crate::formats::acp::fold::{AcpFold, NO_ACP_MESSAGE, UNKNOWN_UPDATE};
use crate::formats::acp::updates::{self as acp, SessionUpdate};
use crate::formats::chatviewer::adapter::{adapt_jsonl_messages, NOT_A_ROW};
use crate::formats::claude::transcript as claude;
use crate::formats::pi::session as pi;
use crate::formats::qwen::recording as qwen;
use crate::formats::sn::thought as sn;
use crate::formats::streams::owned_event;
use crate::formats::FORMATS;
use crate::model::{AgentEvent, Chunk, MessageRole, SystemChunkKind};
use crate::reading::check::FormatError;
use crate::reading::check::Skips;
use crate::reading::format::{Format, Input, ReadOptions, View};
use crate::reading::model_json::{FormatChunk, FormatMessage};
use crate::reading::source::{Invalid, Reader};
use crate::reading::stored::StoredMessages;
use crate::reading::value_source::{Node, TreeSource};
use crate::views::unified::{Content, ToolCallSlot, UnifiedId, UnifiedType};

use crate::reading::array;
use crate::reading::lines::{self, Lines};

/// A format [`read`] takes: a row of the table of formats that reads histories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryFormat(pub &'static Format);

/// The history formats by name, as callers in Rust write them.
#[allow(non_upper_case_globals)]
impl HistoryFormat {
    pub const Events: HistoryFormat = HistoryFormat(&crate::formats::streams::EVENTS);
    pub const Acp: HistoryFormat = HistoryFormat(&crate::formats::streams::ACP);
    pub const ChatViewer: HistoryFormat = HistoryFormat(&crate::formats::streams::CHATVIEWER);
    pub const Pi: HistoryFormat = HistoryFormat(&crate::formats::pi::session::PI);
    pub const Sn: HistoryFormat = HistoryFormat(&crate::formats::streams::SN);
    pub const Claude: HistoryFormat = HistoryFormat(&crate::formats::claude::transcript::CLAUDE);
    pub const Qwen: HistoryFormat = HistoryFormat(&crate::formats::qwen::recording::QWEN);
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
pub enum Message<'a> {
    /// Read from a wire format (text as WTF-8, payloads as values).
    Format(FormatMessage),
    /// A turn of a recorded event stream (text and payloads as JSON source text).
    Turn(Turn),
    /// Message `index` of a recorded stream as it stands (only with
    /// [`ReadOptions::settle`]): the next message when `index` is the number handed on so
    /// far, else one handed on before that a later value changed, which it replaces.
    Settled {
        index: usize,
        id: &'a str,
        role: MessageRole,
        chunks: &'a [FormatChunk],
    },
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
    if let Some(message) = crate::reading::format::leaf_refused(format.0, options) {
        return Err(HistoryError {
            line: None,
            offset: None,
            message,
        });
    }
    match format.0.history {
        Some(read) => read(input, options, emit),
        None => Err(HistoryError {
            line: None,
            offset: None,
            message: format!("{} is a stream, not a history", format.name()),
        }),
    }
}

/// A reader of the input, whichever it is.
fn reader_of<'a>(input: Input<'a>) -> Box<dyn Read + 'a> {
    match input {
        Input::Bytes(bytes) => Box::new(bytes),
        Input::Reader(reader) => Box::new(reader),
    }
}

/// Lines of a reader or of bytes; with `strict`, a line that cannot be read is refused.
fn lines_of<'a>(input: Input<'a>, strict: bool) -> Lines<Box<dyn Read + 'a>> {
    Lines::new(reader_of(input)).strict(strict)
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

/// A recorded stream read as its history through the stream's own live fold (a
/// [`Conversation`](crate::live::conversation::Conversation)), a block at a time: what
/// a live view of the stream shows is what its history holds, by one fold.
fn read_stream_history(
    format: &'static Format,
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    use crate::live::conversation::{Conversation, LiveError, LiveOptions};
    let refused = |e: LiveError| HistoryError {
        line: e.error.line.map(|l| l as u64),
        offset: e.offset,
        message: e.to_string(),
    };
    let mut settled = Settled {
        on: options.settle,
        ..Settled::default()
    };
    let options = LiveOptions {
        strict: options.strict,
        limit: Some(lines::MAX_LINE),
        recording: true,
        ..LiveOptions::default()
    };
    let mut live = Conversation::new(format, options).map_err(|message| HistoryError {
        line: None,
        offset: None,
        message,
    })?;
    let mut reader = reader_of(input);
    let mut block = vec![0; lines::BLOCK];
    let mut head = LineHead::default();
    let mut offset = 0u64;
    loop {
        let n = read_block(&mut reader, &mut block)?;
        if n == 0 {
            break;
        }
        let changes = live.push_bytes(&block[..n]).map_err(|(_, e)| refused(e))?;
        if settled.on {
            settled.note(&changes);
            if !settled.hand_on(&live, emit) {
                let (_, _, skips) = live.finish();
                return Ok(skips);
            }
        }
        head.track(&block[..n], offset == 0);
        offset += n as u64;
        // A line that cannot be valid is ended here, so that it is refused now (with the
        // error its whole would give: the fault is in its first bytes), not read to the
        // limit.
        if head.len >= lines::BLOCK && head.hopeless(live.framing()) {
            let changes = live.push_bytes(b"\n").map_err(|(_, e)| refused(e))?;
            settled.note(&changes);
        }
    }
    let changes = live.end().map_err(|(_, e)| refused(e))?;
    settled.note(&changes);
    let (messages, _, skips) = live.finish();
    // Each message handed on early that changed since, once more as it ended; then the
    // rest, in order.
    for &index in &settled.changed {
        let m = &messages[index];
        let again = Message::Settled {
            index,
            id: &m.id,
            role: m.role,
            chunks: &m.chunks,
        };
        if !emit(again) {
            return Ok(skips);
        }
    }
    for message in messages.into_iter().skip(settled.count) {
        if !emit(Message::Format(message)) {
            break;
        }
    }
    Ok(skips)
}

/// What a stream history read with [`ReadOptions::settle`] has handed on early.
#[derive(Default)]
struct Settled {
    on: bool,
    /// Messages `0..count` were handed on.
    count: usize,
    /// Of those, the ones changed since (in index order).
    changed: std::collections::BTreeSet<usize>,
}

impl Settled {
    /// Notes which messages handed on a push changed.
    fn note(&mut self, changes: &crate::live::conversation::Changes) {
        for change in &changes.changed {
            if change.index < self.count {
                self.changed.insert(change.index);
            }
        }
    }

    /// Hands on the messages after the last one handed on that are closed and wait for no
    /// result, in order; `false` when `emit` wants no more.
    fn hand_on(
        &mut self,
        live: &crate::live::conversation::Conversation,
        emit: &mut dyn FnMut(Message) -> bool,
    ) -> bool {
        let folded = live.messages();
        let closed = folded.len() - usize::from(folded.is_open());
        while self.count < closed {
            let (id, role, chunks) = folded.message(self.count);
            if waits_for_result(chunks) {
                break;
            }
            let index = self.count;
            self.count += 1;
            if !emit(Message::Settled {
                index,
                id,
                role,
                chunks,
            }) {
                return false;
            }
        }
        true
    }
}

/// Whether a call of `chunks` has no result yet (one will most likely come, and change the
/// message).
fn waits_for_result(chunks: &[FormatChunk]) -> bool {
    chunks.iter().any(|chunk| match chunk {
        Chunk::ToolBatch { calls } => calls.iter().any(|call| call.result.is_none()),
        _ => false,
    })
}

/// The `events` history: a recorded stream, one message per turn.
pub fn read_events(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_stream_history(&crate::formats::streams::EVENTS, input, options, emit)
}

/// The `ai-sdk` history: a recorded UI message stream, one message per response.
pub fn read_ai_sdk(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_stream_history(&crate::formats::ai_sdk::chunks::AI_SDK, input, options, emit)
}

/// The `sn` history: one message per thought, read one at a time.
pub fn read_sn(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_items(reader_of(input), options.strict, |item, at| {
        let message = sn::read_thought(&item).map_err(|e| at.error(e))?;
        Ok(emit(Message::Format(message)))
    })
}

/// The `acp` history.
pub fn read_acp_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    // A recorder's export: one JSON document holding the records. Only a file whose
    // first line is `{` alone is read whole to find out.
    if let Input::Bytes(bytes) = &input {
        if let Some(records) = crate::reading::format::document_records(bytes) {
            return read_acp_records(records, options.strict, emit);
        }
    }
    let input = match input {
        Input::Reader(reader) => {
            let mut head = [0u8; 2];
            let n = reader.read(&mut head).map_err(lines::read_error)?;
            reader.seek(SeekFrom::Start(0)).map_err(lines::read_error)?;
            if head[..n].first() == Some(&b'{') && matches!(head[..n].get(1), Some(b'\n' | b'\r' | b' ')) {
                let bytes = Input::Reader(reader).bytes()?;
                if let Some(records) = crate::reading::format::document_records(&bytes) {
                    return read_acp_records(records, options.strict, emit);
                }
                return read_acp(
                    Lines::new(&bytes[..]).strict(options.strict),
                    options.strict,
                    |message| emit(Message::Format(message)),
                );
            }
            Input::Reader(reader)
        }
        input => input,
    };
    read_acp(lines_of(input, options.strict), options.strict, |message| {
        emit(Message::Format(message))
    })
}

/// The records of an ACP export, each folded as a line would be (`line` its 1-based
/// place in `messages`).
fn read_acp_records(
    records: Vec<Json>,
    strict: bool,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let mut fold = AcpFold::new();
    let mut skips = Skips::new(strict);
    let mut emit = |message| emit(Message::Format(message));
    for (index, record) in records.iter().enumerate() {
        let (unknown, strangers) = (fold.unknown, fold.strangers);
        let at = |e: String| HistoryError {
            line: None,
            offset: None,
            message: format!("messages[{index}]: {e}"),
        };
        fold.push(record, index + 1).map_err(|e| at(e.to_string()))?;
        if fold.unknown > unknown {
            skips
                .skip(index + 1, UNKNOWN_UPDATE)
                .map_err(|e| at(e.to_string()))?;
        }
        if fold.strangers > strangers {
            skips
                .skip(index + 1, NO_ACP_MESSAGE)
                .map_err(|e| at(e.to_string()))?;
        }
        if !fold.hand_on(&mut emit) {
            return Ok(skips);
        }
    }
    fold.finish(&mut emit);
    Ok(skips)
}

/// The `chatviewer` history.
pub fn read_chatviewer_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_chatviewer(reader_of(input), options.strict, |message| {
        emit(Message::Format(message))
    })
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
        view: options.view,
    };
    let mut skips = Skips::new(options.strict);
    let emit = |message| emit(Message::Format(message));
    match input {
        Input::Bytes(bytes) => {
            let plan = pi::plan(bytes, &session, &mut skips);
            read_pi(Lines::new(bytes), session, plan, skips, emit)
        }
        Input::Reader(reader) => {
            let mut planner = pi::Planner::default();
            let mut lines = Lines::new(&mut *reader);
            lines.expect_json();
            let mut first = true;
            loop {
                let line = match lines.next_line() {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    // Not UTF-8: the reading proper says where, or skips it.
                    Err(_) if !first => {
                        planner.give_up();
                        break;
                    }
                    Err(e) => return Err(e),
                };
                // A line that can be no entry is refused now when it is the first (the
                // file is no session), not after the whole file; later, the plan is
                // given up and the reading proper skips it.
                if lines::hopeless(line.text.as_bytes()) {
                    if let Err(e) = pi::parse_str_line(line.text) {
                        if first || options.strict {
                            return Err(format_error(pi::line_error(e, line.number, false)));
                        }
                        planner.give_up();
                        break;
                    }
                }
                first &= line.text.bytes().all(|b| b.is_ascii_whitespace());
                planner.line(line.number, line.text.as_bytes());
            }
            drop(lines);
            let plan = planner.finish(&session, &mut skips);
            reader.seek(SeekFrom::Start(0)).map_err(|e| HistoryError {
                line: None,
                offset: None,
                message: format!("reading failed: {e}"),
            })?;
            read_pi(Lines::new(reader), session, plan, skips, emit)
        }
    }
}

fn read_pi(
    lines: Lines<impl Read>,
    options: pi::SessionOptions,
    plan: crate::formats::pi::tree::Plan,
    planned: Skips,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    let mut lines = lines.strict(options.strict);
    let mut reader = pi::SessionReader::new(options);
    let last_planned = plan.on_path.as_ref().and_then(|p| p.iter().rposition(|&on| on));
    if plan.on_path.is_some() {
        reader.follow_plan();
    } else if plan.compaction {
        reader.collect_all();
    }
    let on_path = plan.on_path;
    let wanted = |number: usize| {
        on_path
            .as_ref()
            .is_none_or(|plan| plan.get(number).copied().unwrap_or(false))
    };
    let error = |e: FormatError| HistoryError {
        line: e.line.map(|l| l as u64),
        offset: None,
        message: e.to_string(),
    };
    let mut hidden = Skips::default();
    while let Some((parsed, number)) =
        lines.next_parsed_of(wanted, pi::parse_str_line, |e, number, last| {
            error(pi::line_error(e, number, last))
        })?
    {
        // A value found beside another on a line pi cannot parse: when the path was
        // planned from the line's start, one that is not its first is on the path only
        // on the leaf's line (nothing continues it).
        reader.whole_line = lines.whole_line;
        if last_planned.is_some_and(|last| !lines.starts_line && number != last) {
            hidden.leave_out(
                || format!("line {number} (a second entry on it)"),
                crate::reading::check::OFF_BRANCH,
            );
            continue;
        }
        reader.read_parsed(parsed, number).map_err(error)?;
        if !reader.hand_on(&mut emit) {
            let mut skips = std::mem::take(&mut reader.skips);
            for more in [planned, hidden, lines.skips] {
                skips.merge(more);
            }
            return Ok(skips);
        }
    }
    let mut skips = reader.finish_with(emit).map_err(error)?;
    for more in [planned, hidden, lines.skips] {
        skips.merge(more);
    }
    Ok(skips)
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
    strict: bool,
    mut each: impl FnMut(Json, At) -> Result<bool, HistoryError>,
) -> Result<Skips, HistoryError> {
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
                return Ok(Skips::new(strict));
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
        return Ok(Skips::new(strict));
    }
    let reader = std::io::Cursor::new(head).chain(reader);
    let mut lines = Lines::after(reader, lines_before, offset).strict(strict);
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        if !each(item, At::Line(number))? {
            break;
        }
    }
    Ok(lines.skips)
}

fn text(node: Node<'_>) -> Wtf8 {
    node.and_then(Json::as_str).cloned().unwrap_or_default()
}

fn read_acp(
    mut lines: Lines<impl Read>,
    strict: bool,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    let mut fold = AcpFold::new();
    let mut skips = Skips::new(strict);
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        let (unknown, strangers) = (fold.unknown, fold.strangers);
        fold.push(&item, number)
            .map_err(|e| HistoryError::at_line(number, e))?;
        if fold.unknown > unknown {
            skips.skip(number, UNKNOWN_UPDATE).map_err(format_error)?;
        }
        if fold.strangers > strangers {
            skips.skip(number, NO_ACP_MESSAGE).map_err(format_error)?;
        }
        if !fold.hand_on(&mut emit) {
            skips.merge(lines.skips);
            return Ok(skips);
        }
    }
    fold.finish(&mut emit);
    skips.merge(lines.skips);
    Ok(skips)
}

fn format_error(e: FormatError) -> HistoryError {
    HistoryError {
        line: e.line.map(|l| l as u64),
        offset: None,
        message: e.to_string(),
    }
}

/// The values of JSON lines with their line numbers, blank lines skipped. A transcript
/// is a tree of lines, so its conversation is known only once every line is read.
fn json_lines(input: Input<'_>, strict: bool) -> Result<(Vec<Json>, Vec<usize>, Skips), HistoryError> {
    let mut lines = lines_of(input, strict);
    let mut values = Vec::new();
    let mut numbers = Vec::new();
    while let Some((value, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        values.push(value);
        numbers.push(number);
    }
    Ok((values, numbers, lines.skips))
}

/// The `claude` history: a Claude Code transcript, the chain to its last line.
pub fn read_claude_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let tree = LineTree {
        known: claude::is_known_line,
        chained: |line| {
            matches!(
                line.get("type").and_then(Json::as_str).map(Wtf8::as_bytes),
                Some(b"user" | b"assistant" | b"system")
            )
        },
        quiet: claude::bookkeeping_kind,
        unknown: "line",
        read: |lines, numbers, view, emit| claude::read_lines(lines, numbers, view, emit),
    };
    read_line_tree(input, options, tree, emit)
}

/// The `qwen` history: a Qwen Code chat recording, the chain to its last record.
pub fn read_qwen_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let tree = LineTree {
        known: qwen::is_known_record,
        chained: |line| {
            matches!(
                line.get("type").and_then(Json::as_str).map(Wtf8::as_bytes),
                Some(b"user" | b"assistant" | b"tool_result" | b"system")
            )
        },
        quiet: qwen::bookkeeping_kind,
        unknown: "record",
        read: |lines, numbers, view, emit| qwen::read_lines(lines, numbers, view, emit),
    };
    read_line_tree(input, options, tree, emit)
}

/// Reads parsed lines (`numbers[i]` the line of `lines[i]`) in a view.
type ReadLines = fn(&[Json], &[usize], View, &mut dyn FnMut(FormatMessage) -> bool) -> Skips;

/// A format whose lines form a tree: which lines it knows, which of those show nothing
/// (and as what they are counted), and how it reads the conversation.
struct LineTree {
    known: fn(&Json) -> bool,
    /// Whether a line is of a type the chain is made of: it names its place by `uuid`.
    chained: fn(&Json) -> bool,
    quiet: fn(&Json) -> Option<&Wtf8>,
    /// What a line is called in the note for one this version does not know.
    unknown: &'static str,
    read: ReadLines,
}

/// A transcript whose lines form a tree (its conversation is known only once every line
/// is read): lines the format does not know are skipped and counted (refused when
/// strict), lines it knows and that show nothing are counted by kind, then the
/// conversation is read. A line of a type the chain is made of but without a `uuid`
/// belongs to no chain and no view can show it: it is skipped and counted as such, never
/// dropped without a word.
fn read_line_tree(
    input: Input<'_>,
    options: &ReadOptions,
    tree: LineTree,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let (lines, numbers, mut skips) = json_lines(input, options.strict)?;
    for (line, &number) in lines.iter().zip(&numbers) {
        if let Some(kind) = (tree.quiet)(line) {
            skips.pass(&kind.to_string_lossy());
        } else if (tree.chained)(line) && line.get("uuid").and_then(Json::as_str).is_none() {
            skips
                .skip(number, format!("a {} without a \"uuid\"", tree.unknown))
                .map_err(format_error)?;
        } else if !(tree.known)(line) {
            let subtype = line.get("subtype").and_then(Json::as_str);
            let what = match (line.get("type").and_then(Json::as_str), subtype) {
                (Some(ty), Some(sub)) => format!("unknown {} type \"{ty}\" subtype \"{sub}\"", tree.unknown),
                (Some(ty), None) => format!("unknown {} type \"{ty}\"", tree.unknown),
                (None, _) => format!("a {} without a \"type\"", tree.unknown),
            };
            skips.skip(number, what).map_err(format_error)?;
        }
    }
    let read = (tree.read)(&lines, &numbers, options.view, &mut |message| {
        emit(Message::Format(message))
    });
    skips.merge(read);
    Ok(skips)
}

fn read_chatviewer(
    reader: impl Read,
    strict: bool,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    // The rows are ordered by timestamp, so all of them are needed before the first
    // message; each is checked as soon as it is read. A line the ChatViewer cannot show
    // (a field missing or of another type) is skipped and counted, as the ChatViewer
    // passes over a row it cannot render; `strict` refuses it, and so does an element of
    // a JSON array (one document, all of it or nothing). A Claude Code transcript's
    // bookkeeping lines (session titles, file snapshots) are not messages.
    let (mut items, mut places) = (Vec::new(), Vec::new());
    let mut unread = Skips::new(strict);
    let mut skips = read_items(reader, strict, |item, at| {
        if claude::is_bookkeeping_line(&item) {
            return Ok(true);
        }
        let one = Json::Array(vec![item]);
        if let Err(e) = adapt_jsonl_messages(&TreeSource::default(), Some(&one)) {
            let error = chatviewer_error(e, &[at]);
            match at {
                At::Line(line) if !strict => {
                    let problem = error
                        .message
                        .strip_prefix(&format!("line {line}: "))
                        .unwrap_or(&error.message);
                    unread
                        .unreadable(line, NOT_A_ROW, problem)
                        .map_err(format_error)?;
                    return Ok(true);
                }
                _ => return Err(error),
            }
        }
        if let Json::Array(one) = one {
            items.extend(one);
            places.push(at);
        }
        Ok(true)
    })?;
    skips.merge(unread);
    let all = Json::Array(items);
    let source = TreeSource::default();
    // The adapter checks each line and orders them as the webui does.
    let rows = adapt_jsonl_messages(&source, Some(&all)).map_err(|e| chatviewer_error(e, &places))?;
    let reader = Reader {
        source: &source,
        root: "toolCall",
    };
    // The API response a Claude-shaped line belongs to, by the line's uuid; and where
    // the line is, to count the content blocks that cannot be placed.
    let mut responses: HashMap<&Wtf8, &Wtf8> = HashMap::new();
    let mut lines: HashMap<&Wtf8, At> = HashMap::new();
    if let Json::Array(items) = &all {
        for (item, at) in items.iter().zip(&places) {
            if let Some(uuid) = item.get("uuid").and_then(Json::as_str) {
                lines.insert(uuid, *at);
            }
            let response = item
                .get("message")
                .and_then(|m| m.get("id"))
                .and_then(Json::as_str);
            if let (Some(uuid), Some(response)) = (item.get("uuid").and_then(Json::as_str), response) {
                responses.insert(uuid, response);
            }
        }
    }
    let mut stored = StoredMessages::new();
    let mut open_response: Option<&Wtf8> = None;
    for row in rows {
        let uuid_text = match row.id {
            UnifiedId::Given(uuid) => uuid.and_then(Json::as_str),
            _ => None,
        };
        let uuid = uuid_text
            .map(|u| u.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = || uuid.clone();
        let is_type = |tag: &[u8]| matches!(row.kind, UnifiedType::Given(ty) if text(ty).as_bytes() == tag);
        if let Some(Content::Given(Some(Json::Array(blocks)))) = &row.content {
            // Claude-shaped content blocks: text, thinking, tool calls and their results.
            let (side, pieces, unplaced) = claude::block_pieces(blocks, is_type(b"user"));
            // A block this reading cannot place is counted, never dropped without a word.
            for (i, why) in unplaced {
                let (line, what) = match uuid_text.and_then(|u| lines.get(u)) {
                    Some(At::Line(line)) => (*line, format!("message.content[{i}]: {why}")),
                    Some(At::Element(index)) => (1, format!("[{index}].message.content[{i}]: {why}")),
                    None => (1, format!("message.content[{i}]: {why}")),
                };
                skips.skip(line, what).map_err(format_error)?;
            }
            let response = uuid_text.and_then(|u| responses.get(u).copied());
            let results_only = pieces
                .iter()
                .all(|p| matches!(p, claude::Piece::Event(AgentEvent::ToolResult { .. })));
            let continues = side == MessageRole::Assistant
                && stored.open_role() == Some(MessageRole::Assistant)
                && response.is_some()
                && response == open_response;
            if !(continues || results_only && !pieces.is_empty()) {
                stored.start(side, Some(&uuid), id);
                open_response = response;
            }
            for piece in pieces {
                match piece {
                    claude::Piece::Event(AgentEvent::ToolCall { id, name, arguments }) => {
                        stored.ensure(MessageRole::Assistant, || uuid.clone());
                        stored.call(id, name, arguments);
                    }
                    claude::Piece::Event(AgentEvent::ToolResult {
                        tool_call_id,
                        result,
                        is_error,
                    }) => {
                        stored.set_result(&tool_call_id, Some((result, is_error)));
                    }
                    claude::Piece::Event(event) => {
                        stored.ensure(side, || uuid.clone());
                        stored.event(event);
                    }
                    claude::Piece::Chunk(chunk) => {
                        stored.ensure(side, || uuid.clone());
                        stored.push(chunk);
                    }
                }
            }
        } else {
            open_response = None;
            let content = match row.content {
                Some(Content::Joined(pieces)) => {
                    let mut joined = Wtf8::new();
                    for piece in pieces {
                        joined.push_wtf8(text(piece).as_bytes());
                    }
                    Some(joined)
                }
                Some(Content::Given(Some(Json::String(given)))) => Some(given.clone()),
                _ => None,
            }
            .filter(|t| !t.is_empty());
            match row.kind {
                UnifiedType::User => {
                    stored.start(MessageRole::User, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::TextDelta { delta });
                    }
                }
                _ if is_type(b"user") => {
                    stored.start(MessageRole::User, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::TextDelta { delta });
                    }
                }
                _ if is_type(b"system") => {
                    if let Some(text) = content {
                        stored.start(MessageRole::System, Some(&uuid), id);
                        stored.push(Chunk::System {
                            kind: SystemChunkKind::Notice,
                            text,
                        });
                    }
                }
                UnifiedType::Thinking => {
                    stored.start(MessageRole::Assistant, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::ReasoningDelta { delta });
                    }
                }
                UnifiedType::ToolCall => {
                    stored.start(MessageRole::Assistant, Some(&uuid), id);
                    let call = match row.tool_call {
                        Some(ToolCallSlot::Given(call)) => call,
                        _ => None,
                    };
                    if let Some(Json::Object(_)) = call {
                        let fields =
                            acp::read_tool_call(&reader, call, &[], true).map_err(|e| HistoryError {
                                line: None,
                                offset: None,
                                message: format!("the message with uuid {uuid:?}: {e}"),
                            })?;
                        for event in acp::to_agent_events(&SessionUpdate::ToolCall(fields)) {
                            match owned_event(event) {
                                AgentEvent::ToolCall { id, name, arguments } => {
                                    stored.call(id, name, arguments);
                                }
                                AgentEvent::ToolResult {
                                    tool_call_id,
                                    result,
                                    is_error,
                                } => {
                                    stored.set_result(&tool_call_id, Some((result, is_error)));
                                }
                                _ => {}
                            }
                        }
                    }
                }
                _ => {
                    stored.start(MessageRole::Assistant, Some(&uuid), id);
                    if let Some(delta) = content {
                        stored.event(AgentEvent::TextDelta { delta });
                    }
                }
            }
        }
        if !stored.hand_on(&mut emit) {
            return Ok(skips);
        }
    }
    stored.finish(&mut emit);
    Ok(skips)
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
