//! Progress on stderr while a large input is read: rows (and bytes) for a
//! streamed parquet dataset. indicatif draws only when stderr is a terminal,
//! never into stdout, so JSON and pipes stay clean.
use crate::audit::ChunkSource;
use anyhow::Result;
use indicatif::ProgressBar;
use polars::prelude::DataFrame;
use std::cell::Cell;

/// A chunk source that advances a bar by each chunk's rows over the audit's
/// passes (GPU steps, then the tallies; a jobs file adds its own before them).
pub struct Progressed<'a> {
    inner: &'a dyn ChunkSource,
    bar: ProgressBar,
    pass: Cell<u8>,
    passes: Cell<u8>,
}

impl<'a> Progressed<'a> {
    /// `passes`: how many times the audit is expected to read the data.
    pub fn new(inner: &'a dyn ChunkSource, quiet: bool, bytes: u64, passes: u8) -> Self {
        let rows = inner.rows_read();
        let total = u64::from(passes) * rows;
        let template = format!(
            "{{spinner}} auditing {{bar:30}} {{human_pos}}/{{human_len}} rows ({}) {{msg}} [{{elapsed}}, eta {{eta}}]",
            indicatif::HumanBytes(bytes)
        );
        let bar = crate::progress::bar(quiet, Some(total), &template);
        Progressed {
            inner,
            bar,
            pass: Cell::new(0),
            passes: Cell::new(passes),
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
        let pass = self.pass.get() + 1;
        self.pass.set(pass);
        if pass > self.passes.get() {
            // more passes than expected (a windowed model_flops job): the bar grows
            self.passes.set(pass);
            self.bar
                .set_length(u64::from(pass) * self.inner.rows_read());
        }
        self.bar
            .set_message(format!("pass {pass}/{}", self.passes.get()));
        let bar = &self.bar;
        self.inner.for_each_chunk(keys_only, &mut |df| {
            let r = f(df);
            bar.inc(df.height() as u64);
            r
        })
    }
}
