//! Rule options in words, for the report's reader.

use warlab_engine::RuleOptions;

/// One sentence per option that differs from the classic default; "the classic rules" when none does.
pub fn describe(pairs: &[(String, String)]) -> String {
    let classic: Vec<(&str, String)> = RuleOptions::default().to_pairs();
    let differs: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(k, v)| !classic.iter().any(|(ck, cv)| ck == k && cv == v))
        .filter(|(k, _)| k != "safety_cap" || pairs.iter().all(|(k, _)| k != "battle_limit"))
        .collect();
    if differs.is_empty() {
        return "The classic rules: 2 players, one 52-card deck, aces high, 3 cards face \
                down in a war, wars repeat on a tie, a short player plays all but the last card \
                face down, won cards go under the stack in random order."
            .to_string();
    }
    let phrases: Vec<String> = differs.iter().map(|(k, v)| phrase(k, v)).collect();
    format!("Classic rules, except: {}.", phrases.join("; "))
}

fn phrase(k: &str, v: &str) -> String {
    match (k, v) {
        ("players", n) => format!("{n} players"),
        ("deck", "piquet36") => "a 36-card piquet deck (6 to ace)".into(),
        ("deck", "jokers54") => "52 cards plus 2 jokers (jokers beat everything)".into(),
        ("deck", "custom") => "a custom deck".into(),
        ("decks", n) => format!("{n} decks shuffled together"),
        ("ranks", n) => format!("{n} ranks"),
        ("suits", n) => format!("{n} cards of each rank"),
        ("ranking", "aces-low") => "aces low".into(),
        ("ranking", "peasant") => {
            "peasant ranking (aces low, a 2 beats everything but an ace, an ace beats a 2)".into()
        }
        ("ranking", "low-beats-high") => "the lowest rank beats the ace".into(),
        ("ranking", "low-wins") => "the lower card wins".into(),
        ("low_rank", r) => format!("rank {r} beats the ace"),
        ("war_down", "by-rank") => {
            "as many cards face down in a war as the tied rank's value".into()
        }
        ("war_down", n) if n.parse::<u32>().is_ok() => {
            format!(
                "{n} card{} face down in a war",
                if n == "1" { "" } else { "s" }
            )
        }
        ("war_down", t) => format!("war size by rank: {t}"),
        ("chained_war", "flip-one") => "a tie in a war is settled by one face-up card each".into(),
        ("short_war", "last-card-up") => {
            "a player short of cards for a war plays their last card face up".into()
        }
        ("short_war", "lose") => "a player who cannot complete a war loses".into(),
        ("pickup", "winner-first") => "won cards go under the winner's cards first".into(),
        ("pickup", "loser-first") => "won cards go under with the loser's cards first".into(),
        ("pickup", "played") => {
            "won cards go under in the order played, winner's card first in each layer".into()
        }
        ("pickup", "seat") => "won cards go under in seat order".into(),
        ("pickup", "rank-desc") => "won cards go under highest first".into(),
        ("pickup", "rank-asc") => "won cards go under lowest first".into(),
        ("pile", "two-pile") => "won cards go to a separate pile".into(),
        ("on_empty", "turn-over") => "an empty stack is replaced by the won pile as it lies".into(),
        ("on_empty", "shuffle") => "an empty stack is replaced by the won pile, shuffled".into(),
        ("on_empty", "lose") => "a player whose stack runs out loses".into(),
        ("battle_limit", n) => format!("the game stops after {n} battles (most cards wins)"),
        ("wars_to_win", n) => format!("the first to win {n} wars wins"),
        ("target_cards", n) => format!("the first to hold {n} cards wins"),
        ("min_cards", n) => format!("a player with fewer than {n} cards loses"),
        ("prize", "true") => "the winner of a battle also takes a prize card from the loser".into(),
        ("war_cause_to_loser", "true") => "the cards that caused a war go to its loser".into(),
        ("hand", n) => format!("each player holds {n} cards in hand and chooses which to play"),
        ("hand_policy", p) => format!("hand policy per seat: {p}"),
        ("speed", p) => format!("speed grab: seat 0 grabs a battle with probability {p}"),
        ("safety_cap", "none") => "no safety cap".into(),
        ("safety_cap", n) => format!("games stop (as capped) after {n} battles"),
        (k, v) => format!("{k} = {v}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut o = RuleOptions::default();
        for (k, v) in p {
            o.set(k, v).unwrap();
        }
        o.to_pairs()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    #[test]
    fn classic_and_changes_in_words() {
        assert!(describe(&pairs(&[])).starts_with("The classic rules"));
        let d = describe(&pairs(&[("pickup", "seat"), ("war_down", "1")]));
        assert_eq!(
            d,
            "Classic rules, except: 1 card face down in a war; won cards go under in seat order."
        );
    }
}
