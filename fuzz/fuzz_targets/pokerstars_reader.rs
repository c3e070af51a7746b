//! Any bytes through the PokerStars reader, as `pokerd import` takes a file: decoded
//! (UTF-8, else Windows-1252), split into hands, each read and replayed through the
//! engine. Nothing may panic (a hand that cannot be read is a typed error). For every hand
//! read, the writer must write it back, and what it writes must read again and be written
//! the same way a second time: the writer's text is a fixed point of the round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poker_history::pokerstars::import::{decode, write_back};
use poker_history::pokerstars::read::{read_hand, split};

fuzz_target!(|data: &[u8]| {
    let text = decode(data);
    for hand_text in split(&text) {
        let Ok(hand) = read_hand(&hand_text) else {
            continue;
        };
        let written = write_back(&hand)
            .unwrap_or_else(|e| panic!("a hand read cannot be written: {e}\n{hand_text}"));
        let again = read_hand(&written).unwrap_or_else(|e| {
            panic!("the writer's text does not read again: {e}\n--- read:\n{hand_text}--- written:\n{written}")
        });
        let twice = write_back(&again).expect("a hand read again is written");
        assert!(
            twice == written,
            "the round trip of the writer's own text changed it\n--- written:\n{written}--- again:\n{twice}"
        );
    }
});
