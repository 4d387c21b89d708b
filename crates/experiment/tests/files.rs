//! Experiment files: expansion of sweeps and variants, and errors that say where and what.

use std::path::Path;

use warlab_experiment::{AnyExperiment, Experiment, ExperimentError};

fn parse(text: &str) -> Result<Experiment, ExperimentError> {
    Experiment::parse(Path::new("exp.toml"), text)
}

fn error(text: &str) -> ExperimentError {
    parse(text).expect_err("the file is invalid")
}

const HEAD: &str = "name = \"t\"\ngames = 10\n";

#[test]
fn sweep_is_a_cartesian_product_with_readable_names() {
    let e = parse(&format!(
        "{HEAD}seed = 7\n[rules]\nwar_down = 1\n[sweep]\npickup = [\"seat\", \"shuffled\"]\nplayers = [2, 3]\n\
         [[variant]]\nname = \"four\"\nplayers = 4\n"
    ))
    .unwrap();
    let names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "pickup=seat,players=2",
            "pickup=seat,players=3",
            "pickup=shuffled,players=2",
            "pickup=shuffled,players=3",
            "four"
        ]
    );
    assert_eq!(e.seed, 7);
    assert_eq!(e.games, 10);
    // Base rules reach every variant, the sweep's values override them.
    for v in &e.variants {
        let pairs = v.rules.options().to_pairs();
        assert!(pairs.contains(&("war_down", "1".to_string())), "{}", v.name);
    }
    assert_eq!(e.variants[4].rules.players(), 4);
    assert_eq!(e.variants[1].rules.players(), 3);
}

#[test]
fn seed_ids_depend_only_on_the_variant_name() {
    let a = parse(&format!(
        "{HEAD}[sweep]\npickup = [\"seat\", \"shuffled\"]\n"
    ))
    .unwrap();
    let b = parse(&format!(
        "{HEAD}[sweep]\npickup = [\"winner-first\", \"shuffled\"]\n"
    ))
    .unwrap();
    assert_eq!(a.variants[1].name, b.variants[1].name);
    assert_eq!(a.variants[1].seed_id, b.variants[1].seed_id);
    assert_ne!(a.variants[0].seed_id, a.variants[1].seed_id);
}

#[test]
fn single_valued_axes_stay_out_of_names_and_defaults_apply() {
    let e = parse(&format!(
        "{HEAD}[sweep]\ndeck = [\"custom\"]\nsuits = [4]\nranks = [4, 5]\n"
    ))
    .unwrap();
    let names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["ranks=4", "ranks=5"]);
    assert_eq!(e.variants[1].rules.cards_in_play(), 20);
    let plain = parse(HEAD).unwrap();
    assert_eq!(plain.variants.len(), 1);
    assert_eq!(plain.variants[0].name, "base");
    assert_eq!(plain.seed, 1);
    assert!(!plain.rows);
}

#[test]
fn inline_table_war_down() {
    let e = parse(&format!(
        "{HEAD}[rules]\nwar_down = {{ J = 1, Q = 2, K = 3, A = 4 }}\n"
    ))
    .unwrap();
    let pairs = e.variants[0].rules.options().to_pairs();
    let wd = &pairs.iter().find(|(k, _)| *k == "war_down").unwrap().1;
    assert!(wd.contains("J=1") && wd.contains("A=4"), "{wd}");
}

#[test]
fn unknown_top_level_key_names_line_column_and_allowed_keys() {
    let e = error("name = \"t\"\ngames = 10\n  gmaes = 3\n");
    assert_eq!((e.line, e.column), (3, 3));
    assert_eq!(e.key.as_deref(), Some("gmaes"));
    let msg = e.to_string();
    assert!(
        msg.starts_with("exp.toml:3:3: `gmaes`: unknown key"),
        "{msg}"
    );
    assert!(msg.contains("games") && msg.contains("sweep"), "{msg}");
}

#[test]
fn columns_count_characters_not_bytes() {
    // `é` and `战` are 2 and 3 bytes: an editor puts `gmaes` at column 3 of line 2.
    let e = error("name = \"t\" # é\n战 gmaes = 3\n");
    assert_eq!((e.line, e.column), (2, 3), "{e}");
    let text = "a\n\"é战\" = x";
    assert_eq!(
        warlab_experiment::line_col(text, text.find('x').unwrap()),
        (2, 8)
    );
    // An offset inside a character is that character's column; past the end, the end.
    assert_eq!(warlab_experiment::line_col(text, 4), (2, 2));
    assert_eq!(warlab_experiment::line_col(text, 1000), (2, 9));
}

#[test]
fn a_rule_option_at_top_level_gets_a_hint() {
    let e = error(&format!("{HEAD}pickup = \"seat\"\n"));
    assert!(e.message.contains("put it under [rules] or [sweep]"), "{e}");
}

#[test]
fn wrong_types_are_named() {
    let e = error("name = \"t\"\ngames = \"many\"\n");
    assert_eq!((e.line, e.key.as_deref()), (2, Some("games")));
    assert!(
        e.message
            .contains("expected an integer from 1 to 10000000000, found a string"),
        "{e}"
    );
    let e = error("name = \"t\"\ngames = 0\n");
    assert!(e.message.contains("found 0"), "{e}");
    let e = error(&format!("{HEAD}rows = 1\n"));
    assert!(e.message.contains("true or false"), "{e}");
    let e = error("name = \"a/b\"\ngames = 1\n");
    assert_eq!(e.key.as_deref(), Some("name"));
}

#[test]
fn unknown_option_and_bad_value_list_the_allowed_ones() {
    let e = error(&format!("{HEAD}[rules]\npikup = \"seat\"\n"));
    assert_eq!((e.line, e.key.as_deref()), (4, Some("rules.pikup")));
    assert!(e.message.contains("unknown rule option `pikup`"), "{e}");
    assert!(e.message.contains("pickup"), "{e}");
    let e = error(&format!(
        "{HEAD}[sweep]\npickup = [\"seat\", \"sideways\"]\n"
    ));
    assert_eq!((e.line, e.column), (4, 19));
    assert_eq!(e.key.as_deref(), Some("sweep.pickup"));
    assert!(e.message.contains("cannot be `sideways`"), "{e}");
    assert!(e.message.contains("winner-first"), "{e}");
}

#[test]
fn sweep_axes_must_be_non_empty_lists_without_repeats() {
    let e = error(&format!("{HEAD}[sweep]\npickup = \"seat\"\n"));
    assert!(e.message.contains("a sweep axis is a list"), "{e}");
    let e = error(&format!("{HEAD}[sweep]\npickup = []\n"));
    assert!(e.message.contains("empty list"), "{e}");
    let e = error(&format!("{HEAD}[sweep]\nplayers = [2, 2]\n"));
    assert!(e.message.contains("listed twice"), "{e}");
}

#[test]
fn invalid_combinations_name_the_variant_and_the_options() {
    let e = error(&format!(
        "{HEAD}[sweep]\nplayers = [2, 3]\non_empty = [\"shuffle\"]\n"
    ));
    assert_eq!(e.key.as_deref(), Some("sweep"));
    assert!(e.message.contains("variant `players=2`"), "{e}");
    assert!(e.message.contains("on_empty"), "{e}");
    let e = error(&format!(
        "{HEAD}[[variant]]\nname = \"x\"\nhand_policy = \"highest\"\n"
    ));
    assert_eq!(e.key.as_deref(), Some("variant[0]"));
    assert!(e.message.contains("hand_policy"), "{e}");
}

#[test]
fn variants_need_unique_names_and_the_baseline_must_exist() {
    let e = error(&format!(
        "{HEAD}[[variant]]\nname = \"a\"\n[[variant]]\nname = \"a\"\nprize = true\n"
    ));
    assert!(e.message.contains("two variants are named `a`"), "{e}");
    let e = error(&format!("{HEAD}[[variant]]\nprize = true\n"));
    assert!(e.message.contains("needs a `name`"), "{e}");
    let e = error(&format!(
        "{HEAD}baseline = \"zz\"\n[[variant]]\nname = \"a\"\n"
    ));
    assert_eq!(e.key.as_deref(), Some("baseline"));
    assert!(e.message.contains("the variants: a"), "{e}");
}

#[test]
fn missing_keys_and_broken_toml() {
    let e = error("games = 3\n");
    assert_eq!(e.key.as_deref(), Some("name"));
    assert!(e.message.contains("missing"), "{e}");
    let e = error("name = \"t\"\n");
    assert_eq!(e.key.as_deref(), Some("games"));
    let e = error("name = \"t\"\ngames = [1,\n");
    assert!(e.message.contains("not valid TOML"), "{e}");
    assert_eq!(e.line, 2);
    let e = Experiment::load(Path::new("/nonexistent/x.toml")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/x.toml: cannot read"),
        "{e}"
    );
}

#[test]
fn bundled_experiments_are_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let e = AnyExperiment::load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                path.file_stem().unwrap().to_str().unwrap(),
                e.name(),
                "file named after its experiment"
            );
            n += 1;
        }
    }
    assert!(n >= 9, "{n} experiments");
}

#[test]
fn casino_war_files_take_the_table_options() {
    let text = "name = \"cw\"\ngame = \"casino-war\"\ngames = 10\n\
[rules]\nbankroll = 20\n[sweep]\ndecks = [1, \"infinite\"]\nstrategy = [\"war\", \"surrender\"]\n";
    let AnyExperiment::Casino(e) = AnyExperiment::parse(Path::new("cw.toml"), text).unwrap() else {
        panic!("a casino-war experiment");
    };
    let names: Vec<&str> = e.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "decks=1,strategy=war",
            "decks=1,strategy=surrender",
            "decks=infinite,strategy=war",
            "decks=infinite,strategy=surrender"
        ]
    );
    assert_eq!(e.variants[0].rules.bankroll(), 20);
    // A War reader refuses it, naming the key; War options are unknown here.
    let err = Experiment::parse(Path::new("cw.toml"), text).unwrap_err();
    assert_eq!((err.line, err.key.as_deref()), (2, Some("game")));
    let err = AnyExperiment::parse(
        Path::new("cw.toml"),
        &text.replace("bankroll = 20", "war_down = 1"),
    )
    .unwrap_err();
    assert!(
        err.message.contains("unknown casino-war option `war_down`"),
        "{err}"
    );
    // A War file is still War.
    assert!(matches!(
        AnyExperiment::parse(Path::new("w.toml"), "name = \"w\"\ngames = 1\n").unwrap(),
        AnyExperiment::War(_)
    ));
}

#[test]
fn variants_may_play_a_fixed_deal_and_fewer_games() {
    let text = "name = \"d\"\ngames = 100\n\
[[variant]]\nname = \"fixed\"\nwar_down = 1\ngames = 3\ndeal = \"QS 8C / 9H 8D\"\n\
[[variant]]\nname = \"loop\"\npickup = \"seat\"\ngames = 1\ndeal = \"QS 8C / 9H 8D\"\n";
    let e = parse(text).unwrap();
    assert_eq!(e.variants[0].games, Some(3));
    assert_eq!(e.variants[0].games_in(0..100), 0..3);
    assert_eq!(e.variants[0].games_in(50..100), 3..3);
    assert!(e.variants[0].deal.is_some());
    // A fixed deal under deterministic rules needs `games = 1`.
    let err = error(&text.replace("pickup = \"seat\"\ngames = 1\n", "pickup = \"seat\"\n"));
    assert!(err.message.contains("games = 1"), "{err}");
    assert_eq!(err.line, 11);
    let err = error(&text.replace("QS 8C / 9H 8D\"\n[[", "QS 8C / 9H ZZ\"\n[["));
    assert!(err.message.contains("bad deal"), "{err}");
}

#[test]
fn published_figures_are_checked() {
    let base = "name = \"p\"\ngames = 10\n[[variant]]\nname = \"a\"\n\
[[published]]\nsource = \"S\"\nfigure = \"F\"\nstatistic = \"plays_mean\"\nvariant = \"a\"\nvalue = 294.5\ngames = 1000\n";
    let e = parse(base).unwrap();
    let p = &e.published[0];
    assert_eq!(p.value, Some(294.5));
    assert_eq!(p.decimals, 1);
    assert_eq!(p.games, Some(1000));
    assert_eq!(
        p.statistic,
        warlab_experiment::Statistic::Length {
            unit: warlab_experiment::LengthUnit::Plays,
            measure: warlab_experiment::Measure::Mean
        }
    );
    let err = error(&base.replace("plays_mean", "plays_mode"));
    assert!(err.message.contains("unknown statistic") && err.message.contains("plays_median"));
    assert_eq!(err.line, 8);
    let err = error(&base.replace("variant = \"a\"\nvalue", "variant = \"b\"\nvalue"));
    assert!(err.message.contains("no variant is named `b`"), "{err}");
    let err = error(&base.replace("value = 294.5\n", ""));
    assert!(err.message.contains("`low` and `high`"), "{err}");
    let e = parse(&base.replace("value = 294.5", "low = 30000")).unwrap();
    assert_eq!(e.published[0].range, Some((30000.0, f64::INFINITY)));
    let err = error(&base.replace("value = 294.5", "high = 30000"));
    assert!(err.message.contains("`low` alone"), "{err}");
    let e = parse(&base.replace("value = 294.5", "value = 3.1e-9")).unwrap();
    assert_eq!(e.published[0].decimals, 10);
    let err = error(&base.replace("games = 1000", "decks = 9"));
    assert!(err.message.contains("infinite"), "{err}");
}

#[test]
fn sweeps_beyond_the_variant_limit_are_refused_before_expanding() {
    let list = |n: u64| (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    // Four axes of 65,536 values multiply to 2^64: once "0 variants", then a panic.
    let text = format!(
        "{HEAD}[sweep]\nbattle_limit = [{l}]\nsafety_cap = [{l}]\ntarget_cards = [{l}]\nmin_cards = [{l}]\n",
        l = list(65_536)
    );
    let e = error(&text);
    assert_eq!((e.line, e.key.as_deref()), (4, Some("sweep")));
    assert!(
        e.message.contains("18446744073709551616 variants") && e.message.contains("at most 100000"),
        "{e}"
    );
    // Exactly the limit is fine; one named variant more is not.
    let at_limit = format!(
        "{HEAD}[sweep]\nbattle_limit = [{}]\nsafety_cap = [{}]\n",
        list(1000),
        list(100)
    );
    let e = parse(&at_limit).unwrap();
    assert_eq!(e.variants.len(), warlab_experiment::MAX_VARIANTS);
    let e = error(&format!("{at_limit}[[variant]]\nname = \"one-more\"\n"));
    assert!(e.message.contains("plus 1 named"), "{e}");
}

#[test]
fn games_are_bounded() {
    let e = error("name = \"t\"\ngames = 18446744073709551615\n");
    assert_eq!((e.line, e.key.as_deref()), (2, Some("games")));
    assert!(e.message.contains("from 1 to 10000000000"), "{e}");
    let e = error(&format!(
        "{HEAD}[[variant]]\nname = \"a\"\ngames = 10000000001\n"
    ));
    assert_eq!(e.key.as_deref(), Some("variant[0].games"));
    let e = parse("name = \"t\"\ngames = 10_000_000_000\n").unwrap();
    assert_eq!(e.games, warlab_experiment::MAX_GAMES);
}

#[test]
fn a_missing_games_key_says_what_games_takes() {
    let e = error("name = \"t\"\n");
    assert_eq!(e.key.as_deref(), Some("games"));
    assert!(e.message.contains("games per variant"), "{e}");
    assert!(
        !e.message.contains("casino-war"),
        "not the help of `game`: {e}"
    );
}

#[test]
fn deals_may_not_repeat_a_card_or_leave_a_seat_empty() {
    let deal = |d: &str| {
        format!("{HEAD}[[variant]]\nname = \"d\"\ngames = 1\nwar_down = 1\ndeal = \"{d}\"\n")
    };
    let e = error(&deal("AS AS / KS KD"));
    assert_eq!((e.line, e.key.as_deref()), (7, Some("variant[0].deal")));
    assert!(
        e.message
            .contains("`AS` is dealt 2 times; the deck holds 1"),
        "{e}"
    );
    let e = error(&deal("AS KS // QS JS"));
    assert!(e.message.contains("seat 1 has no cards"), "{e}");
    let e = error(&deal("AS KS / QS JS /"));
    assert!(e.message.contains("seat 2 has no cards"), "{e}");
    // Different suits, cards without suits, and two decks are fine.
    parse(&deal("AS AH / KS KD")).unwrap();
    parse(&deal("A A / K K")).unwrap();
    parse(&deal("AS 10S JK / KS 10H JK").replace("war_down = 1", "deck = \"jokers54\"")).unwrap();
    parse(&deal("AS AS / KS KD").replace("war_down = 1", "decks = 2")).unwrap();
    // The engine still counts copies per value.
    let e = error(&deal("A A A / A A K"));
    assert!(e.message.contains("more `A` cards"), "{e}");
}

#[test]
fn a_table_value_may_not_repeat_a_key() {
    for text in [
        format!("{HEAD}[rules]\nwar_down = \"J=1,J=2\"\n"),
        format!("{HEAD}[sweep]\nwar_down = [\"J=1,j=2\", 3]\n"),
        format!("{HEAD}[[variant]]\nname = \"v\"\nwar_down = \"J=1,Q=2,J=2\"\n"),
    ] {
        let e = error(&text);
        assert!(e.message.contains("`J` is given twice"), "{e}");
        assert!(e.key.as_deref().unwrap().ends_with("war_down"), "{e}");
    }
}

#[test]
fn sweep_values_equal_after_reading_are_repeats() {
    let e = error(&format!("{HEAD}[sweep]\nwar_down = [1, '01']\n"));
    assert_eq!((e.line, e.column), (4, 16));
    assert!(
        e.message.contains("`01` is `1` again (both read as `1`)"),
        "{e}"
    );
    let e = error(&format!(
        "{HEAD}[sweep]\nbattle_limit = [\"none\", 100, \" none\"]\n"
    ));
    assert!(e.message.contains("again"), "{e}");
}

#[test]
fn published_values_are_finite_and_only_in_war_files() {
    let base = "name = \"p\"\ngames = 10\n[[variant]]\nname = \"a\"\n\
[[published]]\nsource = \"S\"\nfigure = \"F\"\nstatistic = \"plays_mean\"\nvariant = \"a\"\nvalue = 1\n";
    for bad in ["nan", "inf", "-inf", "+nan"] {
        let e = error(&base.replace("value = 1", &format!("value = {bad}")));
        assert_eq!(
            (e.line, e.key.as_deref()),
            (10, Some("published[0].value")),
            "{e}"
        );
        assert!(e.message.contains("not a finite number"), "{e}");
    }
    let e = error(&base.replace("value = 1", "low = 1\nhigh = nan"));
    assert_eq!(e.key.as_deref(), Some("published[0].high"));
    let casino = "name = \"c\"\ngame = \"casino-war\"\ngames = 10\n\
[[published]]\nsource = \"S\"\nfigure = \"F\"\nstatistic = \"casino_house_edge\"\nvalue = 2.88\n";
    let e = AnyExperiment::parse(Path::new("c.toml"), casino).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (4, Some("published")));
    assert!(e.message.contains("would be dropped"), "{e}");
}

#[test]
fn names_that_cannot_be_folders_are_refused() {
    for bad in [
        "..", ".", "", ".hidden", "a/b", "../x", "/abs", "a b", "名字",
    ] {
        let e = error(&format!("name = \"{bad}\"\ngames = 1\n"));
        assert_eq!((e.line, e.key.as_deref()), (1, Some("name")), "{bad}: {e}");
        assert!(warlab_experiment::check_name(bad).is_err(), "{bad}");
    }
    let long = "x".repeat(warlab_experiment::MAX_NAME_CHARS + 1);
    let e = error(&format!("name = \"{long}\"\ngames = 1\n"));
    assert!(e.message.contains("cannot name an output folder"), "{e}");
    parse(&format!("name = \"{}\"\ngames = 1\n", &long[1..])).unwrap();
}

#[test]
fn oversized_and_non_text_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("warlab-exp-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.toml");
    let mut text = String::from(HEAD);
    text.push_str(&format!("description = \"{}\"\n", "x".repeat(17 << 20)));
    std::fs::write(&big, text).unwrap();
    let e = Experiment::load(&big).unwrap_err();
    assert!(e.message.contains("larger than 16 MiB"), "{e}");
    let e = Experiment::load(Path::new("/dev/zero")).unwrap_err();
    assert!(e.message.contains("larger than 16 MiB"), "{e}");
    let e = Experiment::load(&dir).unwrap_err();
    assert!(e.message.contains("is a folder"), "{e}");
    let binary = dir.join("bin.toml");
    std::fs::write(&binary, [b'n', 0xff, 0xfe]).unwrap();
    let e = Experiment::load(&binary).unwrap_err();
    assert!(e.message.contains("not UTF-8"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn report_table_sets_the_figures_and_names_bad_keys_and_values() {
    let e = parse(&format!(
        "{HEAD}[report]\nwidth = 1400\ndpi = 300\nlog_hist = true\n"
    ))
    .unwrap();
    let f = e.figures;
    assert_eq!(
        (f.width, f.height, f.dpi, f.log_hist),
        (Some(1400), None, Some(300), Some(true))
    );
    assert_eq!(parse(HEAD).unwrap().figures, Default::default());

    let e = error(&format!("{HEAD}[report]\nwidht = 1400\n"));
    assert_eq!((e.line, e.key.as_deref()), (4, Some("report.widht")));
    let msg = e.to_string();
    assert!(
        msg.contains("unknown key") && msg.contains("width") && msg.contains("dpi"),
        "{msg}"
    );
    let e = error(&format!("{HEAD}[report]\ndpi = 5000\n"));
    assert_eq!(e.key.as_deref(), Some("report.dpi"));
    assert!(e.to_string().contains("from 48 to 600"), "{e}");
    let e = error(&format!("{HEAD}[report]\nlog_hist = \"yes\"\n"));
    assert!(e.to_string().contains("true or false"), "{e}");
    let e = error(&format!("{HEAD}report = 3\n"));
    assert!(e.to_string().contains("expected a table"), "{e}");
}

#[test]
fn decides_table_sets_position_and_the_time_model_and_names_bad_values() {
    use warlab_experiment::{DecidesSettings, Follow, TimeModel};
    let e = parse(&format!(
        "{HEAD}[decides]\nposition = true\nbattle_seconds = 2.5\nwar_card_seconds = 1\nshuffle_seconds = 0.125\n\
         [sweep]\nwar_down = [1, 3]\n"
    ))
    .unwrap();
    let want = DecidesSettings {
        position: Follow::All,
        time: TimeModel {
            battle_ms: 2500,
            war_card_ms: 1000,
            shuffle_ms: 125,
        },
    };
    assert_eq!(e.decides, want);
    // Every variant carries the experiment's settings to the runner.
    assert!(e.variants.iter().all(|v| v.decides == want));
    assert_eq!(parse(HEAD).unwrap().decides, DecidesSettings::default());
    assert_eq!(TimeModel::default().battle_ms, 2000);

    let e = error(&format!("{HEAD}[decides]\npositon = true\n"));
    assert_eq!((e.line, e.key.as_deref()), (4, Some("decides.positon")));
    assert!(
        e.message.contains("unknown key") && e.message.contains("battle_seconds"),
        "{e}"
    );
    for bad in ["-1", "601", "0.0005", "\"2\""] {
        let e = error(&format!("{HEAD}[decides]\nbattle_seconds = {bad}\n"));
        assert_eq!(e.key.as_deref(), Some("decides.battle_seconds"), "{bad}");
        assert!(e.message.contains("seconds"), "{bad}: {e}");
    }
    let e = error(&format!("{HEAD}[decides]\nposition = \"all\"\n"));
    assert!(e.message.contains("how many games to follow"), "{e}");
    let e = error(&format!("{HEAD}[decides]\nposition = 0\n"));
    assert!(e.message.contains("from 1 to"), "{e}");
    let first = parse(&format!("{HEAD}[decides]\nposition = 5000\n")).unwrap();
    assert_eq!(first.decides.position, Follow::First(5000));
    assert!(Follow::First(5000).follows(4999) && !Follow::First(5000).follows(5000));
    // Casino War has no battles to follow.
    let e = warlab_experiment::AnyExperiment::parse(
        Path::new("c.toml"),
        &format!("game = \"casino-war\"\n{HEAD}[decides]\nposition = true\n"),
    )
    .unwrap_err();
    assert!(e.message.contains("War games"), "{e}");
}
