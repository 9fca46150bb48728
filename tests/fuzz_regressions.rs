//! Every input a fuzzer found a bug with, kept under
//! `tests/fuzz-regressions/<target>/` and replayed through the same
//! property (`aiproto::fuzzing`): a fixed bug stays fixed.

use std::path::Path;

#[test]
fn every_kept_fuzz_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut replayed = 0;
    for (name, target) in aiproto::fuzzing::TARGETS {
        let dir = root.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let data = std::fs::read(entry.path()).unwrap();
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(
                outcome.is_ok(),
                "{name}: {} fails again",
                entry.path().display()
            );
            replayed += 1;
        }
    }
    // Every directory names a target.
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let dir = entry.file_name();
        assert!(
            aiproto::fuzzing::TARGETS
                .iter()
                .any(|(name, _)| dir.to_str() == Some(*name)),
            "{dir:?} is no fuzz target"
        );
    }
    assert!(replayed >= 3, "only {replayed} inputs replayed");
}
