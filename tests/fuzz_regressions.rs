//! Every fuzzing entry point over its committed seeds and over every input a
//! fuzz run found (testdata/fuzz/regressions/<target>/): in stable `cargo test`,
//! so a fixed crash stays fixed without nightly. A panic is a broken invariant.
use gpuaudit::fuzzing::targets;
use std::path::{Path, PathBuf};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz")
}

/// Runs `target` over every file of `dir`; returns how many it ran.
fn run_all(target: &str, run: gpuaudit::fuzzing::EntryPoint, dir: &Path) -> usize {
    let files = files_in(dir);
    for file in &files {
        let Ok(bytes) = std::fs::read(file) else {
            panic!("cannot read {}", file.display());
        };
        let outcome = std::panic::catch_unwind(|| run(&bytes));
        assert!(
            outcome.is_ok(),
            "fuzz target {target} broke on {}",
            file.display()
        );
    }
    files.len()
}

#[test]
fn every_target_has_seeds_and_survives_them() {
    for (target, run) in targets() {
        let n = run_all(target, run, &root().join("seeds").join(target));
        assert!(n > 0, "no seeds for fuzz target {target}");
    }
}

#[test]
fn every_crash_a_fuzz_run_found_stays_fixed() {
    for (target, run) in targets() {
        run_all(target, run, &root().join("regressions").join(target));
    }
    // a regression folder must name a target, or its files would never run
    for dir in std::fs::read_dir(root().join("regressions"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if !dir.path().is_dir() {
            continue;
        }
        let name = dir.file_name().to_string_lossy().to_string();
        assert!(
            targets().iter().any(|(t, _)| *t == name),
            "testdata/fuzz/regressions/{name} is no fuzz target"
        );
    }
}

#[test]
fn every_fuzz_target_has_an_entry_point_and_a_seed_folder() {
    let fuzz_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let mut on_disk: Vec<String> = files_in(&fuzz_dir)
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().to_string()))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = targets().iter().map(|(t, _)| t.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "fuzz/fuzz_targets/ and fuzzing::targets() differ"
    );
}

#[test]
fn every_fuzz_target_is_a_cargo_fuzz_binary() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        panic!("cannot read {}", manifest.display());
    };
    for (target, _) in targets() {
        let bin = format!("name = \"{target}\"\npath = \"fuzz_targets/{target}.rs\"");
        assert!(
            text.contains(&bin),
            "fuzz/Cargo.toml has no [[bin]] for fuzz target {target}"
        );
    }
}
