//! The suite objective as an argmin `CostFunction`: a point of the search space becomes a
//! margin set, [`SuiteScorer`] scores it, and the cost is the objective negated (argmin
//! minimises). Scoring is deterministic, so evaluations are cached by their integer margin
//! values, and every evaluation is logged as one JSON line, which also makes the cache survive
//! an interrupted run.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use argmin::core::{CostFunction, Error};
use serde::{Deserialize, Serialize};

use super::space::Space;
use crate::params::Margins;
use crate::scoring::suite::SuiteScorer;

/// One evaluated candidate: what the optimizer saw, and its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Sequence number in the log (0-based), counting cache hits.
    pub index: u64,
    /// The tuned parameters' values, in the space's order.
    pub values: Vec<i32>,
    /// The objective (higher is better).
    pub objective: f64,
    /// Its accuracy part, percent.
    pub accuracy: f64,
    /// Its speed part, doublings against the reference.
    pub speed: f64,
    /// Total nodes over the reference's.
    pub node_ratio: f64,
    /// Positions solved.
    pub solved: usize,
    /// Whether it came from the cache rather than a search.
    pub cached: bool,
}

/// The suite objective over a search space, with its evaluation cache and log.
pub struct SuiteCost {
    scorer: SuiteScorer,
    space: Space,
    state: Mutex<CostState>,
}

struct CostState {
    cache: HashMap<Vec<i32>, Evaluation>,
    log: Option<File>,
    count: u64,
    tap: Option<Tap>,
}

/// A shared list that receives a copy of every evaluation (cache hits included) from the
/// moment it is taken with [`SuiteCost::tap`]; whoever holds it drains it (an observer that
/// records what each iteration evaluated).
pub type Tap = Arc<Mutex<Vec<Evaluation>>>;

impl SuiteCost {
    /// A cost over `space` scored by `scorer`. With `log`, every evaluation is appended to it
    /// as a JSON line, and the lines already there (from an interrupted run of the same
    /// configuration) seed the cache.
    ///
    /// # Errors
    /// The log cannot be read or opened for appending.
    pub fn new(
        scorer: SuiteScorer,
        space: Space,
        log: Option<&Path>,
    ) -> Result<SuiteCost, std::io::Error> {
        let mut state = CostState {
            cache: HashMap::new(),
            log: None,
            count: 0,
            tap: None,
        };
        if let Some(path) = log {
            if path.exists() {
                for line in BufReader::new(File::open(path)?).lines() {
                    // A line cut short by a kill is simply not reused.
                    if let Ok(e) = serde_json::from_str::<Evaluation>(&line?) {
                        state.count = state.count.max(e.index + 1);
                        state.cache.entry(e.values.clone()).or_insert(e);
                    }
                }
            }
            state.log = Some(OpenOptions::new().create(true).append(true).open(path)?);
        }
        Ok(SuiteCost {
            scorer,
            space,
            state: Mutex::new(state),
        })
    }

    /// The scorer.
    pub fn scorer(&self) -> &SuiteScorer {
        &self.scorer
    }

    /// The search space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// Every distinct candidate evaluated so far (including those read from the log), in
    /// the order they were first evaluated.
    pub fn evaluations(&self) -> Vec<Evaluation> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<Evaluation> = state.cache.values().cloned().collect();
        all.sort_by_key(|e| e.index);
        all
    }

    /// The tap: from now on every evaluation is also pushed onto the returned list (the same
    /// list on every call).
    pub fn tap(&self) -> Tap {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.tap.get_or_insert_with(Tap::default).clone()
    }

    /// Evaluates integer values of the tuned parameters (from the cache when it has them).
    ///
    /// # Errors
    /// The log cannot be written.
    pub fn evaluate(&self, values: &[i32]) -> Result<Evaluation, std::io::Error> {
        let cached = {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.cache.get(values).cloned()
        };
        let mut evaluation = match cached {
            Some(e) => Evaluation { cached: true, ..e },
            None => {
                let margins: Margins = self.space.margins_of(values);
                let o = self.scorer.score(&margins).objective;
                Evaluation {
                    index: 0,
                    values: values.to_vec(),
                    objective: o.value,
                    accuracy: o.accuracy,
                    speed: o.speed,
                    node_ratio: o.node_ratio,
                    solved: o.solved,
                    cached: false,
                }
            }
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        evaluation.index = state.count;
        state.count += 1;
        if let Some(log) = state.log.as_mut() {
            let line = serde_json::to_string(&evaluation).map_err(std::io::Error::other)?;
            writeln!(log, "{line}")?;
            log.flush()?;
        }
        if let Some(tap) = &state.tap {
            tap.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(evaluation.clone());
        }
        state
            .cache
            .entry(evaluation.values.clone())
            .or_insert_with(|| evaluation.clone());
        Ok(evaluation)
    }
}

impl CostFunction for SuiteCost {
    type Param = Vec<f64>;
    type Output = f64;

    /// The objective of the margin set `x` stands for, negated.
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        Ok(-self.evaluate(&self.space.values(x))?.objective)
    }
}

/// The log file of a run's evaluations inside its checkpoint directory.
pub fn log_path(checkpoint_dir: &Path) -> PathBuf {
    checkpoint_dir.join("evaluations.jsonl")
}
