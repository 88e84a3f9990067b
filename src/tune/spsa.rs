//! SPSA (simultaneous perturbation stochastic approximation) as an argmin [`Solver`], with the
//! gain schedule of OpenBench (the same one fishtest uses).
//!
//! # The algorithm
//!
//! The solver walks a continuous point θ ∈ ℝⁿ (`Vec<f64>`, one coordinate per tuned parameter,
//! in parameter units). Iteration `k` (0-based, argmin's iteration counter) does:
//!
//! 1. draw Δ ∈ {−1, +1}ⁿ, each component ±1 with probability ½;
//! 2. form the probes θ± = θ ± c_k ⊙ Δ, clip each component to `[lower, upper]`, and round it to
//!    an integer by *stochastic rounding*: `⌊x + u⌋` with `u ~ U[0, 1)`, i.e. round up with
//!    probability equal to the fractional part, so an integer-valued problem sees the continuous
//!    θ on average. As in OpenBench, the same `u_i` rounds both probes' component `i`, so the two
//!    probes stay `2·c_k,i` apart up to one unit. The rounded value is clipped once more to the
//!    integers inside the bounds, `[⌈lower⌉, ⌊upper⌋]` (a no-op for integer bounds, where this is
//!    exactly OpenBench's round-then-clip);
//! 3. ask the problem for `result = compare(θ+, θ−)`, "θ+ beats θ− by this much" (OpenBench's
//!    `W − L` of the θ+ engine against the θ− engine; positive means θ+ is better);
//! 4. update `θ_i ← clip(θ_i + r_k,i · c_k,i · result · Δ_i, lower_i, upper_i)`, which is
//!    OpenBench's and fishtest's step (`a_k / c_k · result · Δ`, a gradient *ascent* on "strength",
//!    i.e. descent on cost). θ stays continuous (`f64`); only the probes are integers.
//!
//! The result of a run is the final iterate θ_N, not the luckiest evaluation.
//!
//! # The schedule
//!
//! Inputs: per parameter `c_end` (the final perturbation, parameter units) and `r_end` (the final
//! learning rate); globally the number of iterations `N`, `α` (default 0.602), `γ` (default 0.101)
//! and the stability constant `A` (default `0.1·N`, OpenBench's `A_ratio · N`). OpenBench fixes,
//! when a run is created:
//!
//! ```text
//! c_0   = c_end · N^γ                (OpenBench's c_value)
//! a_end = r_end · c_end²
//! a_0   = a_end · (A + N)^α           (OpenBench's a_value)
//! ```
//!
//! and at iteration `k` (0-based; OpenBench's 1-based `iteration = 1 + games / (2·pairs)` is `j =
//! k + 1` here, one comparison per iteration):
//!
//! ```text
//! c_k = max(c_0 / j^γ, c_floor)       c_floor = 0.5, OpenBench's floor for integer parameters
//! a_k = a_0 / (A + j)^α
//! r_k = a_k / c_k²
//! ```
//!
//! so at the last iteration (`k = N − 1`, `j = N`) `c_k = c_end` and `r_k = r_end` (when
//! `c_end ≥ c_floor`), and at the first `c_0 = c_end · N^γ` (since `1^γ = 1`). The step of
//! iteration `k` moves θ_i by `r_k,i · c_k,i · |result| = a_k,i / c_k,i · |result|`.
//!
//! # Interfaces
//!
//! The problem is any [`SpsaProblem`]; [`ByCost`] adapts an argmin [`CostFunction`] (lower cost
//! is better). The solver is called through argmin's [`Problem`] wrapper, so comparisons are
//! counted under the key `"compare_count"` (visible in the state's function counts when the
//! state was configured with `.counting(true)`).
//!
//! The state is [`SpsaState`] (`IterState<Vec<f64>, (), (), (), (), f64>`): `param` is θ after
//! the iteration. Its `cost` is *not* a cost of θ (SPSA never evaluates θ itself): it is set to
//! `−(iterations completed)` (0 after `init`), which strictly decreases, so argmin's best-so-far
//! bookkeeping always adopts the newest iterate and `best_param` equals `param`. Consequently a
//! finite `target_cost` is meaningless for this solver and must not be configured; `init`
//! replaces the unset one (−∞) by `f64::MIN`, which is the same "never reached" but finite, so
//! that every state saved after an iteration holds only finite floats (argmin's initial `±∞`
//! costs are shifted out by then) and JSON can carry it (serde_json writes non-finite floats as
//! `null`, which does not read back; exact round trips also need serde_json's `float_roundtrip`
//! feature). The compare
//! result of each iteration is in the returned [`KV`] under `"result"`, with `"k"`, and per
//! parameter `i` the keys `"c_k[i]"`, `"a_k[i]"` and `"r_k[i]"` (the gains used).
//!
//! The run ends after `N` iterations (`TerminationReason::MaxItersReached`), or earlier if the
//! state's `max_iters` is smaller. The solver (RNG included) and the state are
//! `Serialize + Deserialize`, so argmin's checkpointing restores a run exactly: same seed, same
//! problem, same start ⇒ bit-identical iterates, straight or resumed. Each iteration draws from
//! the solver's ChaCha8 generator, in this order: the n flips (`bool`s), then the n rounding
//! uniforms (`f64`s in `[0, 1)`).
//!
//! # Checkpoint and resume
//!
//! Give the `Executor` a checkpoint (`.checkpointing(c)`, any `argmin::core::checkpointing::
//! Checkpoint<Spsa, SpsaState>`). On `run` argmin first loads the checkpoint if one exists and
//! then replaces *both* the solver and the state with it (the solver passed to
//! `Executor::new` and the configured start are ignored), and skips `init` because the state's
//! iteration is not 0. A checkpoint saved after iteration `k` resumes with iteration `k`. The
//! state's `max_iters` is part of the checkpoint, so stop a run by interrupting it (an error, a
//! crash) rather than with a smaller `max_iters`, which the resumed run would inherit; the
//! solver's own limit `N` ends the run. Function counts restart from 0 after a resume (argmin
//! keeps them in the `Problem`, not in the checkpoint).

use argmin::core::{
    ArgminError, CostFunction, Error, IterState, KV, KvValue, Problem, Solver, State,
    TerminationReason, TerminationStatus,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The argmin state SPSA runs on: `param` is the current θ (parameter units), `cost` is
/// `−(iterations completed)` (see the module documentation).
pub type SpsaState = IterState<Vec<f64>, (), (), (), (), f64>;

/// Default decay exponent of the learning rate, `α` (Spall's 0.602).
pub const DEFAULT_ALPHA: f64 = 0.602;
/// Default decay exponent of the perturbation, `γ` (Spall's 0.101).
pub const DEFAULT_GAMMA: f64 = 0.101;
/// Default stability constant as a fraction of the iterations: `A = 0.1 · N`.
pub const DEFAULT_A_RATIO: f64 = 0.1;
/// Default lower limit of the perturbation `c_k` (OpenBench's 0.5 for integer parameters), in
/// parameter units.
pub const DEFAULT_C_FLOOR: f64 = 0.5;

/// The key under which [`Spsa`] counts comparisons in argmin's function counts.
pub const COMPARE_COUNT: &str = "compare_count";

/// A problem SPSA can tune: compares two parameter vectors.
pub trait SpsaProblem {
    /// How much `plus` beats `minus`: positive when `plus` is better, negative when `minus` is,
    /// about zero when they are equal. OpenBench's unit is `wins − losses` of `plus` against
    /// `minus` over the games of one iteration; the step SPSA takes is proportional to it, so the
    /// unit must match the `r_end` chosen. Both slices have the tuned parameters' length and hold
    /// integer values within the bounds. Must be finite; an error aborts the run.
    ///
    /// # Errors
    /// Whatever the evaluation reports; the solver passes it on.
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error>;
}

impl<T: SpsaProblem + ?Sized> SpsaProblem for &T {
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        (**self).compare(plus, minus)
    }
}

/// Adapts a cost function (lower is better) into an [`SpsaProblem`]:
/// `compare(plus, minus) = gain · (cost(minus) − cost(plus))`.
///
/// `gain` converts cost units into the units of `W − L` that the `r_end` values assume (e.g. if
/// one unit of cost is worth about 2 game points per iteration, `gain = 2`). Each comparison costs
/// two evaluations of the cost function, `plus` first, then `minus`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ByCost<C> {
    /// The cost function; lower is better.
    pub cost: C,
    /// Factor from cost difference to compare result (see the type's documentation).
    pub gain: f64,
}

impl<C> ByCost<C> {
    /// Wraps `cost` with the factor `gain`.
    pub fn new(cost: C, gain: f64) -> Self {
        ByCost { cost, gain }
    }
}

impl<C> SpsaProblem for ByCost<C>
where
    C: CostFunction<Param = Vec<f64>, Output = f64>,
{
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        let cost_plus = self.cost.cost(&plus.to_vec())?;
        let cost_minus = self.cost.cost(&minus.to_vec())?;
        Ok(self.gain * (cost_minus - cost_plus))
    }
}

/// The settings of one tuned parameter.
///
/// Invariants (checked by [`Spsa::new`]): the bounds are finite with `lower ≤ upper` and at least
/// one integer between them; `c_end > 0` and `r_end ≥ 0`, both finite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaParam {
    /// Smallest value θ and the probes may take (parameter units).
    pub lower: f64,
    /// Largest value θ and the probes may take (parameter units).
    pub upper: f64,
    /// Perturbation at the last iteration, `c_end` (parameter units).
    pub c_end: f64,
    /// Learning rate at the last iteration, `r_end` (`θ` moves by `r · c · result`).
    pub r_end: f64,
}

impl SpsaParam {
    /// A parameter with bounds `[lower, upper]`, final perturbation `c_end` and final learning
    /// rate `r_end`.
    pub fn new(lower: f64, upper: f64, c_end: f64, r_end: f64) -> Self {
        SpsaParam {
            lower,
            upper,
            c_end,
            r_end,
        }
    }

    fn validate(&self, index: usize) -> Result<(), Error> {
        let finite = self.lower.is_finite() && self.upper.is_finite();
        if !finite || self.lower > self.upper || self.lower.ceil() > self.upper.floor() {
            return Err(invalid(format!(
                "SPSA parameter {index}: bounds [{}, {}] must be finite, ordered and contain an integer",
                self.lower, self.upper
            )));
        }
        if !(self.c_end.is_finite() && self.c_end > 0.0) {
            return Err(invalid(format!(
                "SPSA parameter {index}: c_end = {} must be finite and > 0",
                self.c_end
            )));
        }
        if !(self.r_end.is_finite() && self.r_end >= 0.0) {
            return Err(invalid(format!(
                "SPSA parameter {index}: r_end = {} must be finite and >= 0",
                self.r_end
            )));
        }
        Ok(())
    }
}

/// The gains of one parameter at one iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// Perturbation `c_k` (parameter units): probes are `θ ± c_k`.
    pub c: f64,
    /// Classic SPSA gain `a_k = r_k · c_k²`.
    pub a: f64,
    /// Learning rate `r_k = a_k / c_k²`: θ moves by `r_k · c_k · result`.
    pub r: f64,
}

/// SPSA with OpenBench's schedule, as an argmin [`Solver`] over [`SpsaState`]; see the module
/// documentation for the algorithm and the formulas.
///
/// The start point is the state's `param` (set with `Executor::configure(|s| s.param(start))`),
/// of the same length as the parameter list; it is clipped to the bounds by `init`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spsa {
    params: Vec<SpsaParam>,
    iterations: u64,
    alpha: f64,
    gamma: f64,
    stability: f64,
    c_floor: f64,
    seed: u64,
    rng: ChaCha8Rng,
}

fn invalid(text: String) -> Error {
    ArgminError::InvalidParameter { text }.into()
}

/// Stochastic rounding of `x` with the uniform draw `u ∈ [0, 1)`: `⌊x + u⌋`, which is `⌈x⌉` with
/// probability `frac(x)` and `⌊x⌋` otherwise, so its mean is `x`.
fn stochastic_round(x: f64, u: f64) -> f64 {
    (x + u).floor()
}

impl Spsa {
    /// SPSA over `params` for `iterations` comparisons (`N`), drawing its randomness from a
    /// ChaCha8 generator seeded with `seed`. `α`, `γ`, `A = 0.1·N` and `c_floor = 0.5` take their
    /// defaults; change them with the `with_*` methods.
    ///
    /// # Errors
    /// `InvalidParameter` when `params` is empty, `iterations` is 0, or a parameter breaks the
    /// invariants of [`SpsaParam`].
    pub fn new(params: Vec<SpsaParam>, iterations: u64, seed: u64) -> Result<Self, Error> {
        if params.is_empty() {
            return Err(invalid("SPSA needs at least one parameter".into()));
        }
        if iterations == 0 {
            return Err(invalid("SPSA needs at least one iteration".into()));
        }
        for (index, param) in params.iter().enumerate() {
            param.validate(index)?;
        }
        Ok(Spsa {
            params,
            iterations,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
            stability: DEFAULT_A_RATIO * iterations as f64,
            c_floor: DEFAULT_C_FLOOR,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
        })
    }

    /// Sets the learning-rate decay exponent `α` (default 0.602).
    ///
    /// # Errors
    /// `InvalidParameter` unless `alpha` is finite and ≥ 0.
    pub fn with_alpha(mut self, alpha: f64) -> Result<Self, Error> {
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(invalid(format!(
                "SPSA alpha = {alpha} must be finite and >= 0"
            )));
        }
        self.alpha = alpha;
        Ok(self)
    }

    /// Sets the perturbation decay exponent `γ` (default 0.101).
    ///
    /// # Errors
    /// `InvalidParameter` unless `gamma` is finite and ≥ 0.
    pub fn with_gamma(mut self, gamma: f64) -> Result<Self, Error> {
        if !(gamma.is_finite() && gamma >= 0.0) {
            return Err(invalid(format!(
                "SPSA gamma = {gamma} must be finite and >= 0"
            )));
        }
        self.gamma = gamma;
        Ok(self)
    }

    /// Sets the stability constant `A` directly, in iterations (default `0.1 · N`).
    ///
    /// # Errors
    /// `InvalidParameter` unless `a` is finite and ≥ 0.
    pub fn with_stability(mut self, a: f64) -> Result<Self, Error> {
        if !(a.is_finite() && a >= 0.0) {
            return Err(invalid(format!("SPSA A = {a} must be finite and >= 0")));
        }
        self.stability = a;
        Ok(self)
    }

    /// Sets the stability constant as a fraction of the iterations, `A = ratio · N` (OpenBench's
    /// `A_ratio`; default 0.1).
    ///
    /// # Errors
    /// `InvalidParameter` unless `ratio` is finite and ≥ 0.
    pub fn with_a_ratio(self, ratio: f64) -> Result<Self, Error> {
        if !(ratio.is_finite() && ratio >= 0.0) {
            return Err(invalid(format!(
                "SPSA A ratio = {ratio} must be finite and >= 0"
            )));
        }
        let a = ratio * self.iterations as f64;
        self.with_stability(a)
    }

    /// Sets the floor of the perturbation `c_k` (parameter units; default 0.5, OpenBench's floor
    /// for integer parameters; 0 disables it).
    ///
    /// # Errors
    /// `InvalidParameter` unless `floor` is finite and ≥ 0.
    pub fn with_c_floor(mut self, floor: f64) -> Result<Self, Error> {
        if !(floor.is_finite() && floor >= 0.0) {
            return Err(invalid(format!(
                "SPSA c floor = {floor} must be finite and >= 0"
            )));
        }
        self.c_floor = floor;
        Ok(self)
    }

    /// The tuned parameters' settings, in order.
    pub fn params(&self) -> &[SpsaParam] {
        &self.params
    }

    /// The number of iterations `N` (one comparison each).
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// The seed the generator started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The learning-rate decay exponent `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The perturbation decay exponent `γ`.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// The stability constant `A` (iterations).
    pub fn stability(&self) -> f64 {
        self.stability
    }

    /// The floor of `c_k` (parameter units).
    pub fn c_floor(&self) -> f64 {
        self.c_floor
    }

    /// The gains of every parameter at iteration `k` (0-based): `c_k`, `a_k`, `r_k` as in the
    /// module documentation. Defined for any `k`, meaningful for `k < N`.
    pub fn gains(&self, k: u64) -> Vec<Gains> {
        let n = self.iterations as f64;
        let j = k as f64 + 1.0;
        let c_compression = j.powf(self.gamma);
        let r_compression = (self.stability + j).powf(self.alpha);
        let c_growth = n.powf(self.gamma);
        let a_growth = (self.stability + n).powf(self.alpha);
        self.params
            .iter()
            .map(|p| {
                let c_0 = p.c_end * c_growth;
                let a_0 = p.r_end * p.c_end * p.c_end * a_growth;
                let c = (c_0 / c_compression).max(self.c_floor);
                let a = a_0 / r_compression;
                Gains {
                    c,
                    a,
                    r: a / (c * c),
                }
            })
            .collect()
    }

    /// Checks a parameter vector's length and finiteness.
    fn check_theta(&self, theta: &[f64]) -> Result<(), Error> {
        if theta.len() != self.params.len() {
            return Err(invalid(format!(
                "SPSA: the parameter vector has {} components, the settings {}",
                theta.len(),
                self.params.len()
            )));
        }
        if theta.iter().any(|x| !x.is_finite()) {
            return Err(invalid(format!(
                "SPSA: the parameter vector {theta:?} is not finite"
            )));
        }
        Ok(())
    }
}

impl<O: SpsaProblem> Solver<O, SpsaState> for Spsa {
    fn name(&self) -> &str {
        "SPSA"
    }

    fn init(
        &mut self,
        _problem: &mut Problem<O>,
        state: SpsaState,
    ) -> Result<(SpsaState, Option<KV>), Error> {
        let start = state.get_param().ok_or_else(|| -> Error {
            ArgminError::NotInitialized {
                text: "SPSA needs a start point: configure the state's param".into(),
            }
            .into()
        })?;
        self.check_theta(start)?;
        let theta: Vec<f64> = start
            .iter()
            .zip(&self.params)
            .map(|(&x, p)| x.clamp(p.lower, p.upper))
            .collect();
        let mut kv = KV::new();
        kv.insert("iterations", KvValue::Uint(self.iterations));
        kv.insert("A", KvValue::Float(self.stability));
        kv.insert("alpha", KvValue::Float(self.alpha));
        kv.insert("gamma", KvValue::Float(self.gamma));
        kv.insert("seed", KvValue::Uint(self.seed));
        let mut state = state.param(theta).cost(0.0);
        if state.get_target_cost() == f64::NEG_INFINITY {
            // "No target", kept finite so that text formats (JSON) can hold the state.
            state = state.target_cost(f64::MIN);
        }
        Ok((state, Some(kv)))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        state: SpsaState,
    ) -> Result<(SpsaState, Option<KV>), Error> {
        let k = state.get_iter();
        let theta = state
            .get_param()
            .ok_or_else(|| -> Error {
                ArgminError::NotInitialized {
                    text: "SPSA: the state has no parameter vector".into(),
                }
                .into()
            })?
            .clone();
        self.check_theta(&theta)?;
        let gains = self.gains(k);

        // Randomness, in this order: all flips, then one rounding draw per component.
        let flips: Vec<f64> = (0..theta.len())
            .map(|_| if self.rng.random::<bool>() { 1.0 } else { -1.0 })
            .collect();
        let draws: Vec<f64> = (0..theta.len()).map(|_| self.rng.random::<f64>()).collect();

        let probe = |x: f64, p: &SpsaParam, u: f64| {
            stochastic_round(x.clamp(p.lower, p.upper), u).clamp(p.lower.ceil(), p.upper.floor())
        };
        let mut plus = Vec::with_capacity(theta.len());
        let mut minus = Vec::with_capacity(theta.len());
        for i in 0..theta.len() {
            let shift = gains[i].c * flips[i];
            plus.push(probe(theta[i] + shift, &self.params[i], draws[i]));
            minus.push(probe(theta[i] - shift, &self.params[i], draws[i]));
        }

        let result = problem.problem(COMPARE_COUNT, |p| p.compare(&plus, &minus))?;
        if !result.is_finite() {
            return Err(ArgminError::ConditionViolated {
                text: format!("SPSA: compare returned {result} at iteration {k}"),
            }
            .into());
        }

        let next: Vec<f64> = theta
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let step = gains[i].r * gains[i].c * result * flips[i];
                (x + step).clamp(self.params[i].lower, self.params[i].upper)
            })
            .collect();

        let mut kv = KV::new();
        kv.insert("k", KvValue::Uint(k));
        kv.insert("result", KvValue::Float(result));
        for (i, g) in gains.iter().enumerate() {
            kv.insert(format!("c_k[{i}]"), KvValue::Float(g.c));
            kv.insert(format!("a_k[{i}]"), KvValue::Float(g.a));
            kv.insert(format!("r_k[{i}]"), KvValue::Float(g.r));
        }
        Ok((state.param(next).cost(-(k as f64 + 1.0)), Some(kv)))
    }

    fn terminate(&mut self, state: &SpsaState) -> TerminationStatus {
        if state.get_iter() >= self.iterations {
            TerminationStatus::Terminated(TerminationReason::MaxItersReached)
        } else {
            TerminationStatus::NotTerminated
        }
    }
}

#[cfg(test)]
mod tests;
