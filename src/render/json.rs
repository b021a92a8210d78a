use crate::audit::model::Report;
use anyhow::Result;

/// The "gpuaudit.report/1" document: plain, unrounded JSON numbers.
pub fn render(report: &Report) -> Result<String> {
    let mut s = serde_json::to_string_pretty(report)?;
    s.push('\n');
    Ok(s)
}
