//! What a command says on stderr beside its result: typed by cmd/, worded
//! here, printed by main.rs (which alone opens stderr, so a closed stderr
//! never turns into a panic). Most lines wait for the run's end; a live scan's
//! lines (its start, a GPU that failed mid-scan) are said at once through the
//! writer main.rs hands in, since they matter while the scan runs.
use crate::audit::model::Warning;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

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
    /// `scan` started sampling (not with --quiet)
    ScanStarted { interval: Duration, span: ScanSpan },
    /// `scan -- CMD` could not sample and runs CMD as it would have
    RunningUnmonitored { why: String, command: Vec<String> },
    /// a warning of a live scan (a GPU lost mid-scan, the scan stopped early)
    ScanWarning(Warning),
}

/// How long a scan samples.
#[derive(Debug, Clone, PartialEq)]
pub enum ScanSpan {
    For(Duration),
    While(Vec<String>),
}

/// The diagnostics of one run, in the order they arose; `live` (main.rs's
/// stderr) takes the lines said at once.
#[derive(Default)]
pub struct Diagnostics {
    queued: Vec<Diagnostic>,
    live: Option<Box<dyn Write>>,
}

impl std::fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Diagnostics")
            .field("queued", &self.queued)
            .field("live", &self.live.is_some())
            .finish()
    }
}

impl Diagnostics {
    /// Diagnostics whose lines said at once go to `live` (main.rs: stderr).
    pub fn with_live(live: Box<dyn Write>) -> Self {
        Diagnostics {
            queued: Vec::new(),
            live: Some(live),
        }
    }

    /// Said when the run ends.
    pub fn push(&mut self, d: Diagnostic) {
        self.queued.push(d);
    }

    /// Said at once, where a live writer was given; else when the run ends. A
    /// closed stderr loses the line, never the run.
    pub fn now(&mut self, d: Diagnostic) {
        match &mut self.live {
            Some(w) => {
                let _ = writeln!(w, "{}", line(&d));
                let _ = w.flush();
            }
            None => self.queued.push(d),
        }
    }

    /// Each diagnostic still to say, as the line stderr shows.
    pub fn lines(&self) -> Vec<String> {
        self.queued.iter().map(line).collect()
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
        Diagnostic::ScanStarted { interval, span } => {
            let what = match span {
                ScanSpan::For(d) => format!("for {}", humantime::format_duration(*d)),
                ScanSpan::While(argv) => format!("while `{}` runs", argv.join(" ")),
            };
            format!(
                "gpuaudit: sampling every {} {what}; SIGINT or SIGTERM stops and keeps the samples",
                humantime::format_duration(*interval)
            )
        }
        Diagnostic::RunningUnmonitored { why, command } => format!(
            "gpuaudit: warning: not sampling ({why}); running `{}` unmonitored (--require-nvml makes this exit 2)",
            command.join(" ")
        ),
        Diagnostic::ScanWarning(w @ Warning::ScanStopped { .. }) => {
            format!("gpuaudit: {}", super::notes::warning_text(w))
        }
        Diagnostic::ScanWarning(w) => {
            format!("gpuaudit: warning: {}", super::notes::warning_text(w))
        }
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

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_said_now_is_written_at_once_and_not_again() {
        let out = Shared::default();
        let mut d = Diagnostics::with_live(Box::new(out.clone()));
        d.now(Diagnostic::ScanStarted {
            interval: Duration::from_secs(1),
            span: ScanSpan::While(vec!["python".into(), "train.py".into()]),
        });
        assert_eq!(
            String::from_utf8_lossy(&out.0.borrow()),
            "gpuaudit: sampling every 1s while `python train.py` runs; SIGINT or SIGTERM stops and keeps the samples\n"
        );
        assert!(d.lines().is_empty());
        // without a live writer the line waits for the run's end
        let mut queued = Diagnostics::default();
        queued.now(Diagnostic::RunningUnmonitored {
            why: "no NVML".into(),
            command: vec!["true".into()],
        });
        assert_eq!(
            queued.lines(),
            [
                "gpuaudit: warning: not sampling (no NVML); running `true` unmonitored (--require-nvml makes this exit 2)"
            ]
        );
    }
}
