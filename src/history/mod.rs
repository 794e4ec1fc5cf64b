//! History loading: a persisted conversation in any format of the table, read from its
//! bytes into [`ChatMessage`](crate::ChatMessage)s, each handed on as soon as it is
//! complete.
//!
//! A format's row says how its histories are read ([`History`]): by its own reader, or,
//! for a recorded stream, through the stream's live fold ([`crate::live::history`]), so
//! that a recording and the live view of the same stream agree by construction. Every
//! reader folds events through [`append_event`](crate::append_event), the rules every
//! stream goes through. [`batch`] writes the messages as JSON in bounded slices.

pub mod batch;

use std::io::{Read, Seek};

use crate::formats::FORMATS;
use crate::reading::check::Skips;
use crate::reading::format::{Format, History, Input, ReadOptions};

pub use crate::reading::format::HistoryFormat;
pub use crate::reading::history::{HistoryError, Message};

impl HistoryFormat {
    /// The formats that read histories, in the table's order.
    pub fn all() -> impl Iterator<Item = HistoryFormat> {
        FORMATS.iter().filter(|f| f.history.is_some()).map(HistoryFormat)
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().find(|f| f.name() == name)
    }
}

/// Why `options` cannot be read in `format`: a leaf given for a format without leaves.
pub fn leaf_refused(format: &Format, options: &ReadOptions) -> Option<String> {
    let leaf = options.leaf.as_ref().filter(|_| !format.leaves)?;
    let with_leaves: Vec<&str> = FORMATS.iter().filter(|f| f.leaves).map(|f| f.name).collect();
    Some(format!(
        "a leaf ({leaf:?}) chooses a branch of a {} session only; {} is read without one",
        with_leaves.join(" or "),
        format.name
    ))
}

/// Reads `bytes` as a history in `format`, handing each message to `emit` in order, as
/// soon as it is complete. `emit` returns `false` to stop.
pub fn read(
    bytes: &[u8],
    format: HistoryFormat,
    mut emit: impl FnMut(Message) -> bool,
) -> Result<(), HistoryError> {
    read_with(Input::Bytes(bytes), format, &ReadOptions::default(), &mut emit).map(drop)
}

/// [`read`] from a reader (a file): line formats a block at a time, so the whole input is
/// never in memory at once; the others read whole first.
pub fn read_from(
    mut reader: impl Read + Seek,
    format: HistoryFormat,
    mut emit: impl FnMut(Message) -> bool,
) -> Result<(), HistoryError> {
    read_with(
        Input::Reader(&mut reader),
        format,
        &ReadOptions::default(),
        &mut emit,
    )
    .map(drop)
}

/// Reads `input` as a history in `format` with `options`; returns the lines skipped.
pub fn read_with(
    input: Input<'_>,
    format: HistoryFormat,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    if let Some(message) = leaf_refused(format.0, options) {
        return Err(HistoryError {
            line: None,
            offset: None,
            message,
        });
    }
    match format.0.history {
        Some(History::Read(read)) => read(input, options, emit),
        Some(History::Recorded) => crate::live::history::read_recorded(format.0, input, options, emit),
        None => Err(HistoryError {
            line: None,
            offset: None,
            message: format!("{} is a stream, not a history", format.name()),
        }),
    }
}
