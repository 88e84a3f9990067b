//! What a check runs: the typed plan any front end (the `check` command, a test, a CI script)
//! builds ([`CheckPlan`]), and the steps around the measurement that it decides: its output
//! checked ([`CheckPlan::check_outputs`]), the engine the tuned file records found
//! ([`CheckPlan::recorded_engine`]), what to say of an interrupted check, and the update of
//! the file ([`CheckPlan::update`]). The engine's definition is resolved by the caller (it may
//! start the engine). Nothing here prints: what a step has to say is returned.
//!
//! # Example
//!
//! The plan of a check of a shipped tuned file with marginal's own engine, its report checked
//! and the file prepared (its suites found and verified), ready to measure:
//!
//! ```
//! use std::path::Path;
//! use marginal::check::plan::CheckPlan;
//! use marginal::tune::file::TunedFile;
//!
//! let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/spsa-suite.json");
//! let plan = CheckPlan::new(&path);
//! plan.check().unwrap();
//! let file = TunedFile::read(&plan.file).unwrap();
//! plan.check_outputs(&file, &[], &mut Vec::new()).unwrap();
//! assert_eq!(plan.recorded_engine(&file), None, "tuned for marginal's own engine");
//! let prepared = marginal::check::prepare(&plan.file, file, None).unwrap();
//! assert!(prepared.engine.same);
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{CheckReport, recorded_inputs};
use super::{FindingKind, Measurement, Prepared, Verdict, another_engine, locate};
use crate::engine::EngineDef;
use crate::formats::outputs;
use crate::progress::Said;
pub use crate::scoring::games::plan::PlanError;
use crate::tune::file::TunedFile;
use crate::tune::plan::EngineChoice;

/// The most worker threads a check runs on.
pub const MAX_THREADS: usize = 256;

/// Everything a check needs, as the user gave it: the tuned file, the engine, the games and
/// their books, the threads, and its outputs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckPlan {
    /// The tuned file (`marginal-tuned/1`).
    pub file: PathBuf,
    /// The external engine the file was tuned for (all empty: the one it records, or
    /// marginal's own).
    #[serde(flatten)]
    pub engine: EngineChoice,
    /// Also play the tuned set against the defaults, at most this many games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<u32>,
    /// The books of the games (empty: [`Prepared::books`]' defaults).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub openings: Vec<PathBuf>,
    /// The JSON report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<PathBuf>,
    /// Replace the report when it exists.
    #[serde(default)]
    pub force: bool,
    /// Record the figures measured now in the file.
    #[serde(default)]
    pub update: bool,
    /// Worker threads (`None`: every core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// Measure this many positions of each side, not all ([`Prepared::sampled`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<usize>,
}

/// What `--update` did to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Updated {
    /// The figures measured now are the recorded ones: the file is left as it is.
    Unchanged,
    /// The file was written; with a report, the words say how the file stood before.
    Written(Option<&'static str>),
}

impl CheckPlan {
    /// A check of `file` with marginal's own engine (or the one the file records), every
    /// other option at its default.
    pub fn new(file: impl Into<PathBuf>) -> CheckPlan {
        CheckPlan {
            file: file.into(),
            engine: EngineChoice::default(),
            games: None,
            openings: Vec::new(),
            json: None,
            force: false,
            update: false,
            threads: None,
            sample: None,
        }
    }

    /// Refuses a plan no command line gives: no games, threads out of range, an engine given two ways or options without its command.
    ///
    /// # Errors
    /// Names the field, its value and what it must be.
    pub fn check(&self) -> Result<(), PlanError> {
        let refuse = |why: &str| Err(PlanError(why.to_string()));
        if self.games == Some(0) {
            return refuse("--games 0: the games are at least 1 (or none: leave --games out)");
        }
        if self.sample == Some(0) {
            return refuse(
                "--sample 0: a sample is at least 1 position a side (or every position: leave --sample out)",
            );
        }
        if self.sample.is_some() && self.update {
            return refuse(
                "--sample with --update: a sample cannot replace the figures of every position; leave --sample out to update",
            );
        }
        if let Some(n) = self.threads
            && !(1..=MAX_THREADS).contains(&n)
        {
            return Err(PlanError(format!(
                "--threads {n}: worker threads are 1 to {MAX_THREADS}"
            )));
        }
        let e = &self.engine;
        if e.engine.is_some() && e.engine_cmd.is_some() {
            return refuse("--engine and --engine-cmd each name the engine: give one of them");
        }
        if e.engine_cmd.is_some() == e.engine_options.is_empty() {
            return refuse("--engine-cmd and --engine-options go together: give both or neither");
        }
        Ok(())
    }

    /// Options given that do nothing here, each with its value and what it is for: books
    /// without games, `force` without a report.
    pub fn unused_options(&self) -> Vec<String> {
        let books: Vec<String> = self
            .openings
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let books = (!books.is_empty() && self.games.is_none()).then(|| {
            format!(
                "--openings {} does nothing here (no --games): they are the books of --games N",
                books.join(" ")
            )
        });
        let force = (self.force && self.json.is_none()).then(|| {
            "--force does nothing here: it replaces the --json report when it exists, and no --json is given".to_string()
        });
        books.into_iter().chain(force).collect()
    }

    /// The file prepared for the check with `engine` ([`super::prepare`]), cut to the plan's
    /// sample when it has one ([`Prepared::sampled`]).
    ///
    /// # Errors
    /// See [`super::CheckError`]: every case is unusable input.
    pub fn prepare(
        &self,
        file: TunedFile,
        engine: Option<std::sync::Arc<EngineDef>>,
    ) -> Result<Prepared, super::CheckError> {
        let prepared = super::prepare(&self.file, file, engine)?;
        match self.sample {
            Some(n) => prepared.sampled(n),
            None => Ok(prepared),
        }
    }

    /// Writes the `--json` report (when asked for), before it is printed: a reader that goes
    /// (`| head -1`) ends marginal at the next line printed, and must not take the report with it.
    ///
    /// # Errors
    /// The report cannot be written (the message names it).
    pub fn write_report(&self, report: &CheckReport) -> std::io::Result<()> {
        let Some(out) = &self.json else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(report).map_err(std::io::Error::other)? + "\n";
        crate::formats::write_atomic(out, text.as_bytes()).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot write {}: {e}", out.display()))
        })
    }

    /// Worker threads: as asked, else every core.
    pub fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1)
    }

    /// Whether the engine is given (else the file's own, or marginal's).
    pub fn engine_given(&self) -> bool {
        self.engine.engine.is_some() || self.engine.engine_cmd.is_some()
    }

    /// Checks the report before any work: not the checked file, a suite it records, its
    /// engine file or `--engine`; and a fresh JSON output (replaced only with `force`, never a
    /// run's result: `results` are their formats). A directory created goes to `said`.
    ///
    /// # Errors
    /// Names the option, the file and the fix.
    pub fn check_outputs(
        &self,
        file: &TunedFile,
        results: &[&str],
        said: &mut Vec<Said>,
    ) -> Result<(), PlanError> {
        let Some(out) = &self.json else {
            return Ok(());
        };
        // The checked file, the suites it names and the engine file: all read again.
        let recorded = recorded_inputs(file, &self.file);
        let mut inputs: Vec<(&str, &Path)> = vec![("the checked file", self.file.as_path())];
        inputs.extend(recorded.iter().map(|(what, path)| (*what, path.as_path())));
        if let Some(engine) = &self.engine.engine {
            inputs.push(("--engine", engine.as_path()));
        }
        outputs::not_an_input(out, "--json", &inputs)?;
        let note = outputs::fresh_json_output(out, "--json", self.force, results)?;
        said.extend(note.map(Said::Note));
        Ok(())
    }

    /// The engine file to check with when none is given: the one the tuned file records, when
    /// it is an engine file and is found (beside the tuned file or above it, as suites are).
    /// `None` for marginal's own engine, an engine given by its command line, or a file not
    /// found ([`super::prepare`] then names it and the option).
    pub fn recorded_engine(&self, file: &TunedFile) -> Option<PathBuf> {
        let record = file.engine.as_ref()?;
        if self.engine_given() || !record.source.ends_with(".toml") {
            return None;
        }
        locate(Path::new(&record.source), &self.file).ok()
    }

    /// The line that says the recorded engine file `path` checks the file, as `def` describes
    /// it now; refused when its description changed since the file was tuned (then
    /// `--engine FILE` checks with it anyway).
    ///
    /// # Errors
    /// The engine file changed: names both digests and the option.
    pub fn recorded_engine_line(
        &self,
        file: &TunedFile,
        path: &Path,
        def: &EngineDef,
    ) -> Result<String, PlanError> {
        let Some(record) = &file.engine else {
            return Err(PlanError(format!(
                "{}: records no engine file",
                self.file.display()
            )));
        };
        if !def.is_signed(&record.signature) {
            return Err(PlanError(format!(
                "{}: the engine file {} changed since the file was tuned (content digest {}, recorded {}): \
                 give --engine {} to check with it as it is now",
                self.file.display(),
                path.display(),
                def.signature(),
                record.signature,
                path.display()
            )));
        }
        Ok(format!(
            "engine: {} ({}), as the tuned file records it",
            record.name,
            path.display()
        ))
    }

    /// The warning for an engine given under another name than the file's but carrying its
    /// rows and UCI options: checked as that engine described anew. `None` otherwise (rows
    /// that differ are refused by [`super::prepare`]).
    pub fn renamed_engine(&self, file: &TunedFile, def: &EngineDef) -> Option<String> {
        let record = file.engine.as_ref()?;
        if record.name == def.name || another_engine(record, def, &file.tuned).is_some() {
            return None;
        }
        Some(format!(
            "{}: tuned for the engine '{}' ({}); {} names its engine '{}' but carries the file's rows and UCI options, so it is checked as that engine described anew (judging by the statistics)",
            self.file.display(),
            record.name,
            record.source,
            def.source.as_deref().unwrap_or(&def.name),
            def.name
        ))
    }

    /// What an interrupted check says: what is kept, and how to go on. `given` is the command
    /// line as given (without the program), so that the rerun does what was asked.
    pub fn interrupted_message(&self, given: &[String]) -> String {
        let command = if given.is_empty() {
            format!("check {}", self.file.display())
        } else {
            given.join(" ")
        };
        let kept = if self.games.is_some() {
            "the reference runs and the game pairs (--games) that finished are kept in the cache, not a partial measurement"
        } else {
            "the reference runs that finished are kept in the cache, not a partial measurement"
        };
        format!("interrupted: {kept}: rerun `marginal {command}` to go on")
    }

    /// `--update`: writes the figures measured now into the file (atomically), recording
    /// `command_line`, unless they are the recorded ones (then the file, a shipped one tracked
    /// by git, is left as it is rather than rewritten for another command line). With a
    /// `report`, the words of [`Updated::Written`] say how the file stood.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn update(
        &self,
        prepared: &Prepared,
        now: &Measurement,
        report: Option<&CheckReport>,
        command_line: String,
    ) -> std::io::Result<Updated> {
        let mut same = prepared.updated(now, String::new());
        if let (Some(m), Some(old)) = (same.measured.as_mut(), prepared.file.measured.as_ref()) {
            m.command_line.clone_from(&old.command_line);
        }
        if report.is_some() && same == prepared.file {
            return Ok(Updated::Unchanged);
        }
        prepared.updated(now, command_line).write(&self.file)?;
        Ok(Updated::Written(report.map(|r| {
            if (r.findings.iter()).any(|f| f.kind == FindingKind::RecordContradicted) {
                "its record did not match its own outcomes"
            } else if r.verdict == Verdict::Holds {
                "it held"
            } else {
                "it had regressed"
            }
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tuned")
            .join(name)
    }

    #[test]
    fn a_plan_round_trips_through_json() {
        let plan = CheckPlan {
            engine: EngineChoice {
                engine: Some("engines/toga2.toml".into()),
                ..EngineChoice::default()
            },
            games: Some(40),
            openings: vec!["a.epd".into(), "b.epd".into()],
            json: Some("out.json".into()),
            force: true,
            threads: Some(2),
            sample: Some(50),
            ..CheckPlan::new("tuned/spsa-suite.json")
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<CheckPlan>(&text).unwrap(), plan);
        let e =
            serde_json::from_str::<CheckPlan>(&text.replacen('{', "{\"gmaes\":1,", 1)).unwrap_err();
        assert!(e.to_string().contains("gmaes"), "{e}");
    }

    #[test]
    fn a_plan_from_defaults_checks_with_the_files_own_engine() {
        let plan = CheckPlan::new(shipped("spsa-suite.json"));
        plan.check().unwrap();
        assert!(!plan.engine_given());
        assert!(plan.threads() >= 1);
        let file = TunedFile::read(&plan.file).unwrap();
        assert_eq!(plan.recorded_engine(&file), None, "marginal's own engine");
        let mut said = Vec::new();
        plan.check_outputs(&file, &[], &mut said).unwrap();
        assert!(said.is_empty());
        let m = plan.interrupted_message(&[]);
        assert!(
            m.contains("marginal check") && m.contains("spsa-suite.json"),
            "{m}"
        );
    }

    #[test]
    fn a_set_recorded_under_its_engine_files_former_digest_is_checked_with_that_file() {
        // Toga II's race set records the digest of engines/toga2.toml's text, as marginal
        // recorded signatures before they left comments out; the file is unchanged since.
        let plan = CheckPlan::new(shipped("toga2-race.json"));
        let file = TunedFile::read(&plan.file).unwrap();
        let path = plan
            .recorded_engine(&file)
            .expect("it records its engine file");
        let engine = crate::formats::engine_file::EngineFile::read(&path).unwrap();
        let def = EngineDef::from_file(&engine);
        let recorded = &file.engine.as_ref().unwrap().signature;
        assert_ne!(*recorded, def.signature());
        let line = plan.recorded_engine_line(&file, &path, &def).unwrap();
        assert!(line.ends_with("as the tuned file records it"), "{line}");
        // Another digest is another engine file: refused, naming both.
        let mut other = file.clone();
        other.engine.as_mut().unwrap().signature = "0000000000000000".into();
        let e = plan.recorded_engine_line(&other, &path, &def).unwrap_err();
        assert!(
            e.to_string().contains("changed since the file was tuned"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_plan_is_refused_naming_the_option() {
        let base = CheckPlan::new("t.json");
        for (plan, says) in [
            (
                CheckPlan {
                    games: Some(0),
                    ..base.clone()
                },
                "--games 0",
            ),
            (
                CheckPlan {
                    threads: Some(0),
                    ..base.clone()
                },
                "--threads 0",
            ),
            (
                CheckPlan {
                    sample: Some(0),
                    ..base.clone()
                },
                "--sample 0",
            ),
            (
                CheckPlan {
                    sample: Some(50),
                    update: true,
                    ..base.clone()
                },
                "--sample with --update",
            ),
        ] {
            let e = plan.check().unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        // Books without games, and force without a report, do nothing: said, not refused.
        let idle = CheckPlan {
            openings: vec!["b.epd".into()],
            force: true,
            ..base.clone()
        };
        idle.check().unwrap();
        let said = idle.unused_options();
        assert!(
            said.len() == 2
                && said[0].contains("--openings b.epd")
                && said[0].contains("--games N")
                && said[1].contains("--force does nothing")
                && said[1].contains("--json"),
            "{said:?}"
        );
    }

    #[test]
    fn the_report_is_never_the_checked_file() {
        let path = shipped("spsa-suite.json");
        let plan = CheckPlan {
            json: Some(path.clone()),
            force: true,
            ..CheckPlan::new(&path)
        };
        let file = TunedFile::read(&path).unwrap();
        let e = plan.check_outputs(&file, &[], &mut Vec::new()).unwrap_err();
        assert!(
            e.0.contains("--json") && e.0.contains("spsa-suite.json"),
            "{e}"
        );
    }
}
