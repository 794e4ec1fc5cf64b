//! `opencode run --format json` beside the stored session of the same run: what the
//! check compares. The stream carries less than the store by design, so the stored
//! messages are brought to what the stream can carry, each change counted with its reason:
//!
//! - user messages: the stream prints none (the prompt `opencode run` stores is the
//!   command line's words, each holding a space wrapped in quotes);
//! - reasoning: printed only with `--thinking`; a stream without any has none of it;
//! - a compaction's summary: the stream carries no message info, so it cannot tell the
//!   summary message (`summary: true`) and prints its text as any other;
//! - failed calls, where the stream has none of them: older versions (1.1) printed a
//!   `tool_use` line only for a completed call;
//! - messages left with nothing to show once those are set aside.
//!
//! What is left is compared exactly: every other difference is one.

use std::collections::HashSet;

use crate::bytes::value::Json;
use crate::model::{Chunk, MessageRole, SystemChunkKind};
use crate::reading::model_json::FormatMessage;

const USERS: &str = "user messages: run --format json prints none (the prompt is stored as run quoted it)";
const REASONING: &str = "reasoning: run --format json prints it only with --thinking";
const SUMMARIES: &str =
    "compaction summaries: run --format json carries no message info, so it prints a summary as text";
const FAILED: &str =
    "failed calls: older run --format json printed a tool_use line only for a completed call";
const EMPTY: &str = "messages with nothing left to show (only reasoning without --thinking, or failed calls)";

pub fn lockstep(stream: &mut [FormatMessage], history: &mut Vec<FormatMessage>) -> Vec<String> {
    let mut users = 0;
    let mut reasoning = 0;
    let mut empty = 0;
    let mut summaries = 0;
    let mut failed = 0;
    let thinking = stream
        .iter()
        .any(|m| m.chunks.iter().any(|c| matches!(c, Chunk::Thinking { .. })));
    let calls: HashSet<_> = stream
        .iter()
        .flat_map(|m| m.chunks.iter())
        .filter_map(|c| c.calls())
        .flatten()
        .map(|call| call.id.clone())
        .collect();
    let streamed_failures = stream
        .iter()
        .flat_map(|m| m.chunks.iter())
        .filter_map(|c| c.calls())
        .flatten()
        .any(|call| matches!(&call.result, Some((_, Json::Bool(true)))));
    history.retain_mut(|message| {
        if message.role == MessageRole::User {
            users += 1;
            return false;
        }
        if !thinking {
            let before = message.chunks.len();
            message.chunks.retain(|c| !matches!(c, Chunk::Thinking { .. }));
            reasoning += before - message.chunks.len();
        }
        for chunk in message.chunks.iter_mut() {
            match chunk {
                Chunk::System {
                    kind: SystemChunkKind::Compaction,
                    text,
                } => {
                    summaries += 1;
                    *chunk = Chunk::Text { text: text.clone() };
                }
                Chunk::ToolBatch { calls: batch } if !streamed_failures => {
                    let before = batch.len();
                    batch.retain(|call| {
                        calls.contains(&call.id) || !matches!(&call.result, Some((_, Json::Bool(true))))
                    });
                    failed += before - batch.len();
                }
                _ => {}
            }
        }
        message
            .chunks
            .retain(|c| !matches!(c, Chunk::ToolBatch { calls } if calls.is_empty()));
        if message.chunks.is_empty() {
            empty += 1;
            return false;
        }
        true
    });
    [
        (users, USERS),
        (reasoning, REASONING),
        (summaries, SUMMARIES),
        (failed, FAILED),
        (empty, EMPTY),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, why)| format!("{n} × {why}"))
    .collect()
}
