//! Writing to stdout without panicking on a closed pipe, and the report's
//! format from `--format` and `-o`'s extension.
use crate::cli::ReportFormat;
use anyhow::bail;
use std::io::Write;
use std::path::Path;

/// Write a whole rendered document to stdout; a broken pipe surfaces as
/// [`crate::error::StdoutClosed`], which `main` turns into a quiet exit (the
/// only place one is made: a broken pipe elsewhere is an error).
pub fn write_stdout(text: &str) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    lock.write_all(text.as_bytes())
        .and_then(|()| lock.flush())
        .map_err(crate::error::stdout_write_error)
}

/// A document written as it is produced, to `-o FILE` or stdout, through a
/// buffer (never whole in memory); errors as [`write_stdout`] and
/// `--output FILE: cannot write` say them.
pub fn write_streamed(
    output: Option<&Path>,
    write: &dyn Fn(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    match output {
        Some(path) => {
            let cannot = || format!("--output {}: cannot write", path.display());
            let file = std::fs::File::create(path).with_context(cannot)?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            write(&mut out)
                .and_then(|()| out.flush())
                .with_context(cannot)
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            write(&mut out)
                .and_then(|()| out.flush())
                .map_err(crate::error::stdout_write_error)
        }
    }
}

/// The format an output file's extension names (case aside), if any.
fn format_of_extension(path: &Path) -> Option<(ReportFormat, &'static str)> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "html" | "htm" => (ReportFormat::Html, "an HTML file"),
        "json" => (ReportFormat::Json, "a JSON file"),
        "csv" => (ReportFormat::Csv, "a CSV file"),
        "md" | "markdown" => (ReportFormat::Markdown, "a Markdown file"),
        _ => return None,
    })
}

/// The report's format: `--format` when given, else the one `-o`'s extension
/// names (`.html`, `.json`, `.csv`, `.md`), else the table. A `--format` that
/// contradicts the extension is refused (exit 2), naming both: the file would
/// hold one format under another's name.
pub fn report_format(
    given: Option<ReportFormat>,
    output: Option<&Path>,
) -> anyhow::Result<ReportFormat> {
    let named = output.and_then(|p| format_of_extension(p).map(|f| (p, f)));
    match (given, named) {
        (Some(g), Some((path, (n, name)))) if g != n => bail!(
            "--format {} contradicts -o {} ({name}): drop --format, or name the file for {}",
            format_name(g),
            path.display(),
            format_name(g)
        ),
        (Some(g), _) => Ok(g),
        (None, Some((_, (n, _)))) => Ok(n),
        (None, None) => Ok(ReportFormat::Table),
    }
}

/// A format as `--format` spells it.
fn format_name(f: ReportFormat) -> &'static str {
    match f {
        ReportFormat::Table => "table",
        ReportFormat::Json => "json",
        ReportFormat::Csv => "csv",
        ReportFormat::Markdown => "markdown",
        ReportFormat::Html => "html",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_picks_the_format_unless_format_says() -> anyhow::Result<()> {
        let f = |given, out: &str| report_format(given, Some(Path::new(out)));
        assert_eq!(f(None, "fleet.html")?, ReportFormat::Html);
        assert_eq!(f(None, "FLEET.HTM")?, ReportFormat::Html);
        assert_eq!(f(None, "x.json")?, ReportFormat::Json);
        assert_eq!(f(None, "x.csv")?, ReportFormat::Csv);
        assert_eq!(f(None, "x.md")?, ReportFormat::Markdown);
        assert_eq!(f(None, "x.txt")?, ReportFormat::Table);
        assert_eq!(f(None, "report")?, ReportFormat::Table);
        assert_eq!(f(Some(ReportFormat::Json), "x.txt")?, ReportFormat::Json);
        assert_eq!(f(Some(ReportFormat::Html), "x.html")?, ReportFormat::Html);
        assert_eq!(report_format(None, None)?, ReportFormat::Table);
        let err = f(Some(ReportFormat::Json), "x.html")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            err,
            "--format json contradicts -o x.html (an HTML file): drop --format, or name the file for json"
        );
        assert!(f(Some(ReportFormat::Table), "x.md").is_err());
        Ok(())
    }
}
