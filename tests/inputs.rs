//! Inputs the world exports (issue 12): each awkward fixture in
//! testdata/awkward/ ends in the right numbers with a named data-quality entry,
//! and each one in testdata/invalid/ in exit 2 with a line naming the file, the
//! column or line, and what was expected. Never a panic.
use serde_json::Value;
use std::path::Path;
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};

fn awkward(name: &str) -> String {
    data(&format!("awkward/{name}"))
}

/// `report` on the args must exit 2 with one line on stderr; that line.
fn refused(args: &[&str]) -> anyhow::Result<String> {
    refused_in(env!("CARGO_MANIFEST_DIR"), args)
}

/// [`refused`] run from `cwd` (short relative paths in the message).
fn refused_in(cwd: &str, args: &[&str]) -> anyhow::Result<String> {
    let out = gpuaudit()?
        .current_dir(cwd)
        .arg("report")
        .args(args)
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    anyhow::ensure!(
        out.status.code() == Some(2),
        "report {args:?}: want exit 2, got {:?}: {stderr}",
        out.status.code()
    );
    anyhow::ensure!(!stderr.contains("panicked"), "panic: {stderr}");
    anyhow::ensure!(
        stderr.starts_with("gpuaudit: "),
        "one error printer: {stderr}"
    );
    Ok(stderr)
}

/// A value clap's parser refused (the project's own parser behind it): exit 2,
/// clap's one line naming the flag, then what was expected.
fn refused_at_the_door(args: &[&str]) -> anyhow::Result<String> {
    let out = gpuaudit()?
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("report")
        .args(args)
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    anyhow::ensure!(out.status.code() == Some(2), "report {args:?}: {stderr}");
    anyhow::ensure!(
        stderr.starts_with("error: invalid value "),
        "clap's error: {stderr}"
    );
    Ok(stderr)
}

/// The awkward fleet, computed by hand: g0 held at 50% device activity, g1
/// unallocated, 4 samples 10 min apart each: 40 min each observed, 2/3 h
/// held, 1/3 h active, active ratio 0.5.
fn assert_fleet(v: &Value, what: &str) {
    assert_close(num(v, "/layers/observed_gpu_hours"), 4.0 / 3.0, what);
    assert_close(num(v, "/layers/held_gpu_hours"), 2.0 / 3.0, what);
    assert_close(num(v, "/layers/active_gpu_hours"), 1.0 / 3.0, what);
    assert_close(num(v, "/ratios/active"), 0.5, what);
    assert_close(num(v, "/layers/unallocated_gpu_hours"), 2.0 / 3.0, what);
}

fn strings(v: &Value, path: &str) -> Vec<String> {
    v.pointer(path)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn has_entry(v: &Value, path: &str, needle: &str) -> bool {
    strings(v, path).iter().any(|s| s.contains(needle))
}

#[test]
fn baseline_fleet_reads_as_computed_by_hand() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("baseline.csv")])?;
    assert_fleet(&v, "baseline");
    assert!(strings(&v, "/data_quality/warnings").is_empty());
    Ok(())
}

#[test]
fn percent_in_a_fraction_column_is_converted_and_said() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("percent-device-util.csv")])?;
    assert_fleet(&v, "percent");
    assert!(
        has_entry(
            &v,
            "/data_quality/notes",
            "device_util read as percent: max 50"
        ),
        "{}",
        v["data_quality"]
    );
    Ok(())
}

#[test]
fn values_that_carry_their_unit_are_converted_not_stripped() -> anyhow::Result<()> {
    // "50 %" and "8192 MiB"
    let v = report_json(&[&awkward("percent-text-values.csv")])?;
    assert_fleet(&v, "45 % / MiB");
    assert_close(
        num(&v, "/gpus/0/last_mem_used_bytes"),
        8589934592.0,
        "8192 MiB",
    );
    // "8.0 GiB"
    let v = report_json(&[&awkward("gib-text-values.csv")])?;
    assert_fleet(&v, "GiB");
    assert_close(
        num(&v, "/gpus/0/last_mem_used_bytes"),
        8589934592.0,
        "8 GiB",
    );
    Ok(())
}

#[test]
fn a_unit_that_cannot_be_the_columns_is_refused() -> anyhow::Result<()> {
    let e = refused(&[&awkward("watts-in-device-util.csv")])?;
    assert!(e.contains("watts-in-device-util.csv"), "{e}");
    assert!(e.contains("'device_util'"), "{e}");
    assert!(e.contains("0.5 W"), "{e}");
    Ok(())
}

#[test]
fn memory_too_small_for_bytes_is_a_warning_naming_the_unit() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("mem-in-mib-unlabelled.csv")])?;
    assert_fleet(&v, "mem in MiB");
    assert!(
        has_entry(
            &v,
            "/data_quality/warnings",
            "mem_used_bytes: the busiest value is 8192 bytes, under 1 MiB: likely MiB"
        ),
        "{}",
        v["data_quality"]
    );
    Ok(())
}

#[test]
fn zero_one_integers_cannot_tell_percent_from_fraction() -> anyhow::Result<()> {
    let f = data("invalid/device-util-zero-one.csv");
    let e = refused(&[&f])?;
    assert!(e.contains("device-util-zero-one.csv"), "{e}");
    assert!(e.contains("--map device_util=device_util:fraction"), "{e}");
    assert!(e.contains("--map device_util=device_util:percent"), "{e}");
    // stated, it reads: fraction = 2 of 3 samples busy
    let v = report_json(&[&f, "--map", "device_util=device_util:fraction"])?;
    assert_close(num(&v, "/ratios/active"), 2.0 / 3.0, "fraction");
    let v = report_json(&[&f, "--map", "device_util=device_util:percent"])?;
    assert_close(num(&v, "/ratios/active"), 0.02 / 3.0, "percent");
    Ok(())
}

#[test]
fn a_column_never_measured_is_null_not_zero() -> anyhow::Result<()> {
    for (file, invalid) in [
        ("device-util-all-na.csv", None),
        ("device-util-all-out-of-range.csv", Some(8)),
    ] {
        let v = report_json(&[&awkward(file)])?;
        assert_close(num(&v, "/layers/held_gpu_hours"), 2.0 / 3.0, file);
        for p in [
            "/layers/active_gpu_hours",
            "/layers/idle_held_gpu_hours",
            "/ratios/active",
            "/ratios/idle_held",
            "/cost/idle_held_usd",
            "/cost/monthly_run_rate/idle_held_usd",
        ] {
            assert!(v.pointer(p).is_some_and(Value::is_null), "{file} {p}: {v}");
        }
        assert!(
            has_entry(&v, "/data_quality/warnings", "device_util: no usable value"),
            "{file}: {}",
            v["data_quality"]
        );
        if let Some(n) = invalid {
            assert_eq!(v["data_quality"]["invalid"]["device_util"], n, "{file}");
        }
        // the table does not say "$0" for idle
        let out = gpuaudit()?.arg("report").arg(awkward(file)).output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("$0 spent on idle"), "{text}");
    }
    Ok(())
}

#[test]
fn gzip_and_zstd_are_read_by_extension_or_magic_bytes() -> anyhow::Result<()> {
    for f in [
        "baseline.csv.gz",
        "baseline.csv.zst",
        "baseline-gzip-no-extension",
        "baseline.ndjson.gz",
    ] {
        let v = report_json(&[&awkward(f)])?;
        assert_fleet(&v, f);
    }
    // on stdin too
    let out = gpuaudit()?
        .args(["report", "-", "--format", "json"])
        .pipe_stdin(awkward("baseline.csv.gz"))?
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_fleet(&serde_json::from_slice(&out.stdout)?, "stdin gzip");
    let e = refused(&[&data("invalid/corrupt.csv.gz")])?;
    assert!(e.contains("corrupt.csv.gz: not a valid gzip file"), "{e}");
    Ok(())
}

#[test]
fn tab_separated_and_byte_order_marked_files_read_alike() -> anyhow::Result<()> {
    for f in ["baseline.tsv", "baseline-bom.csv"] {
        assert_fleet(&report_json(&[&awkward(f)])?, f);
    }
    Ok(())
}

#[test]
fn a_json_array_of_objects_reads_as_ndjson_does() -> anyhow::Result<()> {
    assert_fleet(&report_json(&[&awkward("baseline.json")])?, "json array");
    let e = refused(&[&data("invalid/array-of-numbers.json")])?;
    assert!(e.contains("element 1 of the array is not an object"), "{e}");
    Ok(())
}

#[test]
fn structure_errors_name_the_line() -> anyhow::Result<()> {
    let e = refused(&[&data("invalid/too-few-fields.csv")])?;
    assert!(
        e.contains("too-few-fields.csv: line 3: 3 fields, the header has 4"),
        "{e}"
    );
    let e = refused(&[&data("invalid/too-many-fields.csv")])?;
    assert!(
        e.contains("too-many-fields.csv: line 3: 5 fields, the header has 4"),
        "{e}"
    );
    let e = refused(&[&data("invalid/bad-line.ndjson")])?;
    assert!(e.contains("bad-line.ndjson: line 3: not JSON"), "{e}");
    Ok(())
}

/// JSON parsers keep one of a repeated key's values without a word: a record
/// that repeats a column is refused, naming the line (or element) and the key.
#[test]
fn a_json_record_repeating_a_key_is_refused_naming_it() -> anyhow::Result<()> {
    let e = refused(&[&data("invalid/duplicate-key.ndjson")])?;
    assert!(
        e.contains(
            "duplicate-key.ndjson: line 2: the key \"device_util\" appears twice in one object"
        ),
        "{e}"
    );
    let e = refused(&[&data("invalid/duplicate-key-array.json")])?;
    assert!(
        e.contains(
            "duplicate-key-array.json: element 2 of the array: the key \"held\" appears twice"
        ),
        "{e}"
    );
    // the same key in a nested object, or once per line, is not a repeat
    let dir = tempfile::tempdir()?;
    let ok = dir.path().join("nested.ndjson");
    std::fs::write(
        &ok,
        concat!(
            r#"{"time":"2026-07-06T10:00:00Z","gpu":"g0","held":true,"device_util":0.5,"meta":{"gpu":"x","held":1}}"#,
            "\n",
            r#"{"time":"2026-07-06T10:10:00Z","gpu":"g0","held":true,"device_util":0.5,"meta":{"gpu":"x","held":1}}"#,
            "\n"
        ),
    )?;
    let v = report_json(&[&ok.display().to_string(), "--interval", "10m"])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 20.0 / 60.0, "held");
    Ok(())
}

#[test]
fn held_that_cannot_be_read_is_neither_held_nor_free() -> anyhow::Result<()> {
    // g0's first sample says held=maybe: 10 min neither held nor unallocated
    let v = report_json(&[&awkward("held-maybe.csv")])?;
    assert_close(num(&v, "/layers/observed_gpu_hours"), 4.0 / 3.0, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 0.5, "held");
    assert_close(num(&v, "/layers/unallocated_gpu_hours"), 2.0 / 3.0, "free");
    assert_close(
        num(&v, "/data_quality/held_unknown_gpu_hours"),
        1.0 / 6.0,
        "unknown",
    );
    assert_eq!(v["data_quality"]["invalid"]["held"], 1);
    assert!(has_entry(
        &v,
        "/data_quality/warnings",
        "held value that cannot be read"
    ));
    Ok(())
}

#[test]
fn negative_numbers_reach_the_flags_own_check() -> anyhow::Result<()> {
    let base = awkward("baseline.csv");
    let e = refused(&[&base, "--price", "-1"])?;
    assert!(
        e.contains("--price -1: expected a price in USD per GPU-hour >= 0"),
        "{e}"
    );
    let e = refused_at_the_door(&[&base, "--idle-below", "-5%"])?;
    assert!(e.contains("-5%"), "{e}");
    Ok(())
}

#[test]
fn a_map_naming_no_column_is_refused_naming_it() -> anyhow::Result<()> {
    let e = refused(&[&awkward("baseline.csv"), "--map", "nosuch=device_util"])?;
    assert!(
        e.contains("--map nosuch=device_util: no input has a column 'nosuch'"),
        "{e}"
    );
    let e = refused(&[&data("demo-fleet.parquet"), "--map", "nosuch=device_util"])?;
    assert!(e.contains("no input has a column 'nosuch'"), "{e}");
    Ok(())
}

#[test]
fn timestamps_as_databases_print_them() -> anyhow::Result<()> {
    for f in [
        "postgres-timestamps.csv",
        "offset-no-colon.csv",
        "offset-half-hour.csv",
        "nanosecond-timestamps.csv",
    ] {
        let v = report_json(&[&awkward(f)])?;
        assert_fleet(&v, f);
        assert_eq!(v["window"]["start"], "2026-07-06T10:00:00Z", "{f}");
        assert!(strings(&v, "/data_quality/notes").is_empty(), "{f}: {v}");
    }
    let v = report_json(&[&awkward("naive-timestamps.csv")])?;
    assert_fleet(&v, "naive");
    assert_eq!(v["window"]["start"], "2026-07-06T10:00:00Z");
    assert!(has_entry(
        &v,
        "/data_quality/notes",
        "time: 8 timestamps without a UTC offset, taken as UTC"
    ));
    Ok(())
}

/// Weights are exact to the microsecond (issue 12): three samples 1.5 ms, then
/// 250 µs apart weigh 1500, 250 and 875 µs (the last one step, the even-count
/// median (1500 + 250) / 2), 2625 µs in all, from a µs parquet, a ns parquet
/// (sub-µs digits truncated) and PostgreSQL text with 6 fractional digits.
/// Truncated to ms the samples would sit at .000, .001 and .002 and weigh 3 ms.
#[test]
fn weights_are_exact_to_the_microsecond_in_every_time_unit() -> anyhow::Result<()> {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    // 2026-07-06T10:00:00.000250Z, then +1.5 ms, then +250 µs
    let us = [
        1_783_332_000_000_250i64,
        1_783_332_000_001_750,
        1_783_332_000_002_000,
    ];
    let ns: Vec<i64> = us.iter().map(|t| t * 1_000 + 999).collect();
    let mut inputs = Vec::new();
    for (name, unit, times) in [
        ("us.parquet", TimeUnit::Microseconds, us.to_vec()),
        ("ns.parquet", TimeUnit::Nanoseconds, ns),
    ] {
        let time = Series::new("time".into(), times).cast(&DataType::Datetime(unit, None))?;
        let mut df = DataFrame::new_infer_height(vec![
            time.into_column(),
            Column::new("gpu".into(), ["g0"; 3]),
            Column::new("held".into(), [true; 3]),
            Column::new("device_util".into(), [1.0; 3]),
        ])?;
        let p = dir.path().join(name);
        ParquetWriter::new(std::fs::File::create(&p)?).finish(&mut df)?;
        inputs.push(p);
    }
    let csv = dir.path().join("postgres.csv");
    std::fs::write(
        &csv,
        "time,gpu,held,device_util\n\
         2026-07-06 10:00:00.000250+00,g0,true,1.0\n\
         2026-07-06 10:00:00.001750+00,g0,true,1.0\n\
         2026-07-06 10:00:00.002+00,g0,true,1.0\n",
    )?;
    inputs.push(csv);
    for p in &inputs {
        let v = report_json(&[&p.display().to_string()])?;
        let what = p.display().to_string();
        let hours = 2_625.0 / 3_600_000_000.0;
        assert_eq!(num(&v, "/layers/observed_gpu_hours"), hours, "{what}");
        assert_eq!(num(&v, "/layers/held_gpu_hours"), hours, "{what}");
        assert_eq!(num(&v, "/window/hours"), hours, "{what}");
        assert_eq!(
            v["window"]["start"], "2026-07-06T10:00:00.000250Z",
            "{what}"
        );
        assert_eq!(v["window"]["end"], "2026-07-06T10:00:00.002875Z", "{what}");
    }
    Ok(())
}

#[test]
fn two_columns_for_one_canonical_must_agree() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("device-util-twice-agree.csv")])?;
    assert_fleet(&v, "agree");
    let e = refused(&[&data("invalid/duplicate-header-disagree.csv")])?;
    assert!(
        e.contains("columns 'device_util' and 'device_util_duplicated_0' both give device_util and disagree at data row 2"),
        "{e}"
    );
    let e = refused(&[&data("invalid/alias-beside-canonical-disagree.csv")])?;
    assert!(
        e.contains("columns 'device_util' and 'DCGM_FI_DEV_GPU_UTIL' both give device_util"),
        "{e}"
    );
    Ok(())
}

#[test]
fn a_stray_sample_from_1970_does_not_stretch_the_window() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("outlier-1970.csv")])?;
    assert_fleet(&v, "outlier");
    assert_eq!(v["window"]["start"], "2026-07-06T10:00:00Z");
    assert_close(num(&v, "/window/hours"), 2.0 / 3.0, "window");
    assert_eq!(v["data_quality"]["rows_dropped"], 1);
    assert!(has_entry(
        &v,
        "/data_quality/warnings",
        "time: 1 samples far outside the bulk of the data left out (1970-01-01T00:00:00Z"
    ));
    // the run-rate is the fleet's: $3/GPU-h x 2 GPUs x 730 h
    assert_close(
        num(&v, "/cost/monthly_run_rate/observed_usd"),
        4380.0,
        "monthly",
    );
    Ok(())
}

/// Shaped like Alibaba's GenTD26 sample (synthetic values): device_util holds
/// percent, most values <= 1. With no flags it must read as with
/// `--map device_util=device_util:percent`. By hand: the mean of
/// 0, 0.5, 0.75, 50, 10, 1, 0.25, 99.6667 percent over equal weights.
#[test]
fn gentd26_shaped_percent_reads_the_same_with_or_without_a_map() -> anyhow::Result<()> {
    let f = awkward("gentd26-shaped.csv.gz");
    let plain = report_json(&[&f])?;
    let mapped = report_json(&[&f, "--map", "device_util=device_util:percent"])?;
    let want = (0.0 + 0.5 + 0.75 + 50.0 + 10.0 + 1.0 + 0.25 + 99.6667) / 8.0 / 100.0;
    assert_close(num(&plain, "/ratios/active"), want, "no flags");
    assert_close(num(&mapped, "/ratios/active"), want, "mapped");
    assert_eq!(plain["layers"], mapped["layers"]);
    assert!(has_entry(
        &plain,
        "/data_quality/notes",
        "device_util read as percent: max 99.6667"
    ));
    Ok(())
}

/// testdata/awkward/postgres-export.csv is small-fleet.csv loaded into
/// PostgreSQL 15 (time timestamptz) and written back with
/// `\copy (select ...) to ... csv header` under PGTZ=UTC: `2026-07-06 10:00:00+00`.
#[test]
fn a_postgresql_export_reports_what_its_parquet_does() -> anyhow::Result<()> {
    let mut pg = report_json(&[&awkward("postgres-export.csv")])?;
    let pq = report_json(&[&data("small-fleet.pyarrow.parquet")])?;
    pg["sources"] = pq["sources"].clone();
    assert_eq!(pg, pq);
    Ok(())
}

/// Every fixture, valid or not (files and the directories beside them): an
/// answer or exit 2 naming it in lines of at most MAX_ERROR_LINE characters,
/// never a panic.
#[test]
fn no_fixture_makes_it_panic() -> anyhow::Result<()> {
    // exit 0 or 2, no panic, every stderr line within the bound; on exit 2
    // the input named
    let check = |what: &str, out: std::process::Output, name: &str| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{what}: exit {:?}: {stderr}",
            out.status.code()
        );
        assert_bounded(&stderr, "");
        if out.status.code() == Some(2) {
            assert!(stderr.contains(name), "{what}: {stderr}");
        }
    };
    let mut seen = 0;
    for dir in ["awkward", "invalid"] {
        for entry in std::fs::read_dir(data(dir))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "py") {
                continue;
            }
            let what = path.display().to_string();
            let out = gpuaudit()?
                .arg("report")
                .arg(&path)
                .args(["--format", "json"])
                .output()?;
            let name = path.file_name().map(|n| n.to_string_lossy().to_string());
            check(&what, out, &name.unwrap_or_default());
            // the same bytes on stdin
            if path.is_file() {
                let out = gpuaudit()?
                    .args(["report", "-", "--format", "json"])
                    .pipe_stdin(&path)?
                    .output()?;
                check(&format!("stdin {what}"), out, "-");
            }
            seen += 1;
        }
    }
    assert!(seen >= 60, "{seen} fixtures");
    Ok(())
}

/// Writes testdata/invalid/hive-differing/: two hive partitions whose files
/// differ (host=b lacks sm_active and stores time as text). Committed; rerun
/// with `cargo test --test inputs -- --ignored write_hive_differing_fixture`.
fn write_hive_differing(root: &Path) -> anyhow::Result<()> {
    use polars::prelude::*;
    let write = |rel: &str, mut df: DataFrame| -> anyhow::Result<()> {
        let p = root.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        ParquetWriter::new(std::fs::File::create(p)?).finish(&mut df)?;
        Ok(())
    };
    let ms = [1_783_332_000_000i64, 1_783_332_600_000];
    let time =
        Series::new("time".into(), ms).cast(&DataType::Datetime(TimeUnit::Milliseconds, None))?;
    write(
        "host=a/part-0.parquet",
        DataFrame::new_infer_height(vec![
            time.into_column(),
            Column::new("gpu".into(), ["g0", "g0"]),
            Column::new("held".into(), [true, true]),
            Column::new("device_util".into(), [0.5, 0.5]),
            Column::new("sm_active".into(), [0.25, 0.25]),
        ])?,
    )?;
    write(
        "host=b/part-0.parquet",
        DataFrame::new_infer_height(vec![
            Column::new(
                "time".into(),
                ["2026-07-06T10:00:00Z", "2026-07-06T10:10:00Z"],
            ),
            Column::new("gpu".into(), ["g1", "g1"]),
            Column::new("held".into(), [false, false]),
            Column::new("device_util".into(), [0.0, 0.0]),
        ])?,
    )?;
    Ok(())
}

#[test]
#[ignore = "rewrites the committed fixture"]
fn write_hive_differing_fixture() -> anyhow::Result<()> {
    write_hive_differing(Path::new(&data("invalid/hive-differing")))
}

/// A hive directory whose files differ (one lacks sm_active and stores time
/// as text) fails naming the file; the same files as a glob read. The
/// committed fixture, and the same written afresh by this polars.
#[test]
fn a_directory_whose_files_differ_names_the_file() -> anyhow::Result<()> {
    let fresh = tempfile::tempdir()?;
    write_hive_differing(fresh.path())?;
    // (run from the directory's parent: the line quotes paths four times)
    for (cwd, name) in [
        (data("invalid"), "hive-differing"),
        (fresh.path().display().to_string(), "."),
    ] {
        let e = refused_in(&cwd, &[name])?;
        assert!(e.contains("host=b/part-0.parquet"), "{e}");
        assert!(
            e.contains("stores 'time' as str") || e.contains("lacks column 'sm_active'"),
            "{e}"
        );
        assert!(
            !e.contains("PlRefPath") && !e.contains("missing_columns"),
            "{e}"
        );
        assert_bounded(&e, name);
        assert!(!e.contains("characters elided"), "{e}");
        let v = report_json(&[&format!("{cwd}/{name}/**/*.parquet")])?;
        assert_close(num(&v, "/layers/observed_gpu_hours"), 2.0 / 3.0, "observed");
        assert_close(num(&v, "/layers/held_gpu_hours"), 1.0 / 3.0, "held");
        assert_close(num(&v, "/ratios/active"), 0.5, "active");
    }
    Ok(())
}

#[test]
fn empty_and_csv_only_directories_say_so_in_plain_words() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let d = dir.path().display().to_string();
    let e = refused(&[&d])?;
    assert!(e.contains("the directory is empty"), "{e}");
    // testdata/invalid/csv-only/ holds baseline.csv alone: the message says
    // how to read it, and the glob it suggests gives baseline's numbers
    // (run from testdata/invalid: the line quotes the path three times)
    let e = refused_in(&data("invalid"), &["csv-only"])?;
    assert!(
        e.contains("gpuaudit: csv-only: the directory holds no parquet files (1 other files, such as csv-only/baseline.csv)"),
        "{e}"
    );
    assert!(e.contains("('csv-only/*.csv')"), "{e}");
    assert!(e.contains("name the files or a glob"), "{e}");
    assert!(!e.contains("PlRefPath"), "{e}");
    assert_bounded(&e, "csv-only");
    let glob = format!("{}/*.csv", data("invalid/csv-only"));
    assert_fleet(&report_json(&[&glob])?, "csv-only glob");
    Ok(())
}

#[test]
fn a_self_looping_symlink_says_so() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let link = dir.path().join("loop.csv");
    std::os::unix::fs::symlink(&link, &link)?;
    let e = refused(&[&link.display().to_string()])?;
    assert!(e.contains("a symbolic link that cannot be followed"), "{e}");
    Ok(())
}

#[test]
fn a_huge_header_is_elided_not_echoed() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let f = dir.path().join("wide.csv");
    let header: Vec<String> = (0..200_000).map(|i| format!("column_{i}")).collect();
    std::fs::write(&f, format!("{}\n", header.join(",")))?;
    let e = refused(&[&f.display().to_string()])?;
    assert!(e.len() < 600, "{} characters: {}", e.len(), &e[..300]);
    Ok(())
}

fn huge_label_fleet(dir: &Path) -> anyhow::Result<(String, String)> {
    let label = "x".repeat(100_000);
    let f = dir.join("huge-label.csv");
    let mut text = String::from("time,gpu,held,device_util,job\n");
    for m in (0..60).step_by(10) {
        text.push_str(&format!("2026-07-06T10:{m:02}:00Z,g0,true,0,{label}\n"));
    }
    std::fs::write(&f, text)?;
    Ok((f.display().to_string(), label))
}

/// A 100,000-character job label: JSON keeps it whole.
#[test]
fn a_huge_label_is_kept_whole_in_json() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let (f, label) = huge_label_fleet(dir.path())?;
    let v = report_json(&[&f])?;
    assert_eq!(v["idle_episodes"][0]["job"], label.as_str());
    assert_close(num(&v, "/layers/idle_held_gpu_hours"), 1.0, "idle");
    Ok(())
}

// The table renderer cuts labels for display in one pass (render/grid.rs):
// before that a 100,000-character label took minutes (quadratic wrapping).
// The table shows the label shortened; the figures stay whole.
#[test]
fn a_huge_label_is_shortened_in_the_table() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let (f, _) = huge_label_fleet(dir.path())?;
    let out = gpuaudit()?
        .args(["report", &f, "--width", "120"])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    // table rows fit the width (prose lines are left to the terminal to wrap)
    let table_rows = text.lines().filter(|l| l.starts_with(['│', '┌', '╞', '└']));
    let longest = table_rows.map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(
        longest <= 120,
        "a table row of {longest} characters:\n{text}"
    );
    assert!(
        text.contains('…'),
        "the label is shortened with an ellipsis:\n{text}"
    );
    Ok(())
}

/// The streaming parquet reader applies the same rule to a stray sample.
#[test]
fn a_stray_sample_in_parquet_does_not_stretch_the_window() -> anyhow::Result<()> {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    let f = dir.path().join("fleet.parquet");
    // 1970 first, then g0 and g1 at 10:00..10:30, as outlier-1970.csv
    let mut t = vec![0i64];
    let mut gpu = vec!["g1"];
    let mut held = vec![false];
    let mut util = vec![0.0];
    for m in [0i64, 10, 20, 30] {
        for (g, h, u) in [("g0", true, 0.5), ("g1", false, 0.0)] {
            t.push(1_783_332_000_000 + m * 60_000);
            gpu.push(g);
            held.push(h);
            util.push(u);
        }
    }
    let time = Series::new("time".into(), t).cast(&DataType::Datetime(
        TimeUnit::Milliseconds,
        Some(TimeZone::UTC),
    ))?;
    let mut df = DataFrame::new_infer_height(vec![
        time.into_column(),
        Column::new("gpu".into(), gpu),
        Column::new("held".into(), held),
        Column::new("device_util".into(), util),
    ])?;
    ParquetWriter::new(std::fs::File::create(&f)?).finish(&mut df)?;
    let v = report_json(&[&f.display().to_string()])?;
    assert_fleet(&v, "parquet outlier");
    assert_eq!(v["window"]["start"], "2026-07-06T10:00:00Z");
    assert_eq!(v["data_quality"]["rows_dropped"], 1);
    assert!(has_entry(
        &v,
        "/data_quality/warnings",
        "time: 1 samples far outside the bulk of the data left out (1970-01-01T00:00:00Z"
    ));
    Ok(())
}

/// `report - --format json` with the file's bytes on stdin.
fn report_stdin_json(file: &str) -> anyhow::Result<Value> {
    let out = gpuaudit()?
        .args(["report", "-", "--format", "json"])
        .pipe_stdin(file)?
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report - < {file} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// Every line of an error at most [`gpuaudit::error::MAX_ERROR_LINE`]
/// characters, the first naming the file.
fn assert_bounded(e: &str, file: &str) {
    for line in e.lines() {
        let n = line.chars().count();
        assert!(
            n <= gpuaudit::error::MAX_ERROR_LINE,
            "a line of {n} characters: {line}"
        );
    }
    assert!(e.contains(file), "{e}");
}

#[test]
fn windows_line_endings_read_as_unix_ones() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("crlf.csv")])?;
    assert_fleet(&v, "crlf");
    assert_eq!(v["window"]["end"], "2026-07-06T10:40:00Z");
    assert_eq!(
        v["gpus"][0]["model"], "NVIDIA H100 80GB HBM3",
        "no \\r kept"
    );
    assert!(strings(&v, "/data_quality/warnings").is_empty(), "{v}");
    assert!(strings(&v, "/data_quality/notes").is_empty(), "{v}");
    Ok(())
}

/// Classic Mac line endings would read as one header line and no rows:
/// refused saying so, from a file and from stdin alike.
#[test]
fn bare_carriage_returns_are_refused_in_plain_words() -> anyhow::Result<()> {
    let f = data("invalid/cr-only.csv");
    let e = refused(&[&f])?;
    assert!(
        e.contains("cr-only.csv: line 1 ends in a bare carriage return (classic Mac line endings); expected LF or CRLF"),
        "{e}"
    );
    assert_bounded(&e, "cr-only.csv");
    let out = gpuaudit()?.args(["report", "-"]).pipe_stdin(&f)?.output()?;
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("-: line 1 ends in a bare carriage return"),
        "{e}"
    );
    Ok(())
}

#[test]
fn compression_is_read_by_magic_bytes_not_the_name() -> anyhow::Result<()> {
    // gzip under .csv, zstd with no extension, NDJSON plain and zstd
    for f in [
        "gzip-misnamed.csv",
        "baseline-zstd-no-extension",
        "baseline.ndjson",
        "baseline.ndjson.zst",
    ] {
        assert_fleet(&report_json(&[&awkward(f)])?, f);
    }
    Ok(())
}

#[test]
fn ndjson_on_stdin_plain_or_zstd_reads_the_same() -> anyhow::Result<()> {
    for f in ["baseline.ndjson", "baseline.ndjson.zst", "crlf.csv"] {
        let v = report_stdin_json(&awkward(f))?;
        assert_fleet(&v, &format!("stdin {f}"));
        assert_eq!(v["window"]["start"], "2026-07-06T10:00:00Z", "{f}");
    }
    Ok(())
}

/// sm_active 25 (percent) on g0, 0 on g1: held 2/3 h x 0.25 = 1/6 h SM-active.
#[test]
fn sm_active_in_percent_is_converted_and_said() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("sm-active-percent.csv")])?;
    assert_fleet(&v, "sm percent");
    assert_close(
        num(&v, "/layers/sm_active_gpu_hours"),
        1.0 / 6.0,
        "sm_active hours",
    );
    assert_close(num(&v, "/ratios/sm_active"), 0.25, "sm_active ratio");
    assert_close(num(&v, "/gpus/0/sm_active"), 0.25, "g0 sm_active");
    assert!(
        has_entry(
            &v,
            "/data_quality/notes",
            "sm_active read as percent: max 25"
        ),
        "{}",
        v["data_quality"]
    );
    Ok(())
}

#[test]
fn sm_active_never_measured_is_null_not_zero() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("sm-active-all-na.csv")])?;
    assert_fleet(&v, "sm all N/A");
    for p in [
        "/layers/sm_active_gpu_hours",
        "/ratios/sm_active",
        "/cost/sm_idle_usd",
        "/cost/monthly_run_rate/sm_idle_usd",
        "/gpus/0/sm_active",
        "/gpus/1/sm_active",
    ] {
        assert!(v.pointer(p).is_some_and(Value::is_null), "{p}: {v}");
    }
    assert!(
        has_entry(&v, "/data_quality/warnings", "sm_active: no usable value"),
        "{}",
        v["data_quality"]
    );
    Ok(())
}

/// `+00` (PostgreSQL), `+05:30` and `Z` in one column: the same instants as
/// baseline.csv.
#[test]
fn mixed_offsets_in_one_column_are_the_same_instants() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("offset-mixed.csv")])?;
    assert_fleet(&v, "mixed offsets");
    assert_eq!(v["window"]["start"], "2026-07-06T10:00:00Z");
    assert_eq!(v["window"]["end"], "2026-07-06T10:40:00Z");
    assert_eq!(v["data_quality"]["unobserved_gpu_hours"], 0.0);
    assert!(strings(&v, "/data_quality/notes").is_empty(), "{v}");
    assert!(strings(&v, "/data_quality/warnings").is_empty(), "{v}");
    Ok(())
}

/// Samples at .000250, .000500, .001100, .001450 s (steps 250, 600, 350 µs;
/// median 350, so max gap 1050): weights 250 + 600 + 350 + 350 (the last one
/// step) = 1550 µs per GPU. Truncated to ms they would be .000, .000, .001,
/// .001.
#[test]
fn uneven_microsecond_steps_weigh_exactly() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("microsecond-step.csv")])?;
    let per_gpu = 1_550.0 / 3_600_000_000.0;
    assert_eq!(num(&v, "/layers/held_gpu_hours"), per_gpu);
    assert_eq!(num(&v, "/layers/unallocated_gpu_hours"), per_gpu);
    assert_eq!(num(&v, "/layers/observed_gpu_hours"), 2.0 * per_gpu);
    assert_eq!(num(&v, "/window/hours"), per_gpu);
    assert_close(num(&v, "/layers/active_gpu_hours"), per_gpu / 2.0, "active");
    assert_eq!(v["window"]["start"], "2026-07-06T10:00:00.000250Z");
    assert_eq!(v["window"]["end"], "2026-07-06T10:00:00.001800Z");
    assert_eq!(v["data_quality"]["unobserved_gpu_hours"], 0.0);
    Ok(())
}

#[test]
fn the_same_column_twice_with_equal_values_is_accepted() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("duplicate-header-agree.csv")])?;
    assert_fleet(&v, "duplicate header");
    assert!(strings(&v, "/data_quality/warnings").is_empty(), "{v}");
    Ok(())
}

#[test]
fn a_truncated_zstd_file_is_refused_naming_it() -> anyhow::Result<()> {
    let f = data("invalid/corrupt.csv.zst");
    let e = refused(&[&f])?;
    assert!(e.contains("corrupt.csv.zst: not a valid zstd file"), "{e}");
    // on stdin the same bytes are named '-'
    let out = gpuaudit()?.args(["report", "-"]).pipe_stdin(&f)?.output()?;
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("-: not a valid zstd file"), "{e}");
    Ok(())
}

/// A value, a timestamp or a header far longer than a line: exit 2, every
/// line within the bound, the file and column still named.
#[test]
fn huge_cells_are_refused_in_bounded_lines() -> anyhow::Result<()> {
    let e = refused(&[&data("invalid/long-value.ndjson")])?;
    assert_bounded(&e, "long-value.ndjson");
    assert!(
        e.contains("long-value.ndjson: column 'device_util' (device_util): expected numbers: found text such as 'busybusy"),
        "{e}"
    );
    assert!(e.contains("characters elided"), "{e}");
    let e = refused(&[&data("invalid/long-number.ndjson")])?;
    assert_bounded(&e, "long-number.ndjson");
    assert!(
        e.contains("long-number.ndjson: line 2: not JSON: number out of range at column 10068"),
        "{e}"
    );
    let e = refused(&[&data("invalid/long-timestamp.csv")])?;
    assert_bounded(&e, "long-timestamp.csv");
    assert!(
        e.contains("long-timestamp.csv: column 'time' row 2: '2026-07-06T10:10:00Z7777"),
        "{e}"
    );
    assert!(e.contains("characters elided"), "{e}");
    assert!(e.contains("(expected RFC 3339"), "{e}");
    let e = refused(&[&data("invalid/wide-header.csv")])?;
    assert_bounded(&e, "wide-header.csv");
    assert!(
        e.contains("wide-header.csv: no time column (expected one of: time, timestamp, ts"),
        "{e}"
    );
    assert!(e.contains("--map YOURS=time"), "{e}");
    Ok(())
}

/// Units with a margin (docs/semantics.md §1): one float-noise value above 1
/// in a fraction column, one percent value rounded above 100 and one 1e308
/// are each invalid alone; the column keeps the unit the rest of it says.
/// g0 held 40 min, 3 of its 4 samples at 50%: 0.25 active GPU-hours.
#[test]
fn one_out_of_range_value_is_invalid_alone_never_the_columns_unit() -> anyhow::Result<()> {
    for (file, percent) in [
        ("fraction-float-noise.csv", false),
        ("percent-one-over-100.csv", true),
        ("percent-one-1e308.csv", true),
    ] {
        let v = report_json(&[&awkward(file)])?;
        assert_close(num(&v, "/layers/held_gpu_hours"), 2.0 / 3.0, file);
        assert_close(num(&v, "/layers/active_gpu_hours"), 0.25, file);
        assert_close(num(&v, "/ratios/active"), 0.5, file);
        assert_eq!(v["data_quality"]["invalid"]["device_util"], 1, "{file}");
        assert_eq!(
            has_entry(
                &v,
                "/data_quality/notes",
                "device_util read as percent: max 50"
            ),
            percent,
            "{file}"
        );
    }
    Ok(())
}

/// `--idle-below` takes check's units; a bare number of 1 or more is refused.
#[test]
fn idle_below_takes_a_fraction_or_a_percent_never_a_bare_one() -> anyhow::Result<()> {
    let e = refused_at_the_door(&[&awkward("baseline.csv"), "--idle-below", "1"])?;
    assert!(
        e.contains("invalid value '1' for '--idle-below <FRACTION>': 1 is ambiguous: 1% or 100%? Write 1% for percent, or a fraction below 1 (0.01 = 1%)"),
        "{e}"
    );
    let pct = report_json(&[&awkward("baseline.csv"), "--idle-below", "60%"])?;
    let frac = report_json(&[&awkward("baseline.csv"), "--idle-below", "0.6"])?;
    // g0 at 50% is idle below 60%: its 40 held minutes
    assert_close(num(&pct, "/layers/idle_held_gpu_hours"), 2.0 / 3.0, "60%");
    assert_close(num(&frac, "/layers/idle_held_gpu_hours"), 2.0 / 3.0, "0.6");
    Ok(())
}

/// A GPU seen once inside a 10-minute series weighs the fleet's step (10
/// min), with a note, and does not stretch the window by the snapshot hour.
#[test]
fn a_lone_sample_in_a_series_weighs_the_fleets_step() -> anyhow::Result<()> {
    let v = report_json(&[&awkward("lone-sample-in-series.csv")])?;
    assert_eq!(v["window"]["end"], "2026-07-06T10:40:00Z");
    assert_close(num(&v, "/window/hours"), 2.0 / 3.0, "window");
    // g0 and g1 40 min each, g2 10 min
    assert_close(num(&v, "/layers/observed_gpu_hours"), 1.5, "observed");
    assert!(has_entry(
        &v,
        "/data_quality/notes",
        "1 GPUs with a single sample in a time series weighed the fleet's step, 10m each"
    ));
    // --interval is the user's word for a single sample: it stays
    let v = report_json(&[&awkward("lone-sample-in-series.csv"), "--interval", "1h"])?;
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        4.0 / 3.0 + 1.0,
        "--interval",
    );
    Ok(())
}

/// `--since 30m` counts back from the window's end (10:40, the last
/// sample's weight included), in memory and streamed alike: a 30-minute window.
#[test]
fn since_a_span_counts_back_from_the_windows_end() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let pq = as_parquet(
        &awkward("baseline.csv"),
        &dir.path().join("baseline.parquet"),
    )?;
    for input in [awkward("baseline.csv"), pq] {
        let v = report_json(&[&input, "--since", "30m"])?;
        assert_eq!(v["window"]["start"], "2026-07-06T10:10:00Z", "{input}");
        assert_eq!(v["window"]["end"], "2026-07-06T10:40:00Z", "{input}");
        assert_close(num(&v, "/window/hours"), 0.5, &input);
        assert_close(num(&v, "/layers/observed_gpu_hours"), 1.0, &input);
        let v = report_json(&[&input, "--until", "20m"])?;
        assert_eq!(v["window"]["end"], "2026-07-06T10:20:00Z", "{input}");
    }
    Ok(())
}

/// A fixture CSV written as parquet, its `time` a UTC datetime (streamed).
fn as_parquet(csv: &str, dest: &std::path::Path) -> anyhow::Result<String> {
    use polars::prelude::*;
    let mut df = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(csv.into()))?
        .finish()?;
    let time = df
        .column("time")?
        .as_materialized_series()
        .str()?
        .as_datetime(
            Some("%Y-%m-%dT%H:%M:%SZ"),
            TimeUnit::Milliseconds,
            false,
            false,
            Some(&TimeZone::UTC),
            &StringChunked::from_iter(std::iter::once("raise")),
        )?
        .into_series();
    df.with_column(time.into_column())?;
    ParquetWriter::new(std::fs::File::create(dest)?).finish(&mut df)?;
    Ok(dest.display().to_string())
}

/// One UUID under `node1` and `node1.cluster.local` (two exporters, same
/// instants) is one GPU, counted once, with a warning naming the spellings;
/// in memory and streamed alike. 2 GPUs x 40 min; 4 repeats counted.
#[test]
fn one_uuid_under_two_host_spellings_is_one_gpu() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let csv = awkward("uuid-two-host-spellings.csv");
    let pq = as_parquet(&csv, &dir.path().join("uuid.parquet"))?;
    for input in [csv, pq] {
        let v = report_json(&[&input])?;
        assert_eq!(v["gpu_count"], 2, "{input}");
        assert_close(num(&v, "/layers/observed_gpu_hours"), 4.0 / 3.0, &input);
        assert_close(num(&v, "/layers/held_gpu_hours"), 2.0 / 3.0, &input);
        assert_eq!(v["data_quality"]["duplicates"], 4, "{input}");
        assert!(
            has_entry(
                &v,
                "/data_quality/warnings",
                "identity: 1 GPU UUIDs appear under more than one host name (such as GPU-0a1b2c3d-0000-4000-8000-000000000001 under node1, node1.cluster.local): each is one GPU, counted once under node1"
            ),
            "{input}"
        );
    }
    Ok(())
}

/// A MIG parent exported beside its two instances is billed once: the
/// parent's 4 samples at the instances' instants are dropped, with a warning;
/// the two instances, 40 min each, remain. Streamed parquet reads it alike.
#[test]
fn a_mig_parent_beside_its_instances_is_billed_once() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let csv = awkward("mig-parent-and-instances.csv");
    let pq = as_parquet(&csv, &dir.path().join("mig.parquet"))?;
    for input in [csv, pq] {
        let v = report_json(&[&input])?;
        assert_eq!(v["gpu_count"], 2, "{input}");
        assert_close(num(&v, "/layers/observed_gpu_hours"), 4.0 / 3.0, &input);
        assert!(
            has_entry(
                &v,
                "/data_quality/warnings",
                "MIG: 4 samples of 1 parent GPUs dropped at times their MIG instances report: each card is billed once, as its instances"
            ),
            "{input}"
        );
    }
    Ok(())
}

/// Two exporters scraping g0 1 s apart (an HA pair): with `--align 1s` each
/// pair is one sample, with a note; the fleet reads as the baseline does.
#[test]
fn an_ha_pair_within_align_is_one_sample() -> anyhow::Result<()> {
    // without --align: g0's median step is 1 s, max gap 3 s, and 3 x 596 s
    // of its half hour unobserved; a warning points at the pairs
    let v = report_json(&[&awkward("ha-pair-1s-apart.csv")])?;
    assert_close(
        num(&v, "/data_quality/unobserved_gpu_hours"),
        1788.0 / 3600.0,
        "unobserved",
    );
    assert!(has_entry(
        &v,
        "/data_quality/warnings",
        "time: 1 GPUs have a third or more of their steps beyond 3 median steps"
    ));
    let v = report_json(&[&awkward("ha-pair-1s-apart.csv"), "--align", "1s"])?;
    assert_fleet(&v, "--align 1s");
    assert_close(
        num(&v, "/data_quality/unobserved_gpu_hours"),
        0.0,
        "unobserved",
    );
    assert!(has_entry(
        &v,
        "/data_quality/notes",
        "4 samples within --align 1s of a GPU's sample kept were the same sample"
    ));
    Ok(())
}

/// g0 repeated at each instant, not held and idle, in a file of its own:
/// the held, busier sample is kept whatever the order of the files, 4
/// repeats counted, and a warning says they disagree.
#[test]
fn disagreeing_duplicates_warn_and_do_not_depend_on_argument_order() -> anyhow::Result<()> {
    let (a, b) = (awkward("baseline.csv"), awkward("g0-repeated-not-held.csv"));
    for args in [[&a, &b], [&b, &a]] {
        let v = report_json(&[args[0].as_str(), args[1].as_str()])?;
        assert_fleet(&v, "repeats");
        assert_eq!(v["data_quality"]["duplicates"], 4);
        assert!(has_entry(
            &v,
            "/data_quality/warnings",
            "duplicates: 4 repeats of a GPU's sample (same instant, or within --align) disagree with the one kept"
        ));
    }
    Ok(())
}
