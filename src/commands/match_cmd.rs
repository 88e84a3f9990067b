//! `marginal match`: margin set against margin set in self-play, pentanomial Elo and SPRT.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use marginal::formats::openings;
use marginal::scoring::games::game::{
    DrawRule, EnginePlayer, GameConfig, MoveLimit, Player, ResignRule,
};
use marginal::scoring::games::matches::{
    MatchConfig, MatchReport, MatchStats, PairRecord, run_match,
};
use marginal::scoring::games::pgn;
use marginal::scoring::games::stats::{SprtDecision, SprtParams};

use super::{
    UserError, count, depth_arg, hash_arg, margins_from, progress_bar, threads, threads_arg,
    whole_pairs,
};

/// Arguments of `marginal match`.
#[derive(Args)]
pub struct MatchArgs {
    /// Engine A's margin set: a built-in name (default, off, bare, sound), a tuned .json file,
    /// or name=value assignments.
    #[arg(long)]
    a: String,
    /// Engine B's margin set.
    #[arg(long)]
    b: String,
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
    /// Write the games as PGN (appended pair by pair as they finish).
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
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
fn parse_tc(text: &str) -> Result<MoveLimit, UserError> {
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

fn status(stats: &MatchStats, sprt: Option<&SprtParams>) -> String {
    let e = stats.estimate();
    let mut s = format!(
        "score {:.1}%  Elo {:+.1} +- {:.1}",
        100.0 * stats.score(),
        e.elo,
        (e.upper - e.lower) / 2.0
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

/// Runs the command.
pub fn run(args: MatchArgs) -> Result<()> {
    let margins_a = margins_from(&args.a, &[]).map_err(|e| UserError(format!("--a: {e}")))?;
    let margins_b = margins_from(&args.b, &[]).map_err(|e| UserError(format!("--b: {e}")))?;
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
    openings::shuffle(&mut positions, args.seed);
    let concurrency = threads(args.concurrency);
    let config = MatchConfig {
        game,
        games: args.games.max(2),
        concurrency,
        sprt,
    };

    // Both output files are created before the first game, so a bad path fails at once.
    if let (Some(pgn), Some(json)) = (&args.pgn, &args.json)
        && pgn == json
    {
        return Err(UserError(format!(
            "--pgn and --json both name {}: give them different files",
            pgn.display()
        ))
        .into());
    }
    let mut pgn_out = args
        .pgn
        .as_deref()
        .map(|path| create_output(path, "--pgn").map(BufWriter::new))
        .transpose()?;
    let json_out = args
        .json
        .as_deref()
        .map(|path| create_output(path, "--json"))
        .transpose()?;

    let name_a = format!("A {}", args.a);
    let name_b = format!("B {}", args.b);
    let hash = args.hash;
    let factory_a =
        || -> Box<dyn Player> { Box::new(EnginePlayer::new(name_a.clone(), margins_a, hash)) };
    let factory_b =
        || -> Box<dyn Player> { Box::new(EnginePlayer::new(name_b.clone(), margins_b, hash)) };

    let limit_text = match limit {
        MoveLimit::Nodes(n) => format!("{n} nodes/move"),
        MoveLimit::Depth(d) => format!("depth {d}/move"),
        MoveLimit::Clock { base, increment } => {
            format!("{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
        }
    };
    whole_pairs(args.games, "--games");
    println!(
        "marginal match: A '{}' vs B '{}', up to {} games at {limit_text}, {} openings from {} (seed {}), {concurrency} at once",
        args.a,
        args.b,
        config.games.div_ceil(2) * 2,
        positions.len(),
        args.openings.display(),
        args.seed
    );

    let date = pgn::today();
    let bar = progress_bar(
        u64::from(config.games.div_ceil(2) * 2),
        "[{bar:30}] {pos}/{len} games {msg}",
    );
    let mut write_error: Option<std::io::Error> = None;
    let result = run_match(
        &factory_a,
        &factory_b,
        &positions,
        &config,
        &mut |pair: &PairRecord, stats: &MatchStats| {
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
                if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                    write_error.get_or_insert(e);
                }
            }
        },
    );
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e).context("cannot write the PGN file");
    }

    let s = &result.stats;
    let e = s.estimate();
    let p = s.pentanomial;
    println!(
        "games {}: A +{} ={} -{} (score {:.1}%)",
        s.games,
        s.wdl.wins,
        s.wdl.draws,
        s.wdl.losses,
        100.0 * s.score()
    );
    println!(
        "pentanomial [LL LD WL+DD WD WW] = [{} {} {} {} {}]",
        p.ll, p.ld, p.wl_dd, p.wd, p.ww
    );
    println!(
        "Elo {:+.2} [{:+.2}, {:+.2}] (95%), nElo {:+.2} [{:+.2}, {:+.2}], LOS {:.1}%",
        e.elo,
        e.lower,
        e.upper,
        e.nelo,
        e.nelo_lower,
        e.nelo_upper,
        100.0 * e.los
    );
    if let (Some(params), Some(llr)) = (sprt.as_ref(), s.llr) {
        let (lo, hi) = params.bounds();
        let verdict = match s.decision {
            Some(SprtDecision::AcceptH1) => "H1 accepted: A is stronger",
            Some(SprtDecision::AcceptH0) => "H0 accepted: A is not stronger",
            _ => "no decision yet",
        };
        println!(
            "SPRT nElo [{}, {}], alpha {}, beta {}: LLR {llr:.3} in ({lo:.3}, {hi:.3}): {verdict}",
            params.elo0, params.elo1, params.alpha, params.beta
        );
    }
    println!("time losses: A {}, B {}", s.time_losses.0, s.time_losses.1);
    let minutes = result.elapsed.as_secs_f64() / 60.0;
    println!(
        "{} games in {:.1} s: {:.1} games/min",
        s.games,
        result.elapsed.as_secs_f64(),
        s.games as f64 / minutes.max(1e-9)
    );
    if let Some(path) = &args.pgn {
        println!("games written to {}", path.display());
    }
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
    Ok(())
}
