//! OpenCode (`opencode-ai`) and Kilo CLI (`@kilocode/cli`, its fork): the sessions they
//! keep. From 1.2 on, OpenCode keeps every session in a SQLite database
//! (`$XDG_DATA_HOME/opencode/opencode.db`, else `~/.local/share/opencode/opencode.db`;
//! Kilo's `…/kilo/kilo.db`), read by [`store`]; before, a tree of JSON files
//! (`storage/session|message|part/…`), read by [`legacy`]. Both give a session as the
//! document `opencode export <id>` prints.

pub mod legacy;
#[cfg(not(target_family = "wasm"))]
pub mod store;

use std::path::{Path, PathBuf};

use crate::reading::format::{Store, StoredSession};

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
