//! The one list of input formats. Detection by extension and by content, the
//! "expected …" list of an unknown file, the `--input-format` values and the
//! fuzz targets of the parsers all come from [`FORMATS`].
//!
//! Adding a format: write its adapter (a folder under `src/source/`) with a
//! unit struct implementing [`Format`] (its `sniff_order` says how specific
//! its sniff is: specific ones are tried before catch-alls), add ONE line to
//! [`FORMATS`] (the order `--help` lists), and
//! give each of its fuzz targets a seed folder (`testdata/fuzz/seeds/<target>/`)
//! and a two-line `fuzz/fuzz_targets/<target>.rs` with its `[[bin]]` in
//! `fuzz/Cargo.toml` (cargo-fuzz needs a binary per target;
//! `tests/fuzz_regressions.rs` checks the three agree).
use super::{ReadOptions, files, nvidia_smi, prometheus};
#[cfg(feature = "fuzzing")]
use crate::fuzzing::EntryPoint;
use crate::samples::SampleTable;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// A format as the rest of the code names it: its `--input-format` value.
/// (A key into [`FORMATS`], so a `match` on the built-in ones still works.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputFormat(pub &'static str);

/// The built-in formats other modules name directly.
#[allow(non_upper_case_globals)]
impl InputFormat {
    pub const Parquet: InputFormat = InputFormat("parquet");
    pub const Csv: InputFormat = InputFormat("csv");
    pub const Ndjson: InputFormat = InputFormat("ndjson");
    /// Prometheus text exposition / OpenMetrics (a dcgm-exporter or AMD exporter scrape)
    pub const PromText: InputFormat = InputFormat("prom");
    /// Prometheus HTTP API response (/api/v1/query, /api/v1/query_range)
    pub const PromJson: InputFormat = InputFormat("prom-json");
    /// nvidia-smi --query-gpu / --query-compute-apps CSV log
    pub const NvidiaSmiCsv: InputFormat = InputFormat("nvidia-smi");
    /// nvidia-smi dmon log
    pub const NvidiaSmiDmon: InputFormat = InputFormat("nvidia-smi-dmon");
    /// nvidia-smi -q -x snapshots
    pub const NvidiaSmiXml: InputFormat = InputFormat("nvidia-smi-xml");
}

impl InputFormat {
    /// The registered format.
    pub fn def(self) -> Option<&'static dyn Format> {
        FORMATS.iter().copied().find(|f| f.id() == self)
    }

    /// How messages name it ("prometheus text").
    pub fn name(self) -> &'static str {
        self.def().map_or(self.0, |f| f.name())
    }

    /// The format an extension names outright; `None` when the extension
    /// does not say (or is shared with formats told apart by content).
    pub fn from_extension(path: &Path) -> Option<InputFormat> {
        let ext = extension(path)?;
        FORMATS
            .iter()
            .find(|f| f.extensions().contains(&ext.as_str()))
            .map(|f| f.id())
    }

    /// By content, from the first bytes of the file: the first format in
    /// [`FORMATS`] whose sniff says yes.
    pub fn sniff(head: &[u8]) -> Option<InputFormat> {
        let text = String::from_utf8_lossy(head);
        let head = Head::new(head, &text);
        by_sniff_order()
            .into_iter()
            .find(|f| f.sniff(&head))
            .map(|f| f.id())
    }

    /// The format a `--input-format` value names (its id, or a spelling it also accepts).
    pub fn parse(value: &str) -> Option<InputFormat> {
        let v = value.trim().to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|f| f.id().0 == v || f.also_accepted().contains(&v.as_str()))
            .map(|f| f.id())
    }
}

fn extension(path: &Path) -> Option<String> {
    Some(path.extension()?.to_str()?.to_ascii_lowercase())
}

/// The first bytes of a file, as the sniffs look at them.
pub struct Head<'a> {
    pub bytes: &'a [u8],
    /// lossy UTF-8 of the bytes
    pub text: &'a str,
    /// the first non-empty line, leading blanks trimmed ("" when none)
    pub first_line: &'a str,
}

impl<'a> Head<'a> {
    pub fn new(bytes: &'a [u8], text: &'a str) -> Head<'a> {
        let first_line = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .map_or("", str::trim_start);
        Head {
            bytes,
            text,
            first_line,
        }
    }
}

/// One file to read: the name the user gave, its path, its format.
pub type InputFile = (String, PathBuf, InputFormat);

/// What one input format is: how it is named, recognised and read.
pub trait Format: Sync {
    /// The `--input-format` value, and the key other code names it by.
    fn id(&self) -> InputFormat;
    /// How messages name it ("nvidia-smi csv").
    fn name(&self) -> &'static str;
    /// The `--input-format` help line.
    fn help(&self) -> &'static str;
    /// Other `--input-format` spellings it accepts (lower-case).
    fn also_accepted(&self) -> &'static [&'static str] {
        &[]
    }
    /// Extensions (lower-case, no dot) that name this format outright.
    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }
    /// Extensions it shares with a more general format (nvidia-smi logs are
    /// `.csv` too): with one of these, the content decides before the extension.
    fn shared_extensions(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether the head of a file is this format.
    fn sniff(&self, head: &Head) -> bool;
    /// When its sniff is tried: magic bytes 0, a distinctive document 10-20,
    /// a distinctive first line 30-40, catch-alls (any JSON, any comma) 90+.
    fn sniff_order(&self) -> u8 {
        40
    }
    /// Formats with the same batch key are read in one call (scrapes of one
    /// GPU join across files; compute-apps logs join their query-gpu log).
    fn batch(&self) -> Option<&'static str> {
        None
    }
    /// Read the files (one, or a batch) into canonical tables.
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>>;
    /// The fuzz targets of its parser: (target name, entry point).
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[]
    }
}

/// Every input format, in the order `--help` lists them. Sniffs are tried by
/// [`Format::sniff_order`], then in this order.
pub static FORMATS: &[&dyn Format] = &[
    &Parquet,
    &Csv,
    &Ndjson,
    &PromText,
    &PromJson,
    &NvidiaSmiCsv,
    &NvidiaSmiDmon,
    &NvidiaSmiXml,
    &super::amd::AmdSmiJson,
    &super::amd::AmdSmiMonitor,
    &super::amd::AmdSmiMetricText,
    &super::amd::RocmSmiJson,
    &super::amd::RocmSmiCsv,
    &super::gaudi::GaudiHlSmi,
    &super::intel::IntelXpuSmi,
    &super::otel::OtlpJson,
];

/// The formats in the order their sniffs are tried.
fn by_sniff_order() -> Vec<&'static dyn Format> {
    let mut v: Vec<&'static dyn Format> = FORMATS.to_vec();
    v.sort_by_key(|f| f.sniff_order());
    v
}

/// Decide the format of one file: the override, else the content where the
/// extension is shared, else the extension, else the content.
pub fn format_of(path: &Path, forced: Option<InputFormat>) -> Result<InputFormat> {
    if let Some(f) = forced {
        return Ok(f);
    }
    let ext = extension(path);
    let shared: Vec<&dyn Format> = by_sniff_order()
        .into_iter()
        .filter(|f| {
            ext.as_deref()
                .is_some_and(|e| f.shared_extensions().contains(&e))
        })
        .collect();
    if !shared.is_empty() {
        let bytes = files::read_head(path, 4096)?;
        let text = String::from_utf8_lossy(&bytes);
        let head = Head::new(&bytes, &text);
        if let Some(f) = shared.iter().find(|f| f.sniff(&head)) {
            return Ok(f.id());
        }
    }
    if let Some(f) = InputFormat::from_extension(path) {
        return Ok(f);
    }
    let head = files::read_head(path, 4096)?;
    InputFormat::sniff(&head).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: cannot tell the format from the extension or the content; say which with --input-format, one of:\n  {}",
            crate::error::echo(&path.display().to_string()),
            expected_list()
        )
    })
}

/// The formats by their `--input-format` value, for "expected …" messages
/// (the values are shorter than the names, and say what to type).
pub fn expected_list() -> String {
    FORMATS
        .iter()
        .map(|f| f.id().0)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `--input-format` values with their help lines, in registry order.
pub fn values() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
    FORMATS
        .iter()
        .map(|f| (f.id().0, f.help(), f.also_accepted()))
        .collect()
}

/// Every fuzz target of a format parser, in registry order.
#[cfg(feature = "fuzzing")]
pub fn fuzz_targets() -> Vec<(&'static str, EntryPoint)> {
    FORMATS
        .iter()
        .flat_map(|f| f.fuzz_targets().iter().copied())
        .collect()
}

/// One table from the tables a format read (one per file, or one per log).
pub fn one_table(name: &str, mut tables: Vec<SampleTable>) -> Result<SampleTable> {
    match tables.len() {
        0 => anyhow::bail!("{name}: no samples"),
        1 => tables
            .pop()
            .ok_or_else(|| anyhow::anyhow!("{name}: no samples")),
        _ => SampleTable::concat(tables),
    }
}

/// Parquet files and hive-partitioned directories of them.
pub struct Parquet;
impl Format for Parquet {
    fn id(&self) -> InputFormat {
        InputFormat::Parquet
    }
    fn name(&self) -> &'static str {
        "parquet"
    }
    fn help(&self) -> &'static str {
        "Parquet file (or a directory of them)"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["parquet", "pq"]
    }
    fn sniff_order(&self) -> u8 {
        0
    }
    fn sniff(&self, head: &Head) -> bool {
        head.bytes.starts_with(b"PAR1")
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        tabular(files, opts)
    }
}

/// Read each file on its own (a format whose files never join).
pub fn each_file(
    files: &[InputFile],
    opts: &ReadOptions,
    read: impl Fn(&str, &Path, &ReadOptions) -> Result<SampleTable>,
) -> Result<Vec<SampleTable>> {
    files
        .iter()
        .map(|(name, path, _)| read(name, path, opts))
        .collect()
}

/// CSV (or TSV) with a header row.
pub struct Csv;
impl Format for Csv {
    fn id(&self) -> InputFormat {
        InputFormat::Csv
    }
    fn name(&self) -> &'static str {
        "csv"
    }
    fn help(&self) -> &'static str {
        "CSV (or TSV) with a header row"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["csv", "tsv"]
    }
    fn sniff_order(&self) -> u8 {
        99
    }
    fn sniff(&self, head: &Head) -> bool {
        head.first_line.contains(',')
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        tabular(files, opts)
    }
}

/// Newline-delimited JSON objects (or one JSON array of them).
pub struct Ndjson;
impl Format for Ndjson {
    fn id(&self) -> InputFormat {
        InputFormat::Ndjson
    }
    fn name(&self) -> &'static str {
        "ndjson"
    }
    fn help(&self) -> &'static str {
        "Newline-delimited JSON objects (or a JSON array of them)"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["ndjson", "jsonl"]
    }
    fn sniff_order(&self) -> u8 {
        90
    }
    fn sniff(&self, head: &Head) -> bool {
        head.first_line.starts_with('{') || head.first_line.starts_with('[')
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        tabular(files, opts)
    }
}

fn tabular(files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
    files
        .iter()
        .map(|(name, path, format)| files::read_tabular(name, path, *format, &opts.maps))
        .collect()
}

/// Prometheus text exposition or OpenMetrics: a dcgm-exporter or AMD Device
/// Metrics Exporter scrape.
pub struct PromText;
impl Format for PromText {
    fn id(&self) -> InputFormat {
        InputFormat::PromText
    }
    fn name(&self) -> &'static str {
        "prometheus text"
    }
    fn help(&self) -> &'static str {
        "Prometheus text exposition or OpenMetrics (a dcgm-exporter or AMD exporter /metrics scrape)"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["prom", "metrics", "om"]
    }
    fn sniff(&self, head: &Head) -> bool {
        prometheus::text::looks_like_exposition(head.first_line)
    }
    fn batch(&self) -> Option<&'static str> {
        Some("prometheus")
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        Ok(vec![prometheus::read_files(files, opts)?])
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("prom_text", crate::fuzzing::prom_text)]
    }
}

/// A Prometheus HTTP API response.
pub struct PromJson;
impl Format for PromJson {
    fn id(&self) -> InputFormat {
        InputFormat::PromJson
    }
    fn name(&self) -> &'static str {
        "prometheus api json"
    }
    fn help(&self) -> &'static str {
        "Prometheus HTTP API response (/api/v1/query or /api/v1/query_range)"
    }
    fn sniff_order(&self) -> u8 {
        10
    }
    fn sniff(&self, head: &Head) -> bool {
        prometheus::json::looks_like_response(head.text)
    }
    fn batch(&self) -> Option<&'static str> {
        Some("prometheus")
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        Ok(vec![prometheus::read_files(files, opts)?])
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("prom_json", crate::fuzzing::prom_json)]
    }
}

/// nvidia-smi --query-gpu / --query-compute-apps CSV logs.
pub struct NvidiaSmiCsv;
impl Format for NvidiaSmiCsv {
    fn id(&self) -> InputFormat {
        InputFormat::NvidiaSmiCsv
    }
    fn name(&self) -> &'static str {
        "nvidia-smi csv"
    }
    fn help(&self) -> &'static str {
        "nvidia-smi --query-gpu or --query-compute-apps CSV log"
    }
    fn shared_extensions(&self) -> &'static [&'static str] {
        &["csv"]
    }
    fn sniff(&self, head: &Head) -> bool {
        nvidia_smi::looks_like_query_csv(head.first_line)
    }
    fn batch(&self) -> Option<&'static str> {
        Some("nvidia-smi csv")
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        nvidia_smi::read_csv_files(files, opts)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("smi_csv", crate::fuzzing::smi_csv)]
    }
}

/// nvidia-smi dmon logs.
pub struct NvidiaSmiDmon;
impl Format for NvidiaSmiDmon {
    fn id(&self) -> InputFormat {
        InputFormat::NvidiaSmiDmon
    }
    fn name(&self) -> &'static str {
        "nvidia-smi dmon"
    }
    fn help(&self) -> &'static str {
        "nvidia-smi dmon log"
    }
    fn sniff_order(&self) -> u8 {
        30
    }
    fn sniff(&self, head: &Head) -> bool {
        nvidia_smi::looks_like_dmon(head.first_line)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        each_file(files, opts, nvidia_smi::read_dmon)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("smi_dmon", crate::fuzzing::smi_dmon)]
    }
}

/// nvidia-smi -q -x snapshots.
pub struct NvidiaSmiXml;
impl Format for NvidiaSmiXml {
    fn id(&self) -> InputFormat {
        InputFormat::NvidiaSmiXml
    }
    fn name(&self) -> &'static str {
        "nvidia-smi xml"
    }
    fn help(&self) -> &'static str {
        "nvidia-smi -q -x snapshots"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["xml"]
    }
    fn sniff_order(&self) -> u8 {
        10
    }
    fn sniff(&self, head: &Head) -> bool {
        nvidia_smi::xml::looks_like_xml(head.text)
    }
    fn read(&self, files: &[InputFile], opts: &ReadOptions) -> Result<Vec<SampleTable>> {
        each_file(files, opts, nvidia_smi::xml::read_xml)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, EntryPoint)] {
        &[("smi_xml", crate::fuzzing::smi_xml)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_extensions_are_unique() {
        let mut ids: Vec<&str> = FORMATS.iter().map(|f| f.id().0).collect();
        ids.extend(
            FORMATS
                .iter()
                .flat_map(|f| f.also_accepted().iter().copied()),
        );
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "an --input-format value is claimed twice");
        let mut exts: Vec<&str> = FORMATS
            .iter()
            .flat_map(|f| f.extensions().iter().copied())
            .collect();
        let n = exts.len();
        exts.sort();
        exts.dedup();
        assert_eq!(exts.len(), n, "an extension names two formats");
    }

    #[test]
    fn the_old_names_still_parse() {
        for (v, f) in [
            ("prom", InputFormat::PromText),
            ("prom-json", InputFormat::PromJson),
            ("nvidia-smi", InputFormat::NvidiaSmiCsv),
            ("NVIDIA-SMI-XML", InputFormat::NvidiaSmiXml),
            ("parquet", InputFormat::Parquet),
        ] {
            assert_eq!(InputFormat::parse(v), Some(f));
        }
        assert_eq!(InputFormat::parse("excel"), None);
    }
}
