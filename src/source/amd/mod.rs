//! AMD Instinct inputs: amd-smi JSON (`metric --json`, `monitor --json`),
//! amd-smi's `monitor` table, rocm-smi JSON and CSV (`--showuse` and friends),
//! and the AMD Device Metrics Exporter's series (in [`exporter`], applied by
//! the Prometheus reader to scrapes, API responses and live queries alike).
use super::format::{Format, Head, InputFile, InputFormat};
use super::{ReadOptions, from_frame};
use crate::audit::model::{Note, UntimedRows};
#[cfg(feature = "fuzzing")]
use crate::fuzzing::EntryPoint;
use crate::samples::{Quality, SampleTable, col};
use anyhow::Result;
use polars::prelude::{Column, DataFrame};
use std::path::Path;

pub mod exporter;
mod rocm;
mod smi;

// named only by the fuzz entry points
#[cfg(feature = "fuzzing")]
pub use rocm::{read_csv as read_rocm_smi_csv, read_json as read_rocm_smi_json};
#[cfg(feature = "fuzzing")]
pub use smi::{
    read_json as read_amd_smi_json, read_metric_text as read_amd_smi_text,
    read_monitor as read_amd_smi_monitor,
};

/// One canonical row per GPU and snapshot.
#[derive(Default)]
struct Rows {
    time: Vec<i64>,
    gpu: Vec<String>,
    model: Vec<Option<String>>,
    util: Vec<Option<f64>>,
    dram: Vec<Option<f64>>,
    mem_used: Vec<Option<f64>>,
    mem_total: Vec<Option<f64>>,
    power: Vec<Option<f64>>,
}

/// One GPU's readings in one snapshot, in canonical units.
#[derive(Default, Debug, PartialEq)]
struct Reading {
    gpu: String,
    time: Option<i64>,
    model: Option<String>,
    util: Option<f64>,
    dram: Option<f64>,
    mem_used: Option<f64>,
    mem_total: Option<f64>,
    power: Option<f64>,
}

impl Rows {
    fn push(&mut self, r: Reading, time: i64) {
        self.time.push(r.time.unwrap_or(time));
        self.gpu.push(r.gpu);
        self.model.push(r.model);
        self.util.push(r.util);
        self.dram.push(r.dram);
        self.mem_used.push(r.mem_used);
        self.mem_total.push(r.mem_total);
        self.power.push(r.power);
    }

    /// The frame: only columns some row has a value in (absent stays absent, never 0).
    fn frame(self) -> Result<DataFrame> {
        let mut cols = vec![
            Column::new(col::TIME.into(), self.time),
            Column::new(col::GPU.into(), self.gpu),
        ];
        if self.model.iter().any(Option::is_some) {
            cols.push(Column::new(col::MODEL.into(), self.model));
        }
        for (name, vals) in [
            (col::DEVICE_UTIL, self.util),
            (col::DRAM_ACTIVE, self.dram),
            (col::MEM_USED_BYTES, self.mem_used),
            (col::MEM_TOTAL_BYTES, self.mem_total),
            (col::POWER_W, self.power),
        ] {
            if vals.iter().any(Option::is_some) {
                cols.push(Column::new(name.into(), vals));
            }
        }
        Ok(DataFrame::new_infer_height(cols)?)
    }
}

/// Readings into a canonical table; readings without a time of their own
/// take `--at`, else the file's modification time (with a note).
fn table(
    name: &str,
    path: &Path,
    readings: Vec<Reading>,
    opts: &ReadOptions,
    mut quality: Quality,
) -> Result<SampleTable> {
    let untimed = readings.iter().filter(|r| r.time.is_none()).count();
    let fallback = if untimed > 0 {
        let (t, note) =
            super::filetime::fallback_time(name, path, opts.at, UntimedRows::Snapshots)?;
        quality.notes.insert(0, note);
        t
    } else {
        0
    };
    let mut rows = Rows::default();
    for r in readings {
        rows.push(r, fallback);
    }
    from_frame(name, rows.frame()?, &opts.maps, quality)
}

/// A number with its unit as amd-smi and rocm-smi write it: `248`, `"248"`,
/// `"248 W"`, `{"value": 248, "unit": "W"}`; `"N/A"` (and anything else) is none.
fn reading(v: &serde_json::Value) -> Option<(f64, String)> {
    match v {
        serde_json::Value::Number(n) => n.as_f64().map(|x| (x, String::new())),
        serde_json::Value::String(s) => number_with_unit(s),
        serde_json::Value::Object(o) => {
            let (x, _) = reading(o.get("value")?)?;
            let unit = o
                .get("unit")
                .and_then(|u| u.as_str())
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            Some((x, unit))
        }
        _ => None,
    }
}

/// `"248 W"`, `"31 %"`, `"0"` as (number, lower-case unit); `N/A` is none.
fn number_with_unit(s: &str) -> Option<(f64, String)> {
    let (v, unit) = crate::units::split_number(s.trim())?;
    v.is_finite().then(|| (v, unit.to_string()))
}

/// A percent reading as a fraction; outside 0..100 is no reading.
fn fraction_of_percent(v: Option<(f64, String)>) -> Option<f64> {
    let (x, unit) = v?;
    (unit.is_empty() || unit == "%")
        .then_some(x)
        .filter(|x| (0.0..=100.0).contains(x))
        .map(|x| x / 100.0)
}

/// A memory reading in bytes: amd-smi writes MB for MiB (it divides by 1024²).
fn bytes_of(v: Option<(f64, String)>, bare: f64) -> Option<f64> {
    let (x, unit) = v?;
    let factor = match unit.to_ascii_lowercase().as_str() {
        "" => bare,
        "b" => 1.0,
        "kb" | "kib" => 1024.0,
        "mb" | "mib" => 1_048_576.0,
        "gb" | "gib" => 1_073_741_824.0,
        _ => return None,
    };
    (x >= 0.0).then_some(x * factor)
}

/// A power reading in watts.
fn watts_of(v: Option<(f64, String)>) -> Option<f64> {
    let (x, unit) = v?;
    let factor = match unit.as_str() {
        "" | "w" => 1.0,
        "mw" => 0.001,
        _ => return None,
    };
    (x >= 0.0).then_some(x * factor)
}

/// `amd-smi metric --json` and `amd-smi monitor --json`.
pub struct AmdSmiJson;
impl Format for AmdSmiJson {
    fn id(&self) -> InputFormat {
        InputFormat("amd-smi-json")
    }
    fn name(&self) -> &'static str {
        "amd-smi json"
    }
    fn help(&self) -> &'static str {
        "amd-smi metric --json or amd-smi monitor --json output"
    }
    fn sniff_order(&self) -> u8 {
        20
    }
    fn sniff(&self, head: &Head) -> bool {
        smi::looks_like_json(head.text)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, smi::read_json)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("amd_smi_json", crate::fuzzing::amd_smi_json)]
    }
}

/// The table `amd-smi monitor` prints.
pub struct AmdSmiMonitor;
impl Format for AmdSmiMonitor {
    fn id(&self) -> InputFormat {
        InputFormat("amd-smi-monitor")
    }
    fn name(&self) -> &'static str {
        "amd-smi monitor"
    }
    fn help(&self) -> &'static str {
        "amd-smi monitor (amd-smi dmon) table"
    }
    fn sniff(&self, head: &Head) -> bool {
        smi::looks_like_monitor(head.first_line)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, smi::read_monitor)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("amd_smi_monitor", crate::fuzzing::amd_smi_monitor)]
    }
}

/// The text `amd-smi metric` prints (`GPU: 0`, `GFX_ACTIVITY: 45 %`…).
pub struct AmdSmiMetricText;
impl Format for AmdSmiMetricText {
    fn id(&self) -> InputFormat {
        InputFormat("amd-smi-text")
    }
    fn name(&self) -> &'static str {
        "amd-smi metric text"
    }
    fn help(&self) -> &'static str {
        "amd-smi metric (--usage, --power, --mem-usage) text output"
    }
    fn sniff(&self, head: &Head) -> bool {
        smi::looks_like_metric_text(head.text, head.first_line)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, smi::read_metric_text)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("amd_smi_text", crate::fuzzing::amd_smi_text)]
    }
}

/// `rocm-smi --json` (`--showuse`, `--showmeminfo vram`, `--showpower` …).
pub struct RocmSmiJson;
impl Format for RocmSmiJson {
    fn id(&self) -> InputFormat {
        InputFormat("rocm-smi-json")
    }
    fn name(&self) -> &'static str {
        "rocm-smi json"
    }
    fn help(&self) -> &'static str {
        "rocm-smi --showuse --json output (GFX Activity is a counter, never a percent)"
    }
    fn sniff_order(&self) -> u8 {
        20
    }
    fn sniff(&self, head: &Head) -> bool {
        rocm::looks_like_json(head.text)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, rocm::read_json)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("rocm_smi", crate::fuzzing::rocm_smi)]
    }
}

/// `rocm-smi --csv` (`--showuse` and friends).
pub struct RocmSmiCsv;
impl Format for RocmSmiCsv {
    fn id(&self) -> InputFormat {
        InputFormat("rocm-smi-csv")
    }
    fn name(&self) -> &'static str {
        "rocm-smi csv"
    }
    fn help(&self) -> &'static str {
        "rocm-smi --showuse --csv output"
    }
    fn shared_extensions(&self) -> &'static [&'static str] {
        &["csv"]
    }
    fn sniff(&self, head: &Head) -> bool {
        rocm::looks_like_csv(head.first_line)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, rocm::read_csv)
    }
}

/// rocm-smi's GFX Activity is a counter: a note when it was the only activity.
fn counter_only_note(name: &str, gpus: usize) -> Note {
    Note::CounterNotPercent {
        file: name.to_string(),
        column: "GFX Activity".into(),
        gpus,
    }
}
