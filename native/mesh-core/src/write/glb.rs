//! GLB writer. Plain output stores float attributes, except skin weights (8-bit normalized),
//! rotation keys and vertex colours (16-bit normalized): core glTF types, at the precision engines
//! skin, animate and shade with, as gltfpack writes them even without quantization (its colours
//! in 8 bits); `quantize` stores KHR_mesh_quantization
//! integers (positions on per-mesh grids with a scene-wide step, see quantize.rs, undone by a
//! child node's transform; normals as 16-bit; UVs on a 12-bit grid, see texture_transform.rs;
//! colours as 8-bit); `compress` runs vertex and index data through the meshoptimizer codecs
//! (EXT_meshopt_compression, with an empty fallback buffer), and quantized normals then go
//! through the codec's octahedral filter: two 8-bit coordinates on the unit octahedron folded
//! flat (Cigolle et al. 2014), which decoders expand back to a unit vector.
//! When quantizing, vertices whose written bytes agree in every attribute are written once
//! (weld_quantized.rs). Skins, JOINTS/WEIGHTS and animations are written by write/skin.rs.
//! Morph targets (write/morph.rs) are columns like any attribute: they are welded, quantized and
//! compressed along with the base vertex, then written as the primitive's `targets`.
use super::anim_tracks::relative_budget;
use super::compact_json::short_f32;
use super::instancing::{instancing_extensions, GPU_INSTANCING};
use super::material_json::{material_without_defaults, sampler_without_defaults};
use super::morph::{morph_column, target_accessors, with_morph_fields};
use super::nodes::{scene_nodes, LIGHTS};
use super::quantize::{position_grids, Grid, DEFAULT_POSITION_BITS};
use super::skin::{plan_skins, quantized_weights, write_animations, write_joints, write_skins};
use super::texture_transform::{grid_for as uv_grid_for, transformed_materials, uv_grids, UvGrid, TRANSFORM};
use super::vertex_codec::encode_vertices;
use super::weld_quantized::{gather, strip_ordered, weld_written, TriangleOrder};
use crate::extension_names::extension_names;
use crate::in_parallel;
use crate::math::Bounds;
use crate::model::{target_of, Model, Primitive, Unfilled, VARIANTS};
use crate::round::round;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

const QUANTIZATION: &str = "KHR_mesh_quantization";
const MESHOPT: &str = "EXT_meshopt_compression";
/// Bits per octahedral normal coordinate, gltfpack's default: about a degree of angular error.
const NORMAL_BITS: i32 = 8;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlbOptions {
    pub quantize: bool,
    pub compress: bool,
    /// Position precision when quantizing: 2^bits − 1 steps across the stored box (quantize.rs).
    pub position_bits: u8,
    /// How far animated geometry may drift from its source motion, as a fraction of the scene's
    /// extent (write/anim_tracks.rs). None: half a step of the position grid (`relative_budget`)
    /// when quantizing, and every key kept as it is otherwise; given, keys the motion can do
    /// without go even from exact floats.
    pub animation_error: Option<f64>,
    /// Who orders triangles for the vertex cache: the tool (`Kept`), or the writer around its
    /// weld at output precision (`Strip`, optimize's order; write/weld_quantized.rs).
    pub triangle_order: TriangleOrder,
}

impl Default for GlbOptions {
    /// Plain floats, uncompressed; gltfpack's position precision should quantization be turned on.
    fn default() -> Self {
        GlbOptions { quantize: false, compress: false, position_bits: DEFAULT_POSITION_BITS, animation_error: None, triangle_order: TriangleOrder::Kept }
    }
}

impl GlbOptions {
    /// Quantized at gltfpack's default position precision, compressed or not.
    pub fn quantized(compress: bool) -> Self {
        GlbOptions { quantize: true, compress, position_bits: DEFAULT_POSITION_BITS, animation_error: None, triangle_order: TriangleOrder::Kept }
    }
}

pub(super) struct Builder {
    bin: Vec<u8>,
    fallback_len: usize,
    views: Vec<Value>,
    accessors: Vec<Value>,
    pub(super) compress: bool,
    /// Streams waiting to be written, one per buffer view; see `view`.
    pending: Vec<Pending>,
    /// Texture-coordinate grids per (material, set) when quantizing; see texture_transform.rs.
    uv_grids: BTreeMap<(usize, usize), Option<UvGrid>>,
    /// Vertices and triangles written so far, after welding; see `Written`.
    written_vertices: usize,
    written_faces: usize,
    triangle_order: TriangleOrder,
}

fn pad4(bytes: &mut Vec<u8>, fill: u8) {
    while !bytes.len().is_multiple_of(4) {
        bytes.push(fill);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Data {
    /// `filter` names the EXT_meshopt_compression filter the bytes were encoded with.
    Vertices {
        stride: usize,
        filter: Option<&'static str>,
    },
    Indices {
        size: usize,
        vertex_count: usize,
    },
    /// The indices of points and lines: the codec's index sequence mode, not its triangles'.
    IndexSequence {
        size: usize,
        vertex_count: usize,
    },
    /// Accessor data that is not a vertex attribute (inverse bind matrices, animation keys): the
    /// view has no target nor byteStride, but compresses with the attribute codec all the same.
    Keys {
        stride: usize,
        filter: Option<&'static str>,
    },
}

impl Data {
    /// Streams with the same layout share a buffer view.
    fn layout(self) -> Data {
        match self {
            Data::Indices { size, .. } => Data::Indices { size, vertex_count: 0 },
            Data::IndexSequence { size, .. } => Data::IndexSequence { size, vertex_count: 0 },
            vertices => vertices,
        }
    }
}

/// The bytes of one future buffer view: every stream of one layout, back to back, kept as the
/// streams came until the view is written (a long animation's keys are tens of MB: appending
/// each to one growing buffer copied them again at every doubling).
struct Pending {
    view: usize,
    layout: Data,
    streams: Vec<Vec<u8>>,
    len: usize,
    /// For index views: the largest vertex count of the primitives whose indices it holds.
    vertex_count: usize,
}

/// Where an accessor's elements start: a buffer view and a byte offset inside it.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    view: usize,
    offset: usize,
}

impl Builder {
    /// Appends `bytes` to the buffer view of their layout (stride and filter, or index size) and
    /// returns where they start. One view per layout rather than per stream, as gltfpack does:
    /// each view costs a JSON entry and a codec header, and one long stream of similar data
    /// compresses better than many short ones (ShapeCollection's seven meshes made 24 views).
    pub(super) fn view(&mut self, bytes: &[u8], data: Data) -> Slot {
        self.view_owned(bytes.to_vec(), data)
    }

    /// `view` for bytes the caller is done with: they are kept, not copied, until the view is
    /// written (a million-vertex mesh's attributes are tens of MB).
    pub(super) fn view_owned(&mut self, bytes: Vec<u8>, data: Data) -> Slot {
        let pending = self.pending_for(data);
        let offset = pending.len;
        pending.len += bytes.len();
        pending.streams.push(bytes);
        Slot { view: pending.view, offset }
    }

    /// The pending view of the layout of `data`, made if it is the first of its layout.
    fn pending_for(&mut self, data: Data) -> &mut Pending {
        let layout = data.layout();
        let index = match self.pending.iter().position(|p| p.layout == layout) {
            Some(i) => i,
            None => {
                self.views.push(Value::Null);
                self.pending.push(Pending { view: self.views.len() - 1, layout, streams: Vec::new(), len: 0, vertex_count: 0 });
                self.pending.len() - 1
            }
        };
        let pending = &mut self.pending[index];
        if let Data::Indices { vertex_count, .. } | Data::IndexSequence { vertex_count, .. } = data {
            pending.vertex_count = pending.vertex_count.max(vertex_count);
        }
        pending
    }

    /// Writes the pending views into the buffers, compressed when asked, with room for `after`
    /// more bytes in the binary chunk (what is written after the views, and the GLB's head).
    fn flush_views(&mut self, after: usize) {
        let pending: Vec<Joined> = std::mem::take(&mut self.pending).into_iter().map(Pending::joined).collect();
        // The views are encoded apart from each other, over the machine's cores when they are
        // large (a big mesh's attributes and indices, a long animation's keys and times), then laid
        // out in order, so the file does not depend on the number of threads.
        let total: usize = pending.iter().map(|p| p.bytes.len()).sum();
        let compress = self.compress;
        let encoded =
            in_parallel::map(&pending, compress && total >= BYTES_WORTH_THREADS, |p| compress.then(|| encode_view(p.layout, &p.bytes, p.vertex_count)));
        // The file's bytes are known now (but for the images): room for them at once.
        self.bin.reserve(encoded.iter().zip(&pending).map(|(e, p)| e.as_ref().map_or(p.bytes.len(), |e| e.0.len()) + 3).sum::<usize>() + after);
        for (Joined { view: index, layout, bytes, vertex_count: _ }, encoded) in pending.into_iter().zip(encoded) {
            let bytes = &bytes[..];
            let (target, stride) = match layout {
                Data::Vertices { stride, .. } => (Some(ARRAY_BUFFER), Some(stride)),
                Data::Indices { .. } | Data::IndexSequence { .. } => (Some(ELEMENT_ARRAY_BUFFER), None),
                Data::Keys { .. } => (None, None),
            };
            let mut view = json!({ "buffer": 0, "byteLength": bytes.len() });
            put_offset(&mut view, self.bin.len());
            if let Some(t) = target {
                view["target"] = json!(t);
            }
            if let Some(s) = stride {
                view["byteStride"] = json!(s);
            }
            if let Some((encoded, count, stride, mode, filter)) = encoded {
                view["buffer"] = json!(1);
                put_offset(&mut view, self.fallback_len);
                view["extensions"] = json!({ MESHOPT: { "buffer": 0, "byteLength": encoded.len(), "byteStride": stride, "count": count, "mode": mode } });
                put_offset(&mut view["extensions"][MESHOPT], self.bin.len());
                if let Some(f) = filter {
                    view["extensions"][MESHOPT]["filter"] = json!(f);
                }
                self.fallback_len += bytes.len().div_ceil(4) * 4;
                self.bin.extend_from_slice(&encoded);
            } else {
                self.bin.extend_from_slice(bytes);
            }
            pad4(&mut self.bin, 0);
            self.views[index] = view;
        }
    }

    fn raw_view(&mut self, bytes: &[u8]) -> usize {
        let mut view = json!({ "buffer": 0, "byteLength": bytes.len() });
        put_offset(&mut view, self.bin.len());
        self.views.push(view);
        self.bin.extend_from_slice(bytes);
        pad4(&mut self.bin, 0);
        self.views.len() - 1
    }

    pub(super) fn accessor(&mut self, slot: Slot, count: usize, component_type: u32, kind: &str, normalized: bool, bounds: Option<(Value, Value)>) -> usize {
        let mut a = json!({ "bufferView": slot.view, "componentType": component_type, "count": count, "type": kind });
        if slot.offset > 0 {
            a["byteOffset"] = json!(slot.offset);
        }
        if normalized {
            a["normalized"] = json!(true);
        }
        if let Some((min, max)) = bounds {
            a["min"] = min;
            a["max"] = max;
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

/// A pending view with its streams as one run of bytes: the codec takes a view whole.
struct Joined {
    view: usize,
    layout: Data,
    bytes: Vec<u8>,
    vertex_count: usize,
}

impl Pending {
    /// The streams back to back: the one stream itself, or a copy of all into one buffer of their size.
    fn joined(self) -> Joined {
        let Pending { view, layout, mut streams, len, vertex_count } = self;
        let bytes = match streams.len() {
            1 => streams.pop().expect("one stream"),
            _ => {
                let mut bytes = Vec::with_capacity(len);
                streams.iter().for_each(|s| bytes.extend_from_slice(s));
                bytes
            }
        };
        Joined { view, layout, bytes, vertex_count }
    }
}

/// `byteOffset` is 0 when absent (buffer views and EXT_meshopt_compression alike).
fn put_offset(view: &mut Value, offset: usize) {
    if offset > 0 {
        view["byteOffset"] = json!(offset);
    } else if let Some(object) = view.as_object_mut() {
        object.remove("byteOffset");
    }
}

/// Bytes of views from which they are encoded over several threads (a few milliseconds of work).
const BYTES_WORTH_THREADS: usize = 1 << 20;

/// A view's bytes through the codec: the encoded bytes, the element count and size, the codec's
/// mode and the view's filter.
fn encode_view(layout: Data, bytes: &[u8], vertex_count: usize) -> (Vec<u8>, usize, usize, &'static str, Option<&'static str>) {
    match layout {
        Data::Vertices { stride, filter } | Data::Keys { stride, filter } => {
            (encode_vertices(bytes, stride), bytes.len() / stride, stride, "ATTRIBUTES", filter)
        }
        Data::Indices { size, .. } | Data::IndexSequence { size, .. } => {
            let indices: Vec<u32> = match size {
                2 => bytes.chunks_exact(2).map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))).collect(),
                _ => bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
            };
            match layout {
                Data::Indices { .. } => {
                    (meshopt::encode_index_buffer(&indices, vertex_count).expect("valid triangle list"), indices.len(), size, "TRIANGLES", None)
                }
                _ => (meshopt::encode_index_sequence(&indices, vertex_count).expect("valid index sequence"), indices.len(), size, "INDICES", None),
            }
        }
    }
}

/// Tangents (xyz unit direction, w = ±1 handedness) packed like normals with the codec's
/// octahedral filter, four signed bytes each: gltfpack stores tangents at 8 bits too, and floats
/// cost four times the bytes for precision no normal map needs. The filter keeps the fourth
/// component as its own snorm value, so the handedness sign survives exactly.
fn octahedral_tangents(data: &[f32]) -> Vec<u8> {
    let tangents: Vec<[f32; 4]> = data.chunks_exact(4).map(|t| [t[0], t[1], t[2], if t[3] < 0.0 { -1.0 } else { 1.0 }]).collect();
    meshopt::encode_filter_oct::<i8>(&tangents, NORMAL_BITS).iter().flatten().map(|&c| c as u8).collect()
}

/// Interleaves `components` values per vertex into a stream of `stride` bytes per vertex.
fn stream<T: Copy>(values: impl Iterator<Item = T>, components: usize, stride: usize, put: impl Fn(T, &mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, v) in values.enumerate() {
        put(v, &mut out);
        if (i + 1) % components == 0 {
            while out.len() % stride != 0 {
                out.push(0);
            }
        }
    }
    out
}

/// One attribute encoded for writing, before any view exists (so that welding can drop
/// vertices first, see weld_quantized.rs).
pub(super) enum Column {
    /// The written bytes, `stride` per vertex, and the accessor's fields.
    Bytes { bytes: Vec<u8>, stride: usize, filter: Option<&'static str>, component_type: u32, normalized: bool },
    /// JOINTS_n, written by skin.rs; the indices are integers, so equal floats mean equal bytes.
    Joints(Vec<f32>),
}

impl Column {
    pub(super) fn bytes(bytes: Vec<u8>, stride: usize, filter: Option<&'static str>, component_type: u32, normalized: bool) -> Column {
        Column::Bytes { bytes, stride, filter, component_type, normalized }
    }
}

/// A primitive's attributes encoded for writing and its vertices welded and ordered
/// (weld_quantized.rs): the work of writing a primitive that needs no view yet, so primitives are
/// prepared side by side (`prepared_primitives`) and written one after another.
struct Prepared<'a> {
    columns: Vec<(&'a str, &'static str, Column)>,
    /// Vertices written.
    n: usize,
    indices: std::borrow::Cow<'a, [u32]>,
}

/// Faces from which a model's primitives are prepared over several threads: ordering triangles
/// for the vertex cache costs about 50 ns a face (held-out-many-small-meshes: 210,000 faces in
/// four primitives, 11 ms of its 58), against tens of microseconds to start a thread.
const FACES_WORTH_THREADS: usize = 40_000;

/// Every primitive of the model prepared (`prepare_primitive`), mesh by mesh, over the machine's
/// cores where there are several and enough faces; the same whatever the threads.
/// Each mesh's triangles first, then its points and lines (`Mesh::lines_and_points`).
fn prepared_primitives<'a>(b: &Builder, model: &'a Model, grids: &[Option<Grid>]) -> Vec<Vec<Prepared<'a>>> {
    let all: Vec<(usize, &Primitive, bool)> = model
        .meshes
        .iter()
        .enumerate()
        .flat_map(|(m, mesh)| mesh.primitives.iter().map(move |p| (m, p, true)).chain(mesh.lines_and_points.iter().map(move |l| (m, &l.primitive, false))))
        .collect();
    let faces: usize = all.iter().map(|(_, p, _)| p.indices.len() / 3).sum();
    let mut prepared =
        in_parallel::map(&all, all.len() > 1 && faces >= FACES_WORTH_THREADS, |&(m, p, triangles)| prepare_primitive(b, p, grids[m], triangles)).into_iter();
    model.meshes.iter().map(|mesh| prepared.by_ref().take(mesh.primitives.len() + mesh.lines_and_points.len()).collect()).collect()
}

/// `p`'s columns at output precision. Triangles (`triangles`) are welded at that precision and
/// put in the writer's order, and their UVs go on their material's grid; points and lines keep
/// their vertices and indices as they are, and their UVs as floats.
fn prepare_primitive<'a>(b: &Builder, p: &'a Primitive, grid: Option<Grid>, triangles: bool) -> Prepared<'a> {
    let mut n = p.positions.len();
    let mut columns: Vec<(&str, &str, Column)> = Vec::with_capacity(p.attributes.len() + 1);
    let pos = match grid {
        Some(g) => {
            let mut bytes = Vec::with_capacity(n * 8);
            for &v in &p.positions {
                let [x, y, z] = g.quantize(v).map(u16::to_le_bytes);
                bytes.extend_from_slice(&[x[0], x[1], y[0], y[1], z[0], z[1], 0, 0]);
            }
            Column::bytes(bytes, 8, None, 5123, false)
        }
        None => Column::bytes(stream(p.positions.iter().flatten().copied(), 3, 12, |v, o| o.extend_from_slice(&v.to_le_bytes())), 12, None, 5126, false),
    };
    columns.push(("POSITION", "VEC3", pos));
    let weights = quantized_weights(p);
    for a in &p.attributes {
        let kind = ["", "SCALAR", "VEC2", "VEC3", "VEC4"][a.components.min(4)];
        let values = a.data.iter().copied();
        let uv_set = a.semantic.strip_prefix("TEXCOORD_").and_then(|s| s.parse::<usize>().ok()).filter(|_| a.components == 2);
        // A primitive drawn with variants shares its materials' grid (`uv_grids`).
        let uv_grid = uv_set.filter(|_| triangles).and_then(|set| uv_grid_for(&b.uv_grids, p.materials().next(), set, &a.data));
        let column = if target_of(&a.semantic).is_some() {
            morph_column(p, a, grid)
        } else if a.semantic.starts_with("JOINTS_") {
            Column::Joints(a.data.clone())
        } else if let Some(w) = weights.get(&a.semantic) {
            Column::bytes(w.clone(), 4, None, 5121, true)
        } else if grid.is_some() && a.semantic == "NORMAL" && b.compress {
            let unit: Vec<[f32; 4]> = a.data.chunks_exact(3).map(|n| [n[0], n[1], n[2], 0.0]).collect();
            let encoded = meshopt::encode_filter_oct::<i8>(&unit, NORMAL_BITS);
            Column::bytes(encoded.iter().flatten().map(|&c| c as u8).collect(), 4, Some("OCTAHEDRAL"), 5120, true)
        } else if grid.is_some() && a.semantic == "TANGENT" && a.components == 4 && b.compress {
            Column::bytes(octahedral_tangents(&a.data), 4, Some("OCTAHEDRAL"), 5120, true)
        } else if grid.is_some() && a.semantic == "TANGENT" && a.components == 4 {
            let bytes = stream(values, 4, 8, |v, o| o.extend_from_slice(&(round(v.clamp(-1.0, 1.0) * 32767.0) as i16).to_le_bytes()));
            Column::bytes(bytes, 8, None, 5122, true)
        } else if grid.is_some() && a.semantic == "NORMAL" {
            let bytes = stream(values, 3, 8, |v, o| o.extend_from_slice(&(round(v.clamp(-1.0, 1.0) * 32767.0) as i16).to_le_bytes()));
            Column::bytes(bytes, 8, None, 5122, true)
        } else if let (Some(_), Some(g)) = (grid, uv_grid) {
            let bytes: Vec<u8> = a.data.chunks_exact(2).flat_map(|uv| [g.encode(uv[0], 0), g.encode(uv[1], 1)]).flat_map(u16::to_le_bytes).collect();
            Column::bytes(bytes, 4, None, 5123, true)
        } else if a.semantic.starts_with("COLOR_")
            && (grid.is_some() || a.data.iter().all(|&v| (0.0..=1.0).contains(&v) && (v * 255.0 - round(v * 255.0)).abs() <= 1e-3))
        {
            // Quantized output; or plain output of colours an 8-bit source was read into (as b / 255
            // or b × (1 / 255)): the same bytes again. A float colour this near an 8-bit step is
            // within 1e-3 / 255 of it, closer than the 16-bit form below would keep it.
            Column::bytes(stream(values, a.components, 4, |v, o| o.push(round(v * 255.0) as u8)), 4, None, 5121, true)
        } else if a.semantic.starts_with("COLOR_") {
            // Plain output: colours in 16 bits, within 1/131070 of the float (no display shows the
            // difference) at half its bytes, or a quarter of the floats a 16-bit source was read
            // into. glTF's colours lie in [0, 1]: the reader clamps the source's, and a colour
            // worked out since (read off the surface where simplification placed a vertex) can
            // round a float past an end, which is clamped back (a validator error otherwise).
            let unit = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
            Column::bytes(stream(values, a.components, 8, |v, o| o.extend_from_slice(&(round(unit(v) * 65535.0) as u16).to_le_bytes())), 8, None, 5123, true)
        } else {
            let stride = a.components * 4;
            Column::bytes(stream(values, a.components, stride, |v, o| o.extend_from_slice(&v.to_le_bytes())), stride, None, 5126, false)
        };
        columns.push((&a.semantic, kind, column));
    }

    let mut indices = std::borrow::Cow::Borrowed(&p.indices[..]);
    let welded = if !triangles {
        None
    } else if grid.is_some() {
        let joint_bits: Vec<Vec<u8>> = columns
            .iter()
            .filter_map(|(_, _, c)| if let Column::Joints(j) = c { Some(j.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect()) } else { None })
            .collect();
        let mut keys: Vec<(&[u8], usize)> =
            columns.iter().filter_map(|(_, _, c)| if let Column::Bytes { bytes, stride, .. } = c { Some((&bytes[..], *stride)) } else { None }).collect();
        keys.extend(joint_bits.iter().map(|j| (&j[..], 16)));
        weld_written(&keys, n, &p.indices, b.triangle_order)
    } else {
        (b.triangle_order == TriangleOrder::Strip).then(|| strip_ordered(&p.indices, n))
    };
    if let Some(welded) = welded {
        for (_, _, column) in &mut columns {
            match column {
                Column::Bytes { bytes, stride, .. } => *bytes = gather(bytes, *stride, &welded.kept),
                Column::Joints(j) => *j = gather(j, 4, &welded.kept),
            }
        }
        n = welded.kept.len();
        indices = std::borrow::Cow::Owned(welded.indices);
    }
    Prepared { columns, n, indices }
}

/// `targets` is the mesh's morph target count (every primitive of a mesh has as many); `unfilled`
/// says what points or lines are drawn, None for triangles.
fn write_primitive(b: &mut Builder, p: &Primitive, prepared: Prepared, grid: Option<Grid>, targets: usize, unfilled: Option<Unfilled>) -> Value {
    let Prepared { columns, n, indices } = prepared;
    b.written_vertices += n;
    if unfilled.is_none() {
        b.written_faces += indices.len() / 3;
    }

    let mut attributes = Map::new();
    let mut target_columns = Vec::new();
    for (semantic, kind, column) in columns {
        if let (Some((target, base)), Column::Bytes { .. }) = (target_of(semantic), &column) {
            target_columns.push((target, base, column));
            continue;
        }
        let index = match column {
            Column::Joints(j) => write_joints(b, &j),
            Column::Bytes { bytes, stride, filter, component_type, normalized } => {
                let bounds = (semantic == "POSITION").then(|| match component_type {
                    5123 => {
                        let q: Vec<u16> = bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
                        let (mut min, mut max) = (vec![u16::MAX; 3], vec![0u16; 3]);
                        for v in q.chunks_exact(4) {
                            for k in 0..3 {
                                min[k] = min[k].min(v[k]);
                                max[k] = max[k].max(v[k]);
                            }
                        }
                        (json!(min), json!(max))
                    }
                    _ => {
                        let bounds = Bounds::of(&p.positions);
                        (json!(bounds.min.map(short_f32)), json!(bounds.max.map(short_f32)))
                    }
                });
                let view = b.view_owned(bytes, Data::Vertices { stride, filter });
                b.accessor(view, n, component_type, kind, normalized, bounds)
            }
        };
        attributes.insert(semantic.to_string(), json!(index));
    }
    let (size, component_type) = if n <= u16::MAX as usize { (2, 5123) } else { (4, 5125) };
    let mut index_bytes = Vec::with_capacity(indices.len() * size);
    match size {
        2 => indices.iter().for_each(|&i| index_bytes.extend_from_slice(&(i as u16).to_le_bytes())),
        _ => indices.iter().for_each(|&i| index_bytes.extend_from_slice(&i.to_le_bytes())),
    }
    let data = match unfilled {
        None => Data::Indices { size, vertex_count: n },
        Some(_) => Data::IndexSequence { size, vertex_count: n },
    };
    let view = b.view_owned(index_bytes, data);
    let indices = b.accessor(view, indices.len(), component_type, "SCALAR", false, None);
    // No "mode" for triangles: 4 is the default.
    let mut out = json!({ "attributes": attributes, "indices": indices });
    if let Some(kind) = unfilled {
        out["mode"] = json!(kind.mode());
    }
    if targets > 0 {
        out["targets"] = json!(target_accessors(b, target_columns, targets, n, grid.is_some()));
    }
    if let Some(m) = p.material {
        out["material"] = json!(m);
    }
    if !p.variant_materials.is_empty() {
        out["extensions"] = json!({ VARIANTS: { "mappings": p.variant_materials } });
    }
    out
}

/// Names of every extension mentioned inside the given JSON objects.
fn extensions_in(values: &[&[Value]]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    values.iter().flat_map(|list| list.iter()).for_each(|v| extension_names(v, &mut out));
    out
}

fn named(mut value: Value, name: &Option<String>) -> Value {
    if let Some(n) = name {
        value["name"] = json!(n);
    }
    value
}

/// What a GLB holds once written: with `quantize`, vertices identical at output precision were
/// written once (weld_quantized.rs), so these can be below the model's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub vertices: usize,
    pub faces: usize,
}

pub fn write_glb(model: &Model, options: &GlbOptions) -> Vec<u8> {
    write_glb_counted(model, options).0
}

pub fn write_glb_counted(model: &Model, options: &GlbOptions) -> (Vec<u8>, Written) {
    let mut b = Builder {
        bin: Vec::new(),
        fallback_len: 0,
        views: Vec::new(),
        accessors: Vec::new(),
        compress: options.compress,
        pending: Vec::new(),
        uv_grids: BTreeMap::new(),
        written_vertices: 0,
        written_faces: 0,
        triangle_order: options.triangle_order,
    };
    if options.quantize {
        b.uv_grids = uv_grids(model);
    }
    let grids: Vec<Option<Grid>> = match options.quantize {
        true => position_grids(model, options.position_bits).into_iter().map(Some).collect(),
        false => vec![None; model.meshes.len()],
    };
    let prepared = prepared_primitives(&b, model, &grids);
    let meshes: Vec<Value> = model
        .meshes
        .iter()
        .zip(&grids)
        .zip(prepared)
        .map(|((m, &grid), prepared)| {
            let drawn = m.primitives.iter().map(|p| (p, None)).chain(m.lines_and_points.iter().map(|l| (&l.primitive, Some(l.mode))));
            let primitives: Vec<Value> =
                drawn.zip(prepared).map(|((p, unfilled), prepared)| write_primitive(&mut b, p, prepared, grid, m.target_count(), unfilled)).collect();
            let mesh = Map::from_iter([("primitives".to_string(), Value::Array(primitives))]);
            with_morph_fields(named(Value::Object(mesh), &m.name), m)
        })
        .collect();
    let skin_plan = plan_skins(model, &grids);
    let instancing = instancing_extensions(&mut b, model, &grids);
    let scene = scene_nodes(model, &grids, &skin_plan.node_skin, &instancing);
    let nodes = scene.nodes;
    let skins = write_skins(&mut b, model, &skin_plan);
    let animation_budget = options.animation_error.unwrap_or_else(|| relative_budget(options.position_bits));
    // Keys go where the geometry is on a grid (its error is the budget) or where the caller gave one.
    let reduce_keys = options.quantize || options.animation_error.is_some();
    let animations = write_animations(&mut b, model, &scene.mesh_holder, animation_budget, reduce_keys);
    // Room for the images and the GLB's head and JSON, so that neither copies the buffer again.
    let images: usize = model.images.iter().map(|img| img.data.len() + 3).sum();
    b.flush_views(images + HEAD_ROOM);
    let images: Vec<Value> = model
        .images
        .iter()
        .map(|img| {
            let view = b.raw_view(&img.data);
            named(json!({ "bufferView": view, "mimeType": img.mime_type }), &img.name)
        })
        .collect();

    // Materials whose UV sets were mapped into [0, 1] sample them through KHR_texture_transform.
    let (materials, transformed) = transformed_materials(&model.materials, &b.uv_grids);
    let mut used = extensions_in(&[&materials, &model.textures, &model.samplers]);
    let originally_required: BTreeSet<String> = model
        .gltf_json
        .as_ref()
        .and_then(|j| j.get("extensionsRequired"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default();
    let mut required: BTreeSet<String> = used.intersection(&originally_required).cloned().collect();
    // A texture whose image is only named inside an extension (no core `source` to fall back on)
    // cannot be shown by a viewer without that extension.
    for texture in model.textures.iter().filter(|t| t.get("source").is_none()) {
        if let Some(Value::Object(extensions)) = texture.get("extensions") {
            required.extend(extensions.keys().cloned());
        }
    }
    // Without the transform such UVs would sample the wrong texels, so a viewer must support it.
    // Instances have no fallback: without the extension a viewer would draw each mesh once, at its node.
    let instanced = instancing.iter().any(Option::is_some);
    for (on, name) in [(options.quantize, QUANTIZATION), (options.compress, MESHOPT), (transformed, TRANSFORM), (instanced, GPU_INSTANCING)] {
        if on {
            used.insert(name.into());
            required.insert(name.into());
        }
    }

    let mut buffers = vec![json!({ "byteLength": b.bin.len() })];
    if options.compress {
        buffers.push(json!({ "byteLength": b.fallback_len.max(4), "extensions": { MESHOPT: { "fallback": true } } }));
    }
    // Lists are moved into the document: `json!` would copy each one whole (it serializes its
    // arguments into new values), 800 node objects on a model of 400 placed meshes.
    let mut root = Map::new();
    root.insert("asset".into(), json!({ "version": "2.0", "generator": "kiln mesh-core" }));
    root.insert("scene".into(), json!(0));
    root.insert("scenes".into(), json!([{ "nodes": model.roots }]));
    root.insert("nodes".into(), Value::Array(nodes));
    root.insert("meshes".into(), Value::Array(meshes));
    root.insert("accessors".into(), Value::Array(b.accessors));
    root.insert("bufferViews".into(), Value::Array(b.views));
    root.insert("buffers".into(), Value::Array(buffers));
    let materials: Vec<Value> = materials.iter().map(material_without_defaults).collect();
    let samplers: Vec<Value> = model.samplers.iter().map(sampler_without_defaults).collect();
    for (key, list) in [
        ("materials", materials),
        ("textures", model.textures.clone()),
        ("samplers", samplers),
        ("images", images),
        ("skins", skins),
        ("animations", animations),
    ] {
        if !list.is_empty() {
            root.insert(key.into(), Value::Array(list));
        }
    }
    if !model.cameras.is_empty() {
        root.insert("cameras".into(), Value::Array(model.cameras.clone()));
    }
    let mut extensions = Map::new();
    if !model.lights.is_empty() {
        extensions.insert(LIGHTS.into(), json!({ "lights": model.lights }));
        used.insert(LIGHTS.into());
    }
    // The variants are listed while a primitive maps one: a viewer offers them by name.
    if model.meshes.iter().flat_map(|m| &m.primitives).any(|p| !p.variant_materials.is_empty()) {
        extensions.insert(VARIANTS.into(), json!({ "variants": model.variants }));
        used.insert(VARIANTS.into());
    }
    if !extensions.is_empty() {
        root.insert("extensions".into(), Value::Object(extensions));
    }
    let mut root = Value::Object(root);
    if !used.is_empty() {
        root["extensionsUsed"] = json!(used);
    }
    if !required.is_empty() {
        root["extensionsRequired"] = json!(required);
    }
    let written = Written { vertices: b.written_vertices, faces: b.written_faces };
    (pack(&serde_json::to_vec(&root).expect("JSON of plain values"), b.bin), written)
}

/// Room kept in the binary chunk for the GLB's head and JSON (reserved, so untouched if unused).
const HEAD_ROOM: usize = 1 << 20;

/// The GLB: its head and JSON chunk put in front of the binary chunk, in the binary chunk's own
/// buffer (moved along inside it where it has room, as `HEAD_ROOM` leaves, not copied anew).
fn pack(json: &[u8], mut bin: Vec<u8>) -> Vec<u8> {
    pad4(&mut bin, 0);
    let json_len = json.len().next_multiple_of(4);
    let total = 12 + 8 + json_len + 8 + bin.len();
    // One vector, the binary copied in after the rest: spliced in front of the binary, the head
    // went in a byte at a time (5 % of optimizing a file of 400 nodes, session 50).
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    out.extend_from_slice(json);
    pad4(&mut out, b' ');
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(&bin);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Attribute, Mesh, SourceFormat};
    use crate::read::{read_model, ReadOptions};

    #[test]
    fn meshes_share_one_view_per_layout_and_read_back() {
        let mut model = Model::new(SourceFormat::Glb);
        for shift in [0.0, 3.0] {
            let positions: Vec<[f32; 3]> = (0..40).map(|i| [i as f32 * 0.1 + shift, (i as f32 * 0.3).sin(), (i % 7) as f32]).collect();
            let indices: Vec<u32> = (0..38).flat_map(|i| [i, i + 1, i + 2]).collect();
            model.push_root_mesh(Mesh {
                name: None,
                primitives: vec![Primitive { positions, attributes: vec![], indices, material: None, variant_materials: Vec::new() }],
                ..Default::default()
            });
        }
        for compress in [true, false] {
            let packed = write_glb(&model, &GlbOptions::quantized(compress));
            let json_length = u32::from_le_bytes(packed[12..16].try_into().unwrap()) as usize;
            let document: Value = serde_json::from_slice(&packed[20..20 + json_length]).unwrap();
            assert_eq!(document["bufferViews"].as_array().unwrap().len(), 2, "positions and indices");
            let back = read_model(&packed, "glb", &ReadOptions::default()).unwrap();
            let instances = back.instances();
            for (mesh, (written, read)) in model.meshes.iter().zip(&back.meshes).enumerate() {
                let (p, q) = (&written.primitives[0], &read.primitives[0]);
                // The index codec may rotate a triangle's corners; the winding stays.
                let rotated = |indices: &[u32]| -> Vec<[u32; 3]> {
                    indices
                        .chunks_exact(3)
                        .map(|t| [t[0], t[1], t[2]])
                        .map(|t| {
                            let k = (0..3).min_by_key(|&k| t[k]).unwrap();
                            [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
                        })
                        .collect()
                };
                assert_eq!(rotated(&p.indices), rotated(&q.indices));
                let world = instances.iter().find(|i| i.mesh == mesh).unwrap().world;
                for (a, b) in p.positions.iter().zip(&q.positions) {
                    let b = crate::math::transform_point(&world, *b);
                    assert!((0..3).all(|k| (a[k] - b[k]).abs() < 1e-3), "{a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn points_and_lines_are_written_beside_the_triangles_and_read_back() {
        use crate::model::{LinesOrPoints, Unfilled};
        let mut model = Model::new(SourceFormat::Glb);
        let triangle = Primitive { positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], indices: vec![0, 1, 2], ..Primitive::default() };
        let cloud: Vec<[f32; 3]> = (0..50).map(|i| [i as f32 * 0.03, (i as f32 * 0.7).sin(), 2.0]).collect();
        let colours: Vec<f32> = (0..50).flat_map(|i| [i as f32 / 49.0, 0.5, 1.0, 1.0]).collect();
        let points = Primitive {
            positions: cloud.clone(),
            attributes: vec![Attribute { semantic: "COLOR_0".into(), components: 4, data: colours.clone() }],
            indices: (0..50).collect(),
            ..Primitive::default()
        };
        let edges =
            Primitive { positions: vec![[0.0, 0.0, -1.0], [1.0, 0.0, -1.0], [1.0, 1.0, -1.0]], indices: vec![0, 1, 1, 2, 2, 0], ..Primitive::default() };
        model.push_root_mesh(Mesh {
            primitives: vec![triangle],
            lines_and_points: vec![LinesOrPoints { mode: Unfilled::Points, primitive: points }, LinesOrPoints { mode: Unfilled::Lines, primitive: edges }],
            ..Default::default()
        });
        for options in [GlbOptions::default(), GlbOptions::quantized(false), GlbOptions::quantized(true)] {
            let back = read_model(&write_glb(&model, &options), "glb", &ReadOptions::default()).unwrap();
            let world = back.instances()[0].world;
            let mesh = &back.meshes[0];
            assert_eq!(mesh.primitives.len(), 1, "{options:?}");
            let modes: Vec<Unfilled> = mesh.lines_and_points.iter().map(|l| l.mode).collect();
            assert_eq!(modes, [Unfilled::Points, Unfilled::Lines], "{options:?}");
            let read = &mesh.lines_and_points[0].primitive;
            for (k, &i) in read.indices.iter().enumerate() {
                let p = crate::math::transform_point(&world, read.positions[i as usize]);
                assert!((0..3).all(|c| (p[c] - cloud[k][c]).abs() < 1e-3), "{options:?}: {p:?} vs {:?}", cloud[k]);
                let colour = &read.attribute("COLOR_0").unwrap().data[i as usize * 4..i as usize * 4 + 4];
                assert!((0..4).all(|c| (colour[c] - colours[k * 4 + c]).abs() <= 0.5 / 255.0 + 1e-6), "{options:?}");
            }
            assert_eq!(mesh.lines_and_points[1].primitive.indices, vec![0, 1, 1, 2, 2, 0], "{options:?}");
        }
    }

    #[test]
    fn plain_colours_a_rounding_past_the_unit_range_are_written_within_it() {
        // What a simplification that placed a vertex can read off the surface: a float just past 1.
        let colours = vec![1.000_000_1, 0.5, -1e-7, 1.0, 0.0, 0.25, 0.75, f32::NAN, 1.0];
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                attributes: vec![Attribute { semantic: "COLOR_0".into(), components: 3, data: colours.clone() }],
                indices: vec![0, 1, 2],
                material: None,
                variant_materials: Vec::new(),
            }],
            ..Default::default()
        });
        let back = read_model(&write_glb(&model, &GlbOptions::default()), "glb", &ReadOptions::default()).unwrap();
        let read = &back.meshes[0].primitives[0].attribute("COLOR_0").unwrap().data;
        let wanted = [1.0, 0.5, 0.0, 1.0, 0.0, 0.25, 0.75, 0.0, 1.0];
        assert!(read.iter().zip(wanted).all(|(r, w)| (r - w).abs() <= 1.0 / 65535.0), "{read:?}");
    }

    #[test]
    fn packed_tangents_keep_direction_and_handedness() {
        let directions: Vec<[f32; 3]> =
            (0..64).map(|i| i as f32 * 0.7).map(|t| [t.cos() * (t * 0.3).sin(), (t * 0.3).cos(), t.sin() * (t * 0.3).sin()]).collect();
        let tangents: Vec<f32> = directions.iter().enumerate().flat_map(|(i, d)| [d[0], d[1], d[2], if i % 3 == 0 { -1.0 } else { 1.0 }]).collect();
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: directions.clone(),
                attributes: vec![Attribute { semantic: "TANGENT".into(), components: 4, data: tangents.clone() }],
                indices: (0..63).flat_map(|i| [0, i, i + 1]).collect(),
                material: None,
                variant_materials: Vec::new(),
            }],
            ..Default::default()
        });
        for compress in [true, false] {
            let packed = write_glb(&model, &GlbOptions::quantized(compress));
            let back = read_model(&packed, "glb", &ReadOptions::default()).unwrap();
            let read = &back.meshes[0].primitives[0].attribute("TANGENT").unwrap().data;
            for (t, original) in read.chunks_exact(4).zip(tangents.chunks_exact(4)) {
                let cosine = t[0] * original[0] + t[1] * original[1] + t[2] * original[2];
                assert!(cosine > 2f32.to_radians().cos(), "{t:?} vs {original:?}");
                assert_eq!(t[3], original[3]);
            }
        }
    }

    #[test]
    fn packed_normals_read_back_within_two_degrees() {
        let directions: Vec<[f32; 3]> =
            (0..64).map(|i| i as f32 * 0.7).map(|t| [t.cos() * (t * 0.3).sin(), (t * 0.3).cos(), t.sin() * (t * 0.3).sin()]).collect();
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: directions.clone(),
                attributes: vec![Attribute { semantic: "NORMAL".into(), components: 3, data: directions.iter().flatten().copied().collect() }],
                indices: (0..63).flat_map(|i| [0, i, i + 1]).collect(),
                material: None,
                variant_materials: Vec::new(),
            }],
            ..Default::default()
        });
        let packed = write_glb(&model, &GlbOptions::quantized(true));
        let back = read_model(&packed, "glb", &ReadOptions::default()).unwrap();
        let normals = &back.meshes[0].primitives[0].attribute("NORMAL").unwrap().data;
        for (n, d) in normals.chunks_exact(3).zip(&directions) {
            let cosine = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
            assert!(cosine > 2f32.to_radians().cos(), "{n:?} vs {d:?}");
        }
    }
}
