//! The `warlab` binary end to end.

mod common;

use common::warlab;

#[test]
fn trace_worked_example() {
    let (code, out, _) = warlab(&[
        "trace",
        "--deal",
        "QS 8C 2C 3C 5C KH AD / 9H 8D 2D 3D 5D 4S KC",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("Q vs 9 -> seat 0 takes 2"), "{out}");
    assert!(
        out.contains("WAR 1 seats 0,1 (3 down): K vs 4 -> seat 0 takes 10"),
        "{out}"
    );
    assert!(out.contains("end: all_cards after 3 battles"), "{out}");
}

#[test]
fn trace_json_lines() {
    let (code, out, _) = warlab(&["trace", "--seed", "4", "--game", "2", "--json"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("{\"type\":\"deal\""));
    assert!(lines.last().unwrap().starts_with("{\"type\":\"end\""));
    let battles = lines
        .iter()
        .filter(|l| l.starts_with("{\"type\":\"battle\""))
        .count();
    assert!(
        lines
            .last()
            .unwrap()
            .contains(&format!("\"battles\":{battles},")),
        "{}",
        lines.last().unwrap()
    );
    // Every line is JSON (serde writes it), and the rules' text, `=` and `,` in it, reads back.
    let (code, out, _) = warlab(&[
        "trace",
        "--seed",
        "4",
        "--json",
        "--rule",
        "war_down=J=1,Q=2",
        "--rule",
        "pickup=seat",
    ]);
    assert_eq!(code, 0);
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    let deal: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(deal["rules"], "war_down=J=1,Q=2 pickup=seat");
}

#[test]
fn trace_spivey_cycle() {
    let (code, out, _) = warlab(&[
        "trace",
        "--rule",
        "deck=custom",
        "--rule",
        "ranks=52",
        "--rule",
        "suits=1",
        "--rule",
        "ranking=low-wins",
        "--rule",
        "pickup=winner-first",
        "--deal",
        "26 46 1 7 8 27 9 28 29 47 2 10 11 30 12 31 32 48 3 13 14 33 15 34 35 49 / 16 36 17 37 38 50 4 18 19 39 20 40 41 51 5 21 22 42 23 43 44 52 6 24 25 45",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("cycle: the state after battle 0 recurs every 31920 battles"),
        "{}",
        &out[out.len().saturating_sub(400)..]
    );
}

#[test]
fn bad_rules_are_clear_errors_with_status_2() {
    let (code, _, err) = warlab(&["trace", "--rule", "pickup=sideways"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("pickup") && err.contains("winner-first"),
        "{err}"
    );
    let (code, _, err) = warlab(&["bench", "--rule", "on_empty=shuffle"]);
    assert_eq!(code, 2);
    assert!(err.contains("on_empty") && err.contains("pile"), "{err}");
    let dir = common::scratch("cli", "rules-file");
    let file = dir.join("r.toml");
    std::fs::write(&file, "pickup = \"seat\"\n\nwar_down = [1, 2]\n").unwrap();
    let (code, _, err) = warlab(&["trace", "--rules", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("r.toml:3:12") && err.contains("war_down") && err.contains("by-rank"),
        "{err}"
    );
    // Columns count characters, as in experiment files (`é` is 2 bytes: 13 would be bytes).
    std::fs::write(&file, "pickup = \"seat\"\n\"pické\" = \"x\"\n").unwrap();
    let (code, _, err) = warlab(&["trace", "--rules", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("r.toml:2:11: `pické`"), "{err}");
}

#[test]
fn bench_ends_with_a_json_line() {
    let (code, out, _) = warlab(&["bench", "--games", "2000", "--reps", "3", "--threads", "2"]);
    assert_eq!(code, 0);
    let last = out.lines().last().unwrap();
    for key in [
        "\"games_per_s_1t\":",
        "\"ns_per_battle_1t\":",
        "\"games_per_s_all\":",
        "\"loop\":",
    ] {
        assert!(last.contains(key), "{last}");
    }
    let last: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(last["rules"], "classic");
    assert_eq!(last["reps_1t"].as_array().map(Vec::len), Some(3), "{last}");
    // `--portable` keeps the classic shape off the vector loop.
    let (code, out, _) = warlab(&[
        "bench",
        "--games",
        "500",
        "--reps",
        "1",
        "--threads",
        "1",
        "--portable",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("\"loop\":\"duo\""), "{out}");
    // `--shapes`: one row and one JSON line per engine shape, classic first at ratio 1.
    let (code, out, _) = warlab(&["bench", "--shapes", "--games", "50", "--reps", "1"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("| classic |"), "{out}");
    assert!(out.contains("| players=4 | table |"), "{out}");
    let json: Vec<&str> = out.lines().filter(|l| l.starts_with('{')).collect();
    assert!(json.len() > 30, "{out}");
    assert!(json[0].contains("\"ratio_to_classic\":1.0"), "{}", json[0]);
}

#[test]
fn rules_lists_every_option_and_explains_every_value() {
    let (code, out, _) = warlab(&["rules"]);
    assert_eq!(code, 0);
    for opt in warlab_engine::OPTIONS {
        assert!(
            out.contains(&format!("  {:<20} default", opt.name)),
            "{out}"
        );
        assert!(out.contains(opt.means), "{out}");
        for n in opt.named {
            assert!(
                out.contains(&format!("{:<16} {}", n.name, n.means)),
                "{out}"
            );
        }
    }
    for opt in warlab_casino::OPTIONS {
        assert!(out.contains(opt.means), "{out}");
    }
    assert!(
        out.contains("  pickup               default shuffled"),
        "{out}"
    );
    assert!(
        out.contains("      seat             won cards go under in seat order"),
        "{out}"
    );
}
