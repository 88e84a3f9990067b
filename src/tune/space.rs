//! The search space: which rows of the parameter table are tuned, their bounds, and how a point
//! of the continuous space the solvers walk becomes a margin set.

use std::fmt;

use crate::engine::Setting;
use crate::params::ParamKind;

/// The parameters tuned by default: the four seed margins.
pub const DEFAULT_PARAMS: [&str; 4] = crate::params::SEED_MARGINS;

/// Why a search space cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    /// No parameter has this name.
    #[error("unknown parameter '{0}' ({1})")]
    Unknown(String, String),
    /// The parameter is a switch or has no tuning step.
    #[error("parameter '{0}' is not tunable (it has no SPSA step in the parameter table)")]
    NotTunable(String),
    /// The same parameter twice.
    #[error("parameter '{0}' is listed twice")]
    Twice(String),
    /// A `--bounds` entry that is not `name=MIN..MAX`.
    #[error("--bounds '{0}' is not of the form name=MIN..MAX")]
    BadBounds(String),
    /// Bounds with min > max, or outside the table's range.
    #[error(
        "--bounds for '{name}': {min}..{max} must satisfy {table_min} <= min <= max <= {table_max}"
    )]
    OutOfTable {
        /// The parameter.
        name: String,
        /// The asked minimum.
        min: i32,
        /// The asked maximum.
        max: i32,
        /// The table's minimum.
        table_min: i32,
        /// The table's maximum.
        table_max: i32,
    },
    /// Bounds given for a parameter that is not tuned.
    #[error(
        "--bounds given for '{0}', which is not among the tuned parameters: add it to --params, or leave out its bounds"
    )]
    BoundsUntuned(String),
    /// Nothing to tune.
    #[error("no parameter to tune")]
    Empty,
    /// A `--c-end`/`--r-end` entry that is not `[name=]VALUE` with a positive finite value.
    #[error("{flag} '{text}' is not [name=]VALUE with a finite positive number")]
    BadSchedule {
        /// The option (`--c-end` or `--r-end`).
        flag: &'static str,
        /// What was given.
        text: String,
    },
    /// A schedule override for a parameter that is not tuned.
    #[error("{flag} given for '{name}', which is not among the tuned parameters")]
    ScheduleUntuned {
        /// The option.
        flag: &'static str,
        /// The parameter.
        name: String,
    },
}

/// Which end value of SPSA's schedule an override sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleEnd {
    /// The final perturbation `c_end`, parameter units.
    C,
    /// The final learning rate `r_end`.
    R,
}

/// One tuned dimension: a row of the parameter table with its (possibly narrowed) bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Dim {
    /// Index into the engine's rows.
    pub index: usize,
    /// The row's name.
    pub name: String,
    /// Smallest value tried (inclusive).
    pub lower: i32,
    /// Largest value tried (inclusive).
    pub upper: i32,
    /// SPSA's final perturbation, parameter units (the table's step).
    pub c_end: f64,
    /// SPSA's final learning rate.
    pub r_end: f64,
}

/// The tuned dimensions on top of a base margin set (the untuned parameters keep its values).
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    /// Where untuned parameters come from, and where tuning starts (its engine's rows are the
    /// parameters).
    pub base: Setting,
    /// The tuned dimensions, in the order given.
    pub dims: Vec<Dim>,
}

impl Space {
    /// Builds a space from parameter names (table names, UCI names or aliases) and optional
    /// `name=MIN..MAX` bounds that narrow a tuned parameter's table range.
    ///
    /// # Errors
    /// Unknown, untunable or repeated names; malformed bounds, bounds outside the table or with
    /// min > max, bounds for an untuned parameter; no parameter at all.
    pub fn new(
        base: impl Into<Setting>,
        names: &[&str],
        bounds: &[&str],
    ) -> Result<Space, SpaceError> {
        let base: Setting = base.into();
        let def = base.def().clone();
        let mut dims: Vec<Dim> = Vec::new();
        for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
            let index = def
                .find(name)
                .ok_or_else(|| SpaceError::Unknown(name.into(), def.rows_hint()))?;
            let spec = &def.rows[index];
            if spec.kind != ParamKind::Spin || spec.step <= 0 {
                return Err(SpaceError::NotTunable(spec.name.clone()));
            }
            if dims.iter().any(|d| d.index == index) {
                return Err(SpaceError::Twice(spec.name.clone()));
            }
            dims.push(Dim {
                index,
                name: spec.name.clone(),
                lower: spec.min,
                upper: spec.max,
                c_end: f64::from(spec.step),
                r_end: spec.r_end,
            });
        }
        if dims.is_empty() {
            return Err(SpaceError::Empty);
        }
        for text in bounds {
            let bad = || SpaceError::BadBounds((*text).into());
            let (name, range) = text.split_once('=').ok_or_else(bad)?;
            let (min, max) = range.split_once("..").ok_or_else(bad)?;
            let (min, max): (i32, i32) = (
                min.trim().parse().map_err(|_| bad())?,
                max.trim().parse().map_err(|_| bad())?,
            );
            let index = def
                .find(name.trim())
                .ok_or_else(|| SpaceError::Unknown(name.into(), def.rows_hint()))?;
            let spec = &def.rows[index];
            let dim = dims
                .iter_mut()
                .find(|d| d.index == index)
                .ok_or_else(|| SpaceError::BoundsUntuned(spec.name.clone()))?;
            if min > max || min < spec.min || max > spec.max {
                return Err(SpaceError::OutOfTable {
                    name: spec.name.clone(),
                    min,
                    max,
                    table_min: spec.min,
                    table_max: spec.max,
                });
            }
            dim.lower = min;
            dim.upper = max;
        }
        Ok(Space { base, dims })
    }

    /// Overrides the table's `c_end` or `r_end` of SPSA's schedule: each entry is
    /// `name=VALUE` for one tuned parameter or a bare `VALUE` for all of them (entries apply in
    /// order, so `--r-end 0.005 --r-end delta=0.01` sets every row then delta).
    ///
    /// # Errors
    /// A malformed entry, a value that is not a positive finite number, an unknown or untuned
    /// parameter.
    pub fn with_schedule(
        mut self,
        end: ScheduleEnd,
        entries: &[&str],
    ) -> Result<Space, SpaceError> {
        let flag = match end {
            ScheduleEnd::C => "--c-end",
            ScheduleEnd::R => "--r-end",
        };
        for text in entries {
            let bad = || SpaceError::BadSchedule {
                flag,
                text: (*text).into(),
            };
            let (name, value) = match text.split_once('=') {
                Some((name, value)) => (Some(name.trim()), value),
                None => (None, *text),
            };
            let value: f64 = value.trim().parse().map_err(|_| bad())?;
            if !(value.is_finite() && value > 0.0) {
                return Err(bad());
            }
            let selected: Vec<&mut Dim> = match name {
                None => self.dims.iter_mut().collect(),
                Some(name) => {
                    let index = self.base.def().find(name).ok_or_else(|| {
                        SpaceError::Unknown(name.into(), self.base.def().rows_hint())
                    })?;
                    let dim = self
                        .dims
                        .iter_mut()
                        .find(|d| d.index == index)
                        .ok_or_else(|| SpaceError::ScheduleUntuned {
                            flag,
                            name: self.base.def().rows[index].name.clone(),
                        })?;
                    vec![dim]
                }
            };
            for dim in selected {
                match end {
                    ScheduleEnd::C => dim.c_end = value,
                    ScheduleEnd::R => dim.r_end = value,
                }
            }
        }
        Ok(self)
    }

    /// The base set's values of the tuned parameters, clipped to the bounds: where tuning starts.
    pub fn start(&self) -> Vec<f64> {
        self.dims
            .iter()
            .map(|d| f64::from(self.base.values()[d.index].clamp(d.lower, d.upper)))
            .collect()
    }

    /// The tuned parameters whose base value lies outside their bounds (so [`Space::start`]
    /// clips it): each dimension with that value.
    pub fn base_outside(&self) -> Vec<(&Dim, i32)> {
        self.dims
            .iter()
            .map(|d| (d, self.base.values()[d.index]))
            .filter(|(d, v)| !(d.lower..=d.upper).contains(v))
            .collect()
    }

    /// The integer values a point stands for: each coordinate rounded to the nearest integer and
    /// clipped to its bounds (NaN goes to the lower bound).
    pub fn values(&self, x: &[f64]) -> Vec<i32> {
        self.dims
            .iter()
            .zip(x)
            .map(|(d, &v)| {
                let v = if v.is_nan() {
                    f64::from(d.lower)
                } else {
                    v.round()
                };
                v.clamp(f64::from(d.lower), f64::from(d.upper)) as i32
            })
            .collect()
    }

    /// The margin set a point stands for (see [`Space::values`]).
    pub fn margins(&self, x: &[f64]) -> Setting {
        self.margins_of(&self.values(x))
    }

    /// The margin set of integer values of the tuned parameters.
    pub fn margins_of(&self, values: &[i32]) -> Setting {
        let mut m = self.base.clone();
        for (d, &v) in self.dims.iter().zip(values) {
            m.set_index(d.index, v);
        }
        m
    }

    /// The tuned parameters' values in a margin set.
    pub fn values_of(&self, margins: &Setting) -> Vec<i32> {
        self.dims
            .iter()
            .map(|d| margins.values()[d.index])
            .collect()
    }

    /// Lower bounds, as the solvers take them.
    pub fn lower(&self) -> Vec<f64> {
        self.dims.iter().map(|d| f64::from(d.lower)).collect()
    }

    /// Upper bounds, as the solvers take them.
    pub fn upper(&self) -> Vec<f64> {
        self.dims.iter().map(|d| f64::from(d.upper)).collect()
    }
}

impl fmt::Display for Space {
    /// `name lower..upper, ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} {}..{}", d.name, d.lower, d.upper)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Margins;

    #[test]
    fn default_space_is_the_four_seed_margins() {
        let s = Space::new(Margins::default(), &DEFAULT_PARAMS, &[]).unwrap();
        let names: Vec<_> = s.dims.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "futility_margin",
                "ext_futility_margin",
                "razor_margin",
                "delta_margin"
            ]
        );
        assert_eq!(s.start(), vec![125.0, 500.0, 980.0, 200.0]);
        assert_eq!(s.margins(&s.start()), Setting::from(Margins::default()));
        assert_eq!(s.dims[0].c_end, 10.0);
    }

    #[test]
    fn rounding_and_clipping() {
        let s = Space::new(Margins::default(), &["frontier"], &["frontier=50..300"]).unwrap();
        assert_eq!(s.values(&[124.6]), vec![125]);
        assert_eq!(s.values(&[-1e9]), vec![50]);
        assert_eq!(s.values(&[1e9]), vec![300]);
        assert_eq!(s.values(&[f64::NAN]), vec![50]);
        assert_eq!(s.margins(&[301.0]).margins().futility_margin(), 300);
        let base = Margins::default().with("futility_margin", 10);
        let s = Space::new(base, &["frontier"], &["frontier=50..300"]).unwrap();
        assert_eq!(s.start(), vec![50.0]);
        let outside: Vec<(&str, i32)> = s
            .base_outside()
            .iter()
            .map(|(d, v)| (d.name.as_str(), *v))
            .collect();
        assert_eq!(outside, [("futility_margin", 10)]);
        let inside = Space::new(Margins::default(), &["frontier"], &["frontier=50..300"]).unwrap();
        assert!(inside.base_outside().is_empty());
    }

    #[test]
    fn bad_configurations_are_errors() {
        let m = Margins::default();
        assert!(matches!(
            Space::new(m, &["nope"], &[]),
            Err(SpaceError::Unknown(..))
        ));
        assert!(matches!(
            Space::new(m, &["futility"], &[]),
            Err(SpaceError::NotTunable(_))
        ));
        assert!(matches!(
            Space::new(m, &["frontier", "futility_margin"], &[]),
            Err(SpaceError::Twice(_))
        ));
        assert!(matches!(Space::new(m, &[], &[]), Err(SpaceError::Empty)));
        for bad in ["frontier=300..50", "frontier=-5..50", "frontier=0..99999"] {
            assert!(
                matches!(
                    Space::new(m, &["frontier"], &[bad]),
                    Err(SpaceError::OutOfTable { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            Space::new(m, &["frontier"], &["frontier=1-2"]),
            Err(SpaceError::BadBounds(_))
        ));
        assert!(matches!(
            Space::new(m, &["frontier"], &["razor=1..2"]),
            Err(SpaceError::BoundsUntuned(_))
        ));
    }

    #[test]
    fn schedule_overrides_apply_in_order() {
        let s = Space::new(Margins::default(), &DEFAULT_PARAMS, &[]).unwrap();
        let s = s
            .with_schedule(ScheduleEnd::R, &["0.005", "delta=0.01"])
            .unwrap()
            .with_schedule(ScheduleEnd::C, &["frontier=20"])
            .unwrap();
        let r: Vec<f64> = s.dims.iter().map(|d| d.r_end).collect();
        assert_eq!(r, [0.005, 0.005, 0.005, 0.01]);
        let c: Vec<f64> = s.dims.iter().map(|d| d.c_end).collect();
        assert_eq!(c, [20.0, 25.0, 40.0, 10.0]);
        for bad in ["0", "-1", "x", "frontier=", "frontier=inf"] {
            assert!(
                matches!(
                    s.clone().with_schedule(ScheduleEnd::C, &[bad]),
                    Err(SpaceError::BadSchedule { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            s.clone().with_schedule(ScheduleEnd::R, &["nope=1"]),
            Err(SpaceError::Unknown(..))
        ));
        let one = Space::new(Margins::default(), &["frontier"], &[]).unwrap();
        assert!(matches!(
            one.with_schedule(ScheduleEnd::R, &["razor=0.1"]),
            Err(SpaceError::ScheduleUntuned { .. })
        ));
    }
}
