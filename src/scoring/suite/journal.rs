//! A run's finished positions on disk as it goes, one JSON line each, so that an interrupted
//! run keeps them and the next run of the same setting searches only the rest.
//!
//! Every position is searched by a cleared worker, so its result does not depend on which
//! positions were searched before it, nor in which process: a run resumed from a journal gives
//! the results of a run in one go. A position an engine faulted on is not written (a fault is
//! an accident of that run), and a line cut by a kill is skipped (and taken off when the
//! journal is next written), so its position is searched again; any other damaged line is
//! skipped too, and named ([`Kept::damaged`]) for the caller to say.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::run::{self, PositionResult, RunConfig, SuitePosition};
use crate::engine::Setting;
use crate::formats::Sealed;
use crate::scoring::exec::{Done, ExecError, Finished, Job, Runner, SuiteJob};

/// One line of a journal.
#[derive(Serialize, Deserialize)]
struct Line {
    index: usize,
    result: PositionResult,
}

/// A run through a journal: its results in position order, how many of them were read from
/// the journal rather than searched, and the journal's damaged lines.
pub struct Kept {
    /// Every position's result, in position order.
    pub results: Vec<PositionResult>,
    /// How many came from the journal of an earlier, unfinished run.
    pub kept: usize,
    /// The journal's lines (numbered from 1) that were damaged, each with what was wrong:
    /// their positions were searched again. A last line cut by a kill is not among them (a
    /// kill does that).
    pub damaged: Vec<(usize, String)>,
}

/// What a journal holds: the finished positions, by index (`None`: not there), whether its
/// last line was cut (no newline at the end), and its damaged lines (numbered from 1, with
/// what is wrong: one that does not parse, no longer matches its digest (edited), or has an
/// index out of range; the cut last line is not one). A missing or unreadable journal holds
/// none; a damaged line or a fault is skipped.
struct Read {
    slots: Vec<Option<PositionResult>>,
    cut: bool,
    damaged: Vec<(usize, String)>,
}

fn read(path: &Path, len: usize) -> Read {
    let mut read = Read {
        slots: vec![None; len],
        cut: false,
        damaged: Vec::new(),
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return read;
    };
    read.cut = !text.is_empty() && !text.ends_with('\n');
    let count = text.lines().count();
    for (n, line) in text.lines().enumerate() {
        let parsed = serde_json::from_str::<Sealed<Line>>(line)
            .map_err(|e| e.to_string())
            .and_then(Sealed::open)
            .and_then(|l| {
                if l.index < len {
                    Ok(l)
                } else {
                    Err(format!("position {} of {len}", l.index))
                }
            });
        match parsed {
            Ok(Line { index, result }) if result.fault.is_none() => {
                read.slots[index] = Some(result);
            }
            Ok(_) => {}
            Err(_) if read.cut && n + 1 == count => {}
            Err(why) => read.damaged.push((n + 1, why)),
        }
    }
    read
}

/// The warning that the journal at `path` had `damaged` lines ([`Kept::damaged`]), naming
/// each (the first few) with what was wrong; none when it had none.
pub fn damaged_warning(path: &Path, damaged: &[(usize, String)]) -> Option<String> {
    let first: Vec<String> = damaged
        .iter()
        .take(3)
        .map(|(line, why)| format!("{}:{line}: {why}", path.display()))
        .collect();
    (!damaged.is_empty()).then(|| {
        format!(
            "{} damaged line(s) in the journal of an unfinished run ({}{}): their positions were searched again",
            damaged.len(),
            first.join("; "),
            if damaged.len() > 3 { "; ..." } else { "" }
        )
    })
}

/// How many finished positions (of `len`) the journal at `path` holds for a run to take up.
pub fn count(path: &Path, len: usize) -> usize {
    read(path, len).slots.iter().flatten().count()
}

/// The journal opened for appending, its directory made when missing, and a line cut by a
/// kill taken off (so the next line is not glued to it, and no later reading finds it
/// damaged); `None` when it cannot be (the run goes on without keeping its positions).
fn open(path: &Path, cut: bool) -> Option<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .ok()?;
    if cut {
        let text = std::fs::read(path).ok()?;
        let whole = text
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        file.set_len(whole as u64).ok()?;
    }
    Some(file)
}

/// Runs `setting` over `positions` through `runner` (one that tells of each position as it
/// finishes: [`Runner::streams`]), keeping each finished position in the journal at `path` as
/// it finishes and taking those an earlier run kept there. `on_done` is called once per
/// position, kept ones first. The journal stays when the run ends: the caller removes it once
/// the results are safe elsewhere (or keeps it, to be resumed again).
///
/// # Errors
/// The runner could not run the positions.
pub fn run_kept(
    runner: &dyn Runner,
    positions: &[SuitePosition],
    setting: &Setting,
    config: &RunConfig,
    cost_hint: Option<&[u64]>,
    path: &Path,
    on_done: &(dyn Fn() + Sync),
) -> Result<Kept, ExecError> {
    let Read {
        mut slots,
        cut,
        damaged,
    } = read(path, positions.len());
    let todo: Vec<usize> = (0..positions.len())
        .filter(|&i| slots[i].is_none())
        .collect();
    let kept = positions.len() - todo.len();
    for _ in 0..kept {
        on_done();
    }
    // Opened at the first position to keep: a run that keeps none leaves no file.
    let file: Mutex<Option<Option<File>>> = Mutex::new(None);
    let rest: Vec<SuitePosition> = todo.iter().map(|&i| positions[i].clone()).collect();
    let costs: Vec<u64> = match cost_hint.filter(|c| c.len() == positions.len()) {
        Some(c) => todo.iter().map(|&i| c[i]).collect(),
        None => run::no_hint(config, rest.len()),
    };
    let on_result = |j: usize, result: &PositionResult| {
        if result.fault.is_none()
            && let Ok(mut line) = serde_json::to_string(&Sealed::new(Line {
                index: todo[j],
                result: result.clone(),
            }))
            && let Ok(mut file) = file.lock()
            && let Some(file) = file.get_or_insert_with(|| open(path, cut))
        {
            line.push('\n');
            // One write of the whole line: a kill leaves at most the last line cut, and a
            // journal that cannot be written only keeps less.
            let _ = file.write_all(line.as_bytes());
        }
        on_done();
    };
    let job = Job::Suite(SuiteJob {
        setting: setting.clone(),
        config: *config,
        positions: rest,
        costs,
    });
    let on_done = |_: usize, finished: Finished<'_>| {
        if let Finished::Position(j, result) = finished {
            on_result(j, result);
        }
    };
    let searched = runner.run_each(std::slice::from_ref(&job), &on_done)?;
    let searched = searched.into_iter().next().map(Done::into_positions);
    for (j, result) in searched.unwrap_or_default().into_iter().enumerate() {
        slots[todo[j]] = Some(result);
    }
    Ok(Kept {
        results: slots.into_iter().flatten().collect(),
        kept,
        damaged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineDef;
    use crate::scoring::exec::local::{self, Local};
    use crate::scoring::suite::load::{Repeats, load_suites};
    use crate::scoring::suite::run::SuiteLimit;

    fn positions(n: usize) -> Vec<SuitePosition> {
        let suites = load_suites(
            &[std::path::PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/suites/wac.epd"
            ))],
            false,
            Repeats::Once,
        )
        .unwrap();
        suites.positions.into_iter().take(n).collect()
    }

    /// A run cut short (here: its journal holding some positions, one line of them cut by a
    /// kill) and resumed gives exactly the results of one run in one go, and searches only
    /// the positions it did not keep.
    #[test]
    fn a_resumed_run_searches_only_the_rest_and_gives_the_same_results() {
        let positions = positions(12);
        let setting = Setting::defaults(&EngineDef::builtin());
        let config = RunConfig {
            limit: SuiteLimit::Nodes(3000),
            ..RunConfig::default()
        };
        let whole = local::run(&positions, &setting, &config, None, &|| {});
        let dir = std::env::temp_dir().join(format!("marginal-journal-{}", std::process::id()));
        let path = dir.join("run.partial.jsonl");
        let _ = std::fs::remove_dir_all(&dir);
        let first = run_kept(
            &Local::new(2),
            &positions[..5],
            &setting,
            &config,
            None,
            &path,
            &|| {},
        )
        .unwrap();
        assert_eq!(first.kept, 0);
        // A kill in the middle of the fifth line.
        let text = std::fs::read_to_string(&path).unwrap();
        let cut = text.len() - text.lines().last().unwrap().len() / 2 - 1;
        std::fs::write(&path, &text[..cut]).unwrap();
        let searched = std::sync::atomic::AtomicUsize::new(0);
        let resumed = run_kept(
            &Local::new(2),
            &positions,
            &setting,
            &config,
            None,
            &path,
            &|| {
                searched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
        )
        .unwrap();
        assert_eq!(resumed.kept, 4, "four whole lines were kept");
        assert!(
            resumed.damaged.is_empty(),
            "a line cut by a kill is no damage"
        );
        assert_eq!(searched.into_inner(), 12, "on_done once per position");
        assert_eq!(resumed.results, whole);
        // Now every position is in the journal: nothing is searched again.
        let rerun = || {
            run_kept(
                &Local::new(2),
                &positions,
                &setting,
                &config,
                None,
                &path,
                &|| {},
            )
            .unwrap()
        };
        let again = rerun();
        assert_eq!((again.kept, again.results), (12, whole.clone()));
        // A line edited by hand that still parses is not taken: its position is searched again.
        let text = std::fs::read_to_string(&path).unwrap();
        let first_line = text.lines().next().unwrap();
        let mut edited: serde_json::Value = serde_json::from_str(first_line).unwrap();
        edited["value"]["result"]["nodes"] = serde_json::Value::from(1);
        let edited = serde_json::to_string(&edited).unwrap();
        std::fs::write(&path, text.replacen(first_line, &edited, 1)).unwrap();
        let again = rerun();
        // Named by its line, with what is wrong with it.
        let [(1, why)] = &again.damaged[..] else {
            panic!("line 1 damaged: {:?}", again.damaged)
        };
        assert!(why.contains("digest"), "{why}");
        assert_eq!((again.kept, again.results), (11, whole));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
