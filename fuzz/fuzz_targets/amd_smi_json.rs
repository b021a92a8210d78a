#![no_main]
//! Fuzz target: see gpuaudit::fuzzing::amd_smi_json for the invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpuaudit::fuzzing::amd_smi_json(data));
