//! Ruling lines: the horizontal and vertical strokes, and the thin filled shapes (rectangles,
//! or the trapezoids of bevelled borders), that tables are drawn with. Paths are followed only
//! far enough to find them: straight segments and rectangles in device space, through the CTM
//! when they were built; curves only move the pen. Everything is capped, so a page of millions
//! of path operators stays bounded in memory.

/// A ruling line as the box it covers on the page, in PDF points (x0 ≤ x1, y0 ≤ y1): a
/// horizontal rule is wider than tall, a vertical one taller than wide.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

/// Far more rules than any real page draws; past it, further rules are dropped.
pub const MAX_RULES_PER_PAGE: usize = 10_000;
/// Segments kept for the path under construction; a longer path keeps only its first ones.
const MAX_PATH_SEGMENTS: usize = 10_000;
/// A filled rectangle thicker than this (points) is a shaded area, not a rule.
const MAX_RULE_THICKNESS: f32 = 3.0;
/// A segment whose ends differ by at most this much across its length is axis-aligned.
const AXIS_TOLERANCE: f32 = 0.5;
/// Shorter rules are dots or tick marks, of no use for finding cells.
const MIN_RULE_LENGTH: f32 = 2.0;

/// The extent of a subpath of straight lines, for filled shapes: a thin one is a rule whatever
/// its outline (browsers fill bevelled inset and outset borders as thin trapezoids).
#[derive(Clone, Copy)]
struct Outline {
    bounds: [f32; 4],
    points: usize,
    curved: bool,
}

/// The path under construction and the rules painted so far on one page.
#[derive(Default)]
pub struct RuleRecorder {
    segments: Vec<[f32; 4]>,
    /// Extents of the finished straight subpaths (rectangles included), for filling.
    outlines: Vec<[f32; 4]>,
    outline: Option<Outline>,
    current: Option<(f32, f32)>,
    subpath_start: Option<(f32, f32)>,
    pub rules: Vec<Rule>,
}

impl RuleRecorder {
    pub fn move_to(&mut self, point: (f32, f32)) {
        self.finish_outline();
        self.outline = Some(Outline {
            bounds: [point.0, point.1, point.0, point.1],
            points: 1,
            curved: false,
        });
        self.current = Some(point);
        self.subpath_start = Some(point);
    }

    pub fn line_to(&mut self, point: (f32, f32)) {
        if let Some(from) = self.current {
            self.push_segment(from, point);
        }
        self.extend_outline(point, false);
        self.current = Some(point);
    }

    /// Curves are never rules: the pen moves to the curve's end.
    pub fn curve_to(&mut self, end: (f32, f32)) {
        self.extend_outline(end, true);
        self.current = Some(end);
    }

    fn extend_outline(&mut self, point: (f32, f32), curved: bool) {
        if let Some(outline) = self.outline.as_mut() {
            let [x0, y0, x1, y1] = &mut outline.bounds;
            *x0 = x0.min(point.0);
            *y0 = y0.min(point.1);
            *x1 = x1.max(point.0);
            *y1 = y1.max(point.1);
            outline.points += 1;
            outline.curved |= curved;
        }
    }

    fn finish_outline(&mut self) {
        if let Some(outline) = self.outline.take() {
            if !outline.curved && outline.points >= 3 && self.outlines.len() < MAX_PATH_SEGMENTS {
                self.outlines.push(outline.bounds);
            }
        }
    }

    pub fn close(&mut self) {
        if let (Some(from), Some(to)) = (self.current, self.subpath_start) {
            self.push_segment(from, to);
            self.current = Some(to);
        }
    }

    /// A rectangle's four corners, already through the CTM: a closed subpath of its own.
    pub fn rectangle(&mut self, corners: [(f32, f32); 4]) {
        self.move_to(corners[0]);
        for corner in corners.iter().skip(1).chain(std::iter::once(&corners[0])) {
            self.line_to(*corner);
        }
        self.move_to(corners[0]);
    }

    fn push_segment(&mut self, from: (f32, f32), to: (f32, f32)) {
        if self.segments.len() < MAX_PATH_SEGMENTS {
            self.segments.push([from.0, from.1, to.0, to.1]);
        }
    }

    /// Paints the path (`stroke` with a device-space line width, `fill`, or neither for `n`)
    /// and starts a new one.
    pub fn paint(&mut self, stroke: Option<f32>, fill: bool) {
        self.finish_outline();
        if let Some(width) = stroke {
            let half = (width / 2.0).max(0.05);
            for index in 0..self.segments.len() {
                let [xa, ya, xb, yb] = self.segments[index];
                if (ya - yb).abs() <= AXIS_TOLERANCE {
                    let y = (ya + yb) / 2.0;
                    self.push_rule(xa.min(xb), y - half, xa.max(xb), y + half);
                } else if (xa - xb).abs() <= AXIS_TOLERANCE {
                    let x = (xa + xb) / 2.0;
                    self.push_rule(x - half, ya.min(yb), x + half, ya.max(yb));
                }
            }
        }
        if fill {
            for index in 0..self.outlines.len() {
                let [x0, y0, x1, y1] = self.outlines[index];
                if (x1 - x0).min(y1 - y0) <= MAX_RULE_THICKNESS {
                    self.push_rule(x0, y0, x1, y1);
                }
            }
        }
        self.segments.clear();
        self.outlines.clear();
        self.current = None;
        self.subpath_start = None;
    }

    fn push_rule(&mut self, x0: f32, y0: f32, x1: f32, y1: f32) {
        let finite = [x0, y0, x1, y1].iter().all(|v| v.is_finite());
        let length = (x1 - x0).max(y1 - y0);
        if finite && length >= MIN_RULE_LENGTH && self.rules.len() < MAX_RULES_PER_PAGE {
            self.rules.push(Rule { x0, y0, x1, y1 });
        }
    }
}

/// The vertical rules of a page, by x: text on two sides of one belongs to two cells.
pub struct Walls {
    /// (x, bottom, top), sorted by x.
    walls: Vec<(f32, f32, f32)>,
}

/// Walls looked at for one gap: a real page has a handful between two words, and a hostile one
/// must not make every gap cost thousands.
const MAX_WALLS_PER_GAP: usize = 64;

impl Walls {
    pub fn new(rules: &[Rule]) -> Self {
        let mut walls: Vec<(f32, f32, f32)> = rules
            .iter()
            .filter(|rule| rule.y1 - rule.y0 > rule.x1 - rule.x0)
            .map(|rule| ((rule.x0 + rule.x1) / 2.0, rule.y0, rule.y1))
            .collect();
        walls.sort_by(|a, b| a.0.total_cmp(&b.0));
        Walls { walls }
    }

    pub fn is_empty(&self) -> bool {
        self.walls.is_empty()
    }

    /// A wall stands between x = `from` and x = `to` (from < to) along the whole height of text
    /// of `size` on `baseline`: a cell border does, a proof's box or a bullet drawn as a square
    /// does not.
    pub fn between(&self, from: f32, to: f32, baseline: f32, size: f32) -> bool {
        // Half a point of slack: a glyph's advance may reach over a rule drawn close to it.
        let first = self.walls.partition_point(|wall| wall.0 <= from - 0.5);
        let (low, high) = (baseline - 0.1 * size, baseline + 0.7 * size);
        self.walls[first..]
            .iter()
            .take(MAX_WALLS_PER_GAP)
            .take_while(|wall| wall.0 < to + 0.5)
            .any(|&(_, bottom, top)| bottom <= low && high <= top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strokes_and_thin_fills_become_rules_and_curves_and_shading_do_not() {
        let mut recorder = RuleRecorder::default();
        recorder.move_to((10.0, 100.0));
        recorder.line_to((200.0, 100.0));
        recorder.line_to((200.0, 20.0));
        recorder.line_to((150.0, 60.0));
        recorder.curve_to((10.0, 10.0));
        recorder.paint(Some(1.0), false);
        assert_eq!(
            recorder.rules,
            vec![
                Rule {
                    x0: 10.0,
                    y0: 99.5,
                    x1: 200.0,
                    y1: 100.5
                },
                Rule {
                    x0: 199.5,
                    y0: 20.0,
                    x1: 200.5,
                    y1: 100.0
                },
            ]
        );
        recorder.rules.clear();
        recorder.rectangle([(0.0, 0.0), (100.0, 0.0), (100.0, 0.8), (0.0, 0.8)]);
        recorder.rectangle([(0.0, 10.0), (100.0, 10.0), (100.0, 40.0), (0.0, 40.0)]);
        recorder.paint(None, true);
        assert_eq!(
            recorder.rules,
            vec![Rule {
                x0: 0.0,
                y0: 0.0,
                x1: 100.0,
                y1: 0.8
            }]
        );
    }

    #[test]
    fn a_thin_filled_trapezoid_is_a_rule_and_a_thin_curved_shape_is_not() {
        let mut recorder = RuleRecorder::default();
        recorder.move_to((144.0, 35.0));
        recorder.line_to((144.0, 126.0));
        recorder.line_to((145.0, 126.0));
        recorder.line_to((145.0, 34.0));
        recorder.move_to((0.0, 0.0));
        recorder.line_to((50.0, 0.0));
        recorder.curve_to((50.0, 1.0));
        recorder.paint(None, true);
        assert_eq!(
            recorder.rules,
            vec![Rule {
                x0: 144.0,
                y0: 34.0,
                x1: 145.0,
                y1: 126.0
            }]
        );
    }

    #[test]
    fn a_hostile_page_of_rules_stays_bounded() {
        let mut recorder = RuleRecorder::default();
        for i in 0..(MAX_RULES_PER_PAGE + 500) {
            recorder.move_to((0.0, i as f32));
            recorder.line_to((50.0, i as f32));
        }
        assert_eq!(recorder.segments.len(), MAX_PATH_SEGMENTS);
        recorder.paint(Some(0.5), false);
        assert_eq!(recorder.rules.len(), MAX_RULES_PER_PAGE);
        assert!(recorder.segments.is_empty());
    }

    #[test]
    fn walls_separate_only_where_they_stand() {
        let walls = Walls::new(&[Rule {
            x0: 99.75,
            y0: 50.0,
            x1: 100.25,
            y1: 150.0,
        }]);
        assert!(walls.between(90.0, 110.0, 100.0, 10.0));
        assert!(!walls.between(90.0, 110.0, 145.0, 10.0));
        assert!(!walls.between(110.0, 130.0, 100.0, 10.0));
        let square = Walls::new(&[Rule {
            x0: 99.75,
            y0: 100.0,
            x1: 100.25,
            y1: 107.0,
        }]);
        assert!(!square.between(90.0, 110.0, 100.0, 10.0));
    }
}
