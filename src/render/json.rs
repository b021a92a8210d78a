use crate::audit::model::{DataQuality, Note, Report, Warning};
use crate::render::notes::{note_text, warning_text};
use anyhow::Result;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

/// The "gpuaudit.report/1" document: plain, unrounded JSON numbers.
pub fn render(report: &Report) -> Result<String> {
    let mut s = serde_json::to_string_pretty(report)?;
    s.push('\n');
    Ok(s)
}

/// [`render`], written to `out` as it is produced: a report of a million
/// jobs is never one string in memory beside the report itself.
pub fn write(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// `data_quality` as written: `notes` and `warnings` are their text (the
/// strings of gpuaudit.report/1 since v0.1.0), `note_codes` and
/// `warning_codes` the same as objects with a `code` (one read back from a
/// document is its string there too; absent when empty).
#[derive(Serialize)]
struct DataQualityJson<'a> {
    duplicates: u64,
    invalid: &'a BTreeMap<String, u64>,
    unobserved_gpu_hours: f64,
    held_unknown_activity_gpu_hours: f64,
    held_unknown_gpu_hours: f64,
    rows_outside_window: u64,
    rows_dropped: u64,
    notes: Vec<String>,
    /// absent when there are no notes (documents without notes read as before)
    #[serde(skip_serializing_if = "<[Note]>::is_empty")]
    note_codes: &'a [Note],
    warnings: Vec<String>,
    /// absent when there are no warnings
    #[serde(skip_serializing_if = "<[Warning]>::is_empty")]
    warning_codes: &'a [Warning],
}

impl Serialize for DataQuality {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Destructured whole: a field added to DataQuality must be added here.
        let DataQuality {
            duplicates,
            invalid,
            unobserved_gpu_hours,
            held_unknown_activity_gpu_hours,
            held_unknown_gpu_hours,
            rows_outside_window,
            rows_dropped,
            notes,
            warnings,
        } = self;
        DataQualityJson {
            duplicates: *duplicates,
            invalid,
            unobserved_gpu_hours: *unobserved_gpu_hours,
            held_unknown_activity_gpu_hours: *held_unknown_activity_gpu_hours,
            held_unknown_gpu_hours: *held_unknown_gpu_hours,
            rows_outside_window: *rows_outside_window,
            rows_dropped: *rows_dropped,
            notes: notes.iter().map(note_text).collect(),
            note_codes: notes,
            warnings: warnings.iter().map(warning_text).collect(),
            warning_codes: warnings,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::model::ColumnName;

    #[test]
    fn notes_are_written_as_text_and_as_codes() -> Result<()> {
        let mut r = Report::default();
        r.data_quality.notes = vec![
            Note::ReadAsPercent {
                column: ColumnName {
                    canonical: "device_util".into(),
                    source: "busy".into(),
                },
                max: 50.0,
            },
            Note::WholeJobMfu,
        ];
        let v: serde_json::Value = serde_json::from_str(&render(&r)?)?;
        let q = &v["data_quality"];
        assert_eq!(
            q["notes"][0],
            "device_util (column 'busy') read as percent: max 50"
        );
        assert_eq!(
            q["note_codes"][0],
            serde_json::json!({"code": "read_as_percent",
                "column": {"canonical": "device_util", "source": "busy"}, "max": 50.0})
        );
        assert_eq!(
            q["note_codes"][1],
            serde_json::json!({"code": "whole_job_mfu"})
        );
        assert_eq!(q["notes"].as_array().map(Vec::len), Some(2));
        assert_eq!(q.get("warning_codes"), None, "absent without warnings");
        Ok(())
    }

    #[test]
    fn a_documents_string_notes_read_back_as_text_and_write_the_same() -> Result<()> {
        let doc = r#"{"schema":"gpuaudit.report/1","data_quality":{"notes":["a: b","c"],"warnings":["w"]}}"#;
        let r: Report = serde_json::from_str(doc)?;
        assert_eq!(
            r.data_quality.notes,
            vec![Note::Text("a: b".into()), Note::Text("c".into())]
        );
        let v: serde_json::Value = serde_json::from_str(&render(&r)?)?;
        assert_eq!(v["data_quality"]["notes"], serde_json::json!(["a: b", "c"]));
        assert_eq!(r.data_quality.warnings, vec![Warning::Text("w".into())]);
        assert_eq!(v["data_quality"]["warnings"], serde_json::json!(["w"]));
        // a typed note read back (from note_codes) is the same note
        let typed: Note = serde_json::from_str(r#"{"code":"snapshot","weight_us":3600000}"#)?;
        assert_eq!(
            typed,
            Note::Snapshot {
                weight_us: 3_600_000
            }
        );
        Ok(())
    }
}
