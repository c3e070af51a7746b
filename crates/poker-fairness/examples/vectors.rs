//! Prints the test vectors of docs/fairness.md:
//! `cargo run -p poker-fairness --example vectors > docs/fairness/vectors.json`.

fn main() {
    let vectors = poker_fairness::vectors::vectors();
    println!(
        "{}",
        serde_json::to_string_pretty(&vectors).expect("vectors serialize")
    );
}
