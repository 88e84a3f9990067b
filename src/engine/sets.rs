//! The built-in margin sets, by name: `default`, `off` and `bare` come from the parameter
//! table; `sound` needs the evaluation's proven positional bound, which only the engine knows.

use std::str::FromStr;

use super::eval::MAX_POSITIONAL_SWING;
use crate::params::{FutilityMode, Margins, ParamError};

impl Margins {
    /// Heinz's sound set: [`Margins::bare`] plus frontier futility pruning with its margin at
    /// the evaluation's proven bound on the positional swing of one move
    /// ([`MAX_POSITIONAL_SWING`]). With the transposition table off, a search with this set
    /// returns the same root score as [`Margins::bare`] at every depth.
    pub fn sound() -> Self {
        Margins::bare()
            .with("futility", true)
            .with("futility_margin", MAX_POSITIONAL_SWING)
            .with("futility_mode", FutilityMode::Moves)
    }

    /// Names of the built-in margin sets.
    pub const BUILTIN_NAMES: [&'static str; 4] = ["default", "off", "bare", "sound"];

    /// A built-in margin set by name (one of [`Margins::BUILTIN_NAMES`]).
    pub fn builtin(name: &str) -> Option<Self> {
        let build: [fn() -> Margins; 4] = [
            Margins::default,
            Margins::off,
            Margins::bare,
            Margins::sound,
        ];
        Margins::BUILTIN_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| build[i]())
    }
}

impl FromStr for Margins {
    type Err = ParamError;

    /// Parses a built-in name (`default`, `off`, `bare`, `sound`) or a comma-separated list of
    /// `name=value` assignments applied on top of the defaults.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(m) = Margins::builtin(s.trim()) {
            return Ok(m);
        }
        let mut margins = Margins::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            margins.apply_assignment(part)?;
        }
        Ok(margins)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_builtin_and_assignments() {
        assert_eq!("off".parse::<Margins>().unwrap(), Margins::off());
        let m: Margins = "futility_margin=90, delta_pruning=off".parse().unwrap();
        assert_eq!(m.futility_margin(), 90);
        assert!(!m.delta_pruning());
        assert_eq!(m.diff(&Margins::default()).len(), 2);
        let text = m.to_string();
        assert!(text.contains("futility_margin=90"));
    }

    #[test]
    fn sound_is_bare_plus_futility_at_the_proven_bound() {
        let sound = Margins::sound();
        assert_eq!(sound.futility_margin(), MAX_POSITIONAL_SWING);
        assert!(sound.futility() && !sound.null_move() && !sound.ext_futility());
        for name in Margins::BUILTIN_NAMES {
            assert!(Margins::builtin(name).is_some(), "{name}");
        }
    }
}
