//! Writing to stdout without panicking on a closed pipe.
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
