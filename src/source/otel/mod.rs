//! OpenTelemetry GPU metrics as OTLP JSON: the collector's file exporter
//! (one `{"resourceMetrics": [...]}` object per line) or one such object.
//! The hardware semantic conventions `hw.gpu.utilization` (task `general`
//! or none), `hw.gpu.memory.usage`, `hw.gpu.memory.limit` and `hw.gpu.power`
//! become device activity, memory and power, whichever vendor (`hw.vendor`)
//! wrote them; `hw.id` names the device. Points pivot into rows the way
//! Prometheus samples do.
use super::prometheus::{LabelOptions, PromSample, pivot};
use super::{ReadOptions, from_frame};
use crate::samples::SampleTable;
use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// OTel metric -> the column name the canonical aliases read (as the
/// Prometheus exporter spells it: `hw_gpu_utilization` is a fraction).
const METRICS: &[(&str, &str)] = &[
    ("hw.gpu.utilization", "hw_gpu_utilization"),
    ("hw.gpu.memory.usage", "hw_gpu_memory_usage"),
    ("hw.gpu.memory.limit", "hw_gpu_memory_limit"),
    ("hw.gpu.power", "hw_gpu_power"),
];

/// Attribute -> the label the pivot reads it as.
const LABELS: &[(&str, &str)] = &[
    ("hw.id", "gpu"),
    ("host.name", "host"),
    ("hw.gpu.model", "model"),
    ("hw.model", "model"),
    ("k8s.pod.name", "pod"),
    ("k8s.namespace.name", "namespace"),
];

/// Whether a file's head is OTLP JSON metrics.
pub fn looks_like_otlp(head: &str) -> bool {
    let t = head.trim_start();
    t.starts_with('{') && t.get(..200).unwrap_or(t).contains("\"resourceMetrics\"")
}

/// An OTLP attribute value as text (`stringValue`, `intValue`, ...).
fn any_value(v: &Value) -> Option<String> {
    let (_, inner) = v.as_object()?.iter().next()?;
    match inner {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `attributes: [{key, value}]` into `labels`, renamed as [`LABELS`] says;
/// `hw.gpu.task` and `hw.type` kept under their own names for the filters.
fn read_attributes(v: Option<&Value>, labels: &mut BTreeMap<String, String>) {
    for a in v.and_then(Value::as_array).into_iter().flatten() {
        let (Some(key), Some(value)) = (a["key"].as_str(), any_value(&a["value"])) else {
            continue;
        };
        if let Some((_, to)) = LABELS.iter().find(|(k, _)| *k == key) {
            labels.entry((*to).to_string()).or_insert(value);
        } else if matches!(key, "hw.gpu.task" | "hw.type") {
            labels.insert(key.to_string(), value);
        }
    }
}

/// A number point's value: `asDouble`, or `asInt` (a string in OTLP JSON).
fn point_value(p: &Value) -> Option<f64> {
    match (&p["asDouble"], &p["asInt"]) {
        (Value::Number(n), _) => n.as_f64(),
        (_, Value::Number(n)) => n.as_f64(),
        (_, Value::String(s)) => s.parse::<f64>().ok(),
        (Value::String(s), _) => s.parse::<f64>().ok(), // "NaN", "Infinity"
        _ => None,
    }
}

fn point_time(p: &Value) -> Option<i64> {
    let ns = match &p["timeUnixNano"] {
        Value::String(s) => s.parse::<i64>().ok()?,
        Value::Number(n) => n.as_i64()?,
        _ => return None,
    };
    Some(ns / 1000)
}

/// The column a metric feeds, and the factor into its unit; None: not read.
fn column_of(metric: &Value, labels: &BTreeMap<String, String>) -> Option<(&'static str, f64)> {
    let name = metric["name"].as_str()?;
    let unit = metric["unit"].as_str().unwrap_or("");
    if name == "hw.power" && labels.get("hw.type").map(String::as_str) == Some("gpu") {
        return Some(("hw_gpu_power", 1.0));
    }
    let (_, column) = METRICS.iter().find(|(m, _)| *m == name)?;
    // decoder/encoder time is not the device busy
    if name == "hw.gpu.utilization"
        && labels
            .get("hw.gpu.task")
            .is_some_and(|t| !t.eq_ignore_ascii_case("general"))
    {
        return None;
    }
    let factor = if unit == "%" { 0.01 } else { 1.0 };
    Some((column, factor))
}

/// One `{"resourceMetrics": [...]}` object's GPU points as samples.
fn samples_of(doc: &Value, where_: &str, out: &mut Vec<PromSample>) -> Result<()> {
    let resources = doc["resourceMetrics"].as_array().with_context(|| {
        format!("{where_}: no resourceMetrics array (expected OTLP JSON metrics)")
    })?;
    for rm in resources {
        let mut resource = BTreeMap::new();
        read_attributes(rm.pointer("/resource/attributes"), &mut resource);
        for sm in rm["scopeMetrics"].as_array().into_iter().flatten() {
            for metric in sm["metrics"].as_array().into_iter().flatten() {
                let points = metric
                    .pointer("/gauge/dataPoints")
                    .or_else(|| metric.pointer("/sum/dataPoints"))
                    .and_then(Value::as_array);
                for p in points.into_iter().flatten() {
                    let mut labels = resource.clone();
                    read_attributes(p.get("attributes"), &mut labels);
                    let Some((column, factor)) = column_of(metric, &labels) else {
                        continue;
                    };
                    let time = point_time(p).with_context(|| {
                        format!("{where_}: a {} point without timeUnixNano", column)
                    })?;
                    labels.remove("hw.gpu.task");
                    labels.remove("hw.type");
                    out.push(PromSample {
                        metric: column.to_string(),
                        labels,
                        value: point_value(p).map_or(f64::NAN, |v| v * factor),
                        time_us: Some(time),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Read OTLP JSON (one object, or one per line) into the canonical table.
pub fn read_otlp(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let mut samples = Vec::new();
    match serde_json::from_str::<Value>(&text) {
        Ok(doc) => samples_of(&doc, name, &mut samples)?,
        Err(_) => {
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let doc: Value = serde_json::from_str(line).map_err(|e| {
                    anyhow!("{name}:{}: not OTLP JSON ({e}; expected one {{\"resourceMetrics\": ...}} object per line)", i + 1)
                })?;
                samples_of(&doc, &format!("{name}:{}", i + 1), &mut samples)?;
            }
        }
    }
    if samples.is_empty() {
        bail!(
            "{name}: no GPU points (expected hw.gpu.utilization, hw.gpu.memory.usage, hw.gpu.memory.limit or hw.gpu.power)"
        );
    }
    let label_opts = LabelOptions {
        job_label: opts.job_label.clone(),
        team_label: opts.team_label.clone(),
        align_us: opts.align_us,
    };
    let (frame, quality) = pivot(samples, &label_opts)?;
    if frame.height() == 0 {
        bail!("{name}: no GPU points with an hw.id attribute (the device id)");
    }
    from_frame(name, frame, &opts.maps, quality)
}

/// OpenTelemetry OTLP JSON metrics (the collector's file exporter), `hw.gpu.*`.
pub struct OtlpJson;
impl crate::source::format::Format for OtlpJson {
    fn id(&self) -> crate::source::format::InputFormat {
        crate::source::format::InputFormat("otlp-json")
    }
    fn name(&self) -> &'static str {
        "opentelemetry otlp json"
    }
    fn help(&self) -> &'static str {
        "OpenTelemetry OTLP JSON metrics (collector file exporter): hw.gpu.*"
    }
    fn shared_extensions(&self) -> &'static [&'static str] {
        &["jsonl", "ndjson"]
    }
    fn sniff_order(&self) -> u8 {
        15
    }
    fn sniff(&self, head: &crate::source::format::Head) -> bool {
        looks_like_otlp(head.text)
    }
    fn read(
        &self,
        files: &[crate::source::format::InputFile],
        opts: &ReadOptions,
    ) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, read_otlp)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, crate::fuzzing::EntryPoint)] {
        &[("otel_otlp", crate::fuzzing::otel_otlp)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoder_time_is_not_device_activity() {
        let m: Value = serde_json::json!({"name": "hw.gpu.utilization", "unit": "1"});
        let mut l = BTreeMap::new();
        assert_eq!(column_of(&m, &l), Some(("hw_gpu_utilization", 1.0)));
        l.insert("hw.gpu.task".to_string(), "encoder".to_string());
        assert_eq!(column_of(&m, &l), None);
    }
}
