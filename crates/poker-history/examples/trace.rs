//! Prints every event of one PHH replay: `cargo run -p poker-rules --example trace FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: trace FILE");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let phh = poker_history::phh::PhhHand::parse(&text).expect("valid PHH");
    match poker_history::phh::replay(&phh) {
        Ok(r) => {
            for e in &r.events {
                println!("{e:?}");
            }
            println!("finishing stacks: {:?}", r.finishing_stacks);
        }
        Err(e) => println!("error: {e}"),
    }
}
