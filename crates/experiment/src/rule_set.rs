//! The games an experiment file can declare, as one trait: how a game's options are set from
//! text, built into a validated rule set, and printed back.

use std::fmt;

use warlab_casino::{CasinoOptions, CasinoRules};
use warlab_engine::{Opt, RuleOptions, Rules};

/// A game's validated rule set, as experiment files name and build it: War's [`Rules`] or
/// Casino War's [`CasinoRules`]. The file's top-level `game` picks one.
pub trait RuleSet: Clone + fmt::Debug + Send + Sync + 'static {
    /// The unchecked options, as a file sets them one by one.
    type Options: Default + Clone + 'static;
    /// A fixed deal a variant may play instead of shuffled ones.
    type Deal: Clone + fmt::Debug + Send + Sync + 'static;
    /// The value of `game = "…"` that selects this game.
    const GAME: &'static str;
    /// Every option: its name, meaning, values, and how it is read and written.
    const OPTIONS: &'static [Opt<Self::Options>];
    /// Sets one option from its text; the error says what is allowed.
    fn set(options: &mut Self::Options, key: &str, value: &str) -> Result<(), String>;
    /// Checks the options together and builds the rule set.
    fn build(options: Self::Options) -> Result<Self, String>;
    /// Every option as `(name, value)`, as `set` reads it.
    fn pairs(&self) -> Vec<(&'static str, String)>;
    /// Every option of unchecked options as `(name, value)`: values in their one written form
    /// (`01` is `1`), so that two spellings of one value can be told apart from two values.
    fn option_pairs(options: &Self::Options) -> Vec<(&'static str, String)>;
    /// Reads a fixed deal for these rules.
    fn deal(&self, text: &str) -> Result<Self::Deal, String>;
    /// True when nothing random happens after the deal.
    fn deterministic(&self) -> bool;
}

impl RuleSet for Rules {
    type Options = RuleOptions;
    type Deal = warlab_engine::Deal;
    const GAME: &'static str = "war";
    const OPTIONS: &'static [Opt<RuleOptions>] = warlab_engine::OPTIONS;
    fn set(options: &mut RuleOptions, key: &str, value: &str) -> Result<(), String> {
        options.set(key, value).map_err(|e| e.to_string())
    }
    fn build(options: RuleOptions) -> Result<Rules, String> {
        Rules::new(options).map_err(|e| e.to_string())
    }
    fn pairs(&self) -> Vec<(&'static str, String)> {
        self.options().to_pairs()
    }
    fn option_pairs(options: &RuleOptions) -> Vec<(&'static str, String)> {
        options.to_pairs()
    }
    fn deal(&self, text: &str) -> Result<warlab_engine::Deal, String> {
        warlab_engine::Deal::parse(self, text).map_err(|e| e.to_string())
    }
    fn deterministic(&self) -> bool {
        self.is_deterministic()
    }
}

/// Casino War deals come from shuffled shoes only.
#[derive(Clone, Debug)]
pub enum NoDeal {}

impl RuleSet for CasinoRules {
    type Options = CasinoOptions;
    type Deal = NoDeal;
    const GAME: &'static str = "casino-war";
    const OPTIONS: &'static [Opt<CasinoOptions>] = warlab_casino::OPTIONS;
    fn set(options: &mut CasinoOptions, key: &str, value: &str) -> Result<(), String> {
        options.set(key, value).map_err(|e| e.to_string())
    }
    fn build(options: CasinoOptions) -> Result<CasinoRules, String> {
        CasinoRules::new(options).map_err(|e| e.to_string())
    }
    fn pairs(&self) -> Vec<(&'static str, String)> {
        self.options().to_pairs()
    }
    fn option_pairs(options: &CasinoOptions) -> Vec<(&'static str, String)> {
        options.to_pairs()
    }
    fn deal(&self, _text: &str) -> Result<NoDeal, String> {
        Err(
            "a casino-war variant cannot have a fixed deal: sessions come from shuffled shoes"
                .into(),
        )
    }
    fn deterministic(&self) -> bool {
        false
    }
}
