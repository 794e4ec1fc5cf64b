//! `adaptJSONLMessages`: a ChatViewer JSONL transcript (`ChatMessageData[]`) as
//! `UnifiedMessage` rows, exactly as the seed's adapter makes them.
//!
//! - the messages are sorted by `new Date(timestamp).getTime()`, as
//!   `Array.prototype.sort` orders them with a subtracting comparator (see [`timsort`]:
//!   with invalid dates the comparator is inconsistent and V8's exact steps matter);
//! - `id` is the `uuid`; `type` is `tool_call` for tool calls, `thinking` when
//!   `message.role` is `thinking`, else the message's own `type`;
//! - `content` is the Qwen `message.parts` texts joined when there are parts, else the
//!   Claude `message.content` when truthy (as it is), else `''`;
//! - `toolCall` is the message's own, by reference (the key is there even when it is
//!   `undefined`);
//! - after sorting, a row is first / last when its neighbour is missing or of type `user`;
//! - lines whose `type` names no row type (bookkeeping lines of Claude Code transcripts,
//!   Qwen `tool_result` and other records) are not rows: left out before anything else.
//!
//! [`timsort`]: crate::reading::timsort

use crate::reading::source::{Expect, Key, Reader, Source, Step, ValueType};
use crate::reading::timsort;
use crate::views::unified::{
    place_on_timeline, Content, Timestamp, ToolCallSlot, UnifiedId, UnifiedMessage, UnifiedType,
};

/// A transcript line read as a history that is no row the ChatViewer can show (a field
/// missing or of another type): skipped and counted, as the ChatViewer passes it over.
pub const NOT_A_ROW: &str = "a line the ChatViewer cannot show";

/// One transcript line, read and checked.
#[derive(Clone)]
struct Line<V> {
    time: f64,
    is_user: bool,
    row: UnifiedMessage<V>,
}

/// `adaptJSONLMessages(messages)`.
pub fn adapt_jsonl_messages<S: Source>(
    source: &S,
    messages: S::Value,
) -> Result<Vec<UnifiedMessage<S::Value>>, S::Error> {
    let reader = Reader {
        source,
        root: "messages",
    };
    let (messages, count) = reader.array(messages, &[])?;
    let mut lines = Vec::with_capacity(count);
    for index in 0..count {
        let item = source.element(messages, index)?;
        if !is_row(source, item)? {
            continue;
        }
        lines.push(read_line(&reader, item, index)?);
    }
    // `a - b` is below zero only for two valid dates in order; `NaN` never is.
    timsort::sort_by(&mut lines, |a, b| a.time - b.time < 0.0);
    let breaks: Vec<bool> = lines.iter().map(|line| line.is_user).collect();
    let mut rows: Vec<_> = lines.into_iter().map(|line| line.row).collect();
    place_on_timeline(&mut rows, &breaks);
    Ok(rows)
}

/// The types a row may have (`UnifiedMessage['type']`). They are also every string the
/// rule compares a value with, so a reader that knows a string only as one of these (or
/// none) reads it as the rule does.
pub const ROW_TYPES: [&[u8]; 6] = [USER, b"assistant", TOOL_CALL, THINKING, b"system", b"error"];
pub const USER: &[u8] = b"user";
const TOOL_CALL: &[u8] = b"tool_call";
const THINKING: &[u8] = b"thinking";

/// Whether a line is a timeline row: a line whose `type` is a string naming no row type (a
/// Claude Code `summary` or `file-history-snapshot`, a Qwen `tool_result` record) is not
/// one, and is left out before it is checked. Anything else is read (and checked) as the
/// seed reads it.
fn is_row<S: Source>(source: &S, item: S::Value) -> Result<bool, S::Error> {
    if source.value_type(item)? != ValueType::Object {
        return Ok(true);
    }
    let ty = source.get(item, Key::Type)?;
    if source.value_type(ty)? != ValueType::String {
        return Ok(true);
    }
    let mut buf = [0u8; 32];
    Ok(match source.tag(ty, &mut buf)? {
        Some(tag) => ROW_TYPES.contains(&tag),
        None => true,
    })
}

fn read_line<S: Source>(
    reader: &Reader<'_, S>,
    item: S::Value,
    index: usize,
) -> Result<Line<S::Value>, S::Error> {
    let source = reader.source;
    let at = [Step::Index(index)];
    reader.check(item, Expect::Object, &at)?;
    let uuid = reader.required(item, Key::Uuid, Expect::String, &at)?;
    let timestamp = reader.required(item, Key::Timestamp, Expect::StringOrNumber, &at)?;
    let ty = reader.required(item, Key::Type, Expect::String, &at)?;
    let message = reader.field(item, Key::Message, Expect::OptionalObject, &at)?;
    let content = match message {
        Some(message) => extract_content(reader, message, index)?,
        None => Content::Empty,
    };
    let is_user = reader.is_tag(ty, USER)?;
    let content = match is_user {
        true => user_display(reader, item, message, content)?,
        false => content,
    };
    let thinking = match message {
        Some(message) => reader.is_tag(source.get(message, Key::Role)?, THINKING)?,
        None => false,
    };
    let kind = if reader.is_tag(ty, TOOL_CALL)? {
        UnifiedType::ToolCall
    } else if thinking {
        UnifiedType::Thinking
    } else {
        UnifiedType::Given(ty)
    };
    let time = source.time(timestamp)?;
    Ok(Line {
        time,
        is_user,
        row: UnifiedMessage {
            id: UnifiedId::Given(uuid),
            kind,
            timestamp: Timestamp::Millis(time),
            content: Some(content),
            tool_call: Some(ToolCallSlot::Given(source.get(item, Key::ToolCall)?)),
            is_first: false,
            is_last: false,
        },
    })
}

/// What Qwen's webui shows of a user row where it differs from the seed's content
/// (`getUserTranscriptDisplayText` of its current `userTranscriptDisplay.ts`):
/// `systemPayload.displayText` when the payload proves where it came from — the
/// `hookContext` it replaced, or a final part that is a user-prompt-submit context block
/// (the tag lines around a body without tags); without a payload object (none, `null`, or
/// a value that is no object), the parts' texts with such a final part left out.
fn user_display<S: Source>(
    reader: &Reader<'_, S>,
    item: S::Value,
    message: Option<S::Value>,
    content: Content<S::Value>,
) -> Result<Content<S::Value>, S::Error> {
    let source = reader.source;
    let mut final_context = false;
    if let Some(message) = message {
        let parts = source.get(message, Key::Parts)?;
        let count = source.array_len(parts)?.unwrap_or(0);
        if count > 1 {
            let last = source.element(parts, count - 1)?;
            let text = source.get(last, Key::Text)?;
            final_context = source.value_type(text)? == ValueType::String
                && crate::reading::hook_context::is_context_text(&String::from_utf16_lossy(
                    &source.units(text)?,
                ));
        }
    }
    let payload = source.get(item, Key::SystemPayload)?;
    let is_record = source.value_type(payload)? == ValueType::Object;
    if is_record {
        let hook = source.get(payload, Key::HookContext)?;
        let display = source.get(payload, Key::DisplayText)?;
        if source.value_type(display)? == ValueType::String
            && (source.value_type(hook)? == ValueType::String || final_context)
        {
            return Ok(Content::Given(display));
        }
    }
    let Content::Joined(mut pieces) = content else {
        return Ok(content);
    };
    if !is_record && final_context {
        // The last piece is that part's text (every part here had a string text).
        pieces.pop();
    }
    Ok(Content::Joined(pieces))
}

/// Qwen `parts` (when there are any) joined, else Claude `content` when truthy, else `''`.
/// A part's `text` joins as `Array.prototype.join` does: `undefined` and `null` as `''`.
fn extract_content<S: Source>(
    reader: &Reader<'_, S>,
    message: S::Value,
    index: usize,
) -> Result<Content<S::Value>, S::Error> {
    let source = reader.source;
    let at = [Step::Index(index), Step::Field("message")];
    let parts = source.get(message, Key::Parts)?;
    let parts = match source.value_type(parts)? {
        ValueType::Undefined | ValueType::Null => None,
        _ => Some(reader.array(parts, &[at[0], at[1], Step::Field("parts")])?),
    };
    if let Some((parts, len)) = parts.filter(|&(_, len)| len > 0) {
        let mut pieces = Vec::with_capacity(len);
        for i in 0..len {
            let steps = [at[0], at[1], Step::Field("parts"), Step::Index(i)];
            let part = source.element(parts, i)?;
            reader.check(part, Expect::Object, &steps)?;
            if let Some(text) = reader.field(part, Key::Text, Expect::OptionalString, &steps)? {
                pieces.push(text);
            }
        }
        return Ok(Content::Joined(pieces));
    }
    let content = source.get(message, Key::Content)?;
    Ok(if source.truthy(content)? {
        Content::Given(content)
    } else {
        Content::Empty
    })
}
