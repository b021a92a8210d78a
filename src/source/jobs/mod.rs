//! The jobs file of `--jobs`: what each job declares it did, for MFU.
//! CSV, JSON (an array of objects, `{"jobs": [...]}` or NDJSON) or parquet;
//! columns `job` and either `flops_per_token` + `tokens_per_sec`, or
//! `achieved_tflops` (the job's total), or `model_flops` (over its run);
//! optional `dtype` (default bf16) and `peak_tflops` (per GPU, for GPUs the
//! peak table lacks). An optional `kind` (training, inference, interactive,
//! batch) declares the job's shape of demand for the jobs section; a row may
//! declare a kind and no work (no MFU then).
pub(crate) mod flops;
use crate::audit::diagnosis::jobs::Shape;
use crate::audit::mfu::{JobDeclaration, Work};
use crate::catalog::Dtype;
use anyhow::{Context, Result, bail};
use flops::parse_count;
use polars::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

const COLUMNS: &[&str] = &[
    "job",
    "flops_per_token",
    "tokens_per_sec",
    "achieved_tflops",
    "model_flops",
    "dtype",
    "peak_tflops",
    "kind",
];
/// The kinds a job may declare: what it is for (idle and unknown are what telemetry finds).
const KINDS: [Shape; 4] = [
    Shape::Training,
    Shape::Inference,
    Shape::Interactive,
    Shape::Batch,
];

/// What a jobs file declares: the work of each job that declares work (MFU)
/// and the kind of each job that declares one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobsFile {
    pub declarations: Vec<JobDeclaration>,
    pub kinds: BTreeMap<String, Shape>,
}
/// Free-text columns people keep beside the numbers; read and ignored.
const IGNORED: &[&str] = &["note", "notes", "comment", "description"];

#[derive(Debug, Clone, PartialEq)]
enum Val {
    Num(f64),
    Text(String),
    Null,
}

/// One record and where it is, for messages ("line 3", "record 2", "row 4").
struct Record {
    at: String,
    fields: BTreeMap<String, Val>,
}

fn from_json(v: &serde_json::Value) -> Val {
    match v {
        serde_json::Value::Null => Val::Null,
        serde_json::Value::Number(n) => n.as_f64().map(Val::Num).unwrap_or(Val::Null),
        serde_json::Value::String(s) => Val::Text(s.clone()),
        other => Val::Text(other.to_string()),
    }
}

fn json_records(name: &str, text: &str) -> Result<Vec<Record>> {
    let trimmed = text.trim_start();
    let objects: Vec<(String, serde_json::Value)> = if trimmed.starts_with('[')
        || trimmed.starts_with("{\"jobs\"")
        || trimmed.starts_with("{ \"jobs\"")
    {
        let doc: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| anyhow::anyhow!("{name}: not valid JSON: {e}"))?;
        let arr = match doc {
            serde_json::Value::Array(a) => a,
            serde_json::Value::Object(mut o) => match o.remove("jobs") {
                Some(serde_json::Value::Array(a)) => a,
                _ => bail!("{name}: expected a JSON array of job objects, or {{\"jobs\": [...]}}"),
            },
            _ => bail!("{name}: expected a JSON array of job objects"),
        };
        arr.into_iter()
            .enumerate()
            .map(|(i, v)| (format!("record {}", i + 1), v))
            .collect()
    } else {
        // NDJSON: one object per line
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| anyhow::anyhow!("{name}: line {}: not a JSON object: {e}", i + 1))?;
            out.push((format!("line {}", i + 1), v));
        }
        out
    };
    objects
        .into_iter()
        .map(|(at, v)| match v {
            serde_json::Value::Object(o) => Ok(Record {
                at,
                fields: o
                    .iter()
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), from_json(v)))
                    .collect(),
            }),
            _ => bail!("{name}: {at}: expected a JSON object with a job key"),
        })
        .collect()
}

fn frame_records(df: &DataFrame, first_line: usize, what: &str) -> Result<Vec<Record>> {
    let mut cols: Vec<(String, Vec<Val>)> = Vec::new();
    for c in df.columns() {
        let key = c.name().trim().to_ascii_lowercase();
        let vals: Vec<Val> = match c.dtype() {
            DataType::String => c
                .str()?
                .iter()
                .map(|v| v.map(|s| Val::Text(s.to_string())).unwrap_or(Val::Null))
                .collect(),
            dt if dt.is_primitive_numeric() => {
                // job ids such as 12345 stay text without a trailing ".0"
                if key == "job" {
                    let s = c.cast(&DataType::String)?;
                    s.str()?
                        .iter()
                        .map(|v| v.map(|s| Val::Text(s.to_string())).unwrap_or(Val::Null))
                        .collect()
                } else {
                    let f = c.cast(&DataType::Float64)?;
                    f.f64()?
                        .iter()
                        .map(|v| v.map(Val::Num).unwrap_or(Val::Null))
                        .collect()
                }
            }
            _ => {
                let s = c.cast(&DataType::String)?;
                s.str()?
                    .iter()
                    .map(|v| v.map(|s| Val::Text(s.to_string())).unwrap_or(Val::Null))
                    .collect()
            }
        };
        cols.push((key, vals));
    }
    Ok((0..df.height())
        .map(|i| Record {
            at: format!("{what} {}", i + first_line),
            fields: cols
                .iter()
                .map(|(k, v)| (k.clone(), v[i].clone()))
                .collect(),
        })
        .collect())
}

fn number(name: &str, r: &Record, key: &str) -> Result<Option<f64>> {
    match r.fields.get(key) {
        None | Some(Val::Null) => Ok(None),
        Some(Val::Text(t)) if t.trim().is_empty() => Ok(None),
        Some(Val::Text(t)) => parse_count(t)
            .map(Some)
            .with_context(|| format!("{name}: {}: {key}", r.at)),
        Some(Val::Num(v)) if v.is_finite() && *v > 0.0 => Ok(Some(*v)),
        Some(Val::Num(v)) => bail!("{name}: {}: {key} must be a positive number, not {v}", r.at),
    }
}

fn job_name(name: &str, r: &Record) -> Result<String> {
    Ok(match r.fields.get("job") {
        Some(Val::Text(t)) if !t.trim().is_empty() => t.trim().to_string(),
        Some(Val::Num(v)) => format!("{v}"),
        _ => bail!(
            "{name}: {}: no job (expected the job name as the samples' job column has it)",
            r.at
        ),
    })
}

fn kind(name: &str, r: &Record, job: &str) -> Result<Option<Shape>> {
    let text = match r.fields.get("kind") {
        None | Some(Val::Null) => return Ok(None),
        Some(Val::Text(t)) if t.trim().is_empty() => return Ok(None),
        Some(Val::Text(t)) => t.clone(),
        Some(Val::Num(v)) => format!("{v}"),
    };
    match Shape::parse(&text).filter(|k| KINDS.contains(k)) {
        Some(k) => Ok(Some(k)),
        None => bail!(
            "{name}: {} (job '{job}'): kind '{}' is not one of {}",
            r.at,
            text.trim(),
            KINDS.map(Shape::name).join(", ")
        ),
    }
}

/// One record's work declaration; None when it declares only a kind.
fn declaration(name: &str, r: &Record, declares_kind: bool) -> Result<Option<JobDeclaration>> {
    let job = job_name(name, r)?;
    let fpt = number(name, r, "flops_per_token")?;
    let tps = number(name, r, "tokens_per_sec")?;
    let achieved = number(name, r, "achieved_tflops")?;
    let total = number(name, r, "model_flops")?;
    let expected =
        "expected flops_per_token with tokens_per_sec, or achieved_tflops, or model_flops";
    let work = match (fpt, tps, achieved, total) {
        (Some(f), Some(t), None, None) => Work::Rate(f * t),
        (None, None, Some(a), None) => Work::Rate(a * 1e12),
        (None, None, None, Some(m)) => Work::Total(m),
        (None, None, None, None) if declares_kind => return Ok(None),
        (None, None, None, None) => bail!(
            "{name}: {} (job '{job}'): declares no work; {expected} (or a kind)",
            r.at
        ),
        (Some(_), None, None, None) => bail!(
            "{name}: {} (job '{job}'): flops_per_token without tokens_per_sec",
            r.at
        ),
        (None, Some(_), None, None) => bail!(
            "{name}: {} (job '{job}'): tokens_per_sec without flops_per_token",
            r.at
        ),
        _ => bail!(
            "{name}: {} (job '{job}'): declares its work more than one way; {expected}, one of them",
            r.at
        ),
    };
    // each number is finite, but a product of two large ones may not be
    let (Work::Rate(amount) | Work::Total(amount)) = work;
    if !amount.is_finite() {
        bail!(
            "{name}: {} (job '{job}'): the declared work is too large to be a number of FLOPs; check its units",
            r.at
        );
    }
    let dtype = match r.fields.get("dtype") {
        None | Some(Val::Null) => Dtype::Bf16,
        Some(Val::Text(t)) if t.trim().is_empty() => Dtype::Bf16,
        Some(Val::Text(t)) => Dtype::parse(t).with_context(|| {
            let names: Vec<&str> = Dtype::ALL.iter().map(|d| d.name()).collect();
            format!(
                "{name}: {} (job '{job}'): dtype '{t}' is not one of {}",
                r.at,
                names.join(", ")
            )
        })?,
        Some(Val::Num(v)) => bail!(
            "{name}: {} (job '{job}'): dtype {v} is not a dtype (expected bf16, fp16, fp8, ...)",
            r.at
        ),
    };
    let peak_tflops = number(name, r, "peak_tflops")?;
    Ok(Some(JobDeclaration {
        job,
        work,
        dtype,
        peak_tflops,
    }))
}

/// Read and check a jobs file: the work declarations (MFU) only.
#[cfg_attr(not(feature = "fuzzing"), allow(dead_code))] // fuzzed (feature fuzzing) and tested
pub fn read_jobs_file(path: &Path) -> Result<Vec<JobDeclaration>> {
    read_jobs(path).map(|f| f.declarations)
}

/// Read and check a jobs file: one row per job, every problem named with its place.
pub fn read_jobs(path: &Path) -> Result<JobsFile> {
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).with_context(|| format!("{name}: cannot read the jobs file"))?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)])
        .trim_start()
        .to_string();
    let records = if ext == "parquet" || ext == "pq" || bytes.starts_with(b"PAR1") {
        let df = ParquetReader::new(std::io::Cursor::new(bytes))
            .finish()
            .map_err(|e| anyhow::anyhow!("{name}: not a readable parquet file: {e}"))?;
        frame_records(&df, 1, "row")?
    } else if matches!(ext.as_str(), "json" | "ndjson" | "jsonl")
        || head.starts_with('[')
        || head.starts_with('{')
    {
        let text = String::from_utf8(bytes).with_context(|| format!("{name}: not UTF-8 text"))?;
        json_records(&name, &text)?
    } else {
        let df = CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(10_000))
            .into_reader_with_file_handle(std::io::Cursor::new(bytes))
            .finish()
            .map_err(|e| anyhow::anyhow!("{name}: not a CSV file with a header row: {e}"))?;
        // line 1 is the header
        frame_records(&df, 2, "line")?
    };
    if records.is_empty() {
        bail!(
            "{name}: declares no jobs (expected a header and one row per job: {})",
            COLUMNS.join(", ")
        );
    }
    if let Some(unknown) = records
        .iter()
        .flat_map(|r| r.fields.keys())
        .find(|k| !COLUMNS.contains(&k.as_str()) && !IGNORED.contains(&k.as_str()))
    {
        bail!(
            "{name}: unknown column '{unknown}' (expected {})",
            COLUMNS.join(", ")
        );
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut out = JobsFile::default();
    for r in &records {
        let job = job_name(&name, r)?;
        if let Some(first) = seen.insert(job.clone(), r.at.clone()) {
            bail!(
                "{name}: {}: job '{job}' is declared twice (first at {first})",
                r.at
            );
        }
        let kind = kind(&name, r, &job)?;
        out.declarations
            .extend(declaration(&name, r, kind.is_some())?);
        if let Some(k) = kind {
            out.kinds.insert(job, k);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(ext: &str, text: &str) -> Result<tempfile::NamedTempFile> {
        let mut f = tempfile::Builder::new().suffix(ext).tempfile()?;
        f.write_all(text.as_bytes())?;
        Ok(f)
    }

    #[test]
    fn csv_each_kind() -> Result<()> {
        let f = write(
            ".csv",
            "job,flops_per_token,tokens_per_sec,achieved_tflops,model_flops,dtype\n\
             a,1e9,2000,,,\n12345,,,300,,fp8\nc,,,,4.2e20,BF16\n",
        )?;
        let d = read_jobs_file(f.path())?;
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].work, Work::Rate(2e12));
        assert_eq!(d[1].job, "12345");
        assert_eq!(d[1].work, Work::Rate(300e12));
        assert_eq!(d[1].dtype, Dtype::Fp8);
        assert_eq!(d[2].work, Work::Total(4.2e20));
        Ok(())
    }

    #[test]
    fn json_array_and_ndjson() -> Result<()> {
        let f = write(
            ".json",
            r#"[{"job": "a", "achieved_tflops": 100, "peak_tflops": 125}]"#,
        )?;
        let d = read_jobs_file(f.path())?;
        assert_eq!(d[0].peak_tflops, Some(125.0));
        let f = write(
            ".ndjson",
            "{\"job\": \"a\", \"model_flops\": \"1e20\"}\n{\"job\": \"b\", \"model_flops\": 2e20}\n",
        )?;
        let d = read_jobs_file(f.path())?;
        assert_eq!(d[1].work, Work::Total(2e20));
        Ok(())
    }

    #[test]
    fn errors_name_the_place() -> Result<()> {
        let msg = |text: &str| -> Result<String> {
            let f = write(".csv", text)?;
            Ok(read_jobs_file(f.path())
                .err()
                .map(|e| format!("{e:#}"))
                .unwrap_or_default())
        };
        assert!(
            msg("job,flops_per_token\na,1e9\n")?
                .contains("line 2 (job 'a'): flops_per_token without tokens_per_sec")
        );
        assert!(msg("job,achieved_tflops,model_flops\na,1,2\n")?.contains("more than one way"));
        assert!(
            msg("job,achieved_tflops\na,1\na,2\n")?
                .contains("line 3: job 'a' is declared twice (first at line 2)")
        );
        assert!(msg("job,achieved_tflops,dtype\na,1,fp4\n")?.contains("dtype 'fp4'"));
        assert!(msg("job,achieved_tflop\na,1\n")?.contains("unknown column 'achieved_tflop'"));
        assert!(msg("job,achieved_tflops\na,-1\n")?.contains("positive"));
        assert!(msg("job,kind\na,idle\n")?.contains(
            "line 2 (job 'a'): kind 'idle' is not one of training, inference, interactive, batch"
        ));
        assert!(msg("job,kind\na,\n")?.contains("declares no work"));
        Ok(())
    }

    #[test]
    fn kinds_with_and_without_work() -> Result<()> {
        let f = write(
            ".csv",
            "job,kind,achieved_tflops\ntrain,Training,300\nserve,inference,\nplain,,100\n",
        )?;
        let d = read_jobs(f.path())?;
        let jobs: Vec<&str> = d.declarations.iter().map(|d| d.job.as_str()).collect();
        assert_eq!(jobs, vec!["train", "plain"]);
        assert_eq!(
            d.kinds,
            BTreeMap::from([
                ("serve".to_string(), Shape::Inference),
                ("train".to_string(), Shape::Training),
            ])
        );
        assert_eq!(read_jobs_file(f.path())?.len(), 2);
        Ok(())
    }
}
