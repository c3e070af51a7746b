//! The admin bodies' fuzz target (fuzz/admin), replayed here on its checked-in corpus and
//! its minimized crashes through the target's own check: neither body parser panics, and
//! every table the API accepts is built, seated and plays its hands to the end with chips
//! conserved. CI runs it here, in the test build it makes anyway; the libFuzzer target
//! itself runs outside CI (fuzz/README.md), as building poker-server with libFuzzer's
//! instrumentation was most of CI's fuzz step.

#[path = "../../../../fuzz/admin/fuzz_targets/check.rs"]
mod check;

use std::path::Path;

#[test]
fn every_admin_body_of_the_fuzz_corpus_and_its_regressions_passes_the_targets_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/admin");
    for (dir, at_least) in [
        ("corpus/admin_bodies", 200),
        ("regressions/admin_bodies", 3),
    ] {
        let mut inputs: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| entry.unwrap().path())
            .collect();
        inputs.sort();
        assert!(inputs.len() >= at_least, "{dir}: {} inputs", inputs.len());
        for input in inputs {
            let data = std::fs::read(&input).unwrap();
            let checked = std::panic::catch_unwind(|| check::check(&data));
            assert!(checked.is_ok(), "{} fails the check", input.display());
        }
    }
}
