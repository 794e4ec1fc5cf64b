//! The formats' JSON reader: never panics, accepts what serde_json accepts, and what it
//! writes reads back to the same value.

#![no_main]

#[path = "common.rs"]
mod common;

use agent_chunks::bytes::value::{self, ParseErrorKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = value::parse(data);
    if let Ok(json) = &parsed {
        let text = json.to_json();
        let again = value::parse(&text).expect("the writer's output parses");
        assert_eq!(&again, json, "write then parse changed the value");
        assert_eq!(again.to_json(), text, "writing is not stable");
    }
    match (&parsed, serde_json::from_slice::<serde_json::Value>(data)) {
        (Err(e), Ok(_)) => assert_eq!(
            e.kind,
            ParseErrorKind::TooDeep,
            "refused what serde_json accepts: {e} in {:?}",
            String::from_utf8_lossy(data)
        ),
        // The reader takes WTF-8 from JavaScript strings and does not check UTF-8 itself.
        (Ok(_), Err(e)) if std::str::from_utf8(data).is_ok() => assert!(
            common::serde_only_limit(&e),
            "accepted what serde_json refuses ({e}): {:?}",
            String::from_utf8_lossy(data)
        ),
        _ => {}
    }
});
