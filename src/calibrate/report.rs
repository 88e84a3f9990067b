//! The calibration report (`marginal-calibration/1`): each set's objectives and games, and for
//! each objective its rank agreement with the games beside the games' own ceiling.
//!
//! Fields added since the first reports (the rounds, why they stopped, the target, the power,
//! each objective's rho over the better half) read as empty from a report without them: its
//! verdicts were made without a target, and stand as written.
//!
//! **Ceiling.** A split-half rho `r` between two halves of the games (the even pairs against the
//! odd ones; the first book against the second) is stepped up to the whole by Spearman-Brown,
//! 2r / (1 + r), the reliability; its square root is the most an objective's rho can be
//! expected to reach ([`ceiling_of`]). The report's "ceiling on rho" (`max_rho`) is that of even
//! against odd pairs; the games are judged by the lesser of it and the books' (`book_max_rho`,
//! [`Ceiling::judging`]), which is what the rounds aim for.
//!
//! **Power.** With `n` sets, Spearman's rho is about normal in Fisher's z = atanh(rho), with
//! standard error sqrt(1.06 / (n - 3)) (Fieller, Hartley and Pearson). A rho is told from zero
//! (two-sided, alpha 0.05) with power 0.8 when its z is at least (1.96 + 0.84) times that error:
//! the smallest such rho is `min_rho = tanh(2.80 sqrt(1.06 / (n - 3)))` (0.74 for 12 sets,
//! 0.66 for 16, 0.60 for 20). Games that judge with reliability R lower every true correlation
//! by sqrt(R) (attenuation), so the smallest true correlation the calibration can detect is
//! `min_true_rho = min_rho / sqrt(R)` (`null` above 1: none).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::rank::{self, Bootstrap, Interval, Line};
use super::store::{ObjectiveLine, PairLine};
use super::{Config, RegionDim};
use crate::scoring::games::stats::{EloSummary, Pentanomial};

/// The `format` of a report.
pub const FORMAT: &str = "marginal-calibration/1";

/// Elo of a set against the defaults from one group of pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Games {
    /// Games counted.
    pub games: u64,
    /// Pentanomial pair counts `[LL, LD, WL+DD, WD, WW]` (the set's view).
    pub pentanomial: [u64; 5],
    /// Elo (pentanomial model); 0 for the defaults against themselves, and (not defined) for a
    /// set that won or lost every pair.
    pub elo: f64,
    /// 95% interval, each end `None` (`null`) where it is not defined: an end at a 0% or 100%
    /// score (infinite Elo), or both when every pair scored the same (no spread, so no
    /// interval); else it holds `elo`. `[0, 0]` for the defaults against themselves.
    pub elo_interval: [Option<f64>; 2],
    /// Normalized Elo (`None`: every pair scored the same).
    pub nelo: Option<f64>,
    /// Its 95% interval (`None` ends: every pair scored the same).
    pub nelo_interval: [Option<f64>; 2],
    /// Share of games drawn.
    pub draw_rate: f64,
}

impl Games {
    /// The figures of pairs counted in `p`, `draws` of their games drawn (a pentanomial cannot
    /// tell a drawn pair from a won-and-lost one, so the draws are counted from the games).
    pub(super) fn from_pentanomial(p: &Pentanomial, draws: u64) -> Games {
        // The statistics that are defined, as `marginal match` reports them: an infinite end,
        // or an interval without spread, is not written as a number.
        let e = EloSummary::from(p.estimate());
        let wdl = p.to_wdl();
        Games {
            games: wdl.total_games(),
            pentanomial: p.counts(),
            elo: e.elo.unwrap_or(0.0),
            elo_interval: [e.lower, e.upper],
            nelo: e.nelo,
            nelo_interval: [e.nelo_lower, e.nelo_upper],
            draw_rate: draws as f64 / wdl.total_games().max(1) as f64,
        }
    }

    /// The defaults against themselves: 0 by definition, not played.
    pub(super) fn zero() -> Games {
        Games {
            games: 0,
            pentanomial: [0; 5],
            elo: 0.0,
            elo_interval: [Some(0.0); 2],
            nelo: Some(0.0),
            nelo_interval: [Some(0.0); 2],
            draw_rate: 0.0,
        }
    }
}

/// One set: what it is, its objectives and its games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetReport {
    /// Its name.
    pub name: String,
    /// `defaults`, `design`, `file` or `margins`.
    pub origin: String,
    /// Its values, `name=value` for every row.
    pub margins: String,
    /// The tunable rows' values, in the region's order.
    pub values: Vec<i32>,
    /// Each objective's value, in the order of [`Report::objectives`].
    pub objectives: Vec<f64>,
    /// Each objective's account.
    pub summaries: Vec<String>,
    /// Games on each book, in the order of [`Report::books`].
    pub books: Vec<Games>,
    /// All books' pairs together (pentanomial counts summed).
    pub pooled: Games,
    /// The even-numbered pairs of every book (for the half-against-half ceiling).
    pub even: Games,
    /// The odd-numbered pairs.
    pub odd: Games,
    /// Games that ended by an engine fault.
    pub fault_games: u64,
}

/// How an objective ranks the sets against the pooled Elo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveReport {
    /// Its name (with its limit).
    pub name: String,
    /// What decides its values.
    pub key: String,
    /// Spearman's rho with its bootstrap interval (`None`: no spread).
    pub rho: Option<Interval>,
    /// Kendall's tau-b with its bootstrap interval.
    pub tau: Option<Interval>,
    /// Least-squares line Elo = intercept + slope x objective.
    pub line: Option<Line>,
    /// The slope's bootstrap interval.
    pub slope: Option<Interval>,
    /// Positions an external engine faulted on, over all sets.
    pub faults: usize,
    /// Positions an external engine overshot its node budget on, over all sets.
    pub overshot: usize,
    /// Spearman's rho over the better half of the sets by pooled Elo (where a tune's finalists
    /// live), with its own bootstrap interval over them.
    #[serde(default)]
    pub top_half_rho: Option<Interval>,
    /// One plain line: whether it ranks margin sets as games do.
    pub verdict: String,
}

/// The smallest correlations these sets and games could tell from zero (see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Power {
    /// Sets ranked.
    pub sets: usize,
    /// The smallest rho told from zero (alpha 0.05 two-sided, power 0.8); `None` with 3 sets
    /// or fewer.
    pub min_rho: Option<f64>,
    /// The smallest true correlation told from zero through games of this reliability:
    /// `min_rho / sqrt(reliability)`; `None` without a reliability or above 1.
    pub min_true_rho: Option<f64>,
}

/// The smallest Spearman rho `n` sets tell from zero (alpha 0.05 two-sided, power 0.8):
/// tanh((1.959964 + 0.841621) sqrt(1.06 / (n - 3))); `None` for `n` of 3 or fewer.
pub fn min_rho(n: usize) -> Option<f64> {
    (n > 3).then(|| ((1.959_964 + 0.841_621) * (1.06 / (n as f64 - 3.0)).sqrt()).tanh())
}

/// The power of `n` sets judged by games of `reliability`.
pub fn power(n: usize, reliability: Option<f64>) -> Power {
    let min = min_rho(n);
    let min_true_rho = match (min, reliability) {
        (Some(m), Some(r)) if r > 0.0 => Some(m / r.sqrt()).filter(|t| *t <= 1.0),
        _ => None,
    };
    Power {
        sets: n,
        min_rho: min,
        min_true_rho,
    }
}

/// Spearman's rho of `x` against `elo` over the better half of the sets by `elo` (the
/// `ceil(n/2)` highest, ties by order), with its bootstrap interval over them.
pub fn top_half_rho(x: &[f64], elo: &[f64], how: Bootstrap) -> Option<Interval> {
    let mut order: Vec<usize> = (0..elo.len()).collect();
    order.sort_by(|&a, &b| elo[b].total_cmp(&elo[a]).then(a.cmp(&b)));
    order.truncate(elo.len().div_ceil(2));
    let xs: Vec<f64> = order.iter().map(|&i| x[i]).collect();
    let ys: Vec<f64> = order.iter().map(|&i| elo[i]).collect();
    rank::bootstrap(&xs, &ys, how, rank::spearman)
}

/// How well the games agree with themselves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// Spearman between the first two books' Elo over the sets (`None` with one book).
    pub book_vs_book: Option<Interval>,
    /// Spearman between the even and the odd pairs' Elo over the sets.
    pub half_vs_half: Option<Interval>,
    /// The pooled Elo's reliability: the half-against-half rho stepped up to the whole by
    /// Spearman-Brown, 2r / (1 + r).
    pub reliability: Option<f64>,
    /// The most an objective's rho against the pooled Elo can be expected to reach:
    /// sqrt(reliability) (a perfect objective's correlation with a noisy measure).
    pub max_rho: Option<f64>,
    /// The same from book against book: sqrt(2r / (1 + r)), r the book-vs-book rho (0 when
    /// negative); `None` with one book.
    #[serde(default)]
    pub book_max_rho: Option<f64>,
}

/// A split-half rho `r` stepped up to the ceiling on rho of the whole: sqrt(2r / (1 + r)), r
/// taken as 0 when negative (Spearman-Brown, then a perfect objective's attenuation).
pub fn ceiling_of(r: f64) -> f64 {
    spearman_brown(r, 2.0).sqrt()
}

impl Ceiling {
    /// The ceiling the games are judged by: the lesser of `max_rho` (even against odd pairs)
    /// and `book_max_rho` (book against book, when there are two books), so that one split
    /// agreeing by chance does not pass games that the other finds inconsistent.
    pub fn judging(&self) -> Option<f64> {
        match (self.max_rho, self.book_max_rho) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, _) => a,
        }
    }
}

/// What the calibration cost, over every run that worked on it (an interrupted run and its
/// resumption count together), each run's preparing of the objectives (reference runs, the
/// referee's searches) counted with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Wall time of all runs, seconds.
    pub wall_seconds: f64,
    /// CPU time of marginal and its engine processes over all runs, seconds (`None` when a
    /// run did not measure it).
    pub cpu_seconds: Option<f64>,
    /// Threads the last run ran on.
    pub threads: usize,
    /// Objective values measured.
    pub objective_evaluations: usize,
    /// Games played.
    pub games: usize,
    /// Runs (1 for an uninterrupted calibration).
    pub runs: usize,
    /// Wall time of the last run alone, seconds.
    pub last_run_seconds: f64,
}

/// A book as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookReport {
    /// Its path.
    pub path: String,
    /// Positions in it.
    pub positions: usize,
    /// FNV-1a hash of its positions.
    pub hash: String,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: String,
    /// marginal's version.
    pub marginal: String,
    /// The engine's name.
    pub engine: String,
    /// Its signature (bench of the built-in engine; content digest of an external one).
    pub engine_signature: String,
    /// Its engine file, for an external engine.
    pub engine_source: Option<String>,
    /// The per-move limit of the games (`nodes 5000`, `depth 7`, `tc 10+0.1`).
    pub game_limit: String,
    /// Pairs each set played on each book.
    pub pairs_per_book: usize,
    /// The seed.
    pub seed: u64,
    /// The region of the design.
    pub region: Vec<RegionDim>,
    /// The books.
    pub books: Vec<BookReport>,
    /// How the pooled Elo pools: always `pentanomial counts summed over books`.
    pub pooled: String,
    /// The bootstrap.
    pub bootstrap: Bootstrap,
    /// The sets; the first is the defaults.
    pub sets: Vec<SetReport>,
    /// The objectives.
    pub objectives: Vec<ObjectiveReport>,
    /// The games' own agreement.
    pub ceiling: Ceiling,
    /// The ceiling on rho (`ceiling.max_rho`) the rounds of games aimed for; `None` in a report
    /// made before the rounds (its verdicts were made without it).
    #[serde(default)]
    pub ceiling_target: Option<f64>,
    /// The games' budget, every round counted.
    #[serde(default)]
    pub max_games: Option<u64>,
    /// The rounds of games, the first first.
    #[serde(default)]
    pub rounds: Vec<super::rounds::Round>,
    /// Why the games stopped: `ceiling`, `budget` or `openings`.
    #[serde(default)]
    pub stopped: Option<super::rounds::Stop>,
    /// The smallest correlations these sets and games could tell from zero.
    #[serde(default)]
    pub power: Option<Power>,
    /// When the games' ceiling fell short of the target: about how many games in all, at this
    /// spread of the sets, would bring it there ([`games_for_target`]); `None` when it was
    /// reached, or when the games agreed not at all (more games alone may not help then).
    #[serde(default)]
    pub games_for_target: Option<u64>,
    /// What it cost.
    pub cost: Cost,
}

impl Report {
    /// Whether the games could judge the objectives: their ceiling on rho reached the target
    /// (always, for a report made before targets).
    pub fn games_could_judge(&self) -> bool {
        self.ceiling_target
            .is_none_or(|t| self.ceiling.judging().is_some_and(|c| c >= t))
    }

    /// The reliability with which `games` games a set would rank these sets, the games' own
    /// (their judging ceiling squared, [`Ceiling::judging`], after the mean games of the sets
    /// that played) stepped to `games` by the Spearman-Brown prophecy ([`spearman_brown`]).
    /// `None` when no set played or the games have no ceiling; 0 for no games.
    pub fn reliability_at(&self, games: f64) -> Option<f64> {
        let ceiling = self.ceiling.judging()?;
        let (mean, _, _) = self.played()?;
        Some(spearman_brown(ceiling * ceiling, games / mean))
    }

    /// About how many games a set would need for its pooled Elo to rank the sets with
    /// reliability `goal` ([`spearman_brown_factor`] from [`Report::reliability_at`]'s
    /// reliability at the games the sets played); `None` when the games have no ceiling above 0.
    pub fn games_for_reliability(&self, goal: f64) -> Option<f64> {
        let ceiling = self.ceiling.judging()?;
        let (mean, _, _) = self.played()?;
        Some(mean * spearman_brown_factor(ceiling * ceiling, goal)?)
    }

    /// The mean games a set that played has, the least and the most pooled Elo of those sets
    /// (what [`Report::reliability_at`] steps from, and the sets' span): `None` when none played.
    pub fn played(&self) -> Option<(f64, f64, f64)> {
        let played: Vec<&SetReport> = self.sets.iter().filter(|s| s.pooled.games > 0).collect();
        if played.is_empty() {
            return None;
        }
        let mean = played.iter().map(|s| s.pooled.games as f64).sum::<f64>() / played.len() as f64;
        let elo = played
            .iter()
            .map(|s| s.pooled.elo)
            .filter(|e| e.is_finite());
        let (lo, hi) = elo.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| {
            (lo.min(e), hi.max(e))
        });
        Some((mean, lo, hi))
    }
}

/// The Spearman-Brown prophecy: the reliability of a measure made `k` times as long as one of
/// reliability `r`, `k r / (1 + (k - 1) r)` (0 for `k` = 0; `r` taken within 0 to 1).
pub fn spearman_brown(r: f64, k: f64) -> f64 {
    let r = r.clamp(0.0, 1.0);
    if k <= 0.0 || r == 0.0 {
        return 0.0;
    }
    k * r / (1.0 + (k - 1.0) * r)
}

/// How many times as long a measure of reliability `r` must be to reach reliability `goal`: the
/// Spearman-Brown prophecy ([`spearman_brown`]) solved for its factor, `goal (1 - r) / (r (1 -
/// goal))`. `None` when `r` is not above 0 (no length reaches any goal) or `goal` is 1 or more.
pub fn spearman_brown_factor(r: f64, goal: f64) -> Option<f64> {
    (r > 0.0 && goal < 1.0).then(|| goal * (1.0 - r.min(1.0)) / (r.min(1.0) * (1.0 - goal)))
}

/// The plain verdict on an objective's rho, judged against the games' `ceiling` and, when
/// given, its `target`: games whose ceiling ([`Ceiling::judging`]) fell short of it could not
/// judge.
pub fn verdict(
    name: &str,
    rho: Option<&Interval>,
    ceiling: &Ceiling,
    target: Option<f64>,
) -> String {
    let Some(r) = rho else {
        return format!("{name}: no spread over the sets: says nothing");
    };
    let max_rho = ceiling.max_rho;
    if let Some(t) = target
        && ceiling.judging().is_none_or(|c| c < t)
    {
        let shown = |c: Option<f64>| c.map_or("n/a".into(), |c| format!("{c:.2}"));
        return format!(
            "{name}: rho {r} (games' ceiling {} even vs odd, {} by books, below the target {t:.2}): the games could not judge: they do not rank the sets consistently enough among themselves; give more --max-games, or spread the sets (--region)",
            shown(max_rho),
            shown(ceiling.book_max_rho)
        );
    }
    // The ceiling quoted is the one the games are judged by (the lesser of the two splits),
    // the same the rounds stopped on.
    let Some(c) = ceiling.judging() else {
        return format!(
            "{name}: rho {r} (games' ceiling n/a): undecided: the games are too few to rank the sets among themselves; play more games a set"
        );
    };
    let ceiling = format!(" (games' ceiling {c:.2})");
    let judgement = if r.lower > 0.0 && r.value >= 0.7 {
        "ranks margin sets as games do"
    } else if r.lower > 0.0 {
        "ranks margin sets somewhat as games do (rho below 0.70)"
    } else if r.upper < 0.0 {
        "ranks margin sets against games: do not tune with it"
    } else {
        "untrusted: its ranking cannot be told from chance over these sets"
    };
    format!("{name}: rho {r}{ceiling}: {judgement}")
}

/// Whether the report in `path` is one this calibration wrote (the same engine, game limit,
/// pairs, seed and number of sets): a rerun may write it again, where any other file there is
/// the user's (another calibration, or not a report at all) and is not replaced unasked.
pub fn is_own_report(path: &Path, config: &Config) -> bool {
    if !path.is_file() {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    value["format"] == FORMAT
        && (value["engine_signature"].as_str())
            .is_some_and(|s| config.sets[0].setting.def().is_signed(s))
        && value["game_limit"] == limit_text(&config.game).as_str()
        && value["pairs_per_book"] == config.pairs_per_book
        && value["seed"] == config.seed
        && value["sets"]
            .as_array()
            .is_some_and(|s| s.len() == config.sets.len())
}

fn limit_text(game: &crate::scoring::games::game::GameConfig) -> String {
    use crate::scoring::games::game::MoveLimit;
    match game.limit {
        MoveLimit::Nodes(n) => format!("nodes {n}"),
        MoveLimit::Depth(d) => format!("depth {d}"),
        MoveLimit::Clock { base, increment } => {
            format!("tc {}+{}", base.as_secs_f64(), increment.as_secs_f64())
        }
    }
}

/// Builds the report from the finished values and pairs.
pub(super) fn build(
    config: &Config,
    values: &[ObjectiveLine],
    pairs: &[PairLine],
    schedule: &super::rounds::Schedule,
    cost: Cost,
) -> Report {
    let sets: Vec<SetReport> = (0..config.sets.len())
        .map(|s| set_report(config, s, values, pairs))
        .collect();
    let def = config.sets[0].setting.def();
    let mut report = Report {
        format: FORMAT.to_string(),
        marginal: env!("CARGO_PKG_VERSION").to_string(),
        engine: def.name.clone(),
        engine_signature: def.signature(),
        engine_source: def.source.clone(),
        game_limit: limit_text(&config.game),
        pairs_per_book: config.pairs_per_book,
        seed: config.seed,
        region: config.region.clone(),
        books: book_reports(config),
        pooled: "pentanomial counts summed over books".to_string(),
        bootstrap: config.bootstrap,
        sets,
        objectives: objective_reports(config, values),
        ceiling: Ceiling {
            book_vs_book: None,
            half_vs_half: None,
            reliability: None,
            max_rho: None,
            book_max_rho: None,
        },
        ceiling_target: Some(config.ceiling_target),
        max_games: Some(config.max_games),
        rounds: schedule.rounds.clone(),
        stopped: Some(schedule.stopped),
        power: None,
        games_for_target: None,
        cost,
    };
    analyse(&mut report);
    let played = schedule.rounds.iter().map(|r| r.games).sum();
    report.games_for_target =
        games_for_target(report.ceiling.judging(), config.ceiling_target, played);
    report
}

/// About how many games in all would bring the games' ceiling on rho from `ceiling`, after
/// `games`, to `target`, the sets' spread staying what it is: the pooled Elo's reliability is
/// the ceiling squared, and by the Spearman-Brown prophecy ([`spearman_brown`]) k times the
/// games turn reliability r into k r / (1 + (k - 1) r); this solves it for k. `None` when the target is reached, or when the ceiling is 0 (the
/// games agree not at all: no rate to project).
pub fn games_for_target(ceiling: Option<f64>, target: f64, games: u64) -> Option<u64> {
    let c = ceiling?;
    if c >= target || c <= 0.0 || games == 0 || target >= 1.0 {
        return None;
    }
    let k = spearman_brown_factor(c * c, target * target)?;
    // Rounded up to a hundred games: this is an estimate, not a count.
    Some(((games as f64 * k) / 100.0).ceil() as u64 * 100)
}

/// A tally of pairs: their pentanomial and the games drawn.
pub(super) type Tally = (Pentanomial, u64);

/// A set's pairs tallied: on each book, over the even pairs and the odd ones, and pooled;
/// with the games ended by a fault.
pub(super) struct Tallies {
    pub(super) books: Vec<Tally>,
    pub(super) even: Tally,
    pub(super) odd: Tally,
    pub(super) pooled: Tally,
    pub(super) fault_games: u64,
}

/// Tallies the pairs of set `s` over `nbooks` books.
pub(super) fn tallies(pairs: &[PairLine], s: usize, nbooks: usize) -> Tallies {
    let mut books = vec![(Pentanomial::default(), 0); nbooks];
    let (mut even, mut odd) = ((Pentanomial::default(), 0), (Pentanomial::default(), 0));
    let mut fault_games = 0;
    for p in pairs.iter().filter(|p| p.set == s) {
        let drawn = u64::from(p.first == super::store::Outcome::D)
            + u64::from(p.second == super::store::Outcome::D);
        let half = if p.pair % 2 == 0 { &mut even } else { &mut odd };
        for tally in [&mut books[p.book], half] {
            tally.0.add_pair(p.first.into(), p.second.into());
            tally.1 += drawn;
        }
        fault_games += u64::from(p.faults);
    }
    let mut pooled = (Pentanomial::default(), 0);
    for b in &books {
        pooled.0 += b.0;
        pooled.1 += b.1;
    }
    Tallies {
        books,
        even,
        odd,
        pooled,
        fault_games,
    }
}

/// The report of set `s`: its values, objectives and games.
fn set_report(
    config: &Config,
    s: usize,
    values: &[ObjectiveLine],
    pairs: &[PairLine],
) -> SetReport {
    let set = &config.sets[s];
    let t = tallies(pairs, s, config.books.len());
    let games = |(p, draws): &Tally| {
        if config.plays(s) {
            Games::from_pentanomial(p, *draws)
        } else {
            Games::zero()
        }
    };
    let value = |o: usize| {
        let key = config.objectives[o].key();
        values.iter().find(|v| v.set == s && v.objective == key)
    };
    SetReport {
        name: set.name.clone(),
        origin: set.origin.clone(),
        margins: set.setting.to_string(),
        values: (config.region.iter())
            .map(|d| set.setting.values()[d.index])
            .collect(),
        objectives: (0..config.objectives.len())
            .map(|o| value(o).map_or(f64::NAN, |v| v.value))
            .collect(),
        summaries: (0..config.objectives.len())
            .map(|o| value(o).map_or(String::new(), |v| v.summary.clone()))
            .collect(),
        books: t.books.iter().map(games).collect(),
        pooled: games(&t.pooled),
        even: games(&t.even),
        odd: games(&t.odd),
        fault_games: t.fault_games,
    }
}

/// The books as the report names them.
fn book_reports(config: &Config) -> Vec<BookReport> {
    (config.books.iter())
        .map(|b| BookReport {
            path: b.path.clone(),
            positions: b.positions.len(),
            hash: format!("{:016x}", b.hash),
        })
        .collect()
}

/// The objectives as the report names them, with their faults and overshoots summed over the
/// values; their agreement figures are left to [`analyse`].
fn objective_reports(config: &Config, values: &[ObjectiveLine]) -> Vec<ObjectiveReport> {
    (config.objectives.iter())
        .map(|obj| {
            let key = obj.key();
            let mine = || values.iter().filter(|v| v.objective == key);
            ObjectiveReport {
                name: obj.name(),
                key: obj.key(),
                rho: None,
                tau: None,
                line: None,
                slope: None,
                faults: mine().map(|v| v.faults).sum(),
                overshot: mine().map(|v| v.overshot).sum(),
                top_half_rho: None,
                verdict: String::new(),
            }
        })
        .collect()
}

/// Computes the agreement figures of a report from its sets (what the Python reference
/// recomputes): the ceiling, the power, and each objective's rho, tau, slope and rho over the
/// better half.
pub fn analyse(report: &mut Report) {
    let how = report.bootstrap;
    let elo: Vec<f64> = report.sets.iter().map(|s| s.pooled.elo).collect();
    let column =
        |f: &dyn Fn(&SetReport) -> f64| -> Vec<f64> { report.sets.iter().map(f).collect() };
    let book_vs_book = (report.books.len() >= 2)
        .then(|| {
            let a = column(&|s| s.books[0].elo);
            let b = column(&|s| s.books[1].elo);
            rank::bootstrap(&a, &b, how, rank::spearman)
        })
        .flatten();
    let half = rank::bootstrap(
        &column(&|s| s.even.elo),
        &column(&|s| s.odd.elo),
        how,
        rank::spearman,
    );
    let reliability = half.map(|h| ceiling_of(h.value).powi(2));
    report.ceiling = Ceiling {
        book_vs_book,
        half_vs_half: half,
        reliability,
        max_rho: reliability.map(f64::sqrt),
        book_max_rho: book_vs_book.map(|b| ceiling_of(b.value)),
    };
    report.power = Some(power(report.sets.len(), reliability));
    let (ceiling, target) = (report.ceiling.clone(), report.ceiling_target);
    for (o, obj) in report.objectives.iter_mut().enumerate() {
        let x: Vec<f64> = report.sets.iter().map(|s| s.objectives[o]).collect();
        obj.rho = rank::bootstrap(&x, &elo, how, rank::spearman);
        obj.tau = rank::bootstrap(&x, &elo, how, rank::kendall);
        obj.line = rank::least_squares(&x, &elo);
        obj.slope = rank::bootstrap(&x, &elo, how, |a, b| {
            rank::least_squares(a, b).map(|l| l.slope)
        });
        obj.top_half_rho = top_half_rho(&x, &elo, how);
        obj.verdict = verdict(&obj.name, obj.rho.as_ref(), &ceiling, target);
    }
}

/// Why a report file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not readable.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// Not a calibration report (foreign or truncated JSON, another format).
    #[error("{path}: not a calibration report ({FORMAT}): {why}")]
    Format {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
}

/// Reads a report file, checking its format.
///
/// # Errors
/// See [`ReadError`].
pub fn read(path: &Path) -> Result<Report, ReadError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| ReadError::Io {
        path: shown.clone(),
        error,
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| ReadError::Format {
        path: shown.clone(),
        why: e.to_string(),
    })?;
    match value.get("format").and_then(|f| f.as_str()) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(ReadError::Format {
                path: shown,
                why: format!("its format is '{}'", crate::formats::excerpt(other)),
            });
        }
        None => {
            return Err(ReadError::Format {
                path: shown,
                why: "it has no \"format\"".into(),
            });
        }
    }
    serde_json::from_str(&text).map_err(|e| ReadError::Format {
        path: shown,
        why: format!(
            "line {}: {}",
            e.line(),
            crate::formats::json::plain_message(&text, &e)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_games_reliability_steps_from_the_calibrations_own_to_any_number_of_games() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tuned/calibration-toga2-nodes10000.json"
        );
        let mut report = read(Path::new(path)).unwrap();
        // The defaults play no games: the mean is over the other 15 sets.
        let (mean, lo, hi) = report.played().unwrap();
        assert!(mean > 0.0 && lo < 0.0 && hi > 0.0, "{mean} {lo} {hi}");
        let own = report.ceiling.judging().unwrap().powi(2);
        let r = |games| report.reliability_at(games).unwrap();
        // At the calibration's own games, its own reliability; fewer games, less; more, more.
        assert!((r(mean) - own).abs() < 1e-12);
        assert_eq!(r(0.0), 0.0);
        assert!(r(4.0) < r(480.0) && r(480.0) < own && own < r(1e6) && r(1e6) < 1.0);
        // Twice the games: Spearman-Brown's 2r / (1 + r).
        assert!((r(2.0 * mean) - 2.0 * own / (1.0 + own)).abs() < 1e-12);
        // Games with no ceiling, or no set that played: nothing to step from.
        report.ceiling.max_rho = None;
        assert_eq!(report.reliability_at(480.0), None);
        for set in &mut report.sets {
            set.pooled.games = 0;
        }
        assert_eq!(report.played(), None);
    }

    #[test]
    fn spearman_brown_steps_a_reliability_by_the_length_of_the_measure() {
        assert!((spearman_brown(0.5, 2.0) - 2.0 / 3.0).abs() < 1e-12);
        assert!((spearman_brown(0.5, 0.5) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(spearman_brown(0.5, 1.0), 0.5);
        assert_eq!(spearman_brown(0.0, 10.0), 0.0);
        // Its factor solved back: the length that steps r to the goal.
        for (r, goal) in [(0.5, 2.0 / 3.0), (0.3, 0.8), (0.9, 0.5)] {
            let k = spearman_brown_factor(r, goal).unwrap();
            assert!(
                (spearman_brown(r, k) - goal).abs() < 1e-12,
                "{r} {goal} {k}"
            );
        }
        assert_eq!(spearman_brown_factor(0.0, 0.5), None);
        assert_eq!(spearman_brown_factor(0.5, 1.0), None);
        assert_eq!(spearman_brown(0.7, 0.0), 0.0);
        assert!((spearman_brown(1.0, 0.1) - 1.0).abs() < 1e-12);
        // A negative split-half rho is no reliability.
        assert_eq!(spearman_brown(-0.3, 2.0), 0.0);
    }

    /// A set's games as the report writes them, for few pairs: every end that is defined holds
    /// the Elo, an end at a 0% or 100% score is null (never 0), and an interval is null rather
    /// than of zero width when every pair scored the same.
    #[test]
    fn games_intervals_hold_the_elo_and_are_null_where_not_defined() {
        let games =
            |counts: [u64; 5]| Games::from_pentanomial(&Pentanomial::from_counts(counts), 0);
        // One pair lost twice, one won twice: the pairs differ widely, nothing bounds the Elo.
        let split = games([1, 0, 0, 0, 1]);
        assert_eq!((split.elo, split.elo_interval), (0.0, [None, None]));
        let [lo, hi] = split.nelo_interval.map(Option::unwrap);
        assert!(
            (hi - 340.48).abs() < 0.01 && (lo + hi).abs() < 1e-9,
            "{lo} {hi}"
        );
        // A drawn (or won-and-lost) pair and a won pair: +190.8, the upper end past 100%.
        let high = games([0, 0, 1, 0, 1]);
        assert!((high.elo - 190.85).abs() < 0.01);
        let [lo, hi] = high.elo_interval;
        assert!(lo.is_some_and(|l| (l + 67.89).abs() < 0.01), "{lo:?}");
        assert_eq!(hi, None);
        // Every pair alike: no spread, so no interval (and no nElo), not [x, x].
        for alike in [
            [0, 0, 2, 0, 0],
            [0, 0, 0, 3, 0],
            [0, 0, 0, 0, 2],
            [2, 0, 0, 0, 0],
        ] {
            let g = games(alike);
            assert_eq!(g.elo_interval, [None, None], "{alike:?}");
            assert_eq!((g.nelo, g.nelo_interval), (None, [None, None]), "{alike:?}");
        }
        // Nulls go to JSON and come back; a report written before (numbers) still reads.
        let json = serde_json::to_value(&high).unwrap();
        assert_eq!(json["elo_interval"][1], serde_json::Value::Null);
        assert_eq!(serde_json::from_value::<Games>(json).unwrap(), high);
        let old = serde_json::json!({"games": 4, "pentanomial": [0, 1, 0, 1, 0], "elo": 0.0,
            "elo_interval": [-150.5, 150.5], "nelo": 0.0, "nelo_interval": [-200.0, 200.0],
            "draw_rate": 0.5});
        let old: Games = serde_json::from_value(old).unwrap();
        assert_eq!(old.elo_interval, [Some(-150.5), Some(150.5)]);
        // The defaults against themselves: exactly 0, by definition.
        assert_eq!(Games::zero().elo_interval, [Some(0.0); 2]);
    }

    #[test]
    fn the_power_is_the_smallest_rho_fisher_z_tells_from_zero() {
        // tanh(2.801585 * sqrt(1.06 / (n - 3))), e.g. 12 sets: tanh(0.961876) = 0.744932.
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-5);
        assert!(close(min_rho(12), 0.744_932), "{:?}", min_rho(12));
        assert!(close(min_rho(16), 0.664_032), "{:?}", min_rho(16));
        assert!(close(min_rho(20), 0.604_096), "{:?}", min_rho(20));
        assert_eq!(min_rho(3), None);
        // Through games of reliability 0.81 the true correlation must be 1/0.9 as large.
        let p = power(20, Some(0.81));
        assert!(close(p.min_true_rho, 0.604_096 / 0.9), "{p:?}");
        assert_eq!(
            power(12, Some(0.5)).min_true_rho,
            None,
            "0.745/0.707 is above 1"
        );
        assert_eq!(power(12, Some(0.0)).min_true_rho, None);
        assert_eq!(power(12, None).min_true_rho, None);
    }

    #[test]
    fn the_top_half_rho_ranks_the_better_half_of_the_sets_by_elo() {
        // The objective ranks the better half (Elo 10, 20, 30) in order, and the worse half
        // against it: over every set the two cancel, over the better half rho is 1.
        let elo = [-30.0, -20.0, -10.0, 10.0, 20.0, 30.0];
        let x = [3.0, 2.0, 1.0, 4.0, 5.0, 6.0];
        let how = Bootstrap::default();
        let top = top_half_rho(&x, &elo, how).unwrap();
        assert!((top.value - 1.0).abs() < 1e-12, "{top}");
        let all = rank::spearman(&x, &elo).unwrap();
        assert!(all < 0.9, "{all}");
        // Reversed over the better half: -1. Seven sets: the four best.
        let x = [0.0, 0.0, 0.0, 6.0, 5.0, 4.0];
        assert!((top_half_rho(&x, &elo, how).unwrap().value + 1.0).abs() < 1e-12);
        let elo7 = [5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0];
        let x7 = [9.0, 9.0, 9.0, 9.0, 1.0, 2.0, 3.0];
        assert!((top_half_rho(&x7, &elo7, how).unwrap().value - 0.4).abs() < 1e-12);
    }

    #[test]
    fn the_games_a_target_needs_follow_the_spearman_brown_prophecy() {
        // Ceiling 0.56 after 14,000 games: reliability 0.3136; 0.8 needs 0.64, k = 3.89.
        let projected = games_for_target(Some(0.56), 0.8, 14_000).unwrap();
        assert!((54_400..=54_600).contains(&projected), "{projected}");
        // Stepped back down by the prophecy, those games give the target.
        let k = projected as f64 / 14_000.0;
        let r = 0.56 * 0.56;
        let reached = spearman_brown(r, k).sqrt();
        assert!((reached - 0.8).abs() < 0.001, "{reached}");
        assert_eq!(games_for_target(Some(0.82), 0.8, 9_000), None, "reached");
        assert_eq!(games_for_target(Some(0.0), 0.8, 9_000), None, "no rate");
        assert_eq!(games_for_target(None, 0.8, 9_000), None);
    }

    #[test]
    fn games_short_of_their_target_could_not_judge() {
        let r = Interval {
            value: 0.8,
            lower: 0.4,
            upper: 0.95,
        };
        let ceiling = |max_rho, book_max_rho| Ceiling {
            book_vs_book: None,
            half_vs_half: None,
            reliability: None,
            max_rho,
            book_max_rho,
        };
        let judged = verdict(
            "suite",
            Some(&r),
            &ceiling(Some(0.85), Some(0.9)),
            Some(0.8),
        );
        assert!(
            judged.ends_with("ranks margin sets as games do"),
            "{judged}"
        );
        // The ceiling quoted is the one judged by, the lesser of the two splits.
        let by_books = verdict(
            "suite",
            Some(&r),
            &ceiling(Some(0.93), Some(0.82)),
            Some(0.8),
        );
        assert!(by_books.contains("(games' ceiling 0.82)"), "{by_books}");
        let short = verdict("suite", Some(&r), &ceiling(Some(0.71), None), Some(0.8));
        assert!(short.contains("could not judge"), "{short}");
        assert!(short.contains("0.71") && short.contains("0.80"), "{short}");
        assert!(short.contains("--max-games"), "the fix: {short}");
        // Even against odd pairs agree, the books do not: the games could not judge.
        let books = verdict(
            "suite",
            Some(&r),
            &ceiling(Some(0.86), Some(0.42)),
            Some(0.8),
        );
        assert!(
            books.contains("could not judge") && books.contains("0.42 by books"),
            "{books}"
        );
        // A report made before targets is judged as it was.
        let old = verdict("suite", Some(&r), &ceiling(Some(0.71), None), None);
        assert!(old.ends_with("ranks margin sets as games do"), "{old}");
    }
}

/// Every game of a calibration ended with an engine fault: no Elo measures the margins.
#[derive(Debug, thiserror::Error)]
#[error(
    "every one of the {games} games ended with an engine fault: no Elo here measures the margins, so no report is written; fix the engine or its engine file, then remove {state} (it keeps these games, and a rerun would read them back)"
)]
pub struct AllFaulted {
    /// Games played.
    pub games: u64,
    /// The state directory that keeps them.
    pub state: String,
}

/// Whether the games measured the margins and not engine faults (as `match` judges it): an
/// error when every game ended by a fault, a warning when more than a tenth did.
///
/// # Errors
/// [`AllFaulted`].
pub fn games_measured_margins(report: &Report, state: &Path) -> Result<Option<String>, AllFaulted> {
    let played = || report.sets.iter().filter(|s| s.pooled.games > 0);
    let games: u64 = played().map(|s| s.pooled.games).sum();
    let faults: u64 = played().map(|s| s.fault_games).sum();
    if games > 0 && faults >= games {
        return Err(AllFaulted {
            games,
            state: state.display().to_string(),
        });
    }
    Ok((10 * faults > games).then(|| format!(
        "{faults} of the {games} games ({:.0}%) were lost to engine faults (fault_games in the report): the Elo measures the faults as much as the margins; fix the engine before reading it",
        100.0 * faults as f64 / games as f64
    )))
}
