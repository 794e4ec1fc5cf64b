//! The `acp` history: a recorded session, folded as a client shows it live.

use std::io::{Read, SeekFrom};

use crate::bytes::value::{self, Json};
use crate::formats::acp::fold::{foreign_reason, AcpFold, NO_ACP_MESSAGE, UNKNOWN_UPDATE};
use crate::reading::check::Skips;
use crate::reading::format::{Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::{format_error, lines_of, parse_error};
use crate::reading::lines::{self, Lines};
use crate::reading::model_json::FormatMessage;
use crate::reading::sniff::document_records;

/// The `acp` history.
pub fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    // A recorder's export: one JSON document holding the records. Only a file whose
    // first line is `{` alone is read whole to find out.
    if let Input::Bytes(bytes) = &input {
        if let Some(records) = document_records(bytes) {
            return read_acp_records(records, options.strict, emit);
        }
    }
    let input = match input {
        Input::Reader(reader) => {
            let mut head = [0u8; 2];
            let n = reader.read(&mut head).map_err(lines::read_error)?;
            reader.seek(SeekFrom::Start(0)).map_err(lines::read_error)?;
            if head[..n].first() == Some(&b'{') && matches!(head[..n].get(1), Some(b'\n' | b'\r' | b' ')) {
                let bytes = Input::Reader(reader).bytes()?;
                if let Some(records) = document_records(&bytes) {
                    return read_acp_records(records, options.strict, emit);
                }
                return read_acp(
                    Lines::new(&bytes[..]).strict(options.strict),
                    options.strict,
                    |message| emit(Message::Format(message)),
                );
            }
            Input::Reader(reader)
        }
        input => input,
    };
    read_acp(lines_of(input, options.strict), options.strict, |message| {
        emit(Message::Format(message))
    })
}

/// The records of an ACP export, each folded as a line would be (`line` its 1-based
/// place in `messages`).
fn read_acp_records(
    records: Vec<Json>,
    strict: bool,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let mut fold = AcpFold::new();
    let mut skips = Skips::new(strict);
    let mut emit = |message| emit(Message::Format(message));
    for (index, record) in records.iter().enumerate() {
        let (unknown, strangers, foreign) = (fold.unknown, fold.strangers, fold.foreign);
        let at = |e: String| HistoryError {
            line: None,
            offset: None,
            message: format!("messages[{index}]: {e}"),
        };
        fold.push(record, index + 1).map_err(|e| at(e.to_string()))?;
        if fold.foreign > foreign {
            skips
                .skip(index + 1, foreign_reason(&fold.foreign_method))
                .map_err(|e| at(e.to_string()))?;
        }
        if fold.unknown > unknown {
            skips
                .skip(index + 1, UNKNOWN_UPDATE)
                .map_err(|e| at(e.to_string()))?;
        }
        if fold.strangers > strangers {
            skips
                .skip(index + 1, NO_ACP_MESSAGE)
                .map_err(|e| at(e.to_string()))?;
        }
        if !fold.hand_on(&mut emit) {
            return Ok(skips);
        }
    }
    fold.finish(&mut emit);
    Ok(skips)
}

fn read_acp(
    mut lines: Lines<impl Read>,
    strict: bool,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    let mut fold = AcpFold::new();
    let mut skips = Skips::new(strict);
    while let Some((item, number)) = lines.next_parsed(value::parse_str, parse_error)? {
        let (unknown, strangers, foreign) = (fold.unknown, fold.strangers, fold.foreign);
        fold.push(&item, number)
            .map_err(|e| HistoryError::at_line(number, e))?;
        if fold.foreign > foreign {
            skips
                .skip(number, foreign_reason(&fold.foreign_method))
                .map_err(format_error)?;
        }
        if fold.unknown > unknown {
            skips.skip(number, UNKNOWN_UPDATE).map_err(format_error)?;
        }
        if fold.strangers > strangers {
            skips.skip(number, NO_ACP_MESSAGE).map_err(format_error)?;
        }
        if !fold.hand_on(&mut emit) {
            skips.merge(lines.skips);
            return Ok(skips);
        }
    }
    fold.finish(&mut emit);
    skips.merge(lines.skips);
    Ok(skips)
}
