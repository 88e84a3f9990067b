//! The tuned sets shipped in `tuned/` are valid tuned files, and their recorded figures agree
//! with themselves: what an engine author reads in the README is what the files hold.

use std::path::Path;

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
