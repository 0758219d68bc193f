//! Morph targets in the GLB writer. Each target attribute (model.rs) is encoded as a column next
//! to the base attributes, so welding (weld_quantized.rs) merges two vertices only when they are
//! equal in the base attributes and in every target, and the vertex codec compresses the deltas
//! like any other stream. Quantized the way gltfpack does it:
//! - position deltas on the mesh's own position grid, as the step count between the quantized
//!   posed position (rest + delta) and the quantized rest position, in signed 16-bit integers:
//!   at weight 1 a vertex lands exactly where quantizing its posed position would put it, and
//!   the dequantization transform (write/nodes.rs) scales deltas and rest positions alike;
//! - normal and tangent deltas as signed 16-bit normalized values.
//!
//! Deltas that do not fit (a position moving further than 32767 grid steps, a normal delta past
//! ±1, i.e. a normal turning by more than 90 degrees) keep floats, in grid units for positions.
use super::compact_json::short_f32s;
use super::glb::{Builder, Column, Data};
use super::quantize::Grid;
use crate::model::{target_of, Attribute, Mesh, Primitive};
use crate::round::{round, round_to_i16};
use serde_json::{json, Map, Value};

const SHORT: u32 = 5122;
const FLOAT: u32 = 5126;

/// The column of one target attribute of `p`, quantized when `grid` is given.
pub(super) fn morph_column(p: &Primitive, a: &Attribute, grid: Option<Grid>) -> Column {
    let base = target_of(&a.semantic).map_or("", |(_, base)| base);
    match (base, grid) {
        ("POSITION", Some(g)) => grid_position_deltas(p, &a.data, g),
        (_, Some(_)) if a.data.iter().all(|v| v.abs() <= 1.0) => {
            let bytes = padded_vec3(&a.data, 8, |v, out| out.extend_from_slice(&round_to_i16(v * 32767.0).to_le_bytes()));
            Column::bytes(bytes, 8, None, SHORT, true)
        }
        _ => float_column(&a.data),
    }
}

fn float_column(values: &[f32]) -> Column {
    Column::bytes(padded_vec3(values, 12, |v, out| out.extend_from_slice(&v.to_le_bytes())), 12, None, FLOAT, false)
}

/// Three values per vertex, each vertex padded with zeros to `stride` bytes.
fn padded_vec3(values: &[f32], stride: usize, put: impl Fn(f32, &mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() / 3 * stride);
    for vertex in values.chunks_exact(3) {
        vertex.iter().for_each(|&v| put(v, &mut out));
        out.resize(out.len().next_multiple_of(stride), 0);
    }
    out
}

fn grid_position_deltas(p: &Primitive, deltas: &[f32], g: Grid) -> Column {
    // Posed position minus rest position, in grid steps; the rest position as the writer rounds it.
    let steps: Vec<f32> = p
        .positions
        .iter()
        .zip(deltas.chunks_exact(3))
        .flat_map(|(&rest, d)| {
            let rest_steps = g.quantize(rest);
            [0, 1, 2].map(|k| (rest[k] + d[k] - g.offset[k]) / g.scale - rest_steps[k] as f32)
        })
        .collect();
    if steps.iter().all(|&s| round(s).abs() <= i16::MAX as f32) {
        let bytes = padded_vec3(&steps, 8, |s, out| out.extend_from_slice(&round_to_i16(s).to_le_bytes()));
        return Column::bytes(bytes, 8, None, SHORT, false);
    }
    float_column(&steps)
}

/// Per-component min and max of a written VEC3 position delta column (glTF requires them on
/// every target POSITION accessor).
fn bounds(bytes: &[u8], stride: usize, component_type: u32) -> (Value, Value) {
    let value = |vertex: &[u8], k: usize| -> f64 {
        match component_type {
            SHORT => i16::from_le_bytes([vertex[2 * k], vertex[2 * k + 1]]) as f64,
            _ => f32::from_le_bytes(vertex[4 * k..4 * k + 4].try_into().expect("4 bytes")) as f64,
        }
    };
    let (mut min, mut max) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for vertex in bytes.chunks_exact(stride) {
        for k in 0..3 {
            min[k] = min[k].min(value(vertex, k));
            max[k] = max[k].max(value(vertex, k));
        }
    }
    if bytes.is_empty() {
        (min, max) = ([0.0; 3], [0.0; 3]);
    }
    match component_type {
        SHORT => (json!(min.map(|v| v as i64)), json!(max.map(|v| v as i64))),
        _ => (short_f32s(&min.map(|v| v as f32)), short_f32s(&max.map(|v| v as f32))),
    }
}

/// The primitive's `targets` array: `count` targets, each mapping its semantics to accessors of
/// the `vertices` written vertices. A target the primitive has no delta for gets a zero POSITION
/// delta (glTF requires every target to hold at least one attribute).
pub(super) fn target_accessors(b: &mut Builder, columns: Vec<(usize, &str, Column)>, count: usize, vertices: usize, quantized: bool) -> Vec<Value> {
    let mut targets = vec![Map::new(); count];
    for (target, base, column) in columns {
        if let (Some(t), Some(accessor)) = (targets.get_mut(target), delta_accessor(b, base, column, vertices)) {
            t.insert(base.to_string(), json!(accessor));
        }
    }
    for target in targets.iter_mut().filter(|t| t.is_empty()) {
        let zeros = vec![0.0; vertices * 3];
        let column = match quantized {
            true => Column::bytes(padded_vec3(&zeros, 8, |_, out| out.extend_from_slice(&[0, 0])), 8, None, SHORT, false),
            false => float_column(&zeros),
        };
        if let Some(accessor) = delta_accessor(b, "POSITION", column, vertices) {
            target.insert("POSITION".into(), json!(accessor));
        }
    }
    targets.into_iter().map(Value::Object).collect()
}

fn delta_accessor(b: &mut Builder, base: &str, column: Column, vertices: usize) -> Option<usize> {
    let Column::Bytes { bytes, stride, filter, component_type, normalized } = column else { return None };
    let slot = b.view(&bytes, Data::Vertices { stride, filter });
    let minmax = (base == "POSITION").then(|| bounds(&bytes, stride, component_type));
    Some(b.accessor(slot, vertices, component_type, "VEC3", normalized, minmax))
}

/// The mesh JSON with its default morph weights and target names, when it has targets.
pub(super) fn with_morph_fields(mut mesh_json: Value, mesh: &Mesh) -> Value {
    if mesh.target_count() > 0 {
        mesh_json["weights"] = short_f32s(&mesh.weights);
        if !mesh.target_names.is_empty() {
            mesh_json["extras"] = json!({ "targetNames": mesh.target_names });
        }
    }
    mesh_json
}

#[cfg(test)]
mod tests {
    use crate::model::{target_semantic, Animation, AnimationSampler, Attribute, Channel, Mesh, Model, Primitive, SourceFormat};
    use crate::read::{read_model, ReadOptions};
    use crate::write::{write_glb, write_glb_counted, GlbOptions};

    /// An n x n grid of quads in the xy plane whose first target lifts a bump in the middle and
    /// whose second shears the top row sideways.
    fn morphed_grid(n: usize) -> Model {
        let mut p = Primitive::default();
        let (mut bump, mut shear) = (Vec::new(), Vec::new());
        for y in 0..=n {
            for x in 0..=n {
                let (fx, fy) = (x as f32 / n as f32, y as f32 / n as f32);
                p.positions.push([fx, fy, 0.0]);
                let r2 = (fx - 0.5).powi(2) + (fy - 0.5).powi(2);
                bump.extend([0.0, 0.0, (0.3 - r2).max(0.0)]);
                shear.extend([if y == n { 0.25 } else { 0.0 }, 0.0, 0.0]);
            }
        }
        let row = n as u32 + 1;
        for y in 0..n as u32 {
            for x in 0..n as u32 {
                let a = y * row + x;
                p.indices.extend([a, a + 1, a + row + 1, a, a + row + 1, a + row]);
            }
        }
        p.attributes.push(Attribute { semantic: target_semantic(0, "POSITION"), components: 3, data: bump });
        p.attributes.push(Attribute { semantic: target_semantic(1, "POSITION"), components: 3, data: shear });
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh {
            name: Some("face".into()),
            primitives: vec![p],
            weights: vec![0.0, 0.5],
            target_names: vec!["bump".into(), "shear".into()],
            lines_and_points: Vec::new(),
        });
        model.nodes[0].weights = vec![0.25, 0.0];
        model.animations.push(Animation {
            name: Some("talk".into()),
            samplers: vec![AnimationSampler { input: vec![0.0, 1.0], output: vec![0.0, 0.0, 1.0, 0.5], components: 2, interpolation: "LINEAR".into() }],
            channels: vec![Channel { sampler: 0, node: 0, path: "weights".into() }],
        });
        model
    }

    /// World positions of every vertex of the model's first instance posed at `weights`.
    fn posed(model: &Model, weights: &[f32]) -> Vec<[f32; 3]> {
        let instance = model.instances()[0];
        let p = &model.meshes[instance.mesh].primitives[0];
        (0..p.positions.len())
            .map(|v| {
                let mut local = p.positions[v];
                for (t, w) in weights.iter().enumerate() {
                    if let Some(d) = p.attribute(&target_semantic(t, "POSITION")) {
                        (0..3).for_each(|k| local[k] += w * d.data[v * 3 + k]);
                    }
                }
                crate::math::transform_point(&instance.world, local)
            })
            .collect()
    }

    #[test]
    fn targets_names_weights_and_weight_tracks_survive_every_encoding() {
        let model = morphed_grid(8);
        for (quantize, compress) in [(false, false), (true, false), (true, true)] {
            let back = read_model(&write_glb(&model, &GlbOptions { quantize, compress, ..GlbOptions::default() }), "glb", &ReadOptions::default()).unwrap();
            assert_eq!(back.meshes[0].target_names, ["bump", "shear"]);
            assert_eq!(back.meshes[0].weights, [0.0, 0.5]);
            let holder = back.instances()[0].node;
            assert_eq!(back.nodes[holder].weights, [0.25, 0.0]);
            let channel = &back.animations[0].channels[0];
            assert_eq!((channel.node, channel.path.as_str()), (holder, "weights"));
            assert_eq!(back.animations[0].samplers[0].output, [0.0, 0.0, 1.0, 0.5]);
            // The index order may change; vertex order too, so compare as sorted point sets.
            for weights in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.7]] {
                let mut expected = posed(&model, &weights);
                let mut actual = posed(&back, &weights);
                assert_eq!(expected.len(), actual.len());
                let key = |a: &[f32; 3], b: &[f32; 3]| a.partial_cmp(b).unwrap();
                expected.sort_by(|a, b| key(&a.map(|c| (c * 64.0).round()), &b.map(|c| (c * 64.0).round())));
                actual.sort_by(|a, b| key(&a.map(|c| (c * 64.0).round()), &b.map(|c| (c * 64.0).round())));
                for (e, a) in expected.iter().zip(&actual) {
                    assert!((0..3).all(|k| (e[k] - a[k]).abs() < 2e-4), "{quantize} {compress} {weights:?}: {e:?} vs {a:?}");
                }
            }
        }
    }

    #[test]
    fn deltas_past_the_integer_range_keep_floats_and_still_pose_right() {
        // The bump's delta is 10^4 mesh sizes (past 32767 grid steps); a normal delta flips a normal (past ±1).
        let mut model = morphed_grid(4);
        let p = &mut model.meshes[0].primitives[0];
        let bump = p.attributes.iter_mut().find(|a| a.semantic == target_semantic(0, "POSITION")).unwrap();
        bump.data.iter_mut().for_each(|d| *d *= 1e5);
        let flip: Vec<f32> = (0..p.positions.len()).flat_map(|_| [0.0, 0.0, -2.0]).collect();
        p.attributes.push(Attribute { semantic: target_semantic(1, "NORMAL"), components: 3, data: flip.clone() });
        p.attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: (0..p.positions.len()).flat_map(|_| [0.0, 0.0, 1.0]).collect() });
        let bytes = write_glb(&model, &GlbOptions::quantized(true));
        let back = read_model(&bytes, "glb", &ReadOptions::default()).unwrap();
        let q = &back.meshes[0].primitives[0];
        assert_eq!(q.attribute(&target_semantic(1, "NORMAL")).unwrap().data[..3], flip[..3]);
        let (mut expected, mut actual) = (posed(&model, &[1.0, 0.0]), posed(&back, &[1.0, 0.0]));
        // Sorted by x and y on a coarse grid: the grid's columns, whatever the float noise.
        let order = |a: &[f32; 3], b: &[f32; 3]| [a[0], a[1]].map(|c| (c * 64.0).round()).partial_cmp(&[b[0], b[1]].map(|c| (c * 64.0).round())).unwrap();
        expected.sort_by(order);
        actual.sort_by(order);
        for (e, a) in expected.iter().zip(&actual) {
            assert!((0..3).all(|k| (e[k] - a[k]).abs() <= 1e-3 * e[k].abs().max(1.0)), "{e:?} vs {a:?}");
        }
    }

    #[test]
    fn copies_that_differ_in_a_target_are_not_welded() {
        // Vertex 3 repeats vertex 0 in every base attribute; in one run its bump delta differs.
        for (differs, vertices) in [(false, 3), (true, 4)] {
            let mut p = Primitive { positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], ..Primitive::default() };
            p.indices = vec![0, 1, 2, 3, 2, 1];
            p.positions[1] = [1.0, 0.0, 0.0];
            let lift = if differs { 0.5 } else { 0.0 };
            p.attributes.push(Attribute {
                semantic: target_semantic(0, "POSITION"),
                components: 3,
                data: vec![0.0; 9].into_iter().chain([0.0, 0.0, lift]).collect(),
            });
            let mut model = Model::new(SourceFormat::Glb);
            model.push_root_mesh(Mesh { primitives: vec![p], weights: vec![0.0], ..Mesh::default() });
            let (_, written) = write_glb_counted(&model, &GlbOptions::quantized(true));
            assert_eq!(written.vertices, vertices);
        }
    }
}
