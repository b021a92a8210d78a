//! Nothing below `cmd/` reaches up: the computation, the sources, the
//! renderers, the catalog and the pipeline never name `crate::cli` (clap's
//! types) or `crate::cmd`. `cmd/` turns arguments into plain options once.
use std::path::{Path, PathBuf};

/// The layers that must not import the command line.
const BELOW_CMD: &[&str] = &["audit", "catalog", "pipeline", "plan", "render", "source"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The `crate::cli` / `crate::cmd` paths a source text names, also inside a
/// grouped `use crate::{...}`.
fn upward_imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let named: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group
                .split('}')
                .next()
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .collect(),
            None => vec![rest],
        };
        for n in named {
            for layer in ["cli", "cmd"] {
                let after = n.strip_prefix(layer);
                if after.is_some_and(|a| !a.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                {
                    found.push(format!("crate::{layer}"));
                }
            }
        }
    }
    found
}

#[test]
fn the_check_sees_plain_and_grouped_imports() {
    assert_eq!(upward_imports("use crate::cli::CsvTable;"), ["crate::cli"]);
    assert_eq!(
        upward_imports("use crate::{audit, cmd::common};"),
        ["crate::cmd"]
    );
    assert!(upward_imports("use crate::client::X; crate::cmdline").is_empty());
}

#[test]
fn nothing_below_cmd_imports_cli_or_cmd() -> std::io::Result<()> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for layer in BELOW_CMD {
        rust_files(&src.join(layer), &mut files)?;
    }
    assert!(
        files.len() > 40,
        "only {} files found under src/",
        files.len()
    );
    let offenders: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let up = upward_imports(&text);
            (!up.is_empty()).then(|| format!("{}: {}", f.display(), up.join(", ")))
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
    Ok(())
}
