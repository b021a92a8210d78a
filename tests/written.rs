//! JSON and CSV are written as they are produced (the jobs list packed and
//! built row by row, CSV tables row by row): the bytes are those the
//! whole-document writers gave (testdata/written/, written by v0.1.0 at
//! d195751 before the change), and a long jobs list is complete by default.
//! After an intended change to the report: `GPUAUDIT_REGEN=1 cargo test --test written`.
mod common;
use common::{data, gpuaudit};

/// `report demo-fleet.parquet ARGS --quiet`, run beside the file (the JSON
/// names the input as given), to stdout or with `-o FILE`.
fn written(args: &[&str], to_file: bool) -> anyhow::Result<Vec<u8>> {
    let dir = tempfile::tempdir()?;
    let out_path = dir.path().join("out");
    let mut cmd = gpuaudit()?;
    cmd.current_dir(data(""))
        .args(["report", "demo-fleet.parquet", "--quiet"])
        .args(args);
    if to_file {
        cmd.arg("-o").arg(&out_path);
    }
    let out = cmd.output()?;
    anyhow::ensure!(
        out.status.success(),
        "report {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(if to_file {
        std::fs::read(&out_path)?
    } else {
        out.stdout
    })
}

#[test]
fn json_and_csv_are_the_bytes_they_were() -> anyhow::Result<()> {
    let cases: [(&str, &[&str]); 9] = [
        ("demo.json", &["--format", "json"]),
        ("demo-top7.json", &["--format", "json", "--top", "7"]),
        ("demo-layers.csv", &["--format", "csv", "--table", "layers"]),
        ("demo-gpus.csv", &["--format", "csv", "--table", "gpus"]),
        ("demo-jobs.csv", &["--format", "csv", "--table", "jobs"]),
        (
            "demo-episodes.csv",
            &["--format", "csv", "--table", "episodes"],
        ),
        (
            "demo-episodes-per-gpu.csv",
            &["--format", "csv", "--table", "episodes", "--per-gpu"],
        ),
        (
            "demo-timeline.csv",
            &["--format", "csv", "--table", "timeline"],
        ),
        (
            "demo-groups-team.csv",
            &["--format", "csv", "--table", "groups", "--by", "team"],
        ),
    ];
    let regen = std::env::var_os("GPUAUDIT_REGEN").is_some();
    for (file, args) in cases {
        let path = data(&format!("written/{file}"));
        let got = written(args, false)?;
        if regen {
            std::fs::write(&path, &got)?;
            continue;
        }
        let want = std::fs::read(&path)?;
        assert!(got == want, "{file}: stdout differs from the file");
        assert!(written(args, true)? == want, "{file}: -o differs");
    }
    Ok(())
}

#[test]
fn a_table_the_report_lacks_is_refused_before_the_file_is_made() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("groups.csv");
    let run = gpuaudit()?
        .args(["report", &data("demo-fleet.parquet"), "--quiet"])
        .args(["--format", "csv", "--table", "groups", "-o"])
        .arg(&out)
        .output()?;
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr).trim_end(),
        "gpuaudit: --table groups lists showback groups; give --by team|user|job|host|model"
    );
    assert!(!out.exists(), "no file for a refused table");
    Ok(())
}

#[test]
fn a_list_of_many_jobs_is_complete_by_default_and_cut_by_top() -> anyhow::Result<()> {
    // 3,000 jobs, each one GPU for two 10-minute samples, priced by the catalog
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("many.csv");
    let mut text = String::from("time,host,gpu,model,job,device_util\n");
    let jobs = 3000;
    for j in 0..jobs {
        for (t, minute) in [(0, "00"), (1, "10")] {
            text.push_str(&format!(
                "2026-03-01T0{}:{minute}:00Z,node-{:02},GPU-{:04},NVIDIA H100 80GB HBM3,job-{j:04},{}\n",
                j / 1000,
                j % 50,
                j % 1000,
                if (j + t) % 3 == 0 { "0" } else { "0.7" }
            ));
        }
    }
    std::fs::write(&csv, text)?;
    let csv = csv.display().to_string();
    let v = common::report_json(&[&csv])?;
    let rows = v["jobs"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), jobs, "every job listed");
    assert_eq!(v.get("jobs_total"), None, "nothing cut, no total");
    let mut names: Vec<&str> = rows.iter().filter_map(|r| r["job"].as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), jobs);
    assert_eq!(v["leaks"]["jobs"].as_array().map_or(0, Vec::len), jobs);
    // --top 25: the first 25 of the same order, the leak map's rows of those, all counted
    let top = common::report_json(&[&csv, "--top", "25"])?;
    assert_eq!(top["jobs_total"], jobs);
    assert_eq!(
        top["jobs"].as_array().map(|a| a.to_vec()),
        Some(rows[..25].to_vec())
    );
    assert_eq!(top["leaks"]["jobs"].as_array().map_or(0, Vec::len), 25);
    assert_eq!(top["findings"], v["findings"]);
    // the CSV table lists them all, in the JSON's order
    let out = gpuaudit()?
        .args([
            "report", &csv, "--quiet", "--format", "csv", "--table", "jobs",
        ])
        .output()?;
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout)?;
    let first: Vec<&str> = table
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(first.len(), jobs);
    let json_order: Vec<&str> = rows.iter().filter_map(|r| r["job"].as_str()).collect();
    assert_eq!(first, json_order);
    Ok(())
}
