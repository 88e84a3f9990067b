//! A calibration prepared from its plan, everything checked before any work: its games (the
//! sets of the design, the books and the pair budget, with its outputs checked: [`games`]),
//! then its cheap objectives (each entry of `--objectives` checked before any is prepared, a
//! reference run can take minutes; then each objective's inputs read and its reference run
//! made or read from the cache: [`objectives`]). Nothing here prints: what preparing has to say
//! (the files' bad lines, warnings, notes: [`Said`]), the objective being prepared and the
//! reference runs' progress go to its observer as they happen.

use std::path::PathBuf;
use std::sync::Arc;

use super::plan::{CalibratePlan, ObjectiveKind, ObjectiveSpec, PlanError};
use super::{Book, CalibrationSet, RegionDim, design};
use crate::engine::{EngineDef, Setting};
use crate::formats::openings;
use crate::progress::{Event, Observer, Said, Shared};
use crate::scoring::cheap::{CheapObjective, MateObjective, QualityObjective, SuiteObjective};
use crate::scoring::exec::Runner;
use crate::scoring::exec::local::Local;
use crate::scoring::quality::{MoveQuality, QualityConfig};
use crate::scoring::suite::{
    RunConfig, ScorerOptions, SuiteLimit, SuiteScorer, default_cache_dir, load_suites,
    nothing_searched, odd_suites,
};

/// Why an objective could not be prepared: the whole message, naming the file or the engine
/// and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PrepareError(pub String);

/// The games of a calibration: its sets, the region of its design, and its books.
#[derive(Debug)]
pub struct Games {
    /// The sets: the defaults, the added ones (by `resolve`), then the design's.
    pub sets: Vec<CalibrationSet>,
    /// The design's region.
    pub region: Vec<RegionDim>,
    /// The books, shuffled by the seed, each with the pairs it must open.
    pub books: Vec<Book>,
}

/// The games of `plan` for the engine `def` (`resolve` gives a `--margins` set as users write
/// it), with the plan's outputs checked ([`CalibratePlan::check_outputs`]) before the books
/// are read.
///
/// # Errors
/// A region, set, output or book the plan cannot use.
pub fn games(
    plan: &CalibratePlan,
    def: &Arc<EngineDef>,
    resolve: &dyn Fn(&str) -> Result<Setting, String>,
    observer: &dyn Observer,
) -> Result<Games, PlanError> {
    let region = design::region(def, &plan.region).map_err(|e| PlanError::Check(e.to_string()))?;
    let sets = plan.sets(def, &region, resolve)?;
    if let Some(note) = plan.check_outputs()? {
        observer.say(Said::Note(note));
    }
    let on_skipped = &mut |skipped: &[_]| {
        if let Some(skipped) = Said::skipped(skipped) {
            observer.say(skipped);
        }
    };
    let (books, said) = plan.books(on_skipped)?;
    if let Some(warning) = said.warning {
        observer.say(Said::Warning(warning));
    }
    // What the number of games becomes is said with the results.
    if let Some(note) = said.note {
        observer.say(Said::Out(format!("note: {note}")));
    }
    Ok(Games {
        sets,
        region,
        books,
    })
}

/// The objectives of `plan`, each entry checked before any is prepared, then prepared in turn
/// with the engine's defaults as the reference; the suites' reference runs go through
/// `executor` (the quality objective's searches run on this machine). `defaults` is
/// the plan of the same command with no option given: an option of an objective that the
/// plan leaves out is said to do nothing.
///
/// # Errors
/// An entry that does not parse or repeats one; an input that cannot be read; a reference run
/// that failed or searched nothing.
pub fn objectives(
    plan: &CalibratePlan,
    defaults: &CalibratePlan,
    def: &Arc<EngineDef>,
    executor: &Arc<dyn Runner>,
    observer: &Shared,
) -> Result<Vec<Box<dyn CheapObjective>>, PrepareError> {
    let user = |e: super::plan::PlanError| PrepareError(e.to_string());
    let specs = plan.objective_specs().map_err(user)?;
    if let Some(unused) = unused_options(plan, defaults, &plan.objective_entries()) {
        observer.say(Said::Warning(unused));
    }
    if specs.iter().any(|s| s.kind == ObjectiveKind::Mates) {
        plan.check_mate_suite().map_err(user)?;
    }
    let mut out: Vec<Box<dyn CheapObjective>> = Vec::new();
    for spec in &specs {
        observer.event(&Event::Preparing {
            objective: &spec.kind.to_string(),
            limit: &spec.limit.to_string(),
            deep: spec.kind == ObjectiveKind::Quality,
        });
        let objective = objective(plan, def, spec, executor, observer);
        observer.event(&Event::Prepared);
        out.push(objective?);
    }
    Ok(out)
}

/// One objective, prepared: its reference run made (or read from the cache).
fn objective(
    plan: &CalibratePlan,
    def: &Arc<EngineDef>,
    spec: &ObjectiveSpec,
    executor: &Arc<dyn Runner>,
    observer: &Shared,
) -> Result<Box<dyn CheapObjective>, PrepareError> {
    let scorer = |files: &[PathBuf]| {
        let config = RunConfig {
            limit: spec.limit,
            hash_mb: plan.hash_mb,
        };
        suite_scorer(def, files, config, plan, executor.clone(), observer)
    };
    Ok(match spec.kind {
        ObjectiveKind::Suite => Box::new(SuiteObjective {
            scorer: scorer(&plan.suites)?,
        }),
        ObjectiveKind::Mates => {
            plan.check_mate_suite()
                .map_err(|e| PrepareError(e.to_string()))?;
            Box::new(MateObjective {
                scorer: scorer(std::slice::from_ref(&plan.mate_suite))?,
            })
        }
        ObjectiveKind::Quality => Box::new(quality_objective(plan, def, spec.limit, observer)?),
    })
}

/// The scorer of the suites in `files` at `config`, its reference run made by the engine's
/// defaults (or read from the cache).
fn suite_scorer(
    def: &Arc<EngineDef>,
    files: &[PathBuf],
    config: RunConfig,
    plan: &CalibratePlan,
    executor: Arc<dyn Runner>,
    observer: &Shared,
) -> Result<SuiteScorer, PrepareError> {
    let suites =
        load_suites(files, false, plan.repeats()).map_err(|e| PrepareError(e.to_string()))?;
    if let Some(skipped) = Said::skipped(suites.skipped()) {
        observer.say(skipped);
    }
    for odd in odd_suites(files, &[&suites]) {
        observer.say(Said::Warning(odd));
    }
    let options = ScorerOptions {
        config,
        reference: Setting::off(def),
        cache_dir: Some(default_cache_dir()),
        executor,
        ..ScorerOptions::default()
    };
    let run = format!("the reference run of {}", files[0].display());
    let scorer = SuiteScorer::new(suites, options, Some(observer.clone()))
        .map_err(|e| PrepareError(format!("{run}: {e}")))?;
    match nothing_searched(def, &run, scorer.reference()) {
        Some(why) => Err(PrepareError(why)),
        None => Ok(scorer),
    }
}

/// The quality objective at `limit`: its positions read and their deep reference searched
/// (or read from the cache).
fn quality_objective(
    plan: &CalibratePlan,
    def: &Arc<EngineDef>,
    limit: SuiteLimit,
    observer: &Shared,
) -> Result<QualityObjective, PrepareError> {
    let book = openings::read(&plan.quality_positions).map_err(|e| {
        PrepareError(format!(
            "--quality-positions: {e} (the quality objective needs positions from games, one FEN a line)"
        ))
    })?;
    if let Some(skipped) = Said::skipped(&book.skipped) {
        observer.say(skipped);
    }
    let source = plan.quality_source(&book.records);
    let config = QualityConfig {
        limit,
        deep: plan.deep_limit(limit),
        hash_mb: plan.hash_mb,
        cache_dir: Some(default_cache_dir()),
        // On this machine, whatever the games' executor: its searches are many and small.
        executor: Arc::new(Local::new(plan.concurrency)),
    };
    let quality = MoveQuality::prepare(book.records, Setting::defaults(def), config, &**observer);
    let engine = def.source.as_deref().unwrap_or(&def.name);
    let quality = quality.map_err(|e| {
        PrepareError(format!(
            "the engine {engine}: {e}: the quality objective has no yardstick; {}",
            def.fix_hint()
        ))
    })?;
    if let Some(first) = quality.reference_faults().first() {
        observer.say(Said::Warning(format!(
            "the engine {engine} faulted on {} of the {} deep reference searches of the quality objective (first: {first}): those positions are left out of it (and the reference is not cached); {}",
            quality.reference_faults().len(),
            quality.reference_faults().len() + quality.len(),
            def.fix_hint()
        )));
    }
    Ok(QualityObjective { quality, source })
}

/// An option of an objective that the plan's objectives leave out does nothing: the warning
/// that says so, if any (`defaults`: the plan with no option given; `entries`: the plan's
/// objective entries, as given).
pub fn unused_options(
    plan: &CalibratePlan,
    defaults: &CalibratePlan,
    entries: &[String],
) -> Option<String> {
    let measured = |kind: &str| {
        entries
            .iter()
            .any(|s| s.split(':').next().map(str::trim) == Some(kind))
    };
    let unused: Vec<&str> = [
        ("suite", "--suite", plan.suites != defaults.suites),
        (
            "mates",
            "--mate-suite",
            plan.mate_suite != defaults.mate_suite,
        ),
        (
            "quality",
            "--quality-positions",
            plan.quality_positions != defaults.quality_positions,
        ),
        (
            "quality",
            "--quality-deep",
            plan.quality_deep != defaults.quality_deep,
        ),
    ]
    .into_iter()
    .filter(|(kind, _, given)| *given && !measured(kind))
    .map(|(_, option, _)| option)
    .collect();
    (!unused.is_empty()).then(|| {
        format!(
            "{} given, but --objectives {} leaves out the objective that uses {}: ignored",
            unused.join(", "),
            entries.join(","),
            if unused.len() == 1 { "it" } else { "them" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::plan::tests::plan;
    use std::sync::Mutex;

    /// What a preparation said, as text, and its objectives' count or its error.
    fn heard(p: &CalibratePlan) -> (Vec<String>, Result<usize, PrepareError>) {
        let said = Arc::new(Mutex::new(Vec::new()));
        let kept = said.clone();
        let observer: Shared = Arc::new(move |e: &Event<'_>| {
            let text = match e {
                Event::Preparing { objective, .. } => format!("preparing {objective}"),
                Event::Prepared => "prepared".to_string(),
                Event::Said(Said::Warning(w)) => format!("warning {w}"),
                Event::Said(other) => format!("{other:?}").chars().take(40).collect(),
                _ => return,
            };
            kept.lock().unwrap().push(text);
        });
        let here: Arc<dyn Runner> = Arc::new(Local::new(1));
        let made = objectives(p, &plan(), &EngineDef::builtin(), &here, &observer);
        let said = said.lock().unwrap().clone();
        (said, made.map(|o| o.len()))
    }

    #[test]
    fn options_of_objectives_left_out_are_named() {
        let defaults = plan();
        let entries = |s: &[&str]| s.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
        let mut given = plan();
        given.mate_suite = "m.epd".into();
        given.quality_deep = 9;
        let said = unused_options(&given, &defaults, &entries(&["suite:nodes=500"])).unwrap();
        assert!(
            said.starts_with("--mate-suite, --quality-deep given")
                && said.contains("--objectives suite:nodes=500"),
            "{said}"
        );
        // Used, or left at their defaults: nothing to say.
        assert_eq!(
            unused_options(&given, &defaults, &entries(&["mates", "quality"])),
            None
        );
        assert_eq!(
            unused_options(&plan(), &defaults, &entries(&["suite"])),
            None
        );
        let mut suite = plan();
        suite.suites = vec!["a.epd".into()];
        let said = unused_options(&suite, &defaults, &entries(&["mates"]));
        assert!(said.unwrap().starts_with("--suite given"));
    }

    #[test]
    fn every_entry_is_checked_before_any_objective_is_prepared() {
        let mut twice = plan();
        twice.objectives = vec!["quality:depth=1".into(), "quality:depth=1".into()];
        let (said, made) = heard(&twice);
        assert!(
            made.unwrap_err()
                .0
                .contains("'quality:depth=1' is given twice")
        );
        assert!(said.is_empty(), "{said:?}");
    }

    #[test]
    fn positions_that_cannot_be_read_are_named_after_their_option() {
        let mut missing = plan();
        missing.objectives = vec!["quality:depth=1".into()];
        missing.quality_positions = "no/such/positions.epd".into();
        missing.suites = vec!["other.epd".into()];
        let (said, made) = heard(&missing);
        let why = made.unwrap_err().0;
        assert!(
            why.starts_with("--quality-positions") && why.contains("no/such/positions.epd"),
            "{why}"
        );
        // The unused --suite is said first; the objective is announced, and its end told
        // even though it failed (a bar drawn for it is cleared).
        assert!(said[0].starts_with("warning --suite given"), "{said:?}");
        assert_eq!(said[1], "preparing quality");
        assert_eq!(said.last().unwrap(), "prepared");
    }
}
