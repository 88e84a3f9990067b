//! The terminal printer: how the commands show the [`Event`]s the library reports and what its
//! pipelines say ([`say`]). Bars redraw in place on a terminal and print plain lines elsewhere
//! (CI logs, pipes); `--quiet` silences them and the per-iteration lines, never results,
//! notes, warnings or the cluster's lines. A tune's lines are in [`tune`].

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use marginal::progress::{Cluster, Count, Eta, Event, Observer, Said, Work};
use marginal::scoring::games::stats::SprtParams;

mod tune;
pub use tune::{EvaluationGames, TuneLines};

/// What a command's progress looks like: `--quiet` or not.
#[derive(Debug, Clone, Copy, Default)]
pub struct Printer {
    quiet: bool,
}

impl Printer {
    /// The printer of a command run with `--quiet` (`quiet`) or without.
    pub fn new(quiet: bool) -> Printer {
        Printer { quiet }
    }

    /// Whether `--quiet` was given.
    pub fn quiet(self) -> bool {
        self.quiet
    }

    /// A progress bar with `template` (indicatif's syntax), hidden with `--quiet`. On a
    /// terminal it redraws in place; elsewhere it prints a plain line on standard error at
    /// most every [`LOG_PROGRESS_SECONDS`], so long work shows it is alive.
    pub fn bar(self, len: u64, template: &str) -> ProgressBar {
        if self.quiet {
            return ProgressBar::hidden();
        }
        let on_terminal = on_terminal();
        let template = if on_terminal {
            template.to_string()
        } else {
            plain_template(template)
        };
        let style = ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let target = if on_terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::term_like(Box::new(LogLines::default()))
        };
        let bar = ProgressBar::with_draw_target(Some(len), target);
        bar.set_style(style);
        bar
    }
}

/// Prints what a pipeline said: a result line on standard output; a note, a warning or the
/// bad lines of an input (the first few listed, the rest counted) on standard error.
pub fn say(said: &Said) {
    match said {
        Said::Out(line) => println!("{line}"),
        Said::Note(note) => eprintln!("note: {note}"),
        Said::Warning(warning) => eprintln!("warning: {warning}"),
        Said::Skipped(lines) => (marginal::formats::skipped_lines(lines, "warning: ").iter())
            .for_each(|line| eprintln!("{line}")),
    }
}

/// Prints what a step said ([`say`], in order), then gives back its result.
pub fn said<T>(said: Vec<Said>, result: T) -> T {
    said.iter().for_each(say);
    result
}

/// Whether progress bars redraw in place: both output streams on a terminal that can move
/// the cursor (TERM=dumb, as in Emacs shells, gets the plain lines too).
fn on_terminal() -> bool {
    let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
    !dumb && std::io::stdout().is_terminal() && std::io::stderr().is_terminal()
}

/// Ends a progress bar. Outside a terminal its lines are printed at most every
/// [`LOG_PROGRESS_SECONDS`], so the last one printed may be seconds stale: `last` (the bar's
/// final state in its words) is printed then, so the last line agrees with the summary after it.
pub fn end_progress(bar: &ProgressBar, last: impl FnOnce() -> String) {
    if !bar.is_hidden() && !on_terminal() && bar.position() > 0 {
        eprintln!("{}", last());
    }
    bar.finish_and_clear();
}

/// A bar's template as a plain line: the bar itself (`[{bar:N}]`) left out and the rate (a
/// float of indicatif's, `173.4142/s`) given as the share done.
fn plain_template(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("[{bar") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("}]")
            .map_or("", |end| rest[start + end + 2..].trim_start());
    }
    out.push_str(rest);
    out.replace("{per_sec}", "({percent}%)")
}

/// Seconds between two progress lines outside a terminal.
pub const LOG_PROGRESS_SECONDS: u64 = 5;

/// A "terminal" for indicatif that writes each drawn bar as one plain line on standard error,
/// at most every [`LOG_PROGRESS_SECONDS`] (cursor moves and clears do nothing).
#[derive(Debug, Default)]
struct LogLines {
    last: Mutex<Option<Instant>>,
}

impl LogLines {
    fn line(&self, s: &str) -> std::io::Result<()> {
        let text = s.trim();
        if text.is_empty() {
            return Ok(());
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_none_or(|t| t.elapsed().as_secs() >= LOG_PROGRESS_SECONDS) {
            *last = Some(Instant::now());
            eprintln!("{text}");
        }
        Ok(())
    }
}

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.line(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A bar of positions searched (a reference run's, then a set's): with `kept` (the positions
/// of each an interrupted run kept, counted first at once) it names the run in its message,
/// and the rate and ETA count from the first position searched now.
pub struct PositionsBar {
    bar: ProgressBar,
    kept: Option<(u64, u64)>,
}

impl PositionsBar {
    /// The observer moving `bar`, with the positions kept of the reference and of the set.
    pub fn new(bar: &ProgressBar, kept: Option<(usize, usize)>) -> PositionsBar {
        let kept = kept.map(|(r, s)| (r as u64, s as u64));
        let bar = bar.clone();
        PositionsBar { bar, kept }
    }
}

impl Observer for PositionsBar {
    fn event(&self, event: &Event<'_>) {
        let Event::Done(c) = event else { return };
        let reference = match c.work {
            Work::ReferencePositions => true,
            Work::Positions => false,
            _ => return,
        };
        let Some((kept_reference, kept_set)) = self.kept else {
            return self.bar.set_position(c.done);
        };
        self.bar
            .set_message(if reference { "reference" } else { "candidate" });
        self.bar.set_position(c.done);
        if c.done == if reference { kept_reference } else { kept_set } {
            self.bar.reset_eta();
        }
    }
}

/// A check's bar: the side, the run (the reference when it is not cached, then the sets) and
/// its positions, all in the message (a plain line never shows counts before saying what they
/// count).
pub struct MeasureBar {
    bar: ProgressBar,
    side: Mutex<String>,
}

impl MeasureBar {
    /// The observer moving `bar`.
    pub fn new(bar: &ProgressBar) -> MeasureBar {
        let (bar, side) = (bar.clone(), Mutex::new(String::new()));
        MeasureBar { bar, side }
    }
}

impl Observer for MeasureBar {
    fn event(&self, event: &Event<'_>) {
        let mut side = self.side.lock().unwrap_or_else(|e| e.into_inner());
        let (c, run) = match event {
            Event::Started { what } => return *side = what.to_string(),
            Event::Done(c) if c.work == Work::ReferencePositions => {
                (c, "positions of the reference run")
            }
            Event::Done(c) if c.work == Work::Positions => (c, "positions of the sets"),
            _ => return,
        };
        self.bar.update(|s| {
            s.set_len(c.total);
            s.set_pos(c.done);
        });
        (self.bar).set_message(format!("{}/{} {side}: {run}", c.done, c.total));
    }
}

/// A games bar: games played (each counted pair moves it), and for a match the running
/// score in its message and the cluster's cancellation said.
pub struct PairBar<'a> {
    bar: &'a ProgressBar,
    /// A match's bar: `Some`, with the SPRT it runs, if any.
    status: Option<Option<&'a SprtParams>>,
}

impl<'a> PairBar<'a> {
    /// A bar of games only.
    pub fn new(bar: &'a ProgressBar) -> PairBar<'a> {
        PairBar { bar, status: None }
    }

    /// A match's bar, with its score (and `sprt`'s LLR) in the message.
    pub fn of_match(bar: &'a ProgressBar, sprt: Option<&'a SprtParams>) -> PairBar<'a> {
        PairBar {
            bar,
            status: Some(sprt),
        }
    }
}

impl Observer for PairBar<'_> {
    fn event(&self, event: &Event<'_>) {
        match (event, self.status) {
            (Event::Pair { score, .. }, status) => {
                self.bar.set_position(score.games);
                if let Some(sprt) = status {
                    self.bar.set_message(score.status(sprt));
                }
            }
            (Event::Cluster(c @ Cluster::Cancelled { .. }), Some(_)) => eprintln!("{c}"),
            _ => {}
        }
    }
}

/// A calibration's bar: one phase at a time (objective values, then game pairs), each with
/// its own ETA (the two kinds of work take very different times).
pub struct CalibrationBar<'a> {
    bar: &'a ProgressBar,
    state_dir: &'a Path,
    in_games: AtomicBool,
    /// The phase's ETA ([`marginal::progress::Eta`], the mean rate of this run's work): a slow
    /// step (a referee's searches) does not blow it up as indicatif's decaying estimate does.
    eta: Mutex<Eta>,
}

impl<'a> CalibrationBar<'a> {
    /// Moves the bar to `done` of `total` in `phase` (`kept`: read back from the state, not
    /// counted in the rate), its ETA in the prefix.
    fn step(&self, phase: &str, (done, total): (u64, u64), kept: bool) {
        let mut eta = self.eta.lock().unwrap_or_else(|e| e.into_inner());
        let left = eta.step((done, total), kept, Instant::now());
        let shown = left.map_or("?".into(), |s| {
            format!("{:#}", indicatif::HumanDuration(Duration::from_secs_f64(s)))
        });
        self.bar.set_prefix(format!("{phase}, ETA {shown}"));
        self.bar.set_position(done);
    }

    /// Starts a phase's ETA from now.
    fn start_phase(&self) {
        let mut eta = self.eta.lock().unwrap_or_else(|e| e.into_inner());
        *eta = Eta::default();
        eta.mark(Instant::now());
    }

    /// The observer moving `bar` (its length the objective values of the run) of a
    /// calibration kept in `state_dir`.
    pub fn new(bar: &'a ProgressBar, state_dir: &'a Path) -> CalibrationBar<'a> {
        bar.set_prefix("objective values");
        bar.enable_steady_tick(Duration::from_millis(500));
        let this = CalibrationBar {
            bar,
            state_dir,
            in_games: AtomicBool::new(false),
            eta: Mutex::default(),
        };
        this.start_phase();
        this
    }
}

impl Observer for CalibrationBar<'_> {
    fn event(&self, event: &Event<'_>) {
        let bar = self.bar;
        match event {
            Event::Resumed(counts) => {
                let of = |work| counts.iter().find(|c| c.work == work).copied();
                let none = |work| Count::new(work, 0, 0);
                let o = of(Work::Objectives).unwrap_or(none(Work::Objectives));
                let p = of(Work::Pairs).unwrap_or(none(Work::Pairs));
                bar.suspend(|| {
                    println!(
                        "resuming from {}: {} of {} objective values and {} of {} pairs done",
                        self.state_dir.display(),
                        o.done,
                        o.total,
                        p.done,
                        p.total
                    )
                });
                self.start_phase();
                self.step("objective values", (o.done, o.total), true);
            }
            Event::Measured {
                set,
                name,
                value,
                count,
            } => {
                self.step("objective values", (count.done, count.total), false);
                bar.set_message(format!("set {}: {name} {value:.3}", set + 1));
            }
            Event::Done(
                c @ Count {
                    work: Work::Pairs, ..
                },
            ) => {
                bar.set_length(c.total);
                if !self.in_games.swap(true, Ordering::Relaxed) {
                    bar.set_message("");
                    self.start_phase();
                    // The pairs kept from an earlier run, read back at once.
                    self.step("game pairs", (c.done.saturating_sub(1), c.total), true);
                }
                self.step("game pairs", (c.done, c.total), false);
            }
            Event::Said(said) => bar.suspend(|| say(said)),
            _ => {}
        }
    }
}

/// What the cluster executor does, said on standard error (stdout stays the report), with
/// `--quiet` too.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClusterLines;

impl Observer for ClusterLines {
    fn event(&self, event: &Event<'_>) {
        if let Event::Cluster(c) = event {
            eprintln!("{c}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_progress_lines_draw_no_bar() {
        assert_eq!(
            plain_template("{msg:>10} [{bar:40}] {pos}/{len} {per_sec} eta {eta}"),
            "{msg:>10} {pos}/{len} ({percent}%) eta {eta}"
        );
        assert_eq!(
            plain_template("[{bar:30}] {pos}/{len} games {msg}"),
            "{pos}/{len} games {msg}"
        );
    }

    #[test]
    fn bars_say_what_their_counts_count() {
        let bar = ProgressBar::hidden();
        let measure = MeasureBar::new(&bar);
        measure.event(&Event::Started { what: "training" });
        let count = Count::new(Work::ReferencePositions, 3, 10);
        measure.event(&Event::Done(count));
        let said = "3/10 training: positions of the reference run";
        assert_eq!(
            (bar.message(), bar.position(), bar.length()),
            (said.into(), 3, Some(10))
        );
        let bar = ProgressBar::hidden();
        let calibration = CalibrationBar::new(&bar, Path::new("state"));
        let count = Count::new(Work::Objectives, 1, 4);
        let (name, value) = ("quality", 0.25);
        calibration.event(&Event::Measured {
            set: 2,
            name,
            value,
            count,
        });
        assert_eq!(
            (bar.message(), bar.position()),
            ("set 3: quality 0.250".into(), 1)
        );
        assert!(bar.prefix().starts_with("objective values, ETA "));
        calibration.event(&Event::Done(Count::new(Work::Pairs, 1, 6)));
        assert!(bar.prefix().starts_with("game pairs, ETA "));
        assert_eq!(bar.message(), String::new());
        assert_eq!((bar.position(), bar.length()), (1, Some(6)));
    }
}
