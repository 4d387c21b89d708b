//! Formatting shared by both games' reports: numbers, intervals and p-values as text, the run
//! header and the variants table, figure files and their names.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use anyhow::{Result, anyhow};
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

/// Where a report's figures go and how they look, and the threads that draw them.
pub(crate) struct Figures<'a> {
    /// The report's folder.
    pub dir: &'a Path,
    /// Size and PNG density.
    pub look: Look,
    drawer: Drawer,
}

impl<'a> Figures<'a> {
    /// The figures of a report in `dir`, drawn as `look` says.
    pub(crate) fn new(dir: &'a Path, look: Look) -> Figures<'a> {
        Figures {
            dir,
            look,
            drawer: Drawer::start(),
        }
    }

    /// Waits for every figure asked for: an error of one that could not be drawn (where several
    /// could not, the first a thread met).
    pub(crate) fn finish(mut self) -> Result<()> {
        self.drawer.join()
    }
}

/// Draws `plot` as `stem.png` and `stem.svg` (on one of the figures' threads: see [`Drawer`])
/// and embeds it in the report. A figure that cannot be drawn is the error of
/// [`Figures::finish`], named.
pub(crate) fn show(
    md: &mut String,
    figs: &Figures,
    stem: &str,
    plot: impl plots::Plot + Send + 'static,
    caption: &str,
) -> Result<()> {
    let (dir, name, look) = (figs.dir.to_path_buf(), stem.to_string(), figs.look);
    figs.drawer
        .draw(Box::new(move || save(&plot, &dir, &name, &look)));
    figure(md, stem, caption);
    Ok(())
}

/// A figure to draw.
type Job = Box<dyn FnOnce() -> Result<()> + Send>;

/// The threads that draw a report's figures (as many as the machine has cores, at most 8)
/// while its text goes on: drawing and encoding the PNGs was most of a report's time, on one
/// core. A figure's files depend on its plot, look and name alone, so they are the same bytes
/// whichever thread draws them, in whatever order. Where no thread can be started, figures are
/// drawn in line, as before.
struct Drawer {
    send: Option<mpsc::Sender<Job>>,
    workers: Vec<JoinHandle<Result<()>>>,
    /// The first error of a figure drawn in line.
    inline: RefCell<Result<()>>,
}

impl Drawer {
    fn start() -> Drawer {
        let (send, receive) = mpsc::channel::<Job>();
        let receive = Arc::new(Mutex::new(receive));
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let workers: Vec<_> = (0..threads)
            .map_while(|_| {
                let receive = Arc::clone(&receive);
                let worker = std::thread::Builder::new().name("warlab-figure".into());
                worker
                    .spawn(move || {
                        let mut first = Ok(());
                        loop {
                            // (The lock is let go before the figure is drawn.)
                            let job = receive
                                .lock()
                                .map_err(|_| anyhow!("a figure's thread failed"))?
                                .recv();
                            let Ok(job) = job else {
                                return first;
                            };
                            keep_first(&mut first, job());
                        }
                    })
                    .ok()
            })
            .collect();
        Drawer {
            send: (!workers.is_empty()).then_some(send),
            workers,
            inline: RefCell::new(Ok(())),
        }
    }

    /// Hands `job` to a thread (where none could be started, or none is left, draws it here).
    fn draw(&self, job: Job) {
        debug_assert!(
            self.send.is_some() || self.workers.is_empty(),
            "drawn after `join`"
        );
        let job = match &self.send {
            Some(send) => match send.send(job) {
                Ok(()) => return,
                Err(mpsc::SendError(job)) => job,
            },
            None => job,
        };
        keep_first(&mut self.inline.borrow_mut(), job());
    }

    /// Waits for every figure: the first error of any.
    fn join(&mut self) -> Result<()> {
        drop(self.send.take());
        let mut first = self.inline.replace(Ok(()));
        for worker in self.workers.drain(..) {
            let done = worker
                .join()
                .unwrap_or_else(|_| Err(anyhow!("a figure's thread panicked")));
            keep_first(&mut first, done);
        }
        first
    }
}

/// `first`, unless it is `Ok` and `next` is an error: the first error of several.
fn keep_first(first: &mut Result<()>, next: Result<()>) {
    if first.is_ok() {
        *first = next;
    }
}

impl Drop for Drawer {
    /// A report that stops early (an error) still waits for its figures, queued or under way,
    /// before its folder goes.
    fn drop(&mut self) {
        let _ = self.join();
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plots::LengthHist;

    fn hist(title: &str) -> LengthHist {
        LengthHist {
            title: title.into(),
            unit: "battles".into(),
            values: vec![(3, 2), (5, 7), (9, 1)],
            mean: 5.4,
            median: 5.0,
            log_y: false,
        }
    }

    /// Figures drawn on the drawer's threads are the files one drawn here gives, and a figure
    /// that cannot be written is the report's error, named, once every figure is done.
    #[test]
    fn figures_drawn_on_threads_are_the_same_files_and_errors_come_back() {
        let root = warlab_scratch::scratch("format", "figures");
        let (threads, here) = (root.join("threads"), root.join("here"));
        for d in [&threads, &here] {
            std::fs::create_dir_all(d).unwrap();
        }
        let look = Look::default();
        let figures = Figures::new(&threads, look);
        let mut md = String::new();
        for i in 0..6 {
            show(
                &mut md,
                &figures,
                &format!("h{i}"),
                hist(&format!("h{i}")),
                "c",
            )
            .unwrap();
        }
        figures.finish().unwrap();
        for i in 0..6 {
            save(&hist(&format!("h{i}")), &here, &format!("h{i}"), &look).unwrap();
            for ext in ["png", "svg"] {
                let name = format!("h{i}.{ext}");
                let a = std::fs::read(threads.join(&name)).unwrap();
                assert_eq!(a, std::fs::read(here.join(&name)).unwrap(), "{name}");
            }
        }
        assert_eq!(md.matches("![Figure").count(), 6);
        let missing = root.join("no such folder");
        let figures = Figures::new(&missing, look);
        show(&mut md, &figures, "lost", hist("lost"), "c").unwrap();
        let e = figures.finish().expect_err("a folder that is not there");
        assert!(
            format!("{e:#}").contains("drawing the figure lost"),
            "{e:#}"
        );
    }
}
