//! `gpuaudit.report/1` documents written by earlier releases (CI baselines
//! committed in users' repositories) keep parsing and checking. The files in
//! testdata/compat/ are frozen: never regenerate them.
mod common;

use common::{gpuaudit, num};
use serde_json::Value;

const FROZEN: &[&str] = &[
    "testdata/compat/report-1-v0.1.0-demo.json",
    "testdata/compat/report-1-v0.1.0-demo-by-team.json",
];

#[test]
fn frozen_reports_check_against_themselves() -> anyhow::Result<()> {
    for doc in FROZEN {
        let out = gpuaudit()?
            .args([
                "check",
                doc,
                "--baseline",
                doc,
                "--max-drop",
                "active=1pp",
                "--format",
                "json",
            ])
            .output()?;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{doc}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let verdict: Value = serde_json::from_slice(&out.stdout)?;
        assert_eq!(verdict["passed"], Value::Bool(true), "{doc}: {verdict}");
    }
    Ok(())
}

#[test]
fn todays_audit_of_the_demo_agrees_with_the_frozen_baseline() -> anyhow::Result<()> {
    // The activity figures of the demo fleet are a contract: a change to them is a
    // change of meaning and must be deliberate.
    let frozen: Value = serde_json::from_slice(&std::fs::read(FROZEN[0])?)?;
    let out = gpuaudit()?
        .args(["report", "testdata/demo-fleet.parquet", "--format", "json"])
        .output()?;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let now: Value = serde_json::from_slice(&out.stdout)?;
    for path in [
        "/layers/observed_gpu_hours",
        "/layers/held_gpu_hours",
        "/layers/active_gpu_hours",
        "/layers/sm_active_gpu_hours",
        "/layers/tensor_active_gpu_hours",
        "/layers/idle_held_gpu_hours",
        "/ratios/active",
        "/ratios/sm_active",
        "/ratios/tensor_active",
    ] {
        common::assert_close(num(&now, path), num(&frozen, path), path);
    }
    let out = gpuaudit()?
        .args([
            "check",
            "testdata/demo-fleet.parquet",
            "--baseline",
            FROZEN[0],
            "--max-drop",
            "active=0.1pp",
        ])
        .output()?;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}
