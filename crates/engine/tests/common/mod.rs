//! Helpers for hand-built deals: play one and keep a log of what happened.
#![allow(dead_code)]

use warlab_engine::{Deal, Engine, GameRecord, GameSeed, Observer, Rules, View};

/// One battle as the observer saw it.
#[derive(Clone, Debug, Default)]
pub struct Battle {
    /// Face-up cards, as labels, in the order they were turned: (seat, label, depth).
    pub up: Vec<(usize, String, u32)>,
    /// Face-down counts per (seat, depth).
    pub down: Vec<(usize, usize, u32)>,
    pub prizes: Vec<(usize, String)>,
    pub wars: u32,
    pub dropped: Vec<(usize, bool)>,
    pub winner: Option<usize>,
    pub pot: usize,
    /// Cards each seat holds after the battle.
    pub cards: Vec<usize>,
    /// Each seat's stack after the battle, as labels, top first.
    pub stacks: Vec<Vec<String>>,
    pub piles: Vec<Vec<String>>,
    pub grabbed: bool,
}

pub struct Log {
    labels: Vec<String>,
    pub battles: Vec<Battle>,
}

impl Observer for Log {
    fn battle_start(&mut self, _battle: u64) {
        self.battles.push(Battle::default());
    }
    fn prize(&mut self, p: usize, c: u8) {
        let l = self.labels[c as usize].clone();
        self.battles.last_mut().unwrap().prizes.push((p, l));
    }
    fn face_up(&mut self, p: usize, c: u8, depth: u32) {
        let l = self.labels[c as usize].clone();
        self.battles.last_mut().unwrap().up.push((p, l, depth));
    }
    fn war(&mut self, depth: u32, _players: u8, _down: usize) {
        self.battles.last_mut().unwrap().wars = depth;
    }
    fn face_down(&mut self, p: usize, n: usize, depth: u32) {
        self.battles.last_mut().unwrap().down.push((p, n, depth));
    }
    fn drop_out(&mut self, p: usize, forfeit: bool) {
        self.battles.last_mut().unwrap().dropped.push((p, forfeit));
    }
    fn grab(&mut self) {
        self.battles.last_mut().unwrap().grabbed = true;
    }
    fn battle_end(&mut self, winner: Option<usize>, pot: usize, v: &View<'_>) {
        let lab = |cs: Vec<u8>| {
            cs.into_iter()
                .map(|c| self.labels[c as usize].clone())
                .collect::<Vec<_>>()
        };
        let stacks = (0..v.players()).map(|p| lab(v.stack(p))).collect();
        let piles = (0..v.players()).map(|p| lab(v.pile(p))).collect();
        let b = self.battles.last_mut().unwrap();
        b.winner = winner;
        b.pot = pot;
        b.cards = (0..v.players()).map(|p| v.cards(p)).collect();
        b.stacks = stacks;
        b.piles = piles;
    }
}

pub fn rules(pairs: &[(&str, &str)]) -> Rules {
    Rules::from_pairs(pairs.iter().copied()).unwrap_or_else(|e| panic!("{pairs:?}: {e}"))
}

/// Plays `deal` (stacks separated by `/`, top first) under `pairs`, with a log.
pub fn play(pairs: &[(&str, &str)], deal: &str) -> (GameRecord, Log) {
    play_seeded(pairs, deal, 0)
}

pub fn play_seeded(pairs: &[(&str, &str)], deal: &str, seed: u64) -> (GameRecord, Log) {
    let rules = rules(pairs);
    let deal = Deal::parse(&rules, deal).unwrap_or_else(|e| panic!("{deal}: {e}"));
    let labels = (0..rules.cards().values())
        .map(|v| rules.cards().label(v as u8).to_string())
        .collect();
    let mut log = Log {
        labels,
        battles: Vec::new(),
    };
    let rec = Engine::new(&rules).play_deal_observed(&deal, GameSeed::new(seed, 0, 0), &mut log);
    (rec, log)
}

pub fn s(cards: &str) -> Vec<String> {
    cards.split_whitespace().map(str::to_string).collect()
}
