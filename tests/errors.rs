//! Error lines through the binary (issue 35 item 7): the bound stays, but
//! what is shortened is the echoed input, never the list of what would have
//! worked.
mod common;

use common::{data, gpuaudit};
use gpuaudit::error::MAX_ERROR_LINE;

const HELD: &str = "cannot tell which GPUs are held: the input has no 'held' column (true/false), no job column (job, job_id, exported_pod, …) and no memory column (mem_used_bytes, DCGM_FI_DEV_FB_USED, …); add one, map one with --map, or pass --assume-held";

fn stderr_of(args: &[&str]) -> anyhow::Result<String> {
    let out = gpuaudit()?.arg("report").args(args).output()?;
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8(out.stderr)?;
    for line in e.lines() {
        assert!(line.chars().count() <= MAX_ERROR_LINE, "{line}");
    }
    Ok(e.trim_end().to_string())
}

#[test]
fn a_long_path_is_shortened_and_the_columns_that_would_work_are_kept() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let deep = dir
        .path()
        .join("exports-of-the-training-cluster-".repeat(3));
    std::fs::create_dir(&deep)?;
    let file = deep.join("fleet.csv");
    std::fs::write(
        &file,
        "time,host,gpu,device_util\n2026-01-01T00:00:00Z,h,0,0.5\n",
    )?;
    let e = stderr_of(&[&file.display().to_string()])?;
    assert!(e.ends_with(&format!("-/fleet.csv: {HELD}")), "{e}");
    assert!(e.contains(" characters elided)… "), "{e}");
    Ok(())
}

#[test]
fn a_long_value_is_shortened_and_what_was_expected_is_kept() -> anyhow::Result<()> {
    let e = stderr_of(&[&data("invalid/long-timestamp.csv")])?;
    assert!(
        e.contains("long-timestamp.csv: column 'time' row 2: '2026-07-06T10:10:00Z7777"),
        "{e}"
    );
    assert!(
        e.ends_with("' is not a timestamp (expected RFC 3339, 'YYYY-MM-DD HH:MM:SS', 'YYYY/MM/DD HH:MM:SS.fff' or epoch seconds/ms)"),
        "{e}"
    );
    Ok(())
}
