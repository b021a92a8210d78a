//! Helpers shared by the integration tests (each test file is its own crate
//! and uses a part of them).
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

/// A file or directory under testdata/, as a path string for the command line.
pub fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
        .display()
        .to_string()
}

/// The binary, with no colour and no terminal width from the environment.
pub fn gpuaudit() -> anyhow::Result<Command> {
    let mut c = Command::cargo_bin("gpuaudit")?;
    c.env("NO_COLOR", "1").env_remove("COLUMNS");
    Ok(c)
}

/// The number at a JSON pointer (NaN when absent, so a comparison fails).
pub fn num(v: &Value, path: &str) -> f64 {
    v.pointer(path).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// Equal to 1e-9 relative (absolute below 1).
pub fn assert_close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

/// `gpuaudit report ARGS --format json`, parsed; an error with the args and stderr when it fails.
pub fn report_json<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    args: &[S],
) -> anyhow::Result<Value> {
    let out = gpuaudit()?
        .arg("report")
        .args(args)
        .args(["--format", "json"])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}
