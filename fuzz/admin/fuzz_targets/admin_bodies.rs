//! Admin API request bodies (see `check.rs`, which the server's test suite also runs on
//! the corpus and the regressions).
#![no_main]

mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
