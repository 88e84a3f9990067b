//! Tests of [`super`] (the `spsa` module), beside it in their own file.

use super::*;
use argmin::core::Executor;
use argmin::core::checkpointing::{Checkpoint, CheckpointingFrequency};
use serde::de::DeserializeOwned;
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// splitmix64: a small, well-mixed hash step for deterministic test noise.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Approximately standard normal noise (Irwin-Hall of 4 uniforms, rescaled to unit variance),
/// a deterministic function of `key`.
fn noise(key: u64) -> f64 {
    let mut h = key;
    let mut sum = 0.0;
    for _ in 0..4 {
        h = mix(h);
        sum += (h >> 11) as f64 / (1u64 << 53) as f64;
    }
    (sum - 2.0) * 3f64.sqrt()
}

/// Separable quadratic `Σ ((x_i − x*_i) / scale_i)²` plus `sigma` times noise. The noise is a
/// hash of the probe and a salt, and (when `per_call`) of a call counter too; without the
/// counter the cost is a pure function of the probe, so a resumed run sees the same costs.
struct NoisyQuadratic {
    optimum: Vec<f64>,
    scale: Vec<f64>,
    sigma: f64,
    salt: u64,
    per_call: bool,
    calls: Cell<u64>,
}

impl NoisyQuadratic {
    fn new(optimum: Vec<f64>, scale: Vec<f64>, sigma: f64, salt: u64, per_call: bool) -> Self {
        NoisyQuadratic {
            optimum,
            scale,
            sigma,
            salt,
            per_call,
            calls: Cell::new(0),
        }
    }
}

impl CostFunction for NoisyQuadratic {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        let mut key = self.salt;
        if self.per_call {
            key = mix(key ^ self.calls.get());
            self.calls.set(self.calls.get() + 1);
        }
        for v in x {
            key = mix(key ^ v.to_bits());
        }
        let exact: f64 = x
            .iter()
            .zip(&self.optimum)
            .zip(&self.scale)
            .map(|((v, o), s)| ((v - o) / s).powi(2))
            .sum();
        Ok(exact + self.sigma * noise(key))
    }
}

/// The four seed margins' shape: table-like bounds, c_end = the table's step, r_end = 0.002.
fn margin_params() -> Vec<SpsaParam> {
    vec![
        SpsaParam::new(0.0, 1500.0, 10.0, 0.002),
        SpsaParam::new(0.0, 3000.0, 25.0, 0.002),
        SpsaParam::new(0.0, 4000.0, 40.0, 0.002),
        SpsaParam::new(0.0, 1500.0, 10.0, 0.002),
    ]
}
const OPTIMUM: [f64; 4] = [120.0, 480.0, 900.0, 210.0];
const FAR_START: [f64; 4] = [700.0, 2200.0, 3000.0, 900.0];

fn quadratic(salt: u64, per_call: bool) -> ByCost<NoisyQuadratic> {
    let scale = margin_params().iter().map(|p| p.c_end).collect();
    ByCost::new(
        NoisyQuadratic::new(OPTIMUM.to_vec(), scale, 3.0, salt, per_call),
        1.0,
    )
}

fn run<O: SpsaProblem>(problem: O, solver: Spsa, start: &[f64]) -> SpsaState {
    let start = start.to_vec();
    Executor::new(problem, solver)
        .configure(|s| s.param(start))
        .run()
        .expect("SPSA run")
        .state
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

// 1. Convergence on a noisy 4-d quadratic, through the Executor as a user would run it.
#[test]
fn converges_on_noisy_quadratic() {
    let n = 2000;
    for seed in 0..4 {
        let solver = Spsa::new(margin_params(), n, seed).unwrap();
        let state = run(quadratic(seed, true), solver, &FAR_START);
        assert_eq!(state.get_iter(), n);
        assert_eq!(
            state.get_termination_reason(),
            Some(&TerminationReason::MaxItersReached)
        );
        let theta = state.get_param().unwrap();
        // best_param follows the iterate (cost is −iterations completed).
        assert_eq!(state.get_best_param(), Some(theta));
        // Tolerance: within one c_end of the optimum in every coordinate (started 50 to 70
        // c_end away).
        for (i, p) in margin_params().iter().enumerate() {
            let err = (theta[i] - OPTIMUM[i]).abs();
            assert!(
                err <= p.c_end,
                "seed {seed}: theta[{i}] = {} vs optimum {} (|err| = {err} > c_end = {})",
                theta[i],
                OPTIMUM[i],
                p.c_end
            );
        }
    }
}

/// Records every probe pair it is asked about; answers with a fixed value.
struct Recorder {
    answer: f64,
    probes: std::cell::RefCell<Vec<(Vec<f64>, Vec<f64>)>>,
}

impl Recorder {
    fn new(answer: f64) -> Self {
        Recorder {
            answer,
            probes: Default::default(),
        }
    }
}

impl SpsaProblem for Recorder {
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        self.probes
            .borrow_mut()
            .push((plus.to_vec(), minus.to_vec()));
        Ok(self.answer)
    }
}

/// Drives the solver by hand (init, then `iters` iterations), returning θ after each.
fn step<O: SpsaProblem>(solver: &mut Spsa, problem: O, start: &[f64], iters: u64) -> Vec<Vec<f64>> {
    let mut problem = Problem::new(problem);
    let (mut state, _) = solver
        .init(&mut problem, SpsaState::new().param(start.to_vec()))
        .unwrap();
    let mut thetas = vec![state.get_param().unwrap().clone()];
    for _ in 0..iters {
        let (next, kv) = solver.next_iter(&mut problem, state).unwrap();
        assert!(kv.is_some());
        state = next;
        state.increment_iter();
        thetas.push(state.get_param().unwrap().clone());
    }
    thetas
}

// 2a. Stochastic rounding of x.3 has mean x.3.
#[test]
fn stochastic_rounding_is_unbiased() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let draws = 100_000;
    for x in [5.3, -2.3, 1000.3, 7.0] {
        let mut sum = 0.0;
        for _ in 0..draws {
            let r = stochastic_round(x, rng.random::<f64>());
            assert_eq!(r, r.round(), "not an integer");
            assert!(r == x.floor() || r == x.floor() + 1.0);
            sum += r;
        }
        // Bernoulli(0.3) mean over 1e5 draws: sd 0.00145; tolerance 0.01 (~7 sd).
        let mean = sum / draws as f64;
        assert!((mean - x).abs() < 0.01, "mean of rounding {x} = {mean}");
    }
}

// 2b. Through the solver: probes are integers within bounds, and with a flat problem (θ never
// moves) their midpoint averages to the continuous θ.
#[test]
fn probes_are_integers_and_unbiased() {
    let params = vec![
        SpsaParam::new(0.0, 100.0, 2.5, 0.002),
        SpsaParam::new(0.0, 100.0, 1.0, 0.002),
        SpsaParam::new(-3.0, 4.0, 1.0, 0.002),
    ];
    let theta = [10.3, 57.7, 3.6];
    let iters = 50_000;
    let mut solver = Spsa::new(params.clone(), iters, 11).unwrap();
    let recorder = Recorder::new(0.0);
    let thetas = step(&mut solver, &recorder, &theta, iters);
    assert!(thetas.iter().all(|t| bits(t) == bits(&theta)));
    let probes = recorder.probes.borrow();
    assert_eq!(probes.len(), iters as usize);
    let mut mid = [0.0; 2];
    for (plus, minus) in probes.iter() {
        for (i, p) in params.iter().enumerate() {
            for v in [plus[i], minus[i]] {
                assert_eq!(v, v.round(), "probe {v} not an integer");
                assert!(v >= p.lower && v <= p.upper, "probe {v} out of bounds");
            }
        }
        for i in 0..2 {
            mid[i] += (plus[i] + minus[i]) / 2.0;
        }
    }
    // Coordinates 0 and 1 are never clipped (c_0 ≤ 2.5 · 50000^0.101 < 7.5): the midpoint's
    // rounding error has sd ≤ 0.5 per draw, so ≤ 0.0023 over 5e4 draws; tolerance 0.02.
    for i in 0..2 {
        let mean = mid[i] / iters as f64;
        assert!(
            (mean - theta[i]).abs() < 0.02,
            "mean midpoint {mean} vs {}",
            theta[i]
        );
    }
    // Coordinate 2 (3.6 in [-3, 4], c ≥ 1) is clipped at the top: both probes reach 4 often.
    assert!(probes.iter().any(|(p, m)| p[2] == 4.0 || m[2] == 4.0));
}

/// Answers ±huge, alternating.
struct Wild {
    magnitude: f64,
    calls: Cell<u64>,
}

impl SpsaProblem for Wild {
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        assert!(plus.iter().chain(minus).all(|v| *v == v.round()));
        let n = self.calls.get();
        self.calls.set(n + 1);
        Ok(if mix(n) & 1 == 0 {
            self.magnitude
        } else {
            -self.magnitude
        })
    }
}

// 3. θ never leaves the bounds, even when steps are many times the range (or overflow).
#[test]
fn theta_stays_within_bounds() {
    let params = vec![
        SpsaParam::new(0.0, 10.0, 2.0, 0.002),
        SpsaParam::new(-5.0, 5.0, 1.0, 0.5),
        SpsaParam::new(100.0, 100.0, 1.0, 0.002),
    ];
    for magnitude in [1e12, f64::MAX] {
        let mut solver = Spsa::new(params.clone(), 500, 3).unwrap();
        let wild = Wild {
            magnitude,
            calls: Cell::new(0),
        };
        let thetas = step(&mut solver, &wild, &[50.0, -50.0, 0.0], 500);
        // The start is clipped into the bounds by init.
        assert_eq!(thetas[0], vec![10.0, -5.0, 100.0]);
        let mut hit = [false; 4];
        for t in &thetas {
            for (i, p) in params.iter().enumerate() {
                assert!(
                    t[i].is_finite() && t[i] >= p.lower && t[i] <= p.upper,
                    "{t:?}"
                );
            }
            hit[0] |= t[0] == 0.0;
            hit[1] |= t[0] == 10.0;
            hit[2] |= t[1] == -5.0;
            hit[3] |= t[1] == 5.0;
        }
        assert!(
            hit.iter().all(|&h| h),
            "huge steps should reach both bounds"
        );
    }
}

/// Returns a non-finite result.
struct Broken;

impl SpsaProblem for Broken {
    fn compare(&self, _: &[f64], _: &[f64]) -> Result<f64, Error> {
        Ok(f64::NAN)
    }
}

#[test]
fn non_finite_result_is_an_error() {
    let solver = Spsa::new(margin_params(), 10, 0).unwrap();
    let res = Executor::new(Broken, solver)
        .configure(|s| s.param(FAR_START.to_vec()))
        .run();
    assert!(res.is_err());
}

// 4. Same seed ⇒ bit-identical iterates; another seed ⇒ different ones.
#[test]
fn deterministic_given_seed() {
    let n = 300;
    let a = run(
        quadratic(5, true),
        Spsa::new(margin_params(), n, 42).unwrap(),
        &FAR_START,
    );
    let b = run(
        quadratic(5, true),
        Spsa::new(margin_params(), n, 42).unwrap(),
        &FAR_START,
    );
    let c = run(
        quadratic(5, true),
        Spsa::new(margin_params(), n, 43).unwrap(),
        &FAR_START,
    );
    let (a, b, c) = (
        a.get_param().unwrap(),
        b.get_param().unwrap(),
        c.get_param().unwrap(),
    );
    assert_eq!(bits(a), bits(b));
    assert_ne!(bits(a), bits(c));
}

// max_iters of the state cuts the run short; the iterates are the straight run's prefix.
#[test]
fn respects_max_iters() {
    let solver = Spsa::new(margin_params(), 1000, 9).unwrap();
    let state = Executor::new(quadratic(1, false), solver.clone())
        .configure(|s| s.param(FAR_START.to_vec()).max_iters(10))
        .run()
        .unwrap()
        .state;
    assert_eq!(state.get_iter(), 10);
    let mut by_hand = solver;
    let thetas = step(&mut by_hand, quadratic(1, false), &FAR_START, 10);
    assert_eq!(bits(state.get_param().unwrap()), bits(&thetas[10]));
}

#[test]
fn by_cost_sign_and_gain() {
    let scale = vec![1.0; 2];
    let cost = NoisyQuadratic::new(vec![0.0, 0.0], scale, 0.0, 0, false);
    let problem = ByCost::new(cost, 2.0);
    // plus is nearer the minimum: positive, 2 · (cost(minus) − cost(plus)) = 2 · (8 − 2).
    assert_eq!(problem.compare(&[1.0, 1.0], &[2.0, 2.0]).unwrap(), 12.0);
    assert_eq!(problem.compare(&[2.0, 2.0], &[1.0, 1.0]).unwrap(), -12.0);
}

#[test]
fn rejects_bad_settings() {
    let ok = SpsaParam::new(0.0, 10.0, 1.0, 0.002);
    assert!(Spsa::new(vec![], 10, 0).is_err());
    assert!(Spsa::new(vec![ok], 0, 0).is_err());
    for bad in [
        SpsaParam::new(10.0, 0.0, 1.0, 0.002),
        SpsaParam::new(0.2, 0.8, 1.0, 0.002),
        SpsaParam::new(0.0, f64::INFINITY, 1.0, 0.002),
        SpsaParam::new(0.0, 10.0, 0.0, 0.002),
        SpsaParam::new(0.0, 10.0, 1.0, -1.0),
        SpsaParam::new(0.0, 10.0, f64::NAN, 0.002),
    ] {
        assert!(Spsa::new(vec![ok, bad], 10, 0).is_err(), "{bad:?}");
    }
    let s = Spsa::new(vec![ok], 10, 0).unwrap();
    assert!(s.clone().with_alpha(-1.0).is_err());
    assert!(s.clone().with_gamma(f64::NAN).is_err());
    assert!(s.clone().with_stability(-1.0).is_err());
    assert!(s.clone().with_c_floor(-0.5).is_err());
    // Wrong length or missing start: the run fails instead of guessing.
    let res = Executor::new(Recorder::new(0.0), s.clone())
        .configure(|st| st.param(vec![1.0, 2.0]))
        .run();
    assert!(res.is_err());
    assert!(Executor::new(Recorder::new(0.0), s).run().is_err());
}

// 6. The schedule: c and r reach c_end and r_end at the last iteration; c starts at
// c_end · N^γ and a at r_end · c_end² · ((A + N) / (A + 1))^α.
#[test]
fn schedule_matches_openbench() {
    let n = 5000u64;
    let params = margin_params();
    let spsa = Spsa::new(params.clone(), n, 0).unwrap();
    assert_eq!(spsa.stability(), 500.0);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
    let last = spsa.gains(n - 1);
    let first = spsa.gains(0);
    for (i, p) in params.iter().enumerate() {
        assert!(close(last[i].c, p.c_end), "{} vs {}", last[i].c, p.c_end);
        assert!(close(last[i].r, p.r_end), "{} vs {}", last[i].r, p.r_end);
        assert!(close(last[i].a, p.r_end * p.c_end * p.c_end));
        assert!(close(first[i].c, p.c_end * (n as f64).powf(DEFAULT_GAMMA)));
        let a_0 = p.r_end * p.c_end * p.c_end * ((500.0 + 5000.0) / 501.0f64).powf(0.602);
        assert!(close(first[i].a, a_0), "{} vs {a_0}", first[i].a);
        assert!(close(first[i].r, first[i].a / first[i].c.powi(2)));
    }
    // Monotone: c and a shrink every iteration.
    let mid = spsa.gains(n / 2);
    assert!(first[0].c > mid[0].c && mid[0].c > last[0].c);
    assert!(first[0].a > mid[0].a && mid[0].a > last[0].a);
    // The floor: a c_end under 0.5 stops at 0.5, unless the floor is lowered.
    let small = vec![SpsaParam::new(0.0, 10.0, 0.2, 0.002)];
    let floored = Spsa::new(small.clone(), 100, 0).unwrap();
    assert_eq!(floored.gains(99)[0].c, 0.5);
    let free = Spsa::new(small, 100, 0).unwrap().with_c_floor(0.0).unwrap();
    assert!(close(free.gains(99)[0].c, 0.2));
    // Overrides: A = 0 and other exponents.
    let custom = Spsa::new(params.clone(), 100, 0)
        .unwrap()
        .with_alpha(1.0)
        .unwrap()
        .with_gamma(0.2)
        .unwrap()
        .with_a_ratio(0.0)
        .unwrap();
    let g = custom.gains(0);
    assert!(close(g[0].c, 10.0 * 100f64.powf(0.2)));
    assert!(close(g[0].a, 0.002 * 100.0 * 100.0));
    let g = custom.gains(99);
    assert!(close(g[0].c, 10.0) && close(g[0].r, 0.002));
}

/// Fails (with an error) at one iteration: the interruption of a long run.
struct FailAt<P> {
    inner: P,
    at: Option<u64>,
    calls: Cell<u64>,
}

impl<P: SpsaProblem> SpsaProblem for FailAt<P> {
    fn compare(&self, plus: &[f64], minus: &[f64]) -> Result<f64, Error> {
        let n = self.calls.get();
        self.calls.set(n + 1);
        if Some(n) == self.at {
            return Err(ArgminError::ImpossibleError {
                text: format!("interrupted at iteration {n}"),
            }
            .into());
        }
        self.inner.compare(plus, minus)
    }
}

/// A checkpoint file in a binary serde format (see `bin`), saved write-then-rename.
/// argmin's `FileCheckpoint` lives in the `argmin-checkpointing-file` crate, which is not a
/// dependency; this does the same job. JSON would not do: the state holds infinite costs
/// (serialised as `null`, which does not read back) and serde_json's default float parsing
/// is not guaranteed to round-trip every bit.
struct BinFileCheckpoint {
    path: PathBuf,
    frequency: CheckpointingFrequency,
}

impl<S, I> Checkpoint<S, I> for BinFileCheckpoint
where
    S: Serialize + DeserializeOwned,
    I: Serialize + DeserializeOwned,
{
    fn save(&self, solver: &S, state: &I) -> Result<(), Error> {
        let bytes = bin::to_bytes(&(solver, state))?;
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &self.path)?;
        Ok(())
    }

    fn load(&self) -> Result<Option<(S, I)>, Error> {
        if !self.path.exists() {
            return Ok(None);
        }
        Ok(Some(bin::from_bytes(&std::fs::read(&self.path)?)?))
    }

    fn frequency(&self) -> CheckpointingFrequency {
        self.frequency
    }
}

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "marginal-spsa-{name}-{}-{:x}",
            std::process::id(),
            mix(name.len() as u64 ^ std::process::id() as u64)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// 5. Checkpoint/resume: a run interrupted at iteration k and resumed from its checkpoint ends
// bit-identical to the straight run.
#[test]
fn checkpoint_resume_is_bit_identical() {
    let n = 400;
    let k = 137;
    let seed = 2024;
    let failing = |at| FailAt {
        inner: quadratic(77, false),
        at,
        calls: Cell::new(0),
    };
    let straight = run(
        failing(None),
        Spsa::new(margin_params(), n, seed).unwrap(),
        &FAR_START,
    );

    let dir = TempDir::new("resume");
    let file = dir.path().join("spsa.ckpt");
    let checkpoint = || BinFileCheckpoint {
        path: file.clone(),
        frequency: CheckpointingFrequency::Always,
    };

    // First run: stops with an error at iteration k; the last checkpoint is after k
    // iterations.
    let first = Executor::new(
        failing(Some(k)),
        Spsa::new(margin_params(), n, seed).unwrap(),
    )
    .configure(|s| s.param(FAR_START.to_vec()))
    .checkpointing(checkpoint())
    .run();
    assert!(first.is_err());
    let (saved, state): (Spsa, SpsaState) = Checkpoint::<Spsa, SpsaState>::load(&checkpoint())
        .unwrap()
        .unwrap();
    assert_eq!(state.get_iter(), k);
    assert_eq!(saved.iterations(), n);

    // Resume: a solver with another seed and another start, to show both come from the file.
    let resumed = Executor::new(failing(None), Spsa::new(margin_params(), n, 1).unwrap())
        .configure(|s| s.param(vec![1.0, 2.0, 3.0, 4.0]))
        .checkpointing(checkpoint())
        .run()
        .unwrap();
    assert_eq!(resumed.state.get_iter(), n);
    assert_eq!(resumed.solver.seed(), seed);
    assert_eq!(
        bits(resumed.state.get_param().unwrap()),
        bits(straight.get_param().unwrap())
    );
    // And the solver (generator included) round-trips exactly through the format.
    let again: Spsa = bin::from_bytes(&bin::to_bytes(&resumed.solver).unwrap()).unwrap();
    assert_eq!(again, resumed.solver);
}

// After an iteration, solver and state survive JSON (no non-finite float left: the unset
// target cost became f64::MIN in init). Bit-exactness of the floats is asserted only up to
// 1 ulp, since serde_json parses exactly only with its `float_roundtrip` feature.
#[test]
fn state_after_an_iteration_survives_json() {
    let solver = Spsa::new(margin_params(), 100, 5).unwrap();
    let res = Executor::new(quadratic(3, false), solver)
        .configure(|s| s.param(FAR_START.to_vec()).max_iters(3))
        .run()
        .unwrap();
    assert_eq!(res.state.get_target_cost(), f64::MIN);
    let text = serde_json::to_string(&(&res.solver, &res.state)).unwrap();
    let (solver, state): (Spsa, SpsaState) = serde_json::from_str(&text).unwrap();
    let ulp = |a: f64, b: f64| a.to_bits().abs_diff(b.to_bits()) <= 1;
    assert_eq!(state.get_iter(), 3);
    assert_eq!(solver.seed(), 5);
    let (p, q) = (state.get_param().unwrap(), res.state.get_param().unwrap());
    assert!(p.iter().zip(q).all(|(a, b)| ulp(*a, *b)), "{p:?} vs {q:?}");
    assert!(ulp(state.get_best_cost(), res.state.get_best_cost()));
    // The generator resumes where it was.
    let (mut a, mut b) = (solver.rng.clone(), res.solver.rng.clone());
    assert_eq!(a.random::<u64>(), b.random::<u64>());
}

/// A minimal, non-self-describing binary serde format for the test checkpoint: integers and
/// float bits little-endian in 8 bytes (16 for 128-bit), lengths as u64, enum variants by
/// index, structs and tuples as their fields in order.
mod bin {
    use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
    use serde::{Serialize, ser};
    use std::fmt;

    #[derive(Debug)]
    pub struct BinError(String);

    impl fmt::Display for BinError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0)
        }
    }

    impl std::error::Error for BinError {}

    impl ser::Error for BinError {
        fn custom<T: fmt::Display>(msg: T) -> Self {
            BinError(msg.to_string())
        }
    }

    impl de::Error for BinError {
        fn custom<T: fmt::Display>(msg: T) -> Self {
            BinError(msg.to_string())
        }
    }

    type Res<T> = Result<T, BinError>;

    pub fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Res<Vec<u8>> {
        let mut ser = Ser(Vec::new());
        value.serialize(&mut ser)?;
        Ok(ser.0)
    }

    pub fn from_bytes<T: de::DeserializeOwned>(bytes: &[u8]) -> Res<T> {
        let mut de = De(bytes);
        let value = T::deserialize(&mut de)?;
        if !de.0.is_empty() {
            return Err(BinError(format!("{} trailing bytes", de.0.len())));
        }
        Ok(value)
    }

    struct Ser(Vec<u8>);

    impl Ser {
        fn word(&mut self, v: u64) {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
        fn len(&mut self, len: Option<usize>) -> Res<()> {
            let len = len.ok_or_else(|| BinError("length unknown".into()))?;
            self.word(len as u64);
            Ok(())
        }
    }

    impl ser::Serializer for &mut Ser {
        type Ok = ();
        type Error = BinError;
        type SerializeSeq = Self;
        type SerializeTuple = Self;
        type SerializeTupleStruct = Self;
        type SerializeTupleVariant = Self;
        type SerializeMap = Self;
        type SerializeStruct = Self;
        type SerializeStructVariant = Self;

        fn serialize_bool(self, v: bool) -> Res<()> {
            self.word(v as u64);
            Ok(())
        }
        fn serialize_i8(self, v: i8) -> Res<()> {
            self.serialize_i64(v.into())
        }
        fn serialize_i16(self, v: i16) -> Res<()> {
            self.serialize_i64(v.into())
        }
        fn serialize_i32(self, v: i32) -> Res<()> {
            self.serialize_i64(v.into())
        }
        fn serialize_i64(self, v: i64) -> Res<()> {
            self.word(v as u64);
            Ok(())
        }
        fn serialize_i128(self, v: i128) -> Res<()> {
            self.0.extend_from_slice(&v.to_le_bytes());
            Ok(())
        }
        fn serialize_u8(self, v: u8) -> Res<()> {
            self.word(v.into());
            Ok(())
        }
        fn serialize_u16(self, v: u16) -> Res<()> {
            self.word(v.into());
            Ok(())
        }
        fn serialize_u32(self, v: u32) -> Res<()> {
            self.word(v.into());
            Ok(())
        }
        fn serialize_u64(self, v: u64) -> Res<()> {
            self.word(v);
            Ok(())
        }
        fn serialize_u128(self, v: u128) -> Res<()> {
            self.0.extend_from_slice(&v.to_le_bytes());
            Ok(())
        }
        fn serialize_f32(self, v: f32) -> Res<()> {
            self.word(v.to_bits().into());
            Ok(())
        }
        fn serialize_f64(self, v: f64) -> Res<()> {
            self.word(v.to_bits());
            Ok(())
        }
        fn serialize_char(self, v: char) -> Res<()> {
            self.word(u64::from(v));
            Ok(())
        }
        fn serialize_str(self, v: &str) -> Res<()> {
            self.serialize_bytes(v.as_bytes())
        }
        fn serialize_bytes(self, v: &[u8]) -> Res<()> {
            self.word(v.len() as u64);
            self.0.extend_from_slice(v);
            Ok(())
        }
        fn serialize_none(self) -> Res<()> {
            self.word(0);
            Ok(())
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res<()> {
            self.word(1);
            value.serialize(self)
        }
        fn serialize_unit(self) -> Res<()> {
            Ok(())
        }
        fn serialize_unit_struct(self, _: &'static str) -> Res<()> {
            Ok(())
        }
        fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> Res<()> {
            self.word(index.into());
            Ok(())
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Res<()> {
            value.serialize(self)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            index: u32,
            _: &'static str,
            value: &T,
        ) -> Res<()> {
            self.word(index.into());
            value.serialize(self)
        }
        fn serialize_seq(self, len: Option<usize>) -> Res<Self> {
            self.len(len)?;
            Ok(self)
        }
        fn serialize_tuple(self, _: usize) -> Res<Self> {
            Ok(self)
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Res<Self> {
            Ok(self)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            index: u32,
            _: &'static str,
            _: usize,
        ) -> Res<Self> {
            self.word(index.into());
            Ok(self)
        }
        fn serialize_map(self, len: Option<usize>) -> Res<Self> {
            self.len(len)?;
            Ok(self)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Res<Self> {
            Ok(self)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            index: u32,
            _: &'static str,
            _: usize,
        ) -> Res<Self> {
            self.word(index.into());
            Ok(self)
        }
    }

    macro_rules! compound {
        ($trait:ident, $method:ident) => {
            impl ser::$trait for &mut Ser {
                type Ok = ();
                type Error = BinError;
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Res<()> {
                    value.serialize(&mut **self)
                }
                fn end(self) -> Res<()> {
                    Ok(())
                }
            }
        };
    }
    compound!(SerializeSeq, serialize_element);
    compound!(SerializeTuple, serialize_element);
    compound!(SerializeTupleStruct, serialize_field);
    compound!(SerializeTupleVariant, serialize_field);

    impl ser::SerializeMap for &mut Ser {
        type Ok = ();
        type Error = BinError;
        fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Res<()> {
            key.serialize(&mut **self)
        }
        fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Res<()> {
            value.serialize(&mut **self)
        }
        fn end(self) -> Res<()> {
            Ok(())
        }
    }

    impl ser::SerializeStruct for &mut Ser {
        type Ok = ();
        type Error = BinError;
        fn serialize_field<T: Serialize + ?Sized>(
            &mut self,
            _: &'static str,
            value: &T,
        ) -> Res<()> {
            value.serialize(&mut **self)
        }
        fn end(self) -> Res<()> {
            Ok(())
        }
    }

    impl ser::SerializeStructVariant for &mut Ser {
        type Ok = ();
        type Error = BinError;
        fn serialize_field<T: Serialize + ?Sized>(
            &mut self,
            _: &'static str,
            value: &T,
        ) -> Res<()> {
            value.serialize(&mut **self)
        }
        fn end(self) -> Res<()> {
            Ok(())
        }
    }

    struct De<'de>(&'de [u8]);

    impl<'de> De<'de> {
        fn take(&mut self, n: usize) -> Res<&'de [u8]> {
            if self.0.len() < n {
                return Err(BinError("unexpected end of input".into()));
            }
            let (head, tail) = self.0.split_at(n);
            self.0 = tail;
            Ok(head)
        }
        fn word(&mut self) -> Res<u64> {
            Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
        }
        fn wide(&mut self) -> Res<[u8; 16]> {
            Ok(self.take(16)?.try_into().unwrap())
        }
        fn narrow<T: TryFrom<u64>>(&mut self) -> Res<T> {
            T::try_from(self.word()?).map_err(|_| BinError("integer out of range".into()))
        }
        fn signed<T: TryFrom<i64>>(&mut self) -> Res<T> {
            T::try_from(self.word()? as i64).map_err(|_| BinError("integer out of range".into()))
        }
        fn bytes(&mut self) -> Res<&'de [u8]> {
            let n = self.narrow::<usize>()?;
            self.take(n)
        }
    }

    struct Items<'a, 'de> {
        de: &'a mut De<'de>,
        left: usize,
    }

    impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
        type Error = BinError;
        fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Res<Option<T::Value>> {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            seed.deserialize(&mut *self.de).map(Some)
        }
        fn size_hint(&self) -> Option<usize> {
            Some(self.left)
        }
    }

    impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
        type Error = BinError;
        fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Res<Option<K::Value>> {
            if self.left == 0 {
                return Ok(None);
            }
            self.left -= 1;
            seed.deserialize(&mut *self.de).map(Some)
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Res<V::Value> {
            seed.deserialize(&mut *self.de)
        }
        fn size_hint(&self) -> Option<usize> {
            Some(self.left)
        }
    }

    impl<'de> de::EnumAccess<'de> for &mut De<'de> {
        type Error = BinError;
        type Variant = Self;
        fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Res<(V::Value, Self)> {
            let index: u32 = self.narrow()?;
            let value = seed.deserialize(index.into_deserializer())?;
            Ok((value, self))
        }
    }

    impl<'de> de::VariantAccess<'de> for &mut De<'de> {
        type Error = BinError;
        fn unit_variant(self) -> Res<()> {
            Ok(())
        }
        fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Res<T::Value> {
            seed.deserialize(self)
        }
        fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Res<V::Value> {
            visitor.visit_seq(Items {
                de: self,
                left: len,
            })
        }
        fn struct_variant<V: Visitor<'de>>(
            self,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Res<V::Value> {
            visitor.visit_seq(Items {
                de: self,
                left: fields.len(),
            })
        }
    }

    impl<'de> de::Deserializer<'de> for &mut De<'de> {
        type Error = BinError;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Res<V::Value> {
            Err(BinError("the format is not self-describing".into()))
        }
        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_bool(self.word()? != 0)
        }
        fn deserialize_i8<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_i8(self.signed()?)
        }
        fn deserialize_i16<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_i16(self.signed()?)
        }
        fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_i32(self.signed()?)
        }
        fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_i64(self.signed()?)
        }
        fn deserialize_i128<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_i128(i128::from_le_bytes(self.wide()?))
        }
        fn deserialize_u8<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_u8(self.narrow()?)
        }
        fn deserialize_u16<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_u16(self.narrow()?)
        }
        fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_u32(self.narrow()?)
        }
        fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_u64(self.word()?)
        }
        fn deserialize_u128<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_u128(u128::from_le_bytes(self.wide()?))
        }
        fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_f32(f32::from_bits(self.narrow()?))
        }
        fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_f64(f64::from_bits(self.word()?))
        }
        fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            let code: u32 = self.narrow()?;
            v.visit_char(char::from_u32(code).ok_or_else(|| BinError("bad char".into()))?)
        }
        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            let bytes = self.bytes()?;
            v.visit_borrowed_str(std::str::from_utf8(bytes).map_err(|e| BinError(e.to_string()))?)
        }
        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            self.deserialize_str(v)
        }
        fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_borrowed_bytes(self.bytes()?)
        }
        fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            self.deserialize_bytes(v)
        }
        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            match self.word()? {
                0 => v.visit_none(),
                1 => v.visit_some(self),
                t => Err(BinError(format!("bad option tag {t}"))),
            }
        }
        fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_unit()
        }
        fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Res<V::Value> {
            v.visit_unit()
        }
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            v: V,
        ) -> Res<V::Value> {
            v.visit_newtype_struct(self)
        }
        fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            let left = self.narrow()?;
            v.visit_seq(Items { de: self, left })
        }
        fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Res<V::Value> {
            v.visit_seq(Items {
                de: self,
                left: len,
            })
        }
        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            len: usize,
            v: V,
        ) -> Res<V::Value> {
            v.visit_seq(Items {
                de: self,
                left: len,
            })
        }
        fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            let left = self.narrow()?;
            v.visit_map(Items { de: self, left })
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            v: V,
        ) -> Res<V::Value> {
            v.visit_seq(Items {
                de: self,
                left: fields.len(),
            })
        }
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            v: V,
        ) -> Res<V::Value> {
            v.visit_enum(self)
        }
        fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Res<V::Value> {
            v.visit_u32(self.narrow()?)
        }
        fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Res<V::Value> {
            Err(BinError(
                "cannot skip in a non-self-describing format".into(),
            ))
        }
        fn is_human_readable(&self) -> bool {
            false
        }
    }
}
