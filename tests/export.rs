//! `marginal export` as a user runs it: every format against its golden file, the Rust output
//! compiled with rustc and the C output with the C compiler (each run and its values compared
//! with the tuned file's), the UCI output fed to `marginal uci`, and bad input refused with
//! exit status 2.
//!
//! The golden files are in `tests/golden/export/`, made from the fixture `tuned.json` there (a
//! copy of `tuned/spsa-suite.json` trimmed to two evaluations and two iterations) with
//! `SOURCE_DATE_EPOCH=1709251199` (2024-02-29). After a deliberate change to an export format,
//! regenerate them and read the diff before committing:
//!
//! ```sh
//! UPDATE_GOLDEN=1 cargo test --profile ci --test export
//! git diff tests/golden/export
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use marginal::params::{PARAMS, ParamKind};
use marginal::tune::file::TunedFile;

mod common;
use common::compile::{STRICT_C, assignments, c_compiler, run_ok, run_rust_main, rustc};
use common::uci_engine::{margin_lines, refused, uci_session};
use common::{assert_names, scratch};

/// The fixture, relative to the crate root (the path as given appears in the headers).
const FIXTURE: &str = "tests/golden/export/tuned.json";

/// 2024-02-29 23:59:59 UTC.
const EPOCH: &str = "1709251199";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/export")
}

fn fixture() -> TunedFile {
    TunedFile::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap()
}

/// Runs `marginal export ARGS` from the crate root with `SOURCE_DATE_EPOCH` set to `epoch`
/// (removed for `None`).
fn export_at(args: &[&str], epoch: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_marginal"));
    command
        .arg("export")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    match epoch {
        Some(e) => command.env("SOURCE_DATE_EPOCH", e),
        None => command.env_remove("SOURCE_DATE_EPOCH"),
    };
    command.output().expect("run marginal export")
}

fn export(args: &[&str]) -> Output {
    export_at(args, Some(EPOCH))
}

/// The standard output of a successful export of the fixture; standard error holds only the
/// line that says whether the file's objective is calibrated (the fixture predates calibrations).
fn exported(args: &[&str]) -> String {
    let mut all = vec![FIXTURE];
    all.extend_from_slice(args);
    let out = export(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "export {args:?}: {stderr}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [CALIBRATION_NONE],
        "export {args:?} wrote to stderr: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What export says on standard error of a tuned file without a calibration.
const CALIBRATION_NONE: &str = "calibration: none recorded (the file predates `marginal calibrate`): \
nothing in it says its objective ranks margin sets as games do; `marginal calibrate` measures that, \
and docs/calibration.md gives the shipped calibrations (tuned/calibration-*.json)";

/// Every case with a golden file: its name and the export arguments.
const GOLDEN: &[(&str, &[&str])] = &[
    ("json.json", &["--format", "json"]),
    ("json-all.json", &["--format", "json", "--all"]),
    ("toml.toml", &["--format", "toml"]),
    ("toml-all.toml", &["--format", "toml", "--all"]),
    ("rust.rs", &["--format", "rust"]),
    (
        "rust-all-prefix.rs",
        &["--format", "rust", "--all", "--prefix", "PRUNE_"],
    ),
    ("c.h", &["--format", "c"]),
    (
        "c-all-prefix.h",
        &["--format", "c", "--all", "--prefix", "prune_"],
    ),
    (
        "c-all-define.h",
        &["--format", "c", "--all", "--c-style", "define"],
    ),
    ("uci.txt", &["--format", "uci"]),
    ("openbench.txt", &["--format", "openbench"]),
    ("fishtest.txt", &["--format", "fishtest"]),
];

/// The golden file `name`'s text, or with `UPDATE_GOLDEN` set, `text` written as it.
fn golden(name: &str, text: &str) -> Option<String> {
    let path = golden_dir().join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, text).unwrap();
        return None;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; generate it with UPDATE_GOLDEN=1 cargo test --profile ci --test export",
            path.display()
        )
    });
    (want != text).then(|| {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .map_or(want.lines().count().min(text.lines().count()), |i| i);
        format!(
            "{name}: differs from line {}: golden {:?}, now {:?}",
            line + 1,
            want.lines().nth(line),
            text.lines().nth(line)
        )
    })
}

#[test]
fn every_format_matches_its_golden_file() {
    let mismatches: Vec<String> = GOLDEN
        .iter()
        .filter_map(|(name, args)| golden(name, &exported(args)))
        .collect();
    assert!(
        mismatches.is_empty(),
        "{}\n(after a deliberate change: UPDATE_GOLDEN=1 cargo test --profile ci --test export)",
        mismatches.join("\n")
    );
}

/// The rows an export of the fixture holds: the tuned ones, or every one.
fn expected_rows(all: bool) -> Vec<(usize, &'static marginal::params::ParamSpec)> {
    let file = fixture();
    PARAMS
        .iter()
        .enumerate()
        .filter(|(_, p)| all || file.tuned.iter().any(|t| t == p.name))
        .collect()
}

#[test]
fn json_and_toml_parse_back_to_the_tuned_values() {
    let file = fixture();
    for all in [false, true] {
        let mut args = vec!["--format", "json"];
        if all {
            args.push("--all");
        }
        let json: serde_json::Value = serde_json::from_str(&exported(&args)).unwrap();
        args[1] = "toml";
        let toml: toml::Table = toml::from_str(&exported(&args)).unwrap();
        assert_eq!(json["format"], "marginal-export/1");
        assert_eq!(toml["format"].as_str(), Some("marginal-export/1"));
        assert_eq!(json["source"]["file"], FIXTURE);
        assert_eq!(json["source"]["date"], "2024-02-29");
        assert_eq!(json["source"]["run"], file.provenance.run.as_str());
        assert_eq!(toml["source"]["date"].as_str(), Some("2024-02-29"));
        assert_eq!(
            toml["source"]["engine_bench_nodes"].as_integer(),
            Some(file.provenance.engine_bench_nodes as i64)
        );
        let json_margins = json["margins"].as_object().unwrap();
        let toml_margins = toml["margins"].as_table().unwrap();
        let rows = expected_rows(all);
        assert_eq!(json_margins.len(), rows.len());
        assert_eq!(toml_margins.len(), rows.len());
        for (i, p) in rows {
            let v = file.setting().margins().get_index(i);
            match p.kind {
                ParamKind::Spin => {
                    assert_eq!(json_margins[p.name].as_i64(), Some(i64::from(v)));
                    assert_eq!(toml_margins[p.name].as_integer(), Some(i64::from(v)));
                }
                ParamKind::Check => {
                    assert_eq!(json_margins[p.name].as_bool(), Some(v != 0));
                    assert_eq!(toml_margins[p.name].as_bool(), Some(v != 0));
                }
            }
        }
    }
}

#[test]
fn rust_output_compiles_warning_free_and_holds_the_tuned_values() {
    let rustc = rustc();
    let file = fixture();
    for (case, all, prefix) in [("tuned", false, ""), ("all", true, "PRUNE_")] {
        let dir = scratch("export-rust", case);
        let mut args = vec!["--format", "rust", "--prefix", prefix];
        if all {
            args.push("--all");
        }
        std::fs::write(dir.join("margins.rs"), exported(&args)).unwrap();
        // As a library of its own: every item documented, no warnings.
        run_ok(
            Command::new(&rustc)
                .args(["--edition", "2021", "--crate-type", "lib", "-D", "warnings"])
                .args(["-D", "missing-docs", "margins.rs"])
                .current_dir(&dir),
            "rustc margins.rs",
        );
        // As a module of a program that prints every constant.
        let rows = expected_rows(all);
        let mut main = String::from("mod margins;\n\nfn main() {\n");
        let mut want = BTreeMap::new();
        for (i, p) in &rows {
            let name = format!("{prefix}{}", p.name.to_ascii_uppercase());
            main.push_str(&format!(
                "    println!(\"{name}={{}}\", margins::{name});\n"
            ));
            let v = file.setting().margins().get_index(*i);
            let text = match p.kind {
                ParamKind::Spin => v.to_string(),
                ParamKind::Check => (v != 0).to_string(),
            };
            want.insert(name, text);
        }
        main.push_str("}\n");
        std::fs::write(dir.join("main.rs"), main).unwrap();
        let printed = run_rust_main(&dir);
        assert_eq!(assignments(&printed), want, "{case}");
        assert_eq!(want.len(), rows.len());
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn c_output_compiles_warning_free_and_holds_the_tuned_values() {
    let cc = c_compiler();
    let file = fixture();
    for (case, style, all, prefix) in [
        ("const", "const", false, ""),
        ("const-all", "const", true, "prune_"),
        ("define-all", "define", true, "P_"),
    ] {
        let dir = scratch("export-c", case);
        let mut args = vec!["--format", "c", "--c-style", style, "--prefix", prefix];
        if all {
            args.push("--all");
        }
        std::fs::write(dir.join("margins.h"), exported(&args)).unwrap();
        // A program that includes the header twice (the guard) and prints every constant.
        let rows = expected_rows(all);
        let mut main = String::from(
            "#include <stdio.h>\n#include \"margins.h\"\n#include \"margins.h\"\n\nint main(void) {\n",
        );
        let mut want = BTreeMap::new();
        for (i, p) in &rows {
            let name = format!("{prefix}{}", p.name).to_ascii_uppercase();
            main.push_str(&format!("    printf(\"{name}=%d\\n\", {name});\n"));
            want.insert(name, file.setting().margins().get_index(*i).to_string());
        }
        main.push_str("    return 0;\n}\n");
        std::fs::write(dir.join("main.c"), main).unwrap();
        // A unit that includes the header and uses none of it, as most of an engine's files do.
        std::fs::write(
            dir.join("other.c"),
            "#include \"margins.h\"\n\nint other(void);\nint other(void) { return 0; }\n",
        )
        .unwrap();
        run_ok(
            Command::new(&cc)
                .args(STRICT_C)
                .args(["main.c", "other.c", "-o", "main"])
                .current_dir(&dir),
            "cc main.c other.c",
        );
        let printed = run_ok(&mut Command::new(dir.join("main")), "the C program");
        assert_eq!(assignments(&printed), want, "{case}");
        assert_eq!(want.len(), rows.len());
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn uci_output_sets_every_tuned_option_in_marginal_uci() {
    let file = fixture();
    let lines = exported(&["--format", "uci"]);
    let rows = expected_rows(false);
    assert_eq!(lines.lines().count(), rows.len());
    let session = uci_session(&format!("d\n{lines}d\n"));
    // Nothing was refused: the only info strings are those of `d`.
    let complaints = refused(&session);
    assert!(complaints.is_empty(), "{complaints:?}");
    let [before, after] = &margin_lines(&session)[..] else {
        panic!("two margin lines expected: {session:?}")
    };
    assert_eq!(before.len(), PARAMS.len());
    for (i, p) in PARAMS.iter().enumerate() {
        assert_eq!(before[p.uci_name], p.uci_value(p.default), "{}", p.uci_name);
        assert_eq!(
            after[p.uci_name],
            p.uci_value(file.setting().margins().get_index(i)),
            "{}",
            p.uci_name
        );
    }
    // Every tuned option changed (the fixture's tuned values all differ from the defaults).
    for (_, p) in rows {
        assert_ne!(before[p.uci_name], after[p.uci_name], "{}", p.uci_name);
    }
    // An edited line with a value past its range is refused, and the value stays.
    let first = lines.lines().next().unwrap();
    let (head, _) = first.rsplit_once(' ').unwrap();
    let session = uci_session(&format!("{first}\n{head} 99999\nd\n"));
    assert!(
        session.iter().any(|l| l.starts_with("info string")
            && l.contains("99999")
            && l.contains("[0, 1500]")),
        "{session:?}"
    );
    let [after] = &margin_lines(&session)[..] else {
        panic!("one margin line expected: {session:?}")
    };
    assert_eq!(
        after["FutilityMargin"],
        file.setting().margins().futility_margin().to_string()
    );
}

#[test]
fn out_writes_the_same_text_atomically_and_names_the_include_guard() {
    let dir = scratch("export", "out");
    for (format, name) in [("openbench", "spsa.txt"), ("c", "margins.h")] {
        let path = dir.join("sub").join(name);
        let out = export(&[FIXTURE, "--format", format, "--out", path.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The first run makes the directory, and says so.
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("note: --out: created the directory"))
            .collect();
        assert_eq!(lines.len(), 2, "{stderr}");
        assert_eq!(lines[0], CALIBRATION_NONE);
        assert!(lines[1].contains(name), "{stderr}");
        let written = std::fs::read_to_string(&path).unwrap();
        let stdout = exported(&["--format", format]);
        if format == "c" {
            assert_names(&written, &["#ifndef MARGINS_H\n#define MARGINS_H\n"]);
            assert!(written.ends_with("#endif /* MARGINS_H */\n"));
            assert_eq!(written.replace("MARGINS_H", "MARGINAL_TUNED_H"), stdout);
        } else {
            assert_eq!(written, stdout);
        }
    }
    // No temporary file is left beside the outputs.
    let mut names: Vec<String> = std::fs::read_dir(dir.join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["margins.h", "spsa.txt"]);
    // Written to the command's own output, the header keeps the default guard (not STDOUT_H).
    let out = export(&[FIXTURE, "--format", "c", "--out", "/dev/stdout"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        exported(&["--format", "c"])
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn without_source_date_epoch_the_date_is_today() {
    let today = || jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let before = today();
    let out = export_at(&[FIXTURE, "--format", "json"], None);
    let after = today();
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let date = json["source"]["date"].as_str().unwrap();
    assert!(date == before || date == after, "{date}");
}

/// Exit status 2 and a message on standard error containing each of `needles`.
fn assert_user_error(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    for needle in needles {
        assert!(stderr.contains(needle), "'{needle}' not in: {stderr}");
    }
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let dir = scratch("export", "bad");
    // A missing file.
    let missing = dir.join("nope.json");
    let out = export(&[missing.to_str().unwrap(), "--format", "json"]);
    assert_user_error(&out, &["nope.json", "cannot read"]);
    // Corrupt JSON: the file and the line.
    let text = std::fs::read_to_string(golden_dir().join("tuned.json")).unwrap();
    let corrupt = dir.join("corrupt.json");
    let broken = text.replacen("\"razor_margin\": 989,", "\"razor_margin\": 989,,", 1);
    assert_ne!(broken, text);
    std::fs::write(&corrupt, &broken).unwrap();
    let line = broken.lines().position(|l| l.contains("989,,")).unwrap() + 1;
    let out = export(&[corrupt.to_str().unwrap(), "--format", "uci"]);
    assert_user_error(&out, &[&format!("corrupt.json:{line}:"), "not valid JSON"]);
    // A value out of range: the file, the key's line and the value.
    let ranged = dir.join("ranged.json");
    std::fs::write(&ranged, text.replacen("989", "98900", 1)).unwrap();
    let line = text.lines().position(|l| l.contains("989")).unwrap() + 1;
    let out = export(&[ranged.to_str().unwrap(), "--format", "rust"]);
    assert_user_error(&out, &[&format!("ranged.json:{line}:"), "98900"]);
    // Prefixes that cannot start an identifier.
    for prefix in ["9LIVES_", "A-B", "with space"] {
        let out = export(&[FIXTURE, "--format", "c", "--prefix", prefix]);
        assert_user_error(&out, &["--prefix", &format!("'{prefix}'")]);
    }
    // (Options that do nothing in the format are said: tests/idle_options.rs.)
    // A malformed SOURCE_DATE_EPOCH: the variable and the value.
    for epoch in ["yesterday", "-5", ""] {
        let out = export_at(&[FIXTURE, "--format", "json"], Some(epoch));
        assert_user_error(&out, &[&format!("SOURCE_DATE_EPOCH={epoch}:")]);
    }
    // An unknown format is clap's usage error (also 2), listing the formats.
    let out = export(&[FIXTURE, "--format", "yaml"]);
    assert_user_error(&out, &["openbench", "fishtest"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Each kind of calibration record gives its own first words on standard error: a trusted or
/// untrusted objective's status leads its note; a games tune's note stands alone.
#[test]
fn the_calibration_line_leads_with_what_the_record_is() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, start) in [
        (
            "tuned/race-seed2.json",
            "calibration: the objective is trusted: ",
        ),
        (
            "tuned/toga2-spsa-games.json",
            "calibration: tuned on games: ",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
            .args(["export", file, "--format", "json"])
            .current_dir(root)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{file}: {stderr}");
        assert!(stderr.starts_with(start), "{file}: {stderr}");
    }
}

/// An external engine's export names the engine file's content digest recorded with the
/// figures (what `check` compares), and the one it was tuned with when they differ (campaign
/// 18 H016: it gave the tuning's as "digest", and check the other one).
#[test]
fn an_external_engines_export_names_its_content_digest() {
    for (file, format) in [
        ("tuned/toga2-suite.json", "rust"),
        ("tuned/toga2-spsa-games.json", "c"),
    ] {
        let doc: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap(),
        )
        .unwrap();
        let (now, then) = (
            doc["engine"]["signature"].as_str().unwrap(),
            doc["provenance"]["engine_signature"].as_str().unwrap(),
        );
        let digest = if now == then {
            format!("(content digest {now});")
        } else {
            format!("(content digest {now}, tuned when it was {then});")
        };
        let out = export(&[file, "--format", format]);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(&digest), "{file}: no '{digest}' in:\n{text}");
    }
}

/// What a tuned file records (its engine file, its suites) is read again by `check`: export
/// never writes over it, even with --force (campaign 19 A026: a TOML export replaced
/// `engines/toga2.toml`, and `tuned/toga2-suite.json` could no longer be checked).
#[test]
fn export_never_replaces_the_engine_file_a_tuned_file_records() {
    let dir = scratch("export", "recorded");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("engines")).unwrap();
    std::fs::copy(repo.join("tuned/toga2-suite.json"), dir.join("t.json")).unwrap();
    let engine = dir.join("engines/toga2.toml");
    std::fs::copy(repo.join("engines/toga2.toml"), &engine).unwrap();
    let before = std::fs::read(&engine).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_marginal"))
        .args(["export", "t.json", "--format", "toml"])
        .args(["--out", "engines/toga2.toml", "--force"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_user_error(
        &out,
        &[
            "--out engines/toga2.toml is the engine file it records",
            "does not write over its input",
        ],
    );
    assert_eq!(std::fs::read(&engine).unwrap(), before);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A race's export says its evaluations, not an iteration count it never ran.
#[test]
fn a_races_export_counts_its_evaluations() {
    let dir = scratch("export", "race-evaluations");
    let out = common::marginal(
        &["export", "tuned/race-seed2.json", "--format", "rust"],
        &dir,
    );
    let text = common::said(&out);
    assert_names(
        &text,
        &["race", "suite objective", "seed 2", "72 evaluations"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tuned file whose margin does nothing under its switch (futility off, futility_margin 2):
/// export and suite say which margin, its value and the switch.
#[test]
fn a_margin_that_does_nothing_under_its_switch_is_said() {
    let dir = scratch("export", "idle-margin");
    let suite = common::small_suite(&dir, 30);
    let mut file = common::shipped_tuned("race-seed1.json");
    file["margins"]["futility"] = false.into();
    let off = dir.join("off.json");
    std::fs::write(&off, file.to_string()).unwrap();
    let off = off.to_str().unwrap();
    for args in [
        vec!["export", off, "--format", "uci"],
        vec![
            "suite",
            suite.to_str().unwrap(),
            "--nodes",
            "300",
            "-q",
            "--margins",
            off,
        ],
    ] {
        let out = common::marginal(&args, &dir);
        let text = common::said(&out);
        assert_eq!(out.status.code(), Some(0), "{text}");
        // The row and its value, and the switch that is off.
        assert_names(&text, &["futility_margin", "2", "futility is off"]);
    }
    std::fs::remove_dir_all(dir).unwrap();
}
