//! A command's argument vector as one line, the way Codex shows a command it ran: each word
//! quoted only where a POSIX shell needs it, words joined by one space.
//!
//! Codex stores the commands it runs as argument vectors (`["/bin/bash", "-lc", "ls -1"]`)
//! and shows them, in its own view of a resumed thread and in `codex exec --json`, as one
//! string (`/bin/bash -lc 'ls -1'`). A stored command is shown here as Codex shows it, so
//! that the live stream of a run and its rollout give the same call.
//!
//! The rules: a word made only of letters, digits and `+ - . / : @ ] _` stays as it is; an
//! empty word is `''`; any other word is cut into the longest runs one kind of quoting can
//! hold — single quotes for anything but `'`, `\` and `^` (a `^` may only open a word, right
//! after its quote), double quotes (with `"` and `\` escaped) for a `'` and anything else
//! but `` ` ``, `$`, `!` and `^` — each run taking the first kind that holds it, in that
//! order (bare, single, double). Bytes past ASCII are never bare. A word holding a NUL
//! cannot be quoted: the words are then joined by spaces as they are.

use crate::bytes::wtf8::Wtf8;

/// Letters, digits and the punctuation no POSIX shell reads specially in a word.
fn bare(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.' | b'/' | b':' | b'@' | b']' | b'_')
}

fn single(c: u8) -> bool {
    !matches!(c, b'\'' | b'^' | b'\\')
}

fn double(c: u8) -> bool {
    !matches!(c, b'`' | b'$' | b'!' | b'^')
}

const BARE: u8 = 1;
const SINGLE: u8 = 2;
const DOUBLE: u8 = 4;

/// The longest run at the start of `word` one kind of quoting holds, and that kind.
fn run(word: &[u8]) -> (usize, u8) {
    let (mut ok, mut i) = (BARE | SINGLE | DOUBLE, 0);
    if word[0] == b'^' {
        ok = SINGLE;
        i = 1;
    }
    while i < word.len() {
        let c = word[i];
        let mut next = ok;
        if c >= 0x80 {
            next &= !BARE;
        } else {
            if !bare(c) {
                next &= !BARE;
            }
            if !single(c) {
                next &= !SINGLE;
            }
            if !double(c) {
                next &= !DOUBLE;
            }
        }
        if next == 0 {
            break;
        }
        ok = next;
        i += 1;
    }
    let kind = [BARE, SINGLE, DOUBLE]
        .into_iter()
        .find(|k| ok & k != 0)
        .unwrap_or(SINGLE);
    (i.max(1), kind)
}

fn quote(mut word: &[u8], out: &mut Vec<u8>) {
    if word.is_empty() {
        out.extend_from_slice(b"''");
        return;
    }
    while !word.is_empty() {
        let (len, kind) = run(word);
        let (chunk, rest) = word.split_at(len);
        match kind {
            BARE => out.extend_from_slice(chunk),
            SINGLE => {
                out.push(b'\'');
                out.extend_from_slice(chunk);
                out.push(b'\'');
            }
            _ => {
                out.push(b'"');
                for &c in chunk {
                    if matches!(c, b'"' | b'\\' | b'$' | b'`') {
                        out.push(b'\\');
                    }
                    out.push(c);
                }
                out.push(b'"');
            }
        }
        word = rest;
    }
}

/// `words` as Codex shows a command: quoted where needed, joined by spaces.
pub fn join(words: &[&Wtf8]) -> Wtf8 {
    let mut out = Vec::new();
    let plain = words.iter().any(|w| w.as_bytes().contains(&0));
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if plain {
            out.extend_from_slice(word.as_bytes());
        } else {
            quote(word.as_bytes(), &mut out);
        }
    }
    // Quotes and spaces are ASCII, put only between whole characters.
    Wtf8::from_wtf8_unchecked(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(words: &[&str]) -> String {
        let words: Vec<Wtf8> = words.iter().map(|w| Wtf8::from(*w)).collect();
        let refs: Vec<&Wtf8> = words.iter().collect();
        join(&refs).to_string_lossy().into_owned()
    }

    #[test]
    fn words_are_quoted_only_where_a_shell_needs_it() {
        assert_eq!(
            joined(&["/bin/bash", "-lc", "echo lab-tool-output; ls -1"]),
            "/bin/bash -lc 'echo lab-tool-output; ls -1'"
        );
        assert_eq!(joined(&["ls", "-la", "src/"]), "ls -la src/");
        assert_eq!(joined(&["echo", ""]), "echo ''");
        assert_eq!(joined(&["echo", "it's"]), "echo \"it's\"");
        assert_eq!(joined(&["echo", "$HOME 'x'"]), "echo '$HOME '\"'x'\"");
        assert_eq!(joined(&["printf", "a\\b"]), "printf \"a\\\\b\"");
        assert_eq!(joined(&["echo", "^x"]), "echo '^x'");
        assert_eq!(joined(&["echo", "é"]), "echo 'é'");
    }

    #[test]
    fn a_word_with_a_nul_leaves_the_words_as_they_are() {
        assert_eq!(joined(&["echo", "a\0b", "c d"]), "echo a\0b c d");
    }
}
