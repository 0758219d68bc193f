//! Wavefront OBJ: `v` (with an optional `r g b` colour), `vt`, `vn` and `f` lines; polygons are
//! fan-triangulated, and each `o`/`g` starts a mesh of its own, whose corners (a position, UV and
//! normal index triple) become one vertex each however many faces share them. Points, lines,
//! curves and smoothing groups are left out, and so are materials: a material library is a
//! separate file, never uploaded with this one.
//!
//! One pass over the bytes, numbers read in place; a large file in runs of lines side by side
//! (`read_in_parts`). Indices may be negative (counted back from the last value read) and may
//! name values a later line of the same mesh gives. An index past the values the file gives, a
//! vertex short of three numbers or a word that is not a number is an error naming its line.
use super::ReadLimits;
use crate::error::{MeshError, Result};
use crate::in_parallel;
use crate::model::{Attribute, Mesh, Model, Primitive, SourceFormat};

/// A corner's missing UV or normal index.
const NONE: u32 = u32::MAX;

/// Triangles and vertex values the file's `f` and `v`/`vn`/`vt` lines make, counted from the text
/// before anything is parsed or allocated (a polygon of n corners makes n - 2 triangles).
struct Declared {
    triangles: usize,
    values: usize,
}

fn declared(data: &[u8]) -> Declared {
    let mut counted = Declared { triangles: 0, values: 0 };
    for line in lines(data) {
        let mut words = words(line);
        match words.next() {
            Some(b"f") => {
                let triangles = words.count().saturating_sub(2);
                counted.triangles += triangles;
                // Each corner of each triangle may become its own vertex (position, normal, UV, colour).
                counted.values += triangles * 3 * 12;
            }
            Some(b"v" | b"vt" | b"vn") => counted.values += 3,
            _ => {}
        }
    }
    counted
}

/// The file's lines, without their ends.
fn lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', data).map(Some).chain([None]).filter_map(move |end| {
        let line = &data[start..end.unwrap_or(data.len())];
        start = end.map_or(data.len(), |end| end + 1);
        (end.is_some() || !line.is_empty()).then_some(line)
    })
}

/// The whitespace-separated words of a line, up to a `#` comment.
fn words(line: &[u8]) -> Words<'_> {
    Words { rest: line }
}

struct Words<'a> {
    rest: &'a [u8],
}

/// Whether `b` separates words.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

impl<'a> Words<'a> {
    /// The rest of the line from its next word on; None at its end or at a `#` comment.
    fn start(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| !is_blank(b))?;
        let rest = &self.rest[start..];
        if rest[0] == b'#' {
            self.rest = &[];
            return None;
        }
        Some(rest)
    }

    /// The next word read as a number: in the one pass that finds its end where it is a short
    /// decimal (`scan_decimal`), else by Rust's reader.
    fn number(&mut self) -> Option<std::result::Result<f32, String>> {
        let rest = self.start()?;
        let (end, fast) = scan_decimal(rest);
        self.rest = &rest[end..];
        Some(fast.map_or_else(|| full_number(&rest[..end]), Ok))
    }

    /// The next word read as a face corner (`corner`): in the one pass that finds its end where
    /// its indices are plain positive ones, as nearly every file writes them.
    fn corner(&mut self, counts: [usize; 3]) -> Option<std::result::Result<[u32; 3], String>> {
        let rest = self.start()?;
        let mut read = [NONE; 3];
        let (mut part, mut value, mut digits, mut plain) = (0usize, 0u64, 0usize, true);
        let mut end = 0;
        let mut close = |part: usize, value: u64, digits: usize| match (part, digits) {
            (3.., _) | (0, 0) | (_, 19..) => false,
            (_, 0) => true,
            _ if value == 0 || value > u64::from(NONE) => false,
            _ => {
                read[part] = (value - 1) as u32;
                true
            }
        };
        while let Some(&b) = rest.get(end) {
            match b {
                b'0'..=b'9' if digits < 19 => {
                    value = value * 10 + u64::from(b - b'0');
                    digits += 1;
                }
                b'/' => {
                    plain &= close(part, value, digits);
                    (part, value, digits) = (part + 1, 0, 0);
                }
                b if is_blank(b) => break,
                _ => plain = false,
            }
            end += 1;
        }
        plain &= close(part, value, digits);
        self.rest = &rest[end..];
        Some(if plain { Ok(read) } else { corner(&rest[..end], counts) })
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.start()?;
        let end = rest.iter().position(|&b| is_blank(b)).unwrap_or(rest.len());
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

pub fn read(data: &[u8], limits: &ReadLimits) -> Result<Model> {
    read_in_parts(data, limits, in_parallel::threads(data.len() >= BYTES_WORTH_THREADS))
}

/// Bytes of text from which a file is read in runs side by side: below it, the second thread's
/// fresh heap and putting the runs together cost about what the runs save (the Stanford bunny's
/// 2.4 MB: 24.3 ms of CPU read whole against 27.2 in two runs, 26.1 ms against 28.1 of wall time).
const BYTES_WORTH_THREADS: usize = 4 << 20;

/// `data` read as `parts` runs of whole lines, each on its own and side by side, then put together
/// in order (`assemble`): the same model, or the same error on the same line, as one run gives.
/// A face corner's plain index names a value by its place in the whole file, so a run needs
/// nothing from the text before it, except where an index counts back from the values read so far
/// (a negative one): a run after the first that has one is read again with the text before it,
/// the whole file as one run.
///
/// A face line of n corners takes at least 2n + 1 bytes and makes n - 2 triangles, so a file
/// makes fewer triangles than half its bytes, and fewer values than 19 a byte (36 a triangle, 3 a
/// `v`, `vt` or `vn` line of 3 bytes or more): a file under twice the face limit in bytes can reach
/// neither limit, and its text is not counted first (2.5 ms of the Stanford bunny's 2.4 MB); a
/// larger one is counted, run by run side by side, before any run is read.
fn read_in_parts(data: &[u8], limits: &ReadLimits, parts: usize) -> Result<Model> {
    let cut = lines_in_parts(data, parts);
    if data.len() / 2 > limits.max_faces {
        let counted = in_parallel::map(&cut, cut.len() > 1, |&(_, part)| declared(part));
        limits.check_faces(counted.iter().map(|c| c.triangles).sum())?;
        limits.check_values(counted.iter().map(|c| c.values).sum())?;
    }
    let texts = in_parallel::map(&cut, cut.len() > 1, |&(index, part)| Text::of(part, index == 0));
    match texts.iter().any(|text| text.counts_back) {
        true => assemble(vec![Text::of(data, true)]),
        false => assemble(texts),
    }
}

/// `data` cut into up to `parts` runs of whole lines, about as long as each other, numbered.
fn lines_in_parts(data: &[u8], parts: usize) -> Vec<(usize, &[u8])> {
    let mut cut = Vec::with_capacity(parts.max(1));
    let mut start = 0;
    for k in 1..parts {
        let at = (data.len() / parts * k).max(start);
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |i| at + i + 1);
        if end > start && end < data.len() {
            cut.push((cut.len(), &data[start..end]));
            start = end;
        }
    }
    cut.push((cut.len(), &data[start..]));
    cut
}

/// A file's values: its `v`, `vt` and `vn` lines', in order.
#[derive(Default)]
struct Values {
    positions: Vec<[f32; 3]>,
    /// One per position; white where its line gives none.
    colours: Vec<[f32; 3]>,
    texcoords: Vec<[f32; 2]>,
    normals: Vec<[f32; 3]>,
}

impl Values {
    /// Positions, UVs and normals: what the three indices of a corner count.
    fn counts(&self) -> [usize; 3] {
        [self.positions.len(), self.texcoords.len(), self.normals.len()]
    }

    /// `later`'s values after these (`later` is left empty).
    fn append(&mut self, later: &mut Values) {
        self.positions.append(&mut later.positions);
        self.colours.append(&mut later.colours);
        self.texcoords.append(&mut later.texcoords);
        self.normals.append(&mut later.normals);
    }
}

/// What a run of the file's lines gives on its own: its values, its triangle corners (indices
/// into the whole file's values, 0-based, `NONE` where absent), where a mesh ends, and the first
/// line that does not parse (no line after it is read).
#[derive(Default)]
struct Text {
    /// Whether the run starts the file: where an index counting back can be resolved.
    first: bool,
    values: Values,
    /// Whether a vertex line gave a colour.
    coloured: bool,
    /// Three corners a triangle.
    corners: Vec<[u32; 3]>,
    /// The `o` and `g` lines, in order.
    breaks: Vec<Break>,
    /// Whether a `mtllib` line names a material library.
    material_library: bool,
    /// Lines read (all of the run's where none failed).
    lines: usize,
    /// The first line that does not parse (its number in the run, from 0) and what is wrong.
    problem: Option<(usize, String)>,
    /// Whether a run after the first has an index counting back (it was read up to there).
    counts_back: bool,
}

/// An `o` or `g` line: the mesh so far ends there, and the next one takes its name. Where it is
/// in its run: its line, and the corners, values and colour the run had before it.
struct Break {
    line: usize,
    corners: usize,
    counts: [usize; 3],
    coloured: bool,
    name: Option<String>,
}

impl Text {
    fn of(part: &[u8], first: bool) -> Text {
        let mut text = Text { first, ..Text::default() };
        for (number, line) in lines(part).enumerate() {
            text.lines = number + 1;
            if let Err(problem) = text.line(line, number) {
                if !text.counts_back {
                    text.problem = Some((number, problem));
                }
                break;
            }
        }
        text
    }

    fn line(&mut self, line: &[u8], number: usize) -> std::result::Result<(), String> {
        let mut words = words(line);
        let values = &mut self.values;
        match words.next() {
            Some(b"v") => {
                let (numbers, given) = numbers::<6>(&mut words)?;
                if given < 3 {
                    return Err("a vertex (v) needs three numbers".into());
                }
                values.positions.push([numbers[0], numbers[1], numbers[2]]);
                // Four numbers are x y z w (w weighs rational curves, not polygons); six are x y z r g b.
                if given == 6 {
                    self.coloured = true;
                    values.colours.push([numbers[3], numbers[4], numbers[5]]);
                } else {
                    values.colours.push([1.0; 3]);
                }
            }
            Some(b"vt") => {
                let (uv, given) = numbers::<2>(&mut words)?;
                if given == 0 {
                    return Err("a texture coordinate (vt) needs a number".into());
                }
                // OBJ's v axis points up, glTF's down.
                values.texcoords.push([uv[0], 1.0 - uv[1]]);
            }
            Some(b"vn") => {
                let (normal, given) = numbers::<3>(&mut words)?;
                if given < 3 {
                    return Err("a normal (vn) needs three numbers".into());
                }
                values.normals.push(normal);
            }
            Some(b"f") if !self.first && memchr::memchr(b'-', words.rest).is_some() => {
                self.counts_back = true;
                return Err(String::new());
            }
            Some(b"f") => self.face(words)?,
            Some(b"mtllib") => self.material_library = true,
            Some(b"o" | b"g") => {
                let name = Some(String::from_utf8_lossy(words.rest).trim().to_owned()).filter(|n| !n.is_empty());
                let (corners, counts, coloured) = (self.corners.len(), values.counts(), self.coloured);
                self.breaks.push(Break { line: number, corners, counts, coloured, name });
            }
            _ => {}
        }
        Ok(())
    }

    /// An `f` line's corners, fanned into triangles from the first.
    fn face(&mut self, mut words: Words) -> std::result::Result<(), String> {
        let counts = self.values.counts();
        let (mut first, mut last) = ([NONE; 3], [NONE; 3]);
        let mut k = 0;
        while let Some(corner) = words.corner(counts) {
            let corner = corner?;
            match k {
                0 => first = corner,
                1 => {}
                _ => self.corners.extend([first, last, corner]),
            }
            (last, k) = (corner, k + 1);
        }
        // A face of one or two corners (a point or a line) adds no triangle.
        Ok(())
    }
}

/// The runs of lines read apart, in order, put together as the file read line by line: each mesh
/// ends at an `o` or `g` line or the file's end, its corners checked against the values given up
/// to there, and the first problem in the file's order is the one reported.
fn assemble(mut texts: Vec<Text>) -> Result<Model> {
    let line_error = |line: usize, problem: String| MeshError::invalid(format!("OBJ does not parse: line {line}: {problem}"));
    let counts: Vec<[usize; 3]> = texts.iter().map(|text| text.values.counts()).collect();
    let mut values = std::mem::take(&mut texts[0].values);
    texts[1..].iter_mut().for_each(|text| values.append(&mut text.values));
    let mut meshes = Meshes { values, ..Meshes::default() };
    let plus = |a: [usize; 3], b: [usize; 3]| [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
    let (mut values_before, mut lines_before, mut coloured_before) = ([0; 3], 0, false);
    for (text, counts) in texts.iter_mut().zip(counts) {
        let mut from = 0;
        for b in std::mem::take(&mut text.breaks) {
            meshes.corners.extend_from_slice(&text.corners[from..b.corners]);
            from = b.corners;
            meshes.finish(plus(values_before, b.counts), coloured_before || b.coloured).map_err(|problem| line_error(lines_before + b.line + 1, problem))?;
            meshes.name = b.name;
        }
        match (meshes.corners.is_empty(), from) {
            // The run's corners are the mesh's so far (a file read as one run, its last mesh): kept, not copied.
            (true, 0) => meshes.corners = std::mem::take(&mut text.corners),
            _ => meshes.corners.extend_from_slice(&text.corners[from..]),
        }
        if let Some((line, problem)) = text.problem.take() {
            return Err(line_error(lines_before + line + 1, problem));
        }
        (values_before, lines_before, coloured_before) = (plus(values_before, counts), lines_before + text.lines, coloured_before || text.coloured);
    }
    meshes.finish(values_before, coloured_before).map_err(|problem| MeshError::invalid(format!("OBJ does not parse: {problem}")))?;
    let mut model = Model::new(SourceFormat::Obj);
    for mesh in meshes.done {
        model.push_root_mesh(mesh);
    }
    if texts.iter().any(|text| text.material_library) {
        model.notes.push("The OBJ names a material library, which is a separate file: materials are left out.".into());
    }
    Ok(model)
}

/// The file's meshes, made one after another from the corners of each (`finish`).
#[derive(Default)]
struct Meshes {
    values: Values,
    /// The current mesh's name and triangle corners.
    name: Option<String>,
    corners: Vec<[u32; 3]>,
    /// Scratch for `finish`: per position, the first vertex made from it (`NONE`: none yet).
    first_vertex: Vec<u32>,
    done: Vec<Mesh>,
}

impl Meshes {
    /// The current mesh's triangles as one primitive, a vertex for each distinct corner, added to
    /// the meshes (nothing where it has none); its corners are cleared. `counts` are the values
    /// given up to the mesh's end, which its corners may name; `coloured` whether a vertex line
    /// up to there gave a colour.
    fn finish(&mut self, counts: [usize; 3], coloured: bool) -> std::result::Result<(), String> {
        if self.corners.is_empty() {
            return Ok(());
        }
        let what = ["position", "texture coordinate", "normal"];
        self.first_vertex.resize(counts[0], NONE);
        // Each vertex: its corner, and the next vertex made from the same position.
        let mut vertices: Vec<([u32; 3], u32)> = Vec::new();
        let mut indices = Vec::with_capacity(self.corners.len());
        let (mut uvs, mut normals) = (true, true);
        for corner in &self.corners {
            for (c, (&index, &count)) in corner.iter().zip(&counts).enumerate() {
                if index != NONE && index as usize >= count {
                    return Err(format!("a face names {} {} of {count}", what[c], u64::from(index) + 1));
                }
            }
            let head = &mut self.first_vertex[corner[0] as usize];
            let mut at = *head;
            while at != NONE && vertices[at as usize].0 != *corner {
                at = vertices[at as usize].1;
            }
            if at == NONE {
                at = vertices.len() as u32;
                vertices.push((*corner, *head));
                *head = at;
                uvs &= corner[1] != NONE;
                normals &= corner[2] != NONE;
            }
            indices.push(at);
        }
        // Back to none for the next mesh, only where this one set it: the table has a slot for each of
        // the file's positions, and a mesh uses few of them.
        for (corner, _) in &vertices {
            self.first_vertex[corner[0] as usize] = NONE;
        }
        self.corners.clear();
        let values = &self.values;
        let positions = vertices.iter().map(|(c, _)| values.positions[c[0] as usize]).collect();
        let mut attributes = Vec::new();
        if normals {
            let data = vertices.iter().flat_map(|(c, _)| values.normals[c[2] as usize]).collect();
            attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data });
        }
        if uvs {
            let data = vertices.iter().flat_map(|(c, _)| values.texcoords[c[1] as usize]).collect();
            attributes.push(Attribute { semantic: "TEXCOORD_0".into(), components: 2, data });
        }
        if coloured {
            let data = vertices.iter().flat_map(|(c, _)| values.colours[c[0] as usize]).collect();
            attributes.push(Attribute { semantic: "COLOR_0".into(), components: 3, data });
        }
        let primitive = Primitive { positions, attributes, indices, material: None, variant_materials: Vec::new() };
        self.done.push(Mesh { name: self.name.clone(), primitives: vec![primitive], ..Default::default() });
        Ok(())
    }
}

/// Up to `N` numbers from `words` (any more are left unread), and how many there were.
fn numbers<const N: usize>(words: &mut Words) -> std::result::Result<([f32; N], usize), String> {
    let mut values = [0.0f32; N];
    let mut given = 0;
    while given < N {
        let Some(number) = words.number() else { break };
        values[given] = number?;
        given += 1;
    }
    Ok((values, given))
}

/// A face corner, `v`, `v/vt`, `v//vn` or `v/vt/vn`, as 0-based indices (`NONE` where absent);
/// `counts` the positions, UVs and normals read so far, which negative indices count back from.
fn corner(word: &[u8], counts: [usize; 3]) -> std::result::Result<[u32; 3], String> {
    let mut parts = word.split(|&b| b == b'/');
    let position = match parts.next() {
        Some([]) | None => return Err(format!("face corner {:?} has no position index", String::from_utf8_lossy(word))),
        Some(part) => resolved(part, counts[0])?,
    };
    let texcoord = parts.next().map_or(Ok(NONE), |part| resolved(part, counts[1]))?;
    let normal = parts.next().map_or(Ok(NONE), |part| resolved(part, counts[2]))?;
    if parts.next().is_some() {
        return Err(format!("face corner {:?} has more than three indices", String::from_utf8_lossy(word)));
    }
    Ok([position, texcoord, normal])
}

/// One index of a face corner, 0-based (`NONE` where the part is empty); negative ones count back
/// from `count`, the values read so far.
fn resolved(part: &[u8], count: usize) -> std::result::Result<u32, String> {
    if part.is_empty() {
        return Ok(NONE);
    }
    let written: i64 =
        std::str::from_utf8(part).ok().and_then(|text| text.parse().ok()).ok_or_else(|| format!("{:?} is not a face index", String::from_utf8_lossy(part)))?;
    let resolved = match written {
        0 => return Err("face index 0 (OBJ counts from 1)".into()),
        i if i < 0 => count as i64 + i,
        i => i - 1,
    };
    if resolved < 0 || resolved >= i64::from(NONE) {
        return Err(format!("face index {written} is out of range"));
    }
    Ok(resolved as u32)
}

/// A decimal number, as Rust reads one (`nan` and `inf` included: the sanitizing pass repairs them).
#[cfg(test)]
fn number(word: &[u8]) -> std::result::Result<f32, String> {
    short_decimal(word).map_or_else(|| full_number(word), Ok)
}

/// A word as Rust's reader reads it.
fn full_number(word: &[u8]) -> std::result::Result<f32, String> {
    std::str::from_utf8(word).ok().and_then(|text| text.parse().ok()).ok_or_else(|| format!("{:?} is not a number", String::from_utf8_lossy(word)))
}

/// `word` read by the short path alone (`scan_decimal`), where it takes it.
#[cfg(test)]
fn short_decimal(word: &[u8]) -> Option<f32> {
    match scan_decimal(word) {
        (end, value) if end == word.len() => value,
        _ => None,
    }
}

/// Powers of ten exact in an f64.
const TENS: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// Where the word at the start of `bytes` ends, and its value where it is a plain decimal (sign,
/// digits, at most one point) whose digits make at most 2^53 and that has at most 22 after the
/// point: most numbers in a model's text (an exporter's shortest float has up to nine digits). Its
/// digits and the power of ten are both exact in an f64, so one division rounds it to the nearest
/// f64 (Clinger's fast path). That f64 rounds to the f32 Rust's reader gives, unless it lies
/// exactly halfway between two f32s (no f32 boundary can lie strictly between a number and its
/// nearest f64, as every such boundary is an f64 itself): then, and for anything else (exponents,
/// long mantissas, words), no value, for Rust's reader to take.
fn scan_decimal(bytes: &[u8]) -> (usize, Option<f32>) {
    let negative = bytes.first() == Some(&b'-');
    let mut end = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
    let (mut significand, mut after_point, mut point, mut any, mut plain) = (0u64, 0usize, false, false, true);
    while let Some(&b) = bytes.get(end) {
        match b {
            b'0'..=b'9' => {
                match significand.checked_mul(10).and_then(|s| s.checked_add(u64::from(b - b'0'))) {
                    Some(s) => significand = s,
                    None => plain = false,
                }
                after_point += usize::from(point);
                any = true;
            }
            b'.' if !point => point = true,
            b if is_blank(b) => break,
            _ => plain = false,
        }
        end += 1;
    }
    if !plain || !any || significand > 1 << 53 || after_point >= TENS.len() {
        return (end, None);
    }
    let wide = significand as f64 / TENS[after_point];
    // The 29 bits an f64's mantissa has below an f32's: exactly halfway is 1 then zeros. (The
    // quotient is at least 1e-22, far from the f32 subnormals, and under 2^53, far from f32::MAX.)
    const BELOW: u64 = (1 << 29) - 1;
    if wide.to_bits() & BELOW == 1 << 28 {
        return (end, None);
    }
    let value = wide as f32;
    (end, Some(if negative { -value } else { value }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn read_text(text: &str) -> Result<Model> {
        read(text.as_bytes(), &ReadLimits::default())
    }

    fn attribute<'a>(p: &'a Primitive, semantic: &str) -> Option<&'a [f32]> {
        p.attributes.iter().find(|a| a.semantic == semantic).map(|a| &a.data[..])
    }

    fn corners(p: &Primitive) -> Vec<[f32; 3]> {
        p.indices.iter().map(|&i| p.positions[i as usize]).collect()
    }

    #[test]
    fn polygons_fan_from_their_first_corner_and_shared_corners_are_one_vertex() {
        let model = read_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\nf 1 2 3 4\nf 4 3 5\n").unwrap();
        let p = &model.meshes[0].primitives[0];
        assert_eq!(p.positions.len(), 5);
        let [a, b, c, d, e] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 1.5, 0.0]];
        assert_eq!(corners(p), vec![a, b, c, a, c, d, d, c, e]);
        assert!(p.attributes.is_empty());
    }

    #[test]
    fn a_position_with_two_uvs_makes_two_vertices_with_normals_and_flipped_uvs() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 0.5 0.25\nvn 0 0 1\n\
                    f 1/1/1 2/2/1 3/3/1\nf 1/4/1 3/3/1 2/2/1\n";
        let p = read_text(text).unwrap().meshes.remove(0).primitives.remove(0);
        assert_eq!(p.positions.len(), 4, "vertex 1 has two UVs");
        assert_eq!(p.indices, vec![0, 1, 2, 3, 2, 1]);
        assert_eq!(attribute(&p, "TEXCOORD_0").unwrap(), &[0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.5, 0.75]);
        assert_eq!(attribute(&p, "NORMAL").unwrap(), &[0.0, 0.0, 1.0].repeat(4)[..]);
    }

    #[test]
    fn negative_indices_count_back_and_normals_without_uvs_read() {
        let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf -3//-1 -2//-1 -1//-1\nv 5 5 5\nf -4//1 -3//1 -1//1\n";
        let p = read_text(text).unwrap().meshes.remove(0).primitives.remove(0);
        assert_eq!(corners(&p), vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [5.0, 5.0, 5.0]]);
        assert!(attribute(&p, "NORMAL").is_some() && attribute(&p, "TEXCOORD_0").is_none());
    }

    #[test]
    fn objects_and_groups_are_meshes_of_their_own_named_as_the_file_names_them() {
        let text = "# cube parts\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\no first part\nf 1 2 3\ng\nf 1 2 4\ng empty\no last\r\nf 2 3 4\r\n";
        let model = read_text(text).unwrap();
        let names: Vec<Option<&str>> = model.meshes.iter().map(|m| m.name.as_deref()).collect();
        assert_eq!(names, vec![Some("first part"), None, Some("last")]);
        assert_eq!(model.meshes[2].primitives[0].positions, vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
        assert_eq!(model.roots.len(), 3);
    }

    #[test]
    fn colours_some_vertices_lack_are_white_and_w_comments_points_and_lines_are_left_out() {
        let text = "mtllib parts.mtl\nv 0 0 0 1 0 0\nv 1 0 0 2.0\nv 0 1 0 # a comment\nusemtl red\np 1\nl 1 2\nf 1 2 3 # last\n";
        let model = read_text(text).unwrap();
        let p = &model.meshes[0].primitives[0];
        assert_eq!(p.positions, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        assert_eq!(attribute(p, "COLOR_0").unwrap(), &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        assert_eq!(p.indices.len(), 3);
        assert!(model.notes[0].contains("material library"));
    }

    #[test]
    fn a_face_may_name_a_vertex_a_later_line_of_its_mesh_gives() {
        let p = read_text("v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n").unwrap().meshes.remove(0).primitives.remove(0);
        assert_eq!(p.positions.len(), 3);
    }

    #[test]
    fn broken_lines_are_refused_with_their_line_and_what_is_wrong() {
        let cases = [
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "names position 9 of 3"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", "line 4: face index 0"),
            ("v 0 0 0\nv 1 0 0\nf 1 2 -3\n", "line 3: face index -3 is out of range"),
            ("v 0 0\n", "line 1: a vertex (v) needs three numbers"),
            ("v 0 0 zero\n", "line 1: \"zero\" is not a number"),
            ("vn 0 1\n", "line 1: a normal (vn) needs three numbers"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1/1/1/1 2 3\n", "line 5: face corner \"1/1/1/1\" has more than three indices"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x3\n", "\"x3\" is not a face index"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /1\n", "has no position index"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", "is not a face index"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", "names texture coordinate 2 of 1"),
        ];
        for (text, expected) in cases {
            let error = read_text(text).err().unwrap_or_else(|| panic!("{text:?} must be refused"));
            assert_eq!(error.code, ErrorCode::InvalidMesh);
            assert!(error.message.contains(expected), "{text:?}: {}", error.message);
        }
    }

    #[test]
    fn a_large_file_is_counted_before_it_is_parsed_and_a_small_one_need_not_be() {
        let mut text = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n");
        text.push_str(&" f 1 2 3 4\n".repeat(1_000)); // 2,000 triangles, leading blank and all
        let limits = ReadLimits { max_faces: 1_999, placed: false };
        let error = read(text.as_bytes(), &limits).expect_err("over the limit");
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains("declares 2000 faces"), "{}", error.message);
        let roomy = ReadLimits { max_faces: text.len() / 2, placed: false };
        assert_eq!(read(text.as_bytes(), &roomy).unwrap().face_count(), 2_000);
    }

    /// Read in runs of lines side by side, a file gives what it gives read as one run: the same
    /// meshes, names, colours and notes, or the same error on the same line, wherever the runs are
    /// cut (the cuts fall at every line of these short files for some run count up to 12).
    #[test]
    fn a_file_read_in_runs_gives_what_it_gives_read_as_one() {
        let texts = [
            // Meshes that end in other runs, values a later line gives, colours from the second mesh on.
            "mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\no first\nf 1 2 3\nf 1 2 4\nv 0 0 1\ng second\nv 1 1 1 1 0 0\nf 2 3 5\r\nf 4 5 1 2\no\no last\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1\n",
            // Indices counting back in every run after the first: read again as one run.
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 1 1 0\nf 2 3 4\nv 2 2 0\nf -1 -2 -3\nf 1 2 5\n",
            // A broken line in a later run, after a mesh that names a value it never gives.
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\nv 0 0\nf 1 2 3\n",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 3\no next\nf 1 2 4\nf 1 2 3\nf 1 2 3\nv 0 0 zero\n",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\nf 1 2 3\n",
            // No line end at the end, blank lines, comments.
            "# head\n\nv 0 0 0\n\nv 1 0 0 # x\nv 0 1 0\n\n\nf 1 2 3\n\nf 3 2 1",
        ];
        let limits = ReadLimits::default();
        for text in texts {
            let whole = read_in_parts(text.as_bytes(), &limits, 1);
            for parts in 2..=12 {
                match (&whole, read_in_parts(text.as_bytes(), &limits, parts)) {
                    (Ok(one), Ok(many)) => assert!(*one == many, "{text:?} in {parts} runs"),
                    (Err(one), Err(many)) => assert_eq!((one.code, &one.message), (many.code, &many.message), "{text:?} in {parts} runs"),
                    (one, many) => panic!("{text:?} in {parts} runs: {:?} against {:?}", one.as_ref().err(), many.err()),
                }
            }
        }
        // A larger mesh (a 60 x 60 grid with UVs and normals, cut into objects) in runs of many lines each.
        let mut text = String::new();
        for y in 0..61 {
            for x in 0..61 {
                text.push_str(&format!("v {x} {y} {}\nvt {} {}\nvn 0 0 1\n", (x * y) % 7, x as f32 / 60.0, y as f32 / 60.0));
            }
        }
        for y in 0..60 {
            if y % 17 == 0 {
                text.push_str(&format!("o band {y}\n"));
            }
            for x in 0..60 {
                let v = |dx: usize, dy: usize| (y + dy) * 61 + x + dx + 1;
                text.push_str(&format!("f {0}/{0}/{0} {1}/{1}/{1} {2}/{2}/{2} {3}/{3}/{3}\n", v(0, 0), v(1, 0), v(1, 1), v(0, 1)));
            }
        }
        let whole = read_in_parts(text.as_bytes(), &limits, 1).unwrap();
        assert_eq!(whole.face_count(), 7_200);
        for parts in [2, 3, 7] {
            assert!(whole == read_in_parts(text.as_bytes(), &limits, parts).unwrap(), "the grid in {parts} runs");
        }
        // Too many faces, counted run by run: the same refusal.
        let small = ReadLimits { max_faces: 1_000, placed: false };
        let refusals: Vec<String> = [1, 2, 5].iter().map(|&parts| read_in_parts(text.as_bytes(), &small, parts).unwrap_err().message).collect();
        assert!(refusals.iter().all(|r| r == &refusals[0] && r.contains("declares 7200 faces")), "{refusals:?}");
    }

    /// Mutated files (bytes replaced, inserted and deleted, lines cut) read in runs give what they
    /// give read as one: hostile text takes the same path to the same answer however it is cut.
    #[test]
    fn mutated_files_read_in_runs_give_what_they_give_read_as_one() {
        let mut next = xorshift(0x0b5e_55ed_0f0b_1ec7);
        let base = "mtllib m.mtl\nv 0 0 0\nv 1 0 0 0.5 0.5 0.5\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\no a\nf 1/1/1 2/2/1 3/1/1\nf 2 4 3\ng b\nf -1 -2 -3\nf 1//1 3//1 4//1 2//1\n# end\n";
        let alphabet = b"0123456789 -/.\nfvtng#o\r";
        let limits = ReadLimits::default();
        for _ in 0..2_000 {
            let mut text = base.as_bytes().to_vec();
            for _ in 0..1 + next() % 6 {
                let at = (next() % (text.len() as u64 + 1)) as usize;
                let byte = alphabet[(next() % alphabet.len() as u64) as usize];
                match next() % 3 {
                    0 if at < text.len() => text[at] = byte,
                    1 if at < text.len() => {
                        text.remove(at);
                    }
                    _ => text.insert(at, byte),
                }
            }
            let whole = read_in_parts(&text, &limits, 1);
            for parts in 2..=5 {
                let apart = read_in_parts(&text, &limits, parts);
                let same = match (&whole, &apart) {
                    (Ok(one), Ok(many)) => one == many,
                    (Err(one), Err(many)) => (one.code, &one.message) == (many.code, &many.message),
                    _ => false,
                };
                assert!(same, "{:?} in {parts} runs: {:?} against {:?}", String::from_utf8_lossy(&text), whole.as_ref().err(), apart.err());
            }
        }
    }

    /// A xorshift64 generator from `seed`: the same numbers on every run.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// A corner read in the pass that finds its end is the corner the word-by-word reader gives,
    /// value or error, on corners of every shape.
    #[test]
    fn corners_read_in_one_pass_as_word_by_word() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let parts = ["", "1", "7", "0", "-1", "-3", "+2", "42", "4294967295", "4294967296", "123456789012345678", "1234567890123456789", "x", "3a"];
        let counts = [10, 5, 3];
        for _ in 0..20_000 {
            let n = 1 + next() % 4;
            let word = (0..n).map(|_| parts[(next() % parts.len() as u64) as usize]).collect::<Vec<_>>().join("/");
            if word.is_empty() {
                continue;
            }
            let one_pass = Words { rest: format!("{word} 1").as_bytes() }.corner(counts);
            assert_eq!(one_pass, Some(corner(word.as_bytes(), counts)), "{word}");
        }
    }

    /// The short path reads what the full reader reads, bit for bit, on numbers of every shape.
    #[test]
    fn short_decimals_read_as_the_full_reader_reads_them() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut short = 0;
        for _ in 0..200_000 {
            let digits = 1 + next() % 20;
            let mut word: String = (0..digits).map(|_| char::from(b'0' + (next() % 10) as u8)).collect();
            let point = (next() % (digits + 2)) as usize;
            if point <= word.len() {
                word.insert(point, '.');
            }
            if next().is_multiple_of(3) {
                word.insert(0, '-');
            }
            let full: Option<f32> = word.parse().ok();
            let fast = short_decimal(word.as_bytes());
            if let Some(fast) = fast {
                short += 1;
                assert_eq!(Some(fast.to_bits()), full.map(f32::to_bits), "{word}");
            }
            assert_eq!(number(word.as_bytes()).ok().map(f32::to_bits), full.map(f32::to_bits), "{word}");
        }
        assert!(short > 100_000, "the short path took {short}");
        // What a writer of shortest floats prints (ours, and most exporters') reads back to its float.
        for _ in 0..100_000 {
            let x = f32::from_bits(next() as u32);
            if x.is_finite() {
                assert_eq!(number(format!("{x}").as_bytes()).map(f32::to_bits), Ok(x.to_bits()), "{x}");
            }
        }
        // Halfway between two f32s (1 + 2^-24, and 2^24 + 1), exactly and a digit off either side.
        for word in ["1.000000059604644775390625", "16777217", "16777217.0000001", "16777216.9999999", "0.0000000000000000000001"] {
            assert_eq!(number(word.as_bytes()).ok().map(f32::to_bits), word.parse::<f32>().ok().map(f32::to_bits), "{word}");
        }
        assert_eq!(short_decimal(b"16777217"), None, "exactly halfway goes to the full reader");
        for word in ["", "-", ".", "+.", "1e5", "1.5e-3", "inf", "NaN", "0x10", "1..2", "16777217", "0.12345678901"] {
            assert_eq!(number(word.as_bytes()).ok().map(f32::to_bits), word.parse::<f32>().ok().map(f32::to_bits), "{word}");
        }
    }
}
