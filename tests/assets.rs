//! man/ and completions/ are generated from the clap definition and committed.
//! This test fails when they drift; `GPUAUDIT_REGEN=1 cargo test --test assets`
//! rewrites them. The generators are dev-dependencies, so the shipped binary
//! carries no hidden "generate" command (clap_complete ignores `hide`).
use clap::CommandFactory;
use clap_complete::Shell;
use gpuaudit::cli::Cli;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every generated file, path relative to the repo root -> content.
fn generated() -> anyhow::Result<BTreeMap<PathBuf, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let cmd = Cli::command();
    // One page for the tool, one per subcommand (gpuaudit-report.1, ...).
    let mut pages = vec![("gpuaudit".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands() {
        let name = format!("gpuaudit-{}", sub.get_name());
        let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
        pages.push((name, sub.clone().name(leaked)));
    }
    for (name, page) in pages {
        let mut buf = Vec::new();
        clap_mangen::Man::new(page).render(&mut buf)?;
        out.insert(PathBuf::from("man").join(format!("{name}.1")), buf);
    }
    for (shell, file) in [
        (Shell::Bash, "gpuaudit.bash"),
        (Shell::Zsh, "_gpuaudit"),
        (Shell::Fish, "gpuaudit.fish"),
        (Shell::PowerShell, "_gpuaudit.ps1"),
        (Shell::Elvish, "gpuaudit.elv"),
    ] {
        let mut buf = Vec::new();
        let mut c = Cli::command();
        clap_complete::generate(shell, &mut c, "gpuaudit", &mut buf);
        out.insert(PathBuf::from("completions").join(file), buf);
    }
    Ok(out)
}

fn listed(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| dir.join(e.file_name()))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn man_pages_and_completions_match_the_cli() -> anyhow::Result<()> {
    let want = generated()?;
    if std::env::var_os("GPUAUDIT_REGEN").is_some() {
        for dir in ["man", "completions"] {
            for stale in listed(Path::new(dir)) {
                if !want.contains_key(&stale) {
                    std::fs::remove_file(root().join(stale))?;
                }
            }
            std::fs::create_dir_all(root().join(dir))?;
        }
        for (path, content) in &want {
            std::fs::write(root().join(path), content)?;
        }
        return Ok(());
    }
    let mut drift = Vec::new();
    for (path, content) in &want {
        match std::fs::read(root().join(path)) {
            Ok(have) if &have == content => {}
            _ => drift.push(path.display().to_string()),
        }
    }
    for dir in ["man", "completions"] {
        for have in listed(Path::new(dir)) {
            if !want.contains_key(&have) {
                drift.push(format!("{} (no longer generated)", have.display()));
            }
        }
    }
    assert!(
        drift.is_empty(),
        "man/ or completions/ drifted from the CLI: {drift:?}\nregenerate with: GPUAUDIT_REGEN=1 cargo test --test assets"
    );
    Ok(())
}
