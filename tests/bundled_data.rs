//! The bundled data (the default opening books, the suites, the mate suite and quality
//! positions) comes from the binary: every command runs from a directory without data/.

mod common;

use std::process::Command;

use common::scratch;

/// From a directory without data/, a match (its default book), a suite (a bundled suite), the
/// default race (its book 8mvs_+90_+99) and a calibration (its two books, mate suite and
/// quality positions) run.
#[test]
fn bundled_data_is_found_from_anywhere() {
    let dir = scratch("bundled-data", "anywhere");
    let elsewhere = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(args)
            .env("MARGINAL_CACHE_DIR", dir.join("cache"))
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let out = elsewhere(&[
        "match", "--a", "default", "--b", "off", "--games", "2", "--nodes", "200",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = elsewhere(&["suite", "data/suites/bk.epd", "--nodes", "200"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::assert_names(&String::from_utf8_lossy(&out.stdout), &["24 positions"]);
    // The default race (its book 8mvs_+90_+99) and a calibration (its two books, mate suite
    // and quality positions) run from anywhere too.
    let out = elsewhere(&[
        "tune",
        "--depth",
        "1",
        "--design",
        "4",
        "--finalists",
        "2",
        "--race-pairs",
        "2",
        "--out",
        "t.json",
        "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = elsewhere(&[
        "calibrate",
        "--sets",
        "4",
        "--games",
        "4",
        "--depth",
        "1",
        "--resamples",
        "100",
        "--out",
        "c.json",
        "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(dir).unwrap();
}
