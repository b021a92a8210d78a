//! `-o FILE`: its extension picks the report's format unless `--format`
//! says otherwise; a contradiction is exit 2 naming both (issue 35 item 5).
mod common;

use common::{assert_close, data, gpuaudit, num};

#[test]
fn the_extension_of_o_picks_the_format() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let fleet = data("small-fleet.csv");
    for (name, starts) in [
        ("fleet.html", "<!DOCTYPE html>"),
        ("fleet.json", "{"),
        ("fleet.csv", "scope,"),
        ("fleet.md", "## GPU audit"),
    ] {
        let out = dir.path().join(name);
        gpuaudit()?
            .args(["report", &fleet, "-o"])
            .arg(&out)
            .assert()
            .success();
        let text = std::fs::read_to_string(&out)?;
        assert!(
            text.starts_with(starts),
            "{name}: {}",
            &text[..text.len().min(80)]
        );
    }
    // the JSON file is the report: 2 GPU-h held of 3 observed
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("fleet.json"))?)?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 2.0, "held");
    assert_close(num(&v, "/layers/observed_gpu_hours"), 3.0, "observed");
    // --format wins over an extension that names none
    let txt = dir.path().join("fleet.txt");
    gpuaudit()?
        .args(["report", &fleet, "--format", "json", "-o"])
        .arg(&txt)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&txt)?.starts_with('{'));
    Ok(())
}

#[test]
fn a_format_that_contradicts_the_extension_is_refused() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("x.html");
    let run = gpuaudit()?
        .args(["report", &data("small-fleet.csv"), "--format", "json", "-o"])
        .arg(&out)
        .output()?;
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(run.stderr)?.trim_end(),
        format!(
            "gpuaudit: --format json contradicts -o {} (an HTML file): drop --format, or name the file for json",
            out.display()
        )
    );
    assert!(!out.exists(), "nothing written");
    Ok(())
}
