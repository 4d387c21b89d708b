//! `--json` on `validate`, `rules` and `run`: a last line a script can read.

mod common;

use common::{scratch, warlab, write};

fn last_json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.lines().last().expect("a last line")).expect("JSON")
}

#[test]
fn validate_json_lists_each_file() {
    let dir = scratch("json", "validate");
    let good = write(
        &dir,
        "good.toml",
        "name = \"g\"\ngames = 10\n[sweep]\nwar_down = [1, 2]\n",
    );
    let bad = write(
        &dir,
        "bad.toml",
        "name = \"b\"\ngames = 10\n[rules]\npickup = \"x\"\n",
    );
    let (code, out, _) = warlab(&["validate", &good, &bad, "--json"]);
    assert_eq!(code, 2);
    let j = last_json(&out);
    assert_eq!(j["files"][0]["ok"], true);
    assert_eq!(j["files"][0]["variants"], 2);
    assert_eq!(j["files"][0]["game"], "war");
    assert_eq!(j["files"][1]["ok"], false);
    assert_eq!(j["files"][1]["line"], 4);
    assert_eq!(j["files"][1]["key"], "rules.pickup");
}

#[test]
fn rules_json_has_every_option_with_its_values() {
    let (code, out, _) = warlab(&["rules", "--json"]);
    assert_eq!(code, 0);
    let j = last_json(&out);
    let war = j["war"].as_array().unwrap();
    assert_eq!(war.len(), warlab_engine::OPTIONS.len());
    let pickup = war.iter().find(|o| o["name"] == "pickup").unwrap();
    assert_eq!(pickup["default"], "shuffled");
    assert_eq!(pickup["values"][4]["name"], "seat");
    assert_eq!(
        pickup["values"][4]["means"],
        "won cards go under in seat order"
    );
    let ranks = war.iter().find(|o| o["name"] == "ranks").unwrap();
    assert!(ranks["default"].is_null());
    assert!(j["casino-war"].as_array().unwrap().len() > 5);
}

#[test]
fn run_json_ends_with_the_run() {
    let dir = scratch("json", "run");
    let file = write(&dir, "j.toml", "name = \"j\"\ngames = 500\nseed = 3\n");
    let (data, reports) = (dir.join("data"), dir.join("reports"));
    let (code, out, err) = warlab(&[
        "run",
        &file,
        "--rule",
        "pickup=seat",
        "--out",
        data.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j = last_json(&out);
    assert_eq!(j["experiment"], "j");
    assert_eq!(j["games_played"], 500);
    assert_eq!(j["overrides"], serde_json::json!(["--rule", "pickup=seat"]));
    assert_eq!(j["data"], data.join("j").display().to_string());
    assert_eq!(
        j["report"],
        reports.join("j").join("report.md").display().to_string()
    );
}

#[test]
fn a_war_trace_starts_with_the_game_it_replays() {
    let (code, out, _) = warlab(&["trace", "--seed", "7", "--variant", "3", "--game", "9"]);
    assert_eq!(code, 0);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("war: classic"));
    assert_eq!(lines.next(), Some("seed 7 variant 3 game 9"));
    let (code, out, _) = warlab(&[
        "trace",
        "--seed",
        "7",
        "--variant",
        "3",
        "--game",
        "9",
        "--json",
    ]);
    assert_eq!(code, 0);
    let deal: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(deal["type"], "deal");
    assert_eq!(
        (
            deal["seed"].clone(),
            deal["variant"].clone(),
            deal["game"].clone()
        ),
        (7.into(), 3.into(), 9.into())
    );
}
