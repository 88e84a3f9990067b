//! Transposition table: two-entry buckets (depth-preferred and always-replace), 16-byte entries.
//!
//! A stored move is only a hint: the search plays it only if it equals a move of the current
//! legal move list (shakmaty's `play_unchecked` would corrupt a position on an illegal move, and
//! a key collision can hand us a move from another position).

use shakmaty::Move;

/// How a stored score relates to the true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact (a PV node).
    Exact,
    /// The true value is at least the score (fail high).
    Lower,
    /// The true value is at most the score (fail low).
    Upper,
}

/// A compact, position-independent encoding of a move: from, to, promotion, castle flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PackedMove(u16);

impl PackedMove {
    /// No move.
    pub const NONE: PackedMove = PackedMove(0);

    /// Packs a standard-chess move (drops are never stored).
    pub fn new(m: Move) -> PackedMove {
        let (from, to, promo, castle) = match m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => (from, to, promotion.map_or(0, |r| r as u16), 0),
            Move::EnPassant { from, to } => (from, to, 0, 0),
            Move::Castle { king, rook } => (king, rook, 0, 1),
            Move::Put { to, .. } => (to, to, 0, 0),
        };
        // A real move never has from == to, so no encoding is 0 (NONE).
        PackedMove(castle << 15 | promo << 12 | (from as u16) << 6 | to as u16)
    }

    /// Whether this is [`PackedMove::NONE`].
    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    /// Does this encode `m`?
    #[inline]
    pub fn matches(self, m: Move) -> bool {
        !self.is_none() && PackedMove::new(m) == self
    }
}

/// One probe result.
#[derive(Debug, Clone, Copy)]
pub struct TtHit {
    /// Best or refutation move (a hint, legality unchecked).
    pub mv: PackedMove,
    /// Score, already adjusted to the probing ply for mates.
    pub score: i32,
    /// Static evaluation stored with the entry.
    pub eval: i32,
    /// Remaining depth of the search that stored it, plies.
    pub depth: i32,
    /// Bound type.
    pub bound: Bound,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    mv: PackedMove,
    score: i16,
    eval: i16,
    depth: i8,
    bound: u8, // 0 empty, 1 exact, 2 lower, 3 upper
}

/// A transposition table of this many megabytes cannot be allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a transposition table of {mb} MB")]
pub struct TtAllocError {
    /// The size asked for, megabytes.
    pub mb: usize,
}

/// `--hash` tables that do not fit at once: the message names the option, the sizes and the
/// fix (a user error, exit status 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HashFitError {
    /// The allocator refuses the tables (the address space, or a size that overflows).
    #[error(
        "--hash {mb}: {source} for each of {searches} searches at once: give a smaller --hash, or fewer threads (--threads or --concurrency)"
    )]
    Refused {
        /// The size of each table, megabytes.
        mb: usize,
        /// The searches run at once, a table each.
        searches: usize,
        /// The allocator's refusal.
        source: TtAllocError,
    },
    /// The tables together are more than the machine's available memory.
    #[error(
        "--hash {mb}: {tables} tables of {mb} MB at once ({total} MB) are more than the {available} MB of memory this machine has available (MemAvailable in /proc/meminfo); searches could fill them until the kernel kills the run: give a smaller --hash (16 by default), or fewer threads (--threads or --concurrency)"
    )]
    Memory {
        /// The size of each table, megabytes.
        mb: usize,
        /// The tables at once (at least 1).
        tables: usize,
        /// All of them, megabytes (saturating).
        total: usize,
        /// The memory available, megabytes.
        available: usize,
    },
}

/// Whether `searches` searches at once (a thread each; two engines a game) can each have a
/// table of `mb` megabytes: the allocator must grant them all together, and they must fit in
/// the machine's available memory ([`available_mb`]), or the run would fail in a worker, or be
/// killed, after it began.
///
/// # Errors
/// The tables do not fit: names the option, the sizes and the fix.
pub fn hash_fits(mb: usize, searches: usize) -> Result<(), HashFitError> {
    hash_fits_in(mb, searches, available_mb())
}

/// [`hash_fits`] with the available memory given, megabytes (`None`: unknown, not checked).
///
/// # Errors
/// As [`hash_fits`].
pub fn hash_fits_in(
    mb: usize,
    searches: usize,
    available: Option<usize>,
) -> Result<(), HashFitError> {
    TranspositionTable::can_allocate_many(mb, searches).map_err(|source| {
        HashFitError::Refused {
            mb,
            searches,
            source,
        }
    })?;
    // The allocator grants address space, not memory: tables past the machine's memory would
    // grow until the kernel kills the run, and others' with it.
    let total = mb.saturating_mul(searches.max(1));
    match available {
        Some(available) if total > available => Err(HashFitError::Memory {
            mb,
            tables: searches.max(1),
            total,
            available,
        }),
        _ => Ok(()),
    }
}

/// The memory the system can give without swapping, in MB (`MemAvailable` of
/// `/proc/meminfo`); `None` where it cannot be read.
pub fn available_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The table. Size is fixed at construction; [`TranspositionTable::clear`] empties it.
///
/// Clearing costs nothing however large the table: each entry carries the generation it was
/// stored in (the high bits of its bound byte), and only entries of the current generation
/// count, so `clear` moves to the next generation instead of writing every entry (once every
/// `GENERATIONS` clears, before a generation number would come back, the table is replaced
/// by a fresh zeroed one). A search sees exactly what it would see in a table filled with
/// empty entries. The memory is allocated zeroed (lazily, by the operating system), so a large
/// `--hash` is paid for only in the pages searches store into, and those go back to the
/// system at each replacement.
pub struct TranspositionTable {
    buckets: Vec<[Entry; 2]>,
    generation: u8,
}

/// Generations before `clear` empties every entry for real (the bound byte keeps 6 bits of
/// generation above its 2 bits of bound).
const GENERATIONS: u8 = 64;

/// Scores at least this far from zero are mate scores, stored relative to the node.
const MATE_BOUND: i32 = super::score::MATE_BOUND;

impl TranspositionTable {
    /// A table of about `mb` megabytes; `0` makes a disabled table that stores nothing.
    ///
    /// Panics when the memory cannot be had; [`TranspositionTable::try_new`] reports it instead.
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of about `mb` megabytes, or an error when the size overflows or the allocator
    /// refuses it (nothing is allocated then).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, TtAllocError> {
        let count = mb.checked_mul(1024 * 1024).ok_or(TtAllocError { mb })?
            / std::mem::size_of::<[Entry; 2]>();
        // The allocator's own refusal first: a zeroed allocation of an absurd size can be
        // granted (mapped lazily) where an ordinary one is refused.
        TranspositionTable::can_allocate(mb)?;
        Ok(TranspositionTable {
            buckets: zeroed_buckets(count).ok_or(TtAllocError { mb })?,
            generation: 0,
        })
    }

    /// Whether the allocator grants a table of `mb` megabytes now (reserved and released at
    /// once, without touching the memory): a command checks its `--hash` with it before work.
    ///
    /// # Errors
    /// The size overflows or the allocator refuses it.
    pub fn can_allocate(mb: usize) -> Result<(), TtAllocError> {
        TranspositionTable::can_allocate_many(mb, 1)
    }

    /// Whether the allocator grants `tables` tables of `mb` megabytes at once (all reserved
    /// together, then released): what a run that searches `tables` positions at a time needs.
    ///
    /// # Errors
    /// The size overflows or the allocator refuses one of them.
    pub fn can_allocate_many(mb: usize, tables: usize) -> Result<(), TtAllocError> {
        let count = mb.checked_mul(1024 * 1024).ok_or(TtAllocError { mb })?
            / std::mem::size_of::<[Entry; 2]>();
        let mut held = Vec::with_capacity(tables);
        for _ in 0..tables.max(1) {
            let mut v = Vec::<[Entry; 2]>::new();
            v.try_reserve_exact(count)
                .map_err(|_| TtAllocError { mb })?;
            held.push(v);
        }
        Ok(())
    }

    /// Size in megabytes (rounded down).
    pub fn size_mb(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<[Entry; 2]>() / (1024 * 1024)
    }

    /// Empties every entry (by moving to the next generation; see the type's notes).
    pub fn clear(&mut self) {
        self.generation += 1;
        if self.generation == GENERATIONS {
            // A fresh zeroed table rather than writing every entry: the pages the searches
            // touched go back to the system, and a large table stays paid for only where the
            // next searches store (filling it would make all of it resident).
            let len = self.buckets.len();
            self.buckets = Vec::new();
            self.buckets = zeroed_buckets(len).unwrap_or_else(|| vec![[Entry::default(); 2]; len]);
            self.generation = 0;
        }
    }

    /// Whether `e` holds a result of the current generation (else it counts as empty).
    #[inline]
    fn live(&self, e: &Entry) -> bool {
        e.bound & 3 != 0 && e.bound >> 2 == self.generation
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// Looks up `key`; mate scores are converted to be relative to `ply`.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        if self.buckets.is_empty() {
            return None;
        }
        let bucket = &self.buckets[self.index(key)];
        let e = bucket.iter().find(|e| self.live(e) && e.key == key)?;
        let mut score = i32::from(e.score);
        if score >= MATE_BOUND {
            score -= ply as i32;
        } else if score <= -MATE_BOUND {
            score += ply as i32;
        }
        let bound = match e.bound & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(TtHit {
            mv: e.mv,
            score,
            eval: i32::from(e.eval),
            depth: i32::from(e.depth),
            bound,
        })
    }

    /// Stores a result; mate scores are made relative to the node (`ply` from the root).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &mut self,
        key: u64,
        ply: usize,
        mv: PackedMove,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        if self.buckets.is_empty() {
            return;
        }
        let mut score = score;
        if score >= MATE_BOUND {
            score += ply as i32;
        } else if score <= -MATE_BOUND {
            score -= ply as i32;
        }
        let index = self.index(key);
        let live = [
            self.live(&self.buckets[index][0]),
            self.live(&self.buckets[index][1]),
        ];
        let generation = self.generation;
        let bucket = &mut self.buckets[index];
        let depth = depth.clamp(-1, 127) as i8;
        // Slot 0 keeps the deepest result for its key; slot 1 always takes the newest.
        let slot = if !live[0] || bucket[0].key == key || depth >= bucket[0].depth {
            0
        } else {
            1
        };
        let e = &mut bucket[slot];
        // Keep the old move when the new result has none for the same position.
        let mv = if mv.is_none() && live[slot] && e.key == key {
            e.mv
        } else {
            mv
        };
        *e = Entry {
            key,
            mv,
            score: score.clamp(-32767, 32767) as i16,
            eval: eval.clamp(-32767, 32767) as i16,
            depth,
            bound: generation << 2
                | match bound {
                    Bound::Exact => 1,
                    Bound::Lower => 2,
                    Bound::Upper => 3,
                },
        };
    }
}

/// `count` empty buckets in memory the allocator hands out zeroed (for a large table, pages
/// the operating system maps on first touch), or None when it refuses.
fn zeroed_buckets(count: usize) -> Option<Vec<[Entry; 2]>> {
    if count == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<[Entry; 2]>(count).ok()?;
    // SAFETY: the layout has a non-zero size (count > 0, entries are 16 bytes); an all-zero
    // `Entry` is `Entry::default()` (integers and a u16 newtype), so the zeroed memory holds
    // `count` valid buckets; the pointer, length and capacity match the layout the global
    // allocator gave, as `Vec::from_raw_parts` requires.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<[Entry; 2]>();
        if ptr.is_null() {
            return None;
        }
        Some(Vec::from_raw_parts(ptr, count, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn packed_moves_are_unique_per_position() {
        let pos = Chess::default();
        let moves = pos.legal_moves();
        for (i, a) in moves.iter().enumerate() {
            for b in &moves[i + 1..] {
                assert_ne!(PackedMove::new(*a), PackedMove::new(*b));
            }
            assert!(PackedMove::new(*a).matches(*a));
        }
    }

    #[test]
    fn store_probe_and_mate_adjustment() {
        let mut tt = TranspositionTable::new(1);
        let m = Chess::default().legal_moves()[0];
        tt.store(
            42,
            3,
            PackedMove::new(m),
            MATE_BOUND + 50,
            17,
            5,
            Bound::Lower,
        );
        let hit = tt.probe(42, 3).unwrap();
        assert_eq!(hit.score, MATE_BOUND + 50);
        assert_eq!(hit.depth, 5);
        assert_eq!(hit.bound, Bound::Lower);
        // Probed two plies deeper, the mate is two plies nearer.
        assert_eq!(tt.probe(42, 5).unwrap().score, MATE_BOUND + 48);
        assert!(tt.probe(43, 3).is_none());
        tt.clear();
        assert!(tt.probe(42, 3).is_none());
        let mut off = TranspositionTable::new(0);
        off.store(42, 0, PackedMove::NONE, 1, 1, 1, Bound::Exact);
        assert!(off.probe(42, 0).is_none());
    }

    #[test]
    fn a_clear_hides_every_older_entry_across_generation_wraps() {
        let mut tt = TranspositionTable::new(1);
        let m = PackedMove::new(Chess::default().legal_moves()[0]);
        // Many more clears than generations: whatever was stored before the last clear is
        // gone, as after writing empty entries, and what is stored after it is found, with its
        // move kept only within its own generation.
        // Keys spread over the table (an index is the key's high bits).
        let seven = 7u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for round in 0..3 * u64::from(GENERATIONS) + 5 {
            let key = (1000 + round).wrapping_mul(0xD6E8_FEB8_6659_FD93);
            tt.store(key, 0, m, 10, 0, 4, Bound::Exact);
            tt.store(seven, 0, m, 20, 0, 6, Bound::Upper);
            assert_eq!(tt.probe(key, 0).unwrap().bound, Bound::Exact);
            assert_eq!(tt.probe(seven, 0).unwrap().score, 20);
            tt.clear();
            assert!(tt.probe(key, 0).is_none(), "round {round}");
            assert!(tt.probe(seven, 0).is_none(), "round {round}");
            // No move for the same position after a clear: none is taken from before it.
            tt.store(seven, 0, PackedMove::NONE, 5, 0, 1, Bound::Lower);
            assert!(tt.probe(seven, 0).unwrap().mv.is_none(), "round {round}");
            tt.clear();
        }
    }

    #[test]
    fn a_large_table_costs_nothing_until_searches_store() {
        // 4 GB, allocated zeroed by the operating system: nothing is written, so this is quick
        // and touches a page or two (the test would take seconds if the table were filled).
        if TranspositionTable::can_allocate(4096).is_ok() {
            let mut tt = TranspositionTable::new(4096);
            assert_eq!(tt.size_mb(), 4096);
            tt.clear();
            assert!(tt.probe(99, 0).is_none());
            tt.store(99, 0, PackedMove::NONE, 1, 1, 1, Bound::Exact);
            assert!(tt.probe(99, 0).is_some());
        }
    }

    #[test]
    fn an_impossible_size_is_an_error_not_an_abort() {
        // 2^40 MB is 2^60 bytes, beyond any address space; usize::MAX MB overflows the byte count.
        for mb in [1 << 40, usize::MAX] {
            assert_eq!(
                TranspositionTable::try_new(mb).err(),
                Some(TtAllocError { mb })
            );
        }
        assert_eq!(TranspositionTable::try_new(2).unwrap().size_mb(), 2);
        assert_eq!(TranspositionTable::try_new(0).unwrap().size_mb(), 0);
    }

    #[test]
    fn tables_past_the_available_memory_do_not_fit_and_the_message_names_the_sizes() {
        assert_eq!(hash_fits_in(16, 4, Some(64)), Ok(()));
        assert_eq!(hash_fits_in(16, 4, None), Ok(()));
        let e = hash_fits_in(16, 5, Some(64)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--hash 16: 5 tables of 16 MB at once (80 MB) are more than the 64 MB of memory this machine has available (MemAvailable in /proc/meminfo); searches could fill them until the kernel kills the run: give a smaller --hash (16 by default), or fewer threads (--threads or --concurrency)"
        );
        // No search still needs its one table.
        assert!(matches!(
            hash_fits_in(16, 0, Some(8)),
            Err(HashFitError::Memory { tables: 1, .. })
        ));
    }

    #[test]
    fn tables_the_allocator_refuses_name_the_option_and_the_fix() {
        let e = hash_fits_in(1 << 40, 2, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--hash {}: cannot allocate a transposition table of {} MB for each of 2 searches at once: give a smaller --hash, or fewer threads (--threads or --concurrency)",
                1usize << 40,
                1usize << 40
            )
        );
    }

    #[test]
    fn the_available_memory_is_read_where_proc_meminfo_is() {
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(available_mb().is_some_and(|mb| mb > 0));
        }
    }
}
