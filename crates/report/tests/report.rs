//! A report from a small real run: every figure is a valid PNG and SVG with text in it, the
//! markdown holds the tables, and bad data folders are clear errors.

use std::path::{Path, PathBuf};

use warlab_engine::Rules;
use warlab_experiment::{Experiment, Variant};
use warlab_folders::FolderLock;
use warlab_runner::{CHUNK, play_chunk};
use warlab_scratch::Scratch;
use warlab_stats::Aggregate;
use warlab_stats::files::{AggregatesFile, Manifest, ManifestVariant, NamedAggregate};

/// Builds the report of `data` under its lock, as `warlab report` does.
fn build(data: &Path, reports: &Path) -> anyhow::Result<PathBuf> {
    let lock = FolderLock::acquire(data)?;
    warlab_report::build(&lock, reports, &Default::default())
}

/// The aggregate of `variant`'s games in `0..games`, played and counted chunk by chunk by the
/// runner, as `warlab run` does: the report is drawn from the counts a run really keeps.
fn play(variant: &Variant<Rules>, seed: u64, games: u64) -> Aggregate {
    let range = variant.games_in(0..games);
    let mut total = Aggregate::default();
    let mut from = range.start;
    while from < range.end {
        let to = ((from / CHUNK + 1) * CHUNK).min(range.end);
        let (chunk, _) = play_chunk(variant, seed, from..to, false, games);
        total.merge(&chunk);
        from = to;
    }
    total
}

fn scratch(name: &str) -> Scratch {
    warlab_scratch::scratch("report", name)
}

/// Plays `text` and writes the two files a report reads, as `warlab run` writes them.
fn data_folder(dir: &Path, text: &str) -> PathBuf {
    let exp = Experiment::parse(Path::new("experiments/t.toml"), text).unwrap();
    let data = dir.join("data").join(&exp.name);
    std::fs::create_dir_all(&data).unwrap();
    let aggregates = AggregatesFile {
        run: None,
        variants: exp
            .variants
            .iter()
            .map(|v| NamedAggregate {
                aggregate: play(v, exp.seed, exp.games),
                variant: v.name.clone(),
            })
            .collect(),
    };
    std::fs::write(
        data.join("aggregates.json"),
        serde_json::to_string(&aggregates).unwrap(),
    )
    .unwrap();
    let manifest = Manifest {
        game: "war".into(),
        experiment: exp.name.clone(),
        description: exp.description.clone(),
        file: "experiments/t.toml".into(),
        file_hash: exp.text_hash(),
        text: text.into(),
        overrides: Vec::new(),
        warlab_version: "test".into(),
        seed: exp.seed,
        games_from: 0,
        games_to: exp.games,
        games_per_variant: exp.games,
        rows: false,
        threads: 1,
        started_utc: "2026-11-29T00:00:00Z".into(),
        finished_utc: "2026-11-29T00:00:01Z".into(),
        seconds: 1.0,
        games_played: exp.games * exp.variants.len() as u64,
        games_per_s: 1.0,
        variants_resumed: 0,
        merged_from: Vec::new(),
        seed_scheme: String::new(),
        summary_csv_fnv1a: String::new(),
        variants: exp
            .variants
            .iter()
            .map(|v| ManifestVariant::new(&v.name, v.seed_id, v.rules.options().to_pairs()))
            .collect(),
    };
    std::fs::write(
        data.join("manifest.json"),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    data
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

/// Dark pixels in the top band of the figure, where the title is drawn.
fn dark_pixels_in_title(path: &Path) -> usize {
    let img = image::open(path).unwrap().to_rgb8();
    let mut dark = 0;
    // The title's 40 figure units at the PNG's density (2 pixels a unit by default).
    for y in 0..80 {
        for x in 0..img.width() {
            let p = img.get_pixel(x, y);
            if u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]) < 200 {
                dark += 1;
            }
        }
    }
    dark
}

const TEXT: &str = "name = \"t\"\ndescription = \"report test\"\ngames = 3000\nseed = 2\n\
baseline = \"war_down=3\"\n[rules]\npickup = \"seat\"\n[sweep]\nwar_down = [1, 2, 3]\n";

#[test]
fn every_figure_is_a_png_and_an_svg_with_text() {
    let dir = scratch("figures");
    let data = data_folder(&dir, TEXT);
    let out = build(&data, &dir.join("reports")).unwrap();
    assert_eq!(out, dir.join("reports").join("t"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let mut stems = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "png") {
            stems.push(p.file_stem().unwrap().to_str().unwrap().to_string());
        }
    }
    stems.sort();
    for want in ["survival", "boxes", "axis-war_down", "running-mean"] {
        assert!(
            stems.iter().any(|s| s == want),
            "{want} missing from {stems:?}"
        );
    }
    // Names with characters other than letters, digits, `-`, `_` carry their hash.
    for want in ["hist-war_down_1.", "cycles-war_down_1."] {
        assert!(
            stems.iter().any(|s| s.starts_with(want)),
            "{want}… missing from {stems:?}"
        );
    }
    for stem in &stems {
        let png = out.join(format!("{stem}.png"));
        let bytes = std::fs::read(&png).unwrap();
        // 1000 × 600 figure units at 2 pixels a unit: print density by default.
        assert_eq!(png_size(&bytes), (2000, 1200), "{stem}.png");
        assert!(
            dark_pixels_in_title(&png) > 200,
            "{stem}.png has no title text"
        );
        let svg = std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{stem}.svg");
        assert!(
            svg.contains("width=\"1000\"") && svg.contains("height=\"600\""),
            "{stem}.svg size"
        );
        // Its text as glyph outlines: it renders the same where no font is installed.
        assert!(!svg.contains("<text"), "{stem}.svg names a font");
        assert!(svg.matches("<path").count() > 5, "{stem}.svg has its text");
        assert!(svg.trim_end().ends_with("</svg>"), "{stem}.svg is complete");
        assert!(
            md.contains(&format!("({stem}.png)")),
            "report.md embeds {stem}"
        );
    }
    for section in [
        "## Variants",
        "## Game length",
        "## Comparison with the baseline `war_down=3`",
        "The experiment file names `war_down=3` as its baseline.",
        "## How games end",
        "## Loops",
        "## Even and odd game lengths",
        "## Was the sample large enough?",
        "won cards go under in seat order",
        "restricted mean to ",
        "Games that never ended (looping or capped), against the baseline's",
        "Holm-adjusted as one family",
        "levels off (dashed)",
        "Games that never ended are not in it: `war_down=1`",
        "warlab trace --experiment experiments/t.toml --variant 'war_down=1' --game",
        "--seed 2",
    ] {
        assert!(md.contains(section), "report.md lacks {section}");
    }
    // One face-down card gives the even/odd pattern.
    let row = md
        .lines()
        .find(|l| {
            l.starts_with("| `war_down=1` |")
                && l.contains('%')
                && l.ends_with("|")
                && (l.contains("**yes**") || l.contains(" no |"))
        })
        .unwrap();
    assert!(row.contains("**yes**"), "{row}");
}

#[test]
fn deck_sweeps_get_a_power_law() {
    let dir = scratch("decks");
    // A fixed deal of 12 numbered cards is one game, not a sample of its deck: not a point of
    // the line (else the line would have a point at n = 12 and no single fit).
    let data = data_folder(
        &dir,
        "name = \"d\"\ngames = 2000\n[sweep]\ndeck = [\"custom\"]\nsuits = [4]\nranks = [4, 6, 8, 10, 13]\n\
         [[variant]]\nname = \"fixed\"\ndeck = \"custom\"\nranks = 12\nsuits = 1\nranking = \"low-wins\"\n\
         pickup = \"winner-first\"\ngames = 1\ndeal = \"1 2 3 4 5 6 / 7 8 9 10 11 12\"\n",
    );
    let out = build(&data, &dir.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let line = md
        .lines()
        .find(|l| l.contains("length ∝ n^"))
        .expect("a fitted power law");
    let exponent: f64 = line
        .split("n^")
        .nth(1)
        .unwrap()
        .split("**")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1.2..3.0).contains(&exponent), "{line}");
    assert!(line.contains("χ² = "), "{line}");
    assert!(out.join("axis-ranks.png").is_file());
    // The local exponents between neighbouring decks, one row per pair.
    assert!(out.join("slopes-ranks.png").is_file());
    let slopes: Vec<&str> = md.lines().filter(|l| l.starts_with("| mean | ")).collect();
    assert_eq!(slopes.len(), 4, "{slopes:#?}");
    assert!(slopes[0].starts_with("| mean | 16 → 24 |"), "{}", slopes[0]);
    assert!(
        md.contains("not compared: `fixed`"),
        "fixed deals are not tested"
    );
}

#[test]
fn missing_or_partial_data_is_a_clear_error() {
    let dir = scratch("bad");
    let e = build(&dir.join("nope"), &dir.join("reports")).unwrap_err();
    assert!(e.to_string().contains("is not a folder"), "{e}");
    let partial = dir.join("partial");
    std::fs::create_dir_all(partial.join(".parts")).unwrap();
    let e = build(&partial, &dir.join("reports")).unwrap_err();
    assert!(e.to_string().contains("partial run"), "{e}");
    let data = data_folder(&dir, TEXT);
    std::fs::remove_file(data.join("aggregates.json")).unwrap();
    let e = build(&data, &dir.join("reports")).unwrap_err();
    assert!(format!("{e:#}").contains("aggregates.json"), "{e:#}");
    assert!(
        !dir.join("reports").join("t").exists(),
        "no report from bad data"
    );
}

#[test]
fn a_manifest_whose_experiment_text_does_not_parse_is_refused_naming_it() {
    // Once, the report went on with 2 players and 0 cards (log(0) in the power-law fit).
    let dir = scratch("text");
    let data = data_folder(&dir, TEXT);
    let manifest = std::fs::read_to_string(data.join("manifest.json")).unwrap();
    for (from, to, says) in [
        ("games = 3000", "games = \\\"many\\\"", "does not parse"),
        (
            "war_down = [1, 2, 3]",
            "war_down = [3, 2, 5]",
            "variant `war_down=1`",
        ),
    ] {
        let edited = manifest.replace(from, to);
        assert_ne!(edited, manifest, "{from}");
        std::fs::write(data.join("manifest.json"), edited).unwrap();
        let e = build(&data, &dir.join("reports")).unwrap_err();
        assert!(e.is::<warlab_folders::Refused>(), "{e:#}");
        let text = format!("{e:#}");
        assert!(
            text.contains(&data.join("manifest.json").display().to_string()),
            "{text}"
        );
        assert!(text.contains(says), "{text}");
        assert!(!dir.join("reports").join("t").exists(), "no report");
    }
}

#[test]
fn figure_names_are_unique_per_variant() {
    let dir = scratch("slugs");
    // `war_down=1` and `war_down_1` once shared hist-war_down_1.png; names in another script
    // all became `hist-.png`.
    let data = data_folder(
        &dir,
        "name = \"u\"\ngames = 200\n[sweep]\nwar_down = [1, 2]\n\
[[variant]]\nname = \"war_down_1\"\nwar_down = 3\n\
[[variant]]\nname = \"战争一\"\n[[variant]]\nname = \"战争二\"\nprize = true\n",
    );
    let out = build(&data, &dir.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let hists: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("hist-") && n.ends_with(".png"))
        .collect();
    assert_eq!(hists.len(), 5, "one histogram per variant: {hists:?}");
    assert!(
        hists.contains(&"hist-war_down_1.png".to_string()),
        "{hists:?}"
    );
    for h in &hists {
        assert_eq!(md.matches(&format!("({h})")).count(), 1, "{h} shown once");
    }
}

#[test]
fn a_manifest_name_never_becomes_a_path_outside_the_reports_folder() {
    let dir = scratch("names");
    let data = data_folder(&dir, TEXT);
    let reports = dir.join("reports");
    let keep = dir.join("keep.txt");
    std::fs::write(&keep, "the user's file").unwrap();
    let manifest = std::fs::read_to_string(data.join("manifest.json")).unwrap();
    let long = "x".repeat(300);
    for bad in ["..", "", ".", "/tmp", "../data", "a/b", long.as_str()] {
        let edited = manifest.replace("\"experiment\":\"t\"", &format!("\"experiment\":{bad:?}"));
        assert_ne!(edited, manifest);
        std::fs::write(data.join("manifest.json"), edited).unwrap();
        let e = build(&data, &reports).unwrap_err();
        assert!(e.is::<warlab_folders::Refused>(), "{e:#}");
        assert!(format!("{e:#}").contains("`experiment`"), "{e:#}");
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "the user's file");
        assert!(
            data.join("aggregates.json").is_file(),
            "the data is untouched"
        );
    }
}

#[test]
fn a_failed_report_leaves_the_old_one_whole() {
    let dir = scratch("swap");
    let data = data_folder(&dir, TEXT);
    let reports = dir.join("reports");
    let out = build(&data, &reports).unwrap();
    let before = std::fs::read_to_string(out.join("report.md")).unwrap();
    // A second report that fails half-way (its aggregates damaged) replaces nothing.
    std::fs::write(data.join("aggregates.json"), "{\"variants\": [").unwrap();
    build(&data, &reports).unwrap_err();
    assert_eq!(
        std::fs::read_to_string(out.join("report.md")).unwrap(),
        before
    );
    assert!(
        !reports.join(".t.tmp").exists(),
        "no half-built report left"
    );
}

#[test]
fn a_report_of_many_variants_draws_figures_for_a_stated_few() {
    let dir = scratch("many");
    let sizes: Vec<String> = (0..30).map(|n| n.to_string()).collect();
    let text = format!(
        "name = \"many\"\ndescription = \"many variants\"\ngames = 200\nseed = 3\n\
         [sweep]\nwar_down = [{}]\n",
        sizes.join(", ")
    );
    let data = data_folder(&dir, &text);
    let out = build(&data, &dir.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let hists = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_str().unwrap();
            name.starts_with("hist-") && name.ends_with(".png")
        })
        .count();
    assert_eq!(hists, 24);
    assert!(
        md.contains("The experiment file names no `baseline`, so the first variant, `war_down=0`, is the baseline"),
        "{md}"
    );
    assert!(
        md.contains("There are length histograms for the first 24 of these 30 variants"),
        "{md}"
    );
}

#[test]
fn small_decks_get_their_exact_values_beside_the_simulated_ones() {
    let dir = scratch("exact");
    // 4 and 6 cards: solved without being asked (at most 8 cards).
    let data = data_folder(
        &dir,
        "name = \"x\"\ngames = 4000\nseed = 5\n[rules]\ndeck = \"custom\"\nsuits = 2\n\
         [sweep]\npickup = [\"shuffled\", \"winner-first\"]\nranks = [2, 3, 4]\n",
    );
    let out = build(&data, &dir.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Exact values"), "{md}");
    // The 2 × 2 deck under shuffled pick-up: mean 8/3 battles (solved by hand in the exact
    // crate's tests).
    let row = md
        .lines()
        .find(|l| l.starts_with("| `pickup=shuffled,ranks=2` | iterated |"))
        .expect("the 2 × 2 row");
    assert!(row.contains("| 2.6667 |"), "{row}");
    let row = md
        .lines()
        .find(|l| l.starts_with("| `pickup=winner-first,ranks=2` | exact |"))
        .expect("a deterministic row");
    assert!(row.contains("(= 2)"), "{row}");
    assert!(
        md.contains("every simulated value agrees with its exact value"),
        "{md}"
    );
    assert!(out.join("exact.png").is_file() && out.join("exact.svg").is_file());

    // `exact = false`: no section.
    let data = data_folder(
        &dir.join("off"),
        "name = \"y\"\ngames = 500\nexact = false\n[rules]\ndeck = \"custom\"\nranks = 2\nsuits = 2\n",
    );
    let out = build(&data, &dir.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("## Exact values"), "{md}");
}

#[test]
fn what_decides_a_game_is_answered_with_intervals() {
    let on = scratch("decides");
    let text = "name = \"wd\"\ngames = 3000\nseed = 3\n[decides]\nposition = true\n\
                [[variant]]\nname = \"classic\"\n[[variant]]\nname = \"seat-order\"\npickup = \"seat\"\n\
                [[variant]]\nname = \"three\"\nplayers = 3\n";
    let data = data_folder(&on, text);
    let out = build(&data, &on.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for want in [
        "## What decides a game",
        "### The starting hand",
        "one more `A`: logistic fit",
        "log-odds +",
        "per decile of hand strength",
        "What one card of each value is worth",
        "### The position during play",
        "call it at 95 %",
        "(two players only)",
        "The last lead change of the games with a winner",
        "### How long a game takes",
        "median (95 % CI)",
        "The median `classic` game takes",
    ] {
        assert!(md.contains(want), "report.md lacks {want}");
    }
    for stem in [
        "decides-aces",
        "decides-values",
        "decides-position-classic",
        "decides-position-three",
        "decides-call-it-classic",
        "decides-minutes",
    ] {
        assert!(out.join(format!("{stem}.png")).exists(), "{stem}.png");
        assert!(
            md.contains(&format!("({stem}.png)")),
            "report.md embeds {stem}"
        );
    }
    // Three players have no seat-against-seat lead.
    assert!(!out.join("decides-call-it-three.png").exists());

    // Without `position`, the section says how to ask for it, and the time is there only
    // where the record gives it (not for three players).
    let dir = scratch("decides-off");
    let data = data_folder(&dir, &text.replace("position = true", "position = false"));
    let out = build(&data, &dir.join("reports")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("add `[decides]` with `position = true`"),
        "{md}"
    );
    assert!(md.contains("No time for `three`"), "{md}");
    assert!(!md.contains("### The position during play"));
}
