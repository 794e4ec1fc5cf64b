//! AG-UI (`@ag-ui/core` 1.0): the event protocol between agent backends and the frontends
//! that show them — CopilotKit, assistant-ui's `react-ag-ui`, Microsoft's agent framework,
//! the LangGraph, CrewAI, LlamaIndex, pydantic-ai and Google ADK integrations. A stream is
//! the SSE `@ag-ui/encoder` writes (`data: {…}` frames; CRLF too) or JSON lines of events.
//!
//! Read as `@ag-ui/client` 1.0 ends with it, at a cost per event that does not grow with
//! the conversation, through one mapping of AG-UI messages and the chunk model
//! ([`messages`]: `agUi.toMessages` / `agUi.fromMessages`):
//!
//! - [`events`]: the event types, and the fields read in either spelling;
//! - [`pieces`]: how a message is cut into AG-UI messages;
//! - [`messages`]: AG-UI messages written from messages and read back;
//! - [`lanes`]: the `*_CHUNK` shorthand expanded; [`order`]: the verifier's order, counted;
//! - [`places`]: where each AG-UI id lives; [`fold`]: the live fold; [`snapshot`]:
//!   `MESSAGES_SNAPSHOT` read in the snapshot's order;
//! - [`writer`]: any live conversation written out as AG-UI events.
//!
//! docs/formats/ag-ui.md says what is read, what differs from the client and why.

pub mod events;
pub mod fold;
pub mod lanes;
pub mod messages;
pub mod order;
pub mod pieces;
pub mod places;
pub mod snapshot;
pub mod writer;

use crate::bytes::value::Json;
use crate::reading::format::{Format, History};
use crate::reading::sniff::{tag, Sniff};
use crate::reading::writer::Serve;

/// Whether a value is an AG-UI event: an object whose `type` is one of 1.0's.
fn is_event(value: &Json) -> bool {
    tag(value, "type").is_some_and(|t| events::Type::from_tag(t).is_some())
}

pub const AG_UI: Format = Format {
    name: "ag-ui",
    summary: "an AG-UI event stream (@ag-ui/core 1.0), SSE or NDJSON",
    detect: |sniff: &Sniff, at| !sniff.is_array() && sniff.value(at).is_some_and(is_event),
    history: Some(History::Recorded),
    stream: Some((|_| Box::<fold::AgUiFold>::default(), "message")),
    serve: Some(Serve {
        key: "agUi",
        new: |messages| Box::new(writer::given_writer(messages, messages.len())),
        restore: writer::restore,
    }),
    ..Format::NONE
};
