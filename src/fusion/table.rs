//! The table fusion accumulates candidates in: open addressing with linear
//! probing on key ordinals, one cell per candidate.
//!
//! Why a cell is a candidate: a key is hashed once, and no hit waits for the
//! candidate number the hit before it was given, so consecutive hits overlap.
//! Why hits are linked rather than ranks stored per candidate and lane: the
//! ranks are needed only for the kept items, so they are gathered for those.

/// The end of a candidate's chain of hits.
const NO_HIT: u32 = u32::MAX;

#[derive(Clone, Copy, Default)]
struct Cell {
    /// False for an empty cell.
    taken: bool,
    key: u32,
    best_rank: u32,
    /// The candidate's latest counted hit; `Table::previous` links the earlier ones.
    last_hit: u32,
    score: f64,
}

pub(super) struct Table {
    /// log2 of the cells in use: at least one and a half times the hits, so
    /// the table is at most two-thirds full even if every key is distinct
    /// (lanes overlap, so it is usually far less) and stays small enough to
    /// sit in cache.
    bits: u32,
    cells: Vec<Cell>,
    /// The cells filled by this call, in the order they were filled.
    filled: Vec<u32>,
    filled_count: usize,
    /// previous[hit] = the candidate's counted hit before `hit`, or `NO_HIT`.
    previous: Vec<u32>,
}

impl Table {
    pub(super) fn new(hits: usize) -> Self {
        let bits = (hits + hits / 2).next_power_of_two().trailing_zeros().max(1);
        Table {
            bits,
            cells: vec![Cell::default(); 1 << bits],
            filled: vec![0; hits],
            filled_count: 0,
            previous: vec![NO_HIT; hits],
        }
    }

    /// Counts hit number `lane_start + position` (hits are numbered in caller
    /// lane order, then hit order; `lane_start` is its lane's first), key
    /// ordinal `key`, adding `share` to its candidate's score. A key repeated
    /// within a lane counts once, at its first rank: it is a repeat when the
    /// candidate's last counted hit lies earlier in the same lane.
    #[inline]
    pub(super) fn count(&mut self, key: u32, lane_start: u32, position: u32, share: f64) {
        let cell = self.probe(key);
        let hit = lane_start + position;
        let rank = position + 1;
        let entry = &mut self.cells[cell];
        let is_new = !entry.taken;
        let counted = is_new | (entry.last_hit.wrapping_sub(lane_start) >= position);
        let score = if is_new { 0.0 } else { entry.score };
        let best_rank = if is_new { u32::MAX } else { entry.best_rank };
        let last_hit = if is_new { NO_HIT } else { entry.last_hit };
        *entry = Cell {
            taken: true,
            key,
            best_rank: best_rank.min(if counted { rank } else { u32::MAX }),
            last_hit: if counted { hit } else { last_hit },
            score: score + if counted { share } else { 0.0 },
        };
        // Both written whatever the outcome (a repeat's link is never followed,
        // and only a new key moves the end of `filled`), so neither waits on it.
        self.previous[hit as usize] = last_hit;
        self.filled[self.filled_count] = cell as u32;
        self.filled_count += usize::from(is_new);
    }

    /// The cell holding `key`, or the empty cell where it goes.
    #[inline]
    fn probe(&self, key: u32) -> usize {
        let mask = (1usize << self.bits) - 1;
        // Fibonacci hashing: the high bits of the product are the well-mixed ones.
        let mut cell = (u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize;
        loop {
            let entry = &self.cells[cell];
            if !entry.taken | (entry.key == key) {
                return cell;
            }
            cell = (cell + 1) & mask;
        }
    }

    /// The best `top_k` candidates' key ordinals, best first: higher score,
    /// then better best rank, then smaller key, packed into one integer whose
    /// plain order is that order.
    pub(super) fn select(&self, top_k: usize) -> Vec<u32> {
        let mut ranking: Vec<u128> = self.filled[..self.filled_count]
            .iter()
            .map(|&cell| {
                let entry = &self.cells[cell as usize];
                (u128::from(descending(entry.score)) << 64)
                    | (u128::from(entry.best_rank) << 32)
                    | u128::from(entry.key)
            })
            .collect();
        let k = top_k.min(ranking.len());
        if k > 0 && k < ranking.len() {
            ranking.select_nth_unstable(k - 1);
        }
        ranking[..k].sort_unstable();
        ranking[..k].iter().map(|&packed| packed as u32).collect()
    }

    /// A candidate's score and its counted hits, newest first, into `hits`.
    pub(super) fn candidate(&self, key: u32, hits: &mut Vec<u32>) -> f64 {
        let entry = &self.cells[self.probe(key)];
        hits.clear();
        hits.extend(std::iter::successors(Some(entry.last_hit), |&hit| {
            let previous = self.previous[hit as usize];
            (previous != NO_HIT).then_some(previous)
        }));
        entry.score
    }
}

/// An integer whose ascending order is `f64::total_cmp`'s descending order.
pub(super) fn descending(score: f64) -> u64 {
    let bits = score.to_bits() as i64;
    let ordered = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
    !((ordered as u64) ^ (1 << 63))
}
