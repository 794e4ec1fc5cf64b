//! The faces every format shows: a row of the table of formats ([`Format`]). A row says
//! what the format is called, how its first values are recognised, and what can be done
//! with it: read as a history (into [`Message`]s, handed on as they are complete), folded
//! as a live stream ([`LiveFold`]), written from messages, read on the bytes path
//! ([`BytesFace`]), or serve live conversations ([`Serve`]). History loading, detection,
//! live conversations and the `agent-chunks` command reach every format through its row.

use std::io::{Read, Seek};

use crate::model::MessageRole;
use crate::reading::history::{HistoryError, Message};

use crate::bytes::value::Json;
use crate::reading::check::Skips;
use crate::reading::fold::LiveFold;
use crate::reading::frames::BytesFace;
use crate::reading::model_json::FormatMessage;
use crate::reading::sniff::Sniff;
use crate::reading::writer::Serve;

/// A source that can be read again from the start (a file).
pub trait ReadSeek: Read + Seek {}

impl<T: Read + Seek> ReadSeek for T {}

/// Where a history is read from.
pub enum Input<'a> {
    Bytes(&'a [u8]),
    /// A file, read a block at a time by the formats that can.
    Reader(&'a mut dyn ReadSeek),
}

impl<'a> Input<'a> {
    /// The whole input, for the formats that read it whole.
    pub fn bytes(self) -> Result<std::borrow::Cow<'a, [u8]>, HistoryError> {
        match self {
            Input::Bytes(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            Input::Reader(reader) => {
                let mut bytes = Vec::new();
                reader.read_to_end(&mut bytes).map_err(|e| HistoryError {
                    line: None,
                    offset: None,
                    message: format!("reading failed: {e}"),
                })?;
                Ok(std::borrow::Cow::Owned(bytes))
            }
        }
    }
}

/// How a history is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Refuse lines the reader does not know instead of skipping them.
    pub strict: bool,
    /// For tree-shaped sessions (Pi): the leaf whose conversation is read.
    pub leaf: Option<String>,
    /// Which of a session's entries are read.
    pub view: View,
    /// Recorded streams: hand on each message as [`Message::Settled`] as soon as it is
    /// closed and has no call waiting for its result, and again when a later value
    /// changes it (a result for one of its calls), so that a reader on another thread can
    /// build the result while the stream is still being read. Off: every message once, at
    /// the end.
    pub settle: bool,
    /// For a store holding many sessions ([`Store`]): the session read; default the latest.
    pub session: Option<String>,
}

/// Which entries of a session a reading gives, for the formats whose sessions are trees
/// (branches) or are compacted; the others give every entry in each view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum View {
    /// The conversation as the tool shows it when the session is opened again: the
    /// current branch, from its last compaction on (the summary, then what it kept) for
    /// the tools that resume so.
    #[default]
    Resumed,
    /// The current branch whole: every message of it, compaction summaries where they
    /// were made.
    Transcript,
    /// Every entry of the file in file order: every branch, sub-agent lines, entries no
    /// branch reaches.
    All,
}

impl View {
    pub const NAMES: [&'static str; 3] = ["resumed", "transcript", "all"];

    pub fn from_name(name: &str) -> Option<View> {
        match name {
            "resumed" => Some(View::Resumed),
            "transcript" => Some(View::Transcript),
            "all" => Some(View::All),
            _ => None,
        }
    }
}

/// Reads a history, handing each message to `emit` (which returns `false` to stop);
/// returns what it skipped.
pub type ReadHistory =
    fn(Input<'_>, &ReadOptions, &mut dyn FnMut(Message) -> bool) -> Result<Skips, HistoryError>;

/// How a format's histories are read.
#[derive(Debug, Clone, Copy)]
pub enum History {
    /// By the format's own reader.
    Read(ReadHistory),
    /// A recorded stream, through the format's live fold: what a live view of the stream
    /// shows is what its history holds.
    Recorded,
}

/// A live fold's initial state. It is given the table of formats: a stream may turn out
/// to carry another format's values (an `events` stream that is a UI message stream).
pub type NewFold = fn(&'static [Format]) -> Box<dyn LiveFold>;

/// A format's messages written from the canonical ones (`agent-chunks convert --to`,
/// `writeMessages`): its writer, and which messages the format holds at all.
#[derive(Debug, Clone, Copy)]
pub struct Write {
    /// The messages written in the format; those of a role it does not hold are left
    /// out. Read back by the format's own reader, they are the messages it holds, where it
    /// can hold everything they carry.
    pub write: fn(&[FormatMessage]) -> Result<Vec<u8>, String>,
    /// The roles of the messages the format holds (the rest are left out of what it
    /// writes, and said to be).
    pub holds: &'static [MessageRole],
}

/// Where a tool keeps its session files when nothing else is said: `sessions` folders
/// under the tool's own folder, which is `$variable` when that is set, else `folder` under
/// the user's home. `agent-chunks scan` with no folder scans those that exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Home {
    /// The environment variable that names the tool's folder (`CODEX_HOME`), if any.
    pub variable: Option<&'static str>,
    /// The tool's folder under the home folder (`.codex`).
    pub folder: &'static str,
    /// The folders of session files in it (`sessions`, `archived_sessions`).
    pub sessions: &'static [&'static str],
}

/// A session of a store ([`Store`]), for choosing one and listing them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSession {
    pub id: String,
    pub title: String,
    /// The session that started it (a sub-agent's), if any.
    pub parent_id: Option<String>,
    /// The folder the tool worked in.
    pub directory: String,
    /// Milliseconds since 1970.
    pub time_created: i64,
    pub time_updated: i64,
}

/// Where a tool keeps many sessions in one place read from its path (a database file, a
/// folder of session files) rather than a file per session: the store is read a session
/// at a time ([`ReadOptions::session`]), as the document the format's history reader
/// reads (what the tool itself exports of a session).
#[derive(Debug, Clone, Copy)]
pub struct Store {
    /// Whether `path` is one of the format's stores, by its content (a database's header
    /// and tables, a folder's layout).
    pub claims: fn(&std::path::Path) -> bool,
    /// Its sessions, the oldest first.
    pub sessions: fn(&std::path::Path) -> Result<Vec<StoredSession>, String>,
    /// The session named (`None`: the latest) as the format's history reader reads it.
    pub document: fn(&std::path::Path, Option<&str>) -> Result<Vec<u8>, String>,
}

/// How a live stream is checked against the history its tool keeps of the same run, for
/// a tool that writes the two differently: brings the history's messages to what the
/// stream can carry (the stream's messages are left as they are), and says what it set
/// aside and why, a line per reason. What is left is compared exactly.
pub type Lockstep = fn(stream: &mut [FormatMessage], history: &mut Vec<FormatMessage>) -> Vec<String>;

/// One format: a row of the table of formats.
pub struct Format {
    /// The name the API and the command use (`events`, `ai-sdk`, …).
    pub name: &'static str,
    /// What a file in it is, in a line.
    pub summary: &'static str,
    /// Whether the value at this index of a file's first values ([`Sniff`]) says the
    /// file is in this format (the values before it said nothing). Values it does not
    /// know say nothing: detection looks past them.
    pub detect: fn(&Sniff, usize) -> bool,
    /// Why a value that says nothing still looks like this format (`None`: it does
    /// not), for the error when no value decides.
    pub near: fn(&Json) -> Option<&'static str>,
    pub history: Option<History>,
    /// Its sessions are trees whose branch [`ReadOptions::leaf`] chooses (Pi). In any
    /// other format a leaf is refused, not passed over: the caller
    /// would take the conversation read for the branch asked for.
    pub leaves: bool,
    /// The live fold, and what it calls the messages it names itself (`turn-<n>`).
    pub stream: Option<(NewFold, &'static str)>,
    /// Messages written in the format.
    pub write: Option<Write>,
    /// Read on the bytes path too, told from agent events by a stream's first frame.
    pub bytes: Option<BytesFace>,
    /// Live conversations, of any stream format, served in this one as they grow.
    pub serve: Option<Serve>,
    /// Where the tool that writes the format keeps its files by default (for `scan`).
    pub homes: &'static [Home],
    /// For a stream format: how `check` compares it with its tool's history of the same run.
    pub lockstep: Option<Lockstep>,
    /// For a history format whose tool keeps many sessions in one database or folder: how
    /// that store is read from its path.
    pub store: Option<Store>,
}

impl Format {
    /// A row with no faces: each row names what its format has and takes the rest from
    /// here (`..Format::NONE`), so that a face added to the table later changes no row
    /// of a format that does not have it. Its name and summary are empty: every row gives
    /// its own (a test of the table says so).
    pub const NONE: Format = Format {
        name: "",
        summary: "",
        detect: |_, _| false,
        near: crate::reading::sniff::near_nothing,
        history: None,
        leaves: false,
        stream: None,
        write: None,
        bytes: None,
        serve: None,
        homes: &[],
        lockstep: None,
        store: None,
    };
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Format {}

/// A format whose histories are read: a row of the table of formats that reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryFormat(pub &'static Format);
