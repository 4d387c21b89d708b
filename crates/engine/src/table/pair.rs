//! Runs of plain battles of two seats with hands, on two lanes with the seats' policy
//! compiled in: [`pair_hands`].

use super::lane_war::{lane_war, pair_war};
use super::lanes::{
    best_lane, draw_up, fold_hands, lane_out, lane_short, order, order_prize, pick_slot,
    pick_slots, put_under, refill, refill_card, tops,
};
use super::short::{Short, short_run};
use super::{LANE, LANES_RING, NONE, Run, Shape, Stop};
use crate::block::{IN_PLACE, hand_battles_laid};
use crate::cycle::TRAIL;
use crate::rng::GameRng;
#[cfg(target_arch = "x86_64")]
use crate::rules::policy_code;
use crate::rules::{Rules, policy, policy_of};
use crate::seats::Seats;
use crate::state::MAX_PLAYERS;

/// [`plain_run`](super::plain::plain_run) with hands for two seats in the game (a 2-player game, or
/// the last two of a larger one): the same battles, draws and stops, on two lanes with the policy
/// `POLICY` (both seats', or `MIXED`), the pick-up order `PICK`, whether the ranking is `ORDERED`
/// and the hand's size `HAND` (0: read from the rules) compiled in. The general run spends most of
/// a hand battle moving its state between registers and the stack (its loops over the lanes and the
/// policy chosen per card); two hands, two heads and the generator fit in registers. With `PRIZE`,
/// each stack's top card is the prize and the one under it refills the hand. With `TWO` piles, won
/// cards go onto the won piles, and a seat's stack that has run out is turned over where it draws:
/// for its prize (every prize first), and at its refill, after its pick. A tie (one that ends a
/// vector block below too) is a war in the run where [`lane_war`] can play it (under an ordered
/// ranking [`pair_war`]: the same war, compiled for the policy and the pick-up; the lanes handed
/// over by value: a run that lent them to the call would keep them in memory). Under `on_empty =
/// lose` the run stops after a battle (or block) that leaves a stack short of the next battle, and
/// its wars are paid from the stacks alone. Otherwise, once a seat's supply (its stack, with its
/// won pile under two piles) is out, or with a prize down to one card, where the [`Shape`] lets
/// hands play short, the battles until both supplies are back are [`short_run`]'s, out of the loop,
/// so the battles with full hands carry nothing for them (they are about 3 % of the battles with
/// hands of 3). Where both seats play by one policy under an ordered ranking (with a prize or
/// without, under `speed` too), blocks of up to 16 battles (no more than either stack holds the
/// cards of, two a battle with a prize: under two piles a block turns no pile over; none past the
/// first after which an ending that counts cards may have come, [`Shape::room`], nor past the
/// next look; where loops are looked for, a block makes Brent's compare after each of its battles
/// but the last, which is compared here, with the tops, and stops after one that may match) go to
/// the block loop's [`hand_battles`](crate::block::hand_battles) on CPUs with AVX-512, while the
/// leader agrees with what the seats hold (a leader that is out of the game, or no leader while
/// they hold different counts, is first settled by a battle here). Without a prize, two piles
/// or `speed`, a block laid in place may go past the shorter stack, up to the next look or the
/// ending's bound (`reach`); such blocks are laid in place on every other CPU as well
/// ([`hand_battles_laid`], plain code), where the policy is compiled in.
#[allow(clippy::too_many_arguments)] // the run's position, handed over
#[inline(never)]
pub(super) fn pair_hands<
    const PRIZE: bool,
    const TWO: bool,
    const POLICY: u8,
    const PICK: u8,
    const ORDERED: bool,
    const HAND: usize,
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
    let policies = if POLICY == policy::MIXED {
        [r.policies[seat[0]], r.policies[seat[1]]]
    } else {
        [policy_of(POLICY); 2]
    };
    // Both seats on one policy under an ordered ranking, with a prize or without (under `speed`,
    // seat 0's grabs drawn in the block; where loops are looked for, Brent's compare made in it):
    // blocks of battles with the block loop's vector code, where the CPU has it. (Under two
    // piles `MIXED` may be one policy, not compiled in; with one pile it means two policies.)
    let (mut vector_blocks, mut in_place, mut laid) = (0u64, 0u64, 0u64);
    #[cfg(target_arch = "x86_64")]
    let blocks =
        (POLICY != policy::MIXED || TWO && policies[0] == policies[1]) && ORDERED && s.vectors();
    #[cfg(not(target_arch = "x86_64"))]
    let blocks = false;
    // Elsewhere (a CPU without that code, or it turned off), the battles of one policy compiled
    // in under an ordered ranking, with no prize, one pile and no grab, are laid in place in
    // blocks on any CPU ([`hand_battles_laid`]), as the vector code's blocks of that shape are.
    let (grabs, threshold) = shape.grab(seat);
    let lays =
        !blocks && !PRIZE && !TWO && !grabs && POLICY != policy::MIXED && ORDERED && s.lays();
    let cap = s.cap();
    debug_assert!((8..=LANES_RING).contains(&cap));
    let buf = &mut s.buf_mut()[..];
    let mask = cap - 1;
    const BOTH: u64 = 0x0001_0001;
    let wrap = BOTH * mask as u64;
    let base = [seat[0] * cap, seat[1] * cap];
    // Both stretches lie in the buffer: the reads and the store below stay inside it.
    assert!(base.iter().all(|&b| b + cap <= buf.len()));
    let (s0, s1) = (seat[0] as u8, seat[1] as u8);
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
        tort_hands,
        mut won,
        ..
    } = *run;
    debug_assert_eq!(TWO, shape.two_pile);
    // (Compiled in where `HAND` is not 0.)
    let hand = if HAND == 0 { r.hand } else { HAND };
    debug_assert!((1..=8).contains(&hand) && (HAND == 0 || HAND == r.hand));
    let mut words = [hands[0], hands[1]];
    let mut wars = run.wars;
    // `Tally::note_leader` as the duo keeps it (`duo::note`): `lead` has the sign of the last
    // non-zero margin of seat 0's cards over seat 1's (outside the hands; 0 while nobody has led;
    // only its sign is read), and a lead changes where the margin's sign flips; `leader` is written
    // from it where the run hands its position on (`settle!`). A leader out of the game (`out`)
    // stays only while the two are level: the first margin is a change then. (As `leader`, compared
    // per battle: 14 instructions a battle, `hand_policy=lowest`.) Where the run goes on after
    // `settle!`, `lead_of` reads the leader again.
    let lead_of = |leader: u8| -> (i32, bool) {
        if leader == s0 {
            (1, false)
        } else if leader == s1 {
            (-1, false)
        } else {
            (0, leader != NONE)
        }
    };
    let (mut lead, mut out) = lead_of(leader);
    macro_rules! settle {
        () => {
            if lead != 0 {
                leader = if lead > 0 { s0 } else { s1 };
                changes += u64::from(out);
            }
        };
    }
    // The generator as a local copy, written back once (as in `plain_run`).
    let mut g = rng_out.clone();
    // Hands are short only while a supply is out (which `short_run` plays first).
    debug_assert!(
        shape.short_hands && lane_short::<2, PRIZE>(lens + wons) || run.held == hand as u64 * BOTH
    );
    // Brent's count as `plain_run` keeps it: `lam`'s offset from `battles` and the battle of
    // the next look ([`Shape::looks`]), one compare a battle; `lam` is worked out once, after
    // the run (`ahead`: a battle counted whose steps are not done, where a tie or a seat out
    // stops the run).
    let (mut lam_at, mut look_at) = shape.looks(power, battles, lam);
    let mut ahead = 0;
    // The hands as one word for Brent's first compare, with the stack lengths: the lengths
    // alone match the saved position's in about a quarter of the battles of a deterministic
    // game, and a branch on them was mispredicted that often. (Only the hands' `hand` bytes
    // are cards; two words folded into one can match where the hands do not, which the
    // compare in full rejects.)
    let kept = u64::MAX >> (8 * (8 - hand));
    let hands_key = |w: [u64; 2]| fold_hands(w, kept);
    let tort_key = hands_key([tort_hands[0], tort_hands[1]]);
    // The trail's length, once here rather than at every battle's note.
    assert!(!shape.cycles || trail.len() == TRAIL);
    // After a battle that leaves both seats in the game and no ending come: as in `plain_run`,
    // the replay's hint and Brent's count against the saved position (compared in full by
    // `ring` only where lengths, hands and tops match); then the next look, or under `on_empty =
    // lose` a stack short of the next battle (out, or with a prize down to one card, its won
    // pile not counted): that battle is the general battle's ([`off_ring`](super::off_ring)).
    // The run stops there. (After a block: its last battle; the block compared the
    // others'.)
    macro_rules! look {
        () => {
            if shape.cycles {
                // SAFETY: the index is below `TRAIL`, the trail's length (asserted).
                unsafe { *trail.get_unchecked_mut(battles as usize % TRAIL) = lens as u8 };
                if (lens ^ tort) | (hands_key(words) ^ tort_key) == 0
                    && tops::<2>(buf, &base, heads, mask) == tort_tops
                {
                    break Stop::Look;
                }
            }
            if battles >= look_at || TWO && shape.lose && lane_short::<2, PRIZE>(lens) {
                break Stop::Look;
            }
        };
    }
    // The battles while a hand may be short, out of the loop: the run's position (its
    // fields named once) goes to [`short_run`] and comes back; `$tail` is its `tail`.
    macro_rules! short {
        ($tail:expr) => {
            short!($tail; heads, lens, wons, words, shuffled, battles, leader, changes, lam, wars)
        };
        ($tail:expr; $($field:ident),*) => {{
            if $tail && shape.cycles {
                // (This battle's steps are `short_run`'s.)
                lam = lam_at.wrapping_add(battles - 1);
            }
            settle!();
            let mut p = Short { $($field,)* held: run.held, bare: 0, rng: g };
            let brent = (power, tort, tort_tops);
            // SAFETY: both stretches lie in `buf` (asserted); `cap` is a power of two.
            // (Compiled for the policy where it picks by comparing the hand's values; a random
            // pick runs the instance that reads the policies, as a mixed pair does.)
            let stop = unsafe {
                if ORDERED && POLICY != policy::MIXED && POLICY != policy::RANDOM {
                    short_run::<2, PRIZE, TWO, PICK, ORDERED, POLICY>(
                        r, buf, base, cap, policies, shape, seat, brent, trail, order_buf,
                        &mut p, $tail,
                    )
                } else {
                    short_run::<2, PRIZE, TWO, PICK, ORDERED, { policy::MIXED }>(
                        r, buf, base, cap, policies, shape, seat, brent, trail, order_buf,
                        &mut p, $tail,
                    )
                }
            };
            let bare;
            Short { $($field,)* held: run.held, bare, rng: g } = p;
            (lead, out) = lead_of(leader);
            if PRIZE {
                run.bare += bare;
            }
            (lam_at, look_at) = shape.looks(power, battles, lam);
            stop
        }};
    }
    let stop = 'run: {
        // A leg may start with a seat's supply out (its hand full or not).
        if shape.short_hands
            && lane_short::<2, PRIZE>(lens + wons)
            && let Some(stop) = short!(false)
        {
            break 'run stop;
        }
        loop {
            // A tie that ended a block (vector or laid): its cards are played, the slots refilled
            // and the stacks moved on, as a battle below leaves them; its war is theirs.
            let block_tie = if blocks || lays {
                let (l0, l1) = (lens as usize & LANE, (lens >> 16) as usize & LANE);
                // (Under two piles no card is drawn from an empty stack inside a block: a stack
                // its last battle empties turns its won pile over in the next battle, below.)
                // (No further than the next look: Brent's, or the cap. With a prize a battle
                // takes two cards from each stack.)
                let step = 1 + usize::from(PRIZE);
                let reach = (look_at - battles) as usize;
                // (No further than the first battle after which an ending that counts cards
                // may have come.)
                let reach = if shape.counted {
                    reach.min(shape.room::<2>(lens + wons, battles, step))
                } else {
                    reach
                };
                // (The vector block no further than the shorter stack: the block laid in place
                // goes on to `reach`.)
                let k = (l0.min(l1) / step).min(16).min(reach);
                let (m0, m1) = if TWO {
                    (wons as usize & LANE, (wons >> 16) as usize & LANE)
                } else {
                    (0, 0)
                };
                let (t0, t1) = (l0 + m0, l1 + m1);
                // The block counts lead changes from the sign of the margin of what the seats
                // hold, which must agree with the leader (a seat out of the game, or none while
                // they differ, leads only until the next battle).
                let block_lead = (!out || lead != 0).then_some(i64::from(lead.signum()));
                let agreed =
                    block_lead.filter(|&lead| t0 == t1 || lead != 0 && (t0 > t1) == (lead > 0));
                // (With a prize, a block of two or three battles cost more than the battles
                // one by one: `hand_policy=lowest` under a cap of 1,000, 1.08× the run
                // without prize blocks at two, 0.97× at four.)
                let least = if PRIZE { 4 } else { 2 };
                // (Laid in place, each ring has room for the block's cards past its stack.)
                let laid_reach = reach.min(IN_PLACE);
                let room = |h: u64, l: usize| (h as usize & mask) + l + 2 * laid_reach + 2 <= cap;
                if k >= least
                    && (!lays || room(heads, l0) && room(heads >> 16, l1))
                    && let Some(block_lead) = agreed
                {
                    let mut hr = crate::block::HandRun {
                        heads: [heads as usize & mask, (heads >> 16) as usize & mask],
                        lens: [l0, l1],
                        wons: [m0, m1],
                        words,
                        lead: block_lead,
                        changes,
                    };
                    let b = if lays {
                        macro_rules! laid {
                            ($cycles:literal, $looks:expr) => {
                                hand_battles_laid::<PICK, POLICY, HAND, $cycles>(
                                    buf,
                                    base,
                                    hand as u32,
                                    laid_reach,
                                    &mut hr,
                                    &mut g,
                                    $looks,
                                )
                            };
                        }
                        // SAFETY: both stacks hold `k ≥ least` cards and both rings the room
                        // just checked past them, in their stretches, which lie in the buffer
                        // (asserted); hands of `hand ≤ 8` cards; the lead agrees; the trail
                        // holds `TRAIL` bytes where loops are looked for (asserted).
                        unsafe {
                            // (Deterministic rules: no draw.)
                            if POLICY != policy::RANDOM
                                && PICK != crate::rules::pick::SHUFFLED
                                && shape.cycles
                            {
                                let looks = crate::block::HandLooks {
                                    trail: &mut trail[..],
                                    battles,
                                    tort,
                                    key: tort_key,
                                    kept,
                                };
                                laid!(true, Some(looks))
                            } else {
                                laid!(false, None)
                            }
                        }
                    } else {
                        #[cfg(not(target_arch = "x86_64"))]
                        unreachable!("vector blocks off x86-64");
                        // SAFETY: `blocks` says the CPU has the vector code; `least ≤ k ≤ 16` and
                        // both stacks hold `k` cards (`2k` with a prize); `cap` is a power of two
                        // (the seats' stretches are) and both stretches lie in the buffer
                        // (asserted), each ring holding its won pile (if any) right behind its
                        // stack; hands of `hand ≤ 8` cards; the lead agrees.
                        #[cfg(target_arch = "x86_64")]
                        unsafe {
                            // (Under `speed` with seat 0's grab compiled in: a test for it in the
                            // block measured 4 % on hands without speed.)
                            use crate::block::{HandLooks, hand_battles};
                            macro_rules! battles {
                                ($policy:expr) => {
                                    if grabs {
                                        battles!($policy, true, false, None)
                                    } else if $policy != policy::RANDOM
                                        && PICK != crate::rules::pick::SHUFFLED
                                        && shape.cycles
                                    {
                                        // (Deterministic rules: no grab, no draw.)
                                        let looks = HandLooks {
                                            trail: &mut trail[..],
                                            battles,
                                            tort,
                                            key: tort_key,
                                            kept,
                                        };
                                        battles!($policy, false, true, Some(looks))
                                    } else {
                                        battles!($policy, false, false, None)
                                    }
                                };
                                ($policy:expr, $speed:literal, $cycles:literal, $looks:expr) => {
                                    hand_battles::<
                                        PICK,
                                        PRIZE,
                                        TWO,
                                        { $policy },
                                        HAND,
                                        $speed,
                                        $cycles,
                                    >(
                                        buf,
                                        base,
                                        cap,
                                        hand as u32,
                                        k,
                                        threshold,
                                        shape.layered,
                                        &mut hr,
                                        &mut g,
                                        $looks,
                                        reach,
                                    )
                                };
                            }
                            // (Under `MIXED`, both seats' policy, read per run.)
                            let code = if POLICY == policy::MIXED {
                                policy_code(policies[0])
                            } else {
                                POLICY
                            };
                            match code {
                                policy::RANDOM => battles!(policy::RANDOM),
                                policy::HIGHEST => battles!(policy::HIGHEST),
                                policy::LOWEST => battles!(policy::LOWEST),
                                _ => battles!(policy::MEDIAN),
                            }
                        }
                    };
                    heads = hr.heads[0] as u64 | (hr.heads[1] as u64) << 16;
                    lens = hr.lens[0] as u64 | (hr.lens[1] as u64) << 16;
                    if TWO {
                        wons = hr.wons[0] as u64 | (hr.wons[1] as u64) << 16;
                    }
                    words = hr.words;
                    changes = hr.changes;
                    // (The last non-zero sign, or 0 where nobody has led yet.)
                    lead = hr.lead.signum() as i32;
                    battles += b.played as u64;
                    if lays {
                        laid += 1;
                    } else {
                        vector_blocks += 1;
                        in_place += u64::from(b.in_place);
                    }
                    if b.tie.is_none() {
                        // (A seat with no stack left under two piles has its won pile to turn
                        // over, in the next battle. With a prize, a seat down to one card is
                        // out of the run, as below.)
                        let out = |p: usize| hr.lens[p] + if TWO { hr.wons[p] } else { 0 } < step;
                        if out(0) || out(1) || shape.may_end::<2>(lens + wons, battles) {
                            // A seat out of its supply plays on short hands where it may, the
                            // block's last battle's steps after it included, as after a battle
                            // below (the block noted that battle's lead, which `short_run`'s
                            // note of it then leaves as it is).
                            if shape.short_hands && !lane_out::<2>(lens + wons + run.held) {
                                match short!(true) {
                                    Some(stop) => break stop,
                                    None => continue,
                                }
                            }
                            let w = (b.won1 >> (b.played - 1)) as usize & 1;
                            // (The last battle's Brent step is the table's, as below.)
                            ahead = 1;
                            break Stop::Check(seat[w]);
                        }
                        look!();
                        continue;
                    }
                    b.tie
                } else {
                    None
                }
            } else {
                None
            };
            let (ups, top0, top1, best) = if let Some([up0, up1, pr0, pr1]) = block_tie {
                // (With a prize, the tie's prizes are what the war needs of the tops.)
                (
                    u64::from(up0) | u64::from(up1) << 8,
                    u64::from(pr0),
                    u64::from(pr1),
                    0b11,
                )
            } else {
                battles += 1;
                let (top0, top1, up0, up1);
                if TWO {
                    // With a prize, each seat's first, from its stack (turned over where it has run
                    // out); then each seat picks its card and refills the slot from its stack,
                    // which turns its won pile over first where it has run out (the general draw's
                    // order: seat 0's pick and refill, then seat 1's).
                    let (mut top, mut ups) = ([0u64; 2], [0u64; 2]);
                    let mut prizes = [0u64; 2];
                    // Seat 0, then seat 1, written out: a loop over the seats kept the hands
                    // and cards in arrays on the stack, indexed by the seat.
                    macro_rules! seats {
                        ($step:ident) => {
                            $step!(0);
                            $step!(1);
                        };
                    }
                    // Seat `i`'s next card from its stack (its won pile turned over first where
                    // the stack is out), the turn-over counted.
                    macro_rules! draw {
                        ($i:literal) => {{
                            let (h, l, m) = (&mut heads, &mut lens, &mut wons);
                            // SAFETY: the stretch at `base[i]` lies in `buf` (asserted).
                            let (turned, card) = unsafe {
                                refill_card(buf, base[$i], cap, $i, h, l, m, shape.shuffles, &mut g)
                            };
                            shuffled += turned;
                            card
                        }};
                    }
                    macro_rules! prize {
                        ($i:literal) => {
                            prizes[$i] = draw!($i);
                            heads = (heads + (1 << (16 * $i))) & wrap;
                            lens -= 1 << (16 * $i);
                        };
                    }
                    // Seat `i`'s face-up card from slot `slot`, the slot refilled.
                    macro_rules! play {
                        ($i:literal, $slot:expr) => {
                            top[$i] = draw!($i);
                            (ups[$i], words[$i]) = refill(words[$i], $slot, top[$i]);
                        };
                    }
                    macro_rules! face_up {
                        ($i:literal) => {
                            let slot =
                                pick_slot::<ORDERED>(r, policies[$i], hand, words[$i], &mut g);
                            play!($i, slot);
                        };
                    }
                    if PRIZE {
                        seats!(prize);
                    }
                    // Both picks first where seat 0's refill draws nothing (its stack is not out,
                    // or a won pile turns over unshuffled; under `on_empty = lose` none turns
                    // over): the same draws as in that order, two random picks from one step.
                    if !shape.shuffles || lens & LANE as u64 != 0 {
                        let [slot0, slot1] =
                            pick_slots::<ORDERED>(r, policies, hand, words, &mut g);
                        play!(0, slot0);
                        play!(1, slot1);
                    } else {
                        seats!(face_up);
                    }
                    // (With a prize, the prizes are what the battle needs of the tops.)
                    [top0, top1] = if PRIZE { prizes } else { top };
                    [up0, up1] = ups;
                } else {
                    let (h0, h1) = (heads as usize & mask, (heads >> 16) as usize & mask);
                    // SAFETY: `h < cap` and each stretch `b .. b + cap` lies in `buf` (asserted).
                    (top0, top1) = unsafe {
                        (
                            u64::from(*buf.get_unchecked(base[0] + h0)),
                            u64::from(*buf.get_unchecked(base[1] + h1)),
                        )
                    };
                    // With a prize, the top card is the prize and the one under it refills the
                    // hand.
                    let (fill0, fill1) = if PRIZE {
                        // SAFETY: as above, the positions masked into the stretches.
                        unsafe {
                            (
                                u64::from(*buf.get_unchecked(base[0] + ((h0 + 1) & mask))),
                                u64::from(*buf.get_unchecked(base[1] + ((h1 + 1) & mask))),
                            )
                        }
                    } else {
                        (top0, top1)
                    };
                    let (word0, word1);
                    (up0, word0) =
                        draw_up::<ORDERED>(r, policies[0], hand, words[0], fill0, &mut g);
                    (up1, word1) =
                        draw_up::<ORDERED>(r, policies[1], hand, words[1], fill1, &mut g);
                    words = [word0, word1];
                }
                let ups = up0 | up1 << 8;
                // (Under two piles the prizes are taken already.)
                let moved = if PRIZE && !TWO { 2 * BOTH } else { BOTH };
                heads = (heads + moved) & wrap;
                lens -= moved;
                let best = best_lane::<2, ORDERED>(r, ups);
                let best = if grabs && g.next_u64() < threshold {
                    1
                } else {
                    best
                };
                (ups, top0, top1, best)
            };
            let w;
            if best == 0b11 {
                // The war between the two is played here where both can play it in full, or
                // with one pile where hands may play short (`pair_war`); else it is
                // `hand_war`'s, from its start.
                let prs = if PRIZE { top0 | top1 << 8 } else { 0 };
                // (Under an ordered ranking, `pair_war`: `lane_war` for two seats with hands.)
                let war = if shape.lane_wars {
                    let lanes = (heads, lens, wons, words);
                    // SAFETY: both stretches lie in `buf` (asserted); `cap` is a power of two.
                    unsafe {
                        if ORDERED {
                            pair_war::<PICK, PRIZE, TWO, POLICY, HAND>(
                                r,
                                buf,
                                base,
                                cap,
                                lanes,
                                &g,
                                policies,
                                shape.shuffles,
                                !shape.lose,
                                prs,
                                ups,
                                shape.short_hands.then_some(&mut run.held),
                                order_buf,
                            )
                        } else {
                            lane_war::<2, true, PRIZE, TWO, ORDERED>(
                                r,
                                buf,
                                base,
                                cap,
                                lanes,
                                g.clone(),
                                policies,
                                shape.shuffles,
                                !shape.lose,
                                0b11,
                                prs,
                                ups,
                                order_buf,
                            )
                        }
                    }
                } else {
                    None
                };
                let Some(war) = war else {
                    ahead = 1;
                    break Stop::tie::<2>(seat, 0b11, prs, ups);
                };
                (heads, lens, wons, words) = (war.heads, war.lens, war.wons, war.words);
                g = war.rng;
                w = war.winner;
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
                // Lane 1 won if its bit is the one set.
                w = usize::from(best >> 1);
                let (cards, k) = if PRIZE {
                    let prs = top0 | top1 << 8;
                    (
                        order_prize::<2, PICK>(&mut g, prs, ups, w, shape.layered),
                        4,
                    )
                } else {
                    (order::<2, PICK>(&mut g, ups, w), 2)
                };
                // The won cards go under the stack, or under two piles onto the won pile (`wons`
                // is zero with one pile).
                let mut grown = if TWO { wons } else { lens };
                // SAFETY: both stretches lie in `buf` (asserted).
                unsafe {
                    put_under(
                        buf,
                        base[w],
                        cap,
                        heads,
                        lens + wons,
                        &mut grown,
                        w,
                        cards,
                        k,
                    )
                };
                (lens, wons) = if TWO { (lens, grown) } else { (grown, wons) };
            }
            // A seat that cannot refill its hand (after a prize) stops the run, or with short
            // hands goes on in `short_run`.
            let totals = lens + wons;
            let (l0, l1) = (totals & LANE as u64, (totals >> 16) & LANE as u64);
            let need = 1 + u64::from(PRIZE);
            if l0 < need || l1 < need || shape.may_end::<2>(totals, battles) {
                // A seat out of its supply plays on short hands where it may, this battle's
                // steps after it included.
                if !shape.short_hands {
                    ahead = 1;
                    break Stop::Check(seat[w]);
                }
                // A war played short (`short_pair_war`) may have left its loser out of cards
                // (its stack out: it is here).
                if lane_out::<2>(totals + run.held) {
                    ahead = 1;
                    break Stop::Check(seat[w]);
                }
                match short!(true) {
                    Some(stop) => break stop,
                    None => continue,
                }
            }
            // (Hands are full and the same size: the cards outside them decide the lead.)
            // (Each of `margin` and `lead` at most the 2^15 cards a ring holds: their product
            // fits.)
            let margin = l0 as i32 - l1 as i32;
            changes += u64::from(((margin * lead) as u32) >> 31);
            lead = if margin != 0 { margin } else { lead };
            look!();
        }
    };
    if shape.cycles {
        // (Through `black_box`, as in `plain_run`: else the compiler keeps `lam_at + battles`
        // as a second count through the loop.)
        lam = lam_at.wrapping_add(std::hint::black_box(battles) - ahead);
    }
    settle!();
    s.count_hand_blocks(vector_blocks, in_place, laid, shape.cycles);
    hands[..2].copy_from_slice(&words);
    *rng_out = g;
    run.heads = heads;
    run.lens = lens;
    run.wons = wons;
    run.shuffled = shuffled;
    run.battles = battles;
    run.leader = leader;
    run.changes = changes;
    run.lam = lam;
    run.wars = wars;
    run.won = won;
    stop
}
