//! The analysis the README shows, on two bundled experiments: their summaries concatenate
//! (diagonally, as files of different games would need), and per-game rows join to their
//! rules through `variants.parquet`, every column typed, with no parsing of variant names.

mod common;

use std::path::{Path, PathBuf};

use common::warlab;
use polars::functions::concat_df_diagonal;
use polars::prelude::*;

fn run(name: &str, out: &Path) -> PathBuf {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(format!("{name}.toml"));
    let (code, _, stderr) = warlab(&[
        "run",
        file.to_str().unwrap(),
        "--games",
        "200",
        "--rows",
        "--no-report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{name}: {stderr}");
    out.join(name)
}

fn read(dir: &Path, file: &str) -> DataFrame {
    warlab_data::read_parquet(&dir.join(file)).unwrap()
}

fn dtype(df: &DataFrame, column: &str) -> DataType {
    df.column(column).unwrap().dtype().clone()
}

#[test]
fn summaries_of_two_experiments_concatenate_and_games_join_their_rules() {
    let dir = common::scratch("analysis", "two");
    let out = dir.join("data");
    let classic = run("classic", &out);
    let house = run("house-rules", &out);

    let summaries = [
        read(&classic, "summary.parquet"),
        read(&house, "summary.parquet"),
    ];
    let all = concat_df_diagonal(&summaries).expect("two experiments' summaries concatenate");
    assert_eq!(all.height(), summaries[0].height() + summaries[1].height());
    let experiments = all.column("experiment").unwrap().str().unwrap().clone();
    assert_eq!(experiments.get(0), Some("classic"));
    assert_eq!(experiments.get(all.height() - 1), Some("house-rules"));
    assert!(matches!(dtype(&all, "pile"), DataType::Enum(..)), "{all}");
    assert_eq!(dtype(&all, "prize"), DataType::Boolean);
    assert_eq!(dtype(&all, "battle_limit"), DataType::Int64);

    // Per-game rows join their variant's rules on the run columns and `variant`.
    let games = read(&house, "games.parquet");
    let variants = read(&house, "variants.parquet");
    // The run's text columns are text in both, as the join needs (games.parquet's are written
    // from dictionaries, under a schema that says text).
    for c in ["experiment", "file_hash", "variant"] {
        assert_eq!(dtype(&games, c), DataType::String, "games.parquet {c}");
        assert_eq!(
            dtype(&variants, c),
            DataType::String,
            "variants.parquet {c}"
        );
    }
    assert_eq!(dtype(&games, "seed"), DataType::UInt64);
    let on = ["experiment", "seed", "file_hash", "variant"].map(col);
    let joined = games
        .clone()
        .lazy()
        .join(
            variants.lazy(),
            on.clone(),
            on,
            JoinArgs::new(JoinType::Left),
        )
        .collect()
        .unwrap();
    assert_eq!(joined.height(), games.height());
    assert_eq!(dtype(&joined, "winner"), DataType::UInt8);
    assert!(matches!(dtype(&joined, "end_reason"), DataType::Enum(..)));
    assert!(matches!(dtype(&joined, "pile"), DataType::Enum(..)));
    assert!(matches!(dtype(&joined, "on_empty"), DataType::Enum(..)));
    assert_eq!(dtype(&joined, "prize"), DataType::Boolean);
    // Every variant's 200 games carry that variant's rules: the prize-card variant's games
    // have `prize` true, the two-pile reshuffle's `pile` two-pile, the others neither.
    let count = |filter: Expr| {
        joined
            .clone()
            .lazy()
            .filter(filter)
            .collect()
            .unwrap()
            .height()
    };
    assert_eq!(count(col("prize").eq(lit(true))), 200);
    assert_eq!(
        count(
            col("prize")
                .eq(lit(true))
                .and(col("variant").eq(lit("prize-card")))
        ),
        200
    );
    let pile = joined
        .column("pile")
        .unwrap()
        .cast(&DataType::String)
        .unwrap();
    let names = joined.column("variant").unwrap().str().unwrap().clone();
    let pile = pile.str().unwrap();
    for i in 0..joined.height() {
        assert_eq!(
            pile.get(i) == Some("two-pile"),
            names.get(i) == Some("two-pile-reshuffle"),
            "row {i}"
        );
    }
    // The Casino War files: the same run columns, their own rule columns and end reasons.
    // (Its `decks` is text, `infinite` or a number, War's a count: data/README.md says to cast
    // one before concatenating the two games' summaries.)
    let casino = run("casino-war", &out);
    let casino_summary = read(&casino, "summary.parquet");
    for c in ["experiment", "seed", "file_hash", "variant"] {
        assert_eq!(dtype(&casino_summary, c), dtype(&all, c), "{c}");
    }
    let sessions = read(&casino, "games.parquet");
    assert!(matches!(dtype(&sessions, "end_reason"), DataType::Enum(..)));
    assert!(matches!(
        dtype(&read(&casino, "variants.parquet"), "strategy"),
        DataType::Enum(..)
    ));

    // scripts/check_readers.py reads both games' folders; its standard-library checks run on
    // any machine with Python, the Parquet ones where pandas and pyarrow are installed.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/check_readers.py");
    match std::process::Command::new("python3")
        .arg(&script)
        .args([&classic, &house, &casino])
        .output()
    {
        Err(e) => eprintln!("python3 cannot be run ({e}): scripts/check_readers.py not exercised"),
        Ok(run) => {
            let stdout = String::from_utf8_lossy(&run.stdout);
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(run.status.success(), "{stdout}{stderr}");
            for dir in [&classic, &house, &casino] {
                let ok = format!("ok: {}: standard library", dir.display());
                assert!(stdout.contains(&ok), "{stdout}");
            }
        }
    }
}
