//! Every way into the addon from JavaScript catches panics: a panic unwinding across the
//! N-API boundary aborts Node. And the `Error` a panic becomes never carries the panic's
//! formatted message, which may quote the caller's data. This reads the binding's source
//! (`src/napi`) and checks that each `#[napi]` function and method runs its body in one of
//! the project's wrappers, never relying on napi-rs's `catch_unwind` attribute (which
//! builds the `Error` from the panic's message); that those wrappers catch and hide the
//! message (`panic_message`); and that each raw `extern "C"` callback runs in them.
//! (`__test__/panics.test.mjs` shows a panic at each boundary becoming an `Error` that
//! quotes nothing.)

use std::fs;
use std::path::Path;

struct Item {
    file: String,
    name: String,
    attribute: String,
    body: String,
}

/// The text from the `{` at or after `start` to its matching `}`, skipping string and
/// character literals and comments.
fn block(text: &str, start: usize) -> &str {
    let bytes = text.as_bytes();
    let open = start + text[start..].find('{').expect("a body");
    let mut depth = 0;
    let mut at = open;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                while bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if bytes.get(at + 2) == Some(&b'\'') => at += 2,
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at += text[at..].find('\n').unwrap_or(text.len() - at);
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open..=at];
                }
            }
            _ => {}
        }
        at += 1;
    }
    panic!("unbalanced braces")
}

/// Every Rust file of the binding, named by its path under `src/napi` (`raw/call.rs`).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, base: &Path, files: &mut Vec<(String, String)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((name, fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/napi");
    let mut files = Vec::new();
    walk(&base, &base, &mut files);
    files.sort();
    files
}

/// The name of the function whose `fn` keyword is at `at`.
fn name_at(text: &str, at: usize) -> String {
    text[at + 3..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Functions and methods carrying a `#[napi…]` attribute.
fn napi_functions(files: &[(String, String)]) -> Vec<Item> {
    let mut items = Vec::new();
    for (file, text) in files {
        // Lines with their offsets.
        let mut offset = 0;
        let lines: Vec<(usize, &str)> = text
            .split_inclusive('\n')
            .map(|line| {
                let at = offset;
                offset += line.len();
                (at, line)
            })
            .collect();
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].1.trim_start().starts_with("#[napi") {
                i += 1;
                continue;
            }
            // The attribute, over as many lines as it takes.
            let mut attribute = String::new();
            loop {
                attribute.push_str(lines[i].1);
                i += 1;
                if attribute.trim_end().ends_with(']') {
                    break;
                }
            }
            // What it is on: the next line that is not another attribute or a comment.
            while i < lines.len() {
                let line = lines[i].1.trim();
                if line.is_empty() || line.starts_with("#[") || line.starts_with("//") {
                    i += 1;
                    continue;
                }
                // A struct, an enum, a field, a type or an impl block has no `fn `.
                if let Some(fn_at) = lines[i].1.find("fn ").filter(|_| line.contains('(')) {
                    let at = lines[i].0 + fn_at;
                    items.push(Item {
                        file: file.clone(),
                        name: name_at(text, at),
                        attribute: attribute.clone(),
                        body: block(text, at).to_string(),
                    });
                }
                break;
            }
        }
    }
    items
}

/// The body of the function `name` in `file`.
fn body_of<'a>(files: &'a [(String, String)], file: &str, name: &str) -> &'a str {
    let text = &files.iter().find(|(f, _)| f == file).expect("the file").1;
    let at = text
        .match_indices("fn ")
        .map(|(at, _)| at)
        .find(|&at| name_at(text, at) == name)
        .unwrap_or_else(|| panic!("fn {name} in {file}"));
    block(text, at)
}

/// The wrappers a `#[napi]` body may run in, by the call that names them
/// (`conversation::generated` runs its method in `glue`: the test below holds it to that).
const WRAPPERS: [&str; 5] = [
    "caught(",
    "with_state(",
    "glue(",
    "run_adapter(env,",
    "conversation::generated::<",
];

#[test]
fn every_napi_function_catches_panics() {
    let files = sources();
    assert!(
        body_of(&files, "conversation.rs", "generated").contains("glue("),
        "conversation::generated no longer runs in glue"
    );
    let functions = napi_functions(&files);
    let names: Vec<_> = functions
        .iter()
        .map(|f| format!("{}::{}", f.file, f.name))
        .collect();
    // As many as the binding has today (a check on this reader as much as on the binding).
    assert!(functions.len() >= 27, "found only {names:?}");
    // napi-rs's attribute turns a panic into an `Error` carrying the panic's own message.
    let leaking: Vec<_> = functions
        .iter()
        .filter(|f| f.attribute.contains("catch_unwind"))
        .map(|f| format!("{}::{} ({})", f.file, f.name, f.attribute))
        .collect();
    assert!(
        leaking.is_empty(),
        "#[napi] functions catching with napi-rs's catch_unwind, whose Error quotes the panic: {leaking:#?}"
    );
    let unguarded: Vec<_> = functions
        .iter()
        .filter(|f| {
            let catches = if f.attribute.contains("module_exports") {
                f.body.contains("catch_unwind(")
            } else {
                WRAPPERS.iter().any(|w| f.body.contains(w))
            };
            !catches
        })
        .map(|f| format!("{}::{} ({})", f.file, f.name, f.attribute))
        .collect();
    assert!(
        unguarded.is_empty(),
        "#[napi] functions not running in a catching wrapper: {unguarded:#?}"
    );
}

#[test]
fn the_wrappers_catch_panics() {
    let files = sources();
    // The wrappers that catch build the Error's text with `panic_message` alone.
    for (file, wrapper) in [
        ("raw/call.rs", "run"),
        ("raw/call.rs", "caught"),
        ("history.rs", "guarded"),
        ("history.rs", "read_on_thread"),
    ] {
        let body = body_of(&files, file, wrapper);
        assert!(body.contains("catch_unwind("), "{file}::{wrapper} must catch");
        assert!(
            body.contains("panic_message(&*panic)"),
            "{file}::{wrapper} must show a panic only through panic_message"
        );
    }
    for (file, wrapper, calls) in [
        ("raw/call.rs", "with_state", "run("),
        ("raw/call.rs", "raw_call", "run("),
        ("stream.rs", "method", "run("),
        ("stream.rs", "glue", "with_state("),
        ("views/adapters.rs", "run_adapter", "with_state("),
        ("history.rs", "guarded", "catch_unwind("),
        ("history.rs", "read_on_thread", "catch_unwind("),
    ] {
        assert!(
            body_of(&files, file, wrapper).contains(calls),
            "{file}::{wrapper} must call {calls}"
        );
    }
}

#[test]
fn every_raw_callback_runs_in_a_wrapper() {
    // Finalizers only free what the addon allocated (and set a flag): they cannot panic.
    const FINALIZERS: [&str; 6] = [
        "finalize",
        "release_state",
        "release_load",
        "finalize_wake",
        "free_external",
        "free_wrapped",
    ];
    let files = sources();
    let mut callbacks = Vec::new();
    for (file, text) in &files {
        for (at, _) in text.match_indices("extern \"C\" fn ") {
            let name = name_at(text, at + "extern \"C\" ".len());
            if FINALIZERS.contains(&name.as_str()) {
                continue;
            }
            let body = block(text, at);
            let wrapped = ["raw_call(", "method(", "run(", "guarded("]
                .iter()
                .any(|w| body.contains(w));
            assert!(wrapped, "{file}::{name} runs outside the catching wrappers");
            callbacks.push(name);
        }
    }
    assert!(callbacks.len() >= 8, "found only {callbacks:?}");
}
