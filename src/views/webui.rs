//! `adaptACPMessages`: the webview's `ACPMessage[]` as `UnifiedMessage` rows, exactly as
//! the seed's adapter makes them.
//!
//! - `message` → `{ id: msg-${index}, type, timestamp: data.timestamp || now, content: data.content, isFirst, isLast }`
//!   with `type` `user` / `thinking` for those roles and `assistant` for any other;
//! - `in-progress-tool-call` / `completed-tool-call` →
//!   `{ id: tool-${toolCallId}, type: 'tool_call', timestamp: now, toolCall: data, isFirst, isLast }`;
//! - any other `type` → `Error: Unknown message type: ${type}`;
//! - a row is first / last when its neighbour is missing or is a `user` message.

use crate::reading::source::{Expect, Key, Reader, Source, Step};
use crate::views::unified::{
    place_on_timeline, Content, Timestamp, ToolCallSlot, UnifiedId, UnifiedMessage, UnifiedType,
};

/// An `ACPMessage` whose `type` the seed does not know; its message is
/// `Unknown message type: ${type}` (a plain `Error`, as the seed throws).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnknownMessageType<V>(pub V);

/// Every string [`adapt_acp_messages`] compares a value with: the message types, then the
/// roles it names. A reader that knows a string only as one of these (or none) reads it
/// as the rule does.
pub const TAGS: [&[u8]; 5] = [MESSAGE, IN_PROGRESS, COMPLETED, USER, THINKING];
pub const MESSAGE: &[u8] = b"message";
/// The types of tool call entries.
pub const TOOL_CALL_TYPES: [&[u8]; 2] = [IN_PROGRESS, COMPLETED];
const IN_PROGRESS: &[u8] = b"in-progress-tool-call";
const COMPLETED: &[u8] = b"completed-tool-call";
const USER: &[u8] = b"user";
const THINKING: &[u8] = b"thinking";

/// `adaptACPMessages(messages)`.
pub fn adapt_acp_messages<S>(
    source: &S,
    messages: S::Value,
) -> Result<Vec<UnifiedMessage<S::Value>>, S::Error>
where
    S: Source,
    S::Error: From<UnknownMessageType<S::Value>>,
{
    let reader = Reader {
        source,
        root: "messages",
    };
    let (messages, count) = reader.array(messages, &[])?;
    let mut rows = Vec::with_capacity(count);
    let mut user_rows = Vec::with_capacity(count);
    for index in 0..count {
        let at = [Step::Index(index)];
        let item = source.element(messages, index)?;
        reader.check(item, Expect::Object, &at)?;
        let ty = reader.required(item, Key::Type, Expect::String, &at)?;
        let mut buf = [0u8; 32];
        let tool_call = match source.tag(ty, &mut buf)? {
            Some(MESSAGE) => false,
            Some(IN_PROGRESS | COMPLETED) => true,
            _ => return Err(UnknownMessageType(ty).into()),
        };
        let data = reader.required(item, Key::Data, Expect::Object, &at)?;
        let at = [Step::Index(index), Step::Field("data")];
        if tool_call {
            let id = reader.required(data, Key::ToolCallId, Expect::String, &at)?;
            user_rows.push(false);
            rows.push(UnifiedMessage {
                id: UnifiedId::Tool(id),
                kind: UnifiedType::ToolCall,
                timestamp: Timestamp::Now,
                content: None,
                tool_call: Some(ToolCallSlot::Given(data)),
                is_first: false,
                is_last: false,
            });
            continue;
        }
        let role = source.get(data, Key::Role)?;
        let kind = if reader.is_tag(role, USER)? {
            UnifiedType::User
        } else if reader.is_tag(role, THINKING)? {
            UnifiedType::Thinking
        } else {
            UnifiedType::Assistant
        };
        let timestamp = source.get(data, Key::Timestamp)?;
        let timestamp = if source.truthy(timestamp)? {
            Timestamp::Given(timestamp)
        } else {
            Timestamp::Now
        };
        user_rows.push(matches!(kind, UnifiedType::User));
        rows.push(UnifiedMessage {
            id: UnifiedId::Message(index),
            kind,
            timestamp,
            content: Some(Content::Given(source.get(data, Key::Content)?)),
            tool_call: None,
            is_first: false,
            is_last: false,
        });
    }
    place_on_timeline(&mut rows, &user_rows);
    Ok(rows)
}
