//! Progress on stderr while a large input is read: rows (and bytes) for a
//! streamed parquet dataset. indicatif draws only when stderr is a terminal,
//! never into stdout, so JSON and pipes stay clean.
use crate::audit::ChunkSource;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polars::prelude::DataFrame;
use std::cell::Cell;

/// A chunk source that advances a bar by each chunk's rows over the audit's
/// two passes (GPU steps, then the tallies).
pub struct Progressed<'a> {
    inner: &'a dyn ChunkSource,
    bar: ProgressBar,
    pass: Cell<u8>,
}

impl<'a> Progressed<'a> {
    pub fn new(inner: &'a dyn ChunkSource, quiet: bool, bytes: u64) -> Self {
        let rows = inner.rows_read();
        let bar = if quiet {
            ProgressBar::with_draw_target(Some(2 * rows), ProgressDrawTarget::hidden())
        } else {
            ProgressBar::new(2 * rows)
        };
        let template = format!(
            "{{spinner}} auditing {{bar:30}} {{human_pos}}/{{human_len}} rows ({}) {{msg}} [{{elapsed}}, eta {{eta}}]",
            indicatif::HumanBytes(bytes)
        );
        bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progressed {
            inner,
            bar,
            pass: Cell::new(0),
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl ChunkSource for Progressed<'_> {
    fn has(&self, column: &str) -> bool {
        self.inner.has(column)
    }
    fn sources(&self) -> Vec<String> {
        self.inner.sources()
    }
    fn rows_read(&self) -> u64 {
        self.inner.rows_read()
    }
    fn for_each_chunk(
        &self,
        keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<crate::samples::Quality> {
        self.pass.set(self.pass.get() + 1);
        self.bar.set_message(format!("pass {}/2", self.pass.get()));
        let bar = &self.bar;
        self.inner.for_each_chunk(keys_only, &mut |df| {
            let r = f(df);
            bar.inc(df.height() as u64);
            r
        })
    }
}
