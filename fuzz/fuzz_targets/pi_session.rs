//! Pi session files: reading never panics; what is read, written and read again is
//! stable; gateway events never panic.

#![no_main]

use agent_chunks::bytes::value::{self, Json};
use agent_chunks::formats::pi::session as pi;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(messages) = pi::read_session(data) {
        let written = pi::write_session(&messages);
        let read = pi::read_session(&written).expect("a written session reads back");
        let rewritten = pi::write_session(&read);
        assert_eq!(
            pi::read_session(&rewritten).expect("a written session reads back"),
            read,
            "a written session does not read back to itself"
        );
    }
    // The same text as parsed lines, and each line as a gateway event.
    let lines: Vec<Json> = data
        .split(|&b| b == b'\n')
        .filter_map(|line| value::parse(line).ok())
        .collect();
    // Both ways of reading: forgiving (the default) and strict.
    let _ = pi::read_lines(lines.clone(), pi::SessionOptions::default());
    let strict = pi::SessionOptions {
        strict: true,
        ..Default::default()
    };
    let _ = pi::read_lines(lines.clone(), strict);
    for line in &lines {
        let _ = pi::gateway_events(line);
    }
});
