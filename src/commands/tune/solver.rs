//! `marginal tune --solver`: the command-line side of `marginal::tune::solvers` (which solver,
//! its settings, progress lines, the per-iteration record), the Pareto front in the tuned file,
//! and the SVG beside it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use marginal::tune::file::TunedFile;
use marginal::tune::pipeline::Solver;
use marginal::tune::plot::{self, Candidate, MarkedSet, PlotData};
use marginal::tune::race::RaceSettings;
use marginal::tune::solvers::{DEFAULT_PARTICLES, NelderMeadSettings, PsoSettings, SpsaSettings};
use marginal::tune::space::Space;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::UserError;
use super::TuneArgs;

/// Which solver walks the space.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SolverKind {
    /// The default: a global screen over the whole bounds, a local refinement and a race in
    /// games among the finalists (`marginal::tune::race`).
    Race,
    /// SPSA with OpenBench's schedule; the result is the final iterate. (The serde default:
    /// arguments recorded before the race existed name no solver and ran SPSA.)
    #[default]
    Spsa,
    /// argmin's Nelder-Mead from a simplex around the defaults; the result is the best vertex.
    NelderMead,
    /// argmin's particle swarm over the bounds; the result is the best particle.
    Pso,
}

impl SolverKind {
    /// For serde's `skip_serializing_if`: SPSA is not written into the recorded arguments, so
    /// SPSA runs keep their run ids.
    pub fn is_spsa(&self) -> bool {
        *self == SolverKind::Spsa
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
}

/// A checked solver configuration.
pub struct SolverSetup {
    kind: SolverKind,
    /// The solver's settings, as the tuned file records them.
    pub settings: Value,
    nelder_mead: Option<NelderMeadSettings>,
    pso: Option<PsoSettings>,
    /// The race's settings (`--solver race`).
    pub race: Option<RaceSettings>,
}

impl SolverSetup {
    /// The library's solver for this setup.
    pub fn solver(&self, args: &TuneArgs) -> Solver {
        match (self.kind, &self.nelder_mead, &self.pso, &self.race) {
            (SolverKind::NelderMead, Some(s), _, _) => Solver::NelderMead(s.clone()),
            (SolverKind::Pso, _, Some(s), _) => Solver::Pso(s.clone()),
            (SolverKind::Race, _, _, Some(s)) => Solver::Race(s.clone()),
            _ => Solver::Spsa {
                iterations: args.iterations,
                gain: args.gain,
                batch: args.batch,
            },
        }
    }
}

/// The race's options (`--design`, `--screen`, `--finalists`, `--race-pairs`,
/// `--race-openings`) with another solver are refused, naming the solver in effect.
fn race_options_only_with_race(args: &TuneArgs, kind: SolverKind) -> Result<()> {
    if kind == SolverKind::Race
        || (args.design.is_none()
            && args.screen.is_none()
            && args.finalists.is_none()
            && args.race_pairs.is_empty()
            && args.race_openings.is_none())
    {
        return Ok(());
    }
    let why = if args.objective == super::games::ObjectiveKind::Games {
        " (spsa is the default with --objective games; the race tunes with --objective suite)"
    } else {
        ""
    };
    Err(UserError(format!(
        "--design, --screen, --finalists, --race-pairs and --race-openings: only with --solver race, and this tune's solver is {}{why}",
        kind.name()
    ))
    .into())
}

/// Checks the solver arguments and works out the settings.
pub fn setup(args: &TuneArgs, space: &Space) -> Result<SolverSetup> {
    let kind = args.solver();
    if args.particles.is_some() && kind != SolverKind::Pso {
        return Err(UserError("--particles: only with --solver pso".into()).into());
    }
    let particles = args.particles.unwrap_or(DEFAULT_PARTICLES);
    if particles == 0 {
        return Err(
            UserError("--particles 0: the swarm needs at least one particle".into()).into(),
        );
    }
    race_options_only_with_race(args, kind)?;
    no_empty_rounds(&args.race_pairs)?;
    if kind == SolverKind::Race && args.objective != super::games::ObjectiveKind::Suite {
        return Err(UserError(
            "--solver race tunes on the suite objective and races games itself: --objective games runs with --solver spsa, nelder-mead or pso".into(),
        )
        .into());
    }
    let (mut nelder_mead, mut pso, mut race) = (None, None, None);
    let settings = match kind {
        SolverKind::Race => {
            let mut s = RaceSettings::new(space.dims.len(), args.seed);
            if let Some(n) = args.design {
                s.design = n;
            }
            if let Some(n) = args.screen {
                s.screen_positions = n;
            }
            if let Some(n) = args.finalists {
                s.finalists = n;
                s.keep = s.keep.max(n);
            }
            if !args.race_pairs.is_empty() {
                s.rounds = args.race_pairs.iter().copied().filter(|&p| p > 0).collect();
            }
            let value = serde_json::to_value(&s)?;
            race = Some(s);
            value
        }
        SolverKind::Spsa => serde_json::to_value(
            SpsaSettings::new(space, args.iterations, args.seed, args.gain)
                .map_err(UserError::from_display)?,
        )?,
        SolverKind::NelderMead => {
            let s = NelderMeadSettings::new(space, args.iterations);
            let value = serde_json::to_value(&s)?;
            nelder_mead = Some(s);
            value
        }
        SolverKind::Pso => {
            let s = PsoSettings::new(space, args.iterations, particles, args.seed);
            let value = serde_json::to_value(&s)?;
            pso = Some(s);
            value
        }
    };
    Ok(SolverSetup {
        kind,
        settings,
        nelder_mead,
        pso,
        race,
    })
}

/// Refuses a round of 0 pairs among others in --race-pairs (0 alone means no games).
fn no_empty_rounds(pairs: &[u32]) -> Result<()> {
    if pairs.len() > 1 && pairs.contains(&0) {
        let list: Vec<String> = pairs.iter().map(u32::to_string).collect();
        return Err(UserError(format!(
            "--race-pairs {}: a round of 0 pairs plays nothing; give 0 alone (no games: the best suite objective wins) or only positive pairs",
            list.join(",")
        ))
        .into());
    }
    Ok(())
}

/// Draws `NAME.svg` beside the tuned file `out` from its document; returns its path.
pub fn write_svg(out: &Path, file: &TunedFile, space: &Space) -> Result<PathBuf> {
    let p = &file.provenance;
    let solver = match p.solver.as_str() {
        "race" => "race",
        "spsa" => "SPSA",
        "nelder-mead" => "Nelder-Mead",
        "pso" => "particle swarm",
        other => other,
    };
    let title = match &file.games {
        Some(g) => format!(
            "marginal tune: {solver} on games, {} iterations, {} pair(s) each ({} games) at {} per move",
            p.iterations, g.pairs, g.games, g.limit
        ),
        None => format!(
            "marginal tune: {solver}, {} iterations, {} training positions, {} per position",
            p.iterations, file.training.positions, p.limit
        ),
    };
    let candidates = file
        .evaluations
        .iter()
        .map(|e| Candidate {
            node_ratio: e.evaluation.node_ratio,
            accuracy: e.evaluation.accuracy,
            pareto: e.pareto,
        })
        .collect();
    let marked = file
        .training
        .sets
        .iter()
        .map(|s| MarkedSet {
            label: s.name.clone(),
            node_ratio: s.objective.node_ratio,
            accuracy: s.objective.accuracy,
            objective: Some(s.objective.value),
        })
        .collect();
    let data = PlotData {
        title,
        margins: space.dims.iter().map(|d| d.name.to_string()).collect(),
        starts: space.start(),
        iterations: file.iterations.clone(),
        candidates,
        marked,
    };
    let path = out.with_extension("svg");
    let text = plot::svg(&data)?;
    crate::commands::write_plot(&path, &text)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
