//! The default tuner: a global screen over the whole bounds, a local refinement, and a race in
//! games among the finalists.
//!
//! Margins act on a ratio scale (25 against 50 centipawns matters about as much as 500 against
//! 1,000), so every stage works in log coordinates: a value `v` of a row bounded by
//! `lower..upper` is `t = ln(v − lower + c)` with `c = (upper − lower)/100 + 1`.
//!
//! 1. **Screen.** A seeded Latin hypercube of `design` points, uniform in log coordinates over
//!    the whole bounds, plus the base set, each scored by the suite objective on every training
//!    position, or on a seeded mini-batch of `screen_positions` of them (one batch for all, so
//!    the screen compares like with like).
//! 2. **Full.** The best `keep` of the screen, scored on every training position (when the
//!    screen used a mini-batch; by default it scores every position and this is a selection).
//! 3. **Local.** A compass search from the best full score: the `2·d` neighbours one step away
//!    in log coordinates, scored together on every training position; the best neighbour is
//!    taken when it scores higher, else the step halves. `local_rounds` rounds. The first step
//!    is an eighth of the log range, so it starts from the screen's spacing and ends near the
//!    objective's resolution.
//! 4. **Line.** The base set with every tuned row scaled by each factor of `line` (all the
//!    margins trading speed for accuracy together), scored on every training position.
//! 5. **Race.** The local search's best, every point of the line, and the best screened sets
//!    by full score, `finalists` distinct sets in all, play
//!    paired games against the base set, round `r` on its own openings for `rounds[r]` pairs;
//!    after each round the better half (by the score of all their games so far, one
//!    pseudo-draw added) goes on: successive halving, so most games go to the best sets. The winner
//!    is the survivor with the best score, if it scored above the base set; otherwise the base
//!    set is kept and the result says so. Without games (none given, or no rounds), the best
//!    full score wins.
//!
//! When no calibration trusts the suite objective for the engine and limit
//! ([`super::screen`]), steps 1 to 4 give way to the **games screen**: the same Latin hypercube
//! and the line (the base set left out) play paired games against the base set, a few pairs
//! each in the first round, the better half going on with twice the pairs each round, until
//! `finalists` are left; they race as in step 5.
//!
//! A race screened in games ranks its sets by a **response surface** ([`super::surface`]):
//! after every round a quadratic in log coordinates is fitted to every set's games so far (the
//! base set at 0), and each set is ranked by its estimate from the surface and its own games,
//! not by its own handful of games alone. Before the race's rounds the surface proposes one set
//! no one played, the best lower bound within reach of the played ones, which replaces the
//! last finalist; the winner is the set the surface and its games put first. With fewer sets
//! than a quadratic needs, the sets' own games rank them as before.
//!
//! Every suite evaluation goes through [`SuiteCost`] (cached by margin values and batch, logged)
//! and every game through a [`GamesProblem`] per round (cached and logged by margin values), so
//! an interrupted run replays its finished work from the logs and ends with the same result.

use argmin::core::Error;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::cost::{Batch, Evaluation, SuiteCost};
use super::games::{GamesProblem, regularized_elo};
use super::space::Space;
use super::surface::{self, Point, Surface, SurfaceSummary};
use crate::calibrate::design::unit_hypercube;
use crate::progress::{self, Event, Observer};
use crate::scoring::cheap::CheapObjective;
use crate::scoring::games::stats::{Pentanomial, Wdl};

/// How the race runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceSettings {
    /// Points of the global Latin hypercube (the base set is screened beside them).
    pub design: usize,
    /// Training positions in the screen's mini-batch (all of them when at least their count).
    pub screen_positions: usize,
    /// Screened sets scored on every training position (when the screen used a batch).
    pub keep: usize,
    /// Rounds of the compass search.
    pub local_rounds: usize,
    /// Factors of the line through the base set: every tuned row's base value times each,
    /// scored on every training position; every point of the line races (empty: no line).
    #[serde(default)]
    pub line: Vec<f64>,
    /// Sets that race in games.
    pub finalists: usize,
    /// Game pairs each surviving set plays in each round, against the base set.
    pub rounds: Vec<u32>,
    /// Seed of the design and the screen's batch.
    pub seed: u64,
    /// Whether the screen plays games instead of scoring the suite objective (no trusted
    /// calibration: see [`crate::tune::screen`]): the design and the line, none scored on
    /// positions, play `screen_pairs[r]` pairs each in round `r` against the base set, the
    /// better half going on until `finalists` are left.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub screen_in_games: bool,
    /// The games screen's pairs a round (doubling from the first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub screen_pairs: Vec<u32>,
    /// Which screen ran and why, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub screen_why: String,
    /// The calibrated objective that scores steps 1 to 4 instead of the suite objective, when
    /// a calibration trusts it clearly more than the suite ([`crate::tune::screen`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_objective: Option<ScreenObjective>,
    /// Whether a response surface over every set's games ranks the sets and proposes a
    /// finalist (set with the games screen; a file written before it had none).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub surface: bool,
}

/// A calibrated objective that screens the race: its name and key as the calibration report
/// gives them (the key says everything that decides its values, so the run prepares it again
/// from the key and refuses one whose key differs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenObjective {
    /// Its name, e.g. `quality (5000 nodes, ref 80000 nodes)`.
    pub name: String,
    /// Its key in the calibration report.
    pub key: String,
}

impl RaceSettings {
    /// The default for a space of `dims` tuned rows: 12 design points a row (at least 24),
    /// screened on every training position, 2 local rounds, the base set scaled by 2 to 2^-3
    /// in half steps (1 left out), and 16 finalists racing 16, 32, 64 and 128 pairs (2,048
    /// games, the better half going on each round).
    pub fn new(dims: usize, seed: u64) -> RaceSettings {
        RaceSettings {
            design: (12 * dims).max(24),
            screen_positions: usize::MAX,
            keep: 16,
            local_rounds: 2,
            line: vec![2.0, 1.414, 0.707, 0.5, 0.354, 0.25, 0.177, 0.125],
            finalists: 16,
            rounds: vec![16, 32, 64, 128],
            seed,
            screen_in_games: false,
            screen_pairs: Vec::new(),
            screen_why: String::new(),
            screen_objective: None,
            surface: false,
        }
    }

    /// The same race screened in games (`why` says why): `first` pairs a candidate in the
    /// first round, doubling each round, as many rounds as it takes to halve the design and
    /// the line down to the finalists; a response surface ranks the sets.
    pub fn with_games_screen(mut self, first: u32, why: String) -> RaceSettings {
        let mut alive = self.screen_candidates();
        let mut pairs = first.max(1);
        self.screen_pairs.clear();
        while alive > self.finalists {
            self.screen_pairs.push(pairs);
            alive = next_field(alive, self.finalists);
            pairs = pairs.saturating_mul(2);
        }
        self.screen_in_games = true;
        self.screen_why = why;
        self.surface = true;
        self
    }

    /// The sets the games screen plays at most: the design and the line.
    pub fn screen_candidates(&self) -> usize {
        self.design + self.line.len()
    }

    /// Suite evaluations the race makes at most: the screen, the full scores, the local rounds
    /// (none with the games screen).
    pub fn suite_evaluations(&self, dims: usize) -> usize {
        if self.screen_in_games {
            return 0;
        }
        self.design + 1 + self.keep + self.local_rounds * 2 * dims + self.line.len()
    }

    /// Games the race's rounds play at most (the games screen's apart).
    pub fn games(&self) -> u64 {
        let mut alive = self.finalists as u64;
        let mut games = 0;
        for &pairs in &self.rounds {
            games += alive * 2 * u64::from(pairs);
            alive = alive.div_ceil(2);
        }
        games
    }

    /// Games the games screen plays at most (0 with the suite screen).
    pub fn screen_games(&self) -> u64 {
        let mut alive = self.screen_candidates();
        let mut games = 0;
        for &pairs in &self.screen_pairs {
            games += alive as u64 * 2 * u64::from(pairs);
            alive = next_field(alive, self.finalists);
        }
        games
    }
}

/// The sets left after a round of the games screen of `alive`: the better half, never fewer
/// than the finalists.
fn next_field(alive: usize, finalists: usize) -> usize {
    alive.div_ceil(2).max(finalists)
}

/// The stage an evaluation belongs to (the progress events' stage).
pub use crate::progress::Stage;

/// One step of the race, as the observer sees it and the tuned file records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceStep {
    /// The stage.
    pub stage: Stage,
    /// The round (local search or games; 0 for the screen and the full scores).
    pub round: usize,
    /// The tuned rows' values.
    pub values: Vec<i32>,
    /// The suite objective (screen: on the batch) or, in games, the Elo against the base set
    /// over all the set's games so far (one pseudo-draw added).
    pub score: f64,
    /// Games: pairs played by the set so far, and their pentanomial counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<RaceGames>,
    /// Whether it read back from a log rather than searched or played.
    pub cached: bool,
}

/// A finalist's games so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RaceGames {
    /// Pairs played.
    pub pairs: u64,
    /// Wins, draws and losses against the base set.
    pub wdl: Wdl,
    /// Pentanomial counts.
    pub pentanomial: Pentanomial,
    /// Games lost on time (either side; at a clock only).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_losses: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the race found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceResult {
    /// The settings it ran with.
    pub settings: RaceSettings,
    /// The chosen set's values.
    pub values: Vec<i32>,
    /// How it was chosen, for people.
    pub verdict: String,
    /// Every step, in order.
    pub steps: Vec<RaceStep>,
    /// The response surface's last fit and its proposal (with [`RaceSettings::surface`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<SurfaceSummary>,
}

impl RaceResult {
    /// Games the race played (or read back from its logs): each set's pairs in the games
    /// screen and in the race, twice.
    pub fn games_played(&self) -> u64 {
        self.last_tallies().iter().map(|g| 2 * g.pairs).sum()
    }

    /// Games of the race lost on time (either side; at a clock only).
    pub fn time_losses(&self) -> u64 {
        self.last_tallies().iter().map(|g| g.time_losses).sum()
    }

    /// Each set's last tally of games in each games stage (the screen's, the race's).
    fn last_tallies(&self) -> Vec<RaceGames> {
        let mut last: Vec<(&[i32], Stage, RaceGames)> = Vec::new();
        for s in &self.steps {
            let Some(g) = s.games else { continue };
            let same = |e: &&mut (&[i32], Stage, RaceGames)| e.0 == s.values && e.1 == s.stage;
            match last.iter_mut().find(same) {
                Some(entry) if g.pairs >= entry.2.pairs => entry.2 = g,
                Some(_) => {}
                None => last.push((&s.values, s.stage, g)),
            }
        }
        last.into_iter().map(|(_, _, g)| g).collect()
    }
}

/// A race's failure.
#[derive(Debug, thiserror::Error)]
pub enum RaceError {
    /// A suite evaluation failed (the executor, or the log).
    #[error("{0}")]
    Suite(Error),
    /// A round of games failed.
    #[error("{0}")]
    Games(#[from] super::games::GamesError),
    /// The settings cannot run.
    #[error("{0}")]
    Settings(String),
}

/// A calibrated objective scoring the race's steps 1 to 4, each set's value logged (one JSON
/// line a set in the checkpoint directory) so that a rerun reads back what it measured.
pub struct ObjectiveScorer {
    objective: Box<dyn CheapObjective>,
    log: Option<std::path::PathBuf>,
    seen: std::sync::Mutex<Vec<(Vec<i32>, f64)>>,
}

/// One logged measurement.
#[derive(Serialize, Deserialize)]
struct Logged {
    values: Vec<i32>,
    value: f64,
}

impl ObjectiveScorer {
    /// `objective`, its values logged in `log` (read back first when it exists).
    pub fn new(objective: Box<dyn CheapObjective>, log: Option<std::path::PathBuf>) -> Self {
        let text = (log.as_ref()).and_then(|p| std::fs::read_to_string(p).ok());
        let seen = (text.unwrap_or_default().lines())
            .filter_map(|l| serde_json::from_str::<Logged>(l).ok())
            .map(|l| (l.values, l.value))
            .collect();
        ObjectiveScorer {
            objective,
            log,
            seen: std::sync::Mutex::new(seen),
        }
    }

    /// The objective's name.
    pub fn name(&self) -> String {
        self.objective.name()
    }

    /// Each of `sets` measured (or read back from the log), in order, as evaluations whose
    /// suite parts (accuracy, speed, node ratio) are not known.
    fn measure_many(&self, space: &Space, sets: &[Vec<i32>]) -> Result<Vec<Evaluation>, RaceError> {
        let mut out = Vec::with_capacity(sets.len());
        for values in sets {
            let logged = (self.seen.lock().expect("objective log"))
                .iter()
                .find(|(v, _)| v == values)
                .map(|(_, x)| *x);
            let (value, cached, faults) = match logged {
                Some(x) => (x, true, 0),
                None => {
                    let m = (self.objective.measure(&space.margins_of(values)))
                        .map_err(|e| RaceError::Suite(Error::msg(e)))?;
                    self.remember(values, m.value)?;
                    (m.value, false, m.faults)
                }
            };
            out.push(Evaluation {
                index: 0,
                values: values.clone(),
                objective: value,
                accuracy: f64::NAN,
                speed: f64::NAN,
                node_ratio: f64::NAN,
                solved: 0,
                cached,
                batch: None,
                faults,
            });
        }
        Ok(out)
    }

    fn remember(&self, values: &[i32], value: f64) -> Result<(), RaceError> {
        self.seen
            .lock()
            .expect("objective log")
            .push((values.to_vec(), value));
        let Some(path) = &self.log else {
            return Ok(());
        };
        let line = serde_json::to_string(&Logged {
            values: values.to_vec(),
            value,
        })
        .expect("a logged value serializes");
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| writeln!(f, "{line}"))
            .map_err(|e| {
                RaceError::Suite(Error::msg(format!("cannot write {}: {e}", path.display())))
            })
    }
}

/// Log coordinates of a space's rows (see the module documentation).
struct LogScale {
    lower: Vec<f64>,
    offset: Vec<f64>,
    top: Vec<f64>,
}

impl LogScale {
    fn new(space: &Space) -> LogScale {
        let (lower, upper) = (space.lower(), space.upper());
        let offset: Vec<f64> = lower
            .iter()
            .zip(&upper)
            .map(|(l, u)| (u - l) / 100.0 + 1.0)
            .collect();
        let top = upper
            .iter()
            .zip(&lower)
            .zip(&offset)
            .map(|((u, l), c)| (u - l + c).ln())
            .collect();
        LogScale { lower, offset, top }
    }

    fn bottom(&self, d: usize) -> f64 {
        self.offset[d].ln()
    }

    fn to_log(&self, values: &[i32]) -> Vec<f64> {
        values
            .iter()
            .enumerate()
            .map(|(d, &v)| (f64::from(v) - self.lower[d] + self.offset[d]).ln())
            .collect()
    }

    fn values_at(&self, space: &Space, t: &[f64]) -> Vec<i32> {
        let x: Vec<f64> = t
            .iter()
            .enumerate()
            .map(|(d, &t)| {
                t.clamp(self.bottom(d), self.top[d]).exp() - self.offset[d] + self.lower[d]
            })
            .collect();
        space.values(&x)
    }

    /// Where `values` lie in the unit cube over the whole log range.
    fn to_unit(&self, values: &[i32]) -> Vec<f64> {
        (self.to_log(values).iter().enumerate())
            .map(|(d, t)| (t - self.bottom(d)) / (self.top[d] - self.bottom(d)))
            .collect()
    }

    /// A unit-cube point spread over the whole log range.
    fn values_at_unit(&self, space: &Space, u: &[f64]) -> Vec<i32> {
        let t: Vec<f64> = u
            .iter()
            .enumerate()
            .map(|(d, &u)| self.bottom(d) + u * (self.top[d] - self.bottom(d)))
            .collect();
        self.values_at(space, &t)
    }
}

/// Runs the race over `cost`'s space (see the module documentation). `games` holds one games
/// problem per round of `settings.rounds` (each on its own openings, its pairs equal to the
/// round's); an empty slice runs no games. `observer` sees every step as it is made
/// ([`Event::Race`]).
///
/// # Errors
/// A suite evaluation or a round of games failed (or was interrupted), or the settings cannot
/// run (no design points, nothing kept, or not one games problem per round).
pub fn run(
    cost: &SuiteCost,
    games: &[GamesProblem],
    settings: &RaceSettings,
    observer: &dyn Observer,
) -> Result<RaceResult, RaceError> {
    run_with(cost, None, games, settings, observer)
}

/// [`run`], steps 1 to 4 scored by `objective` instead of the suite objective when given
/// (every training position: its own positions, no mini-batch).
///
/// # Errors
/// As [`run`], or a measurement of `objective` failed.
pub fn run_with(
    cost: &SuiteCost,
    objective: Option<&ObjectiveScorer>,
    games: &[GamesProblem],
    settings: &RaceSettings,
    observer: &dyn Observer,
) -> Result<RaceResult, RaceError> {
    check_settings(games, settings)?;
    let mut race = Race::new(cost, settings, observer);
    race.objective = objective;
    if settings.screen_in_games {
        // No objective ranks sets as games do: the games screen picks the finalists.
        let (screen, rounds) = games.split_at(settings.screen_pairs.len());
        let finalists = race.games_screen(screen)?;
        if finalists.is_empty() {
            let verdict = "the games screen met no set but the base set: the base set is kept";
            let base = race.base.clone();
            return Ok(race.result(base, verdict.to_string()));
        }
        let tally = race.games(finalists, rounds)?;
        let estimates = race.surface_estimates(&tally);
        let (values, verdict) = verdict(&tally, &race.base, estimates.as_deref());
        return Ok(race.result(values, verdict));
    }
    // 1. Screen: the design and the base set on one mini-batch.
    let (candidates, screened) = race.screen()?;
    // 2. The best of the screen on every training position.
    let mut full = race.keep(&screened)?;
    // 3. Compass search in log coordinates from the best full score.
    let centre = race.compass(&mut full)?;
    // 3b. The line through the base set.
    let on_line = race.line()?;
    // 4. Finalists, then their games.
    let finalists = race.finalists(&centre, &on_line, &full, &candidates);
    let by_suite = finalists
        .first()
        .cloned()
        .unwrap_or_else(|| race.base.clone());
    if games.is_empty() || finalists.is_empty() {
        let verdict = if by_suite == race.base {
            "no set scored above the base set: the base set is kept".to_string()
        } else {
            "the best suite objective (no games raced)".to_string()
        };
        return Ok(race.result(by_suite, verdict));
    }
    let tally = race.games(finalists, games)?;
    let estimates = race.surface_estimates(&tally);
    let (values, verdict) = verdict(&tally, &race.base, estimates.as_deref());
    Ok(race.result(values, verdict))
}

/// Refuses settings the race cannot run.
fn check_settings(games: &[GamesProblem], settings: &RaceSettings) -> Result<(), RaceError> {
    if settings.design == 0 || settings.keep == 0 || settings.finalists == 0 {
        return Err(RaceError::Settings(
            "the race needs design points, kept sets and finalists".into(),
        ));
    }
    let screen = if settings.screen_in_games {
        if settings.rounds.is_empty() {
            return Err(RaceError::Settings(
                "the games screen picks finalists for the race's games, and it has no rounds"
                    .into(),
            ));
        }
        settings.screen_pairs.len()
    } else {
        0
    };
    let needed = screen + settings.rounds.len();
    if (settings.screen_in_games || !games.is_empty()) && games.len() != needed {
        return Err(RaceError::Settings(format!(
            "{} games problems for {screen} screen and {} race rounds",
            games.len(),
            settings.rounds.len()
        )));
    }
    Ok(())
}

/// A race under way: its cost, settings and coordinates, and the steps made so far (each seen
/// by the observer as it is made).
struct Race<'a> {
    cost: &'a SuiteCost,
    /// The objective that scores steps 1 to 4 instead of the suite objective.
    objective: Option<&'a ObjectiveScorer>,
    settings: &'a RaceSettings,
    space: &'a Space,
    scale: LogScale,
    base: Vec<i32>,
    steps: Vec<RaceStep>,
    observer: &'a dyn Observer,
    /// Suite evaluations and game pairs made so far (for the progress' ETA).
    done: (u64, u64),
    /// Every set's games so far, over all the stages, in the order first played.
    seen: Vec<(Vec<i32>, Pentanomial)>,
    /// The response surface's last fit and proposal.
    summary: Option<SurfaceSummary>,
}

impl<'a> Race<'a> {
    fn new(
        cost: &'a SuiteCost,
        settings: &'a RaceSettings,
        observer: &'a dyn Observer,
    ) -> Race<'a> {
        let space = cost.space();
        Race {
            cost,
            objective: None,
            settings,
            space,
            scale: LogScale::new(space),
            base: space.values_of(&space.base),
            steps: Vec::new(),
            observer,
            done: (0, 0),
            seen: Vec::new(),
            summary: None,
        }
    }

    /// Says a stage starting: `sets` scored, or playing `pairs` pairs each.
    fn stage(&self, stage: Stage, round: usize, sets: usize, pairs: u32) {
        let stage = progress::RaceStage {
            stage,
            round,
            sets,
            pairs,
            by_objective: self.objective.is_some() && pairs == 0,
        };
        self.observer.event(&Event::RaceStage(stage));
    }

    /// Records a step and shows it to the observer.
    fn record(&mut self, step: RaceStep) {
        let work = match step.games {
            Some(_) => {
                let s = self.settings;
                (self.done.1, (s.screen_games() + s.games()) / 2)
            }
            None => {
                let dims = self.space.dims.len();
                let planned = self.settings.suite_evaluations(dims) as u64;
                (self.done.0, planned.max(self.done.0))
            }
        };
        self.observer.event(&Event::Race(progress::RaceStep {
            stage: step.stage,
            round: step.round,
            values: &step.values,
            score: step.score,
            games: step.games.map(|g| (g.pairs, g.wdl)),
            cached: step.cached,
            work,
        }));
        self.steps.push(step);
    }

    /// Scores `sets` (on `batch`, or on every training position) and records each as a step
    /// of `stage` and `round`.
    fn score(
        &mut self,
        sets: &[Vec<i32>],
        batch: Option<&Batch>,
        stage: Stage,
        round: usize,
    ) -> Result<Vec<Evaluation>, RaceError> {
        self.stage(stage, round, sets.len(), 0);
        let scored = match self.objective {
            Some(objective) => objective.measure_many(self.space, sets)?,
            None => {
                let requests: Vec<(&[i32], Option<&Batch>)> =
                    sets.iter().map(|v| (v.as_slice(), batch)).collect();
                self.cost
                    .evaluate_many(&requests)
                    .map_err(RaceError::Suite)?
            }
        };
        for e in &scored {
            self.done.0 += 1;
            self.record(RaceStep {
                stage,
                round,
                values: e.values.clone(),
                score: e.objective,
                games: None,
                cached: e.cached,
            });
        }
        Ok(scored)
    }

    /// The global screen: the base set and a seeded Latin hypercube over the whole bounds in
    /// log coordinates, on one mini-batch of training positions. Returns the sets and scores.
    fn screen(&mut self) -> Result<(Vec<Vec<i32>>, Vec<Evaluation>), RaceError> {
        let settings = self.settings;
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut candidates: Vec<Vec<i32>> = vec![self.base.clone()];
        for u in unit_hypercube(settings.design, self.space.dims.len(), &mut rng) {
            let v = self.scale.values_at_unit(self.space, &u);
            if !candidates.contains(&v) {
                candidates.push(v);
            }
        }
        let positions = self.cost.scorer().reference().len();
        let batched = settings.screen_positions < positions && self.objective.is_none();
        let batch = batched.then(|| {
            Batch::sample(
                settings.screen_positions,
                positions,
                settings.seed,
                &[],
                &[],
            )
        });
        let screened = self.score(&candidates, batch.as_ref(), Stage::Screen, 0)?;
        Ok((candidates, screened))
    }

    /// The best `keep` of the screen, scored on every training position.
    fn keep(&mut self, screened: &[Evaluation]) -> Result<Vec<Evaluation>, RaceError> {
        let mut order: Vec<&Evaluation> = screened.iter().collect();
        order.sort_by(|a, b| b.objective.total_cmp(&a.objective));
        let kept: Vec<Vec<i32>> = (order.iter().take(self.settings.keep))
            .map(|e| e.values.clone())
            .collect();
        self.score(&kept, None, Stage::Full, 0)
    }

    /// Compass search in log coordinates from the best of `full`, each round's scores added to
    /// `full`; returns the best set found.
    fn compass(&mut self, full: &mut Vec<Evaluation>) -> Result<Evaluation, RaceError> {
        let mut centre = best_of(full);
        let scale = &self.scale;
        let mut step: Vec<f64> = (0..self.space.dims.len())
            .map(|d| (scale.top[d] - scale.bottom(d)) / 8.0)
            .collect();
        for round in 1..=self.settings.local_rounds {
            let neighbours = self.neighbours(&centre.values, &step);
            if neighbours.is_empty() {
                break;
            }
            let scored = self.score(&neighbours, None, Stage::Local, round)?;
            let best = best_of(&scored);
            full.extend(scored);
            if best.objective > centre.objective {
                centre = best;
            } else {
                step.iter_mut().for_each(|s| *s /= 2.0);
            }
        }
        Ok(centre)
    }

    /// The sets one `step` away from `centre` along each coordinate (log scale), each once.
    fn neighbours(&self, centre: &[i32], step: &[f64]) -> Vec<Vec<i32>> {
        let t = self.scale.to_log(centre);
        let mut neighbours: Vec<Vec<i32>> = Vec::new();
        for d in 0..t.len() {
            for sign in [-1.0, 1.0] {
                let mut moved = t.clone();
                moved[d] += sign * step[d];
                let v = self.scale.values_at(self.space, &moved);
                if v != centre && !neighbours.contains(&v) {
                    neighbours.push(v);
                }
            }
        }
        neighbours
    }

    /// The line through the base set: every tuned margin scaled by the same factor, the one
    /// direction in which all the margins trade speed for accuracy together.
    fn line(&mut self) -> Result<Vec<Evaluation>, RaceError> {
        let line = self.line_sets();
        self.score(&line, None, Stage::Line, 0)
    }

    /// The sets of the line through the base set, each once, the base set left out.
    fn line_sets(&self) -> Vec<Vec<i32>> {
        let mut line: Vec<Vec<i32>> = Vec::new();
        for &f in &self.settings.line {
            let x: Vec<f64> = self.base.iter().map(|&v| f64::from(v) * f).collect();
            let v = self.space.values(&x);
            if v != self.base && !line.contains(&v) {
                line.push(v);
            }
        }
        line
    }

    /// The games screen: the seeded Latin hypercube in log coordinates (as the suite screen's)
    /// and the line through the base set, each once and the base set left out, play paired
    /// games against the base set round by round on each round's own openings; after each
    /// round the better half (by all their games so far) goes on, never fewer than the
    /// finalists. Returns the finalists, best first.
    fn games_screen(&mut self, rounds: &[GamesProblem]) -> Result<Vec<Vec<i32>>, RaceError> {
        let settings = self.settings;
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut candidates: Vec<Vec<i32>> = Vec::new();
        let design = unit_hypercube(settings.design, self.space.dims.len(), &mut rng);
        let design = design
            .iter()
            .map(|u| self.scale.values_at_unit(self.space, u));
        for v in design.chain(self.line_sets()) {
            if v != self.base && !candidates.contains(&v) {
                candidates.push(v);
            }
        }
        let mut tally = fresh_tally(candidates);
        for (round, problem) in rounds.iter().enumerate() {
            if tally.len() <= settings.finalists {
                break;
            }
            self.play_round(&mut tally, problem, Stage::ScreenGames, round + 1)?;
            tally.truncate(next_field(tally.len(), settings.finalists));
        }
        tally.truncate(settings.finalists);
        let mut finalists: Vec<Vec<i32>> = tally.into_iter().map(|(v, _)| v).collect();
        if let Some(proposed) = self.proposal()
            && !finalists.contains(&proposed)
        {
            finalists.insert(0, proposed);
            finalists.truncate(settings.finalists);
        }
        Ok(finalists)
    }

    /// The surface over every set's games so far, with the base set at 0 (None without
    /// [`RaceSettings::surface`], or too few sets for it); its points, in `seen`'s order (sets
    /// with no pairs left out) and the base set last.
    fn surface(&mut self) -> Option<(Surface, Vec<Option<Point>>)> {
        if !self.settings.surface {
            return None;
        }
        let sets: Vec<(Vec<f64>, Pentanomial)> = (self.seen.iter())
            .map(|(v, p)| (self.scale.to_unit(v), *p))
            .collect();
        let points = surface::points_of(&sets);
        let mut fitted: Vec<Point> = points.iter().flatten().cloned().collect();
        fitted.push(Point {
            at: self.scale.to_unit(&self.base),
            elo: 0.0,
            variance: surface::BASE_VARIANCE,
        });
        let fit = Surface::fit(&fitted)?;
        let games = (self.seen.iter()).map(|(_, p)| 2 * p.total_pairs()).sum();
        let proposed = self.summary.as_ref().and_then(|s| s.proposed.clone());
        let proposed_elo = self.summary.as_ref().and_then(|s| s.proposed_elo);
        self.summary = Some(SurfaceSummary {
            sets: fitted.len(),
            games,
            tau: fit.tau2.sqrt(),
            proposed,
            proposed_elo,
        });
        Some((fit, points))
    }

    /// The set the surface proposes: the best lower bound within the trust radius of the
    /// played sets and the base set (None without a surface, or when it is the base set).
    fn proposal(&mut self) -> Option<Vec<i32>> {
        let (fit, points) = self.surface()?;
        let mut played: Vec<Vec<f64>> = points.into_iter().flatten().map(|p| p.at).collect();
        played.push(self.scale.to_unit(&self.base));
        let radius = surface::trust_radius(played.len(), self.space.dims.len());
        let found = fit.proposal(&played, radius, PROPOSAL_SAMPLES, self.settings.seed)?;
        let values = self.scale.values_at_unit(self.space, &found.at);
        let summary = self.summary.as_mut()?;
        summary.proposed = Some(values.clone());
        summary.proposed_elo = Some([found.elo, found.error]);
        (values != self.base).then_some(values)
    }

    /// Each of `tally`'s sets' estimate by the surface and its games over every stage (None
    /// without a surface).
    fn surface_estimates(&mut self, tally: &[(Vec<i32>, RaceGames)]) -> Option<Vec<f64>> {
        let (fit, points) = self.surface()?;
        let estimate = |values: &Vec<i32>| {
            let k = self.seen.iter().position(|(v, _)| v == values)?;
            points[k].as_ref().map(|p| fit.estimate(p))
        };
        Some(
            (tally.iter())
                .map(|(v, g)| estimate(v).unwrap_or_else(|| regularized_elo(&g.wdl)))
                .collect(),
        )
    }

    /// Adds a set's games to everything seen of it.
    fn saw(&mut self, values: &[i32], pentanomial: Pentanomial) {
        match self.seen.iter_mut().find(|(v, _)| v == values) {
            Some((_, p)) => *p += pentanomial,
            None => self.seen.push((values.to_vec(), pentanomial)),
        }
    }

    /// Ranks `tally`, best first: by the surface's estimates when there are any, else by each
    /// set's own games (stable: a tie keeps the order before).
    fn rank(&mut self, tally: &mut [(Vec<i32>, RaceGames)]) {
        let Some(estimates) = self.surface_estimates(tally) else {
            tally.sort_by(|a, b| regularized_elo(&b.1.wdl).total_cmp(&regularized_elo(&a.1.wdl)));
            return;
        };
        let mut order: Vec<usize> = (0..tally.len()).collect();
        order.sort_by(|&a, &b| estimates[b].total_cmp(&estimates[a]));
        let ranked: Vec<(Vec<i32>, RaceGames)> = order.iter().map(|&k| tally[k].clone()).collect();
        tally.clone_from_slice(&ranked);
    }

    /// One round of games: every set of `tally` plays `problem`'s pairs against the base set,
    /// its games added to its tally and recorded as a step of `stage`; then the tally is
    /// ranked ([`Race::rank`]).
    fn play_round(
        &mut self,
        tally: &mut [(Vec<i32>, RaceGames)],
        problem: &GamesProblem,
        stage: Stage,
        round: usize,
    ) -> Result<(), RaceError> {
        self.stage(stage, round, tally.len(), problem.settings().pairs);
        for (values, g) in tally.iter_mut() {
            let e = problem.cost_values(values)?;
            g.pairs += e.pairs;
            g.wdl += e.wdl;
            g.pentanomial += e.pentanomial;
            g.time_losses += e.time_losses;
            self.done.1 += e.pairs;
            self.saw(values, e.pentanomial);
            let step = RaceStep {
                stage,
                round,
                values: values.clone(),
                score: regularized_elo(&g.wdl),
                games: Some(*g),
                cached: e.cached,
            };
            self.record(step);
        }
        self.rank(tally);
        Ok(())
    }

    /// The finalists: the local search's best, every point of the line (the suite objective
    /// ranks sets along it unlike games: it prefers the mildest scaling, which plays no better
    /// than the defaults, while a quarter of the defaults wins by 60 Elo and more), then the
    /// best screened sets by full score, so the race meets as many regions of the space as it
    /// has finalists (the local neighbours of one point would crowd them out).
    fn finalists(
        &self,
        centre: &Evaluation,
        on_line: &[Evaluation],
        full: &[Evaluation],
        candidates: &[Vec<i32>],
    ) -> Vec<Vec<i32>> {
        let limit = self.settings.finalists;
        let mut finalists: Vec<Vec<i32>> = Vec::new();
        if centre.values != self.base {
            finalists.push(centre.values.clone());
        }
        for e in on_line {
            if !finalists.contains(&e.values) && finalists.len() < limit {
                finalists.push(e.values.clone());
            }
        }
        let mut screened_full: Vec<&Evaluation> = full
            .iter()
            .filter(|e| candidates.contains(&e.values))
            .collect();
        screened_full.sort_by(|a, b| b.objective.total_cmp(&a.objective));
        for e in screened_full {
            if finalists.len() >= limit {
                break;
            }
            if !finalists.contains(&e.values) && e.values != self.base {
                finalists.push(e.values.clone());
            }
        }
        finalists
    }

    /// The finalists' games against the base set, round by round, the better half going on
    /// after each round but the last; returns them ranked.
    fn games(
        &mut self,
        finalists: Vec<Vec<i32>>,
        games: &[GamesProblem],
    ) -> Result<Vec<(Vec<i32>, RaceGames)>, RaceError> {
        let mut tally = fresh_tally(finalists);
        for (round, problem) in games.iter().enumerate() {
            self.play_round(&mut tally, problem, Stage::Games, round + 1)?;
            if round + 1 < games.len() {
                tally.truncate(tally.len().div_ceil(2));
            }
        }
        Ok(tally)
    }

    /// The race's result: the set it chose and why, with every step made.
    fn result(self, values: Vec<i32>, verdict: String) -> RaceResult {
        RaceResult {
            settings: self.settings.clone(),
            values,
            verdict,
            steps: self.steps,
            surface: self.summary,
        }
    }
}

/// Points of the cube the surface's proposal is sought among.
const PROPOSAL_SAMPLES: usize = 4096;

/// Sets with no games played yet.
fn fresh_tally(sets: Vec<Vec<i32>>) -> Vec<(Vec<i32>, RaceGames)> {
    let none = RaceGames {
        pairs: 0,
        wdl: Wdl::default(),
        pentanomial: Pentanomial::default(),
        time_losses: 0,
    };
    sets.into_iter().map(|v| (v, none)).collect()
}

/// The best evaluation of `all` by objective.
fn best_of(all: &[Evaluation]) -> Evaluation {
    all.iter()
        .max_by(|a, b| a.objective.total_cmp(&b.objective))
        .expect("at least one full evaluation")
        .clone()
}

/// The set the ranked `tally` of the race's games chooses, and why: its winner when it scored
/// above the base set, else the base set. With `estimates` (the surface's, in `tally`'s order)
/// the winner's estimate decides and its own games are quoted beside it.
fn verdict(
    tally: &[(Vec<i32>, RaceGames)],
    base: &[i32],
    estimates: Option<&[f64]>,
) -> (Vec<i32>, String) {
    let (winner, g) = &tally[0];
    let own = regularized_elo(&g.wdl);
    let score = |k: usize| estimates.map_or_else(|| regularized_elo(&tally[k].1.wdl), |e| e[k]);
    let elo = score(0);
    let by = match estimates {
        Some(_) => " by the response surface over every set's games",
        None => "",
    };
    if elo <= 0.0 {
        let games = 2 * g.pairs;
        let best = match estimates {
            Some(_) => format!("{elo:+.1} Elo, {own:+.1} in its own {games} games"),
            None => format!("{elo:+.1} Elo in {games} games"),
        };
        return (
            base.to_vec(),
            format!(
                "no finalist beat the base set in games{by} (the best {best}): the base set is kept"
            ),
        );
    }
    let estimate = crate::scoring::games::stats::EloSummary::from(g.pentanomial.estimate());
    let shown = crate::scoring::games::stats::Shown;
    let mut verdict = match estimates {
        Some(_) => format!(
            "won the race: {elo:+.1} Elo against the base set{by}; its own {} games {own:+.1} (95% [{:+.1}, {:+.1}])",
            2 * g.pairs,
            shown(estimate.lower),
            shown(estimate.upper)
        ),
        None => format!(
            "won the race: {elo:+.1} Elo against the base set in {} games (95% [{:+.1}, {:+.1}])",
            2 * g.pairs,
            shown(estimate.lower),
            shown(estimate.upper)
        ),
    };
    // Another finalist that scored the same: the (stable) order before the last round's games
    // decided.
    let tied = (1..tally.len()).filter(|&k| score(k) == elo).count();
    if tied > 0 {
        verdict.push_str(&format!(
            "; tied on score with {tied} other finalist(s): the ranking before the last round decided"
        ));
    }
    if !estimate.lower.is_some_and(|l| l > 0.0) {
        verdict.push_str(
            "; too few games to show it is stronger than the base set: measure it with `marginal match` (or --confirm) before using it",
        );
    }
    (winner.clone(), verdict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(pairs: u64, [wins, draws, losses]: [u64; 3], p: [u64; 5]) -> RaceGames {
        RaceGames {
            pairs,
            wdl: Wdl {
                wins,
                draws,
                losses,
            },
            pentanomial: Pentanomial {
                ll: p[0],
                ld: p[1],
                wl_dd: p[2],
                wd: p[3],
                ww: p[4],
            },
            time_losses: 0,
        }
    }

    #[test]
    fn a_finalist_that_scored_above_the_base_set_wins_with_its_interval() {
        let tally = vec![
            (vec![10, 20], games(16, [14, 14, 4], [0, 2, 6, 6, 2])),
            (vec![30, 40], games(16, [8, 16, 8], [2, 4, 4, 4, 2])),
        ];
        let (values, verdict) = verdict(&tally, &[50, 60], None);
        assert_eq!(values, vec![10, 20]);
        assert!(verdict.starts_with("won the race: +"), "{verdict}");
        assert!(verdict.contains("in 32 games (95% ["), "{verdict}");
    }

    #[test]
    fn the_base_set_is_kept_when_no_finalist_beat_it() {
        let tally = vec![(vec![10, 20], games(8, [4, 8, 4], [1, 2, 2, 2, 1]))];
        let (values, verdict) = verdict(&tally, &[50, 60], None);
        assert_eq!(values, vec![50, 60]);
        assert!(
            verdict.starts_with(
                "no finalist beat the base set in games (the best +0.0 Elo in 16 games)"
            ),
            "{verdict}"
        );
    }

    #[test]
    fn a_win_by_too_few_games_and_a_tie_are_said() {
        let tally = vec![
            (vec![1], games(1, [1, 1, 0], [0, 0, 0, 1, 0])),
            (vec![2], games(1, [1, 1, 0], [0, 0, 0, 1, 0])),
        ];
        let (values, verdict) = verdict(&tally, &[3], None);
        assert_eq!(values, vec![1]);
        assert!(
            verdict.contains("tied on score with 1 other finalist(s)"),
            "{verdict}"
        );
        assert!(
            verdict.contains("too few games to show it is stronger"),
            "{verdict}"
        );
    }

    #[test]
    fn settings_that_cannot_run_are_refused() {
        let mut s = RaceSettings::new(2, 1);
        s.design = 0;
        assert!(matches!(
            check_settings(&[], &s),
            Err(RaceError::Settings(_))
        ));
        let s = RaceSettings::new(2, 1);
        assert!(
            check_settings(&[], &s).is_ok(),
            "no games: the suite decides"
        );
    }

    #[test]
    fn the_log_scale_maps_the_unit_cube_onto_the_whole_bounds() {
        let def = crate::engine::EngineDef::builtin();
        let space = Space::new(
            crate::engine::Setting::defaults(&def),
            &["futility_margin"],
            &["futility_margin=10..400"],
        )
        .unwrap();
        let scale = LogScale::new(&space);
        assert_eq!(scale.values_at_unit(&space, &[0.0]), vec![10]);
        assert_eq!(scale.values_at_unit(&space, &[1.0]), vec![400]);
        let mid = scale.values_at_unit(&space, &[0.5])[0];
        // Log coordinates give the small margins, where pruning changes most, more of the cube.
        assert!(mid > 10 && mid < 205, "{mid}");
        let back = scale.values_at(&space, &scale.to_log(&[123]));
        assert_eq!(back, vec![123]);
    }
}
