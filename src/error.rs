//! Exit-code discipline: 0 ok, 1 check failed / findings over a limit,
//! 2 usage, input or device error; a wrapped command's own code where `scan --
//! CMD` runs one. The code is decided before the output is written: a closed
//! stdout (`gpuaudit check ... | head`) ends the output quietly but never turns
//! a failure into a success.
use std::fmt;
use std::io::ErrorKind;

/// Returned (wrapped in anyhow) when a check or a limit fails: exit 1.
/// Everything else that reaches `main` as an error exits 2.
#[derive(Debug)]
pub(crate) struct Findings(pub String);

impl fmt::Display for Findings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Findings {}

/// An error that keeps an exit code decided before it happened (the wrapped
/// command's, or 1 for a failed check), e.g. when the report cannot be written.
#[derive(Debug)]
pub(crate) struct KeepCode(pub u8);

impl fmt::Display for KeepCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exit code {} kept", self.0)
    }
}

impl std::error::Error for KeepCode {}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == ErrorKind::BrokenPipe)
    })
}

/// The exit code an error maps to. A decided code wins over a broken pipe
/// anywhere in the chain; a broken pipe alone (nothing failed) is a quiet 0.
pub fn exit_code_for(err: &anyhow::Error) -> u8 {
    if let Some(k) = err.downcast_ref::<KeepCode>() {
        return k.0;
    }
    if err.downcast_ref::<Findings>().is_some()
        || err.chain().any(|c| c.downcast_ref::<Findings>().is_some())
    {
        return 1;
    }
    if is_broken_pipe(err) {
        return 0;
    }
    2
}

/// Whether main should print the error: not for a quiet broken pipe.
pub fn worth_a_word(err: &anyhow::Error) -> bool {
    !(exit_code_for(err) == 0 || (is_broken_pipe(err) && err.downcast_ref::<KeepCode>().is_some()))
}

/// The longest line an error message prints: a huge value, timestamp,
/// header or `--map` name quoted inside it is shortened in the middle, so
/// the file and column (at the start) and what was expected (at the end) stay.
pub const MAX_ERROR_LINE: usize = 300;

/// The one line (or lines) main prints for an error, each at most
/// [`MAX_ERROR_LINE`] characters.
pub fn error_text(err: &anyhow::Error) -> String {
    let text = format!("gpuaudit: {err:#}");
    text.lines()
        .map(bounded_line)
        .collect::<Vec<_>>()
        .join("\n")
}

fn bounded_line(line: &str) -> String {
    let chars = line.chars().count();
    if chars <= MAX_ERROR_LINE {
        return line.to_string();
    }
    // head and tail kept; the marker, sized for the most digits it can
    // need, fits inside the bound
    let widest = format!(" …({chars} characters elided)… ").chars().count();
    let keep = MAX_ERROR_LINE - widest;
    let head = keep * 2 / 3;
    let tail = keep - head;
    let elided = chars - head - tail;
    let marker = format!(" …({elided} characters elided)… ");
    let start: String = line.chars().take(head).collect();
    let end: String = line.chars().skip(chars - tail).collect();
    format!("{start}{marker}{end}")
}

/// Write a command's whole output, then return the exit it decided before
/// writing. A closed stdout ends the output quietly: exit 0 when nothing
/// failed, the decided failure (1, 2 or the command's code) otherwise.
pub(crate) fn emit(text: &str, decided: anyhow::Result<u8>) -> anyhow::Result<u8> {
    match (crate::output::write_stdout(text), decided) {
        (Ok(()), decided) => decided,
        // nothing failed: a broken pipe is a quiet 0, another write error a 2
        (Err(write), Ok(0)) => Err(write),
        (Err(write), Ok(code)) => Err(write.context(KeepCode(code))),
        (Err(_), Err(failed)) => Err(failed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipe() -> anyhow::Error {
        anyhow::Error::new(std::io::Error::from(ErrorKind::BrokenPipe))
    }

    #[test]
    fn error_lines_are_bounded_and_keep_both_ends() {
        let value = "9".repeat(10_000);
        let err = anyhow::anyhow!("{value}: not a number; expected a fraction 0..1")
            .context("fleet.csv: column device_util, line 3");
        let text = error_text(&err);
        assert!(text.starts_with("gpuaudit: fleet.csv: column device_util, line 3"));
        assert!(text.ends_with("expected a fraction 0..1"), "{text}");
        assert!(text.contains("characters elided"));
        assert!(text.lines().all(|l| l.chars().count() <= MAX_ERROR_LINE));
        // a short message is untouched
        assert_eq!(
            error_text(&anyhow::anyhow!("no such file")),
            "gpuaudit: no such file"
        );
        // the count says exactly how much went: kept + elided = the whole line
        let long = format!("gpuaudit: {}", "é".repeat(1000));
        let one = bounded_line(&long);
        assert!((MAX_ERROR_LINE - 3..=MAX_ERROR_LINE).contains(&one.chars().count()));
        let elided: usize = one
            .split(" …(")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let kept = one.chars().filter(|&c| c == 'é').count();
        assert_eq!(kept + elided, 1000);
    }

    #[test]
    fn a_failure_survives_a_broken_pipe() {
        assert_eq!(exit_code_for(&pipe()), 0);
        assert!(!worth_a_word(&pipe()));
        let failed = anyhow::Error::new(Findings("check failed".into()));
        assert_eq!(exit_code_for(&failed.context("writing")), 1);
        let kept = pipe().context(KeepCode(3));
        assert_eq!(exit_code_for(&kept), 3);
        assert!(
            !worth_a_word(&kept),
            "a closed pipe needs no word even when the code is kept"
        );
        let disk = anyhow::Error::new(std::io::Error::other("disk full")).context(KeepCode(1));
        assert_eq!(exit_code_for(&disk), 1);
        assert!(worth_a_word(&disk));
        assert_eq!(exit_code_for(&anyhow::anyhow!("bad input")), 2);
    }
}
