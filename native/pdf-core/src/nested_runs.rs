//! How many times a page runs nested content when drawn, counted the way a renderer draws it:
//! each `Do` of a form runs the form's content again, and each glyph of a Type 3 font runs the
//! glyph's procedure, so forms and glyphs that draw forms and glyphs multiply (ten forms each
//! drawing the next ten times is 10^10 runs), and one that draws itself never ends. The text
//! interpreter bounds its own walk (interpreter.rs) and runs no glyph procedures; the OCR
//! renderer (hayro) stops forms only 50 levels deep, and Type 3 glyphs never: a form drawing
//! itself twice kept it busy without end, and a glyph drawing itself overflowed its stack, which
//! ends the process. So a page is measured here before it is rendered.
use crate::document::PdfDocument;
use crate::lexer::{Lexer, Token};
use crate::objects;
use lopdf::{Dictionary, Object, ObjectId, Stream};
use std::collections::HashMap;

/// Nested runs a page may take to be rendered: real pages take tens, or thousands at the most.
pub const MAX_NESTED_RUNS: u64 = 100_000;

/// Forms nested deeper than this are not drawn by the renderer (hayro's limit, which counts the
/// Type 3 glyphs on the way too). It draws glyphs at any depth, so a glyph this deep is past
/// what a page may take.
const RENDERER_DEPTH: usize = 50;

/// Past the limit: what a run that draws itself, or a glyph deeper than the renderer stops, counts.
const PAST: u64 = MAX_NESTED_RUNS + 1;

/// Graphics states a page may save before its `q` stops keeping the font (the text state's
/// font is part of the graphics state, so `Q` brings the saved one back).
const MAX_SAVED_STATES: usize = 4096;

/// Counts, remembered by object and depth (the depth limit cuts a count the deeper it starts).
struct Counter<'d> {
    doc: &'d lopdf::Document,
    /// Runs below a form or glyph procedure, itself excluded.
    below: HashMap<(ObjectId, usize), u64>,
    /// What one glyph of a Type 3 font runs, at the most over its glyphs.
    glyph_cost: HashMap<(ObjectId, usize), u64>,
    active: Vec<ObjectId>,
}

impl<'d> Counter<'d> {
    /// Runs that `content` starts, directly and below, saturating past MAX_NESTED_RUNS. Glyphs of
    /// Type 3 fonts count as runs inside forms and glyphs; on the page itself, only what their
    /// procedures run counts (a page of Type 3 text draws each glyph once, however many).
    fn runs(&mut self, content: &[u8], resources: Option<&'d Dictionary>, depth: usize) -> u64 {
        let mut lexer = Lexer::new(content);
        let mut last_name: Option<Vec<u8>> = None;
        // The current font's Type 3 cost per glyph (None: not a Type 3 font), saved by `q`.
        let (mut font, mut saved): (Option<u64>, Vec<Option<u64>>) = (None, Vec::new());
        let mut glyphs = 0u64;
        let mut total = 0u64;
        while let Some(token) = lexer.next_token() {
            match token {
                Token::Name(name) => last_name = Some(name.into_owned()),
                Token::String(text) if font.is_some() => {
                    glyphs = glyphs.saturating_add(text.len() as u64)
                }
                Token::Keyword(keyword) => {
                    let name = last_name.take();
                    let run = match keyword {
                        b"Do" => name
                            .and_then(|name| form_named(self.doc, resources, &name))
                            .map_or(0, |form| {
                                self.nested(form, resources, depth + 1, false)
                                    .saturating_add(1)
                            }),
                        b"Tf" => {
                            font = name
                                .and_then(|name| type3_named(self.doc, resources, &name))
                                .map(|type3| self.glyph(type3, resources, depth + 1));
                            0
                        }
                        b"Tj" | b"TJ" | b"'" | b"\"" => glyphs.saturating_mul(
                            font.unwrap_or(0).saturating_sub(u64::from(depth == 0)),
                        ),
                        b"q" if saved.len() < MAX_SAVED_STATES => {
                            saved.push(font);
                            0
                        }
                        b"Q" => {
                            font = saved.pop().unwrap_or(font);
                            0
                        }
                        _ => 0,
                    };
                    glyphs = 0;
                    total = total.saturating_add(run);
                    if total > MAX_NESTED_RUNS {
                        return total;
                    }
                }
                _ => {}
            }
        }
        total
    }

    /// Runs below a form or glyph procedure `(id, stream)` drawn at `depth`.
    fn nested(
        &mut self,
        (id, stream): (ObjectId, &'d Stream),
        inherited: Option<&'d Dictionary>,
        depth: usize,
        glyph: bool,
    ) -> u64 {
        if depth >= RENDERER_DEPTH {
            return if glyph { PAST } else { 0 };
        }
        if self.active.contains(&id) {
            // Drawing itself, a form runs until the depth limit (at least twice as many times as
            // the levels left, more than any page needs), a glyph until the stack is gone.
            return PAST;
        }
        if let Some(&known) = self.below.get(&(id, depth)) {
            return known;
        }
        let Some(content) = objects::decoded(stream) else {
            return 0;
        };
        let resources = objects::dict(self.doc, &stream.dict, b"Resources").or(inherited);
        self.active.push(id);
        let runs = self.runs(&content, resources, depth);
        self.active.pop();
        self.below.insert((id, depth), runs);
        runs
    }

    /// What one glyph of Type 3 font `font` runs drawn at `depth`: its procedure and what that
    /// runs, for the glyph that runs the most (which glyph a code draws is left to the font's
    /// encoding; the most any could is what counts).
    fn glyph(&mut self, font: Type3<'d>, inherited: Option<&'d Dictionary>, depth: usize) -> u64 {
        if let Some(&known) = font.id.and_then(|id| self.glyph_cost.get(&(id, depth))) {
            return known;
        }
        // A glyph procedure's resources are its own, else its font's, else those it is drawn with.
        let resources = objects::dict(self.doc, font.dict, b"Resources").or(inherited);
        let mut most = 0u64;
        for procedure in font.procedures {
            most = most.max(
                self.nested(procedure, resources, depth, true)
                    .saturating_add(1),
            );
            if most > MAX_NESTED_RUNS {
                break;
            }
        }
        if let Some(id) = font.id {
            self.glyph_cost.insert((id, depth), most);
        }
        most
    }
}

/// A Type 3 font: its object id (None when written in place), its dictionary, and its glyph procedures.
struct Type3<'d> {
    id: Option<ObjectId>,
    dict: &'d Dictionary,
    procedures: Vec<(ObjectId, &'d Stream)>,
}

/// The Type 3 font `name` of `resources`, if it is one.
fn type3_named<'d>(
    doc: &'d lopdf::Document,
    resources: Option<&'d Dictionary>,
    name: &[u8],
) -> Option<Type3<'d>> {
    let entry = objects::dict(doc, resources?, b"Font")?.get(name).ok()?;
    let id = match entry {
        Object::Reference(id) => Some(*id),
        _ => None,
    };
    let Some(Object::Dictionary(dict)) = objects::resolve(doc, entry) else {
        return None;
    };
    if objects::name(doc, dict, b"Subtype") != Some(b"Type3") {
        return None;
    }
    let procedures = objects::dict(doc, dict, b"CharProcs")?
        .iter()
        .filter_map(|(_, procedure)| match procedure {
            Object::Reference(id) => match doc.get_object(*id) {
                Ok(Object::Stream(stream)) => Some((*id, stream)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    Some(Type3 {
        id,
        dict,
        procedures,
    })
}

/// The form XObject `name` of `resources`, if it is one.
fn form_named<'d>(
    doc: &'d lopdf::Document,
    resources: Option<&'d Dictionary>,
    name: &[u8],
) -> Option<(ObjectId, &'d Stream)> {
    match objects::xobject(doc, resources, name)? {
        (id, stream, Some(b"Form")) => Some((id, stream)),
        _ => None,
    }
}

/// Every appearance stream of the page's annotations (a renderer draws one per annotation).
fn appearances<'d>(doc: &'d lopdf::Document, page: &'d Dictionary) -> Vec<(ObjectId, &'d Stream)> {
    let mut found = Vec::new();
    for annotation in objects::array(doc, page, b"Annots").unwrap_or_default() {
        let Some(Object::Dictionary(annotation)) = objects::resolve(doc, annotation) else {
            continue;
        };
        let Some(normal) = objects::dict(doc, annotation, b"AP").and_then(|ap| ap.get(b"N").ok())
        else {
            continue;
        };
        let states: Vec<&Object> = match objects::resolve(doc, normal) {
            Some(Object::Dictionary(states)) => states.iter().map(|(_, state)| state).collect(),
            _ => vec![normal],
        };
        for state in states {
            if let Object::Reference(id) = state {
                if let Ok(Object::Stream(stream)) = doc.get_object(*id) {
                    found.push((*id, stream));
                }
            }
        }
    }
    found
}

impl PdfDocument {
    /// Runs of nested content (forms, and Type 3 glyphs inside them) on page `index` (0-based)
    /// when drawn with its annotations, saturating just past [`MAX_NESTED_RUNS`]; a form or glyph
    /// that draws itself counts as past it.
    pub fn nested_runs(&self, index: usize) -> u64 {
        let Some(&page) = self.pages.get(index) else {
            return 0;
        };
        let Ok(dict) = self.doc.get_dictionary(page) else {
            return 0;
        };
        let mut counter = Counter {
            doc: &self.doc,
            below: HashMap::new(),
            glyph_cost: HashMap::new(),
            active: Vec::new(),
        };
        let resources = self.resources(page);
        let mut total = counter.runs(&self.content(page).0, resources, 0);
        for appearance in appearances(&self.doc, dict) {
            if total > MAX_NESTED_RUNS {
                break;
            }
            total = total
                .saturating_add(1)
                .saturating_add(counter.nested(appearance, resources, 1, false));
        }
        total
    }
}
