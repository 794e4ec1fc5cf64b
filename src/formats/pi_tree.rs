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

use super::check::{object, optional_string, split_lines, wrong, FormatError, FormatResult, Skips};
use super::model_json::{FormatChunk, FormatEvent, FormatMessage};
use super::pi::{line_error, parse_line, read_entry, read_message, Stored};
use super::value::Json;
use super::wtf8::Wtf8;

/// How a session is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// The leaf whose path is read (an entry id); the last entry when `None`.
    pub leaf: Option<String>,
    /// Refuse entry types, roles and content blocks this version does not know.
    pub strict: bool,
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
            in_order: options.leaf.is_none(),
            options,
            ..SessionReader::default()
        }
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
            Some(b"session") => return Ok(()),
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
    pub fn finish_with(mut self, mut emit: impl FnMut(FormatMessage) -> bool) -> FormatResult<()> {
        if !self.hand_on(&mut emit) {
            return Ok(());
        }
        if self.planned {
            self.walker.close();
            self.hand_on(&mut emit);
            return Ok(());
        }
        let path = self.path()?;
        let walked = self.walked;
        for index in path.into_iter().filter(|&i| i >= walked) {
            let entry = &mut self.entries[index];
            let stored = std::mem::replace(&mut entry.stored, Stored::Hidden);
            let id = entry.id.clone();
            self.walker.take(&id, stored);
            if !self.hand_on(&mut emit) {
                return Ok(());
            }
        }
        self.walker.close();
        self.hand_on(&mut emit);
        Ok(())
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
    let reader = read_all(text, options, true)?;
    let skips = reader.skips.clone();
    reader.finish_with(emit)?;
    Ok(skips)
}

/// The plan of a session's bytes ([`Planner`]): per line number, whether it is on the
/// path to `leaf`.
pub fn plan(text: &[u8], leaf: Option<&str>) -> Option<Vec<bool>> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut planner = Planner::default();
    let mut start = 0;
    for (number, end) in memchr::memchr_iter(b'\n', text).chain([text.len()]).enumerate() {
        if start > text.len() || !planner.line(number + 1, &text[start..end]) {
            break;
        }
        start = end + 1;
    }
    planner.finish(leaf)
}

/// Reads every line, or with `planned` only those on the path when it can be found first.
fn read_all(text: &[u8], options: SessionOptions, planned: bool) -> FormatResult<SessionReader> {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let plan = if planned {
        plan(text, options.leaf.as_deref())
    } else {
        None
    };
    let lines = split_lines(text);
    let last = lines.iter().rposition(|line| !is_blank(line));
    let mut reader = SessionReader::new(options);
    if plan.is_some() {
        reader.follow_plan();
    }
    for (i, line) in lines.iter().enumerate() {
        if is_blank(line)
            || plan
                .as_ref()
                .is_some_and(|p| !p.get(i + 1).copied().unwrap_or(false))
        {
            continue;
        }
        let parsed = parse_line(line).map_err(|e| line_error(e, i + 1, Some(i) == last))?;
        reader.read_parsed(parsed, i + 1)?;
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

    /// Notes line `number`; `false` once the plan is given up.
    pub fn line(&mut self, number: usize, line: &[u8]) -> bool {
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
            Some(parent) => self.index().get(parent).copied(),
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

    /// Per line number: whether it is on the path to `leaf` (the last entry when
    /// `None`); `None` when the plan was given up or the leaf is not there.
    pub fn finish(self, leaf: Option<&str>) -> Option<Vec<bool>> {
        if self.failed {
            return None;
        }
        let last_line = self.entries.last().map_or(0, |e| e.0);
        let mut on_path = vec![false; last_line + 1];
        let mut at = match leaf {
            None => self.entries.len().checked_sub(1),
            Some(id) => (0..self.entries.len())
                .rev()
                .find(|&i| self.id(i) == id.as_bytes()),
        };
        at?;
        while let Some(index) = at {
            let (line, parent) = self.entries[index];
            on_path[line] = true;
            at = parent.filter(|&p| p < index);
        }
        Some(on_path)
    }
}

impl SessionReader {
    /// Reads only the lines of a plan ([`Planner`]): each entry read is on the path.
    pub fn follow_plan(&mut self) {
        self.planned = true;
    }
}
