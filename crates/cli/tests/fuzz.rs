//! Mutated bundled experiment files: never a panic or a hang; every rejection is exit status 2
//! with the file and the line.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use common::warlab;
use warlab_experiment::AnyExperiment;

/// splitmix64: a small deterministic generator, so a failing mutant can be reproduced.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "nan",
    "inf",
    "-inf",
    "1e400",
    "99999999999",
    "01",
    "0x10",
    "1_000",
    "65536",
    "3.5",
    "[1, 2]",
    "\"7\"",
];

const STRINGS: &[&str] = &[
    "",
    "..",
    "/",
    "../x",
    "/etc",
    "AS AS / KS KD",
    "AS KS // QS JS",
    "J=1,J=2",
    "J=1,Q=x",
    "汉字",
    "none",
    "by-rank",
    "casino-war",
    "war",
    "a\\nb",
    "seat",
];

const KEYS: &[&str] = &[
    "name",
    "games",
    "game",
    "seed",
    "rows",
    "baseline",
    "description",
    "variant",
    "published",
    "sweep",
    "rules",
    "war_down",
    "pickup",
    "players",
    "deck",
    "decks",
    "value",
    "statistic",
    "deal",
    "low",
    "high",
    "bogus",
];

const CHARS: &[&str] = &[
    "[", "]", "[[", "{", "}", "=", "\"", "'", "\n", ",", "#", "\\", ".", " ", "\"\"\"", "\u{0}",
];

/// One random change to `text`.
fn mutate_once(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let n = lines.len();
    let chars: Vec<char> = text.chars().collect();
    match rng.below(9) {
        0 => {
            lines.remove(rng.below(n));
        }
        1 => {
            let i = rng.below(n);
            let line = lines[i].clone();
            lines.insert(i, line);
        }
        2 if n > 1 => {
            let i = rng.below(n - 1);
            lines.swap(i, i + 1);
        }
        3 => {
            // A number (a run of digits) replaced.
            let runs: Vec<(usize, usize)> = number_runs(&chars);
            if let Some(&(a, b)) = runs.get(rng.below(runs.len())) {
                let mut out: String = chars[..a].iter().collect();
                out.push_str(rng.pick(NUMBERS));
                out.extend(&chars[b..]);
                return out;
            }
        }
        4 => {
            // A string's contents replaced.
            let quotes: Vec<usize> = (0..chars.len()).filter(|&i| chars[i] == '"').collect();
            if quotes.len() >= 2 {
                let k = rng.below(quotes.len() - 1);
                let (a, b) = (quotes[k], quotes[k + 1]);
                let mut out: String = chars[..=a].iter().collect();
                let s = rng.pick(STRINGS);
                if rng.below(8) == 0 {
                    out.push_str(&"x".repeat(300));
                } else {
                    out.push_str(s);
                }
                out.extend(&chars[b..]);
                return out;
            }
        }
        5 => {
            let at = rng.below(chars.len() + 1);
            let mut out: String = chars[..at].iter().collect();
            out.push_str(rng.pick(CHARS));
            out.extend(&chars[at..]);
            return out;
        }
        6 => return chars[..rng.below(chars.len() + 1)].iter().collect(),
        7 => {
            // A key renamed.
            let i = rng.below(n);
            if let Some((_, rest)) = lines[i].split_once('=') {
                lines[i] = format!("{} ={rest}", rng.pick(KEYS));
            }
        }
        _ => {
            // A new line at the top level or in the current table.
            let i = rng.below(n + 1);
            let key = rng.pick(KEYS);
            let value = if rng.below(2) == 0 {
                rng.pick(NUMBERS).to_string()
            } else {
                format!("\"{}\"", rng.pick(STRINGS))
            };
            lines.insert(i, format!("{key} = {value}"));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn number_runs(chars: &[char]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

fn bundled() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_str().unwrap().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    assert!(files.len() >= 9, "{} bundled experiments", files.len());
    files
}

#[test]
fn mutated_experiment_files_are_accepted_or_refused_with_file_and_line() {
    let dir = common::scratch("fuzz", "mutants");
    let mut rng = Rng(14);
    let files = bundled();
    let per_file = 1600 / files.len() + 1;
    // (path, its expected error prefix, or None when the file is valid)
    let mut mutants: Vec<(PathBuf, Option<String>)> = Vec::new();
    for (stem, text) in &files {
        for k in 0..per_file {
            let mut mutant = text.clone();
            for _ in 0..1 + rng.below(3) {
                mutant = mutate_once(&mutant, &mut rng);
            }
            let path = dir.join(format!("{stem}-{k:04}.toml"));
            std::fs::write(&path, &mutant).unwrap();
            let parsed = catch_unwind(AssertUnwindSafe(|| AnyExperiment::parse(&path, &mutant)));
            let expected = match parsed {
                Err(_) => panic!("parsing {} panicked", path.display()),
                Ok(Ok(_)) => None,
                Ok(Err(e)) => {
                    assert!(e.line >= 1, "{}: no line: {e}", path.display());
                    let at = format!("{}:{}:{}: ", path.display(), e.line, e.column);
                    assert!(e.to_string().starts_with(&at), "{e}");
                    Some(at)
                }
            };
            mutants.push((path, expected));
        }
    }
    let rejected = mutants.iter().filter(|(_, e)| e.is_some()).count();
    assert!(mutants.len() >= 1600, "{} mutants", mutants.len());
    eprintln!("{} mutants, {rejected} rejected", mutants.len());
    assert!(
        rejected > mutants.len() / 4 && rejected < mutants.len(),
        "a useful mix: {rejected} of {} rejected",
        mutants.len()
    );

    // The binary, all at once: no panic, status 2, each rejection with file and line.
    let paths: Vec<&str> = mutants.iter().map(|(p, _)| p.to_str().unwrap()).collect();
    let mut args = vec!["validate"];
    args.extend(&paths);
    let (code, stdout, stderr) = warlab(&args);
    assert_eq!(code, 2, "{}", &stderr[..stderr.len().min(2000)]);
    for (path, expected) in &mutants {
        match expected {
            Some(at) => assert!(
                stderr.contains(&format!("error: {at}")),
                "{} is not reported with its line",
                path.display()
            ),
            None => assert!(
                stdout.contains(&format!("ok: {} ", path.display())),
                "{} is valid",
                path.display()
            ),
        }
    }

    // `run` refuses each rejected file the same way, writing nothing; a few valid mutants
    // run (and report) without trouble.
    let out = dir.join("out");
    let reports = dir.join("reports");
    for (path, expected) in mutants.iter().filter(|(_, e)| e.is_some()).take(40) {
        let (code, _, stderr) = warlab(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(expected.as_deref().unwrap()), "{stderr}");
        assert!(!out.exists(), "nothing written for {}", path.display());
    }
    for (path, _) in mutants
        .iter()
        .filter(|(_, e)| e.is_none())
        .step_by(97)
        .take(8)
    {
        let (code, _, stderr) = warlab(&[
            "run",
            path.to_str().unwrap(),
            "--games",
            "30",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
            "--reports",
            reports.to_str().unwrap(),
            "--force",
        ]);
        assert_eq!(code, 0, "{}: {stderr}", path.display());
    }
}
