//! What the compiled rules decide during play, whatever loop plays them: who wins a round of
//! face-up cards, how many cards a war asks of a player who may be short, and the order in
//! which won cards go under. Every loop (the general reference loop and the specialised ones)
//! asks these, so the answers are written once.

use std::mem::MaybeUninit;

use crate::rng::Draws;
use crate::rules::{ChainedWar, Compare, DownRule, Pickup, Policy, Rules, ShortWar};
use crate::state::MAX_PLAYERS;

/// The pick-up order of a plain battle (one face-up card from each seat, no prize), as a
/// const parameter of the loops compiled for it: 0 shuffled, 1 seat order, 2 the winner's card
/// first and the others in seat order (`winner-first`, and `played`, which is the same with one
/// layer), 3 the others in seat order and the winner's last (`loser-first`), 4 the higher
/// values first, 5 the lower. With two seats: "does the second card go under first?".
pub(crate) mod pick {
    pub const SHUFFLED: u8 = 0;
    pub const SEAT: u8 = 1;
    pub const WINNER: u8 = 2;
    pub const LOSER: u8 = 3;
    pub const DESC: u8 = 4;
    pub const ASC: u8 = 5;
}

/// A hand policy as a const parameter of the loops compiled for it (two seats' hand battles):
/// `Policy` as a constant, or `MIXED`, two seats whose policies are read once per run.
pub(crate) mod policy {
    pub const RANDOM: u8 = 0;
    pub const HIGHEST: u8 = 1;
    pub const LOWEST: u8 = 2;
    pub const MEDIAN: u8 = 3;
    pub const MIXED: u8 = 4;
}

/// The policy a loop is compiled for (not `MIXED`).
pub(crate) const fn policy_of(code: u8) -> Policy {
    match code {
        policy::RANDOM => Policy::Random,
        policy::HIGHEST => Policy::Highest,
        policy::LOWEST => Policy::Lowest,
        _ => Policy::Median,
    }
}

/// The code of a policy (the inverse of [`policy_of`]).
pub(crate) const fn policy_code(p: Policy) -> u8 {
    match p {
        Policy::Random => policy::RANDOM,
        Policy::Highest => policy::HIGHEST,
        Policy::Lowest => policy::LOWEST,
        Policy::Median => policy::MEDIAN,
    }
}

/// The plain-battle pick-up order of `p`.
pub(crate) fn pick_of(p: Pickup) -> u8 {
    match p {
        Pickup::Shuffled => pick::SHUFFLED,
        Pickup::Seat => pick::SEAT,
        Pickup::WinnerFirst | Pickup::Played => pick::WINNER,
        Pickup::LoserFirst => pick::LOSER,
        Pickup::RankDesc => pick::DESC,
        Pickup::RankAsc => pick::ASC,
    }
}

/// What a player can put into a war of `n` face-down cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stake {
    /// Put this many cards face down, then one face up.
    Play(usize),
    /// Out of this war (no card to turn up); the cards already on the table stay there.
    Drop,
    /// Out of the game (`short_war = lose`): every card the player holds goes onto the table.
    Forfeit,
}

impl Rules {
    /// The seats whose face-up card is best among `contenders`: one seat, or the tied ones.
    #[inline(always)]
    pub(crate) fn best_of(&self, contenders: u8, up: &[u8; MAX_PLAYERS]) -> u8 {
        self.best_of_first::<MAX_PLAYERS>(contenders, up)
    }

    /// [`best_of`](Self::best_of) where only the first `N` seats can be contenders: a table
    /// of `N` seats looks at no more.
    #[inline(always)]
    pub(crate) fn best_of_first<const N: usize>(
        &self,
        contenders: u8,
        up: &[u8; MAX_PLAYERS],
    ) -> u8 {
        match &self.compare {
            Compare::Ordered => {
                // The highest card, then the seats that hold it, without a branch on the cards
                // (which seat wins is what a branch predictor cannot guess).
                let playing = |p: usize| (contenders >> p) & 1;
                let max = (0..N).map(|p| up[p] * playing(p)).max().unwrap_or(0);
                (0..N).fold(0, |m, p| m | (playing(p) & u8::from(up[p] == max)) << p)
            }
            Compare::Table {
                beaten_by: Some(by),
                ..
            } => best_by_mask::<N>(by, contenders, up),
            Compare::Table { values, beats, .. } => {
                best_by_table::<N>(*values, beats, contenders, up)
            }
        }
    }

    /// Face-down cards of war number `depth` (1 for the first) started by the tied card `up` of
    /// the lowest tied seat.
    #[inline]
    pub(crate) fn war_size(&self, depth: u32, up: u8) -> usize {
        if depth > 1 && self.chained == ChainedWar::FlipOne {
            return 0;
        }
        match &self.down {
            DownRule::Fixed(n) => *n as usize,
            DownRule::PerValue(v) => v[usize::from(up)] as usize,
        }
    }

    /// What a player with `supply` cards to draw face down (and `hand` cards in hand, in hand
    /// mode) puts into a war of `n` face-down cards.
    #[inline]
    pub(crate) fn stake(&self, supply: usize, hand: usize, n: usize) -> Stake {
        if self.hand > 0 {
            // Face-down cards come from the stack, the face-up one from the hand (which is only
            // short once the stack is empty).
            if hand == 0 {
                return if self.short == ShortWar::Lose {
                    Stake::Forfeit
                } else {
                    Stake::Drop
                };
            }
            if supply >= n {
                return Stake::Play(n);
            }
            return match self.short {
                ShortWar::AllButLast => Stake::Play(supply),
                ShortWar::LastCardUp => Stake::Play(0),
                ShortWar::Lose => Stake::Forfeit,
            };
        }
        if supply > n {
            return Stake::Play(n);
        }
        match self.short {
            ShortWar::AllButLast if supply >= 1 => Stake::Play(supply - 1),
            ShortWar::LastCardUp if supply >= 1 => Stake::Play(0),
            ShortWar::AllButLast | ShortWar::LastCardUp => Stake::Drop,
            ShortWar::Lose => Stake::Forfeit,
        }
    }

    /// Puts the cards of `pots` (each seat's table cards in the order played) into `out` in the
    /// pick-up order, for `taker`. With 3–4 players "the loser's cards" are the other seats' in
    /// seat order.
    pub(crate) fn order_pickup<D: Draws>(
        &self,
        taker: usize,
        pots: &[&[u8]],
        out: &mut Vec<u8>,
        rng: &mut D,
    ) {
        out.clear();
        let others = || (0..pots.len()).filter(move |&p| p != taker);
        match self.pickup {
            Pickup::Shuffled => {
                if !super::pots::joined_wide(pots, 0, out) {
                    for pot in pots {
                        append(out, pot);
                    }
                }
                rng.shuffle(out);
            }
            Pickup::WinnerFirst | Pickup::LoserFirst
                if super::pots::joined(
                    pots,
                    // (Two seats: the loser is the other.)
                    taker ^ usize::from(self.pickup == Pickup::LoserFirst),
                    out,
                ) => {}
            Pickup::WinnerFirst => {
                append(out, pots[taker]);
                others().for_each(|p| append(out, pots[p]));
            }
            Pickup::LoserFirst => {
                others().for_each(|p| append(out, pots[p]));
                append(out, pots[taker]);
            }
            Pickup::Played | Pickup::Seat
                if super::pots::layered(
                    pots,
                    if self.pickup == Pickup::Played {
                        taker
                    } else {
                        0
                    },
                    out,
                ) => {}
            Pickup::Played | Pickup::Seat => {
                // Layer by layer into place: the cards written where they go rather than pushed
                // one at a time (each push checked the vector's room).
                let total = pots.iter().map(|p| p.len()).sum();
                out.resize(total, 0);
                let mut at = 0;
                let mut put = |pot: &[u8], i: usize| {
                    if let Some(&c) = pot.get(i) {
                        out[at] = c;
                        at += 1;
                    }
                };
                let layers = pots.iter().map(|p| p.len()).max().unwrap_or(0);
                for i in 0..layers {
                    if self.pickup == Pickup::Played {
                        put(pots[taker], i);
                        others().for_each(|p| put(pots[p], i));
                    } else {
                        pots.iter().for_each(|pot| put(pot, i));
                    }
                }
                debug_assert_eq!(at, total);
            }
            Pickup::RankDesc | Pickup::RankAsc
                if super::pots::sorted(pots, self.pickup == Pickup::RankDesc, out) => {}
            Pickup::RankDesc | Pickup::RankAsc if self.cards.values() <= 64 => {
                // A counting sort: the cards by value, then read out value by value. The
                // comparison sort it replaces moved bytes through memory one step at a time
                // and was a third of the time of a rank-ordered game (wars are frequent there).
                let mut count = [0u16; 64];
                let (mut present, mut total) = (0u64, 0);
                for pot in pots {
                    total += pot.len();
                    for &c in *pot {
                        count[usize::from(c)] += 1;
                        present |= 1 << c;
                    }
                }
                // Each value's cards as one 8-byte store into the room past the cards so far
                // (a value rarely has more than 8 cards): writing them through `extend` called
                // `memset` for every value.
                out.reserve(total + 8);
                let room = out.spare_capacity_mut();
                let desc = self.pickup == Pickup::RankDesc;
                let mut at = 0;
                while present != 0 {
                    let v = if desc {
                        63 - present.leading_zeros()
                    } else {
                        present.trailing_zeros()
                    };
                    present &= !(1u64 << v);
                    let n = usize::from(count[v as usize]);
                    if n <= 8 {
                        room[at..at + 8].copy_from_slice(&[MaybeUninit::new(v as u8); 8]);
                    } else {
                        room[at..at + n].fill(MaybeUninit::new(v as u8));
                    }
                    at += n;
                }
                debug_assert_eq!(at, total);
                // SAFETY: `total` is within the capacity (reserved above), and the first
                // `total` bytes of the room were written: every card was counted once under its
                // value, and each value's count was written.
                unsafe { out.set_len(total) };
            }
            Pickup::RankDesc | Pickup::RankAsc => {
                for pot in pots {
                    append(out, pot);
                }
                out.sort_unstable();
                if self.pickup == Pickup::RankDesc {
                    out.reverse();
                }
            }
        }
    }

    /// The hand slot `seat` plays from `hand` (hand mode), by the seat's policy. Policies rank a
    /// card by the ranking's strength key; ties go to the lower slot.
    #[inline(always)]
    pub(crate) fn choose<D: Draws>(&self, seat: usize, hand: &[u8], rng: &mut D) -> usize {
        self.choose_by(self.policies[seat], hand, rng)
    }

    /// [`choose`](Self::choose) by the policy `policy`: a loop that knows its seats' policies
    /// reads them once.
    #[inline(always)]
    pub(crate) fn choose_by<D: Draws>(&self, policy: Policy, hand: &[u8], rng: &mut D) -> usize {
        let n = hand.len();
        let key = |i: usize| self.strength[usize::from(hand[i])];
        // Scans in registers: an iterator's `max_by_key` kept its running best on the stack,
        // and each step read back what the one before had just written.
        let high = match policy {
            Policy::Random => return rng.below(n as u32) as usize,
            Policy::Highest => true,
            Policy::Lowest => false,
            Policy::Median => {
                // The card with as many cards below it as above (the lower middle for an even
                // hand): the one with (n − 1) / 2 cards ranked below it, ties ranked by slot.
                let below = |i: usize| (0..n).filter(|&j| (key(j), j) < (key(i), i)).count();
                return (0..n).find(|&i| below(i) == (n - 1) / 2).unwrap_or(0);
            }
        };
        // The lowest card is the highest of the keys turned upside down.
        let flip = if high { 0 } else { u16::MAX };
        let mut best = 0;
        let mut best_key = if n > 0 { key(0) ^ flip } else { 0 };
        for i in 1..n {
            let k = key(i) ^ flip;
            // Strictly better only: ties go to the lower slot. Selects, not a branch: which
            // card of a hand is best is what a branch predictor cannot guess.
            best = if k > best_key { i } else { best };
            best_key = best_key.max(k);
        }
        best
    }
}

/// [`Rules::choose_by`] for a deterministic `policy` under an ordered ranking (a card's strength
/// is its value), on the first `n` slots of a hand in a word (slot `i` in byte `i`): the same
/// slot, with the values compared in registers rather than looked up card by card.
#[inline(always)]
pub(crate) fn choose_ordered(policy: Policy, word: u64, n: usize) -> usize {
    debug_assert!(policy != Policy::Random && (1..=8).contains(&n));
    let value = |i: usize| (word >> (8 * i)) as u8;
    let high = match policy {
        Policy::Highest => true,
        Policy::Random => unreachable!("a random pick is drawn"),
        Policy::Lowest => false,
        Policy::Median => {
            let below = |i: usize| (0..n).filter(|&j| (value(j), j) < (value(i), i)).count();
            return (0..n).find(|&i| below(i) == (n - 1) / 2).unwrap_or(0);
        }
    };
    let flip = if high { 0 } else { u8::MAX };
    let (mut best, mut best_key) = (0, value(0) ^ flip);
    for i in 1..n {
        let k = value(i) ^ flip;
        // Strictly better only: ties go to the lower slot (selects, as `choose_by`).
        best = if k > best_key { i } else { best };
        best_key = best_key.max(k);
    }
    best
}

/// `out.extend_from_slice(pot)` for the pots of a battle, mostly one or two cards: a copy that
/// small is cheaper card by card than through `memcpy`.
#[inline(always)]
fn append(out: &mut Vec<u8>, pot: &[u8]) {
    if pot.len() <= 4 {
        for &c in pot {
            out.push(c);
        }
    } else {
        out.extend_from_slice(pot);
    }
}

/// [`Rules::best_of`] under a ranking that is a table of which card beats which: undefeated
/// cards win; a rock-paper-scissors round with none undefeated is a war among everyone in it.
/// A seat is beaten if a value that beats its card is on the table: one lookup a seat, without
/// a branch.
#[inline(always)]
fn best_by_mask<const N: usize>(
    beaten_by: &[u64; 256],
    contenders: u8,
    up: &[u8; MAX_PLAYERS],
) -> u8 {
    let contends = |p: usize| (contenders >> p) & 1;
    // The values on the table (a value never beats itself, so a seat's own card does not
    // count against it).
    let present = (0..N).fold(0u64, |m, q| m | u64::from(contends(q)) << (up[q] & 63));
    let beaten = (0..N).fold(0u8, |m, p| {
        m | u8::from(beaten_by[usize::from(up[p])] & present != 0) << p
    });
    let undefeated = contenders & !beaten;
    if undefeated == 0 {
        contenders
    } else {
        undefeated
    }
}

/// [`best_by_mask`] for a beats-table of more than 64 values: every pair of the first `N` seats
/// is looked up, without a branch; a seat that does not contend asks about card 0, and its
/// answer is masked off.
fn best_by_table<const N: usize>(
    values: usize,
    beats: &[bool],
    contenders: u8,
    up: &[u8; MAX_PLAYERS],
) -> u8 {
    let contends = |p: usize| (contenders >> p) & 1;
    let card = |p: usize| usize::from(up[p]) * usize::from(contends(p));
    let mut beaten = 0u8;
    for p in 0..N {
        let mut by = 0u8;
        for q in (0..N).filter(|&q| q != p) {
            by |= u8::from(beats[card(q) * values + card(p)]) & contends(q);
        }
        beaten |= by << p;
    }
    let undefeated = contenders & !beaten;
    if undefeated == 0 {
        contenders
    } else {
        undefeated
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{GameRng, GameSeed};

    /// The register pick of a deterministic policy under an ordered ranking is `choose_by`'s,
    /// for every hand size and hands with repeated values (ties go to the lower slot).
    #[test]
    fn ordered_picks_in_a_word_are_choose_by() {
        let mut rng = GameRng::new(GameSeed::new(3, 0, 0));
        for (pairs, values) in [
            (&[("ranking", "aces-low")][..], 13u32),
            (&[("ranking", "low-wins"), ("deck", "jokers54")], 14),
            (&[("deck", "custom"), ("ranks", "250"), ("suits", "1")], 250),
        ] {
            let rules = Rules::from_pairs(pairs.iter().copied()).unwrap();
            assert!(matches!(rules.compare, Compare::Ordered));
            // `choose_ordered` compares the values themselves: a card's strength is its value.
            assert!(
                (0..values as usize).all(|v| rules.strength[v] == v as u16),
                "{rules}"
            );
            for round in 0..4000 {
                picks_agree(&rules, values, round, &mut rng);
            }
        }
    }

    /// One hand of `n = 1 + round % 8` slots (values below `values`) picked both ways.
    fn picks_agree(rules: &Rules, values: u32, round: usize, rng: &mut GameRng) {
        let n = 1 + round % 8;
        // Few values half the time, so that ties are common.
        let cards: Vec<u8> = (0..8)
            .map(|_| rng.below(if round.is_multiple_of(2) { 4 } else { values }) as u8)
            .collect();
        let word = u64::from_le_bytes(cards.clone().try_into().unwrap());
        for policy in [Policy::Highest, Policy::Lowest, Policy::Median] {
            let slot = rules.choose_by(policy, &cards[..n], rng);
            let ordered = choose_ordered(policy, word, n);
            assert_eq!(ordered, slot, "{policy:?} {cards:?} {n}");
        }
    }

    /// Rank-ordered pick-ups of random pots equal a sort of their cards: 2 to 4 pots, empty
    /// ones among them, of up to 20 cards in all (the register's network takes up to 16 on
    /// x86-64, the counting sort the rest), values 0 and 63 included.
    #[test]
    fn rank_ordered_pickups_of_random_pots_sort_them() {
        let mut rng = GameRng::new(GameSeed::new(8, 1, 5));
        let mut in_register = 0;
        for (pickup, desc) in [("rank-desc", true), ("rank-asc", false)] {
            let r = Rules::from_pairs([("pickup", pickup), ("deck", "custom"), ("ranks", "64")])
                .unwrap();
            for round in 0..4000u32 {
                let n = 2 + round as usize % 3;
                let values = [2, 13, 64][round as usize / 3 % 3];
                let pots: Vec<Vec<u8>> = (0..n)
                    .map(|_| {
                        let len = rng.below(21 / n as u32 + 1) as usize;
                        (0..len).map(|_| rng.below(values) as u8).collect()
                    })
                    .collect();
                let refs: Vec<&[u8]> = pots.iter().map(|p| &p[..]).collect();
                let mut out = vec![u8::MAX; 64];
                out.clear();
                r.order_pickup(1, &refs, &mut out, &mut rng);
                let mut want: Vec<u8> = pots.concat();
                want.sort_unstable();
                if desc {
                    want.reverse();
                }
                assert_eq!(out, want, "{pickup} {pots:?}");
                let mut again = Vec::new();
                if crate::rules::pots::sorted(&refs, desc, &mut again) {
                    assert_eq!(again, want, "{pickup} {pots:?}");
                    in_register += 1;
                }
            }
        }
        // (Every x86-64 CPU sorts up to 16 cards in a register: SSE2 or AVX-512.)
        assert!(
            !cfg!(target_arch = "x86_64") || in_register > 4000,
            "{in_register}"
        );
    }

    /// Pick-ups in a fixed order of random pots are those cards in that order: layer by layer
    /// (`seat`, `played`), pot after pot (`winner-first`, `loser-first`). Two pots of the same
    /// length (none, up to 39 cards, or 64: the registers' and longer), of different lengths,
    /// and three or four pots, for every taker; the registers' paths compared on their own too.
    #[test]
    fn fixed_pickups_of_random_pots_lay_them_in_order() {
        let mut rng = GameRng::new(GameSeed::new(8, 2, 6));
        let mut in_register = 0;
        for (name, pickup) in [
            ("seat", Pickup::Seat),
            ("played", Pickup::Played),
            ("winner-first", Pickup::WinnerFirst),
            ("loser-first", Pickup::LoserFirst),
        ] {
            let r = Rules::from_pairs([("pickup", name), ("players", "4")]).unwrap();
            for round in 0..3000u32 {
                let n = if round % 3 == 0 {
                    2 + round as usize / 3 % 3
                } else {
                    2
                };
                // Now and then the longest pots the registers take (64 cards joined) and none.
                let len = match round % 11 {
                    0 => 64,
                    1 => 0,
                    _ => rng.below(40) as usize,
                };
                let pots: Vec<Vec<u8>> = (0..n)
                    .map(|p| {
                        let len = if round % 5 == 0 { len + p } else { len };
                        (0..len).map(|_| rng.below(52) as u8).collect()
                    })
                    .collect();
                let refs: Vec<&[u8]> = pots.iter().map(|p| &p[..]).collect();
                let taker = rng.below(n as u32) as usize;
                let others = (0..n).filter(|&p| p != taker);
                // The pots in the order they go (layer by layer, or pot after pot).
                let order: Vec<usize> = match pickup {
                    Pickup::Seat => (0..n).collect(),
                    Pickup::Played | Pickup::WinnerFirst => {
                        std::iter::once(taker).chain(others).collect()
                    }
                    _ => others.chain(std::iter::once(taker)).collect(),
                };
                let want: Vec<u8> = if matches!(pickup, Pickup::Seat | Pickup::Played) {
                    let layers = pots.iter().map(|p| p.len()).max().unwrap();
                    let pots = &pots;
                    let layer = |i| order.iter().filter_map(move |&p| pots[p].get(i));
                    (0..layers).flat_map(layer).copied().collect()
                } else {
                    order
                        .iter()
                        .flat_map(|&p| pots[p].iter().copied())
                        .collect()
                };
                let mut out = vec![u8::MAX; 64];
                out.clear();
                r.order_pickup(taker, &refs, &mut out, &mut rng);
                assert_eq!(out, want, "{name} {taker} {pots:?}");
                let mut again = Vec::new();
                // (Two pots: the first of `order` is the one the registers put first.)
                let registers = if matches!(pickup, Pickup::Seat | Pickup::Played) {
                    crate::rules::pots::layered(&refs, order[0], &mut again)
                } else {
                    crate::rules::pots::joined(&refs, order[0], &mut again)
                };
                if registers {
                    assert_eq!(again, want, "{name} {taker} {pots:?}");
                    in_register += 1;
                }
            }
        }
        // (Every CPU lays two pots of up to 16 cards in registers: 3,687 of these rounds on an
        // AVX2 machine, more with AVX-512's longer pots.)
        assert!(in_register > 3000, "{in_register}");
    }

    /// Rank-ordered pick-ups equal a sort of all the pots' cards, for pots with a value held
    /// once, up to eight times (one store each) and more than eight times (several decks).
    #[test]
    fn rank_ordered_pickups_sort_the_pots() {
        let pots: [&[&[u8]]; 6] = [
            &[&[5], &[9]],
            &[&[3, 3, 3, 7], &[3, 3, 3, 3, 1]],
            &[&[12; 9], &[0, 4]],
            &[&[2, 2], &[11; 8], &[11, 11], &[0]],
            &[&[12; 9], &[12, 0, 12, 4]],
            &[&[2, 11, 2], &[], &[11; 10], &[0]],
        ];
        for (pickup, desc) in [("rank-desc", true), ("rank-asc", false)] {
            let r = Rules::from_pairs([("pickup", pickup), ("decks", "8")]).unwrap();
            let mut rng = GameRng::new(GameSeed::new(1, 2, 3));
            for pots in pots {
                // A vector whose room holds no card yet: what was not written shows.
                let mut out = vec![u8::MAX; 64];
                out.clear();
                r.order_pickup(0, pots, &mut out, &mut rng);
                let mut want: Vec<u8> = pots.concat();
                want.sort_unstable();
                if desc {
                    want.reverse();
                }
                assert_eq!(out, want, "{pickup} {pots:?}");
            }
        }
    }
}
