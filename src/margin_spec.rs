//! Margin sets as users write them (`--margins`, `--a`, `--reference`, ..., and `--set`
//! overrides): parsed once into a [`MarginSpec`], then resolved for an engine into [`Margins`]
//! (marginal's own) or a [`Setting`] (any engine), with the warnings a command says about it
//! returned as values (a value that does nothing while its switch is off, a row set twice).
//!
//! It sits above the engine, the tuned files and `check` (a tuned file of another engine is
//! refused as `check` refuses it), so it is no module of `formats/`, which imports none of them.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use crate::engine::{EngineDef, Setting};
use crate::params::{GOVERNED_BY, Margins, PARAMS, ParamError};
use crate::tune::file::{self as tuned, TunedError, TunedFile};

/// A margin set as a user writes it, parsed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarginSpec {
    /// A built-in set by name: one of [`Margins::BUILTIN_NAMES`] (`default`, `off`, `bare`,
    /// `sound`); an external engine has `default` and `off`.
    Builtin(String),
    /// A tuned file: the spec ends in `.json` or names an existing file.
    File(PathBuf),
    /// `name=value` assignments on top of the engine's defaults, in the order given (the last
    /// of a row counts): each piece of the comma-separated list trimmed and split at its first
    /// `=`, so `name=value` gives back the piece as written. Empty pieces are left out.
    Assignments(Vec<(String, String)>),
}

/// A margin set that cannot be used: each message names the spec (or the `--set` assignment)
/// and the value at fault (a user error, exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum MarginSpecError {
    /// Not a built-in name, a file, or assignments (for marginal's own engine).
    #[error(
        "margin set '{spec}': not a built-in set ({}), a .json file, or name=value assignments",
        Margins::BUILTIN_NAMES.join(", ")
    )]
    Unrecognized {
        /// The spec, trimmed.
        spec: String,
    },
    /// Not `default`, `off`, a file, or assignments (for an external engine).
    #[error(
        "margin set '{spec}': for {engine} give default, off, a tuned .json file of it, or name=value assignments"
    )]
    NotForEngine {
        /// The spec, trimmed.
        spec: String,
        /// The engine's name.
        engine: String,
    },
    /// An assignment of an inline set is bad: not `name=value`, an unknown row, a value out of
    /// range.
    #[error("margin set '{spec}': {source}")]
    Assignment {
        /// The whole spec, trimmed.
        spec: String,
        /// What is wrong with the assignment (it names the row and the value).
        source: ParamError,
    },
    /// A `--set` override is bad.
    #[error("--set {assignment}: {source}")]
    Set {
        /// The override as given.
        assignment: String,
        /// What is wrong with it.
        source: ParamError,
    },
    /// A tuned file that cannot be read or parsed (the message names the file, the line and
    /// the value).
    #[error("{0}")]
    File(#[from] TunedError),
    /// A tuned file of marginal's own engine given for an external engine.
    #[error(
        "{spec}: a margin set of marginal's own engine, not of {engine}: play it with marginal's own engine (without the engine option for this side), or tune {engine} for a set of its own (marginal tune {option})"
    )]
    OwnEngineFile {
        /// The file as given.
        spec: String,
        /// The external engine's name.
        engine: String,
        /// The option that names the engine (`--engine FILE` or `--engine-cmd ...`).
        option: String,
    },
    /// A tuned file of another external engine (its recorded rows differ).
    #[error("{spec}: {message}")]
    AnotherEngine {
        /// The file as given.
        spec: String,
        /// What differs, as `check` says it.
        message: String,
    },
    /// A row of the tuned file does not resolve for this engine.
    #[error("{spec}: {source}")]
    Row {
        /// The file as given.
        spec: String,
        /// The row and value at fault.
        source: ParamError,
    },
}

impl MarginSpec {
    /// Parses a spec as users write it: a built-in name, then a file (anything ending in
    /// `.json` or naming an existing file), then a comma-separated `name=value` list.
    ///
    /// # Errors
    /// [`MarginSpecError::Unrecognized`] for anything else; [`MarginSpecError::Assignment`]
    /// for a piece of a list without `=`.
    pub fn parse(spec: &str) -> Result<MarginSpec, MarginSpecError> {
        let spec = spec.trim();
        if Margins::BUILTIN_NAMES.contains(&spec) {
            return Ok(MarginSpec::Builtin(spec.to_string()));
        }
        if spec.ends_with(".json") || Path::new(spec).is_file() {
            return Ok(MarginSpec::File(PathBuf::from(spec)));
        }
        if !spec.contains('=') {
            return Err(MarginSpecError::Unrecognized {
                spec: spec.to_string(),
            });
        }
        spec.split(',')
            .map(str::trim)
            .filter(|piece| !piece.is_empty())
            .map(|piece| {
                piece
                    .split_once('=')
                    .map(|(name, value)| (name.to_string(), value.to_string()))
                    .ok_or_else(|| MarginSpecError::Assignment {
                        spec: spec.to_string(),
                        source: ParamError::NotAssignment(piece.to_string()),
                    })
            })
            .collect::<Result<_, _>>()
            .map(MarginSpec::Assignments)
    }
}

impl FromStr for MarginSpec {
    type Err = MarginSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MarginSpec::parse(s)
    }
}

/// A margin set of marginal's own engine from a spec ([`MarginSpec::parse`]).
///
/// # Errors
/// A spec that does not parse, a bad file, or a bad assignment (naming the spec and value).
pub fn resolve(spec: &str) -> Result<Margins, MarginSpecError> {
    let text = spec.trim();
    match MarginSpec::parse(text)? {
        MarginSpec::Builtin(name) => Margins::builtin(&name).ok_or(MarginSpecError::Unrecognized {
            spec: text.to_string(),
        }),
        MarginSpec::File(path) => Ok(tuned::read_margins(&path)?),
        MarginSpec::Assignments(assignments) => {
            let mut margins = Margins::default();
            for (name, value) in &assignments {
                margins
                    .set(name.trim(), value)
                    .map_err(|source| MarginSpecError::Assignment {
                        spec: text.to_string(),
                        source,
                    })?;
            }
            Ok(margins)
        }
    }
}

/// A margin set of `def`'s engine from a spec: for marginal's own engine as [`resolve`]; for
/// an external one `default`, `off`, a tuned file of that engine, or `name=value` assignments
/// (row names or UCI option names) on top of its defaults.
///
/// # Errors
/// An unknown name or row, a bad value, a file of another engine.
pub fn resolve_for(def: &Arc<EngineDef>, spec: &str) -> Result<Setting, MarginSpecError> {
    if def.is_builtin() {
        return resolve(spec).map(Setting::from);
    }
    let text = spec.trim();
    let not_for_engine = || MarginSpecError::NotForEngine {
        spec: text.to_string(),
        engine: def.name.clone(),
    };
    let parsed = match MarginSpec::parse(text) {
        Err(MarginSpecError::Unrecognized { .. }) => return Err(not_for_engine()),
        parsed => parsed?,
    };
    match parsed {
        MarginSpec::Builtin(name) if name == "default" => Ok(Setting::defaults(def)),
        MarginSpec::Builtin(name) if name == "off" => Ok(Setting::off(def)),
        // A set of marginal's own (`bare`, `sound`) means nothing to another engine; a file
        // of that name is read as any file.
        MarginSpec::Builtin(name) if Path::new(&name).is_file() => file_for(def, Path::new(&name)),
        MarginSpec::Builtin(_) => Err(not_for_engine()),
        MarginSpec::File(path) => file_for(def, &path),
        MarginSpec::Assignments(assignments) => {
            let mut setting = Setting::defaults(def);
            for (name, value) in &assignments {
                setting
                    .set(name.trim(), value)
                    .map_err(|source| MarginSpecError::Assignment {
                        spec: text.to_string(),
                        source,
                    })?;
            }
            Ok(setting)
        }
    }
}

/// The setting of an external engine's tuned file, refused when it is a file of marginal's own
/// engine or of another engine whose rows happen to resolve (it would set other options).
fn file_for(def: &Arc<EngineDef>, path: &Path) -> Result<Setting, MarginSpecError> {
    let spec = path.display().to_string();
    let file = TunedFile::read(path)?;
    let Some(record) = &file.engine else {
        return Err(MarginSpecError::OwnEngineFile {
            spec,
            engine: def.name.clone(),
            option: crate::check::engine_option(def.source.as_deref().unwrap_or(&def.name)),
        });
    };
    if let Some(message) = crate::check::another_engine(record, def, &file.tuned) {
        return Err(MarginSpecError::AnotherEngine { spec, message });
    }
    file.margins
        .resolve(def)
        .map_err(|source| MarginSpecError::Row { spec, source })
}

/// A setting of `def`'s engine from `--margins SPEC` plus `--set name=value` overrides
/// (applied in order, the last of a row counting), with the warnings to say about them (each
/// without its `warning: ` prefix): rows set twice, and, for marginal's own engine, values that
/// do nothing while their technique is switched off.
///
/// # Errors
/// As [`resolve_for`], or a bad override.
pub fn setting_from(
    def: &Arc<EngineDef>,
    spec: &str,
    sets: &[String],
) -> Result<(Setting, Vec<String>), MarginSpecError> {
    let mut setting = resolve_for(def, spec)?;
    for assignment in sets {
        apply(assignment, |name, value| setting.set(name, value))?;
    }
    let mut warnings = repeated_in_spec(spec, |name| def.find(name));
    warnings.extend(repeated_sets(sets, |name| def.find(name)));
    if def.is_builtin() {
        warnings.extend(idle(spec, sets, &setting.margins()));
        if Path::new(spec).is_file() {
            warnings.extend(idle_in_file(spec, &setting.margins()));
        }
    }
    Ok((setting, warnings))
}

/// A margin set of marginal's own engine from `--margins SPEC` plus `--set name=value`
/// overrides, with the warnings to say about them (as [`setting_from`]'s, but for a file's
/// idle rows).
///
/// # Errors
/// As [`resolve`], or a bad override.
pub fn margins_from(
    spec: &str,
    sets: &[String],
) -> Result<(Margins, Vec<String>), MarginSpecError> {
    let mut margins = resolve(spec)?;
    for assignment in sets {
        apply(assignment, |name, value| margins.set(name, value))?;
    }
    let mut warnings = repeated_in_spec(spec, Margins::find);
    warnings.extend(repeated_sets(sets, Margins::find));
    warnings.extend(idle(spec, sets, &margins));
    Ok((margins, warnings))
}

/// Applies one `--set name=value` override through `set` (name trimmed).
fn apply(
    assignment: &str,
    set: impl FnOnce(&str, &str) -> Result<(), ParamError>,
) -> Result<(), MarginSpecError> {
    let (name, value) = assignment
        .split_once('=')
        .ok_or_else(|| ParamError::NotAssignment(assignment.to_string()))
        .map_err(|source| MarginSpecError::Set {
            assignment: assignment.to_string(),
            source,
        })?;
    set(name.trim(), value).map_err(|source| MarginSpecError::Set {
        assignment: assignment.to_string(),
        source,
    })
}

/// The pieces of an inline margin set (`frontier=100, delta=150`) as written, trimmed; none
/// for a spec that names a file or holds no assignment.
fn inline_pieces(spec: &str) -> Vec<&str> {
    if spec.contains('=') && !Path::new(spec).exists() {
        spec.split(',').map(str::trim).collect()
    } else {
        Vec::new()
    }
}

/// A warning per row when a margin-set file gives a row of the built-in engine a value other
/// than its default while the row's technique is switched off in it: the value does nothing
/// (rows at their defaults under a switch that is off by default say nothing). `file` names
/// the file in the warnings.
pub fn idle_in_file(file: &str, margins: &Margins) -> Vec<String> {
    let (values, defaults) = (margins.to_vector(), Margins::default().to_vector());
    let mut warnings = Vec::new();
    for (name, switch) in GOVERNED_BY {
        let (Some(row), Some(s)) = (Margins::find(name), Margins::find(switch)) else {
            continue;
        };
        if values[s] == 0 && values[row] != defaults[row] {
            warnings.push(format!(
                "{file}: {name} is {} but does nothing while {switch} is off (0) in this set",
                values[row]
            ));
        }
    }
    warnings
}

/// A warning per assignment (inline in `spec`, then in `sets`) that gives a value to a row of
/// the built-in engine whose technique is switched off in the set (`--set futility=0 --set
/// frontier=50`): the value does nothing, and the fix is to turn the switch on.
fn idle(spec: &str, sets: &[String], margins: &Margins) -> Vec<String> {
    let values = margins.to_vector();
    let mut warnings = Vec::new();
    for assignment in inline_pieces(spec)
        .into_iter()
        .chain(sets.iter().map(String::as_str))
    {
        let Some(row) = assignment
            .split_once('=')
            .and_then(|(name, _)| Margins::find(name.trim()))
        else {
            continue;
        };
        let name = PARAMS[row].name;
        let Some((_, switch)) = GOVERNED_BY.iter().find(|(governed, _)| *governed == name) else {
            continue;
        };
        if Margins::find(switch).is_some_and(|s| values[s] == 0) {
            warnings.push(format!(
                "{assignment}: {name} does nothing while {switch} is off (0) in this set; turn it on with {switch}=1 beside it"
            ));
        }
    }
    warnings
}

/// A warning per row that `--set` names more than once (the last value counts); `index` finds
/// a name's row, so aliases and UCI names count as the row they name.
fn repeated_sets(sets: &[String], index: impl Fn(&str) -> Option<usize>) -> Vec<String> {
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    repeated("--set ", "", &sets, index)
}

/// A warning per row that a margin set given inline (`--a 'frontier=100,frontier=200'`) names
/// twice (the last value counts).
fn repeated_in_spec(spec: &str, index: impl Fn(&str) -> Option<usize>) -> Vec<String> {
    let pieces = inline_pieces(spec);
    if pieces.is_empty() {
        return Vec::new();
    }
    repeated("", &format!(" in the margin set '{spec}'"), &pieces, index)
}

/// The warnings for assignments that set a row an earlier one set, each after `prefix`, ending
/// in `context`.
fn repeated(
    prefix: &str,
    context: &str,
    assignments: &[&str],
    index: impl Fn(&str) -> Option<usize>,
) -> Vec<String> {
    let mut seen: Vec<(usize, &str)> = Vec::new();
    let mut warnings = Vec::new();
    for assignment in assignments {
        let Some((name, _)) = assignment.split_once('=') else {
            continue;
        };
        let Some(i) = index(name.trim()) else {
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(j, _)| *j == i) {
            warnings.push(format!(
                "{prefix}{assignment} sets the row {prefix}{first} set already{context}: the last one counts"
            ));
        } else {
            seen.push((i, assignment));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(list: &[&str]) -> Vec<String> {
        list.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_margin_spec_of_each_kind_parses_to_its_variant() {
        assert_eq!(
            MarginSpec::parse(" sound ").unwrap(),
            MarginSpec::Builtin("sound".to_string())
        );
        assert_eq!(
            "tuned/none-here.json".parse::<MarginSpec>().unwrap(),
            MarginSpec::File(PathBuf::from("tuned/none-here.json"))
        );
        assert_eq!(
            MarginSpec::parse("frontier=100, delta = 150,").unwrap(),
            MarginSpec::Assignments(vec![
                ("frontier".to_string(), "100".to_string()),
                ("delta ".to_string(), " 150".to_string()),
            ])
        );
        assert!(matches!(
            MarginSpec::parse("bogus"),
            Err(MarginSpecError::Unrecognized { spec }) if spec == "bogus"
        ));
    }

    #[test]
    fn a_bad_assignment_names_the_spec_and_the_value() {
        let e = resolve("frontier=100,delta=banana").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("margin set 'frontier=100,delta=banana': ") && text.contains("banana"),
            "{text}"
        );
        let e = MarginSpec::parse("frontier=100,razor").unwrap_err();
        assert_eq!(
            e.to_string(),
            "margin set 'frontier=100,razor': 'razor' is not of the form name=value"
        );
        let e = margins_from("default", &sets(&["futility_margin"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--set futility_margin: 'futility_margin' is not of the form name=value"
        );
    }

    #[test]
    fn an_unknown_spec_lists_the_built_in_sets() {
        assert_eq!(
            resolve("bogus").unwrap_err().to_string(),
            "margin set 'bogus': not a built-in set (default, off, bare, sound), a .json file, or name=value assignments"
        );
    }

    #[test]
    fn margin_specs_of_every_kind_resolve_for_the_builtin_engine() {
        let dir = std::env::temp_dir().join(format!("marginal-spec-{}", std::process::id()));
        let path = dir.join("x.json");
        let m = Margins::default()
            .with("futility_margin", 150)
            .with("lmr", false);
        tuned::write_margins(&path, &m, &serde_json::json!({"by": "test"})).unwrap();
        assert_eq!(resolve(path.to_str().unwrap()).unwrap(), m);
        std::fs::remove_dir_all(dir).unwrap();
        assert!(matches!(
            resolve("no_such_file.json"),
            Err(MarginSpecError::File(_))
        ));
        assert_eq!(
            resolve("frontier=100,delta=150").unwrap().delta_margin(),
            150
        );
        assert_eq!(resolve("off").unwrap(), Margins::off());
        let def = EngineDef::builtin();
        assert_eq!(resolve_for(&def, "off").unwrap().margins(), Margins::off());
    }

    #[test]
    fn a_row_set_twice_is_a_warning_and_the_last_value_counts() {
        let (m, warnings) = margins_from(
            "frontier=100,frontier=200",
            &sets(&["delta=100", "delta=120"]),
        )
        .unwrap();
        assert_eq!(m.delta_margin(), 120);
        assert_eq!(
            warnings,
            vec![
                "frontier=200 sets the row frontier=100 set already in the margin set 'frontier=100,frontier=200': the last one counts".to_string(),
                "--set delta=120 sets the row --set delta=100 set already: the last one counts".to_string(),
            ]
        );
    }

    #[test]
    fn a_value_under_a_switch_that_is_off_is_a_warning() {
        let (_, warnings) = margins_from("futility=0", &sets(&["frontier=50"])).unwrap();
        assert_eq!(
            warnings,
            vec![
                "frontier=50: futility_margin does nothing while futility is off (0) in this set; turn it on with futility=1 beside it".to_string()
            ]
        );
        let (_, quiet) = margins_from("default", &sets(&["frontier=50"])).unwrap();
        assert_eq!(quiet, Vec::<String>::new());
    }

    #[test]
    fn a_file_value_under_a_switch_that_is_off_is_a_warning() {
        let m = Margins::default()
            .with("futility", false)
            .with("futility_margin", 2);
        assert_eq!(
            idle_in_file("t.json", &m),
            vec!["t.json: futility_margin is 2 but does nothing while futility is off (0) in this set".to_string()]
        );
        assert_eq!(
            idle_in_file("t.json", &Margins::off()),
            Vec::<String>::new()
        );
    }
}
