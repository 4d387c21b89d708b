//! The block loop: a 2-player game's battles sixteen at a time, with AVX-512 (x86-64, chosen
//! at run time; the two-seat loop, [`crate::duo`], plays the same games everywhere else).
//!
//! Between two wars the game needs no decisions: battle `i` compares the `i`-th cards of the two
//! stacks, and the two cards go behind every card the winner holds now (under its stack, or
//! onto its won pile with two piles). So the next `min(l0, l1)` battles, up to the first tie,
//! depend only on cards already in the stacks (no more than one after which an ending that
//! counts cards may have come), and a block plays them together:
//! - one compare of sixteen cards against sixteen finds the first tie and every winner (under a
//!   beats-table ranking, two byte permutes look the sixteen outcomes up);
//! - the pairs are laid side by side (each turned round where the pick-up order says so) and
//!   each seat's winnings are packed into place with one compress and one store;
//! - the lead changes come from the running margin, computed for all sixteen battles at once
//!   from prefix population counts of the winner mask.
//!
//! With two piles a block ends where a stack runs out, and the next battle first takes the won
//! pile as the general draw does: turned over where it lies, shuffled there, or (`on_empty =
//! lose`) the player is out. With a prize ([`x86::run_prize`]) a battle is two cards of each
//! stack: one compare of the sixteen face-up cards finds the first tie. The battles before it
//! have their cards laid in the pick-up order by byte shuffles (under the shuffled pick-up
//! their 4-card shuffles' orders, drawn one battle at a time; the fixed orders from the winner
//! mask, or sorted by a network of compare-exchanges) and packed behind the winners' stacks
//! (or won piles) as above. With two piles a stack of one card gives it as the prize and takes
//! its won pile under it first. Under `speed` seat 0 grabs a battle, tie or not, when its draw
//! says so: a block draws the grabs battle by battle (with a prize, each before that battle's
//! shuffle) up to the first tie not grabbed, and the grabbed battles are seat 0's.
//!
//! Where nothing is random, loops are looked for as the two-seat loop looks: Brent's saves, and
//! a position compared in full only where seat 0's count and both top cards are the saved one's
//! (an empty stack's top as 256; with two piles the two-seat loop takes the stacks' lengths).
//! The positions inside a block are the stacks moved on by a battle, so their top cards are the
//! block's next cards (with a prize, the next prizes): one compare of each seat's sixteen against
//! the saved top card finds where a block must stop for a look (`Looks`). The loop's start
//! is then found by the two-seat loop's replays ([`duo::finish`]).
//!
//! The table loop borrows the same idea for two seats' hand battles where both play by the
//! same policy ([`hand_battles`]): each battle's picks (and draws) are made in turn with the
//! hands followed in a register (where loops are looked for, with Brent's compare of the
//! stack lengths and hands after each battle), and the block's cards are then laid and packed
//! behind everything the winners hold (on the table's rings, onto the won piles with two) at
//! once; with a prize, four cards a battle laid as the prize block lays them. Without a prize,
//! two piles or a grab, a block may instead lay each battle's two cards as it is won
//! ([`hand_battles_in_place`]): plain code, which the table loop calls on every CPU without
//! AVX-512 too ([`hand_battles_laid`]).
//!
//! The stacks are linear stretches, not rings: a store of up to 64 bytes behind a tail never
//! wraps. They slide forward as they are played and move back to the front when a head passes
//! [`SLIDE`]. A tie goes to the two-seat loops' [`war`](crate::duo::war), the general loop's.
//! Every draw is made in the same order as battle by battle (the pick-up bits of a block taken
//! from the same buffer as one `bit()` per battle), so every game, record and draw is
//! identical to the general loop's (a property test compares the loops game for game).

use crate::cycle::{self, Position, Saves, TRAIL};
use crate::duo::{self, Finish, War};
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{
    Compare, OnEmpty, Pickup, Rules, choose_ordered, pick, pick_of, policy, policy_of,
};
use crate::seats::{SLIDE, SMALL_CAP, SMALL_DECK, Seats};
use crate::state::{End, Scratch, Tally};

/// Whether this CPU has every instruction the block loop uses. Asked once a game (the block
/// loop's soundness rests on it): the nine features' answer is kept, one load after the first.
pub(crate) fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(detect)
}

/// [`available`]'s question, put to the CPU.
fn detect() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vbmi")
            && std::is_x86_feature_detected!("avx512vbmi2")
            && std::is_x86_feature_detected!("avx512bitalg")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("bmi1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the block loop can play these rules: two seats without hands, a card against a card
/// or a prize and a card, with one pile or two, under an ordered ranking or a beats-table one
/// of at most 16 values (the sixteen battles' outcomes looked up in [`duo::duel_table`] at
/// once), with `speed` (seat 0's grabs drawn battle by battle) or without, in any pick-up
/// order; with loop detection where nothing is random; a deck of at most [`SMALL_DECK`] cards.
/// Every ending plays: a block is cut short where a card-counting one (`target_cards`,
/// `min_cards`) could come before its last battle, and `wars_to_win` is looked at after each
/// war. Wars of any kind go to the two-seat loops' war.
pub(crate) fn plays(r: &Rules) -> bool {
    duo::plays(r)
        && match r.compare {
            Compare::Ordered => true,
            Compare::Table { values, .. } => values <= 16,
        }
        && r.cards.total() <= SMALL_DECK
}

#[cfg(target_arch = "x86_64")]
pub(crate) fn run(
    r: &Rules,
    s: &mut Seats,
    t: &mut Scratch,
    duel: &[u8],
    saves: &mut Saves<Seats>,
    tally: Tally,
    rng: &mut GameRng,
) -> GameRecord {
    // What soundness needs is checked every game (the features, the stretches; `run_with` and
    // `run_prize` check the deck's size); the rest of `plays()` only in debug builds: it was
    // 0.25 % of a two-pile game's time, 2 % of a 21-battle one's.
    assert!(
        available() && s.cap() == SMALL_CAP,
        "the block loop runs only where `available()` said yes"
    );
    debug_assert!(
        plays(r),
        "the block loop runs only where `plays()` said yes"
    );
    // SAFETY: `available()` found every feature these enable.
    unsafe {
        // (Compiled in: whether an ending counts cards, which bounds each block, or wars.)
        let counted = r.target_cards.is_some() || r.min_cards.is_some() || r.wars_to_win.is_some();
        let table = !duel.is_empty();
        let two = r.two_pile.is_some();
        // Every combination of three flags compiled in, each named (as const generics need):
        // `$call!(args…, a, b, c)` for the flags' values at run time.
        macro_rules! flags {
            ($call:ident!($($args:tt)*), $a:expr, $b:expr, $c:expr) => {
                match ($a, $b, $c) {
                    (true, true, true) => $call!($($args)* true, true, true),
                    (true, true, false) => $call!($($args)* true, true, false),
                    (true, false, true) => $call!($($args)* true, false, true),
                    (true, false, false) => $call!($($args)* true, false, false),
                    (false, true, true) => $call!($($args)* false, true, true),
                    (false, true, false) => $call!($($args)* false, true, false),
                    (false, false, true) => $call!($($args)* false, false, true),
                    (false, false, false) => $call!($($args)* false, false, false),
                }
            };
        }
        macro_rules! run_prize {
            ($pick:expr, $two:expr, $c:expr, $t:expr) => {
                x86::run_prize::<{ $pick }, $two, $c, $t>(r, s, t, duel, saves, tally, rng)
            };
        }
        macro_rules! prize {
            ($pick:expr) => {
                flags!(run_prize!($pick,), two, counted, table)
            };
        }
        if r.prize {
            return match pick_of(r.pickup) {
                pick::SHUFFLED => prize!(pick::SHUFFLED),
                pick::SEAT => prize!(pick::SEAT),
                pick::WINNER => prize!(pick::WINNER),
                pick::LOSER => prize!(pick::LOSER),
                pick::DESC => prize!(pick::DESC),
                _ => prize!(pick::ASC),
            };
        }
        let speed = r.speed.is_some();
        // Loops are looked for where nothing is random (never under speed or a shuffled
        // pick-up): compiled in, as the classic shape measured 2 % slower with the looks asked
        // at run time.
        let loops = r.detects_cycles();
        macro_rules! go {
            ($pick:expr, $two:expr, $c:expr, $t:expr, $s:expr) => {
                if $pick != 0 && loops {
                    x86::run_with::<$pick, $two, $c, $t, false, true>(
                        r, s, t, duel, saves, tally, rng,
                    )
                } else {
                    x86::run_with::<$pick, $two, $c, $t, $s, false>(
                        r, s, t, duel, saves, tally, rng,
                    )
                }
            };
        }
        macro_rules! with {
            ($pick:expr, $two:expr) => {
                flags!(go!($pick, $two,), counted, table, speed)
            };
        }
        // The orders by rank: under an ordered ranking without speed the higher card is the
        // winner's, and they are winner- and loser-first (2, 3); under a beats-table ranking or
        // speed the lower card can win, and they are their own (4, 5).
        macro_rules! by_rank {
            ($pick:expr, $same:expr, $two:expr) => {
                if table || speed {
                    with!($pick, $two)
                } else {
                    with!($same, $two)
                }
            };
        }
        match (pick_of(r.pickup), two) {
            (pick::SHUFFLED, false) => with!(0, false),
            (pick::SEAT, false) => with!(1, false),
            (pick::WINNER, false) => with!(2, false),
            (pick::LOSER, false) => with!(3, false),
            (pick::DESC, false) => by_rank!(4, 2, false),
            (_, false) => by_rank!(5, 3, false),
            (pick::SHUFFLED, true) => with!(0, true),
            (pick::SEAT, true) => with!(1, true),
            (pick::WINNER, true) => with!(2, true),
            (pick::LOSER, true) => with!(3, true),
            (pick::DESC, true) => by_rank!(4, 2, true),
            (_, true) => by_rank!(5, 3, true),
        }
    }
}

/// Where a two-seat hand run of the table loop stands: each seat's stack (its ring's head and
/// length) and won pile (its length, behind the stack; 0 with one pile), its hand (slot `i` in
/// byte `i`), the last non-zero margin of what the seats hold (only its sign is read: seat 0
/// leads, seat 1, or nobody yet), and the lead changes.
pub(crate) struct HandRun {
    pub(crate) heads: [usize; 2],
    pub(crate) lens: [usize; 2],
    pub(crate) wons: [usize; 2],
    pub(crate) words: [u64; 2],
    pub(crate) lead: i64,
    pub(crate) changes: u64,
}

/// What a block of hand battles ended with: the battles played (a tie included), the cards of
/// a tie that ended it (seat 0's and seat 1's face-up cards, then, with a prize, their prizes;
/// zero without one), the battles seat 1 won (bit `i` for battle `i`; up to 64 battles), and
/// whether they were laid in place.
pub(crate) struct HandBlock {
    pub(crate) played: usize,
    pub(crate) tie: Option<[u8; 4]>,
    pub(crate) won1: u64,
    pub(crate) in_place: bool,
}

/// Brent's compare in a block of hand battles where loops are looked for (`CYCLES` of
/// [`hand_battles_in_place`] and the vector blocks, `hand_battles`), as the table loop's [`pair_hands`](crate::table) makes it
/// after every battle: the replay's hint in `trail` at the battle's count, and the stack
/// lengths (`tort`, lane 0's in the low 16 bits) and hands (`key`, the words folded by `kept`,
/// [`fold_hands`](crate::table::fold_hands)) of the saved position.
pub(crate) struct HandLooks<'a> {
    pub(crate) trail: &'a mut [u8],
    pub(crate) battles: u64,
    pub(crate) tort: u64,
    pub(crate) key: u64,
    pub(crate) kept: u64,
}

impl HandLooks<'_> {
    /// Brent's compare after a block's battle `done` (counted from 1; not its last): the
    /// replay's hint in the trail, then whether the stack lengths `lens` (lane 0's in the low
    /// 16 bits) and the hands `words` may match the saved position's.
    ///
    /// # Safety
    /// The trail holds `TRAIL` bytes.
    #[inline(always)]
    unsafe fn may_match(&mut self, done: usize, lens: u64, words: [u64; 2]) -> bool {
        let at = (self.battles + done as u64) as usize % TRAIL;
        // SAFETY: the index is below `TRAIL`, the trail's length (the caller's word).
        unsafe { *self.trail.get_unchecked_mut(at) = lens as u8 };
        (lens ^ self.tort) | (crate::table::fold_hands(words, self.kept) ^ self.key) == 0
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::hand_battles;

/// One hand battle's picks for both seats: the policy's pick (or draw, seat 0's then seat
/// 1's) from each hand `w0`, `w1` of `hand` cards, the card in that slot played and the slot
/// refilled from the stack's top (`table::draw_up`): the face-up cards and the hands after.
#[inline(always)]
fn play_hands<const POLICY: u8>(
    g: &mut GameRng,
    hand: u32,
    (w0, w1): (u64, u64),
    (top0, top1): (u64, u64),
) -> (u8, u8, u64, u64) {
    let (slot0, slot1) = if POLICY == policy::RANDOM {
        g.below_pair(hand, hand)
    } else {
        let pick = |w: u64| choose_ordered(policy_of(POLICY), w, hand as usize) as u32;
        (pick(w0), pick(w1))
    };
    let (at0, at1) = (8 * slot0, 8 * slot1);
    (
        (w0 >> at0) as u8,
        (w1 >> at1) as u8,
        w0 & !(0xFF << at0) | top0 << at0,
        w1 & !(0xFF << at1) | top1 << at1,
    )
}

/// The most battles [`hand_battles_in_place`] plays in one call (one bit each of a word).
pub(crate) const IN_PLACE: usize = 64;

/// Two seats' hand battles without a prize, a second pile or a grab, on one policy `POLICY`
/// (not `MIXED`) under an ordered ranking and the pick-up order `PICK`, as the table loop's
/// [`pair_hands`](crate::table) plays them (`reach`: at most that many battles, `1 ≤ reach ≤
/// IN_PLACE`; with `CYCLES`, Brent's compare after each battle but the last as `pair_hands`
/// makes it, `looks`): each battle's two cards laid under the winner's stack as it is won, in
/// the ring. So a stack may come to play a card it won in the same block, and the block runs
/// to its first tie (one battle in about 17.5 under `hand=3`), `reach`, or a stack out. The
/// same battles, draws and counts. Where the CPU has AVX-512 it is one of [`hand_battles`]'
/// ways (`VECTOR`: the lead changes counted sixteen battles at a time by the vector code),
/// where the vector block lays a block's cards at its end and stops at the shorter stack's:
/// `hand=3` played blocks of 7.7 battles on average there, 6.0 under `hand_policy=lowest,lowest`,
/// and each block's end cost about 85 cycles (blocks of at most four battles made `hand=3` 3.4
/// ns a battle slower). On any other CPU the table loop calls it without `VECTOR`
/// ([`hand_battles_laid`]), the lead changes counted battle by battle.
///
/// # Safety
/// With `VECTOR`, the CPU must have what [`available`] asks for. Each stack holds at least one
/// card and its hand `hand ≤ 8` cards, and each ring has `2 · reach + 2` bytes of room past
/// its stack before the end of its stretch (`heads[p] + lens[p] + 2 reach + 2 ≤ cap`), which
/// lies in `buf`; the lead agrees with what the seats hold.
#[inline(always)]
unsafe fn hand_battles_in_place<
    const PICK: u8,
    const POLICY: u8,
    const HAND: usize,
    const CYCLES: bool,
    const VECTOR: bool,
>(
    buf: &mut [u8],
    base: [usize; 2],
    hand: u32,
    reach: usize,
    run: &mut HandRun,
    rng: &mut GameRng,
    mut looks: Option<HandLooks<'_>>,
) -> HandBlock {
    debug_assert!((1..=IN_PLACE).contains(&reach) && run.lens.iter().all(|&l| l >= 1));
    debug_assert!(POLICY != policy::MIXED);
    // (Deterministic rules only: no draw.)
    debug_assert!(!CYCLES || POLICY != policy::RANDOM && PICK != pick::SHUFFLED);
    debug_assert_eq!(CYCLES, looks.is_some());
    let hand = if HAND == 0 { hand } else { HAND as u32 };
    let [h0, h1] = run.heads;
    let [len0, len1] = run.lens;
    // Each stack from its head at the block's start: battle `done` reads its top at `done`,
    // and the cards it won go at its end, `e0` (`e1`); it is out where its end is `done`.
    // SAFETY: each stretch lies in `buf`, and every place read or written below lies
    // before `h + len + 2 reach + 2 ≤ cap` in it (the caller's word).
    let (s0, s1) = unsafe {
        let ring = buf.as_mut_ptr();
        (ring.add(base[0] + h0), ring.add(base[1] + h1))
    };
    let (mut e0, mut e1) = (len0, len1);
    let [mut w0, mut w1] = run.words;
    let mut g = rng.clone();
    let (mut won1, mut done, mut tie) = (0u64, 0usize, None);
    // Without `VECTOR`, the lead as `pair_hands` keeps it: the last non-zero margin (`e0 -
    // e1`, as the hands are full), a change where its sign flips.
    let (mut lead, mut changes) = (run.lead, 0u64);
    while done < reach {
        // SAFETY: `done < e0, e1`: cards of the stacks, inside their rooms.
        let (top0, top1) = unsafe { (u64::from(*s0.add(done)), u64::from(*s1.add(done))) };
        let (up0, up1);
        (up0, up1, w0, w1) = play_hands::<POLICY>(&mut g, hand, (w0, w1), (top0, top1));
        if up0 == up1 {
            tie = Some([up0, up1, 0, 0]);
            break;
        }
        // Under an ordered ranking with no grab the higher card wins.
        let w = usize::from(up1 > up0);
        // Seat 1's card first where `swap` says so (as `laid_pairs` lays them): the
        // pick-up of `table::order::<2, PICK>` (the table loop's battle), written for two
        // cards whose winner is known. (Calling `order` here measured 1–5 % slower:
        // `hand_policy=highest` 0.62 → 0.65 s of `loop_instr`.)
        let swap = match PICK {
            pick::SHUFFLED => g.bit(),
            pick::SEAT => false,
            // (The winner's card is the higher one.)
            pick::WINNER | pick::DESC => w == 1,
            _ => w == 0,
        };
        let (ab, ba) = (
            u16::from(up0) | u16::from(up1) << 8,
            u16::from(up1) | u16::from(up0) << 8,
        );
        let pair = if swap { ba } else { ab };
        // Written under both stacks, which costs less than choosing one: the loser's two
        // bytes lie past its cards, where its next win writes over them.
        // SAFETY: `e ≤ len + 2 done` and `done < reach`: inside the rooms.
        unsafe {
            s0.add(e0).cast::<u16>().write_unaligned(pair);
            s1.add(e1).cast::<u16>().write_unaligned(pair);
        }
        e0 += 2 - 2 * w;
        e1 += 2 * w;
        won1 |= (w as u64) << done;
        done += 1;
        if !VECTOR {
            // (Each of `margin` and `lead` at most the 2^15 cards a ring holds.)
            let margin = e0 as i64 - e1 as i64;
            changes += u64::from(margin * lead < 0);
            lead = if margin != 0 { margin } else { lead };
        }
        if e0 == done || e1 == done {
            break;
        }
        // Brent's compare after each battle but the block's last, as `hand_battles` makes
        // it (the last, and one after which a stack is out, are the caller's).
        if CYCLES
            && done < reach
            && let Some(looks) = looks.as_mut()
        {
            let lens = (e0 - done) as u64 | ((e1 - done) as u64) << 16;
            // SAFETY: the trail holds `TRAIL` bytes (the caller asserted it).
            if unsafe { looks.may_match(done, lens, [w0, w1]) } {
                break;
            }
        }
    }
    *rng = g;
    run.words = [w0, w1];
    #[cfg(target_arch = "x86_64")]
    if VECTOR {
        // The lead changes, sixteen battles at a time as the vector block counts them.
        let mut before = len0 as i64 - len1 as i64;
        let mut from = 0;
        while from < done {
            let n = (done - from).min(16);
            let km = (1u32 << n) - 1;
            let w1 = (won1 >> from) as u32 & km;
            let w0 = !w1 & km;
            // SAFETY: the CPU has the vector code (the caller's word, with `VECTOR`).
            changes += unsafe { x86::block_changes::<0>(w0, km, before, lead) };
            before += 2 * (i64::from(w0.count_ones()) - i64::from(w1.count_ones()));
            lead = x86::lead_after(before, w1, n as u32);
            from += n;
        }
        debug_assert_eq!(before, (e0 - done) as i64 - (e1 - done) as i64);
    }
    run.changes += changes;
    run.lead = lead;
    // (A tied battle's cards were played and the slots refilled.)
    let played = done + usize::from(tie.is_some());
    run.lens = [e0 - played, e1 - played];
    // (No head wraps around its ring: each stays below `cap`.)
    run.heads = [h0 + played, h1 + played];
    HandBlock {
        played,
        tie,
        won1,
        in_place: true,
    }
}

/// [`hand_battles_in_place`] on any CPU, out of line: the table loop's two-seat hand runs
/// play their battles so where the vector blocks are not played.
///
/// # Safety
/// As [`hand_battles_in_place`]'s, without the CPU's.
#[inline(never)]
pub(crate) unsafe fn hand_battles_laid<
    const PICK: u8,
    const POLICY: u8,
    const HAND: usize,
    const CYCLES: bool,
>(
    buf: &mut [u8],
    base: [usize; 2],
    hand: u32,
    reach: usize,
    run: &mut HandRun,
    rng: &mut GameRng,
    looks: Option<HandLooks<'_>>,
) -> HandBlock {
    // SAFETY: the caller's word; without `VECTOR` no vector code runs.
    unsafe {
        hand_battles_in_place::<PICK, POLICY, HAND, CYCLES, false>(
            buf, base, hand, reach, run, rng, looks,
        )
    }
}

// The stretches hold a stack slid up to `SLIDE`, every card of the deck, and the widest store
// past a tail (the prize block's 64 bytes).
const _: () = assert!(SLIDE + SMALL_DECK + 64 <= SMALL_CAP);

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// Lane `i`: the battles `0..=i` of a block, as a bit mask.
    static UPTO: [u16; 16] = {
        let mut m = [0u16; 16];
        let mut i = 0;
        while i < 16 {
            m[i] = ((2u32 << i) - 1) as u16;
            i += 1;
        }
        m
    };

    /// Lane `i`: the change of the margin `2 * t0 - total` (seat 0's cards `t0`) if seat 0 lost
    /// battles `0..=i`.
    static LOSSES: [i16; 16] = {
        let mut m = [0i16; 16];
        let mut i = 0;
        while i < 16 {
            m[i] = 2 * (i as i16 + 1);
            i += 1;
        }
        m
    };

    /// The block loop for one pick-up order of a plain battle: 0 shuffled (a random bit per
    /// battle), 1 by seat (seat 0's card first), 2 the winner's card first, 3 the loser's, 4
    /// the higher card first, 5 the lower (where the lower card can win, not 2 and 3); with
    /// `TWO`, won cards go onto won piles, and a stack that runs out takes its won pile at the
    /// start of the next battle (turned over where it lies, shuffled there, or the player out,
    /// by `on_empty`). With `COUNTED` (an ending that counts cards, or `wars_to_win`), a block
    /// plays no further than the first battle after which an ending that counts cards could
    /// have come ([`counted_room`]), and the endings are asked after each war.
    /// With `TABLE` the outcomes come from the beats-table ranking's `duel` ([`duel_outcomes`]).
    /// With `SPEED`, seat 0 grabs a battle's cards before they are compared when a draw falls
    /// below the rules' threshold (a draw every battle, before its pick-up bit): a grabbed
    /// battle is seat 0's, a tie or not. With `LOOPS` (nothing random), loops are looked for
    /// ([`Looks`]) and a game that loops or reaches the safety cap ends in the replays of
    /// [`duo::finish`].
    ///
    /// # Safety
    /// The CPU must have the features enabled here ([`super::available`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512bitalg")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1")]
    pub(super) unsafe fn run_with<
        const PICKUP: u8,
        const TWO: bool,
        const COUNTED: bool,
        const TABLE: bool,
        const SPEED: bool,
        const LOOPS: bool,
    >(
        r: &Rules,
        s: &mut Seats,
        t: &mut Scratch,
        duel: &[u8],
        saves: &mut Saves<Seats>,
        mut tally: Tally,
        rng: &mut GameRng,
    ) -> GameRecord {
        let cap = r.battle_cap() as u32;
        let (mut h0, mut h1) = (s.h[0], s.h[1]);
        // The stacks and, with two piles, the won piles right behind them. With one pile a
        // stack is all its seat's cards: between blocks seat 1's is `total - l0`.
        let (mut l0, mut l1) = (s.l[0], s.l[1]);
        let (mut m0, mut m1) = if TWO { (s.m[0], s.m[1]) } else { (0, 0) };
        let total = l0 + l1 + m0 + m1;
        assert!(total <= SMALL_DECK && (TWO || s.m == [0; 4]) && h0 < SLIDE && h1 < SLIDE);
        let (lo, hi) = end_bounds::<COUNTED>(r, total);
        let outcomes = outcome_registers::<TABLE>(duel);
        let speed = r.speed.unwrap_or(0);
        // Seat 0's cards.
        let held = |l0: usize, m0: usize| if TWO { l0 + m0 } else { l0 };
        let first = tally.battles;
        assert!(first < u64::from(cap) && tally.lead_changes <= first);
        let mut lead = duo::margin_of(tally.leader);
        // Re-derived after everything that writes through `s` (a war, a won pile shuffled).
        let (mut s0, mut s1) = stretches(s);
        let mut battles = first as u32;
        let mut changes = tally.lead_changes;
        let mut bits = rng.take_bits();
        // Loop detection (deterministic rules: never a shuffled pick-up, never speed), as the
        // two-seat loop does it: Brent's saves from `cycle::FIRST_LOOK` battles on, a position
        // compared in full only where seat 0's count and both top cards match the saved one's,
        // and seat 0's count after each battle in the trail for the replay's hint. A block
        // ends at the next save, and at the first battle inside it after which the counts and
        // the tops match (the tops of the positions inside a block are its next cards).
        debug_assert_eq!(LOOPS, PICKUP != 0 && !SPEED && r.detects_cycles());
        let cycles = LOOPS;
        let start = tally;
        // SAFETY: the heads are inside the stretches.
        let mut looks = cycles.then(|| unsafe { Looks::start(s, saves, first, s0, s1) });
        // Where the position came back under loop detection (the position is then in `s`):
        // the record comes from the replays, as the two-seat loop's.
        let mut finish = None;
        let end = loop {
            let (mut pos, st) = ([h0, h1, l0, l1, m0, m1], (&mut s0, &mut s1));
            // SAFETY: `pos` is where the seats' cards lie in the stretches `s0`, `s1`.
            if let Some(end) = unsafe { battle_start::<TWO>(r, s, rng, &mut bits, st, &mut pos) } {
                break end;
            }
            [h0, h1, l0, l1, m0, m1] = pos;
            // SAFETY: `h < SLIDE`, so the sixteen bytes lie inside the stretch; those past
            // the stack's last card are never used (`k ≤ l`).
            let (va, vb) = unsafe {
                (
                    _mm_loadu_si128(s0.add(h0).cast()),
                    _mm_loadu_si128(s1.add(h1).cast()),
                )
            };
            // `higher1`: the battles seat 1 wins.
            let (ties, higher1) = if TABLE {
                duel_outcomes(&outcomes, va, vb)
            } else {
                (
                    u32::from(_mm_cmpeq_epi8_mask(va, vb)),
                    u32::from(_mm_cmpgt_epu8_mask(vb, va)),
                )
            };
            let room = l0.min(l1).min((cap - battles) as usize).min(16);
            let room = if COUNTED {
                room.min(counted_room(held(l0, m0), lo, hi, 1))
            } else {
                room
            };
            let room = match looks.as_ref().filter(|_| cycles) {
                Some(looks) => room.min(looks.room()),
                None => room,
            } as u32;
            // Under `speed`, the draws battle by battle up to the first tie not grabbed (whose
            // draw is made: the war comes after it), with the pick-up bits' buffer refilled
            // where it runs out, after the draw of the battle that needs the new word.
            let mut refill = 0;
            let (ties, higher1) = if SPEED {
                let avail = if PICKUP == 0 {
                    63 - (bits | 1).leading_zeros()
                } else {
                    u32::MAX
                };
                let mut grab = 0u32;
                for i in 0..room {
                    let grabbed = rng.next_u64() < speed;
                    grab |= u32::from(grabbed) << i;
                    if ties >> i & 1 != 0 && !grabbed {
                        break;
                    }
                    if i == avail {
                        refill = rng.next_u64();
                    }
                }
                (ties & !grab, higher1 & !grab)
            } else {
                (ties, higher1)
            };
            let k = (ties | 1 << 16).trailing_zeros().min(room);
            // Under loop detection the block may end before a look.
            let played = match looks.as_ref().filter(|_| cycles).and_then(Looks::top_cards) {
                Some((looks, [a, b])) if k > 1 => {
                    let [a, b] = [a, b].map(|c| _mm_set1_epi8(c as i8));
                    let alike = _mm_cmpeq_epi8_mask(va, a) & _mm_cmpeq_epi8_mask(vb, b);
                    looks.first(u32::from(alike), k, higher1, held(l0, m0), 1)
                }
                _ => k,
            };
            // A tie after the block: a war.
            let tied = played == k && k < room;
            let k = played;
            if k > 0 {
                let km = (1u32 << k) - 1;
                let w1 = higher1 & km;
                let w0 = !higher1 & km;
                // Which pairs go down the other way round: the second card first.
                let swap = match PICKUP {
                    0 => {
                        let avail = 63 - (bits | 1).leading_zeros();
                        if avail >= k {
                            let s = bits as u32 & km;
                            bits >>= k;
                            s
                        } else {
                            // What is left, then a fresh word, as `bit()` would refill (drawn
                            // above under `speed`, between two battles' draws).
                            let x = if SPEED { refill } else { rng.next_u64() };
                            let need = k - avail;
                            let s = (bits as u32 & ((1 << avail) - 1))
                                | ((x as u32 & ((1 << need) - 1)) << avail);
                            bits = (x >> need) | (1 << (64 - need));
                            s
                        }
                    }
                    1 => 0,
                    2 => w1,
                    3 => w0,
                    // (Equal cards are the same byte: their order does not matter.)
                    4 => u32::from(_mm_cmpgt_epu8_mask(vb, va)),
                    _ => u32::from(_mm_cmpgt_epu8_mask(va, vb)),
                };
                let pairs = laid_pairs(va, vb, swap);
                // SAFETY: a tail (behind the stack and the won pile) is below `SLIDE +
                // SMALL_DECK`, and 32 bytes past it still lie inside the stretch; bytes past
                // the new tail are not cards.
                unsafe {
                    _mm256_storeu_si256(
                        s0.add(h0 + l0 + m0).cast(),
                        _mm256_maskz_compress_epi16(w0 as u16, pairs),
                    );
                    _mm256_storeu_si256(
                        s1.add(h1 + l1 + m1).cast(),
                        _mm256_maskz_compress_epi16(w1 as u16, pairs),
                    );
                }
                let before = 2 * held(l0, m0) as i64 - total as i64;
                changes += block_changes::<0>(w0, km, before, lead);
                let won = w0.count_ones() as usize;
                let k = k as usize;
                if cycles {
                    note_trail(&mut saves.trail, battles, held(l0, m0), w0, k, 1);
                }
                (h0, h1) = (h0 + k, h1 + k);
                if TWO {
                    (l0, l1) = (l0 - k, l1 - k);
                    (m0, m1) = (m0 + 2 * won, m1 + 2 * (k - won));
                } else {
                    l0 = l0 + 2 * won - k;
                    l1 = total - l0;
                }
                battles += k as u32;
                let t0 = held(l0, m0);
                lead = lead_after(2 * t0 as i64 - total as i64, w1, k as u32);
                // No end can come before a block's last battle: `k ≤ l0, l1` (a seat still
                // holds the rest of its stack), the counted endings' room and the cap.
                let store = |s: &mut Seats| {
                    (s.h[0], s.h[1], s.l[0], s.l[1]) = (h0, h1, l0, l1);
                    (s.m[0], s.m[1]) = (m0, m1);
                };
                if let Some(end) = block_end::<COUNTED>(r, s, t0, total, (lo, hi), store) {
                    break end;
                }
                // (`cycles` asked first: with it compiled in as false, the looks' code goes.)
                if cycles && let Some(looks) = &mut looks {
                    // SAFETY: the heads are inside the stretches.
                    let top = unsafe { tops(s0, s1, [h0, h1, l0, l1]) };
                    if let Some(how) = looks.after(k, (t0, top), s, saves, battles, store) {
                        finish = Some(how);
                        break (EndReason::Cycle, None);
                    }
                }
                if battles >= cap {
                    break duo::at_cap(r, battles, t0, total);
                }
                if !tied {
                    continue;
                }
            } else if room == 0 {
                unreachable!("both stacks hold cards and the cap is not reached");
            }
            // A tie at the heads: a war, the two-seat loops', on the seats in memory (past the
            // tied cards).
            battles += 1;
            rng.put_bits(bits);
            // SAFETY: the heads hold the tied cards, inside the stacks.
            let (a, b) = unsafe { (*s0.add(h0), *s1.add(h1)) };
            (s.h[0], s.h[1]) = (h0 + 1, h1 + 1);
            (s.l[0], s.l[1]) = (l0 - 1, l1 - 1);
            if TWO {
                (s.m[0], s.m[1]) = (m0, m1);
            }
            let out = duo::war(r, t, s, &mut tally, rng, duel, a, b, 1);
            bits = rng.take_bits();
            (s0, s1) = stretches(s);
            // (With one pile, `s.l[1]` is `total - l0`.)
            (h0, h1, l0, l1) = (s.h[0], s.h[1], s.l[0], s.l[1]);
            if TWO {
                (m0, m1) = (s.m[0], s.m[1]);
            }
            let counts = (&mut lead, &mut changes, battles);
            let looks = looks.as_mut().filter(|_| cycles);
            // SAFETY: the heads are inside the stretches.
            let stop = unsafe {
                after_war(
                    r,
                    &out,
                    s,
                    total,
                    counts,
                    (lo, hi, cap),
                    looks,
                    saves,
                    (s0, s1),
                )
            };
            if let Some((end, how)) = stop {
                finish = how;
                break end;
            }
        };
        rng.put_bits(bits);
        let record = duo::record(&tally, first, u64::from(battles), changes, 2, end);
        let pos = [h0, h1, l0, l1, m0, m1];
        let c = duo::Ctx { r, t, duel, saves };
        finish_run(c, s, start, rng, (record, finish, cycles), pos)
    }

    /// Brent's loop detection in the block loops, as the two-seat loop's (see the module's
    /// comment): `lam` battles since the saved position (the tortoise, in the [`Saves`]), whose
    /// seat 0's count `t0` and top cards `tops` (seat 0's, seat 1's) are kept for the quick
    /// test; the next save when `lam` reaches `power`.
    struct Looks {
        power: u64,
        lam: u64,
        t0: usize,
        tops: u32,
    }

    impl Looks {
        /// Loop detection from the position `s` after `first` battles (its stretches `s0`,
        /// `s1`): the start of the replays and the first tortoise, its count in the trail.
        ///
        /// # Safety
        /// The heads of `s` lie inside the stretches `s0`, `s1`.
        unsafe fn start(
            s: &Seats,
            saves: &mut Saves<Seats>,
            first: u64,
            s0: *const u8,
            s1: *const u8,
        ) -> Looks {
            saves.begin(s);
            assert!(saves.trail.len() == TRAIL);
            let t0 = s.l[0] + s.m[0];
            saves.trail[first as usize % TRAIL] = t0 as u8;
            Looks {
                power: cycle::FIRST_LOOK,
                lam: 0,
                t0,
                // SAFETY: the caller's.
                tops: unsafe { tops(s0, s1, [s.h[0], s.h[1], s.l[0], s.l[1]]) },
            }
        }

        /// The saved position's top cards, where both stacks held one: the positions inside a
        /// block, whose stacks all hold cards, can be it only then.
        fn top_cards(&self) -> Option<(&Looks, [u8; 2])> {
            let [a, b] = [self.tops & 0xFFFF, self.tops >> 16];
            (a < 256 && b < 256).then_some((self, [a as u8, b as u8]))
        }

        /// The battles a block may play before the next save (at least one: a save is made
        /// where one is due).
        fn room(&self) -> usize {
            (self.power - self.lam) as usize
        }

        /// The battles of a block of `k > 1` to play before a look, seat 0 holding `t0` cards
        /// before it and its count moving by `step` a battle (seat 1 winning `higher1`): up to
        /// the first battle `i` after which seat 0 holds the saved count where bit `i + 1` of
        /// `alike` says the top cards after it (the next battle's) are the saved ones; else all
        /// `k`. The last battle's position is looked at after the block.
        fn first(&self, alike: u32, k: u32, higher1: u32, t0: usize, step: usize) -> u32 {
            let mut alike = alike >> 1 & ((1 << (k - 1)) - 1);
            while alike != 0 {
                let i = alike.trailing_zeros();
                let won0 = (!higher1 & ((2 << i) - 1)).count_ones() as usize;
                if t0 + 2 * step * won0 == self.t0 + step * (i as usize + 1) {
                    return i + 1;
                }
                alike &= alike - 1;
            }
            k
        }

        /// `k` battles more, to the position after `battles` where seat 0 holds `t0` cards under
        /// the top cards `top` ([`tops`]): where the quick test passes or a save is due, the
        /// position is stored into `s` (`store`) and looked at ([`Looks::look`]).
        #[inline(always)]
        fn after(
            &mut self,
            k: usize,
            (t0, top): (usize, u32),
            s: &mut Seats,
            saves: &mut Saves<Seats>,
            battles: u32,
            store: impl FnOnce(&mut Seats),
        ) -> Option<Finish> {
            self.lam += k as u64;
            if !(t0 == self.t0 && top == self.tops || self.lam == self.power) {
                return None;
            }
            store(s);
            self.look(s, saves, battles, t0, top)
        }

        /// A look at the position `s` after `battles` (seat 0 holding `t0` cards under the top
        /// cards `top`): the position came back, the replay's [`Finish`]; else, where a save is
        /// due, the tortoise moves here and `power` doubles.
        fn look(
            &mut self,
            s: &Seats,
            saves: &mut Saves<Seats>,
            battles: u32,
            t0: usize,
            top: u32,
        ) -> Option<Finish> {
            if s.same(&saves.tortoise) {
                let found = u64::from(battles);
                return Some(Finish::Loop {
                    lam: self.lam,
                    found,
                });
            }
            if self.power == self.lam {
                // (The block keeps its counts apart: the replays start from where it began.)
                saves.move_tortoise(s, None);
                self.power *= 2;
                self.lam = 0;
                (self.t0, self.tops) = (t0, top);
            }
            None
        }

        /// One battle more (a war's, or the table loop's), to the position `s` (its stretches
        /// `s0`, `s1`) after `battles`, already in `s`: its count in the trail, then
        /// [`Looks::after`].
        ///
        /// # Safety
        /// The heads of `s` lie inside the stretches `s0`, `s1`.
        unsafe fn after_one(
            &mut self,
            s: &mut Seats,
            saves: &mut Saves<Seats>,
            battles: u32,
            s0: *const u8,
            s1: *const u8,
        ) -> Option<Finish> {
            let t0 = s.l[0] + s.m[0];
            saves.trail[battles as usize % TRAIL] = t0 as u8;
            // SAFETY: the caller's.
            let top = unsafe { tops(s0, s1, [s.h[0], s.h[1], s.l[0], s.l[1]]) };
            self.after(1, (t0, top), s, saves, battles, |_| {})
        }
    }

    /// Seat 0's count after each battle of a block of `k` after `battles` (from `t0`, moving by
    /// `step` up where seat 0 won, `w0`, and down where it lost), into the trail: the replay's
    /// hint ([`cycle::start_after`]).
    #[inline(always)]
    fn note_trail(trail: &mut [u8], battles: u32, t0: usize, w0: u32, k: usize, step: usize) {
        let mut t = t0;
        for i in 0..k {
            t = t + 2 * step * (w0 as usize >> i & 1) - step;
            trail[(battles as usize + 1 + i) % TRAIL] = t as u8;
        }
    }

    /// Both seats' top cards (seat 0's in the low half), or 256 for an empty stack: the quick
    /// test of loop detection beside seat 0's count.
    ///
    /// # Safety
    /// The heads `h0`, `h1` lie inside the stretches `s0`, `s1`.
    #[inline(always)]
    unsafe fn tops(s0: *const u8, s1: *const u8, [h0, h1, l0, l1]: [usize; 4]) -> u32 {
        // SAFETY: the caller's.
        let (a, b) = unsafe { (u32::from(*s0.add(h0)), u32::from(*s1.add(h1))) };
        let a = if l0 > 0 { a } else { 256 };
        let b = if l1 > 0 { b } else { 256 };
        a | b << 16
    }

    /// The block loop with a prize: a battle is a prize and a card from each stack, so sixteen
    /// battles are 32 bytes of each; one compare of the sixteen face-up cards finds the first
    /// tie. The battles before it are played all at once ([`lay_prizes`]: the cards laid in
    /// the pick-up order by byte shuffles; the lead from the winner mask, as in [`run_with`]).
    /// With `TWO` the winnings go onto the won piles, and a stack that runs out takes its won
    /// pile before the next battle as in [`run_with`]; a stack of one card gives it as the prize
    /// and takes its won pile under it for the face-up card, as the two-seat loop does. A player
    /// short of a prize and a card after that plays the table loop's battle, as in the two-seat
    /// loop. `COUNTED` and `TABLE` (the face-up cards' outcomes looked up in `duel`) as in
    /// [`run_with`]; so is `speed`, asked at run time ([`prize_draws`]), and loops where nothing
    /// is random ([`Looks`]).
    ///
    /// # Safety
    /// The CPU must have the features enabled here ([`super::available`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx512bitalg")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1")]
    pub(super) unsafe fn run_prize<
        const PICK: u8,
        const TWO: bool,
        const COUNTED: bool,
        const TABLE: bool,
    >(
        r: &Rules,
        s: &mut Seats,
        t: &mut Scratch,
        duel: &[u8],
        saves: &mut Saves<Seats>,
        mut tally: Tally,
        rng: &mut GameRng,
    ) -> GameRecord {
        // Cards turned in a battle without a war: a prize and a card each.
        const TURNED: u64 = 4;
        let cap = r.battle_cap() as u32;
        let (mut h0, mut h1) = (s.h[0], s.h[1]);
        // The stacks and, with two piles, the won piles right behind them. With one pile a
        // stack is all its seat's cards: between blocks seat 1's is `total - l0`.
        let (mut l0, mut l1) = (s.l[0], s.l[1]);
        let (mut m0, mut m1) = if TWO { (s.m[0], s.m[1]) } else { (0, 0) };
        let total = l0 + l1 + m0 + m1;
        assert!(total <= SMALL_DECK && (TWO || s.m == [0; 4]) && h0 < SLIDE && h1 < SLIDE);
        let (lo, hi) = end_bounds::<COUNTED>(r, total);
        let layered = r.pickup == Pickup::Played;
        let outcomes = outcome_registers::<TABLE>(duel);
        // (Asked once a block, not compiled in: it would double the prize block's instances.)
        let speed = r.speed;
        // Seat 0's cards.
        let held = |l0: usize, m0: usize| if TWO { l0 + m0 } else { l0 };
        let mut first = tally.battles;
        assert!(first < u64::from(cap) && tally.lead_changes <= first);
        let mut lead = duo::margin_of(tally.leader);
        // Re-derived after everything that writes through `s` (a war, a table battle, a won
        // pile shuffled or taken under a stack's last card).
        let (mut s0, mut s1) = stretches(s);
        let mut battles = first as u32;
        let mut changes = tally.lead_changes;
        let mut bits = rng.take_bits();
        // Loop detection where nothing is random, as in `run_with` (the tops: the next prizes).
        let start = tally;
        let cycles = PICK != pick::SHUFFLED && r.detects_cycles();
        // SAFETY: the heads are inside the stretches.
        let mut looks = cycles.then(|| unsafe { Looks::start(s, saves, first, s0, s1) });
        let mut finish = None;
        let end = loop {
            if !TWO {
                l1 = total - l0;
            }
            let (mut pos, st) = ([h0, h1, l0, l1, m0, m1], (&mut s0, &mut s1));
            // SAFETY: `pos` is where the seats' cards lie in the stretches `s0`, `s1`.
            if let Some(end) = unsafe { battle_start::<TWO>(r, s, rng, &mut bits, st, &mut pos) } {
                break end;
            }
            [h0, h1, l0, l1, m0, m1] = pos;
            if l0 < 2 || l1 < 2 {
                rng.put_bits(bits);
                (s.h[0], s.h[1], s.l[0], s.l[1]) = (h0, h1, l0, l1);
                if TWO {
                    (s.m[0], s.m[1]) = (m0, m1);
                }
                // Two piles: a stack of one card takes its won pile under it, and the battle is
                // a block's; else a player cannot give a prize and turn up a card: one battle
                // of the table loop, on the tally it keeps (this loop's counts handed over and
                // taken back).
                let played = !(TWO && duo::piles_under_last_cards(r, s, rng));
                let mut ended = None;
                if played {
                    let counts = (first, u64::from(battles), changes, TURNED);
                    ended = duo::table_battle(r, t, s, &mut tally, rng, counts, &mut lead);
                    first = tally.battles;
                    battles = first as u32;
                    changes = tally.lead_changes;
                }
                bits = rng.take_bits();
                if let Some(end) = ended {
                    break end;
                }
                (s0, s1) = stretches(s);
                (h0, h1, l0, l1) = (s.h[0], s.h[1], s.l[0], s.l[1]);
                if TWO {
                    (m0, m1) = (s.m[0], s.m[1]);
                }
                // After a battle (its endings asked by it): the loop, then the cap.
                // SAFETY: the heads are inside the stretches.
                let stop = played.then(|| unsafe {
                    let looks = looks.as_mut().filter(|_| cycles);
                    loop_or_cap(r, looks, s, saves, (battles, cap), s0, s1)
                });
                if let Some(Some((end, how))) = stop {
                    finish = how;
                    break end;
                }
                // (The stretches never wrap: a pile turned over or shuffled lies where it was.)
                debug_assert!(
                    (TWO || s.m == [0; 4])
                        && h0 + l0 + m0 <= SLIDE + SMALL_DECK
                        && h1 + l1 + m1 <= SLIDE + SMALL_DECK
                );
                continue;
            }
            // SAFETY: `h < SLIDE`, so the 32 bytes lie inside the stretch; those past the
            // stack's last card are never used (`2 k ≤ l`).
            let (va, vb) = unsafe {
                (
                    _mm256_loadu_si256(s0.add(h0).cast()),
                    _mm256_loadu_si256(s1.add(h1).cast()),
                )
            };
            // The face-up cards: the odd bytes, one to a 16-bit lane.
            let (ua, ub) = (_mm256_srli_epi16::<8>(va), _mm256_srli_epi16::<8>(vb));
            let (ties, higher1) = if TABLE {
                // (The face-up cards as bytes, sixteen battles' in order.)
                let (a, b) = (_mm256_cvtepi16_epi8(ua), _mm256_cvtepi16_epi8(ub));
                duel_outcomes(&outcomes, a, b)
            } else {
                (
                    u32::from(_mm256_cmpeq_epi16_mask(ua, ub)),
                    u32::from(_mm256_cmpgt_epu16_mask(ub, ua)),
                )
            };
            let room = (l0 / 2).min(l1 / 2).min((cap - battles) as usize).min(16);
            // (Seat 0's cards move by 2 a battle.)
            let room = if COUNTED {
                room.min(counted_room(held(l0, m0), lo, hi, 2))
            } else {
                room
            };
            let room = match looks.as_ref().filter(|_| cycles) {
                Some(looks) => room.min(looks.room()),
                None => room,
            } as u32;
            // The battles up to the first tie (not grabbed, under `speed`) and their draws.
            let mut orders = [0u32; 16];
            let shuffled = PICK == pick::SHUFFLED;
            let (k, higher1) = prize_draws(
                ties,
                higher1,
                room,
                speed,
                shuffled,
                rng,
                &mut bits,
                &mut orders,
            );
            // Under loop detection the block may end before a look (the tops of the positions
            // inside it: the prizes, the even bytes).
            let played = match looks.as_ref().filter(|_| cycles).and_then(Looks::top_cards) {
                Some((looks, [a, b])) if k > 1 => {
                    let low = _mm256_set1_epi16(0xFF);
                    let [a, b] = [a, b].map(|c| _mm256_set1_epi16(i16::from(c)));
                    let alike = _mm256_cmpeq_epi16_mask(_mm256_and_si256(va, low), a)
                        & _mm256_cmpeq_epi16_mask(_mm256_and_si256(vb, low), b);
                    looks.first(u32::from(alike), k, higher1, held(l0, m0), 2)
                }
                _ => k,
            };
            // A tie after the block: a war.
            let tied = played == k && k < room;
            let k = played;
            let km = (1u32 << k) - 1;
            let won = (!higher1 & km).count_ones() as usize;
            // Behind each seat's cards: where its winnings go.
            let (tail0, tail1) = (h0 + l0 + m0, h1 + l1 + m1);
            if k > 0 {
                let w0 = !higher1 & km;
                let before = 2 * held(l0, m0) as i64 - total as i64;
                // SAFETY: the tails are below `SLIDE + SMALL_DECK`, and 64 bytes past them lie
                // inside the stretches.
                unsafe {
                    let to = (s0.add(tail0), s1.add(tail1));
                    lay_prizes::<PICK>(va, vb, (w0, k), &orders, layered, to)
                };
                changes += block_changes::<1>(w0, km, before, lead);
            }
            let k = k as usize;
            if cycles {
                note_trail(&mut saves.trail, battles, held(l0, m0), !higher1 & km, k, 2);
            }
            (h0, h1) = (h0 + 2 * k, h1 + 2 * k);
            if TWO {
                (l0, l1) = (l0 - 2 * k, l1 - 2 * k);
                (m0, m1) = (m0 + 4 * won, m1 + 4 * (k - won));
            } else {
                l0 = l0 + 4 * won - 2 * k;
            }
            battles += k as u32;
            let t0 = held(l0, m0);
            if k > 0 {
                lead = lead_after(2 * t0 as i64 - total as i64, higher1 & km, k as u32);
            }
            // No end can come before a block's last battle: `2 k ≤ l0, l1`, the counted
            // endings' room and the cap. (A deal may start past a counted bound: only a battle
            // played ends the game; a block of none leaves both seats with cards.)
            let store = |s: &mut Seats| {
                (s.h[0], s.h[1], s.l[0]) = (h0, h1, l0);
                s.l[1] = if TWO { l1 } else { total - l0 };
                (s.m[0], s.m[1]) = (m0, m1);
            };
            if (!COUNTED || k > 0)
                && let Some(end) = block_end::<COUNTED>(r, s, t0, total, (lo, hi), store)
            {
                break end;
            }
            if k > 0
                && cycles
                && let Some(looks) = &mut looks
            {
                // SAFETY: the heads are inside the stretches.
                let top = unsafe { tops(s0, s1, [h0, h1, l0, if TWO { l1 } else { total - l0 }]) };
                if let Some(how) = looks.after(k, (t0, top), s, saves, battles, store) {
                    finish = Some(how);
                    break (EndReason::Cycle, None);
                }
            }
            if battles >= cap {
                break duo::at_cap(r, battles, t0, total);
            }
            if !tied {
                continue;
            }
            // A tie at the heads' face-up cards: a war, the two-seat loops', on the seats in
            // memory (past the tied battle's prizes and cards).
            battles += 1;
            rng.put_bits(bits);
            // SAFETY: the heads' second cards are the tied ones, inside the stacks.
            let (a, b) = unsafe { (*s0.add(h0 + 1), *s1.add(h1 + 1)) };
            (s.h[0], s.h[1]) = (h0 + 2, h1 + 2);
            (s.l[0], s.l[1]) = (l0 - 2, if TWO { l1 } else { total - l0 } - 2);
            if TWO {
                (s.m[0], s.m[1]) = (m0, m1);
            }
            let out = duo::war(r, t, s, &mut tally, rng, duel, a, b, 2);
            bits = rng.take_bits();
            (s0, s1) = stretches(s);
            (h0, h1, l0, l1) = (s.h[0], s.h[1], s.l[0], s.l[1]);
            if TWO {
                (m0, m1) = (s.m[0], s.m[1]);
            }
            let counts = (&mut lead, &mut changes, battles);
            let looks = looks.as_mut().filter(|_| cycles);
            // SAFETY: the heads are inside the stretches.
            let stop = unsafe {
                after_war(
                    r,
                    &out,
                    s,
                    total,
                    counts,
                    (lo, hi, cap),
                    looks,
                    saves,
                    (s0, s1),
                )
            };
            if let Some((end, how)) = stop {
                finish = how;
                break end;
            }
        };
        rng.put_bits(bits);
        let record = duo::record(&tally, first, u64::from(battles), changes, TURNED, end);
        let pos = [h0, h1, l0, if TWO { l1 } else { total - l0 }, m0, m1];
        let c = duo::Ctx { r, t, duel, saves };
        finish_run(c, s, start, rng, (record, finish, cycles), pos)
    }

    /// The record of a block loop's game that stopped with `record`: where loops are looked
    /// for (`cycles`), a position that came back (`finish`) or the safety cap reached (at the
    /// position `pos`: heads, stacks and won piles, stored into `s` first) ends in the replays
    /// of [`duo::finish`], from `saves.initial`, where the tally was `start`.
    fn finish_run(
        c: duo::Ctx<'_>,
        s: &mut Seats,
        start: Tally,
        rng: &mut GameRng,
        (record, finish, cycles): (GameRecord, Option<Finish>, bool),
        [h0, h1, l0, l1, m0, m1]: [usize; 6],
    ) -> GameRecord {
        let how = match finish {
            Some(how) => how,
            None if cycles && record.end == EndReason::Capped => {
                (s.h[0], s.h[1], s.l[0], s.l[1]) = (h0, h1, l0, l1);
                (s.m[0], s.m[1]) = (m0, m1);
                Finish::Capped(record)
            }
            None => return record,
        };
        duo::finish(c, s, start, rng, how)
    }

    /// Up to `k` hand battles of two seats that both play the card their policy `POLICY` (a
    /// [`policy`] code, not `MIXED`) picks from a full hand of `hand` cards (`HAND`, where it is
    /// not 0: the size compiled in) and refill its slot from the stack, on the rings of `cap` bytes
    /// at `base[0]` and `base[1]` of `buf`, under the pick-up order `PICK` with an ordered ranking:
    /// the same battles, draws and counts as the table loop's [`pair_hands`](crate::table), until
    /// the first tie not grabbed, or with `CYCLES` up to the first battle before the block's last
    /// whose stack lengths and hands match the saved position's (`looks`: the block's last battle
    /// is the caller's to compare, as a seat may be out after it or an ending come; the caller
    /// compares the tops too). With a `PRIZE`, each stack's top card is the battle's prize and the
    /// one under it refills the hand. Each battle's slots are picked in turn (seat 0's, seat 1's,
    /// drawn with a random policy; then, with `SPEED`, seat 0's grab, a draw below `threshold`,
    /// which makes the battle seat 0's, tie or not; then, under the shuffled pick-up, its bit, or
    /// with a prize its 4-card shuffle's draws), and the hands followed in a register; the
    /// winners' cards are then laid (with a prize as [`lay_prizes`] lays them, `layered` for
    /// `played`) and packed behind everything they hold (onto their won piles with `TWO` piles:
    /// no card is drawn from an empty stack, as each holds the block's cards), and the lead
    /// changes counted, for the whole block at once, as the one-card and prize blocks do.
    /// Without a prize, a second pile or a grab, a block may instead be
    /// [`hand_battles_in_place`]'s, which lays each battle's cards as it is won and plays up
    /// to `reach` battles (the caller's bound past the stacks': its next look, or an ending
    /// that counts cards).
    ///
    /// # Safety
    /// The CPU must have what [`available`] asks for; `1 ≤ k ≤ 16`, `k ≤ reach`, each stack
    /// holds at least `k` cards (`2k` with a prize) and its hand `hand ≤ 8` cards, `cap` is a
    /// power of two, both rings lie in `buf`, and each holds its won pile behind its stack (none
    /// with one pile); the lead agrees with what the seats hold (the margin is 0 or of the
    /// lead's sign).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512bitalg")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1")]
    #[allow(clippy::too_many_arguments)] // a run's rings and position, handed over
    pub(crate) unsafe fn hand_battles<
        const PICK: u8,
        const PRIZE: bool,
        const TWO: bool,
        const POLICY: u8,
        const HAND: usize,
        const SPEED: bool,
        const CYCLES: bool,
    >(
        buf: &mut [u8],
        base: [usize; 2],
        cap: usize,
        hand: u32,
        k: usize,
        threshold: u64,
        layered: bool,
        run: &mut HandRun,
        rng: &mut GameRng,
        looks: Option<HandLooks<'_>>,
        reach: usize,
    ) -> HandBlock {
        debug_assert!(HAND == 0 || HAND == hand as usize);
        // (Compiled in where `HAND` is not 0: a deterministic pick without a loop over the
        // hand's slots.)
        let hand = if HAND == 0 { hand } else { HAND as u32 };
        let mask = cap - 1;
        // Cards a battle takes from each stack: with a prize, the prize and the refill.
        let step = 1 + usize::from(PRIZE);
        debug_assert!((1..=16).contains(&k) && cap.is_power_of_two() && (1..=8).contains(&hand));
        debug_assert!(run.lens.iter().all(|&l| l >= step * k));
        debug_assert!(TWO || run.wons == [0, 0]);
        assert!(base.iter().all(|&b| b + cap <= buf.len()));
        // (Deterministic rules only: no draw, no grab.)
        debug_assert!(!CYCLES || POLICY != policy::RANDOM && PICK != pick::SHUFFLED && !SPEED);
        debug_assert_eq!(CYCLES, looks.is_some());
        let mut looks = looks.filter(|_| CYCLES);
        assert!(looks.as_ref().is_none_or(|l| l.trail.len() == TRAIL));
        // Without a prize, a second pile or a grab, and where both rings have room past their
        // stacks, the battles are laid one by one instead, in place: such a block is not
        // bounded by the shorter stack. (With a random policy only where that stack bounds
        // this block below sixteen battles: the random picks' draws leave the laying less room,
        // and `hand=3` ran 1.01× with every block laid in place, 0.99× so.)
        if !PRIZE && !TWO && !SPEED && (POLICY != policy::RANDOM || k < 16) {
            let reach = reach.min(IN_PLACE);
            if (0..2).all(|p| run.heads[p] + run.lens[p] + 2 * reach + 2 <= cap) {
                // SAFETY: the CPU has what this function asks for (the caller's word), and
                // both rings have the room just checked inside `buf` (asserted).
                return unsafe {
                    hand_battles_in_place::<PICK, POLICY, HAND, CYCLES, true>(
                        buf, base, hand, reach, run, rng, looks,
                    )
                };
            }
        }
        let [h0, h1] = run.heads;
        // What each seat holds behind its head: its stack, and its won pile with two piles.
        let held = |run: &HandRun, p: usize| run.lens[p] + if TWO { run.wons[p] } else { 0 };
        let [mut w0, mut w1] = run.words;
        // Each battle's face-up cards; with a prize, each seat's prize and face-up card as a
        // 16-bit lane (the prize in its low byte), as the prize block lays them.
        let mut ups = [[0u8; 16]; 2];
        let mut pairs = [[0u16; 16]; 2];
        let (mut coins, mut grabs) = (0u32, 0u32);
        let mut tie = None;
        let mut done = 0;
        // The generator as a local copy for the block, written back once; with a prize its
        // bit buffer too, for the battles' 4-card shuffles (`shuffle4_order`).
        let mut g = rng.clone();
        let mut bits = if PRIZE { g.take_bits() } else { 0 };
        let mut orders = [0u32; 16];
        // Each stack's length after each battle, for Brent's compare.
        let [mut l0, mut l1] = run.lens;
        // Each stack's next `step · k` cards, read in the loop by one indexed load: in place
        // where they do not wrap around the ring (most blocks), else copied out first. (Worked
        // out at every battle, each ring position cost the loop four more instructions.)
        let from = buf.as_ptr();
        let mut wrapped = [[0u8; 32]; 2];
        let mut tops = [from; 2];
        for p in 0..2 {
            let h = run.heads[p];
            if h + 16 * step <= cap {
                // SAFETY: `base[p] + h + 16 step ≤ base[p] + cap ≤ buf.len()` (asserted).
                tops[p] = unsafe { from.add(base[p] + h) };
            } else {
                for (i, c) in wrapped[p][..step * k].iter_mut().enumerate() {
                    *c = buf[base[p] + ((h + i) & mask)];
                }
                tops[p] = wrapped[p].as_ptr();
            }
        }
        let [tops0, tops1] = tops;
        while done < k {
            // SAFETY: `done < k ≤ 16`, and each of `tops` points at `step · k` readable cards
            // (in the ring, asserted inside `buf`, or in `wrapped`), which nothing writes until
            // the loop ends.
            let at = step * done;
            // With a prize, each stack's top card is the prize and the one under it refills
            // the hand.
            let (prize0, prize1) = if PRIZE {
                // SAFETY: as below, `at + 1 < step · k`.
                unsafe { (*tops0.add(at), *tops1.add(at)) }
            } else {
                (0, 0)
            };
            let next = at + step - 1;
            // SAFETY: `next < step · k`, as above.
            let (top0, top1) =
                unsafe { (u64::from(*tops0.add(next)), u64::from(*tops1.add(next))) };
            let (up0, up1);
            (up0, up1, w0, w1) = play_hands::<POLICY>(&mut g, hand, (w0, w1), (top0, top1));
            // Seat 0's grab under `speed`, drawn after the picks: its battle, tie or not.
            let grabbed = SPEED && g.next_u64() < threshold;
            if up0 == up1 && !grabbed {
                tie = Some([up0, up1, prize0, prize1]);
                break;
            }
            grabs |= u32::from(grabbed) << done;
            if PICK == pick::SHUFFLED {
                if PRIZE {
                    // The 4-card shuffle's draws, as the table loop's `order_prize` makes them.
                    orders[done] = g.shuffle4_order(&mut bits);
                } else {
                    // The 2-card shuffle's one draw: the pair goes down the other way round.
                    coins |= u32::from(g.bit()) << done;
                }
            }
            if PRIZE {
                pairs[0][done] = u16::from(prize0) | u16::from(up0) << 8;
                pairs[1][done] = u16::from(prize1) | u16::from(up1) << 8;
            } else {
                ups[0][done] = up0;
                ups[1][done] = up1;
            }
            done += 1;
            if CYCLES && let Some(looks) = looks.as_mut() {
                // Each stack gave a card (two with a prize); the winner's takes them all under
                // one pile (an ordered ranking, no grab: the higher card wins).
                let won1 = usize::from(up1 > up0);
                (l0, l1) = if TWO {
                    (l0 - step, l1 - step)
                } else {
                    (l0 + step - 2 * step * won1, l1 - step + 2 * step * won1)
                };
                let lens = l0 as u64 | (l1 as u64) << 16;
                // SAFETY: the trail holds `TRAIL` bytes (asserted).
                if done < k && unsafe { looks.may_match(done, lens, [w0, w1]) } {
                    break;
                }
            }
        }
        if PRIZE {
            g.put_bits(bits);
        }
        *rng = g;
        run.words = [w0, w1];
        let mut won1 = 0;
        if done > 0 {
            let km = (1u32 << done) - 1;
            // SAFETY: each array is sixteen bytes, or sixteen 16-bit lanes.
            let (va, vb, pa, pb) = unsafe {
                if PRIZE {
                    let pa = _mm256_loadu_si256(pairs[0].as_ptr().cast());
                    let pb = _mm256_loadu_si256(pairs[1].as_ptr().cast());
                    // The face-up cards, the lanes' high bytes.
                    let up = |v| _mm256_cvtepi16_epi8(_mm256_srli_epi16::<8>(v));
                    (up(pa), up(pb), pa, pb)
                } else {
                    let zero = _mm256_setzero_si256();
                    (
                        _mm_loadu_si128(ups[0].as_ptr().cast()),
                        _mm_loadu_si128(ups[1].as_ptr().cast()),
                        zero,
                        zero,
                    )
                }
            };
            // Under an ordered ranking the winner's card is the higher one, but where seat 0
            // grabbed the battle.
            let higher1 = u32::from(_mm_cmpgt_epu8_mask(vb, va)) & km;
            won1 = higher1 & !grabs;
            let won0 = !won1 & km;
            if PRIZE {
                // Each battle's four cards laid as the prize block lays them, and packed
                // behind what each seat holds: in place where 64 bytes fit in the ring past
                // everything it holds, else through a copy.
                let mut spill = [[0u8; 64]; 2];
                // (One pointer into each array, taken once: the two places are written through
                // them.)
                let [s0, s1] = &mut spill;
                let mut to = [s0.as_mut_ptr(), s1.as_mut_ptr()];
                let ring = buf.as_mut_ptr();
                let mut fits = [false; 2];
                for p in 0..2 {
                    let (head, len) = (run.heads[p], held(run, p));
                    let at = (head + len) & mask;
                    if at + 64 <= cap && len + 64 <= cap {
                        fits[p] = true;
                        // SAFETY: `base[p] + at + 64 ≤ base[p] + cap ≤ buf.len()` (asserted).
                        to[p] = unsafe { ring.add(base[p] + at) };
                    }
                }
                // SAFETY: each of `to` is 64 bytes of `spill`, or of the ring past every card
                // its seat holds (`len + 64 ≤ cap`); `1 ≤ done ≤ 16`.
                unsafe {
                    lay_prizes::<PICK>(
                        pa,
                        pb,
                        (won0, done as u32),
                        &orders,
                        layered,
                        (to[0], to[1]),
                    )
                };
                for (p, won) in [won0, won1].into_iter().enumerate() {
                    if !fits[p] {
                        let (head, len) = (run.heads[p], held(run, p));
                        let n = 4 * won.count_ones() as usize;
                        for (i, &c) in spill[p][..n].iter().enumerate() {
                            buf[base[p] + ((head + len + i) & mask)] = c;
                        }
                    }
                }
            } else {
                let swap = match PICK {
                    pick::SHUFFLED => coins,
                    pick::SEAT => 0,
                    pick::WINNER => won1,
                    pick::LOSER => won0,
                    // (Equal cards are the same byte: their order does not matter.)
                    pick::DESC => higher1,
                    _ => u32::from(_mm_cmpgt_epu8_mask(va, vb)) & km,
                };
                let pairs = laid_pairs(va, vb, swap);
                for (p, won) in [won0, won1].into_iter().enumerate() {
                    let packed = _mm256_maskz_compress_epi16(won as u16, pairs);
                    let (head, len) = (run.heads[p], held(run, p));
                    let at = (head + len) & mask;
                    if at + 32 <= cap && len + 32 <= cap {
                        // SAFETY: `at + 32 ≤ cap`, inside the ring; the bytes past the winnings
                        // land where no card lies (`len + 32 ≤ cap`).
                        unsafe {
                            _mm256_storeu_si256(buf.as_mut_ptr().add(base[p] + at).cast(), packed)
                        };
                    } else {
                        let mut cards = [0u8; 32];
                        // SAFETY: 32 bytes.
                        unsafe { _mm256_storeu_si256(cards.as_mut_ptr().cast(), packed) };
                        let n = 2 * won.count_ones() as usize;
                        for (i, &c) in cards[..n].iter().enumerate() {
                            buf[base[p] + ((head + len + i) & mask)] = c;
                        }
                    }
                }
            }
            let before = held(run, 0) as i64 - held(run, 1) as i64;
            run.changes += if PRIZE {
                block_changes::<1>(won0, km, before, run.lead)
            } else {
                block_changes::<0>(won0, km, before, run.lead)
            };
            let won = won0.count_ones() as usize;
            let gains = [2 * step * won, 2 * step * (done - won)];
            let [l0, l1] = run.lens;
            let gave = step * done;
            if TWO {
                run.lens = [l0 - gave, l1 - gave];
                run.wons = [run.wons[0] + gains[0], run.wons[1] + gains[1]];
            } else {
                run.lens = [l0 + gains[0] - gave, l1 + gains[1] - gave];
            }
            run.lead = lead_after(held(run, 0) as i64 - held(run, 1) as i64, won1, done as u32);
        }
        let played = done + usize::from(tie.is_some());
        if tie.is_some() {
            // The tied battle's cards were played (its prizes taken) and the slots refilled.
            run.lens = [run.lens[0] - step, run.lens[1] - step];
        }
        run.heads = [(h0 + step * played) & mask, (h1 + step * played) & mask];
        HandBlock {
            played,
            tie,
            won1: u64::from(won1),
            in_place: false,
        }
    }

    /// Battle `i`'s two cards (seat 0's in byte `i` of `va`, seat 1's of `vb`) as 16-bit lane
    /// `i`, in the order they go down: seat 0's first, unless bit `i` of `swap` is set.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn laid_pairs(va: __m128i, vb: __m128i, swap: u32) -> __m256i {
        let a16 = _mm256_cvtepu8_epi16(va);
        let b16 = _mm256_cvtepu8_epi16(vb);
        let ab = _mm256_or_si256(a16, _mm256_slli_epi16::<8>(b16));
        let ba = _mm256_or_si256(b16, _mm256_slli_epi16::<8>(a16));
        _mm256_mask_blend_epi16(swap as u16, ab, ba)
    }

    /// Lane `i` of a 64-byte byte shuffle's control: where battle `i`'s four bytes start in its
    /// 16-byte lane (a byte shuffle picks within 16-byte lanes).
    static QUAD_BASE: [u32; 16] = {
        let mut m = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            m[i] = 0x0404_0404 * (i as u32 % 4);
            i += 1;
        }
        m
    };

    /// The battles `0..k` of a prize block, `k ≤ room ≤ 16` (and under `speed` seat 0's grabs),
    /// with the draws the two-seat loop makes for them in its order: under `speed` the grab
    /// (a draw every battle, before the pick-up's) up to the first tie not grabbed, whose draw
    /// is made (the war follows), and under the `shuffled` pick-up each battle's 4-card
    /// shuffle, the order it gives the battle's cards into `orders`
    /// ([`GameRng::shuffle4_order`], the draws of the two-seat loop's word shuffle; under
    /// `speed` with the grab's, [`GameRng::grab_and_shuffle4`]). Without
    /// `speed` the battles run up to the first of the `ties` (at most `room`); with it, `k` and
    /// the battles seat 1 wins, `higher1` without those seat 0 grabbed.
    #[allow(clippy::too_many_arguments)] // a block's outcomes, room and draws
    #[inline(always)]
    fn prize_draws(
        ties: u32,
        higher1: u32,
        room: u32,
        speed: Option<u64>,
        shuffled: bool,
        rng: &mut GameRng,
        bits: &mut u64,
        orders: &mut [u32; 16],
    ) -> (u32, u32) {
        let Some(speed) = speed else {
            let k = (ties | 1 << 16).trailing_zeros().min(room);
            if shuffled {
                // The generator as a local copy for the block, written back once: its state
                // can stay in registers rather than go through memory at every draw.
                let mut g = rng.clone();
                for order in orders.iter_mut().take(k as usize) {
                    *order = g.shuffle4_order(bits);
                }
                *rng = g;
            }
            return (k, higher1);
        };
        let mut g = rng.clone();
        let (mut grab, mut i) = (0u32, 0u32);
        while i < room {
            let tie = ties >> i & 1 != 0;
            if shuffled {
                // The grab's step and the shuffle's side by side.
                let (grabbed, order) = g.grab_and_shuffle4(speed, tie, bits);
                grab |= u32::from(grabbed) << i;
                let Some(order) = order else { break };
                orders[i as usize] = order;
            } else {
                let grabbed = g.next_u64() < speed;
                grab |= u32::from(grabbed) << i;
                if !grabbed && tie {
                    break;
                }
            }
            i += 1;
        }
        *rng = g;
        (i, higher1 & !grab)
    }

    /// The battles `0..k` (`1 ≤ k ≤ 16`) of a prize block, their cards (`va`, `vb`: each
    /// seat's prize and face-up card a battle, 16 bits a battle: in the prize block its stack's
    /// next 32 bytes, in [`hand_battles`] the prize and the card picked from the hand) laid in
    /// the order `PICK` gives them by byte shuffles, and each seat's winnings (seat 0 won the
    /// battles in `w0`) packed by one compress and stored behind its cards (`to0`, `to1`). The
    /// orders are the two-seat loop's ([`duo::quad`]): under the shuffled pick-up the `orders`
    /// the battles' shuffles drew ([`prize_draws`], or `hand_battles` battle by battle); the
    /// winner's pair or the loser's first, by the winner mask
    /// (`layered`: `played`, the prizes before the cards); the cards sorted by a sorting
    /// network of five compare-exchanges, all sixteen battles at once.
    ///
    /// # Safety
    /// 64 bytes from `to0` and from `to1` must lie inside their stretches, past every card
    /// that is still to be played.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512bitalg")]
    unsafe fn lay_prizes<const PICK: u8>(
        va: __m256i,
        vb: __m256i,
        (w0, k): (u32, u32),
        orders: &[u32; 16],
        layered: bool,
        (to0, to1): (*mut u8, *mut u8),
    ) {
        debug_assert!((1..=16).contains(&k));
        // Lane `i`: battle `i`'s seat-0 prize and card, then seat 1's (bytes 0..4, as the word
        // shuffle numbers them).
        let quads = _mm512_or_si512(
            _mm512_cvtepu16_epi32(va),
            _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(vb)),
        );
        // SAFETY: sixteen 32-bit lanes.
        let base = unsafe { _mm512_loadu_si512(QUAD_BASE.as_ptr().cast()) };
        // A byte shuffle's control that lays every battle's bytes in `order`.
        let each =
            |order: [u8; 4]| _mm512_add_epi32(_mm512_set1_epi32(i32::from_le_bytes(order)), base);
        let w1 = !w0 & ((1u32 << k) - 1);
        let laid = match PICK {
            pick::SHUFFLED => {
                // SAFETY: sixteen 32-bit lanes.
                let orders = unsafe { _mm512_loadu_si512(orders.as_ptr().cast()) };
                _mm512_shuffle_epi8(quads, _mm512_add_epi32(orders, base))
            }
            pick::SEAT => _mm512_shuffle_epi8(quads, each([0, 2, 1, 3])),
            pick::WINNER | pick::LOSER => {
                // Each battle's order when seat 0 won it and when seat 1 did.
                let (by0, by1) = match PICK {
                    pick::WINNER if layered => ([0, 2, 1, 3], [2, 0, 3, 1]),
                    pick::WINNER => ([0, 1, 2, 3], [2, 3, 0, 1]),
                    _ => ([2, 3, 0, 1], [0, 1, 2, 3]),
                };
                let control = _mm512_mask_blend_epi32(w1 as u16, each(by0), each(by1));
                _mm512_shuffle_epi8(quads, control)
            }
            _ => {
                // Compare-exchanges (0, 1) (2, 3), then (0, 2) (1, 3), then (1, 2): each byte
                // against the partner the control brings it, the larger kept in the bytes of
                // the mask (rank-asc: the later ones).
                const STAGES: [([u8; 4], u64); 3] = [
                    ([1, 0, 3, 2], 0xAAAA_AAAA_AAAA_AAAA),
                    ([2, 3, 0, 1], 0xCCCC_CCCC_CCCC_CCCC),
                    ([0, 2, 1, 3], 0x4444_4444_4444_4444),
                ];
                let mut q = quads;
                for (partner, later) in STAGES {
                    let p = _mm512_shuffle_epi8(q, each(partner));
                    let (low, high) = (_mm512_min_epu8(q, p), _mm512_max_epu8(q, p));
                    q = if PICK == pick::DESC {
                        _mm512_mask_blend_epi8(later, high, low)
                    } else {
                        _mm512_mask_blend_epi8(later, low, high)
                    };
                }
                q
            }
        };
        // SAFETY: the caller's.
        unsafe {
            _mm512_storeu_si512(to0.cast(), _mm512_maskz_compress_epi32(w0 as u16, laid));
            _mm512_storeu_si512(to1.cast(), _mm512_maskz_compress_epi32(w1 as u16, laid));
        }
    }

    /// The start of a block loop's battle, the seats' cards at `pos` (each seat's head, stack
    /// and won pile, `[h0, h1, l0, l1, m0, m1]`) in the stretches `s0`, `s1`: both slid back to
    /// the front once either head reaches [`SLIDE`]; with `TWO` piles, a stack that has run out
    /// takes its won pile before the battle's draws, as the general draw turns a pile over:
    /// where it lies (turned over: no card moves), shuffled there (seat 0's first; the
    /// stretches taken from `s` again), or under `on_empty = lose` the player whose stack ran
    /// out is out (both, if both did): the end. `bits` is the loop's pick-up bit buffer.
    ///
    /// # Safety
    /// `*s0` and `*s1` are the stretches of `s` ([`stretches`]), and each seat's cards lie at
    /// `h..h + l + m` of its stretch.
    #[inline(always)]
    unsafe fn battle_start<const TWO: bool>(
        r: &Rules,
        s: &mut Seats,
        rng: &mut GameRng,
        bits: &mut u64,
        (s0, s1): (&mut *mut u8, &mut *mut u8),
        pos: &mut [usize; 6],
    ) -> Option<End> {
        let [h0, h1, l0, l1, m0, m1] = *pos;
        if (h0 | h1) >= SLIDE {
            // SAFETY: the caller's; `copy` allows the overlap.
            unsafe {
                std::ptr::copy(s0.add(h0), *s0, l0 + m0);
                std::ptr::copy(s1.add(h1), *s1, l1 + m1);
            }
            (pos[0], pos[1]) = (0, 0);
        }
        if !(TWO && (l0 == 0 || l1 == 0)) {
            return None;
        }
        let [h0, h1, ..] = *pos;
        // A seat in the game holds a card, so an empty stack has a won pile behind it.
        debug_assert!(l0 + m0 > 0 && l1 + m1 > 0);
        if r.two_pile == Some(OnEmpty::TurnOver) {
            for p in 0..2 {
                if pos[2 + p] == 0 {
                    (pos[2 + p], pos[4 + p]) = (pos[4 + p], 0);
                }
            }
            return None;
        }
        rng.put_bits(*bits);
        (s.h[0], s.h[1], s.l[0], s.l[1]) = (h0, h1, l0, l1);
        (s.m[0], s.m[1]) = (m0, m1);
        if r.two_pile == Some(OnEmpty::Lose) {
            let able = u8::from(l0 > 0) | u8::from(l1 > 0) << 1;
            s.in_game = able;
            let winner = (able != 0).then(|| able.trailing_zeros() as u8);
            return Some((EndReason::Forfeit, winner));
        }
        for p in 0..2 {
            if s.l[p] == 0 {
                s.turn_over(p, rng);
            }
        }
        *pos = [s.h[0], s.h[1], s.l[0], s.l[1], s.m[0], s.m[1]];
        *bits = rng.take_bits();
        // (The shuffle wrote through `s`.)
        (*s0, *s1) = stretches(s);
        None
    }

    /// The lead changes in a block whose battles seat 0 won where `w0` says (of the battles in
    /// `km`), seat 0's margin `2 t0 - total` being `before` at its start and moving by
    /// `2 << S` a battle (`S`: 0 for a card against a card, 1 for a prize and a card); `lead`
    /// is the last non-zero margin before it. The margins after every battle come at once from
    /// prefix population counts of `w0`; where their sign flips from the last non-zero one
    /// (a margin of 0 leads nobody) is [`flips`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bitalg")]
    pub(super) fn block_changes<const S: i32>(w0: u32, km: u32, before: i64, lead: i64) -> u64 {
        // SAFETY: both tables are sixteen 16-bit lanes.
        let (upto, losses) = unsafe {
            (
                _mm256_loadu_si256(UPTO.as_ptr().cast()),
                _mm256_loadu_si256(LOSSES.as_ptr().cast()),
            )
        };
        let won0 = _mm256_popcnt_epi16(_mm256_and_si256(_mm256_set1_epi16(w0 as u16 as i16), upto));
        let steps = _mm256_sub_epi16(_mm256_slli_epi16::<2>(won0), losses);
        let margin = _mm256_add_epi16(
            _mm256_set1_epi16(before as i16),
            _mm256_slli_epi16::<S>(steps),
        );
        let zero = _mm256_setzero_si256();
        let pos = u32::from(_mm256_cmpgt_epi16_mask(margin, zero)) & km;
        let neg = u32::from(_mm256_cmplt_epi16_mask(margin, zero)) & km;
        u64::from((flips(pos, neg, before, lead) & km << 2).count_ones())
    }

    /// The last non-zero margin after a block of `k ≥ 1` battles (seat 1 won those in `w1`)
    /// that left the margin at `after`: if that is 0, the one before it, a step the other way
    /// (only its sign is ever read).
    #[inline(always)]
    pub(super) fn lead_after(after: i64, w1: u32, k: u32) -> i64 {
        if after != 0 {
            after
        } else if w1 >> (k - 1) & 1 != 0 {
            2
        } else {
            -2
        }
    }

    /// Seat 0's cards at or beyond which the game may have ended ([`duo::bounds`]); without
    /// `COUNTED` (no ending that counts cards) only all the cards, with either seat, end it.
    #[inline(always)]
    fn end_bounds<const COUNTED: bool>(r: &Rules, total: usize) -> (usize, usize) {
        if COUNTED {
            duo::bounds(r, total)
        } else {
            (0, total)
        }
    }

    /// After a block's last battle, seat 0 holding `t0` of `total` cards: the end, if one came
    /// at the bounds `lo`, `hi` ([`end_bounds`]); with `COUNTED` as [`duo::counted_end`] finds
    /// it on the seats `store` writes back first, without it every card with one seat.
    #[inline(always)]
    fn block_end<const COUNTED: bool>(
        r: &Rules,
        s: &mut Seats,
        t0: usize,
        total: usize,
        (lo, hi): (usize, usize),
        store: impl FnOnce(&mut Seats),
    ) -> Option<End> {
        if t0 > lo && t0 < hi {
            return None;
        }
        if COUNTED {
            store(s);
            duo::counted_end(r, s, t0, total, 0, 0)
        } else {
            Some((EndReason::AllCards, Some(u8::from(t0 == 0))))
        }
    }

    /// The battles a block may play where seat 0 holds `t0` cards, moving by `step` a battle,
    /// and the game may have ended at `lo` or `hi` ([`end_bounds`]): no more than the first
    /// that can reach a bound, so that only the block's last battle can end the game; at least
    /// one (a deal may start at a bound: the endings are looked at after a battle).
    #[inline(always)]
    fn counted_room(t0: usize, lo: usize, hi: usize, step: usize) -> usize {
        t0.saturating_sub(lo)
            .min(hi.saturating_sub(t0))
            .div_ceil(step)
            .max(1)
    }

    /// The outcome table in four registers (with `TABLE`; zeros, unused, without): a card `a`
    /// against a card `b` is byte `16 a + b` ([`duo::duel_table`]).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn outcome_registers<const TABLE: bool>(duel: &[u8]) -> [__m512i; 4] {
        if TABLE {
            assert!(duel.len() == 256);
            // SAFETY: `duel` holds 256 bytes (asserted).
            unsafe { std::array::from_fn(|i| _mm512_loadu_si512(duel.as_ptr().add(64 * i).cast())) }
        } else {
            [_mm512_setzero_si512(); 4]
        }
    }

    /// The battles of a block under a beats-table ranking: which are ties and which seat 1
    /// wins (bit `i` for battle `i`), for seat 0's sixteen cards `va` against seat 1's `vb`,
    /// each value below 16, looked up at byte `16 a + b` of the 256-byte outcome table
    /// [`duo::duel_table`] in `outcomes`: two two-register byte permutes (each reading 128 bytes
    /// by an index's low seven bits) and the index's top bit choosing between them.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
    #[inline]
    fn duel_outcomes(outcomes: &[__m512i; 4], va: __m128i, vb: __m128i) -> (u32, u32) {
        // (Values below 16: the shift moves no bit into the next byte.)
        let idx = _mm_or_si128(_mm_slli_epi16::<4>(va), vb);
        let wide = _mm512_castsi128_si512(idx);
        let low = _mm512_permutex2var_epi8(outcomes[0], wide, outcomes[1]);
        let high = _mm512_permutex2var_epi8(outcomes[2], wide, outcomes[3]);
        let out = _mm_mask_blend_epi8(
            _mm_movepi8_mask(idx),
            _mm512_castsi512_si128(low),
            _mm512_castsi512_si128(high),
        );
        (
            u32::from(_mm_cmpeq_epi8_mask(out, _mm_set1_epi8(2))),
            u32::from(_mm_cmpeq_epi8_mask(out, _mm_set1_epi8(1))),
        )
    }

    /// The two seats' stretches in the buffer, where the block loops address the cards.
    #[inline(always)]
    fn stretches(s: &mut Seats) -> (*mut u8, *mut u8) {
        assert!(s.cap() == SMALL_CAP);
        let base = s.buf_mut().as_mut_ptr();
        // SAFETY: the buffer holds (at least) two stretches of `SMALL_CAP` bytes.
        (base, unsafe { base.add(SMALL_CAP) })
    }

    /// After a war of the block loops, on the seats it left (`battles` counted, the tied battle
    /// included): the lead noted for seat 0's cards, then the end if it came, in the general
    /// loop's order (a draw in the war; every card with one seat, a forfeit if a player could
    /// not stake the war's cards under `short_war = lose`, the endings that count cards or wars),
    /// then the loop and the cap ([`loop_or_cap`]), as the two-seat loop asks; the end, and the
    /// replay's [`Finish`] where the position came back. `lo` and `hi` bound seat 0's cards
    /// where the game goes on ([`end_bounds`]); `cap` is the battle cap.
    ///
    /// # Safety
    /// The heads of `s` lie inside the stretches `s0`, `s1`.
    #[allow(clippy::too_many_arguments)] // the loop's counts, handed over
    #[inline(always)]
    unsafe fn after_war(
        r: &Rules,
        out: &War,
        s: &mut Seats,
        total: usize,
        (lead, changes, battles): (&mut i64, &mut u64, u32),
        (lo, hi, cap): (usize, usize, u32),
        looks: Option<&mut Looks>,
        saves: &mut Saves<Seats>,
        (s0, s1): (*const u8, *const u8),
    ) -> Option<(End, Option<Finish>)> {
        let t0 = s.l[0] + s.m[0];
        *changes += duo::note(lead, t0, total) >> 32;
        let (depth, forfeited) = match *out {
            War::Won {
                depth, forfeited, ..
            } => (depth, forfeited),
            War::Draw => return Some(((EndReason::DrawInWar, None), None)),
        };
        if (t0 <= lo || t0 >= hi || depth > 0 && (forfeited != 0 || r.wars_to_win.is_some()))
            && let Some(end) = duo::counted_end(r, s, t0, total, depth, forfeited)
        {
            return Some((end, None));
        }
        // SAFETY: the caller's.
        unsafe { loop_or_cap(r, looks, s, saves, (battles, cap), s0, s1) }
    }

    /// After a battle of the block loops played on the seats (a war, or the table loop's
    /// battle) that did not end the game: the loop, where one is looked for
    /// ([`Looks::after_one`]), then the cap, as the two-seat loop asks. The end, and the
    /// replay's [`Finish`] where the position came back.
    ///
    /// # Safety
    /// The heads of `s` lie inside the stretches `s0`, `s1`.
    #[inline(always)]
    unsafe fn loop_or_cap(
        r: &Rules,
        looks: Option<&mut Looks>,
        s: &mut Seats,
        saves: &mut Saves<Seats>,
        (battles, cap): (u32, u32),
        s0: *const u8,
        s1: *const u8,
    ) -> Option<(End, Option<Finish>)> {
        if let Some(looks) = looks
            // SAFETY: the caller's.
            && let Some(how) = unsafe { looks.after_one(s, saves, battles, s0, s1) }
        {
            return Some(((EndReason::Cycle, None), Some(how)));
        }
        let (t0, total) = (s.l[0] + s.m[0], s.l[0] + s.l[1] + s.m[0] + s.m[1]);
        (battles >= cap).then(|| (duo::at_cap(r, battles, t0, total), None))
    }

    /// The battles of a block where the lead changed, as bits `2..` (battle `i` at bit
    /// `i + 2`), from the signs of the margins after each (`pos`, `neg`), the margin before
    /// the block and the last non-zero margin before it (`lead`). The margin moves by 2 (or
    /// 4, with a prize) a battle, never by 0, so a sign flips either directly or through one
    /// 0, after which the sign before the 0 counts.
    #[inline(always)]
    fn flips(pos: u32, neg: u32, before: i64, lead: i64) -> u32 {
        let p = pos << 2 | u32::from(before > 0) << 1 | u32::from(lead > 0);
        let q = neg << 2 | u32::from(before < 0) << 1 | u32::from(lead < 0);
        let zero = !(p | q);
        (p & q << 1) | (q & p << 1) | (zero << 1 & (p & q << 2 | q & p << 2))
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::rng::GameSeed;

        /// `lay_prizes` for one pick-up order over random blocks: each seat's winnings are its
        /// won battles' four cards, in battle order, each battle's laid as the two-seat loop's
        /// `duo::quad` lays it (under the shuffled order with the same draws: `prize_draws`
        /// takes each battle's order from `shuffle4_order`, `quad` shuffles the word). Few
        /// values in half the blocks, so that ties within a battle's four cards are common.
        fn lays_as_quad<const PICK: u8>(layered: bool) {
            let mut rng = GameRng::new(GameSeed::new(53, u64::from(PICK), u64::from(layered)));
            for round in 0..3000u32 {
                let values = if round.is_multiple_of(2) { 3 } else { 64 };
                let a: [u8; 32] = std::array::from_fn(|_| rng.below(values) as u8);
                let b: [u8; 32] = std::array::from_fn(|_| rng.below(values) as u8);
                let k = 1 + round % 16;
                let w0 = rng.below(1 << 16) & ((1 << k) - 1);
                // The orders as the block draws them, and the same draws for `quad`.
                let (mut block_rng, mut bits) = (rng.clone(), rng.take_bits());
                let mut orders = [0u32; 16];
                if PICK == pick::SHUFFLED {
                    for order in &mut orders[..k as usize] {
                        *order = block_rng.shuffle4_order(&mut bits);
                    }
                }
                let (mut quad_bits, mut want) = (rng.take_bits(), [Vec::new(), Vec::new()]);
                for i in 0..k as usize {
                    let winner = usize::from(w0 >> i & 1 == 0);
                    let cards = [a[2 * i], a[2 * i + 1], b[2 * i], b[2 * i + 1]];
                    let laid = duo::quad::<PICK>(winner, cards, layered, &mut rng, &mut quad_bits);
                    want[winner].extend_from_slice(&laid);
                }
                rng.put_bits(quad_bits);
                // The same draws: the bit buffers and the generators agree after the block.
                block_rng.put_bits(bits);
                assert_eq!(bits, quad_bits);
                assert_eq!(block_rng.below(1 << 30), rng.clone().below(1 << 30));
                let mut to = [[0u8; 64]; 2];
                // SAFETY: `available` (asked by the caller); `1 ≤ k ≤ 16`; 64 bytes each.
                unsafe {
                    let (va, vb) = (
                        _mm256_loadu_si256(a.as_ptr().cast()),
                        _mm256_loadu_si256(b.as_ptr().cast()),
                    );
                    let [t0, t1] = &mut to;
                    let at = (t0.as_mut_ptr(), t1.as_mut_ptr());
                    lay_prizes::<PICK>(va, vb, (w0, k), &orders, layered, at);
                }
                for p in 0..2 {
                    let n = want[p].len();
                    assert_eq!(
                        to[p][..n],
                        want[p][..],
                        "{PICK} {layered} seat {p} w0 {w0:b}"
                    );
                }
            }
        }

        /// Every pick-up order of the prize block, `played` among them (`winner-first`
        /// layered), against the two-seat loop's battle by battle.
        #[test]
        fn prize_blocks_lay_every_order_as_the_two_seat_loop() {
            if !available() {
                eprintln!("skipped: this CPU lacks the block loop's instructions");
                return;
            }
            lays_as_quad::<{ pick::SHUFFLED }>(false);
            lays_as_quad::<{ pick::SEAT }>(false);
            lays_as_quad::<{ pick::WINNER }>(false);
            lays_as_quad::<{ pick::WINNER }>(true);
            lays_as_quad::<{ pick::LOSER }>(false);
            lays_as_quad::<{ pick::DESC }>(false);
            lays_as_quad::<{ pick::ASC }>(false);
        }
    }
}
