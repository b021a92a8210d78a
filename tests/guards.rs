//! The guards of issue 34 stay in place: the 80-line function limit is denied
//! (clippy reads it from clippy.toml and Cargo.toml; a planted 81-line function
//! fails `cargo clippy`), and the fuzz entry points, which panic on a broken
//! invariant, compile only with the `fuzzing` feature that the fuzz crate and
//! the tests turn on.
use std::path::Path;

fn read(relative: &str) -> std::io::Result<String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative))
}

/// The lines of a file, comments aside, trimmed.
fn code_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn functions_over_80_lines_are_denied() -> std::io::Result<()> {
    let clippy = code_lines(&read("clippy.toml")?);
    assert!(
        clippy.contains(&"too-many-lines-threshold = 80".to_string()),
        "{clippy:?}"
    );
    let cargo = code_lines(&read("Cargo.toml")?);
    let lints = cargo
        .iter()
        .position(|l| l == "[lints.clippy]")
        .map(|i| &cargo[i + 1..])
        .unwrap_or_default();
    let section: Vec<&String> = lints.iter().take_while(|l| !l.starts_with('[')).collect();
    assert!(
        section.iter().any(|l| *l == "too_many_lines = \"deny\""),
        "{section:?}"
    );
    Ok(())
}

#[test]
fn the_fuzz_entry_points_need_the_feature() -> std::io::Result<()> {
    let lib = read("src/lib.rs")?;
    let lines: Vec<&str> = lib.lines().map(str::trim).collect();
    let at = lines
        .iter()
        .position(|l| *l == "pub mod fuzzing;")
        .unwrap_or_default();
    // the attributes right above the module
    let attributes: Vec<&&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with("#[") || l.starts_with("///"))
        .collect();
    assert!(
        at > 0 && attributes.contains(&&"#[cfg(feature = \"fuzzing\")]"),
        "src/lib.rs: `pub mod fuzzing;` without #[cfg(feature = \"fuzzing\")]"
    );
    // the fuzz crate turns the feature on
    let fuzz = read("fuzz/Cargo.toml")?;
    assert!(
        fuzz.contains(r#"gpuaudit = { path = "..", features = ["fuzzing"] }"#),
        "fuzz/Cargo.toml does not turn on the fuzzing feature"
    );
    Ok(())
}
