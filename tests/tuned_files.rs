//! The tuned sets shipped in `tuned/` are valid tuned files, and their recorded figures agree
//! with themselves: what an engine author reads in the README is what the files hold. A tuned
//! file damaged or edited by hand is refused (exit 2), naming the file, the record and the fix,
//! never read as something it does not say.

mod common;

use std::path::Path;

use common::{assert_names, marginal, refused, said, scratch, shipped_tuned, small_suite};
use marginal::tune::file::TunedFile;

#[test]
fn every_shipped_tuned_file_parses_and_is_consistent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        // Calibration reports live beside the tuned sets; `.ci/run` recomputes them.
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("\"format\": \"marginal-calibration/") {
            continue;
        }
        let file = TunedFile::read(&path).unwrap_or_else(|e| panic!("{e}"));
        seen += 1;
        let name = path.display();
        // The tuned set is the first set judged, on both sides.
        assert_eq!(file.training.sets[0].name, "tuned", "{name}");
        assert_eq!(file.training.sets[0].margins, file.margins, "{name}");
        assert_eq!(file.validation.sets[0].margins, file.margins, "{name}");
        // The paired test counts every validation position once.
        let p = file.paired.validation;
        assert_eq!(
            p.both + p.only_a + p.only_b + p.neither,
            file.validation.positions as u64,
            "{name}"
        );
        let tuned_solved = file.validation.set("tuned").unwrap().objective.solved;
        assert_eq!(p.both + p.only_a, tuned_solved as u64, "{name}");
        // The SVG was drawn beside it.
        assert!(path.with_extension("svg").exists(), "{name}: no SVG");
    }
    assert!(seen >= 1, "no tuned files in {}", dir.display());
}

/// Writes `value` to `DIR/NAME` on one line and returns the path as a string.
fn written(dir: &Path, name: &str, value: &serde_json::Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, value.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// A tuned file whose per-position list was cut is damaged, not "from an older marginal":
/// check names the set, the counts and the damage.
#[test]
fn a_tuned_file_with_outcomes_cut_is_said_to_be_damaged() {
    let dir = scratch("tuned-files", "cut");
    let mut file = shipped_tuned("spsa-suite.json");
    file["training"]["sets"][0]["positions"]
        .as_array_mut()
        .unwrap()
        .truncate(500);
    let cut = written(&dir, "cut.json", &file);
    refused(
        &["check", &cut],
        &dir,
        // The file, the side and set, both counts, and the fix.
        &[&cut, "training 'tuned'", "500", "810", "git checkout"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tuned file whose recorded objective alone was edited contradicts itself: every outcome
/// comes out as recorded, so check exits 2 (no regression is claimed) and names the way
/// forward, `check FILE --update`; taken, it records the figures, says the record did not
/// match, and the file then holds.
#[test]
fn a_record_that_contradicts_itself_names_update_and_update_mends_it() {
    let dir = scratch("tuned-files", "contradicts");
    let mut file = shipped_tuned("spsa-suite.json");
    let value = file["training"]["sets"][0]["objective"]["value"]
        .as_f64()
        .unwrap();
    file["training"]["sets"][0]["objective"]["value"] = (value + 5.0).into();
    let edited = written(&dir, "edited.json", &file);
    refused(
        &["check", &edited, "-q"],
        &dir,
        // The file, the side and set, the figure recorded and the one its outcomes give, the fix.
        &[
            &edited,
            "training, tuned set",
            &format!("objective {:.3}", value + 5.0),
            &format!("objective {value:.3}"),
            &format!("`marginal check {edited} --update`"),
        ],
    );
    let update = said(&marginal(&["check", &edited, "-q", "--update"], &dir));
    assert_names(
        &update,
        &[edited.as_str(), "record did not match its own outcomes"],
    );
    let out = marginal(&["check", &edited, "-q"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A tuned file without its "margins" given as --margins is damaged, not a margin set named
/// 'tuned'.
#[test]
fn a_tuned_file_without_its_margins_is_refused_as_margins() {
    let dir = scratch("tuned-files", "no-margins");
    let mut file = shipped_tuned("spsa-suite.json");
    file.as_object_mut().unwrap().remove("margins");
    let path = written(&dir, "nomargins.json", &file);
    let suite = small_suite(&dir, 5);
    refused(
        &[
            "suite",
            suite.to_str().unwrap(),
            "--nodes",
            "300",
            "--margins",
            &path,
        ],
        &dir,
        &[&format!("{path}:1:"), "\"margins\"", "restore it"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A recorded limit no run can have used (0 nodes) is refused by check.
#[test]
fn a_recorded_limit_that_searches_nothing_is_refused() {
    let dir = scratch("tuned-files", "limit0");
    let mut file = shipped_tuned("spsa-suite.json");
    file["provenance"]["limit"] = serde_json::json!({"nodes": 0});
    let path = written(&dir, "limit0.json", &file);
    refused(
        &["check", &path],
        &dir,
        &[&format!("{path}:1:"), "0 nodes", "edited or damaged"],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A record emptied or replaced (campaign 22, H028) is named by the file, its line and its
/// key, on one line or pretty-printed, not by the Rust type that reads it; the fix is to
/// restore the file.
#[test]
fn an_emptied_record_is_named_by_its_key_and_line() {
    let dir = scratch("tuned-files", "emptied");
    let mut emptied = shipped_tuned("spsa-suite.json");
    emptied["provenance"]["suites"] = serde_json::json!([]);
    let pretty = serde_json::to_string_pretty(&emptied).unwrap();
    let suites_line = pretty
        .lines()
        .position(|l| l.contains("\"suites\""))
        .unwrap()
        + 1;
    for (name, text, line) in [
        ("emptied.json", emptied.to_string(), 1),
        ("emptied-pretty.json", pretty, suites_line),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        refused(
            &["check", dir.join(name).to_str().unwrap()],
            &dir,
            &[
                &format!("{}:{line}:", dir.join(name).display()),
                "marginal-tuned/1",
                "\"suites\"",
                "an empty list",
                "restore it",
            ],
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}
