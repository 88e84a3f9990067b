//! The margin sets a calibration measures: the engine's defaults, a seeded Latin hypercube over
//! the tunable rows within a region, and any sets the user adds.

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
/// engine's rows with a step) from a quarter of its default to twice it, clamped to its range,
/// with `overrides` (`name=LO..HI`) applied.
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
                lower: (r.default / 4).clamp(r.min, r.max),
                upper: r.default.saturating_mul(2).clamp(r.min, r.max),
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

/// `n` points of a Latin hypercube over `region` on top of `base`, from `seed` (ChaCha8; see
/// [`unit_hypercube`]), each rounded to an integer. Points equal to `base` or to an earlier
/// point are drawn again from the next seed, so the sets are distinct.
pub fn latin_hypercube(base: &Setting, region: &[RegionDim], n: usize, seed: u64) -> Vec<Setting> {
    let mut out: Vec<Setting> = Vec::with_capacity(n);
    let mut attempt = 0u64;
    while out.len() < n && attempt < 64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(attempt));
        attempt += 1;
        for point in unit_hypercube(n - out.len(), region.len(), &mut rng) {
            let mut values = base.values().to_vec();
            for (dim, t) in region.iter().zip(point) {
                let span = f64::from(dim.upper - dim.lower);
                values[dim.index] = dim.lower + (t * span).round() as i32;
            }
            let setting = Setting::from_values(base.def(), values, false)
                .expect("a design point lies within the rows' ranges");
            if setting != *base && !out.contains(&setting) {
                out.push(setting);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_region_spans_a_quarter_to_twice_the_defaults() {
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
            assert_eq!((d.lower, d.upper), (row.default / 4, row.default * 2));
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
        let def = EngineDef::builtin();
        let base = Setting::defaults(&def);
        let r = region(&def, &[]).unwrap();
        let n = 11;
        let points = latin_hypercube(&base, &r, n, 7);
        assert_eq!(points.len(), n);
        for dim in &r {
            let mut strata: Vec<usize> = points
                .iter()
                .map(|p| {
                    let t = f64::from(p.values()[dim.index] - dim.lower)
                        / f64::from(dim.upper - dim.lower);
                    ((t * n as f64).floor() as usize).min(n - 1)
                })
                .collect();
            strata.sort_unstable();
            // Rounding may move a point across a stratum's edge by one value at most.
            let distinct = strata.windows(2).filter(|w| w[0] != w[1]).count() + 1;
            assert!(distinct >= n - 2, "{}: strata {strata:?}", dim.name);
        }
        assert_eq!(points, latin_hypercube(&base, &r, n, 7));
        assert_ne!(points, latin_hypercube(&base, &r, n, 8));
        // Untuned rows keep the base's values.
        let untouched: Vec<usize> = (0..def.rows.len())
            .filter(|i| r.iter().all(|d| d.index != *i))
            .collect();
        for p in &points {
            for &i in &untouched {
                assert_eq!(p.values()[i], base.values()[i]);
            }
        }
    }
}
