//! One configuration for every property test: a fixed seed, so that CI runs
//! the same cases every time and a failure is a bug found, never a flake.
//!
//! Run them wide locally with a random seed and more cases:
//! `PROPTEST_RNG_SEED=$RANDOM PROPTEST_CASES=5000 cargo test --lib proptests`.
//! A failure found that way is saved in `proptest-regressions/` and replayed
//! first on every later run; commit it with the fix.

use proptest::test_runner::{Config, RngSeed};

/// The seed CI uses when `PROPTEST_RNG_SEED` is not set.
const CI_SEED: u64 = 0x00a1_9707_0c01;

/// `cases` cases (or `PROPTEST_CASES`), from the fixed seed (or `PROPTEST_RNG_SEED`).
pub fn config(cases: u32) -> Config {
    let defaults = Config::default();
    let env_set = |name: &str| std::env::var_os(name).is_some();
    Config {
        cases: if env_set("PROPTEST_CASES") {
            defaults.cases
        } else {
            cases
        },
        rng_seed: if env_set("PROPTEST_RNG_SEED") {
            defaults.rng_seed
        } else {
            RngSeed::Fixed(CI_SEED)
        },
        ..defaults
    }
}
