//! OpenCode's store before 1.2: a tree of JSON files under its data folder's `storage/`
//! (OpenCode 1.2 moves it into its database at start-up):
//!
//! - `storage/session/<projectID>/<sessionID>.json`: the session's info;
//! - `storage/message/<sessionID>/<messageID>.json`: a message's info;
//! - `storage/part/<messageID>/<partID>.json`: a part.
//!
//! Every file holds its own ids. A session is read as the document `opencode export <id>`
//! prints, `{info, messages: [{info, parts}]}`: messages and parts in the order of their
//! ids (the order OpenCode lists the files in; its ids grow with time).

use std::fs;
use std::path::{Path, PathBuf};

use crate::bytes::value::{self, Json};
use crate::reading::format::StoredSession;

/// The `storage` folder of `path`: `path` itself, or its `storage/` (a data folder).
pub fn storage(path: &Path) -> Option<PathBuf> {
    let is_storage = |p: &Path| p.join("session").is_dir() && p.join("message").is_dir();
    if is_storage(path) {
        return Some(path.to_path_buf());
    }
    let inner = path.join("storage");
    is_storage(&inner).then_some(inner)
}

/// The `.json` files of `dir`, by name (ids grow with time); none when it does not exist.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") && entry.file_type().is_ok_and(|t| t.is_file()) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A file's JSON object, and its bytes.
fn read_object(path: &Path) -> Result<(Vec<u8>, Json), String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json = value::parse(&bytes).map_err(|e| format!("{}: not JSON ({e})", path.display()))?;
    if !matches!(json, Json::Object(_)) {
        return Err(format!(
            "{}: must be a JSON object, got {}",
            path.display(),
            json.kind().name()
        ));
    }
    Ok((bytes, json))
}

fn string(json: &Json, key: &str) -> Option<String> {
    json.get(key)
        .and_then(Json::as_str)
        .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned())
}

/// Every session file of the tree: its path and its info.
fn session_files(storage: &Path) -> Result<Vec<(PathBuf, Json)>, String> {
    let root = storage.join("session");
    let mut projects: Vec<PathBuf> = fs::read_dir(&root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    projects.sort();
    let mut sessions = Vec::new();
    for project in projects {
        for file in json_files(&project)? {
            let (_, json) = read_object(&file)?;
            sessions.push((file, json));
        }
    }
    Ok(sessions)
}

/// Every session of the tree, the oldest first.
pub fn sessions(storage: &Path) -> Result<Vec<StoredSession>, String> {
    let mut list = Vec::new();
    for (file, json) in session_files(storage)? {
        let id = string(&json, "id").ok_or_else(|| format!("{}: id must be a string", file.display()))?;
        let time = |key: &str| json.get("time").and_then(|t| t.get(key)).and_then(Json::as_f64);
        list.push(StoredSession {
            id,
            title: string(&json, "title").unwrap_or_default(),
            parent_id: string(&json, "parentID"),
            directory: string(&json, "directory").unwrap_or_default(),
            time_created: time("created").unwrap_or(0.0) as i64,
            time_updated: time("updated").unwrap_or(0.0) as i64,
        });
    }
    list.sort_by(|a, b| (a.time_created, &a.id).cmp(&(b.time_created, &b.id)));
    Ok(list)
}

/// The session `id` as `opencode export <id>` prints it (compact JSON), written to `out`.
pub fn export(storage: &Path, id: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let name = format!("{id}.json");
    if id.contains(['/', '\\']) || id.starts_with('.') {
        return Err(format!("no session {id:?} in {}", storage.display()));
    }
    let root = storage.join("session");
    let mut found = None;
    for project in fs::read_dir(&root).map_err(|e| format!("{}: {e}", root.display()))? {
        let file = project.map_err(|e| e.to_string())?.path().join(&name);
        if file.is_file() {
            found = Some(file);
            break;
        }
    }
    let Some(file) = found else {
        return Err(format!("no session {id:?} in {}", storage.display()));
    };
    let (bytes, _) = read_object(&file)?;
    out.extend_from_slice(b"{\"info\":");
    out.extend_from_slice(bytes.trim_ascii());
    out.extend_from_slice(b",\"messages\":[");
    for (i, message) in json_files(&storage.join("message").join(id))?.iter().enumerate() {
        let (bytes, json) = read_object(message)?;
        let message_id =
            string(&json, "id").ok_or_else(|| format!("{}: id must be a string", message.display()))?;
        if message_id.contains(['/', '\\']) || message_id.starts_with('.') {
            return Err(format!("{}: id is not a message id", message.display()));
        }
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"info\":");
        out.extend_from_slice(bytes.trim_ascii());
        out.extend_from_slice(b",\"parts\":[");
        for (j, part) in json_files(&storage.join("part").join(&message_id))?
            .iter()
            .enumerate()
        {
            let (bytes, _) = read_object(part)?;
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(bytes.trim_ascii());
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

/// The session OpenCode lists first: updated last, of those no other session started.
pub fn latest(storage: &Path) -> Result<Option<String>, String> {
    Ok(sessions(storage)?
        .into_iter()
        .filter(|s| s.parent_id.is_none())
        .max_by(|a, b| (a.time_updated, &a.id).cmp(&(b.time_updated, &b.id)))
        .map(|s| s.id))
}
