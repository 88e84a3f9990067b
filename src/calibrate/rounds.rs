//! The games of a calibration, round after round, until they can judge the objectives.
//!
//! The first round plays every set's `pairs_per_book` pairs on each book against the defaults.
//! After each round, from the pairs of the rounds so far alone (so that a calibration killed
//! and resumed makes the same decisions and ends with the same report):
//!
//! 1. **Ceiling reached**: the games' ceiling is at least the target (`--ceiling`, default
//!    0.8): the games agree with themselves well enough to judge an objective. Stop. The
//!    ceiling is the report's [`Ceiling::judging`](super::report::Ceiling::judging): the
//!    lesser of its "ceiling on rho" (`max_rho`, sqrt of the Spearman-Brown reliability of the
//!    even pairs' Elo against the odd pairs') and the same figure from book against book (with
//!    two books or more), so that one split agreeing by chance does not stop the games.
//! 2. Else the sets **not yet separated** get more games: a set is separated when its pooled
//!    Elo interval overlaps neither rank neighbour's (the sets ordered by pooled Elo, the
//!    defaults at 0 with no width; an interval end that is not defined overlaps everything).
//!    When every set is separated and the ceiling is still short, every set plays on.
//! 3. Each of them plays `step` more pairs (half the first round's, rounded up to an even
//!    number so that the even and the odd pairs stay as many) on every book: rounds stay
//!    book-balanced, so every set has as many pairs on each book and book against book still
//!    compares like with like. A set never plays an opening of a book twice: **openings
//!    spent** when no chosen set has one left. Stop.
//! 4. **Budget spent**: the round is cut to the games left of the budget (`--max-games`, every
//!    game of every round counted), fewer pairs a set; when not one pair a set is left, stop.
//!
//! Each round is played as one batch of the executor (on Slurm, one job array a round).

use serde::{Deserialize, Serialize};

use super::rank;
use super::report::Games;
use super::store::PairLine;

/// Why the games stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    /// The games' ceiling reached the target.
    Ceiling,
    /// The games' budget is spent.
    Budget,
    /// The sets that needed games had no opening left to play.
    Openings,
}

impl Stop {
    /// What it means, in a few words.
    pub fn said(self) -> &'static str {
        match self {
            Stop::Ceiling => "the games' ceiling reached the target",
            Stop::Budget => "the games' budget (--max-games) was spent",
            Stop::Openings => {
                "the sets not yet separated had played every opening of the books (larger books, or --openings more)"
            }
        }
    }
}

/// One round of games, as the report records it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// Sets that played in it.
    pub sets: usize,
    /// Pairs each of them played on each book (the most, when the budget cut some short).
    pub pairs_per_book: usize,
    /// Games played in it.
    pub games: u64,
    /// The games' ceiling on rho after it (`None`: not defined).
    pub ceiling: Option<f64>,
}

/// The rounds played and why they stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The rounds, the first first.
    pub rounds: Vec<Round>,
    /// Why no round followed the last.
    pub stopped: Stop,
}

/// What decides the rounds: the sets' count and which play, the books, the first round's pairs,
/// the target and the budget.
#[derive(Debug, Clone)]
pub struct Rules {
    /// Whether each set plays (the defaults do not).
    pub plays: Vec<bool>,
    /// Positions of each book (a set plays each at most once).
    pub book_sizes: Vec<usize>,
    /// Pairs per book of the first round.
    pub first: usize,
    /// The ceiling to reach.
    pub target: f64,
    /// Games in all, every round counted.
    pub max_games: u64,
}

/// What comes after a round: another (its pairs per book for each set, 0 for a set that does
/// not play in it), or the end.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Another round.
    Round(Vec<usize>),
    /// The end, and why.
    Stop(Stop),
}

impl Rules {
    /// Pairs added per set and book after the first round: half the first round's, rounded up
    /// to an even number.
    pub fn step(&self) -> usize {
        let half = self.first.div_ceil(2).max(1);
        half + half % 2
    }

    /// The first round: `first` pairs per book for each set that plays (fewer where a book is
    /// shorter).
    pub fn first_round(&self) -> Vec<usize> {
        let most = self.book_sizes.iter().copied().min().unwrap_or(0);
        (self.plays.iter())
            .map(|&p| if p { self.first.min(most) } else { 0 })
            .collect()
    }

    /// What follows the rounds played so far: `planned` pairs per book for each set, `pairs`
    /// their results (pairs outside `planned` are ignored).
    pub fn next(&self, planned: &[usize], pairs: &[PairLine]) -> Next {
        if ceiling(planned, pairs, self.book_sizes.len()).is_some_and(|c| c >= self.target) {
            return Next::Stop(Stop::Ceiling);
        }
        let most = self.book_sizes.iter().copied().min().unwrap_or(0);
        let mut wanted = unseparated(planned, pairs, self.book_sizes.len(), &self.plays);
        if wanted.iter().all(|w| !w) {
            wanted.clone_from(&self.plays);
        }
        let room: Vec<usize> = (0..planned.len())
            .map(|s| {
                if wanted[s] {
                    self.step().min(most.saturating_sub(planned[s]))
                } else {
                    0
                }
            })
            .collect();
        let playing = room.iter().filter(|&&r| r > 0).count() as u64;
        if playing == 0 {
            return Next::Stop(Stop::Openings);
        }
        let books = self.book_sizes.len() as u64;
        let played: u64 = 2 * books * planned.iter().map(|&p| p as u64).sum::<u64>();
        let left = self.max_games.saturating_sub(played);
        let fits = (left / (2 * books * playing)) as usize;
        if fits == 0 {
            return Next::Stop(Stop::Budget);
        }
        Next::Round(room.into_iter().map(|r| r.min(fits)).collect())
    }
}

/// The pairs of set `s` within the first `planned[s]` of each book.
fn planned_pairs<'a>(
    planned: &'a [usize],
    pairs: &'a [PairLine],
) -> impl Iterator<Item = &'a PairLine> + 'a {
    pairs.iter().filter(move |p| p.pair < planned[p.set])
}

/// Each set's pooled, even, odd, first book's and second book's games from the planned pairs
/// (the second book's as the first's with one book).
fn games_of(planned: &[usize], pairs: &[PairLine], books: usize) -> Vec<[Games; 5]> {
    let kept: Vec<PairLine> = planned_pairs(planned, pairs).copied().collect();
    (0..planned.len())
        .map(|s| {
            if planned[s] == 0 {
                return std::array::from_fn(|_| Games::zero());
            }
            let t = super::report::tallies(&kept, s, books);
            let second = t.books[1.min(books - 1)];
            [t.pooled, t.even, t.odd, t.books[0], second]
                .map(|(p, d)| Games::from_pentanomial(&p, d))
        })
        .collect()
}

/// The games' ceiling on rho from the planned pairs, as the report's
/// [`Ceiling::judging`](super::report::Ceiling::judging) computes it: the lesser of the even
/// pairs against the odd ones and (with two books or more) the first book against the second,
/// each rho stepped up by [`ceiling_of`](super::report::ceiling_of).
pub fn ceiling(planned: &[usize], pairs: &[PairLine], books: usize) -> Option<f64> {
    let games = games_of(planned, pairs, books);
    let split = |a: usize, b: usize| {
        let x: Vec<f64> = games.iter().map(|g| g[a].elo).collect();
        let y: Vec<f64> = games.iter().map(|g| g[b].elo).collect();
        rank::spearman(&x, &y).map(super::report::ceiling_of)
    };
    let half = split(1, 2)?;
    Some(if books >= 2 {
        split(3, 4).map_or(half, |b| half.min(b))
    } else {
        half
    })
}

/// Which sets that play are not yet separated from a rank neighbour (see the module
/// documentation).
pub fn unseparated(
    planned: &[usize],
    pairs: &[PairLine],
    books: usize,
    plays: &[bool],
) -> Vec<bool> {
    let games = games_of(planned, pairs, books);
    let mut order: Vec<usize> = (0..games.len()).collect();
    order.sort_by(|&a, &b| games[a][0].elo.total_cmp(&games[b][0].elo).then(a.cmp(&b)));
    let mut out = vec![false; games.len()];
    for w in order.windows(2) {
        let (lo, hi) = (&games[w[0]][0], &games[w[1]][0]);
        let apart = matches!((lo.elo_interval[1], hi.elo_interval[0]), (Some(a), Some(b)) if a < b);
        if !apart {
            out[w[0]] = plays[w[0]];
            out[w[1]] = plays[w[1]];
        }
    }
    out
}

/// The tasks of a round: for each set, `add[s]` pairs on every book after its `planned[s]`;
/// pair-major (the k-th new pair of every set on every book, then the next), so that a partial
/// round has games of every set.
pub fn tasks(planned: &[usize], add: &[usize], books: usize) -> Vec<(usize, usize, usize)> {
    let most = add.iter().copied().max().unwrap_or(0);
    let mut out = Vec::new();
    for k in 0..most {
        for book in 0..books {
            for s in (0..add.len()).filter(|&s| k < add[s]) {
                out.push((s, book, planned[s] + k));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::store::Outcome;

    /// `n` pairs of set `s` on each of two books, pair `p` scoring `a` when `p / 2` is even,
    /// else `b` (so the even pairs and the odd ones score alike).
    fn pairs_of(s: usize, n: usize, a: [Outcome; 2], b: [Outcome; 2]) -> Vec<PairLine> {
        (0..n)
            .flat_map(|pair| {
                let [first, second] = if (pair / 2) % 2 == 0 { a } else { b };
                (0..2).map(move |book| PairLine {
                    set: s,
                    book,
                    pair,
                    first,
                    second,
                    faults: 0,
                })
            })
            .collect()
    }

    fn rules(sets: usize, first: usize, max_games: u64) -> Rules {
        Rules {
            plays: (0..sets).map(|s| s > 0).collect(),
            book_sizes: vec![1000, 1000],
            first,
            target: 0.8,
            max_games,
        }
    }

    #[test]
    fn rounds_add_an_even_number_of_pairs_on_every_book() {
        assert_eq!(rules(4, 100, 0).step(), 50);
        assert_eq!(rules(4, 3, 0).step(), 2);
        assert_eq!(rules(4, 1, 0).step(), 2);
        assert_eq!(rules(4, 2, 0).first_round(), vec![0, 2, 2, 2]);
        let t = tasks(&[0, 4, 4, 4], &[0, 2, 0, 1], 2);
        assert_eq!(
            t,
            vec![
                (1, 0, 4),
                (3, 0, 4),
                (1, 1, 4),
                (3, 1, 4),
                (1, 0, 5),
                (1, 1, 5)
            ]
        );
    }

    #[test]
    fn sets_apart_from_their_neighbours_play_no_more_and_the_rest_do() {
        use Outcome::{D, L, W};
        // Set 1 wins by far, set 2 loses by far, sets 3 and 4 score as the defaults (0, with
        // no width): 3 and 4 overlap each other and the defaults.
        let mut pairs = pairs_of(1, 80, [W, W], [W, D]);
        pairs.extend(pairs_of(2, 80, [L, L], [L, D]));
        pairs.extend(pairs_of(3, 80, [W, D], [D, L]));
        pairs.extend(pairs_of(4, 80, [D, W], [L, D]));
        let planned = [0, 80, 80, 80, 80];
        let plays = [false, true, true, true, true];
        assert_eq!(
            unseparated(&planned, &pairs, 2, &plays),
            vec![false, false, false, true, true]
        );
        let r = Rules {
            target: 1.01,
            ..rules(5, 80, 100_000)
        };
        assert_eq!(r.next(&planned, &pairs), Next::Round(vec![0, 0, 0, 40, 40]));
        // The budget cuts the round: 2 sets x 2 books x 2 games a pair, 40 games left.
        let tight = Rules {
            max_games: 2 * 2 * 4 * 80 + 40,
            ..r.clone()
        };
        assert_eq!(
            tight.next(&planned, &pairs),
            Next::Round(vec![0, 0, 0, 5, 5])
        );
        let spent = Rules {
            max_games: 2 * 2 * 4 * 80 + 7,
            ..r.clone()
        };
        assert_eq!(spent.next(&planned, &pairs), Next::Stop(Stop::Budget));
        // Books of 80 openings: the sets that need games have none left.
        let short = Rules {
            book_sizes: vec![80, 80],
            ..r.clone()
        };
        assert_eq!(short.next(&planned, &pairs), Next::Stop(Stop::Openings));
        // Pairs beyond the plan are not counted: the same decision.
        let mut more = pairs.clone();
        more.extend(
            pairs_of(3, 120, [W, W], [W, W])
                .into_iter()
                .filter(|p| p.pair >= 80),
        );
        assert_eq!(r.next(&planned, &more), r.next(&planned, &pairs));
    }

    #[test]
    fn games_that_agree_with_themselves_reach_the_ceiling_and_stop() {
        use Outcome::{D, L, W};
        // Every set's even and odd pairs alike, the sets apart: r = 1, ceiling 1.
        let mut pairs = pairs_of(1, 20, [W, W], [W, D]);
        pairs.extend(pairs_of(2, 20, [W, D], [D, D]));
        pairs.extend(pairs_of(3, 20, [D, L], [D, D]));
        pairs.extend(pairs_of(4, 20, [L, L], [L, D]));
        let planned = [0, 20, 20, 20, 20];
        assert_eq!(ceiling(&planned, &pairs, 2), Some(1.0));
        let r = rules(5, 20, 1_000_000);
        assert_eq!(r.next(&planned, &pairs), Next::Stop(Stop::Ceiling));
        // Short of a target above it, every set plays on (each is apart from its neighbours).
        let higher = Rules { target: 1.01, ..r };
        assert_eq!(
            higher.next(&planned, &pairs),
            Next::Round(vec![0, 10, 10, 10, 10])
        );
    }
}
