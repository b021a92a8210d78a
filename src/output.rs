//! Writing to stdout without panicking on a closed pipe.
use std::io::Write;

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
