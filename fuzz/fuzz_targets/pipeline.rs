//! Fuzzes the whole pipeline on arbitrary bytes: load, replay, the report and every renderer, for
//! every modality set, with the invariants that hold for any input. The check itself is the one
//! the hostile-input property tests run (`rollcall::testing::check_pipeline`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rollcall::testing::check_pipeline(data));
