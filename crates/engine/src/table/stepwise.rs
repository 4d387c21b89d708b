//! The table battle, battle by battle: a battle of `N` seats in fixed steps, its war on the
//! rings (with hands, from the hands), the pick-up and the endings. The ring plays what its runs
//! hand over here, and the replays of loop detection step through it.

use crate::general;
use crate::observe::Quiet;
use crate::rng::GameRng;
use crate::rules::{OnEmpty, Pickup, Rules, Stake};
use crate::seats::Seats;
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally, bit, seats};

/// [`battle`] as the step that [`cycle`](crate::cycle) plays (and replays) battle by battle.
pub(super) fn plain_step<'a, const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &'a Rules,
    t: &'a mut Scratch,
    rng: &'a mut GameRng,
) -> impl FnMut(&mut Seats, &mut Tally, bool) -> Option<End> + 'a {
    move |s: &mut Seats, tally: &mut Tally, _: bool| battle::<N, PRIZE, HANDS>(r, t, s, tally, rng)
}

/// One battle of any rule set on the seats: [`battle`] where the rules are plain, the general
/// battle otherwise. The two-seat loop replays with it to find a loop's start.
#[inline]
pub(crate) fn step(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    if plain(r) {
        shaped!(r, battle(r, t, s, tally, rng))
    } else {
        general::battle(r, t, s, tally, rng, &mut Quiet)
    }
}

/// Whether every battle's opening is a prize (if the rules have one) from the top of each
/// stack and a face-up card from the top of each stack or from each hand, and no player is
/// out by an empty stack (`on_empty = lose`: the ring's, whose battles with a short stack are
/// [`battle`]'s, [`off_ring`](super::off_ring)).
pub(super) fn plain(r: &Rules) -> bool {
    r.two_pile != Some(OnEmpty::Lose)
}

/// One battle under [`plain`] rules with `N` seats at the table (`PRIZE`, `HANDS`: the rules'
/// `prize`, and `hand` above 0), or under `on_empty = lose`: a battle that takes no more than
/// every stack holds (with hands, one in which every hand holds a card, and with a prize every
/// stack one) plays the same under it, and any other is the general battle's.
#[inline]
pub(super) fn battle<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    let in_game = s.in_game;
    // Seats in a fixed order of `N` steps rather than the bits of the mask.
    let playing = |p: usize| in_game & bit(p) != 0;
    // With a stack this long, every player gives its prize (if the rules have one) and turns up
    // a card straight from its stack; shorter stacks (a pile to turn over, a prize not given)
    // are the general battle's. In hand mode every player still in holds a card to play (hands
    // grow back after each battle), and the hand refills itself; a prize comes from the stack.
    let need = 1 + usize::from(PRIZE);
    let short = |p: usize| {
        if HANDS {
            s.hand_len[p] == 0 || PRIZE && s.l[p] == 0
        } else {
            s.l[p] < need
        }
    };
    // Every seat asked, without a branch per seat.
    if (0..N).fold(false, |any, p| any | (playing(p) & short(p))) {
        return general::battle(r, t, s, tally, rng, &mut Quiet);
    }
    tally.battles += 1;
    tally.cards_turned += (need * in_game.count_ones() as usize) as u64;
    // The cards are gathered in words: bytes stored one by one and read back as a word would
    // stall the read until the stores retire.
    let (mut prizes, mut ups) = (0u32, 0u32);
    if HANDS {
        // Every prize first, then every seat's pick from its hand (a random pick draws from
        // the generator, in seat order).
        if PRIZE {
            for p in (0..N).filter(|&p| playing(p)) {
                prizes |= u32::from(s.get(p, s.h[p])) << (8 * p);
                s.h[p] += 1;
                s.l[p] -= 1;
            }
        }
        for p in (0..N).filter(|&p| playing(p)) {
            ups |= u32::from(s.draw_up(r, p, rng)) << (8 * p);
        }
    } else {
        // Every seat in `N` steps without a branch: a seat that is out reads a card it does
        // not own, and does not move.
        for p in 0..N {
            let h = s.h[p];
            if PRIZE {
                prizes |= u32::from(s.get(p, h)) << (8 * p);
            }
            ups |= u32::from(s.get(p, h + need - 1)) << (8 * p);
            let moved = need * usize::from(playing(p));
            s.h[p] = h + moved;
            s.l[p] -= moved;
        }
    }
    let prize = prizes.to_le_bytes();
    let up = ups.to_le_bytes();
    // The faster player grabs the cards before they are compared.
    let grab = r.speed.is_some_and(|th| playing(0) && rng.next_u64() < th);
    let best = if grab {
        1
    } else {
        r.best_of_first::<N>(in_game, &up)
    };
    if best.count_ones() != 1 {
        return tie::<N, PRIZE, HANDS>(r, t, s, tally, rng, in_game, best, prize, up);
    }
    let winner = best.trailing_zeros() as usize;
    let (cards, k) = pickup::<N, PRIZE>(r, rng, winner, in_game, &prize, &up);
    s.give_word(winner, cards, k);
    if HANDS {
        general::top_up_hands(r, s, rng);
    }
    after::<N, HANDS>(r, s, tally, winner, in_game, 0)
}

/// The face-up cards `up` (after the prizes `prize`, if any) of the seats `in_game` tie among
/// `tied`: a war of hands ([`hand_war`]), a war on the rings, or the general contest where
/// `war_cause_to_loser` changes what a war on the rings is.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(always)]
pub(super) fn tie<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    tied: u8,
    prize: [u8; MAX_PLAYERS],
    mut up: [u8; MAX_PLAYERS],
) -> Option<End> {
    if HANDS {
        return hand_war::<N, PRIZE>(r, t, s, tally, rng, in_game, tied, prize, up);
    }
    if r.cause_to_loser {
        t.clear();
        for p in (0..N).filter(|&p| in_game & bit(p) != 0) {
            if PRIZE {
                t.pots[p].push(prize[p]);
            }
            t.pots[p].push(up[p]);
        }
        return general::contest(r, t, s, tally, rng, &mut Quiet, in_game, &mut up, 0, 0);
    }
    war::<N>(
        r,
        t,
        s,
        tally,
        rng,
        in_game,
        tied,
        up,
        1 + usize::from(PRIZE),
    )
}

/// A tie among `tied` in hand mode (with `PRIZE`, after the prizes `prize`), as the general
/// [`fight`](general::fight) plays it: each war, every tied seat puts its `n` cards face down
/// from its stack and plays one from its hand by its policy (the slot refilled from the stack),
/// seat by seat, until one seat's card is best; the winner picks up every pot, after the loser
/// takes back the tied cards under `war_cause_to_loser` (set apart as the first war begins, as
/// the general fight sets them apart). While every tied seat holds a card in hand and `n` to
/// put down, this is every war; a war with a seat short of either goes on in the general
/// contest, from where the wars stopped.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(never)]
pub(super) fn hand_war<const N: usize, const PRIZE: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    tied: u8,
    prize: [u8; MAX_PLAYERS],
    mut up: [u8; MAX_PLAYERS],
) -> Option<End> {
    let (mut contenders, mut depth) = (tied, 0u32);
    if in_game.count_ones() == 2 && tied == in_game {
        let won = pair_war::<N, PRIZE>(r, t, s, tally, rng, in_game, &prize, &mut up, &mut depth);
        if let Some(winner) = won {
            return after::<N, true>(r, s, tally, winner, in_game, depth);
        }
        // `pair_war` left the cards played so far in the pots (the tied cards apart in
        // `t.cause` under `war_cause_to_loser`, once a war has begun): the general rounds go
        // on.
    } else {
        t.clear();
        for p in (0..N).filter(|&p| in_game & bit(p) != 0) {
            if PRIZE {
                t.pots[p].push(prize[p]);
            }
            t.pots[p].push(up[p]);
        }
    }
    let winner = loop {
        let n = r.war_size(depth + 1, up[contenders.trailing_zeros() as usize]);
        // Every tied seat stakes the war in full, or the general contest plays it.
        let full = |p: usize| r.stake(s.supply(r, p), s.hand_len(p), n) == Stake::Play(n);
        if !seats(contenders).all(full) {
            return general::contest(
                r, t, s, tally, rng, &mut Quiet, contenders, &mut up, 0, depth,
            );
        }
        depth += 1;
        tally.wars += 1;
        if r.cause_to_loser && depth == 1 {
            t.set_causes_apart(contenders);
        }
        for p in seats(contenders) {
            for _ in 0..n {
                let c = s.draw_down(r, p, rng);
                t.pots[p].push(c);
            }
            tally.cards_turned += n as u64 + 1;
            let c = s.draw_up(r, p, rng);
            t.pots[p].push(c);
            up[p] = c;
        }
        let best = r.best_of_first::<N>(contenders, &up);
        if best.count_ones() == 1 {
            break best.trailing_zeros() as usize;
        }
        contenders = best;
    };
    tally.deepest = tally.deepest.max(depth);
    general::settle(r, t, s, rng, winner, depth, 0);
    after::<N, true>(r, s, tally, winner, in_game, depth)
}

/// [`hand_war`] between the only two seats in the game, both tied (after the prizes `prize`,
/// with `PRIZE`), `depth` wars in: each round, while both hands are full and both stacks hold
/// the round's face-down cards and a card to refill the hand with, the same draws, cards and
/// counts as the general rounds, with the pots in local arrays rather than the table's
/// vectors, and the winner's pick-up and [`settle`](general::settle)'s steps after it (under
/// `war_cause_to_loser`, the general settle itself, the tied cards set apart). Returns the
/// winner; or `None` with the cards played so far in `t`'s pots (and, once a war has begun
/// under `war_cause_to_loser`, the tied cards in `t.cause`), for the general rounds to go on
/// from.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(always)]
pub(super) fn pair_war<const N: usize, const PRIZE: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    prize: &[u8; MAX_PLAYERS],
    up: &mut [u8; MAX_PLAYERS],
    depth: &mut u32,
) -> Option<usize> {
    // Room for the pots of a long war; a longer one goes on in the general rounds.
    const ROOM: usize = 64;
    let pair = [
        in_game.trailing_zeros() as usize,
        7 - in_game.leading_zeros() as usize,
    ];
    let mut pots = [[0u8; ROOM]; 2];
    // Both pots grow alike: one length.
    let mut len = 1 + usize::from(PRIZE);
    for (pot, &p) in pots.iter_mut().zip(&pair) {
        if PRIZE {
            pot[0] = prize[p];
        }
        pot[len - 1] = up[p];
    }
    let hand = r.hand;
    loop {
        let n = r.war_size(*depth + 1, up[pair[0]]);
        let full = |p: usize| s.l[p] > n && usize::from(s.hand_len[p]) == hand;
        if !(full(pair[0]) && full(pair[1])) || len + n + 1 > ROOM {
            let played = [&pots[0][..len], &pots[1][..len]];
            pots_to_table(r, t, played, &pair, 1 + usize::from(PRIZE), *depth);
            return None;
        }
        *depth += 1;
        tally.wars += 1;
        tally.cards_turned += 2 * (n as u64 + 1);
        for (pot, &p) in pots.iter_mut().zip(&pair) {
            // `n` cards face down from the stack, then one from the hand by the seat's policy,
            // its slot refilled from the stack (which `full` found long enough for both).
            let h = s.h[p];
            for (i, c) in pot[len..len + n].iter_mut().enumerate() {
                *c = s.get(p, h + i);
            }
            let slot = r.choose(p, &s.hands[p][..hand], rng);
            let card = s.hands[p][slot];
            s.hands[p][slot] = s.get(p, h + n);
            s.h[p] = h + n + 1;
            s.l[p] -= n + 1;
            pot[len + n] = card;
            up[p] = card;
        }
        len += n + 1;
        let best = r.best_of_first::<N>(in_game, up);
        if best.count_ones() == 1 {
            let winner = best.trailing_zeros() as usize;
            tally.deepest = tally.deepest.max(*depth);
            if r.cause_to_loser {
                let played = [&pots[0][..len], &pots[1][..len]];
                pots_to_table(r, t, played, &pair, 1 + usize::from(PRIZE), *depth);
                general::settle(r, t, s, rng, winner, *depth, 0);
                return Some(winner);
            }
            // `general::settle` after a war without `war_cause_to_loser`: the seats out of the
            // game hold no pot, so the two pots in seat order are the table's.
            if r.wars_to_win.is_some() {
                s.wars_won[winner] += 1;
            }
            let taker = usize::from(winner == pair[1]);
            r.order_pickup(
                taker,
                &[&pots[0][..len], &pots[1][..len]],
                &mut t.order,
                rng,
            );
            s.give(r, winner, &t.order);
            general::top_up_hands(r, s, rng);
            return Some(winner);
        }
    }
}

/// [`pair_war`]'s `pots` of the two seats `pair` onto the table's, `depth` wars in: under
/// `war_cause_to_loser`, once a war has begun, each seat's tied card (the last of its
/// `opening` cards) apart in `t.cause`, where the general fight sets it.
fn pots_to_table(
    r: &Rules,
    t: &mut Scratch,
    pots: [&[u8]; 2],
    pair: &[usize; 2],
    opening: usize,
    depth: u32,
) {
    t.clear();
    for (pot, &p) in pots.into_iter().zip(pair) {
        t.pots[p].extend_from_slice(pot);
        if r.cause_to_loser && depth > 0 {
            t.set_cause_apart(p, opening - 1);
        }
    }
}

/// The pick-up of a battle without a war that `winner` won: `order_pickup` on pots of the
/// same few layers (the prizes, if any, then the face-up cards), written out for them. The
/// cards come back in a word (card `i` in byte `i`) with their number.
#[inline(always)]
pub(super) fn pickup<const N: usize, const PRIZE: bool>(
    r: &Rules,
    rng: &mut GameRng,
    winner: usize,
    in_game: u8,
    prize: &[u8; MAX_PLAYERS],
    up: &[u8; MAX_PLAYERS],
) -> (u64, usize) {
    let playing = |p: usize| in_game & bit(p) != 0;
    let layers = [prize, up];
    let layers = &layers[usize::from(!PRIZE)..];
    let others = |p: usize| playing(p) && p != winner;
    // Every seat's card is written, in a fixed number of steps: a card that is not part of
    // the pick-up adds nothing and is overwritten by the next.
    let mut cards = 0u64;
    let mut k = 0;
    let mut take = |card: u8, counts: bool| {
        cards |= u64::from(card * u8::from(counts)).wrapping_shl(8 * k as u32);
        k += usize::from(counts);
    };
    match r.pickup {
        Pickup::WinnerFirst | Pickup::LoserFirst => {
            // Pot by pot: the winner's first or last, the others in seat order.
            let first = r.pickup == Pickup::WinnerFirst;
            if first {
                layers.iter().for_each(|l| take(l[winner], true));
            }
            for p in 0..N {
                layers.iter().for_each(|l| take(l[p], others(p)));
            }
            if !first {
                layers.iter().for_each(|l| take(l[winner], true));
            }
        }
        Pickup::Played | Pickup::Seat => {
            // Layer by layer: the winner's card first in each, or the seats in order.
            let played = r.pickup == Pickup::Played;
            for l in layers {
                if played {
                    take(l[winner], true);
                }
                for p in 0..N {
                    take(l[p], if played { others(p) } else { playing(p) });
                }
            }
        }
        Pickup::Shuffled | Pickup::RankAsc | Pickup::RankDesc => {
            // Pot by pot in seat order, then shuffled or sorted.
            for p in 0..N {
                layers.iter().for_each(|l| take(l[p], playing(p)));
            }
        }
    }
    let cards = match r.pickup {
        Pickup::Shuffled => rng.shuffle_word(cards, k),
        Pickup::RankAsc | Pickup::RankDesc => {
            let mut bytes = cards.to_le_bytes();
            if r.pickup == Pickup::RankAsc {
                bytes[..k].sort_unstable();
            } else {
                bytes[..k].sort_unstable_by(|a, b| b.cmp(a));
            }
            u64::from_le_bytes(bytes)
        }
        _ => cards,
    };
    (cards, k)
}

/// After a battle of [`battle`]: nobody forfeited, so a player is out only if it has no card
/// left; the endings that count cards are the general [`after`](general::after)'s.
#[inline(always)]
pub(super) fn after<const N: usize, const HANDS: bool>(
    r: &Rules,
    s: &mut Seats,
    tally: &mut Tally,
    winner: usize,
    in_game: u8,
    depth: u32,
) -> Option<End> {
    let mut totals = [0usize; MAX_PLAYERS];
    for (p, total) in totals.iter_mut().enumerate().take(N) {
        *total = s.l[p] + s.m[p] + if HANDS { usize::from(s.hand_len[p]) } else { 0 };
    }
    if someone_out::<N>(in_game, &totals) || counts_cards(r) || depth > 0 && r.wars_to_win.is_some()
    {
        return general::after(r, s, tally, winner, depth, 0);
    }
    tally.note_leader(leader_of::<N>(&totals).map(usize::from));
    None
}

/// Whether an ending that counts cards or battles (`target_cards`, `min_cards`,
/// `battle_limit`) may come after any battle: the general [`after`](general::after) decides it.
pub(super) fn counts_cards(r: &Rules) -> bool {
    r.target_cards.is_some() || r.min_cards.is_some() || r.battle_limit.is_some()
}

/// Whether a seat of `in_game` holds no card, the first `N` seats holding `totals`; every seat
/// asked, without a branch per seat.
#[inline(always)]
fn someone_out<const N: usize>(in_game: u8, totals: &[usize; MAX_PLAYERS]) -> bool {
    (0..N).fold(false, |any, p| {
        any | ((in_game & bit(p) != 0) & (totals[p] == 0))
    })
}

/// The one seat of the first `N` holding the most cards (`totals`), or none on a tie: the
/// general [`most_cards`](crate::state::most_cards) without a branch per seat.
#[inline(always)]
pub(super) fn leader_of<const N: usize>(totals: &[usize; MAX_PLAYERS]) -> Option<u8> {
    let most = (0..N).map(|p| totals[p]).max().unwrap_or(0);
    let holders = (0..N).fold(0u8, |m, p| m | u8::from(totals[p] == most) << p);
    (holders.count_ones() == 1).then(|| holders.trailing_zeros() as u8)
}

/// A tie among `tied` after a plain opening (`need` cards from each stack; no hands, no
/// `war_cause_to_loser`): rounds every tied player can pay for from its stack are played on the
/// rings, and each player's table cards are then one stretch of its ring, from its first card
/// to its head. Anything else (a short stack, a stretch split by the ring's end) goes on in the
/// general loop's [`contest`](general::contest) from where the rounds stopped.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(never)]
pub(super) fn war<const N: usize>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    tied: u8,
    mut up: [u8; MAX_PLAYERS],
    need: usize,
) -> Option<End> {
    let playing = |p: usize| in_game & bit(p) != 0;
    let mut first = [0usize; MAX_PLAYERS];
    for p in (0..N).filter(|&p| playing(p)) {
        first[p] = s.h[p] - need;
    }
    let (mut contenders, mut depth) = (tied, 0u32);
    let mut winner = None;
    loop {
        let fighting = |p: usize| contenders & bit(p) != 0;
        let n = r.war_size(depth + 1, up[contenders.trailing_zeros() as usize]);
        if (0..N).any(|p| fighting(p) && s.l[p] <= n) {
            break;
        }
        depth += 1;
        tally.wars += 1;
        tally.cards_turned += (n as u64 + 1) * u64::from(contenders.count_ones());
        for (p, card) in up.iter_mut().enumerate().take(N) {
            if fighting(p) {
                s.h[p] += n + 1;
                s.l[p] -= n + 1;
                *card = s.get(p, s.h[p] - 1);
            }
        }
        let best = r.best_of_first::<N>(contenders, &up);
        if best.count_ones() == 1 {
            winner = Some(best.trailing_zeros() as usize);
            break;
        }
        contenders = best;
    }
    if let Some(winner) = winner {
        let mut pots: [&[u8]; MAX_PLAYERS] = [&[]; MAX_PLAYERS];
        let mut whole = true;
        for (p, pot) in pots.iter_mut().enumerate().take(N) {
            if playing(p) {
                match s.stretch(p, first[p], s.h[p]) {
                    Some(cards) => *pot = cards,
                    None => whole = false,
                }
            }
        }
        if whole {
            tally.deepest = tally.deepest.max(depth);
            r.order_pickup(winner, &pots[..N], &mut t.order, rng);
            if r.wars_to_win.is_some() {
                s.wars_won[winner] += 1;
            }
            s.give(r, winner, &t.order);
            return after::<N, false>(r, s, tally, winner, in_game, depth);
        }
    }
    t.clear();
    for p in (0..N).filter(|&p| playing(p)) {
        let (from, to) = (first[p], s.h[p]);
        t.pots[p].extend((from..to).map(|pos| s.get(p, pos)));
    }
    general::contest(
        r, t, s, tally, rng, &mut Quiet, contenders, &mut up, 0, depth,
    )
}
