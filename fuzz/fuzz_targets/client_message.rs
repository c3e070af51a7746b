//! Any UTF-8 frame through `parse_client`: it must never panic, and an accepted message
//! must survive serialize-then-parse unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poker_protocol::{parse_client, ClientMsg};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(msg) = parse_client(text) {
        let json = serde_json::to_string(&msg).expect("a ClientMsg serializes");
        let again: ClientMsg = parse_client(&json)
            .unwrap_or_else(|e| panic!("re-parsing {json:?} failed: {e:?}"));
        assert_eq!(again, msg, "round trip through {json:?} changed the message");
    }
});
