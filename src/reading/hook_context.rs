//! The context a prompt-submit hook adds to a user's prompt, in the tags its writer puts
//! around it: not the user's words, so views leave it out.

/// The tag around the context a UserPromptSubmit hook adds to a prompt.
pub const CONTEXT_OPEN: &str = "<qwen:user-prompt-submit-context>";
pub const CONTEXT_CLOSE: &str = "</qwen:user-prompt-submit-context>";

/// Whether a text, trimmed, is exactly a user-prompt-submit context block.
pub fn is_context_text(text: &str) -> bool {
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let (Some(rest), true) = (
        text.strip_prefix(CONTEXT_OPEN).and_then(|r| r.strip_prefix('\n')),
        text.ends_with(&format!("\n{CONTEXT_CLOSE}")),
    ) else {
        return false;
    };
    let Some(body) = rest
        .strip_suffix(CONTEXT_CLOSE)
        .and_then(|b| b.strip_suffix('\n'))
    else {
        return false;
    };
    !body.contains(CONTEXT_OPEN) && !body.contains(CONTEXT_CLOSE)
}
