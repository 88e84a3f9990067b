//! What a tune runs: the typed plan any front end (the `tune` command, a test, a doc example)
//! builds, and the only record of a run's arguments. A checkpoint records its plan
//! ([`PLAN_FILE`]), `--resume DIR` runs it again from there, and the run's identity is a digest
//! of it ([`TunePlan::run_id`]): no command-line struct is ever serialized, so renaming a flag
//! touches no run id.
//!
//! A plan keeps what the user asked for, with unset options left `None` or empty; its methods
//! give the value the run uses (`suites()`, `limit()`, `pairs()`, ...), so that a recorded plan
//! says which options were given and a new default applies to runs that gave none.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::games::{CONFIRM_BOOKS, DEFAULT_BOOK, DEFAULT_PAIRS};
use super::remark::RunError;
use crate::formats::Fnv;
use crate::progress::Said;
use crate::scoring::games::game::MoveLimit;
use crate::scoring::games::spec::parse_tc;
use crate::scoring::suite::objective::{DEFAULT_EARLY, DEFAULT_WEIGHT, ObjectiveParams};
use crate::scoring::suite::{Repeats, RunConfig, SuiteLimit};

/// The suites a default run tunes on (bundled with the repository).
pub const DEFAULT_SUITES: [&str; 2] = ["data/suites/wac.epd", "data/suites/ecm.epd"];

/// Iterations of SPSA, Nelder-Mead or the swarm when not given.
pub const DEFAULT_ITERATIONS: u64 = 16;

/// SPSA's gain on the suite objective when not given.
pub const DEFAULT_GAIN: f64 = 100.0;

/// The default node budget a position for the built-in engine: its suite objective's
/// calibration at 5,000 nodes ranks margin sets as games do
/// (tuned/calibration-builtin-nodes5000.json).
pub const DEFAULT_NODES: u64 = 5_000;

/// The default for an external engine, stopped past its budget: the limit of the shipped
/// calibrations of Toga II and Glaurung 2.2 (tuned/calibration-*-nodes10000.json). Toga's
/// first calibration found the suite objective at a fixed depth ranking sets against games
/// (rho -0.73), at a node budget less so (-0.41); neither is trusted.
pub const EXTERNAL_DEFAULT_NODES: u64 = 10_000;

/// The default book of the race's games: one no confirmation book shares.
pub const RACE_BOOK: &str = "data/openings/8mvs_+90_+99_1k.epd";

/// The file of a checkpoint directory that records its run's plan.
pub const PLAN_FILE: &str = "plan.json";

/// The format tag of [`PLAN_FILE`]: a plan of another version is refused, not guessed at.
pub const PLAN_FORMAT: &str = "marginal-tune-plan/1";

/// The file in which checkpoints made before plans recorded their command's arguments.
pub const OLD_ARGUMENTS_FILE: &str = "args.json";

/// Which solver walks the space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SolverKind {
    /// The default: a global screen over the whole bounds, a local refinement and a race in
    /// games among the finalists ([`super::race`]).
    #[default]
    Race,
    /// SPSA with OpenBench's schedule; the result is the final iterate.
    Spsa,
    /// argmin's Nelder-Mead from a simplex around the defaults; the result is the best vertex.
    NelderMead,
    /// argmin's particle swarm over the bounds; the result is the best particle.
    Pso,
}

impl SolverKind {
    /// Whether this is SPSA.
    pub fn is_spsa(self) -> bool {
        self == SolverKind::Spsa
    }

    /// The name on the command line and in the tuned file.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Race => "race",
            SolverKind::Spsa => "spsa",
            SolverKind::NelderMead => "nelder-mead",
            SolverKind::Pso => "pso",
        }
    }

    /// The name for people.
    pub fn label(self) -> &'static str {
        match self {
            SolverKind::Race => "race (global screen, local refinement, games among the finalists)",
            SolverKind::Spsa => "SPSA",
            SolverKind::NelderMead => "Nelder-Mead",
            SolverKind::Pso => "particle swarm",
        }
    }

    /// The solver a plan that names none runs: the race on the suite objective and SPSA on
    /// games (as fishtest and OpenBench run it).
    pub fn default_for(objective: ObjectiveKind) -> SolverKind {
        match objective {
            ObjectiveKind::Suite => SolverKind::Race,
            ObjectiveKind::Games => SolverKind::Spsa,
        }
    }
}

/// What the solver optimises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectiveKind {
    /// The suite objective on the training positions.
    #[default]
    Suite,
    /// Self-play at fixed nodes: SPSA plays theta+ against theta-.
    Games,
}

impl ObjectiveKind {
    /// The name in the tuned file's provenance.
    pub fn name(self) -> &'static str {
        match self {
            ObjectiveKind::Suite => "suite",
            ObjectiveKind::Games => "games",
        }
    }
}

/// What screens the race's design (`--screen-by`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScreenBy {
    /// The objective a calibration in tuned/ (or --calibration) trusts best for this engine
    /// and limit (the suite unless a dearer one is clearly better), else games
    /// ([`super::screen::choose`]).
    #[default]
    Auto,
    /// The suite objective, trusted or not.
    Suite,
    /// Short paired games against the defaults, successive halving.
    Games,
}

impl std::str::FromStr for ScreenBy {
    type Err = String;

    fn from_str(s: &str) -> Result<ScreenBy, String> {
        [ScreenBy::Auto, ScreenBy::Suite, ScreenBy::Games]
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("'{s}': one of auto, suite, games"))
    }
}

impl ScreenBy {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ScreenBy::Auto => "auto",
            ScreenBy::Suite => "suite",
            ScreenBy::Games => "games",
        }
    }
}

/// The engine a plan tunes: marginal's own (every field empty), an engine file, or an engine
/// command with the options to tune.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineChoice {
    /// An engine file (TOML: command, options and the tunable rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<PathBuf>,
    /// An external engine by its command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_cmd: Option<String>,
    /// With `engine_cmd`: the options to tune, each `Name` or `Name=OFF`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_options: Vec<String>,
}

impl EngineChoice {
    /// Whether this is marginal's own engine.
    pub fn is_builtin(&self) -> bool {
        self.engine.is_none() && self.engine_cmd.is_none()
    }
}

/// The suite objective's weights, the table size and the rule for repeated positions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoringChoice {
    /// Accuracy points per halving of the node count (>= 0).
    pub weight: f64,
    /// Share of a solution's credit that depends on how early it was found, 0 to 1.
    pub early: f64,
    /// Transposition table per search, megabytes.
    pub hash: usize,
    /// Score a repeated position each time it appears.
    #[serde(default)]
    pub count_repeats: bool,
}

impl Default for ScoringChoice {
    fn default() -> Self {
        ScoringChoice {
            weight: DEFAULT_WEIGHT,
            early: DEFAULT_EARLY,
            hash: RunConfig::default().hash_mb,
            count_repeats: false,
        }
    }
}

impl ScoringChoice {
    /// The objective's parameters.
    pub fn params(&self) -> ObjectiveParams {
        ObjectiveParams {
            weight: self.weight,
            early: self.early,
        }
    }

    /// How a repeated position is scored.
    pub fn repeats(&self) -> Repeats {
        Repeats::counted(self.count_repeats)
    }
}

/// Everything a tune's result depends on, and where it goes. Serialized into its checkpoint
/// ([`PLAN_FILE`]) and into the tuned file's `provenance.arguments`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunePlan {
    /// Training suites (empty: [`DEFAULT_SUITES`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suites: Vec<PathBuf>,
    /// Validation suites, instead of the split of the training suites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holdout: Vec<PathBuf>,
    /// The engine.
    #[serde(flatten)]
    pub engine: EngineChoice,
    /// Parameters to tune (empty: the engine's default rows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Narrowed ranges, `NAME=MIN..MAX`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bounds: Vec<String>,
    /// SPSA's final perturbations, `[NAME=]VALUE`, applied in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub c_end: Vec<String>,
    /// SPSA's final learning rates, `[NAME=]VALUE`, applied in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub r_end: Vec<String>,
    /// Iterations of SPSA, Nelder-Mead or the swarm (at least 1).
    pub iterations: u64,
    /// The solver's seed.
    pub seed: u64,
    /// The solver.
    pub solver: SolverKind,
    /// The race: points of the global design.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<usize>,
    /// The race: training positions of the global screen's batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<usize>,
    /// The race: sets that race in games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalists: Option<usize>,
    /// The race: game pairs of each round.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub race_pairs: Vec<u32>,
    /// The race: the book of its games (default [`RACE_BOOK`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race_openings: Option<PathBuf>,
    /// The race: what screens its design (none: [`ScreenBy::Auto`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_by: Option<ScreenBy>,
    /// The games' clock, `BASE+INC` seconds, instead of a node budget or depth a move (the
    /// suite objective keeps its limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    /// Particles of the swarm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<usize>,
    /// SPSA's gain on the suite objective.
    pub gain: f64,
    /// SPSA: training positions a comparison scores, drawn afresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
    /// Node budget per position or move (default: [`TunePlan::default_nodes`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Fixed depth per position or move instead of a node budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// The suite objective's weights and the table size.
    #[serde(flatten)]
    pub scoring: ScoringChoice,
    /// The tuned file to write.
    pub out: PathBuf,
    /// What to optimise.
    #[serde(default)]
    pub objective: ObjectiveKind,
    /// Games objective: game pairs per SPSA iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<u32>,
    /// Games objective: its book (default [`DEFAULT_BOOK`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<PathBuf>,
    /// Games of the confirmation match after tuning (none: no match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<u32>,
    /// The confirmation's SPRT, `elo0,elo1,alpha,beta`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_sprt: Option<String>,
    /// The confirmation's books (empty: [`CONFIRM_BOOKS`] less the games objective's own).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confirm_openings: Vec<PathBuf>,
    /// A calibration report of this engine and objective (default: one in tuned/ that fits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<PathBuf>,
}

impl Default for TunePlan {
    /// The default tune: the race on the bundled suites with marginal's own engine.
    fn default() -> Self {
        TunePlan {
            suites: Vec::new(),
            holdout: Vec::new(),
            engine: EngineChoice::default(),
            params: Vec::new(),
            bounds: Vec::new(),
            c_end: Vec::new(),
            r_end: Vec::new(),
            iterations: DEFAULT_ITERATIONS,
            seed: 1,
            solver: SolverKind::Race,
            design: None,
            screen: None,
            finalists: None,
            race_pairs: Vec::new(),
            race_openings: None,
            screen_by: None,
            tc: None,
            particles: None,
            gain: DEFAULT_GAIN,
            batch: None,
            nodes: None,
            depth: None,
            scoring: ScoringChoice::default(),
            out: PathBuf::from(super::file::DEFAULT_TUNE_OUT),
            objective: ObjectiveKind::Suite,
            pairs: None,
            openings: None,
            confirm: None,
            confirm_sprt: None,
            confirm_openings: Vec::new(),
            calibration: None,
        }
    }
}

/// How one invocation runs a plan, none of which changes its result: not part of the plan, so
/// a run resumes with other threads, another checkpoint path given, or `--force`.
#[derive(Clone, Debug, Default)]
pub struct TuneOptions {
    /// The checkpoint directory (default: [`TunePlan::checkpoint_dir`]'s).
    pub checkpoint: Option<PathBuf>,
    /// The checkpoint directory the plan was read from (`--resume DIR`).
    pub resume: Option<PathBuf>,
    /// Replace an output that is not this run's own.
    pub force: bool,
    /// The engine file is taken as it is now, though it changed since the run started.
    pub engine_as_is: bool,
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
}

/// Why a checkpoint's plan cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The directory holds no plan, and no record of an earlier version either.
    #[error("{dir}: {what}")]
    Missing {
        /// The directory given.
        dir: String,
        /// What it is instead.
        what: &'static str,
    },
    /// A checkpoint written by a version of marginal from before plans.
    #[error(
        "{dir}: this checkpoint was written by an earlier version of marginal (it records its arguments in {OLD_ARGUMENTS_FILE}, not a plan in {PLAN_FILE}), which this version cannot resume; run the tune's command again without --resume: it starts afresh in a new checkpoint (the old directory can then be removed)"
    )]
    OldCheckpoint {
        /// The directory.
        dir: String,
    },
    /// The plan file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The plan file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The plan file is damaged, cut short, foreign or of another version.
    #[error(
        "{path}:{line}: the checkpoint's plan is damaged ({why}): rerun the tune's own command (not --resume), which writes the plan afresh and reuses the evaluations logged in {dir}, or remove that directory to start afresh"
    )]
    Damaged {
        /// The plan file.
        path: String,
        /// The line of the fault (1 when not known).
        line: usize,
        /// What is wrong.
        why: String,
        /// The checkpoint directory.
        dir: String,
    },
}

/// The plan file's content: its format tag, then the plan.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanRecord {
    format: String,
    plan: TunePlan,
}

impl TunePlan {
    /// The training suites the run reads.
    pub fn suites(&self) -> Vec<PathBuf> {
        if self.suites.is_empty() {
            DEFAULT_SUITES.iter().map(PathBuf::from).collect()
        } else {
            self.suites.clone()
        }
    }

    /// The node budget without `nodes`: the limit that calibrated best for this kind of engine.
    pub fn default_nodes(&self) -> u64 {
        if self.engine.is_builtin() {
            DEFAULT_NODES
        } else {
            EXTERNAL_DEFAULT_NODES
        }
    }

    /// The limit of a suite search.
    pub fn limit(&self) -> SuiteLimit {
        match self.depth {
            Some(d) => SuiteLimit::Depth(d),
            None => SuiteLimit::Nodes(self.nodes.unwrap_or(self.default_nodes())),
        }
    }

    /// The limit of a move in the run's games: the clock of `tc` when given (checked by
    /// [`TunePlan::check`]).
    pub fn move_limit(&self) -> MoveLimit {
        if let Some(Ok(clock)) = self.tc.as_deref().map(parse_tc) {
            return clock;
        }
        match self.depth {
            Some(d) => MoveLimit::Depth(d),
            None => MoveLimit::Nodes(self.nodes.unwrap_or(self.default_nodes())),
        }
    }

    /// Game pairs per SPSA iteration of the games objective.
    pub fn pairs(&self) -> u32 {
        self.pairs.unwrap_or(DEFAULT_PAIRS)
    }

    /// The book of the games objective.
    pub fn book_path(&self) -> PathBuf {
        self.openings
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_BOOK))
    }

    /// The book of the race's games.
    pub fn race_book_path(&self) -> PathBuf {
        self.race_openings
            .clone()
            .unwrap_or_else(|| PathBuf::from(RACE_BOOK))
    }

    /// Whether any games are played (the games objective or the confirmation).
    pub fn plays_games(&self) -> bool {
        self.objective == ObjectiveKind::Games || self.confirm.is_some()
    }

    /// The books of the confirmation: as given, or the default three less the games
    /// objective's own book (a confirmation plays books the tune did not).
    pub fn confirm_book_paths(&self) -> Vec<PathBuf> {
        if !self.confirm_openings.is_empty() {
            return self.confirm_openings.clone();
        }
        let tuned_on = (self.objective == ObjectiveKind::Games).then(|| self.book_path());
        CONFIRM_BOOKS
            .iter()
            .map(PathBuf::from)
            .filter(|p| Some(p) != tuned_on.as_ref())
            .collect()
    }

    /// Options given that do nothing with the chosen solver and objective, each with what it is for.
    pub fn unused_options(&self) -> Vec<String> {
        let solver = self.solver;
        let (race, spsa) = (solver == SolverKind::Race, solver.is_spsa());
        let suite = self.objective == ObjectiveKind::Suite;
        let mut said = Vec::new();
        let mut unused = |given: bool, option: String, for_what: &str| {
            if given {
                said.push(format!(
                    "{option} does nothing here (--solver {}, --objective {}): it is for {for_what}",
                    solver.name(),
                    self.objective.name()
                ));
            }
        };
        unused(
            suite && self.pairs.is_some(),
            format!("--pairs {}", self.pairs.unwrap_or_default()),
            "the games objective",
        );
        let race_for = "the race (--solver race, which tunes on the suite objective)";
        (self.race_options_given().into_iter()).for_each(|option| unused(!race, option, race_for));
        unused(
            solver != SolverKind::Pso && self.particles.is_some(),
            format!("--particles {}", self.particles.unwrap_or_default()),
            "the swarm (--solver pso)",
        );
        unused(
            !(spsa && suite) && self.batch.is_some(),
            format!("--batch {}", self.batch.unwrap_or_default()),
            "SPSA on the suite objective (SPSA's games objective plays --pairs per step)",
        );
        unused(
            self.objective != ObjectiveKind::Games && self.openings.is_some(),
            format!(
                "--openings {}",
                self.openings.as_deref().unwrap_or(Path::new("")).display()
            ),
            "--objective games (--confirm plays --confirm-openings, the race --race-openings)",
        );
        unused(
            race && self.iterations != DEFAULT_ITERATIONS,
            format!("--iterations {}", self.iterations),
            "SPSA, Nelder-Mead and the swarm (the race's budget is --design, --finalists, --race-pairs)",
        );
        unused(
            !(spsa && suite) && self.gain != DEFAULT_GAIN,
            format!("--gain {}", self.gain),
            "SPSA on the suite objective",
        );
        unused(
            (race || solver == SolverKind::Pso) && !self.c_end.is_empty(),
            format!("--c-end {}", self.c_end.join(" ")),
            "SPSA's perturbation and Nelder-Mead's first simplex",
        );
        unused(
            !spsa && !self.r_end.is_empty(),
            format!("--r-end {}", self.r_end.join(" ")),
            "SPSA's learning rate",
        );
        let no_race_games = race && self.race_pairs.iter().all(|&p| p == 0);
        unused(
            no_race_games && !self.race_pairs.is_empty() && self.finalists.is_some(),
            format!("--finalists {}", self.finalists.unwrap_or_default()),
            "the race's games (--race-pairs 0 plays none: the best suite objective wins)",
        );
        unused(
            no_race_games && !self.race_pairs.is_empty() && self.race_openings.is_some(),
            "--race-openings".to_string(),
            "the race's games (--race-pairs 0 plays none)",
        );
        unused(
            self.tc.is_some()
                && !self.plays_games()
                && (!race || (no_race_games && !self.race_pairs.is_empty())),
            format!("--tc {}", self.tc.as_deref().unwrap_or_default()),
            "the tune's games (the race's, --objective games, --confirm)",
        );
        unused(
            self.confirm.is_none() && self.confirm_sprt.is_some(),
            format!(
                "--confirm-sprt {}",
                self.confirm_sprt.as_deref().unwrap_or_default()
            ),
            "--confirm",
        );
        let books: Vec<String> = self
            .confirm_openings
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        unused(
            self.confirm.is_none() && !books.is_empty(),
            format!("--confirm-openings {}", books.join(" ")),
            "--confirm GAMES",
        );
        said
    }

    /// The race's options given, each with its value (they do nothing with another solver).
    fn race_options_given(&self) -> Vec<String> {
        let pairs: Vec<String> = self.race_pairs.iter().map(u32::to_string).collect();
        [
            self.design.map(|n| format!("--design {n}")),
            self.screen.map(|n| format!("--screen {n}")),
            self.screen_by.map(|s| format!("--screen-by {}", s.name())),
            self.finalists.map(|n| format!("--finalists {n}")),
            (!pairs.is_empty()).then(|| format!("--race-pairs {}", pairs.join(","))),
            self.race_openings
                .as_ref()
                .map(|p| format!("--race-openings {}", p.display())),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The files a tune reads, each with what it is: no output of the tune may be one of them.
    pub fn inputs(&self) -> Vec<(&'static str, &Path)> {
        let mut inputs: Vec<(&str, &Path)> = Vec::new();
        if self.suites.is_empty() {
            inputs.extend(DEFAULT_SUITES.iter().map(|f| ("a suite", Path::new(*f))));
        }
        for f in self.suites.iter().chain(&self.holdout) {
            inputs.push(("a suite", f.as_path()));
        }
        for (what, f) in [
            ("--openings", &self.openings),
            ("--race-openings", &self.race_openings),
            ("--calibration", &self.calibration),
            ("--engine", &self.engine.engine),
        ] {
            if let Some(f) = f {
                inputs.push((what, f.as_path()));
            }
        }
        for f in &self.confirm_openings {
            inputs.push(("--confirm-openings", f.as_path()));
        }
        inputs
    }

    /// How the positions were split into training and validation, for the tuned file.
    pub fn split_name(&self) -> String {
        if self.holdout.is_empty() {
            "one position in three by FNV-1a of its FEN (marginal::tune::held_out)".to_string()
        } else {
            "--holdout files".to_string()
        }
    }

    /// Refuses a gain that is not a positive number or a bad `--tc`, and says, in `remarks`, the options given that
    /// do nothing here ([`TunePlan::unused_options`]).
    ///
    /// # Errors
    /// [`RunError::Refused`] naming the option and why.
    pub fn check(&self, remarks: &mut Vec<Said>) -> Result<(), RunError> {
        if !(self.gain.is_finite() && self.gain > 0.0) {
            return Err(RunError::Refused(format!(
                "--gain {}: must be a positive number",
                self.gain
            )));
        }
        if let Some(tc) = &self.tc {
            parse_tc(tc).map_err(|e| RunError::Refused(e.0))?;
        }
        remarks.extend(self.unused_options().into_iter().map(Said::Warning));
        Ok(())
    }

    /// The default checkpoint directory under `cache`: named after the output and the run, so
    /// that no run leaves work files beside its output and a changed plan starts afresh instead
    /// of tripping over another run's checkpoint.
    pub fn checkpoint_dir(&self, cache: &Path, run_id: &str) -> PathBuf {
        let stem = self.out.file_stem().unwrap_or_default().to_string_lossy();
        cache.join(format!("tune-{stem}-{run_id}"))
    }

    /// The plan as its result depends on it: the output, and the confirmation (played after
    /// tuning, so a rerun with another one resumes the same run), left out, and the games
    /// options of the objective that plays none. Returns it with the book whose bytes the
    /// identity includes (the games objective's, or the race's).
    pub fn identity_view(&self) -> (TunePlan, Option<PathBuf>) {
        let mut view = self.clone();
        view.out = PathBuf::new();
        view.confirm = None;
        view.confirm_sprt = None;
        view.confirm_openings.clear();
        // Options that do nothing here (said by `unused_options`) leave the identity alone.
        if view.solver != SolverKind::Race {
            (view.design, view.screen, view.screen_by) = (None, None, None);
            (view.finalists, view.race_openings) = (None, None);
            view.race_pairs.clear();
        }
        if view.solver != SolverKind::Pso {
            view.particles = None;
        }
        if !(view.solver.is_spsa() && view.objective == ObjectiveKind::Suite) {
            view.batch = None;
        }
        if view.objective == ObjectiveKind::Games {
            let book = view.book_path();
            return (view, Some(book));
        }
        view.pairs = None;
        view.openings = None;
        let book = (view.solver == SolverKind::Race).then(|| view.race_book_path());
        (view, book)
    }

    /// The run's identity: 16 hex digits of a digest of everything that determines its result:
    /// the plan ([`TunePlan::identity_view`]), the bytes of its book, the content of the
    /// training and validation positions, and the engine (`engine`: the bench signature of
    /// marginal's own, an external engine's signature).
    pub fn run_id(&self, engine: &str, training: u64, validation: u64) -> String {
        let (view, book) = self.identity_view();
        let mut h = Fnv::new();
        h.write(PLAN_FORMAT.as_bytes());
        h.write(
            serde_json::to_string(&view)
                .expect("a plan serializes")
                .as_bytes(),
        );
        if let Some(bytes) = book.and_then(|b| std::fs::read(b).ok()) {
            let mut b = Fnv::new();
            b.write(&bytes);
            h.write(&b.finish().to_le_bytes());
        }
        h.write(&training.to_le_bytes());
        h.write(&validation.to_le_bytes());
        h.write(engine.as_bytes());
        format!("{:016x}", h.finish())
    }

    /// The plan as its checkpoint records it (JSON, with its format tag).
    pub fn to_record(&self) -> String {
        let record = PlanRecord {
            format: PLAN_FORMAT.to_string(),
            plan: self.clone(),
        };
        serde_json::to_string_pretty(&record).expect("a plan serializes") + "\n"
    }

    /// Writes the plan into the checkpoint directory `dir`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn record(&self, dir: &Path) -> std::io::Result<()> {
        crate::formats::write_atomic(&dir.join(PLAN_FILE), self.to_record().as_bytes())
    }

    /// The plan recorded in the checkpoint directory `dir`.
    ///
    /// # Errors
    /// No such directory, no plan in it (or only an earlier version's arguments), a plan that
    /// is cut short, damaged, foreign or of another format version.
    pub fn read(dir: &Path) -> Result<TunePlan, PlanError> {
        let path = dir.join(PLAN_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => return Err(Self::missing(dir, &path, e)),
        };
        Self::from_record(&text).map_err(|(line, why)| PlanError::Damaged {
            path: path.display().to_string(),
            line,
            why,
            dir: dir.display().to_string(),
        })
    }

    /// The plan of a record's text, or the line and what is wrong.
    fn from_record(text: &str) -> Result<TunePlan, (usize, String)> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| (e.line().max(1), e.to_string()))?;
        match value.get("format").and_then(serde_json::Value::as_str) {
            Some(PLAN_FORMAT) => {}
            Some(other) => {
                return Err((
                    1,
                    format!("its format is {other:?}, and this version reads {PLAN_FORMAT:?}"),
                ));
            }
            None => return Err((1, format!("it has no \"format\": {PLAN_FORMAT:?}"))),
        }
        serde_json::from_value::<PlanRecord>(value)
            .map(|r| r.plan)
            .map_err(|e| (1, e.to_string()))
    }

    /// Why `dir` has no readable plan file.
    fn missing(dir: &Path, path: &Path, e: std::io::Error) -> PlanError {
        let d = dir.display().to_string();
        match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
                if dir.join(OLD_ARGUMENTS_FILE).is_file() {
                    return PlanError::OldCheckpoint { dir: d };
                }
                let what = if dir.is_dir() {
                    "not a tune checkpoint (no plan.json in it)"
                } else if dir.exists() {
                    "a file, not a tune checkpoint directory"
                } else {
                    "no such directory"
                };
                PlanError::Missing { dir: d, what }
            }
            _ => PlanError::Read {
                path: path.display().to_string(),
                source: e,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        crate::testing::scratch("plan", name)
    }

    #[test]
    fn a_recorded_plan_is_read_back_as_it_was() {
        let d = dir("roundtrip");
        let plan = TunePlan {
            suites: vec!["a.epd".into()],
            solver: SolverKind::Spsa,
            iterations: 7,
            nodes: Some(800),
            bounds: vec!["razor=100..400".into()],
            ..TunePlan::default()
        };
        plan.record(&d).unwrap();
        assert_eq!(TunePlan::read(&d).unwrap(), plan);
    }

    #[test]
    fn the_output_and_the_confirmation_leave_the_run_id_alone() {
        let plan = TunePlan::default();
        let id = plan.run_id("e", 1, 2);
        let other = TunePlan {
            out: "elsewhere.json".into(),
            confirm: Some(200),
            ..plan.clone()
        };
        assert_eq!(other.run_id("e", 1, 2), id);
        let seeded = TunePlan { seed: 2, ..plan };
        assert_ne!(seeded.run_id("e", 1, 2), id);
        assert_ne!(TunePlan::default().run_id("e", 1, 3), id);
        assert_ne!(TunePlan::default().run_id("f", 1, 2), id);
    }

    #[test]
    fn a_clock_without_games_is_said_to_do_nothing() {
        let spsa = TunePlan {
            solver: SolverKind::Spsa,
            tc: Some("10+0.1".into()),
            ..TunePlan::default()
        };
        let said = spsa.unused_options();
        assert!(
            said.iter()
                .any(|s| s.contains("--tc 10+0.1") && s.contains("games")),
            "{said:?}"
        );
        let confirmed = TunePlan {
            confirm: Some(100),
            ..spsa
        };
        assert!(confirmed.unused_options().is_empty());
        let race = TunePlan {
            tc: Some("10+0.1".into()),
            ..TunePlan::default()
        };
        assert!(race.unused_options().is_empty());
    }

    #[test]
    fn games_options_count_only_under_the_games_objective() {
        let suite = TunePlan::default();
        let with_pairs = TunePlan {
            pairs: Some(4),
            ..suite.clone()
        };
        assert_eq!(suite.run_id("e", 0, 0), with_pairs.run_id("e", 0, 0));
        let games = TunePlan {
            objective: ObjectiveKind::Games,
            solver: SolverKind::Spsa,
            ..suite
        };
        let games_pairs = TunePlan {
            pairs: Some(4),
            ..games.clone()
        };
        assert_ne!(games.run_id("e", 0, 0), games_pairs.run_id("e", 0, 0));
    }

    #[test]
    fn a_checkpoint_of_an_earlier_version_is_refused_with_the_way_on() {
        let d = dir("old");
        std::fs::write(d.join(OLD_ARGUMENTS_FILE), "{}").unwrap();
        let e = TunePlan::read(&d).unwrap_err().to_string();
        assert!(e.contains(&d.display().to_string()), "{e}");
        assert!(e.contains("earlier version"), "{e}");
        assert!(e.contains("without --resume"), "{e}");
    }

    #[test]
    fn a_cut_foreign_or_newer_plan_is_damaged_naming_the_file() {
        let d = dir("damaged");
        let full = TunePlan::default().to_record();
        let newer = full.replace(PLAN_FORMAT, "marginal-tune-plan/9");
        for (text, says) in [
            (&full[..full.len() / 2], "EOF"),
            ("{\"format\": \"marginal-tuned/1\"}", "marginal-tuned/1"),
            ("[1, 2]", "no \"format\""),
            (newer.as_str(), "marginal-tune-plan/9"),
        ] {
            std::fs::write(d.join(PLAN_FILE), text).unwrap();
            let e = TunePlan::read(&d).unwrap_err();
            let m = e.to_string();
            assert!(matches!(e, PlanError::Damaged { .. }), "{m}");
            assert!(m.contains("plan.json"), "{m}");
            assert!(m.contains(says), "{text}: {m}");
        }
    }

    #[test]
    fn a_directory_without_a_plan_is_named_as_what_it_is() {
        let d = dir("empty");
        let e = TunePlan::read(&d).unwrap_err().to_string();
        assert!(e.contains("not a tune checkpoint"), "{e}");
        let e = TunePlan::read(&d.join("nothing")).unwrap_err().to_string();
        assert!(e.contains("no such directory"), "{e}");
    }
}
