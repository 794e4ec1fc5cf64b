//! The formats: one folder each, and [`FORMATS`], the one table of them.
//!
//! A format is a folder that shows the same faces as every other (a row of the table,
//! [`Format`]): its name, how its first values are told from every other format's, and
//! what can be done with it — read as a history, folded live, written from messages. The
//! layers above (history loading, live conversations, the command) reach a format only
//! through its row, and no format folder imports another: what two formats share lives in
//! [`crate::reading`] or [`crate::views`]. `docs/development.md` ("Adding a format") says
//! how to add one.

pub mod acp;
pub mod ag_ui;
pub mod ai_sdk;
pub mod chatviewer;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod events;
pub mod opencode;
pub mod pi;
pub mod qwen;
pub mod sn;

use crate::bytes::value::Json;
use crate::reading::format::{Format, HistoryFormat};
use crate::reading::sniff::{shorten, sniff_values, Sniff, Undetected, FIRST_VALUES, SNIFF_VALUES};

/// Every format, in the order detection tries them (a more particular shape before a
/// more general one).
pub static FORMATS: &[Format] = &[
    acp::ACP,
    claude::CLAUDE,
    claude::CLAUDE_STREAM,
    copilot::COPILOT,
    qwen::QWEN,
    codex::CODEX,
    codex::CODEX_EXEC,
    chatviewer::CHATVIEWER,
    pi::PI_EVENTS,
    pi::PI,
    sn::SN,
    pi::PI_STREAM,
    sn::SN_STREAM,
    ag_ui::AG_UI,
    ai_sdk::AI_SDK,
    events::EVENTS,
];

/// The history formats by name, as callers in Rust write them.
#[allow(non_upper_case_globals)]
impl HistoryFormat {
    pub const Events: HistoryFormat = HistoryFormat(&events::EVENTS);
    pub const Acp: HistoryFormat = HistoryFormat(&acp::ACP);
    pub const ChatViewer: HistoryFormat = HistoryFormat(&chatviewer::CHATVIEWER);
    pub const Pi: HistoryFormat = HistoryFormat(&pi::PI);
    pub const Sn: HistoryFormat = HistoryFormat(&sn::SN);
    pub const Claude: HistoryFormat = HistoryFormat(&claude::CLAUDE);
    pub const ClaudeStream: HistoryFormat = HistoryFormat(&claude::CLAUDE_STREAM);
    pub const Copilot: HistoryFormat = HistoryFormat(&copilot::COPILOT);
    pub const Qwen: HistoryFormat = HistoryFormat(&qwen::QWEN);
    pub const Codex: HistoryFormat = HistoryFormat(&codex::CODEX);
    pub const AgUi: HistoryFormat = HistoryFormat(&ag_ui::AG_UI);
}

/// The format named `name`.
pub fn find(name: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.name == name)
}

/// The format of `bytes`, from its first values: the first value that says which format
/// it is decides (the first row of the table it says so for); values that say nothing
/// (lines of kinds no format knows, protocol traffic, lines that are not JSON) are looked
/// past.
pub fn detect(bytes: &[u8]) -> Result<&'static Format, Undetected> {
    // SSE field names a stream's server writes events under besides `data`, as the
    // streams' folds name them.
    let data_fields: Vec<&[u8]> = FORMATS
        .iter()
        .filter_map(|format| format.stream)
        .flat_map(|(new_fold, _)| new_fold(FORMATS).sse_data_fields().iter().copied())
        .collect();
    let (mut sniffed, mut first_error) = sniff_values(bytes, FIRST_VALUES, &data_fields)?;
    if sniffed.len() == FIRST_VALUES {
        if let Some(format) = decide(&sniffed) {
            return Ok(format);
        }
        (sniffed, first_error) = sniff_values(bytes, SNIFF_VALUES, &data_fields)?;
    }
    if let Some(format) = decide(&sniffed) {
        return Ok(format);
    }
    if let Some(error) = first_error {
        return Err(error);
    }
    Err(match &sniffed {
        Sniff::Array(None) => Undetected {
            message: "an empty JSON array could be Sn thoughts or a ChatViewer transcript; pass --format"
                .into(),
            line: Some(1),
        },
        Sniff::Array(Some(first)) => Undetected {
            message: format!(
                "a JSON array, but its first element is in no format this version reads{}; pass --format",
                closest(std::slice::from_ref(first))
            ),
            line: Some(1),
        },
        Sniff::Values { values, sse, numbers } => {
            let text = values.first().map(|v| shorten(&v.to_json())).unwrap_or_default();
            let what = match (*sse, values.len()) {
                (true, _) => format!("an SSE capture of no stream this version reads ({text})"),
                (false, 1) => format!("cannot tell the format from this line ({text})"),
                (false, n) => format!("cannot tell the format from its first {n} lines (the first: {text})"),
            };
            Undetected {
                message: format!("{what}{}; pass --format", closest(values)),
                line: numbers.first().copied(),
            }
        }
    })
}

/// The format of the first value that tells one.
fn decide(sniffed: &Sniff) -> Option<&'static Format> {
    (0..sniffed.len()).find_map(|at| FORMATS.iter().find(|f| (f.detect)(sniffed, at)))
}

/// The formats `values` came closest to, and why: `; closest: acp (…), events (…)`.
fn closest(values: &[Json]) -> String {
    let mut near: Vec<(&str, &str)> = Vec::new();
    for value in values {
        for format in FORMATS {
            if near.len() < 3 && !near.iter().any(|(name, _)| *name == format.name) {
                if let Some(why) = (format.near)(value) {
                    near.push((format.name, why));
                }
            }
        }
    }
    if near.is_empty() {
        return String::new();
    }
    let named: Vec<String> = near.iter().map(|(name, why)| format!("{name} ({why})")).collect();
    format!("; closest: {}", named.join(", "))
}

#[cfg(test)]
mod table_tests {
    use super::FORMATS;

    #[test]
    fn every_row_has_a_name_of_its_own_and_a_summary() {
        let mut names = std::collections::HashSet::new();
        for format in FORMATS {
            assert!(!format.name.is_empty(), "a row without a name (..Format::NONE's)");
            assert!(!format.summary.is_empty(), "{}: no summary", format.name);
            assert!(names.insert(format.name), "{} twice", format.name);
        }
    }
}
