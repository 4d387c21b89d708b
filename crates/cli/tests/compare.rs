//! `warlab compare A B`: two runs, variant by variant, as a report compares with its baseline.

mod common;

use common::{scratch, warlab, write};

#[test]
fn two_runs_compare_variant_by_variant_and_bad_picks_are_refused() {
    let dir = scratch("compare", "two");
    let file = write(
        &dir,
        "c.toml",
        "name = \"c\"\ngames = 2000\nseed = 1\n[sweep]\npickup = [\"shuffled\", \"seat\"]\n",
    );
    let run = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec![
            "run",
            file.as_str(),
            "--out",
            out.to_str().unwrap(),
            "--no-report",
        ];
        args.extend(extra);
        let (code, _, err) = warlab(&args);
        assert_eq!(code, 0, "{err}");
        out.join("c").to_str().unwrap().to_string()
    };
    let a = run("a", &["--rule", "war_down=1"]);
    let b = run("b", &[]);
    let reports = dir.join("reports");
    let r = reports.to_str().unwrap();
    let (code, out, err) = warlab(&["compare", &a, &b, "--reports", r]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("compare.md"), "{out}");
    let md = std::fs::read_to_string(reports.join("c-vs-c").join("compare.md")).unwrap();
    for want in [
        "# `c` against `c`",
        "| overrides | `--rule war_down=1` | none |",
        "2 pair(s): A `pickup=shuffled` − B `pickup=shuffled`, A `pickup=seat` − B `pickup=seat`.",
        "| `pickup=shuffled` | 2000 |",
        "Holm-adjusted as one family",
        "baseline: never ended",
        "(survival.png)",
    ] {
        assert!(md.contains(want), "compare.md lacks {want}:\n{md}");
    }
    assert!(reports.join("c-vs-c").join("survival.svg").is_file());
    // Two variants of one run.
    let (code, _, err) = warlab(&[
        "compare",
        &a,
        &a,
        "--variant",
        "pickup=seat",
        "--variant-b",
        "pickup=shuffled",
        "--reports",
        r,
    ]);
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(reports.join("c-vs-c").join("compare.md")).unwrap();
    assert!(
        md.contains("1 pair(s): A `pickup=seat` − B `pickup=shuffled`."),
        "{md}"
    );
    // A variant one run does not have, a folder that is no run, --variant-b alone.
    let (code, _, err) = warlab(&["compare", &a, &b, "--variant", "nope", "--reports", r]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("has no variant `nope`; its variants: `pickup=shuffled`"),
        "{err}"
    );
    let (code, _, err) = warlab(&["compare", &a, dir.to_str().unwrap(), "--reports", r]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no manifest.json"), "{err}");
    let (code, _, _) = warlab(&["compare", &a, &b, "--variant-b", "x", "--reports", r]);
    assert_eq!(code, 2);
}
