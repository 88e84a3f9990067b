//! A calibration prepared from its plan, everything checked before any work: its games (the
//! sets of the design, the books and the pair budget, with its outputs checked: [`games`]),
//! then its cheap objectives (each entry of `--objectives` checked before any is prepared, a
//! reference run can take minutes; then each objective's inputs read and its reference run
//! made or read from the cache: [`objectives`], timed for the run's cost by
//! [`objectives_into`]). Nothing here prints: what preparing has to say
//! (the files' bad lines, warnings, notes: [`Said`]), the objective being prepared and the
//! reference runs' progress go to its observer as they happen.

use std::path::PathBuf;
use std::sync::Arc;

use super::plan::{CalibratePlan, DEFAULT_REFEREE, ObjectiveKind, ObjectiveSpec, PlanError};
use super::{Book, CalibrationSet, RegionDim, design};
use crate::engine::{EngineDef, Setting};
use crate::formats::engine_file::EngineFile;
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

/// [`objectives`] of `plan` into `config`, with the time they took to prepare (their
/// reference runs can take minutes; read from the cache, a moment) counted in the cost of the
/// run that follows.
///
/// # Errors
/// As [`objectives`].
pub fn objectives_into(
    config: &mut super::Config,
    plan: &CalibratePlan,
    defaults: &CalibratePlan,
    def: &Arc<EngineDef>,
    observer: &Shared,
) -> Result<(), PrepareError> {
    let (start, cpu) = (std::time::Instant::now(), crate::progress::cpu_seconds());
    config.objectives = objectives(plan, defaults, def, &config.executor, observer)?;
    config.preparation = super::Spent::since(start, cpu);
    Ok(())
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
    let referee = if specs.iter().any(|s| s.kind == ObjectiveKind::Referee) {
        Some(referee(plan, def, observer)?)
    } else {
        None
    };
    let mut out: Vec<Box<dyn CheapObjective>> = Vec::new();
    for spec in &specs {
        observer.event(&Event::Preparing {
            objective: &spec.kind.to_string(),
            limit: &spec.limit.to_string(),
            deep: spec.kind.is_deep(),
        });
        let judge = referee
            .as_ref()
            .filter(|_| spec.kind == ObjectiveKind::Referee);
        let objective = objective(plan, (def, judge), spec, executor, observer);
        observer.event(&Event::Prepared);
        out.push(objective?);
    }
    Ok(out)
}

/// One objective, prepared: its reference run made (or read from the cache); `def` is the
/// engine, with the referee of a referee objective.
fn objective(
    plan: &CalibratePlan,
    (def, referee): (&Arc<EngineDef>, Option<&Arc<EngineDef>>),
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
        ObjectiveKind::Quality | ObjectiveKind::Referee => Box::new(quality_objective(
            plan,
            (def, referee),
            spec.limit,
            observer,
        )?),
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

/// The quality objective at `limit` (or, with a `referee`, the referee objective): its
/// positions read and their deep reference searched (or read from the cache), by the engine
/// `def` itself at the plan's multiple of `limit`, or by the referee at its node budget.
fn quality_objective(
    plan: &CalibratePlan,
    (def, referee): (&Arc<EngineDef>, Option<&Arc<EngineDef>>),
    limit: SuiteLimit,
    observer: &Shared,
) -> Result<QualityObjective, PrepareError> {
    let what = if referee.is_some() {
        "referee"
    } else {
        "quality"
    };
    let book = openings::read(&plan.quality_positions).map_err(|e| {
        PrepareError(format!(
            "--quality-positions: {e} (the {what} objective needs positions from games, one FEN a line)"
        ))
    })?;
    if let Some(skipped) = Said::skipped(&book.skipped) {
        observer.say(skipped);
    }
    let source = plan.quality_source(&book.records);
    let (judge, deep) = match referee {
        Some(r) => (r, SuiteLimit::Nodes(plan.referee_nodes)),
        None => (def, plan.deep_limit(limit)),
    };
    let config = QualityConfig {
        limit,
        deep,
        hash_mb: plan.hash_mb,
        cache_dir: Some(default_cache_dir()),
        cache_name: what,
        // On this machine, whatever the games' executor: its searches are many and small.
        executor: Arc::new(Local::new(plan.concurrency)),
    };
    let quality = MoveQuality::prepare(book.records, Setting::defaults(judge), config, &**observer);
    let engine = judge.source.as_deref().unwrap_or(&judge.name);
    let quality = quality.map_err(|e| {
        PrepareError(format!(
            "the engine {engine}: {e}: the {what} objective has no yardstick; {}",
            judge.fix_hint()
        ))
    })?;
    if let Some(first) = quality.reference_faults().first() {
        observer.say(Said::Warning(format!(
            "the engine {engine} faulted on {} of the {} deep reference searches of the {what} objective (first: {first}): those positions are left out of it (and the reference is not cached); {}",
            quality.reference_faults().len(),
            quality.reference_faults().len() + quality.len(),
            judge.fix_hint()
        )));
    }
    for warning in quality.warnings() {
        observer.say(Said::Warning(warning.clone()));
    }
    let referee = referee.map(|r| (r.name.clone(), r.signature()));
    Ok(QualityObjective {
        quality,
        source,
        referee,
    })
}

/// The referee engine of the referee objective, from the plan's engine file: read, its
/// program found, started once and checked to speak UCI (what it has to say said), given up
/// on after as many faults in a row as the engine `def`.
///
/// # Errors
/// A file that cannot be read, an engine that is not installed or is not a UCI engine: the
/// message names the file, the program and the fix.
fn referee(
    plan: &CalibratePlan,
    def: &EngineDef,
    observer: &Shared,
) -> Result<Arc<EngineDef>, PrepareError> {
    let path = plan.referee.display();
    let other =
        "or give --referee FILE naming another UCI engine's file (docs/external-engines.md)";
    let file = EngineFile::read(&plan.referee).map_err(|e| {
        PrepareError(format!(
            "--referee {e}: the referee objective needs a UCI engine's file, such as {DEFAULT_REFEREE}; fix it, {other}"
        ))
    })?;
    if !installed(&file.command) {
        return Err(PrepareError(format!(
            "--referee {path}: its engine {} is not installed (no such program{}): install it (Stockfish: apt-get install stockfish), fix `command` in {path}, {other}",
            file.command.display(),
            if file.command.components().count() == 1 {
                " on PATH"
            } else {
                ""
            }
        )));
    }
    let referee = EngineDef::from_file(&file);
    let warnings = referee.verify().map_err(|e| {
        PrepareError(format!(
            "--referee {path}: the referee does not work as a UCI engine ({e}): fix `command` in {path} to run a UCI engine, {other}"
        ))
    })?;
    // A referee is not tuned: that it has no rows goes without saying (the warning of a file
    // without rows is the first when it has none).
    for warning in warnings
        .into_iter()
        .skip(usize::from(referee.rows.is_empty()))
    {
        observer.say(Said::Warning(format!("the referee: {warning}")));
    }
    if let (Some(b), Some(mine)) = (referee.breaker(), def.breaker()) {
        b.set_limit(mine.limit());
    }
    Ok(Arc::new(referee))
}

/// Whether the program `command` is there: a path with a directory is a file, a bare name is
/// on `PATH`.
pub(crate) fn installed(command: &std::path::Path) -> bool {
    if command.components().count() > 1 {
        return command.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(command).is_file()))
}

/// An option of an objective that the plan's objectives leave out does nothing: the warning
/// that says so, if any (`defaults`: the plan with no option given; `entries`: the plan's
/// objective entries, as given).
pub fn unused_options(
    plan: &CalibratePlan,
    defaults: &CalibratePlan,
    entries: &[String],
) -> Option<String> {
    let measured = |kinds: &[&str]| {
        entries.iter().any(|s| {
            s.split(':')
                .next()
                .is_some_and(|kind| kinds.contains(&kind.trim()))
        })
    };
    let files = |v: &[PathBuf]| {
        v.iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    };
    let unused: Vec<String> = [
        (
            &["suite"][..],
            "--suite",
            files(&plan.suites).join(" "),
            plan.suites != defaults.suites,
        ),
        (
            &["mates"],
            "--mate-suite",
            plan.mate_suite.display().to_string(),
            plan.mate_suite != defaults.mate_suite,
        ),
        (
            &["quality", "referee"],
            "--quality-positions",
            plan.quality_positions.display().to_string(),
            plan.quality_positions != defaults.quality_positions,
        ),
        (
            &["quality"],
            "--quality-deep",
            plan.quality_deep.to_string(),
            plan.quality_deep != defaults.quality_deep,
        ),
        (
            &["referee"],
            "--referee",
            plan.referee.display().to_string(),
            plan.referee != defaults.referee,
        ),
        (
            &["referee"],
            "--referee-nodes",
            plan.referee_nodes.to_string(),
            plan.referee_nodes != defaults.referee_nodes,
        ),
    ]
    .into_iter()
    .filter(|(kinds, .., given)| *given && !measured(kinds))
    .map(|(_, option, value, _)| format!("{option} {value}"))
    .collect();
    (!unused.is_empty()).then(|| {
        let one = unused.len() == 1;
        format!(
            "{} {} nothing here: --objectives {} leaves out the objective that uses {}",
            unused.join(", "),
            if one { "does" } else { "do" },
            entries.join(","),
            if one { "it" } else { "them" }
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
            said.starts_with("--mate-suite m.epd, --quality-deep 9 do nothing here")
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
        assert!(said.unwrap().starts_with("--suite a.epd does nothing here"));
        // The referee's options belong to it; the positions to quality and referee alike.
        let mut referee = plan();
        referee.referee = "other.toml".into();
        referee.referee_nodes = 1000;
        referee.quality_positions = "p.epd".into();
        let said = unused_options(&referee, &defaults, &entries(&["quality"])).unwrap();
        assert!(
            said.starts_with("--referee other.toml, --referee-nodes 1000 do nothing here"),
            "{said}"
        );
        assert_eq!(
            unused_options(&referee, &defaults, &entries(&["referee:nodes=500"])),
            None
        );
    }

    /// A plan of the referee objective alone, judged by the engine file `text` (written in a
    /// scratch directory named `name`, its `{dir}` the directory).
    fn refereed(name: &str, text: &str) -> (CalibratePlan, String) {
        let dir = crate::testing::scratch("prepare", name);
        let file = dir.join("referee.toml");
        std::fs::write(&file, text.replace("{dir}", &dir.display().to_string())).unwrap();
        let mut p = plan();
        p.objectives = vec!["referee:nodes=100".into()];
        p.referee = file.clone();
        (p, file.display().to_string())
    }

    #[test]
    fn a_referee_that_is_not_installed_names_its_file_its_program_and_the_fix() {
        let (p, file) = refereed(
            "absent",
            "name = \"Stockfish\"\ncommand = \"{dir}/no/stockfish\"\n",
        );
        let (said, made) = heard(&p);
        let why = made.unwrap_err().0;
        for what in [
            file.as_str(),
            "no/stockfish",
            "not installed",
            "apt-get install stockfish",
            "--referee FILE",
        ] {
            assert!(why.contains(what), "{what}: {why}");
        }
        // Before any objective is prepared (its reference run takes minutes).
        assert!(said.is_empty(), "{said:?}");
        // A bare name is looked for on PATH.
        let (p, _) = refereed("absent-bare", "command = \"marginal-no-such-referee\"\n");
        let why = heard(&p).1.unwrap_err().0;
        assert!(why.contains("no such program on PATH"), "{why}");
    }

    #[test]
    fn a_referee_that_is_not_a_uci_engine_is_refused_naming_its_file() {
        // A program that answers `uci` with text that is no UCI and ends.
        let (p, file) = refereed(
            "not-uci",
            "command = \"/bin/sh\"\nargs = [\"-c\", \"echo hello\"]\ntimeout_ms = 2000\n",
        );
        let why = heard(&p).1.unwrap_err().0;
        for what in [file.as_str(), "UCI engine", "--referee FILE"] {
            assert!(why.contains(what), "{what}: {why}");
        }
        // Nor is a file that is no engine file.
        let (p, file) = refereed("not-toml", "this is not TOML\n");
        let why = heard(&p).1.unwrap_err().0;
        for what in [file.as_str(), "referee objective needs a UCI engine's file"] {
            assert!(why.contains(what), "{what}: {why}");
        }
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
        assert!(
            said[0].starts_with("warning --suite other.epd does nothing"),
            "{said:?}"
        );
        assert_eq!(said[1], "preparing quality");
        assert_eq!(said.last().unwrap(), "prepared");
    }
}
