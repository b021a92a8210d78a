#![no_main]
//! Fuzz target: see gpuaudit::fuzzing::intel_xpusmi for the invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpuaudit::fuzzing::intel_xpusmi(data));
