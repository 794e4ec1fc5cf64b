//! OpenAI Codex CLI (`@openai/codex`): the rollout files it keeps of every session
//! (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, `archived_sessions/`, `CODEX_HOME`
//! defaulting to `~/.codex`), read as Codex shows a resumed thread ([`rollout`]), and the
//! events `codex exec --json` writes as it runs ([`exec`]), and the JSON-RPC traffic of
//! `codex app-server` that GUIs drive Codex through, with its re-reads of a thread
//! ([`app_server`]), folded live into the same messages. Three rows of the table: `codex`,
//! `codex-exec` and `codex-app-server`.
//!
//! Versions read: the TypeScript CLI (0.1.2504172351, its single-JSON `rollout-*.json`),
//! the Rust CLI from 0.20 (bare lines) through the envelope (0.34 on), `world_state`
//! (0.144), `item_completed` and `ordinal` (0.148), to 0.171; `exec --json` from its
//! `{id, msg}` events (0.20–0.39) to its `ThreadEvent`s (0.40 on).

pub mod app_server;
pub mod exec;
pub mod items;
pub mod lockstep;
pub mod rollout;
pub mod shell;
pub mod thread;

use crate::bytes::value::{str_of, Json};
use crate::reading::format::{Format, History, Home};
use crate::reading::sniff::{tag, Sniff};

/// The folders Codex keeps its rollouts in.
pub const HOMES: &[Home] = &[Home {
    variable: Some("CODEX_HOME"),
    folder: ".codex",
    sessions: &["sessions", "archived_sessions"],
}];

/// A rollout line of any generation, or the TypeScript CLI's document.
fn detect_rollout(sniff: &Sniff, at: usize) -> bool {
    sniff.line(at).is_some_and(|line| {
        rollout::is_envelope(line) || rollout::is_bare_meta(line) || rollout::is_document(line)
    })
}

/// Codex's rollouts.
pub const CODEX: Format = Format {
    name: "codex",
    summary:
        "an OpenAI Codex CLI rollout (sessions/…/rollout-*.jsonl, or the TypeScript CLI's rollout-*.json)",
    detect: detect_rollout,
    near: |line| {
        (tag(line, "type").is_some() && line.get("payload").is_some() && line.get("timestamp").is_some())
            .then_some(
                "lines of Codex's {timestamp, type, payload} envelope, none of a type this version knows",
            )
    },
    history: Some(History::Read(rollout::read_history)),
    homes: HOMES,
    ..Format::NONE
};

/// The `ThreadEvent` types of `codex exec --json`.
const THREAD_EVENTS: &[&[u8]] = &[
    b"thread.started",
    b"turn.started",
    b"turn.completed",
    b"turn.failed",
    b"item.started",
    b"item.updated",
    b"item.completed",
    b"item.plan.delta",
];

/// A `ThreadEvent`, or a `{ id, msg }` event of the output before 0.40.
fn detect_exec(sniff: &Sniff, at: usize) -> bool {
    sniff.line(at).is_some_and(|line| {
        if tag(line, "type").is_some_and(|t| THREAD_EVENTS.contains(&t)) {
            return true;
        }
        let Some(msg @ Json::Object(_)) = line.get("msg") else {
            return false;
        };
        line.get("id").is_some()
            && str_of(msg, "type").is_some_and(|t| {
                matches!(
                    t.as_bytes(),
                    b"task_started"
                        | b"task_complete"
                        | b"agent_message"
                        | b"agent_reasoning"
                        | b"exec_command_begin"
                        | b"session_configured"
                        | b"agent_message_delta"
                )
            })
    })
}

/// `codex exec --json` output.
pub const CODEX_EXEC: Format = Format {
    name: "codex-exec",
    summary:
        "OpenAI Codex CLI `codex exec --json` output (ThreadEvent lines, or the {id, msg} events before 0.40)",
    detect: detect_exec,
    stream: Some((|_| Box::new(exec::ExecStream::default()), "turn")),
    lockstep: Some(lockstep::lockstep),
    ..Format::NONE
};

/// `codex app-server` traffic, and its `thread/read` / `thread/resume` answers.
pub const CODEX_APP_SERVER: Format = Format {
    name: "codex-app-server",
    summary: "OpenAI Codex `codex app-server` JSON-RPC traffic as a client logs it (or the server's output alone), and its thread/read or thread/resume answers, NDJSON",
    detect: |sniff, at| sniff.line(at).is_some_and(app_server::is_app_server_line),
    near: |line| {
        (matches!(line.get("method"), Some(Json::String(_))) && line.get("jsonrpc").is_none())
            .then_some("JSON-RPC lines without a jsonrpc field, none of a method of Codex's app server")
    },
    history: Some(History::Recorded),
    stream: Some((|_| Box::new(app_server::AppServerFold::default()), "turn")),
    lockstep: Some(app_server::lockstep),
    ..Format::NONE
};
