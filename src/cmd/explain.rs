//! `gpuaudit explain [TERM]`: what a word of the report means, from the one
//! glossary the HTML page also prints (render/glossary.rs).
use crate::cli::explain::ExplainArgs;
use crate::output::write_stdout;
use crate::render::glossary;
use crate::render::table::detect_width;
use crate::render::wrap::fill;
use anyhow::{Result, bail};

pub fn run(args: ExplainArgs) -> Result<u8> {
    let width = detect_width(None);
    let text = match args.term.as_deref() {
        None => glossary::all_text(width),
        Some(name) => match glossary::lookup(name) {
            Some(term) => glossary::entry_text(term, width),
            // the list on lines of its own: an error line is cut at 300 characters
            None => bail!(
                "explain: no term '{name}'; known terms:\n{}",
                fill(
                    &format!("  {}", glossary::names().join(", ")),
                    Some(78),
                    "  "
                )
            ),
        },
    };
    write_stdout(&text)?;
    Ok(0)
}
