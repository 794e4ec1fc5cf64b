//! The `pi` history: the path to a leaf of a session file, each message handed on as
//! soon as it is complete.

use std::io::{Read, SeekFrom};

use crate::formats::pi::session as pi;
use crate::formats::pi::tree;
use crate::reading::check::{FormatError, Skips};
use crate::reading::format::{Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::format_error;
use crate::reading::lines::{self, Lines};
use crate::reading::model_json::FormatMessage;

/// The `pi` history: the path to the current leaf (or `options.leaf`). The path is found
/// first from the entries' leading ids (see [`pi::Planner`]), so that only its lines are
/// parsed and each message is handed on as soon as it is complete.
pub fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let session = pi::SessionOptions {
        leaf: options.leaf.clone(),
        strict: options.strict,
        view: options.view,
    };
    let mut skips = Skips::new(options.strict);
    let emit = |message| emit(Message::Format(message));
    match input {
        Input::Bytes(bytes) => {
            if headless(Lines::new(bytes)) {
                return no_session(Lines::new(bytes), skips);
            }
            let plan = pi::plan(bytes, &session, &mut skips);
            read_pi(Lines::new(bytes), session, plan, skips, emit)
        }
        Input::Reader(reader) => {
            let headless = headless(Lines::new(&mut *reader));
            rewind(reader)?;
            if headless {
                return no_session(Lines::new(&mut *reader), skips);
            }
            let mut planner = pi::Planner::default();
            let mut lines = Lines::new(&mut *reader);
            lines.expect_json();
            let mut first = true;
            loop {
                let line = match lines.next_line() {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    // Not UTF-8: the reading proper says where, or skips it.
                    Err(_) if !first => {
                        planner.give_up();
                        break;
                    }
                    Err(e) => return Err(e),
                };
                // A line that can be no entry is refused now when it is the first (the
                // file is no session), not after the whole file; later, the plan is
                // given up and the reading proper skips it.
                if lines::hopeless(line.text.as_bytes()) {
                    if let Err(e) = pi::parse_str_line(line.text) {
                        if first || options.strict {
                            return Err(format_error(pi::line_error(e, line.number, false)));
                        }
                        planner.give_up();
                        break;
                    }
                }
                first &= line.text.bytes().all(|b| b.is_ascii_whitespace());
                planner.line(line.number, line.text.as_bytes());
            }
            drop(lines);
            let plan = planner.finish(&session, &mut skips);
            rewind(reader)?;
            read_pi(Lines::new(reader), session, plan, skips, emit)
        }
    }
}

fn rewind(reader: &mut dyn crate::reading::format::ReadSeek) -> Result<(), HistoryError> {
    reader
        .seek(SeekFrom::Start(0))
        .map(|_| ())
        .map_err(|e| HistoryError {
            line: None,
            offset: None,
            message: format!("reading failed: {e}"),
        })
}

/// Whether the file's first line that is not blank starts no session
/// ([`tree::headless`]).
fn headless(mut lines: Lines<impl Read>) -> bool {
    // A first line that cannot be JSON is handed on after its first block, not read to
    // its end (`/dev/zero` has none): it says nothing.
    lines.expect_json();
    loop {
        match lines.next_line() {
            Ok(Some(line)) if line.text.trim().is_empty() => continue,
            Ok(Some(line)) => return tree::headless_line(line.text),
            Ok(None) | Err(_) => return false,
        }
    }
}

/// A file that is no session: nothing is read, every line that is not blank is counted
/// as passed over (refused under `strict`).
fn no_session(mut lines: Lines<impl Read>, mut skips: Skips) -> Result<Skips, HistoryError> {
    lines.expect_json();
    while let Some(line) = lines.next_line()? {
        if !line.text.trim().is_empty() {
            skips.skip(line.number, tree::NO_SESSION).map_err(format_error)?;
        }
    }
    Ok(skips)
}

fn read_pi(
    lines: Lines<impl Read>,
    options: pi::SessionOptions,
    plan: crate::formats::pi::tree::Plan,
    planned: Skips,
    mut emit: impl FnMut(FormatMessage) -> bool,
) -> Result<Skips, HistoryError> {
    let mut lines = lines.strict(options.strict);
    let mut reader = pi::SessionReader::new(options);
    let last_planned = plan.on_path.as_ref().and_then(|p| p.iter().rposition(|&on| on));
    if plan.on_path.is_some() {
        reader.follow_plan();
    } else if plan.compaction {
        reader.collect_all();
    }
    let on_path = plan.on_path;
    let wanted = |number: usize| {
        on_path
            .as_ref()
            .is_none_or(|plan| plan.get(number).copied().unwrap_or(false))
    };
    let error = |e: FormatError| HistoryError {
        line: e.line.map(|l| l as u64),
        offset: None,
        message: e.to_string(),
    };
    let mut hidden = Skips::default();
    while let Some((parsed, number)) =
        lines.next_parsed_of(wanted, pi::parse_str_line, |e, number, last| {
            error(pi::line_error(e, number, last))
        })?
    {
        // A value found beside another on a line pi cannot parse: when the path was
        // planned from the line's start, one that is not its first is on the path only
        // on the leaf's line (nothing continues it).
        reader.whole_line = lines.whole_line;
        if last_planned.is_some_and(|last| !lines.starts_line && number != last) {
            hidden.leave_out(
                || format!("line {number} (a second entry on it)"),
                crate::reading::check::OFF_BRANCH,
            );
            continue;
        }
        reader.read_parsed(parsed, number).map_err(error)?;
        if !reader.hand_on(&mut emit) {
            let mut skips = std::mem::take(&mut reader.skips);
            for more in [planned, hidden, lines.skips] {
                skips.merge(more);
            }
            return Ok(skips);
        }
    }
    let mut skips = reader.finish_with(emit).map_err(error)?;
    for more in [planned, hidden, lines.skips] {
        skips.merge(more);
    }
    Ok(skips)
}
