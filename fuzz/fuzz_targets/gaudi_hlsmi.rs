#![no_main]
//! Fuzz target: see gpuaudit::fuzzing::gaudi_hlsmi for the invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpuaudit::fuzzing::gaudi_hlsmi(data));
