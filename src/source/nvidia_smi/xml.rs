//! `nvidia-smi -q -x` snapshots (one document, or several appended by `-l`):
//! utilization, memory, power, MIG mode and the processes that hold each GPU.
use crate::audit::held::{held_by_device, held_without_visible_process};
use crate::audit::model::{Note, UntimedRows, Warning};
use crate::samples::{Quality, SampleTable, col, is_missing_marker, parse_number_text};
use crate::source::filetime::fallback_time;
use crate::source::{ReadOptions, from_frame};
use crate::timeparse::EpochUs;
use anyhow::{Context, Result, anyhow, bail};
use chrono::{NaiveDateTime, TimeZone, Utc};
use polars::prelude::*;
use roxmltree::{Document, Node, ParsingOptions};
use std::collections::BTreeSet;
use std::path::Path;

const MIB: f64 = 1_048_576.0;

fn child<'a, 'i>(node: Node<'a, 'i>, path: &[&str]) -> Option<Node<'a, 'i>> {
    let mut cur = node;
    for name in path {
        cur = cur.children().find(|c| c.has_tag_name(*name))?;
    }
    Some(cur)
}

fn text<'a>(node: Node<'a, '_>, path: &[&str]) -> Option<&'a str> {
    child(node, path)
        .and_then(|n| n.text())
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// A number with its unit (`22437 MiB`, `0 %`, `67.03 W`) scaled; N/A is
/// missing; anything else is infinite so normalisation counts it invalid.
fn number(value: Option<&str>, scale: f64) -> Option<f64> {
    let v = value?;
    if is_missing_marker(v) {
        return None;
    }
    Some(parse_number_text(v).map_or(f64::INFINITY, |x| x * scale))
}

/// nvidia-smi's `Fri Aug  4 11:44:30 2023` (local time of the host, no zone).
fn parse_snapshot_time(text: &str) -> Option<EpochUs> {
    let squeezed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    NaiveDateTime::parse_from_str(&squeezed, "%a %b %d %H:%M:%S %Y")
        .ok()
        .map(|ndt| Utc.from_utc_datetime(&ndt).timestamp_micros())
}

#[derive(Default)]
struct Rows {
    time: Vec<EpochUs>,
    gpu: Vec<String>,
    model: Vec<Option<String>>,
    held: Vec<bool>,
    job: Vec<Option<String>>,
    util: Vec<Option<f64>>,
    mem_used: Vec<Option<f64>>,
    mem_total: Vec<Option<f64>>,
    power: Vec<Option<f64>>,
}

/// Split appended documents; each keeps the line it starts on for errors.
fn documents(text: &str) -> Vec<(usize, &str)> {
    let mut starts: Vec<usize> = text.match_indices("<?xml").map(|(i, _)| i).collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts.dedup();
    let mut out = Vec::new();
    for (k, s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let doc = &text[*s..end];
        if !doc.trim().is_empty() {
            out.push((text[..*s].matches('\n').count(), doc));
        }
    }
    out
}

/// Parse every appended document; true when GPU UUIDs repeat within one
/// (masked or cloned), so that the PCI bus id must tell GPUs apart.
fn parse_documents<'a>(name: &str, body: &'a str) -> Result<(Vec<(usize, Document<'a>)>, bool)> {
    let mut by_pci = false;
    let mut docs = Vec::new();
    for (line_offset, doc_text) in documents(body) {
        let doc = Document::parse_with_options(
            doc_text,
            ParsingOptions {
                allow_dtd: true,
                ..ParsingOptions::default()
            },
        )
        .map_err(|e| {
            let pos = e.pos();
            anyhow!(
                "{name}:{}: not a well-formed nvidia-smi -q -x document: {e}",
                pos.row as usize + line_offset
            )
        })?;
        let root = doc.root_element();
        if !root.has_tag_name("nvidia_smi_log") {
            bail!(
                "{name}:{}: the root element is <{}>, expected <nvidia_smi_log>",
                line_offset + 1,
                root.tag_name().name()
            );
        }
        // Masked or cloned UUIDs repeat: then the PCI bus id tells GPUs apart.
        let gpus: Vec<Node> = root.children().filter(|c| c.has_tag_name("gpu")).collect();
        let distinct: BTreeSet<&str> = gpus.iter().filter_map(|g| text(*g, &["uuid"])).collect();
        if distinct.len() < gpus.len() {
            by_pci = true;
        }
        docs.push((line_offset, doc));
    }
    Ok((docs, by_pci))
}

/// The compute processes on a GPU, by executable name. Graphics-only
/// processes (a desktop's Xorg) do not hold a GPU for work.
fn compute_processes(g: Node) -> BTreeSet<String> {
    child(g, &["processes"])
        .map(|p| {
            p.children()
                .filter(|c| c.has_tag_name("process_info"))
                .filter(|c| text(*c, &["type"]).is_none_or(|t| t.contains('C')))
                .map(|c| {
                    text(c, &["process_name"])
                        .map_or("?", |n| n.rsplit('/').next().unwrap_or(n))
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Memory used in bytes (N/A: None; not a number: infinite, counted invalid).
fn mem_used(g: Node) -> Option<f64> {
    number(text(g, &["fb_memory_usage", "used"]), MIB)
}

/// Power draw in watts, from whichever element this driver writes it to.
fn power_of(g: Node) -> Option<f64> {
    [
        &["gpu_power_readings", "power_draw"][..],
        &["gpu_power_readings", "average_power_draw"],
        &["gpu_power_readings", "instant_power_draw"],
        &["power_readings", "power_draw"],
    ]
    .iter()
    .find_map(|p| number(text(g, p), 1.0))
}

impl Rows {
    /// One GPU of one snapshot.
    fn push_gpu(
        &mut self,
        g: Node,
        time: EpochUs,
        id: String,
        procs: BTreeSet<String>,
        util: Option<f64>,
        held: bool,
    ) {
        self.time.push(time);
        self.gpu.push(id);
        self.model
            .push(text(g, &["product_name"]).map(str::to_string));
        self.held.push(held);
        self.job
            .push((!procs.is_empty()).then(|| procs.into_iter().collect::<Vec<_>>().join("+")));
        self.util.push(util);
        self.mem_used.push(mem_used(g));
        self.mem_total
            .push(number(text(g, &["fb_memory_usage", "total"]), MIB));
        self.power.push(power_of(g));
    }

    fn into_columns(self) -> Vec<Column> {
        vec![
            Column::new(col::TIME.into(), self.time),
            Column::new(col::GPU.into(), self.gpu),
            Column::new(col::MODEL.into(), self.model),
            Column::new(col::HELD.into(), self.held),
            Column::new(col::JOB.into(), self.job),
            Column::new(col::DEVICE_UTIL.into(), self.util),
            Column::new(col::MEM_USED_BYTES.into(), self.mem_used),
            Column::new(col::MEM_TOTAL_BYTES.into(), self.mem_total),
            Column::new(col::POWER_W.into(), self.power),
        ]
    }
}

/// GPUs and samples held with no compute process listed.
#[derive(Default)]
struct HiddenHeld {
    gpus: BTreeSet<String>,
    samples: u64,
}

/// What the log's reading leaves to say: repeated UUIDs, GPUs held with no
/// process listed, MIG, and the held rule.
fn describe_reading(
    name: &str,
    by_pci: bool,
    hidden: &HiddenHeld,
    mig_gpus: usize,
    opts: &ReadOptions,
    quality: &mut Quality,
) {
    if by_pci {
        quality.warnings.push(Warning::UuidsRepeat {
            file: name.to_string(),
        });
    }
    if hidden.samples > 0 {
        quality.warnings.push(Warning::HeldWithoutVisibleProcess {
            source: name.to_string(),
            gpus: hidden.gpus.len(),
            samples: hidden.samples,
            mib: opts.held_mem() / (1024 * 1024),
        });
    }
    if mig_gpus > 0 {
        quality.notes.push(Note::MigNoActivity {
            file: name.to_string(),
            gpus: mig_gpus,
        });
    }
    quality.notes.push(Note::HeldFromProcesses {
        file: name.to_string(),
    });
}

pub fn read_xml(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let body = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let mut rows = Rows::default();
    let mut quality = Quality::default();
    let mut fallback: Option<EpochUs> = None;
    let mut mig_gpus = BTreeSet::new();
    let mut hidden = HiddenHeld::default();
    let (docs, by_pci) = parse_documents(name, &body)?;
    for (line_offset, doc) in &docs {
        let line_offset = *line_offset;
        let root = doc.root_element();
        let time = match text(root, &["timestamp"]).and_then(parse_snapshot_time) {
            Some(t) => t,
            None => match fallback {
                Some(t) => t,
                None => {
                    let (t, note) = fallback_time(name, path, opts.at, UntimedRows::Snapshots)?;
                    quality.notes.push(note);
                    fallback = Some(t);
                    t
                }
            },
        };
        let gpus: Vec<Node> = root.children().filter(|c| c.has_tag_name("gpu")).collect();
        for g in &gpus {
            let uuid = text(*g, &["uuid"]);
            let pci = g.attribute("id").map(str::to_string);
            let id = if by_pci {
                pci.clone()
            } else {
                uuid.map(str::to_string).or(pci.clone())
            };
            let id = id.with_context(|| {
                format!(
                    "{name}:{}: a <gpu> without uuid or id",
                    doc.text_pos_at(g.range().start).row as usize + line_offset
                )
            })?;
            if text(*g, &["mig_mode", "current_mig"])
                .is_some_and(|m| m.eq_ignore_ascii_case("enabled"))
            {
                mig_gpus.insert(id.clone());
            }
            let procs = compute_processes(*g);
            let util = number(text(*g, &["utilization", "gpu_util"]), 0.01);
            // No process listed (a container hides them): held by activity or memory.
            let device = (
                Some(!procs.is_empty()),
                util,
                mem_used(*g).filter(|m| m.is_finite()).map(|m| m as u64),
            );
            let held = held_by_device(device.0, device.1, device.2, opts.held_mem());
            if held_without_visible_process(device.0, device.1, device.2, opts.held_mem()) {
                hidden.gpus.insert(id.clone());
                hidden.samples += 1;
            }
            rows.push_gpu(*g, time, id, procs, util, held == Some(true));
        }
    }
    if rows.time.is_empty() {
        bail!("{name}: no <gpu> elements (expected nvidia-smi -q -x output)");
    }
    describe_reading(name, by_pci, &hidden, mig_gpus.len(), opts, &mut quality);
    from_frame(
        name,
        DataFrame::new_infer_height(rows.into_columns())?,
        &opts.maps,
        quality,
    )
}

/// Whether the head of a file is an nvidia-smi XML log.
pub fn looks_like_xml(head: &str) -> bool {
    head.contains("<nvidia_smi_log")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_times_and_numbers() {
        assert!(parse_snapshot_time("Fri Aug  4 11:44:30 2023").is_some());
        assert!(parse_snapshot_time("Tue Dec 30 09:46:54 2025").is_some());
        assert_eq!(number(Some("N/A"), 0.01), None);
        assert_eq!(number(Some("65 %"), 0.01), Some(0.65));
        assert_eq!(number(Some("1 MiB"), MIB), Some(MIB));
    }

    #[test]
    fn appended_documents_split() {
        let t = "<?xml version=\"1.0\"?>\n<a/>\n<?xml version=\"1.0\"?>\n<b/>\n";
        let d = documents(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[1].0, 2);
    }
}
