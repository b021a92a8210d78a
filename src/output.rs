//! Writing to stdout without panicking on a closed pipe.
use anyhow::Context;
use std::io::Write;

/// Write a whole rendered document to stdout; a broken pipe surfaces as an
/// io::Error that `main` turns into a quiet exit.
pub fn write_stdout(text: &str) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    // the context keeps the io::Error in the chain, so a broken pipe stays quiet
    lock.write_all(text.as_bytes())
        .and_then(|()| lock.flush())
        .context("cannot write to standard output")?;
    Ok(())
}
