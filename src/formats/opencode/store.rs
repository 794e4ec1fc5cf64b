//! OpenCode's SQLite store (`opencode.db`, from 1.2 on; Kilo CLI's `kilo.db` has the same
//! tables and two of its own), read as the documents `opencode export <id>` prints:
//! `{info: Session, messages: [{info, parts}]}`.
//!
//! The database is read without changing it: OpenCode keeps it in WAL mode and may be
//! writing while it is read, and after a run nearly everything, the schema included, is
//! still in `opencode.db-wal`. A connection that may write would checkpoint the WAL into
//! the database and rewrite both; one opened `immutable` sees only the database file, an
//! empty one. So it is opened read-only with a read-only shared-memory file
//! (`readonly_shm`): SQLite then writes to no file — it takes only locks, which change no
//! byte and no time of a file. With OpenCode running it reads the WAL through OpenCode's
//! own index in the `-shm` file (mapped read-only); with none running it reads the WAL
//! into memory and checks it against its header, as for a `-shm` it cannot trust. When the
//! `-wal` or `-shm` file is missing, SQLite would have to create it to open the database:
//! the files are copied into a folder of our own instead (and copied again if they change
//! while they are copied), and the copy is read.
//!
//! The rows: `message(id, session_id, time_created, time_updated, data)` and `part(id,
//! message_id, session_id, time_created, time_updated, data)`, whose `data` is the JSON of
//! the message's info or the part without the ids, which the columns hold; the document
//! merges them back (`id`, `sessionID`; and `messageID` for a part) as OpenCode does.
//! Messages are in (time_created, id) order, parts in (message_id, id) order, as OpenCode
//! reads them. The session's info is built from its columns as OpenCode builds it.

#![cfg(not(target_family = "wasm"))]

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::bytes::value::{self, Json};
use crate::reading::format::StoredSession;

/// The first bytes of every SQLite database file.
pub const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The migration OpenCode's store begins with (its first, in every version with a store):
/// what tells its database from another program's with tables of the same names.
const FIRST_MIGRATION: &str = "20260127222353_familiar_lady_ursula";

/// The columns read, per table; a database that lacks one is refused.
const SESSION_COLUMNS: &[&str] = &[
    "id",
    "project_id",
    "parent_id",
    "slug",
    "directory",
    "title",
    "version",
    "time_created",
    "time_updated",
];
const MESSAGE_COLUMNS: &[&str] = &["id", "session_id", "time_created", "data"];
const PART_COLUMNS: &[&str] = &["id", "message_id", "session_id", "data"];

/// What a store that cannot be read is expected to be, for its errors.
const EXPECTED: &str = "an OpenCode (or Kilo CLI) database: tables session, message and part, and \
                        a migration table (migration, or __drizzle_migrations before OpenCode \
                        1.15) that begins with OpenCode's first migration";

/// An open store: a read-only connection, on the files themselves or on a copy of them.
pub struct Store {
    connection: Connection,
    /// The folder holding the copy, removed when the store is dropped.
    copy: Option<PathBuf>,
    /// The `session` table's columns (older stores have fewer).
    session_columns: Vec<String>,
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(copy) = &self.copy {
            let _ = fs::remove_dir_all(copy);
        }
    }
}

/// Whether `path` is a SQLite database file (by its header).
pub fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 16];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|_| &header == SQLITE_HEADER)
}

fn sql_error(path: &Path, e: rusqlite::Error) -> String {
    format!("{}: cannot read the database: {e}", path.display())
}

/// `path` with `suffix` after its file name (`opencode.db-wal`).
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// A `file:` URI for `path`, as SQLite reads them (`%`, `?` and `#` escaped).
fn uri(path: &Path, parameters: &str) -> Result<String, String> {
    let absolute = std::path::absolute(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = absolute
        .to_str()
        .ok_or_else(|| format!("{}: the path is not valid Unicode", path.display()))?;
    let mut out = String::from("file:");
    #[cfg(windows)]
    out.push('/');
    for c in text.chars() {
        match c {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            #[cfg(windows)]
            '\\' => out.push('/'),
            c => out.push(c),
        }
    }
    out.push('?');
    out.push_str(parameters);
    Ok(out)
}

impl Store {
    /// Opens the store at `path` (the database file) to read it, changing no file of it.
    pub fn open(path: &Path) -> Result<Store, String> {
        fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !is_sqlite(path) {
            return Err(format!(
                "{} is not a SQLite database (no \"SQLite format 3\" header); expected {EXPECTED}",
                path.display()
            ));
        }
        let wal = sibling(path, "-wal");
        let shm = sibling(path, "-shm");
        let (connection, copy) = if wal.exists() && shm.exists() {
            (open_read_only(path, "mode=ro&readonly_shm=1")?, None)
        } else if !wal.exists() && !shm.exists() && rollback_journal(path) {
            // Not in WAL mode (bytes 18 and 19 of its header are 1): a reader takes a
            // shared lock on the database file and makes no file.
            (open_read_only(path, "mode=ro")?, None)
        } else {
            let (dir, db) = copy_files(path)?;
            match Connection::open_with_flags(
                &db,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            ) {
                Ok(c) => (c, Some(dir)),
                Err(e) => {
                    let _ = fs::remove_dir_all(&dir);
                    return Err(sql_error(path, e));
                }
            }
        };
        let mut store = Store {
            connection,
            copy,
            session_columns: Vec::new(),
        };
        store.check(path)?;
        Ok(store)
    }

    /// Refuses a database that is not OpenCode's, or not of a shape this version reads.
    fn check(&mut self, path: &Path) -> Result<(), String> {
        let tables = self.tables().map_err(|e| sql_error(path, e))?;
        let mut missing: Vec<&str> = ["session", "message", "part"]
            .into_iter()
            .filter(|t| !tables.iter().any(|have| have == t))
            .collect();
        // The migrations applied: `migration(id)` from OpenCode 1.15 on, drizzle's
        // `__drizzle_migrations(name)` before.
        let migrations = [
            ("migration", "SELECT id FROM migration ORDER BY id LIMIT 1"),
            (
                "__drizzle_migrations",
                "SELECT name FROM __drizzle_migrations ORDER BY id LIMIT 1",
            ),
        ]
        .into_iter()
        .find(|(table, _)| tables.iter().any(|have| have == table));
        if migrations.is_none() {
            missing.push("migration");
        }
        if !missing.is_empty() {
            return Err(format!(
                "{} has no table {}; expected {EXPECTED}",
                path.display(),
                missing.join(", ")
            ));
        }
        let (table, query) = migrations.expect("checked above");
        let first: Option<String> = self
            .connection
            .query_row(query, [], |row| row.get::<_, Option<String>>(0))
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(|e| {
                format!(
                    "{}: its {table} table is not OpenCode's ({e}); expected {EXPECTED}",
                    path.display()
                )
            })?;
        if first.as_deref() != Some(FIRST_MIGRATION) {
            return Err(format!(
                "{}: its first migration is {}, not OpenCode's {FIRST_MIGRATION:?}; expected {EXPECTED}",
                path.display(),
                first.map_or("none".to_string(), |f| format!("{f:?}")),
            ));
        }
        for (table, needed) in [
            ("session", SESSION_COLUMNS),
            ("message", MESSAGE_COLUMNS),
            ("part", PART_COLUMNS),
        ] {
            let columns = self.columns(table).map_err(|e| sql_error(path, e))?;
            let missing: Vec<&str> = needed
                .iter()
                .copied()
                .filter(|c| !columns.iter().any(|have| have == c))
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "{}: table {table} has no column {} (a schema this version does not read); \
                     expected columns {}",
                    path.display(),
                    missing.join(", "),
                    needed.join(", ")
                ));
            }
            if table == "session" {
                self.session_columns = columns;
            }
        }
        Ok(())
    }

    fn tables(&self) -> rusqlite::Result<Vec<String>> {
        let mut statement = self
            .connection
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")?;
        let rows = statement.query_map([], |row| row.get::<_, String>(0))?;
        rows.collect()
    }

    fn columns(&self, table: &str) -> rusqlite::Result<Vec<String>> {
        let mut statement = self
            .connection
            .prepare("SELECT name FROM pragma_table_info(?1)")?;
        let rows = statement.query_map([table], |row| row.get::<_, String>(0))?;
        rows.collect()
    }

    /// Every session, the oldest first (by time_created, then id); the latest updated is
    /// [`Store::latest`].
    pub fn sessions(&self) -> Result<Vec<StoredSession>, String> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT id, title, parent_id, directory, time_created, time_updated FROM session \
                 ORDER BY time_created, id",
            )
            .map_err(|e| e.to_string())?;
        let rows = statement
            .query_map([], |row| {
                Ok(StoredSession {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    parent_id: row.get(2)?,
                    directory: row.get(3)?,
                    time_created: row.get(4)?,
                    time_updated: row.get(5)?,
                })
            })
            .map_err(|e| e.to_string())?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| e.to_string())
    }

    /// The session OpenCode lists first: the one updated last, of the sessions that no
    /// other session started (a sub-agent's run is reached through its parent).
    pub fn latest(&self) -> Result<Option<String>, String> {
        self.connection
            .query_row(
                "SELECT id FROM session WHERE parent_id IS NULL \
                 ORDER BY time_updated DESC, id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e.to_string()),
            })
    }

    /// The session `id` as `opencode export <id>` prints it (as compact JSON), written to
    /// `out`. `Err` when there is no such session or a row cannot be read.
    pub fn export(&self, id: &str, out: &mut Vec<u8>) -> Result<(), String> {
        // One read transaction: the session, its messages and their parts as of one moment,
        // however OpenCode writes meanwhile.
        self.connection
            .execute_batch("BEGIN")
            .map_err(|e| e.to_string())?;
        let result = self.export_in_transaction(id, out);
        let _ = self.connection.execute_batch("COMMIT");
        result
    }

    fn export_in_transaction(&self, id: &str, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(b"{\"info\":");
        self.session_info(id, out)?;
        if self.stored_elsewhere(id)? {
            return Err(format!(
                "session {id} is kept in the session_message table (OpenCode's newer session \
                 model), which this version does not read"
            ));
        }
        out.extend_from_slice(b",\"messages\":[");
        let mut parts: HashMap<String, Vec<u8>> = HashMap::new();
        {
            let mut statement = self
                .connection
                .prepare(
                    "SELECT message_id, id, session_id, data FROM part WHERE message_id IN \
                     (SELECT id FROM message WHERE session_id = ?1) ORDER BY message_id, id",
                )
                .map_err(|e| e.to_string())?;
            let mut rows = statement.query([id]).map_err(|e| e.to_string())?;
            while let Some(row) = rows.next().map_err(|e| e.to_string())? {
                let message_id = text(row, 0, "part.message_id")?;
                let part_id = text(row, 1, "part.id")?;
                let session_id = text(row, 2, "part.session_id")?;
                let data = row.get_ref(3).map_err(|e| e.to_string())?;
                let list = parts.entry(message_id.to_string()).or_default();
                if !list.is_empty() {
                    list.push(b',');
                }
                merge_ids(
                    list,
                    data_bytes(data, || format!("part {part_id}"))?,
                    &[
                        ("id", part_id),
                        ("sessionID", session_id),
                        ("messageID", message_id),
                    ],
                )
                .map_err(|e| format!("part {part_id}: data {e}"))?;
            }
        }
        let mut statement = self
            .connection
            .prepare(
                "SELECT id, session_id, data FROM message WHERE session_id = ?1 \
                 ORDER BY time_created, id",
            )
            .map_err(|e| e.to_string())?;
        let mut rows = statement.query([id]).map_err(|e| e.to_string())?;
        let mut first = true;
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let message_id = text(row, 0, "message.id")?;
            let session_id = text(row, 1, "message.session_id")?;
            let data = row.get_ref(2).map_err(|e| e.to_string())?;
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(b"{\"info\":");
            merge_ids(
                out,
                data_bytes(data, || format!("message {message_id}"))?,
                &[("id", message_id), ("sessionID", session_id)],
            )
            .map_err(|e| format!("message {message_id}: data {e}"))?;
            out.extend_from_slice(b",\"parts\":[");
            if let Some(list) = parts.get(message_id) {
                out.extend_from_slice(list);
            }
            out.extend_from_slice(b"]}");
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }

    /// Whether the session's messages are in `session_message` (OpenCode's next session
    /// model) rather than `message`.
    fn stored_elsewhere(&self, id: &str) -> Result<bool, String> {
        let exists: bool = self
            .connection
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = \
                 'session_message')",
                [],
                |row| row.get(0),
            )
            .map_err(|e| e.to_string())?;
        if !exists {
            return Ok(false);
        }
        let has_column: bool = self
            .connection
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM pragma_table_info('session_message') WHERE name = \
                 'session_id')",
                [],
                |row| row.get(0),
            )
            .map_err(|e| e.to_string())?;
        if !has_column {
            return Ok(false);
        }
        self.connection
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM session_message WHERE session_id = ?1)",
                [id],
                |row| row.get(0),
            )
            .map_err(|e| e.to_string())
    }

    /// The session's info, built from its columns as OpenCode builds it (`fromRow` of its
    /// session module): absent columns and NULLs are left out.
    fn session_info(&self, id: &str, out: &mut Vec<u8>) -> Result<(), String> {
        let columns = self.session_columns.join(", ");
        let mut statement = self
            .connection
            .prepare(&format!("SELECT {columns} FROM session WHERE id = ?1"))
            .map_err(|e| e.to_string())?;
        let mut rows = statement.query([id]).map_err(|e| e.to_string())?;
        let Some(row) = rows.next().map_err(|e| e.to_string())? else {
            return Err(format!("no session {id:?} in the database"));
        };
        let mut fields: HashMap<&str, serde_json::Value> = HashMap::new();
        for (i, name) in self.session_columns.iter().enumerate() {
            let value = row.get_ref(i).map_err(|e| e.to_string())?;
            let value = match value {
                rusqlite::types::ValueRef::Null => continue,
                rusqlite::types::ValueRef::Integer(n) => serde_json::Value::from(n),
                // As JavaScript writes a number: a whole one without a fraction.
                rusqlite::types::ValueRef::Real(x) if x.fract() == 0.0 && x.abs() < 9007199254740992.0 => {
                    serde_json::Value::from(x as i64)
                }
                rusqlite::types::ValueRef::Real(x) => serde_json::Value::from(x),
                rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                    let t =
                        std::str::from_utf8(t).map_err(|_| format!("session {id}: {name} is not UTF-8"))?;
                    if JSON_COLUMNS.contains(&name.as_str()) {
                        serde_json::from_str(t)
                            .map_err(|e| format!("session {id}: {name} is not JSON ({e})"))?
                    } else {
                        serde_json::Value::from(t)
                    }
                }
            };
            fields.insert(name.as_str(), value);
        }
        let info = session_info(&mut fields);
        serde_json::to_writer(&mut *out, &info).map_err(|e| e.to_string())
    }
}

/// The session columns OpenCode keeps as JSON text.
const JSON_COLUMNS: &[&str] = &["summary_diffs", "metadata", "revert", "permission", "model"];

/// OpenCode's session info from its row (its `fromRow`), in its order.
fn session_info(row: &mut HashMap<&str, serde_json::Value>) -> serde_json::Value {
    use serde_json::{Map, Value};
    let mut info = Map::new();
    fn take(info: &mut Map<String, Value>, row: &mut HashMap<&str, Value>, key: &str, column: &str) {
        if let Some(v) = row.remove(column) {
            info.insert(key.to_string(), v);
        }
    }
    take(&mut info, row, "id", "id");
    take(&mut info, row, "slug", "slug");
    take(&mut info, row, "projectID", "project_id");
    take(&mut info, row, "workspaceID", "workspace_id");
    take(&mut info, row, "directory", "directory");
    take(&mut info, row, "path", "path");
    take(&mut info, row, "parentID", "parent_id");
    take(&mut info, row, "title", "title");
    take(&mut info, row, "agent", "agent");
    if let Some(Value::Object(model)) = row.remove("model") {
        let mut m = Map::new();
        for key in ["id", "providerID", "variant"] {
            if let Some(v) = model.get(key).filter(|v| !v.is_null()) {
                m.insert(key.to_string(), v.clone());
            }
        }
        info.insert("model".into(), Value::Object(m));
    }
    take(&mut info, row, "version", "version");
    let summary = ["summary_additions", "summary_deletions", "summary_files"];
    if summary.iter().any(|c| row.contains_key(c)) {
        let mut s = Map::new();
        for (key, column) in ["additions", "deletions", "files"].into_iter().zip(summary) {
            s.insert(key.into(), row.remove(column).unwrap_or(Value::from(0)));
        }
        if let Some(diffs) = row.remove("summary_diffs") {
            s.insert("diffs".into(), diffs);
        }
        info.insert("summary".into(), Value::Object(s));
    }
    take(&mut info, row, "cost", "cost");
    let mut tokens = Map::new();
    for (key, column) in [
        ("input", "tokens_input"),
        ("output", "tokens_output"),
        ("reasoning", "tokens_reasoning"),
    ] {
        if let Some(v) = row.remove(column) {
            tokens.insert(key.into(), v);
        }
    }
    let mut cache = Map::new();
    for (key, column) in [("read", "tokens_cache_read"), ("write", "tokens_cache_write")] {
        if let Some(v) = row.remove(column) {
            cache.insert(key.into(), v);
        }
    }
    if !tokens.is_empty() || !cache.is_empty() {
        tokens.insert("cache".into(), Value::Object(cache));
        info.insert("tokens".into(), Value::Object(tokens));
    }
    if let Some(url) = row.remove("share_url") {
        info.insert("share".into(), serde_json::json!({ "url": url }));
    }
    take(&mut info, row, "metadata", "metadata");
    if let Some(Value::Object(revert)) = row.remove("revert") {
        let mut r = Map::new();
        for key in ["messageID", "partID", "snapshot", "diff"] {
            if let Some(v) = revert.get(key).filter(|v| !v.is_null()) {
                r.insert(key.to_string(), v.clone());
            }
        }
        info.insert("revert".into(), Value::Object(r));
    }
    take(&mut info, row, "permission", "permission");
    let mut time = Map::new();
    for (key, column) in [
        ("created", "time_created"),
        ("updated", "time_updated"),
        ("compacting", "time_compacting"),
        ("archived", "time_archived"),
    ] {
        if let Some(v) = row.remove(column) {
            time.insert(key.into(), v);
        }
    }
    info.insert("time".into(), Value::Object(time));
    Value::Object(info)
}

fn text<'r>(row: &'r rusqlite::Row<'_>, at: usize, what: &str) -> Result<&'r str, String> {
    match row.get_ref(at).map_err(|e| e.to_string())? {
        rusqlite::types::ValueRef::Text(t) => {
            std::str::from_utf8(t).map_err(|_| format!("{what} is not UTF-8"))
        }
        other => Err(format!("{what} must be text, got {:?}", other.data_type())),
    }
}

fn data_bytes<'r>(
    data: rusqlite::types::ValueRef<'r>,
    whose: impl Fn() -> String,
) -> Result<&'r [u8], String> {
    match data {
        rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => Ok(t),
        other => Err(format!(
            "{}: data must be JSON text, got {:?}",
            whose(),
            other.data_type()
        )),
    }
}

/// Writes `data` (a JSON object) with `ids` added after its own fields, as OpenCode merges
/// the columns over a row's data (`{...data, id, sessionID}`): a field of `data` of the
/// same name gives way to the column.
pub fn merge_ids(out: &mut Vec<u8>, data: &[u8], ids: &[(&str, &str)]) -> Result<(), String> {
    let parsed = value::parse(data).map_err(|e| format!("is not JSON ({e})"))?;
    let Json::Object(fields) = &parsed else {
        return Err(format!("must be a JSON object, got {}", parsed.kind().name()));
    };
    let shadowed = fields
        .iter()
        .any(|(key, _)| ids.iter().any(|(id, _)| key.as_bytes() == id.as_bytes()));
    let start = out.len();
    if shadowed {
        let mut fields = fields.clone();
        fields.retain(|(key, _)| !ids.iter().any(|(id, _)| key.as_bytes() == id.as_bytes()));
        value::write(out, &Json::Object(fields));
    } else {
        out.extend_from_slice(data.trim_ascii());
    }
    // Drop the closing brace, and add the ids.
    out.pop();
    let empty = out[start..].iter().rposition(|b| !b.is_ascii_whitespace()) == Some(0);
    let mut first = empty;
    for (key, id) in ids {
        if !first {
            out.push(b',');
        }
        first = false;
        value::write_str(out, key.as_bytes());
        out.push(b':');
        value::write_str(out, id.as_bytes());
    }
    out.push(b'}');
    Ok(())
}

/// Whether the database at `path` is in a rollback-journal mode, not WAL mode (its header's
/// read and write versions, bytes 18 and 19, are 1; WAL mode's are 2).
fn rollback_journal(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|_| header[18] == 1 && header[19] == 1)
}

/// A read-only connection on the files themselves, with the URI parameters given.
fn open_read_only(path: &Path, parameters: &str) -> Result<Connection, String> {
    let uri = uri(path, parameters)?;
    Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| sql_error(path, e))
}

/// How many times the files are copied before giving up on a store that keeps changing.
const COPY_TRIES: usize = 20;

/// Copies the database and its WAL (if any) into a new folder of the temporary folder, and
/// again while either changed during the copy. Returns the folder and the copy's path.
fn copy_files(path: &Path) -> Result<(PathBuf, PathBuf), String> {
    let wal = sibling(path, "-wal");
    let dir = private_dir()?;
    let db = dir.join("store.db");
    let copy_wal = sibling(&db, "-wal");
    let stamp = |p: &Path| fs::metadata(p).ok().map(|m| (m.len(), m.modified().ok()));
    for _ in 0..COPY_TRIES {
        let before = (stamp(path), stamp(&wal));
        let copied = fs::copy(path, &db).and_then(|_| match before.1 {
            Some(_) => fs::copy(&wal, &copy_wal).map(drop),
            None => {
                let _ = fs::remove_file(&copy_wal);
                Ok(())
            }
        });
        if let Err(e) = copied {
            let _ = fs::remove_dir_all(&dir);
            return Err(format!(
                "{}: cannot copy the database to read it: {e}",
                path.display()
            ));
        }
        if (stamp(path), stamp(&wal)) == before {
            return Ok((dir, db));
        }
    }
    let _ = fs::remove_dir_all(&dir);
    Err(format!(
        "{}: the database kept changing while it was copied to be read (it has no -shm file \
         to read it in place)",
        path.display()
    ))
}

fn private_dir() -> Result<PathBuf, String> {
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).map_err(|e| e.to_string())?;
    let name: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let dir = std::env::temp_dir().join(format!("agent-chunks-store-{name}"));
    fs::create_dir(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    Ok(dir)
}
