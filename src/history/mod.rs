//! History loading: a persisted conversation in any format of the table, read from its
//! bytes into [`ChatMessage`](crate::ChatMessage)s, each handed on as soon as it is
//! complete.
//!
//! A format's row says how its histories are read ([`History`]): by its own reader, or,
//! for a recorded stream, through the stream's live fold ([`crate::live::history`]), so
//! that a recording and the live view of the same stream agree by construction. Every
//! reader folds events through [`append_event`](crate::append_event), the rules every
//! stream goes through. [`batch`] writes the messages as JSON in bounded slices.

pub mod batch;

use std::io::{Read, Seek};
use std::path::Path;

use crate::formats::FORMATS;
use crate::reading::check::Skips;
use crate::reading::format::{Format, History, Input, ReadOptions, Store, StoredSession};

pub use crate::reading::format::HistoryFormat;
pub use crate::reading::history::{HistoryError, Message};

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

/// Why `options` cannot be read in `format`: a leaf given for a format without leaves.
pub fn leaf_refused(format: &Format, options: &ReadOptions) -> Option<String> {
    let leaf = options.leaf.as_ref().filter(|_| !format.leaves)?;
    let with_leaves: Vec<&str> = FORMATS.iter().filter(|f| f.leaves).map(|f| f.name).collect();
    Some(format!(
        "a leaf ({leaf:?}) chooses a branch of a {} session only; {} is read without one",
        with_leaves.join(" or "),
        format.name
    ))
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

/// [`read`] from a reader (a file): line formats a block at a time, so the whole input is
/// never in memory at once; the others read whole first.
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

/// The first bytes of a SQLite database file.
pub const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The formats whose tools keep their sessions in a store read from its path.
fn store_formats() -> String {
    let names: Vec<&str> = FORMATS
        .iter()
        .filter(|f| f.store.is_some())
        .map(|f| f.name)
        .collect();
    if names.is_empty() {
        "none in this build".to_string()
    } else {
        names.join(", ")
    }
}

fn refused(message: String) -> HistoryError {
    HistoryError {
        line: None,
        offset: None,
        message,
    }
}

/// The store of `format` that `path` is (a database file, a folder), if it is one.
pub fn store_of(path: &Path, format: &Format) -> Option<Store> {
    format.store.filter(|store| (store.claims)(path))
}

/// The format whose store `path` is, and the store, if any.
pub fn find_store(path: &Path) -> Option<(&'static Format, Store)> {
    FORMATS
        .iter()
        .find_map(|format| store_of(path, format).map(|store| (format, store)))
}

/// The sessions of the store at `path` and its format; `Err` when no format's store is
/// there, or it cannot be read.
pub fn store_sessions(path: &Path) -> Result<(&'static Format, Vec<StoredSession>), HistoryError> {
    let Some((format, store)) = find_store(path) else {
        return Err(refused(not_a_store(path)));
    };
    let sessions = (store.sessions)(path).map_err(refused)?;
    Ok((format, sessions))
}

fn not_a_store(path: &Path) -> String {
    let what = if path.is_dir() { "a folder" } else { "a file" };
    format!(
        "{} is {what} that holds no store of sessions this version reads (stores are read for: {})",
        path.display(),
        store_formats()
    )
}

/// Reads the history at `path` in `format`: a session of the format's store when `path`
/// is one ([`ReadOptions::session`] chooses it, default the latest), else `None`: `path`
/// is a file to read as one history, which `file_refused` checks first.
pub fn read_store(
    path: &Path,
    format: HistoryFormat,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Option<Result<Skips, HistoryError>> {
    let store = store_of(path, format.0)?;
    let mut read = || {
        let document = (store.document)(path, options.session.as_deref()).map_err(refused)?;
        let options = ReadOptions {
            session: None,
            ..options.clone()
        };
        read_with(Input::Bytes(&document), format, &options, emit)
    };
    Some(read())
}

/// Why a file whose first bytes are `head` cannot be read as one history of `format` with
/// `options`: a session named (only a store has sessions), or a database (read only as a
/// store, from its path).
pub fn file_refused(
    head: &[u8],
    format: HistoryFormat,
    options: &ReadOptions,
    from_path: bool,
) -> Option<String> {
    if head.starts_with(SQLITE_HEADER) {
        return Some(if from_path {
            format!(
                "a SQLite database, which is not a {} store (stores are read for: {})",
                format.name(),
                store_formats()
            )
        } else if cfg!(target_family = "wasm") {
            "a SQLite database, which the WebAssembly build cannot read; read it with the native \
             addon, from its path (a string)"
                .to_string()
        } else {
            "a SQLite database; a database is read from its path (a string), not from its bytes".to_string()
        });
    }
    if let Some(session) = &options.session {
        return Some(format!(
            "a session ({session:?}) chooses one of a store's sessions (a database or a folder \
             given by its path; stores are read for: {}); this {} history is one file",
            store_formats(),
            format.name()
        ));
    }
    None
}

/// Reads the history at `path` in `format` with `options`: a session of the format's store
/// when `path` is one, else the file.
pub fn read_path(
    path: &Path,
    format: HistoryFormat,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    if let Some(read) = read_store(path, format, options, emit) {
        return read;
    }
    let mut file =
        std::fs::File::open(path).map_err(|e| refused(format!("cannot read {}: {e}", path.display())))?;
    if let Some(message) = path_refused(&mut file, format, options) {
        return Err(refused(message));
    }
    read_with(Input::Reader(&mut file), format, options, emit)
}

/// [`file_refused`] for a file opened from its path (read from its start, and back).
pub fn path_refused(
    file: &mut (impl Read + Seek),
    format: HistoryFormat,
    options: &ReadOptions,
) -> Option<String> {
    let mut head = Vec::with_capacity(16);
    let read = file.by_ref().take(16).read_to_end(&mut head);
    let back = file.seek(std::io::SeekFrom::Start(0));
    if read.is_err() || back.is_err() {
        return None;
    }
    file_refused(&head, format, options, true)
}

/// Reads `input` as a history in `format` with `options`; returns the lines skipped.
pub fn read_with(
    input: Input<'_>,
    format: HistoryFormat,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    if let Some(message) = leaf_refused(format.0, options) {
        return Err(refused(message));
    }
    let input = match input {
        Input::Bytes(bytes) => {
            if let Some(message) = file_refused(bytes, format, options, false) {
                return Err(refused(message));
            }
            Input::Bytes(bytes)
        }
        Input::Reader(reader) => {
            let mut head = [0u8; 16];
            let mut got = 0;
            while got < head.len() {
                match reader.read(&mut head[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(refused(format!("reading failed: {e}"))),
                }
            }
            if let Some(message) = file_refused(&head[..got], format, options, false) {
                return Err(refused(message));
            }
            if reader.seek(std::io::SeekFrom::Start(0)).is_err() {
                // A pipe (an endless source): what was looked at is read again from memory.
                let mut joined = Prefixed {
                    head: &head[..got],
                    inner: reader,
                };
                return read_history_of(format, Input::Reader(&mut joined), options, emit);
            }
            Input::Reader(reader)
        }
    };
    read_history_of(format, input, options, emit)
}

/// A source that cannot go back (a pipe), its first bytes already taken: they, then the
/// rest. It cannot seek: a reader that must read a file twice refuses a pipe, as before.
struct Prefixed<'a, 'b> {
    head: &'a [u8],
    inner: &'a mut (dyn crate::reading::format::ReadSeek + 'b),
}

impl Read for Prefixed<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.head.is_empty() {
            return self.inner.read(buf);
        }
        let n = self.head.len().min(buf.len());
        buf[..n].copy_from_slice(&self.head[..n]);
        self.head = &self.head[n..];
        Ok(n)
    }
}

impl Seek for Prefixed<'_, '_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

fn read_history_of(
    format: HistoryFormat,
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    match format.0.history {
        Some(History::Read(read)) => read(input, options, emit),
        Some(History::Recorded) => crate::live::history::read_recorded(format.0, input, options, emit),
        None => Err(HistoryError {
            line: None,
            offset: None,
            message: format!("{} is a stream, not a history", format.name()),
        }),
    }
}

#[cfg(test)]
mod store_tests {
    //! The generic reading of stores, through a row of a test format whose store is a
    //! folder holding `store.txt` and a session per `<id>.ndjson` of agent events.
    use super::*;
    use crate::reading::format::Store;

    fn claims(path: &Path) -> bool {
        path.join("store.txt").is_file()
    }

    fn sessions(path: &Path) -> Result<Vec<StoredSession>, String> {
        let mut list: Vec<StoredSession> = std::fs::read_dir(path)
            .map_err(|e| e.to_string())?
            .filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_suffix(".ndjson")
                    .map(str::to_string)
            })
            .map(|id| StoredSession {
                id,
                title: String::new(),
                parent_id: None,
                directory: String::new(),
                time_created: 0,
                time_updated: 0,
            })
            .collect();
        list.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(list)
    }

    fn document(path: &Path, session: Option<&str>) -> Result<Vec<u8>, String> {
        let id = match session {
            Some(id) => id.to_string(),
            None => sessions(path)?.pop().ok_or("no session")?.id,
        };
        std::fs::read(path.join(format!("{id}.ndjson"))).map_err(|_| format!("no session {id:?}"))
    }

    static TEST: Format = Format {
        name: "test-store",
        summary: "a test store",
        history: crate::formats::events::EVENTS.history,
        stream: crate::formats::events::EVENTS.stream,
        store: Some(Store {
            claims,
            sessions,
            document,
        }),
        ..Format::NONE
    };

    fn texts(path: &Path, options: &ReadOptions) -> Result<Vec<String>, HistoryError> {
        let mut out = Vec::new();
        read_path(path, HistoryFormat(&TEST), options, &mut |message| {
            if let Message::Format(message) = message {
                out.push(format!("{:?}", message.chunks));
            }
            true
        })?;
        Ok(out)
    }

    fn store(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("agent-chunks-store-face-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("store.txt"), "").unwrap();
        for (id, text) in [("s1", "first"), ("s2", "second")] {
            let line = format!("{{\"type\":\"text-delta\",\"delta\":\"{text}\"}}\n");
            std::fs::write(dir.join(format!("{id}.ndjson")), line).unwrap();
        }
        dir
    }

    #[test]
    fn a_store_reads_the_session_named_and_by_default_the_latest() {
        let dir = store("named");
        let latest = texts(&dir, &ReadOptions::default()).unwrap();
        assert!(latest[0].contains("second"), "{latest:?}");
        let first = ReadOptions {
            session: Some("s1".into()),
            ..ReadOptions::default()
        };
        assert!(texts(&dir, &first).unwrap()[0].contains("first"));
        let missing = ReadOptions {
            session: Some("s9".into()),
            ..ReadOptions::default()
        };
        assert_eq!(texts(&dir, &missing).unwrap_err().message, "no session \"s9\"");
        let (format, listed) = {
            let sessions = (TEST.store.unwrap().sessions)(&dir).unwrap();
            (TEST.name, sessions)
        };
        assert_eq!((format, listed.len()), ("test-store", 2));
    }

    #[test]
    fn a_session_named_for_a_file_is_refused_not_passed_over() {
        let dir = store("file");
        let options = ReadOptions {
            session: Some("s1".into()),
            ..ReadOptions::default()
        };
        let e = texts(&dir.join("s1.ndjson"), &options).unwrap_err();
        assert!(
            e.message
                .starts_with("a session (\"s1\") chooses one of a store's sessions"),
            "{e}"
        );
        let e = read_with(Input::Bytes(b"{}"), HistoryFormat::Events, &options, &mut |_| {
            true
        })
        .unwrap_err();
        assert!(e.message.contains("this events history is one file"), "{e}");
    }

    #[test]
    fn a_database_given_as_bytes_or_to_a_format_without_its_store_is_refused() {
        let mut db = SQLITE_HEADER.to_vec();
        db.resize(4096, 0);
        let e = read_with(
            Input::Bytes(&db),
            HistoryFormat::Events,
            &ReadOptions::default(),
            &mut |_| true,
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "a SQLite database; a database is read from its path (a string), not from its bytes"
        );
        let file = store("database").join("other.db");
        std::fs::write(&file, &db).unwrap();
        let e = read_path(&file, HistoryFormat::Events, &ReadOptions::default(), &mut |_| {
            true
        })
        .unwrap_err();
        assert!(
            e.message
                .starts_with("a SQLite database, which is not a events store"),
            "{e}"
        );
    }
}

#[cfg(test)]
mod pipe_tests {
    use super::*;

    /// A pipe: it reads, and cannot seek.
    struct Pipe(std::io::Cursor<Vec<u8>>);

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }

    impl Seek for Pipe {
        fn seek(&mut self, _: std::io::SeekFrom) -> std::io::Result<u64> {
            Err(std::io::Error::from_raw_os_error(29))
        }
    }

    #[test]
    fn a_source_that_cannot_seek_is_read_whole_after_its_first_bytes_are_looked_at() {
        let line = br#"{"type":"text-delta","delta":"hello from a pipe"}"#;
        let mut bytes = br#"{"type":"turn-start","turnId":"turn-1"}"#.to_vec();
        bytes.push(b'\n');
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        let read = |input: Input<'_>| {
            let mut messages = Vec::new();
            read_with(input, HistoryFormat::Events, &ReadOptions::default(), &mut |m| {
                messages.push(format!("{m:?}"));
                true
            })
            .map(|_| messages)
        };
        let mut pipe = Pipe(std::io::Cursor::new(bytes.clone()));
        let piped = read(Input::Reader(&mut pipe)).expect("a pipe reads");
        assert_eq!(piped, read(Input::Bytes(&bytes)).unwrap());
        assert!(!piped.is_empty());
    }
}
