//! Exact loop detection for deterministic rules: Brent's algorithm on the complete position,
//! then the loop's start by replaying from where the detection began, or from a position the
//! first pass saved on the way (a mark).
//!
//! Any loop can use it: the general loop on its [`State`](crate::state::State), the specialised
//! loops on their [`Seats`](crate::seats::Seats). A loop that checks for repeats in its own way
//! (the two-seat loop keeps its positions in registers) finds the period itself and hands it to
//! [`finish_loop`].

use crate::record::{Cycle, EndReason, GameRecord};
use crate::state::{End, Tally};

/// The battles before the specialised loops' first Brent save after the deal's (then twice
/// as many each time; [`brent`], the reference, starts at one). Every save copies every card,
/// and a loop is found with its exact start and period whatever the powers, since the replay
/// of [`finish_loop`] finds them (the powers only move when it is found, earlier or later).
pub(crate) const FIRST_LOOK: u64 = 32;

/// A position of a game that can be saved and compared exactly.
pub(crate) trait Position {
    /// Exact equality of everything that can change how the game goes on.
    fn same(&self, other: &Self) -> bool;
    fn copy_from(&mut self, other: &Self);
}

/// The positions Brent's algorithm and the replay keep, allocated once per engine.
#[derive(Clone)]
pub(crate) struct Saves<P> {
    pub initial: P,
    pub tortoise: P,
    pub replay: P,
    /// A byte of the position after each battle (battle `b`'s at `b % TRAIL`), where a loop
    /// notes one: two positions whose bytes differ differ, which tells the replay where the
    /// loop cannot have started yet ([`start_after`]). Empty unless asked for
    /// ([`Saves::with_trail`]): an engine is made for every chunk of games, and most rules
    /// look for no loop.
    pub trail: Vec<u8>,
    /// Replays whose hint proved wrong ([`finish_loop_after`]), since these saves were made.
    /// Right trails never give one (a hint past the loop's start needs two equal positions
    /// with different bytes): the tests check that none comes, since a wrong hint costs a
    /// replay from the start and changes no record, which no other check would see.
    pub wrong_hints: u64,
    /// The battles at which the specialised loops' first passes (Brent's saves from
    /// [`FIRST_LOOK`] on) found the loops finished from these saves ([`finish_found`]),
    /// summed. A check for the tests: each must be the battle those saves imply on the game's
    /// positions. A quick test in front of the full comparison that let an equal position pass
    /// unseen would find the loop later, or past the cap, and change no record.
    pub first_finds: u64,
    /// The tally where `tortoise` was saved, where the loop that saved it gave one
    /// ([`Saves::move_tortoise`]); `None` while the tortoise is the initial position, or one
    /// saved without its tally.
    tortoise_at: Option<Tally>,
    /// The earlier tortoises of this pass with their tallies (`marks[..kept]`, the older
    /// first; the slots past `kept` are spare positions from earlier games): a replay starts
    /// from the latest one before the battle it plays to rather than from `initial`
    /// ([`replay_to`]). A loop's start and period are found the same either way. [`MARKS`]
    /// slots, allocated with the trail (none without): a game never allocates.
    marks: Vec<(Tally, P)>,
    kept: usize,
}

impl<P: Position> Saves<P> {
    /// A pass of Brent's detection starts from `live`: the initial position and the first
    /// tortoise; the marks of an earlier pass (another game's) are dropped.
    pub fn begin(&mut self, live: &P) {
        self.initial.copy_from(live);
        self.tortoise.copy_from(live);
        self.tortoise_at = None;
        self.kept = 0;
    }

    /// The tortoise moves to `live`, after the battles `at` counts where the loop gives its
    /// tally (then the replays may start there). The tortoise it leaves is kept as a mark if
    /// its tally is known: a swap of two positions, so the move copies no more than before.
    pub fn move_tortoise(&mut self, live: &P, at: Option<Tally>) {
        // (Past the slots the tortoise is overwritten: the replays start from an earlier mark.)
        if let Some(was) = self.tortoise_at
            && let Some(mark) = self.marks.get_mut(self.kept)
        {
            mark.0 = was;
            std::mem::swap(&mut mark.1, &mut self.tortoise);
            self.kept += 1;
        }
        self.tortoise.copy_from(live);
        self.tortoise_at = at;
    }

    /// The latest position of this pass saved with its tally (a mark, or the tortoise) after
    /// more battles than `after` and at most `to`: where a replay from `after` to `to` may
    /// start instead.
    fn later_save(&self, after: u64, to: u64) -> Option<(&Tally, &P)> {
        let tortoise = self.tortoise_at.as_ref().map(|t| (t, &self.tortoise));
        let marks = self.marks[..self.kept].iter().map(|(t, p)| (t, p));
        marks
            .chain(tortoise)
            .filter(|(t, _)| t.battles > after && t.battles <= to)
            .max_by_key(|(t, _)| t.battles)
    }
}

/// Replays (unobserved) from `live`, or with `restart` from the pass's initial position, after
/// the battles `tally` counts, until `to` battles have been played: from the latest position
/// saved on the way ([`Saves::later_save`]) where there is one, the replay's battles before it
/// skipped (and the position copied once).
#[inline(always)]
fn replay_to<P: Position>(
    live: &mut P,
    saves: &Saves<P>,
    tally: &mut Tally,
    to: u64,
    step: &mut impl Step<P>,
    restart: bool,
) {
    match saves.later_save(tally.battles, to) {
        Some((at, p)) => {
            live.copy_from(p);
            *tally = *at;
        }
        None if restart => live.copy_from(&saves.initial),
        None => {}
    }
    step.leap(live, tally, to);
}

/// The tortoises a pass keeps as marks ([`Saves::move_tortoise`]): with the specialised loops'
/// saves after 32 · (2^k − 1) battles ([`FIRST_LOOK`]), the marks and the tortoise hold every
/// save of a pass shorter than 32 · (2^22 − 1), about 1.3 · 10^8 battles.
pub(crate) const MARKS: usize = 20;

/// Battles a [`Saves::trail`] remembers.
pub(crate) const TRAIL: usize = 1 << 16;

impl<P: Clone> Saves<P> {
    pub fn new(p: &P) -> Saves<P> {
        Saves {
            initial: p.clone(),
            tortoise: p.clone(),
            replay: p.clone(),
            trail: Vec::new(),
            wrong_hints: 0,
            first_finds: 0,
            tortoise_at: None,
            marks: Vec::new(),
            kept: 0,
        }
    }

    /// [`Saves::new`] with room for a [`Saves::trail`] and the [`MARKS`], for a loop that
    /// notes them.
    pub fn with_trail(p: &P) -> Saves<P> {
        Saves {
            trail: vec![0; TRAIL],
            marks: vec![(Tally::default(), p.clone()); MARKS],
            ..Saves::new(p)
        }
    }
}

/// Where a loop of period `lam`, found after `now` battles of a pass that started after
/// `first`, cannot have started yet as far as the `trail` says: one past the last battle `b`
/// whose byte differs from battle `b + lam`'s (the position after `b` then differs from the
/// one `lam` battles later, so it is not on the loop). `first` where the trail does not reach
/// back to such a battle. Only a hint: [`finish_loop_after`] checks it.
pub(crate) fn start_after(trail: &[u8], first: u64, now: u64, lam: u64) -> u64 {
    debug_assert_eq!(trail.len(), TRAIL);
    let oldest = first.max(now.saturating_sub(TRAIL as u64 - 1));
    let at = |b: u64| trail[b as usize % TRAIL];
    let mut b = now - lam;
    while b > oldest {
        if at(b) != at(b + lam) {
            return b + 1;
        }
        b -= 1;
    }
    first
}

/// One battle from a position: `Some` when the game ended. `observed` is true on the first pass
/// (an observer sees it) and false on the replay that finds the loop's start.
pub(crate) trait Step<P> {
    fn step(&mut self, p: &mut P, tally: &mut Tally, observed: bool) -> Option<End>;

    /// Replays battles (unobserved; none of them ends the game, the first pass went past
    /// them) until `to` have been played: a step at a time, or faster where a loop can.
    fn leap(&mut self, p: &mut P, tally: &mut Tally, to: u64) {
        step_to(self, p, tally, to);
    }

    /// Plays on (unobserved) from `p` until it is `saves.tortoise` again: the battles `tally`
    /// then counts, or `None` when the game ends first or `to` battles have been played. A
    /// battle at a time, each position compared in full, or faster where a loop can (only
    /// positions that may equal the saved one compared in full; `saves.trail` is its own).
    fn recur(&mut self, p: &mut P, tally: &mut Tally, saves: &mut Saves<P>, to: u64) -> Option<u64>
    where
        P: Position,
    {
        while tally.battles < to {
            if self.step(p, tally, false).is_some() {
                return None;
            }
            if p.same(&saves.tortoise) {
                return Some(tally.battles);
            }
        }
        None
    }
}

/// [`Step::leap`] a battle at a time, as a loop without a faster way replays.
pub(crate) fn step_to<P>(
    step: &mut (impl Step<P> + ?Sized),
    p: &mut P,
    tally: &mut Tally,
    to: u64,
) {
    while tally.battles < to {
        step.step(p, tally, false);
    }
}

impl<P, F: FnMut(&mut P, &mut Tally, bool) -> Option<End>> Step<P> for F {
    #[inline(always)]
    fn step(&mut self, p: &mut P, tally: &mut Tally, observed: bool) -> Option<End> {
        self(p, tally, observed)
    }
}

/// Plays a game from `live` to its end with `step`: Brent's loop detection where `cycles`
/// (deterministic rules without a limit), otherwise battle after battle up to the safety cap.
pub(crate) fn play_out<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    tally: Tally,
    cap: u64,
    cycles: bool,
    step: &mut impl Step<P>,
) -> GameRecord {
    let never = |_: &P, _: &Tally| false;
    match play_until(live, saves, tally, cap, cycles, step, never) {
        Ok(record) => record,
        Err(_) => unreachable!("`never` hands nothing over"),
    }
}

/// [`play_out`], except that it stops before the first battle from a position where
/// `hand_off` says so, and hands back the tally (the position is `live`). A loop cannot run
/// through a position that no earlier one can equal (the first with only two seats left), so
/// at such a moment Brent's detection can stop: the loop, if any, is found from there on.
pub(crate) fn play_until<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    mut tally: Tally,
    cap: u64,
    cycles: bool,
    step: &mut impl Step<P>,
    mut hand_off: impl FnMut(&P, &Tally) -> bool,
) -> Result<GameRecord, Tally> {
    if cycles {
        return brent(live, saves, tally, cap, step, hand_off);
    }
    loop {
        if hand_off(live, &tally) {
            return Err(tally);
        }
        if let Some((end, w)) = step.step(live, &mut tally, true) {
            return Ok(tally.record(end, w, None));
        }
        if tally.battles >= cap {
            return Ok(tally.record(EndReason::Capped, None, None));
        }
    }
}

/// Plays from `live` (the tally holding what came before) until the game ends, the safety cap
/// `cap` is reached, or a position repeats (or `hand_off` stops it, as in [`play_until`]).
/// Brent: the tortoise jumps to the hare at every power of two; the first time they meet, the
/// battles since the jump are the period.
pub(crate) fn brent<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    mut tally: Tally,
    cap: u64,
    step: &mut impl Step<P>,
    mut hand_off: impl FnMut(&P, &Tally) -> bool,
) -> Result<GameRecord, Tally> {
    let start = tally;
    saves.begin(live);
    let (mut power, mut lam) = (1u64, 0u64);
    loop {
        if hand_off(live, &tally) {
            return Err(tally);
        }
        if let Some((end, w)) = step.step(live, &mut tally, true) {
            return Ok(tally.record(end, w, None));
        }
        lam += 1;
        if live.same(&saves.tortoise) {
            return Ok(finish_loop(live, saves, start, lam, step, tally.battles));
        }
        if tally.battles >= cap {
            let capped = tally.record(EndReason::Capped, None, None);
            return Ok(past_cap(live, saves, start, capped, step));
        }
        if power == lam {
            // (Without its tally: the reference replays from where it began, as it always did.)
            saves.move_tortoise(live, None);
            power *= 2;
            lam = 0;
        }
    }
}

/// The record of a game that loops with period `lam` from `saves.initial` (where the tally was
/// `start`): replay from there (or from a mark on the way, [`replay_to`]), one copy `lam`
/// battles ahead; they first meet at the loop's start. The copy ahead has then played exactly
/// start + period battles: its counts are the game's. Replayed battles cannot end the game:
/// the first pass went past them. `found` is the battles the first pass had played when it
/// found the loop: the copy ahead meets the other by then, and a replay that goes further
/// plays another game than the first pass (a bug in a loop's replay), which panics rather
/// than replaying for ever.
pub(crate) fn finish_loop<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    start: Tally,
    lam: u64,
    step: &mut impl Step<P>,
    found: u64,
) -> GameRecord {
    finish_loop_after(live, saves, start, lam, step, start.battles, found)
}

/// [`finish_loop`] for a loop that, by a hint (from [`start_after`]), starts no earlier than
/// after `hint` battles. The hint is checked, not trusted: one copy replays alone to the
/// battle before it, and if the position there does not come back `lam` battles later, it is
/// not on the loop, so the loop starts later (once on the loop, every position comes back).
/// The two copies then go on side by side from there, as in [`finish_loop`]; a wrong hint
/// only costs a replay from the start. The replay alone to the hint saves the side-by-side
/// battles and comparisons before it: about the loop's start. Each copy's replay starts from
/// the latest position the first pass saved with its tally on the way ([`replay_to`]): a
/// loop of a long period is found without replaying most of it.
pub(crate) fn finish_loop_after<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    start: Tally,
    lam: u64,
    step: &mut impl Step<P>,
    hint: u64,
    found: u64,
) -> GameRecord {
    let mut from = hint.saturating_sub(1).max(start.battles);
    let (mut ahead, mut behind) = loop {
        let mut behind = start;
        replay_to(live, saves, &mut behind, from, step, true);
        saves.replay.copy_from(live);
        let mut ahead = behind;
        replay_to(live, saves, &mut ahead, from + lam, step, false);
        if from == start.battles || !live.same(&saves.replay) {
            break (ahead, behind);
        }
        // The position before the hint is on the loop already: the hint was wrong.
        saves.wrong_hints += 1;
        from = start.battles;
    };
    while !live.same(&saves.replay) {
        // They meet at the loop's start, `lam` battles before the first pass found the loop.
        assert!(
            ahead.battles < found,
            "a loop's replay went past battle {found}, where the first pass found the loop: \
             the replay plays another game than the first pass"
        );
        step.step(live, &mut ahead, false);
        step.step(&mut saves.replay, &mut behind, false);
    }
    ahead.record(
        EndReason::Cycle,
        None,
        Some(Cycle {
            start: behind.battles,
            period: lam,
        }),
    )
}

/// A loop of period `lam` that a specialised loop's first pass found after `found` battles,
/// with a byte of each position in `saves.trail`: counted in [`Saves::first_finds`], then
/// finished from the trail's hint ([`start_after`], [`finish_loop_after`]).
pub(crate) fn finish_found<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    start: Tally,
    lam: u64,
    step: &mut impl Step<P>,
    found: u64,
) -> GameRecord {
    saves.first_finds += found;
    let hint = start_after(&saves.trail, start.battles, found, lam);
    finish_loop_after(live, saves, start, lam, step, hint, found)
}

/// A game reached the safety cap (`capped` is its record there) without a repeat found. Brent
/// finds a loop only some battles after the position first recurs, so it may have recurred
/// inside the cap all the same: then the position at the cap is on the loop and comes back
/// within `cap` battles. Play on (unobserved) until it does or that many battles pass; a
/// loop found this way is the game's end only when it first closed inside the cap.
pub(crate) fn past_cap<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    start: Tally,
    capped: GameRecord,
    step: &mut impl Step<P>,
) -> GameRecord {
    let cap = capped.battles;
    // (Without a tally: `capped` is a record, which has no leader. The tortoise it leaves
    // stays a mark.)
    saves.move_tortoise(live, None);
    // (`tally` counts from `start`: `cap - start` battles at most, as many as the game had.)
    // It starts with no leader: the leader at the cap is not known here (the deal's may
    // trail there, which the table loop's runs take for a broken invariant), and no count
    // of this replay's goes into the record.
    let mut tally = Tally {
        leader: None,
        ..start
    };
    let Some(back) = step.recur(live, &mut tally, saves, cap) else {
        return capped;
    };
    // The position here is `lam` battles past the cap: `lam` is the loop's period, and the
    // loop closed inside the cap only if it had begun `lam` battles before the cap, that is if
    // the position there is the cap's (before the loop's start no position recurs `lam`
    // battles later). One replay to there tells a loop that closed past the cap, without the
    // two replays from the start that find where it began.
    let lam = back - start.battles;
    // (`recur` plays at most `cap - start` battles: the position `lam` before the cap was
    // played on the first pass.)
    debug_assert!(lam <= cap - start.battles);
    let before = cap - lam;
    let mut at = start;
    replay_to(live, saves, &mut at, before, step, true);
    if !live.same(&saves.tortoise) {
        return capped;
    }
    // The loop began by `before` and closed by the cap.
    let found = finish_loop(live, saves, start, lam, step, cap + lam);
    debug_assert!(found.cycle.is_some_and(|c| c.start + c.period <= cap));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position that walks a tail of `mu` steps into a loop of `lam`: step `i` of the walk
    /// is at `i` until `mu + lam`, then back round the loop.
    #[derive(Clone, PartialEq)]
    struct Walk {
        at: u64,
        mu: u64,
        lam: u64,
    }

    impl Position for Walk {
        fn same(&self, other: &Self) -> bool {
            self == other
        }
        fn copy_from(&mut self, other: &Self) {
            self.clone_from(other);
        }
    }

    fn step(w: &mut Walk, tally: &mut Tally, _: bool) -> Option<End> {
        w.at = if w.at + 1 == w.mu + w.lam {
            w.mu
        } else {
            w.at + 1
        };
        tally.battles += 1;
        None
    }

    /// Every hint, right (at or before the loop's start) or wrong (inside the loop, or past
    /// everything played), gives the loop's exact start and period, from any tally.
    #[test]
    fn any_hint_gives_the_exact_start() {
        for (mu, lam) in [(0, 1), (0, 5), (1, 1), (7, 3), (40, 1), (40, 17), (100, 64)] {
            for first in [0u64, 9] {
                let walk = Walk { at: 0, mu, lam };
                let mut saves = Saves::with_trail(&walk);
                saves.initial.copy_from(&walk);
                let start = Tally {
                    battles: first,
                    ..Tally::default()
                };
                for hint in first..=first + mu + 2 * lam + 3 {
                    let mut live = walk.clone();
                    let record = finish_loop_after(
                        &mut live,
                        &mut saves,
                        start,
                        lam,
                        &mut step,
                        hint,
                        first + mu + lam,
                    );
                    let want = Cycle {
                        start: first + mu,
                        period: lam,
                    };
                    assert_eq!(record.cycle, Some(want), "mu {mu}, lam {lam}, hint {hint}");
                    assert_eq!(record.battles, first + mu + lam);
                }
            }
        }
    }

    /// Marks (a first pass's tortoises with their tallies) give the same record as replays
    /// from the initial position, for every hint, and a loop of a long period replays far
    /// fewer battles. Each battle adds the walk's place to `cards_turned`, so a replay that
    /// started from a mark with a wrong tally would count another total.
    #[test]
    fn marks_give_the_same_record_from_fewer_battles() {
        fn counted(w: &mut Walk, tally: &mut Tally, o: bool) -> Option<End> {
            tally.cards_turned += w.at;
            step(w, tally, o)
        }
        for (mu, lam) in [(0, 1), (3, 200), (40, 17), (100, 64), (700, 5), (5, 1000)] {
            let walk = Walk { at: 0, mu, lam };
            let start = Tally::default();
            // A first pass as Brent's, the tortoise moved with its tally.
            let mut marked = Saves::with_trail(&walk);
            marked.begin(&walk);
            let (mut live, mut tally) = (walk.clone(), start);
            let (mut power, mut since) = (1, 0);
            let found = loop {
                counted(&mut live, &mut tally, true);
                since += 1;
                if live.same(&marked.tortoise) {
                    break tally.battles;
                }
                if power == since {
                    marked.move_tortoise(&live, Some(tally));
                    power *= 2;
                    since = 0;
                }
            };
            assert_eq!(since, lam);
            assert!(marked.kept > 0 || found < 4);
            let mut plain = Saves::with_trail(&walk);
            plain.begin(&walk);
            let (mut with, mut without) = (0, 0);
            for hint in 0..=found {
                let go = |saves: &mut Saves<Walk>, n: &mut u64| {
                    let mut step = |w: &mut Walk, t: &mut Tally, o: bool| {
                        *n += 1;
                        counted(w, t, o)
                    };
                    let mut p = walk.clone();
                    finish_loop_after(&mut p, saves, start, lam, &mut step, hint, found)
                };
                // (Counted for the right hints, at or before the start, as trails give.)
                let (mut a, mut b) = (0, 0);
                let record = go(&mut marked, &mut a);
                assert_eq!(record, go(&mut plain, &mut b), "mu {mu}, lam {lam}");
                if hint <= mu {
                    (with, without) = (with + a, without + b);
                }
                let want = Cycle {
                    start: mu,
                    period: lam,
                };
                assert_eq!(record.cycle, Some(want), "mu {mu}, lam {lam}, hint {hint}");
            }
            assert!(with <= without, "mu {mu}, lam {lam}: {with} > {without}");
            if lam >= 200 {
                assert!(
                    2 * with < without,
                    "mu {mu}, lam {lam}: {with} of {without}"
                );
            }
        }
    }

    /// The hint from a trail of a position's bytes is never past the loop's start, and is the
    /// start itself when the bytes tell the tail from the loop; a trail that does not reach
    /// back far enough gives no hint.
    #[test]
    fn the_trail_hints_at_or_before_the_start() {
        let (first, mu, lam) = (5u64, 300u64, 40u64);
        let now = first + mu + 2 * lam + 13;
        let mut trail = vec![0u8; TRAIL];
        // On the loop a position's byte is its place in the loop; before it, a byte that
        // differs from the one lam later only at the tail's last battle and three before it.
        for b in first..=now {
            let i = b - first;
            trail[b as usize % TRAIL] = if i >= mu {
                ((i - mu) % lam) as u8
            } else if i == mu - 1 || i == mu - 4 {
                200
            } else {
                (i as i64 - mu as i64).rem_euclid(lam as i64) as u8
            };
        }
        assert_eq!(start_after(&trail, first, now, lam), first + mu);
        // Equal bytes before the start give an earlier hint, never a later one.
        trail[(first + mu - 1) as usize % TRAIL] = ((mu - 1 + 2 * lam - mu) % lam) as u8;
        assert_eq!(start_after(&trail, first, now, lam), first + mu - 3);
        // A game longer than the trail: no difference within it, no hint.
        let long = first + TRAIL as u64 + 10;
        let flat = vec![7u8; TRAIL];
        assert_eq!(start_after(&flat, first, long, lam), first);
    }
}
