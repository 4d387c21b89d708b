//! From the state graph to the figures: deterministic rules deal by deal, random rules by
//! pushing the distribution over states forward one battle at a time.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

use warlab_engine::{Ending, Rules};

use crate::graph::{Expander, FxMap, Graph, Outcomes, encode, explore};
use crate::{ExactError, LoopShape, Method, Options, Solution, Start, deals};

/// An exact fraction `num / den`, reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fraction {
    /// Numerator.
    pub num: u128,
    /// Denominator (≥ 1).
    pub den: u128,
}

impl Fraction {
    /// `num / den` reduced (`den` ≥ 1; 0/0 reads as 0/1).
    pub fn new(num: u128, den: u128) -> Fraction {
        if den == 0 {
            return Fraction { num: 0, den: 1 };
        }
        let g = gcd(num, den);
        Fraction {
            num: num / g,
            den: den / g,
        }
    }

    /// The nearest f64 (to within rounding of the two integers).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// The states a solve starts from (keys with their weights, merged), the games over before
/// a battle, and the total weight.
struct Starts {
    keys: Vec<Vec<u8>>,
    weights: Vec<u128>,
    instant: Vec<(Ending, u128)>,
    total: u128,
}

fn starts(
    rules: &Rules,
    start: &Start,
    options: &Options,
    ex: &mut Expander,
) -> Result<Starts, ExactError> {
    let wars = ex.wars();
    let mut index: FxMap<Vec<u8>, usize> = FxMap::default();
    let mut s = Starts {
        keys: Vec::new(),
        weights: Vec::new(),
        instant: Vec::new(),
        total: 0,
    };
    let mut key = Vec::new();
    let mut put = |s: &mut Starts, dealt: Result<warlab_engine::Position, Ending>| {
        s.total += 1;
        match dealt {
            Ok(pos) => {
                encode(&pos, wars, &mut key);
                match index.get(&key) {
                    Some(&i) => s.weights[i] += 1,
                    None => {
                        index.insert(key.clone(), s.keys.len());
                        s.keys.push(key.clone());
                        s.weights.push(1);
                    }
                }
            }
            Err(e) => match s.instant.iter_mut().find(|(x, _)| *x == e) {
                Some((_, n)) => *n += 1,
                None => s.instant.push((e, 1)),
            },
        }
    };
    match start {
        Start::Deal(deal) => {
            let dealt = ex.battler().deal(deal);
            put(&mut s, dealt);
        }
        Start::AllDeals => {
            let n = deals::count(rules);
            if n.is_none_or(|n| n > options.max_states as u128) {
                return Err(ExactError::TooManyDeals {
                    deals: n,
                    limit: options.max_states,
                });
            }
            deals::each_order(deals::deck(rules), |order| {
                let dealt = ex.battler().deal_order(order);
                put(&mut s, dealt);
            });
        }
    }
    Ok(s)
}

/// Where a state leads under deterministic rules.
#[derive(Clone, Copy, Debug)]
enum Fate {
    Unknown,
    /// Being followed (its place on the path).
    OnPath(usize),
    /// Ends with `ending` after `len` battles from here; `last` is the battles the last step
    /// added (0: the game ended before a battle).
    End {
        ending: u16,
        len: u64,
        last: u8,
    },
    /// Reaches a loop after `mu` battles; the loop's period.
    Loop {
        mu: u64,
        period: u64,
    },
}

/// The figures, accumulated as weights (deal counts, or probabilities).
struct Tally<W> {
    endings: BTreeMap<Ending, W>,
    lengths: BTreeMap<u64, W>,
    loops: BTreeMap<LoopShape, W>,
    capped: W,
    len_sum: W,
}

impl<W: Default> Tally<W> {
    fn new() -> Tally<W> {
        Tally {
            endings: BTreeMap::new(),
            lengths: BTreeMap::new(),
            loops: BTreeMap::new(),
            capped: W::default(),
            len_sum: W::default(),
        }
    }
}

/// Solves `rules` from `start`. `progress` hears what is going on in long solves (about once
/// a second).
pub fn solve(
    rules: &Rules,
    start: &Start,
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Solution, ExactError> {
    let clock = Instant::now();
    if rules.cards().total() > 255 {
        return Err(ExactError::DeckTooLarge(rules.cards().total()));
    }
    let mut ex = Expander::new(rules);
    let st = starts(rules, start, options, &mut ex)?;
    progress(&format!(
        "{} deal(s), {} distinct starting positions; exploring the state graph",
        st.total,
        st.keys.len()
    ));
    let g = explore(&mut ex, &st.keys, options.max_states, progress)?;
    progress(&format!("{} states; solving", g.states()));
    let limit = rules.options().battle_limit;
    let cap = rules.safety_cap();
    let mut sol = if rules.is_deterministic() {
        deterministic(&g, &st, &mut ex, limit, cap)?
    } else {
        iterated(&g, &st, &mut ex, limit, cap, options, progress)?
    };
    sol.states = g.states();
    sol.seconds = clock.elapsed().as_secs_f64();
    Ok(sol)
}

/// The battle at which the engine stops a game that is still running: the battle limit (its
/// last battle is played) or the safety cap (the game is capped), whichever comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Battle `n` is the last, played under the limit.
    Limit(u64),
    /// After battle `n` a running game is capped.
    Cap(u64),
    Never,
}

fn stop(limit: Option<u64>, cap: Option<u64>) -> Stop {
    match (limit, cap) {
        (Some(l), Some(c)) if c < l => Stop::Cap(c),
        (Some(l), _) => Stop::Limit(l),
        (None, Some(c)) => Stop::Cap(c),
        (None, None) => Stop::Never,
    }
}

/// Whether an ending `len` battles in (the last step adding `last`) happens before the engine
/// stops the game at battle `n`: a battle's ending comes before its limit and its cap; an
/// ending before a battle (`last` = 0) only if that battle is played.
fn in_time(len: u64, last: u8, n: u64) -> bool {
    len < n || (len == n && last == 1)
}

/// The endings of the last battle, number `n`, from state `s` (the engine plays it with the
/// real count, so the limit ends the game).
fn last_battle(
    g: &Graph,
    ex: &mut Expander,
    s: usize,
    n: u64,
    out: &mut Outcomes,
) -> Result<(), ExactError> {
    ex.expand(&g.keys[s], n - 1, out)?;
    debug_assert!(out.next.is_empty(), "the battle limit ends every game");
    Ok(())
}

fn deterministic(
    g: &Graph,
    st: &Starts,
    ex: &mut Expander,
    limit: Option<u64>,
    cap: Option<u64>,
) -> Result<Solution, ExactError> {
    let n = g.states();
    let mut fate = vec![Fate::Unknown; n];
    let succ = |s: usize| -> Result<u32, (u16, u8)> {
        match (g.next(s), g.ends(s)) {
            ([(t, _)], []) => Ok(*t),
            ([], [e]) => Err((e.ending, e.battles)),
            _ => unreachable!("deterministic rules have one outcome"),
        }
    };
    let mut path: Vec<usize> = Vec::new();
    for s0 in 0..n {
        if !matches!(fate[s0], Fate::Unknown) {
            continue;
        }
        // Follow the successors until a known state, an ending or a state on this path.
        path.clear();
        let mut s = s0;
        let mut tail = loop {
            match fate[s] {
                Fate::Unknown => {}
                Fate::OnPath(at) => {
                    // A loop: the states from `at` on.
                    let period = (path.len() - at) as u64;
                    for &c in &path[at..] {
                        fate[c] = Fate::Loop { mu: 0, period };
                    }
                    path.truncate(at);
                    break fate[s];
                }
                known => break known,
            }
            fate[s] = Fate::OnPath(path.len());
            path.push(s);
            match succ(s) {
                Ok(t) => s = t as usize,
                Err((ending, last)) => {
                    path.pop();
                    fate[s] = Fate::End {
                        ending,
                        len: u64::from(last),
                        last,
                    };
                    break fate[s];
                }
            }
        };
        // Every state on the path is one battle further from it.
        for &p in path.iter().rev() {
            tail = match tail {
                Fate::End { ending, len, last } => Fate::End {
                    ending,
                    len: len + 1,
                    last,
                },
                Fate::Loop { mu, period } => Fate::Loop { mu: mu + 1, period },
                _ => unreachable!("a path ends in a fate"),
            };
            fate[p] = tail;
        }
    }
    // The state `t` battles after `s`.
    let walk = |mut s: usize, t: u64| {
        let t = match fate[s] {
            Fate::Loop { mu, period } if t > mu => mu + (t - mu) % period,
            _ => t,
        };
        for _ in 0..t {
            s = succ(s).expect("still running") as usize;
        }
        s
    };
    let mut tally: Tally<u128> = Tally::new();
    for (e, w) in &st.instant {
        *tally.endings.entry(*e).or_default() += w;
        *tally.lengths.entry(0).or_default() += w;
    }
    let stop = stop(limit, cap);
    let mut out = Outcomes::default();
    for (s, &w) in st.weights.iter().enumerate() {
        let ended = |e: Ending, len: u64, tally: &mut Tally<u128>| {
            *tally.endings.entry(e).or_default() += w;
            *tally.lengths.entry(len).or_default() += w;
            tally.len_sum += w * u128::from(len);
        };
        match (fate[s], stop) {
            (Fate::End { ending, len, .. }, Stop::Never) => {
                ended(g.endings[usize::from(ending)], len, &mut tally)
            }
            (Fate::End { ending, len, last }, Stop::Limit(n) | Stop::Cap(n))
                if in_time(len, last, n) =>
            {
                ended(g.endings[usize::from(ending)], len, &mut tally)
            }
            (Fate::Loop { mu, period }, Stop::Never) => {
                *tally
                    .loops
                    .entry(LoopShape { start: mu, period })
                    .or_default() += w;
            }
            // With cycle detection (no limit) a loop closed within the cap is reported.
            (Fate::Loop { mu, period }, Stop::Cap(c)) if limit.is_none() && mu + period <= c => {
                *tally
                    .loops
                    .entry(LoopShape { start: mu, period })
                    .or_default() += w;
            }
            (_, Stop::Cap(_)) => tally.capped += w,
            (_, Stop::Limit(n)) => {
                let at = walk(s, n - 1);
                last_battle(g, ex, at, n, &mut out)?;
                let &(e, b, _) = out.ends.first().expect("the last battle ends the game");
                ended(e, n - 1 + u64::from(b), &mut tally);
            }
            (Fate::Unknown | Fate::OnPath(_), _) => unreachable!("every state has a fate"),
        }
    }
    let total = st.total;
    let frac = |x: u128| crate::Fraction::new(x, total);
    let ended: u128 = tally.lengths.values().sum();
    let players = ex.battler().rules().players();
    let mut wins = vec![0u128; players];
    let mut draws = 0u128;
    for (e, &w) in &tally.endings {
        match e.winner {
            Some(p) => wins[usize::from(p)] += w,
            None => draws += w,
        }
    }
    let loops: u128 = tally.loops.values().sum();
    let mean = Fraction::new(tally.len_sum, ended);
    let lengths = to_dense(tally.lengths.iter().map(|(&n, &w)| (n, frac(w).to_f64())));
    Ok(Solution {
        method: Method::Exact,
        residual: 0.0,
        mean_residual: 0.0,
        states: 0,
        deals: total,
        battles_mean: if ended == 0 { f64::NAN } else { mean.to_f64() },
        battles_mean_exact: (ended > 0).then_some(mean),
        win_share: wins.iter().map(|&w| frac(w).to_f64()).collect(),
        win_share_exact: Some(wins.iter().map(|&w| frac(w)).collect()),
        draw_share: frac(draws).to_f64(),
        loop_share: frac(loops).to_f64(),
        capped_share: frac(tally.capped).to_f64(),
        other_exact: Some([frac(draws), frac(loops), frac(tally.capped)]),
        endings: tally
            .endings
            .iter()
            .map(|(&e, &w)| (e, frac(w).to_f64()))
            .collect(),
        lengths,
        loops: tally
            .loops
            .iter()
            .map(|(&l, &w)| (l, frac(w).to_f64()))
            .collect(),
        seconds: 0.0,
    })
}

fn to_dense(it: impl Iterator<Item = (u64, f64)>) -> Vec<f64> {
    let mut v = Vec::new();
    for (n, p) in it {
        let n = n as usize;
        if v.len() <= n {
            v.resize(n + 1, 0.0);
        }
        v[n] += p;
    }
    v
}

/// States from which some ending can be reached (the others never end).
fn can_end(g: &Graph) -> Vec<bool> {
    let n = g.states();
    let mut preds_at = vec![0usize; n + 1];
    for s in 0..n {
        for &(t, _) in g.next(s) {
            preds_at[t as usize + 1] += 1;
        }
    }
    for i in 0..n {
        preds_at[i + 1] += preds_at[i];
    }
    let mut preds = vec![0u32; preds_at[n]];
    let mut fill = preds_at.clone();
    for s in 0..n {
        for &(t, _) in g.next(s) {
            preds[fill[t as usize]] = s as u32;
            fill[t as usize] += 1;
        }
    }
    let mut ok = vec![false; n];
    let mut queue: Vec<usize> = (0..n).filter(|&s| !g.ends(s).is_empty()).collect();
    for &s in &queue {
        ok[s] = true;
    }
    while let Some(s) = queue.pop() {
        for &p in &preds[preds_at[s]..preds_at[s + 1]] {
            if !ok[p as usize] {
                ok[p as usize] = true;
                queue.push(p as usize);
            }
        }
    }
    ok
}

fn iterated(
    g: &Graph,
    st: &Starts,
    ex: &mut Expander,
    limit: Option<u64>,
    cap: Option<u64>,
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Solution, ExactError> {
    let n = g.states();
    let total = st.total as f64;
    let ok = can_end(g);
    let mut dist = vec![0.0f64; n];
    let mut never = 0.0;
    for (s, &w) in st.weights.iter().enumerate() {
        if ok[s] {
            dist[s] = w as f64 / total;
        } else {
            never += w as f64 / total;
        }
    }
    let mut tally: Tally<f64> = Tally::new();
    for (e, w) in &st.instant {
        *tally.endings.entry(*e).or_default() += *w as f64 / total;
        *tally.lengths.entry(0).or_default() += *w as f64 / total;
    }
    let mut by_id = vec![0.0f64; g.endings.len()];
    let mut lengths: Vec<f64> = vec![0.0; 1];
    let mut new = vec![0.0f64; n];
    let stop = stop(limit, cap);
    let mut out = Outcomes::default();
    let (mut residual, mut mean_residual) = (0.0, 0.0);
    let mut tail_before = dist.iter().sum::<f64>();
    let clock = Instant::now();
    let mut said = 0;
    for battle in 1u64.. {
        if stop == Stop::Limit(battle) {
            // The last battle: played by the engine with the real count.
            for (s, &d) in dist.iter().enumerate() {
                if d == 0.0 {
                    continue;
                }
                last_battle(g, ex, s, battle, &mut out)?;
                for &(e, b, p) in &out.ends {
                    *tally.endings.entry(e).or_default() += d * p;
                    add(&mut lengths, battle - 1 + u64::from(b), d * p);
                }
            }
            break;
        }
        new.fill(0.0);
        for (s, &d) in dist.iter().enumerate() {
            if d == 0.0 {
                continue;
            }
            for e in g.ends(s) {
                by_id[usize::from(e.ending)] += d * e.prob;
                add(&mut lengths, battle - 1 + u64::from(e.battles), d * e.prob);
            }
            for &(t, p) in g.next(s) {
                new[t as usize] += d * p;
            }
        }
        std::mem::swap(&mut dist, &mut new);
        let mut tail = 0.0;
        for (d, &can) in dist.iter_mut().zip(&ok) {
            if !can && *d != 0.0 {
                never += *d;
                *d = 0.0;
            }
            tail += *d;
        }
        if stop == Stop::Cap(battle) {
            tally.capped = tail;
            break;
        }
        // The running games end later than `battle`: their share of the mean is at least
        // tail × battle, and about tail × (battle + 1 / (1 − ρ)) where ρ is the rate at
        // which the running probability falls.
        let rho = if tail_before > 0.0 {
            tail / tail_before
        } else {
            0.0
        };
        residual = tail;
        mean_residual = if rho < 1.0 {
            tail * (battle as f64 + 1.0 / (1.0 - rho))
        } else {
            f64::INFINITY
        };
        if tail == 0.0 || (tail <= options.tolerance && mean_residual <= options.tolerance) {
            break;
        }
        tail_before = tail;
        let secs = clock.elapsed().as_secs();
        if secs > said {
            said = secs;
            progress(&format!(
                "iterating: battle {battle}, still running {tail:.3e}, {secs} s"
            ));
        }
    }
    for (i, &w) in by_id.iter().enumerate() {
        if w > 0.0 {
            *tally.endings.entry(g.endings[i]).or_default() += w;
        }
    }
    let players = ex.battler().rules().players();
    let mut wins = vec![0.0; players];
    let mut draws = 0.0;
    for (e, &w) in &tally.endings {
        match e.winner {
            Some(p) => wins[usize::from(p)] += w,
            None => draws += w,
        }
    }
    let ended: f64 = lengths.iter().sum();
    let len_sum: f64 = lengths.iter().enumerate().map(|(k, &p)| k as f64 * p).sum();
    Ok(Solution {
        method: Method::Iterated,
        residual,
        mean_residual: if ended > 0.0 {
            mean_residual / ended
        } else {
            0.0
        },
        states: 0,
        deals: st.total,
        battles_mean: len_sum / ended,
        battles_mean_exact: None,
        win_share: wins,
        win_share_exact: None,
        draw_share: draws,
        loop_share: never,
        capped_share: tally.capped,
        other_exact: None,
        endings: tally.endings.into_iter().collect(),
        lengths,
        loops: Vec::new(),
        seconds: 0.0,
    })
}

fn add(v: &mut Vec<f64>, n: u64, p: f64) {
    let n = n as usize;
    if v.len() <= n {
        v.resize(n + 1, 0.0);
    }
    v[n] += p;
}
