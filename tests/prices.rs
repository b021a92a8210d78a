//! `--prices` files through the binary (issue 35): every row prices a model of
//! the data or is a warning naming the file, the line and the candidates; the
//! header names the unit; `$` is accepted; negative and disagreeing duplicate
//! rows are refused naming the lines. small-fleet.csv: two H100 80GB HBM3 held
//! 1 h each (2 GPU-h held), one A100-SXM4-80GB unallocated 1 h (built-in $1.50).
mod common;

use common::{assert_close, data, gpuaudit, num, report_json};
use serde_json::Value;

fn texts(v: &Value, list: &str) -> Vec<String> {
    v["data_quality"][list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str().map(str::to_string))
        .collect()
}

fn prices(file: &str) -> String {
    data(&format!("prices/{file}"))
}

/// `report small-fleet.csv --prices FILE`: exit 2 and its one stderr line.
fn refusal(file: &str) -> anyhow::Result<String> {
    let out = gpuaudit()?
        .args([
            "report",
            &data("small-fleet.csv"),
            "--prices",
            &prices(file),
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2), "{file}");
    Ok(String::from_utf8(out.stderr)?.trim_end().to_string())
}

#[test]
fn a_short_name_prices_the_one_card_of_it_in_the_data() -> anyhow::Result<()> {
    // `H100,2.10`, the name on every price sheet: before, it matched nothing
    // and the built-in $3.00 billed the H100s ($6.00 held)
    let v = report_json(&[
        &data("small-fleet.csv"),
        "--prices",
        &prices("h100-short.csv"),
    ])?;
    assert_close(num(&v, "/cost/held_usd"), 4.2, "2 GPU-h x $2.10");
    assert_close(
        num(&v, "/cost/unallocated_usd"),
        1.5,
        "A100: built-in $1.50",
    );
    let notes = texts(&v, "notes");
    let want = format!(
        "--prices {} line 2: 'H100' could mean several cards; it prices NVIDIA H100 80GB HBM3, the only one of them in the data",
        prices("h100-short.csv")
    );
    assert!(notes.contains(&want), "{notes:?}");
    assert!(
        texts(&v, "warnings")
            .iter()
            .all(|w| !w.contains("--prices"))
    );
    Ok(())
}

#[test]
fn a_short_name_two_cards_of_the_data_could_be_is_refused() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args([
            "report",
            &prices("two-h100s.csv"),
            "--prices",
            &prices("h100-short.csv"),
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr)?;
    assert_eq!(
        err.trim_end(),
        format!(
            "gpuaudit: --prices {} line 2: 'H100' could mean NVIDIA H100 80GB HBM3, NVIDIA H100 PCIe, NVIDIA H100 NVL, and the data holds NVIDIA H100 80GB HBM3 and NVIDIA H100 PCIe: give each its own row",
            prices("h100-short.csv")
        )
    );
    Ok(())
}

#[test]
fn rows_that_price_nothing_are_warnings_naming_the_line() -> anyhow::Result<()> {
    let file = prices("unused-rows.csv");
    let v = report_json(&[&data("small-fleet.csv"), "--prices", &file])?;
    assert_close(num(&v, "/cost/held_usd"), 8.0, "2 GPU-h x $4");
    let warnings = texts(&v, "warnings");
    for want in [
        format!(
            "--prices {file} line 3: 'L40S' prices no GPU of the data (it means NVIDIA L40S; the data's closest models: NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3): the row is not used"
        ),
        format!(
            "--prices {file} line 4: 'Mystery GPU' prices no GPU of the data (it means no card of the catalog; the data's closest models: NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3): the row is not used"
        ),
    ] {
        assert!(warnings.contains(&want), "{want}\n{warnings:?}");
    }
    let codes = v["data_quality"]["warning_codes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| w["code"] == "price_row_unused")
        .map(|w| w["line"].as_u64().unwrap_or(0))
        .collect::<Vec<_>>();
    assert_eq!(codes, vec![3, 4]);
    Ok(())
}

#[test]
fn the_header_names_the_unit() -> anyhow::Result<()> {
    // $2,190 per GPU-month is $3.00 per GPU-hour (730 hours a month), not $2,190 an hour
    let file = prices("per-month.csv");
    let v = report_json(&[&data("small-fleet.csv"), "--prices", &file])?;
    assert_close(num(&v, "/cost/held_usd"), 6.0, "2 GPU-h x 2190/730");
    let want = format!("--prices {file}: prices per GPU-month, divided by 730 hours");
    assert!(texts(&v, "notes").contains(&want));
    assert_eq!(
        refusal("unknown-unit.csv")?,
        format!(
            "gpuaudit: --prices {} line 1: the price column is 'cost', expected usd_per_gpu_hour (or price) or usd_per_gpu_month",
            prices("unknown-unit.csv")
        )
    );
    Ok(())
}

#[test]
fn dollar_signs_are_prices() -> anyhow::Result<()> {
    let v = report_json(&[&data("small-fleet.csv"), "--prices", &prices("dollars.csv")])?;
    assert_close(num(&v, "/cost/held_usd"), 5.0, "2 GPU-h x $2.50");
    assert_close(num(&v, "/cost/unallocated_usd"), 1.25, "1 GPU-h x $1.25");
    Ok(())
}

#[test]
fn negative_and_disagreeing_rows_are_refused_naming_the_lines() -> anyhow::Result<()> {
    assert_eq!(
        refusal("negative.csv")?,
        format!(
            "gpuaudit: --prices {} line 3: price of 'NVIDIA H100 80GB HBM3' is -2, expected >= 0",
            prices("negative.csv")
        )
    );
    assert_eq!(
        refusal("duplicate-conflict.csv")?,
        format!(
            "gpuaudit: --prices {} lines 2 and 4: 'NVIDIA H100 80GB HBM3' (2) and 'nvidia h100 80gb hbm3' (2.5) are the same NVIDIA H100 80GB HBM3: give one price",
            prices("duplicate-conflict.csv")
        )
    );
    // the same price twice: one price, both rows used
    let v = report_json(&[
        &data("small-fleet.csv"),
        "--prices",
        &prices("duplicate-agree.csv"),
    ])?;
    assert_close(num(&v, "/cost/held_usd"), 4.0, "2 GPU-h x $2");
    assert!(
        texts(&v, "warnings")
            .iter()
            .all(|w| !w.contains("--prices"))
    );
    Ok(())
}
