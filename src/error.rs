//! Exit-code discipline: 0 ok, 1 check failed / findings over a limit,
//! 2 usage, input or device error; a wrapped command's own code where `scan --
//! CMD` runs one. The code is decided before the output is written: a closed
//! stdout (`gpuaudit check ... | head`) ends the output quietly but never turns
//! a failure into a success.
use crate::text::{Mark, shorten_with};
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

/// Standard output's reader went away (`gpuaudit ... | head`). Only
/// [`crate::output::write_stdout`] makes one: a broken pipe on any other
/// file (`--output FIFO` whose reader left) is an ordinary error, exit 2.
#[derive(Debug)]
pub(crate) struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("standard output closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// A write to stdout that failed: [`StdoutClosed`] for a broken pipe, the
/// io::Error otherwise (a full disk behind `> file` is an error).
pub(crate) fn stdout_write_error(io: std::io::Error) -> anyhow::Error {
    if io.kind() == ErrorKind::BrokenPipe {
        anyhow::Error::new(StdoutClosed)
    } else {
        anyhow::Error::new(io).context("cannot write to standard output")
    }
}

fn is_stdout_closed(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|c| c.downcast_ref::<StdoutClosed>().is_some())
}

/// The exit code an error maps to. A decided code wins over a closed stdout;
/// a closed stdout alone (nothing failed) is a quiet 0.
pub fn exit_code_for(err: &anyhow::Error) -> u8 {
    if let Some(k) = err.downcast_ref::<KeepCode>() {
        return k.0;
    }
    if err.downcast_ref::<Findings>().is_some()
        || err.chain().any(|c| c.downcast_ref::<Findings>().is_some())
    {
        return 1;
    }
    if is_stdout_closed(err) {
        return 0;
    }
    2
}

/// Whether main should print the error: not for a closed stdout.
pub fn worth_a_word(err: &anyhow::Error) -> bool {
    !(exit_code_for(err) == 0 || is_stdout_closed(err))
}

/// The longest line an error message prints. A longer line is shortened in
/// what it echoes of the input, never in what it says would have worked:
/// first the spans marked with [`echo`] (a file list, a value), longest
/// first, then any word longer than [`LONG_WORD`] (a huge value, timestamp,
/// header or path), each in its middle; only then is the line cut, at word
/// boundaries and outside a parenthesized list, so a list of accepted names is kept
/// whole and the file (at the start) and what was expected (at the end) stay.
pub const MAX_ERROR_LINE: usize = 300;

/// A word longer than this is taken for echoed input and may be shortened.
pub const LONG_WORD: usize = 40;

/// What a shortened span keeps at least (head and tail together).
const KEEP_AT_LEAST: usize = 24;

const ECHO_OPEN: char = '\u{E000}';
const ECHO_CLOSE: char = '\u{E001}';

/// Mark `input` (the user's value, a file list) as echoed in an error
/// message: when the line is too long, it is shortened first. The marks
/// never print ([`error_text`] removes them).
pub fn echo(input: &str) -> String {
    format!("{ECHO_OPEN}{input}{ECHO_CLOSE}")
}

/// The one line (or lines) main prints for an error, each at most
/// [`MAX_ERROR_LINE`] characters.
pub fn error_text(err: &anyhow::Error) -> String {
    let text = format!("gpuaudit: {err:#}");
    text.lines()
        .map(bounded_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A piece of a line: echoed input, a word, or the spaces between words.
struct Piece {
    text: Vec<char>,
    /// 2: marked echo, 1: a long word, 0: kept
    rank: u8,
}

/// A line as pieces: the marked spans, then words and spaces.
fn pieces(line: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    for (i, part) in line.split([ECHO_OPEN, ECHO_CLOSE]).enumerate() {
        let text: Vec<char> = part.chars().collect();
        if i % 2 == 1 {
            out.push(Piece { text, rank: 2 });
            continue;
        }
        let mut word: Vec<char> = Vec::new();
        let mut push = |w: &mut Vec<char>| {
            if !w.is_empty() {
                let rank = u8::from(w.len() > LONG_WORD && !w[0].is_whitespace());
                out.push(Piece {
                    text: std::mem::take(w),
                    rank,
                });
            }
        };
        for c in text {
            if word
                .last()
                .is_some_and(|l| l.is_whitespace() != c.is_whitespace())
            {
                push(&mut word);
            }
            word.push(c);
        }
        push(&mut word);
    }
    out
}

/// The middle of `text` replaced by a marker counting what went, `excess`
/// characters shorter when it can be (never under [`KEEP_AT_LEAST`] kept).
fn elide_middle(text: &[char], excess: usize) -> Option<Vec<char>> {
    let widest = Mark::Count.widest(text.len());
    let max = text
        .len()
        .saturating_sub(excess)
        .max(KEEP_AT_LEAST + widest);
    let whole: String = text.iter().collect();
    let short = shorten_with(&whole, max, Mark::Count);
    (short != whole).then(|| short.chars().collect())
}

fn bounded_line(line: &str) -> String {
    let mut parts = pieces(line);
    let total = |p: &[Piece]| p.iter().map(|x| x.text.len()).sum::<usize>();
    // echoed spans, then long words, the longest first
    while total(&parts) > MAX_ERROR_LINE {
        let excess = total(&parts) - MAX_ERROR_LINE;
        let Some(i) = (0..parts.len())
            .filter(|&i| parts[i].rank > 0)
            .max_by_key(|&i| (parts[i].rank, parts[i].text.len()))
        else {
            break;
        };
        if let Some(short) = elide_middle(&parts[i].text, excess) {
            parts[i].text = short;
        }
        parts[i].rank = 0;
    }
    let text: String = parts.into_iter().flat_map(|p| p.text).collect();
    cut_between_words(&text)
}

/// A line still too long, cut in its middle at word boundaries; the tail
/// starts outside parentheses that hold a list (not an example structure
/// with braces), so the list is kept whole.
fn cut_between_words(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let n = chars.len();
    if n <= MAX_ERROR_LINE {
        return line.to_string();
    }
    let widest = Mark::Count.widest(n);
    let keep = MAX_ERROR_LINE - widest;
    let mut tail_at = n - (keep - keep * 2 / 3);
    // the tail starts at a word, and before an open parenthesis it is in
    if let Some(space) = (tail_at..n).find(|&i| chars[i].is_whitespace()) {
        tail_at = space + 1;
    }
    let mut depth = 0i32;
    let mut open = None;
    for (i, c) in chars[..tail_at].iter().enumerate() {
        match c {
            '(' | '[' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            ')' | ']' => depth = (depth - 1).max(0),
            _ => {}
        }
    }
    // a list of names, not an example structure ("{"status": ...}")
    let is_list = |o: usize| {
        !chars[o..]
            .iter()
            .take_while(|c| **c != ')')
            .any(|c| *c == '{')
    };
    if let Some(o) = open.filter(|&o| depth > 0 && n - o <= keep - keep / 4 && is_list(o)) {
        tail_at = o;
    }
    let mut head = keep - (n - tail_at).min(keep);
    if let Some(space) = (head / 2..head).rev().find(|&i| chars[i].is_whitespace()) {
        head = space;
    }
    let start: String = chars[..head].iter().collect();
    let end: String = chars[tail_at..].iter().collect();
    let marker = Mark::Count.text(tail_at - head);
    format!("{}{marker}{}", start.trim_end(), end.trim_start())
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

    #[test]
    fn a_span_two_characters_too_long_is_shortened() {
        // 60 → 58 characters; the mark's two "…" make it 62 bytes: still shorter
        let text: Vec<char> = "a".repeat(60).chars().collect();
        let short = elide_middle(&text, 2).unwrap_or_default();
        assert_eq!(short.len(), 58);
        let short: String = short.into_iter().collect();
        // the widest mark for 60 is 26 characters: 32 kept, 28 elided
        assert!(short.contains(" …(28 characters elided)… "), "{short}");
    }

    fn pipe() -> anyhow::Error {
        stdout_write_error(std::io::Error::from(ErrorKind::BrokenPipe))
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

    const HELD: &str = "cannot tell which GPUs are held: the input has no 'held' column (true/false), no job column (job, pod, hpc_job) and no memory column (mem_used_bytes, DCGM_FI_DEV_FB_USED, memory.used); add one, map one with --map, or pass --assume-held";

    #[test]
    fn the_echoed_input_is_shortened_not_what_would_have_worked() {
        // one long path: the path loses its middle, the message stays whole
        let path = format!(
            "/data/{}/fleet.csv",
            "exports-of-the-training-cluster-".repeat(4)
        );
        let text = error_text(&anyhow::anyhow!("{path}: {HELD}"));
        assert_eq!(
            text,
            format!("gpuaudit: /data/exports- …(118 characters elided)… r-/fleet.csv: {HELD}")
        );
        // thirty files, marked as echoed: the list of files is what goes
        let files: Vec<String> = (1..=30).map(|d| format!("fleet/d{d:02}.parquet")).collect();
        let text = error_text(&anyhow::anyhow!("{}: {HELD}", echo(&files.join(", "))));
        assert!(text.chars().count() <= MAX_ERROR_LINE, "{text}");
        assert!(text.starts_with("gpuaudit: fleet/d01.par …("), "{text}");
        assert!(text.ends_with(&format!("t/d30.parquet: {HELD}")), "{text}");
        assert!(!text.contains(ECHO_OPEN) && !text.contains(ECHO_CLOSE));
        // a short marked message prints without its marks
        assert_eq!(
            error_text(&anyhow::anyhow!("{}: no such file", echo("a.csv"))),
            "gpuaudit: a.csv: no such file"
        );
    }

    #[test]
    fn a_line_of_short_words_is_cut_between_words_outside_parentheses() {
        let names: Vec<String> = (0..12).map(|i| format!("column_{i}")).collect();
        let line = format!(
            "{} no time column (expected one of: {}); or --map YOURS=time",
            "word ".repeat(60),
            names.join(", ")
        );
        let text = error_text(&anyhow::anyhow!("{line}"));
        assert!(text.chars().count() <= MAX_ERROR_LINE, "{text}");
        let tail = format!(
            "(expected one of: {}); or --map YOURS=time",
            names.join(", ")
        );
        assert!(text.ends_with(&tail), "{text}");
        let head = text.split(" …(").next().unwrap_or_default();
        assert!(head.ends_with(" word"), "a whole word: {head}");
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

    #[test]
    fn a_broken_pipe_is_quiet_only_on_stdout() {
        // `--output FIFO` whose reader left: an error naming the file, exit 2
        let fifo = anyhow::Error::new(std::io::Error::from(ErrorKind::BrokenPipe))
            .context("--output fleet.fifo: cannot write");
        assert_eq!(exit_code_for(&fifo), 2);
        assert!(worth_a_word(&fifo));
        // another failure to write stdout (a full disk) is not a closed pipe
        let full = stdout_write_error(std::io::Error::other("disk full"));
        assert_eq!(exit_code_for(&full), 2);
        assert_eq!(
            error_text(&full),
            "gpuaudit: cannot write to standard output: disk full"
        );
    }
}
