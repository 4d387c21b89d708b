//! The specialised loop for the classic shape: two players, ordered ranking, a fixed war size,
//! repeated wars, all-but-last when short, one pile, no extras, no cycle detection.
//!
//! It plays exactly the games [`crate::engine::battle`] plays, with the same random draws in the
//! same order (a property test checks record-for-record equality). What makes it fast:
//! - both stacks live in one buffer (seat 1 at offset `cap`), and their heads and lengths are
//!   local variables, so the loop carries no dependency through memory;
//! - who wins a battle is a coin flip to the branch predictor, so the winner's stack and the
//!   pick-up order are chosen by arithmetic, not by branches.

use crate::engine::{State, Table, Tally, order_pickup};
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{DownRule, Pickup, Rules};

#[inline(always)]
fn leader(l0: usize, l1: usize) -> Option<usize> {
    match l0.cmp(&l1) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    }
}

/// Two stacks in one buffer: seat 0 at `buf[..cap]`, seat 1 at `buf[cap..]`.
struct Duo {
    base: [*mut u8; 2],
    mask: usize,
}

impl Duo {
    fn new(buf: &mut [u8]) -> Duo {
        let cap = buf.len() / 2;
        assert!(cap.is_power_of_two() && buf.len() == 2 * cap);
        let (s0, s1) = buf.split_at_mut(cap);
        Duo {
            base: [s0.as_mut_ptr(), s1.as_mut_ptr()],
            mask: cap - 1,
        }
    }

    #[inline(always)]
    fn get(&self, seat: usize, pos: usize) -> u8 {
        debug_assert!(seat <= 1);
        // SAFETY: each base points at `mask + 1` bytes of a buffer borrowed for the whole game
        // (`run_with` holds `&mut Table`), and `pos & mask ≤ mask`.
        unsafe { *self.base[seat].add(pos & self.mask) }
    }

    #[inline(always)]
    fn set(&mut self, seat: usize, pos: usize, card: u8) {
        debug_assert!(seat <= 1);
        // SAFETY: as in `get`.
        unsafe { *self.base[seat].add(pos & self.mask) = card }
    }
}

pub(crate) fn run(
    r: &Rules,
    st: &mut State,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> GameRecord {
    // One copy of the loop per pick-up order, so the order costs nothing per battle.
    match r.pickup {
        Pickup::Shuffled => run_with::<0>(r, st, t, tally, rng),
        Pickup::Seat => run_with::<1>(r, st, t, tally, rng),
        Pickup::WinnerFirst | Pickup::Played => run_with::<2>(r, st, t, tally, rng),
        Pickup::LoserFirst => run_with::<3>(r, st, t, tally, rng),
        Pickup::RankDesc => run_with::<4>(r, st, t, tally, rng),
        Pickup::RankAsc => run_with::<5>(r, st, t, tally, rng),
    }
}

#[inline(always)]
fn run_with<const PICKUP: u8>(
    r: &Rules,
    st: &mut State,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> GameRecord {
    let n = match r.down {
        DownRule::Fixed(n) => n as usize,
        DownRule::PerValue(_) => unreachable!("the fast loop is for a fixed war size"),
    };
    let cap_battles = r
        .safety_cap
        .unwrap_or(u64::MAX)
        .min(r.battle_limit.unwrap_or(u64::MAX));
    let mut d = Duo::new(&mut t.duo);
    let (mut h0, mut h1) = (0usize, 0usize);
    for (i, c) in st.stacks[0].iter().enumerate() {
        d.set(0, i, c);
    }
    for (i, c) in st.stacks[1].iter().enumerate() {
        d.set(1, i, c);
    }
    // Between battles every card is in one of the two stacks, so seat 1's length is
    // `total - l0`: one length to carry instead of two.
    let mut l0 = st.stacks[0].len();
    let total = l0 + st.stacks[1].len();
    // The counters and the random bit buffer stay in registers for the whole game. Cards
    // turned are 2 a battle plus the wars' extra cards, summed at the end.
    let mut battles = tally.battles;
    let mut changes = tally.lead_changes;
    // The leader as a sign: +1 seat 0, −1 seat 1, 0 nobody yet.
    let mut lead: i64 = match tally.leader {
        Some(0) => 1,
        Some(_) => -1,
        None => 0,
    };
    let mut bits = rng.take_bits();
    let end = loop {
        battles += 1;
        let a = d.get(0, h0);
        let b = d.get(1, h1);
        h0 += 1;
        h1 += 1;
        let winner;
        if a != b {
            winner = usize::from(b > a);
            let swap = match PICKUP {
                0 => rng.bit_from(&mut bits),
                1 => false,
                2 => winner == 1,
                3 => winner == 0,
                4 => b > a,
                _ => a > b,
            };
            let mask = 0u8.wrapping_sub(u8::from(swap));
            let x = a ^ ((a ^ b) & mask);
            let y = a ^ b ^ x;
            // Tail of the winner's stack after both pops.
            let tail = if winner == 1 {
                h1 + total - l0 - 1
            } else {
                h0 + l0 - 1
            };
            d.set(winner, tail, x);
            d.set(winner, tail + 1, y);
            l0 = l0 + 1 - 2 * winner;
        } else {
            // A war: the same steps as the general loop, on two seats.
            let mut h = [h0, h1];
            let mut l = [l0 - 1, total - l0 - 1];
            let pots = &mut t.pots;
            pots[0].clear();
            pots[1].clear();
            pots[0].push(a);
            pots[1].push(b);
            let mut depth = 0u32;
            let stake = |len: usize| {
                if len > n {
                    Some(n)
                } else if len >= 1 {
                    Some(len - 1)
                } else {
                    None
                }
            };
            let won = loop {
                depth += 1;
                tally.wars += 1;
                let (d0, d1) = match (stake(l[0]), stake(l[1])) {
                    (Some(d0), Some(d1)) => (d0, d1),
                    (None, None) => break None,
                    (None, Some(_)) => break Some(1),
                    (Some(_), None) => break Some(0),
                };
                let mut up = [0u8; 2];
                for (seat, down) in [(0, d0), (1, d1)] {
                    for _ in 0..=down {
                        let c = d.get(seat, h[seat]);
                        h[seat] += 1;
                        l[seat] -= 1;
                        pots[seat].push(c);
                        up[seat] = c;
                    }
                }
                tally.cards_turned += (d0 + d1 + 2) as u64;
                if up[0] != up[1] {
                    break Some(usize::from(up[1] > up[0]));
                }
            };
            tally.deepest = tally.deepest.max(depth);
            let Some(w) = won else {
                // Both out at once: each takes back their own cards; a draw.
                note(
                    &mut lead,
                    &mut changes,
                    pots[0].len(),
                    pots[0].len() + pots[1].len(),
                );
                break (EndReason::DrawInWar, None);
            };
            winner = w;
            rng.put_bits(bits);
            order_pickup(r, winner, &t.pots[..2], &mut t.scratch, rng);
            bits = rng.take_bits();
            for &c in &t.scratch {
                d.set(winner, h[winner] + l[winner], c);
                l[winner] += 1;
            }
            [h0, h1] = h;
            l0 = l[0];
        }
        note(&mut lead, &mut changes, l0, total);
        if l0 == 0 || l0 == total {
            break (EndReason::AllCards, Some(winner as u8));
        }
        if battles >= cap_battles {
            break if r.battle_limit.is_some_and(|lim| battles >= lim) {
                (
                    EndReason::BattleLimit,
                    leader(l0, total - l0).map(|p| p as u8),
                )
            } else {
                (EndReason::Capped, None)
            };
        }
    };
    rng.put_bits(bits);
    GameRecord {
        battles,
        wars: tally.wars,
        deepest_war: tally.deepest,
        cards_turned: tally.cards_turned + 2 * (battles - tally.battles),
        lead_changes: changes,
        winner: end.1,
        end: end.0,
        cycle: None,
    }
}

/// [`Tally::note_leader`] without branches: seat 0 holds `l0` of `total` cards. Who leads
/// flips often near a tie, which a branch would mispredict.
#[inline(always)]
fn note(lead: &mut i64, changes: &mut u64, l0: usize, total: usize) {
    let now = i64::from(2 * l0 > total) - i64::from(2 * l0 < total);
    *changes += u64::from(now * *lead < 0);
    *lead = if now != 0 { now } else { *lead };
}
