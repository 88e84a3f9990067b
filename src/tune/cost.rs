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

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::space::Space;
use super::spsa::SpsaProblem;
use crate::engine::Setting;
use crate::formats::Fnv;

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
    /// The mini-batch it was scored on (`--batch`: a hash naming the sampled training
    /// positions); absent when scored on every training position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
    /// Positions an external engine faulted on (scored unsolved); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub faults: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A mini-batch of training positions: indices into the scorer's positions, and a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Hex hash naming the batch (part of the cache key).
    pub id: String,
    /// Positions, ascending.
    pub indices: Vec<usize>,
}

impl Batch {
    /// `size` distinct positions out of `len`, drawn with a generator seeded by `seed` and the
    /// values of both probes, so one SPSA comparison scores its two probes on the same batch
    /// and a resumed run draws the same batches again.
    pub fn sample(size: usize, len: usize, seed: u64, plus: &[i32], minus: &[i32]) -> Batch {
        let mut h = Fnv::new();
        h.write(&seed.to_le_bytes());
        for v in plus.iter().chain(minus) {
            h.write(&v.to_le_bytes());
        }
        let hash = h.finish();
        let mut rng = ChaCha8Rng::seed_from_u64(hash);
        let mut indices = rand::seq::index::sample(&mut rng, len, size.min(len)).into_vec();
        indices.sort_unstable();
        Batch {
            id: format!("{hash:016x}"),
            indices,
        }
    }
}

/// The suite objective over a search space, with its evaluation cache and log.
pub struct SuiteCost {
    scorer: SuiteScorer,
    space: Space,
    state: Mutex<CostState>,
}

struct CostState {
    cache: HashMap<(Vec<i32>, Option<String>), Evaluation>,
    /// The requests the log holds, in order (what a resumed run asks for again first).
    logged: Vec<(Vec<i32>, Option<String>)>,
    /// How many of them this run has asked for again, in order.
    replayed: usize,
    log: Option<File>,
    count: u64,
    tap: Option<Tap>,
    searched: usize,
    search_seconds: f64,
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
            logged: Vec::new(),
            replayed: 0,
            log: None,
            count: 0,
            tap: None,
            searched: 0,
            search_seconds: 0.0,
        };
        if let Some(path) = log {
            for e in super::checkpoint::read_log::<Evaluation>(path)? {
                state.count = state.count.max(e.index + 1);
                state.logged.push((e.values.clone(), e.batch.clone()));
                state
                    .cache
                    .entry((e.values.clone(), e.batch.clone()))
                    .or_insert(e);
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

    /// How many evaluations this process searched (not from the cache or the log) and the
    /// wall-clock seconds they took: the tuner's speed.
    pub fn search_time(&self) -> (usize, f64) {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        (state.searched, state.search_seconds)
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
    /// The positions could not be searched (the executor failed or was interrupted), or the
    /// log cannot be written.
    pub fn evaluate(&self, values: &[i32]) -> Result<Evaluation, Error> {
        self.evaluate_on(values, None)
    }

    /// Evaluates integer values of the tuned parameters on a mini-batch of the training
    /// positions, or on all of them without one (from the cache when it has them).
    ///
    /// # Errors
    /// As [`SuiteCost::evaluate`].
    pub fn evaluate_on(&self, values: &[i32], batch: Option<&Batch>) -> Result<Evaluation, Error> {
        Ok(self.evaluate_many(&[(values, batch)])?.remove(0))
    }

    /// Evaluates several candidates, searching those not in the cache as one batch (one job
    /// array on a cluster). The evaluations are numbered, logged and cached in the order
    /// given, exactly as one call per candidate would: a candidate given twice is searched
    /// once, and its second evaluation is a cache hit.
    ///
    /// # Errors
    /// As [`SuiteCost::evaluate`].
    pub fn evaluate_many(
        &self,
        requests: &[(&[i32], Option<&Batch>)],
    ) -> Result<Vec<Evaluation>, Error> {
        let key = |(values, batch): &(&[i32], Option<&Batch>)| {
            (values.to_vec(), batch.map(|b| b.id.clone()))
        };
        // The candidates to search: not cached, each once, in order of first appearance.
        let mut missing: Vec<usize> = Vec::new();
        {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            for (i, r) in requests.iter().enumerate() {
                let k = key(r);
                if !state.cache.contains_key(&k) && !missing.iter().any(|&j| key(&requests[j]) == k)
                {
                    missing.push(i);
                }
            }
        }
        let started = std::time::Instant::now();
        let settings: Vec<Setting> = missing
            .iter()
            .map(|&i| self.space.margins_of(requests[i].0))
            .collect();
        let searches: Vec<(&Setting, Option<&[usize]>)> = missing
            .iter()
            .zip(&settings)
            .map(|(&i, s)| (s, requests[i].1.map(|b| b.indices.as_slice())))
            .collect();
        let objectives = self.scorer.objectives(&searches)?;
        let seconds = started.elapsed().as_secs_f64();
        let mut fresh: HashMap<(Vec<i32>, Option<String>), Evaluation> = missing
            .iter()
            .zip(objectives)
            .map(|(&i, o)| {
                let k = key(&requests[i]);
                let e = Evaluation {
                    index: 0,
                    values: k.0.clone(),
                    objective: o.value,
                    accuracy: o.accuracy,
                    speed: o.speed,
                    node_ratio: o.node_ratio,
                    solved: o.solved,
                    cached: false,
                    batch: k.1.clone(),
                    faults: o.faults,
                };
                (k, e)
            })
            .collect();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.searched += missing.len();
        state.search_seconds += seconds;
        let mut out = Vec::with_capacity(requests.len());
        for r in requests {
            let k = key(r);
            let mut evaluation = match fresh.remove(&k) {
                Some(e) => e,
                None => match state.cache.get(&k) {
                    Some(e) => Evaluation {
                        cached: true,
                        ..e.clone()
                    },
                    None => unreachable!("every candidate is cached or searched"),
                },
            };
            evaluation.index = state.count;
            state.count += 1;
            // A resumed run asks again, in order, for what its log holds: those requests are
            // answered from the log and not logged twice. Once a request differs, all is new.
            let replay = state.logged.get(state.replayed) == Some(&k);
            if replay {
                state.replayed += 1;
            } else {
                state.logged = Vec::new();
            }
            if let Some(log) = state.log.as_mut().filter(|_| !replay) {
                let line = serde_json::to_string(&evaluation)?;
                writeln!(log, "{line}")
                    .and_then(|()| log.flush())
                    .map_err(crate::formats::limit_said)?;
            }
            if let Some(tap) = &state.tap {
                tap.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(evaluation.clone());
            }
            state.cache.entry(k).or_insert_with(|| evaluation.clone());
            out.push(evaluation);
        }
        Ok(out)
    }
}

/// SPSA's problem on the suite objective: `compare(plus, minus) = gain · (objective(plus) −
/// objective(minus))`, both probes scored on every training position or, with a batch size,
/// on the same [`Batch`] of them (a new one each comparison, seeded).
pub struct SuiteProblem {
    /// The cost function, with its cache and log.
    pub cost: SuiteCost,
    gain: f64,
    batch: Option<(usize, u64)>,
}

impl SuiteProblem {
    /// The problem; `batch` is `(size, seed)` for mini-batches.
    pub fn new(cost: SuiteCost, gain: f64, batch: Option<(usize, u64)>) -> SuiteProblem {
        SuiteProblem { cost, gain, batch }
    }
}

impl SpsaProblem for SuiteProblem {
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        let space = self.cost.space();
        let (plus, minus) = (space.values(plus), space.values(minus));
        let batch = self.batch.map(|(size, seed)| {
            let len = self.cost.scorer().suites().positions.len();
            Batch::sample(size, len, seed, &plus, &minus)
        });
        // Both probes in one batch: one job array on a cluster.
        let e = self
            .cost
            .evaluate_many(&[(&plus, batch.as_ref()), (&minus, batch.as_ref())])?;
        Ok(self.gain * (e[0].objective - e[1].objective))
    }
}

impl CostFunction for SuiteCost {
    type Param = Vec<f64>;
    type Output = f64;

    /// The objective of the margin set `x` stands for, negated.
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        Ok(-self.evaluate(&self.space.values(x))?.objective)
    }

    /// Every candidate of a population (particle swarm) searched as one batch.
    fn bulk_cost<P>(&self, params: &[P]) -> Result<Vec<f64>, Error>
    where
        P: std::borrow::Borrow<Self::Param> + argmin::core::SyncAlias,
        Self::Output: argmin::core::SendAlias,
        Self: argmin::core::SyncAlias,
    {
        let values: Vec<Vec<i32>> = params
            .iter()
            .map(|p| self.space.values(p.borrow()))
            .collect();
        let requests: Vec<(&[i32], Option<&Batch>)> =
            values.iter().map(|v| (v.as_slice(), None)).collect();
        Ok(self
            .evaluate_many(&requests)?
            .into_iter()
            .map(|e| -e.objective)
            .collect())
    }
}

/// The log file of a run's evaluations inside its checkpoint directory.
pub fn log_path(checkpoint_dir: &Path) -> PathBuf {
    checkpoint_dir.join("evaluations.jsonl")
}

/// What a run's log of evaluations keeps: the evaluations it holds (every request, the
/// solver's repeats of a candidate included, which the cache answers) and the distinct
/// candidates among them (each searched once). A missing log keeps nothing; a line cut short
/// by a kill is not counted, as it is not reused.
pub fn log_counts(log: &Path) -> (usize, usize) {
    let Ok(file) = File::open(log) else {
        return (0, 0);
    };
    let mut lines = 0;
    let mut distinct = std::collections::HashSet::new();
    for line in BufReader::new(file).lines().map_while(Result::ok) {
        if let Ok(e) = serde_json::from_str::<Evaluation>(&line) {
            lines += 1;
            distinct.insert((e.values, e.batch));
        }
    }
    (lines, distinct.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_seeded_by_the_probes_and_hold_distinct_positions() {
        let a = Batch::sample(20, 100, 7, &[125, 500], &[115, 480]);
        assert_eq!(a, Batch::sample(20, 100, 7, &[125, 500], &[115, 480]));
        assert_eq!(a.indices.len(), 20);
        assert!(a.indices.windows(2).all(|w| w[0] < w[1]));
        assert!(a.indices.iter().all(|&i| i < 100));
        let others = [
            Batch::sample(20, 100, 8, &[125, 500], &[115, 480]),
            Batch::sample(20, 100, 7, &[125, 501], &[115, 480]),
            Batch::sample(20, 100, 7, &[115, 480], &[125, 500]),
        ];
        for other in &others {
            assert_ne!(other.id, a.id);
            assert_ne!(other.indices, a.indices);
        }
        // A batch larger than the positions is all of them.
        assert_eq!(
            Batch::sample(50, 10, 1, &[], &[]).indices,
            (0..10).collect::<Vec<_>>()
        );
    }
}
