//! Any UTF-8 text through the PHH reader (`PhhHand::parse` and `parse_many`). For every
//! hand read: replaying it through the engine must not panic (errors are fine), and the
//! hand written back with `to_toml` must read again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poker_history::phh::{replay, PhhHand};

fn check(hand: &PhhHand) {
    let _ = replay(hand);
    let text = hand.to_toml();
    if let Err(e) = PhhHand::parse(&text) {
        panic!("to_toml wrote text that does not read back: {e}\n--- hand: {hand:?}\n--- text:\n{text}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(hand) = PhhHand::parse(text) {
        check(&hand);
    }
    if let Ok(hands) = PhhHand::parse_many(text) {
        for (_name, hand) in hands {
            if let Ok(hand) = hand {
                check(&hand);
            }
        }
    }
});
