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

/// `-o FIFO` whose reader read 16 bytes and went away: the report was not
/// written, so the run fails (exit 2) with one line naming the file; a closed
/// pipe is quiet only when it is stdout's (issue 34 item 5).
#[cfg(unix)]
#[test]
fn a_closed_output_file_is_an_error_a_closed_stdout_is_not() -> anyhow::Result<()> {
    use std::io::Read;
    let dir = tempfile::tempdir()?;
    let fifo = dir.path().join("report.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status()?;
    assert!(made.success(), "mkfifo");
    let reader_path = fifo.clone();
    // opening blocks until the writer opens; 16 bytes, then the reader leaves
    let reader = std::thread::spawn(move || -> std::io::Result<usize> {
        let mut head = [0u8; 16];
        std::fs::File::open(reader_path)?.read_exact(&mut head)?;
        Ok(head.len())
    });
    // the JSON report of the demo fleet is ~450 kB, far over a pipe's buffer
    let demo = data("demo-fleet.parquet");
    let out = gpuaudit()?
        .args(["report", &demo, "-o"])
        .arg(&fifo)
        .output()?;
    assert_eq!(reader.join().map_err(|_| anyhow::anyhow!("reader"))??, 16);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "gpuaudit: --output {}: cannot write",
            fifo.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("Broken pipe"), "{stderr}");

    // the same report into stdout whose reader left (`| head -1`): a quiet 0
    let (read_end, write_end) = std::io::pipe()?;
    drop(read_end);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpuaudit"))
        .args(["report", &demo, "--format", "json"])
        .stdout(write_end)
        .stderr(std::process::Stdio::piped())
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.as_ref()), (Some(0), ""));
    // and through a shell, as a user types it
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; {} report {demo} --format json | head -1",
            env!("CARGO_BIN_EXE_gpuaudit")
        ))
        .output()?;
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.as_ref()), (Some(0), ""));
    Ok(())
}
