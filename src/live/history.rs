//! A recorded stream read as a history: through the stream's own live fold (a
//! [`Conversation`]), a block at a time, so that what a live view of the stream shows is
//! what its history holds, by one fold.

use crate::bytes::Framing;
use crate::model::Chunk;
use crate::reading::check::Skips;
use crate::reading::format::{Format, Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::{read_block, read_items, reader_of};
use crate::reading::lines;
use crate::reading::model_json::FormatChunk;
use std::io::Read;

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
pub fn read_recorded(
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
    let strict = options.strict;
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
    // A recording kept as a JSON array of the stream's values (what `JSON.stringify` of
    // the events gives, pretty-printed or not): each element is pushed as one value.
    let mut first = read_block(&mut reader, &mut block)?;
    if is_array(&block[..first]) {
        let chained = std::io::Cursor::new(&block[..first]).chain(reader);
        read_items(chained, strict, |value, at| {
            let changes = live.push_value(value).map_err(|e| at.error(FormatProblem(&e)))?;
            settled.note(&changes);
            Ok(!settled.on || settled.hand_on(&live, emit))
        })?;
        if settled.on && settled.stopped {
            let (_, _, skips) = live.finish();
            return Ok(skips);
        }
        return finish_recorded(live, settled, emit);
    }
    let mut head = LineHead::default();
    let mut offset = 0u64;
    loop {
        let n = match first {
            0 => read_block(&mut reader, &mut block)?,
            n => {
                first = 0;
                n
            }
        };
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
    finish_recorded(live, settled, emit)
}

/// Whether a recording's first bytes open a JSON array (after a byte order mark and
/// whitespace).
fn is_array(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// A fold's error without the line the fold numbered it by (the array reader says where).
struct FormatProblem<'a>(&'a crate::reading::check::FormatError);

impl std::fmt::Display for FormatProblem<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.0.path.is_empty() {
            write!(f, "{} ", self.0.path)?;
        }
        f.write_str(&self.0.problem)
    }
}

/// The end of a recorded stream: what is left of its messages handed on, in order.
fn finish_recorded(
    mut live: crate::live::conversation::Conversation,
    mut settled: Settled,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let refused = |e: crate::live::conversation::LiveError| HistoryError {
        line: e.error.line.map(|l| l as u64),
        offset: e.offset,
        message: e.to_string(),
    };
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
    /// `emit` wanted no more.
    stopped: bool,
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
                self.stopped = true;
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
