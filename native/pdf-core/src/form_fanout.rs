//! How many times a page runs form XObjects when drawn, counted the way a renderer draws them:
//! each `Do` of a form runs the form's content again, so forms that draw forms multiply (ten
//! forms each drawing the next ten times is 10^10 runs) and a form that draws itself never ends
//! but at the renderer's depth limit. The text interpreter bounds its own walk (interpreter.rs);
//! the OCR renderer (hayro) stops only 50 forms deep, so a page is measured here first: a form
//! drawing itself twice kept it busy without end.
use crate::document::PdfDocument;
use crate::lexer::{Lexer, Token};
use crate::objects;
use lopdf::{Dictionary, Object, ObjectId, Stream};
use std::collections::HashMap;

/// Form runs a page may take to be rendered: real pages take tens, or thousands at the most.
pub const MAX_FORM_RUNS: u64 = 100_000;

/// Forms nested deeper than this are not drawn by the renderer (hayro's limit).
const RENDERER_DEPTH: usize = 50;

struct Counter<'d> {
    doc: &'d lopdf::Document,
    /// Runs below a form (itself excluded), where counted without meeting the depth limit.
    below: HashMap<ObjectId, u64>,
    active: Vec<ObjectId>,
}

impl<'d> Counter<'d> {
    /// Runs of forms that `content` starts, directly and below, saturating past MAX_FORM_RUNS;
    /// the flag says whether the depth limit cut the count (so it must not be remembered).
    fn runs(
        &mut self,
        content: &[u8],
        resources: Option<&'d Dictionary>,
        depth: usize,
    ) -> (u64, bool) {
        let mut lexer = Lexer::new(content);
        let mut last_name: Option<Vec<u8>> = None;
        let (mut total, mut cut) = (0u64, false);
        while let Some(token) = lexer.next_token() {
            match token {
                Token::Name(name) => last_name = Some(name.into_owned()),
                Token::Keyword(b"Do") => {
                    let Some(form) = last_name
                        .take()
                        .and_then(|name| form_named(self.doc, resources, &name))
                    else {
                        continue;
                    };
                    let (below, cut_below) = self.form(form, resources, depth + 1);
                    cut |= cut_below;
                    total = total.saturating_add(1).saturating_add(below);
                    if total > MAX_FORM_RUNS {
                        return (total, cut);
                    }
                }
                _ => last_name = None,
            }
        }
        (total, cut)
    }

    /// Runs below form `(id, stream)` drawn at `depth`.
    fn form(
        &mut self,
        (id, stream): (ObjectId, &'d Stream),
        inherited: Option<&'d Dictionary>,
        depth: usize,
    ) -> (u64, bool) {
        if depth >= RENDERER_DEPTH {
            return (0, true);
        }
        if self.active.contains(&id) {
            // Drawing itself, it runs until the depth limit: at least twice as many times as the
            // levels left, more than any page needs.
            return (MAX_FORM_RUNS + 1, false);
        }
        if let Some(&known) = self.below.get(&id) {
            return (known, false);
        }
        let Some(content) = objects::decoded(stream) else {
            return (0, false);
        };
        let resources = objects::dict(self.doc, &stream.dict, b"Resources").or(inherited);
        self.active.push(id);
        let (runs, cut) = self.runs(&content, resources, depth);
        self.active.pop();
        if !cut {
            self.below.insert(id, runs);
        }
        (runs, cut)
    }
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
    /// Form runs of page `index` (0-based) when drawn with its annotations, saturating just past
    /// [`MAX_FORM_RUNS`]; a form that draws itself counts as past it.
    pub fn form_runs(&self, index: usize) -> u64 {
        let Some(&page) = self.pages.get(index) else {
            return 0;
        };
        let Ok(dict) = self.doc.get_dictionary(page) else {
            return 0;
        };
        let mut counter = Counter {
            doc: &self.doc,
            below: HashMap::new(),
            active: Vec::new(),
        };
        let resources = self.resources(page);
        let (mut total, _) = counter.runs(&self.content(page).0, resources, 0);
        for appearance in appearances(&self.doc, dict) {
            if total > MAX_FORM_RUNS {
                break;
            }
            total = total
                .saturating_add(1)
                .saturating_add(counter.form(appearance, resources, 1).0);
        }
        total
    }
}
