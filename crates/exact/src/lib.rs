//! # warlab-exact
//!
//! Exact solutions of War for small decks: the ground truth simulations are checked against.
//!
//! A game of War is a finite Markov chain on positions (each seat's stack, won pile and hand).
//! [`solve`] builds the chain reachable from every deal of the deck (each distinct order of the
//! card values is one deal, weighted by how many orders of the cards deal it: suits are not
//! stored, so they never split a state) or from one given position, by replaying the engine's
//! own battle ([`warlab_engine::Battler`]) with every outcome of every random draw
//! ([`script::Script`]): no rule is written twice. Then:
//! - deterministic rules: each deal is followed to its end or its loop, with the loop's start
//!   and period exactly as the engine's cycle detection reports them; every figure is a count
//!   of deals, so the results are exact fractions ([`Method::Exact`]);
//! - random rules (shuffled pick-up, reshuffled piles, random hand play, `speed`): the
//!   distribution over states is pushed forward battle by battle (value iteration on the
//!   chain) until the probability of a game still running (and able to end) is below the
//!   tolerance; P(length = n) falls out of the same pass ([`Method::Iterated`]).
//!
//! `battle_limit` and `safety_cap` stop games as the engine does (the last battle is played by
//! the engine with the real count). A state space larger than [`Options::max_states`] is
//! refused with [`ExactError::TooManyStates`], counted up front for the deals and while
//! exploring for the rest.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod deals;
mod graph;
pub mod script;
mod solve;

use std::fmt;

use warlab_engine::{Deal, Ending};

pub use solve::{Fraction, solve};

/// What to solve from.
#[derive(Clone, Debug)]
pub enum Start {
    /// Every deal of the deck, each with its probability.
    AllDeals,
    /// One explicit deal (a position at the start of a game).
    Deal(Deal),
}

/// Limits and tolerance of a solve.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Most states (positions) the solver may keep.
    pub max_states: usize,
    /// Random rules: iterate until the probability of a game still running (and able to
    /// end) and its share of the mean length are below this.
    pub tolerance: f64,
}

/// Default of [`Options::max_states`]: about 1 GB of memory at most.
pub const DEFAULT_MAX_STATES: usize = 4_000_000;

impl Default for Options {
    fn default() -> Options {
        Options {
            max_states: DEFAULT_MAX_STATES,
            tolerance: 1e-12,
        }
    }
}

/// How the figures were computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Deterministic rules: every deal followed to its end or loop; exact fractions (integer
    /// counts of deals), printed as floats too.
    Exact,
    /// Random rules: the distribution over states pushed forward battle by battle until the
    /// residual (still-running probability, and its share of the mean) is below tolerance.
    Iterated,
}

impl Method {
    /// The name printed (`exact` or `iterated`).
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Iterated => "iterated",
        }
    }
}

/// A loop of deterministic rules: where it starts and its period, as the engine reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopShape {
    /// Battles before the first position that repeats.
    pub start: u64,
    /// Battles between repeats.
    pub period: u64,
}

/// The solved game.
#[derive(Clone, Debug)]
pub struct Solution {
    /// How the figures were computed.
    pub method: Method,
    /// `Iterated`: the probability still unaccounted for when the iteration stopped (a bound
    /// on every share's error); `Exact`: 0.
    pub residual: f64,
    /// A bound on the error of [`battles_mean`](Self::battles_mean) from stopping
    /// (`Exact`: 0).
    pub mean_residual: f64,
    /// States (positions) in the graph.
    pub states: usize,
    /// Distinct deals (orders of the card values) solved from (1 for one deal).
    pub deals: u128,
    /// Mean length in battles of the games that end (loops and capped games left out, as the
    /// engine's statistics do).
    pub battles_mean: f64,
    /// The same as an exact fraction (`Exact` only).
    pub battles_mean_exact: Option<Fraction>,
    /// P(seat p wins), per seat.
    pub win_share: Vec<f64>,
    /// Exact fractions of the same (`Exact` only).
    pub win_share_exact: Option<Vec<Fraction>>,
    /// P(the game ends without a winner).
    pub draw_share: f64,
    /// P(the game never ends): deterministic rules, a loop (the engine's `cycle`); random
    /// rules, the games that reach positions from which no ending can be reached (the engine
    /// stops them at its safety cap).
    pub loop_share: f64,
    /// P(the engine stops the game at `safety_cap` although it would end or close its loop
    /// later).
    pub capped_share: f64,
    /// Exact fractions of draws, loops and caps (`Exact` only).
    pub other_exact: Option<[Fraction; 3]>,
    /// P(ending) for each way a game ends (winner or not), by reason and winner.
    pub endings: Vec<(Ending, f64)>,
    /// P(length = n) of the games that end, n = 0, 1, …
    pub lengths: Vec<f64>,
    /// Deterministic rules: each loop shape with its probability.
    pub loops: Vec<(LoopShape, f64)>,
    /// Seconds the solve took.
    pub seconds: f64,
}

/// Why a solve was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ExactError {
    /// More states than allowed.
    TooManyStates {
        /// The limit.
        limit: usize,
        /// What exceeded it (`deals` counted up front, or `explored`).
        found: &'static str,
    },
    /// The deck has more deals than the limit allows (counted up front).
    TooManyDeals {
        /// Distinct deals of the deck (`None`: more than 2^128).
        deals: Option<u128>,
        /// The limit.
        limit: usize,
    },
    /// A battle has too many random outcomes to enumerate.
    TooRandom(String),
    /// More cards than a position's key can hold (255).
    DeckTooLarge(usize),
}

impl fmt::Display for ExactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExactError::TooManyStates { limit, found } => write!(
                f,
                "more than {limit} states ({found}): the state space is too large for --max-states {limit}; raise --max-states (memory grows about 150 bytes a state) or use a smaller deck (deck=custom, ranks, suits)"
            ),
            ExactError::TooManyDeals { deals, limit } => {
                let n = deals.map_or("more than 2^128".to_string(), |d| d.to_string());
                write!(
                    f,
                    "the deck has {n} distinct deals, more than --max-states {limit}: every deal is a state; raise --max-states or use a smaller deck (deck=custom, ranks, suits)"
                )
            }
            ExactError::DeckTooLarge(n) => write!(
                f,
                "{n} cards: the exact solver takes decks of at most 255 cards (and in practice about 16); use a smaller deck (deck=custom, ranks, suits)"
            ),
            ExactError::TooRandom(what) => write!(
                f,
                "cannot enumerate the random outcomes: {what} (pickup=shuffled, on_empty=shuffle or hand_policy=random on a large pot or pile); use a smaller deck"
            ),
        }
    }
}

impl std::error::Error for ExactError {}
