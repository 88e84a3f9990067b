//! Game pairs played through a [`Runner`]: [`run_match_on`] plays a match's pairs through
//! [`Runner::play`] (streamed on this machine, in batches on a cluster) and counts them as
//! [`run_match_from`](super::matches::run_match_from) does.
//!
//! A pair depends only on its opening, the two settings and the rules, so the pairs a runner
//! gives back are those [`play_pair`](super::matches::play_pair) plays here.

use std::ops::Range;

use shakmaty::Chess;

use std::sync::atomic::AtomicBool;

use super::matches::run_match_streamed;
use super::matches::{MatchConfig, MatchResult, MatchStats, PairRecord, Stopped};
use crate::scoring::exec::{ExecError, GamesJob, Runner};

/// Runs a match as [`run_match_from`](super::matches::run_match_from) does, its pairs played
/// by `runner` ([`Runner::play`]: streamed through the one queue of game pairs on this machine,
/// in batches on a cluster), with the sides, table size and rules of `players` (whose own
/// `pairs` are ignored) and pair `i` from `openings[i % len]`. The pairs counted, the totals
/// and where the match stops are the same on any runner (only the pairs played in vain after
/// a decision depend on it).
///
/// # Errors
/// The runner failed: its error with the match counted so far ([`Stopped`], `interrupted` set).
///
/// # Panics
/// As [`run_match_from`](super::matches::run_match_from).
pub fn run_match_on(
    runner: &dyn Runner,
    players: &GamesJob,
    openings: &[Chess],
    config: &MatchConfig,
    earlier: Vec<PairRecord>,
    interrupt: &AtomicBool,
    on_pair: &mut dyn FnMut(&PairRecord, &MatchStats),
) -> Result<MatchResult, Box<Stopped<ExecError>>> {
    let mut play = |range: Range<usize>, take: &mut dyn FnMut(PairRecord) -> _| {
        let job = GamesJob {
            a: players.a.clone(),
            b: players.b.clone(),
            hash_mb: players.hash_mb,
            game: players.game,
            pairs: (range.map(|i| (i, openings[i % openings.len()].clone()))).collect(),
        };
        runner.play(&job, interrupt, take)
    };
    run_match_streamed(config, earlier, interrupt, &mut play, on_pair)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use shakmaty::Position;

    use super::*;
    use crate::engine::Setting;
    use crate::params::Margins;
    use crate::scoring::exec::local::Local;
    use crate::scoring::exec::{Done, InProcess, Job};
    use crate::scoring::games::game::{EnginePlayer, GameConfig, MoveLimit, Player};
    use crate::scoring::games::matches::run_match;
    use crate::scoring::games::stats::{SprtDecision, SprtParams};

    fn openings() -> Vec<Chess> {
        let mut out = Vec::new();
        for first in 0..4 {
            let mut pos = Chess::default();
            let m = pos.legal_moves()[first * 5];
            pos.play_unchecked(m);
            out.push(pos);
        }
        out
    }

    /// Per pair: index, both games' moves and outcomes.
    fn games(r: &MatchResult) -> Vec<String> {
        r.pairs
            .iter()
            .map(|p| {
                format!(
                    "{} {:?} {:?} {:?} {:?}",
                    p.index, p.first.moves, p.first.outcome, p.second.moves, p.second.outcome
                )
            })
            .collect()
    }

    fn same(x: &MatchResult, y: &MatchResult) {
        assert_eq!(games(x), games(y));
        assert_eq!(x.stats.wdl, y.stats.wdl);
        assert_eq!(x.stats.pentanomial, y.stats.pentanomial);
        assert_eq!(x.stats.llr, y.stats.llr);
        assert_eq!(x.stats.decision, y.stats.decision);
        assert_eq!(x.interrupted, y.interrupted);
    }

    /// The two players at 300 nodes a move, and a match of up to 20 pairs whose SPRT decides
    /// within a few.
    fn players_and_config() -> (GamesJob, MatchConfig) {
        let (a, b): (Setting, Setting) = (Margins::default().into(), Margins::off().into());
        let players = GamesJob {
            a: ("A".into(), a),
            b: ("B".into(), b),
            hash_mb: 1,
            game: GameConfig {
                limit: MoveLimit::Nodes(300),
                max_plies: 60,
                ..GameConfig::default()
            },
            pairs: Vec::new(),
        };
        // An SPRT that decides within a few pairs, well before the 20 allowed.
        let config = MatchConfig {
            game: players.game,
            games: 40,
            concurrency: 2,
            sprt: Some(SprtParams {
                elo0: -100.0,
                elo1: 100.0,
                alpha: 0.2,
                beta: 0.2,
            }),
        };
        (players, config)
    }

    /// Runs batches as `InProcess` does (`shards` pairs a batch), keeping the pairs of each
    /// batch asked for, and failing the batch numbered `fail` (from 1).
    #[derive(Debug)]
    struct Watched {
        inner: InProcess,
        asked: Mutex<Vec<usize>>,
        fail: Option<usize>,
    }

    impl Watched {
        fn new(batch: usize, fail: Option<usize>) -> Watched {
            let (inner, asked) = (InProcess { shards: batch }, Mutex::new(Vec::new()));
            Watched { inner, asked, fail }
        }
    }

    impl Runner for Watched {
        fn batch_pairs(&self) -> usize {
            self.inner.batch_pairs()
        }

        fn run(&self, jobs: &[Job]) -> Result<Vec<Done>, ExecError> {
            let mut asked = self.asked.lock().unwrap();
            asked.push(jobs.iter().map(Job::len).sum());
            if Some(asked.len()) == self.fail {
                return Err(ExecError::Failed("lost".into()));
            }
            drop(asked);
            self.inner.run(jobs)
        }
    }

    #[test]
    fn a_match_through_any_runner_counts_what_a_local_one_counts() {
        let (players, config) = players_and_config();
        let (a, b) = (players.a.1.clone(), players.b.1.clone());
        let book = openings();
        let fa = || -> Box<dyn Player> { Box::new(EnginePlayer::new("A", a.clone(), 1)) };
        let fb = || -> Box<dyn Player> { Box::new(EnginePlayer::new("B", b.clone(), 1)) };
        let local = run_match(&fa, &fb, &book, &config, &mut |_, _| {});
        let stopped_at = local.pairs.len();
        assert!(matches!(
            local.stats.decision,
            Some(SprtDecision::AcceptH0 | SprtDecision::AcceptH1)
        ));
        assert!(
            (2..20).contains(&stopped_at),
            "the SPRT did not decide after a few pairs: {stopped_at}"
        );
        let never = AtomicBool::new(false);
        for threads in [1, 3] {
            let here = Local::new(threads);
            let streamed = run_match_on(
                &here,
                &players,
                &book,
                &config,
                Vec::new(),
                &never,
                &mut |_, _| {},
            );
            same(&streamed.unwrap(), &local);
        }
        batches_count_what_a_local_match_counts(&players, &config, &book, &local);
        stopped_matches_count_their_whole_pairs(&players, &config, &book, &local);
    }

    /// Checks that the match through a runner in batches of 1, 2 and 3 pairs counts what
    /// `local` counted, asking for batches until the one holding the decisive pair.
    fn batches_count_what_a_local_match_counts(
        players: &GamesJob,
        config: &MatchConfig,
        book: &[Chess],
        local: &MatchResult,
    ) {
        let stopped_at = local.pairs.len();
        let never = AtomicBool::new(false);
        for batch in [1, 2, 3] {
            let mut seen = Vec::new();
            let runner = Watched::new(batch, None);
            let remote = run_match_on(
                &runner,
                players,
                book,
                config,
                Vec::new(),
                &never,
                &mut |p, _| {
                    seen.push(p.index);
                },
            )
            .unwrap();
            same(&remote, local);
            assert_eq!(seen, (0..stopped_at).collect::<Vec<_>>());
            // Batches of `batch` pairs from pair 0 until the one holding the decisive pair.
            let asked = runner.asked.into_inner().unwrap();
            assert_eq!(asked.len(), stopped_at.div_ceil(batch), "batch {batch}");
            assert!(asked.iter().all(|&n| n == batch));
        }
    }

    /// Checks that the match through a runner resumed from `local`'s first pair counts what
    /// `local` counted, and that one stopped by a failing batch or by the interrupt counts the
    /// whole pairs before it.
    fn stopped_matches_count_their_whole_pairs(
        players: &GamesJob,
        config: &MatchConfig,
        book: &[Chess],
        local: &MatchResult,
    ) {
        let never = AtomicBool::new(false);
        // Resumed from the first pair.
        let earlier = local.pairs[..1].to_vec();
        let runner = Watched::new(2, None);
        let resumed = run_match_on(
            &runner,
            players,
            book,
            config,
            earlier,
            &never,
            &mut |_, _| {},
        );
        let resumed = resumed.unwrap();
        same(&resumed, local);
        assert_eq!(resumed.earlier, 1);
        // Without an SPRT, stopped by a failing second batch, or by the interrupt flag raised
        // after the first pair: the first pair counts, nothing after it.
        let open = MatchConfig {
            sprt: None,
            ..*config
        };
        let failing = Watched::new(1, Some(2));
        let played = run_match_on(
            &failing,
            players,
            book,
            &open,
            Vec::new(),
            &never,
            &mut |_, _| {},
        );
        let Err(stopped) = played else {
            panic!("the second batch failed: the match cannot end well");
        };
        let Stopped { error, result } = *stopped;
        assert_eq!(error, ExecError::Failed("lost".into()));
        assert!(result.interrupted);
        assert_eq!(games(&result), games(local)[..1]);
        let interrupt = AtomicBool::new(false);
        let cut = run_match_on(
            &Watched::new(1, None),
            players,
            book,
            &open,
            Vec::new(),
            &interrupt,
            &mut |_, _| interrupt.store(true, std::sync::atomic::Ordering::Relaxed),
        )
        .unwrap();
        assert!(cut.interrupted);
        assert_eq!(games(&cut), games(local)[..1]);
    }
}
