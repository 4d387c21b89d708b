//! The general loop: one battle under any rule option, in the plain words of the rules.
//!
//! It is the reference every specialised loop is tested against (same games, same random
//! draws), and the loop that plays whenever an [`Observer`] watches (traces, tests). It is
//! written once, generic over where the cards are kept ([`Holdings`]): on the general loop's
//! [`State`](crate::state::State) of ring buffers, or on the specialised loops'
//! [`Seats`](crate::seats::Seats), where 3–4 players, the options that touch every battle and
//! the replays that find a loop's start play it, and where the two-seat loops hand it their
//! wars ([`fight`], [`settle`]).

use crate::cycle::{self, Position, Saves};
use crate::observe::{Observer, Quiet};
use crate::record::{EndReason, GameRecord};
use crate::rng::{Draws, GameRng};
use crate::rules::{OnEmpty, Rules, Stake};
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally, bit, most_cards, seats};

/// Plays a dealt game to its end: battle after battle, Brent's loop detection on deterministic
/// rules, the safety cap on random ones.
pub(crate) fn run<H: Holdings + Position, O: Observer>(
    r: &Rules,
    t: &mut Scratch,
    hold: &mut H,
    saves: &mut Saves<H>,
    tally: Tally,
    rng: &mut GameRng,
    obs: &mut O,
) -> GameRecord {
    let cap = r.safety_cap.unwrap_or(u64::MAX);
    let mut step = |hold: &mut H, tally: &mut Tally, observed: bool| {
        if observed {
            battle(r, t, hold, tally, rng, obs)
        } else {
            battle(r, t, hold, tally, rng, &mut Quiet)
        }
    };
    cycle::play_out(hold, saves, tally, cap, r.detects_cycles(), &mut step)
}

/// Plays one battle (a war, however deep, included). Returns the end of the game if it ended.
///
/// The opening cards (a prize and the face-up card of each seat) are kept on a small table of
/// their own, [`Opening`]: most battles end with them, and the winner picks them up from there.
/// A war or a forfeit moves them onto the scratch table, where the general fight goes on.
#[inline]
pub(crate) fn battle<H: Holdings, O: Observer, D: Draws>(
    r: &Rules,
    t: &mut Scratch,
    hold: &mut H,
    tally: &mut Tally,
    rng: &mut D,
    obs: &mut O,
) -> Option<End> {
    if r.two_pile == Some(OnEmpty::Lose)
        && let Some(end) = empty_stacks_lose(r, hold)
    {
        return Some(end);
    }
    tally.battles += 1;
    if O::ACTIVE {
        obs.battle_start(tally.battles);
    }
    let mut forfeited = 0u8;
    let mut contenders = hold.in_game();
    let mut first = Opening::default();

    if r.prize {
        for p in seats(contenders) {
            // A prize only from a player who still has a card to turn up after it.
            let ok = if r.hand > 0 {
                hold.supply(r, p) >= 1 && hold.hand_len(p) >= 1
            } else {
                hold.supply(r, p) >= 2
            };
            if ok {
                let c = hold.draw_down(r, p, rng);
                first.put(p, c);
                tally.cards_turned += 1;
                if O::ACTIVE {
                    obs.prize(p, c);
                }
            }
        }
    }

    let mut up = [0u8; MAX_PLAYERS];
    t.clear();
    for p in seats(contenders) {
        if hold.up_supply(r, p) == 0 {
            // Only `on_empty = lose` with 3–4 players: a stack ran out while a won pile remains.
            // Such a player gave no prize (it had no card to turn up after one).
            hold.forfeit(p, &mut t.pots[p]);
            forfeited |= bit(p);
            contenders &= !bit(p);
            if O::ACTIVE {
                obs.drop_out(p, true);
            }
            continue;
        }
        let c = hold.draw_up(r, p, rng);
        first.put(p, c);
        up[p] = c;
        tally.cards_turned += 1;
        if O::ACTIVE {
            obs.face_up(p, c, 0);
        }
    }

    if let Some(th) = r.speed
        && contenders & 1 != 0
        && contenders.count_ones() > 1
        && rng.chance(th)
    {
        if O::ACTIVE {
            obs.grab();
        }
        contenders = 1;
    }
    if forfeited == 0 {
        let best = if contenders.count_ones() == 1 {
            contenders
        } else {
            r.best_of(contenders, &up)
        };
        if best.count_ones() == 1 {
            // No war and nobody out: the winner picks up the opening cards.
            let winner = best.trailing_zeros() as usize;
            let taken = take_opening(r, t, hold, rng, winner, &first);
            let end = after(r, hold, tally, winner, 0, 0);
            if O::ACTIVE {
                obs.battle_end(Some(winner), taken, &hold.view());
            }
            return end;
        }
    }
    for p in 0..r.players {
        // A forfeiting player's table holds only what it forfeited: it played no opening card.
        if forfeited & bit(p) == 0 {
            t.pots[p].extend_from_slice(first.cards(p));
        }
    }
    contest(
        r, t, hold, tally, rng, obs, contenders, &mut up, forfeited, 0,
    )
}

/// The rest of a battle whose table cards are in `t.pots`: the fight among `contenders` (whose
/// face-up cards are `up`, `depth` wars deep already), the winner's pick-up and the endings.
#[allow(clippy::too_many_arguments)] // the battle so far, handed over by every loop
#[inline]
pub(crate) fn contest<H: Holdings, O: Observer, D: Draws>(
    r: &Rules,
    t: &mut Scratch,
    hold: &mut H,
    tally: &mut Tally,
    rng: &mut D,
    obs: &mut O,
    contenders: u8,
    up: &mut [u8; MAX_PLAYERS],
    mut forfeited: u8,
    depth: u32,
) -> Option<End> {
    match fight(
        r,
        t,
        hold,
        tally,
        rng,
        obs,
        contenders,
        up,
        &mut forfeited,
        depth,
    ) {
        Fight::Draw => Some(draw_in_war(t, hold, tally, obs)),
        Fight::Won { winner, depth } => {
            let taken = settle(r, t, hold, rng, winner, depth, forfeited);
            let end = after(r, hold, tally, winner, depth, forfeited);
            if O::ACTIVE {
                obs.battle_end(Some(winner), taken, &hold.view());
            }
            end
        }
    }
}

/// The opening cards of a battle: each seat's prize (if it gave one) and face-up card.
#[derive(Default)]
struct Opening {
    cards: [[u8; 2]; MAX_PLAYERS],
    len: [u8; MAX_PLAYERS],
}

impl Opening {
    #[inline(always)]
    fn put(&mut self, p: usize, card: u8) {
        self.cards[p][usize::from(self.len[p])] = card;
        self.len[p] += 1;
    }

    #[inline(always)]
    fn cards(&self, p: usize) -> &[u8] {
        &self.cards[p][..usize::from(self.len[p])]
    }
}

/// The winner of a battle without a war takes the opening cards in the pick-up order (what
/// [`settle`] does for a table without a war). Returns the cards taken.
#[inline]
fn take_opening<H: Holdings, D: Draws>(
    r: &Rules,
    t: &mut Scratch,
    hold: &mut H,
    rng: &mut D,
    winner: usize,
    first: &Opening,
) -> usize {
    let pots: [&[u8]; MAX_PLAYERS] = std::array::from_fn(|p| first.cards(p));
    r.order_pickup(winner, &pots[..r.players], &mut t.order, rng);
    hold.give(r, winner, &t.order);
    top_up_hands(r, hold, rng);
    t.order.len()
}

/// Hand mode, after the pick-ups: every seat's hand grows back, seat by seat.
#[inline(always)]
pub(crate) fn top_up_hands<H: Holdings, D: Draws>(r: &Rules, hold: &mut H, rng: &mut D) {
    if r.hand > 0 {
        for p in 0..r.players {
            hold.top_up(r, p, rng);
        }
    }
}

/// How the contest on the table ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fight {
    /// `winner` takes the table after `depth` wars (0: no tie at all).
    Won { winner: usize, depth: u32 },
    /// Every player in a war ran out at once.
    Draw,
}

/// Settles the face-up cards `up` of the seats in `contenders` (whose table cards are in
/// `t.pots`), `depth` wars deep already: ties go to war until one seat is best. Seats that forfeit (`short_war = lose`)
/// are added to `forfeited`, with their cards on the table.
#[allow(clippy::too_many_arguments)] // the battle so far, handed over by every loop
pub(crate) fn fight<H: Holdings, O: Observer, D: Draws>(
    r: &Rules,
    t: &mut Scratch,
    hold: &mut H,
    tally: &mut Tally,
    rng: &mut D,
    obs: &mut O,
    mut contenders: u8,
    up: &mut [u8; MAX_PLAYERS],
    forfeited: &mut u8,
    depth: u32,
) -> Fight {
    let mut depth = depth;
    let winner = loop {
        match contenders.count_ones() {
            0 => {
                tally.deepest = tally.deepest.max(depth);
                return Fight::Draw;
            }
            1 => break contenders.trailing_zeros() as usize,
            _ => {}
        }
        let best = r.best_of(contenders, up);
        if best.count_ones() == 1 {
            break best.trailing_zeros() as usize;
        }
        depth += 1;
        tally.wars += 1;
        if r.cause_to_loser && depth == 1 {
            t.set_causes_apart(best);
        }
        contenders = best;
        // The lowest tied seat's card decides the war's size.
        let n = r.war_size(depth, up[best.trailing_zeros() as usize]);
        if O::ACTIVE {
            obs.war(depth, best, n);
        }
        let mut plan = [0usize; MAX_PLAYERS];
        for p in seats(best) {
            match r.stake(hold.supply(r, p), hold.hand_len(p), n) {
                Stake::Play(d) => plan[p] = d,
                Stake::Drop => {
                    contenders &= !bit(p);
                    if O::ACTIVE {
                        obs.drop_out(p, false);
                    }
                }
                Stake::Forfeit => {
                    hold.forfeit(p, &mut t.pots[p]);
                    *forfeited |= bit(p);
                    contenders &= !bit(p);
                    if O::ACTIVE {
                        obs.drop_out(p, true);
                    }
                }
            }
        }
        if contenders.count_ones() < 2 {
            continue;
        }
        for p in seats(contenders) {
            for _ in 0..plan[p] {
                let c = hold.draw_down(r, p, rng);
                t.pots[p].push(c);
            }
            tally.cards_turned += plan[p] as u64 + 1;
            if O::ACTIVE {
                obs.face_down(p, plan[p], depth);
            }
            let c = hold.draw_up(r, p, rng);
            t.pots[p].push(c);
            up[p] = c;
            if O::ACTIVE {
                obs.face_up(p, c, depth);
            }
        }
    };
    tally.deepest = tally.deepest.max(depth);
    Fight::Won { winner, depth }
}

/// The winner of a battle takes the table: after a war its loser first takes back the war's
/// cause (`war_cause_to_loser`), then the winner picks up every pot in the pick-up order.
/// Returns the cards the winner took.
pub(crate) fn settle<H: Holdings, D: Draws>(
    r: &Rules,
    t: &mut Scratch,
    hold: &mut H,
    rng: &mut D,
    winner: usize,
    depth: u32,
    forfeited: u8,
) -> usize {
    if depth > 0 {
        // Wars won decide nothing but `wars_to_win`: counted only there, so that they never
        // keep an otherwise repeating state from repeating (cycle detection compares them).
        if r.wars_to_win.is_some() {
            hold.wars_won()[winner] += 1;
        }
        if r.cause_to_loser {
            let loser = 1 - winner;
            if forfeited & bit(loser) == 0 {
                t.order_pots(r, loser, true, rng);
                hold.give(r, loser, &t.order);
            } else {
                for p in 0..r.players {
                    if let Some(c) = t.cause[p].pop() {
                        t.pots[p].push(c);
                    }
                }
            }
        }
    }
    t.order_pots(r, winner, false, rng);
    hold.give(r, winner, &t.order);
    top_up_hands(r, hold, rng);
    t.order.len()
}

/// After a battle won by `winner`: who is out, the lead, and the endings in their order (one
/// player left, `target_cards`, `min_cards`, `wars_to_win`, `battle_limit`).
pub(crate) fn after<H: Holdings>(
    r: &Rules,
    hold: &mut H,
    tally: &mut Tally,
    winner: usize,
    depth: u32,
    forfeited: u8,
) -> Option<End> {
    // Every count below is of the cards each player holds now: read them once.
    let mut totals = [0usize; MAX_PLAYERS];
    for (p, total) in totals.iter_mut().enumerate().take(hold.players()) {
        *total = hold.total(p);
    }
    let most = |mask: u8| most_cards(mask, |p| totals[p]);
    let was_in = hold.in_game();
    let mut empty = 0u8;
    for (p, &total) in totals.iter().enumerate() {
        empty |= u8::from(total == 0) << p;
    }
    let out = was_in & (forfeited | empty);
    let in_game = was_in & !out;
    let by_forfeit = out & forfeited != 0;
    hold.set_in_game(in_game);
    tally.note_leader(most((1u8 << hold.players()) - 1).map(usize::from));
    if in_game.count_ones() == 1 {
        let w = in_game.trailing_zeros() as u8;
        let end = if by_forfeit {
            EndReason::Forfeit
        } else {
            EndReason::AllCards
        };
        return Some((end, Some(w)));
    }
    if let Some(target) = r.target_cards {
        let reached = seats(in_game)
            .filter(|&p| totals[p] >= target as usize)
            .fold(0, |m, p| m | bit(p));
        if reached != 0 {
            return Some((EndReason::Target, most(reached)));
        }
    }
    // A player who ran out in this battle fell below `min_cards` too (with 3–4 players the
    // others would otherwise play on without it).
    if let Some(min) = r.min_cards
        && seats(was_in).any(|p| totals[p] < min as usize)
    {
        return Some((EndReason::MinCards, most(in_game)));
    }
    if let Some(n) = r.wars_to_win
        && depth > 0
        && hold.wars_won()[winner] >= n
    {
        return Some((EndReason::WarsToWin, Some(winner as u8)));
    }
    if r.battle_limit.is_some_and(|l| tally.battles >= l) {
        return Some((EndReason::BattleLimit, most(in_game)));
    }
    None
}

/// `on_empty = lose`, before a battle: a player who cannot turn up a card from the stack (or
/// the hand) is out. With two or more players left the battle is played and the out players'
/// cards go onto its table (see [`battle`]); with fewer, no battle is played: the one player
/// left wins by forfeit, and if nobody can play, the game is a draw.
fn empty_stacks_lose<H: Holdings>(r: &Rules, hold: &mut H) -> Option<End> {
    let able = seats(hold.in_game())
        .filter(|&p| hold.up_supply(r, p) > 0)
        .fold(0u8, |m, p| m | bit(p));
    if able.count_ones() >= 2 {
        return None;
    }
    // The game is over: the cards stay with their holders.
    hold.set_in_game(able);
    Some((
        EndReason::Forfeit,
        (able != 0).then(|| able.trailing_zeros() as u8),
    ))
}

/// Every player in the war ran out at once: each takes back their own cards; a draw.
pub(crate) fn draw_in_war<H: Holdings, O: Observer>(
    t: &Scratch,
    hold: &mut H,
    tally: &mut Tally,
    obs: &mut O,
) -> End {
    for p in 0..hold.players() {
        hold.take_back(p, &t.pots[p]);
        hold.take_back(p, &t.cause[p]);
    }
    tally.note_leader(hold.leader());
    if O::ACTIVE {
        obs.battle_end(None, 0, &hold.view());
    }
    (EndReason::DrawInWar, None)
}
