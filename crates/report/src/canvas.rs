//! The surfaces the figures are drawn on, between a figure and plotters' PNG and SVG backends.
//!
//! Every figure is laid out in *figure units* (the SVG's pixels, 96 per inch). The PNG is the
//! same drawing at a pixel density (`scale`, 2 by default: print quality), every coordinate,
//! stroke and font size multiplied, so a PNG at 2× is the 1× figure sharper, not a figure
//! with smaller text. The SVG has its text as glyph outlines taken from the DejaVu fonts
//! compiled in, so it renders the same on a machine with no fonts at all (a `<text>` element
//! names a font family the viewer may not have).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use ab_glyph::{Font, FontRef, OutlineCurve, Point, ScaleFont};
use plotters::prelude::*;
use plotters::style::{FontDesc, FontStyle, FontTransform};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
    text_anchor::{HPos, VPos},
};
use warlab_experiment::FigureSettings;

/// A figure's size in figure units and the PNG's pixels per unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Width of a single-panel figure (taller or wider figures grow from it).
    pub width: u32,
    /// Height of a single-panel figure.
    pub height: u32,
    /// PNG pixels per figure unit: 1 for the screen, 2 (the default) for print.
    pub scale: f64,
}

impl Look {
    /// The look of `settings`, the defaults where they give nothing: 1000 × 600 units, PNGs
    /// at 192 pixels per inch (2 pixels per unit).
    pub fn of(settings: &FigureSettings) -> Look {
        Look {
            width: settings.width.unwrap_or(1000),
            height: settings.height.unwrap_or(600),
            scale: f64::from(settings.dpi.unwrap_or(192)) / 96.0,
        }
    }
}

impl Default for Look {
    fn default() -> Look {
        Look::of(&FigureSettings::default())
    }
}

/// A backend seen at `1/k` of its size, and for SVG with text written as outlines.
pub struct Canvas<DB> {
    inner: DB,
    size: (u32, u32),
    k: f64,
    /// Where the text goes as `<path>` elements (SVG); `None`: drawn by the backend (PNG).
    outlines: Option<Rc<RefCell<String>>>,
}

impl<DB: DrawingBackend> Canvas<DB> {
    /// A PNG-like surface: `inner` is `size × k` pixels, drawn in units of `size`.
    pub fn scaled(inner: DB, size: (u32, u32), k: f64) -> Canvas<DB> {
        Canvas {
            inner,
            size,
            k,
            outlines: None,
        }
    }

    /// An SVG surface: text goes to `outlines` as paths, to be put in the file at the end.
    pub fn outlined(inner: DB, outlines: Rc<RefCell<String>>) -> Canvas<DB> {
        let size = inner.get_size();
        Canvas {
            inner,
            size,
            k: 1.0,
            outlines: Some(outlines),
        }
    }

    fn at(&self, (x, y): BackendCoord) -> BackendCoord {
        (
            (f64::from(x) * self.k).round() as i32,
            (f64::from(y) * self.k).round() as i32,
        )
    }

    /// The last device pixel of the unit pixel at `(x, y)`: a filled shape covers it whole.
    fn end(&self, (x, y): BackendCoord) -> BackendCoord {
        let (ex, ey) = self.at((x + 1, y + 1));
        (ex - 1, ey - 1)
    }
}

/// A style whose stroke is `k` times as wide.
struct Wide<'a, S>(&'a S, f64);

impl<S: BackendStyle> BackendStyle for Wide<'_, S> {
    fn color(&self) -> BackendColor {
        self.0.color()
    }
    fn stroke_width(&self) -> u32 {
        (f64::from(self.0.stroke_width()) * self.1).round() as u32
    }
}

type Drawn<E> = Result<(), DrawingErrorKind<E>>;

impl<DB: DrawingBackend> DrawingBackend for Canvas<DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Drawn<DB::ErrorType> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Drawn<DB::ErrorType> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, p: BackendCoord, color: BackendColor) -> Drawn<DB::ErrorType> {
        if self.k == 1.0 {
            return self.inner.draw_pixel(p, color);
        }
        let (from, to) = (self.at(p), self.end(p));
        self.inner.draw_rect(from, to, &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn<DB::ErrorType> {
        let (from, to) = (self.at(from), self.at(to));
        self.inner.draw_line(from, to, &Wide(style, self.k))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<DB::ErrorType> {
        let from = self.at(upper_left);
        let to = if fill {
            self.end(bottom_right)
        } else {
            self.at(bottom_right)
        };
        self.inner.draw_rect(from, to, &Wide(style, self.k), fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<DB::ErrorType> {
        let points: Vec<_> = path.into_iter().map(|p| self.at(p)).collect();
        self.inner.draw_path(points, &Wide(style, self.k))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn<DB::ErrorType> {
        let r = (f64::from(radius) * self.k).round() as u32;
        let center = self.at(center);
        self.inner
            .draw_circle(center, r, &Wide(style, self.k), fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn<DB::ErrorType> {
        let points: Vec<_> = vert.into_iter().map(|p| self.at(p)).collect();
        self.inner.fill_polygon(points, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Drawn<DB::ErrorType> {
        if let Some(out) = &self.outlines {
            let layout = style
                .layout_box(text)
                .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
            outline(&mut out.borrow_mut(), text, style, layout, pos);
            return Ok(());
        }
        let font = FontDesc::new(style.family(), style.size() * self.k, style.style())
            .transform(style.transform());
        let big = TextStyle {
            font,
            color: style.color(),
            pos: style.anchor(),
        };
        let pos = self.at(pos);
        self.inner.draw_text(text, &big, pos)
    }
}

/// The compiled-in face of a style: DejaVu Sans, bold or regular (the only faces figures use).
fn face(style: FontStyle) -> FontRef<'static> {
    let bytes = match style {
        FontStyle::Bold => dejavu::sans::bold(),
        _ => dejavu::sans::regular(),
    };
    // The crate's own fonts: a parse failure is a broken build, not an input error.
    FontRef::try_from_slice(bytes).expect("the compiled-in DejaVu font parses")
}

/// Appends `text` as one `<path>` of glyph outlines, placed exactly where plotters' raster
/// text puts its pixels (the same advance, kerning, baseline and anchor), so the SVG and the
/// PNG agree.
fn outline<T: BackendTextStyle>(
    svg: &mut String,
    text: &str,
    style: &T,
    ((min_x, min_y), (max_x, max_y)): ((i32, i32), (i32, i32)),
    pos: BackendCoord,
) {
    let color = style.color();
    if color.alpha == 0.0 || text.trim().is_empty() {
        return;
    }
    let (width, height) = (max_x - min_x, max_y - min_y);
    let dx = match style.anchor().h_pos {
        HPos::Left => 0,
        HPos::Right => -width,
        HPos::Center => -width / 2,
    };
    let dy = match style.anchor().v_pos {
        VPos::Top => 0,
        VPos::Center => -height / 2,
        VPos::Bottom => -height,
    };
    let (ox, oy) = ((dx - min_x) as f32, (dy - min_y) as f32);
    let turn = style.transform();
    let place = |x: f32, y: f32| {
        let (x, y) = (x + ox, y + oy);
        let (x, y) = match turn {
            FontTransform::None => (x, y),
            FontTransform::Rotate90 => (-y, x),
            FontTransform::Rotate180 => (-x, -y),
            FontTransform::Rotate270 => (y, -x),
        };
        (x + pos.0 as f32, y + pos.1 as f32)
    };

    let size = style.size() as f32;
    let font = face(style.style());
    let scaled = font.as_scaled(size);
    let (hs, vs) = (scaled.h_scale_factor(), scaled.v_scale_factor());
    let mut d = String::new();
    let mut advance = 0f32;
    let mut prev = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            advance += scaled.kern(p, id);
        }
        prev = Some(id);
        if let (Some(drawn), Some(shape)) = (
            scaled.outline_glyph(scaled.scaled_glyph(c)),
            font.outline(id),
        ) {
            // plotters puts the glyph's pixel box at (whole advance, size/2 + box top): the
            // box's left edge on the pen, the baseline half a size down.
            let b = drawn.px_bounds();
            let left = advance.trunc() - b.min.x;
            let top = (size / 2.0 + b.min.y).trunc() - b.min.y;
            let to = |p: Point| place(left + p.x * hs, top - p.y * vs);
            let mut pen: Option<Point> = None;
            for curve in &shape.curves {
                let (start, end) = match curve {
                    OutlineCurve::Line(a, b) => (*a, *b),
                    OutlineCurve::Quad(a, _, b) => (*a, *b),
                    OutlineCurve::Cubic(a, _, _, b) => (*a, *b),
                };
                if pen != Some(start) {
                    if pen.is_some() {
                        d.push('Z');
                    }
                    let (x, y) = to(start);
                    let _ = write!(d, "M{x:.2} {y:.2}");
                }
                match curve {
                    OutlineCurve::Line(_, b) => {
                        let (x, y) = to(*b);
                        let _ = write!(d, "L{x:.2} {y:.2}");
                    }
                    OutlineCurve::Quad(_, c, b) => {
                        let ((cx, cy), (x, y)) = (to(*c), to(*b));
                        let _ = write!(d, "Q{cx:.2} {cy:.2} {x:.2} {y:.2}");
                    }
                    OutlineCurve::Cubic(_, c1, c2, b) => {
                        let ((ax, ay), (bx, by), (x, y)) = (to(*c1), to(*c2), to(*b));
                        let _ = write!(d, "C{ax:.2} {ay:.2} {bx:.2} {by:.2} {x:.2} {y:.2}");
                    }
                }
                pen = Some(end);
            }
            if pen.is_some() {
                d.push('Z');
            }
        }
        advance += scaled.h_advance(id);
    }
    if d.is_empty() {
        return;
    }
    let (r, g, b) = color.rgb;
    let _ = write!(svg, "<path d=\"{d}\" fill=\"#{r:02x}{g:02x}{b:02x}\"");
    if color.alpha < 1.0 {
        let _ = write!(svg, " fill-opacity=\"{:.3}\"", color.alpha);
    }
    svg.push_str("/>\n");
}
