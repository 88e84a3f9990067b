//! argmin's Nelder-Mead and particle swarm on the tuning objectives (any argmin
//! `CostFunction<Param = Vec<f64>, Output = f64>`, such as [`super::cost::SuiteCost`], which
//! rounds and clips a point through the [`Space`]), the settings each solver runs with (written
//! into the tuned file's provenance), and an observer that records every iteration.
//!
//! # Nelder-Mead
//! argmin's `NelderMead` with its standard coefficients (reflection 1, expansion 2, contraction
//! 0.5, shrink 0.5). The initial simplex is the start point (the base set's values, clipped) and
//! one vertex per tuned dimension, moved along that dimension by [`SIMPLEX_STEPS`] × `c_end` (the
//! table's SPSA step), upwards, or downwards when upwards leaves the bounds (and to the farther
//! bound when both do). Each iteration evaluates one to `n + 2` candidates (reflection,
//! expansion or contraction, shrink). The run stops after `--iterations` iterations, or earlier
//! when the simplex's costs have a sample standard deviation below machine epsilon (all equal).
//! The result is argmin's `best_param`: the best vertex ever seen.
//!
//! # Particle swarm
//! argmin's `ParticleSwarm` (standard PSO 2011 weights: inertia 1/(2 ln 2), cognitive and social
//! 0.5 + ln 2) over the space's bounds, with [`DEFAULT_PARTICLES`] particles unless told
//! otherwise, placed and driven by a ChaCha8 generator seeded with `--seed`, so a run is
//! reproducible. Initial positions are uniform in the bounds and initial velocities uniform in
//! ±(upper − lower), so the swarm searches the whole box: narrow it with `--bounds`. Every
//! iteration evaluates every particle (the start counts as one more round). The result is
//! argmin's `best_param`: the position of the best particle ever seen.
//!
//! # Checkpoints
//! Both solvers' states are `serde` values with argmin's `serde1` feature (the swarm's generator
//! included), and both run through argmin's `Executor` with the same JSON checkpoint as SPSA
//! ([`super::checkpoint::JsonCheckpoint`]), so `--resume` continues either one bit-identically.
//! JSON cannot hold infinities, which argmin's states keep in fields the solvers never read
//! (`prev_cost`, `prev_best_cost` until two improvements have been seen, `target_cost`): the
//! [`Finite`] wrapper replaces them by `f64::MAX` (and an unset target by `f64::MIN`, the same
//! "never reached" for finite costs) after every step, straight or resumed alike.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use argmin::core::observers::Observe;
use argmin::core::{
    CostFunction, Error, IterState, KV, PopulationState, Problem, Solver, State, TerminationStatus,
};
use argmin::solver::neldermead::NelderMead;
use argmin::solver::particleswarm::{Particle, ParticleSwarm};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::checkpoint::JsonCheckpoint;
use super::cost::Tap;
use super::space::Space;
use super::spsa::Spsa;

/// Nelder-Mead's initial simplex moves each vertex this many `c_end` from the start.
pub const SIMPLEX_STEPS: f64 = 4.0;

/// Particles in the swarm by default.
pub const DEFAULT_PARTICLES: usize = 8;

/// Nelder-Mead's state (the same type as SPSA's: `param` is the best vertex, `cost` its cost).
pub type NelderMeadState = IterState<Vec<f64>, (), (), (), (), f64>;

/// The swarm's state: `individual` is the best particle, `population` the swarm.
pub type PsoState = PopulationState<Particle<Vec<f64>, f64>, f64>;

/// The swarm solver as run here (its generator is serialised into checkpoints).
pub type Pso = ParticleSwarm<Vec<f64>, f64, ChaCha8Rng>;

/// SPSA's settings, as the tuned file records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpsaSettings {
    /// Iterations (two probes each).
    pub iterations: u64,
    /// Seed of the perturbations and rounding.
    pub seed: u64,
    /// Result per iteration = gain × (objective of θ+ − objective of θ−).
    pub gain: f64,
    /// Exponent of the learning-rate schedule.
    pub alpha: f64,
    /// Exponent of the perturbation schedule.
    pub gamma: f64,
    /// Stability constant A.
    pub stability: f64,
    /// Smallest perturbation, parameter units.
    pub c_floor: f64,
    /// Final perturbation per tuned dimension.
    pub c_end: Vec<f64>,
    /// Final learning rate per tuned dimension.
    pub r_end: Vec<f64>,
}

impl SpsaSettings {
    /// The settings [`super::run_spsa`] runs with on `space`.
    ///
    /// # Errors
    /// As [`Spsa::new`].
    pub fn new(space: &Space, iterations: u64, seed: u64, gain: f64) -> Result<Self, Error> {
        let spsa = Spsa::new(super::spsa_params(space), iterations, seed)?;
        Ok(SpsaSettings {
            iterations,
            seed,
            gain,
            alpha: spsa.alpha(),
            gamma: spsa.gamma(),
            stability: spsa.stability(),
            c_floor: spsa.c_floor(),
            c_end: spsa.params().iter().map(|p| p.c_end).collect(),
            r_end: spsa.params().iter().map(|p| p.r_end).collect(),
        })
    }
}

/// Nelder-Mead's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NelderMeadSettings {
    /// Most iterations.
    pub iterations: u64,
    /// The initial simplex: the start, then one vertex per dimension.
    pub simplex: Vec<Vec<f64>>,
    /// How far (in `c_end`) each vertex was moved from the start.
    pub simplex_steps: f64,
    /// Reflection coefficient.
    pub alpha: f64,
    /// Expansion coefficient.
    pub gamma: f64,
    /// Contraction coefficient.
    pub rho: f64,
    /// Shrink coefficient.
    pub sigma: f64,
    /// Stop when the simplex's costs have a smaller sample standard deviation.
    pub sd_tolerance: f64,
}

impl NelderMeadSettings {
    /// argmin's defaults, with the initial simplex of [`initial_simplex`] at [`SIMPLEX_STEPS`].
    pub fn new(space: &Space, iterations: u64) -> Self {
        NelderMeadSettings {
            iterations,
            simplex: initial_simplex(space, SIMPLEX_STEPS),
            simplex_steps: SIMPLEX_STEPS,
            alpha: 1.0,
            gamma: 2.0,
            rho: 0.5,
            sigma: 0.5,
            sd_tolerance: f64::EPSILON,
        }
    }
}

/// The particle swarm's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PsoSettings {
    /// Iterations (every particle is evaluated in each, and once more at the start).
    pub iterations: u64,
    /// Particles.
    pub particles: usize,
    /// Seed of the ChaCha8 generator that places and drives the particles.
    pub seed: u64,
    /// Lower bounds of the box.
    pub lower: Vec<f64>,
    /// Upper bounds of the box.
    pub upper: Vec<f64>,
    /// Inertia weight.
    pub inertia: f64,
    /// Pull towards each particle's best.
    pub cognitive: f64,
    /// Pull towards the swarm's best.
    pub social: f64,
}

impl PsoSettings {
    /// argmin's (SPSO 2011) weights over the space's bounds.
    pub fn new(space: &Space, iterations: u64, particles: usize, seed: u64) -> Self {
        PsoSettings {
            iterations,
            particles,
            seed,
            lower: space.lower(),
            upper: space.upper(),
            inertia: 1.0 / (2.0 * 2.0f64.ln()),
            cognitive: 0.5 + 2.0f64.ln(),
            social: 0.5 + 2.0f64.ln(),
        }
    }
}

/// Nelder-Mead's initial simplex on `space`: the start, and for each dimension the start moved
/// along it by `steps` × `c_end`, upwards if that stays within the bounds, else downwards if
/// that does, else to whichever bound is farther.
pub fn initial_simplex(space: &Space, steps: f64) -> Vec<Vec<f64>> {
    let start = space.start();
    let mut simplex = vec![start.clone()];
    for (i, d) in space.dims.iter().enumerate() {
        let (lower, upper) = (f64::from(d.lower), f64::from(d.upper));
        let step = steps * d.c_end;
        let mut vertex = start.clone();
        vertex[i] = if start[i] + step <= upper {
            start[i] + step
        } else if start[i] - step >= lower {
            start[i] - step
        } else if upper - start[i] >= start[i] - lower {
            upper
        } else {
            lower
        };
        simplex.push(vertex);
    }
    simplex
}

/// Runs argmin's Nelder-Mead on `cost` (see the module documentation), checkpointing into
/// `checkpoint` (path, run identifier) every iteration and resuming from it when it exists.
/// Returns the best point found and the cost function.
///
/// # Errors
/// Bad settings, a checkpoint of another run or a corrupt one, or an evaluation error.
pub fn run_nelder_mead<C>(
    cost: C,
    settings: &NelderMeadSettings,
    checkpoint: Option<(&Path, &str)>,
    observer: impl Observe<NelderMeadState> + 'static,
) -> Result<(Vec<f64>, C), Error>
where
    C: CostFunction<Param = Vec<f64>, Output = f64>,
{
    let solver = NelderMead::new(settings.simplex.clone())
        .with_alpha(settings.alpha)?
        .with_gamma(settings.gamma)?
        .with_rho(settings.rho)?
        .with_sigma(settings.sigma)?
        .with_sd_tolerance(settings.sd_tolerance)?;
    let (state, cost) = super::execute(
        cost,
        Finite(solver),
        |state| state.max_iters(settings.iterations).target_cost(f64::MIN),
        checkpoint.map(|(path, run)| JsonCheckpoint::new(path, run)),
        observer,
    )?;
    let best = state
        .get_best_param()
        .cloned()
        .ok_or_else(|| Error::msg("Nelder-Mead ended without a best point"))?;
    Ok((best, cost))
}

/// Runs argmin's particle swarm on `cost` (see the module documentation), checkpointing like
/// [`run_nelder_mead`]. Returns the best point found and the cost function.
///
/// # Errors
/// Bad settings (no particle, bounds of another length), a checkpoint of another run or a
/// corrupt one, or an evaluation error.
pub fn run_pso<C>(
    cost: C,
    settings: &PsoSettings,
    checkpoint: Option<(&Path, &str)>,
    observer: impl Observe<PsoState> + 'static,
) -> Result<(Vec<f64>, C), Error>
where
    C: CostFunction<Param = Vec<f64>, Output = f64>,
{
    if settings.particles == 0 {
        return Err(Error::msg(
            "particle swarm: at least one particle is needed",
        ));
    }
    if settings.lower.is_empty() || settings.lower.len() != settings.upper.len() {
        return Err(Error::msg("particle swarm: bounds of different lengths"));
    }
    let solver: Pso = ParticleSwarm::new(
        (settings.lower.clone(), settings.upper.clone()),
        settings.particles,
    )
    .with_rng_generator(ChaCha8Rng::seed_from_u64(settings.seed))
    .with_inertia_factor(settings.inertia)?
    .with_cognitive_factor(settings.cognitive)?
    .with_social_factor(settings.social)?;
    let (state, cost) = super::execute(
        cost,
        Finite(solver),
        |state| state.max_iters(settings.iterations).target_cost(f64::MIN),
        checkpoint.map(|(path, run)| JsonCheckpoint::new(path, run)),
        observer,
    )?;
    let best = state
        .get_best_param()
        .map(|p| p.position.clone())
        .ok_or_else(|| Error::msg("particle swarm ended without a best particle"))?;
    Ok((best, cost))
}

/// A solver whose states keep only finite floats, so that JSON checkpoints hold them (see the
/// module documentation). Serialised as the solver itself.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Finite<S>(pub S);

/// States whose unused infinite fields can be made finite.
pub trait MakeFinite {
    /// Replaces infinite `prev_cost` and `prev_best_cost` by `f64::MAX` (`f64::MIN` when
    /// negative) and an unset target (−∞) by `f64::MIN`.
    fn make_finite(&mut self);
}

fn finite(x: &mut f64) {
    if x.is_infinite() {
        *x = if *x > 0.0 { f64::MAX } else { f64::MIN };
    }
}

impl<P, G, J, H, R> MakeFinite for IterState<P, G, J, H, R, f64> {
    fn make_finite(&mut self) {
        finite(&mut self.prev_cost);
        finite(&mut self.prev_best_cost);
        finite(&mut self.target_cost);
    }
}

impl<P> MakeFinite for PopulationState<P, f64> {
    fn make_finite(&mut self) {
        finite(&mut self.prev_cost);
        finite(&mut self.prev_best_cost);
        finite(&mut self.target_cost);
    }
}

impl<O, I, S> Solver<O, I> for Finite<S>
where
    I: State + MakeFinite,
    S: Solver<O, I>,
{
    fn name(&self) -> &str {
        self.0.name()
    }

    fn init(&mut self, problem: &mut Problem<O>, state: I) -> Result<(I, Option<KV>), Error> {
        let (mut state, kv) = self.0.init(problem, state)?;
        state.make_finite();
        Ok((state, kv))
    }

    fn next_iter(&mut self, problem: &mut Problem<O>, state: I) -> Result<(I, Option<KV>), Error> {
        let (mut state, kv) = self.0.next_iter(problem, state)?;
        state.make_finite();
        Ok((state, kv))
    }

    fn terminate(&mut self, state: &I) -> TerminationStatus {
        self.0.terminate(state)
    }
}

/// One iteration of a tuning run, as the tuned file records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    /// 1-based; 0 is the start (after the solver's initialisation).
    pub iteration: u64,
    /// The solver's point after the iteration: SPSA's θ, Nelder-Mead's best vertex, the
    /// swarm's best particle.
    pub theta: Vec<f64>,
    /// The integer margins θ stands for.
    pub values: Vec<i32>,
    /// The objective of `values` where the solver evaluated it (Nelder-Mead, swarm); SPSA never
    /// evaluates θ itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<f64>,
    /// SPSA's result of the iteration (gain × objective difference of its probes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<f64>,
    /// The objectives of the candidates evaluated during the iteration, in order (cache hits
    /// included; empty when the cost function has no tap).
    pub evaluated: Vec<f64>,
}

/// What a [`Recorder`] calls with each new record.
pub type OnRecord = Box<dyn FnMut(&IterationRecord) + Send>;

/// The iterations recorded so far, shared between a [`Recorder`] and whoever reads them.
pub type Iterations = Arc<Mutex<Vec<IterationRecord>>>;

/// An argmin observer that records every iteration (for SPSA, Nelder-Mead and the swarm) into
/// a shared list and, optionally, a JSON-lines log that survives an interrupted run (a resumed
/// run does not observe the iterations before its checkpoint; the log has them). A record for
/// an iteration replaces any recorded for the same or a later one (an iteration done again
/// after a resume).
pub struct Recorder {
    space: Space,
    cost_is_objective: bool,
    records: Iterations,
    log: Option<File>,
    tap: Option<Tap>,
    on_record: Option<OnRecord>,
}

impl Recorder {
    /// A recorder for a run on `space`. `cost_is_objective`: the state's cost is the negated
    /// objective of its point (Nelder-Mead, swarm; not SPSA, whose cost counts iterations).
    /// With `log`, records already there are read first and new ones appended.
    ///
    /// # Errors
    /// The log cannot be read or opened for appending.
    pub fn new(
        space: Space,
        cost_is_objective: bool,
        log: Option<&Path>,
    ) -> Result<Recorder, std::io::Error> {
        let mut records: Vec<IterationRecord> = Vec::new();
        let mut file = None;
        if let Some(path) = log {
            for r in super::checkpoint::read_log::<IterationRecord>(path)? {
                push(&mut records, r);
            }
            file = Some(OpenOptions::new().create(true).append(true).open(path)?);
        }
        Ok(Recorder {
            space,
            cost_is_objective,
            records: Arc::new(Mutex::new(records)),
            log: file,
            tap: None,
            on_record: None,
        })
    }

    /// Takes each iteration's evaluations from `tap` (see [`super::cost::SuiteCost::tap`]).
    pub fn with_tap(mut self, tap: Tap) -> Self {
        self.tap = Some(tap);
        self
    }

    /// Calls `f` with every new record (progress lines).
    pub fn on_record(mut self, f: impl FnMut(&IterationRecord) + Send + 'static) -> Self {
        self.on_record = Some(Box::new(f));
        self
    }

    /// The shared list of records.
    pub fn records(&self) -> Iterations {
        self.records.clone()
    }

    fn record(&mut self, iteration: u64, theta: Vec<f64>, cost: f64, kv: &KV) -> Result<(), Error> {
        let evaluated = match &self.tap {
            Some(tap) => tap
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain(..)
                .map(|e| e.objective)
                .collect(),
            None => Vec::new(),
        };
        let record = IterationRecord {
            iteration,
            values: self.space.values(&theta),
            theta,
            objective: (self.cost_is_objective && cost.is_finite()).then_some(-cost),
            result: kv.get("result").and_then(|v| v.get_float()),
            evaluated,
        };
        if let Some(log) = self.log.as_mut() {
            writeln!(log, "{}", serde_json::to_string(&record)?)
                .and_then(|()| log.flush())
                .map_err(crate::formats::limit_said)?;
        }
        if let Some(f) = self.on_record.as_mut() {
            f(&record);
        }
        push(
            &mut self.records.lock().unwrap_or_else(|e| e.into_inner()),
            record,
        );
        Ok(())
    }
}

fn push(records: &mut Vec<IterationRecord>, record: IterationRecord) {
    records.retain(|r| r.iteration < record.iteration);
    records.push(record);
}

/// The point and cost of a state, for the [`Recorder`].
trait Point {
    fn point(&self) -> (Vec<f64>, f64);
}

impl Point for NelderMeadState {
    fn point(&self) -> (Vec<f64>, f64) {
        (
            self.get_param().cloned().unwrap_or_default(),
            self.get_cost(),
        )
    }
}

impl Point for PsoState {
    fn point(&self) -> (Vec<f64>, f64) {
        let theta = self
            .individual
            .as_ref()
            .map(|p| p.position.clone())
            .unwrap_or_default();
        (theta, self.get_cost())
    }
}

impl<I: Point + State> Observe<I> for Recorder {
    fn observe_init(&mut self, _name: &str, state: &I, kv: &KV) -> Result<(), Error> {
        let (theta, cost) = state.point();
        self.record(0, theta, cost, kv)
    }

    fn observe_iter(&mut self, state: &I, kv: &KV) -> Result<(), Error> {
        let (theta, cost) = state.point();
        self.record(state.get_iter() + 1, theta, cost, kv)
    }
}

/// Two observers as one (argmin's runners here take one).
pub struct Both<A, B>(pub A, pub B);

impl<I, A: Observe<I>, B: Observe<I>> Observe<I> for Both<A, B> {
    fn observe_init(&mut self, name: &str, state: &I, kv: &KV) -> Result<(), Error> {
        self.0.observe_init(name, state, kv)?;
        self.1.observe_init(name, state, kv)
    }

    fn observe_iter(&mut self, state: &I, kv: &KV) -> Result<(), Error> {
        self.0.observe_iter(state, kv)?;
        self.1.observe_iter(state, kv)
    }

    fn observe_final(&mut self, state: &I) -> Result<(), Error> {
        self.0.observe_final(state)?;
        self.1.observe_final(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Margins;

    /// A rugged bowl: integer rounding, minimum at (130, 420).
    struct Bowl;

    impl CostFunction for Bowl {
        type Param = Vec<f64>;
        type Output = f64;

        fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
            let (a, b) = (x[0].round(), x[1].round());
            Ok(((a - 130.0) / 10.0).powi(2) + ((b - 420.0) / 25.0).powi(2))
        }
    }

    fn space() -> Space {
        Space::new(
            Margins::default(),
            &["frontier", "prefrontier"],
            &["frontier=0..600", "prefrontier=0..1000"],
        )
        .unwrap()
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        crate::testing::scratch("solvers", name)
    }

    #[test]
    fn initial_simplex_moves_each_dimension_within_bounds() {
        let s = space();
        assert_eq!(
            initial_simplex(&s, 4.0),
            vec![vec![125.0, 500.0], vec![165.0, 500.0], vec![125.0, 600.0]]
        );
        // At the top of the range: downwards; neither fits: the farther bound.
        let s = Space::new(Margins::default(), &["frontier"], &["frontier=100..130"]).unwrap();
        assert_eq!(initial_simplex(&s, 4.0)[1], vec![100.0]);
        let s = Space::new(Margins::default(), &["frontier"], &["frontier=80..125"]).unwrap();
        assert_eq!(initial_simplex(&s, 4.0)[1], vec![85.0]);
    }

    #[test]
    fn nelder_mead_and_pso_find_the_bowl_and_record_iterations() {
        let s = space();
        let recorder = Recorder::new(s.clone(), true, None).unwrap();
        let records = recorder.records();
        let (best, _) =
            run_nelder_mead(Bowl, &NelderMeadSettings::new(&s, 200), None, recorder).unwrap();
        assert!(Bowl.cost(&best).unwrap() <= 1.0, "{best:?}");
        let records = records.lock().unwrap();
        assert_eq!(records[0].iteration, 0);
        assert!(records.len() > 10);
        assert!(
            records
                .windows(2)
                .all(|w| w[1].iteration == w[0].iteration + 1)
        );

        let settings = PsoSettings::new(&s, 60, 12, 7);
        let recorder = Recorder::new(s.clone(), true, None).unwrap();
        let records = recorder.records();
        let (best, _) = run_pso(Bowl, &settings, None, recorder).unwrap();
        assert!(Bowl.cost(&best).unwrap() <= 1.0, "{best:?}");
        assert_eq!(records.lock().unwrap().len(), 61);
        // Objectives are recorded, and never get worse for the swarm's best.
        let objectives: Vec<f64> = records
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.objective.unwrap())
            .collect();
        assert!(objectives.windows(2).all(|w| w[1] >= w[0]));
    }

    #[test]
    fn pso_is_reproducible_and_resumes_bit_identically() {
        let s = space();
        let settings = PsoSettings::new(&s, 12, 6, 3);
        let straight = run_pso(
            Bowl,
            &settings,
            None,
            Recorder::new(s.clone(), true, None).unwrap(),
        )
        .unwrap()
        .0;
        let again = run_pso(
            Bowl,
            &settings,
            None,
            Recorder::new(s.clone(), true, None).unwrap(),
        )
        .unwrap()
        .0;
        assert_eq!(straight, again);
        let other = PsoSettings {
            seed: 4,
            ..settings.clone()
        };
        let different = run_pso(
            Bowl,
            &other,
            None,
            Recorder::new(s.clone(), true, None).unwrap(),
        )
        .unwrap()
        .0;
        assert_ne!(different, straight);

        // Stop after 5 iterations (a failing cost), then resume from the JSON checkpoint.
        let dir = scratch("pso");
        let path = dir.join("pso.json");
        let log = dir.join("iterations.jsonl");
        let failing = Failing {
            calls: Default::default(),
            at: 6 * 6,
        };
        let recorder = Recorder::new(s.clone(), true, Some(&log)).unwrap();
        assert!(run_pso(failing, &settings, Some((&path, "r")), recorder).is_err());
        let recorder = Recorder::new(s.clone(), true, Some(&log)).unwrap();
        let records = recorder.records();
        let resumed = run_pso(Bowl, &settings, Some((&path, "r")), recorder)
            .unwrap()
            .0;
        assert_eq!(
            resumed.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            straight.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        let iterations: Vec<u64> = records
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.iteration)
            .collect();
        assert_eq!(iterations, (0..=12).collect::<Vec<u64>>());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn nelder_mead_resumes_bit_identically() {
        let s = space();
        let settings = NelderMeadSettings::new(&s, 30);
        let straight = run_nelder_mead(
            Bowl,
            &settings,
            None,
            Recorder::new(s.clone(), true, None).unwrap(),
        )
        .unwrap()
        .0;
        let dir = scratch("nm");
        let path = dir.join("nm.json");
        let failing = Failing {
            calls: Default::default(),
            at: 12,
        };
        assert!(
            run_nelder_mead(
                failing,
                &settings,
                Some((&path, "r")),
                Recorder::new(s.clone(), true, None).unwrap()
            )
            .is_err()
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("cost\":null"), "{text}");
        let resumed = run_nelder_mead(
            Bowl,
            &settings,
            Some((&path, "r")),
            Recorder::new(s.clone(), true, None).unwrap(),
        )
        .unwrap()
        .0;
        assert_eq!(resumed, straight);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The bowl, failing at the `at`-th call (0-based).
    struct Failing {
        calls: std::sync::atomic::AtomicUsize,
        at: usize,
    }

    impl CostFunction for Failing {
        type Param = Vec<f64>;
        type Output = f64;

        fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
            let n = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if n == self.at {
                return Err(Error::msg("interrupted"));
            }
            Bowl.cost(x)
        }
    }
}
