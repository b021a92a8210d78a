//! `gpuaudit peaks`: the dense peak table with its sources.
use crate::cli::mfu::{PeaksArgs, TableOrJson};
use crate::hardware::{self, CHIPS, Chip};
use crate::output::write_stdout;
use crate::render;
use anyhow::Result;

pub fn run(args: PeaksArgs) -> Result<u8> {
    let chips: Vec<&Chip> = match &args.gpu {
        Some(name) => vec![hardware::find(name)?],
        None => CHIPS.iter().collect(),
    };
    let text = match args.format {
        TableOrJson::Table => render::mfu::peaks_table(&chips),
        TableOrJson::Json => render::mfu::peaks_json(&chips)?,
    };
    write_stdout(&text)?;
    Ok(0)
}
