//! `opencode run --format json` beside the stored session of the same run: what the
//! check compares. The stream carries less than the store by design, so the stored
//! messages are brought to what the stream can carry, each change counted with its reason:
//!
//! - user messages: the stream prints none (the prompt `opencode run` stores is the
//!   command line's words, each holding a space wrapped in quotes);
//! - reasoning: printed only with `--thinking`; a stream without any has none of it;
//! - messages left with nothing to show once those are set aside.
//!
//! What is left is compared exactly: every other difference is one.

use crate::model::{Chunk, MessageRole};
use crate::reading::model_json::FormatMessage;

const USERS: &str = "user messages: run --format json prints none (the prompt is stored as run quoted it)";
const REASONING: &str = "reasoning: run --format json prints it only with --thinking";
const EMPTY: &str = "messages with nothing left to show (only reasoning, without --thinking)";

pub fn lockstep(stream: &mut [FormatMessage], history: &mut Vec<FormatMessage>) -> Vec<String> {
    let mut users = 0;
    let mut reasoning = 0;
    let mut empty = 0;
    let thinking = stream
        .iter()
        .any(|m| m.chunks.iter().any(|c| matches!(c, Chunk::Thinking { .. })));
    history.retain_mut(|message| {
        if message.role == MessageRole::User {
            users += 1;
            return false;
        }
        if !thinking {
            let before = message.chunks.len();
            message.chunks.retain(|c| !matches!(c, Chunk::Thinking { .. }));
            reasoning += before - message.chunks.len();
            if message.chunks.is_empty() {
                empty += 1;
                return false;
            }
        }
        true
    });
    [(users, USERS), (reasoning, REASONING), (empty, EMPTY)]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} × {why}"))
        .collect()
}
