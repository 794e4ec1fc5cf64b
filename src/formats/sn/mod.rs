//! Solar Network "thinking": thoughts made of parts ([`thought`]), read one at a time as
//! a history, and their SSE stream, folded live (a `thought` event ends the turn as it
//! holds it and names it).

pub mod thought;

use crate::bytes::value::Json;
use crate::reading::check::{FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::format::{Format, History, Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::{read_items, reader_of};
use crate::reading::sniff::{is_object, tag_in, Sniff};

/// The `sn` history: one message per thought, read one at a time.
fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_items(reader_of(input), options.strict, |item, at| {
        let message = thought::read_thought(&item).map_err(|e| at.error(e))?;
        Ok(emit(Message::Format(message)))
    })
}

/// The `sn-stream` stream: a `thought` event (the persisted message) ends the turn as it
/// holds it and names it: the streamed message is replaced where they differ, as Solar
/// Network's guide says a client must do, so what was shown live is what a reload shows.
#[derive(Debug, Default)]
pub struct SnStream;

impl LiveFold for SnStream {
    /// The server writes the topic and the final thought as SSE fields of their own
    /// (`topic: {…}`, `thought: {…}`), not as `data:` frames.
    fn sse_data_fields(&self) -> &'static [&'static [u8]] {
        &[b"topic", b"thought"]
    }

    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let kind = match value.get("type") {
            Some(Json::String(kind)) if thought::is_stream_type(kind) => kind,
            Some(Json::String(kind)) => {
                return skips.skip(line, format_args!("unknown event type \"{kind}\""))
            }
            _ => return skips.skip(line, "an event without a \"type\""),
        };
        if *kind != "thought" {
            for event in thought::stream_events(&value)? {
                out.apply(event);
            }
            return Ok(());
        }
        // The persisted message: what the conversation holds from now on, and what a
        // reload shows. The streamed message becomes it (replaced where they differ: a
        // frame lost in transit, one the reader could not use).
        let thought = match thought::read_thought(value.get("data").unwrap_or(&Json::Undefined)) {
            Ok(thought) => thought,
            // Solar Network's own client passes over a thought it cannot parse: the turn
            // ends as it streamed (counted; refused under strict, naming the field).
            Err(e) if skips.strict => return Err(e.under("data")),
            Err(_) => {
                skips.skip(line, "a thought that cannot be read (the streamed message stays)")?;
                out.end(None);
                return Ok(());
            }
        };
        if out.open_role() == Some(thought.role) {
            out.replace_open(thought.chunks);
        } else {
            out.begin(thought.role, None);
            for chunk in thought.chunks {
                out.push_chunk(chunk);
            }
        }
        out.end(Some(thought.id));
        Ok(())
    }
}

const SN_STREAM_TYPES: &[&[u8]] = &[
    b"text",
    b"function_call_update",
    b"function_call",
    b"function_result",
    b"topic",
    b"thought",
];

pub const SN: Format = Format {
    name: "sn",
    summary: "Solar Network thoughts, a JSON array or one per line",
    detect: |sniff, at| match sniff {
        // A thought names its role; an array of `{info, parts}` (OpenCode's messages) is none.
        Sniff::Array(Some(first)) => {
            is_object(first) && first.get("parts").is_some() && first.get("role").is_some()
        }
        _ => sniff.line(at).is_some_and(|line| {
            line.get("id").and_then(Json::as_str).is_some()
                && matches!(line.get("parts"), Some(Json::Array(_)))
                && line.get("role").is_some()
        }),
    },
    history: Some(History::Read(read_history)),
    ..Format::NONE
};

pub const SN_STREAM: Format = Format {
    name: "sn-stream",
    summary: "Solar Network stream events, an SSE capture or NDJSON",
    detect: |sniff, at| {
        !sniff.is_array()
            && sniff
                .value(at)
                .is_some_and(|v| tag_in(v, SN_STREAM_TYPES) && v.get("data").is_some())
    },
    stream: Some((|_| Box::new(SnStream), "turn")),
    ..Format::NONE
};
