//! `marginal match`: margin set against margin set in self-play, pentanomial Elo and SPRT.
//!
//! Ctrl-C (SIGINT) or SIGTERM stops it cleanly: no new pair starts, the games in flight are
//! abandoned (external engines are killed at once, so none keeps a game waiting), and the whole
//! pairs played are summed up (and written to `--json`) before it exits with status 130; a
//! second signal ends it at once. `--resume` goes on from the whole pairs of the `--pgn` file
//! (see [`resume`]).
//!
//! `--executor slurm` plays the pairs on a cluster, in batches of `shards x cpus-per-task`
//! pairs (one job array each, [`ExecutorArgs::batch_pairs`]), and counts each batch's pairs in
//! index order as a local match does (the SPRT after each pair; the pairs beyond a decision
//! are discarded): the counted games, the statistics and the PGN are the local match's. An
//! interrupt cancels the array out and sums up the whole pairs counted, as locally; `--resume`
//! works the same.

mod resume;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use marginal::engine::Setting;
use marginal::engine::external::kill_all;
use marginal::formats::{Fnv, openings};
use marginal::scoring::games::game::{
    DrawRule, EnginePlayer, GameConfig, MoveLimit, Player, ResignRule, Termination,
};
use marginal::scoring::games::matches::{
    MatchConfig, MatchReport, MatchResult, MatchStats, PairRecord, Stopped, result_for_a,
    run_match_batched, run_match_from,
};
use marginal::scoring::games::pgn;
use marginal::scoring::games::remote::play_pairs;
use marginal::scoring::games::stats::{
    EloSummary, GameResult, Shown, SprtDecision, SprtParams, sprt_llr,
};
use marginal::scoring::work::{ExecError, GamesJob};
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

use super::executor::{ExecutorArgs, exec_error};
use super::{
    Failed, Interrupted, UserError, count, depth_arg, engine_def, hash_arg, progress_bar,
    setting_from, threads, threads_arg, whole_pairs,
};

/// Arguments of `marginal match`.
#[derive(Args)]
pub struct MatchArgs {
    /// Engine A's margin set: a built-in name (default, off, bare, sound), a tuned .json file,
    /// or name=value assignments (for an external engine: default, off, its tuned file, or
    /// assignments to its rows).
    #[arg(long)]
    a: String,
    /// Engine B's margin set.
    #[arg(long)]
    b: String,
    /// Engine A is an external UCI engine described by this engine file (default: marginal's
    /// own engine).
    #[arg(long, value_name = "FILE")]
    a_engine: Option<PathBuf>,
    /// Engine B is an external UCI engine described by this engine file.
    #[arg(long, value_name = "FILE")]
    b_engine: Option<PathBuf>,
    /// Opening book: one FEN/EPD position a line.
    #[arg(long, default_value = "data/openings/UHO_4060_v2_2k.epd")]
    openings: PathBuf,
    /// Seed for shuffling the openings (same seed, same games at fixed nodes or depth).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Most games to play (whole pairs: each opening twice, colours reversed; an odd number
    /// is rounded up, and said so).
    #[arg(long, default_value_t = 200, value_parser = count::<u32, 1>)]
    games: u32,
    /// Games played at once (default: all cores; at most 256).
    #[arg(long, value_parser = threads_arg())]
    concurrency: Option<usize>,
    /// Fixed nodes per move (the default, 5000).
    #[arg(long, conflicts_with_all = ["depth", "tc"], value_parser = count::<u64, 1>)]
    nodes: Option<u64>,
    /// Fixed depth per move, plies.
    #[arg(long, conflicts_with = "tc", value_parser = depth_arg())]
    depth: Option<u32>,
    /// Time control BASE+INC in seconds, e.g. 10+0.1 (real clocks; time losses counted).
    #[arg(long)]
    tc: Option<String>,
    /// Stop at an SPRT bound: elo0,elo1,alpha,beta in normalized Elo (default 0,5,0.05,0.05).
    #[arg(long, num_args = 0..=1, default_missing_value = "0,5,0.05,0.05", value_name = "ELO0,ELO1,ALPHA,BETA")]
    sprt: Option<String>,
    /// Write the games as PGN, pair by pair as they finish (only whole pairs). A file that
    /// already holds anything is refused, never overwritten: continue its match with --resume.
    /// The settings are kept beside it in FILE.match.json.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Continue the match in the --pgn file (after Ctrl-C or a kill) from its whole pairs; it
    /// ends as the uninterrupted match would. Needs the same settings (checked; --concurrency
    /// and --json may differ). An unfinished pair at the file's end is dropped. A missing or
    /// empty file starts the match.
    #[arg(long, requires = "pgn")]
    resume: bool,
    /// Write the whole match report as JSON (counts, pentanomial, Elo, nElo, LOS, SPRT, time
    /// losses, every game); statistics that are infinite are written as null.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Resign adjudication SCORE:MOVES, e.g. 1000:4 (both sides see +-SCORE for MOVES moves).
    #[arg(long, value_name = "SCORE:MOVES")]
    resign: Option<String>,
    /// Draw adjudication SCORE:MOVES:AFTER, e.g. 10:8:40 (|score| <= SCORE for MOVES moves
    /// each, from move AFTER on).
    #[arg(long, value_name = "SCORE:MOVES:AFTER")]
    draw: Option<String>,
    /// Plies after which a game is drawn.
    #[arg(long, default_value_t = 400, value_parser = count::<u32, 1>)]
    max_plies: u32,
    /// Transposition table per engine per game, megabytes (0 to 16384).
    #[arg(long, default_value_t = 4, value_parser = hash_arg)]
    hash: usize,
    /// Where the games are played (`--executor slurm`: in batches of job arrays).
    #[command(flatten)]
    executor: ExecutorArgs,
}

fn numbers<const N: usize>(text: &str, sep: char, what: &str) -> Result<[f64; N], UserError> {
    let parts: Vec<&str> = text.split(sep).map(str::trim).collect();
    let bad = || {
        UserError(format!(
            "{what}: '{text}' is not {N} numbers separated by '{sep}'"
        ))
    };
    if parts.len() != N {
        return Err(bad());
    }
    let mut out = [0.0f64; N];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.parse().map_err(|_| bad())?;
        if !o.is_finite() {
            return Err(bad());
        }
    }
    Ok(out)
}

/// Parses a `BASE+INC` time control in seconds.
pub(super) fn parse_tc(text: &str) -> Result<MoveLimit, UserError> {
    let [base, inc] = numbers::<2>(text, '+', "--tc")?;
    if base <= 0.0 || inc < 0.0 {
        return Err(UserError(format!(
            "--tc: '{text}' needs a positive base and an increment >= 0"
        )));
    }
    Ok(MoveLimit::Clock {
        base: Duration::from_secs_f64(base),
        increment: Duration::from_secs_f64(inc),
    })
}

/// Parses an SPRT design `ELO0,ELO1,ALPHA,BETA` (normalized Elo), checked; the errors name
/// `--sprt`.
pub(super) fn parse_sprt(text: &str) -> Result<SprtParams, UserError> {
    let [elo0, elo1, alpha, beta] = numbers::<4>(text, ',', "--sprt")?;
    let params = SprtParams {
        elo0,
        elo1,
        alpha,
        beta,
    };
    params
        .validate()
        .map_err(|e| UserError(format!("--sprt {text}: {e}")))?;
    Ok(params)
}

/// A share as a percentage with one decimal, or `n/a` (without a `%`) when not defined.
fn percent(share: Option<f64>) -> String {
    match share {
        Some(x) if x.is_finite() => format!("{:.1}%", 100.0 * x),
        _ => Shown(None).to_string(),
    }
}

/// A's score (not defined before the first game).
fn score(stats: &MatchStats) -> Option<f64> {
    Some(stats.score()).filter(|_| stats.games > 0)
}

fn status(stats: &MatchStats, sprt: Option<&SprtParams>) -> String {
    let e = EloSummary::from(stats.estimate());
    let mut s = format!(
        "score {}  Elo {:+.1} +- {:.1}",
        percent(score(stats)),
        Shown(e.elo),
        Shown(e.lower.zip(e.upper).map(|(lo, hi)| (hi - lo) / 2.0))
    );
    if let (Some(llr), Some(p)) = (stats.llr, sprt) {
        let (lo, hi) = p.bounds();
        s.push_str(&format!("  LLR {llr:.2} ({lo:.2}, {hi:.2})"));
    }
    s
}

/// Creates (or truncates) an output file before anything is played, so a bad path fails at
/// once: a user error naming the path and the option.
fn create_output(path: &std::path::Path, option: &str) -> Result<File, UserError> {
    File::create(path)
        .map_err(|e| UserError(format!("{option}: cannot write {}: {e}", path.display())))
}

/// Once `interrupt` is raised, kills every external engine (again every few milliseconds, for
/// any started since) until `finished`: a game in flight then stops at once, even against an
/// engine that would hang until its timeout, and is abandoned.
fn stop_engines_on(interrupt: &AtomicBool, finished: &AtomicBool) {
    while !finished.load(Ordering::Relaxed) {
        if interrupt.load(Ordering::Relaxed) {
            kill_all();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The per-move limit as the options write it.
fn limit_option(limit: MoveLimit) -> String {
    match limit {
        MoveLimit::Nodes(n) => format!("--nodes {n}"),
        MoveLimit::Depth(d) => format!("--depth {d}"),
        MoveLimit::Clock { base, increment } => {
            format!("--tc {}+{}", base.as_secs_f64(), increment.as_secs_f64())
        }
    }
}

/// Everything that decides the games of a match (for `--resume` to check), as canonical text.
fn settings(
    args: &MatchArgs,
    margins: (&Setting, &Setting),
    book: &[shakmaty::Chess],
    config: &MatchConfig,
) -> resume::Settings {
    let mut hash = Fnv::new();
    for pos in book {
        hash.write(
            Fen::from_position(pos, EnPassantMode::Legal)
                .to_string()
                .as_bytes(),
        );
        hash.write(b"\n");
    }
    let game = &config.game;
    let none = || "none".to_string();
    let engine = |setting: &Setting| {
        let def = setting.def();
        format!(
            "{} ({}, {})",
            def.name,
            def.source.as_deref().unwrap_or(""),
            def.signature()
        )
    };
    let mut listed = vec![
        ("--a", args.a.clone()),
        ("margins of A", margins.0.to_string()),
        ("--b", args.b.clone()),
        ("margins of B", margins.1.to_string()),
        (
            "--openings",
            format!("{} positions, FNV-1a {:016x}", book.len(), hash.finish()),
        ),
        ("--seed", args.seed.to_string()),
        ("--games", (config.games.div_ceil(2) * 2).to_string()),
        ("per-move limit", limit_option(game.limit)),
        (
            "--resign",
            game.resign
                .map_or_else(none, |r| format!("{}:{}", r.score, r.moves)),
        ),
        (
            "--draw",
            game.draw.map_or_else(none, |d| {
                format!("{}:{}:{}", d.score, d.moves, d.after_move)
            }),
        ),
        ("--max-plies", game.max_plies.to_string()),
        ("--hash", args.hash.to_string()),
        (
            "--sprt",
            config.sprt.map_or_else(none, |p| {
                format!("{},{},{},{}", p.elo0, p.elo1, p.alpha, p.beta)
            }),
        ),
    ];
    // Only an external engine adds a line, so the records of earlier matches still resume.
    for (key, setting) in [("engine of A", margins.0), ("engine of B", margins.1)] {
        if !setting.def().is_builtin() {
            listed.push((key, engine(setting)));
        }
    }
    listed
}

/// Runs the command.
pub fn run(args: MatchArgs) -> Result<()> {
    let engine_a = engine_def(args.a_engine.as_deref(), None, &[])?;
    let engine_b = engine_def(args.b_engine.as_deref(), None, &[])?;
    let margins_a =
        setting_from(&engine_a, &args.a, &[]).map_err(|e| UserError(format!("--a: {e}")))?;
    let margins_b =
        setting_from(&engine_b, &args.b, &[]).map_err(|e| UserError(format!("--b: {e}")))?;
    let limit = match (&args.tc, args.depth, args.nodes) {
        (Some(tc), _, _) => parse_tc(tc)?,
        (None, Some(d), _) => MoveLimit::Depth(d.clamp(1, 100)),
        (None, None, n) => MoveLimit::Nodes(n.unwrap_or(5_000).max(1)),
    };
    let parse_resign = |t: &str| -> Result<ResignRule, UserError> {
        let [score, moves] = numbers::<2>(t, ':', "--resign")?;
        Ok(ResignRule {
            score: score as i32,
            moves: moves.max(1.0) as u32,
        })
    };
    let parse_draw = |t: &str| -> Result<DrawRule, UserError> {
        let [score, moves, after] = numbers::<3>(t, ':', "--draw")?;
        Ok(DrawRule {
            score: score as i32,
            moves: moves.max(1.0) as u32,
            after_move: after.max(0.0) as u32,
        })
    };
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let game = GameConfig {
        limit,
        resign: args.resign.as_deref().map(parse_resign).transpose()?,
        draw: args.draw.as_deref().map(parse_draw).transpose()?,
        max_plies: args.max_plies.max(1),
    };
    let book = openings::read(&args.openings).map_err(UserError::from_display)?;
    for line in &book.skipped {
        eprintln!("{line}");
    }
    let mut positions = book.records;
    let concurrency = threads(args.concurrency);
    let config = MatchConfig {
        game,
        games: args.games.max(2),
        concurrency,
        sprt,
    };
    let executor = args.executor.build()?;
    let settings = settings(&args, (&margins_a, &margins_b), &positions, &config);
    openings::shuffle(&mut positions, args.seed);
    let total_pairs = config.games.div_ceil(2) as usize;
    let named = |side: &str, spec: &str, setting: &Setting| {
        let def = setting.def();
        if def.is_builtin() {
            format!("{side} {spec}")
        } else {
            format!("{side} {} {spec}", def.name)
        }
    };
    let name_a = named("A", &args.a, &margins_a);
    let name_b = named("B", &args.b, &margins_b);

    // The output files are opened before the first game, so a bad path fails at once; a PGN's
    // games are checked (and an unfinished pair cut off) before the JSON report is touched.
    if let (Some(pgn), Some(json)) = (&args.pgn, &args.json)
        && (pgn == json || resume::record_path(pgn) == *json)
    {
        return Err(UserError(format!(
            "--pgn {} and --json {} would write the same file: give the report another name",
            pgn.display(),
            json.display()
        ))
        .into());
    }
    let opened = match &args.pgn {
        None => None,
        Some(path) if args.resume => Some(resume::resume(
            path,
            &settings,
            (&name_a, &name_b),
            &positions,
            total_pairs,
        )?),
        Some(path) => Some(resume::start(path, &settings)?),
    };
    let json_out = args
        .json
        .as_deref()
        .map(|path| create_output(path, "--json"))
        .transpose()?;

    let hash = args.hash;
    let factory_a = || -> Box<dyn Player> {
        Box::new(EnginePlayer::new(name_a.clone(), margins_a.clone(), hash))
    };
    let factory_b = || -> Box<dyn Player> {
        Box::new(EnginePlayer::new(name_b.clone(), margins_b.clone(), hash))
    };

    let limit_text = match limit {
        MoveLimit::Nodes(n) => format!("{n} nodes/move"),
        MoveLimit::Depth(d) => format!("depth {d}/move"),
        MoveLimit::Clock { base, increment } => {
            format!("{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
        }
    };
    whole_pairs(args.games, "--games");
    let batch = args.executor.batch_pairs();
    let at_once = match executor {
        Some(_) => format!("on Slurm in batches of {batch} pairs"),
        None => format!("{concurrency} at once"),
    };
    println!(
        "marginal match: A '{}' vs B '{}', up to {} games at {limit_text}, {} openings from {} (seed {}), {at_once}",
        args.a,
        args.b,
        total_pairs * 2,
        positions.len(),
        args.openings.display(),
        args.seed
    );
    let (mut pgn_out, earlier) = match opened {
        None => (None, Vec::new()),
        Some(opened) => {
            let path = args.pgn.as_deref().expect("opened a --pgn").display();
            if let Some((bytes, games)) = opened.dropped {
                let whole = if games > 0 {
                    ", a first game without its partner among them"
                } else {
                    ""
                };
                println!(
                    "resume: dropped the unfinished pair at the end of {path} ({bytes} bytes{whole})"
                );
            }
            if args.resume {
                println!(
                    "resume: {} whole pairs ({} games) in {path} count; play goes on from pair {}",
                    opened.earlier.len(),
                    2 * opened.earlier.len(),
                    opened.earlier.len() + 1
                );
            }
            (Some(opened.file), opened.earlier)
        }
    };

    let date = pgn::today();
    let bar = progress_bar(
        (total_pairs * 2) as u64,
        "[{bar:30}] {pos}/{len} games {msg}",
    );
    if executor.is_some() {
        // The cluster reports by job array, not by game.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut write_error: Option<std::io::Error> = None;
    let mut on_pair = |pair: &PairRecord, stats: &MatchStats| {
        bar.set_position(stats.games);
        bar.set_message(status(stats, sprt.as_ref()));
        if let Some(out) = pgn_out.as_mut() {
            let round = pair.index + 1;
            let text =
                pgn::format_game(&pair.first, "marginal match", &format!("{round}.1"), &date)
                    + &pgn::format_game(
                        &pair.second,
                        "marginal match",
                        &format!("{round}.2"),
                        &date,
                    );
            // Both games in one write: a pair reaches the file whole, or (killed in the
            // middle) as a tail that --resume drops.
            if write_error.is_none()
                && let Err(e) = out.write_all(text.as_bytes())
            {
                write_error = Some(e);
            }
        }
    };
    let interrupt = super::executor::interrupt_flag()?;
    let result = match &executor {
        None => {
            let finished = AtomicBool::new(false);
            std::thread::scope(|scope| {
                scope.spawn(|| stop_engines_on(&interrupt, &finished));
                let result = run_match_from(
                    &factory_a,
                    &factory_b,
                    &positions,
                    &config,
                    earlier,
                    &interrupt,
                    &mut on_pair,
                );
                finished.store(true, Ordering::Relaxed);
                result
            })
        }
        Some(executor) => {
            let players = GamesJob {
                a: (name_a.clone(), margins_a.clone()),
                b: (name_b.clone(), margins_b.clone()),
                hash_mb: hash,
                game,
                pairs: Vec::new(),
            };
            let played = run_match_batched(
                &config,
                earlier,
                batch,
                &interrupt,
                &mut |range| play_pairs(executor.as_ref(), &players, &positions, range),
                &mut on_pair,
            );
            match played.map_err(|stopped| *stopped) {
                Ok(result) => result,
                // Cancelled: the pairs counted so far are summed up as after a local Ctrl-C.
                Err(Stopped {
                    error: ExecError::Interrupted(why),
                    result,
                }) => {
                    eprintln!("slurm: {why}");
                    result
                }
                Err(Stopped { error, .. }) => {
                    bar.finish_and_clear();
                    if let Some(e) = write_error {
                        return Err(e).context("cannot write the PGN file");
                    }
                    return Err(exec_error(error));
                }
            }
        }
    };
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e).context("cannot write the PGN file");
    }

    summary(&result, sprt.as_ref(), &args);
    if let (Some(path), Some(file)) = (&args.json, json_out) {
        let report = MatchReport::new(&result, &config, &args.a, &args.b);
        let mut out = BufWriter::new(file);
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush())
            .with_context(|| format!("cannot write the JSON report {}", path.display()))?;
        println!("report written to {}", path.display());
    }
    let s = &result.stats;
    if result.interrupted {
        return Err(Interrupted(format!(
            "interrupted after {} whole pairs{}",
            s.pentanomial.total_pairs(),
            match &args.pgn {
                Some(path) => format!(
                    "; the same command with --resume goes on from {}",
                    path.display()
                ),
                None => String::new(),
            }
        ))
        .into());
    }
    if let (Some(params), Some(SprtDecision::AcceptH0)) = (sprt.as_ref(), s.decision) {
        return Err(Failed(format!(
            "the SPRT nElo [{}, {}] accepted H0: A is not stronger",
            params.elo0, params.elo1
        ))
        .into());
    }
    Ok(())
}

/// Prints how many games each side lost to engine faults, and why (each reason once, with how
/// many games it ended).
fn print_faults(result: &MatchResult) {
    let (a, b) = result.stats.fault_losses;
    println!("games lost to engine faults: A {a}, B {b}");
    let mut reasons: Vec<(&str, &str, usize)> = Vec::new();
    for pair in &result.pairs {
        for (game, a_white) in [(&pair.first, true), (&pair.second, false)] {
            let Termination::PlayerFailure(why) = &game.termination else {
                continue;
            };
            let side = match result_for_a(game, a_white) {
                GameResult::Loss => "A",
                GameResult::Win => "B",
                GameResult::Draw => continue,
            };
            match reasons.iter_mut().find(|(s, w, _)| *s == side && *w == why) {
                Some(seen) => seen.2 += 1,
                None => reasons.push((side, why, 1)),
            }
        }
    }
    reasons.sort();
    for (side, why, games) in reasons {
        println!(
            "  {side}: {why} ({games} game{})",
            if games == 1 { "" } else { "s" }
        );
    }
}

/// Prints the result: counts, pentanomial, Elo and nElo with their intervals and LOS (`n/a`
/// where not defined yet), the SPRT, time losses and speed; for an interrupted match, the whole
/// pairs played, marked as such.
fn summary(result: &MatchResult, sprt: Option<&SprtParams>, args: &MatchArgs) {
    let s = &result.stats;
    let e = EloSummary::from(s.estimate());
    let p = s.pentanomial;
    if result.interrupted {
        println!(
            "interrupted: the {} whole pairs played count; the games in flight were abandoned",
            p.total_pairs()
        );
    }
    println!(
        "games {}: A +{} ={} -{} (score {})",
        s.games,
        s.wdl.wins,
        s.wdl.draws,
        s.wdl.losses,
        percent(score(s))
    );
    println!(
        "pentanomial [LL LD WL+DD WD WW] = [{} {} {} {} {}]",
        p.ll, p.ld, p.wl_dd, p.wd, p.ww
    );
    println!(
        "Elo {:+.2} [{:+.2}, {:+.2}] (95%), nElo {:+.2} [{:+.2}, {:+.2}], LOS {}",
        Shown(e.elo),
        Shown(e.lower),
        Shown(e.upper),
        Shown(e.nelo),
        Shown(e.nelo_lower),
        Shown(e.nelo_upper),
        percent(e.los)
    );
    if let Some(params) = sprt {
        let (lo, hi) = params.bounds();
        let verdict = match s.decision {
            Some(SprtDecision::AcceptH1) => "H1 accepted: A is stronger",
            Some(SprtDecision::AcceptH0) => "H0 accepted: A is not stronger",
            _ if result.interrupted => "no decision (interrupted)",
            _ => "no decision yet",
        };
        println!(
            "SPRT nElo [{}, {}], alpha {}, beta {}: LLR {:.3} in ({lo:.3}, {hi:.3}): {verdict}",
            params.elo0,
            params.elo1,
            params.alpha,
            params.beta,
            // No pair yet: the LLR of no data, 0 (as the report writes it).
            Shown(Some(
                s.llr.unwrap_or_else(|| sprt_llr(&s.pentanomial, params))
            ))
        );
    }
    println!("time losses: A {}, B {}", s.time_losses.0, s.time_losses.1);
    print_faults(result);
    let played = s.games - 2 * result.earlier as u64;
    let seconds = result.elapsed.as_secs_f64();
    let earlier = if result.earlier > 0 {
        format!(" (and {} from the PGN)", 2 * result.earlier)
    } else {
        String::new()
    };
    println!(
        "{played} games in {seconds:.1} s: {:.1} games/min{earlier}",
        played as f64 / (seconds / 60.0).max(1e-9)
    );
    if let Some(path) = &args.pgn {
        println!("games written to {}", path.display());
    }
}
