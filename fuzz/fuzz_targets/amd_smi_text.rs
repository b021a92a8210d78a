#![no_main]
//! Fuzz target: see gpuaudit::fuzzing::amd_smi_text for the invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpuaudit::fuzzing::amd_smi_text(data));
