//! Runs a page's content streams far enough to know where every glyph lands: the graphics
//! state's matrices, the text state and operators, and form XObjects. Colours are skipped, and
//! paths too unless ruling lines are asked for (tables in Markdown); images are only counted, so
//! a page of images can be flagged for OCR.

use crate::fonts::Font;
use crate::geometry::Matrix;
use crate::layout::PlacedGlyph;
use crate::lexer::{Lexer, Token};
use crate::objects;
use crate::rules::{Rule, RuleRecorder};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;
use std::rc::Rc;

/// Forms nested deeper than this are ignored: real documents stay far below it, and a cycle of
/// forms must not recurse without end.
const MAX_FORM_DEPTH: usize = 12;

/// Work allowed on one page, in operators and glyphs: far above any real page, it stops a
/// hostile file (forms drawing forms drawing forms …) from multiplying work without end.
const MAX_WORK_PER_PAGE: usize = 5_000_000;
/// Arrays nested deeper than this in a content stream are skipped, contents and all. No operator
/// reads nested arrays (TJ, d and the rest take flat ones; property lists at most a few levels),
/// and a hostile stream of 200,000 `[` nested operands until dropping them overflowed the stack.
const MAX_ARRAY_DEPTH: usize = 32;

/// What one page's content produced.
#[derive(Default)]
pub struct PageMarks {
    /// The page hit MAX_WORK_PER_PAGE and the rest of its content was skipped.
    pub truncated: bool,
    pub glyphs: Vec<PlacedGlyph>,
    pub text: String,
    pub images: usize,
    pub unmapped_glyphs: usize,
    pub fonts_without_unicode: FxHashSet<String>,
    /// Ruling lines, only when the interpreter was asked to record them.
    pub rules: Vec<Rule>,
}

/// Fonts and form contents are shared by the pages of a document, so each is parsed or
/// decompressed once.
#[derive(Default)]
pub struct FontCache {
    fonts: FxHashMap<FontKey, Font>,
    forms: FxHashMap<ObjectId, Option<Rc<[u8]>>>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum FontKey {
    Object(ObjectId),
    Inline(usize),
}

#[derive(Clone)]
struct GraphicsState {
    ctm: Matrix,
    font: Option<FontKey>,
    font_size: f32,
    char_spacing: f32,
    word_spacing: f32,
    horizontal_scale: f32,
    leading: f32,
    rise: f32,
    line_width: f32,
}

enum Operand<'a> {
    Number(f32),
    String(Cow<'a, [u8]>),
    Name(Cow<'a, [u8]>),
    Array(Vec<Operand<'a>>),
    Other,
}

pub struct Interpreter<'d, 'c> {
    doc: &'d Document,
    fonts: &'c mut FontCache,
    marks: PageMarks,
    state: GraphicsState,
    stack: Vec<GraphicsState>,
    text_matrix: Matrix,
    line_matrix: Matrix,
    active_forms: Vec<ObjectId>,
    /// Text outside the page's visible box is not shown by viewers, so it is not extracted.
    visible_box: Option<[f32; 4]>,
    work: usize,
    /// Present when ruling lines are recorded; plain text skips the path work.
    rules: Option<RuleRecorder>,
}

impl<'d, 'c> Interpreter<'d, 'c> {
    pub fn new(doc: &'d Document, fonts: &'c mut FontCache, visible_box: Option<[f32; 4]>) -> Self {
        let state = GraphicsState {
            ctm: Matrix::IDENTITY,
            font: None,
            font_size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            horizontal_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
            line_width: 1.0,
        };
        Interpreter {
            doc,
            fonts,
            marks: PageMarks::default(),
            state,
            stack: Vec::new(),
            text_matrix: Matrix::IDENTITY,
            line_matrix: Matrix::IDENTITY,
            active_forms: Vec::new(),
            visible_box,
            work: 0,
            rules: None,
        }
    }

    /// Also record the page's ruling lines (into [`PageMarks::rules`]).
    pub fn recording_rules(mut self) -> Self {
        self.rules = Some(RuleRecorder::default());
        self
    }

    pub fn finish(mut self) -> PageMarks {
        if let Some(recorder) = self.rules.take() {
            self.marks.rules = recorder.rules;
        }
        self.marks
    }

    pub fn run(&mut self, content: &[u8], resources: Option<&'d Dictionary>) {
        let mut lexer = Lexer::new(content);
        let mut operands: Vec<Operand> = Vec::new();
        let mut arrays: Vec<Vec<Operand>> = Vec::new();
        // Open arrays past MAX_ARRAY_DEPTH, whose contents are skipped.
        let mut too_deep = 0usize;
        let base_depth = self.stack.len();
        while let Some(token) = lexer.next_token() {
            self.work += 1;
            if self.work > MAX_WORK_PER_PAGE {
                self.marks.truncated = true;
                break;
            }
            let operator =
                matches!(token, Token::Keyword(k) if !matches!(k, b"true" | b"false" | b"null"));
            if too_deep > 0 && !operator && !matches!(token, Token::ArrayStart | Token::ArrayEnd) {
                continue;
            }
            let operand = match token {
                Token::Number(value) => Operand::Number(value as f32),
                Token::String(bytes) => Operand::String(bytes),
                Token::Name(name) => Operand::Name(name),
                Token::ArrayStart if arrays.len() >= MAX_ARRAY_DEPTH => {
                    too_deep += 1;
                    continue;
                }
                Token::ArrayStart => {
                    arrays.push(Vec::new());
                    continue;
                }
                Token::ArrayEnd if too_deep > 0 => {
                    too_deep -= 1;
                    continue;
                }
                Token::ArrayEnd => match arrays.pop() {
                    Some(items) => Operand::Array(items),
                    None => continue,
                },
                Token::DictStart | Token::DictEnd => Operand::Other,
                Token::Keyword(b"true" | b"false" | b"null") => Operand::Other,
                Token::Keyword(keyword) => {
                    if !arrays.is_empty() {
                        // An operator inside an array means the array was never closed.
                        arrays.clear();
                        too_deep = 0;
                    }
                    if keyword == b"ID" {
                        skip_inline_image(&mut lexer);
                        self.marks.images += 1;
                    } else {
                        self.operator(keyword, &operands, resources);
                    }
                    operands.clear();
                    continue;
                }
            };
            match arrays.last_mut() {
                Some(array) => array.push(operand),
                None => operands.push(operand),
            }
        }
        // A stream that leaves saves open must not leak its state into the next stream.
        while self.stack.len() > base_depth {
            self.state = self.stack.pop().unwrap_or_else(|| self.state.clone());
        }
    }

    fn operator(
        &mut self,
        keyword: &[u8],
        operands: &[Operand],
        resources: Option<&'d Dictionary>,
    ) {
        let number = |index: usize| -> f32 {
            match operands.get(index) {
                Some(Operand::Number(value)) => *value,
                _ => 0.0,
            }
        };
        let matrix = || -> Option<Matrix> {
            if operands.len() < 6 {
                return None;
            }
            let start = operands.len() - 6;
            Matrix::from_slice(&(start..start + 6).map(number).collect::<Vec<_>>())
        };
        match keyword {
            // Bounded: a hostile stream of a million q operators must not cost a million states.
            b"q" if self.stack.len() < 4096 => self.stack.push(self.state.clone()),
            b"Q" => {
                if let Some(state) = self.stack.pop() {
                    self.state = state;
                }
            }
            b"cm" => {
                if let Some(m) = matrix() {
                    self.state.ctm = m.then(&self.state.ctm);
                }
            }
            b"BT" => {
                self.text_matrix = Matrix::IDENTITY;
                self.line_matrix = Matrix::IDENTITY;
            }
            b"Tf" => {
                if let [.., Operand::Name(name), Operand::Number(size)] = operands {
                    self.state.font = self.font_key(resources, name);
                    self.state.font_size = *size;
                }
            }
            b"Tc" => self.state.char_spacing = number(0),
            b"Tw" => self.state.word_spacing = number(0),
            b"Tz" => self.state.horizontal_scale = number(0) / 100.0,
            b"TL" => self.state.leading = number(0),
            b"Ts" => self.state.rise = number(0),
            b"Td" => self.move_line(number(0), number(1)),
            b"TD" => {
                self.state.leading = -number(1);
                self.move_line(number(0), number(1));
            }
            b"Tm" => {
                if let Some(m) = matrix() {
                    self.text_matrix = m;
                    self.line_matrix = m;
                }
            }
            b"T*" => self.move_line(0.0, -self.state.leading),
            b"Tj" => {
                if let Some(Operand::String(bytes)) = operands.last() {
                    self.show(bytes);
                }
            }
            b"'" => {
                self.move_line(0.0, -self.state.leading);
                if let Some(Operand::String(bytes)) = operands.last() {
                    self.show(bytes);
                }
            }
            b"\"" => {
                self.state.word_spacing = number(0);
                self.state.char_spacing = number(1);
                self.move_line(0.0, -self.state.leading);
                if let Some(Operand::String(bytes)) = operands.last() {
                    self.show(bytes);
                }
            }
            b"TJ" => {
                if let Some(Operand::Array(items)) = operands.last() {
                    for item in items {
                        match item {
                            Operand::String(bytes) => self.show(bytes),
                            Operand::Number(adjust) => self.adjust(*adjust),
                            _ => {}
                        }
                    }
                }
            }
            b"Do" => {
                if let Some(Operand::Name(name)) = operands.last() {
                    self.draw_xobject(resources, name);
                }
            }
            b"w" => self.state.line_width = number(0),
            _ if self.rules.is_some() => self.path_operator(keyword, &number),
            _ => {}
        }
    }

    /// Path construction and painting, for ruling lines (PDF 32000-1 §8.5.2, §8.5.3).
    fn path_operator(&mut self, keyword: &[u8], number: &dyn Fn(usize) -> f32) {
        let ctm = self.state.ctm;
        let Some(recorder) = self.rules.as_mut() else {
            return;
        };
        let point = |x: usize, y: usize| ctm.apply(number(x), number(y));
        // The line width in device space: scaled by the CTM's mean scale.
        let [a, b, c, d, _, _] = ctm.0;
        let stroke_width = self.state.line_width.abs() * (a * d - b * c).abs().sqrt();
        match keyword {
            b"m" => recorder.move_to(point(0, 1)),
            b"l" => recorder.line_to(point(0, 1)),
            b"c" => recorder.curve_to(point(4, 5)),
            b"v" | b"y" => recorder.curve_to(point(2, 3)),
            b"h" => recorder.close(),
            b"re" => {
                let (x, y, w, h) = (number(0), number(1), number(2), number(3));
                recorder.rectangle([
                    ctm.apply(x, y),
                    ctm.apply(x + w, y),
                    ctm.apply(x + w, y + h),
                    ctm.apply(x, y + h),
                ]);
            }
            b"S" => recorder.paint(Some(stroke_width), false),
            b"s" => {
                recorder.close();
                recorder.paint(Some(stroke_width), false);
            }
            b"f" | b"F" | b"f*" => recorder.paint(None, true),
            b"B" | b"B*" => recorder.paint(Some(stroke_width), true),
            b"b" | b"b*" => {
                recorder.close();
                recorder.paint(Some(stroke_width), true);
            }
            b"n" => recorder.paint(None, false),
            _ => {}
        }
    }

    fn move_line(&mut self, x: f32, y: f32) {
        self.line_matrix = Matrix::translation(x, y).then(&self.line_matrix);
        self.text_matrix = self.line_matrix;
    }

    fn font_key(&mut self, resources: Option<&'d Dictionary>, name: &[u8]) -> Option<FontKey> {
        let fonts = objects::dict(self.doc, resources?, b"Font")?;
        let entry = fonts.get(name).ok()?;
        let (key, dict) = match entry {
            Object::Reference(id) => match self.doc.get_object(*id).ok()? {
                Object::Dictionary(dict) => (FontKey::Object(*id), dict),
                _ => return None,
            },
            Object::Dictionary(dict) => (FontKey::Inline(dict as *const Dictionary as usize), dict),
            _ => return None,
        };
        let doc = self.doc;
        self.fonts
            .fonts
            .entry(key)
            .or_insert_with(|| Font::load(doc, dict));
        Some(key)
    }

    /// TJ numbers move the pen against the writing direction, in thousandths of the font size.
    fn adjust(&mut self, thousandths: f32) {
        let Some(font) = self.state.font.and_then(|key| self.fonts.fonts.get(&key)) else {
            return;
        };
        let distance = -thousandths / 1000.0 * self.state.font_size;
        let shift = if font.vertical {
            Matrix::translation(0.0, distance)
        } else {
            Matrix::translation(distance * self.state.horizontal_scale, 0.0)
        };
        self.text_matrix = shift.then(&self.text_matrix);
    }

    fn show(&mut self, bytes: &[u8]) {
        let Some(key) = self.state.font else { return };
        let Some(font) = self.fonts.fonts.get_mut(&key) else {
            return;
        };
        let state = &self.state;
        let size = state.font_size;
        let scale = state.horizontal_scale;
        let vertical = font.vertical;
        let width_scale = font.width_scale;
        let height_scale = font.height_scale;
        let visible_box = self.visible_box;
        let marks = &mut self.marks;
        let text_matrix = &mut self.text_matrix;
        if font.missing_unicode {
            marks.fonts_without_unicode.insert(font.name.clone());
        }
        let bold = font.bold;
        self.work += bytes.len();
        font.each_glyph(bytes, |glyph| {
            let advance = glyph.advance * width_scale * size;
            let spacing = state.char_spacing
                + if glyph.is_word_space {
                    state.word_spacing
                } else {
                    0.0
                };
            let render = Matrix([size * scale, 0.0, 0.0, size, 0.0, state.rise])
                .then(text_matrix)
                .then(&state.ctm);
            let (x, y) = render.apply(0.0, 0.0);
            // Direction of the pen's travel in device space, and the glyph's extent along it.
            let (dx, dy) = if vertical {
                render.apply_vector(0.0, -1.0)
            } else {
                render.apply_vector(1.0, 0.0)
            };
            let unit = (dx * dx + dy * dy).sqrt();
            let (up_x, up_y) = render.apply_vector(0.0, 1.0);
            let height = (up_x * up_x + up_y * up_y).sqrt() * height_scale;
            let width = if size != 0.0 {
                advance.abs() / size.abs() * unit
            } else {
                0.0
            };
            let inside = visible_box.is_none_or(|[x0, y0, x1, y1]| {
                x >= x0 - height && x <= x1 + height && y >= y0 - height && y <= y1 + height
            });
            match glyph.text {
                _ if !inside => {}
                Some(text) if !text.is_empty() && x.is_finite() && y.is_finite() => {
                    let start = marks.text.len() as u32;
                    marks.text.push_str(text);
                    let mut placed =
                        PlacedGlyph::new(x, y, dx, dy, width, height, start, text.len() as u32);
                    placed.bold = bold;
                    marks.glyphs.push(placed);
                }
                Some(_) => {}
                None => marks.unmapped_glyphs += 1,
            }
            let step = if vertical {
                Matrix::translation(0.0, -(advance + spacing))
            } else {
                Matrix::translation((advance + spacing) * scale, 0.0)
            };
            *text_matrix = step.then(text_matrix);
        });
    }

    fn draw_xobject(&mut self, resources: Option<&'d Dictionary>, name: &[u8]) {
        let Some((id, stream, subtype)) = objects::xobject(self.doc, resources, name) else {
            return;
        };
        match subtype {
            Some(b"Image") => self.marks.images += 1,
            Some(b"Form") => {
                let form_matrix = objects::array(self.doc, &stream.dict, b"Matrix")
                    .and_then(|items| Matrix::from_slice(&objects::numbers(self.doc, items)))
                    .unwrap_or(Matrix::IDENTITY);
                let ctm = form_matrix.then(&self.state.ctm);
                self.run_form(id, stream, ctm, resources);
            }
            _ => {}
        }
    }
}

impl<'d> Interpreter<'d, '_> {
    /// Runs a form XObject's content with `ctm` as its current transformation matrix.
    fn run_form(
        &mut self,
        id: ObjectId,
        stream: &'d Stream,
        ctm: Matrix,
        resources: Option<&'d Dictionary>,
    ) {
        if self.active_forms.len() >= MAX_FORM_DEPTH || self.active_forms.contains(&id) {
            return;
        }
        let cached = self
            .fonts
            .forms
            .entry(id)
            .or_insert_with(|| objects::decoded(stream).map(Rc::from));
        let Some(content) = cached.clone() else {
            return;
        };
        let form_resources = objects::dict(self.doc, &stream.dict, b"Resources").or(resources);
        let saved = (self.state.clone(), self.text_matrix, self.line_matrix);
        self.state.ctm = ctm;
        self.active_forms.push(id);
        self.run(&content, form_resources);
        self.active_forms.pop();
        (self.state, self.text_matrix, self.line_matrix) = saved;
    }

    /// Draws the normal appearance of the page's visible widget and free-text annotations, where
    /// filled-in form values and button captions live (PDF 32000-1 §12.5.5): the appearance's
    /// box, through its matrix, is fitted onto the annotation's rectangle.
    pub fn run_annotations(&mut self, page: &'d Dictionary) {
        let Some(annotations) = objects::array(self.doc, page, b"Annots") else {
            return;
        };
        for item in annotations {
            let Some(Object::Dictionary(annotation)) = objects::resolve(self.doc, item) else {
                continue;
            };
            let subtype = objects::name(self.doc, annotation, b"Subtype");
            let flags = objects::number_at(self.doc, annotation, b"F").unwrap_or(0.0) as u32;
            // Bit 2: hidden; bit 6: no view.
            if !matches!(subtype, Some(b"Widget" | b"FreeText")) || flags & (2 | 32) != 0 {
                continue;
            }
            let Some((id, stream)) = self.normal_appearance(annotation) else {
                continue;
            };
            let rect = objects::array(self.doc, annotation, b"Rect")
                .map(|items| objects::numbers(self.doc, items));
            let bbox = objects::array(self.doc, &stream.dict, b"BBox")
                .map(|items| objects::numbers(self.doc, items));
            let (Some([rx0, ry0, rx1, ry1]), Some([bx0, by0, bx1, by1])) = (
                rect.and_then(|r| <[f32; 4]>::try_from(r).ok()),
                bbox.and_then(|b| <[f32; 4]>::try_from(b).ok()),
            ) else {
                continue;
            };
            let form_matrix = objects::array(self.doc, &stream.dict, b"Matrix")
                .and_then(|items| Matrix::from_slice(&objects::numbers(self.doc, items)))
                .unwrap_or(Matrix::IDENTITY);
            let corners = [(bx0, by0), (bx1, by0), (bx0, by1), (bx1, by1)]
                .map(|(x, y)| form_matrix.apply(x, y));
            let (min_x, max_x) = corners.iter().fold((f32::MAX, f32::MIN), |(lo, hi), c| {
                (lo.min(c.0), hi.max(c.0))
            });
            let (min_y, max_y) = corners.iter().fold((f32::MAX, f32::MIN), |(lo, hi), c| {
                (lo.min(c.1), hi.max(c.1))
            });
            if max_x <= min_x || max_y <= min_y {
                continue;
            }
            let (sx, sy) = (
                (rx1 - rx0).abs() / (max_x - min_x),
                (ry1 - ry0).abs() / (max_y - min_y),
            );
            let fit = Matrix([
                sx,
                0.0,
                0.0,
                sy,
                rx0.min(rx1) - min_x * sx,
                ry0.min(ry1) - min_y * sy,
            ]);
            self.run_form(id, stream, form_matrix.then(&fit), None);
        }
    }

    /// /AP /N is a stream, or a dictionary of states of which /AS names the one shown.
    fn normal_appearance(&self, annotation: &'d Dictionary) -> Option<(ObjectId, &'d Stream)> {
        let appearances = objects::dict(self.doc, annotation, b"AP")?;
        let normal = appearances.get(b"N").ok()?;
        let reference = match objects::resolve(self.doc, normal)? {
            Object::Stream(_) => normal,
            Object::Dictionary(states) => states
                .get(objects::name(self.doc, annotation, b"AS")?)
                .ok()?,
            _ => return None,
        };
        let Object::Reference(id) = reference else {
            return None;
        };
        match self.doc.get_object(*id).ok()? {
            Object::Stream(stream) => Some((*id, stream)),
            _ => None,
        }
    }
}

/// Inline image data runs from after `ID` and one whitespace byte to an `EI` standing alone.
fn skip_inline_image(lexer: &mut Lexer) {
    let rest = lexer.remaining();
    let mut index = 1;
    while index + 2 <= rest.len() {
        if &rest[index..index + 2] == b"EI"
            && crate::lexer::is_whitespace(rest[index - 1])
            && rest
                .get(index + 2)
                .is_none_or(|&b| crate::lexer::is_whitespace(b))
        {
            lexer.position += index + 2;
            return;
        }
        index += 1;
    }
    lexer.position += rest.len();
}
