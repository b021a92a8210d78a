#![no_main]
//! Fuzz target: see gpuaudit::fuzzing::rocm_smi for the invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpuaudit::fuzzing::rocm_smi(data));
