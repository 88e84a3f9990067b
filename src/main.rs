//! The `marginal` command line.

mod commands;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use commands::{Failed, INTERRUPTED_STATUS, Interrupted, UserError, margins_from};
use marginal::engine::{DEFAULT_HASH_MB, bench};
use marginal::formats::uci_move;
use marginal::params::{self, PARAMS};

#[derive(Parser)]
#[command(
    name = "marginal",
    version,
    disable_help_subcommand = true,
    about = "Tunes the pruning margins (futility, extended futility, razoring, delta) of a chess engine's search"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress (bars, per-iteration and per-stage lines): only results, warnings and errors.
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
    /// Give up on an external engine after N faults in a row (crash, hang, illegal move,
    /// garbage): the run stops with exit 2 naming the engine and its last fault, instead of
    /// paying a timeout for every position or game left (0: never give up).
    #[arg(long, global = true, value_name = "N", default_value_t = marginal::engine::external::DEFAULT_MAX_FAULTS, value_parser = max_faults_arg)]
    max_faults: usize,
}

/// `--max-faults`: a whole number of faults in a row, 0 for never giving up (worded as the
/// other counts are: the value, what is expected).
fn max_faults_arg(text: &str) -> Result<usize, String> {
    commands::count::<usize, 0>(text).map_err(|e| {
        format!("{e}: give the faults in a row to allow, a whole number (0: never give up)")
    })
}

#[derive(Subcommand)]
enum Command {
    /// Scores a margin set on EPD suites: speed (nodes) against accuracy (solutions).
    Suite(commands::suite::SuiteArgs),
    /// Plays margin set against margin set: game pairs, pentanomial Elo, SPRT.
    Match(commands::match_cmd::MatchArgs),
    /// Tunes margins (by default a race: a global screen on EPD suites, local refinement, games
    /// among the finalists) and judges the result on held-out positions.
    Tune(Box<commands::tune::TuneArgs>),
    /// Measures how well each cheap objective ranks margin sets as games do (rho, tau, slope,
    /// against the games' own ceiling), for any engine at one game limit.
    Calibrate(commands::calibrate::CalibrateArgs),
    /// Writes a tuned file as JSON, TOML, Rust, C, UCI setoption lines, or OpenBench/fishtest SPSA input.
    Export(commands::export::ExportArgs),
    /// Draws a tuned file's SVG (objective and margins across iterations, Pareto front) again.
    Plot {
        /// The tuned file (`marginal-tuned/1`); the SVG is written beside it.
        file: std::path::PathBuf,
        /// Replace a file where the SVG goes that is not a plot marginal drew.
        #[arg(long)]
        force: bool,
    },
    /// Re-measures a tuned file's set against its record and the defaults: exit 0 it holds,
    /// 1 it regressed, 2 unusable input (for an engine's CI).
    Check(commands::check::CheckArgs),
    /// Runs one unit of work written by `--executor slurm` (what each array task runs).
    Work(commands::work::WorkArgs),
    /// Searches the built-in bench positions; the total node count is the engine's signature.
    Bench {
        /// Search depth, plies (1 to 100).
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH, value_parser = commands::depth_arg())]
        depth: u32,
        /// Margin set: a built-in name (default, off, bare, sound), a tuned .json file, or
        /// name=value assignments.
        #[arg(long, default_value = "default")]
        margins: String,
        /// Transposition table size, megabytes (0 disables it; at most 16384).
        #[arg(long, default_value_t = DEFAULT_HASH_MB, value_parser = commands::hash_arg)]
        hash: usize,
    },
    /// Speaks the UCI protocol on standard input/output (for GUIs, cutechess, fastchess).
    Uci,
    /// Prints the help of marginal or of one of its commands (as `--help` does).
    Help {
        /// The command (suite, match, tune, calibrate, check, work, export, plot, bench, uci, params).
        command: Option<String>,
    },
    /// Lists every margin and switch with its UCI name, alias, default and range.
    Params {
        /// Print a Markdown table (as in docs/parameters.md).
        #[arg(long)]
        markdown: bool,
    },
}

/// The status of a process ended by SIGPIPE (128 + 13), as a shell reports it.
const BROKEN_PIPE_STATUS: i32 = 141;

/// A closed output pipe (`marginal params | head -1`) ends marginal quietly with status 141,
/// as a Unix filter ends, instead of a panic: Rust ignores SIGPIPE (marginal needs that, so a
/// crashed engine's pipe is an error it can report) and `println!` panics on the error instead.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") {
            marginal::engine::external::kill_all();
            // Its outputs are finished: their locks are released and their lock files removed.
            marginal::formats::lock::release_all();
            if message.contains("Broken pipe") {
                std::process::exit(BROKEN_PIPE_STATUS);
            }
            // Another write error (a full disk, /dev/full): said on standard error when that
            // still works, and unusable environment either way.
            let what = message.trim_start_matches("failed printing to ");
            let _ = writeln!(std::io::stderr(), "error: cannot write {what}");
            std::process::exit(2);
        }
        default(info);
    }));
}

/// Prints clap's help, version or error and exits with its status; a closed pipe exits 141
/// quietly, any other write error 2, said on standard error.
fn clap_exit(e: &clap::Error) -> ! {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    // Help and version go to standard output: closed, they would vanish with exit 0.
    if !e.use_stderr()
        && let Err(closed) = stdout_open()
    {
        let _ = writeln!(std::io::stderr(), "error: {}", closed.0);
        std::process::exit(2);
    }
    // `--sprt -1000,-999,...`: the value, starting with '-', was read as an unknown option.
    if e.kind() == ErrorKind::UnknownArgument
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg)
        && arg.len() > 1
        && arg[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
    {
        let _ = e.print();
        let _ = writeln!(
            std::io::stderr(),
            "tip: '{arg}' was read as an option; a value that starts with '-' goes after '=' (as in --sprt=-5,0,0.05,0.05)"
        );
        std::process::exit(e.exit_code());
    }
    if let Err(io) = e.print() {
        if io.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE_STATUS);
        }
        let _ = writeln!(std::io::stderr(), "error: cannot write the help: {io}");
        std::process::exit(2);
    }
    std::process::exit(e.exit_code())
}

/// Whether standard output was closed when marginal started (`marginal params >&-`). Rust's
/// runtime opens /dev/null on a closed descriptor 0 to 2 before `main` runs, so every result
/// would vanish without an error; this constructor runs before the runtime (from
/// `.init_array`, as the C runtime calls it) and sees the descriptor as the shell gave it.
#[cfg(target_os = "linux")]
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
extern "C" fn see_closed_stdout() {
    // SAFETY: F_GETFD only reads the flags of descriptor 1, whatever it is.
    if unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static SEE_CLOSED_STDOUT: extern "C" fn() = see_closed_stdout;

/// Refuses to run with standard output closed: the results would be lost.
fn stdout_open() -> Result<(), UserError> {
    #[cfg(target_os = "linux")]
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(UserError(
            "standard output is closed (>&-), so the results would be lost: send it to a file, or to /dev/null to drop it".into(),
        ));
    }
    Ok(())
}

/// A standard error that can never be written (`2>/dev/full`) would stop the command at its
/// first progress line or warning and lose the results on standard output: it is put on
/// /dev/null instead, so the results still come (what went to standard error was going
/// nowhere either way).
#[cfg(target_os = "linux")]
fn keep_results_when_stderr_is_full() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::AsRawFd;
    let (Ok(full), Ok(null)) = (
        std::fs::metadata("/dev/full"),
        std::fs::OpenOptions::new().write(true).open("/dev/null"),
    ) else {
        return;
    };
    // SAFETY: fstat on descriptor 2 writes only into the zeroed struct given.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(2, &raw mut st) } == 0
        && (st.st_mode & libc::S_IFMT) == libc::S_IFCHR
        && st.st_rdev == full.rdev()
    {
        // SAFETY: dup2 of an open descriptor onto 2; `null` stays open until then.
        unsafe { libc::dup2(null.as_raw_fd(), 2) };
    }
}

/// A file-size limit (`ulimit -f`) kills a process that writes past it with SIGXFSZ, without a
/// word and with what it had finished lost: ignored, the write fails with EFBIG instead, which
/// is reported (exit 2) naming the file and the limit.
fn file_size_limit_is_an_error() {
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread is started.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    file_size_limit_is_an_error();
    #[cfg(target_os = "linux")]
    keep_results_when_stderr_is_full();
    // A negative number is a value (`--nodes -1` is then refused by its parser, naming the
    // range), not an unknown option with clap's tip to write `-- -1`.
    let matches = Cli::command()
        .mut_subcommands(|c| c.allow_negative_numbers(true))
        .try_get_matches()
        .unwrap_or_else(|e| clap_exit(&e));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| clap_exit(&e));
    // Documented command lines are checked by parsing them (tests/docs_commands.rs): with this
    // set, a command line that parses does nothing and exits 0 (one that does not exits 2).
    if std::env::var_os("MARGINAL_PARSE_ONLY").is_some() {
        return ExitCode::SUCCESS;
    }
    say_idle_max_faults(&matches);
    let result = stdout_open()
        .map_err(anyhow::Error::from)
        .and_then(|()| run(cli));
    // No external engine outlives marginal, whatever ended the command.
    marginal::engine::external::kill_all();
    // Its outputs are finished: their locks are released and their lock files removed.
    marginal::formats::lock::release_all();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `marginal help | head -1`: a closed pipe ends quietly, as for every command.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::from(BROKEN_PIPE_STATUS as u8)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            exit_code(&e)
        }
    }
}

/// Says when --max-faults is given where no external engine runs: to a command that never
/// runs one (params, bench, export, plot, uci, help), or to suite, match, tune or calibrate
/// without an engine option, or to check of a file of the built-in engine (the built-in
/// engine does not fault).
fn say_idle_max_faults(matches: &clap::ArgMatches) {
    let Some((name, sub)) = matches.subcommand() else {
        return;
    };
    let given = |m: &clap::ArgMatches, id: &str| {
        m.try_contains_id(id).unwrap_or(false)
            && m.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    };
    if !given(matches, "max_faults") && !given(sub, "max_faults") {
        return;
    }
    if matches!(
        name,
        "params" | "bench" | "export" | "plot" | "uci" | "help"
    ) {
        eprintln!(
            "warning: --max-faults: `marginal {name}` runs no external engine, so it does nothing here"
        );
    } else if (matches!(name, "suite" | "match" | "tune" | "calibrate")
        || (name == "check" && !tuned_for_an_external_engine(sub)))
        && !["engine", "engine_cmd", "a_engine", "b_engine"]
            .iter()
            .any(|id| given(sub, id))
    {
        eprintln!(
            "warning: --max-faults: `marginal {name}` runs the built-in engine here (no --engine), which does not fault, so it does nothing"
        );
    }
}

/// Whether `check`'s tuned file records an external engine (which check then runs without
/// --engine). A file that cannot be read counts as one: check names its problem itself.
fn tuned_for_an_external_engine(check: &clap::ArgMatches) -> bool {
    let Ok(Some(file)) = check.try_get_one::<std::path::PathBuf>("file") else {
        return true;
    };
    std::fs::read_to_string(file)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_none_or(|doc| doc.get("engine").is_some())
}

/// The exit status of a failed command, one scheme for every command (docs/faq.md, "Exit codes"):
/// 1 when the measured thing failed (a regression, a rejected SPRT), 2 for unusable input or
/// environment (bad options or files, unwritable outputs, I/O errors), 130 when interrupted.
fn exit_code(e: &anyhow::Error) -> ExitCode {
    if e.downcast_ref::<Failed>().is_some() {
        ExitCode::FAILURE
    } else if e.downcast_ref::<Interrupted>().is_some()
        || e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::Interrupted)
        })
    {
        ExitCode::from(INTERRUPTED_STATUS)
    } else {
        ExitCode::from(2)
    }
}

fn run(cli: Cli) -> Result<()> {
    let ui = commands::Ui {
        printer: commands::progress::Printer::new(cli.quiet),
        max_faults: cli.max_faults,
    };
    match cli.command {
        Command::Suite(args) => commands::suite::run(args, ui)?,
        Command::Match(args) => commands::match_cmd::run(args, ui)?,
        Command::Tune(args) => commands::tune::run(*args, ui)?,
        Command::Calibrate(args) => commands::calibrate::run(args, ui)?,
        Command::Check(args) => commands::check::run(args, ui)?,
        Command::Work(args) => commands::work::run(args)?,
        Command::Export(args) => commands::export::run(args)?,
        Command::Plot { file, force } => commands::tune::plot(&file, force)?,
        Command::Bench {
            depth,
            margins,
            hash,
        } => {
            let margins = margins_from(&margins, &[])?;
            let totals = bench::run(depth, margins, hash, |line| {
                let r = &line.result;
                let best = r.best_move.map_or_else(|| "(none)".to_string(), uci_move);
                println!(
                    "{:>2} {:<6} {:>7} {:>10} nodes  {}",
                    line.index + 1,
                    best,
                    r.score,
                    r.nodes,
                    line.fen
                );
            });
            println!("{} nodes {} nps", totals.nodes, totals.nps());
        }
        Command::Help { command } => {
            let mut cli = Cli::command();
            cli.build();
            match command {
                None => cli.print_long_help()?,
                Some(name) => match cli.find_subcommand_mut(&name) {
                    Some(sub) => sub.print_long_help()?,
                    None => {
                        return Err(UserError(format!(
                            "help: no command '{name}' (see `marginal --help`)"
                        ))
                        .into());
                    }
                },
            }
        }
        Command::Uci => {
            let mut engine = marginal::uci::UciEngine::new(Box::new(std::io::stdout()));
            engine.run(std::io::BufReader::new(std::io::stdin()));
            // Its reader gone, the session ended as a filter's does (status 141).
            if engine.output_closed() {
                return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe).into());
            }
            if let Some(e) = marginal::uci::output_error() {
                return Err(UserError(format!("cannot write standard output: {e}")).into());
            }
        }
        Command::Params { markdown } => {
            if markdown {
                print!("{}", params::markdown_table());
            } else {
                println!(
                    "{:<24} {:<22} {:<12} {:>7}  range",
                    "name", "UCI option", "alias", "default"
                );
                for p in PARAMS {
                    println!(
                        "{:<24} {:<22} {:<12} {:>7}  {}..{}",
                        p.name,
                        p.uci_name,
                        p.alias.unwrap_or("-"),
                        p.default,
                        p.min,
                        p.max
                    );
                }
            }
        }
    }
    Ok(())
}
