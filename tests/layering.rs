//! Nothing below `cmd/` reaches up: every file of src/ outside the command
//! line (`cli/`, `cmd/`, `cli.rs`, `main.rs`) never names `crate::cli`
//! (clap's types) or `crate::cmd`, nor clap itself: `cmd/` turns arguments
//! into plain options once, and domain types stay free of clap. Nor does
//! any read gpuaudit's environment or write any (cmd/env.rs reads it once).
use std::path::{Path, PathBuf};

/// The files that may name the command line and clap, relative to src/.
fn is_command_line(relative: &Path) -> bool {
    let first = relative
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str());
    matches!(first, Some("cli" | "cmd" | "cli.rs" | "main.rs"))
}

/// Where a source text names clap as a crate path (`clap::`, `use clap`),
/// comments aside.
fn clap_uses(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            code.contains("clap::") || code.trim_start().starts_with("use clap")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

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
fn the_check_sees_clap_in_code_not_in_comments() {
    assert_eq!(clap_uses("#[derive(clap::ValueEnum)]\nenum A {}"), [1]);
    assert_eq!(clap_uses("x\nuse clap::Parser;"), [2]);
    assert!(clap_uses("/// clap value parsers with the same messages").is_empty());
}

/// Every .rs file below src/ that is not the command line.
fn below_cmd() -> std::io::Result<Vec<PathBuf>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    rust_files(&src, &mut all)?;
    Ok(all
        .into_iter()
        .filter(|f| f.strip_prefix(&src).is_ok_and(|r| !is_command_line(r)))
        .collect())
}

#[test]
fn nothing_below_cmd_names_clap() -> std::io::Result<()> {
    let offenders: Vec<String> = below_cmd()?
        .iter()
        .filter_map(|f| {
            let lines = clap_uses(&std::fs::read_to_string(f).ok()?);
            (!lines.is_empty()).then(|| format!("{}: lines {lines:?}", f.display()))
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
    Ok(())
}

#[test]
fn nothing_below_cmd_imports_cli_or_cmd() -> std::io::Result<()> {
    let files = below_cmd()?;
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

/// Where a source text reads gpuaudit's (or polars') environment, or writes
/// any, comments aside: cmd/env.rs reads it once into option fields.
fn env_uses(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            (code.contains("env::var")
                && (code.contains("\"GPUAUDIT_") || code.contains("\"POLARS_")))
                || code.contains("env::set_var")
                || code.contains("env::remove_var")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn the_check_sees_environment_reads_in_code() {
    let planted = "let n = std::env::var(\"GPUAUDIT_SLICE_ROWS\");\n// std::env::var(\"GPUAUDIT_X\")\nlet c = std::env::var(\"COLUMNS\");\nunsafe { std::env::set_var(\"X\", \"1\") };";
    assert_eq!(env_uses(planted), [1, 4]);
}

#[test]
fn nothing_below_cmd_reads_the_environment() -> std::io::Result<()> {
    let offenders: Vec<String> = below_cmd()?
        .iter()
        .filter_map(|f| {
            let lines = env_uses(&std::fs::read_to_string(f).ok()?);
            (!lines.is_empty()).then(|| format!("{}: lines {lines:?}", f.display()))
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
    Ok(())
}

/// Where a source text prints by itself (`println!`, `eprintln!`, `print!`,
/// `eprint!`, `dbg!`) outside its test module, comments aside: stdout is
/// written through `output.rs`, stderr through the diagnostics sink, which
/// main.rs alone opens (a closed stderr must not panic, nor a line come out
/// twice or out of order).
fn print_uses(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            ["println!", "print!(", "dbg!("]
                .iter()
                .any(|m| code.contains(m))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn the_check_sees_prints_outside_tests() {
    let planted = "fn f() {\n    eprintln!(\"x\");\n    // println!(\"y\")\n    print!(\"z\");\n}\n#[cfg(test)]\nmod tests {\n    fn g() { println!(\"ok in a test\") }\n}";
    assert_eq!(print_uses(planted), [2, 4]);
}

#[test]
fn nothing_but_main_prints() -> std::io::Result<()> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files)?;
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| f.strip_prefix(&src).ok() != Some(Path::new("main.rs")))
        .filter_map(|f| {
            let lines = print_uses(&std::fs::read_to_string(f).ok()?);
            (!lines.is_empty()).then(|| format!("{}: lines {lines:?}", f.display()))
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
    Ok(())
}
