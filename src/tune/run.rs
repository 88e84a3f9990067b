//! A tune run's home on disk: its identity, its checkpoint directory (whose run it is, what it
//! records, whether an earlier run of the same plan lives there), and the engine it started
//! with. A front end opens a run with [`identity`], [`check_checkpoint`] and
//! [`make_checkpoint`], then hands the directory to [`super::pipeline::run`]. Nothing here
//! prints: what the user should hear comes back as [`Said`]s.

use std::path::{Path, PathBuf};

use super::checkpoint::{self, RecordedEngine};
use super::file::TunedFile;
use super::plan::{PLAN_FILE, TuneOptions, TunePlan};
use crate::engine::{EngineDef, bench};
use crate::progress::Said;
use crate::scoring::suite::LoadedSuites;

pub use super::remark::RunError;

/// The run `--resume DIR` goes on with: the plan recorded in `dir`, run with this
/// invocation's options `opts` (threads, force) from `dir`. `--engine FILE` given here (taken
/// out of `given`) stands for the recorded engine file, taken as it is now. The options of
/// `given` that differ from `bare` (the plan of `--resume DIR` alone) are ignored, and said
/// so in `remarks`, with the logs whose last line was cut short.
///
/// # Errors
/// The directory holds no readable plan.
pub fn resume(
    dir: &Path,
    given: &mut TunePlan,
    opts: &TuneOptions,
    bare: Option<&TunePlan>,
    remarks: &mut Vec<Said>,
) -> Result<(TunePlan, TuneOptions), RunError> {
    let mut plan = TunePlan::read(dir).map_err(|e| RunError::Refused(format!("--resume {e}")))?;
    let mut opts = TuneOptions {
        checkpoint: Some(dir.to_path_buf()),
        resume: Some(dir.to_path_buf()),
        ..opts.clone()
    };
    if let Some(engine) = given.engine.engine.take() {
        plan.engine.engine = Some(engine);
        opts.engine_as_is = true;
    }
    if let Some(warning) = bare.and_then(|bare| ignored_with_resume(given, bare, dir)) {
        remarks.push(Said::Warning(warning));
    }
    for log in checkpoint::cut_logs(dir) {
        remarks.push(Said::Warning(format!(
            "{}: its last line was cut short (the run was killed while writing it): that record is dropped, and its work is done again if the run needs it",
            log.display()
        )));
    }
    Ok((plan, opts))
}

/// The options of a command line that `--resume DIR` ignores (those that differ from a bare
/// `--resume DIR`'s plan, as `--option` names), in a warning; none when every one agrees.
fn ignored_with_resume(given: &TunePlan, bare: &TunePlan, dir: &Path) -> Option<String> {
    let (Ok(serde_json::Value::Object(given)), Ok(serde_json::Value::Object(plain))) =
        (serde_json::to_value(given), serde_json::to_value(bare))
    else {
        return None;
    };
    let mut ignored: Vec<String> = given
        .iter()
        .filter(|(k, v)| plain.get(*k) != Some(v))
        .chain(plain.iter().filter(|(k, _)| !given.contains_key(*k)))
        .map(|(k, _)| format!("--{}", k.replace('_', "-")))
        .collect();
    ignored.sort();
    ignored.dedup();
    (!ignored.is_empty()).then(|| {
        format!(
            "--resume {} runs with the arguments recorded there; {} given here {} ignored (start a new run, without --resume, to change them)",
            dir.display(),
            ignored.join(", "),
            if ignored.len() == 1 { "is" } else { "are" }
        )
    })
}

/// The tuned file's record of the run's arguments: its plan, and the checkpoint directory that
/// holds its evaluations (`provenance.arguments.checkpoint`).
///
/// # Errors
/// The plan does not serialize (it always does).
pub fn recorded_arguments(plan: &TunePlan, dir: &Path) -> serde_json::Result<serde_json::Value> {
    let mut arguments = serde_json::to_value(plan)?;
    arguments["checkpoint"] = serde_json::json!(dir);
    Ok(arguments)
}

/// The run's identity ([`TunePlan::run_id`]) with `def`'s engine: the bench signature of
/// marginal's own, an external engine's signature (`signature`, when given, stands for it: the
/// identity the run would have had with its engine file as it was then).
pub fn run_id(
    plan: &TunePlan,
    def: &EngineDef,
    signature: Option<&str>,
    train: &LoadedSuites,
    validation: &LoadedSuites,
) -> String {
    let engine = if def.is_builtin() {
        bench::signature().to_string()
    } else {
        signature.map_or(def.signature(), String::from)
    };
    plan.run_id(&engine, train.content_hash, validation.content_hash)
}

/// The checkpoints a run may have left of this plan: the one resumed or given with
/// `--checkpoint`, else every default one of the same output under `cache` (`tune-STEM-RUN`).
pub fn checkpoints_of(plan: &TunePlan, opts: &TuneOptions, cache: &Path) -> Vec<PathBuf> {
    if let Some(dir) = &opts.checkpoint {
        return vec![dir.clone()];
    }
    let stem = plan.out.file_stem().unwrap_or_default().to_string_lossy();
    let prefix = format!("tune-{stem}-");
    let Ok(entries) = std::fs::read_dir(cache) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(&prefix))
                .is_some_and(|run| run.len() == 16 && run.bytes().all(|b| b.is_ascii_hexdigit()))
        })
        .collect();
    dirs.sort();
    dirs
}

/// The engine the run in `dir` (run `run`) started with: as the checkpoint records it, else
/// (a checkpoint written before it was) as the run's tuned file `out` records it.
fn engine_then(dir: &Path, run: &str, out: &Path) -> Option<RecordedEngine> {
    checkpoint::recorded_engine(dir).or_else(|| {
        let file = TunedFile::read(out).ok()?;
        let record = file.engine.filter(|_| file.provenance.run == run)?;
        Some(RecordedEngine {
            name: record.name,
            source: Some(record.source),
            signature: record.signature,
        })
    })
}

/// What a run is opened from: its plan, how this invocation runs it, its engine, its
/// positions, and the cache directory of default checkpoints.
pub struct Opening<'a> {
    /// The plan.
    pub plan: &'a TunePlan,
    /// How this invocation runs it.
    pub opts: &'a TuneOptions,
    /// The engine.
    pub def: &'a EngineDef,
    /// The training positions.
    pub train: &'a LoadedSuites,
    /// The validation positions.
    pub validation: &'a LoadedSuites,
    /// Where default checkpoints live.
    pub cache: &'a Path,
}

impl Opening<'_> {
    fn run_id(&self, signature: Option<&str>) -> String {
        run_id(self.plan, self.def, signature, self.train, self.validation)
    }
}

/// The run's identity, with an engine file that changed since a checkpoint of this same plan
/// was started said as such rather than as another run: a resume is refused naming the file
/// and `--engine` (given, it resumes with the file as it is now, keeping the run's identity);
/// a rerun whose output that run wrote is refused naming the change and `--force`; a rerun of
/// an interrupted one starts afresh and says where the old one is and how to resume it.
///
/// # Errors
/// [`RunError::Refused`] as above.
pub fn identity(run: &Opening, remarks: &mut Vec<Said>) -> Result<String, RunError> {
    let id = run.run_id(None);
    let Some(file) = (run.def.source.as_deref()).filter(|s| !s.starts_with("--engine-cmd")) else {
        remarks.extend(data_changed(run, &id));
        return Ok(id);
    };
    for dir in checkpoints_of(run.plan, run.opts, run.cache) {
        let Some(then) = checkpoint::recorded_run(&dir).filter(|then| *then != id) else {
            continue;
        };
        let Some(engine) = engine_then(&dir, &then, &run.plan.out) else {
            continue;
        };
        if run.run_id(Some(&engine.signature)) != then {
            continue;
        }
        if run.def.is_signed(&engine.signature) {
            // The same engine file, recorded under its former signature: that run is this one.
            remarks.extend(data_changed(run, &then));
            return Ok(then);
        }
        let changed = format!(
            "the engine file {file} changed since the run started (content digest {}, {} then)",
            run.def.signature(),
            engine.signature
        );
        return engine_changed(run, &dir, file, &changed, remarks).map(|same| match same {
            true => then,
            false => id,
        });
    }
    remarks.extend(data_changed(run, &id));
    Ok(id)
}

/// A checkpoint `dir` of this plan whose engine file changed (`changed` says how): whether
/// the run goes on as that run (`--resume DIR --engine FILE`), or starts afresh saying so; or
/// the refusal that names the way on.
fn engine_changed(
    run: &Opening,
    dir: &Path,
    file: &str,
    changed: &str,
    remarks: &mut Vec<Said>,
) -> Result<bool, RunError> {
    let (plan, opts) = (run.plan, run.opts);
    if opts.engine_as_is {
        remarks.push(Said::Warning(format!(
            "{changed}: resuming with it as it is now, as --engine asks (the evaluations logged before were measured with it as it was)"
        )));
        return Ok(true);
    }
    let resume = format!("marginal tune --resume {} --engine {file}", dir.display());
    if opts.resume.is_some() {
        return Err(RunError::Refused(format!(
            "--resume {}: {changed}: add --engine {file} to resume with it as it is now, or start a new run without --resume",
            dir.display()
        )));
    }
    if opts.checkpoint.is_some() {
        return Err(RunError::Refused(format!(
            "--checkpoint {}: {changed}: `{resume}` goes on with it as it is now; or give another --checkpoint to start afresh",
            dir.display()
        )));
    }
    if plan.out.is_file() && !opts.force {
        return Err(RunError::Refused(format!(
            "--out {} exists: this same command wrote it (checkpoint {}), but {changed}, so this is a new run: add --force to tune again with it as it is now and replace {}, or give another --out",
            plan.out.display(),
            dir.display(),
            plan.out.display()
        )));
    }
    remarks.push(Said::Note(format!(
        "checkpoint {} holds this same command's run, but {changed}, so this run starts afresh; to go on from that one instead: {resume}",
        dir.display()
    )));
    Ok(false)
}

/// When a checkpoint holds a run of this same plan (the same options) under another identity:
/// the files it reads (suites, book, engine) changed since, so its evaluations are not used
/// and this run starts afresh (a rerun of the command an interrupt gave, after an edit, would
/// otherwise start over without a word).
fn data_changed(run: &Opening, id: &str) -> Option<Said> {
    if run.opts.resume.is_some() || run.opts.checkpoint.is_some() {
        return None;
    }
    checkpoints_of(run.plan, run.opts, run.cache)
        .into_iter()
        .find_map(|dir| {
            let then = checkpoint::recorded_run(&dir).filter(|then| *then != id)?;
            (dir.join(PLAN_FILE).exists() && changed_options(&dir, run.plan).is_empty()).then(|| {
                Said::Note(format!(
                    "checkpoint {} holds a run of this same command ({then}), but a file it reads changed since (a suite, the book or the engine file), so its evaluations are not used and this run ({id}) starts afresh; restore the files and rerun to go on from it",
                    dir.display()
                ))
            })
        })
}

/// The options whose values differ between the run recorded in `dir` (its plan) and `plan`,
/// as ` (--iterations 6 then, 8 now; ...)`; empty when they cannot be told.
pub fn changed_options(dir: &Path, plan: &TunePlan) -> String {
    let Ok(Ok(then)) = TunePlan::read(dir).map(serde_json::to_value) else {
        return String::new();
    };
    let Ok(now) = serde_json::to_value(plan) else {
        return String::new();
    };
    let (a, b) = (flat(&then), flat(&now));
    // An option at its default is left out of the plan: a key on one side only was at its
    // default on the other.
    let value = |side: &[(String, String)], k: &str| {
        side.iter().find(|(o, _)| o == k).map_or_else(
            || "default".to_string(),
            |(_, v)| {
                if v == "null" {
                    "default".to_string()
                } else {
                    v.clone()
                }
            },
        )
    };
    let mut keys: Vec<&str> = b.iter().chain(&a).map(|(k, _)| k.as_str()).collect();
    let mut seen = std::collections::HashSet::new();
    keys.retain(|k| seen.insert(*k));
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| *k != "out")
        .filter_map(|k| {
            let (old, new) = (value(&a, k), value(&b, k));
            (old != new).then(|| format!("--{} {old} then, {new} now", k.replace('_', "-")))
        })
        .collect();
    if changed.is_empty() {
        String::new()
    } else {
        format!(" ({})", changed.join("; "))
    }
}

/// A JSON object's leaves as (key, value) pairs, nested objects flattened.
fn flat(v: &serde_json::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(map) = v.as_object() {
        for (k, v) in map {
            if v.is_object() {
                out.extend(flat(v));
            } else {
                out.push((k.clone(), v.as_str().map_or(v.to_string(), str::to_string)));
            }
        }
    }
    out
}

/// Refuses a checkpoint directory `dir` that is not this run's to write: one of another run
/// (naming the options that differ), one whose run record is damaged, a directory of the
/// user's (files, no run record), or one the tuned file (or its plot) would be written into.
///
/// # Errors
/// [`RunError::Refused`] as above.
pub fn check_checkpoint(plan: &TunePlan, run_id: &str, dir: &Path) -> Result<(), RunError> {
    if let Some((path, other)) = checkpoint::foreign(dir, run_id) {
        if path.ends_with(checkpoint::RUN_FILE) && !checkpoint::is_run_id(&other) {
            return Err(RunError::Refused(format!(
                "checkpoint {}: damaged: it holds {:?}, not a run identity (16 hex digits, this run's is {run_id}), so the directory cannot be told to be this run's; remove {} to start afresh, or give another checkpoint directory",
                path.display(),
                other.chars().take(40).collect::<String>(),
                dir.display()
            )));
        }
        let changed = changed_options(dir, plan);
        let why = if changed.is_empty() && dir.join(PLAN_FILE).exists() {
            "; its options are these, so a file it reads changed since it started (a suite, the book or the engine file): restore the files to resume it, or give another checkpoint directory to start afresh".to_string()
        } else {
            format!(
                "{changed}: rerun with its options to resume it, or give another checkpoint directory"
            )
        };
        return Err(RunError::Refused(format!(
            "checkpoint {}: belongs to another run ({other}, this one is {run_id}){why}",
            path.display(),
        )));
    }
    // A directory of the user's (files, no run file) is not written into.
    let run_file = dir.join(checkpoint::RUN_FILE);
    let holds_files = std::fs::read_dir(dir).is_ok_and(|mut d| {
        d.any(|e| e.is_ok_and(|e| !crate::formats::lock::is_lock_file(&e.file_name())))
    });
    if !run_file.exists() && holds_files {
        return Err(RunError::Refused(format!(
            "--checkpoint {} holds files and is not a checkpoint (it has no '{}' file): marginal does not write into it; name a new or empty directory",
            dir.display(),
            checkpoint::RUN_FILE
        )));
    }
    // The tuned file (and its plot) never goes into the checkpoint directory it resumes from.
    let inside = |p: &Path| {
        let resolve = |p: &Path| {
            let p = crate::formats::link_target(p).unwrap_or_else(|_| p.to_path_buf());
            std::path::absolute(&p).unwrap_or(p)
        };
        resolve(p).starts_with(resolve(dir))
    };
    if inside(&plan.out) || inside(&plan.out.with_extension("svg")) {
        return Err(RunError::Refused(format!(
            "--out {} is inside (or is) the checkpoint directory {}: the tuned file would replace the checkpoint's own files; give --out outside it",
            plan.out.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// Makes the checkpoint directory `dir` the run's: created if missing, holding its run
/// identity, the engine it starts with and its plan.
///
/// # Errors
/// `dir` is a file, a checkpoint of another engine, or a file of it cannot be written.
pub fn make_checkpoint(
    plan: &TunePlan,
    opts: &TuneOptions,
    run_id: &str,
    def: &EngineDef,
    dir: &Path,
) -> Result<(), RunError> {
    if dir.exists() && !dir.is_dir() {
        return Err(RunError::Refused(format!(
            "--checkpoint {}: it is a file, not a directory: give a directory (it is created if missing)",
            dir.display()
        )));
    }
    let io = |what: String| move |source| RunError::Io { what, source };
    std::fs::create_dir_all(dir)
        .map_err(io(format!("create checkpoint directory {}", dir.display())))?;
    let run_file = dir.join(checkpoint::RUN_FILE);
    crate::formats::write_atomic(&run_file, format!("{run_id}\n").as_bytes())
        .map_err(io(format!("write {}", run_file.display())))?;
    record_engine(opts, dir, def)?;
    plan.record(dir)
        .map_err(io(format!("write {}", dir.join(PLAN_FILE).display())))
}

/// Records in the checkpoint `dir` the engine the run starts with, once (a run resumed with
/// its engine file changed keeps the record of what it started with), so that a changed
/// engine file is said as such ([`identity`]).
fn record_engine(opts: &TuneOptions, dir: &Path, def: &EngineDef) -> Result<(), RunError> {
    if opts.engine_as_is {
        return Ok(());
    }
    // A record there is the run's: it must be readable and name this engine, or the logged
    // evaluations would be taken for this engine's without a word.
    let path = dir.join(checkpoint::ENGINE_FILE);
    if path.exists() {
        let refuse = |what: String| {
            Err(RunError::Refused(format!(
                "checkpoint {}: {what}; remove {} to start afresh, or give another checkpoint directory",
                path.display(),
                dir.display()
            )))
        };
        return match checkpoint::recorded_engine(dir) {
            None => refuse("damaged: it is not an engine record (a name and a signature)".into()),
            Some(then) if !def.is_signed(&then.signature) => refuse(format!(
                "the run was made with the engine {} (signature {}), and this is {} (signature {}), so its logged evaluations are not this engine's",
                then.source.as_deref().unwrap_or(&then.name),
                then.signature,
                def.source.as_deref().unwrap_or(&def.name),
                def.signature()
            )),
            Some(_) => Ok(()),
        };
    }
    let engine = RecordedEngine {
        name: def.name.clone(),
        source: def.source.clone(),
        signature: def.signature(),
    };
    checkpoint::record_engine(dir, &engine).map_err(|source| RunError::Io {
        what: format!("write {}", path.display()),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::plan::SolverKind;

    fn scratch(name: &str) -> PathBuf {
        crate::testing::scratch("run", name)
    }

    #[test]
    fn a_checkpoint_names_the_options_that_differ_from_its_plan() {
        let d = scratch("changed");
        let then = TunePlan {
            iterations: 6,
            solver: SolverKind::Spsa,
            ..TunePlan::default()
        };
        then.record(&d).unwrap();
        let now = TunePlan {
            iterations: 8,
            design: Some(4),
            out: "other.json".into(),
            ..TunePlan::default()
        };
        let said = changed_options(&d, &now);
        assert!(said.contains("--iterations 6 then, 8 now"), "{said}");
        assert!(said.contains("--solver spsa then, race now"), "{said}");
        assert!(said.contains("--design default then, 4 now"), "{said}");
        assert!(
            !said.contains("--out"),
            "the output is no option of the run: {said}"
        );
        assert_eq!(changed_options(&d, &then), "");
    }

    #[test]
    fn a_run_is_made_at_home_in_its_checkpoint_and_another_run_is_refused() {
        let d = scratch("home");
        let plan = TunePlan {
            out: d.join("t.json"),
            ..TunePlan::default()
        };
        let def = EngineDef::builtin();
        let ck = d.join("ck");
        check_checkpoint(&plan, "00000000000000aa", &ck).unwrap();
        make_checkpoint(
            &plan,
            &TuneOptions::default(),
            "00000000000000aa",
            &def,
            &ck,
        )
        .unwrap();
        assert_eq!(TunePlan::read(&ck).unwrap(), plan);
        assert_eq!(
            checkpoint::recorded_run(&ck).as_deref(),
            Some("00000000000000aa")
        );
        check_checkpoint(&plan, "00000000000000aa", &ck).unwrap();
        let other = TunePlan {
            seed: 9,
            ..plan.clone()
        };
        let e = check_checkpoint(&other, "00000000000000bb", &ck).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("belongs to another run"), "{m}");
        assert!(m.contains("--seed 1 then, 9 now"), "{m}");
    }

    #[test]
    fn a_tuned_file_inside_its_checkpoint_or_a_users_directory_is_refused() {
        let d = scratch("inside");
        let ck = d.join("ck");
        let plan = TunePlan {
            out: ck.join("t.json"),
            ..TunePlan::default()
        };
        let m = check_checkpoint(&plan, "00000000000000aa", &ck)
            .unwrap_err()
            .to_string();
        assert!(
            m.contains("is inside (or is) the checkpoint directory"),
            "{m}"
        );
        std::fs::create_dir_all(d.join("mine")).unwrap();
        std::fs::write(d.join("mine/notes.txt"), "mine").unwrap();
        let plan = TunePlan {
            out: d.join("t.json"),
            ..TunePlan::default()
        };
        let m = check_checkpoint(&plan, "00000000000000aa", &d.join("mine"))
            .unwrap_err()
            .to_string();
        assert!(m.contains("holds files and is not a checkpoint"), "{m}");
        assert_eq!(
            std::fs::read_to_string(d.join("mine/notes.txt")).unwrap(),
            "mine"
        );
    }
}
