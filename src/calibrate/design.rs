//! The margin sets a calibration measures: the engine's defaults, any sets the user adds, and a
//! design over the tunable rows within a region, made so that the sets differ in strength by
//! more than the games' noise:
//!
//! - **Log coordinates.** Margins act on a ratio scale, so the design is drawn in the log
//!   coordinates of `tune`'s race: a value `v` of a row drawn from `lower..upper` is
//!   `t = ln(v - lower + c)` with `c = (upper - lower)/100 + 1`, and the unit cube maps onto
//!   `t`'s range ([`unit_to_value`]).
//! - **Corners.** The all-low corner (every margin at its region's lower end: the most pruning)
//!   and the all-high one (the least) are always measured: they are the sets most likely to lose
//!   clearly, and so stretch the Elo over which the objectives are ranked. When the `2^d`
//!   corners of `d` rows take at most half the design points, every corner is measured
//!   ([`corners`]).
//! - **Maximin Latin hypercube.** The rest is the best, by the smallest distance between any two
//!   points (the corners and the defaults counted, in unit log coordinates), of
//!   [`CANDIDATES`] seeded Latin hypercubes ([`maximin_hypercube`]): space-filling, so no two
//!   sets are near copies.
//!
//! Everything is drawn from the seed (ChaCha8): the same seed, the same sets.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::engine::{EngineDef, Setting};
use crate::params::ParamKind;

/// One row's range in the design.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionDim {
    /// Index into the engine's rows.
    pub index: usize,
    /// The row's name.
    pub name: String,
    /// Smallest value drawn (inclusive).
    pub lower: i32,
    /// Largest value drawn (inclusive).
    pub upper: i32,
}

/// Why a region cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegionError {
    /// A `--region` entry that is not `name=LO..HI`.
    #[error("--region '{0}' is not name=LO..HI")]
    Malformed(String),
    /// No such tunable row.
    #[error("--region '{text}': {name} is not a tunable row of {engine} ({hint})")]
    Unknown {
        /// The entry.
        text: String,
        /// The name.
        name: String,
        /// The engine.
        engine: String,
        /// Where its rows are listed.
        hint: String,
    },
    /// Outside the row's range, or empty.
    #[error(
        "--region '{text}': {lo}..{hi} must lie within {name}'s range {min}..{max}, low <= high"
    )]
    OutOfRange {
        /// The entry.
        text: String,
        /// The row.
        name: String,
        /// Asked low.
        lo: i32,
        /// Asked high.
        hi: i32,
        /// Row minimum.
        min: i32,
        /// Row maximum.
        max: i32,
    },
    /// The engine has no tunable row.
    #[error("{0} has no tunable row (a spin with a step) to calibrate")]
    Empty(String),
}

/// The default region: each tunable row (the built-in engine's four seed margins; an external
/// engine's rows with a step) from an eighth of its default to four times it, clamped to its
/// range, with `overrides` (`name=LO..HI`) applied. (A quarter to twice, the region before,
/// left Toga II's sets within 30 Elo of each other, inside the games' noise; and the sets the
/// built-in engine's tunes find lie below a quarter of its defaults.)
///
/// # Errors
/// A malformed or unknown override, or one outside the row's range.
pub fn region(def: &EngineDef, overrides: &[String]) -> Result<Vec<RegionDim>, RegionError> {
    let tunable = |i: usize| {
        let r = &def.rows[i];
        let seed = crate::params::SEED_MARGINS
            .iter()
            .any(|n| def.find(n) == Some(i));
        r.kind == ParamKind::Spin && r.step > 0 && (!def.is_builtin() || seed)
    };
    let mut dims: Vec<RegionDim> = (0..def.rows.len())
        .filter(|&i| tunable(i))
        .map(|i| {
            let r = &def.rows[i];
            RegionDim {
                index: i,
                name: r.name.clone(),
                lower: (r.default / 8).clamp(r.min, r.max),
                upper: r.default.saturating_mul(4).clamp(r.min, r.max),
            }
        })
        .collect();
    if dims.is_empty() {
        return Err(RegionError::Empty(def.name.clone()));
    }
    for text in overrides {
        let bad = || RegionError::Malformed(text.clone());
        let (name, range) = text.split_once('=').ok_or_else(bad)?;
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let (lo, hi): (i32, i32) = (
            lo.trim().parse().map_err(|_| bad())?,
            hi.trim().parse().map_err(|_| bad())?,
        );
        let dim = dims
            .iter_mut()
            .find(|d| def.find(name.trim()) == Some(d.index))
            .ok_or_else(|| RegionError::Unknown {
                text: text.clone(),
                name: name.trim().to_string(),
                engine: def.name.clone(),
                hint: def.rows_hint(),
            })?;
        let row = &def.rows[dim.index];
        if lo > hi || lo < row.min || hi > row.max {
            return Err(RegionError::OutOfRange {
                text: text.clone(),
                name: row.name.clone(),
                lo,
                hi,
                min: row.min,
                max: row.max,
            });
        }
        dim.lower = lo;
        dim.upper = hi;
    }
    Ok(dims)
}

/// `n` points of a Latin hypercube in the unit cube of `dims` dimensions, from `rng`: each
/// dimension is cut into `n` equal strata and every stratum is used once, at a uniform point
/// within it.
pub fn unit_hypercube(n: usize, dims: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f64>> {
    let strata: Vec<Vec<usize>> = (0..dims)
        .map(|_| {
            let mut p: Vec<usize> = (0..n).collect();
            p.shuffle(rng);
            p
        })
        .collect();
    (0..n)
        .map(|k| {
            strata
                .iter()
                .map(|s| (s[k] as f64 + rng.random::<f64>()) / n as f64)
                .collect()
        })
        .collect()
}

/// Latin hypercubes drawn for a maximin design, the most spread kept.
pub const CANDIDATES: usize = 64;

/// The value of `dim` at `u` in 0..=1 of its log coordinates (see the module documentation),
/// rounded: 0 gives its lower end, 1 its upper.
pub fn unit_to_value(dim: &RegionDim, u: f64) -> i32 {
    let (lower, span) = (f64::from(dim.lower), f64::from(dim.upper - dim.lower));
    let c = span / 100.0 + 1.0;
    let (bottom, top) = (c.ln(), (span + c).ln());
    let v = (bottom + u.clamp(0.0, 1.0) * (top - bottom)).exp() - c + lower;
    (v.round() as i32).clamp(dim.lower, dim.upper)
}

/// Where `value` lies in `dim`'s log coordinates, 0..=1 (the inverse of [`unit_to_value`]).
pub fn value_to_unit(dim: &RegionDim, value: i32) -> f64 {
    let span = f64::from(dim.upper - dim.lower);
    let c = span / 100.0 + 1.0;
    let (bottom, top) = (c.ln(), (span + c).ln());
    let t = (f64::from(value - dim.lower).clamp(0.0, span) + c).ln();
    if top > bottom {
        (t - bottom) / (top - bottom)
    } else {
        0.0
    }
}

/// The corners of the unit cube of `dims` dimensions a design of `n` points measures: every
/// one of the `2^dims` when they are at most half of `n`; else the all-low and the all-high
/// corners (or as many of them as `n` holds). The all-low first, the all-high second.
pub fn corners(dims: usize, n: usize) -> Vec<Vec<f64>> {
    let all = dims < 16 && (1usize << dims) <= n / 2;
    let mut out = vec![vec![0.0; dims], vec![1.0; dims]];
    if all {
        for bits in 1..(1usize << dims) - 1 {
            out.push((0..dims).map(|d| ((bits >> d) & 1) as f64).collect());
        }
    }
    out.truncate(n);
    out
}

/// The smallest Euclidean distance between two of `points`, or between one of them and one of
/// `fixed` (infinite with fewer than two points and nothing fixed).
pub fn min_distance(points: &[Vec<f64>], fixed: &[Vec<f64>]) -> f64 {
    let d = |a: &[f64], b: &[f64]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let mut best = f64::INFINITY;
    for (i, p) in points.iter().enumerate() {
        for q in points[i + 1..].iter().chain(fixed) {
            best = best.min(d(p, q));
        }
    }
    best
}

/// `n` points of the unit cube of `dims` dimensions: of [`CANDIDATES`] Latin hypercubes drawn
/// from `seed` (ChaCha8, one stream), the one whose smallest distance between its points, and
/// to the points of `fixed`, is largest (the first such on a tie).
pub fn maximin_hypercube(n: usize, dims: usize, seed: u64, fixed: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut best: (f64, Vec<Vec<f64>>) = (f64::NEG_INFINITY, Vec::new());
    for _ in 0..CANDIDATES {
        let points = unit_hypercube(n, dims, &mut rng);
        let spread = min_distance(&points, fixed);
        if spread > best.0 {
            best = (spread, points);
        }
    }
    best.1
}

/// The setting at unit point `u` of `region` on top of `base`.
fn setting_at(base: &Setting, region: &[RegionDim], u: &[f64]) -> Setting {
    let mut values = base.values().to_vec();
    for (dim, &t) in region.iter().zip(u) {
        values[dim.index] = unit_to_value(dim, t);
    }
    Setting::from_values(base.def(), values, false)
        .expect("a design point lies within the rows' ranges")
}

/// A corner's name: `corner-` and, a row each, `L` (its lower end) or `H` (its upper).
fn corner_name(u: &[f64]) -> String {
    let bits: String = u.iter().map(|&t| if t > 0.5 { 'H' } else { 'L' }).collect();
    format!("corner-{bits}")
}

/// The design of `n` sets over `region` on top of `base` (see the module documentation), each
/// named (`corner-LLLL`.., then `lhs-1`..), from `seed`: the corners, then a maximin Latin
/// hypercube for the rest, kept apart from the corners and from `base`. A set equal to `base`
/// or to one before it (after rounding) is left out, and the hypercube drawn again from the
/// next seed for the sets missing, so the sets are distinct.
pub fn design(base: &Setting, region: &[RegionDim], n: usize, seed: u64) -> Vec<(String, Setting)> {
    let unit_of = |s: &Setting| -> Vec<f64> {
        (region.iter())
            .map(|d| value_to_unit(d, s.values()[d.index]))
            .collect()
    };
    let mut out: Vec<(String, Setting)> = Vec::with_capacity(n);
    let mut fixed = vec![unit_of(base)];
    for u in corners(region.len(), n) {
        let setting = setting_at(base, region, &u);
        if setting != *base && out.iter().all(|(_, s)| *s != setting) {
            out.push((corner_name(&u), setting));
            fixed.push(u);
        }
    }
    let mut attempt = 0u64;
    let mut drawn = 0;
    while out.len() < n && attempt < 64 {
        let points = maximin_hypercube(
            n - out.len(),
            region.len(),
            seed.wrapping_add(attempt),
            &fixed,
        );
        attempt += 1;
        for u in points {
            let setting = setting_at(base, region, &u);
            if setting != *base && out.iter().all(|(_, s)| *s != setting) {
                drawn += 1;
                out.push((format!("lhs-{drawn}"), setting));
                fixed.push(u);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_region_spans_an_eighth_to_four_times_the_defaults() {
        let def = EngineDef::builtin();
        let r = region(&def, &[]).unwrap();
        let names: Vec<&str> = r.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "futility_margin",
                "ext_futility_margin",
                "razor_margin",
                "delta_margin"
            ]
        );
        for d in &r {
            let row = &def.rows[d.index];
            assert_eq!((d.lower, d.upper), (row.default / 8, row.default * 4));
        }
        let r = region(&def, &["frontier=10..300".into()]).unwrap();
        assert_eq!((r[0].lower, r[0].upper), (10, 300));
        assert!(matches!(
            region(&def, &["frontier=10..99999".into()]),
            Err(RegionError::OutOfRange { .. })
        ));
        assert!(matches!(
            region(&def, &["null_move_r=1..3".into()]),
            Err(RegionError::Unknown { .. })
        ));
        assert!(matches!(
            region(&def, &["frontier:1..3".into()]),
            Err(RegionError::Malformed(_))
        ));
    }

    #[test]
    fn a_latin_hypercube_uses_every_stratum_once_and_repeats_by_seed() {
        let n = 11;
        let draw = |seed| unit_hypercube(n, 3, &mut ChaCha8Rng::seed_from_u64(seed));
        let points = draw(7);
        for d in 0..3 {
            let mut strata: Vec<usize> =
                points.iter().map(|p| (p[d] * n as f64) as usize).collect();
            strata.sort_unstable();
            assert_eq!(strata, (0..n).collect::<Vec<_>>());
        }
        assert_eq!(points, draw(7));
        assert_ne!(points, draw(8));
    }

    #[test]
    fn log_coordinates_span_the_region_and_spread_the_low_values() {
        let dim = RegionDim {
            index: 0,
            name: "futility_margin".into(),
            lower: 15,
            upper: 500,
        };
        assert_eq!(
            (unit_to_value(&dim, 0.0), unit_to_value(&dim, 1.0)),
            (15, 500)
        );
        // Half way in log coordinates lies well below half way in values (257).
        let mid = unit_to_value(&dim, 0.5);
        assert!((50..100).contains(&mid), "{mid}");
        for v in [15, 40, 125, 499, 500] {
            assert_eq!(unit_to_value(&dim, value_to_unit(&dim, v)), v);
        }
    }

    #[test]
    fn every_corner_is_measured_when_they_are_at_most_half_the_design() {
        assert_eq!(corners(4, 11), vec![vec![0.0; 4], vec![1.0; 4]]);
        let all = corners(3, 16);
        assert_eq!(all.len(), 8);
        assert_eq!((&all[0], &all[1]), (&vec![0.0; 3], &vec![1.0; 3]));
        let mut distinct = all.clone();
        distinct.sort_by(|a, b| a.partial_cmp(b).unwrap());
        distinct.dedup();
        assert_eq!(distinct.len(), 8);
        assert_eq!(corners(2, 1), vec![vec![0.0; 2]]);
    }

    #[test]
    fn the_maximin_hypercube_is_the_most_spread_of_its_candidates() {
        let fixed = vec![vec![0.0; 4], vec![1.0; 4]];
        let best = maximin_hypercube(9, 4, 3, &fixed);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..CANDIDATES {
            let other = unit_hypercube(9, 4, &mut rng);
            assert!(min_distance(&best, &fixed) >= min_distance(&other, &fixed));
        }
        assert_eq!(best, maximin_hypercube(9, 4, 3, &fixed));
    }

    #[test]
    fn the_design_holds_the_low_and_high_corners_within_the_region_and_repeats_by_seed() {
        let def = EngineDef::builtin();
        let base = Setting::defaults(&def);
        let r = region(&def, &[]).unwrap();
        let sets = design(&base, &r, 11, 7);
        assert_eq!(sets.len(), 11);
        let names: Vec<&str> = sets.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[..3], ["corner-LLLL", "corner-HHHH", "lhs-1"]);
        for d in &r {
            assert_eq!(sets[0].1.values()[d.index], d.lower);
            assert_eq!(sets[1].1.values()[d.index], d.upper);
        }
        for (i, (name, s)) in sets.iter().enumerate() {
            assert_ne!(*s, base, "{name}");
            assert!(
                sets[..i].iter().all(|(_, t)| t != s),
                "{name} repeats a set"
            );
            for d in &r {
                let v = s.values()[d.index];
                assert!(
                    (d.lower..=d.upper).contains(&v),
                    "{name}: {v} outside {d:?}"
                );
            }
            // Untuned rows keep the base's values.
            for i in (0..def.rows.len()).filter(|i| r.iter().all(|d| d.index != *i)) {
                assert_eq!(s.values()[i], base.values()[i]);
            }
        }
        assert_eq!(sets, design(&base, &r, 11, 7));
        let other = design(&base, &r, 11, 8);
        assert_eq!(
            other[..2],
            sets[..2],
            "the corners do not depend on the seed"
        );
        assert_ne!(other[2..], sets[2..]);
        // Three rows and 17 design points: all 8 corners, then the hypercube.
        let three = &r[..3];
        let sets = design(&base, three, 17, 7);
        let corners = sets
            .iter()
            .filter(|(n, _)| n.starts_with("corner-"))
            .count();
        assert_eq!((sets.len(), corners), (17, 8));
    }
}
