//! `marginal tune`: SPSA on the suite objective, judged on held-out positions.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use marginal::calibrate;
use marginal::calibrate::trust::Calibration;
use marginal::engine::{EngineDef, Setting, bench};
use marginal::formats::{Fnv, write_atomic};
use marginal::scoring::cheap::suite_key;
use marginal::scoring::paired::PairedComparison;
use marginal::scoring::suite::{
    LoadedSuites, Repeats, RunConfig, ScorerOptions, SuiteLimit, SuiteScorer, default_cache_dir,
};
use marginal::tune::SplitError;
use marginal::tune::checkpoint;
use marginal::tune::cost::{SuiteCost, log_path};
use marginal::tune::file::{Side, SuiteSource, SuiteSources, TunedFile};
use marginal::tune::games::GamesProblem;
use marginal::tune::pipeline::{self, RunRecord, SpsaProgress, TuneError, TuneObserver, TunePlan};
use marginal::tune::race;
use marginal::tune::solvers::IterationRecord;
use marginal::tune::space::{DEFAULT_PARAMS, ScheduleEnd, Space};
use serde::{Deserialize, Serialize};

use super::{
    EngineArgs, ScoringArgs, UserError, count, depth_arg, positive, threads, threads_arg,
    whole_pairs, writable,
};

mod games;
use super::executor::{ExecutorArgs, ExecutorKind, exec_error, solver_error};
use games::ObjectiveKind;
mod solver;
use solver::SolverKind;

/// The suites a default run tunes on (bundled with the repository).
const DEFAULT_SUITES: [&str; 2] = ["data/suites/wac.epd", "data/suites/ecm.epd"];

/// Arguments of `marginal tune`.
#[derive(Args, Clone, Serialize, Deserialize)]
pub struct TuneArgs {
    /// Training suites (default: the bundled WAC and ECM). Without --holdout, one position in
    /// three (by a hash of its FEN) is held out for validation and never tuned on.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    suites: Vec<PathBuf>,
    /// Validation suites, instead of the split of the training suites (no FEN may appear in
    /// both).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    holdout: Vec<PathBuf>,
    /// The engine to tune: marginal's own (default), or an external UCI engine's options.
    #[command(flatten)]
    #[serde(flatten)]
    engine: EngineArgs,
    /// Parameters to tune (names, UCI names or aliases), comma-separated (default: the four
    /// seed margins frontier, prefrontier, razor and delta; for an external engine every row
    /// of its engine file).
    #[arg(long, value_delimiter = ',')]
    params: Vec<String>,
    /// Narrow a parameter's range: name=MIN..MAX (repeatable).
    #[arg(long, value_name = "NAME=MIN..MAX")]
    bounds: Vec<String>,
    /// SPSA's final perturbation c_end instead of the table's step: NAME=VALUE for one tuned
    /// parameter, or VALUE for all (repeatable, applied in order).
    #[arg(long, value_name = "[NAME=]VALUE")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    c_end: Vec<String>,
    /// SPSA's final learning rate r_end instead of the table's (0.002 by default):
    /// NAME=VALUE or VALUE for all (repeatable, applied in order). Games tunes get a few
    /// thousand game pairs where OpenBench runs tens of thousands, so they want a larger one.
    #[arg(long, value_name = "[NAME=]VALUE")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    r_end: Vec<String>,
    /// Iterations of SPSA (each scores two probes on the training positions), Nelder-Mead or
    /// the swarm (at least 1; the race has its own budget: --design, --finalists, --race-pairs).
    #[arg(long, default_value_t = DEFAULT_ITERATIONS, value_parser = count::<u64, 1>)]
    iterations: u64,
    /// Seed of the solver (the race's design and book shuffle, SPSA's perturbations and
    /// rounding, the swarm): the same seed gives the same result.
    #[arg(long, default_value_t = 1, value_parser = super::seed_arg)]
    seed: u64,
    /// The solver: `race` (the default: a seeded Latin hypercube over the whole bounds in log
    /// coordinates screened by the suite objective on a batch of positions, the best kept and
    /// scored on all of them, a compass search from the best, the defaults scaled along a line
    /// (x2 to x0.125), then the finalists (the local best, every point of the line, the best
    /// screened) race in games against the defaults on --race-openings, the better half going
    /// on each round),
    /// `spsa` (OpenBench's schedule; the result is the final iterate), `nelder-mead`
    /// (argmin's, from the defaults and one vertex per margin moved by 4 x its step; the result
    /// is the best vertex) or `pso` (argmin's particle swarm over the bounds, seeded by --seed;
    /// the result is the best particle). --iterations counts the iterations of the last three.
    /// (Default: `race` on the suite objective, `spsa` on games.)
    #[arg(long, value_enum)]
    #[serde(default = "legacy_solver", skip_serializing_if = "is_spsa")]
    solver: Option<SolverKind>,
    /// --solver race: points of the global design (any N of at least 1; without it, 12 a tuned
    /// row and no fewer than 24).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    design: Option<usize>,
    /// --solver race: score the global screen on a seeded batch of N training positions
    /// (default: on all of them), then the best 16 on all.
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    screen: Option<usize>,
    /// --solver race: sets that race in games (default 16).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finalists: Option<usize>,
    /// --solver race: game pairs each surviving finalist plays against the defaults in each
    /// round, comma-separated (default 16,32,64,128; 0 races no games: the best suite
    /// objective wins).
    #[arg(long, value_name = "PAIRS", value_delimiter = ',')]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    race_pairs: Vec<u32>,
    /// --solver race: the book of the race's games (default
    /// data/openings/8mvs_+90_+99_1k.epd, a book none of the confirmation books shares),
    /// shuffled with --seed; each round plays the openings after the last round's.
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    race_openings: Option<PathBuf>,
    /// Particles of --solver pso (default 8, at least 1; each iteration evaluates every one).
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    particles: Option<usize>,
    /// SPSA's result per iteration is gain x (objective of theta+ - objective of theta-),
    /// objective points; OpenBench's schedule then moves a margin by about
    /// r_k * c_k * result.
    #[arg(long, default_value_t = DEFAULT_GAIN, value_parser = positive)]
    gain: f64,
    /// Score each SPSA comparison on N training positions drawn afresh (seeded by --seed and
    /// the probes, so a resumed run draws the same), not on all of them: cheaper, noisier
    /// steps. The tuned set is still judged on every position.
    #[arg(long, value_name = "N", value_parser = count::<usize, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    batch: Option<usize>,
    /// Fixed node budget per position (the default: pruning then buys depth; 5,000 for the
    /// built-in engine, 10,000 for an external one, the limits of their shipped calibrations).
    #[arg(long, conflicts_with = "depth", value_parser = count::<u64, 1>)]
    nodes: Option<u64>,
    /// Fixed depth per position instead of a node budget.
    #[arg(long, value_parser = depth_arg())]
    depth: Option<u32>,
    /// The suite objective's weights and the table size.
    #[command(flatten)]
    #[serde(flatten)]
    scoring: ScoringArgs,
    /// Worker threads (default: all cores; at most 256). Results are identical for any count.
    #[arg(long, value_parser = threads_arg())]
    #[serde(skip)]
    threads: Option<usize>,
    /// Where the searching runs (not recorded: a run resumes on any executor).
    #[command(flatten)]
    #[serde(skip)]
    executor: ExecutorArgs,
    /// The tuned file to write.
    #[arg(long, default_value = marginal::formats::tuned::DEFAULT_TUNE_OUT)]
    out: PathBuf,
    /// Replace --out when it exists and is not this run's own result (without it, marginal
    /// refuses to write over a file another run made).
    #[arg(long)]
    #[serde(skip)]
    force: bool,
    /// Checkpoint directory (default: .marginal-cache/tune-NAME-RUN, named after the output and
    /// a digest of the run's arguments and data, and recorded in the tuned file). Rerunning the
    /// same command resumes from it.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Resume the run whose checkpoint directory this is, with its recorded arguments. When
    /// the run's engine file changed since the run started (its content digest, which
    /// the checkpoint records), the resume is refused; `--resume DIR --engine FILE` (the
    /// file the run records) resumes with the engine file as it is now, as `check --engine`
    /// checks with it.
    #[arg(long, value_name = "DIR")]
    #[serde(skip)]
    resume: Option<PathBuf>,
    /// Set by `--resume DIR --engine FILE`: the engine file is taken as it is now, though it
    /// changed since the run started.
    #[arg(skip)]
    #[serde(skip)]
    engine_as_is: bool,
    /// What to optimise: `suite` (the suite objective on the training positions) or `games`
    /// (self-play at --nodes per move, default 5,000: each SPSA iteration plays theta+
    /// against theta- for --pairs game pairs on the next openings of the shuffled book, and
    /// W-L drives the step as in fishtest and OpenBench; --gain is not applied).
    #[arg(long, value_enum, default_value_t = ObjectiveKind::Suite)]
    #[serde(default, skip_serializing_if = "ObjectiveKind::is_suite")]
    objective: ObjectiveKind,
    /// Games objective: game pairs per SPSA iteration (each opening twice, colours reversed;
    /// default 8).
    #[arg(long, value_name = "K", value_parser = count::<u32, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pairs: Option<u32>,
    /// Opening book of the games objective (default data/openings/UHO_4060_v2_2k.epd),
    /// shuffled with --seed.
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    openings: Option<PathBuf>,
    /// After tuning, play the tuned set against the defaults in self-play at --nodes per move
    /// (default 5,000), at most GAMES games, stopped by the SPRT of --confirm-sprt; the match
    /// report goes into the tuned file under "confirm".
    #[arg(long, value_name = "GAMES", value_parser = count::<u32, 1>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confirm: Option<u32>,
    /// The SPRT of --confirm, as `marginal match --sprt`: elo0,elo1,alpha,beta in normalized
    /// Elo (default 0,5,0.05,0.05).
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confirm_sprt: Option<String>,
    /// Opening books of --confirm, their pairs in turn, judged pooled (default: the balanced
    /// noob_3moves_1k and popularpos_lichess_1k and UHO_4060_v2_2k, less the games
    /// objective's own book).
    #[arg(long, value_name = "FILE", num_args = 1.., value_delimiter = ',')]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    confirm_openings: Vec<PathBuf>,
    /// A calibration report (`marginal calibrate`) of this engine with this objective: the
    /// tuned file records how far the objective is trusted and the Elo it predicts (default:
    /// a report in tuned/ for the same engine signature, limit and objective, if any).
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calibration: Option<PathBuf>,
}

/// Default node budget per position.
/// The default node budget a position for the built-in engine: its suite objective's
/// calibration at 5,000 nodes ranks margin sets as games do (tuned/calibration-builtin-nodes5000.json).
const DEFAULT_NODES: u64 = 5_000;
/// The default for an external engine, stopped past its budget: the limit of its shipped
/// calibration (tuned/calibration-toga2-nodes10000.json), where the suite objective at a node
/// budget ranks better than at a fixed depth (rho -0.41 against -0.73), though untrusted.
const EXTERNAL_DEFAULT_NODES: u64 = 10_000;

/// The solver of recorded arguments that name none: they were written before the race, when
/// only SPSA went unrecorded.
fn legacy_solver() -> Option<SolverKind> {
    Some(SolverKind::Spsa)
}

fn is_spsa(solver: &Option<SolverKind>) -> bool {
    *solver == Some(SolverKind::Spsa)
}

impl TuneArgs {
    /// The solver: --solver, else the race on the suite objective and SPSA on games (as
    /// fishtest and OpenBench run it).
    fn solver(&self) -> SolverKind {
        self.solver.unwrap_or(match self.objective {
            ObjectiveKind::Suite => SolverKind::Race,
            ObjectiveKind::Games => SolverKind::Spsa,
        })
    }

    /// The checkpoint directory: --checkpoint, else one in the cache named after the output
    /// and the run, so that no run leaves work files beside its output and a changed command
    /// starts afresh instead of tripping over another run's checkpoint.
    fn checkpoint_dir(&self, run_id: &str) -> PathBuf {
        self.checkpoint.clone().unwrap_or_else(|| {
            let stem = self.out.file_stem().unwrap_or_default().to_string_lossy();
            default_cache_dir().join(format!("tune-{stem}-{run_id}"))
        })
    }

    fn suites(&self) -> Vec<PathBuf> {
        if self.suites.is_empty() {
            DEFAULT_SUITES.iter().map(PathBuf::from).collect()
        } else {
            self.suites.clone()
        }
    }

    fn limit(&self) -> SuiteLimit {
        match self.depth {
            Some(d) => SuiteLimit::Depth(d),
            None => SuiteLimit::Nodes(self.nodes.unwrap_or(self.default_nodes())),
        }
    }

    /// The node budget without --nodes: the limit that calibrated best for this kind of engine.
    fn default_nodes(&self) -> u64 {
        if self.engine.engine.is_some() || self.engine.engine_cmd.is_some() {
            EXTERNAL_DEFAULT_NODES
        } else {
            DEFAULT_NODES
        }
    }
}

/// The tune's progress: one plain line per iteration (CI logs and terminals alike), or for
/// the race one a stage and one a finalist's games.
struct Lines {
    names: Vec<String>,
    iterations: u64,
    start: Instant,
    best: f64,
    race: RaceLines,
}

impl Lines {
    fn new(space: &Space, iterations: u64, start: Instant) -> Lines {
        Lines {
            names: space.dims.iter().map(|d| d.name.clone()).collect(),
            iterations,
            start,
            best: f64::NEG_INFINITY,
            race: RaceLines::new(space, start),
        }
    }

    fn margins(&self, values: &[i32]) -> String {
        self.names
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl TuneObserver for Lines {
    fn spsa(&mut self, p: &SpsaProgress) {
        if super::quiet() {
            return;
        }
        let objectives = if p.evaluated.is_empty() {
            String::new()
        } else {
            self.best = p.evaluated.iter().copied().fold(self.best, f64::max);
            let probes: Vec<String> = p.evaluated.iter().map(|o| format!("{o:.3}")).collect();
            format!("  objective {}  best {:.3}", probes.join("/"), self.best)
        };
        println!(
            "iteration {:>3}/{}: {}  result {:+.3}{objectives}  ({:.0} s)",
            p.iteration,
            p.iterations,
            self.margins(&p.values),
            p.result,
            self.start.elapsed().as_secs_f64()
        );
    }

    fn iteration(&mut self, r: &IterationRecord) {
        let objective = r.objective.unwrap_or(f64::NAN);
        self.best = self.best.max(objective);
        if super::quiet() {
            return;
        }
        let step = if r.iteration == 0 {
            "start".to_string()
        } else {
            format!("iteration {:>3}/{}", r.iteration, self.iterations)
        };
        println!(
            "{step}: {}  objective {objective:.3}  best {:.3}  ({} evaluated, {:.0} s)",
            self.margins(&r.values),
            self.best,
            r.evaluated.len(),
            self.start.elapsed().as_secs_f64()
        );
    }

    fn race_step(&mut self, step: &race::RaceStep) {
        if super::quiet() {
            return;
        }
        self.race.step(step);
    }

    fn race_done(&mut self, result: &race::RaceResult) {
        self.race.finish();
        println!("race: {}", result.verdict);
    }
}

/// The race's progress: one line a stage (how many sets, the best), one a finalist's games.
struct RaceLines {
    names: Vec<String>,
    start: Instant,
    stage: Option<(race::Stage, usize)>,
    count: usize,
    cached: usize,
    best: Option<(f64, Vec<i32>)>,
}

impl RaceLines {
    fn new(space: &Space, start: Instant) -> RaceLines {
        RaceLines {
            names: space.dims.iter().map(|d| d.name.clone()).collect(),
            start,
            stage: None,
            count: 0,
            cached: 0,
            best: None,
        }
    }

    fn set(&self, values: &[i32]) -> String {
        values
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join(" / ")
    }

    fn step(&mut self, s: &race::RaceStep) {
        if s.stage == race::Stage::Games {
            self.finish();
            let g = s.games.expect("a games step carries its games");
            println!(
                "race round {}: {}  {:+.1} Elo against the defaults after {} games (+{} ={} -{}){}  ({:.0} s)",
                s.round,
                self.set(&s.values),
                s.score,
                2 * g.pairs,
                g.wdl.wins,
                g.wdl.draws,
                g.wdl.losses,
                if s.cached { ", from the log" } else { "" },
                self.start.elapsed().as_secs_f64()
            );
            return;
        }
        if self.stage != Some((s.stage, s.round)) {
            self.finish();
            self.stage = Some((s.stage, s.round));
        }
        self.count += 1;
        self.cached += usize::from(s.cached);
        if self.best.as_ref().is_none_or(|(b, _)| s.score > *b) {
            self.best = Some((s.score, s.values.clone()));
        }
    }

    fn finish(&mut self) {
        let (Some((stage, round)), Some((best, values))) = (self.stage.take(), self.best.take())
        else {
            return;
        };
        let what = match stage {
            race::Stage::Screen => "global screen".to_string(),
            race::Stage::Full => "kept (on every training position)".to_string(),
            race::Stage::Local => format!("local round {round}"),
            race::Stage::Line => "the line through the defaults (all margins scaled)".to_string(),
            race::Stage::Games => "games".to_string(),
        };
        println!(
            "race {what}: {} sets{}, best objective {best:.3} at {} ({})  ({:.0} s)",
            self.count,
            if self.cached > 0 {
                format!(" ({} from the log)", self.cached)
            } else {
                String::new()
            },
            self.set(&values),
            self.names.join(" / "),
            self.start.elapsed().as_secs_f64()
        );
        self.count = 0;
        self.cached = 0;
    }
}

/// The command's error for a tune's: executors keep their exit status; anything else the
/// solver refuses is the user's (exit 2).
fn tune_error(e: TuneError) -> anyhow::Error {
    match e {
        TuneError::Solver(e) => solver_error(e),
        TuneError::Race(race::RaceError::Suite(e)) => solver_error(e),
        TuneError::Race(race::RaceError::Games(marginal::tune::games::GamesError::Exec(e))) => {
            exec_error(e)
        }
        TuneError::Race(race::RaceError::Games(e)) => anyhow::Error::from(e),
        TuneError::Race(race::RaceError::Settings(m)) => UserError(m).into(),
        TuneError::Judge(e) => exec_error(e),
        e @ TuneError::Log { .. } => anyhow::Error::from(e),
    }
}

/// Runs the command.
/// The games of the run: the games objective's problem, or the race's problems (one a
/// round, with the race's plan printed), or neither.
fn objective_games(
    args: &TuneArgs,
    games_setup: Option<&games::GamesSetup>,
    solver_setup: &solver::SolverSetup,
    space: &Space,
    dir: &Path,
    executor: &Option<Arc<dyn marginal::scoring::exec::Runner>>,
    train_positions: usize,
) -> Result<(Option<GamesProblem>, Vec<GamesProblem>)> {
    let mut games_problem = None;
    let mut race_games = Vec::new();
    match (args.objective, games_setup) {
        (ObjectiveKind::Games, Some(setup)) => {
            games_problem =
                Some(games::problem(args, setup, space, dir)?.with_executor(executor.clone()));
        }
        _ if args.solver() == SolverKind::Race => {
            let settings = solver_setup
                .race
                .as_ref()
                .expect("race settings for --solver race");
            race_games =
                games::race_problems(args, space, &settings.rounds, dir, executor.clone())?;
            let games = if race_games.is_empty() {
                "no games (--race-pairs 0): the best suite objective wins".to_string()
            } else {
                format!(
                    "{} finalists in {} games at most ({} pairs a round) on {}",
                    settings.finalists,
                    settings.games(),
                    settings
                        .rounds
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    args.race_openings
                        .as_deref()
                        .unwrap_or(Path::new(games::RACE_BOOK))
                        .display(),
                )
            };
            println!(
                "race: {} design points screened on {} positions, {} kept, {} local rounds, {games}",
                settings.design,
                settings.screen_positions.min(train_positions),
                settings.keep.min(settings.design + 1),
                settings.local_rounds,
            );
        }
        _ => {}
    }
    Ok((games_problem, race_games))
}

/// At the first SIGINT (Ctrl-C) or SIGTERM: says on standard error what the checkpoint keeps
/// and the command that resumes, and ends with exit status 130. Every finished evaluation and
/// game pair is already on disk (the logs are appended line by line), and the engines, whose
/// input closes with marginal, end with it. On Slurm the executor first cancels its job array
/// (and ends the command itself); this waits `grace` for that. A second signal ends at once.
fn say_interrupted(dir: &Path, engine: Option<&Path>, grace: std::time::Duration) -> Result<()> {
    let flag = super::executor::interrupt_flag()?;
    let dir = dir.to_path_buf();
    // A run resumed with its engine file as it is now goes on only so again.
    let resume = match engine {
        Some(file) => format!(
            "marginal tune --resume {} --engine {}",
            dir.display(),
            file.display()
        ),
        None => format!("marginal tune --resume {}", dir.display()),
    };
    let began = Instant::now();
    std::thread::spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        // This invocation's time, for the resumed run's record of what the tune cost.
        let line = serde_json::json!({ "wall_seconds": began.elapsed().as_secs_f64() });
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(INTERRUPTED_LOG))
            .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
        // Whole confirmation pairs: two games each in the PGN (a pair cut short is replayed).
        let confirm = std::fs::read_to_string(games::confirm_pgn(&dir))
            .map_or(0, |t| t.matches("[Event ").count() / 2);
        eprintln!(
            "interrupted: {} and {} game batches{} are kept in {}; rerun the same command, or `{resume}`, to go on from them",
            evaluations_kept(&dir),
            game_batches_kept(&dir),
            if confirm > 0 {
                format!(", and {confirm} confirmation pairs,")
            } else {
                String::new()
            },
            dir.display(),
        );
        std::thread::sleep(grace);
        std::process::exit(i32::from(super::INTERRUPTED_STATUS));
    });
    Ok(())
}

/// The checkpoint's log of interrupted invocations: one line each, its wall seconds.
const INTERRUPTED_LOG: &str = "interrupted.jsonl";

/// The wall seconds of the interrupted invocations a checkpoint records, and how many there were.
fn earlier_invocations(dir: &Path) -> (f64, usize) {
    let text = std::fs::read_to_string(dir.join(INTERRUPTED_LOG)).unwrap_or_default();
    let seconds: Vec<f64> = (text.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["wall_seconds"].as_f64())
        .collect();
    (seconds.iter().sum(), seconds.len())
}

/// The game batches a checkpoint keeps: the games objective's (`games.jsonl`) and the race's
/// finalists' (`race-games-N.jsonl`), a line each.
fn game_batches_kept(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name == "games.jsonl" || (name.starts_with("race-games-") && name.ends_with(".jsonl"))
        })
        .map(|e| std::fs::read_to_string(e.path()).map_or(0, |t| t.lines().count()))
        .sum()
}

/// How the positions were split into training and validation, for the tuned file.
fn split_name(args: &TuneArgs) -> String {
    if args.holdout.is_empty() {
        "one position in three by FNV-1a of its FEN (marginal::tune::held_out)".to_string()
    } else {
        "--holdout files".to_string()
    }
}

/// Says which calibration the run's objective has, or that it has none.
fn say_calibration(args: &TuneArgs, options: &ScorerOptions, found: &Option<FoundCalibration>) {
    match found {
        Some((path, report, o, caveat)) => {
            println!(
                "calibration {}: {}",
                path.display(),
                report.objectives[*o].verdict
            );
            if let Some(caveat) = caveat {
                println!("  ({caveat})");
            }
        }
        None if args.objective == ObjectiveKind::Suite => println!(
            "calibration: none of the suite objective at {} for this engine (marginal calibrate measures one)",
            options.config.limit
        ),
        None => {}
    }
}

/// The options whose values differ between the run recorded in `dir` (its `args.json`) and
/// `args`, as ` (--iterations 6 then, 8 now; ...)`; empty when they cannot be told.
fn changed_arguments(dir: &Path, args: &TuneArgs) -> String {
    let Some(mut then) = std::fs::read_to_string(dir.join("args.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    else {
        return String::new();
    };
    let Ok(mut now) = serde_json::to_value(args) else {
        return String::new();
    };
    // The solver as it runs (no --solver: the objective's default), on both sides.
    let then_solver = serde_json::from_value::<TuneArgs>(then.clone()).map(|t| t.solver());
    for (side, solver) in [(&mut then, then_solver), (&mut now, Ok(args.solver()))] {
        if let (Some(map), Ok(solver)) = (side.as_object_mut(), solver) {
            map.insert("solver".into(), serde_json::json!(solver));
        }
    }
    // Options nested in groups (the scoring options) are compared one by one.
    fn flat(v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        if let Some(map) = v.as_object() {
            for (k, v) in map {
                if v.is_object() {
                    flat(v, out);
                } else {
                    out.push((k.clone(), v.as_str().map_or(v.to_string(), str::to_string)));
                }
            }
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    flat(&then, &mut a);
    flat(&now, &mut b);
    // An option at its default is left out of args.json (SPSA's solver, once the only one,
    // as well): a key on one side only was at its default on the other.
    let value = |side: &[(String, String)], k: &str| {
        side.iter().find(|(o, _)| o == k).map_or_else(
            || (if k == "solver" { "spsa" } else { "default" }).to_string(),
            |(_, v)| {
                if v == "null" {
                    "default".to_string()
                } else {
                    v.clone()
                }
            },
        )
    };
    let mut keys: Vec<&str> = b.iter().chain(&a).map(|(k, _)| k.as_str()).collect();
    let mut seen = std::collections::HashSet::new();
    keys.retain(|k| seen.insert(*k));
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| !matches!(*k, "out" | "force" | "checkpoint" | "resume"))
        .filter_map(|k| {
            let (old, new) = (value(&a, k), value(&b, k));
            (old != new).then(|| format!("--{} {old} then, {new} now", k.replace('_', "-")))
        })
        .collect();
    if changed.is_empty() {
        String::new()
    } else {
        format!(" ({})", changed.join("; "))
    }
}

/// `--resume DIR --engine FILE`: the run's engine file taken as it is now, though it changed
/// since the run started (set in `recorded`). Returns the arguments given less --engine, whose
/// other options a resume ignores.
fn engine_override(args: &TuneArgs, recorded: &mut TuneArgs) -> TuneArgs {
    let mut given = args.clone();
    if let Some(engine) = given.engine.engine.take() {
        recorded.engine.engine = Some(engine);
        recorded.engine_as_is = true;
    }
    given
}

/// A resumed run of an external engine says which engine it took: the one its checkpoint
/// records (as `check` says "as the tuned file records it"), or the file given with --engine.
fn say_resumed_engine(args: &TuneArgs, def: &EngineDef) {
    if args.resume.is_none() || def.is_builtin() {
        return;
    }
    let source = def.source.as_deref().unwrap_or_default();
    if args.engine_as_is {
        println!(
            "engine: {} ({source}), given with --engine: taken as it is now",
            def.name
        );
    } else {
        println!(
            "engine: {} ({source}), as the checkpoint records it",
            def.name
        );
    }
}

/// The engine the run in `dir` (run `run`) started with: as the checkpoint records it, else
/// (a checkpoint written before it was) as the run's tuned file `out` records it.
fn engine_then(dir: &Path, run: &str, out: &Path) -> Option<checkpoint::RecordedEngine> {
    checkpoint::recorded_engine(dir).or_else(|| {
        let file = TunedFile::read(out).ok()?;
        let record = file.engine.filter(|_| file.provenance.run == run)?;
        Some(checkpoint::RecordedEngine {
            name: record.name,
            source: Some(record.source),
            signature: record.signature,
        })
    })
}

/// The checkpoints a run may have left of this command line: the one resumed or given with
/// --checkpoint, else every default one of the same --out (`tune-STEM-RUN`).
fn checkpoints_of(args: &TuneArgs) -> Vec<PathBuf> {
    if let Some(dir) = &args.checkpoint {
        return vec![dir.clone()];
    }
    let stem = args.out.file_stem().unwrap_or_default().to_string_lossy();
    let prefix = format!("tune-{stem}-");
    let Ok(entries) = std::fs::read_dir(default_cache_dir()) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(&prefix))
                .is_some_and(|run| run.len() == 16 && run.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .collect();
    dirs.sort();
    dirs
}

/// The run's identity ([`run_id`]), with an engine file that changed since a checkpoint of
/// this same command line was started said as such rather than as another run: a resume is
/// refused naming the file and `--engine` (given, it resumes with the file as it is now,
/// keeping the run's identity); a rerun whose --out that run wrote is refused naming the
/// change and --force; a rerun of an interrupted one starts afresh and says where the old one
/// is and how to resume it.
fn run_identity(
    args: &TuneArgs,
    def: &EngineDef,
    train: &LoadedSuites,
    validation: &LoadedSuites,
) -> Result<String> {
    let id = run_id(args, def, None, train, validation)?;
    let Some(file) = def
        .source
        .as_deref()
        .filter(|s| !s.starts_with("--engine-cmd"))
    else {
        say_data_changed(args, &id);
        return Ok(id);
    };
    let now = def.signature();
    for dir in checkpoints_of(args) {
        let Some(then) = checkpoint::recorded_run(&dir).filter(|then| *then != id) else {
            continue;
        };
        let Some(engine) = engine_then(&dir, &then, &args.out).filter(|e| e.signature != now)
        else {
            continue;
        };
        if run_id(args, def, Some(&engine.signature), train, validation)? != then {
            continue;
        }
        let changed = format!(
            "the engine file {file} changed since the run started (content digest {now}, {} then)",
            engine.signature
        );
        if args.engine_as_is {
            eprintln!(
                "warning: {changed}: resuming with it as it is now, as --engine asks (the evaluations logged before were measured with it as it was)"
            );
            return Ok(then);
        }
        let resume = format!("marginal tune --resume {} --engine {file}", dir.display());
        if args.resume.is_some() {
            return Err(UserError(format!(
                "--resume {}: {changed}: add --engine {file} to resume with it as it is now, or start a new run without --resume",
                dir.display()
            ))
            .into());
        }
        if args.checkpoint.is_some() {
            return Err(UserError(format!(
                "--checkpoint {}: {changed}: `{resume}` goes on with it as it is now; or give another --checkpoint to start afresh",
                dir.display()
            ))
            .into());
        }
        if args.out.is_file() && !args.force {
            return Err(UserError(format!(
                "--out {} exists: this same command wrote it (checkpoint {}), but {changed}, so this is a new run: add --force to tune again with it as it is now and replace {}, or give another --out",
                args.out.display(),
                dir.display(),
                args.out.display()
            ))
            .into());
        }
        eprintln!(
            "note: checkpoint {} holds this same command's run, but {changed}, so this run starts afresh; to go on from that one instead: {resume}",
            dir.display()
        );
        return Ok(id);
    }
    say_data_changed(args, &id);
    Ok(id)
}

/// Says when a checkpoint holds a run of this same command (the same options) under another
/// identity: the files it reads (suites, book, engine) changed since, so its evaluations are
/// not used and this run starts afresh (a rerun of the command an interrupt gave, after an
/// edit, would otherwise start over without a word).
fn say_data_changed(args: &TuneArgs, id: &str) {
    if args.resume.is_some() || args.checkpoint.is_some() {
        return;
    }
    for dir in checkpoints_of(args) {
        let Some(then) = checkpoint::recorded_run(&dir).filter(|then| *then != id) else {
            continue;
        };
        if dir.join("args.json").exists() && changed_arguments(&dir, args).is_empty() {
            eprintln!(
                "note: checkpoint {} holds a run of this same command ({then}), but a file it reads changed since (a suite, the book or the engine file), so its evaluations are not used and this run ({id}) starts afresh; restore the files and rerun to go on from it",
                dir.display()
            );
            return;
        }
    }
}

/// Records in the checkpoint `dir` the engine the run starts with, once (a run resumed with
/// its engine file changed keeps the record of what it started with), so that a changed
/// engine file is said as such ([`run_identity`]).
fn record_engine(args: &TuneArgs, dir: &Path, def: &EngineDef) -> Result<()> {
    if args.engine_as_is {
        return Ok(());
    }
    // A record there is the run's: it must be readable and name this engine, or the logged
    // evaluations would be taken for this engine's without a word.
    let path = dir.join(checkpoint::ENGINE_FILE);
    if path.exists() {
        let refuse = |what: String| {
            Err(UserError(format!(
                "checkpoint {}: {what}; remove {} to start afresh, or give another checkpoint directory",
                path.display(),
                dir.display()
            ))
            .into())
        };
        return match checkpoint::recorded_engine(dir) {
            None => refuse("damaged: it is not an engine record (a name and a signature)".into()),
            Some(then) if then.signature != def.signature() => refuse(format!(
                "the run was made with the engine {} (signature {}), and this is {} (signature {}), so its logged evaluations are not this engine's",
                then.source.as_deref().unwrap_or(&then.name),
                then.signature,
                def.source.as_deref().unwrap_or(&def.name),
                def.signature()
            )),
            Some(_) => Ok(()),
        };
    }
    let engine = checkpoint::RecordedEngine {
        name: def.name.clone(),
        source: def.source.clone(),
        signature: def.signature(),
    };
    checkpoint::record_engine(dir, &engine).with_context(|| {
        format!(
            "cannot write {}",
            dir.join(checkpoint::ENGINE_FILE).display()
        )
    })
}

/// The run's checkpoint directory, made and holding the run's arguments (which now name it):
/// an existing --out that is not this run's own is refused first, and an interrupt from here on
/// says what the directory keeps.
fn open_checkpoint(
    mut args: TuneArgs,
    run_id: &str,
    def: &EngineDef,
) -> Result<(TuneArgs, PathBuf)> {
    let dir = args.checkpoint_dir(run_id);
    if let Some((path, other)) = marginal::tune::checkpoint::foreign(&dir, run_id) {
        if path.ends_with(marginal::tune::checkpoint::RUN_FILE)
            && !marginal::tune::checkpoint::is_run_id(&other)
        {
            return Err(UserError(format!(
                "checkpoint {}: damaged: it holds {:?}, not a run identity (16 hex digits, this run's is {run_id}), so the directory cannot be told to be this run's; remove {} to start afresh, or give another checkpoint directory",
                path.display(),
                other.chars().take(40).collect::<String>(),
                dir.display()
            ))
            .into());
        }
        let changed = changed_arguments(&dir, &args);
        let why = if changed.is_empty() && dir.join("args.json").exists() {
            "; its options are these, so a file it reads changed since it started (a suite, the book or the engine file): restore the files to resume it, or give another checkpoint directory to start afresh".to_string()
        } else {
            format!(
                "{changed}: rerun with its options to resume it, or give another checkpoint directory"
            )
        };
        return Err(UserError(format!(
            "checkpoint {}: belongs to another run ({other}, this one is {run_id}){why}",
            path.display(),
        ))
        .into());
    }
    // A directory of the user's (files, no run file) is not written into.
    let run_file = dir.join(marginal::tune::checkpoint::RUN_FILE);
    if !run_file.exists() && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(UserError(format!(
            "--checkpoint {} holds files and is not a checkpoint (it has no '{}' file): marginal does not write into it; name a new or empty directory",
            dir.display(),
            marginal::tune::checkpoint::RUN_FILE
        ))
        .into());
    }
    // The tuned file (and its plot) never goes into the checkpoint directory it resumes from.
    let inside = |p: &Path| {
        let resolve = |p: &Path| {
            let p = marginal::formats::link_target(p).unwrap_or_else(|_| p.to_path_buf());
            std::path::absolute(&p).unwrap_or(p)
        };
        resolve(p).starts_with(resolve(&dir))
    };
    if inside(&args.out) || inside(&args.out.with_extension("svg")) {
        return Err(UserError(format!(
            "--out {} is inside (or is) the checkpoint directory {}: the tuned file would replace the checkpoint's own files; give --out outside it",
            args.out.display(),
            dir.display()
        ))
        .into());
    }
    // A rerun or resume of this run (its checkpoint exists) writes the same set again.
    super::fresh_json_output(&args.out, "--out", args.force || dir.exists())?;
    super::plot_beside(&args.out, "--out", args.force, &inputs(&args))?;
    if dir.exists() && !dir.is_dir() {
        return Err(UserError(format!(
            "--checkpoint {}: it is a file, not a directory: give a directory (it is created if missing)",
            dir.display()
        ))
        .into());
    }
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create checkpoint directory {}", dir.display()))?;
    let run_file = dir.join(marginal::tune::checkpoint::RUN_FILE);
    write_atomic(&run_file, format!("{run_id}\n").as_bytes())
        .with_context(|| format!("cannot write {}", run_file.display()))?;
    record_engine(&args, &dir, def)?;
    args.checkpoint = Some(dir.clone());
    let grace = match args.executor.executor {
        ExecutorKind::Local => std::time::Duration::ZERO,
        ExecutorKind::Slurm => std::time::Duration::from_secs(120),
    };
    let engine = args.engine.engine.as_deref().filter(|_| args.engine_as_is);
    say_interrupted(&dir, engine, grace)?;
    write_atomic(
        &dir.join("args.json"),
        serde_json::to_string_pretty(&args)?.as_bytes(),
    )
    .with_context(|| format!("cannot write {}", dir.join("args.json").display()))?;
    Ok((args, dir))
}

/// The evaluations a checkpoint's log keeps, as the interrupt and the resumed run both say it:
/// the candidates searched, which only new work adds to ("48 searched candidates (195
/// evaluations logged, repeats answered from them)").
fn evaluations_kept(dir: &Path) -> String {
    let (lines, distinct) = marginal::tune::cost::log_counts(&log_path(dir));
    if lines == distinct {
        format!("{lines} evaluations")
    } else {
        format!(
            "{distinct} searched candidates ({lines} evaluations logged, repeats answered from them)"
        )
    }
}

/// A rerun says what it goes on from, and its progress keeps the best found before.
fn say_resuming(dir: &Path, cost: &SuiteCost, observer: &mut Lines) {
    let logged = cost.evaluations();
    let batches = game_batches_kept(dir);
    let best = logged
        .iter()
        .filter(|e| e.batch.is_none())
        .max_by(|a, b| a.objective.total_cmp(&b.objective));
    let mut kept = Vec::new();
    if !logged.is_empty() {
        kept.push(evaluations_kept(dir));
    }
    if batches > 0 {
        kept.push(format!("{batches} game batches"));
    }
    if kept.is_empty() {
        return;
    }
    println!(
        "resuming from {}: {} in its log{}; finished work is not searched or played again",
        dir.display(),
        kept.join(" and "),
        best.map_or(String::new(), |e| format!(
            ", best objective so far {:.3} at {}",
            e.objective,
            observer.margins(&e.values)
        ))
    );
    if let Some(e) = best {
        observer.best = e.objective;
    }
}

/// Says when a tune changed nothing: every suite evaluation (3 or more) scored the same (the margins
/// made no difference: an external engine most likely ignores its options), the set found is
/// the one the tune started from, or it measures as the defaults do; and when `off` scored
/// above the tuned set on the suite objective.
fn say_nothing_moved(file: &TunedFile, space: &Space) {
    let objectives: Vec<f64> = (file.evaluations.iter())
        .map(|e| e.evaluation.objective)
        .collect();
    if objectives.len() >= 3 && objectives.iter().all(|&o| o == objectives[0]) {
        eprintln!(
            "warning: every one of the {} evaluations scored the same objective ({:.3}): no margin tried changed a search on these positions; an external engine most likely ignores the options that carry them (check its answers to `setoption` and the option names in its engine file)",
            objectives.len(),
            objectives[0]
        );
        return;
    }
    let start = space.base.values();
    let moved = space.dims.iter().any(|d| {
        file.margins
            .0
            .get(&d.name)
            .and_then(serde_json::Value::as_i64)
            != start.get(d.index).map(|&v| i64::from(v))
    });
    // The race says so itself when the defaults are kept.
    let said_by_race = file.provenance.solver == "race";
    if !moved && !said_by_race {
        let hint = match file.provenance.solver.as_str() {
            "spsa" => {
                ": SPSA's steps were too small to move a margin by a whole unit; raise --r-end (the final learning rate, 0.002 by default) or --iterations (docs/tuning.md)"
            }
            _ => ": the search found nothing better than it",
        };
        println!("note: the tuned set is the one the tune started from{hint}");
    } else if moved && !said_by_race && measures_as_defaults(file) {
        println!(
            "note: the tuned set measures the same as the defaults on the training and the validation positions (objective, solved and nodes): it moved the margins too little to change a search, so no gain was found; tune longer (--iterations) or on more positions"
        );
    }
    // `off` (every margin test disabled) is no candidate of a tune, but a user should know
    // when it scored better on the objective the tune maximised than the set it wrote.
    let value = |name: &str| file.training.set(name).map(|s| s.objective.value);
    if let (Some(off), Some(tuned), "suite") = (
        value("off"),
        value("tuned"),
        file.provenance.objective.as_str(),
    ) && off > tuned
    {
        println!(
            "note: `off` (no margin test) scores above the tuned set on the training positions ({off:.3} against {tuned:.3}): at this node budget these positions reward no pruning; tune at a larger --nodes or on more positions"
        );
    }
}

/// Whether the tuned set's figures equal the defaults' on the training and the validation
/// positions alike (objective, solved count and nodes).
fn measures_as_defaults(file: &TunedFile) -> bool {
    let same = |side: &Side| match (side.set("tuned"), side.set("default")) {
        (Some(t), Some(d)) => t.objective == d.objective,
        _ => false,
    };
    same(&file.training) && same(&file.validation)
}

/// A games tune whose every game ended with an engine fault measured nothing of the margins:
/// no tuned file is written (exit 2), as `match` and `calibrate` refuse such games.
fn all_games_faulted(file: &TunedFile) -> Result<(), UserError> {
    let Some(g) = &file.games else {
        return Ok(());
    };
    let games: u64 = g.evaluations.iter().map(|e| e.wdl.total_games()).sum();
    let faults: u64 = g.evaluations.iter().map(|e| e.faults).sum();
    if games > 0 && faults >= games {
        return Err(UserError(format!(
            "every one of the {games} games of the tune ended with an engine fault: no evaluation measured the margins, so no tuned file is written; fix the engine (or its engine file or --engine-cmd line) and tune again"
        )));
    }
    Ok(())
}

/// Whether --out already holds this run's result (the same run, set and figures: a rerun of a
/// finished tune replays its checkpoint): it is then left as it is, keeping the cost of the run
/// that found the set and anything `check --update` added, and said so. --force writes afresh.
fn already_written(args: &TuneArgs, file: &TunedFile) -> bool {
    if args.force || !args.out.is_file() {
        return false;
    }
    let Ok(old) = TunedFile::read(&args.out) else {
        return false;
    };
    let same = old.provenance.run == file.provenance.run
        && old.margins == file.margins
        && old.training.sets == file.training.sets
        && old.validation.sets == file.validation.sets;
    if same {
        let p = &old.provenance;
        println!(
            "{} already holds this run's result (the same set and figures; the run that found it took {:.0} s): left as it is, with that run's record; --force writes it afresh",
            args.out.display(),
            p.wall_seconds + p.earlier_wall_seconds,
        );
    }
    same
}

/// Writes the tuned file and its plot, and prints where and the run's speed.
fn write_file(
    args: &TuneArgs,
    file: &TunedFile,
    space: &Space,
    elapsed: f64,
    (searched, search_seconds): (usize, f64),
    threads: usize,
) -> Result<()> {
    all_games_faulted(file)?;
    let work = match &file.games {
        Some(g) => format!("{} games", g.games),
        None => format!("{} evaluations", file.evaluations.len()),
    };
    // The set itself, by its tuned rows (the file holds every row).
    let tuned: Vec<String> = (file.tuned.iter())
        .filter_map(|name| file.margins.0.get(name).map(|v| format!("{name}={v}")))
        .collect();
    println!("tuned set: {}", tuned.join(", "));
    say_nothing_moved(file, space);
    if already_written(args, file) {
        return Ok(());
    }
    file.write(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let earlier = match args.checkpoint.as_deref().map(earlier_invocations) {
        Some((seconds, n)) if n > 0 => format!(
            "; {:.0} s with the {n} interrupted run(s) it resumed",
            elapsed + seconds
        ),
        _ => String::new(),
    };
    println!(
        "tuned set written to {} ({work}, {elapsed:.0} s{earlier})",
        args.out.display(),
    );
    if file.provenance.faults > 0 {
        let judged = file.training.faults + file.validation.faults;
        eprintln!(
            "warning: the engine faulted {} time(s) over the run: {} while tuning, {judged} while judging the tuned set, the defaults and off (training {}, validation {}); suite positions are scored unsolved and games lost, so the figures count them (provenance.faults in {})",
            file.provenance.faults,
            file.provenance.faults - judged as u64,
            file.training.faults,
            file.validation.faults,
            args.out.display()
        );
    }
    if searched > 0 {
        let each = search_seconds / searched as f64;
        println!(
            "speed: {searched} evaluations searched in {search_seconds:.1} s on {threads} thread(s): {each:.2} s each ({} positions at {}), {:.1} per minute{}",
            args.batch
                .map_or(file.training.positions, |b| b.min(file.training.positions)),
            file.provenance.limit,
            60.0 / each,
            if args.solver().is_spsa() {
                format!(", {:.2} s per SPSA iteration", 2.0 * each)
            } else {
                String::new()
            }
        );
    }
    // A device (--out /dev/null) has no place beside it for a plot.
    if marginal::formats::is_stream(&args.out) {
        println!("no plot: --out {} is not a file", args.out.display());
        return Ok(());
    }
    let svg = solver::write_svg(&args.out, file, space)?;
    println!("plot written to {}", svg.display());
    Ok(())
}

/// Options given that do nothing with the chosen solver and objective, each with what it is for.
fn unused_options(args: &TuneArgs) -> Vec<String> {
    let solver = args.solver();
    let (race, spsa) = (solver == SolverKind::Race, solver.is_spsa());
    let suite = args.objective == ObjectiveKind::Suite;
    let mut said = Vec::new();
    let mut unused = |given: bool, option: String, for_what: &str| {
        if given {
            said.push(format!(
                "{option} does nothing here (--solver {}, --objective {}): it is for {for_what}",
                solver.name(),
                args.objective.name()
            ));
        }
    };
    unused(
        suite && args.pairs.is_some(),
        format!("--pairs {}", args.pairs.unwrap_or_default()),
        "the games objective",
    );
    // (--particles and the race's options with another solver are refused: tune::solver.)
    unused(
        race && args.iterations != DEFAULT_ITERATIONS,
        format!("--iterations {}", args.iterations),
        "SPSA, Nelder-Mead and the swarm (the race's budget is --design, --finalists, --race-pairs)",
    );
    unused(
        !(spsa && suite) && args.gain != DEFAULT_GAIN,
        format!("--gain {}", args.gain),
        "SPSA on the suite objective",
    );
    unused(
        (race || solver == SolverKind::Pso) && !args.c_end.is_empty(),
        format!("--c-end {}", args.c_end.join(" ")),
        "SPSA's perturbation and Nelder-Mead's first simplex",
    );
    unused(
        !spsa && !args.r_end.is_empty(),
        format!("--r-end {}", args.r_end.join(" ")),
        "SPSA's learning rate",
    );
    let no_race_games = race && args.race_pairs.iter().all(|&p| p == 0);
    unused(
        no_race_games && !args.race_pairs.is_empty() && args.finalists.is_some(),
        format!("--finalists {}", args.finalists.unwrap_or_default()),
        "the race's games (--race-pairs 0 plays none: the best suite objective wins)",
    );
    unused(
        no_race_games && !args.race_pairs.is_empty() && args.race_openings.is_some(),
        "--race-openings".to_string(),
        "the race's games (--race-pairs 0 plays none)",
    );
    // (--confirm-openings without --confirm is refused: tune::games.)
    unused(
        args.confirm.is_none() && args.confirm_sprt.is_some(),
        "--confirm-sprt".to_string(),
        "--confirm",
    );
    said
}

/// Options that cannot run together, and an output that would write over an input: refused
/// before any work.
fn check_options(args: &TuneArgs) -> Result<()> {
    if !(args.gain.is_finite() && args.gain > 0.0) {
        return Err(UserError(format!("--gain {}: must be a positive number", args.gain)).into());
    }
    for said in unused_options(args) {
        eprintln!("warning: {said}");
    }
    if let Some(n) = args.batch {
        let why = if !args.solver().is_spsa() {
            format!(
                "only with --solver spsa, and this tune's solver is {}",
                args.solver().name()
            )
        } else if args.objective != ObjectiveKind::Suite {
            "only with the suite objective (SPSA's games objective plays --pairs per step)"
                .to_string()
        } else {
            String::new()
        };
        if !why.is_empty() {
            return Err(UserError(format!("--batch {n}: {why}")).into());
        }
    }
    super::not_an_input(&args.out, "--out", &inputs(args))?;
    writable(&args.out, "--out")?;
    Ok(())
}

/// The files a tune reads, each with what it is: no output of the tune may be one of them.
fn inputs(args: &TuneArgs) -> Vec<(&'static str, &Path)> {
    let mut inputs: Vec<(&str, &Path)> = Vec::new();
    if args.suites.is_empty() {
        inputs.extend(DEFAULT_SUITES.iter().map(|f| ("a suite", Path::new(*f))));
    }
    for f in args.suites.iter().chain(&args.holdout) {
        inputs.push(("a suite", f.as_path()));
    }
    for (what, f) in [
        ("--openings", &args.openings),
        ("--race-openings", &args.race_openings),
        ("--calibration", &args.calibration),
        ("--engine", &args.engine.engine),
    ] {
        if let Some(f) = f {
            inputs.push((what, f.as_path()));
        }
    }
    for f in &args.confirm_openings {
        inputs.push(("--confirm-openings", f.as_path()));
    }
    inputs
}

/// `--resume DIR` runs with the arguments recorded in DIR: the options of this command line
/// that would have changed them are named once, with the way to change them (a new run).
fn say_ignored_with_resume(args: &TuneArgs, dir: &Path) {
    let dir_text = dir.to_string_lossy().into_owned();
    let Some(bare) = super::parsed_alone::<TuneArgs>("tune", &["--resume", dir_text.as_str()])
    else {
        return;
    };
    let (Ok(serde_json::Value::Object(given)), Ok(serde_json::Value::Object(plain))) =
        (serde_json::to_value(args), serde_json::to_value(&bare))
    else {
        return;
    };
    let mut ignored: Vec<String> = given
        .iter()
        .filter(|(k, v)| plain.get(*k) != Some(v))
        .chain(plain.iter().filter(|(k, _)| !given.contains_key(*k)))
        .map(|(k, _)| format!("--{}", k.replace('_', "-")))
        .collect();
    ignored.sort();
    ignored.dedup();
    if !ignored.is_empty() {
        eprintln!(
            "warning: --resume {} runs with the arguments recorded there; {} given here {} ignored (start a new run, without --resume, to change them)",
            dir.display(),
            ignored.join(", "),
            if ignored.len() == 1 { "is" } else { "are" }
        );
    }
}

/// The run's arguments (a --resume's recorded ones, with this command's threads and executor),
/// its engine and its search space.
fn resolve(args: TuneArgs) -> Result<(TuneArgs, Arc<EngineDef>, Space)> {
    let args = match &args.resume {
        Some(dir) => {
            let path = dir.join("args.json");
            let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
                // A directory (or nothing) without the record every checkpoint starts with.
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => UserError(format!(
                    "--resume {}: {}: give the directory a tune named in its header or interrupt message (under .marginal-cache/tune-*, or its --checkpoint)",
                    dir.display(),
                    if dir.is_dir() {
                        "not a tune checkpoint (no args.json in it)"
                    } else if dir.exists() {
                        "a file, not a tune checkpoint directory"
                    } else {
                        "no such directory"
                    }
                )),
                _ => UserError(format!("--resume: cannot read {}: {e}", path.display())),
            })?;
            let mut recorded: TuneArgs = serde_json::from_str(&text).map_err(|e| {
                UserError(format!(
                    "--resume: {}:{}: the checkpoint's record of its arguments is damaged ({e}): rerun the tune's own command (not --resume), which writes the record afresh and reuses the evaluations logged in {}, or remove that directory to start afresh",
                    path.display(),
                    e.line(),
                    dir.display()
                ))
            })?;
            say_ignored_with_resume(&engine_override(&args, &mut recorded), dir);
            for log in marginal::tune::checkpoint::cut_logs(dir) {
                eprintln!(
                    "warning: {}: its last line was cut short (the run was killed while writing it): that record is dropped, and its work is done again if the run needs it",
                    log.display()
                );
            }
            recorded.threads = args.threads;
            recorded.executor = args.executor.clone();
            recorded.checkpoint = Some(dir.clone());
            recorded.resume = Some(dir.clone());
            recorded
        }
        None => args,
    };
    let mut args = args;
    args.solver = Some(args.solver());
    let def = args.engine.def()?;
    say_resumed_engine(&args, &def);
    if args.params.is_empty() {
        args.params = if def.is_builtin() {
            DEFAULT_PARAMS.map(String::from).to_vec()
        } else {
            def.rows.iter().map(|r| r.name.clone()).collect()
        };
    }
    let base = Setting::defaults(&def);
    let bounds: Vec<&str> = args.bounds.iter().map(String::as_str).collect();
    let names: Vec<&str> = args.params.iter().map(String::as_str).collect();
    let c_end: Vec<&str> = args.c_end.iter().map(String::as_str).collect();
    let r_end: Vec<&str> = args.r_end.iter().map(String::as_str).collect();
    let space = Space::new(base, &names, &bounds)
        .and_then(|s| s.with_schedule(ScheduleEnd::C, &c_end))
        .and_then(|s| s.with_schedule(ScheduleEnd::R, &r_end))
        .map_err(UserError::from_display)?;
    fixed_rows(&space)?;
    for (d, value) in space.base_outside() {
        eprintln!(
            "warning: --bounds {}={}..{} leaves out its default {value}: tuning starts from {} (the nearest bound), and the defaults it is judged against stay at {value}",
            d.name,
            d.lower,
            d.upper,
            value.clamp(d.lower, d.upper)
        );
    }
    Ok((args, def, space))
}

/// Refuses bounds that leave nothing to search (every tuned row fixed at one value), and says
/// which rows a single value fixes among others (they are not tuned).
fn fixed_rows(space: &Space) -> Result<()> {
    let fixed: Vec<String> = space
        .dims
        .iter()
        .filter(|d| d.lower == d.upper)
        .map(|d| format!("{}={}..{}", d.name, d.lower, d.upper))
        .collect();
    if fixed.len() == space.dims.len() {
        return Err(UserError(format!(
            "--bounds {}: every tuned row is fixed at one value, so there is nothing to search: widen a range, or tune other --params",
            fixed.join(" ")
        ))
        .into());
    }
    if !fixed.is_empty() {
        eprintln!(
            "warning: --bounds {}: a range of one value fixes the row: it is not tuned",
            fixed.join(" ")
        );
    }
    Ok(())
}

pub fn run(args: TuneArgs) -> Result<()> {
    let run = prepare(args)?;
    let start = Instant::now();
    let (train_scorer, validation_scorer) = run.pool.install(|| {
        (
            SuiteScorer::new(run.train.clone(), run.options.clone(), None),
            SuiteScorer::new(run.validation.clone(), run.options.clone(), None),
        )
    });
    let (train_scorer, validation_scorer) = (
        train_scorer.map_err(exec_error)?,
        validation_scorer.map_err(exec_error)?,
    );
    super::searched_something(
        &run.def,
        "the reference run of the training positions",
        train_scorer.reference(),
    )?;
    let cost = SuiteCost::new(train_scorer, run.space.clone(), Some(&log_path(&run.dir)))
        .with_context(|| format!("cannot open the evaluation log in {}", run.dir.display()))?;
    let (games_problem, race_games) = objective_games(
        &run.args,
        run.games_setup.as_ref(),
        &run.solver_setup,
        &run.space,
        &run.dir,
        &run.executor,
        run.train.positions.len(),
    )?;
    let plan = TunePlan {
        def: run.def.clone(),
        space: run.space.clone(),
        solver: run.solver_setup.solver(&run.args),
        seed: run.args.seed,
        dir: run.dir.clone(),
        run_id: run.run_id.clone(),
        games: games_problem,
        race_games,
    };
    let mut observer = Lines::new(&run.space, run.args.iterations, start);
    say_resuming(&run.dir, &cost, &mut observer);
    let outcome = run
        .pool
        .install(|| pipeline::run(plan, cost, &validation_scorer, observer))
        .map_err(tune_error)?;
    finish(run, outcome, start.elapsed().as_secs_f64())
}

/// A tune made ready: its arguments, engine and space, the positions, the workers and the
/// checkpoint directory, with the start of the run printed.
struct Prepared {
    args: TuneArgs,
    def: Arc<EngineDef>,
    space: Space,
    games_setup: Option<games::GamesSetup>,
    solver_setup: solver::SolverSetup,
    train: LoadedSuites,
    validation: LoadedSuites,
    threads: usize,
    pool: rayon::ThreadPool,
    /// One executor for the whole run: the suite scorers, the games objective and --confirm.
    executor: Option<Arc<dyn marginal::scoring::exec::Runner>>,
    options: ScorerOptions,
    found_calibration: Option<FoundCalibration>,
    run_id: String,
    dir: PathBuf,
}

/// Checks the arguments, reads the positions and the books, finds the calibration, opens the
/// checkpoint and prints what the run will do.
fn prepare(args: TuneArgs) -> Result<Prepared> {
    let (args, def, space) = resolve(args)?;
    check_options(&args)?;
    let games_setup = games::setup(&args)?;
    let solver_setup = solver::setup(&args, &space)?;
    let (train, validation) = split(&args)?;
    if let Some(n) = args.batch.filter(|&n| n >= train.positions.len()) {
        eprintln!(
            "warning: --batch {n} is not smaller than the {} training positions: every comparison scores all of them, as without --batch",
            train.positions.len()
        );
    }
    let threads = threads(args.threads);
    super::hash_fits(
        args.scoring.hash,
        if args.plays_games() {
            2 * threads
        } else {
            threads
        },
    )?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    let executor = args.executor.build()?;
    let options = ScorerOptions {
        config: RunConfig {
            limit: args.limit(),
            hash_mb: args.scoring.hash,
        },
        objective: args.scoring.params(),
        reference: Setting::off(&def),
        cache_dir: Some(default_cache_dir()),
        executor: executor.clone(),
    };
    let found_calibration = find_calibration(&args, &options, &def)?;
    say_calibration(&args, &options, &found_calibration);
    let run_id = run_identity(&args, &def, &train, &validation)?;
    let (args, dir) = open_checkpoint(args, &run_id, &def)?;
    println!(
        "marginal tune: {}{}, seed {}, tuning {space}",
        args.solver().label(),
        if args.solver() == SolverKind::Race {
            String::new()
        } else {
            format!(", {} iterations", args.iterations)
        },
        args.seed
    );
    println!(
        "training {} positions, validation {} positions, {} per position, {threads} thread(s); checkpoint {}",
        train.positions.len(),
        validation.positions.len(),
        options.config.limit,
        dir.display()
    );
    Ok(Prepared {
        args,
        def,
        space,
        games_setup,
        solver_setup,
        train,
        validation,
        threads,
        pool,
        executor,
        options,
        found_calibration,
        run_id,
        dir,
    })
}

/// After the solver: the judged figures and the calibration printed, the confirmation
/// played, and the tuned file written with the run's record.
fn finish(run: Prepared, outcome: pipeline::Tuned, elapsed: f64) -> Result<()> {
    let args = &run.args;
    println!();
    print_side("training", &outcome.training, &outcome.paired.0);
    print_side("validation", &outcome.validation, &outcome.paired.1);
    let calibration = calibration(
        args,
        &run.options,
        run.found_calibration,
        &outcome.training,
        &outcome.validation,
    );
    println!("calibration: {}", calibration.note);
    let margins = |name: &str| outcome.training.set(name).map(|s| &s.margins);
    let same_as_defaults = margins("tuned").is_some() && margins("tuned") == margins("default");
    if args.confirm.is_some() && same_as_defaults {
        eprintln!(
            "note: --confirm: the tuned set is the defaults, so no confirmation match is played (it would play the defaults against themselves and measure nothing)"
        );
    }
    let confirm = match (args.confirm, &run.games_setup) {
        _ if same_as_defaults => None,
        (Some(n), Some(setup)) => Some(games::run_confirm(
            args,
            setup,
            outcome.tuned.clone(),
            whole_pairs(n, "--confirm"),
            run.executor.as_deref(),
        )?),
        _ => None,
    };
    let games_record = outcome
        .games
        .as_ref()
        .zip(run.games_setup.as_ref())
        .map(|(problem, setup)| games::record(problem, setup));
    let searched = outcome.cost.search_time();
    let record = RunRecord {
        run: run.run_id,
        objective: args.objective.name().to_string(),
        solver: (
            args.solver().name().to_string(),
            run.solver_setup.settings.clone(),
        ),
        suites: SuiteSources {
            split: split_name(args),
            training: SuiteSource::of(&run.train),
            validation: SuiteSource::of(&run.validation),
            repeats: run.train.rule,
        },
        limit: run.options.config.limit,
        objective_params: run.options.objective,
        seed: args.seed,
        iterations: args.iterations,
        wall_seconds: elapsed,
        earlier_wall_seconds: earlier_invocations(&run.dir).0,
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        arguments: serde_json::to_value(args)?,
        games: games_record,
        confirm,
        calibration: Some(calibration),
    };
    let file = outcome.into_file(&run.def, &run.space, record);
    write_file(args, &file, &run.space, elapsed, searched, run.threads)
}

/// A calibration report of the run's objective: its path, itself, the objective's index, and
/// what differs from the run's objective (a calibration that counted repeated positions each
/// time they appear, when the run counts them once).
type FoundCalibration = (PathBuf, calibrate::Report, usize, Option<String>);

/// The calibration of the run's objective, looked up before any work so that a bad one fails
/// at once: from --calibration (refused when unreadable or for another engine, limit or
/// objective), else the first report in tuned/ that matches, else none. `Err(None)`-like
/// outcomes are `Ok(None)`; a games tune has none to look up. A report of the same objective
/// with repeated positions counted each time (so every report made before repeats were
/// scored once) is taken when there is none of the run's exact objective, and said to be so.
fn find_calibration(
    args: &TuneArgs,
    options: &ScorerOptions,
    def: &Arc<EngineDef>,
) -> Result<Option<FoundCalibration>> {
    if args.objective != ObjectiveKind::Suite {
        return Ok(None);
    }
    let load = |rule| {
        marginal::scoring::suite::load_suites(&args.suites(), false, rule)
            .map_err(UserError::from_display)
    };
    let suites = load(args.scoring.repeats())?;
    let mut keys = vec![(suite_key("suite", suites.content_hash, options), None)];
    if suites.rule == Repeats::Once && !suites.repeats.is_empty() {
        let each = load(Repeats::Each)?;
        keys.push((
            suite_key("suite", each.content_hash, options),
            Some(format!(
                "it measured the objective with the {} repeated position(s) counted each time they appear (--count-repeats); this run counts them once",
                suites.repeats.len()
            )),
        ));
    }
    let signature = def.signature();
    let Some(path) = &args.calibration else {
        return Ok(keys.into_iter().find_map(|(key, caveat)| {
            calibrate::trust::find(Path::new("tuned"), &signature, &key)
                .into_iter()
                .next()
                .map(|(path, report, o)| (path, report, o, caveat))
        }));
    };
    let report =
        calibrate::report::read(path).map_err(|e| UserError(format!("--calibration {e}")))?;
    if report.engine_signature != signature {
        return Err(UserError(format!(
            "--calibration {}: it calibrates engine signature {}, this engine's is {signature}",
            path.display(),
            report.engine_signature
        ))
        .into());
    }
    let found = keys.into_iter().find_map(|(key, caveat)| {
        let o = report.objectives.iter().position(|o| o.key == key)?;
        Some((o, caveat))
    });
    let Some((o, caveat)) = found else {
        return Err(UserError(format!(
            "--calibration {}: none of its objectives ({}) is this tune's (suite at {} on these suites, these weights)",
            path.display(),
            report
                .objectives
                .iter()
                .map(|o| o.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            options.config.limit
        ))
        .into());
    };
    Ok(Some((path.clone(), report, o, caveat)))
}

/// What the calibration found before the run says of the tuned set.
fn calibration(
    args: &TuneArgs,
    options: &ScorerOptions,
    found: Option<FoundCalibration>,
    train: &Side,
    validation: &Side,
) -> Calibration {
    if args.objective != ObjectiveKind::Suite {
        return Calibration {
            status: "games".into(),
            note: "tuned on games: its objective is what a calibration measures against".into(),
            ..Calibration::none("")
        };
    }
    let Some((path, report, o, caveat)) = found else {
        return Calibration::none(&format!(
            "the suite objective at {} for this engine",
            options.config.limit
        ));
    };
    // The objective is a mean over positions: the whole suite's is the position-weighted mean
    // of the training and validation sides'.
    let value = |side: &Side, name: &str| side.set(name).map_or(0.0, |s| s.objective.value);
    let (nt, nv) = (train.positions as f64, validation.positions as f64);
    let gain = (nt * (value(train, "tuned") - value(train, "default"))
        + nv * (value(validation, "tuned") - value(validation, "default")))
        / (nt + nv).max(1.0);
    let tuned = train.set("tuned").map(|s| &s.margins);
    let value_of = |name: &str| {
        tuned
            .and_then(|m| m.0.get(name))
            .and_then(serde_json::Value::as_i64)
    };
    let mut calibration = Calibration::from_report(&report, &path.display().to_string(), o, gain)
        .with_region(&report, &value_of);
    if let Some(caveat) = caveat {
        calibration.note = format!("{}; {caveat}", calibration.note);
    }
    calibration
}

/// `marginal plot FILE`: draws a tuned file's SVG again, beside it (a file there that is not
/// a plot marginal drew is replaced only with `force`).
pub fn plot(path: &std::path::Path, force: bool) -> Result<()> {
    let file = TunedFile::read(path).map_err(UserError::from_display)?;
    super::plot_beside(path, "plot", force, &[])?;
    let names: Vec<&str> = file.tuned.iter().map(String::as_str).collect();
    let bounds: Vec<String> = file
        .provenance
        .schedule
        .iter()
        .map(|r| format!("{}={}..{}", r.name, r.lower, r.upper))
        .collect();
    let bounds: Vec<&str> = bounds.iter().map(String::as_str).collect();
    let space = Space::new(Setting::defaults(&file.def()), &names, &bounds)
        .map_err(|e| UserError(format!("{}: {e}", path.display())))?;
    let svg = solver::write_svg(path, &file, &space)?;
    println!("plot written to {}", svg.display());
    Ok(())
}

/// Training and validation positions (see [`marginal::tune::split`]); bad lines are reported.
fn split(args: &TuneArgs) -> Result<(LoadedSuites, LoadedSuites), UserError> {
    let (train, validation) =
        marginal::tune::split(&args.suites(), &args.holdout, args.scoring.repeats()).map_err(
            |e| {
                UserError(match e {
                    SplitError::Overlap { .. } => format!("--holdout {e}"),
                    SplitError::Suite(e) => e.to_string(),
                })
            },
        )?;
    let mut seen = std::collections::HashSet::new();
    let bad = (train.skipped().chain(validation.skipped())).filter(|b| seen.insert(b.to_string()));
    super::say_skipped(bad, "");
    let named: Vec<PathBuf> = args
        .suites()
        .into_iter()
        .chain(args.holdout.clone())
        .collect();
    super::say_odd_suites(&named, &[&train, &validation]);
    if validation.positions.len() < FEWEST_VALIDATION {
        eprintln!(
            "warning: {} validation position(s): too few to judge the tuned set on positions it never saw (its paired test needs tens that differ); give at least {FEWEST_VALIDATION} held out ({} or more positions in all, a third held out), or --holdout FILE",
            validation.positions.len(),
            3 * FEWEST_VALIDATION
        );
    }
    Ok((train, validation))
}

/// --iterations when not given.
const DEFAULT_ITERATIONS: u64 = 16;

/// --gain when not given.
const DEFAULT_GAIN: f64 = 100.0;

/// Fewer held-out positions than this are warned about: the judged figures of a handful say
/// little.
const FEWEST_VALIDATION: usize = 30;

/// A digest of everything that determines the run's result: checkpoints of another run are
/// refused. `signature`, when given, stands for an external engine's own (the identity the
/// run would have had with the engine's description as it was then).
fn run_id(
    args: &TuneArgs,
    def: &EngineDef,
    signature: Option<&str>,
    train: &LoadedSuites,
    validation: &LoadedSuites,
) -> Result<String, serde_json::Error> {
    let mut recorded = args.clone();
    recorded.out = PathBuf::new();
    recorded.checkpoint = None;
    let book_hash = games::for_run_id(&mut recorded);
    let mut h = Fnv::new();
    h.write(serde_json::to_string(&recorded)?.as_bytes());
    if let Some(book) = book_hash {
        h.write(&book.to_le_bytes());
    }
    h.write(&train.content_hash.to_le_bytes());
    h.write(&validation.content_hash.to_le_bytes());
    if def.is_builtin() {
        h.write(&bench::signature().to_le_bytes());
    } else {
        h.write(signature.map_or(def.signature(), String::from).as_bytes());
    }
    Ok(format!("{:016x}", h.finish()))
}

fn print_side(name: &str, side: &Side, paired: &PairedComparison) {
    if side.positions == 0 {
        println!("{name}: no positions (the split left none), so no set is judged on this side");
        return;
    }
    println!("{name} ({} positions):", side.positions);
    println!(
        "  {:<8} {:>9} {:>8} {:>12} {:>7} {:>9}",
        "set", "objective", "solved", "nodes", "ratio", "accuracy"
    );
    for s in &side.sets {
        let o = &s.objective;
        println!(
            "  {:<8} {:>9.3} {:>8} {:>12} {:>7.3} {:>9.3}",
            s.name, o.value, o.solved, o.nodes, o.node_ratio, o.accuracy
        );
    }
    println!(
        "  tuned against default: {} solved by tuned only, {} by default only, McNemar exact p = {:.4}",
        paired.only_a, paired.only_b, paired.p_value
    );
}
