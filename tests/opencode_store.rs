//! OpenCode's SQLite store read as `opencode export` documents: from the WAL, changing no
//! byte or time of the database, its WAL or its shared-memory file, with OpenCode writing
//! at the same moment; stores of other programs refused. The databases are made here
//! from OpenCode 1.18.33's schema (`tests/opencode/schema-1.18.33.sql`, dumped from a
//! real run) with rows of our own.
#![cfg(not(target_family = "wasm"))]

use std::fs;
use std::path::{Path, PathBuf};

use agent_chunks::formats::opencode::{legacy, store::Store, STORE};
use rusqlite::Connection;
use serde_json::{json, Value};

const SCHEMA: &str = include_str!("opencode/schema-1.18.33.sql");
const KILO_SCHEMA: &str = include_str!("opencode/schema-kilo-7.7.7.sql");
const SCHEMA_1_14: &str = include_str!("opencode/schema-1.14.34.sql");

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agent-chunks-test-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A writer as OpenCode opens its store: WAL mode, and no checkpoint, so that everything
/// stays in the WAL (as it does after a run).
fn writer(db: &Path, schema: &str) -> Connection {
    let c = Connection::open(db).unwrap();
    c.pragma_update(None, "journal_mode", "WAL").unwrap();
    c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    c.execute_batch(schema).unwrap();
    c
}

fn add_session(c: &Connection, id: &str, parent: Option<&str>, updated: i64) {
    c.execute(
        "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) \
         VALUES ('global', '/', 1, 1, '[]') ON CONFLICT DO NOTHING",
        [],
    )
    .unwrap();
    c.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, \
         summary_additions, summary_deletions, summary_files, cost, tokens_input, permission, \
         agent, model, time_created, time_updated) VALUES (?1, 'global', ?2, 'calm-sea', \
         '/work/é', 'work', 'A title ✓', '1.18.33', 0, 0, 0, 0.5, 12, \
         '[{\"permission\":\"question\",\"pattern\":\"*\",\"action\":\"deny\"}]', 'build', \
         '{\"id\":\"m\",\"providerID\":\"p\",\"variant\":\"default\"}', ?3, ?3)",
        rusqlite::params![id, parent, updated],
    )
    .unwrap();
}

fn add_message(c: &Connection, session: &str, id: &str, at: i64, data: &str) {
    c.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
        rusqlite::params![id, session, at, data],
    )
    .unwrap();
}

fn add_part(c: &Connection, session: &str, message: &str, id: &str, data: &str) {
    c.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, 1, ?4)",
        rusqlite::params![id, message, session, data],
    )
    .unwrap();
}

/// A session of a user message and an assistant step with a tool call, written in an
/// order other than the one read (messages by time then id, parts by id).
fn fill(c: &Connection) {
    add_session(c, "ses_a", None, 100);
    add_session(c, "ses_b", None, 300);
    add_session(c, "ses_b_child", Some("ses_b"), 400);
    add_message(
        c,
        "ses_b",
        "msg_2",
        20,
        r#"{"role":"assistant","parentID":"msg_1","time":{"created":20}}"#,
    );
    add_message(
        c,
        "ses_b",
        "msg_1",
        10,
        r#"{"role":"user","time":{"created":10},"agent":"build"}"#,
    );
    add_part(
        c,
        "ses_b",
        "msg_2",
        "prt_4",
        r#"{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"ls"},"output":"ok\n"}}"#,
    );
    add_part(c, "ses_b", "msg_2", "prt_3", r#"{"type":"step-start"}"#);
    add_part(
        c,
        "ses_b",
        "msg_1",
        "prt_1",
        r#"{"type":"text","text":"héllo \ud83d\ude00"}"#,
    );
    // A part whose data holds an id of its own: the column's wins, as in OpenCode.
    add_part(
        c,
        "ses_b",
        "msg_2",
        "prt_5",
        r#"{"id":"stale","type":"text","text":"done"}"#,
    );
    add_message(c, "ses_a", "msg_0", 5, r#"{"role":"user","time":{"created":5}}"#);
    add_part(c, "ses_a", "msg_0", "prt_0", "{}");
}

fn expected_b() -> Value {
    json!({
        "info": {
            "id": "ses_b", "slug": "calm-sea", "projectID": "global", "directory": "/work/é",
            "path": "work", "title": "A title ✓", "agent": "build",
            "model": {"id": "m", "providerID": "p", "variant": "default"},
            "version": "1.18.33", "summary": {"additions": 0, "deletions": 0, "files": 0},
            "cost": 0.5,
            "tokens": {"input": 12, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "permission": [{"permission": "question", "pattern": "*", "action": "deny"}],
            "time": {"created": 300, "updated": 300}
        },
        "messages": [
            {
                "info": {"role": "user", "time": {"created": 10}, "agent": "build", "id": "msg_1", "sessionID": "ses_b"},
                "parts": [{"type": "text", "text": "héllo 😀", "id": "prt_1", "sessionID": "ses_b", "messageID": "msg_1"}]
            },
            {
                "info": {"role": "assistant", "parentID": "msg_1", "time": {"created": 20}, "id": "msg_2", "sessionID": "ses_b"},
                "parts": [
                    {"type": "step-start", "id": "prt_3", "sessionID": "ses_b", "messageID": "msg_2"},
                    {"type": "tool", "tool": "bash", "callID": "c1", "state": {"status": "completed", "input": {"command": "ls"}, "output": "ok\n"}, "id": "prt_4", "sessionID": "ses_b", "messageID": "msg_2"},
                    {"type": "text", "text": "done", "id": "prt_5", "sessionID": "ses_b", "messageID": "msg_2"}
                ]
            }
        ]
    })
}

fn export(path: &Path, id: &str) -> Value {
    let mut out = Vec::new();
    Store::open(path).unwrap().export(id, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// A file's length, the hash of its bytes, its modification time.
type FileState = (usize, u64, std::time::SystemTime);

/// Every byte (as its length and hash) and the modification time of each of the
/// database's files (`None`: absent).
fn files_state(db: &Path) -> Vec<(String, Option<FileState>)> {
    use std::hash::{Hash, Hasher};
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|suffix| {
            let path = PathBuf::from(format!("{}{suffix}", db.display()));
            let state = fs::read(&path).ok().map(|bytes| {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                bytes.hash(&mut hasher);
                (
                    bytes.len(),
                    hasher.finish(),
                    fs::metadata(&path).unwrap().modified().unwrap(),
                )
            });
            (suffix.to_string(), state)
        })
        .collect()
}

/// The three files as a process that wrote them and ended without closing leaves them:
/// everything in the WAL, the shared memory as it was.
fn left_by_a_run(name: &str) -> PathBuf {
    let live = temp_dir(&format!("{name}-live"));
    let db = live.join("opencode.db");
    let c = writer(&db, SCHEMA);
    fill(&c);
    let dir = temp_dir(name);
    for suffix in ["", "-wal", "-shm"] {
        fs::copy(
            format!("{}{suffix}", db.display()),
            format!("{}/opencode.db{suffix}", dir.display()),
        )
        .unwrap();
    }
    drop(c);
    let _ = fs::remove_dir_all(&live);
    dir.join("opencode.db")
}

#[test]
fn a_session_is_read_from_the_wal_as_opencode_exports_it() {
    let db = left_by_a_run("export");
    assert_eq!(
        fs::metadata(&db).unwrap().len(),
        4096,
        "the rows are all in the WAL"
    );
    assert_eq!(export(&db, "ses_b"), expected_b());
    let a = export(&db, "ses_a");
    assert_eq!(
        a["messages"][0]["parts"],
        json!([{"id": "prt_0", "sessionID": "ses_a", "messageID": "msg_0"}])
    );
}

#[test]
fn reading_changes_no_byte_and_no_time_of_any_file() {
    let db = left_by_a_run("unchanged");
    let before = files_state(&db);
    for _ in 0..3 {
        let store = Store::open(&db).unwrap();
        store.sessions().unwrap();
        store.export("ses_b", &mut Vec::new()).unwrap();
    }
    (STORE.sessions)(&db).unwrap();
    (STORE.document)(&db, None).unwrap();
    assert_eq!(files_state(&db), before);
}

#[test]
fn a_store_without_its_shared_memory_file_is_read_from_a_copy_and_left_as_it_was() {
    let db = left_by_a_run("no-shm");
    fs::remove_file(format!("{}-shm", db.display())).unwrap();
    let before = files_state(&db);
    assert_eq!(export(&db, "ses_b"), expected_b());
    assert_eq!(files_state(&db), before, "no -shm made, nothing checkpointed");
    let left: Vec<_> = fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

#[test]
fn a_store_checkpointed_and_closed_is_read_from_its_database_alone() {
    let dir = temp_dir("closed");
    let db = dir.join("opencode.db");
    let c = writer(&db, SCHEMA);
    fill(&c);
    drop(c); // the last connection: checkpoints and removes the WAL
    assert!(!dir.join("opencode.db-wal").exists());
    let before = files_state(&db);
    assert_eq!(export(&db, "ses_b"), expected_b());
    assert_eq!(files_state(&db), before, "no -wal or -shm made");
}

/// Another process writing the store (as OpenCode does): this test binary run again with
/// `AGENT_CHUNKS_WRITER_DB` set, writing until the file `<db>.stop` exists; `hold` only
/// keeps the connection open. Prints the number of messages written.
#[test]
#[ignore = "run by the tests below as a process of its own"]
fn writer_process() {
    let Ok(db) = std::env::var("AGENT_CHUNKS_WRITER_DB") else {
        return;
    };
    let hold = std::env::var("AGENT_CHUNKS_WRITER_HOLD").is_ok();
    let stop = PathBuf::from(format!("{db}.stop"));
    let c = Connection::open(&db).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    c.query_row("SELECT count(*) FROM message", [], |_| Ok(()))
        .unwrap();
    fs::write(format!("{db}.ready"), "").unwrap();
    let mut n = 0u64;
    while !stop.exists() {
        if hold {
            std::thread::sleep(std::time::Duration::from_millis(5));
            continue;
        }
        let tx = c.unchecked_transaction().unwrap();
        let id = format!("msg_w{n:06}");
        add_message(&tx, "ses_b", &id, 1000 + n as i64, r#"{"role":"user"}"#);
        add_part(
            &tx,
            "ses_b",
            &id,
            &format!("prt_w{n:06}a"),
            r#"{"type":"text","text":"a"}"#,
        );
        add_part(
            &tx,
            "ses_b",
            &id,
            &format!("prt_w{n:06}b"),
            r#"{"type":"text","text":"b"}"#,
        );
        tx.commit().unwrap();
        // About the pace of a model's parts, so that the store stays small.
        std::thread::sleep(std::time::Duration::from_millis(2));
        // Now and then a checkpoint, as OpenCode's own (PASSIVE).
        if n % 50 == 49 {
            c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                .unwrap();
        }
        n += 1;
    }
    println!("written={n}");
}

struct Writer(std::process::Child, PathBuf);

fn spawn_writer(db: &Path, hold: bool) -> Writer {
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "writer_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("AGENT_CHUNKS_WRITER_DB", db)
        .stdout(std::process::Stdio::piped());
    if hold {
        command.env("AGENT_CHUNKS_WRITER_HOLD", "1");
    }
    let child = command.spawn().unwrap();
    let ready = PathBuf::from(format!("{}.ready", db.display()));
    while !ready.exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Writer(child, db.to_path_buf())
}

impl Writer {
    fn stop(self) -> u64 {
        fs::write(format!("{}.stop", self.1.display()), "").unwrap();
        let out = self.0.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let n = text
            .split("written=")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        n.parse().unwrap()
    }
}

#[test]
fn a_store_in_a_rollback_journal_mode_is_read_in_place_unchanged() {
    let dir = temp_dir("rollback");
    let db = dir.join("opencode.db");
    let c = Connection::open(&db).unwrap();
    c.execute_batch(SCHEMA).unwrap();
    fill(&c);
    drop(c);
    let before = files_state(&db);
    assert_eq!(export(&db, "ses_b"), expected_b());
    assert_eq!(files_state(&db), before, "no -journal, -wal or -shm made");
}

#[test]
fn a_store_opencode_holds_open_is_read_through_its_shared_memory_unchanged() {
    let db = left_by_a_run("held");
    let writer = spawn_writer(&db, true);
    let before = files_state(&db);
    for _ in 0..3 {
        assert_eq!(export(&db, "ses_b"), expected_b());
    }
    assert_eq!(files_state(&db), before);
    writer.stop();
}

/// OpenCode writing while the store is read: every read succeeds and sees whole
/// transactions (each message with both of its parts), never fewer messages than before.
#[test]
fn a_writer_in_wal_mode_never_breaks_a_read() {
    let db = left_by_a_run("concurrent");
    let writer = spawn_writer(&db, false);
    let mut seen = 0;
    for _ in 0..60 {
        let doc = export(&db, "ses_b");
        let messages = doc["messages"].as_array().unwrap();
        assert!(messages.len() >= seen, "{} after {seen}", messages.len());
        seen = messages.len();
        for m in &messages[2..] {
            assert_eq!(m["parts"].as_array().unwrap().len(), 2, "{m}");
        }
    }
    let written = writer.stop();
    assert!(written > 0 && seen > 2, "written {written}, seen {seen}");
    assert_eq!(
        export(&db, "ses_b")["messages"].as_array().unwrap().len() as u64,
        2 + written
    );
}

#[test]
fn the_latest_session_is_the_last_updated_of_those_no_session_started() {
    let db = left_by_a_run("latest");
    let store = Store::open(&db).unwrap();
    assert_eq!(store.latest().unwrap().as_deref(), Some("ses_b"));
    let sessions = store.sessions().unwrap();
    let ids: Vec<_> = sessions
        .iter()
        .map(|s| (s.id.as_str(), s.parent_id.as_deref()))
        .collect();
    assert_eq!(
        ids,
        [("ses_a", None), ("ses_b", None), ("ses_b_child", Some("ses_b"))]
    );
    assert_eq!(sessions[1].title, "A title ✓");
    let doc: Value = serde_json::from_slice(&(STORE.document)(&db, None).unwrap()).unwrap();
    assert_eq!(doc, expected_b());
    // The data folder holding it is the store too.
    let doc: Value =
        serde_json::from_slice(&(STORE.document)(db.parent().unwrap(), Some("ses_a")).unwrap()).unwrap();
    assert_eq!(doc["info"]["id"], "ses_a");
    let child: Value = serde_json::from_slice(&(STORE.document)(&db, Some("ses_b_child")).unwrap()).unwrap();
    assert_eq!(child["info"]["parentID"], "ses_b");
}

#[test]
fn kilo_clis_store_reads_the_same() {
    let dir = temp_dir("kilo");
    let db = dir.join("kilo.db");
    let c = writer(&db, KILO_SCHEMA);
    fill(&c);
    assert_eq!(export(&db, "ses_b"), expected_b());
    assert!((STORE.claims)(&dir));
    drop(c);
}

/// OpenCode before 1.15 kept its migrations in drizzle's own table.
#[test]
fn a_store_of_opencode_1_14_reads_the_same() {
    let dir = temp_dir("1.14");
    let db = dir.join("opencode.db");
    let c = writer(&db, SCHEMA_1_14);
    c.execute_batch(
        "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', 1, 1, '[]');
         INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
         VALUES ('ses_b', 'global', 'calm-sea', '/work', 'T', '1.14.34', 300, 300);",
    )
    .unwrap();
    add_message(&c, "ses_b", "msg_1", 10, r#"{"role":"user"}"#);
    add_part(&c, "ses_b", "msg_1", "prt_1", r#"{"type":"text","text":"hi"}"#);
    // Its sessions have no cost or token columns: the info has neither.
    let expected = json!({
        "info": {"id": "ses_b", "slug": "calm-sea", "projectID": "global", "directory": "/work",
                 "title": "T", "version": "1.14.34", "time": {"created": 300, "updated": 300}},
        "messages": [{"info": {"role": "user", "id": "msg_1", "sessionID": "ses_b"},
                      "parts": [{"type": "text", "text": "hi", "id": "prt_1", "sessionID": "ses_b", "messageID": "msg_1"}]}]
    });
    assert_eq!(export(&db, "ses_b"), expected);
    drop(c);
    let c = Connection::open(&db).unwrap();
    c.execute_batch("UPDATE __drizzle_migrations SET name = 'other' WHERE id = 1")
        .unwrap();
    drop(c);
    assert!(open_error(&db).contains("its first migration is \"other\", not OpenCode's"));
}

fn open_error(db: &Path) -> String {
    match Store::open(db) {
        Ok(_) => panic!("{} was read", db.display()),
        Err(e) => e,
    }
}

#[test]
fn another_programs_database_is_refused_naming_what_was_expected() {
    let dir = temp_dir("other");
    let db = dir.join("other.db");
    Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE session (id TEXT); CREATE TABLE notes (x)")
        .unwrap();
    let e = open_error(&db);
    assert!(e.contains("has no table message, part, migration;"), "{e}");
    assert!(e.contains("expected an OpenCode (or Kilo CLI) database"), "{e}");

    // The same tables, but not OpenCode's migrations.
    let db = dir.join("lookalike.db");
    let c = Connection::open(&db).unwrap();
    c.execute_batch(&SCHEMA.replace("20260127222353_familiar_lady_ursula", "0001_init"))
        .unwrap();
    drop(c);
    let e = open_error(&db);
    assert!(
        e.contains("its first migration is \"0001_init\", not OpenCode's"),
        "{e}"
    );

    // OpenCode's, in a shape this version does not read.
    let db = dir.join("newer.db");
    let c = Connection::open(&db).unwrap();
    c.execute_batch(SCHEMA).unwrap();
    c.execute_batch("ALTER TABLE part RENAME COLUMN data TO body")
        .unwrap();
    drop(c);
    let e = open_error(&db);
    assert!(e.contains("table part has no column data"), "{e}");

    // Not a database.
    let file = dir.join("notes.db");
    fs::write(&file, "{\"id\":1}\n").unwrap();
    assert!(open_error(&file).contains("is not a SQLite database"));
    assert!(!(STORE.claims)(&file));
}

#[test]
fn a_session_kept_in_opencodes_newer_tables_is_refused_not_read_empty() {
    let dir = temp_dir("next");
    let db = dir.join("opencode.db");
    let c = writer(&db, SCHEMA);
    fill(&c);
    let columns: Vec<String> = c
        .prepare("SELECT name FROM pragma_table_info('session_message')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let values: Vec<String> = columns
        .iter()
        .map(|c| {
            if c == "session_id" {
                "'ses_a'".into()
            } else {
                "'x'".into()
            }
        })
        .collect();
    c.execute_batch(&format!(
        "INSERT INTO session_message ({}) VALUES ({})",
        columns.join(","),
        values.join(",")
    ))
    .unwrap();
    let mut out = Vec::new();
    let e = Store::open(&db).unwrap().export("ses_a", &mut out).unwrap_err();
    assert!(e.contains("session_message"), "{e}");
    drop(c);
}

#[test]
fn a_row_that_is_not_a_json_object_names_its_row() {
    let dir = temp_dir("bad-row");
    let db = dir.join("opencode.db");
    let c = writer(&db, SCHEMA);
    fill(&c);
    add_part(&c, "ses_b", "msg_1", "prt_9", "[1,2]");
    let e = Store::open(&db)
        .unwrap()
        .export("ses_b", &mut Vec::new())
        .unwrap_err();
    assert_eq!(e, "part prt_9: data must be a JSON object, got array");
    let e = Store::open(&db)
        .unwrap()
        .export("ses_nope", &mut Vec::new())
        .unwrap_err();
    assert_eq!(e, "no session \"ses_nope\" in the database");
    drop(c);
}

/// The JSON tree of OpenCode before 1.2, as `opencode export` printed it.
#[test]
fn the_legacy_tree_reads_as_opencode_exports_it() {
    let dir = temp_dir("legacy");
    let storage = dir.join("storage");
    let write = |path: &str, value: Value| {
        let path = storage.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    };
    let session = json!({"id": "ses_x", "slug": "s", "version": "1.1.65", "projectID": "global", "directory": "/w", "title": "T", "time": {"created": 1, "updated": 9}});
    write("session/global/ses_x.json", session.clone());
    write(
        "session/other/ses_y.json",
        json!({"id": "ses_y", "parentID": "ses_x", "title": "child", "time": {"created": 2, "updated": 10}}),
    );
    let user = json!({"id": "msg_1", "sessionID": "ses_x", "role": "user", "time": {"created": 1}});
    let assistant = json!({"id": "msg_2", "sessionID": "ses_x", "role": "assistant", "parentID": "msg_1"});
    write("message/ses_x/msg_2.json", assistant.clone());
    write("message/ses_x/msg_1.json", user.clone());
    let p1 = json!({"id": "prt_1", "sessionID": "ses_x", "messageID": "msg_1", "type": "text", "text": "hi"});
    let p2 = json!({"id": "prt_2", "sessionID": "ses_x", "messageID": "msg_2", "type": "step-start"});
    let p3 = json!({"id": "prt_3", "sessionID": "ses_x", "messageID": "msg_2", "type": "text", "text": "yo"});
    write("part/msg_1/prt_1.json", p1.clone());
    write("part/msg_2/prt_3.json", p3.clone());
    write("part/msg_2/prt_2.json", p2.clone());
    assert!((STORE.claims)(&dir) && (STORE.claims)(&storage));
    let expected = json!({"info": session, "messages": [{"info": user, "parts": [p1]}, {"info": assistant, "parts": [p2, p3]}]});
    // The latest session no other session started.
    let doc: Value = serde_json::from_slice(&(STORE.document)(&dir, None).unwrap()).unwrap();
    assert_eq!(doc, expected);
    let ids: Vec<_> = legacy::sessions(&storage)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ids, ["ses_x", "ses_y"]);
    let e = (STORE.document)(&dir, Some("../ses_x")).unwrap_err();
    assert!(e.starts_with("no session \"../ses_x\""), "{e}");
}

/// Real stores against what `opencode export <id>` printed of them (kept outside the
/// repository): `AGENT_CHUNKS_OPENCODE_EXPORTS` names a folder of `<name>/store` (a
/// database or a data folder) and `<name>/<session id>.json` files.
#[test]
#[ignore = "needs real stores and exports (AGENT_CHUNKS_OPENCODE_EXPORTS)"]
fn real_stores_read_as_opencode_exports_them() {
    let root = PathBuf::from(std::env::var("AGENT_CHUNKS_OPENCODE_EXPORTS").unwrap());
    let mut compared = 0;
    for case in fs::read_dir(&root).unwrap() {
        let case = case.unwrap().path();
        let store = case.join("store");
        for file in fs::read_dir(&case).unwrap() {
            let file = file.unwrap().path();
            let Some(id) = file.file_name().unwrap().to_str().unwrap().strip_suffix(".json") else {
                continue;
            };
            let expected: Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
            let got: Value = serde_json::from_slice(&(STORE.document)(&store, Some(id)).unwrap()).unwrap();
            assert_eq!(got, expected, "{}", file.display());
            compared += 1;
        }
    }
    eprintln!("{compared} sessions equal to their exports");
    assert!(compared > 0);
}
