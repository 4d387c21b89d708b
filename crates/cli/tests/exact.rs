//! `warlab exact`: the JSON line of a deck solved by hand, and refusals with exit status 2.

use std::process::{Command, Output};

fn warlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warlab"))
        .args(args)
        .output()
        .expect("warlab runs")
}

/// The standard output of a run that succeeded.
fn stdout_of(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn close(v: &serde_json::Value, x: f64) -> bool {
    (v.as_f64().expect("a number") - x).abs() < 1e-12
}

/// Two ranks × two suits, winner-first pick-up: wins 1/6 each, draws 2/3, mean 2 (worked out in
/// crates/exact/tests/by_hand.rs).
#[test]
fn json_of_a_deck_solved_by_hand() {
    let out = warlab(&[
        "exact",
        "--rule",
        "deck=custom",
        "--rule",
        "ranks=2",
        "--rule",
        "suits=2",
        "--rule",
        "pickup=winner-first",
        "--json",
    ]);
    let text = stdout_of(out);
    let last = text.lines().last().expect("a JSON line");
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    assert!(close(&v["battles_mean"], 2.0));
    assert_eq!(v["battles_mean_exact"], "2");
    assert!(close(&v["win_share_0"], 1.0 / 6.0));
    assert!(close(&v["win_share_1"], 1.0 / 6.0));
    assert!(close(&v["draw_share"], 2.0 / 3.0));
    assert!(close(&v["loop_share"], 0.0));
    assert_eq!(v["method"], "exact");
    assert!(close(&v["residual"], 0.0));
    assert!(v["states"].as_u64().unwrap() >= 6);
    assert!(v["seconds"].as_f64().is_some());
    assert!(close(&v["lengths"][3], 1.0 / 3.0));

    // The table, from one deal, under shuffled pick-up.
    let out = warlab(&[
        "exact",
        "--rule",
        "deck=custom",
        "--rule",
        "ranks=2",
        "--rule",
        "suits=2",
        "--deal",
        "1 2 / 1 2",
    ]);
    let text = stdout_of(out);
    assert!(text.contains("P(draw)        1.000000"), "{text}");
    assert!(text.contains("iterated"), "{text}");
}

#[test]
fn bad_input_exits_2() {
    for (args, says) in [
        (&["exact", "--rule", "pickup=sideways"][..], "pickup"),
        (
            &[
                "exact",
                "--rule",
                "deck=custom",
                "--rule",
                "ranks=2",
                "--deal",
                "9 9 / 1",
            ][..],
            "deal",
        ),
        (&["exact", "--max-states", "1000"][..], "--max-states"),
        (
            &[
                "exact",
                "--rule",
                "deck=custom",
                "--rule",
                "ranks=4",
                "--rule",
                "suits=2",
                "--max-states",
                "3000",
            ][..],
            "--max-states",
        ),
    ] {
        let out = warlab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
