//! The formats' faces in JavaScript, a file per format (its namespace and the shapes of
//! its files, for the typings), and the names of the table's formats as the typings give
//! them. Everything else in the binding reaches a format through the table.

pub mod acp;
pub mod ag_ui;
pub mod ai_sdk;
pub mod chatviewer;
pub mod claude;
pub mod pi;
pub mod qwen;
pub mod sn;

use napi_derive::napi;

use super::conversation::Method;

/// A format of the table: every name `detectFormat` gives and the functions here take.
#[napi(string_enum = "kebab-case")]
pub enum FormatName {
    /// ACP `session/update` notifications, one per line.
    Acp,
    /// A Claude Code transcript.
    Claude,
    /// Claude Code's `stream-json` output (Qwen Code's and Amp's too).
    ClaudeStream,
    /// Copilot CLI session events: `events.jsonl`, or `copilot -p --output-format json`.
    Copilot,
    /// A Qwen Code chat recording.
    Qwen,
    /// An OpenAI Codex CLI rollout.
    Codex,
    /// `codex exec --json` output.
    CodexExec,
    /// An OpenCode or Kilo session: `opencode export <id>`, or `GET /session/:id/message`.
    Opencode,
    /// OpenCode's `run --format json` output.
    OpencodeRun,
    /// The OpenCode server's `GET /event` SSE (and Kilo's `GET /api/event`).
    OpencodeEvents,
    /// The OpenCode server's `GET /global/event` SSE.
    OpencodeGlobal,
    /// A ChatViewer transcript, JSONL or a JSON array.
    Chatviewer,
    /// pi's agent events (`pi --mode json` / `--mode rpc` output).
    PiEvents,
    /// A Pi / OpenClaw session file (v1–v3).
    Pi,
    /// Solar Network thoughts.
    Sn,
    /// OpenClaw gateway frames, or the shorthand webchat events.
    PiStream,
    /// Solar Network stream events.
    SnStream,
    /// An AG-UI event stream (`@ag-ui/core` 1.0), SSE or NDJSON.
    AgUi,
    /// An AI SDK UI message stream, SSE or NDJSON.
    AiSdk,
    /// Agent events, NDJSON or SSE.
    Events,
}

/// A history format `loadHistory` reads.
#[napi(string_enum = "lowercase")]
pub enum HistoryFormatName {
    /// Agent events, NDJSON or SSE: one assistant message per turn (`turn-start`).
    Events,
    /// ACP `session/update` notifications, one per line.
    Acp,
    /// ChatViewer `ChatMessageData`, one per line or a JSON array.
    Chatviewer,
    /// A Pi / OpenClaw session file.
    Pi,
    /// Solar Network thoughts, a JSON array or one per line.
    Sn,
    /// A Claude Code transcript (JSONL): the conversation to its last line.
    Claude,
    /// Claude Code's `stream-json` output, read as it folds live.
    #[napi(value = "claude-stream")]
    ClaudeStream,
    /// Copilot CLI session events (`events.jsonl`, or the live `--output-format json`).
    Copilot,
    /// A Qwen Code chat recording (`ChatRecord` JSONL): the conversation to its last record.
    Qwen,
    /// An OpenAI Codex CLI rollout, of any generation: the thread as Codex shows it resumed.
    Codex,
    /// An AI SDK UI message stream: one assistant message per `start` chunk.
    #[napi(value = "ai-sdk")]
    AiSdk,
    /// An AG-UI event stream: the messages `@ag-ui/client` ends with.
    #[napi(value = "ag-ui")]
    AgUi,
    /// An OpenCode or Kilo session (`opencode export <id>`, `GET /session/:id/message`), as
    /// OpenCode shows it: one assistant message per model step.
    Opencode,
}

/// The methods of `Conversation` that the formats serving live conversations add.
pub fn conversation_methods() -> Vec<Method> {
    let mut methods = ai_sdk::CONVERSATION_METHODS.to_vec();
    methods.extend(ag_ui::CONVERSATION_METHODS);
    methods
}
