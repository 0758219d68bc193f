//! PLY (Stanford polygon format): ASCII and binary little/big endian. Reads the vertex element
//! (position, normal, texture coordinates, colour) and polygons from a `face` element or strips
//! from a `tristrips` element (-1 restarts a strip); other elements are skipped.
use super::ReadLimits;
use crate::error::{MeshError, Result};
use crate::model::{Attribute, LinesOrPoints, Mesh, Model, Primitive, SourceFormat, Unfilled};

#[derive(Clone, Copy, PartialEq)]
enum Encoding {
    Ascii,
    Little,
    Big,
}

#[derive(Clone, Copy)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    fn parse(name: &str) -> Result<Scalar> {
        Ok(match name {
            "char" | "int8" => Scalar::I8,
            "uchar" | "uint8" => Scalar::U8,
            "short" | "int16" => Scalar::I16,
            "ushort" | "uint16" => Scalar::U16,
            "int" | "int32" => Scalar::I32,
            "uint" | "uint32" => Scalar::U32,
            "float" | "float32" => Scalar::F32,
            "double" | "float64" => Scalar::F64,
            other => return Err(MeshError::invalid(format!("PLY property type {other:?} is unknown"))),
        })
    }

    fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }
}

struct Property {
    name: String,
    scalar: Scalar,
    /// Type of the length prefix for list properties.
    list: Option<Scalar>,
}

struct Element {
    name: String,
    count: usize,
    properties: Vec<Property>,
}

/// Reads values one at a time from the body, in either encoding.
struct Body<'a> {
    data: &'a [u8],
    at: usize,
    encoding: Encoding,
}

impl Body<'_> {
    fn value(&mut self, scalar: Scalar) -> Result<f64> {
        if self.encoding == Encoding::Ascii {
            while self.at < self.data.len() && self.data[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            let start = self.at;
            while self.at < self.data.len() && !self.data[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            let word = std::str::from_utf8(&self.data[start..self.at]).unwrap_or("");
            return word.parse::<f64>().map_err(|_| MeshError::invalid("PLY body ends early or holds a bad number"));
        }
        let size = scalar.size();
        let bytes = self.data.get(self.at..self.at + size).ok_or_else(|| MeshError::invalid("PLY body ends early"))?;
        self.at += size;
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(bytes);
        if self.encoding == Encoding::Big {
            b[..size].reverse();
        }
        Ok(match scalar {
            Scalar::I8 => b[0] as i8 as f64,
            Scalar::U8 => b[0] as f64,
            Scalar::I16 => i16::from_le_bytes([b[0], b[1]]) as f64,
            Scalar::U16 => u16::from_le_bytes([b[0], b[1]]) as f64,
            Scalar::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Scalar::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Scalar::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Scalar::F64 => f64::from_le_bytes(b),
        })
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.at
    }
}

fn parse_header(data: &[u8]) -> Result<(Encoding, Vec<Element>, usize)> {
    let end = data.windows(10).position(|w| w == b"end_header").ok_or_else(|| MeshError::invalid("PLY header has no end_header"))?;
    let mut body = end + 10;
    while body < data.len() && data[body] != b'\n' {
        body += 1;
    }
    let header = std::str::from_utf8(&data[..end]).map_err(|_| MeshError::invalid("PLY header is not text"))?;
    let mut lines = header.lines();
    if lines.next().map(str::trim) != Some("ply") {
        return Err(MeshError::invalid("the file does not start with 'ply'"));
    }
    let mut encoding = None;
    let mut elements: Vec<Element> = Vec::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["format", kind, _] => {
                encoding = Some(match *kind {
                    "ascii" => Encoding::Ascii,
                    "binary_little_endian" => Encoding::Little,
                    "binary_big_endian" => Encoding::Big,
                    _ => return Err(MeshError::invalid(format!("PLY format {kind:?} is unknown"))),
                })
            }
            ["element", name, count] => elements.push(Element {
                name: name.to_string(),
                count: count.parse().map_err(|_| MeshError::invalid("PLY element count is not a number"))?,
                properties: Vec::new(),
            }),
            ["property", "list", len, item, name] => elements
                .last_mut()
                .ok_or_else(|| MeshError::invalid("PLY property before any element"))?
                .properties
                .push(Property { name: name.to_string(), scalar: Scalar::parse(item)?, list: Some(Scalar::parse(len)?) }),
            ["property", kind, name] => elements.last_mut().ok_or_else(|| MeshError::invalid("PLY property before any element"))?.properties.push(Property {
                name: name.to_string(),
                scalar: Scalar::parse(kind)?,
                list: None,
            }),
            ["comment", ..] | ["obj_info", ..] | [] => {}
            _ => return Err(MeshError::invalid(format!("PLY header line {line:?} is not understood"))),
        }
    }
    let encoding = encoding.ok_or_else(|| MeshError::invalid("PLY header has no format line"))?;
    Ok((encoding, elements, (body + 1).min(data.len())))
}

/// Where each wanted vertex property sits in the element's property list.
struct VertexLayout {
    position: [usize; 3],
    normal: Option<[usize; 3]>,
    uv: Option<[usize; 2]>,
    color: Option<([usize; 3], Option<usize>, f32)>,
}

fn vertex_layout(element: &Element) -> Result<VertexLayout> {
    let find = |names: &[&str]| element.properties.iter().position(|p| p.list.is_none() && names.contains(&p.name.as_str()));
    let all3 = |a: &[&str], b: &[&str], c: &[&str]| Some([find(a)?, find(b)?, find(c)?]);
    let position = all3(&["x"], &["y"], &["z"]).ok_or_else(|| MeshError::invalid("PLY vertices have no x, y, z"))?;
    let uv = (|| Some([find(&["s", "u", "texture_u", "texture_s"])?, find(&["t", "v", "texture_v", "texture_t"])?]))();
    let color = all3(&["red", "r", "diffuse_red"], &["green", "g", "diffuse_green"], &["blue", "b", "diffuse_blue"]).map(|rgb| {
        let integer = !matches!(element.properties[rgb[0]].scalar, Scalar::F32 | Scalar::F64);
        (rgb, find(&["alpha", "a"]), if integer { 1.0 / 255.0 } else { 1.0 })
    });
    Ok(VertexLayout { position, normal: all3(&["nx"], &["ny"], &["nz"]), uv, color })
}

/// Fewest body bytes one instance of the element can take: a binary record with empty lists, or
/// ASCII values of one character separated by single spaces.
fn min_element_bytes(element: &Element, encoding: Encoding) -> usize {
    match encoding {
        Encoding::Ascii => (2 * element.properties.len()).saturating_sub(1),
        _ => element.properties.iter().map(|p| p.list.unwrap_or(p.scalar).size()).sum(),
    }
}

/// Declared element counts against the body's size and the face limit, before anything is read.
fn check_declared(elements: &[Element], encoding: Encoding, body: usize, limits: &ReadLimits) -> Result<()> {
    let mut needed = 0usize;
    for element in elements {
        needed = needed.saturating_add(element.count.saturating_mul(min_element_bytes(element, encoding)));
    }
    if needed > body {
        return Err(MeshError::invalid(format!("the PLY header declares elements that need at least {needed} bytes, but the body has {body}")));
    }
    let count = |name: &str| elements.iter().filter(|e| e.name == name && !e.properties.is_empty()).map(|e| e.count).sum::<usize>();
    limits.check_faces(count("face"))?;
    limits.check_values(count("vertex").saturating_mul(12).saturating_add(count("face").saturating_mul(3)))
}

pub fn read(data: &[u8], limits: &ReadLimits) -> Result<Model> {
    let (encoding, elements, start) = parse_header(data)?;
    check_declared(&elements, encoding, data.len() - start, limits)?;
    let mut body = Body { data, at: start, encoding };
    let mut primitive = Primitive::default();
    let (mut normals, mut uvs, mut colors) = (Vec::new(), Vec::new(), Vec::new());
    let mut layout = None;
    let mut values: Vec<f64> = Vec::new();
    for element in &elements {
        if element.properties.is_empty() {
            continue;
        }
        let is_vertex = element.name == "vertex";
        if is_vertex {
            layout = Some(vertex_layout(element)?);
        }
        // Every element instance takes at least one byte of body: a huge count fails as soon as data runs out.
        let capacity = element.count.min(body.remaining());
        if is_vertex {
            primitive.positions.reserve(capacity);
        }
        for _ in 0..element.count {
            values.clear();
            let mut list: Vec<f64> = Vec::new();
            for property in &element.properties {
                if let Some(len_type) = property.list {
                    let n = body.value(len_type)?;
                    if !(0.0..=body.remaining() as f64 + 1.0).contains(&n) {
                        return Err(MeshError::invalid("PLY list length is out of range"));
                    }
                    let items: Vec<f64> = (0..n as usize).map(|_| body.value(property.scalar)).collect::<Result<_>>()?;
                    if matches!(property.name.as_str(), "vertex_indices" | "vertex_index") {
                        list = items;
                    }
                    values.push(0.0);
                } else {
                    values.push(body.value(property.scalar)?);
                }
            }
            match element.name.as_str() {
                "vertex" => {
                    let l = layout.as_ref().expect("layout set for the vertex element");
                    primitive.positions.push(l.position.map(|i| values[i] as f32));
                    if let Some(n) = l.normal {
                        normals.extend(n.map(|i| values[i] as f32));
                    }
                    if let Some(t) = l.uv {
                        uvs.extend([values[t[0]] as f32, 1.0 - values[t[1]] as f32]);
                    }
                    if let Some((rgb, alpha, scale)) = l.color {
                        colors.extend(rgb.map(|i| values[i] as f32 * scale));
                        colors.push(alpha.map_or(1.0, |a| values[a] as f32 * scale));
                    }
                }
                "face" => {
                    for k in 2..list.len() {
                        primitive.indices.extend_from_slice(&[list[0] as u32, list[k - 1] as u32, list[k] as u32]);
                    }
                }
                "tristrips" => push_strips(&list, &mut primitive.indices),
                _ => {}
            }
            // Polygons and strips make several triangles each: hold the running count to the limit.
            if primitive.indices.len() / 3 > limits.max_faces {
                limits.check_faces(primitive.indices.len() / 3)?;
            }
        }
    }
    let n = primitive.positions.len();
    for (semantic, components, data) in [("COLOR_0", 4, colors), ("NORMAL", 3, normals), ("TEXCOORD_0", 2, uvs)] {
        if n > 0 && data.len() == n * components {
            primitive.attributes.push(Attribute { semantic: semantic.into(), components, data });
        }
    }
    let mut model = Model::new(SourceFormat::Ply);
    // Vertices without faces are a point cloud (what scanners write).
    let mesh = match primitive.indices.is_empty() && n > 0 {
        true => {
            primitive.indices = (0..n as u32).collect();
            Mesh { lines_and_points: vec![LinesOrPoints { mode: Unfilled::Points, primitive }], ..Default::default() }
        }
        false => Mesh { primitives: vec![primitive], ..Default::default() },
    };
    model.push_root_mesh(mesh);
    Ok(model)
}

/// Triangle strips with -1 as restart: each new index forms a triangle with the two before it,
/// alternating winding so all faces keep the strip's orientation.
fn push_strips(list: &[f64], indices: &mut Vec<u32>) {
    for strip in list.split(|&v| v < 0.0) {
        for k in 2..strip.len() {
            let (a, b, c) = (strip[k - 2] as u32, strip[k - 1] as u32, strip[k] as u32);
            if k % 2 == 0 {
                indices.extend_from_slice(&[a, b, c]);
            } else {
                indices.extend_from_slice(&[b, a, c]);
            }
        }
    }
}
