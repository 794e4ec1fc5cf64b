//! OpenCode (`opencode-ai`, sst/opencode, now anomalyco/opencode) and its fork Kilo CLI
//! (`@kilocode/cli`): a session is messages (an info each) made of parts
//! (`packages/opencode/src/session/message-v2.ts`), one assistant message per model step
//! ([`parts`]). Four rows of the table, one reading of messages and parts:
//!
//! - `opencode`: a stored session as OpenCode hands it out, `opencode export <id>` or the
//!   server's `GET /session/:id/message` ([`export`]);
//! - `opencode-run`: `opencode run --format json`, folded live ([`stream::RunStream`];
//!   `check` sets aside what it leaves out by design, [`lockstep`]);
//! - `opencode-events`: the server's `GET /event` SSE (and Kilo's `GET /api/event`),
//!   folded live by message and part id ([`stream::EventStream`], [`session`]);
//! - `opencode-global`: the server's `GET /global/event`, the same events wrapped, each
//!   durable one sent twice (once as a `sync` copy, read once).
//!
//! Versions: OpenCode 0.x (text deltas on `message.part.updated`) to 1.18.33
//! (`message.part.delta`), Kilo CLI 7.7.
//!
//! The `opencode` row also reads the stores the sessions are kept in ([`STORE`]): from 1.2
//! on, OpenCode keeps every session in a SQLite database
//! (`$XDG_DATA_HOME/opencode/opencode.db`, else `~/.local/share/opencode/opencode.db`;
//! Kilo's `…/kilo/kilo.db`), read by [`store`]; before, a tree of JSON files
//! (`storage/session|message|part/…`), read by [`legacy`]. Both give a session as the
//! document `opencode export <id>` prints.

pub mod export;
pub mod legacy;
pub mod lockstep;
pub mod parts;
pub mod session;
#[cfg(not(target_family = "wasm"))]
pub mod store;
pub mod stream;

pub use export::{read_document, read_export};

use std::path::{Path, PathBuf};

use crate::bytes::value::{str_of, Json};
use crate::reading::format::{Format, History, Store, StoredSession};
use crate::reading::sniff::{tag, tag_in, Sniff};

use stream::{Channel, EventStream, RunStream, RUN_TYPES};

/// A stored session: `[{info, parts}]`, or an export (whose `messages` a pretty-printed
/// file's first values are, one-line or not).
fn detect_history(sniff: &Sniff, at: usize) -> bool {
    match sniff {
        Sniff::Array(Some(first)) => export::is_message(first),
        _ => sniff
            .line(at)
            .is_some_and(|line| export::is_message(line) || export::is_export(line)),
    }
}

/// The `opencode` row.
pub const OPENCODE: Format = Format {
    name: "opencode",
    summary: "an OpenCode or Kilo session: opencode export <id> ({info, messages}), or GET /session/:id/message ([{info, parts}])",
    detect: detect_history,
    near: |value| {
        (value.get("info").is_some() && (value.get("parts").is_some() || value.get("messages").is_some()))
            .then_some("an {info, parts} message as OpenCode stores it, without a message id, role or session")
    },
    history: Some(History::Read(export::read_history)),
    store: Some(STORE),
    ..Format::NONE
};

/// A line of `opencode run --format json`.
fn is_run_line(line: &Json) -> bool {
    tag_in(line, RUN_TYPES)
        && str_of(line, "sessionID").is_some()
        && line.get("timestamp").is_some()
        && match tag(line, "type") {
            Some(b"error") => matches!(line.get("error"), Some(Json::Object(_))),
            _ => line
                .get("part")
                .is_some_and(|part| str_of(part, "messageID").is_some() && str_of(part, "type").is_some()),
        }
}

/// The `opencode-run` row.
pub const OPENCODE_RUN: Format = Format {
    name: "opencode-run",
    summary: "OpenCode or Kilo `run --format json` output (a line per finished part), NDJSON",
    detect: |sniff, at| !sniff.is_sse() && sniff.line(at).is_some_and(is_run_line),
    stream: Some((|_| Box::new(RunStream::default()), "message")),
    lockstep: Some(lockstep::lockstep),
    ..Format::NONE
};

/// The event types of OpenCode's server that tell its streams by themselves.
const EVENT_TYPES: &[&[u8]] = &[
    b"server.connected",
    b"server.heartbeat",
    b"message.updated",
    b"message.part.updated",
    b"message.part.delta",
    b"message.removed",
    b"message.part.removed",
    b"session.created",
    b"session.updated",
    b"session.status",
    b"session.idle",
    b"session.error",
    b"session.diff",
];

/// An event of `/event`: `{type, properties}`, Kilo's `{type: "sync", syncEvent}`, or
/// Kilo's `/api/event` `{type, data, location}`.
fn is_event(value: &Json) -> bool {
    match tag(value, "type") {
        Some(b"sync") => matches!(value.get("syncEvent"), Some(Json::Object(_))),
        Some(_) if tag_in(value, EVENT_TYPES) => {
            matches!(value.get("properties"), Some(Json::Object(_)))
                || (matches!(value.get("data"), Some(Json::Object(_)))
                    && matches!(value.get("location"), Some(Json::Object(_))))
        }
        _ => false,
    }
}

/// The `opencode-events` row.
pub const OPENCODE_EVENTS: Format = Format {
    name: "opencode-events",
    summary: "the OpenCode or Kilo server's GET /event SSE (and Kilo's GET /api/event)",
    detect: |sniff, at| !sniff.is_array() && sniff.value(at).is_some_and(is_event),
    stream: Some((|_| Box::new(EventStream::new(Channel::Event)), "message")),
    ..Format::NONE
};

/// An event of `/global/event`: `{directory?, project?, payload: {type, properties}}`.
fn is_global(value: &Json) -> bool {
    value.get("type").is_none() && value.get("payload").is_some_and(is_event)
}

/// The `opencode-global` row.
pub const OPENCODE_GLOBAL: Format = Format {
    name: "opencode-global",
    summary: "the OpenCode or Kilo server's GET /global/event SSE ({directory, project, payload})",
    detect: |sniff, at| !sniff.is_array() && sniff.value(at).is_some_and(is_global),
    stream: Some((|_| Box::new(EventStream::new(Channel::Global)), "message")),
    ..Format::NONE
};

/// The face of the store for the format's row (`store: Some(STORE)`): a database file, a
/// data folder holding one (`opencode.db`, `kilo.db`), or the JSON tree of OpenCode before
/// 1.2 (a data folder, or its `storage/`), each read as the documents `opencode export`
/// prints.
pub const STORE: Store = Store {
    claims,
    sessions,
    document,
};

/// The databases a data folder may hold: OpenCode's, then Kilo CLI's.
const DATABASES: &[&str] = &["opencode.db", "kilo.db"];

/// What `path` holds: a database, or the JSON tree (its `storage` folder).
#[cfg_attr(target_family = "wasm", allow(dead_code))]
enum Kind {
    Database(PathBuf),
    Tree(PathBuf),
}

fn kind(path: &Path) -> Option<Kind> {
    if path.is_file() {
        return is_sqlite(path).then(|| Kind::Database(path.to_path_buf()));
    }
    if !path.is_dir() {
        return None;
    }
    if let Some(db) = DATABASES
        .iter()
        .map(|name| path.join(name))
        .find(|db| is_sqlite(db))
    {
        return Some(Kind::Database(db));
    }
    legacy::storage(path).map(Kind::Tree)
}

/// Whether `path` is a SQLite database file (by its header).
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|_| &header == b"SQLite format 3\0")
}

fn claims(path: &Path) -> bool {
    kind(path).is_some()
}

#[cfg(target_family = "wasm")]
const NO_DATABASE: &str = "the WebAssembly build cannot read a SQLite database; read it with the \
                           native addon, or pass what `opencode export <id>` prints";

fn sessions(path: &Path) -> Result<Vec<StoredSession>, String> {
    match kind(path) {
        #[cfg(not(target_family = "wasm"))]
        Some(Kind::Database(db)) => store::Store::open(&db)?.sessions(),
        #[cfg(target_family = "wasm")]
        Some(Kind::Database(_)) => Err(NO_DATABASE.into()),
        Some(Kind::Tree(storage)) => legacy::sessions(&storage),
        None => Err(format!("{} is no OpenCode store", path.display())),
    }
}

fn document(path: &Path, session: Option<&str>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    match kind(path) {
        #[cfg(not(target_family = "wasm"))]
        Some(Kind::Database(db)) => {
            let store = store::Store::open(&db)?;
            let id = match session {
                Some(id) => id.to_string(),
                None => store
                    .latest()?
                    .ok_or_else(|| format!("{} holds no session", db.display()))?,
            };
            store.export(&id, &mut out)?;
        }
        #[cfg(target_family = "wasm")]
        Some(Kind::Database(_)) => return Err(NO_DATABASE.into()),
        Some(Kind::Tree(storage)) => {
            let id = match session {
                Some(id) => id.to_string(),
                None => legacy::latest(&storage)?
                    .ok_or_else(|| format!("{} holds no session", storage.display()))?,
            };
            legacy::export(&storage, &id, &mut out)?;
        }
        None => return Err(format!("{} is no OpenCode store", path.display())),
    }
    Ok(out)
}
