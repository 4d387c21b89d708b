//! The exact expected value of a hand, as a fraction: no simulation.
//!
//! A hand from a freshly shuffled shoe of `D` decks (`N = 52·D` cards, `4·D` of each rank):
//! the player's card and the dealer's are the first two cards of a uniform shuffle, so every
//! ordered pair of ranks `(a, b)` has probability `n_a·(n_b − [a = b]) / (N·(N − 1))`. On a tie
//! the dealer burns three cards nobody sees; by exchangeability of a shuffled shoe the next two
//! cards are then a uniform ordered pair from the `N − 2` cards left (the two tied cards
//! removed), exactly as if nothing had been burnt. An infinite deck draws every card
//! independently, each rank with probability 1/13. Summing the payoffs over these pairs gives
//! the probabilities and the expected value as exact fractions.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};

use crate::RANKS;
use crate::rules::{Decks, Strategy};

/// An exact fraction, always in lowest terms with a positive denominator.
///
/// Its arithmetic is checked in every build: an operation whose result does not fit `i128`
/// returns `None` from the `checked_` methods and panics, naming the operands, from the
/// operators. The values [`hand_value`] reaches stay far below that (see its documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

impl Ratio {
    /// 0.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };
    /// 1.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num / den` in lowest terms, with a positive denominator.
    pub fn new(num: i128, den: i128) -> Ratio {
        assert!(den != 0, "a fraction with denominator 0");
        assert!(
            num != i128::MIN && den != i128::MIN,
            "a fraction of {num}/{den} has no negative in i128"
        );
        let g = gcd(num, den) * den.signum();
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    /// The whole number `n`.
    pub fn int(n: i128) -> Ratio {
        Ratio::new(n, 1)
    }

    /// The numerator (lowest terms; carries the sign).
    pub fn num(self) -> i128 {
        self.num
    }

    /// The denominator (lowest terms, positive).
    pub fn den(self) -> i128 {
        self.den
    }

    /// The nearest `f64`.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// `self + o`, or `None` when a numerator or denominator overflows `i128`.
    pub fn checked_add(self, o: Ratio) -> Option<Ratio> {
        let g = gcd(self.den, o.den);
        let num = self
            .num
            .checked_mul(o.den / g)?
            .checked_add(o.num.checked_mul(self.den / g)?)?;
        let den = (self.den / g).checked_mul(o.den)?;
        (num != i128::MIN).then(|| Ratio::new(num, den))
    }

    /// `self − o`, or `None` on overflow.
    pub fn checked_sub(self, o: Ratio) -> Option<Ratio> {
        self.checked_add(-o)
    }

    /// `self · o`, or `None` on overflow.
    pub fn checked_mul(self, o: Ratio) -> Option<Ratio> {
        let g1 = gcd(self.num, o.den);
        let g2 = gcd(o.num, self.den);
        let num = (self.num / g1).checked_mul(o.num / g2)?;
        let den = (self.den / g2).checked_mul(o.den / g1)?;
        (num != i128::MIN).then(|| Ratio::new(num, den))
    }
}

fn overflow(a: Ratio, op: &str, b: Ratio) -> ! {
    panic!("an exact fraction overflows i128: {a} {op} {b}")
}

impl Add for Ratio {
    type Output = Ratio;
    fn add(self, o: Ratio) -> Ratio {
        self.checked_add(o)
            .unwrap_or_else(|| overflow(self, "+", o))
    }
}

impl Sub for Ratio {
    type Output = Ratio;
    fn sub(self, o: Ratio) -> Ratio {
        self.checked_sub(o)
            .unwrap_or_else(|| overflow(self, "−", o))
    }
}

impl Neg for Ratio {
    type Output = Ratio;
    fn neg(self) -> Ratio {
        // Never i128::MIN (see `Ratio::new`), so the negation cannot overflow.
        Ratio {
            num: -self.num,
            den: self.den,
        }
    }
}

impl Mul for Ratio {
    type Output = Ratio;
    fn mul(self, o: Ratio) -> Ratio {
        self.checked_mul(o)
            .unwrap_or_else(|| overflow(self, "·", o))
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// The exact odds of one hand and what it is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The first two cards: player higher, dealer higher, tie.
    pub p_win: Ratio,
    /// The dealer's first card is higher.
    pub p_loss: Ratio,
    /// The first two cards tie.
    pub p_tie: Ratio,
    /// The war cards after a tie, each as a probability of the whole hand (they sum to
    /// `p_tie` when the strategy is war, and are 0 for surrender).
    pub p_war_won: Ratio,
    /// The war cards tie (the bonus pays, where the table has one).
    pub p_war_tie: Ratio,
    /// The dealer's war card is higher.
    pub p_war_lost: Ratio,
    /// Expected result of the main bet (and raise) per chip of the bet.
    pub ev: Ratio,
    /// Expected result of the tie bet per chip of it (it pays 10 to 1).
    pub tie_bet_ev: Ratio,
}

impl Exact {
    /// The house edge of the main bet: the expected loss per chip of the original bet.
    pub fn house_edge(&self) -> Ratio {
        -self.ev
    }

    /// The house edge of the tie bet, per chip of it.
    pub fn tie_bet_edge(&self) -> Ratio {
        -self.tie_bet_ev
    }

    /// Expected result of a whole hand in chips: `bet` on the main bet, `tie_bet` on the tie.
    pub fn ev_per_hand(&self, bet: u64, tie_bet: u64) -> Ratio {
        self.ev * Ratio::int(bet as i128) + self.tie_bet_ev * Ratio::int(tie_bet as i128)
    }
}

/// The probability of each ordered rank pair `(a, b)` dealt from `counts` (of `total` cards),
/// or with replacement for an infinite deck. The products are at most `416 · 415`.
fn pair(counts: &[i128; RANKS as usize], total: i128, infinite: bool, a: usize, b: usize) -> Ratio {
    if infinite {
        Ratio::new(1, i128::from(RANKS) * i128::from(RANKS))
    } else {
        let same = i128::from(a == b);
        Ratio::new(counts[a] * (counts[b] - same), total * (total - 1))
    }
}

/// The exact value of a hand from a freshly shuffled shoe of `decks` (or an infinite deck).
///
/// # Size of the numbers
/// With `N` cards (`N ≤ 416`, 8 decks), every pair's probability has a denominator dividing
/// `N(N − 1)`, and every war pair's, after a tie, one dividing `D = N(N − 1)(N − 2)(N − 3)`;
/// sums of fractions whose denominators divide `D` keep denominators dividing `D`, and the
/// halving of a surrender makes it `2D` at most (`2D < 2³⁶` for 8 decks; `2·13⁴` for an
/// infinite deck). Every value is a probability or a payoff between −2 and 10, so its
/// numerator is at most `10 · 2D` in size, and the largest intermediate product of an
/// addition, a numerator times a denominator, stays below `2⁷⁶`, far from `i128`'s `2¹²⁷`. The
/// arithmetic is checked all the same (a test asserts the bound on every table), and an
/// overflow panics naming the table.
pub fn hand_value(decks: Decks, strategy: Strategy, bonus: bool) -> Exact {
    exact_hand(decks, strategy, bonus).unwrap_or_else(|| {
        panic!(
            "the exact value of a hand with decks = {decks:?}, strategy = {strategy:?}, \
             bonus = {bonus} overflows 128-bit fractions"
        )
    })
}

fn exact_hand(decks: Decks, strategy: Strategy, bonus: bool) -> Option<Exact> {
    let (per_rank, infinite) = match decks {
        Decks::Finite(d) => (4 * i128::from(d), false),
        Decks::Infinite => (4, true),
    };
    let r = RANKS as usize;
    let counts = [per_rank; RANKS as usize];
    let total = per_rank * i128::from(RANKS);
    let mut x = Exact {
        p_win: Ratio::ZERO,
        p_loss: Ratio::ZERO,
        p_tie: Ratio::ZERO,
        p_war_won: Ratio::ZERO,
        p_war_tie: Ratio::ZERO,
        p_war_lost: Ratio::ZERO,
        ev: Ratio::ZERO,
        tie_bet_ev: Ratio::ZERO,
    };
    for a in 0..r {
        for b in 0..r {
            let p = pair(&counts, total, infinite, a, b);
            let sum = match a.cmp(&b) {
                Ordering::Greater => &mut x.p_win,
                Ordering::Less => &mut x.p_loss,
                Ordering::Equal => &mut x.p_tie,
            };
            *sum = sum.checked_add(p)?;
            if a != b || strategy == Strategy::Surrender {
                continue;
            }
            let mut left = counts;
            if !infinite {
                left[a] -= 2;
            }
            let left_total = if infinite { total } else { total - 2 };
            for c in 0..r {
                for d in 0..r {
                    let q = p.checked_mul(pair(&left, left_total, infinite, c, d))?;
                    let sum = match c.cmp(&d) {
                        Ordering::Greater => &mut x.p_war_won,
                        Ordering::Equal => &mut x.p_war_tie,
                        Ordering::Less => &mut x.p_war_lost,
                    };
                    *sum = sum.checked_add(q)?;
                }
            }
        }
    }
    let tie_pays = match strategy {
        Strategy::Surrender => Ratio::new(-1, 2).checked_mul(x.p_tie)?,
        Strategy::War => x
            .p_war_won
            .checked_add(
                x.p_war_tie
                    .checked_mul(Ratio::int(if bonus { 2 } else { 1 }))?,
            )?
            .checked_sub(Ratio::int(2).checked_mul(x.p_war_lost)?)?,
    };
    x.ev = x.p_win.checked_sub(x.p_loss)?.checked_add(tie_pays)?;
    x.tie_bet_ev = Ratio::int(10)
        .checked_mul(x.p_tie)?
        .checked_sub(Ratio::ONE.checked_sub(x.p_tie)?)?;
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_stay_in_lowest_terms() {
        assert_eq!(Ratio::new(6, -4), Ratio::new(-3, 2));
        assert_eq!(Ratio::new(1, 3) + Ratio::new(1, 6), Ratio::new(1, 2));
        assert_eq!(Ratio::new(2, 3) * Ratio::new(9, 4), Ratio::new(3, 2));
        assert_eq!((Ratio::new(1, 3) - Ratio::new(1, 3)).to_string(), "0");
    }

    #[test]
    fn infinite_deck_in_closed_form() {
        // P(tie) = 1/13; the war cards tie with 1/13 and each side is higher with 6/13.
        let x = hand_value(Decks::Infinite, Strategy::War, false);
        assert_eq!(x.p_tie, Ratio::new(1, 13));
        assert_eq!(x.p_war_tie, Ratio::new(1, 169));
        // EV = 1/13 · (6/13 + 1/13 − 2·6/13) = −5/169.
        assert_eq!(x.ev, Ratio::new(-5, 169));
        let s = hand_value(Decks::Infinite, Strategy::Surrender, false);
        assert_eq!(s.ev, Ratio::new(-1, 26));
        assert_eq!(s.tie_bet_ev, Ratio::new(-2, 13));
    }

    /// The bound [`hand_value`]'s documentation proves: every fraction of every table has a
    /// denominator dividing `2·N(N − 1)(N − 2)(N − 3)` (`2·13⁴` for an infinite deck), and a
    /// numerator no larger than ten times that; so no operation came near `i128`'s limit.
    #[test]
    fn every_table_stays_within_the_proved_bound() {
        let mut decks: Vec<Decks> = (1..=8).map(Decks::Finite).collect();
        decks.push(Decks::Infinite);
        for d in decks {
            let bound = match d {
                Decks::Finite(k) => {
                    let n = 52 * i128::from(k);
                    2 * n * (n - 1) * (n - 2) * (n - 3)
                }
                Decks::Infinite => 2 * 13i128.pow(4),
            };
            assert!(bound < 1 << 36);
            for (strategy, bonus) in [
                (Strategy::War, false),
                (Strategy::War, true),
                (Strategy::Surrender, false),
            ] {
                let x = hand_value(d, strategy, bonus);
                for f in [
                    x.p_win,
                    x.p_loss,
                    x.p_tie,
                    x.p_war_won,
                    x.p_war_tie,
                    x.p_war_lost,
                    x.ev,
                    x.tie_bet_ev,
                ] {
                    assert_eq!(bound % f.den(), 0, "{d:?} {strategy:?} {bonus}: {f}");
                    assert!(f.num().abs() <= 10 * f.den(), "{d:?}: {f}");
                }
            }
        }
    }

    #[test]
    fn overflow_is_caught_not_wrapped() {
        // (2¹²⁷ − 2)/5 is in lowest terms: its double overflows the numerator.
        let big = Ratio::new(i128::MAX - 1, 5);
        assert_eq!(big.checked_add(big), None);
        assert_eq!(big.checked_mul(Ratio::int(4)), None);
        assert_eq!(Ratio::new(1, i128::MAX).checked_add(Ratio::new(1, 2)), None);
        let caught = std::panic::catch_unwind(|| big + big).unwrap_err();
        let text = caught.downcast_ref::<String>().unwrap();
        assert!(text.contains("overflows i128"), "{text}");
    }
}
