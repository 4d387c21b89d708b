//! Formatting shared by both games' reports: numbers, intervals and p-values as text, the run
//! header and the variants table, figure files and their names.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use warlab_stats::{Hist, mean_estimate, wilson};

use crate::plots;
use crate::plots::{Look, save};
use warlab_stats::files::Manifest;

/// One box per variant (`[p5, p25, p50, p75, p95]` and the mean of its length histogram),
/// sorted by median, then mean; variants with no games are left out.
pub(crate) fn box_rows<'a>(
    lengths: impl Iterator<Item = (&'a str, &'a Hist)>,
) -> Vec<(String, [f64; 5], f64)> {
    let mut boxes: Vec<(String, [f64; 5], f64)> = lengths
        .filter_map(|(name, h)| {
            let q = |p: f64| h.quantile(p).map(|v| v as f64);
            Some((
                name.to_string(),
                [q(0.05)?, q(0.25)?, q(0.5)?, q(0.75)?, q(0.95)?],
                mean_estimate(h)?.mean,
            ))
        })
        .collect();
    boxes.sort_by(|a, b| a.1[2].total_cmp(&b.1[2]).then(a.2.total_cmp(&b.2)));
    boxes
}

/// A file-name-safe form of a variant name, different for different names: a name of at most
/// 64 letters, digits, `-` and `_` is itself; any other is its first 40 characters made safe,
/// then `.` and the name's 64-bit FNV-1a (its seed id, unique per experiment) in hex. The `.`
/// keeps the two kinds apart, so `war_down=1` and `war_down_1` never share a figure.
pub(crate) fn slug(name: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if !name.is_empty() && name.len() <= 64 && name.chars().all(plain) {
        return name.to_string();
    }
    let safe: String = name
        .chars()
        .take(40)
        .map(|c| if plain(c) { c } else { '_' })
        .collect();
    format!("{safe}.{:016x}", warlab_experiment::fnv1a(name.as_bytes()))
}

/// Where a report's figures go and how they look.
pub(crate) struct Figures<'a> {
    /// The report's folder.
    pub dir: &'a Path,
    /// Size and PNG density.
    pub look: Look,
}

/// Draws `plot` as `stem.png` and `stem.svg` and embeds it in the report.
pub(crate) fn show(
    md: &mut String,
    figs: &Figures,
    stem: &str,
    plot: &impl plots::Plot,
    caption: &str,
) -> Result<()> {
    save(plot, figs.dir, stem, &figs.look)?;
    figure(md, stem, caption);
    Ok(())
}

/// The figure, its caption and its SVG link. The image's alt text is the figure's short name
/// (the caption right below it says the rest, so a screen reader does not read it twice).
fn figure(md: &mut String, stem: &str, caption: &str) {
    let alt = stem.replace(['-', '_'], " ");
    let _ = writeln!(
        md,
        "![Figure: {alt}]({stem}.png)\n\n*{caption}* ([SVG]({stem}.svg))\n"
    );
}

/// The table cells `mean (95 % CI) | sd | median | p90 | p99 | max` of a length histogram
/// (dashes for none), the mean and its CI with `digits` decimals.
pub(crate) fn length_cells(h: Option<&Hist>, digits: usize) -> String {
    let m = h.and_then(mean_estimate);
    let q = |p: f64| {
        h.and_then(|h| h.quantile(p))
            .map_or("–".into(), |v| v.to_string())
    };
    format!(
        "{} ({}) | {} | {} | {} | {} | {}",
        m.map_or("–".into(), |m| format!("{:.digits$}", m.mean)),
        fmt_ci(m.and_then(|m| m.ci), digits),
        m.and_then(|m| m.sd)
            .map_or("–".into(), |s| format!("{s:.1}")),
        q(0.5),
        q(0.9),
        q(0.99),
        h.and_then(Hist::max).map_or("–".into(), |v| v.to_string()),
    )
}

pub(crate) fn fmt_ci(ci: Option<(f64, f64)>, digits: usize) -> String {
    ci.map_or("–".into(), |(lo, hi)| {
        format!("{lo:.digits$}–{hi:.digits$}")
    })
}

pub(crate) fn pct(k: u64, n: u64) -> String {
    if n == 0 {
        return "–".into();
    }
    let (lo, hi) = wilson(k, n).unwrap_or((0.0, 0.0));
    format!(
        "{:.2} % ({:.2}–{:.2})",
        100.0 * k as f64 / n as f64,
        100.0 * lo,
        100.0 * hi
    )
}

pub(crate) fn pvalue(p: f64) -> String {
    if p < 1e-300 {
        "< 1e-300".into()
    } else if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// `= 0.0123` or `< 1e-300`, to follow a "p".
pub(crate) fn p_is(p: f64) -> String {
    let text = pvalue(p);
    if text.starts_with('<') {
        text
    } else {
        format!("= {text}")
    }
}

/// The report's title and the run it comes from, with the command that reproduces it, for
/// either game: `game` opens the paragraph (`"Casino War. "` or nothing), `unit` is what a
/// variant plays (`games`, `sessions`).
pub(crate) fn run_header(md: &mut String, m: &Manifest, game: &str, unit: &str, variants: usize) {
    let _ = writeln!(md, "# {} — {}\n", m.experiment, m.description);
    let slice = if m.games_from > 0 {
        format!(" --games-from {} --games-to {}", m.games_from, m.games_to)
    } else {
        String::new()
    };
    let resumed = if m.variants_resumed > 0 {
        format!(
            " ({} variant(s) resumed from an interrupted run)",
            m.variants_resumed
        )
    } else {
        String::new()
    };
    // Every change the command line made to the file, as given: `--games 200000` reproduces
    // 200,000 games, not the file's.
    let overrides: String = m
        .overrides
        .iter()
        .map(|a| format!(" {}", shell_word(a)))
        .collect();
    let _ = writeln!(
        md,
        "{game}{variants} variant(s) × {} {unit} (indices {}..{}), seed {}. Reproduce with \
         `warlab run {} --seed {}{slice}{overrides}` (experiment file hash `{}`, warlab {}). Run \
         started {} on {} thread(s): {} {unit} in {:.1} s, {:.0} {unit}/s{resumed}.\n",
        m.games_to - m.games_from,
        m.games_from,
        m.games_to,
        m.seed,
        m.file,
        m.seed,
        m.file_hash,
        m.warlab_version,
        m.started_utc,
        m.threads,
        m.games_played,
        m.seconds,
        m.games_per_s,
    );
}

/// `a` as one shell word: as is when it is plain, else in single quotes.
fn shell_word(a: &str) -> String {
    if a.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_=.,/:".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

/// The table of variants: name, `what` (the rules or the table, described), seed id.
pub(crate) fn variants_table<'r>(
    md: &mut String,
    m: &Manifest,
    what: &str,
    rows: impl Iterator<Item = (&'r str, String)>,
) {
    let _ = writeln!(
        md,
        "## Variants\n\n| variant | {what} | seed id |\n|---|---|---:|"
    );
    for ((name, described), mv) in rows.zip(&m.variants) {
        let _ = writeln!(md, "| `{name}` | {described} | {} |", mv.seed_id);
    }
    md.push('\n');
}

/// `12.34 %`.
pub(crate) fn share_text(k: u64, n: u64) -> String {
    format!("{:.2} %", 100.0 * k as f64 / n.max(1) as f64)
}
