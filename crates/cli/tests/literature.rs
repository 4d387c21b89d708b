//! The literature experiment, reduced: every published figure is set beside warlab's value and
//! judged with both sides' standard errors (the same rule as the full run, so fewer games only
//! widen the tolerance through the SE, never by a fixed margin).

mod common;

use std::path::Path;

use common::warlab;

#[test]
fn published_figures_are_reproduced_except_the_documented_finite_size_exponent() {
    let dir = common::scratch("literature", "reduced");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/literature.toml");
    let (code, _, stderr) = warlab(&[
        "run",
        file.to_str().unwrap(),
        "--games",
        "5000",
        "--out",
        dir.join("data").to_str().unwrap(),
        "--reports",
        dir.join("reports").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let md = std::fs::read_to_string(dir.join("reports/literature/report.md")).unwrap();
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("## Published figures"))
        .filter(|l| l.starts_with("| ") && l.chars().nth(2).is_some_and(|c| c.is_ascii_digit()))
        .collect();
    let text = std::fs::read_to_string(&file).unwrap();
    let published = text.lines().filter(|l| l.trim() == "[[published]]").count();
    assert_eq!(rows.len(), published, "one row per published figure");
    let mut differ = Vec::new();
    for row in &rows {
        if row.contains("**differs**") {
            differ.push(*row);
        } else {
            assert!(row.contains("**agrees**"), "not computed: {row}");
        }
    }
    // The n² law on 4-suit decks of 16..104 cards does not hold yet (wars fade with the deck
    // size, see the note in the file); every other figure agrees.
    assert_eq!(differ.len(), 2, "{differ:#?}");
    for row in differ {
        assert!(
            row.contains("`exponent`") && row.contains("4 suits"),
            "{row}"
        );
    }
    // Spivey's deal loops; its period is in the loop table with the trace command.
    assert!(
        md.contains("--variant 'spivey' --game 0"),
        "a trace command for the loop"
    );
    assert!(md.contains("| `spivey` |"));
}
