//! Every figure kind drawn for degenerate and large inputs: no panic, a bounded picture.

use std::path::Path;

use warlab_report::plots::{
    AxisMeans, BandedLine, Boxes, Curve, Forest, Lines, Look, MAX_PANELS, PER_PANEL, Plot,
    StackedShares, Survival, save,
};
use warlab_scratch::Scratch;

fn scratch(name: &str) -> Scratch {
    warlab_scratch::scratch("figures", name)
}

/// Draws `plot` as `stem` and checks both files: the PNG at the figure's size, the SVG whole
/// and not larger than `max_svg` bytes.
fn check(dir: &Path, stem: &str, plot: &impl Plot, max_svg: u64) {
    let look = Look::default();
    save(plot, dir, stem, &look).unwrap_or_else(|e| panic!("{stem}: {e:#}"));
    let png = std::fs::read(dir.join(format!("{stem}.png"))).unwrap();
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    let (uw, uh) = plot.size(&look);
    // The PNG is the figure at twice its size in units: print density by default.
    assert_eq!((w, h), (2 * uw, 2 * uh), "{stem}.png");
    let h = uh;
    assert!(
        h <= 60 + 330 * MAX_PANELS.div_ceil(2) as u32,
        "{stem}: {h} px tall"
    );
    let svg = dir.join(format!("{stem}.svg"));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.trim_end().ends_with("</svg>"),
        "{stem}.svg is complete"
    );
    // Text as outlines: the SVG needs no font where it is opened.
    assert!(!text.contains("<text"), "{stem}.svg names a font");
    let bytes = std::fs::metadata(&svg).unwrap().len();
    assert!(bytes <= max_svg, "{stem}.svg is {bytes} bytes");
}

fn curve(i: usize, longest: u64) -> Curve {
    let steps = (1..=longest)
        .map(|n| (n, (1.0 - n as f64 / (longest + 1) as f64) * 0.999))
        .collect();
    Curve {
        name: format!("variant {i}"),
        steps,
        plateau: i.is_multiple_of(3).then_some(0.01),
    }
}

#[test]
fn survival_of_one_game_one_variant_only_loops_and_a_thousand_variants() {
    let dir = scratch("survival");
    let survival = |series| Survival {
        title: "t".into(),
        unit: "battles".into(),
        series,
    };
    check(&dir, "one-game", &survival(vec![curve(1, 1)]), 200_000);
    let only_loops = Curve {
        name: "loops".into(),
        steps: Vec::new(),
        plateau: Some(1.0),
    };
    check(&dir, "only-loops", &survival(vec![only_loops]), 200_000);
    check(&dir, "none", &survival(Vec::new()), 200_000);
    let fifty: Vec<Curve> = (0..50).map(|i| curve(i, 10 + 20 * i as u64)).collect();
    let plot = survival(fifty);
    assert_eq!(plot.size(&Look::default()).1, 60 + 330 * 4);
    check(&dir, "fifty", &plot, 6_000_000);
    // A thousand variants: the figure shows a bounded subset and says so.
    let thousand: Vec<Curve> = (0..1000).map(|i| curve(i, 5000)).collect();
    check(&dir, "thousand", &survival(thousand), 8_000_000);
    assert_eq!(PER_PANEL * MAX_PANELS, 48);
}

#[test]
fn lines_boxes_and_axis_means_at_the_edges() {
    let dir = scratch("others");
    let line = |i: usize, points: usize| -> BandedLine {
        let pts: Vec<(f64, f64)> = (0..points).map(|k| (k as f64, (k * i) as f64)).collect();
        let band = pts.iter().map(|&(x, y)| (x, y - 1.0, y + 1.0)).collect();
        (format!("line {i}"), pts, band)
    };
    for (stem, series) in [
        ("lines-one-point", vec![line(1, 1)]),
        ("lines-empty", Vec::new()),
        ("lines-fifty", (0..50).map(|i| line(i, 100)).collect()),
        ("lines-thousand", (0..1000).map(|i| line(i, 3)).collect()),
    ] {
        let plot = Lines {
            title: "t".into(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            series,
            y_range: Some(-10.0..10.0),
        };
        check(&dir, stem, &plot, 20_000_000);
    }
    for (stem, rows) in [
        ("boxes-one", vec![("a".to_string(), [1.0; 5], 1.0)]),
        (
            "boxes-decades",
            vec![
                ("short".to_string(), [2.0, 3.0, 4.0, 5.0, 6.0], 4.0),
                ("long".to_string(), [900.0, 2e3, 5e3, 9e3, 3e4], 6e3),
            ],
        ),
    ] {
        let plot = Boxes {
            title: "t".into(),
            unit: "battles".into(),
            rows,
        };
        check(&dir, stem, &plot, 2_000_000);
    }
    for (stem, log_log, series) in [
        (
            "means-one",
            false,
            vec![("a".to_string(), vec![(2.0, 5.0, 4.0, 6.0)])],
        ),
        (
            "means-log",
            true,
            vec![(
                "a".to_string(),
                (2..30)
                    .map(|n| {
                        (
                            f64::from(n),
                            f64::from(n * n),
                            0.9 * f64::from(n * n),
                            1.1 * f64::from(n * n),
                        )
                    })
                    .collect(),
            )],
        ),
    ] {
        let plot = AxisMeans {
            title: "t".into(),
            axis: "players".into(),
            y_desc: "mean".into(),
            series,
            fits: Vec::new(),
            log_log,
            exact_pairs: false,
        };
        check(&dir, stem, &plot, 2_000_000);
    }
}

#[test]
fn forests_and_stacked_shares_of_one_and_a_thousand_rows() {
    let dir = scratch("rows");
    for n in [1usize, 1000] {
        let forest = Forest {
            title: "t".into(),
            x_desc: "difference".into(),
            rows: (0..n)
                .map(|i| (format!("v{i}"), i as f64, i as f64 - 1.0, i as f64 + 1.0))
                .collect(),
        };
        check(&dir, &format!("forest-{n}"), &forest, 2_000_000);
        let shares = StackedShares {
            title: "t".into(),
            parts: vec!["all_cards".into(), "cycle".into()],
            rows: (0..n).map(|i| (format!("v{i}"), vec![0.7, 0.3])).collect(),
        };
        check(&dir, &format!("shares-{n}"), &shares, 2_000_000);
    }
}

#[test]
fn histograms_of_one_game_one_value_and_a_long_tail() {
    use warlab_report::plots::{LengthHist, TwoHists};
    let dir = scratch("hists");
    for (stem, values) in [
        ("one-game", vec![(31_920u64, 1u64)]),
        ("one-value", vec![(50, 4000)]),
        ("tail", (1..20_000).map(|n| (n, 20_000 / n)).collect()),
    ] {
        let mean = values.iter().map(|v| (v.0 * v.1) as f64).sum::<f64>()
            / values.iter().map(|v| v.1 as f64).sum::<f64>();
        for log_y in [false, true] {
            let hist = LengthHist {
                title: "t".into(),
                unit: "battles".into(),
                values: values.clone(),
                mean,
                median: values[0].0 as f64,
                log_y,
            };
            check(&dir, &format!("hist-{stem}-{log_y}"), &hist, 2_000_000);
        }
        let two = TwoHists {
            title: "t".into(),
            panels: [
                ("periods".into(), values.clone()),
                ("starts".into(), values.clone()),
            ],
        };
        check(&dir, &format!("two-{stem}"), &two, 2_000_000);
    }
    // Nothing at all: both panels empty.
    let empty = TwoHists {
        title: "t".into(),
        panels: [("a".into(), Vec::new()), ("b".into(), Vec::new())],
    };
    check(&dir, "two-empty", &empty, 2_000_000);
}
