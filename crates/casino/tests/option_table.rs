//! Casino War's option table against the user's reference and its own parser.

use warlab_casino::{CasinoOptions, OPTIONS};
use warlab_engine::spec;

#[test]
fn docs_rules_md_lists_every_casino_option_and_value() {
    let doc = include_str!("../../../docs/rules.md");
    assert_eq!(spec::unmentioned(OPTIONS, doc), Vec::<String>::new());
}

#[test]
fn every_named_value_reads_and_prints_back() {
    for opt in OPTIONS {
        for n in opt.named {
            let mut o = CasinoOptions::default();
            o.set(opt.name, n.name).unwrap();
            assert!(o.to_pairs().contains(&(opt.name, n.name.to_string())));
        }
    }
    let e = CasinoOptions::default().set("decks", "9").unwrap_err();
    assert_eq!(
        e.to_string(),
        "casino-war option `decks` cannot be `9`; allowed: infinite, or a number 1..=8"
    );
}
