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
use crate::calibrate::design::unit_hypercube;
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
        }
    }

    /// Suite evaluations the race makes at most: the screen, the full scores, the local rounds.
    pub fn suite_evaluations(&self, dims: usize) -> usize {
        self.design + 1 + self.keep + self.local_rounds * 2 * dims + self.line.len()
    }

    /// Games the race plays at most.
    pub fn games(&self) -> u64 {
        let mut alive = self.finalists as u64;
        let mut games = 0;
        for &pairs in &self.rounds {
            games += alive * 2 * u64::from(pairs);
            alive = alive.div_ceil(2);
        }
        games
    }
}

/// The stage an evaluation belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The global screen on a mini-batch.
    Screen,
    /// A screened set on every training position.
    Full,
    /// A compass-search neighbour.
    Local,
    /// A point of the line through the base set (all tuned rows scaled together).
    Line,
    /// A round of games against the base set.
    Games,
}

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
}

impl RaceResult {
    /// Games the race played (or read back from its logs): each finalist's pairs, twice.
    pub fn games_played(&self) -> u64 {
        let mut last: Vec<(&[i32], u64)> = Vec::new();
        for s in &self.steps {
            if let Some(g) = &s.games {
                match last.iter_mut().find(|(v, _)| *v == s.values.as_slice()) {
                    Some(entry) => entry.1 = entry.1.max(g.pairs),
                    None => last.push((&s.values, g.pairs)),
                }
            }
        }
        last.iter().map(|(_, p)| 2 * p).sum()
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
/// round's); an empty slice runs no games. `observe` sees every step as it is made.
///
/// # Errors
/// A suite evaluation or a round of games failed (or was interrupted), or the settings cannot
/// run (no design points, nothing kept, or not one games problem per round).
pub fn run(
    cost: &SuiteCost,
    games: &[GamesProblem],
    settings: &RaceSettings,
    observe: &mut dyn FnMut(&RaceStep),
) -> Result<RaceResult, RaceError> {
    if settings.design == 0 || settings.keep == 0 || settings.finalists == 0 {
        return Err(RaceError::Settings(
            "the race needs design points, kept sets and finalists".into(),
        ));
    }
    if !games.is_empty() && games.len() != settings.rounds.len() {
        return Err(RaceError::Settings(format!(
            "{} games problems for {} rounds",
            games.len(),
            settings.rounds.len()
        )));
    }
    let space = cost.space();
    let scale = LogScale::new(space);
    let base = space.values_of(&space.base);
    let mut steps: Vec<RaceStep> = Vec::new();
    let mut record = |step: RaceStep, steps: &mut Vec<RaceStep>| {
        observe(&step);
        steps.push(step);
    };
    let suite_step = |stage, round, e: &Evaluation| RaceStep {
        stage,
        round,
        values: e.values.clone(),
        score: e.objective,
        games: None,
        cached: e.cached,
    };

    // 1. Screen: the design and the base set on one mini-batch.
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let mut candidates: Vec<Vec<i32>> = vec![base.clone()];
    for u in unit_hypercube(settings.design, space.dims.len(), &mut rng) {
        let v = scale.values_at_unit(space, &u);
        if !candidates.contains(&v) {
            candidates.push(v);
        }
    }
    let positions = cost.scorer().reference().len();
    let batch = (settings.screen_positions < positions).then(|| {
        Batch::sample(
            settings.screen_positions,
            positions,
            settings.seed,
            &[],
            &[],
        )
    });
    let requests: Vec<(&[i32], Option<&Batch>)> = candidates
        .iter()
        .map(|v| (v.as_slice(), batch.as_ref()))
        .collect();
    let screened = cost.evaluate_many(&requests).map_err(RaceError::Suite)?;
    for e in &screened {
        record(suite_step(Stage::Screen, 0, e), &mut steps);
    }

    // 2. The best of the screen on every training position.
    let mut order: Vec<&Evaluation> = screened.iter().collect();
    order.sort_by(|a, b| b.objective.total_cmp(&a.objective));
    let kept: Vec<&[i32]> = order
        .iter()
        .take(settings.keep)
        .map(|e| e.values.as_slice())
        .collect();
    let full_requests: Vec<(&[i32], Option<&Batch>)> = kept.iter().map(|v| (*v, None)).collect();
    let mut full: Vec<Evaluation> = cost
        .evaluate_many(&full_requests)
        .map_err(RaceError::Suite)?;
    for e in &full {
        record(suite_step(Stage::Full, 0, e), &mut steps);
    }

    // 3. Compass search in log coordinates from the best full score.
    let best_of = |all: &[Evaluation]| -> Evaluation {
        all.iter()
            .max_by(|a, b| a.objective.total_cmp(&b.objective))
            .expect("at least one full evaluation")
            .clone()
    };
    let mut centre = best_of(&full);
    let mut step: Vec<f64> = (0..space.dims.len())
        .map(|d| (scale.top[d] - scale.bottom(d)) / 8.0)
        .collect();
    for round in 1..=settings.local_rounds {
        let t = scale.to_log(&centre.values);
        let mut neighbours: Vec<Vec<i32>> = Vec::new();
        for d in 0..t.len() {
            for sign in [-1.0, 1.0] {
                let mut moved = t.clone();
                moved[d] += sign * step[d];
                let v = scale.values_at(space, &moved);
                if v != centre.values && !neighbours.contains(&v) {
                    neighbours.push(v);
                }
            }
        }
        if neighbours.is_empty() {
            break;
        }
        let requests: Vec<(&[i32], Option<&Batch>)> =
            neighbours.iter().map(|v| (v.as_slice(), None)).collect();
        let scored = cost.evaluate_many(&requests).map_err(RaceError::Suite)?;
        for e in &scored {
            record(suite_step(Stage::Local, round, e), &mut steps);
        }
        let best = best_of(&scored);
        full.extend(scored);
        if best.objective > centre.objective {
            centre = best;
        } else {
            step.iter_mut().for_each(|s| *s /= 2.0);
        }
    }

    // 3b. The line through the base set: every tuned margin scaled by the same factor, the
    // one direction in which all the margins trade speed for accuracy together.
    let mut line: Vec<Vec<i32>> = Vec::new();
    for &f in &settings.line {
        let x: Vec<f64> = base.iter().map(|&v| f64::from(v) * f).collect();
        let v = space.values(&x);
        if v != base && !line.contains(&v) {
            line.push(v);
        }
    }
    let line_requests: Vec<(&[i32], Option<&Batch>)> =
        line.iter().map(|v| (v.as_slice(), None)).collect();
    let on_line = cost
        .evaluate_many(&line_requests)
        .map_err(RaceError::Suite)?;
    for e in &on_line {
        record(suite_step(Stage::Line, 0, e), &mut steps);
    }

    // 4. Finalists: the local search's best, every point of the line (the suite objective
    // ranks sets along it unlike games: it prefers the mildest scaling, which plays no better
    // than the defaults, while a quarter of the defaults wins by 60 Elo and more), then the best
    // screened sets by full score, so the race meets as many regions of the space as it has
    // finalists (the local neighbours of one point would crowd them out).
    let mut finalists: Vec<Vec<i32>> = Vec::new();
    if centre.values != base {
        finalists.push(centre.values.clone());
    }
    for e in &on_line {
        if !finalists.contains(&e.values) && finalists.len() < settings.finalists {
            finalists.push(e.values.clone());
        }
    }
    let mut screened_full: Vec<&Evaluation> = full
        .iter()
        .filter(|e| candidates.contains(&e.values))
        .collect();
    screened_full.sort_by(|a, b| b.objective.total_cmp(&a.objective));
    for e in screened_full {
        if finalists.len() >= settings.finalists {
            break;
        }
        if !finalists.contains(&e.values) && e.values != base {
            finalists.push(e.values.clone());
        }
    }
    let by_suite = finalists.first().cloned().unwrap_or_else(|| base.clone());
    if games.is_empty() || finalists.is_empty() {
        let verdict = if by_suite == base {
            "no set scored above the base set: the base set is kept".to_string()
        } else {
            "the best suite objective (no games raced)".to_string()
        };
        return Ok(RaceResult {
            settings: settings.clone(),
            values: by_suite,
            verdict,
            steps,
        });
    }

    let mut tally: Vec<(Vec<i32>, RaceGames)> = finalists
        .into_iter()
        .map(|v| {
            let g = RaceGames {
                pairs: 0,
                wdl: Wdl::default(),
                pentanomial: Pentanomial::default(),
            };
            (v, g)
        })
        .collect();
    for (round, problem) in games.iter().enumerate() {
        for (values, g) in &mut tally {
            let e = problem.cost_values(values)?;
            g.pairs += e.pairs;
            g.wdl += e.wdl;
            g.pentanomial += e.pentanomial;
            let step = RaceStep {
                stage: Stage::Games,
                round: round + 1,
                values: values.clone(),
                score: regularized_elo(&g.wdl),
                games: Some(*g),
                cached: e.cached,
            };
            record(step, &mut steps);
        }
        tally.sort_by(|a, b| regularized_elo(&b.1.wdl).total_cmp(&regularized_elo(&a.1.wdl)));
        if round + 1 < games.len() {
            tally.truncate(tally.len().div_ceil(2));
        }
    }
    let (winner, g) = &tally[0];
    let elo = regularized_elo(&g.wdl);
    let (values, verdict) = if elo > 0.0 {
        let estimate = crate::scoring::games::stats::EloSummary::from(g.pentanomial.estimate());
        let shown = crate::scoring::games::stats::Shown;
        let mut verdict = format!(
            "won the race: {elo:+.1} Elo against the base set in {} games (95% [{:+.1}, {:+.1}])",
            2 * g.pairs,
            shown(estimate.lower),
            shown(estimate.upper)
        );
        // Another finalist that scored the same: the (stable) order before the last round's
        // games decided.
        let tied = (tally.iter().skip(1))
            .filter(|(_, o)| regularized_elo(&o.wdl) == elo)
            .count();
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
    } else {
        (
            base.clone(),
            format!(
                "no finalist beat the base set in games (the best {elo:+.1} Elo in {} games): the base set is kept",
                2 * g.pairs
            ),
        )
    };
    Ok(RaceResult {
        settings: settings.clone(),
        values,
        verdict,
        steps,
    })
}
