//! `gpuaudit peaks`: the catalog: dense peaks with their sources, memory,
//! MIG profiles and built-in prices; one card by any of its spellings.
use crate::catalog::{GPUS, Gpu, Resolved, closest, resolve};
use crate::cli::mfu::{PeaksArgs, TableOrJson};
use crate::output::write_stdout;
use crate::render;
use anyhow::{Result, bail};

/// The card a name means (a MIG instance's card), or an error that says why not.
fn card(name: &str) -> Result<&'static Gpu> {
    match resolve(name) {
        Resolved::Card(g) | Resolved::Mig(g, _) | Resolved::UnknownMig(g, _) => Ok(g),
        Resolved::Ambiguous(c) => bail!(
            "GPU name '{name}' is ambiguous: it could be {}; name one of them",
            c.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
        ),
        Resolved::Unknown => bail!(
            "GPU '{name}' is not in the catalog; closest known names: {}; give a peak with --peak-tflops and a price with --prices",
            closest(name, 3, &|_| true).join(", ")
        ),
    }
}

pub fn run(args: PeaksArgs) -> Result<u8> {
    let gpus: Vec<&Gpu> = match &args.gpu {
        Some(name) => vec![card(name)?],
        None => GPUS.iter().collect(),
    };
    let text = match args.format {
        TableOrJson::Table => render::mfu::peaks_table(&gpus),
        TableOrJson::Json => render::mfu::peaks_json(&gpus)?,
    };
    write_stdout(&text)?;
    Ok(0)
}
