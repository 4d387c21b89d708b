//! Rule options in words, for the report's reader.

use warlab_engine::{OPTIONS, RuleOptions, spec};

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

/// An option's value in words, from the option table; a name the table does not know (a
/// manifest of another warlab) is shown as written.
fn phrase(k: &str, v: &str) -> String {
    spec::find(OPTIONS, k).map_or_else(|| format!("{k} = {v}"), |o| o.words(v))
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
