//! Sessions whose lines form a tree by `uuid` / `parentUuid` (transcripts that chain
//! each line to the one before it): the chain from a leaf back to its root, the chain's root for
//! every line, and what a reading left out and why.
//!
//! A compaction starts a new root (its `parentUuid` is `null`) that names the line it
//! follows as its `logicalParentUuid`: the conversation as the tool shows it after a
//! reload starts there, the whole transcript goes on through it.
//!
//! Lines are read in file order: a line is written after its parent, so the lines of a
//! chain are in file order too.

use crate::reading::format::{Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};
use crate::reading::items::{format_error, json_lines};
use std::collections::HashMap;

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{Skips, BEFORE_BREAK, COMPACTED, OFF_BRANCH, SIDECHAIN, UNREACHABLE};
use crate::reading::format::View;
use crate::reading::model_json::FormatMessage;
use crate::reading::stored::StoredMessages;

/// Whether a line belongs to a sub-agent's run, in the main session's file.
pub fn is_sidechain(line: &Json) -> bool {
    matches!(line.get("isSidechain"), Some(Json::Bool(true)))
}

/// The lines of a session, linked.
pub struct Tree<'a> {
    lines: &'a [Json],
    by_uuid: HashMap<&'a Wtf8, usize>,
    /// Per line: its parent's index, when the parent is in the file.
    parent: Vec<Option<usize>>,
    /// Per line: the line a compaction follows (`logicalParentUuid`, for a root).
    logical: Vec<Option<usize>>,
}

impl<'a> Tree<'a> {
    /// Links every line with a `uuid`; `is_node` says which lines are in the tree. A file
    /// in which no line names a parent (every `parentUuid` null or absent: written by an
    /// older version or another tool) is a chain in file order. Otherwise a line without
    /// a `parentUuid` at all (the tools write it on every line of the tree, `null` on a
    /// root; other tools' exports leave it out) continues the line written before it, and
    /// a root other than the first (a compaction, `/clear`) continues, through
    /// compactions, the line its `logicalParentUuid` names, or without one the line
    /// written before it.
    pub fn new(lines: &'a [Json], is_node: impl Fn(&Json) -> bool) -> Self {
        let mut by_uuid: HashMap<&Wtf8, usize> = HashMap::new();
        let mut before = vec![None; lines.len()];
        let mut last = None;
        for (i, line) in lines.iter().enumerate() {
            if let Some(uuid) = str_of(line, "uuid").filter(|_| is_node(line)) {
                by_uuid.insert(uuid, i);
                before[i] = last;
                if !is_sidechain(line) {
                    last = Some(i);
                }
            }
        }
        let linked = lines
            .iter()
            .any(|line| matches!(line.get("parentUuid"), Some(Json::String(_))));
        let find = |key: Option<&Wtf8>| key.and_then(|k| by_uuid.get(k).copied());
        let parent = lines
            .iter()
            .enumerate()
            .map(|(i, line)| match (linked, line.get("parentUuid")) {
                (true, Some(parent)) => find(parent.as_str()),
                _ => before[i],
            })
            .collect();
        let logical = lines
            .iter()
            .enumerate()
            .map(|(i, line)| match line.get("parentUuid") {
                Some(Json::String(_)) => None,
                _ if is_sidechain(line) => None,
                _ => find(str_of(line, "logicalParentUuid")).or(before[i]),
            })
            .collect();
        Tree {
            lines,
            by_uuid,
            parent,
            logical,
        }
    }

    /// Whether line `i` is a compaction (a `compact_boundary`): a root that
    /// names the line it follows (`logicalParentUuid`), or the summary a compaction left
    /// (`isCompactSummary`, which older versions write as the new root).
    pub fn is_compaction(&self, i: usize) -> bool {
        let line = &self.lines[i];
        str_of(line, "subtype").is_some_and(|s| *s == "compact_boundary")
            || str_of(line, "logicalParentUuid").is_some()
            || matches!(line.get("isCompactSummary"), Some(Json::Bool(true)))
    }

    /// The line with this uuid.
    pub fn find(&self, uuid: &Wtf8) -> Option<usize> {
        self.by_uuid.get(uuid).copied()
    }

    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent[i]
    }

    /// The chain from the root to `leaf`, in order; `through_compaction`: on past a
    /// compaction to the line it follows. A cycle of parents ends the walk (each line
    /// once).
    pub fn chain(&self, leaf: usize, through_compaction: bool) -> Vec<usize> {
        let mut order = Vec::new();
        let mut seen = vec![false; self.lines.len()];
        let mut next = Some(leaf);
        while let Some(i) = next {
            if std::mem::replace(&mut seen[i], true) {
                break;
            }
            order.push(i);
            next = self.parent[i].or(if through_compaction { self.logical[i] } else { None });
        }
        order.reverse();
        order
    }

    /// Per line, the first line of its chain through compactions: lines with the same
    /// one are on one tree (a branch of it or another).
    pub fn roots(&self) -> Vec<usize> {
        const UNKNOWN: usize = usize::MAX;
        let n = self.lines.len();
        let mut root = vec![UNKNOWN; n];
        let mut on_path = vec![false; n];
        let mut path = Vec::new();
        for start in 0..n {
            let mut at = start;
            let found = loop {
                if root[at] != UNKNOWN {
                    break root[at];
                }
                path.push(at);
                on_path[at] = true;
                match self.parent[at].or(self.logical[at]) {
                    Some(up) if !on_path[up] => at = up,
                    // A cycle: the line it was entered by is its root.
                    _ => break at,
                }
            };
            for i in path.drain(..) {
                on_path[i] = false;
                root[i] = found;
            }
        }
        root
    }
}

/// Says in `skips` which conversation lines a reading of `view` left out, and why:
/// `shown` the lines read, `full` those of the whole chain to the leaf (through
/// compactions), `leaf` the chain's last line. `what(i)` names line `i`.
pub struct LeftOutLines<'t, 'a> {
    pub tree: &'t Tree<'a>,
    pub shown: &'t [bool],
    pub full: &'t [bool],
    pub leaf: Option<usize>,
}

impl LeftOutLines<'_, '_> {
    pub fn report(
        &self,
        view: View,
        is_conversation: impl Fn(&Json) -> bool,
        what: impl Fn(usize) -> String,
        skips: &mut Skips,
    ) {
        if view == View::All {
            return;
        }
        let roots = self.tree.roots();
        let leaf_root = self.leaf.map(|leaf| roots[leaf]);
        // Where the view starts when it does not go through roots: after a compaction,
        // or after a break in the chain that is none.
        let before = match self
            .leaf
            .and_then(|leaf| self.tree.chain(leaf, false).first().copied())
        {
            Some(start) if !self.tree.is_compaction(start) => BEFORE_BREAK,
            _ => COMPACTED,
        };
        for (i, line) in self.tree.lines.iter().enumerate() {
            if self.shown[i] || !is_conversation(line) {
                continue;
            }
            let reason = if self.full[i] {
                before
            } else if is_sidechain(line) && !self.leaf.is_some_and(|l| is_sidechain(&self.tree.lines[l])) {
                SIDECHAIN
            } else if Some(roots[i]) == leaf_root {
                OFF_BRANCH
            } else {
                UNREACHABLE
            };
            skips.leave_out(|| what(i), reason);
        }
    }
}

/// A fold of one tool's transcript lines.
pub trait LineFold {
    /// Folds line `number` in.
    fn read_line(&mut self, line: &Json, number: usize);
    /// The messages folded so far, and what was skipped.
    fn parts(&mut self) -> (&mut StoredMessages, &mut Skips);
}

/// Folds the lines `order` names, in that order (`numbers[i]` the line number of
/// `lines[i]`), handing each message on as soon as it is complete; what was skipped is
/// the result.
pub fn fold_in_order(
    lines: &[Json],
    numbers: &[usize],
    order: Vec<usize>,
    fold: &mut impl LineFold,
    emit: &mut impl FnMut(FormatMessage) -> bool,
) -> Skips {
    for i in order {
        fold.read_line(&lines[i], numbers.get(i).copied().unwrap_or(i + 1));
        let (stored, skips) = fold.parts();
        if !stored.hand_on(emit) {
            return std::mem::take(skips);
        }
    }
    let (stored, skips) = fold.parts();
    let skips = std::mem::take(skips);
    std::mem::take(stored).finish(emit);
    skips
}

/// Reads parsed lines (`numbers[i]` the line of `lines[i]`) in a view.
pub type ReadLines = fn(&[Json], &[usize], View, &mut dyn FnMut(FormatMessage) -> bool) -> Skips;

/// A format whose lines form a tree: which lines it knows, which of those show nothing
/// (and as what they are counted), and how it reads the conversation.
pub struct LineTree {
    pub known: fn(&Json) -> bool,
    /// Whether a line is of a type the chain is made of: it names its place by `uuid`.
    pub chained: fn(&Json) -> bool,
    pub quiet: fn(&Json) -> Option<&Wtf8>,
    /// What a line is called in the note for one this version does not know.
    pub unknown: &'static str,
    pub read: ReadLines,
}

/// A transcript whose lines form a tree (its conversation is known only once every line
/// is read): lines the format does not know are skipped and counted (refused when
/// strict), lines it knows and that show nothing are counted by kind, then the
/// conversation is read. A line of a type the chain is made of but without a `uuid`
/// belongs to no chain and no view can show it: it is skipped and counted as such, never
/// dropped without a word.
pub fn read_line_tree(
    input: Input<'_>,
    options: &ReadOptions,
    tree: LineTree,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let (lines, numbers, mut skips) = json_lines(input, options.strict)?;
    for (line, &number) in lines.iter().zip(&numbers) {
        if let Some(kind) = (tree.quiet)(line) {
            skips.pass(&kind.to_string_lossy());
        } else if (tree.chained)(line) && line.get("uuid").and_then(Json::as_str).is_none() {
            skips
                .skip(number, format!("a {} without a \"uuid\"", tree.unknown))
                .map_err(format_error)?;
        } else if !(tree.known)(line) {
            let subtype = line.get("subtype").and_then(Json::as_str);
            let what = match (line.get("type").and_then(Json::as_str), subtype) {
                (Some(ty), Some(sub)) => format!("unknown {} type \"{ty}\" subtype \"{sub}\"", tree.unknown),
                (Some(ty), None) => format!("unknown {} type \"{ty}\"", tree.unknown),
                (None, _) => format!("a {} without a \"type\"", tree.unknown),
            };
            skips.skip(number, what).map_err(format_error)?;
        }
    }
    let read = (tree.read)(&lines, &numbers, options.view, &mut |message| {
        emit(Message::Format(message))
    });
    skips.merge(read);
    Ok(skips)
}
