//! Casino War through the same runner: a "game" is one bankroll session, counted in a
//! [`CasinoAggregate`].

use std::ops::Range;

use warlab_casino::{CasinoRules, SessionRecord, Table};
use warlab_engine::GameSeed;
use warlab_experiment::Variant;
use warlab_stats::CasinoAggregate;

use crate::run::{CHUNK, Game};

/// One session, as written to `games.parquet`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionRow {
    /// The session's index in its variant.
    pub game: u64,
    /// What the session left behind.
    pub record: SessionRecord,
}

impl Game for CasinoRules {
    type Aggregate = CasinoAggregate;
    type Row = SessionRow;

    fn play_chunk(
        variant: &Variant<CasinoRules>,
        seed: u64,
        games: Range<u64>,
        rows: bool,
        // Sessions keep one running block per chunk: the report draws no running mean of them.
        _total: u64,
    ) -> (CasinoAggregate, Vec<SessionRow>) {
        let mut table = Table::new(&variant.rules);
        let mut aggregate = CasinoAggregate::default();
        let mut out = Vec::new();
        let block = games.start / CHUNK;
        let (mut s, mut q) = (0u64, 0u64);
        for g in games {
            let record = table.session(GameSeed::new(seed, variant.seed_id, g));
            aggregate.add(&record);
            s += record.hands;
            q = q.saturating_add(record.hands.saturating_mul(record.hands));
            if rows {
                out.push(SessionRow { game: g, record });
            }
        }
        if aggregate.sessions > 0 {
            aggregate.blocks.insert(block, [aggregate.sessions, s, q]);
        }
        (aggregate, out)
    }

    fn merge(into: &mut CasinoAggregate, other: &CasinoAggregate) {
        into.merge(other);
    }

    fn played(aggregate: &CasinoAggregate) -> u64 {
        aggregate.sessions
    }
}
