//! Transposition tables (--hash) that cannot all be held at once are refused before any work
//! (exit 2), naming the option, the size and how many tables run together: never found missing
//! by a worker thread (a panic, a match that never ends) or by the kernel (a killed run).

mod common;

use common::{refused, scratch};

/// Tables that fit one at a time but not all together (under `ulimit -v`) are refused up front.
#[test]
fn hash_tables_that_do_not_fit_together_are_refused_up_front() {
    let dir = scratch("memory", "hash");
    let program = env!("CARGO_BIN_EXE_marginal");
    for command in [
        "suite data/suites/bk.epd --nodes 300 --threads 2 --hash 1024",
        "match --a default --b off --games 2 --nodes 300 --concurrency 1 --hash 1024",
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 1800000 && exec {program} {command}"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        for needle in [
            "--hash 1024",
            "cannot allocate a transposition table of 1024 MB",
            "for each of 2 searches at once",
        ] {
            assert!(
                stderr.contains(needle),
                "{command}: '{needle}' not in {stderr}"
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Tables the allocator grants (address space) but the machine's memory cannot hold are
/// refused before any work (campaign 23, G014: `--hash 16384` on 2 threads filled 24 GB and
/// the kernel killed the run). Skipped where /proc/meminfo says 32 GB are available.
#[test]
fn hash_tables_past_the_machines_memory_are_refused_up_front() {
    let available_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            let line = t
                .lines()
                .find(|l| l.starts_with("MemAvailable:"))?
                .to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|kb| kb / 1024);
    match available_mb {
        Some(mb) if mb < 2 * 16384 => {}
        other => {
            eprintln!("skipped: MemAvailable {other:?} MB holds two 16,384 MB tables");
            return;
        }
    }
    let dir = scratch("memory", "hash-memory");
    refused(
        &[
            "suite",
            "data/suites/bk.epd",
            "--nodes",
            "300",
            "--threads",
            "2",
            "--hash",
            "16384",
        ],
        &dir,
        // The option and value, the memory it asks for, and the fixes.
        &[
            "--hash 16384",
            "32768 MB",
            "MemAvailable",
            "smaller --hash",
            "fewer threads",
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}
