//! The one parameter table.
//!
//! Every margin and switch of the search is declared exactly once, in the `params!` invocation
//! below. From that single list come the [`Margins`] struct and its defaults, the UCI
//! `setoption` names and ranges, the optimizer's parameter vector and bounds, the export formats
//! and docs/parameters.md's parameter list (`marginal params --markdown`). Adding a margin is one line.
//!
//! Units: margins are in evaluation units (PeSTO centipawns: a pawn is worth 88, a queen 981, see
//! [`crate::engine::eval`]); depths are in plies; counts are moves or pieces.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Whether a parameter is a number (UCI `spin`) or an on/off switch (UCI `check`).
/// The four seed margins by their short aliases: frontier futility (depth 1), extended futility
/// (depth 2), razoring (depth 3), delta pruning (quiescence). What is tuned and calibrated by
/// default.
pub const SEED_MARGINS: [&str; 4] = ["frontier", "prefrontier", "razor", "delta"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// An integer in `[min, max]`.
    Spin,
    /// A boolean, stored as 0 or 1 in parameter vectors.
    Check,
}

/// The built-in engine's rows that act only while a switch is on, each with its switch: a
/// value given to one of them while its switch is off does nothing.
pub const GOVERNED_BY: [(&str, &str); 13] = [
    ("futility_margin", "futility"),
    ("futility_mode", "futility"),
    ("futility_seed_guards", "futility"),
    ("ext_futility_margin", "ext_futility"),
    ("razor_margin", "razoring"),
    ("razor_min_pieces", "razoring"),
    ("delta_margin", "delta_pruning"),
    ("delta_endgame_material", "delta_pruning"),
    ("deep_futility_margin", "deep_futility"),
    ("deep_futility_depth", "deep_futility"),
    ("lmp_depth", "late_move_pruning"),
    ("lmp_base", "late_move_pruning"),
    ("null_move_r", "null_move"),
];

/// SPSA's default final learning rate (`r_end`), OpenBench's customary 0.002.
pub const DEFAULT_R_END: f64 = 0.002;

/// The static description of one tunable parameter: one row of the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// The snake_case name used in tuned files, `--set name=value`, and as the field name.
    pub name: &'static str,
    /// The UCI option name (CamelCase), as a GUI shows it.
    pub uci_name: &'static str,
    /// A short name engine authors use (`frontier`, `razor`, ...); matched ignoring case and `_`.
    pub alias: Option<&'static str>,
    /// Spin or check.
    pub kind: ParamKind,
    /// The default value (0 or 1 for a check).
    pub default: i32,
    /// Smallest allowed value (inclusive).
    pub min: i32,
    /// Largest allowed value (inclusive).
    pub max: i32,
    /// The step an optimizer (SPSA) perturbs it by at the end of a run (OpenBench's and
    /// fishtest's `c_end`), in the parameter's units; 0 means "not tunable".
    pub step: i32,
    /// SPSA's learning rate at the end of a run (OpenBench's and fishtest's `r_end`): the last
    /// step moves a parameter by about `r_end * step * step` per unit of gradient signal.
    pub r_end: f64,
    /// One line on what it does, with its unit.
    pub doc: &'static str,
}

impl ParamSpec {
    /// The UCI `option` line that declares this parameter.
    pub fn uci_option(&self) -> String {
        match self.kind {
            ParamKind::Spin => format!(
                "option name {} type spin default {} min {} max {}",
                self.uci_name, self.default, self.min, self.max
            ),
            ParamKind::Check => format!(
                "option name {} type check default {}",
                self.uci_name,
                self.uci_value(self.default)
            ),
        }
    }

    /// A value of this parameter as UCI writes it: the number for a spin, `true` or `false`
    /// (any non-zero value is `true`) for a check.
    pub fn uci_value(&self, value: i32) -> String {
        uci_value(self.kind, value)
    }
}

/// An error setting a parameter by name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// No parameter has this name.
    #[error("unknown parameter '{0}' (see `marginal params` for the list)")]
    Unknown(String),
    /// An external engine has no row of this name.
    #[error("{engine} has no row '{name}' (its rows: {rows})")]
    UnknownRow {
        /// The name given.
        name: String,
        /// The engine (its name and where it is described).
        engine: String,
        /// Its rows, comma-separated.
        rows: String,
    },
    /// The text is not a number (spin) or true/false/on/off/1/0 (check).
    #[error("parameter '{name}': '{value}' is not a valid {kind}")]
    BadValue {
        /// Parameter name.
        name: String,
        /// The offending text.
        value: String,
        /// "integer" or "boolean".
        kind: &'static str,
    },
    /// The number is outside `[min, max]`.
    #[error("parameter '{name}': {value} is outside [{min}, {max}]")]
    OutOfRange {
        /// Parameter name.
        name: String,
        /// The offending value.
        value: i64,
        /// Lower bound.
        min: i32,
        /// Upper bound.
        max: i32,
    },
    /// A `name=value` assignment without `=`.
    #[error("'{0}' is not of the form name=value")]
    NotAssignment(String),
}

macro_rules! params {
    ($( $kind:ident $field:ident : $uci:literal $(alias $alias:literal)? = $default:expr, [$min:expr, $max:expr], step $step:expr $(, r_end $r_end:expr)?, $doc:literal; )*) => {
        /// A complete margin set: every margin and switch of the search. `Default` is the
        /// seed articles' values.
        ///
        /// Invariant: every value is within its table range, whatever built it. The fields are
        /// private; values come in only through [`Margins::set`], [`Margins::set_index`] (which
        /// clamps), [`Margins::with`], the vector API and deserialisation (which range-checks),
        /// and are read through one accessor per field.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Margins {
            $( $field: params!(@ty $kind), )*
        }

        impl Default for Margins {
            fn default() -> Self {
                Margins { $( $field: params!(@from_i32 $kind, $default), )* }
            }
        }

        /// The parameter table, in declaration order.
        pub const PARAMS: &[ParamSpec] = &[
            $( ParamSpec {
                name: stringify!($field),
                uci_name: $uci,
                alias: params!(@alias $($alias)?),
                kind: params!(@kind $kind),
                default: $default,
                min: $min,
                max: $max,
                step: $step,
                r_end: params!(@r_end $($r_end)?),
                doc: $doc,
            }, )*
        ];

        impl Margins {
            $(
                #[doc = $doc]
                #[inline]
                pub fn $field(&self) -> params!(@ty $kind) {
                    self.$field
                }
            )*

            /// The value of parameter `index` (a [`PARAMS`] index) as an integer (checks are
            /// 0/1).
            ///
            /// # Panics
            /// If `index` is not a [`PARAMS`] index.
            pub fn get_index(&self, index: usize) -> i32 {
                let mut i = 0usize;
                $(
                    if i == index { return params!(@to_i32 $kind, self.$field); }
                    i += 1;
                )*
                let _ = i;
                panic!("parameter index {index} out of range")
            }

            /// Sets parameter `index` from an integer, clamped to its range (so the invariant
            /// holds).
            pub fn set_index(&mut self, index: usize, value: i32) {
                let spec = &PARAMS[index];
                let value = value.clamp(spec.min, spec.max);
                let mut i = 0usize;
                $(
                    if i == index { self.$field = params!(@from_i32 $kind, value); return; }
                    i += 1;
                )*
                let _ = i;
            }
        }
    };
    (@r_end) => { DEFAULT_R_END };
    (@r_end $r:expr) => { $r };
    (@alias) => { None };
    (@alias $a:literal) => { Some($a) };
    (@ty spin) => { i32 };
    (@ty check) => { bool };
    (@ty mode) => { FutilityMode };
    (@kind spin) => { ParamKind::Spin };
    (@kind check) => { ParamKind::Check };
    (@kind mode) => { ParamKind::Spin };
    (@from_i32 spin, $v:expr) => { $v };
    (@from_i32 check, $v:expr) => { $v != 0 };
    (@from_i32 mode, $v:expr) => { FutilityMode::from_index($v) };
    (@to_i32 spin, $v:expr) => { $v };
    (@to_i32 check, $v:expr) => { $v as i32 };
    (@to_i32 mode, $v:expr) => { $v as i32 };
}

/// What a futile frontier node does (the `futility_mode` parameter, 0..2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FutilityMode {
    /// 0: skip the futile moves one by one (Heinz's per-move futility pruning).
    Moves = 0,
    /// 1: drop straight to quiescence.
    Quiescence = 1,
    /// 2: return the static evaluation.
    Evaluation = 2,
}

impl FutilityMode {
    /// The mode of a table value; values are clamped to the table range before this is called,
    /// so anything past 2 is [`FutilityMode::Evaluation`].
    const fn from_index(v: i32) -> FutilityMode {
        match v {
            ..=0 => FutilityMode::Moves,
            1 => FutilityMode::Quiescence,
            _ => FutilityMode::Evaluation,
        }
    }
}

impl From<FutilityMode> for i32 {
    fn from(mode: FutilityMode) -> i32 {
        mode as i32
    }
}

params! {
    check futility: "FutilityPruning" = 1, [0, 1], step 0,
        "Frontier futility pruning (depth 1): skip a move when eval + margin (+ captured value) <= alpha.";
    spin futility_margin: "FutilityMargin" alias "frontier" = 125, [0, 1500], step 10,
        "Frontier futility margin, eval units (seed: 125).";
    mode futility_mode: "FutilityMode" = 0, [0, 2], step 0,
        "What a futile frontier node does: 0 skips futile moves one by one, 1 drops to quiescence, 2 returns the evaluation.";
    check futility_seed_guards: "FutilitySeedGuards" = 1, [0, 1], step 0,
        "Also never prune rook/queen moves to the 7th, queen captures, captures of a lone bishop pair bishop, or of pawns on their 2nd/3rd rank (seed 000).";
    check ext_futility: "ExtFutilityPruning" = 1, [0, 1], step 0,
        "Extended futility pruning at pre-frontier nodes (depth 2).";
    spin ext_futility_margin: "ExtFutilityMargin" alias "prefrontier" = 500, [0, 3000], step 25,
        "Extended futility margin, eval units (seed: 500, about a rook).";
    check razoring: "Razoring" = 1, [0, 1], step 0,
        "Limited razoring at depth 3: reduce by one ply when eval + margin <= alpha.";
    spin razor_margin: "RazorMargin" alias "razor" = 980, [0, 4000], step 40,
        "Razoring margin, eval units (seed: about a queen).";
    spin razor_min_pieces: "RazorMinPieces" = 3, [0, 14], step 0,
        "Razor only when the opponent has more than this many pieces (knights, bishops, rooks, queens).";
    check delta_pruning: "DeltaPruning" = 1, [0, 1], step 0,
        "Delta pruning in quiescence, per capture and the node-level early exit.";
    spin delta_margin: "DeltaMargin" alias "delta" = 200, [0, 1500], step 10,
        "Delta margin, eval units (seed: 200).";
    spin delta_endgame_material: "DeltaEndgameMaterial" = 1300, [0, 8000], step 0,
        "Delta pruning is off when both sides' knights, bishops, rooks and queens together are worth this or less (late endgame).";
    check deep_futility: "DeepFutility" = 0, [0, 1], step 0,
        "Deep futility pruning (Muller): prune a node when even winning the opponent's two best pieces cannot reach alpha.";
    spin deep_futility_margin: "DeepFutilityMargin" = 100, [0, 1000], step 10,
        "Deep futility positional margin (counted twice), eval units.";
    spin deep_futility_depth: "DeepFutilityDepth" = 5, [2, 10], step 0,
        "Deep futility applies at depths 2 to this (3 + R with the null-move R).";
    check late_move_pruning: "LateMovePruning" = 0, [0, 1], step 0,
        "Move-count-based pruning of late quiet moves at shallow depth.";
    spin lmp_depth: "LmpDepth" = 3, [1, 10], step 0,
        "Late move pruning applies at depths up to this, plies.";
    spin lmp_base: "LmpBase" = 4, [1, 64], step 1,
        "Late move pruning keeps the first lmp_base + depth^2 moves.";
    check null_move: "NullMove" = 1, [0, 1], step 0,
        "Null-move pruning (off in check, at PV nodes and without knights, bishops, rooks or queens).";
    spin null_move_r: "NullMoveR" = 3, [1, 6], step 0,
        "Null-move depth reduction R, plies (plus depth/6).";
    check lmr: "LateMoveReductions" = 1, [0, 1], step 0,
        "Late move reductions of quiet moves, re-searched at full depth when they raise alpha.";
    check aspiration: "AspirationWindows" = 1, [0, 1], step 0,
        "Aspiration windows around the previous iteration's score.";
}

impl Margins {
    /// Every margin-based pruning technique of the seeds off (futility, extended futility,
    /// razoring, delta, deep futility, late move pruning); null move and late move reductions
    /// stay as in the defaults. The reference against which margins are measured: it shows
    /// exactly what the margins buy.
    pub fn off() -> Self {
        Margins {
            futility: false,
            ext_futility: false,
            razoring: false,
            delta_pruning: false,
            deep_futility: false,
            late_move_pruning: false,
            ..Margins::default()
        }
    }

    /// Everything off, null move and late move reductions too: plain PVS with quiescence.
    /// The baseline of Heinz's theorem.
    pub fn bare() -> Self {
        Margins {
            null_move: false,
            lmr: false,
            ..Margins::off()
        }
    }

    /// The parameter with this snake_case name, UCI name (case-insensitive) or short alias
    /// (`frontier`, `prefrontier` or `pre_frontier`, `razor`, `delta`).
    pub fn find(name: &str) -> Option<usize> {
        let squash = |s: &str| s.replace('_', "").to_ascii_lowercase();
        PARAMS.iter().position(|p| {
            p.name == name
                || p.uci_name.eq_ignore_ascii_case(name)
                || p.alias.is_some_and(|a| squash(a) == squash(name))
        })
    }

    /// Sets parameter `name` to `value` (a number; `true`/`false` or a [`FutilityMode`] for the
    /// other kinds), checking the name and the range.
    pub fn try_with(mut self, name: &str, value: impl Into<i32>) -> Result<Self, ParamError> {
        let index = Margins::find(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        self.set_checked(index, i64::from(value.into()))?;
        Ok(self)
    }

    /// [`Margins::try_with`] for names and values written in code (built-in sets, tests).
    ///
    /// # Panics
    /// If the name is unknown or the value outside its range: a mistake in the code, not in
    /// input.
    pub fn with(self, name: &str, value: impl Into<i32>) -> Self {
        self.try_with(name, value)
            .unwrap_or_else(|e| panic!("Margins::with: {e}"))
    }

    /// Sets parameter `index` to `number` if it is within the range.
    fn set_checked(&mut self, index: usize, number: i64) -> Result<(), ParamError> {
        let spec = &PARAMS[index];
        let value = in_range(spec.name, number, spec.min, spec.max)?;
        self.set_index(index, value);
        Ok(())
    }

    /// Sets a parameter by name from text, checking the range.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ParamError> {
        let index = Margins::find(name).ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        let spec = &PARAMS[index];
        let value = value.trim();
        let number: i64 = match spec.kind {
            ParamKind::Check => match value.to_ascii_lowercase().as_str() {
                "true" | "on" | "1" | "yes" => 1,
                "false" | "off" | "0" | "no" => 0,
                _ => {
                    return Err(ParamError::BadValue {
                        name: spec.name.to_string(),
                        value: value.to_string(),
                        kind: "boolean",
                    });
                }
            },
            ParamKind::Spin => value.parse().map_err(|_| ParamError::BadValue {
                name: spec.name.to_string(),
                value: value.to_string(),
                kind: "integer",
            })?,
        };
        self.set_checked(index, number)
    }

    /// Applies one `name=value` assignment.
    pub fn apply_assignment(&mut self, assignment: &str) -> Result<(), ParamError> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| ParamError::NotAssignment(assignment.to_string()))?;
        self.set(name.trim(), value)
    }

    /// All parameter values as a vector in table order (checks as 0/1).
    pub fn to_vector(&self) -> Vec<i32> {
        (0..PARAMS.len()).map(|i| self.get_index(i)).collect()
    }

    /// Builds a margin set from a vector in table order, clamping each value to its range.
    pub fn from_vector(values: &[i32]) -> Self {
        let mut margins = Margins::default();
        for (i, &v) in values.iter().enumerate().take(PARAMS.len()) {
            margins.set_index(i, v);
        }
        margins
    }

    /// The parameters whose value differs from `other`, as `(spec, self value, other value)`.
    pub fn diff(&self, other: &Margins) -> Vec<(&'static ParamSpec, i32, i32)> {
        PARAMS
            .iter()
            .enumerate()
            .filter_map(|(i, spec)| {
                let (a, b) = (self.get_index(i), other.get_index(i));
                (a != b).then_some((spec, a, b))
            })
            .collect()
    }
}

impl fmt::Display for Margins {
    /// Writes `name=value` pairs separated by spaces, in table order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, spec) in PARAMS.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}={}", spec.name, self.get_index(i))?;
        }
        Ok(())
    }
}

impl Serialize for Margins {
    /// A map of every parameter in table order: numbers for spins, booleans for checks.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(PARAMS.len()))?;
        for (i, spec) in PARAMS.iter().enumerate() {
            let v = self.get_index(i);
            match spec.kind {
                ParamKind::Spin => map.serialize_entry(spec.name, &v)?,
                ParamKind::Check => map.serialize_entry(spec.name, &(v != 0))?,
            }
        }
        map.end()
    }
}

/// One value of a serialised margin set: a number or a boolean.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawValue {
    Bool(bool),
    Number(i64),
}

impl<'de> Deserialize<'de> for Margins {
    /// A map of `name: value` (table names, UCI names or aliases) on top of the defaults. Every
    /// value is checked against its range, so a deserialised set keeps the invariant; unknown
    /// names and out-of-range values are errors naming them.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let map = std::collections::BTreeMap::<String, RawValue>::deserialize(deserializer)?;
        let mut margins = Margins::default();
        for (name, value) in map {
            let text = match value {
                RawValue::Bool(b) => b.to_string(),
                RawValue::Number(n) => n.to_string(),
            };
            margins.set(&name, &text).map_err(D::Error::custom)?;
        }
        Ok(margins)
    }
}

/// One tunable row of an engine's parameters, owned: the built-in engine's table
/// ([`builtin_rows`]) and an external engine's file (`formats::engine_file`) both describe
/// their engine as a list of these, so optimizers, exports and `check` see one kind of thing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The name used in tuned files, `--set name=value`, `--params` and exported constants.
    pub name: String,
    /// The UCI option that carries it.
    pub uci_name: String,
    /// Spin or check.
    pub kind: ParamKind,
    /// The engine's default value.
    pub default: i32,
    /// Smallest allowed value (inclusive).
    pub min: i32,
    /// Largest allowed value (inclusive).
    pub max: i32,
    /// SPSA's final perturbation (`c_end`), parameter units; 0 means "not tunable".
    pub step: i32,
    /// SPSA's final learning rate (`r_end`).
    pub r_end: f64,
    /// The value that turns the technique off: the reference run uses it.
    pub off: i32,
}

impl Row {
    /// A value of this row as UCI writes it (see [`ParamSpec::uci_value`]).
    pub fn uci_value(&self, value: i32) -> String {
        uci_value(self.kind, value)
    }

    /// Whether `name` names this row: its name or its UCI name, ignoring case, `_`, `-` and
    /// spaces.
    pub fn answers_to(&self, name: &str) -> bool {
        let squash = |s: &str| {
            s.chars()
                .filter(|c| !matches!(c, '_' | '-' | ' '))
                .collect::<String>()
                .to_ascii_lowercase()
        };
        squash(&self.name) == squash(name) || squash(&self.uci_name) == squash(name)
    }
}

/// The built-in engine described as rows: every row of [`PARAMS`], with [`Margins::off`]'s
/// value as its off value.
pub fn builtin_rows() -> Vec<Row> {
    let off = Margins::off();
    PARAMS
        .iter()
        .enumerate()
        .map(|(i, p)| Row {
            name: p.name.to_string(),
            uci_name: p.uci_name.to_string(),
            kind: p.kind,
            default: p.default,
            min: p.min,
            max: p.max,
            step: p.step,
            r_end: p.r_end,
            off: off.get_index(i),
        })
        .collect()
}

/// `number` as a value of the parameter `name` if it is within `[min, max]`.
///
/// # Errors
/// [`ParamError::OutOfRange`] naming the parameter.
pub fn in_range(name: &str, number: i64, min: i32, max: i32) -> Result<i32, ParamError> {
    if number < i64::from(min) || number > i64::from(max) {
        return Err(ParamError::OutOfRange {
            name: name.to_string(),
            value: number,
            min,
            max,
        });
    }
    Ok(number as i32)
}

/// A value of a parameter of `kind` as UCI writes it: the number for a spin, `true` or `false`
/// (any non-zero value is `true`) for a check.
pub fn uci_value(kind: ParamKind, value: i32) -> String {
    match kind {
        ParamKind::Spin => value.to_string(),
        ParamKind::Check => (value != 0).to_string(),
    }
}

/// The parameter table as a Markdown table (for docs/parameters.md and `marginal params --markdown`).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| name (alias) | UCI option | type | default | range | SPSA c_end, r_end | what it does |\n|---|---|---|---|---|---|---|\n",
    );
    for p in PARAMS {
        let kind = match p.kind {
            ParamKind::Spin => "spin",
            ParamKind::Check => "check",
        };
        let default = match p.kind {
            ParamKind::Spin => p.default.to_string(),
            ParamKind::Check => (p.default != 0).to_string(),
        };
        let alias = p.alias.map_or(String::new(), |a| format!(" (`{a}`)"));
        let tuning = if p.step > 0 {
            format!("{}, {}", p.step, p.r_end)
        } else {
            "-".to_string()
        };
        out.push_str(&format!(
            "| `{}`{} | `{}` | {} | {} | {}..{} | {} | {} |\n",
            p.name, alias, p.uci_name, kind, default, p.min, p.max, tuning, p.doc
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_governed_row_and_its_switch_exist_and_the_switch_is_a_check() {
        for (row, switch) in GOVERNED_BY {
            let row = Margins::find(row).unwrap_or_else(|| panic!("no row {row}"));
            let switch = Margins::find(switch).unwrap_or_else(|| panic!("no switch {switch}"));
            assert_eq!(PARAMS[switch].kind, ParamKind::Check);
            assert_ne!(row, switch);
        }
    }

    #[test]
    fn defaults_come_from_the_table() {
        let m = Margins::default();
        for (i, spec) in PARAMS.iter().enumerate() {
            assert_eq!(m.get_index(i), spec.default, "{}", spec.name);
            assert!(
                spec.min <= spec.default && spec.default <= spec.max,
                "{}",
                spec.name
            );
        }
        assert_eq!(m.futility_margin, 125);
        assert_eq!(m.ext_futility_margin, 500);
        assert_eq!(m.delta_margin, 200);
        assert!(m.futility && !m.deep_futility && !m.late_move_pruning);
    }

    #[test]
    fn names_are_unique() {
        for (i, a) in PARAMS.iter().enumerate() {
            for b in &PARAMS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert!(!a.uci_name.eq_ignore_ascii_case(b.uci_name));
                assert!(a.alias.is_none() || a.alias != b.alias);
            }
        }
    }

    #[test]
    fn set_by_either_name_with_range_checks() {
        let mut m = Margins::default();
        m.set("futility_margin", "150").unwrap();
        assert_eq!(m.futility_margin, 150);
        m.set("futilitymargin", "160").unwrap();
        assert_eq!(m.futility_margin, 160);
        m.set("NullMove", "false").unwrap();
        m.set("frontier", "140").unwrap();
        assert_eq!(m.futility_margin, 140);
        m.set("pre_frontier", "450").unwrap();
        assert_eq!(m.ext_futility_margin, 450);
        assert!(!m.null_move);
        assert!(matches!(
            m.set("futility_margin", "-5"),
            Err(ParamError::OutOfRange { .. })
        ));
        assert!(matches!(
            m.set("futility_margin", "abc"),
            Err(ParamError::BadValue { .. })
        ));
        assert!(matches!(m.set("nope", "1"), Err(ParamError::Unknown(_))));
        assert!(matches!(
            m.apply_assignment("futility_margin"),
            Err(ParamError::NotAssignment(_))
        ));
    }

    #[test]
    fn vector_round_trip_and_clamping() {
        let m = Margins {
            razor_margin: 777,
            lmr: false,
            ..Margins::default()
        };
        assert_eq!(Margins::from_vector(&m.to_vector()), m);
        let mut v = m.to_vector();
        let i = Margins::find("delta_margin").unwrap();
        v[i] = 1_000_000;
        assert_eq!(Margins::from_vector(&v).delta_margin, PARAMS[i].max);
    }

    #[test]
    fn serde_round_trip_rejects_unknown_fields() {
        let m = Margins::bare().with("futility_margin", 1356);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Margins>(&json).unwrap(), m);
        assert!(serde_json::from_str::<Margins>(r#"{"futility_margn": 3}"#).is_err());
        // Missing fields take their defaults.
        let partial: Margins = serde_json::from_str(r#"{"futility_margin": 99}"#).unwrap();
        assert_eq!(partial.futility_margin, 99);
        assert_eq!(partial.delta_margin, 200);
    }

    #[test]
    fn every_way_in_keeps_values_in_range() {
        // Deserialisation checks ranges, and names the parameter and value.
        let e = serde_json::from_str::<Margins>(r#"{"futility_margin": 99999}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("futility_margin") && e.contains("99999"), "{e}");
        assert!(serde_json::from_str::<Margins>(r#"{"futility_mode": 3}"#).is_err());
        assert!(serde_json::from_str::<Margins>(r#"{"null_move_r": 0}"#).is_err());
        assert!(serde_json::from_str::<Margins>(r#"{"lmr": 2}"#).is_err());
        assert!(serde_json::from_str::<Margins>(r#"{"lmr": "yes"}"#).is_err());
        // Aliases and booleans as written in tuned files.
        let m: Margins = serde_json::from_str(r#"{"frontier": 90, "NullMove": false}"#).unwrap();
        assert_eq!((m.futility_margin(), m.null_move()), (90, false));
        // The builder checks; the index setter clamps.
        assert!(Margins::default().try_with("razor_margin", -1).is_err());
        assert!(Margins::default().try_with("no_such", 1).is_err());
        assert_eq!(
            Margins::default()
                .with("futility_mode", FutilityMode::Evaluation)
                .futility_mode(),
            FutilityMode::Evaluation
        );
        let mut m = Margins::default();
        for (i, spec) in PARAMS.iter().enumerate() {
            m.set_index(i, i32::MIN);
            assert_eq!(m.get_index(i), spec.min, "{}", spec.name);
            m.set_index(i, i32::MAX);
            assert_eq!(m.get_index(i), spec.max, "{}", spec.name);
        }
        // Serialising writes every parameter and reads back equal.
        let json = serde_json::to_value(m).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), PARAMS.len());
        assert_eq!(serde_json::from_value::<Margins>(json).unwrap(), m);
    }

    #[test]
    #[should_panic(expected = "outside")]
    fn with_refuses_out_of_range_values_written_in_code() {
        let _ = Margins::default().with("delta_margin", 100_000);
    }

    #[test]
    fn uci_values_are_numbers_or_booleans() {
        let margin = &PARAMS[Margins::find("futility_margin").unwrap()];
        let switch = &PARAMS[Margins::find("null_move").unwrap()];
        assert_eq!(margin.uci_value(130), "130");
        assert_eq!(
            (switch.uci_value(1), switch.uci_value(0)),
            ("true".into(), "false".into())
        );
        assert_eq!(
            switch.uci_option(),
            "option name NullMove type check default true"
        );
    }

    #[test]
    fn markdown_lists_every_parameter() {
        let md = markdown_table();
        for p in PARAMS {
            assert!(md.contains(p.uci_name));
        }
    }
}
