//! A live conversation: a stream format's values folded into messages as they arrive.
//!
//! [`Conversation`] is the one path from a stream to messages: [`fold_stream`] (and with
//! it `foldStream` and the command) pushes a whole recording through one, and the Node
//! binding pushes what arrives, a network read or a parsed frame at a time. Each push
//! says what it changed ([`Changes`]): the messages it added and, of the others, which
//! chunks, so a view redraws those alone. A push costs what it folds plus what it
//! changed; the messages before are not looked at.
//!
//! ```
//! use agent_chunks::live::conversation::Conversation;
//! use agent_chunks::formats::find;
//!
//! let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
//! live.push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"Hel").unwrap();
//! let changes = live.push_bytes(b"lo\"}\n").unwrap();
//! assert_eq!(changes.added, 0..1);
//! assert_eq!(live.messages().len(), 1);
//! ```

use std::ops::Range;

use crate::bytes::{Frame, Framer, Framing};

use crate::bytes::value::{self, Json};
use crate::formats::FORMATS;
use crate::reading::check::{unreadable_kind, FormatError, FormatResult, Skips, NOT_UTF8};
use crate::reading::fold::{CallTouch, Folded, LiveFold, Origin};
use crate::reading::format::Format;
use crate::reading::model_json::FormatMessage;
use crate::reading::resume::{self, Envelope};
use crate::reading::sniff::{SNIFF_BYTES, SNIFF_VALUES};
use crate::reading::writer::{LiveWriter, Serve};

/// How a conversation reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveOptions {
    /// Refuse values the format does not know instead of skipping and counting them.
    pub strict: bool,
    /// The largest frame (line, or SSE frame's data) taken, in bytes; a larger one is
    /// refused as soon as it is seen to be larger, and what is left of it is dropped as it
    /// arrives, never buffered. `None`: no limit.
    pub limit: Option<usize>,
    /// The line the stream starts at (1 for a stream read from its start; after a
    /// history of n lines, n + 1), for the formats that name messages by their line.
    pub first_line: usize,
    /// A recording read whole (`foldStream`, a stream's history): a frame that cannot be
    /// read is skipped and counted (values written back to back on it are each read), as
    /// the history readers skip a torn line; refused when `strict`. Before the first
    /// value only text frames in the window detection looks in are: a recording with no
    /// value there is refused at its first bad frame. Live, a bad frame is an error that
    /// changes nothing.
    pub recording: bool,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            strict: false,
            limit: None,
            first_line: 1,
            recording: false,
        }
    }
}

/// How frames are read: the limit, and whether a recording's torn frames are skipped.
#[derive(Debug, Clone)]
struct Reading {
    limit: Option<usize>,
    recording: bool,
    /// A value was read.
    read_any: bool,
    /// A recording's first frame that could not be read, while no value was: its error
    /// is the recording's when none follows in the window detection looks in.
    unread_first: Option<LiveError>,
}

/// What one push changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// The messages it added (indexes).
    pub added: Range<usize>,
    /// Messages before `added` that changed, in index order: which chunks (sorted, new
    /// ones included), and whether the id changed.
    pub changed: Vec<MessageChange>,
    /// The messages were replaced whole (a stream that restated the conversation with
    /// messages removed or moved): `added` and `changed` are empty.
    pub reset: Option<Box<Reset>>,
    /// Of the chunks in `changed`, those whose whole change was some of their calls
    /// changing (or their arguments text growing by appending): a binding holding them
    /// may make those calls anew (or append) instead of the whole chunk. Only a hint; the
    /// chunks are in `changed` all the same.
    pub calls: Vec<CallTouch>,
}

/// Messages replaced whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reset {
    /// For each message now, the index it had before when it is the same message,
    /// unchanged.
    pub kept: Vec<Option<usize>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageChange {
    pub index: usize,
    pub chunks: Vec<usize>,
    /// The message's id changed (a format that names a message when it ends).
    pub renamed: bool,
    /// Its chunks from this one on were replaced, not extended (a message whose end holds
    /// the whole of it, different from what its events built): they are new, and there
    /// may be fewer than before.
    pub replaced: Option<usize>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.reset.is_none()
    }

    /// Adds what `later` changed (a push after this one).
    pub fn merge(&mut self, later: Changes) {
        // Which calls changed how is no longer known once two pushes are one.
        self.calls.clear();
        if let Some(reset) = later.reset {
            // What was the same before `later` is the same before this one if this one
            // left it as it was.
            let before = |i: usize| match &self.reset {
                Some(mine) => mine.kept.get(i).copied().flatten(),
                None => (!self.added.contains(&i)
                    && self.changed.binary_search_by_key(&i, |c| c.index).is_err())
                .then_some(i),
            };
            let kept = reset.kept.into_iter().map(|k| k.and_then(before)).collect();
            *self = Changes {
                reset: Some(Box::new(Reset { kept })),
                ..Changes::default()
            };
            return;
        }
        if let Some(reset) = &mut self.reset {
            // After a reset, what changes is no longer the same.
            for change in &later.changed {
                if let Some(slot) = reset.kept.get_mut(change.index) {
                    *slot = None;
                }
            }
            return;
        }
        if self.added.is_empty() {
            self.added = later.added.clone();
        } else if !later.added.is_empty() {
            self.added.end = later.added.end;
        }
        for change in later.changed {
            if self.added.contains(&change.index) {
                continue;
            }
            match self.changed.binary_search_by_key(&change.index, |c| c.index) {
                Ok(at) => {
                    let mine = &mut self.changed[at];
                    mine.renamed |= change.renamed;
                    mine.replaced = match (mine.replaced, change.replaced) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    mine.chunks.extend(change.chunks);
                    mine.chunks.sort_unstable();
                    mine.chunks.dedup();
                }
                Err(at) => self.changed.insert(at, change),
            }
        }
    }
}

/// A frame refused: what was wrong, at which line, and at which byte of the stream (for
/// bytes pushed; a value pushed parsed has no offset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveError {
    pub error: FormatError,
    pub offset: Option<u64>,
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.error.line, self.offset) {
            (Some(line), Some(offset)) => {
                write!(f, "line {line}, byte {offset}: ")?;
                if !self.error.path.is_empty() {
                    write!(f, "{} ", self.error.path)?;
                }
                f.write_str(&self.error.problem)
            }
            _ => self.error.fmt(f),
        }
    }
}

impl From<FormatError> for LiveError {
    fn from(error: FormatError) -> Self {
        LiveError { error, offset: None }
    }
}

/// A stream format's conversation, folded as its values arrive.
pub struct Conversation {
    format: &'static Format,
    fold: Box<dyn LiveFold>,
    out: Folded,
    skips: Skips,
    framer: Framer,
    reading: Reading,
    /// Values pushed already parsed: the line numbers they are given.
    values: usize,
    /// What was written of it in each format that serves live conversations.
    served: Vec<Served>,
    ended: bool,
}

/// A conversation as written so far in a format that serves it (a row's `serve` face).
struct Served {
    format: &'static Format,
    writer: Box<dyn LiveWriter>,
    /// Chunks changed since it last wrote that it asked for (`None`: a message renamed).
    touched: Vec<(usize, Option<usize>)>,
}

/// The keys of the writers' states in a resume state, in the table's order.
pub fn served_keys() -> Vec<&'static str> {
    serving().map(|(_, face)| face.key).collect()
}

/// The formats of the table that serve live conversations, with their faces.
fn serving() -> impl Iterator<Item = (&'static Format, Serve)> {
    FORMATS.iter().filter_map(|format| Some((format, format.serve?)))
}

/// Why a format cannot be folded live.
pub fn not_a_stream(format: &Format) -> String {
    format!(
        "a {} file is a history, not a stream: it is read whole (readHistory)",
        format.name
    )
}

impl Conversation {
    /// An empty conversation in `format`; an error when the format is not a stream.
    pub fn new(format: &'static Format, options: LiveOptions) -> Result<Self, String> {
        Self::resume(format, options, Vec::new(), None)
    }

    /// A conversation that goes on from `messages` (a history loaded before, mid-turn or
    /// not). With the resume state ([`Conversation::resume_state`]) saved with them, it
    /// goes on exactly as the stream read from its start would (its line too); without
    /// it, as well as the messages can tell: the last of them takes what the stream adds
    /// to it. The error (a state that is not of this format or these messages) names the
    /// state's field, after `resume`.
    pub fn resume(
        format: &'static Format,
        mut options: LiveOptions,
        messages: Vec<FormatMessage>,
        state: Option<&Json>,
    ) -> Result<Self, String> {
        let (new_fold, prefix) = format.stream.ok_or_else(|| not_a_stream(format))?;
        let mut out = Folded::resume(prefix, messages);
        let mut fold = new_fold(crate::formats::FORMATS);
        let mut skips = Skips::new(options.strict);
        let mut served: Vec<Served> = serving()
            .map(|(format, face)| Served {
                format,
                writer: (face.new)(&out),
                touched: Vec::new(),
            })
            .collect();
        let mut after_cr = false;
        match state {
            None => fold.resume(&out),
            Some(state) => {
                let state = Envelope::from_json(state, &served_keys()).map_err(|e| format!("resume{e}"))?;
                if state.format != format.name {
                    return Err(format!(
                        "resume.format is '{}', not this conversation's '{}'",
                        state.format, format.name
                    ));
                }
                if state.messages != out.len() {
                    return Err(format!(
                        "resume.messages: the state goes with {} messages, {} were given",
                        state.messages,
                        out.len()
                    ));
                }
                fold.restore(&state.fold, &out)
                    .map_err(|e| format!("resume.fold{e}"))?;
                out.set_open(state.open);
                options.first_line = state.line;
                after_cr = state.cr;
                skips = resume::read_skipped(&state.skipped, options.strict)
                    .map_err(|e| format!("resume.skipped{e}"))?;
                for ((_, face), (slot, (_, saved))) in serving().zip(served.iter_mut().zip(&state.served)) {
                    let (writer, touched) = (face.restore)(saved, &out).map_err(|e| format!("resume{e}"))?;
                    slot.writer = writer;
                    slot.touched = touched;
                }
            }
        }
        let first_line = options.first_line.max(1);
        let data_fields = fold.sse_data_fields();
        Ok(Conversation {
            format,
            fold,
            out,
            skips,
            framer: Framer::starting_at(Framing::Auto, first_line as u64)
                .following_cr(after_cr)
                .with_data_fields(data_fields),
            reading: Reading {
                limit: options.limit,
                recording: options.recording,
                read_any: false,
                unread_first: None,
            },
            values: first_line - 1,
            served,
            ended: false,
        })
    }

    pub fn format(&self) -> &'static Format {
        self.format
    }

    /// The messages so far.
    pub fn messages(&self) -> &Folded {
        &self.out
    }

    /// What the conversation remembers beyond its messages (see [`crate::reading::resume`]):
    /// saved with them, it lets [`Conversation::resume`] go on exactly from here.
    pub fn resume_state(&self) -> Json {
        let line = (self.framer.position().0 as usize).max(self.values + 1);
        Envelope {
            format: self.format.name.to_string(),
            line,
            messages: self.out.len(),
            open: self.out.is_open(),
            pending: self.framer.unfinished() as usize,
            cr: self.framer.after_cr(),
            fold: self.fold.save(),
            skipped: resume::skipped(&self.skips),
            served: self
                .served
                .iter()
                .map(|s| {
                    let key = s.format.serve.map_or("", |face| face.key);
                    (key, s.writer.save(&self.out, &s.touched))
                })
                .collect(),
        }
        .to_json()
    }

    /// Bytes pushed after the last whole frame (the state's `pending`).
    pub fn pending(&self) -> usize {
        self.framer.unfinished() as usize
    }

    /// The values skipped so far.
    pub fn skips(&self) -> &Skips {
        &self.skips
    }

    /// Bytes of an NDJSON or SSE stream, split anywhere. Every complete frame is folded;
    /// at a bad one (not JSON, not valid, too long) the frames before it stay folded, it
    /// changes nothing, the bytes after it wait for the next push, and the error names
    /// its line and byte offset.
    // What changed before a bad frame goes back with its error, once per push: its size
    // costs nothing worth a box.
    #[allow(clippy::result_large_err)]
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<Changes, (Changes, LiveError)> {
        let start = self.out.len();
        // More after the end: the stream goes on (a next response of the same chat).
        self.ended &= bytes.is_empty();
        if !bytes.is_empty() {
            self.pushed();
        }
        let result = {
            let Conversation {
                fold,
                out,
                skips,
                framer,
                reading,
                ..
            } = self;
            framer.push(bytes, |frame| {
                fold_frame(fold.as_mut(), out, skips, reading, frame)
            })
        };
        let result = result.and_then(|()| self.check_unfinished());
        let changes = self.changes(start);
        match result {
            Ok(()) => Ok(changes),
            Err(e) => Err((changes, e)),
        }
    }

    /// One value already parsed (a frame's JSON, a notification, a JSON-RPC message).
    pub fn push_value(&mut self, value: Json) -> FormatResult<Changes> {
        let start = self.out.len();
        self.ended = false;
        self.pushed();
        self.values += 1;
        let line = self.values;
        self.out.line = line;
        let result = self
            .fold
            .push(value, line, &mut self.out, &mut self.skips)
            .map_err(|e| if e.line.is_some() { e } else { e.at_line(line) });
        let changes = self.changes(start);
        result.map(|()| changes)
    }

    /// Tells the writers that more of the stream came ([`LiveWriter::pushed`]).
    fn pushed(&mut self) {
        for served in &mut self.served {
            served.writer.pushed();
        }
    }

    /// The end of the stream: a last line without a line break is folded; a frame cut
    /// short is an error.
    #[allow(clippy::result_large_err)]
    pub fn end(&mut self) -> Result<Changes, (Changes, LiveError)> {
        let start = self.out.len();
        let result = {
            let Conversation {
                fold,
                out,
                skips,
                framer,
                reading,
                ..
            } = self;
            framer
                .finish(|frame| fold_frame(fold.as_mut(), out, skips, reading, frame))
                .and_then(|()| match reading.unread_first.take() {
                    // A recording of frames that could not be read only.
                    Some(first) if !reading.read_any => Err(first),
                    _ => Ok(()),
                })
        };
        self.ended = true;
        let changes = self.changes(start);
        match result {
            Ok(()) => Ok(changes),
            Err(e) => Err((changes, e)),
        }
    }

    /// What the conversation gained since the last call, written in `format` (a format
    /// whose row serves live conversations); after
    /// [`Conversation::end`], every message is finished. Nothing for another format.
    pub fn serve(&mut self, format: &Format) -> Vec<Json> {
        let ended = self.ended;
        match self.served.iter_mut().find(|s| s.format == format) {
            Some(served) => {
                let touched = std::mem::take(&mut served.touched);
                served.writer.write(&self.out, ended, &touched)
            }
            None => Vec::new(),
        }
    }

    /// [`Conversation::serve`] with options for `format`'s writer (the names of the stream
    /// it writes); the error names the option, after `options`.
    pub fn serve_with(&mut self, format: &Format, options: &Json) -> Result<Vec<Json>, String> {
        if let Some(served) = self.served.iter_mut().find(|s| s.format == format) {
            served
                .writer
                .configure(options)
                .map_err(|e| format!("options{e}"))?;
        }
        Ok(self.serve(format))
    }

    /// [`Conversation::serve`] for a client reconnecting to the response being written:
    /// the last response again from its start, then what is new (see
    /// [`LiveWriter::replay`]).
    pub fn serve_replayed(&mut self, format: &Format) -> Vec<Json> {
        if let Some(served) = self.served.iter_mut().find(|s| s.format == format) {
            served.touched.clear();
            served.writer.replay(&self.out);
        }
        self.serve(format)
    }

    /// Whether `format`'s end marker is to end what [`Conversation::serve`] writes now:
    /// the stream ended and the marker was not written after what was written so far.
    pub fn serve_end_marker(&mut self, format: &Format) -> bool {
        self.ended
            && self
                .served
                .iter_mut()
                .find(|s| s.format == format)
                .is_some_and(|s| s.writer.mark_end())
    }

    /// The framing of the bytes pushed, once their first line has decided it.
    pub fn framing(&self) -> Framing {
        self.framer.framing()
    }

    /// Whether [`Conversation::end`] was called.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The messages and the lines that built them.
    pub fn finish(self) -> (Vec<FormatMessage>, Vec<Origin>, Skips) {
        let (messages, origins) = self.out.finish();
        (messages, origins, self.skips)
    }

    /// A frame past the limit that is still arriving is refused now, not buffered.
    fn check_unfinished(&mut self) -> Result<(), LiveError> {
        let Some(limit) = self.reading.limit else {
            return Ok(());
        };
        if self.framer.buffered() <= limit {
            return Ok(());
        }
        let size = self.framer.buffered();
        let (line, offset) = self.framer.position();
        self.framer.drop_unfinished();
        Err(too_large(size, limit, line, offset))
    }

    fn changes(&mut self, start: usize) -> Changes {
        let end = self.out.len();
        if let Some(kept) = self.out.take_reset() {
            // The messages were replaced whole: what each writer wrote is measured anew.
            for served in &mut self.served {
                served.touched.clear();
                served.writer.reset(&self.out);
            }
            return Changes {
                added: end..end,
                reset: Some(Box::new(Reset { kept })),
                ..Changes::default()
            };
        }
        let mut changed: Vec<MessageChange> = Vec::new();
        let mut touched = self.out.take_touched();
        let calls = self.out.take_call_touches();
        // Calls tell a chunk's whole change when every touch of the chunk was one.
        let mut calls: Vec<CallTouch> = calls
            .iter()
            .filter(|c| {
                let at = (c.message, c.chunk);
                let touches = touched.iter().filter(|&&t| t == (at.0, Some(at.1)));
                let calls = calls.iter().filter(|o| (o.message, o.chunk) == at);
                c.message < start && touches.count() == calls.count()
            })
            .cloned()
            .collect();
        let rewrites = self.out.take_rewrites();
        for rewrite in &rewrites {
            for served in &mut self.served {
                served.writer.rewritten(rewrite, &self.out);
            }
        }
        // Only what a writer looks at, once: the list (and the resume state that holds
        // it) stays short when nothing is served.
        for &(message, chunk) in &touched {
            for served in &mut self.served {
                if served.writer.wants(&self.out, message, chunk)
                    && !served.touched.contains(&(message, chunk))
                {
                    served.touched.push((message, chunk));
                }
            }
        }
        // A chunk touched, then taken away by a message replaced in the same push, is not
        // there to report.
        touched.retain(|&(message, chunk)| {
            message < start && chunk.is_none_or(|j| j < self.out.message(message).2.len())
        });
        touched.sort_unstable();
        touched.dedup();
        for (message, chunk) in touched {
            if changed.last().is_none_or(|c| c.index != message) {
                changed.push(MessageChange {
                    index: message,
                    ..MessageChange::default()
                });
            }
            let change = changed.last_mut().expect("pushed above");
            match chunk {
                Some(chunk) => change.chunks.push(chunk),
                None => change.renamed = true,
            }
        }
        for rewrite in rewrites.into_iter().filter(|r| r.message < start) {
            let at = match changed.binary_search_by_key(&rewrite.message, |c| c.index) {
                Ok(at) => at,
                Err(at) => {
                    changed.insert(
                        at,
                        MessageChange {
                            index: rewrite.message,
                            ..MessageChange::default()
                        },
                    );
                    at
                }
            };
            let replaced = &mut changed[at].replaced;
            *replaced = Some(replaced.map_or(rewrite.from, |r| r.min(rewrite.from)));
        }
        // Nor when the chunk was replaced, or taken away, since.
        calls.retain(|c| {
            let replaced = changed
                .binary_search_by_key(&c.message, |m| m.index)
                .map_or(None, |at| changed[at].replaced);
            replaced.is_none_or(|from| c.chunk < from) && c.chunk < self.out.message(c.message).2.len()
        });
        Changes {
            added: start..end,
            changed,
            reset: None,
            calls,
        }
    }
}

fn too_large(size: usize, limit: usize, line: u64, offset: u64) -> LiveError {
    LiveError {
        error: FormatError::new(
            "",
            format!("a frame of more than {limit} bytes (the limit), {size} so far: refused"),
        )
        .at_line(line as usize),
        offset: Some(offset),
    }
}

fn fold_frame(
    fold: &mut dyn LiveFold,
    out: &mut Folded,
    skips: &mut Skips,
    reading: &mut Reading,
    frame: Frame<'_>,
) -> Result<(), LiveError> {
    let line = frame.line as usize;
    if let Some(limit) = reading.limit.filter(|&limit| frame.bytes.len() > limit) {
        return Err(too_large(frame.bytes.len(), limit, frame.line, frame.offset));
    }
    if &*frame.bytes == b"[DONE]" {
        // An SSE stream's end marker: no value.
        return Ok(());
    }
    let at = |error: FormatError| LiveError {
        error: if error.line.is_some() {
            error
        } else {
            error.at_line(line)
        },
        offset: Some(frame.offset),
    };
    out.line = line;
    if let Some(folded) = fold.push_frame(&frame.bytes, frame.utf8, line, out, skips) {
        reading.read_any = true;
        return folded.map_err(at);
    }
    let mut fold_one = |value: Json, skips: &mut Skips| {
        out.line = line;
        fold.push(value, line, out, skips).map_err(at)
    };
    let problem = match value::parse_checked(&frame.bytes, frame.utf8) {
        Ok(value) => {
            reading.read_any = true;
            return fold_one(value, skips);
        }
        Err(problem) => problem,
    };
    let text = std::str::from_utf8(&frame.bytes).ok();
    if !reading.recording || skips.strict {
        return Err(at(FormatError::new("", problem.to_string())));
    }
    if !reading.read_any {
        // Before the first value: a text line in the window is looked past, once.
        let window = line <= SNIFF_VALUES && frame.offset < SNIFF_BYTES as u64;
        let error = at(FormatError::new("", problem.to_string()));
        if text.is_none() || !window {
            return Err(reading.unread_first.take().unwrap_or(error));
        }
        reading.unread_first.get_or_insert(error);
    }
    // A torn frame of a recording: each whole value on it is read, the rest skipped.
    let Some(text) = text else {
        return skips.unreadable(line, NOT_UTF8, "invalid UTF-8").map_err(at);
    };
    let (values, torn) = value::split_values(text, &value::parse_str);
    for (start, problem) in torn {
        let kind = unreadable_kind(start, &problem, !values.is_empty());
        skips.unreadable(line, kind, problem).map_err(at)?;
    }
    for range in values {
        let value = value::parse_str(&text[range]).map_err(|e| at(FormatError::new("", e.to_string())))?;
        fold_one(value, skips)?;
    }
    Ok(())
}
