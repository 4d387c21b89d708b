//! Runs of plain battles on lanes in registers, for the seats still in the game: [`plain_run`]
//! (3–4 seats, or two without hands), chosen per seats, prize, hands, piles, pick-up code and
//! ranking kind by [`plain_any`](super::plain_any).

use super::lane_war::lane_war;
use super::lanes::{
    best_lane, draw_up, has_zero_lane, lane_short, leader_lane, most_lane, order, order_bare,
    order_prize, pad, pick_slot, put_under, refill, refill_card, tops, turn_over_lanes,
};
use super::short::{Short, short_run};
use super::{LANE, LANES_RING, NONE, Run, Shape, Stop, by_seat, seat_mask};
use crate::cycle::TRAIL;
use crate::rng::GameRng;
use crate::rules::{Policy, Rules, policy};
use crate::seats::Seats;
use crate::state::MAX_PLAYERS;

/// Plain battles of the `M` seats still in the game (a face-up card from each stack; with `PRIZE`,
/// the top card as the prize and the next face up) until one is not: a tie whose war
/// [`lane_war`] cannot play (or any tie of a [`bare_battle`]), a battle after which an ending
/// may come, or a look for the safety cap or Brent's detection. Heads and stack lengths (and
/// won-pile lengths with two piles) are 16-bit lanes of words, so a battle moves every seat in
/// one addition; who won picks its lane by a shift, not a branch (which seat wins is what a
/// branch predictor cannot guess). The pick-up order
/// `PICK` and whether the ranking is `ORDERED` are compiled in. With `HANDS` (3–4 seats; two are
/// [`pair_hands`](super::pair::pair_hands)'), each seat plays the card its policy picks from its
/// full hand (`hands`, lane `i`'s in word `i`) and refills the slot from its stack (after the
/// prize, with `PRIZE`), as long as every stack has the cards; once one has not (where the
/// [`Shape`] lets hands play short), [`short_run`] plays on until every supply is back. With `TWO`
/// piles won cards go onto the won piles (`wons`), and a stack that has run out turns its won pile
/// over where the general draw would: at the start of the next battle ([`turn_over_lanes`]), or
/// with hands or a prize where it draws ([`refill_card`]): every prize first, then each face-up
/// card or refill (after the seat's pick). With a prize and without hands, a battle in which a
/// seat holds one card is [`bare_battle`]'s, in the run. Under `on_empty = lose` (`TWO`,
/// [`Shape`]'s `lose`) the run starts with every stack holding the battle's cards (and every
/// hand full) and stops after a battle that leaves one short: no pile turns over and no battle
/// is bare in it, and its wars are paid from the stacks alone.
#[allow(clippy::too_many_arguments)] // the run's position, handed over
#[inline(never)]
pub(super) fn plain_run<
    const M: usize,
    const PRIZE: bool,
    const HANDS: bool,
    const TWO: bool,
    const PICK: u8,
    const ORDERED: bool,
>(
    r: &Rules,
    rng_out: &mut GameRng,
    s: &mut Seats,
    shape: &Shape,
    seat: &[usize; MAX_PLAYERS],
    run: &mut Run,
    hands: &mut [u64; MAX_PLAYERS],
    trail: &mut [u8],
    order_buf: &mut Vec<u8>,
) -> Stop {
    let cap = s.cap();
    debug_assert!((8..=LANES_RING).contains(&cap));
    let buf = &mut s.buf_mut()[..];
    let mask = cap - 1;
    let ones = (0..M).fold(0u64, |v, i| v | 1 << (16 * i));
    let wrap = ones * mask as u64;
    // The lanes past the seats in the game read as holding a card: only an empty stack of a
    // seat in the game reads as zero.
    let pad = pad::<M>();
    let base: [usize; M] = std::array::from_fn(|i| seat[i] * cap);
    // Every lane's stretch lies in the buffer: the reads and the store below stay inside it.
    assert!(base.iter().all(|&b| b + cap <= buf.len()));
    // The trail too, once here rather than at every battle's note.
    assert!(!shape.cycles || trail.len() == TRAIL);
    // Lane `i`'s seat in byte `i`, read without a load.
    let seat_bytes = (0..M).fold(0u32, |v, i| v | (seat[i] as u32) << (8 * i));
    let Run {
        mut heads,
        mut lens,
        mut wons,
        mut shuffled,
        mut battles,
        mut leader,
        mut changes,
        mut lam,
        power,
        tort,
        tort_tops,
        mut won,
        ..
    } = *run;
    debug_assert!(TWO || wons == 0);
    let hand = r.hand;
    let policy: [Policy; M] = std::array::from_fn(|i| r.policies[seat[i]]);
    let mut words: [u64; M] = std::array::from_fn(|i| hands[i]);
    // The generator as a local copy, written back once: its state and half-drawn words can stay
    // in registers for the whole run rather than go through memory at every draw.
    let mut g = rng_out.clone();
    let rng = &mut g;
    let mut wars = run.wars;
    let (grabs, threshold) = shape.grab(seat);
    // The leader's lane once it is known to be among the seats holding the most cards (then
    // `leader` is not kept up to date), `M` until then.
    let mut lead = leading_lane::<M>(leader, lens + wons, seat);
    // Brent's count: with `cycles` each battle's steps raise `lam` by one, and the run stops to
    // look where it reaches `power`. Rather than count, the run keeps `lam`'s offset from
    // `battles` and the battle of the next look ([`Shape::looks`]): one compare a battle.
    let (mut lam_at, mut look_at) = shape.looks(power, battles, lam);
    // Battles counted whose steps are not done when the run stops (a tie or a seat out stops
    // it before them): `lam` is worked out once, after the run.
    let mut ahead = 0;
    // Hands are short only while a supply is out (which `short_run` plays first).
    debug_assert!(
        !HANDS
            || shape.short_hands && lane_short::<M, PRIZE>(lens + wons)
            || run.held == hand as u64 * ones
    );
    // The battles while a hand may be short, out of the loop, as in `pair_hands`: the run's
    // position goes to [`short_run`] with the leader settled, and comes back with its lane
    // looked for again.
    macro_rules! short {
        ($tail:expr) => {
            short!($tail; heads, lens, wons, words, shuffled, battles, leader, changes, lam, wars)
        };
        ($tail:expr; $($field:ident),*) => {{
            if lead < M {
                leader = seat[lead] as u8;
            }
            if $tail && shape.cycles {
                // (This battle's steps are `short_run`'s.)
                lam = lam_at.wrapping_add(battles - 1);
            }
            let mut p = Short { $($field,)* held: run.held, bare: 0, rng: rng.clone() };
            let brent = (power, tort, tort_tops);
            // SAFETY: every lane's stretch lies in `buf` (asserted); `cap` is a power of two.
            let stop = unsafe {
                short_run::<M, PRIZE, TWO, PICK, ORDERED, { policy::MIXED }>(
                    r, buf, base, cap, policy, shape, seat, brent, trail, order_buf, &mut p,
                    $tail,
                )
            };
            let bare;
            Short { $($field,)* held: run.held, bare, rng: *rng } = p;
            if PRIZE {
                run.bare += bare;
            }
            lead = leading_lane::<M>(leader, lens + wons, seat);
            (lam_at, look_at) = shape.looks(power, battles, lam);
            stop
        }};
    }
    // Without hands, a seat down to one card (its stack, and its won pile under two piles) plays
    // on in the run: it gives no prize ([`bare_battle`]). Such a battle is due when `bare`.
    let mut bare = PRIZE && !HANDS && lane_short::<M, true>(lens + wons);
    let stop = 'run: {
        // A leg may start with a seat's supply out (its hand full or not).
        if HANDS
            && shape.short_hands
            && lane_short::<M, PRIZE>(lens + wons)
            && let Some(stop) = short!(false)
        {
            break 'run stop;
        }
        loop {
            // (With hands or a prize, a stack turns its pile over where it draws.)
            if TWO && !HANDS && !PRIZE && has_zero_lane(lens | pad) {
                let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                shuffled += turn_over_lanes::<M>(buf, &base, cap, h, l, w, shape.shuffles, rng);
            }
            battles += 1;
            let (w, warred);
            if PRIZE && !HANDS && bare {
                let lanes = (&mut heads, &mut lens, &mut wons);
                // SAFETY: every lane's stretch lies in `buf` (asserted); `cap` is a power of two.
                let battle = unsafe {
                    bare_battle::<M, TWO, PICK, ORDERED>(
                        r,
                        buf,
                        &base,
                        cap,
                        seat,
                        shape,
                        lanes,
                        &mut shuffled,
                        rng,
                        order_buf,
                        &mut run.bare,
                    )
                };
                match battle {
                    Ok(lane) => (w, warred) = (lane, false),
                    Err(stop) => {
                        ahead = 1;
                        break stop;
                    }
                }
            } else {
                let (mut prs, mut ups) = (0u64, 0u64);
                if PRIZE && TWO {
                    // Under two piles every prize first, each stack turning its won pile over where
                    // it has run out, as the general draw does; then the face-up cards, alike. (This
                    // loop, `pair_hands`' and `short_run`'s as one helper measured 3–18 % more
                    // instructions.)
                    for (i, &b) in base.iter().enumerate() {
                        let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                        // SAFETY: the stretch `b .. b + cap` lies in `buf` (asserted).
                        let (turned, card) =
                            unsafe { refill_card(buf, b, cap, i, h, l, w, shape.shuffles, rng) };
                        shuffled += turned;
                        prs |= card << (8 * i);
                        heads = (heads + (1 << (16 * i))) & wrap;
                        lens -= 1 << (16 * i);
                    }
                }
                for (i, &b) in base.iter().enumerate() {
                    let pos = (heads >> (16 * i)) as usize & mask;
                    // SAFETY: `pos < cap` and the stretch `b .. b + cap` lies in `buf` (asserted).
                    let top = u64::from(unsafe { *buf.get_unchecked(b + pos) });
                    if PRIZE && !TWO {
                        // The top card is the prize, the one under it turned up (or, with hands, put
                        // into the hand in place of the card played).
                        // SAFETY: as above, the position masked into the stretch.
                        let next = u64::from(unsafe { *buf.get_unchecked(b + ((pos + 1) & mask)) });
                        prs |= top << (8 * i);
                        let up = if HANDS {
                            let up;
                            (up, words[i]) =
                                draw_up::<ORDERED>(r, policy[i], hand, words[i], next, rng);
                            up
                        } else {
                            next
                        };
                        ups |= up << (8 * i);
                    } else if HANDS {
                        let slot = pick_slot::<ORDERED>(r, policy[i], hand, words[i], rng);
                        let top = if TWO {
                            let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                            // SAFETY: as above, the stretch lies in `buf`.
                            let (turned, card) = unsafe {
                                refill_card(buf, b, cap, i, h, l, w, shape.shuffles, rng)
                            };
                            shuffled += turned;
                            card
                        } else {
                            top
                        };
                        let up;
                        (up, words[i]) = refill(words[i], slot, top);
                        ups |= up << (8 * i);
                    } else if PRIZE {
                        // (Two piles.)
                        let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                        // SAFETY: as above, the stretch lies in `buf`.
                        let (turned, card) =
                            unsafe { refill_card(buf, b, cap, i, h, l, w, shape.shuffles, rng) };
                        shuffled += turned;
                        ups |= card << (8 * i);
                    } else {
                        ups |= top << (8 * i);
                    }
                }
                // (Under two piles the prizes are taken already.)
                let moved = if PRIZE && !TWO { 2 * ones } else { ones };
                heads = (heads + moved) & wrap;
                lens -= moved;
                let best = best_lane::<M, ORDERED>(r, ups);
                // The grab's draw comes after the face-up cards, as in the table battle.
                let best = if grabs && rng.next_u64() < threshold {
                    1
                } else {
                    best
                };
                if best & (best - 1) != 0 {
                    // The war among the tied lanes is played here where they can play it in full
                    // ([`lane_war`]); otherwise it is the table's.
                    let war = if shape.lane_wars {
                        let lanes = (heads, lens, wons, words);
                        // SAFETY: every lane's stretch lies in `buf` (asserted); `cap` is a power of
                        // two.
                        unsafe {
                            lane_war::<M, HANDS, PRIZE, TWO, ORDERED>(
                                r,
                                buf,
                                base,
                                cap,
                                lanes,
                                rng.clone(),
                                policy,
                                shape.shuffles,
                                !shape.lose,
                                best,
                                prs,
                                ups,
                                order_buf,
                            )
                        }
                    } else {
                        None
                    };
                    let Some(war) = war else {
                        ahead = 1;
                        break Stop::tie::<M>(seat, best, prs, ups);
                    };
                    (heads, lens, wons, words) = (war.heads, war.lens, war.wons, war.words);
                    *rng = war.rng;
                    (w, warred) = (war.winner, true);
                    wars = wars.and(war.depth, war.cards);
                    shuffled += war.shuffled;
                    if shape.war_won(&mut won, w) {
                        ahead = 1;
                        break Stop::WarWon {
                            winner: seat[w],
                            depth: war.depth,
                        };
                    }
                } else {
                    // The best card's lane: `best` has a bit set, and none above the `M` lanes.
                    (w, warred) = (best.trailing_zeros() as usize, false);
                    debug_assert!(w < M);
                    let (cards, k) = if PRIZE {
                        (
                            order_prize::<M, PICK>(rng, prs, ups, w, shape.layered),
                            2 * M,
                        )
                    } else {
                        (order::<M, PICK>(rng, ups, w), M)
                    };
                    // Every card a seat holds: its stack, and its won pile under two piles.
                    let held = if TWO { lens + wons } else { lens };
                    let grown = if TWO { &mut wons } else { &mut lens };
                    // SAFETY: `w < M` (above), and every lane's stretch lies in `buf` (asserted).
                    unsafe {
                        put_under(
                            buf,
                            *base.get_unchecked(w),
                            cap,
                            heads,
                            held,
                            grown,
                            w,
                            cards,
                            k,
                        )
                    };
                }
            }
            let totals = if TWO { lens + wons } else { lens };
            // A seat out of cards stops the run. With a prize and hands, a seat down to one card
            // stops it too (the next battle is the table battle's, or `short_run`'s); without
            // hands the next battle is a bare one.
            if has_zero_lane(totals | pad)
                || HANDS && PRIZE && has_zero_lane((totals - ones) | pad)
                || shape.may_end::<M>(totals, battles)
            {
                // With hands, a seat out of its supply plays on short hands where it may, this
                // battle's steps after it included.
                if !(HANDS && shape.short_hands) {
                    ahead = 1;
                    break Stop::Check(seat[w]);
                }
                match short!(true) {
                    Some(stop) => break stop,
                    None => continue,
                }
            }
            if PRIZE && !HANDS {
                bare = lane_short::<M, true>(totals);
            }
            // `Tally::note_leader`. Every battle (and the deal) notes the leader, so whenever one
            // seat holds strictly the most cards, the leader is that seat. A plain battle raises
            // only the winner's count and lowers every other by the same one card (two with a
            // prize; a seat that gave none in a bare battle and lost is out, and the run stopped
            // above), which keeps the others' order: once a game has a leader, the lead changes
            // only to the winner, when it now holds more than every other seat. Without a branch
            // on the cards.
            //
            // Once the leader is a lane's seat holding the most cards (`lead`), it stays among the
            // seats holding the most: only the winner can pass it, so one count is compared.
            let count = |lane: usize| (totals >> (16 * lane)) as usize & LANE;
            if warred {
                // A war takes more cards from the tied seats than from the others, which may pass
                // them: the leader is looked for among every seat, as `note_leader` would.
                if lead < M {
                    leader = (seat_bytes >> (8 * lead)) as u8;
                }
                let (unique, now) = leader_lane::<M>(totals);
                lead = M;
                if unique {
                    let now_seat = (seat_bytes >> (8 * now)) as u8;
                    changes += u64::from(leader != NONE && leader != now_seat);
                    (leader, lead) = (now_seat, now);
                }
            } else if lead < M {
                // (No `w != lead` test: the winner's count is then the lead's, not more. As a
                // test it was a branch on who won, mispredicted in a third of the battles.)
                let takes = count(w) > count(lead);
                changes += u64::from(takes);
                lead = if takes { w } else { lead };
            } else if leader == NONE {
                let (unique, now) = leader_lane::<M>(totals);
                if unique {
                    (leader, lead) = ((seat_bytes >> (8 * now)) as u8, now);
                }
            } else {
                // A leader out of the game, or not among the most after a war.
                let sh = 16 * w;
                let takes = count(w) > most_lane::<M>(totals & !((LANE as u64) << sh));
                if takes {
                    changes += u64::from(leader != (seat_bytes >> (8 * w)) as u8);
                    (leader, lead) = ((seat_bytes >> (8 * w)) as u8, w);
                }
            }
            debug_assert!({
                let (unique, now) = leader_lane::<M>(totals);
                let leader = if lead < M { seat[lead] as u8 } else { leader };
                !unique || leader == (seat_bytes >> (8 * now)) as u8
            });
            if shape.cycles {
                // The replay's hint (`ring`'s `trail_byte`): lane 0's count.
                // SAFETY: the index is below `TRAIL`, the trail's length (asserted).
                unsafe { *trail.get_unchecked_mut(battles as usize % TRAIL) = lens as u8 };
                if lens == tort && tops::<M>(buf, &base, heads, mask) == tort_tops {
                    break Stop::Look;
                }
            }
            // Under `on_empty = lose`, a stack short of the next battle (out, or with a prize
            // down to one card, its won pile not counted): that battle is the general
            // battle's ([`off_ring`](super::off_ring)).
            if battles >= look_at || TWO && shape.lose && lane_short::<M, PRIZE>(lens) {
                break Stop::Look;
            }
        }
    };
    if shape.cycles {
        // (Through `black_box`, else the compiler keeps `lam_at + battles` as a second count
        // in memory through the loop.)
        lam = lam_at.wrapping_add(std::hint::black_box(battles) - ahead);
    }
    hands[..M].copy_from_slice(&words);
    *rng_out = g;
    if lead < M {
        leader = seat[lead] as u8;
    }
    *run = Run {
        heads,
        lens,
        wons,
        shuffled,
        battles,
        leader,
        changes,
        lam,
        wars,
        won,
        ..*run
    };
    stop
}

/// A battle of [`plain_run`] with a prize and without hands, where a seat holds a single card
/// (its stack, and its won pile under two piles), played as the general battle plays it: that
/// seat gives no prize and turns its card up. Every other seat gives its prize first (under two
/// piles every prize before the face-up cards, each stack turning its won pile over where it
/// draws), then the grab's draw under `speed`. A tie is the general contest's ([`Stop::Bare`],
/// the cards off the lanes); otherwise the winner picks up every seat's pot (the prize under
/// the face-up card) in the general order ([`order_bare`]). Adds the prizes not given to
/// `bare`; returns the winner's lane.
///
/// # Safety
/// Every lane's stretch `base[i] .. base[i] + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // the run's position, handed over
#[cold]
#[inline(never)]
unsafe fn bare_battle<const M: usize, const TWO: bool, const PICK: u8, const ORDERED: bool>(
    r: &Rules,
    buf: &mut [u8],
    base: &[usize; M],
    cap: usize,
    seat: &[usize; MAX_PLAYERS],
    shape: &Shape,
    (heads, lens, wons): (&mut u64, &mut u64, &mut u64),
    shuffled: &mut u64,
    rng: &mut GameRng,
    order_buf: &mut Vec<u8>,
    bare: &mut u64,
) -> Result<usize, Stop> {
    let ones = (0..M).fold(0u64, |v, i| v | 1 << (16 * i));
    let wrap = ones * (cap - 1) as u64;
    let supply = |lens: u64, wons: u64, i: usize| ((lens + wons) >> (16 * i)) as usize & LANE;
    // The next card of lane `i` taken off its stack (a won pile turned over first where the
    // stack has run out).
    let mut take = |i: usize, heads: &mut u64, lens: &mut u64, wons: &mut u64| {
        // SAFETY: the stretch lies in `buf` and `cap` is a power of two (the caller's word).
        let (turned, card) =
            unsafe { refill_card(buf, base[i], cap, i, heads, lens, wons, shape.shuffles, rng) };
        *heads = (*heads + (1 << (16 * i))) & wrap;
        *lens -= 1 << (16 * i);
        (turned, card)
    };
    let (mut prs, mut ups, mut prized) = (0u64, 0u64, 0u8);
    for i in 0..M {
        if supply(*lens, *wons, i) >= 2 {
            let (turned, card) = take(i, heads, lens, wons);
            *shuffled += turned;
            prs |= card << (8 * i);
            prized |= 1 << i;
        }
    }
    *bare += u64::from(M as u32 - prized.count_ones());
    for i in 0..M {
        let (turned, card) = take(i, heads, lens, wons);
        *shuffled += turned;
        ups |= card << (8 * i);
    }
    let (grabs, threshold) = shape.grab(seat);
    let best = best_lane::<M, ORDERED>(r, ups);
    let best = if grabs && rng.next_u64() < threshold {
        1
    } else {
        best
    };
    if best & (best - 1) != 0 {
        return Err(Stop::Bare {
            given: seat_mask::<M>(seat, prized),
            prize: by_seat::<M>(seat, prs),
            up: by_seat::<M>(seat, ups),
        });
    }
    let w = best.trailing_zeros() as usize;
    debug_assert!(w < M);
    let (cards, k) = order_bare::<M, PICK>(r, rng, seat, prs, ups, prized, w, order_buf);
    let held = *lens + *wons;
    let grown = if TWO { wons } else { lens };
    // SAFETY: `w < M`, and the stretch lies in `buf` (the caller's word).
    unsafe { put_under(buf, base[w], cap, *heads, held, grown, w, cards, k) };
    Ok(w)
}

/// The lane among the first `M` (lane `i` is seat `seat[i]`'s, holding lane `i` of `totals`)
/// whose seat is `leader` and holds the most cards, if there is one; `M` otherwise.
#[inline(always)]
fn leading_lane<const M: usize>(leader: u8, totals: u64, seat: &[usize; MAX_PLAYERS]) -> usize {
    let total = |i: usize| (totals >> (16 * i)) as usize & LANE;
    (0..M)
        .find(|&i| leader == seat[i] as u8 && (0..M).all(|j| total(j) <= total(i)))
        .unwrap_or(M)
}
