//! The option table is the one place each option is written: these tests check that what it
//! says is true of the parser, the printer and the user's reference (docs/rules.md).

use warlab_engine::{OPTIONS, RuleOptions, spec};

const RULES_MD: &str = include_str!("../../../docs/rules.md");

#[test]
fn every_named_value_reads_and_prints_back() {
    for opt in OPTIONS {
        assert!(!opt.means.is_empty(), "{} has no meaning", opt.name);
        assert!(
            !opt.named.is_empty() || !opt.other.is_empty(),
            "{} lists no values",
            opt.name
        );
        for n in opt.named {
            let mut o = RuleOptions::default();
            o.set(opt.name, n.name)
                .unwrap_or_else(|e| panic!("{}={}: {e}", opt.name, n.name));
            let written = o.to_pairs();
            let back = written.iter().find(|(k, _)| *k == opt.name);
            assert_eq!(
                back.map(|(_, v)| v.as_str()),
                Some(n.name),
                "{}={} prints back as {back:?}",
                opt.name,
                n.name
            );
            assert!(
                !n.means.is_empty(),
                "{}={} has no meaning",
                opt.name,
                n.name
            );
            assert!(
                opt.allowed().contains(n.name),
                "{}: allowed values omit {}",
                opt.name,
                n.name
            );
        }
    }
}

#[test]
fn the_defaults_print_as_values_the_table_reads() {
    let defaults = RuleOptions::default().to_pairs();
    let mut again = RuleOptions::default();
    for (k, v) in &defaults {
        again.set(k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
    }
    assert_eq!(again, RuleOptions::default());
    // Table order is print order, and every printed name is in the table.
    let order: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
    let printed: Vec<&str> = defaults.iter().map(|(k, _)| *k).collect();
    let mut in_order = order.clone();
    in_order.retain(|o| printed.contains(o));
    assert_eq!(printed, in_order);
}

#[test]
fn a_bad_value_names_the_allowed_ones() {
    let e = RuleOptions::default()
        .set("pickup", "upside-down")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "rule option `pickup` cannot be `upside-down`; allowed: shuffled, winner-first, \
         loser-first, played, seat, rank-desc, rank-asc"
    );
    let e = RuleOptions::default().set("war_down", "65").unwrap_err();
    assert!(e.to_string().contains("by-rank, or a number 0..=64"), "{e}");
    let e = RuleOptions::default().set("pick_up", "seat").unwrap_err();
    assert_eq!(e.value, None);
    assert_eq!(e.allowed, spec::names(OPTIONS));
}

#[test]
fn words_of_values() {
    let opt = |name| spec::find(OPTIONS, name).unwrap();
    assert_eq!(
        opt("pickup").words("seat"),
        "won cards go under in seat order"
    );
    assert_eq!(opt("war_down").words("1"), "1 card face down in a war");
    assert_eq!(opt("war_down").words("2"), "2 cards face down in a war");
    assert_eq!(opt("players").words("3"), "3 players");
}

/// The user's reference lists every option and every named value: a value added to the table
/// and not to the docs fails here.
#[test]
fn docs_rules_md_lists_every_option_and_value() {
    assert_eq!(spec::unmentioned(OPTIONS, RULES_MD), Vec::<String>::new());
}
