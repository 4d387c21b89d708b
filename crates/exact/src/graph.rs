//! The state graph: every position reachable from the starting ones, each with its outcomes
//! (the positions after one battle, and the endings) and their probabilities, found by
//! replaying the engine's battle with every outcome of every draw ([`Script`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use warlab_engine::{Battler, Ending, Played, Position, Rules};

use crate::ExactError;
use crate::script::{MAX_BRANCHES, Script};

/// A position written as bytes (its key): `in_game`, then for each seat the stack, the won
/// pile and the hand, each as a length and its cards, then the wars won under `wars_to_win`.
/// Equal keys are equal positions, exactly what the engine's cycle detection compares.
pub type Key = Rc<[u8]>;

/// FxHash (rustc's): keys are short and not adversarial.
#[derive(Default, Clone, Copy)]
pub struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

impl Fx {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A hash map with [`Fx`].
pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// Writes `pos` as its key.
pub fn encode(pos: &Position, wars: bool, out: &mut Vec<u8>) {
    out.clear();
    out.push(pos.in_game);
    for p in 0..pos.stacks.len() {
        for cards in [&pos.stacks[p], &pos.piles[p], &pos.hands[p]] {
            out.push(cards.len() as u8);
            out.extend_from_slice(cards);
        }
    }
    if wars {
        for w in &pos.wars_won {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

/// Reads a key back into `pos` (`players` seats).
pub fn decode(key: &[u8], players: usize, wars: bool, pos: &mut Position) {
    pos.stacks.resize_with(players, Vec::new);
    pos.piles.resize_with(players, Vec::new);
    pos.hands.resize_with(players, Vec::new);
    pos.wars_won.clear();
    pos.wars_won.resize(players, 0);
    pos.in_game = key[0];
    let mut at = 1;
    for p in 0..players {
        for part in 0..3 {
            let n = usize::from(key[at]);
            let cards = &key[at + 1..at + 1 + n];
            let v = match part {
                0 => &mut pos.stacks[p],
                1 => &mut pos.piles[p],
                _ => &mut pos.hands[p],
            };
            v.clear();
            v.extend_from_slice(cards);
            at += 1 + n;
        }
    }
    if wars {
        for p in 0..players {
            pos.wars_won[p] = u32::from_le_bytes(key[at..at + 4].try_into().expect("4 bytes"));
            at += 4;
        }
    }
}

/// An ending reached from a state: which one, after how many battles of this step (1, or 0
/// when the game ended before the battle: `on_empty = lose`), with what probability.
#[derive(Clone, Copy, Debug)]
pub struct EndEdge {
    /// Index into [`Graph::endings`].
    pub ending: u16,
    /// Battles this step adds to the game (0 or 1).
    pub battles: u8,
    /// Probability.
    pub prob: f64,
}

/// One battle's outcomes from one state: successor states and endings, probabilities summed.
#[derive(Default)]
pub struct Outcomes {
    /// (successor key, probability).
    pub next: Vec<(Vec<u8>, f64)>,
    /// (ending, battles added, probability).
    pub ends: Vec<(Ending, u8, f64)>,
}

/// Replays the engine's battle from a position with every outcome of every draw.
pub struct Expander {
    battler: Battler,
    script: Script,
    wars: bool,
    pos: Position,
    to: Position,
    key: Vec<u8>,
}

impl Expander {
    /// An expander for `rules`.
    pub fn new(rules: &Rules) -> Expander {
        Expander {
            battler: Battler::new(rules),
            script: Script::default(),
            wars: rules.options().wars_to_win.is_some(),
            pos: Position::default(),
            to: Position::default(),
            key: Vec::new(),
        }
    }

    /// The engine's battler (for the deal).
    pub fn battler(&mut self) -> &mut Battler {
        &mut self.battler
    }

    /// Whether keys carry the wars won.
    pub fn wars(&self) -> bool {
        self.wars
    }

    /// Every outcome of battle number `battles + 1` from the state `key`, into `out`.
    pub fn expand(
        &mut self,
        key: &[u8],
        battles: u64,
        out: &mut Outcomes,
    ) -> Result<(), ExactError> {
        let players = self.battler.rules().players();
        decode(key, players, self.wars, &mut self.pos);
        out.next.clear();
        out.ends.clear();
        self.script.reset();
        let mut branches = 0u64;
        loop {
            self.script.begin();
            let played = self
                .battler
                .battle(&self.pos, battles, &mut self.script, &mut self.to);
            if let Some(n) = self.script.too_wide {
                return Err(ExactError::TooRandom(format!(
                    "a shuffle with {n} distinct orders"
                )));
            }
            let p = self.script.prob();
            match played {
                Played::Next => {
                    encode(&self.to, self.wars, &mut self.key);
                    out.next.push((self.key.clone(), p));
                }
                Played::Ended { ending, battles: b } => {
                    out.ends.push((ending, (b - battles) as u8, p));
                }
            }
            branches += 1;
            if branches > MAX_BRANCHES {
                return Err(ExactError::TooRandom(format!(
                    "more than {MAX_BRANCHES} outcomes of one battle"
                )));
            }
            if !self.script.advance() {
                break;
            }
        }
        out.next.sort_by(|a, b| a.0.cmp(&b.0));
        merge(&mut out.next, |a, b| a.0 == b.0, |a, b| a.1 += b.1);
        out.ends.sort_by_key(|a| (a.0, a.1));
        merge(
            &mut out.ends,
            |a, b| a.0 == b.0 && a.1 == b.1,
            |a, b| a.2 += b.2,
        );
        Ok(())
    }
}

/// Sums neighbours of a sorted list that `same` says are one outcome.
fn merge<T>(v: &mut Vec<T>, same: impl Fn(&T, &T) -> bool, add: impl Fn(&mut T, &T)) {
    if v.len() < 2 {
        return;
    }
    let mut kept = 0;
    for i in 1..v.len() {
        if same(&v[kept], &v[i]) {
            let (a, b) = v.split_at_mut(i);
            add(&mut a[kept], &b[0]);
        } else {
            kept += 1;
            v.swap(kept, i);
        }
    }
    v.truncate(kept + 1);
}

/// The reachable states with their outcomes, in compressed rows.
pub struct Graph {
    /// Each state's key, in the order found (breadth first from the starts).
    pub keys: Vec<Key>,
    /// Where each state's successors start in `next` (one more entry than states).
    pub next_at: Vec<usize>,
    /// (successor, probability).
    pub next: Vec<(u32, f64)>,
    /// Where each state's endings start in `ends`.
    pub end_at: Vec<usize>,
    /// The endings reached.
    pub ends: Vec<EndEdge>,
    /// The distinct endings, indexed by [`EndEdge::ending`].
    pub endings: Vec<Ending>,
    /// Key → state.
    pub index: FxMap<Key, u32>,
}

impl Graph {
    /// States in the graph.
    pub fn states(&self) -> usize {
        self.keys.len()
    }

    /// Successors of state `s`.
    pub fn next(&self, s: usize) -> &[(u32, f64)] {
        &self.next[self.next_at[s]..self.next_at[s + 1]]
    }

    /// Endings of state `s`.
    pub fn ends(&self, s: usize) -> &[EndEdge] {
        &self.ends[self.end_at[s]..self.end_at[s + 1]]
    }

    /// The index of ending `e`, added if new.
    pub fn ending_id(&mut self, e: Ending) -> u16 {
        match self.endings.iter().position(|&x| x == e) {
            Some(i) => i as u16,
            None => {
                self.endings.push(e);
                (self.endings.len() - 1) as u16
            }
        }
    }
}

/// Explores every state reachable from `starts` (keys), battle by battle; more than
/// `max_states` states is an error. `progress` hears of the count now and then.
pub fn explore(
    ex: &mut Expander,
    starts: &[Vec<u8>],
    max_states: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Graph, ExactError> {
    let mut g = Graph {
        keys: Vec::new(),
        next_at: vec![0],
        next: Vec::new(),
        end_at: vec![0],
        ends: Vec::new(),
        endings: Vec::new(),
        index: FxMap::default(),
    };
    let add = |g: &mut Graph, key: &[u8]| -> Result<u32, ExactError> {
        if let Some(&i) = g.index.get(key) {
            return Ok(i);
        }
        if g.keys.len() >= max_states {
            return Err(ExactError::TooManyStates {
                limit: max_states,
                found: "explored",
            });
        }
        let k: Key = Rc::from(key);
        let i = g.keys.len() as u32;
        g.keys.push(k.clone());
        g.index.insert(k, i);
        Ok(i)
    };
    for s in starts {
        add(&mut g, s)?;
    }
    let mut out = Outcomes::default();
    let clock = std::time::Instant::now();
    let mut said = 0u64;
    let mut s = 0;
    while s < g.keys.len() {
        let key = g.keys[s].clone();
        ex.expand(&key, 0, &mut out)?;
        for (k, p) in &out.next {
            let t = add(&mut g, k)?;
            g.next.push((t, *p));
        }
        for &(e, b, p) in &out.ends {
            let ending = g.ending_id(e);
            g.ends.push(EndEdge {
                ending,
                battles: b,
                prob: p,
            });
        }
        g.next_at.push(g.next.len());
        g.end_at.push(g.ends.len());
        s += 1;
        let secs = clock.elapsed().as_secs();
        if secs > said {
            said = secs;
            progress(&format!(
                "exploring: {} states expanded, {} found, {secs} s",
                s,
                g.keys.len()
            ));
        }
    }
    Ok(g)
}
