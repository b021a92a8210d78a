#![no_main]
//! Fuzz target: see gpuaudit::fuzzing::otel_otlp for the invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpuaudit::fuzzing::otel_otlp(data));
