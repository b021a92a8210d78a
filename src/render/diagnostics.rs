//! What a command says on stderr beside its result: typed by cmd/, worded
//! here, printed once by main.rs (which alone writes stderr, so a closed
//! stderr never turns into a panic).
use std::path::PathBuf;

/// One thing to say on stderr.
#[derive(Debug, Clone, PartialEq)]
pub enum Diagnostic {
    /// a big CSV/NDJSON export was read in blocks: a parquet copy reads faster
    TextReadInBlocks { rows: u64 },
    /// a comparability caveat of `check` (an error under --strict)
    CheckCaveat { message: String, strict: bool },
    /// `check --allow-missing` skipped every rule
    NothingChecked,
    /// `demo` wrote a fleet (under a directory when partitioned by day)
    DemoWritten {
        rows: usize,
        gpus: usize,
        out: PathBuf,
        partitioned: bool,
    },
}

/// The diagnostics of one run, in the order they arose.
#[derive(Debug, Default)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// Each diagnostic as the line stderr shows.
    pub fn lines(&self) -> Vec<String> {
        self.0.iter().map(line).collect()
    }
}

/// The line of one diagnostic.
pub fn line(d: &Diagnostic) -> String {
    match d {
        Diagnostic::TextReadInBlocks { rows } => format!(
            "gpuaudit: {rows} rows of CSV/NDJSON read in blocks; a parquet copy reads several times faster: gpuaudit convert INPUT... -o COPY.parquet"
        ),
        Diagnostic::CheckCaveat { message, strict } => {
            let word = if *strict {
                "error (--strict)"
            } else {
                "warning"
            };
            format!("gpuaudit: {word}: {message}")
        }
        Diagnostic::NothingChecked => "gpuaudit: nothing was checked: every rule's metric is null and --allow-missing skipped it".to_string(),
        Diagnostic::DemoWritten {
            rows,
            gpus,
            out,
            partitioned,
        } => format!(
            "wrote {rows} rows of a synthetic fleet ({gpus} GPUs) {} {}",
            if *partitioned { "under" } else { "to" },
            out.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_diagnostic_reads_as_before_the_sink() {
        let mut d = Diagnostics::default();
        d.push(Diagnostic::CheckCaveat {
            message: "prices differ".into(),
            strict: true,
        });
        d.push(Diagnostic::DemoWritten {
            rows: 18,
            gpus: 3,
            out: PathBuf::from("x.csv"),
            partitioned: false,
        });
        assert_eq!(
            d.lines(),
            [
                "gpuaudit: error (--strict): prices differ",
                "wrote 18 rows of a synthetic fleet (3 GPUs) to x.csv"
            ]
        );
    }
}
