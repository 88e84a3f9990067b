//! The pictures beside a calibration report: one SVG scatter per objective, the objective
//! against the pooled Elo of every set with its 95% interval bar, the least-squares line, and
//! the rank agreement in the title.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::report::Report;

/// Width of a picture, pixels.
pub const WIDTH: u32 = 760;
/// Height of a picture, pixels.
pub const HEIGHT: u32 = 520;
const FONT: &str = "sans-serif";
const POINT: RGBColor = RGBColor(0x1f, 0x5f, 0xbf);
const BAR: RGBColor = RGBColor(0x9f, 0xb4, 0xd9);
const FIT: RGBColor = RGBColor(0xd6, 0x27, 0x28);
const DEFAULTS: RGBColor = RGBColor(0x2a, 0x9d, 0x3a);

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the calibration plot: {0}")]
pub struct PlotError(String);

fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError(e.to_string())
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(hi - lo).is_finite() || hi - lo < 1e-9 {
        (lo - 1.0, hi + 1.0)
    } else {
        let pad = (hi - lo) * 0.08;
        (lo - pad, hi + pad)
    }
}

/// A set in a scatter: its objective value, its Elo, its interval's ends (`None`: not
/// defined) and whether it is the defaults.
type Point = (f64, f64, Option<f64>, Option<f64>, bool);

/// The sets of objective `o` with a value, as points. An interval end that is not defined
/// (infinite, or no spread) is `None`: its bar runs to the edge of the picture.
fn points(report: &Report, o: usize) -> Vec<Point> {
    report
        .sets
        .iter()
        .filter(|s| s.objectives[o].is_finite())
        .map(|s| {
            (
                s.objectives[o],
                s.pooled.elo,
                s.pooled.elo_interval[0],
                s.pooled.elo_interval[1],
                s.origin == "defaults",
            )
        })
        .collect()
}

/// The least and greatest objective value, and Elo (interval ends included), of `points`.
fn extent(points: &[Point]) -> ((f64, f64), (f64, f64)) {
    let (x0, x1) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
    let (y0, y1) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            let (lo, hi) = (p.2.unwrap_or(p.1), p.3.unwrap_or(p.1));
            (a.min(lo).min(p.1), b.max(hi).max(p.1))
        });
    ((x0, x1), (y0, y1))
}

/// Objective `o`'s scatter as SVG text.
///
/// # Errors
/// Drawing failed (it does not for finite data).
pub fn svg(report: &Report, o: usize) -> Result<String, PlotError> {
    let obj = &report.objectives[o];
    let points = points(report, o);
    let ((x0, x1), (y0, y1)) = extent(&points);
    let (x0, x1) = padded(x0, x1);
    let (y0, y1) = padded(y0, y1);
    let rho = obj.rho.map_or("n/a".to_string(), |r| r.to_string());
    let tau = obj.tau.map_or("n/a".to_string(), |r| r.to_string());
    let title = format!(
        "{} vs Elo ({}): rho {rho}, tau {tau}",
        obj.name, report.game_limit
    );
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(format!("{} (higher is better)", obj.name))
            .y_desc(format!(
                "Elo vs defaults, {} (pooled, 95%)",
                report.game_limit
            ))
            .label_style((FONT, 12))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(points.iter().map(|p| {
                let (lo, hi) = (p.2.unwrap_or(y0), p.3.unwrap_or(y1));
                PathElement::new(vec![(p.0, lo), (p.0, hi)], BAR.stroke_width(2))
            }))
            .map_err(err)?;
        if let Some(line) = obj.line {
            let f = |x: f64| line.intercept + line.slope * x;
            chart
                .draw_series(LineSeries::new(
                    vec![(x0, f(x0)), (x1, f(x1))],
                    FIT.stroke_width(2),
                ))
                .map_err(err)?
                .label(format!(
                    "Elo = {:.1} + {:.2} x objective",
                    line.intercept, line.slope
                ))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], FIT.stroke_width(2)));
        }
        chart
            .draw_series(points.iter().map(|p| {
                let colour = if p.4 { DEFAULTS } else { POINT };
                Circle::new((p.0, p.1), 4, colour.filled())
            }))
            .map_err(err)?
            .label("margin set (green: the defaults)")
            .legend(|(x, y)| Circle::new((x + 8, y), 4, POINT.filled()));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font((FONT, 12))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(text)
}

/// A short label of an objective's name ("suite (10000 nodes)" -> "suite@10000n"): its kind,
/// and its limit where `all` holds another objective of the same kind.
pub fn label(name: &str, all: &[&str]) -> String {
    let kind = |n: &str| -> String {
        n.split(' ')
            .next()
            .unwrap_or("objective")
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    };
    let mine = kind(name);
    if all.iter().filter(|n| kind(n) == mine).count() < 2 {
        return mine;
    }
    let limit: String = name
        .split_once('(')
        .map_or("", |(_, rest)| rest.trim_end_matches(')'))
        .replace("depth ", "d")
        .replace(" nodes", "n")
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("{mine}@{limit}")
}

/// The path of an objective's plot beside the report `out`: its stem, the objective's label.
pub fn path(out: &Path, label: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or("calibration".into(), |s| s.to_string_lossy().to_string());
    out.with_file_name(format!("{stem}-{}.svg", label.replace('@', "-")))
}

/// A plot [`write_beside`] wrote, or left unwritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Written at this path.
    Plot(PathBuf),
    /// Not written: why (a file of the user's there, or an input).
    Kept(String),
}

/// Why [`write_beside`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Drawing a plot failed.
    #[error(transparent)]
    Draw(#[from] PlotError),
    /// A plot could not be written.
    #[error("cannot write {path}: {why}")]
    Io {
        /// The plot.
        path: String,
        /// Why.
        why: std::io::Error,
    },
}

/// Draws each objective's scatter of `report` and writes it beside the report `out`
/// ([`path`]), telling `on_plot` of each as it goes. The report is the result: a plot whose
/// place holds a file of the user's (unless `force`) or one of the calibration's `inputs` is
/// not written, and the others still are.
///
/// # Errors
/// A plot could not be drawn or written.
pub fn write_beside(
    report: &Report,
    out: &Path,
    force: bool,
    inputs: &[(&str, &Path)],
    on_plot: &mut dyn FnMut(Written),
) -> Result<(), WriteError> {
    use crate::formats::outputs;
    let names: Vec<&str> = report.objectives.iter().map(|o| o.name.as_str()).collect();
    for (o, obj) in report.objectives.iter().enumerate() {
        let path = path(out, &label(&obj.name, &names));
        let what = format!("the plot of {}", obj.name);
        if let Err(e) = outputs::not_an_input(&path, &what, inputs)
            .and_then(|()| outputs::fresh_plot(&path, force))
        {
            on_plot(Written::Kept(e.0));
            continue;
        }
        let svg = svg(report, o)?;
        outputs::write_plot(&path, &svg).map_err(|why| WriteError::Io {
            path: path.display().to_string(),
            why,
        })?;
        on_plot(Written::Plot(path));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scatter_draws_a_point_a_set_and_names_the_objective_and_limit() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tuned/calibration-builtin-nodes5000.json");
        let report = crate::calibrate::report::read(&path).unwrap();
        let text = svg(&report, 0).unwrap();
        assert!(text.starts_with("<svg"), "{}", &text[..40]);
        assert!(text.contains("suite (5000 nodes) vs Elo (nodes 5000): rho "));
        // One circle a set, and one in the legend.
        assert_eq!(text.matches("<circle").count(), report.sets.len() + 1);
        let ((x0, x1), (y0, y1)) = extent(&points(&report, 0));
        for s in &report.sets {
            assert!((x0..=x1).contains(&s.objectives[0]) && (y0..=y1).contains(&s.pooled.elo));
        }
    }

    #[test]
    fn labels_name_the_limit_only_where_two_objectives_share_a_kind() {
        let all = [
            "suite (depth 7)",
            "suite (10000 nodes)",
            "mates (10000 nodes)",
        ];
        assert_eq!(label(all[0], &all), "suite@d7");
        assert_eq!(label(all[1], &all), "suite@10000n");
        assert_eq!(label(all[2], &all), "mates");
        let out = Path::new("tuned/calibration-toga2.json");
        assert_eq!(
            path(out, &label(all[1], &all)),
            Path::new("tuned/calibration-toga2-suite-10000n.svg")
        );
        assert_eq!(
            path(out, "mates"),
            Path::new("tuned/calibration-toga2-mates.svg")
        );
    }
}
