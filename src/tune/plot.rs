//! The picture beside a tuned file (`tuned/NAME.svg`), drawn with plotters' SVG backend from
//! plain data. Only the panels that have data are drawn, and the title says which are.
//!
//! Left, for an iterative solver (SPSA, Nelder-Mead, particle swarm): the objective across
//! iterations (every candidate evaluated in an iteration as a grey dot; a line through the
//! solver's point: its objective where the solver evaluated it, else the mean of the
//! iteration's candidates, which for SPSA are its two probes; dashed lines at the tuned and
//! default sets' objectives), or for the games objective SPSA's result per iteration, and under
//! it one small panel per tuned margin, each on its own axis, with the start value dashed.
//! Left, for the race (no iterations): the suite objective of every set by stage (screen, kept,
//! local rounds, line), and under it each finalist's Elo against the base set after each round
//! of games (the games screen's rounds first when it screened in games). Right, when the run
//! scored candidates on the suite: accuracy against node ratio of every evaluated candidate,
//! the Pareto front highlighted and joined, and the named sets (tuned, default, off) marked and
//! labelled. A games tune scores none, so it has no such panel.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::file::TunedFile;
use super::race::{RaceResult, Stage};
use super::solvers::IterationRecord;
use super::space::Space;

/// Width of the picture, pixels.
pub const WIDTH: u32 = 1280;
/// Height of the picture, pixels.
pub const HEIGHT: u32 = 760;

/// A margin set marked in the Pareto panel and, when it has an objective, in the objective panel.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedSet {
    /// Its label ("tuned", "default", "off").
    pub label: String,
    /// Total nodes over the reference's.
    pub node_ratio: f64,
    /// Accuracy, percent.
    pub accuracy: f64,
    /// Objective; drawn as a dashed line in the objective panel when given.
    pub objective: Option<f64>,
}

/// One evaluated candidate in the Pareto panel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Total nodes over the reference's.
    pub node_ratio: f64,
    /// Accuracy, percent.
    pub accuracy: f64,
    /// On the Pareto front.
    pub pareto: bool,
}

/// Everything the picture shows.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotData {
    /// The title (the run: solver, positions, limit).
    pub title: String,
    /// The tuned margins' names, in the order of the records' values.
    pub margins: Vec<String>,
    /// Their start values (drawn dashed).
    pub starts: Vec<f64>,
    /// The iterations.
    pub iterations: Vec<IterationRecord>,
    /// Every evaluated candidate.
    pub candidates: Vec<Candidate>,
    /// The named sets.
    pub marked: Vec<MarkedSet>,
    /// The race's stages, when the run was a race (it records no iterations).
    pub race: Option<RaceResult>,
}

/// Why the picture could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the plot: {0}")]
pub struct PlotError(String);

fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError(e.to_string())
}

/// Colours of the named sets, in order (tuned, default, off, then any others).
const SET_COLOURS: [RGBColor; 5] = [
    RGBColor(0x1f, 0x5f, 0xbf),
    RGBColor(0x2a, 0x9d, 0x3a),
    RGBColor(0x20, 0x20, 0x20),
    RGBColor(0x9b, 0x4d, 0xca),
    RGBColor(0xe0, 0x8a, 0x00),
];
const FRONT: RGBColor = RGBColor(0xd6, 0x27, 0x28);
const LIGHT: RGBColor = RGBColor(0xb0, 0xb0, 0xb0);
const LINE: RGBColor = RGBColor(0x1f, 0x5f, 0xbf);
const FONT: &str = "sans-serif";

/// The picture as SVG text.
///
/// # Errors
/// Drawing failed (it does not for finite data).
pub fn svg(data: &PlotData) -> Result<String, PlotError> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(&data.title, (FONT, 18)).map_err(err)?;
        let panels = Panels::of(data);
        let left = if panels.pareto {
            let (left, right) = root.split_horizontally(WIDTH * 56 / 100);
            pareto_panel(&right, data)?;
            left
        } else {
            root.clone()
        };
        if panels.iterations {
            let (top, bottom) = left.split_vertically((HEIGHT - 30) * 45 / 100);
            let objectives = data.iterations.iter().any(|r| line_value(r).is_some());
            if objectives || !data.iterations.iter().any(|r| r.result.is_some()) {
                objective_panel(&top, data)?;
            } else {
                result_panel(&top, data)?;
            }
            let rows = bottom.split_evenly((data.margins.len().max(1), 1));
            for (i, area) in rows.iter().enumerate().take(data.margins.len()) {
                margin_panel(area, data, i, i + 1 == data.margins.len())?;
            }
        } else if let Some(race) = &data.race {
            match (panels.race_suite, panels.race_games) {
                (true, true) => {
                    let (top, bottom) = left.split_vertically((HEIGHT - 30) / 2);
                    race_suite_panel(&top, data, race)?;
                    race_games_panel(&bottom, race)?;
                }
                (true, false) => race_suite_panel(&left, data, race)?,
                (false, true) => race_games_panel(&left, race)?,
                (false, false) => {}
            }
        }
        root.present().map_err(err)?;
    }
    Ok(text)
}

/// Which panels a plot draws: those that have data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Panels {
    /// The objective (or the games' result) and the margins across iterations.
    iterations: bool,
    /// The race's suite objective by stage.
    race_suite: bool,
    /// The race's games, round by round.
    race_games: bool,
    /// Speed against accuracy of the candidates scored on the suite.
    pareto: bool,
}

impl Panels {
    fn of(data: &PlotData) -> Panels {
        let steps = data.race.as_ref().map_or(&[][..], |r| &r.steps[..]);
        Panels {
            iterations: !data.iterations.is_empty(),
            race_suite: steps.iter().any(|s| s.games.is_none()),
            race_games: steps.iter().any(|s| s.games.is_some()),
            pareto: !data.candidates.is_empty(),
        }
    }
}

/// `[lo, hi]` widened by `pad` of its span on each side (or by 1 around a single value).
fn padded(values: impl IntoIterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    if span <= f64::EPSILON * hi.abs().max(1.0) {
        let d = (hi.abs() * 1e-3).max(1e-3);
        return (lo - d, hi + d);
    }
    (lo - pad * span, hi + pad * span)
}

/// Decimals that tell apart ticks about `span / 10` apart (plotters' default count).
fn decimals(span: f64) -> usize {
    let step = span / 10.0;
    if step >= 1.0 || step <= 0.0 {
        0
    } else {
        (-step.log10()).ceil().clamp(0.0, 6.0) as usize
    }
}

fn x_range(data: &PlotData) -> (f64, f64) {
    let last = data
        .iterations
        .iter()
        .map(|r| r.iteration)
        .max()
        .unwrap_or(0);
    (-0.5, last.max(1) as f64 + 0.5)
}

/// The line's value at an iteration: the solver's objective, else the mean of its candidates.
fn line_value(r: &IterationRecord) -> Option<f64> {
    r.objective.or_else(|| {
        (!r.evaluated.is_empty())
            .then(|| r.evaluated.iter().sum::<f64>() / r.evaluated.len() as f64)
    })
}

fn objective_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    data: &PlotData,
) -> Result<(), PlotError> {
    let dots: Vec<(f64, f64)> = data
        .iterations
        .iter()
        .flat_map(|r| r.evaluated.iter().map(move |&o| (r.iteration as f64, o)))
        .filter(|p| p.1.is_finite())
        .collect();
    let line: Vec<(f64, f64)> = data
        .iterations
        .iter()
        .filter_map(|r| line_value(r).map(|v| (r.iteration as f64, v)))
        .filter(|p| p.1.is_finite())
        .collect();
    let levels: Vec<(usize, &MarkedSet, f64)> = data
        .marked
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.objective.map(|o| (i, m, o)))
        .filter(|(_, m, _)| m.label != "off")
        .collect();
    let (x0, x1) = x_range(data);
    let (y0, y1) = padded(
        dots.iter()
            .chain(&line)
            .map(|p| p.1)
            .chain(levels.iter().map(|l| l.2)),
        0.08,
    );
    let mut chart = iteration_chart(
        area,
        "Objective across iterations (training)",
        (x0, x1),
        (y0, y1),
        "objective",
        decimals(y1 - y0),
    )?;
    if !dots.is_empty() {
        chart
            .draw_series(
                dots.iter()
                    .map(|&p| Circle::new(p, 2, LIGHT.mix(0.9).filled())),
            )
            .map_err(err)?
            .label("candidates evaluated")
            .legend(|(x, y)| Circle::new((x + 10, y), 3, LIGHT.filled()));
    }
    let line_label = if data.iterations.iter().any(|r| r.objective.is_some()) {
        "solver's best point"
    } else {
        "mean of the iteration's candidates"
    };
    if !line.is_empty() {
        chart
            .draw_series(LineSeries::new(line.iter().copied(), LINE.stroke_width(2)))
            .map_err(err)?
            .label(line_label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LINE.stroke_width(2)));
    }
    for (i, m, level) in levels {
        let colour = SET_COLOURS[i.min(SET_COLOURS.len() - 1)];
        let style = colour.mix(0.8).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new(
                [(x0, level), (x1, level)],
                6,
                4,
                style,
            ))
            .map_err(err)?
            .label(format!("{} {level:.3}", m.label))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    draw_legend(&mut chart)
}

/// A chart with iterations along x, as the top panel draws them.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The top panel's chart: caption, ranges, and the mesh with `y_decimals` on the y labels.
fn iteration_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    y_desc: &str,
    y_decimals: usize,
) -> Result<Chart<'a, 'b>, PlotError> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE.mix(0.0))
        .x_labels(10)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.y_decimals$}"))
        .y_desc(y_desc)
        .label_style((FONT, 12))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// A panel's legend, lower right.
fn draw_legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
) -> Result<(), PlotError> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(LIGHT)
        .label_font((FONT, 12))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Iterations averaged by the line of [`result_panel`].
const RESULT_WINDOW: usize = 20;

/// For a run without suite evaluations (the games objective): SPSA's result per iteration
/// (W-L of theta+ against theta-) as dots, and its mean over the last [`RESULT_WINDOW`]
/// iterations as a line.
fn result_panel(area: &DrawingArea<SVGBackend, Shift>, data: &PlotData) -> Result<(), PlotError> {
    let dots: Vec<(f64, f64)> = data
        .iterations
        .iter()
        .filter_map(|r| r.result.map(|v| (r.iteration as f64, v)))
        .filter(|p| p.1.is_finite())
        .collect();
    let line: Vec<(f64, f64)> = (0..dots.len())
        .map(|i| {
            let window = &dots[(i + 1).saturating_sub(RESULT_WINDOW)..=i];
            let mean = window.iter().map(|p| p.1).sum::<f64>() / window.len() as f64;
            (dots[i].0, mean)
        })
        .collect();
    let (x0, x1) = x_range(data);
    let (y0, y1) = padded(dots.iter().map(|p| p.1).chain([0.0]), 0.08);
    let mut chart = iteration_chart(
        area,
        "SPSA's result per iteration (W-L of theta+ against theta-)",
        (x0, x1),
        (y0, y1),
        "W-L",
        0,
    )?;
    chart
        .draw_series(
            dots.iter()
                .map(|&p| Circle::new(p, 2, LIGHT.mix(0.9).filled())),
        )
        .map_err(err)?
        .label("result of the iteration")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, LIGHT.filled()));
    chart
        .draw_series(LineSeries::new(line.iter().copied(), LINE.stroke_width(2)))
        .map_err(err)?
        .label(format!("mean of the last {RESULT_WINDOW} iterations"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LINE.stroke_width(2)));
    chart
        .draw_series(DashedLineSeries::new(
            [(x0, 0.0), (x1, 0.0)],
            6,
            4,
            BLACK.mix(0.5).stroke_width(1),
        ))
        .map_err(err)?;
    draw_legend(&mut chart)
}

fn margin_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    data: &PlotData,
    i: usize,
    last: bool,
) -> Result<(), PlotError> {
    let points: Vec<(f64, f64)> = data
        .iterations
        .iter()
        .filter_map(|r| r.values.get(i).map(|&v| (r.iteration as f64, f64::from(v))))
        .collect();
    let start = data.starts.get(i).copied();
    let (x0, x1) = x_range(data);
    let (y0, y1) = padded(points.iter().map(|p| p.1).chain(start), 0.15);
    // Margins are integers: at least 8 units tall, so that ticks fall on integers.
    let (y0, y1) = if y1 - y0 < 8.0 {
        let mid = ((y0 + y1) / 2.0).round();
        (mid - 4.0, mid + 4.0)
    } else {
        (y0, y1)
    };
    // Room above the lines for the panel's label.
    let y1 = y1 + (y1 - y0) * 0.45;
    let mut chart = ChartBuilder::on(area)
        .margin_left(8)
        .margin_right(8)
        .margin_top(4)
        .margin_bottom(if last { 4 } else { 0 })
        .x_label_area_size(if last { 28 } else { 0 })
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let x_format = |x: &f64| format!("{x:.0}");
    let y_format = |y: &f64| format!("{y:.0}");
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE.mix(0.0))
        .x_labels(10)
        .y_labels(4)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style((FONT, 11));
    if last {
        mesh.x_desc("iteration");
    }
    mesh.draw().map_err(err)?;
    if let Some(s) = start {
        chart
            .draw_series(DashedLineSeries::new(
                [(x0, s), (x1, s)],
                6,
                4,
                SET_COLOURS[1].mix(0.8).stroke_width(1),
            ))
            .map_err(err)?;
    }
    let colour = SET_COLOURS[3 + i % 2];
    chart
        .draw_series(LineSeries::new(
            points.iter().copied(),
            colour.stroke_width(2),
        ))
        .map_err(err)?;
    // The name, inside the panel's top left corner.
    let name = data.margins.get(i).map_or("", String::as_str);
    let label = match (start, points.last()) {
        (Some(s), Some(&(_, v))) => format!("{name}: {s:.0} -> {v:.0}"),
        _ => name.to_string(),
    };
    chart
        .draw_series(std::iter::once(Text::new(
            label,
            (x0 + (x1 - x0) * 0.01, y1 - (y1 - y0) * 0.05),
            (FONT, 12).into_font().color(&BLACK),
        )))
        .map_err(err)?;
    Ok(())
}

/// The race's stages of `kind` (suite stages, or rounds of games) in the order they ran.
fn race_stages(race: &RaceResult, games: bool) -> Vec<(Stage, usize)> {
    let mut keys = Vec::new();
    for s in race.steps.iter().filter(|s| s.games.is_some() == games) {
        if !keys.contains(&(s.stage, s.round)) {
            keys.push((s.stage, s.round));
        }
    }
    keys
}

/// A stage's short name on the x axis.
fn stage_name(stage: Stage, round: usize) -> String {
    match stage {
        Stage::Screen => "screen".into(),
        Stage::Full => "kept".into(),
        Stage::Local => format!("local {round}"),
        Stage::Line => "line".into(),
        Stage::Games => format!("race {round}"),
        Stage::ScreenGames => format!("screen {round}"),
    }
}

/// A chart whose x axis names the race's stages `names` at 0, 1, ...
fn stage_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    names: &[String],
    (y0, y1): (f64, f64),
    y_desc: &str,
) -> Result<Chart<'a, 'b>, PlotError> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(8)
        .margin_right(16)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5..names.len() as f64 - 0.5, y0..y1)
        .map_err(err)?;
    let y_decimals = decimals(y1 - y0);
    let name = |x: &f64| {
        let i = x.round();
        let named = (x - i).abs() < 1e-6 && i >= 0.0;
        (named.then(|| names.get(i as usize)).flatten())
            .cloned()
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .light_line_style(WHITE.mix(0.0))
        .x_labels(names.len().max(2))
        .x_label_formatter(&name)
        .y_label_formatter(&|y| format!("{y:.y_decimals$}"))
        .y_desc(y_desc)
        .label_style((FONT, 12))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// The race's suite stages: every set's objective by stage, the tuned set marked, the base
/// set's screen score dashed.
fn race_suite_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    data: &PlotData,
    race: &RaceResult,
) -> Result<(), PlotError> {
    let stages = race_stages(race, false);
    let names: Vec<String> = stages.iter().map(|&(s, r)| stage_name(s, r)).collect();
    let scored: Vec<(f64, f64, bool)> = (race.steps.iter())
        .filter(|s| s.games.is_none() && s.score.is_finite())
        .filter_map(|s| {
            let x = stages.iter().position(|&k| k == (s.stage, s.round))?;
            Some((x as f64, s.score, s.values == race.values))
        })
        .collect();
    let base = base_values(data);
    let base_score = (race.steps.iter())
        .find(|s| s.games.is_none() && s.values == base)
        .map(|s| s.score)
        .filter(|v| v.is_finite());
    let (y0, y1) = padded(scored.iter().map(|p| p.1).chain(base_score), 0.08);
    let (caption, y_desc) = match &race.settings.screen_objective {
        Some(o) => (
            format!("{} of each set the race scored, by stage", o.name),
            o.name.split(' ').next().unwrap_or("objective").to_string(),
        ),
        None => (
            "Suite objective of each set the race scored, by stage (training)".to_string(),
            "suite objective".to_string(),
        ),
    };
    let mut chart = stage_chart(area, &caption, &names, (y0, y1), &y_desc)?;
    chart
        .draw_series(
            (scored.iter()).map(|&(x, y, _)| Circle::new((x, y), 3, LIGHT.mix(0.9).filled())),
        )
        .map_err(err)?
        .label(format!("a set's score ({})", scored.len()))
        .legend(|(x, y)| Circle::new((x + 10, y), 3, LIGHT.filled()));
    let tuned: Vec<(f64, f64)> = (scored.iter().filter(|p| p.2))
        .map(|&(x, y, _)| (x, y))
        .collect();
    if !tuned.is_empty() {
        let colour = SET_COLOURS[0];
        chart
            .draw_series((tuned.iter()).map(move |&p| TriangleMarker::new(p, 7, colour.filled())))
            .map_err(err)?
            .label("tuned set")
            .legend(move |(x, y)| TriangleMarker::new((x + 10, y), 6, colour.filled()));
    }
    if let Some(level) = base_score {
        let style = SET_COLOURS[1].mix(0.8).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new(
                [(-0.5, level), (names.len() as f64 - 0.5, level)],
                6,
                4,
                style,
            ))
            .map_err(err)?
            .label(format!("base set {level:.3}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    draw_legend(&mut chart)
}

/// The base set's values: the start of every tuned row.
fn base_values(data: &PlotData) -> Vec<i32> {
    data.starts.iter().map(|v| v.round() as i32).collect()
}

/// A set's values in a games stage (its tally in the games screen is not its tally in the race).
type SetInStage<'a> = (Stage, &'a [i32]);

/// The race's games: each set's Elo against the base set over its games so far, after each
/// round it played (the games screen's rounds first), the tuned set's line drawn bold.
fn race_games_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    race: &RaceResult,
) -> Result<(), PlotError> {
    let rounds = race_stages(race, true);
    let names: Vec<String> = rounds.iter().map(|&(s, r)| stage_name(s, r)).collect();
    // One line a set and games stage (the games screen's tally is not the race's).
    let mut lines: Vec<(SetInStage, Vec<(f64, f64)>)> = Vec::new();
    for s in race
        .steps
        .iter()
        .filter(|s| s.games.is_some() && s.score.is_finite())
    {
        let Some(x) = rounds.iter().position(|&k| k == (s.stage, s.round)) else {
            continue;
        };
        let key = (s.stage, s.values.as_slice());
        match lines.iter_mut().find(|l| l.0 == key) {
            Some(l) => l.1.push((x as f64, s.score)),
            None => lines.push((key, vec![(x as f64, s.score)])),
        }
    }
    let (y0, y1) = padded(
        (lines.iter().flat_map(|l| l.1.iter().map(|p| p.1))).chain([0.0]),
        0.08,
    );
    let caption =
        "Games: each set's Elo against the base set after each round (better half goes on)";
    let mut chart = stage_chart(area, caption, &names, (y0, y1), "Elo against the base set")?;
    let sets = lines.len();
    for (i, (_, points)) in lines.iter().filter(|l| l.0.1 != race.values).enumerate() {
        let drawn = chart
            .draw_series(
                LineSeries::new(points.iter().copied(), LIGHT.stroke_width(1)).point_size(2),
            )
            .map_err(err)?;
        if i == 0 {
            drawn
                .label(format!("a set's games so far ({sets} lines)"))
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], LIGHT.stroke_width(1))
                });
        }
    }
    let colour = SET_COLOURS[0];
    for (i, (_, points)) in lines.iter().filter(|l| l.0.1 == race.values).enumerate() {
        let drawn = chart
            .draw_series(
                LineSeries::new(points.iter().copied(), colour.stroke_width(2)).point_size(3),
            )
            .map_err(err)?;
        if i == 0 {
            drawn.label("tuned set").legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
        }
    }
    chart
        .draw_series(DashedLineSeries::new(
            [(-0.5, 0.0), (names.len() as f64 - 0.5, 0.0)],
            6,
            4,
            SET_COLOURS[1].mix(0.8).stroke_width(1),
        ))
        .map_err(err)?
        .label("base set (0)")
        .legend(|(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], SET_COLOURS[1].stroke_width(1))
        });
    draw_legend(&mut chart)
}

fn pareto_panel(area: &DrawingArea<SVGBackend, Shift>, data: &PlotData) -> Result<(), PlotError> {
    let all: Vec<(f64, f64)> = data
        .candidates
        .iter()
        .map(|c| (c.node_ratio, c.accuracy))
        .chain(data.marked.iter().map(|m| (m.node_ratio, m.accuracy)))
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    let (x0, x1) = padded(all.iter().map(|p| p.0), 0.08);
    let (y0, y1) = padded(all.iter().map(|p| p.1), 0.10);
    let mut chart = ChartBuilder::on(area)
        .caption("Speed against accuracy (training)", (FONT, 16))
        .margin(8)
        .margin_right(20)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let (x_dec, y_dec) = (decimals(x1 - x0), decimals(y1 - y0));
    chart
        .configure_mesh()
        .light_line_style(WHITE.mix(0.0))
        .x_labels(6)
        .x_label_formatter(&|x| format!("{x:.x_dec$}"))
        .y_label_formatter(&|y| format!("{y:.y_dec$}"))
        .x_desc("node ratio (nodes / nodes with pruning off; lower is faster)")
        .y_desc("accuracy (%)")
        .label_style((FONT, 12))
        .draw()
        .map_err(err)?;
    let others: Vec<(f64, f64)> = data
        .candidates
        .iter()
        .filter(|c| !c.pareto)
        .map(|c| (c.node_ratio, c.accuracy))
        .collect();
    let mut front: Vec<(f64, f64)> = data
        .candidates
        .iter()
        .filter(|c| c.pareto)
        .map(|c| (c.node_ratio, c.accuracy))
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    chart
        .draw_series(
            others
                .iter()
                .map(|&p| Circle::new(p, 3, LIGHT.mix(0.9).filled())),
        )
        .map_err(err)?
        .label(format!("candidate ({})", data.candidates.len()))
        .legend(|(x, y)| Circle::new((x + 10, y), 3, LIGHT.filled()));
    // The front as a staircase: nothing beyond it is both faster and more accurate.
    let stairs: Vec<(f64, f64)> = front
        .windows(2)
        .flat_map(|w| [w[0], (w[1].0, w[0].1)])
        .chain(front.last().copied())
        .collect();
    chart
        .draw_series(LineSeries::new(stairs, FRONT.mix(0.7).stroke_width(1)))
        .map_err(err)?;
    chart
        .draw_series(front.iter().map(|&p| Circle::new(p, 4, FRONT.filled())))
        .map_err(err)?
        .label(format!("Pareto front ({})", front.len()))
        .legend(|(x, y)| Circle::new((x + 10, y), 4, FRONT.filled()));
    for (i, m) in data.marked.iter().enumerate() {
        if !(m.node_ratio.is_finite() && m.accuracy.is_finite()) {
            continue;
        }
        let colour = SET_COLOURS[i.min(SET_COLOURS.len() - 1)];
        // Labels alternate below-right and above-left so that nearby sets stay readable.
        let offset = if i % 2 == 0 {
            (9, 4)
        } else {
            (-9 - 7 * m.label.len() as i32, -16)
        };
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((m.node_ratio, m.accuracy))
                    + TriangleMarker::new((0, 0), 7, colour.filled())
                    + Text::new(
                        m.label.clone(),
                        offset,
                        (FONT, 13).into_font().color(&colour),
                    ),
            ))
            .map_err(err)?;
    }
    draw_legend(&mut chart)
}

impl PlotData {
    /// What the plot of a tuned file shows: the solver's path over `space` (its tuned rows),
    /// every candidate the suite objective scored, and the sets judged beside the tuned one.
    pub fn of_tuned(file: &TunedFile, space: &Space) -> PlotData {
        let p = &file.provenance;
        let solver = match p.solver.as_str() {
            "race" => "race",
            "spsa" => "SPSA",
            "nelder-mead" => "Nelder-Mead",
            "pso" => "particle swarm",
            other => other,
        };
        let title = match (&file.race, &file.games) {
            (Some(race), _) => race_title(race, file.training.positions, &p.limit.to_string()),
            (None, Some(g)) => format!(
                "marginal tune: {solver} on games, {} iterations of {} pair(s) ({} games) at {} per move: W-L and margins by iteration",
                p.iterations, g.pairs, g.games, g.limit
            ),
            (None, None) => format!(
                "marginal tune: {solver}, {} iterations on {} training positions at {}: objective and margins by iteration; speed against accuracy",
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
        PlotData {
            title,
            margins: space.dims.iter().map(|d| d.name.to_string()).collect(),
            starts: space.start(),
            iterations: file.iterations.clone(),
            candidates,
            marked,
            race: file.race.clone(),
        }
    }
}

/// A race's title: its screen (by the suite objective on `positions` training positions at
/// `limit`, or in games) and its rounds of games. A race has no iterations.
fn race_title(race: &RaceResult, positions: usize, limit: &str) -> String {
    let count = |stage: Stage, round: usize| {
        (race.steps.iter())
            .filter(|s| s.stage == stage && s.round == round)
            .count()
    };
    let screen = if race.settings.screen_in_games {
        format!(
            "{} sets screened in games over {} round(s)",
            count(Stage::ScreenGames, 1),
            race.settings.screen_pairs.len()
        )
    } else if let Some(objective) = &race.settings.screen_objective {
        format!(
            "{} sets screened by {}",
            count(Stage::Screen, 0),
            objective.name
        )
    } else {
        format!(
            "{} sets screened by the suite objective on {positions} training positions at {limit}",
            count(Stage::Screen, 0)
        )
    };
    let rounds = race_stages(race, true)
        .iter()
        .filter(|k| k.0 == Stage::Games)
        .count();
    let games = match count(Stage::Games, 1) {
        0 => "no games raced".to_string(),
        finalists => format!("{finalists} finalists in {rounds} round(s) of games"),
    };
    format!("marginal tune: race, {screen}; {games}")
}

#[cfg(test)]
mod tests {
    use super::super::race::RaceStep;
    use super::*;

    #[test]
    fn draws_svg_with_every_part() {
        let iterations: Vec<IterationRecord> = (0..5)
            .map(|k| IterationRecord {
                iteration: k,
                theta: vec![125.0 + k as f64, 500.0],
                values: vec![125 + k as i32, 500],
                objective: None,
                result: Some(0.5),
                evaluated: vec![20.0 + k as f64 * 0.1, 20.2],
            })
            .collect();
        let data = PlotData {
            title: "test".into(),
            margins: vec!["futility_margin".into(), "ext_futility_margin".into()],
            starts: vec![125.0, 500.0],
            iterations,
            candidates: vec![
                Candidate {
                    node_ratio: 0.5,
                    accuracy: 60.0,
                    pareto: true,
                },
                Candidate {
                    node_ratio: 0.6,
                    accuracy: 59.0,
                    pareto: false,
                },
            ],
            marked: vec![
                MarkedSet {
                    label: "tuned".into(),
                    node_ratio: 0.5,
                    accuracy: 60.0,
                    objective: Some(20.4),
                },
                MarkedSet {
                    label: "off".into(),
                    node_ratio: 1.0,
                    accuracy: 61.0,
                    objective: Some(18.0),
                },
            ],
            race: None,
        };
        let text = svg(&data).unwrap();
        assert!(text.starts_with("<svg"), "{}", &text[..100]);
        for part in [
            "futility_margin: 125 -&gt; 129",
            "Pareto front (1)",
            "tuned",
            "off",
        ] {
            assert!(text.contains(part), "{part}");
        }
        assert!(text.contains("Objective across iterations"));
        // A games run (results, no evaluations) plots SPSA's results instead.
        let games = PlotData {
            iterations: data
                .iterations
                .iter()
                .map(|r| IterationRecord {
                    evaluated: vec![],
                    result: Some(r.iteration as f64 - 2.0),
                    ..r.clone()
                })
                .collect(),
            candidates: vec![],
            ..data.clone()
        };
        let text = svg(&games).unwrap();
        assert!(text.contains("W-L of theta+ against theta-"));
        assert!(text.contains("mean of the last 20 iterations"));
        // It scored no candidate on the suite: no speed-accuracy panel, though sets are named.
        assert!(
            !text.contains("Speed against accuracy"),
            "games draw no Pareto panel"
        );
        // Empty data still draws.
        let empty = PlotData {
            iterations: vec![],
            candidates: vec![],
            marked: vec![],
            ..data
        };
        assert!(svg(&empty).unwrap().contains("</svg>"));
    }

    /// A shipped tuned file.
    fn shipped_file(name: &str) -> TunedFile {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tuned")
            .join(name);
        TunedFile::read(&path).unwrap()
    }

    /// The plot of a shipped tuned file, with its SVG.
    fn shipped(name: &str) -> (PlotData, String) {
        let file = shipped_file(name);
        let data = PlotData::of_tuned(&file, &file.space().unwrap());
        let text = svg(&data).unwrap();
        (data, text)
    }

    #[test]
    fn a_race_plot_names_its_screen_and_rounds_not_iterations_and_draws_its_stages() {
        let (data, text) = shipped("race-seed1.json");
        let title = &data.title;
        assert!(!title.contains("iteration"), "{title}");
        assert!(
            title.contains("49 sets screened by the suite objective")
                && title.contains("810 training positions")
                && title.contains("16 finalists in 4 round(s) of games"),
            "{title}"
        );
        for part in [
            "Suite objective of each set the race scored, by stage",
            "local 2",
            "Elo against the base set after each round",
            "race 4",
            "tuned set",
            "Speed against accuracy",
        ] {
            assert!(text.contains(part), "{part}");
        }
        assert!(
            !text.contains("iteration"),
            "a race has no iterations to draw"
        );
    }

    #[test]
    fn a_games_spsa_plot_draws_no_pareto_panel_and_says_what_it_shows() {
        for name in ["spsa-games.json", "toga2-spsa-games.json"] {
            let (data, text) = shipped(name);
            assert!(data.candidates.is_empty(), "the premise: {name}");
            assert!(
                data.title.contains("on games")
                    && data.title.contains("W-L and margins by iteration"),
                "{}",
                data.title
            );
            assert!(!text.contains("Speed against accuracy") && !text.contains("Pareto front"));
            assert!(text.contains("W-L of theta+ against theta-"), "{name}");
        }
    }

    #[test]
    fn a_games_screened_race_draws_its_screen_rounds_and_no_suite_panels() {
        let file = shipped_file("race-seed1.json");
        let mut race = file.race.clone().unwrap();
        race.settings.screen_in_games = true;
        race.settings.screen_pairs = vec![2];
        race.steps.retain(|s| s.games.is_some());
        let first = race.steps[0].clone();
        race.steps.insert(
            0,
            RaceStep {
                stage: Stage::ScreenGames,
                round: 1,
                ..first
            },
        );
        let data = PlotData {
            candidates: vec![],
            race: Some(race.clone()),
            ..PlotData::of_tuned(&file, &file.space().unwrap())
        };
        let text = svg(&data).unwrap();
        assert!(text.contains("screen 1") && text.contains("race 1"));
        assert!(!text.contains("Suite objective of each set") && !text.contains("Pareto front"));
        let title = race_title(&race, 810, "5000 nodes");
        assert!(
            title.contains("1 sets screened in games over 1 round(s)"),
            "{title}"
        );
    }

    #[test]
    fn a_race_screened_by_another_objective_names_it_in_its_title_and_panel() {
        let file = shipped_file("race-seed1.json");
        let mut race = file.race.clone().unwrap();
        race.settings.screen_objective = Some(super::super::race::ScreenObjective {
            name: "quality (5000 nodes, ref 80000 nodes)".into(),
            key: "quality k".into(),
        });
        let title = race_title(&race, 810, "5000 nodes");
        assert!(
            title.contains("49 sets screened by quality (5000 nodes, ref 80000 nodes)"),
            "{title}"
        );
        let data = PlotData {
            candidates: vec![],
            race: Some(race),
            ..PlotData::of_tuned(&file, &file.space().unwrap())
        };
        let text = svg(&data).unwrap();
        assert!(text.contains("quality (5000 nodes, ref 80000 nodes) of each set the race scored"));
        assert!(!text.contains("Suite objective of each set"));
    }

    #[test]
    fn ranges_and_decimals() {
        assert_eq!(padded([1.0, 3.0], 0.5), (0.0, 4.0));
        let (lo, hi) = padded([0.9993, 0.9993], 0.1);
        assert!(lo < 0.9993 && hi > 0.9993);
        assert_eq!(padded([f64::NAN], 0.1), (0.0, 1.0));
        assert_eq!(decimals(100.0), 0);
        assert_eq!(decimals(0.01), 3);
        assert_eq!(decimals(5.0), 1);
    }
}
