//! The tree of a Pi session file: entries linked by `parentId`, the conversation the
//! path from the root to a leaf.
//!
//! The current leaf is the last entry (as pi-mono's session manager has it when it
//! opens a file); [`SessionOptions::leaf`] reads another one, and [`leaves`] lists them
//! all. Entries without an `id` (version 1 files, bare message lines) are children of the
//! entry before them; a `parentId` that names no earlier entry makes a root. The path is
//! only known at the end of the file, so the messages are handed on then.

use std::collections::HashMap;

use crate::model::{AgentEvent, ChatMessage, MessageRole};
use crate::owned::IndexedChunks;
use crate::reducer::{append_event, ChunkStore};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::pi::session::{line_error, parse_line, parse_str_line, read_entry, read_message, Stored};
use crate::reading::check::{
    object, optional_string, split_lines, unreadable_kind, wrong, FormatError, FormatResult, Skips,
    COMPACTED, NOT_UTF8, OFF_BRANCH, UNREACHABLE,
};
use crate::reading::format::View;
use crate::reading::model_json::{FormatChunk, FormatEvent, FormatMessage};

/// How a session is read. By default the whole path ([`View::Transcript`]), as
/// `pi.toMessages` reads it; the history readers name their view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOptions {
    /// The leaf whose path is read (an entry id); the last entry when `None`.
    pub leaf: Option<String>,
    /// Refuse entry types, roles and content blocks this version does not know.
    pub strict: bool,
    /// Which entries are read: the conversation as pi shows it on reload (after a
    /// compaction, its summary and then the entries it kept), the path whole, or every
    /// entry.
    pub view: View,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            leaf: None,
            strict: false,
            view: View::Transcript,
        }
    }
}

/// What a line is, by its `type`.
enum Kind {
    Message,
    Entry(&'static [u8]),
    /// No `type`: a bare message (or nothing).
    Bare,
    /// A type this version does not know.
    Unknown,
}

/// The entry types other than `session` and `message`.
const ENTRY_KINDS: &[&[u8]] = &[
    b"model_change",
    b"thinking_level_change",
    b"compaction",
    b"branch_summary",
    b"custom_message",
    b"custom",
    b"label",
    b"session_info",
];

/// A leaf of the tree: an entry no other entry continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    pub id: String,
    /// Entries on its path, itself included.
    pub depth: usize,
    /// 1-based line of the entry.
    pub line: usize,
    /// The last entry of the file: the conversation pi shows.
    pub current: bool,
}

#[derive(Debug)]
struct Entry {
    id: Wtf8,
    parent: Option<usize>,
    line: usize,
    stored: Stored,
    /// For a compaction: the first entry it kept.
    kept: Option<Kept>,
}

/// The first entry a compaction kept, as it names it.
#[derive(Debug)]
enum Kept {
    /// `firstKeptEntryId` (version 2 and later).
    Id(Wtf8),
    /// `firstKeptEntryIndex` (version 1): the index among the lines pi could parse, the
    /// header included.
    Index(usize),
    /// Neither: nothing before the compaction is kept.
    Nothing,
}

fn kept(line: &Json) -> Kept {
    if let Some(id) = line.get("firstKeptEntryId").and_then(Json::as_str) {
        return Kept::Id(id.clone());
    }
    match line.get("firstKeptEntryIndex").and_then(Json::as_f64) {
        Some(index) if index >= 0.0 && index.fract() == 0.0 => Kept::Index(index as usize),
        _ => Kept::Nothing,
    }
}

/// Reads a session line by line ([`read_parsed`]), handing on finished messages with
/// [`hand_on`] and the rest with [`finish_with`] at the end. While entries chain in file
/// order (no `id` / `parentId`: version 1 files, bare messages) each message is handed on
/// as soon as it is complete; in a tree the path is only known at the end.
///
/// [`read_parsed`]: SessionReader::read_parsed
/// [`hand_on`]: SessionReader::hand_on
/// [`finish_with`]: SessionReader::finish_with
#[derive(Debug, Default)]
pub struct SessionReader {
    options: SessionOptions,
    entries: Vec<Entry>,
    ids: HashMap<Wtf8, usize>,
    /// No entry so far has named itself or its parent.
    in_order: bool,
    /// Only the entries of the path are read ([`Planner`]).
    planned: bool,
    /// Entries already walked (handed on in file order).
    walked: usize,
    walker: Walker,
    pub skips: Skips,
    /// Per line pi could parse (the header included), the entry it is, in order: what a
    /// version 1 compaction's `firstKeptEntryIndex` counts.
    parsed: Vec<Option<usize>>,
    /// The line being read is a whole line (not a value found beside another on it, which
    /// pi cannot parse).
    pub whole_line: bool,
}

/// The messages of the entries of a path, taken in order: tool results land in the
/// assistant message before them, which stays open for them until the next message.
#[derive(Debug, Default)]
struct Walker {
    open: Option<(String, Open)>,
    done: Vec<FormatMessage>,
}

/// The open assistant message's chunks: as read, or indexed by call id once it holds
/// more calls than a search through them should cost.
#[derive(Debug)]
enum Open {
    Plain(Vec<FormatChunk>),
    Indexed(IndexedChunks<Wtf8, Json>),
}

/// Calls beyond which results are found through an index.
const SEARCHED_CALLS: usize = 16;

impl Open {
    fn new(chunks: Vec<FormatChunk>) -> Self {
        let calls: usize = chunks.iter().filter_map(|c| c.calls()).map(<[_]>::len).sum();
        if calls > SEARCHED_CALLS {
            Open::Indexed(IndexedChunks::from(chunks))
        } else {
            Open::Plain(chunks)
        }
    }

    /// Folds a result into the message when it holds the call; `Err` gives it back.
    fn land(&mut self, event: FormatEvent) -> Result<(), FormatEvent> {
        let AgentEvent::ToolResult { tool_call_id, .. } = &event else {
            return Err(event);
        };
        let held = match self {
            Open::Plain(chunks) => chunks.newest_call(tool_call_id),
            Open::Indexed(chunks) => chunks.newest_call(tool_call_id),
        };
        if !matches!(held, Ok(Some(_))) {
            return Err(event);
        }
        match self {
            Open::Plain(chunks) => {
                let Ok(()) = append_event(chunks, event);
            }
            Open::Indexed(chunks) => {
                let Ok(()) = append_event(chunks, event);
            }
        }
        Ok(())
    }

    fn into_chunks(self) -> Vec<FormatChunk> {
        match self {
            Open::Plain(chunks) => chunks,
            Open::Indexed(chunks) => chunks.into_chunks(),
        }
    }
}

impl Walker {
    fn close(&mut self) {
        if let Some((id, chunks)) = self.open.take() {
            self.done.push(ChatMessage {
                id,
                role: MessageRole::Assistant,
                chunks: chunks.into_chunks(),
            });
        }
    }

    fn take(&mut self, id: &Wtf8, stored: Stored) {
        match stored {
            Stored::Hidden => {}
            Stored::ToolResult {
                call_id,
                name,
                result,
                is_error,
            } => {
                let event = AgentEvent::ToolResult {
                    tool_call_id: call_id,
                    result,
                    is_error,
                };
                let unlanded = match &mut self.open {
                    Some((_, open)) => open.land(event).err(),
                    None => Some(event),
                };
                if let Some(event) = unlanded {
                    let AgentEvent::ToolResult {
                        tool_call_id: call_id,
                        ..
                    } = &event
                    else {
                        unreachable!("a tool result was given")
                    };
                    let call_id = call_id.clone();
                    // A result whose call is not in the message before it keeps its
                    // place as a message of its own rather than being lost.
                    self.close();
                    let mut chunks: Vec<FormatChunk> = Vec::new();
                    let call = AgentEvent::ToolCall {
                        id: call_id,
                        name,
                        arguments: Json::Undefined,
                    };
                    let Ok(()) = append_event(&mut chunks, call);
                    let Ok(()) = append_event(&mut chunks, event);
                    self.done.push(ChatMessage {
                        id: id.to_string_lossy().into_owned(),
                        role: MessageRole::Assistant,
                        chunks,
                    });
                }
            }
            Stored::Message(message) => {
                self.close();
                if message.role == MessageRole::Assistant {
                    self.open = Some((message.id, Open::new(message.chunks)));
                } else {
                    self.done.push(message);
                }
            }
        }
    }
}

impl SessionReader {
    pub fn new(options: SessionOptions) -> Self {
        SessionReader {
            skips: Skips::new(options.strict),
            in_order: options.leaf.is_none() && options.view != View::All,
            options,
            whole_line: true,
            ..SessionReader::default()
        }
    }

    /// Keeps every entry until the end, where the view is made: for a session that holds
    /// a compaction (its summary comes first, before the entries it kept).
    pub fn collect_all(&mut self) {
        self.in_order = false;
    }

    /// Reads line `number`, already parsed (its strings are moved into the messages).
    pub fn read_parsed(&mut self, line: Json, number: usize) -> FormatResult<()> {
        self.line(line, number).map_err(|e| e.at_line(number))
    }

    /// Hands on the messages finished so far; `false` when `emit` asked to stop.
    pub fn hand_on(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        self.walker.done.drain(..).all(emit)
    }

    fn line(&mut self, mut line: Json, number: usize) -> FormatResult<()> {
        object(&line, "")?;
        let id = optional_string(&line, "id", "")?.cloned();
        let name = || {
            id.as_ref().map_or_else(
                || format!("line-{number}"),
                |id| id.to_string_lossy().into_owned(),
            )
        };
        let kind = match optional_string(&line, "type", "")?.map(Wtf8::as_bytes) {
            Some(b"session") => {
                if self.whole_line {
                    self.parsed.push(None);
                }
                return Ok(());
            }
            Some(b"message") => Kind::Message,
            Some(kind) => match ENTRY_KINDS.iter().find(|k| **k == kind) {
                Some(kind) => Kind::Entry(kind),
                None => {
                    // Skipped, but kept in the tree: later entries may continue it.
                    let kind = Wtf8::from_wtf8_unchecked(kind.to_vec());
                    self.skips
                        .skip(number, format_args!("unknown entry type \"{kind}\""))?;
                    Kind::Unknown
                }
            },
            None => Kind::Bare,
        };
        // A compaction found beside another value on a torn line is read (its summary is a
        // message) but pi, which cannot parse that line, never resumes from it.
        let compaction = (self.whole_line && matches!(kind, Kind::Entry(b"compaction"))).then(|| kept(&line));
        let stored = match kind {
            Kind::Message => {
                let mut message = line.take("message").unwrap_or(Json::Null);
                object(&message, "message")?;
                read_message(&mut message, "message", name(), number, &mut self.skips)?
            }
            Kind::Entry(kind) => read_entry(&mut line, kind, name())?.unwrap_or(Stored::Hidden),
            Kind::Unknown => Stored::Hidden,
            Kind::Bare if line.get("role").is_some() => {
                read_message(&mut line, "", name(), number, &mut self.skips)?
            }
            Kind::Bare => {
                return self
                    .skips
                    .skip(number, "a line that is neither an entry nor a message")
            }
        };
        if self.planned {
            let id = id.unwrap_or_else(|| Wtf8::from(format!("line-{number}")));
            self.walker.take(&id, stored);
            return Ok(());
        }
        let parent = match line.get("parentId") {
            // Version 2 and later: the entry names its parent (null for a root).
            Some(Json::String(parent)) => self.ids.get(parent).copied(),
            Some(Json::Null) => None,
            Some(other) => return Err(wrong("parentId".into(), "a string or null", Some(other))),
            // Version 1 and bare messages: the file's order is the conversation's.
            None => self.entries.len().checked_sub(1),
        };
        self.in_order &= id.is_none() && line.get("parentId").is_none();
        let id = id.unwrap_or_else(|| Wtf8::from(format!("line-{number}")));
        self.ids.insert(id.clone(), self.entries.len());
        if self.whole_line {
            self.parsed.push(Some(self.entries.len()));
        }
        let stored = if self.in_order {
            self.walker.take(&id, stored);
            self.walked = self.entries.len() + 1;
            Stored::Hidden
        } else {
            stored
        };
        self.entries.push(Entry {
            id,
            parent,
            line: number,
            stored,
            kept: compaction,
        });
        Ok(())
    }

    /// The entries from the root to the leaf, in order.
    fn path(&self) -> FormatResult<Vec<usize>> {
        let leaf = match &self.options.leaf {
            None => match self.entries.len() {
                0 => return Ok(Vec::new()),
                n => n - 1,
            },
            Some(id) => *self.ids.get(&Wtf8::from(id.as_str())).ok_or_else(|| {
                FormatError::new("", format!("the session has no entry with id \"{id}\" (leaf)"))
            })?,
        };
        let mut path = Vec::new();
        let mut at = Some(leaf);
        // Parents come before their children, so the walk always goes up and ends.
        while let Some(index) = at {
            path.push(index);
            at = self.entries[index].parent.filter(|&parent| parent < index);
        }
        path.reverse();
        Ok(path)
    }

    /// The leaves, in file order.
    pub fn leaves(&self) -> Vec<Leaf> {
        let mut has_child = vec![false; self.entries.len()];
        let mut depth = vec![0usize; self.entries.len()];
        for (i, entry) in self.entries.iter().enumerate() {
            if let Some(parent) = entry.parent.filter(|&p| p < i) {
                has_child[parent] = true;
                depth[i] = depth[parent] + 1;
            } else {
                depth[i] = 1;
            }
        }
        let last = self.entries.len().checked_sub(1);
        self.entries
            .iter()
            .enumerate()
            .filter(|(i, _)| !has_child[*i])
            .map(|(i, entry)| Leaf {
                id: entry.id.to_string_lossy().into_owned(),
                depth: depth[i],
                line: entry.line,
                current: Some(i) == last,
            })
            .collect()
    }

    /// Hands on the rest of the messages of the path, in order; `emit` returns `false`
    /// to stop.
    /// Returns what was skipped and left out.
    pub fn finish_with(mut self, mut emit: impl FnMut(FormatMessage) -> bool) -> FormatResult<Skips> {
        if !self.hand_on(&mut emit) {
            return Ok(self.skips);
        }
        if self.planned {
            self.walker.close();
            self.hand_on(&mut emit);
            return Ok(self.skips);
        }
        let path = match self.options.view {
            View::All => (0..self.entries.len()).collect(),
            _ => self.path()?,
        };
        let order = self.view(&path);
        self.report_left_out(&path, &order);
        let walked = self.walked;
        for index in order.into_iter().filter(|&i| i >= walked) {
            let entry = &mut self.entries[index];
            let stored = std::mem::replace(&mut entry.stored, Stored::Hidden);
            let id = entry.id.clone();
            self.walker.take(&id, stored);
            if !self.hand_on(&mut emit) {
                return Ok(self.skips);
            }
        }
        self.walker.close();
        self.hand_on(&mut emit);
        Ok(self.skips)
    }

    /// The entries of `path` the view reads, in the order pi shows them: resumed, after
    /// the path's last compaction its summary comes first, then the entries from the one
    /// it kept first up to it, then those after it (pi's `buildSessionContext`). A kept
    /// entry not on the path keeps nothing before the compaction, as in pi.
    fn view(&self, path: &[usize]) -> Vec<usize> {
        if self.options.view != View::Resumed {
            return path.to_vec();
        }
        let Some(at) = path.iter().rposition(|&i| self.entries[i].kept.is_some()) else {
            return path.to_vec();
        };
        let first = match &self.entries[path[at]].kept {
            Some(Kept::Id(id)) => self.ids.get(id).copied(),
            Some(Kept::Index(index)) => self.parsed.get(*index).copied().flatten(),
            _ => None,
        };
        let from = first
            .and_then(|first| path[..at].iter().position(|&i| i == first))
            .unwrap_or(at);
        let mut order = Vec::with_capacity(path.len() - from);
        order.push(path[at]);
        order.extend_from_slice(&path[from..at]);
        order.extend_from_slice(&path[at + 1..]);
        order
    }

    /// Counts the entries the reading leaves out, and why: before the compaction's kept
    /// part, on another branch of the leaf's tree, or on no branch it reaches.
    fn report_left_out(&mut self, path: &[usize], order: &[usize]) {
        let n = self.entries.len();
        let mut read = vec![false; n];
        let mut on_path = vec![false; n];
        for &i in order {
            read[i] = true;
        }
        for &i in path {
            on_path[i] = true;
        }
        let mut root = vec![0; n];
        for i in 0..n {
            root[i] = match self.entries[i].parent.filter(|&p| p < i) {
                Some(parent) => root[parent],
                None => i,
            };
        }
        let leaf_root = path.last().map(|&leaf| root[leaf]);
        for i in 0..n {
            if read[i] || i < self.walked {
                continue;
            }
            let reason = if on_path[i] {
                COMPACTED
            } else if Some(root[i]) == leaf_root {
                OFF_BRANCH
            } else {
                UNREACHABLE
            };
            let entry = &self.entries[i];
            self.skips
                .leave_out(|| format!("line {} (id \"{}\")", entry.line, entry.id), reason);
        }
    }

    /// The messages of the path.
    pub fn finish(self) -> FormatResult<Vec<FormatMessage>> {
        let mut messages = Vec::new();
        self.finish_with(|message| {
            messages.push(message);
            true
        })?;
        Ok(messages)
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Reads a session file's bytes (UTF-8, or WTF-8 from a JavaScript string) with
/// `options`. Blank lines are skipped; a line cut short at the end of the file is
/// reported as such.
pub fn read_session_with(
    text: &[u8],
    options: SessionOptions,
    emit: impl FnMut(FormatMessage) -> bool,
) -> FormatResult<Skips> {
    read_all(text, options, true)?.finish_with(emit)
}

/// The plan of a session's bytes ([`Planner`]): per line number, whether it is on the
/// path to `options.leaf`; the entries it leaves out are counted in `skips`.
pub fn plan(text: &[u8], options: &SessionOptions, skips: &mut Skips) -> Plan {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut planner = Planner::default();
    let mut start = 0;
    for (number, end) in memchr::memchr_iter(b'\n', text).chain([text.len()]).enumerate() {
        if start > text.len() {
            break;
        }
        planner.line(number + 1, &text[start..end]);
        start = end + 1;
    }
    planner.finish(options, skips)
}

/// What the planner found: the lines of the path (`None` when it cannot be planned), and
/// whether the session holds a compaction.
#[derive(Debug, Default)]
pub struct Plan {
    pub on_path: Option<Vec<bool>>,
    pub compaction: bool,
}

/// Why every line of a file that does not start with a session header is passed over.
pub const NO_SESSION: &str = "no session: the file does not start with a session header";

/// Whether `first`, a file's first value, is an entry of a session (an object with a
/// `type` other than `session`) rather than its header. pi reads such a file as no
/// session (`loadEntriesFromFile` keeps none of its entries, and `SessionManager` writes
/// the file anew): nothing of it is shown, and every line is passed over ([`NO_SESSION`]).
/// Bare message lines (a `role`, no `type`) are messages, as they are read everywhere.
pub fn headless(first: &Json) -> bool {
    first
        .get("type")
        .and_then(Json::as_str)
        .is_some_and(|kind| kind.as_bytes() != b"session")
}

/// [`headless`] for a file's first line that is not blank (a line that is not JSON says
/// nothing: the reading refuses it).
pub fn headless_line(first: &str) -> bool {
    parse_str_line(first).is_ok_and(|first| headless(&first))
}

/// Reads every line, or with `planned` only those on the path when it can be found first.
fn read_all(text: &[u8], options: SessionOptions, planned: bool) -> FormatResult<SessionReader> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut reader = SessionReader::new(options);
    let first = split_lines(text).into_iter().find(|line| !is_blank(line));
    if first.is_some_and(|line| std::str::from_utf8(line).is_ok_and(headless_line)) {
        for (i, line) in split_lines(text).into_iter().enumerate() {
            if !is_blank(line) {
                reader.skips.skip(i + 1, NO_SESSION)?;
            }
        }
        return Ok(reader);
    }
    let plan = if planned {
        plan(text, &reader.options, &mut reader.skips)
    } else {
        Plan {
            on_path: None,
            compaction: true,
        }
    };
    let lines = split_lines(text);
    let last = lines.iter().rposition(|line| !is_blank(line));
    if plan.on_path.is_some() {
        reader.follow_plan();
    } else if plan.compaction {
        reader.collect_all();
    }
    let mut read_any = false;
    for (i, line) in lines.iter().enumerate() {
        if is_blank(line)
            || plan
                .on_path
                .as_ref()
                .is_some_and(|p| !p.get(i + 1).copied().unwrap_or(false))
        {
            continue;
        }
        let number = i + 1;
        let e = match parse_line(line) {
            Ok(parsed) => {
                read_any = true;
                reader.whole_line = true;
                reader.read_parsed(parsed, number)?;
                continue;
            }
            Err(e) => e,
        };
        // A line that cannot be read is read past (refused when strict, or when no line
        // was read yet: then it is no session); the complete entries on it are read.
        if reader.options.strict || !read_any {
            return Err(line_error(e, number, Some(i) == last));
        }
        if plan.on_path.is_some() {
            // The plan took the line for the one entry its start names: read every line.
            return read_all(text, reader.options.clone(), false);
        }
        reader.whole_line = false;
        let Ok(line) = std::str::from_utf8(line) else {
            reader.skips.unreadable(number, NOT_UTF8, "invalid UTF-8")?;
            continue;
        };
        let (values, torn) = crate::bytes::value::split_values(line, &parse_str_line);
        for (at, problem) in torn {
            let kind = unreadable_kind(at, &problem, !values.is_empty());
            reader.skips.unreadable(number, kind, problem)?;
        }
        for range in values {
            let parsed = parse_str_line(&line[range]).map_err(|e| line_error(e, number, false))?;
            reader.read_parsed(parsed, number)?;
        }
    }
    Ok(reader)
}

/// Reads a session file's bytes: the conversation up to its last entry.
pub fn read_session(text: &[u8]) -> FormatResult<Vec<FormatMessage>> {
    let mut messages = Vec::new();
    read_session_with(text, SessionOptions::default(), |message| {
        messages.push(message);
        true
    })?;
    Ok(messages)
}

/// The leaves of a session file, in file order.
pub fn leaves(text: &[u8]) -> FormatResult<Vec<Leaf>> {
    Ok(read_all(text, SessionOptions::default(), false)?.leaves())
}

/// Reads lines that are already parsed; entry `i` is reported as line `i + 1`.
pub fn read_lines(lines: Vec<Json>, options: SessionOptions) -> FormatResult<Vec<FormatMessage>> {
    let mut reader = SessionReader::new(options);
    if lines.first().is_some_and(headless) {
        for number in 1..=lines.len() {
            reader.skips.skip(number, NO_SESSION)?;
        }
        return Ok(Vec::new());
    }
    for (i, line) in lines.into_iter().enumerate() {
        reader.read_parsed(line, i + 1)?;
    }
    reader.finish()
}

/// Finds the path to the leaf before a session is read, from each line's leading
/// `{"type":…,"id":…,"parentId":…` as pi writes its entries, without parsing the rest:
/// the reader then parses only the lines on the path, and hands each message on as soon
/// as it is complete. A line in any other shape gives up the plan (the reader then reads
/// every line and finds the path at the end).
#[derive(Debug, Default)]
pub struct Planner {
    /// Per entry: its line and its parent entry.
    entries: Vec<(usize, Option<usize>)>,
    /// Every entry's id, one after the other (`ends[i]` is where entry `i`'s ends), so
    /// that a chain in file order costs no allocation per entry.
    ids: Vec<u8>,
    ends: Vec<usize>,
    /// Entry by id, built only once an entry continues another than the one before it.
    by_id: Option<HashMap<Vec<u8>, usize>>,
    failed: bool,
    /// A line starts as a compaction entry does.
    compaction: bool,
}

/// The `type`, `id` and `parentId` (absent for `null`) at the start of an entry line.
type Head<'a> = (&'a [u8], &'a [u8], Option<&'a [u8]>);

fn head(line: &[u8]) -> Option<Head<'_>> {
    fn string(rest: &[u8]) -> Option<(&[u8], &[u8])> {
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        (rest[end] == b'"').then(|| (&rest[..end], &rest[end + 1..]))
    }
    let rest = line.strip_prefix(b"{\"type\":\"")?;
    let (kind, rest) = string(rest)?;
    let rest = rest.strip_prefix(b",\"id\":\"")?;
    let (id, rest) = string(rest)?;
    let rest = rest.strip_prefix(b",\"parentId\":")?;
    let (parent, rest) = match rest.strip_prefix(b"null") {
        Some(rest) => (None, rest),
        None => {
            let (parent, rest) = string(rest.strip_prefix(b"\"")?)?;
            (Some(parent), rest)
        }
    };
    matches!(rest.first(), Some(b',' | b'}')).then_some((kind, id, parent))
}

impl Planner {
    fn id(&self, entry: usize) -> &[u8] {
        let start = entry.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.ids[start..self.ends[entry]]
    }

    fn index(&mut self) -> &HashMap<Vec<u8>, usize> {
        if self.by_id.is_none() {
            let map = (0..self.entries.len())
                .map(|i| (self.id(i).to_vec(), i))
                .collect();
            self.by_id = Some(map);
        }
        self.by_id.as_ref().expect("built above")
    }

    /// Notes line `number`; `false` once the plan is given up (a line in another shape,
    /// or an entry whose parent is not an earlier entry: a torn line may hide it). Lines
    /// after that are still looked at for compactions.
    pub fn line(&mut self, number: usize, line: &[u8]) -> bool {
        if line.starts_with(b"{\"type\":\"compaction\"") {
            self.compaction = true;
        }
        if self.failed || line.iter().all(u8::is_ascii_whitespace) {
            return !self.failed;
        }
        if line.starts_with(b"{\"type\":\"session\"") {
            return true;
        }
        let Some((_, id, parent)) = head(line) else {
            self.failed = true;
            return false;
        };
        let previous = self.entries.len().checked_sub(1);
        let parent = match parent {
            None => None,
            Some(parent) if previous.is_some_and(|p| self.id(p) == parent) => previous,
            Some(parent) => match self.index().get(parent).copied() {
                Some(found) => Some(found),
                None => {
                    self.failed = true;
                    return false;
                }
            },
        };
        let entry = self.entries.len();
        self.entries.push((number, parent));
        self.ids.extend_from_slice(id);
        self.ends.push(self.ids.len());
        if let Some(map) = &mut self.by_id {
            map.insert(id.to_vec(), entry);
        }
        true
    }

    /// Gives the plan up: the reader reads every line.
    pub fn give_up(&mut self) {
        self.failed = true;
        // What the rest holds is not known.
        self.compaction = true;
    }

    /// Per line number: whether it is on the path to `options.leaf` (the last entry when
    /// `None`); `None` when the plan was given up, the leaf is not there, or the view
    /// needs every entry (all of them, or a compaction's summary before what it kept).
    /// The entries off the path are counted in `skips`.
    pub fn finish(self, options: &SessionOptions, skips: &mut Skips) -> Plan {
        let compaction = self.compaction;
        let unplanned = Plan {
            on_path: None,
            compaction,
        };
        if self.failed || options.view == View::All || compaction && options.view == View::Resumed {
            return unplanned;
        }
        let last_line = self.entries.last().map_or(0, |e| e.0);
        let mut on_path = vec![false; last_line + 1];
        let mut at = match &options.leaf {
            None => self.entries.len().checked_sub(1),
            Some(id) => (0..self.entries.len())
                .rev()
                .find(|&i| self.id(i) == id.as_bytes()),
        };
        if at.is_none() {
            return unplanned;
        }
        let leaf = at;
        while let Some(index) = at {
            let (line, parent) = self.entries[index];
            on_path[line] = true;
            at = parent.filter(|&p| p < index);
        }
        let mut root = vec![0; self.entries.len()];
        for (i, &(_, parent)) in self.entries.iter().enumerate() {
            root[i] = parent.filter(|&p| p < i).map_or(i, |p| root[p]);
        }
        let leaf_root = leaf.map(|leaf| root[leaf]);
        for (i, &(line, _)) in self.entries.iter().enumerate() {
            if on_path[line] {
                continue;
            }
            let reason = if Some(root[i]) == leaf_root {
                OFF_BRANCH
            } else {
                UNREACHABLE
            };
            let id = String::from_utf8_lossy(self.id(i));
            skips.leave_out(|| format!("line {line} (id \"{id}\")"), reason);
        }
        Plan {
            on_path: Some(on_path),
            compaction,
        }
    }
}

impl SessionReader {
    /// Reads only the lines of a plan ([`Planner`]): each entry read is on the path.
    pub fn follow_plan(&mut self) {
        self.planned = true;
    }
}
