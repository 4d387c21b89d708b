//! The figures, each drawn once for PNG and once for SVG.
//!
//! Text uses DejaVu Sans compiled into the binary (the `dejavu` crate), registered with
//! plotters' `ab_glyph` backend under the name `sans-serif`: a machine without any font
//! installed still gets titles, axis labels and legends.

use std::cell::RefCell;
use std::ops::Range;
use std::path::Path;
use std::rc::Rc;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use warlab_stats::compare::PowerLaw;

use crate::canvas::Canvas;

pub use crate::canvas::Look;

/// A point with its 95 % interval: `(x, mean, lo, hi)`, and a named series of them.
pub type Interval = (f64, f64, f64, f64);
/// A named series of [`Interval`]s.
pub type IntervalSeries = (String, Vec<Interval>);
/// A named line with an optional band: `(name, [(x, y)], [(x, lo, hi)])`.
pub type BandedLine = (String, Vec<(f64, f64)>, Vec<(f64, f64, f64)>);
const FONT: &str = "sans-serif";

fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The error type has no Debug; the bytes are the crate's own valid TTFs.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// A figure that draws itself on any plotters backend (PNG and SVG alike).
pub trait Plot {
    /// Draws the figure on `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;

    /// The figure's size in figure units: the look's, taller for small multiples.
    fn size(&self, look: &Look) -> (u32, u32) {
        (look.width, look.height)
    }
}

/// Writes `dir/stem.png` (at the look's pixel density) and `dir/stem.svg` (text as outlines).
pub fn save(plot: &impl Plot, dir: &Path, stem: &str, look: &Look) -> Result<()> {
    draw_both(plot, dir, stem, look).with_context(|| format!("drawing the figure {stem}"))
}

fn draw_both(plot: &impl Plot, dir: &Path, stem: &str, look: &Look) -> Result<()> {
    fonts();
    let size = plot.size(look);
    let dense = |n: u32| (f64::from(n) * look.scale).round() as u32;
    let png = dir.join(format!("{stem}.png"));
    let bitmap = BitMapBackend::new(&png, (dense(size.0), dense(size.1)));
    render(
        plot,
        Canvas::scaled(bitmap, size, look.scale).into_drawing_area(),
    )?;
    let mut svg = String::new();
    let outlines = Rc::new(RefCell::new(String::new()));
    render(
        plot,
        Canvas::outlined(SVGBackend::with_string(&mut svg, size), outlines.clone())
            .into_drawing_area(),
    )?;
    // The text goes last, above everything drawn (as in the PNG, where labels are drawn last
    // or on their own background).
    let end = svg
        .rfind("</svg>")
        .ok_or_else(|| anyhow!("plotters wrote an SVG without its end tag"))?;
    svg.insert_str(end, &outlines.borrow());
    let path = dir.join(format!("{stem}.svg"));
    std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))
}

fn render<DB: DrawingBackend>(plot: &impl Plot, root: DrawingArea<DB, Shift>) -> Result<()> {
    root.fill(&WHITE).map_err(|e| anyhow!(err(e)))?;
    plot.draw(&root).map_err(|e| anyhow!(e))?;
    root.present().map_err(|e| anyhow!(err(e)))
}

/// Figure titles: bold, above the chart.
const TITLE: (&str, u32, FontStyle) = (FONT, 22, FontStyle::Bold);

/// Series one panel shows in colour; more go to small multiples ([`panels`]), each with this
/// many in colour and the rest in grey behind them.
pub const PER_PANEL: usize = 6;

/// Panels of a small-multiples figure at most: a figure of more series shows the first
/// `PER_PANEL × MAX_PANELS` and says so in its title.
pub const MAX_PANELS: usize = 8;

/// Series colours: Tableau's qualitative palette without its grey (the context colour) and
/// its pale olive and cyan, which vanish on white, then black. A panel never shows more than
/// `PER_PANEL + 2` series in colour, so these never repeat within one.
fn color(i: usize) -> RGBColor {
    const EIGHT: [(u8, u8, u8); 8] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (0, 0, 0),
    ];
    let (r, g, b) = EIGHT[i % EIGHT.len()];
    RGBColor(r, g, b)
}

/// Other variants' curves drawn in grey behind a panel's own, at most.
const CONTEXT_CURVES: usize = 60;
/// Steps of a grey curve, at most; a panel's own curves keep up to `OWN_POINTS`.
const CONTEXT_POINTS: usize = 300;
/// Steps of a curve in colour, at most: more than a figure's width shows.
const OWN_POINTS: usize = 3000;

/// The colour of series drawn as context behind a panel's own.
const CONTEXT: RGBColor = RGBColor(205, 205, 205);

/// How `n` series are split into panels: `(groups of series indices, grid rows, grid columns)`,
/// one panel when they fit in colour, else up to [`MAX_PANELS`] of [`PER_PANEL`].
pub fn panels(n: usize) -> (Vec<Range<usize>>, usize, usize) {
    if n <= PER_PANEL + 2 {
        // One group of every series: a list of one range is what is meant.
        #[allow(clippy::single_range_in_vec_init)]
        return (vec![0..n], 1, 1);
    }
    let count = n.div_ceil(PER_PANEL).min(MAX_PANELS);
    let groups = (0..count)
        .map(|g| g * PER_PANEL..((g + 1) * PER_PANEL).min(n))
        .collect();
    // Two columns: a panel needs its width for a legend of whole variant names.
    (groups, count.div_ceil(2), 2)
}

/// The size of a figure of `n` series: small multiples are 200 units wider, with rows of
/// panels 0.55 of the figure's height each.
fn multiples_size(n: usize, look: &Look) -> (u32, u32) {
    let (groups, rows, _) = panels(n);
    if groups.len() == 1 {
        (look.width, look.height)
    } else {
        let row = (f64::from(look.height) * 0.55).round() as u32;
        (look.width + 200, 60 + row * rows as u32)
    }
}

/// A title for `shown` of `n` series: says when some are left out.
fn shown_title(title: &str, n: usize) -> String {
    let (groups, _, _) = panels(n);
    let shown = groups.last().map_or(0, |g| g.end);
    if shown < n {
        format!("{title} (first {shown} of {n} variants)")
    } else {
        title.to_string()
    }
}

/// Splits a legend column off the right of `area` listing `keys` (name, colour, dashed), and
/// returns the area left for the chart: a legend never covers the data. One key or none needs
/// no legend: the title names the series.
fn legend_column<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    keys: &[(String, RGBColor)],
) -> Result<DrawingArea<DB, Shift>, String> {
    if keys.len() <= 1 {
        return Ok(area.clone());
    }
    let (w, _) = area.dim_in_pixel();
    let longest = keys.iter().map(|k| k.0.chars().count()).max().unwrap_or(0) as u32;
    let width = (longest * 7 + 44).clamp(90, w * 2 / 5);
    let (plot, side) = area.split_horizontally(w - width);
    let fits = ((width - 40) / 7) as usize;
    for (i, (name, col)) in keys.iter().enumerate() {
        let y = 48 + 20 * i as i32;
        side.draw(&PathElement::new([(4, y), (28, y)], col.stroke_width(3)))
            .map_err(err)?;
        let shown: String = if name.chars().count() > fits {
            name.chars()
                .take(fits.saturating_sub(1))
                .chain(['…'])
                .collect()
        } else {
            name.clone()
        };
        side.draw(&Text::new(shown, (34, y - 8), (FONT, 13)))
            .map_err(err)?;
    }
    Ok(plot)
}

/// Ticks on an x axis `area` wide: one per 110 px, so that five-digit labels never touch.
fn x_ticks<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> usize {
    (area.dim_in_pixel().0 / 110).max(3) as usize
}

/// Ticks of a log axis over `[lo, hi]`: 1, 2 and 5 times the powers of ten inside it (a log
/// axis of its own labels only the powers, often one of them).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut decade = 10f64.powf(lo.max(f64::MIN_POSITIVE).log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * decade;
            if (lo..=hi).contains(&v) {
                out.push(v);
            }
        }
        decade *= 10.0;
    }
    out
}

/// A probability tick on a log axis: `0.01`, `0.001`, then `1e-4`, … (the axis's own labels
/// print float noise like `9.999999999e-5`).
fn prob_tick(v: f64) -> String {
    if v >= 1e-3 {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.0e}")
    }
}

/// A tick without trailing zeros: `20`, `2.5`, `0.0005` (not `20.0`).
fn short_tick(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// A tick on an axis of whole numbers: the number, or nothing between two (no `2.5 players`).
fn whole_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// Bins `(value, count)` pairs into at most `bins` equal-width bins over `[min, max]`:
/// `(left, right, count)`. Width 1 when the range is small, so each value is its own bar.
pub fn bin(values: &[(u64, u64)], bins: usize) -> Vec<(f64, f64, u64)> {
    let (Some(&(lo, _)), Some(&(hi, _))) = (values.first(), values.last()) else {
        return Vec::new();
    };
    let width = ((hi - lo + 1) as f64 / bins as f64).ceil().max(1.0);
    let n = (((hi - lo + 1) as f64) / width).ceil() as usize;
    let mut out: Vec<(f64, f64, u64)> = (0..n)
        .map(|i| {
            let left = lo as f64 + i as f64 * width;
            (left, left + width, 0)
        })
        .collect();
    for &(v, c) in values {
        let i = (((v - lo) as f64) / width) as usize;
        out[i.min(n - 1)].2 += c;
    }
    out
}

/// Histogram of game length with the mean and median marked.
pub struct LengthHist {
    /// The figure's title.
    pub title: String,
    /// What the x-axis counts, e.g. "battles (a war counts as one)".
    pub unit: String,
    /// `(length, games)` pairs of the histogram.
    pub values: Vec<(u64, u64)>,
    /// The mean, marked on the figure.
    pub mean: f64,
    /// The median, marked on the figure.
    pub median: f64,
    /// Counts on a log y-axis.
    pub log_y: bool,
}

impl Plot for LengthHist {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        // Up to the 99.9th percentile: the far tail is in the survival figure.
        let total: u64 = self.values.iter().map(|v| v.1).sum();
        let mut seen = 0;
        let cut = self
            .values
            .iter()
            .find(|(_, c)| {
                seen += c;
                seen as f64 >= 0.999 * total as f64
            })
            .map_or(0, |v| v.0);
        let shown: Vec<(u64, u64)> = self.values.iter().copied().filter(|v| v.0 <= cut).collect();
        // A bin of whole lengths l..r covers [l − ½, r − ½): a marker at a length then sits in
        // the middle of its bar, and the first length is not on the axis.
        let bins: Vec<(f64, f64, u64)> = bin(&shown, 120)
            .into_iter()
            .map(|(l, r, n)| (l - 0.5, r - 0.5, n))
            .collect();
        let width = bins.first().map_or(1.0, |b| b.1 - b.0);
        let xmax = bins.last().map_or(1.0, |b| b.1);
        let xmin = bins.first().map_or(0.0, |b| b.0);
        let share = |c: u64| c as f64 / total.max(1) as f64;
        let ymax = bins.iter().map(|b| share(b.2)).fold(0.0, f64::max) * 1.1;
        let root = root.titled(&self.title, TITLE).map_err(err)?;
        let marks = [
            (self.mean, RED, format!("mean {:.1}", self.mean)),
            (self.median, BLACK, format!("median {:.0}", self.median)),
        ];
        let keys: Vec<(String, RGBColor)> = marks.iter().map(|m| (m.2.clone(), m.1)).collect();
        let plot = legend_column(&root, &keys)?;
        let mut c = ChartBuilder::on(&plot);
        c.margin(12).x_label_area_size(45).y_label_area_size(80);
        let x_desc = if width > 1.0 {
            format!("{} (bins of {width:.0})", self.unit)
        } else {
            format!("{} (one bar per length)", self.unit)
        };
        let bar = color(0).mix(0.55).filled();
        if self.log_y {
            let floor = bins
                .iter()
                .filter(|b| b.2 > 0)
                .map(|b| share(b.2))
                .fold(1.0, f64::min)
                / 2.0;
            let top = ymax.max(floor * 10.0);
            let mut chart = c
                .build_cartesian_2d(
                    xmin..xmax,
                    (floor..top)
                        .log_scale()
                        .with_key_points(log_ticks(floor, top)),
                )
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .x_labels(x_ticks(&plot))
                .x_label_formatter(&|v| whole_tick(*v))
                .y_label_formatter(&|v| prob_tick(*v))
                .y_desc("share of games (log scale)")
                .label_style((FONT, 14))
                .light_line_style(WHITE)
                .draw()
                .map_err(err)?;
            chart
                .draw_series(
                    bins.iter()
                        .filter(|b| b.2 > 0)
                        .map(|&(l, r, n)| Rectangle::new([(l, share(n)), (r, floor)], bar)),
                )
                .map_err(err)?;
            for (x, col, _) in marks {
                chart
                    .draw_series(LineSeries::new([(x, floor), (x, top)], col.stroke_width(2)))
                    .map_err(err)?;
            }
        } else {
            let mut chart = c.build_cartesian_2d(xmin..xmax, 0.0..ymax).map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .x_labels(x_ticks(&plot))
                .x_label_formatter(&|v| whole_tick(*v))
                .y_desc("share of games")
                .label_style((FONT, 14))
                .light_line_style(WHITE)
                .draw()
                .map_err(err)?;
            chart
                .draw_series(
                    bins.iter()
                        .map(|&(l, r, n)| Rectangle::new([(l, share(n)), (r, 0.0)], bar)),
                )
                .map_err(err)?;
            for (x, col, _) in marks {
                chart
                    .draw_series(LineSeries::new([(x, 0.0), (x, ymax)], col.stroke_width(2)))
                    .map_err(err)?;
            }
        }
        Ok(())
    }
}

/// One survival curve: `(n, P(length > n))` at every length where it falls.
pub struct Curve {
    /// The series' name in the legend.
    pub name: String,
    /// `(n, P(length > n))` at every length where the curve falls.
    pub steps: Vec<(u64, f64)>,
    /// Where the curve stops falling because some games never end (loops): it is drawn on,
    /// dashed, at this level to the right edge.
    pub plateau: Option<f64>,
}

/// Overlaid survival curves `P(length > n)` on a log y-axis.
pub struct Survival {
    /// The figure's title.
    pub title: String,
    /// What a game's length counts, e.g. "battles".
    pub unit: String,
    /// The curves, one per variant.
    pub series: Vec<Curve>,
}

impl Plot for Survival {
    fn size(&self, look: &Look) -> (u32, u32) {
        multiples_size(self.series.len(), look)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        // Every panel shares one scale, so that panels compare.
        let floor = self
            .series
            .iter()
            .flat_map(|c| c.steps.iter().map(|p| p.1).filter(|p| *p > 0.0))
            .fold(1.0, f64::min)
            .max(1e-9)
            / 2.0;
        let xmax = self
            .series
            .iter()
            .flat_map(|c| c.steps.iter().map(|p| p.0))
            .max()
            .unwrap_or(1) as f64
            * 1.02;
        let scale = (xmax.max(1.0), floor);
        let title = shown_title(&self.title, self.series.len());
        let (groups, rows, cols) = panels(self.series.len());
        if groups.len() == 1 {
            let chart = root.titled(&title, TITLE).map_err(err)?;
            return self.panel(&chart, &groups[0], scale);
        }
        let root = root.titled(&title, TITLE).map_err(err)?;
        for (area, group) in root.split_evenly((rows, cols)).iter().zip(&groups) {
            self.panel(area, group, scale)?;
        }
        Ok(())
    }
}

impl Survival {
    /// One panel: the curves of `group` in colour over every other curve in grey.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        group: &Range<usize>,
        (xmax, floor): (f64, f64),
    ) -> Result<(), String> {
        let keys: Vec<(String, RGBColor)> = group
            .clone()
            .map(|i| (self.series[i].name.clone(), color(i - group.start)))
            .collect();
        // The panel's x range is its own curves' (the grey ones run off its edge): a panel of
        // short games next to one of long games would otherwise be a sliver at zero.
        let own = self.series[group.clone()]
            .iter()
            .flat_map(|c| c.steps.iter().map(|p| p.0))
            .max()
            .map_or(xmax, |m| (m as f64 * 1.02).max(1.0));
        let xmax = own.min(xmax);
        let plot = legend_column(area, &keys)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..xmax, (floor..1.0).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(format!("n ({})", self.unit))
            .x_labels(x_ticks(&plot))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| prob_tick(*v))
            .y_desc(format!("P(longer than n {}), log scale", self.unit))
            .label_style((FONT, 14))
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        // The grey context is bounded whatever the number of variants: at most
        // `CONTEXT_CURVES` of the others, evenly spread, each thinned to a few hundred points.
        let others: Vec<usize> = (0..self.series.len())
            .filter(|i| !group.contains(i))
            .collect();
        let stride = others.len().div_ceil(CONTEXT_CURVES).max(1);
        let drawn = others
            .into_iter()
            .step_by(stride)
            .map(|i| (i, CONTEXT, 1, CONTEXT_POINTS))
            .chain(
                group
                    .clone()
                    .map(|i| (i, color(i - group.start), 2, OWN_POINTS)),
            );
        for (i, col, width, most) in drawn {
            let c = &self.series[i];
            // A step function: the share stays until the next length.
            let mut pts = vec![(0.0, 1.0)];
            let mut last = 1.0;
            let step = c.steps.len().div_ceil(most).max(1);
            for (k, &(n, p)) in c.steps.iter().enumerate() {
                if k % step != 0 && k + 1 != c.steps.len() {
                    continue;
                }
                pts.push((n as f64, last));
                if p > 0.0 {
                    pts.push((n as f64, p));
                }
                last = p;
            }
            let end = pts.last().map_or(0.0, |p| p.0);
            chart
                .draw_series(LineSeries::new(
                    pts.into_iter().filter(|p| p.1 > 0.0),
                    col.stroke_width(width),
                ))
                .map_err(err)?;
            if let Some(level) = c.plateau.filter(|p| *p > 0.0) {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(end, level), (xmax, level)],
                        8,
                        6,
                        col.stroke_width(width),
                    ))
                    .map_err(err)?;
            }
        }
        Ok(())
    }
}

/// One box per variant (sorted by median): box p25–p75, whiskers p5–p95, median bar, mean dot.
pub struct Boxes {
    /// The figure's title.
    pub title: String,
    /// What a game's length counts, e.g. "battles".
    pub unit: String,
    /// `(name, [p5, p25, p50, p75, p95], mean)`.
    pub rows: Vec<(String, [f64; 5], f64)>,
}

impl Plot for Boxes {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let n = self.rows.len();
        let xmax = self
            .rows
            .iter()
            .map(|r| r.1[4].max(r.2))
            .fold(1.0, f64::max)
            * 1.05;
        let xmin = self
            .rows
            .iter()
            .map(|r| r.1[0].min(r.2))
            .fold(f64::MAX, f64::min)
            .max(0.5);
        // Data that spans decades (one variant's games 100 times another's) goes on a log
        // axis: on a linear one the short variants' boxes are slivers.
        let log = xmax / xmin > 100.0;
        let names: Vec<String> = self.rows.iter().map(|r| r.0.clone()).collect();
        let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(4) as u32;
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(&self.title, TITLE)
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size((longest * 8 + 20).clamp(60, 420));
        let label_size = if n > 20 { 11 } else { 14 };
        let x_desc = format!(
            "{}{}: box 25–75 %, whiskers 5–95 %, bar median, dot mean",
            self.unit,
            if log { " (log scale)" } else { "" }
        );
        let y_label = |y: &f64| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        };
        let mesh = Mesh {
            x_desc,
            y_labels: n,
            y_label: &y_label,
            label_size,
        };
        if log {
            let mut chart = builder
                .build_cartesian_2d(
                    (xmin * 0.8..xmax)
                        .log_scale()
                        .with_key_points(log_ticks(xmin * 0.8, xmax)),
                    -0.5..(n as f64 - 0.5),
                )
                .map_err(err)?;
            draw_boxes(&mut chart, &mesh, &self.rows)
        } else {
            let mut chart = builder
                .build_cartesian_2d(0.0..xmax, -0.5..(n as f64 - 0.5))
                .map_err(err)?;
            draw_boxes(&mut chart, &mesh, &self.rows)
        }
    }
}

/// The axes of a box figure: lengths along x, one labelled row per variant.
struct Mesh<'l> {
    x_desc: String,
    y_labels: usize,
    y_label: &'l dyn Fn(&f64) -> String,
    label_size: u32,
}

/// The axes, then one box per row, at y = its index.
fn draw_boxes<'a, DB: DrawingBackend + 'a, X>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, RangedCoordf64>>,
    mesh: &Mesh<'_>,
    rows: &[(String, [f64; 5], f64)],
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(mesh.x_desc.clone())
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_labels(mesh.y_labels)
        .y_label_formatter(mesh.y_label)
        .y_label_style((FONT, mesh.label_size))
        .x_label_style((FONT, 14))
        .disable_y_mesh()
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    for (i, (_, q, mean)) in rows.iter().enumerate() {
        let y = i as f64;
        let col = color(0);
        chart
            .draw_series([
                Rectangle::new([(q[1], y - 0.3), (q[3], y + 0.3)], col.mix(0.4).filled()),
                Rectangle::new([(q[1], y - 0.3), (q[3], y + 0.3)], col.stroke_width(1)),
            ])
            .map_err(err)?;
        chart
            .draw_series([
                PathElement::new([(q[0], y), (q[1], y)], BLACK),
                PathElement::new([(q[3], y), (q[4], y)], BLACK),
                PathElement::new([(q[2], y - 0.35), (q[2], y + 0.35)], BLACK.stroke_width(3)),
            ])
            .map_err(err)?;
        chart
            .draw_series([Circle::new((*mean, y), 4, RED.filled())])
            .map_err(err)?;
    }
    Ok(())
}

/// Mean length with its 95 % CI against a numeric axis; optionally a fitted power law.
pub struct AxisMeans {
    /// The figure's title.
    pub title: String,
    /// The x-axis: the sweep axis's name.
    pub axis: String,
    /// The y-axis, e.g. "mean battles, 95 % CI".
    pub y_desc: String,
    /// `(label, [(x, mean, ci_lo, ci_hi)])`.
    pub series: Vec<IntervalSeries>,
    /// Power laws drawn over the points: `(series index, fit)`, each in its series' colour.
    pub fits: Vec<(usize, PowerLaw)>,
    /// Both axes logarithmic.
    pub log_log: bool,
    /// The series come in pairs, an exact value and its simulated estimate: each pair in one
    /// colour, the exact one a line, the simulated one points with CI whiskers, pairs set a
    /// little apart along x so that none hides another.
    pub exact_pairs: bool,
}

impl Plot for AxisMeans {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let pts = self.series.iter().flat_map(|s| s.1.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        let mut whole = true;
        for &(x, _, lo, hi) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(lo);
            y1 = y1.max(hi);
            whole &= (x - x.round()).abs() < 1e-9;
        }
        if x0 > x1 {
            return Ok(());
        }
        let root = root.titled(&self.title, TITLE).map_err(err)?;
        let mut keys: Vec<(String, RGBColor)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let c = if self.exact_pairs { i / 2 } else { i };
                (s.0.clone(), color(c))
            })
            .collect();
        for (i, f) in &self.fits {
            let of = if self.series.len() > 1 {
                format!(" of {}", self.series[*i].0)
            } else {
                String::new()
            };
            keys.push((
                format!(
                    "fit{of} ∝ n^{:.3} (95 % CI {:.3}–{:.3})",
                    f.exponent, f.exponent_ci.0, f.exponent_ci.1
                ),
                color(*i),
            ));
        }
        let plot = legend_column(&root, &keys)?;
        let pad = (x1 - x0).max(1.0) * 0.05;
        let mut c = ChartBuilder::on(&plot);
        c.margin(12).x_label_area_size(45).y_label_area_size(80);
        // Whole-number axes (players, ranks, decks) get whole-number ticks only.
        let x_tick = |v: &f64| {
            if whole {
                whole_tick(*v)
            } else {
                format!("{v}")
            }
        };
        if self.log_log {
            let mut chart = c
                .build_cartesian_2d(
                    (x0 * 0.9..x1 * 1.1)
                        .log_scale()
                        .with_key_points(log_ticks(x0 * 0.9, x1 * 1.1)),
                    (y0.max(1e-3) * 0.8..y1 * 1.25)
                        .log_scale()
                        .with_key_points(log_ticks(y0.max(1e-3) * 0.8, y1 * 1.25)),
                )
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(format!("{} (log scale)", self.axis))
                .y_desc(format!("{} (log scale)", self.y_desc))
                .x_label_formatter(&x_tick)
                .y_label_formatter(&|v| format!("{v:.0}"))
                .label_style((FONT, 14))
                .light_line_style(WHITE)
                .draw()
                .map_err(err)?;
            draw_means(&mut chart, self, (x0, x1))?;
        } else {
            // From zero, or a little below the lowest point when some are negative.
            let span = (y1 - y0).abs().max(1e-9);
            let lo = if y0 < 0.0 { y0 - 0.05 * span } else { 0.0 };
            let hi = if y1 > 0.0 { y1 * 1.1 } else { 0.05 * span };
            let mut chart = c
                .build_cartesian_2d(x0 - pad..x1 + pad, lo..hi)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(self.axis.clone())
                .y_desc(self.y_desc.clone())
                .x_label_formatter(&x_tick)
                .label_style((FONT, 14))
                .light_line_style(WHITE)
                .draw()
                .map_err(err)?;
            draw_means(&mut chart, self, (x0, x1))?;
        }
        Ok(())
    }
}

/// Each series' means joined by a line, its 95 % CIs as capped bars, and the fitted power law;
/// exact pairs as [`AxisMeans::exact_pairs`] says.
fn draw_means<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    plot: &AxisMeans,
    (x0, x1): (f64, f64),
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let pairs = plot.series.len().div_ceil(2);
    for (i, (_, pts)) in plot.series.iter().enumerate() {
        let (col, exact, shift) = if plot.exact_pairs {
            // Pair k of m sits at x + (k − (m − 1)/2) · 1.2 % of the axis.
            let k = (i / 2) as f64 - (pairs as f64 - 1.0) / 2.0;
            (color(i / 2), i % 2 == 0, k * 0.012 * (x1 - x0).max(1.0))
        } else {
            (color(i), false, 0.0)
        };
        let at = |p: &Interval| p.0 + if exact { 0.0 } else { shift };
        if exact && i / 2 % 2 == 1 {
            // Every other exact line dashed: two equal exact values (surrender with and
            // without the bonus) show both colours instead of one line hiding the other.
            chart
                .draw_series(DashedLineSeries::new(
                    pts.iter().map(|p| (p.0, p.1)),
                    10,
                    8,
                    col.stroke_width(2),
                ))
                .map_err(err)?;
            continue;
        }
        // A series with a fitted law is its points; the law is the line through them.
        let fitted = plot.fits.iter().any(|(f, _)| *f == i);
        if (exact || !plot.exact_pairs) && !fitted {
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.0, p.1)),
                    col.stroke_width(2),
                ))
                .map_err(err)?;
        }
        if exact {
            continue;
        }
        // Caps 6 px wide whatever the axis: an interval narrower than a point still shows.
        chart
            .draw_series(pts.iter().map(|p| {
                EmptyElement::at((at(p), p.2))
                    + PathElement::new([(-6, 0), (6, 0)], col.stroke_width(2))
            }))
            .map_err(err)?;
        chart
            .draw_series(pts.iter().map(|p| {
                EmptyElement::at((at(p), p.3))
                    + PathElement::new([(-6, 0), (6, 0)], col.stroke_width(2))
            }))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|p| PathElement::new([(at(p), p.2), (at(p), p.3)], col.stroke_width(2))),
            )
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|p| Circle::new((at(p), p.1), 3, col.filled())),
            )
            .map_err(err)?;
    }
    for (i, f) in &plot.fits {
        // Over the series' own range of n, in its colour.
        let xs = plot.series[*i].1.iter().map(|p| p.0);
        let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
        let (lo, hi) = if lo < hi { (lo, hi) } else { (x0, x1) };
        let steps = 60;
        let line = (0..=steps).map(|k| {
            let x = lo * (hi / lo).powf(f64::from(k) / f64::from(steps));
            (x, f.scale * x.powf(f.exponent))
        });
        chart
            .draw_series(LineSeries::new(line, color(*i).stroke_width(1)))
            .map_err(err)?;
    }
    Ok(())
}

/// Two histograms side by side (cycle periods and cycle starts).
pub struct TwoHists {
    /// The figure's title.
    pub title: String,
    /// Each panel's x-axis label and `(value, games)` pairs.
    pub panels: [(String, Vec<(u64, u64)>); 2],
}

impl Plot for TwoHists {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let root = root.titled(&self.title, TITLE).map_err(err)?;
        let halves = root.split_evenly((1, 2));
        for (area, (label, values)) in halves.iter().zip(&self.panels) {
            // Whole values l..r as the interval [l − ½, r − ½), as in the length histogram.
            let bins: Vec<(f64, f64, u64)> = bin(values, 40)
                .into_iter()
                .map(|(l, r, n)| (l - 0.5, r - 0.5, n))
                .collect();
            let (x0, x1) = (
                bins.first().map_or(-0.5, |b| b.0),
                bins.last().map_or(0.5, |b| b.1),
            );
            let top = bins.iter().map(|b| b.2).max().unwrap_or(1).max(1) as f64;
            let least = bins
                .iter()
                .map(|b| b.2)
                .filter(|n| *n > 0)
                .min()
                .unwrap_or(1) as f64;
            let mut c = ChartBuilder::on(area);
            c.margin(15).x_label_area_size(45).y_label_area_size(60);
            let bar = color(1).mix(0.6).filled();
            // Counts that span decades (one period in most loops) go on a log axis, where the
            // rare periods still show.
            if top / least > 100.0 {
                let mut chart = c
                    .build_cartesian_2d(
                        x0..x1,
                        (0.5..top * 2.0)
                            .log_scale()
                            .with_key_points(log_ticks(1.0, top * 2.0)),
                    )
                    .map_err(err)?;
                chart
                    .configure_mesh()
                    .x_desc(label.clone())
                    .x_labels(6)
                    .x_label_formatter(&|v| whole_tick(*v))
                    .y_label_formatter(&|v| format!("{v:.0}"))
                    .y_desc("games (log scale)")
                    .label_style((FONT, 13))
                    .light_line_style(WHITE)
                    .draw()
                    .map_err(err)?;
                chart
                    .draw_series(
                        bins.iter()
                            .filter(|b| b.2 > 0)
                            .map(|&(l, r, n)| Rectangle::new([(l, n as f64), (r, 0.5)], bar)),
                    )
                    .map_err(err)?;
            } else {
                let mut chart = c.build_cartesian_2d(x0..x1, 0.0..top * 1.1).map_err(err)?;
                chart
                    .configure_mesh()
                    .x_desc(label.clone())
                    .x_labels(6)
                    .x_label_formatter(&|v| whole_tick(*v))
                    .y_labels((top as usize + 1).min(8))
                    .y_label_formatter(&|v| whole_tick(*v))
                    .y_desc("games")
                    .label_style((FONT, 13))
                    .light_line_style(WHITE)
                    .draw()
                    .map_err(err)?;
                chart
                    .draw_series(
                        bins.iter()
                            .map(|&(l, r, n)| Rectangle::new([(l, n as f64), (r, 0.0)], bar)),
                    )
                    .map_err(err)?;
            }
        }
        Ok(())
    }
}

/// Lines of `(x, y)` points, with optional bands `(x, lo, hi)`, on linear axes.
pub struct Lines {
    /// The figure's title.
    pub title: String,
    /// The x-axis label.
    pub x_desc: String,
    /// The y-axis label.
    pub y_desc: String,
    /// The lines, each with its band.
    pub series: Vec<BandedLine>,
    /// The y-axis range; by default it fits the data.
    pub y_range: Option<Range<f64>>,
}

impl Plot for Lines {
    fn size(&self, look: &Look) -> (u32, u32) {
        multiples_size(self.series.len(), look)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let title = shown_title(&self.title, self.series.len());
        let root = root.titled(&title, TITLE).map_err(err)?;
        let (groups, rows, cols) = panels(self.series.len());
        if groups.len() == 1 {
            return self.panel(&root, &groups[0]);
        }
        for (area, group) in root.split_evenly((rows, cols)).iter().zip(&groups) {
            self.panel(area, group)?;
        }
        Ok(())
    }
}

impl Lines {
    /// One panel: the lines of `group`, each with its band, on a y range that fits them.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        group: &Range<usize>,
    ) -> Result<(), String> {
        let series = &self.series[group.clone()];
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in series.iter().flat_map(|s| s.1.iter()) {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        for &(_, lo, hi) in series.iter().flat_map(|s| s.2.iter()) {
            y0 = y0.min(lo);
            y1 = y1.max(hi);
        }
        if x0 > x1 {
            return Ok(());
        }
        let fit = y0 - (y1 - y0).abs() * 0.05..y1 + (y1 - y0).abs() * 0.05 + 1e-9;
        // A given range is a floor: data beyond it widens it rather than leaving the chart.
        let yr = match &self.y_range {
            Some(r) => r.start.min(fit.start)..r.end.max(fit.end),
            None => fit,
        };
        let keys: Vec<(String, RGBColor)> = series
            .iter()
            .enumerate()
            .map(|(i, s)| (s.0.clone(), color(i)))
            .collect();
        let plot = legend_column(area, &keys)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1.max(x0 + 1.0), yr)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.clone())
            .y_desc(self.y_desc.clone())
            .x_labels(x_ticks(&plot))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| short_tick(*v))
            .label_style((FONT, 14))
            .light_line_style(WHITE)
            .draw()
            .map_err(err)?;
        for (i, (_, pts, band)) in series.iter().enumerate() {
            let col = color(i);
            if !band.is_empty() {
                let poly: Vec<(f64, f64)> = band
                    .iter()
                    .map(|b| (b.0, b.2))
                    .chain(band.iter().rev().map(|b| (b.0, b.1)))
                    .collect();
                chart
                    .draw_series([Polygon::new(poly, col.mix(0.15))])
                    .map_err(err)?;
            }
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), col.stroke_width(2)))
                .map_err(err)?;
        }
        Ok(())
    }
}

/// A forest plot: each row's estimate with its 95 % CI against a zero line (the baseline).
pub struct Forest {
    /// The figure's title.
    pub title: String,
    /// What is estimated, e.g. "difference of mean battles, variant − baseline (95 % CI)".
    pub x_desc: String,
    /// `(name, estimate, ci_lo, ci_hi)`, drawn top to bottom.
    pub rows: Vec<(String, f64, f64, f64)>,
}

impl Plot for Forest {
    fn size(&self, look: &Look) -> (u32, u32) {
        // One line per row, at least the usual height.
        rows_size(self.rows.len(), look)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let rows = &self.rows[..self.rows.len().min(MAX_ROWS)];
        let n = rows.len().max(1);
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for &(_, _, l, h) in rows {
            lo = lo.min(l);
            hi = hi.max(h);
        }
        let pad = (hi - lo).max(1e-9) * 0.05;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(4) as u32;
        let title = rows_title(&self.title, self.rows.len());
        let mut chart = ChartBuilder::on(root)
            .caption(&title, TITLE)
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size((longest * 8 + 20).clamp(60, 420))
            .build_cartesian_2d(lo - pad..hi + pad, -0.5..(n as f64 - 0.5))
            .map_err(err)?;
        row_mesh(&mut chart, &self.x_desc, &names)?;
        chart
            .draw_series([PathElement::new(
                [(0.0, -0.5), (0.0, n as f64 - 0.5)],
                BLACK.stroke_width(1),
            )])
            .map_err(err)?;
        let col = color(0);
        for (k, &(_, est, l, h)) in rows.iter().enumerate() {
            let y = (n - 1 - k) as f64;
            chart
                .draw_series([
                    PathElement::new([(l, y), (h, y)], col.stroke_width(2)),
                    PathElement::new([(l, y - 0.2), (l, y + 0.2)], col.stroke_width(2)),
                    PathElement::new([(h, y - 0.2), (h, y + 0.2)], col.stroke_width(2)),
                ])
                .map_err(err)?;
            chart
                .draw_series([Circle::new((est, y), 5, col.filled())])
                .map_err(err)?;
        }
        Ok(())
    }
}

/// Rows of a forest plot or of stacked shares at most: a figure of more says so in its title.
pub const MAX_ROWS: usize = 60;

/// A figure of one line per row: 20 px a row, at least the usual height.
fn rows_size(rows: usize, look: &Look) -> (u32, u32) {
    (
        look.width,
        look.height.max(120 + 20 * rows.min(MAX_ROWS) as u32),
    )
}

/// The title of a figure of `rows` rows: says when only the first [`MAX_ROWS`] are drawn.
fn rows_title(title: &str, rows: usize) -> String {
    if rows > MAX_ROWS {
        format!("{title} (first {MAX_ROWS} of {rows})")
    } else {
        title.to_string()
    }
}

/// The axes of a figure of one labelled row per name, the first name at the top.
fn row_mesh<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    x_desc: &str,
    names: &[String],
) -> Result<(), String> {
    let n = names.len();
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .x_label_formatter(&|v| short_tick(*v))
        .y_labels(n.max(1))
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
                names[n - 1 - i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_label_style((FONT, if n > 20 { 11 } else { 14 }))
        .x_label_style((FONT, 14))
        .disable_y_mesh()
        .light_line_style(WHITE)
        .draw()
        .map_err(err)
}

/// Each row's shares of named parts as one horizontal bar of 100 % (e.g. how games end).
pub struct StackedShares {
    /// The figure's title.
    pub title: String,
    /// The parts' names, in stacking order.
    pub parts: Vec<String>,
    /// `(row name, share of each part)`, the shares summing to 1.
    pub rows: Vec<(String, Vec<f64>)>,
}

impl Plot for StackedShares {
    fn size(&self, look: &Look) -> (u32, u32) {
        rows_size(self.rows.len(), look)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let rows = &self.rows[..self.rows.len().min(MAX_ROWS)];
        let n = rows.len().max(1);
        let title = rows_title(&self.title, self.rows.len());
        let root = root.titled(&title, TITLE).map_err(err)?;
        let keys: Vec<(String, RGBColor)> = self
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), color(i)))
            .collect();
        let plot = legend_column(&root, &keys)?;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(4) as u32;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size((longest * 8 + 20).clamp(60, 420))
            .build_cartesian_2d(0.0..100.0, -0.5..(n as f64 - 0.5))
            .map_err(err)?;
        row_mesh(&mut chart, "share of games, %", &names)?;
        for (k, (_, shares)) in rows.iter().enumerate() {
            let y = (n - 1 - k) as f64;
            let mut left = 0.0;
            for (i, s) in shares.iter().enumerate() {
                let right = left + 100.0 * s;
                if right > left {
                    chart
                        .draw_series([Rectangle::new(
                            [(left, y - 0.35), (right, y + 0.35)],
                            color(i).filled(),
                        )])
                        .map_err(err)?;
                }
                left = right;
            }
        }
        Ok(())
    }
}

/// A grid of shares, one cell per (column, row), coloured from blue (0) through white (½) to
/// red (1), each cell labelled with its share and its count of games.
pub struct HeatMap {
    /// The figure's title.
    pub title: String,
    /// The x-axis's description and its columns' labels, left to right.
    pub x_desc: String,
    /// Column labels.
    pub columns: Vec<String>,
    /// The y-axis's description.
    pub y_desc: String,
    /// Row labels, bottom to top.
    pub rows: Vec<String>,
    /// `cells[column][row]`: `(share, games)`; `None` leaves the cell blank (too few games).
    pub cells: Vec<Vec<Option<(f64, u64)>>>,
}

/// The heat map's colour of a share: blue at 0, white at ½, red at 1.
fn diverging(p: f64) -> RGBColor {
    let p = p.clamp(0.0, 1.0);
    let (blue, red) = ((33.0, 102.0, 172.0), (178.0, 24.0, 43.0));
    let mix = |a: f64, t: f64| (255.0 + (a - 255.0) * t).round() as u8;
    let (c, t) = if p < 0.5 {
        (blue, 1.0 - 2.0 * p)
    } else {
        (red, 2.0 * p - 1.0)
    };
    RGBColor(mix(c.0, t), mix(c.1, t), mix(c.2, t))
}

impl Plot for HeatMap {
    fn size(&self, look: &Look) -> (u32, u32) {
        // Tall enough for two lines of text in every row.
        let h = (self.rows.len() as u32 * 34 + 140).max(look.height);
        (look.width, h)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let root = root.titled(&self.title, TITLE).map_err(err)?;
        let (nc, nr) = (self.columns.len().max(1), self.rows.len().max(1));
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d(-0.5..(nc as f64 - 0.5), -0.5..(nr as f64 - 0.5))
            .map_err(err)?;
        let label = |names: &[String], v: f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_labels(nc)
            .y_labels(nr)
            .x_label_formatter(&|v| label(&self.columns, *v))
            .y_label_formatter(&|v| label(&self.rows, *v))
            .x_label_style((FONT, 14))
            .y_label_style((FONT, 13))
            .disable_mesh()
            .draw()
            .map_err(err)?;
        for (c, column) in self.cells.iter().enumerate() {
            for (r, cell) in column.iter().enumerate() {
                let Some((p, n)) = *cell else { continue };
                let (x, y) = (c as f64, r as f64);
                chart
                    .draw_series([Rectangle::new(
                        [(x - 0.48, y - 0.48), (x + 0.48, y + 0.48)],
                        diverging(p).filled(),
                    )])
                    .map_err(err)?;
                let ink = if (p - 0.5).abs() > 0.3 { WHITE } else { BLACK };
                let style = TextStyle::from((FONT, 11).into_font())
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                chart
                    .draw_series([
                        Text::new(format!("{:.0} %", 100.0 * p), (x, y + 0.17), style.clone()),
                        Text::new(format!("n={n}"), (x, y - 0.2), style),
                    ])
                    .map_err(err)?;
            }
        }
        Ok(())
    }
}
