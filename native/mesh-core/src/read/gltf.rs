//! glTF 2.0 (JSON with embedded or neighbouring buffers, or GLB) into the Model.
//! Geometry is decoded (quantized, meshopt- and Draco-compressed data included: read/draco.rs); materials, textures and
//! samplers are kept as JSON; skins and animations are decoded (read/skin.rs); morph targets'
//! POSITION, NORMAL and TANGENT deltas are decoded into target attributes (model.rs), with the
//! mesh's default weights, its target names and nodes' weights.
use super::accessor::{read_floats, read_indices, type_components, Views};
use super::{meshopt_ext, ReadLimits, ReadOptions};
use crate::error::{MeshError, Result};
use crate::extension_names::extension_names;
use crate::json_member::member;
use crate::math::compose;
use crate::model::{
    target_semantic, Attribute, Image, LinesOrPoints, Mesh, Model, Node, Primitive, SourceFormat, Trs, Unfilled, VariantMaterial, IDENTITY, VARIANTS,
};
use base64::Engine;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

const MESHOPT: &str = "EXT_meshopt_compression";

fn array<'v>(root: &'v Value, key: &str) -> &'v [Value] {
    root.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn index(value: &Value, key: &str) -> Option<usize> {
    value.get(key).and_then(Value::as_u64).map(|v| v as usize)
}

/// Extensions the reader decodes or carries outside the material, texture and sampler objects
/// (which are kept whole, with whatever extensions they hold).
const CARRIED: [&str; 6] = ["KHR_mesh_quantization", MESHOPT, "KHR_draco_mesh_compression", "KHR_lights_punctual", "EXT_mesh_gpu_instancing", VARIANTS];

/// The extensions the file holds that outputs lose: present somewhere in the document, neither
/// decoded (`CARRIED`) nor inside a kept material, texture or sampler. KHR_materials_variants, say,
/// lives on primitives and the root. Accessors, views, buffers and images hold only extensions the
/// reader decodes (or refuses), and are not walked.
fn uncarried_extensions(root: &Value, kept: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    if let Value::Object(map) = root {
        if let Some(Value::Object(extensions)) = map.get("extensions") {
            found.extend(extensions.keys().cloned());
        }
        let skipped = ["accessors", "bufferViews", "buffers", "images", "materials", "textures", "samplers", "extensions"];
        map.iter().filter(|(key, _)| !skipped.contains(&key.as_str())).for_each(|(_, v)| extension_names(v, &mut found));
    }
    found.retain(|e| !kept.contains(e));
    found.sort();
    found.dedup();
    found
}

/// The extensions the reader decodes and the writer carries: `CARRIED`, and those inside the
/// materials, textures and samplers, which outputs keep as they are.
fn carried_extensions(model: &Model) -> Vec<String> {
    let mut kept: Vec<String> = CARRIED.iter().map(|e| e.to_string()).collect();
    for list in [&model.materials, &model.textures, &model.samplers] {
        list.iter().for_each(|v| extension_names(v, &mut kept));
    }
    kept
}

/// A file that requires an extension nothing here reads or carries cannot be read as its author
/// meant (glTF 2.0: a loader must refuse it), so it is refused rather than written without it.
fn refuse_unknown_required(root: &Value, kept: &[String]) -> Result<()> {
    let missing: Vec<&str> = array(root, "extensionsRequired").iter().filter_map(Value::as_str).filter(|e| !kept.iter().any(|k| k == e)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(MeshError::unsupported(
        format!("the file requires the glTF extension(s) {}, which this service does not read", missing.join(", ")),
        "Export the model without those extensions (or with them optional), for example from Blender or with gltf-transform, and upload it again.",
    ))
}

fn uses_extension(root: &Value, name: &str) -> bool {
    ["extensionsUsed", "extensionsRequired"].iter().any(|k| array(root, k).iter().any(|e| e.as_str() == Some(name)))
}

pub fn read(json: &[u8], bin: Option<&[u8]>, format: SourceFormat, options: &ReadOptions) -> Result<Model> {
    let mut root: Value = match super::gltf_json::parse_without_bounds(json) {
        Some(root) => root,
        None => serde_json::from_slice(json).map_err(|e| MeshError::invalid(format!("glTF JSON does not parse: {e}")))?,
    };
    if !root.is_object() {
        return Err(MeshError::invalid("glTF JSON is not an object"));
    }
    let version = member(&root, &["asset", "version"]).and_then(Value::as_str).unwrap_or("");
    if !version.starts_with('2') {
        return Err(MeshError::unsupported(
            format!("glTF version {version:?} is not supported"),
            "Convert the model to glTF 2.0 (for example with Blender) and upload it again.",
        ));
    }
    check_declared(&root, &options.limits)?;
    let buffers = load_buffers(&root, bin, options)?;
    let mut views = load_views(&root, &buffers, &options.limits)?;
    if uses_extension(&root, super::draco::EXTENSION) {
        super::draco::inflate(&mut root, &mut views)?;
    }
    let mut model = Model::new(format);
    read_meshes(&root, &views, &mut model)?;
    read_nodes(&root, &views, &mut model)?;
    model.skins = super::skin::read_skins(&root, &views, model.nodes.len())?;
    if model.nodes.iter().any(|n| n.skin.is_some_and(|s| s >= model.skins.len())) {
        return Err(MeshError::invalid("a node refers to a skin that does not exist"));
    }
    let node_targets: Vec<usize> = model.nodes.iter().map(|n| n.mesh.map_or(0, |m| model.meshes[m].target_count())).collect();
    model.animations = super::skin::read_animations(&root, &views, &model.nodes, &node_targets, &mut model.notes)?;
    model.materials = array(&root, "materials").to_vec();
    model.textures = array(&root, "textures").to_vec();
    model.samplers = array(&root, "samplers").to_vec();
    let file_bytes = json.len() + bin.map_or(0, <[u8]>::len);
    model.images = read_images(&root, &views, file_bytes, options, &mut model.notes)?;
    let kept = carried_extensions(&model);
    refuse_unknown_required(&root, &kept)?;
    let uncarried = uncarried_extensions(&root, &kept);
    if !uncarried.is_empty() {
        model.notes.push(format!("Not carried into outputs: the extension(s) {}.", uncarried.join(", ")));
    }
    model.gltf_json = Some(root);
    Ok(model)
}

fn decode_data_uri(uri: &str) -> Result<Vec<u8>> {
    let (_, payload) = uri.split_once(";base64,").ok_or_else(|| MeshError::invalid("data: URI is not base64"))?;
    base64::engine::general_purpose::STANDARD.decode(payload.trim_end()).map_err(|_| MeshError::invalid("data: URI holds invalid base64"))
}

/// Reads a file named by a relative URI from the resource folder, refusing anything that leaves it.
fn read_neighbour(uri: &str, options: &ReadOptions) -> Option<Vec<u8>> {
    let dir = options.resource_dir.as_ref()?;
    let name = uri.replace("%20", " ");
    let safe = !name.is_empty() && !name.contains("..") && !name.starts_with('/') && !name.contains('\\') && !name.contains(':');
    safe.then(|| std::fs::read(dir.join(&name)).ok()).flatten()
}

fn load_buffers<'a>(root: &Value, bin: Option<&'a [u8]>, options: &ReadOptions) -> Result<Vec<Option<Cow<'a, [u8]>>>> {
    let mut out = Vec::new();
    for (i, buffer) in array(root, "buffers").iter().enumerate() {
        let declared = index(buffer, "byteLength").unwrap_or(0);
        let data: Option<Cow<[u8]>> = match buffer.get("uri").and_then(Value::as_str) {
            Some(uri) if uri.starts_with("data:") => Some(Cow::Owned(decode_data_uri(uri)?)),
            Some(uri) => Some(Cow::Owned(read_neighbour(uri, options).ok_or_else(|| {
                MeshError::unsupported(
                    format!("the model needs the separate file {uri:?}, which was not uploaded"),
                    "Upload a .glb, or a .gltf whose buffers are embedded as data: URIs.",
                )
            })?)),
            None if member(buffer, &["extensions", MESHOPT, "fallback"]).and_then(Value::as_bool) == Some(true) => None,
            None if i == 0 => Some(Cow::Borrowed(bin.ok_or_else(|| MeshError::invalid("buffer 0 has no data (no GLB BIN chunk)"))?)),
            None => return Err(MeshError::invalid(format!("buffer {i} has no data"))),
        };
        if let Some(d) = &data {
            if d.len() < declared {
                return Err(MeshError::invalid(format!("buffer {i} is shorter than its byteLength")));
            }
        }
        out.push(data);
    }
    Ok(out)
}

/// Faces and decoded values the meshes declare, checked against the limits from the accessors'
/// counts alone: nothing is read or allocated, however much a small file claims.
fn check_declared(root: &Value, limits: &ReadLimits) -> Result<()> {
    let accessors = array(root, "accessors");
    let accessor = |i: &Value| i.as_u64().and_then(|i| accessors.get(i as usize));
    let count = |i: &Value| accessor(i).and_then(|a| index(a, "count")).unwrap_or(0);
    let components = |i: &Value| accessor(i).and_then(|a| a.get("type")).and_then(Value::as_str).and_then(type_components).unwrap_or(0);
    let meshes = array(root, "meshes");
    let mut declared: Vec<(usize, usize)> = Vec::with_capacity(meshes.len());
    for mesh in meshes {
        let (mut faces, mut values) = (0usize, 0usize);
        for primitive in array(mesh, "primitives") {
            let mode = primitive.get("mode").and_then(Value::as_u64).unwrap_or(4);
            let Some(attributes) = primitive.get("attributes").and_then(Value::as_object) else { continue };
            let Some(position) = attributes.get("POSITION") else { continue };
            if !(4..=6).contains(&mode) {
                continue;
            }
            let vertices = count(position);
            let corners = primitive.get("indices").map_or(vertices, count);
            let triangles = if mode == 4 { corners / 3 } else { corners.saturating_sub(2) };
            let mut per_vertex: usize = attributes.iter().filter(|(s, _)| *s == "POSITION" || keeps_attribute(s)).map(|(_, a)| components(a)).sum();
            for target in targets(primitive) {
                per_vertex = per_vertex.saturating_add(target.iter().filter(|(s, _)| keeps_target_attribute(s)).map(|(_, a)| components(a)).sum());
            }
            faces = faces.saturating_add(triangles);
            values = values.saturating_add(vertices.saturating_mul(per_vertex)).saturating_add(corners).saturating_add(triangles.saturating_mul(3));
        }
        declared.push((faces, values));
    }
    let nodes = array(root, "nodes");
    let mut uses = vec![usize::from(nodes.is_empty()); meshes.len()];
    for m in nodes.iter().filter_map(|n| index(n, "mesh")) {
        if let Some(u) = uses.get_mut(m) {
            *u += 1;
        }
    }
    let (mut faces, mut values) = (0usize, 0usize);
    for (&(f, v), &u) in declared.iter().zip(&uses) {
        // Stored meshes are decoded once whether placed or not; tools that bake copy each placement.
        let (face_weight, value_weight) = if limits.placed { (u, u.max(1)) } else { (1, 1) };
        faces = faces.saturating_add(f.saturating_mul(face_weight));
        values = values.saturating_add(v.saturating_mul(value_weight));
    }
    limits.check_faces(faces)?;
    limits.check_values(values)
}

fn load_views<'a>(root: &Value, buffers: &'a [Option<Cow<'a, [u8]>>], limits: &ReadLimits) -> Result<Views<'a>> {
    let mut data = Vec::new();
    let mut strides = Vec::new();
    // Meshopt views decode to what they declare (count * stride): hold them to the same budget.
    let mut budget = limits.value_budget().saturating_mul(4).min(1 << 30);
    for (i, view) in array(root, "bufferViews").iter().enumerate() {
        strides.push(index(view, "byteStride"));
        if let Some(ext) = member(view, &["extensions", MESHOPT]) {
            let compressed = meshopt_ext::describe(ext, buffers)?;
            data.push(Cow::Owned(meshopt_ext::decode(&compressed, &mut budget)?));
            continue;
        }
        let buffer = index(view, "buffer").ok_or_else(|| MeshError::invalid(format!("buffer view {i} has no buffer")))?;
        let bytes = buffers
            .get(buffer)
            .ok_or_else(|| MeshError::invalid(format!("buffer view {i} refers to a missing buffer")))?
            .as_deref()
            .ok_or_else(|| MeshError::invalid(format!("buffer view {i} has no data")))?;
        let offset = index(view, "byteOffset").unwrap_or(0);
        let length = index(view, "byteLength").ok_or_else(|| MeshError::invalid(format!("buffer view {i} has no byteLength")))?;
        let slice = offset
            .checked_add(length)
            .and_then(|end| bytes.get(offset..end))
            .ok_or_else(|| MeshError::invalid(format!("buffer view {i} runs past the end of its buffer")))?;
        data.push(Cow::Borrowed(slice));
    }
    Ok(Views { data, strides, budget: std::sync::atomic::AtomicUsize::new(limits.value_budget()) })
}

/// Points (mode 0) as they are, and lines (1), line loops (2) and line strips (3) as pairs.
fn unfilled(mode: u64, indices: Vec<u32>) -> (Unfilled, Vec<u32>) {
    match mode {
        0 => (Unfilled::Points, indices),
        2 if indices.len() >= 2 => {
            let closing = [indices[indices.len() - 1], indices[0]];
            (Unfilled::Lines, indices.windows(2).flatten().copied().chain(closing).collect())
        }
        2 | 3 => (Unfilled::Lines, indices.windows(2).flatten().copied().collect()),
        _ => {
            let mut pairs = indices;
            pairs.truncate(pairs.len() / 2 * 2);
            (Unfilled::Lines, pairs)
        }
    }
}

fn triangulate(mode: u64, indices: Vec<u32>) -> Vec<u32> {
    match mode {
        5 => (2..indices.len())
            .flat_map(|i| if i % 2 == 0 { [indices[i - 2], indices[i - 1], indices[i]] } else { [indices[i - 1], indices[i - 2], indices[i]] })
            .collect(),
        6 => (2..indices.len()).flat_map(|i| [indices[0], indices[i - 1], indices[i]]).collect(),
        _ => {
            let whole = indices.len() / 3 * 3;
            let mut list = indices;
            list.truncate(whole);
            list
        }
    }
}

/// Morph target attributes that are carried: the ones glTF defines for every viewer. Targets of
/// UVs or colours (allowed, rarely used, and not morphed by most engines) are left out.
fn keeps_target_attribute(semantic: &str) -> bool {
    matches!(semantic, "POSITION" | "NORMAL" | "TANGENT")
}

/// The primitive's morph targets, each a map from semantic to accessor.
fn targets(primitive: &Value) -> impl Iterator<Item = &serde_json::Map<String, Value>> {
    array(primitive, "targets").iter().filter_map(Value::as_object)
}

/// The accessor types glTF allows for a vertex attribute the tools keep (as named, and as
/// component counts): a NORMAL of two floats would otherwise be written a third short per vertex.
fn allowed_types(semantic: &str) -> Option<(&'static str, &'static [usize])> {
    match semantic {
        "NORMAL" => Some(("VEC3", &[3])),
        "TANGENT" => Some(("VEC4", &[4])),
        s if s.starts_with("TEXCOORD_") => Some(("VEC2", &[2])),
        s if s.starts_with("COLOR_") => Some(("VEC3 or VEC4", &[3, 4])),
        s if s.starts_with("JOINTS_") || s.starts_with("WEIGHTS_") => Some(("VEC4", &[4])),
        _ => None,
    }
}

fn keeps_attribute(semantic: &str) -> bool {
    allowed_types(semantic).is_some()
}

/// Decoded float accessors shared by several primitives: each is decoded once, and handed over
/// without a copy at its last use.
struct SharedAccessors<'r> {
    accessors: &'r [Value],
    uses_left: HashMap<usize, usize>,
    decoded: HashMap<usize, Rc<(usize, Vec<f32>)>>,
}

impl<'r> SharedAccessors<'r> {
    fn new(root: &'r Value) -> Self {
        let mut uses_left: HashMap<usize, usize> = HashMap::new();
        // Exactly the attributes read_meshes reads: kept semantics of triangle primitives with positions.
        for primitive in array(root, "meshes").iter().flat_map(|m| array(m, "primitives")) {
            let mode = primitive.get("mode").and_then(Value::as_u64).unwrap_or(4);
            let Some(attributes) = primitive.get("attributes").and_then(Value::as_object) else { continue };
            if !(4..=6).contains(&mode) || attributes.get("POSITION").and_then(Value::as_u64).is_none() {
                continue;
            }
            let kept_targets = targets(primitive).flat_map(|t| t.iter().filter(|(s, _)| keeps_target_attribute(s)));
            for (_, a) in attributes.iter().filter(|(s, _)| *s == "POSITION" || keeps_attribute(s)).chain(kept_targets) {
                if let Some(a) = a.as_u64() {
                    *uses_left.entry(a as usize).or_default() += 1;
                }
            }
        }
        SharedAccessors { accessors: array(root, "accessors"), uses_left, decoded: HashMap::new() }
    }

    /// The accessor's component count and values; a copy (charged to the budget) while other uses remain.
    fn take(&mut self, index: usize, views: &Views) -> Result<(usize, Vec<f32>)> {
        let left = self.uses_left.get(&index).copied().unwrap_or(1);
        let decoded = match self.decoded.remove(&index) {
            Some(d) => d,
            None => Rc::new(read_floats(self.accessors, index, views)?),
        };
        if left <= 1 {
            self.uses_left.remove(&index);
            return Ok(Rc::try_unwrap(decoded).unwrap_or_else(|shared| (*shared).clone()));
        }
        self.uses_left.insert(index, left - 1);
        views.charge(decoded.1.len())?;
        let copy = (*decoded).clone();
        self.decoded.insert(index, decoded);
        Ok(copy)
    }
}

fn read_meshes(root: &Value, views: &Views, model: &mut Model) -> Result<()> {
    let accessors = array(root, "accessors");
    let mut shared = SharedAccessors::new(root);
    let mut dropped: Vec<String> = Vec::new();
    for mesh in array(root, "meshes") {
        let mut out = Mesh::new(mesh.get("name").and_then(Value::as_str).map(String::from), Vec::new());
        let mut target_count: Option<usize> = None;
        let mut lines_and_points = Vec::new();
        for primitive in array(mesh, "primitives") {
            let mode = primitive.get("mode").and_then(Value::as_u64).unwrap_or(4);
            if mode > 6 {
                dropped.push(format!("primitives of drawing mode {mode}"));
                continue;
            }
            let attributes = primitive.get("attributes").and_then(Value::as_object);
            let Some(position) = attributes.and_then(|a| a.get("POSITION")).and_then(Value::as_u64) else {
                dropped.push("primitives without positions".into());
                continue;
            };
            let (components, flat) = shared.take(position as usize, views)?;
            if components != 3 {
                return Err(MeshError::invalid("POSITION accessor is not VEC3"));
            }
            let positions: Vec<[f32; 3]> = flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            let mut attrs = Vec::new();
            for (semantic, accessor) in attributes.into_iter().flatten() {
                if semantic == "POSITION" {
                    continue;
                }
                if !keeps_attribute(semantic) {
                    dropped.push(format!("{semantic} attributes"));
                    continue;
                }
                let Some(accessor) = accessor.as_u64() else { continue };
                let (components, data) = shared.take(accessor as usize, views)?;
                if let Some((types, _)) = allowed_types(semantic).filter(|(_, counts)| !counts.contains(&components)) {
                    // Skinning cannot go on without its joints and weights; any other attribute of
                    // a type glTF does not allow is left out, and the rest of the model kept.
                    if semantic.starts_with("JOINTS_") || semantic.starts_with("WEIGHTS_") {
                        return Err(MeshError::invalid(format!("{semantic} is not {types}")));
                    }
                    dropped.push(format!("{semantic} attributes that are not {types}"));
                    continue;
                }
                if data.len() != positions.len() * components {
                    return Err(MeshError::invalid(format!("{semantic} has a different vertex count than POSITION")));
                }
                attrs.push(Attribute { semantic: semantic.clone(), components, data });
            }
            let indices = match index(primitive, "indices") {
                Some(i) => read_indices(accessors, i, views)?,
                None => (0..positions.len() as u32).collect(),
            };
            let count = array(primitive, "targets").len();
            if mode < 4 {
                // Points and lines are carried as they are, beside the mesh's triangles.
                let (kind, indices) = unfilled(mode, indices);
                let primitive = Primitive {
                    positions,
                    attributes: attrs,
                    indices,
                    material: index(primitive, "material"),
                    variant_materials: variant_materials(primitive),
                };
                lines_and_points.push(LinesOrPoints { mode: kind, primitive });
                continue;
            }
            if *target_count.get_or_insert(count) != count {
                return Err(MeshError::invalid(format!("the primitives of mesh {} have different numbers of morph targets", model.meshes.len())));
            }
            read_targets(primitive, &mut shared, views, positions.len(), &mut attrs, &mut dropped)?;
            attrs.sort_by(|a, b| a.semantic.cmp(&b.semantic));
            out.primitives.push(Primitive {
                positions,
                attributes: attrs,
                indices: triangulate(mode, indices),
                material: index(primitive, "material"),
                variant_materials: variant_materials(primitive),
            });
        }
        let count = target_count.unwrap_or(0);
        // glTF gives every primitive of a mesh the same targets; points and lines have none here,
        // so beside morphed triangles they cannot stay.
        if count > 0 && !lines_and_points.is_empty() {
            dropped.push("point and line primitives of meshes with morph targets".into());
            lines_and_points.clear();
        }
        out.lines_and_points = lines_and_points;
        out.weights = floats(mesh, "weights").filter(|w| w.len() == count).unwrap_or_else(|| vec![0.0; count]);
        let names = member(mesh, &["extras", "targetNames"]).and_then(Value::as_array);
        let names: Option<Vec<String>> = names.and_then(|n| n.iter().map(|v| v.as_str().map(String::from)).collect());
        out.target_names = names.filter(|n| n.len() == count).unwrap_or_default();
        model.meshes.push(out);
    }
    dropped.sort();
    dropped.dedup();
    if !dropped.is_empty() {
        model.notes.push(format!("Not carried into outputs: {}.", dropped.join(", ")));
    }
    Ok(())
}

/// A primitive's KHR_materials_variants mappings; one that is not an object with a material index
/// and a list of variant indices is left out (read/sanitize.rs drops those naming nothing).
fn variant_materials(primitive: &Value) -> Vec<VariantMaterial> {
    let mappings = member(primitive, &["extensions", VARIANTS, "mappings"]).and_then(Value::as_array);
    let mapping = |m: &Value| {
        let material = index(m, "material")?;
        let variants: Option<Vec<usize>> = m.get("variants")?.as_array()?.iter().map(|v| v.as_u64().map(|v| v as usize)).collect();
        Some(VariantMaterial { material, variants: variants? })
    };
    mappings.into_iter().flatten().filter_map(mapping).collect()
}

/// A list of finite numbers under `key`, if it is one.
fn floats(value: &Value, key: &str) -> Option<Vec<f32>> {
    value.get(key)?.as_array()?.iter().map(|v| v.as_f64().map(|f| f as f32).filter(|f| f.is_finite())).collect()
}

/// Appends the kept attributes of each morph target as target attributes (model.rs).
fn read_targets(
    primitive: &Value,
    shared: &mut SharedAccessors,
    views: &Views,
    vertices: usize,
    attrs: &mut Vec<Attribute>,
    dropped: &mut Vec<String>,
) -> Result<()> {
    for (t, target) in targets(primitive).enumerate() {
        for (semantic, accessor) in target {
            if !keeps_target_attribute(semantic) {
                dropped.push(format!("morph target {semantic} deltas"));
                continue;
            }
            let Some(accessor) = accessor.as_u64() else { continue };
            let (components, data) = shared.take(accessor as usize, views)?;
            if components != 3 || data.len() != vertices * 3 {
                return Err(MeshError::invalid(format!("morph target {t}'s {semantic} is not one VEC3 per vertex")));
            }
            attrs.push(Attribute { semantic: target_semantic(t, semantic), components, data });
        }
    }
    Ok(())
}

/// The node's local matrix, and its TRS when it was given that way (or not at all).
fn node_transform(node: &Value) -> ([f32; 16], Option<Trs>) {
    let floats = |key: &str, n: usize| -> Option<Vec<f32>> {
        let values: Vec<f32> = node.get(key)?.as_array()?.iter().filter_map(Value::as_f64).map(|v| v as f32).collect();
        (values.len() == n).then_some(values)
    };
    if let Some(m) = floats("matrix", 16) {
        let mut out = IDENTITY;
        out.copy_from_slice(&m);
        return (out, None);
    }
    let t = floats("translation", 3).map_or([0.0; 3], |v| [v[0], v[1], v[2]]);
    let r = floats("rotation", 4).map_or([0.0, 0.0, 0.0, 1.0], |v| [v[0], v[1], v[2], v[3]]);
    let s = floats("scale", 3).map_or([1.0; 3], |v| [v[0], v[1], v[2]]);
    (compose(t, r, s), Some(Trs { translation: t, rotation: r, scale: s }))
}

/// The light objects of KHR_lights_punctual, which the document lists in its root extension.
fn punctual_lights(root: &Value) -> &[Value] {
    member(root, &["extensions", "KHR_lights_punctual", "lights"]).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// The instance transforms of a node's EXT_mesh_gpu_instancing (translation, rotation and scale
/// accessors of one count, each optional), as matrices applied before the node's own transform;
/// empty without the extension. Other instance attributes (an application's own, such as `_ID`)
/// are not carried, and `dropped` says so.
fn read_instances(node: &Value, accessors: &[Value], views: &Views, dropped: &mut bool) -> Result<Vec<[f32; 16]>> {
    let Some(attributes) = member(node, &["extensions", "EXT_mesh_gpu_instancing", "attributes"]).and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let column = |name: &str, width: usize| -> Result<Option<Vec<f32>>> {
        let Some(index) = attributes.get(name) else { return Ok(None) };
        let index = index.as_u64().ok_or_else(|| MeshError::invalid(format!("instance {name} is not an accessor index")))? as usize;
        let (components, values) = read_floats(accessors, index, views)?;
        if components != width {
            return Err(MeshError::invalid(format!("instance {name} has {components} components, not {width}")));
        }
        Ok(Some(values))
    };
    let (t, r, s) = (column("TRANSLATION", 3)?, column("ROTATION", 4)?, column("SCALE", 3)?);
    *dropped |= attributes.keys().any(|k| !matches!(k.as_str(), "TRANSLATION" | "ROTATION" | "SCALE"));
    let counts: Vec<usize> = [(&t, 3), (&r, 4), (&s, 3)].iter().filter_map(|(c, w)| c.as_ref().map(|c| c.len() / w)).collect();
    let Some(&count) = counts.first() else { return Ok(Vec::new()) };
    if counts.iter().any(|&c| c != count) {
        return Err(MeshError::invalid("the instance attributes of a node have different counts"));
    }
    // Sixteen floats an instance, against the three to ten read.
    views.charge(count.saturating_mul(16))?;
    Ok((0..count)
        .map(|i| {
            let translation = t.as_ref().map_or([0.0; 3], |t| [t[i * 3], t[i * 3 + 1], t[i * 3 + 2]]);
            let rotation = r.as_ref().map_or([0.0, 0.0, 0.0, 1.0], |r| {
                let q = [r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3]];
                let length = q.iter().map(|v| v * v).sum::<f32>().sqrt();
                if length > 0.0 && length.is_finite() {
                    q.map(|v| v / length)
                } else {
                    [0.0, 0.0, 0.0, 1.0]
                }
            });
            let scale = s.as_ref().map_or([1.0; 3], |s| [s[i * 3], s[i * 3 + 1], s[i * 3 + 2]]);
            compose(translation, rotation, scale)
        })
        .collect())
}

fn read_nodes(root: &Value, views: &Views, model: &mut Model) -> Result<()> {
    let accessors = array(root, "accessors");
    let mut dropped_instance_attributes = false;
    model.cameras = array(root, "cameras").to_vec();
    model.lights = punctual_lights(root).to_vec();
    model.variants = member(root, &["extensions", VARIANTS, "variants"]).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut missing = false;
    let nodes = array(root, "nodes");
    let mut parent = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        let children: Vec<usize> = array(node, "children").iter().filter_map(Value::as_u64).map(|c| c as usize).collect();
        for &c in &children {
            if c >= nodes.len() || c == i || parent[c].is_some() {
                return Err(MeshError::invalid("the node tree is broken (a child is missing, repeated or its own parent)"));
            }
            parent[c] = Some(i);
        }
        let mesh = index(node, "mesh");
        if mesh.is_some_and(|m| m >= model.meshes.len()) {
            return Err(MeshError::invalid("a node refers to a mesh that does not exist"));
        }
        let (matrix, trs) = node_transform(node);
        let name = node.get("name").and_then(Value::as_str).map(String::from);
        // Weights for another number of targets than the mesh has mean nothing: the mesh's defaults apply.
        let targets = mesh.map_or(0, |m| model.meshes[m].target_count());
        let weights = floats(node, "weights").filter(|w| targets > 0 && w.len() == targets).unwrap_or_default();
        // A camera or light that does not exist is left off the node, and said so.
        let camera = index(node, "camera");
        let light = member(node, &["extensions", "KHR_lights_punctual", "light"]).and_then(Value::as_u64).map(|l| l as usize);
        missing |= camera.is_some_and(|c| c >= model.cameras.len()) || light.is_some_and(|l| l >= model.lights.len());
        let camera = camera.filter(|&c| c < model.cameras.len());
        let light = light.filter(|&l| l < model.lights.len());
        // Instances mean nothing on a node without a mesh.
        let instances = match mesh {
            Some(_) => read_instances(node, accessors, views, &mut dropped_instance_attributes)?,
            None => Vec::new(),
        };
        model.nodes.push(Node { name, mesh, matrix, trs, children, skin: index(node, "skin"), weights, instances, camera, light });
    }
    if dropped_instance_attributes {
        model.notes.push("Not carried into outputs: instance attributes other than TRANSLATION, ROTATION and SCALE.".into());
    }
    if missing {
        model.notes.push("Left off nodes the cameras or lights they named that the file does not have.".into());
    }
    if has_cycle(&parent) {
        return Err(MeshError::invalid("the node tree has a cycle"));
    }
    let scenes = array(root, "scenes");
    let scene = index(root, "scene").unwrap_or(0);
    if scenes.len() > 1 {
        model.notes.push(format!("The file has {} scenes; outputs hold the one it shows (scene {scene}).", scenes.len()));
    }
    model.roots = match scenes.get(scene) {
        Some(s) => array(s, "nodes").iter().filter_map(Value::as_u64).map(|n| n as usize).filter(|&n| n < nodes.len() && parent[n].is_none()).collect(),
        None => (0..nodes.len()).filter(|&n| parent[n].is_none()).collect(),
    };
    if model.nodes.is_empty() {
        for mesh in 0..model.meshes.len() {
            model.nodes.push(Node::with_mesh(None, mesh));
            model.roots.push(mesh);
        }
    }
    Ok(())
}

/// Whether following parents from some node comes back to it. Each walk up stops at a node an
/// earlier walk showed reaches a root, so every node is stepped on once (a chain of 100,000 nodes
/// took 8.5 s when each walked to its root alone).
fn has_cycle(parent: &[Option<usize>]) -> bool {
    const UNSEEN: usize = usize::MAX;
    const REACHES_ROOT: usize = usize::MAX - 1;
    // Per node: UNSEEN, REACHES_ROOT, or the walk (its start) that stepped on it.
    let mut state = vec![UNSEEN; parent.len()];
    // Marks `from` nodes as `to` up from `start`; the node where it stopped.
    let mut relabel = |start: usize, from: usize, to: usize| {
        let mut at = start;
        while state[at] == from {
            state[at] = to;
            match parent[at] {
                Some(p) => at = p,
                None => break,
            }
        }
        (at, state[at])
    };
    for start in 0..parent.len() {
        let (stopped, label) = relabel(start, UNSEEN, start);
        if label == start && parent[stopped].is_some() {
            return true;
        }
        relabel(start, start, REACHES_ROOT);
    }
    false
}

pub fn sniff_mime(data: &[u8]) -> &'static str {
    if data.starts_with(&[0x89, b'P', b'N', b'G']) {
        "image/png"
    } else if data.starts_with(&[0xFF, 0xD8]) {
        "image/jpeg"
    } else if data.len() > 12 && &data[8..12] == b"WEBP" {
        "image/webp"
    } else if data.starts_with(&[0xAB, b'K', b'T', b'X']) {
        "image/ktx2"
    } else {
        "application/octet-stream"
    }
}

fn read_images(root: &Value, views: &Views, file_bytes: usize, options: &ReadOptions, notes: &mut Vec<String>) -> Result<Vec<Image>> {
    let mut out = Vec::new();
    let mut missing = 0;
    // Images in buffer views are copied out: many images naming one large view must not
    // multiply it past the file's own size.
    let mut copied = 0usize;
    for image in array(root, "images") {
        let name = image.get("name").and_then(Value::as_str).map(String::from);
        let data = if let Some(view) = index(image, "bufferView") {
            let bytes = views.data.get(view).ok_or_else(|| MeshError::invalid("an image refers to a missing buffer view"))?;
            copied = copied.saturating_add(bytes.len());
            if copied > file_bytes {
                return Err(MeshError::invalid("the model's images declare more bytes than the file holds (images repeat one buffer view)"));
            }
            Some(bytes.to_vec())
        } else {
            match image.get("uri").and_then(Value::as_str) {
                Some(uri) if uri.starts_with("data:") => Some(decode_data_uri(uri)?),
                Some(uri) => read_neighbour(uri, options),
                None => None,
            }
        };
        let data = data.unwrap_or_else(|| {
            missing += 1;
            crate::png_image::encode_rgba(1, 1, &[255, 255, 255, 255])
        });
        let mime_type = image.get("mimeType").and_then(Value::as_str).map(String::from).unwrap_or_else(|| sniff_mime(&data).to_string());
        out.push(Image { name, mime_type, data });
    }
    if missing > 0 {
        notes.push(format!("{missing} texture image(s) were separate files that were not uploaded; a blank image stands in."));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::model::target_of;
    use serde_json::json;

    /// One triangle with one morph target: positions at byte 0, the target's deltas at byte 36,
    /// animation times (2 floats) at 72 and weight keys (2 floats) at 80. `edit` changes the
    /// document before it is read.
    fn read_morphed(edit: impl Fn(&mut Value)) -> Result<Model> {
        let floats: [f32; 22] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0];
        let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        let uri = format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bytes));
        let mut doc = json!({
            "asset": { "version": "2.0" },
            "buffers": [{ "byteLength": bytes.len(), "uri": uri }],
            "bufferViews": [{ "buffer": 0, "byteLength": 36 }, { "buffer": 0, "byteOffset": 36, "byteLength": 36 }, { "buffer": 0, "byteOffset": 72, "byteLength": 16 }],
            "accessors": [
                { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] },
                { "bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0.5] },
                { "bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1] },
                { "bufferView": 2, "byteOffset": 8, "componentType": 5126, "count": 2, "type": "SCALAR" }
            ],
            "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "targets": [{ "POSITION": 1 }] }], "weights": [0.25], "extras": { "targetNames": ["lift"] } }],
            "nodes": [{ "mesh": 0, "weights": [0.75] }, { "name": "empty" }],
            "scenes": [{ "nodes": [0, 1] }],
            "animations": [{ "samplers": [{ "input": 2, "output": 3 }], "channels": [{ "sampler": 0, "target": { "node": 0, "path": "weights" } }] }]
        });
        edit(&mut doc);
        read(&serde_json::to_vec(&doc).unwrap(), None, SourceFormat::Gltf, &ReadOptions::default())
    }

    #[test]
    fn an_attribute_of_a_type_gltf_does_not_allow_is_left_out_or_refused() {
        // Found by fuzzing: a NORMAL pointing at a VEC2 accessor of the right count was written a
        // third short per vertex, and optimize panicked on it.
        let with = |semantic: &'static str| {
            read_morphed(move |doc| {
                doc["accessors"].as_array_mut().unwrap().push(json!({ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC2" }));
                doc["meshes"][0]["primitives"][0]["attributes"][semantic] = json!(4);
            })
        };
        for semantic in ["NORMAL", "TANGENT", "COLOR_0"] {
            let model = with(semantic).unwrap();
            assert!(model.meshes[0].primitives[0].attribute(semantic).is_none(), "{semantic}");
            assert!(model.notes.iter().any(|n| n.contains(&format!("{semantic} attributes that are not VEC"))), "{semantic}: {:?}", model.notes);
        }
        assert!(with("TEXCOORD_0").unwrap().meshes[0].primitives[0].attribute("TEXCOORD_0").is_some());
        assert_eq!(with("JOINTS_0").unwrap_err().message, "JOINTS_0 is not VEC4");
    }

    #[test]
    fn extensions_outputs_lose_are_named_and_kept_ones_are_not() {
        let model = read_morphed(|doc| {
            doc["extensionsUsed"] = json!(["KHR_materials_variants", "KHR_materials_sheen", "KHR_texture_transform", "KHR_lights_punctual", "KHR_xmp_json_ld"]);
            doc["materials"] = json!([{ "extensions": { "KHR_materials_sheen": { "sheenRoughnessFactor": 0.5 } } }]);
            doc["meshes"][0]["primitives"][0]["extensions"] = json!({ "KHR_materials_variants": { "mappings": [] } });
            doc["extensions"] = json!({ "KHR_xmp_json_ld": { "packets": [] }, "KHR_lights_punctual": { "lights": [] } });
        })
        .unwrap();
        let note = model.notes.iter().find(|n| n.contains("extension(s)")).unwrap();
        // The sheen is in a kept material; the transform, named but used nowhere, has nothing to lose.
        assert_eq!(note, "Not carried into outputs: the extension(s) KHR_xmp_json_ld.");
    }

    #[test]
    fn variant_mappings_keep_what_the_file_has_and_each_variant_once() {
        let mut model = read_morphed(|doc| {
            doc["materials"] = json!([{ "name": "a" }, { "name": "b" }]);
            doc["extensions"] = json!({ "KHR_materials_variants": { "variants": [{ "name": "one" }, { "name": "two" }] } });
            doc["meshes"][0]["primitives"][0]["extensions"] = json!({ "KHR_materials_variants": { "mappings": [
                { "material": 1, "variants": [1, 7, 1] },
                { "material": 0, "variants": [1, 0] },
                { "material": 5, "variants": [0] },
                { "material": 0, "variants": "all" },
                { "material": 1, "variants": [1] }
            ] } });
        })
        .unwrap();
        super::super::sanitize::sanitize(&mut model, false).unwrap();
        assert_eq!(model.variants.len(), 2);
        let mappings = &model.meshes[0].primitives[0].variant_materials;
        // Variant 7 and material 5 do not exist; variant 1 is the first mapping's; a list is needed.
        assert_eq!(mappings, &[VariantMaterial { material: 1, variants: vec![1] }, VariantMaterial { material: 0, variants: vec![0] }]);
    }

    #[test]
    fn points_lines_strips_and_loops_are_read_as_points_and_pairs() {
        assert_eq!(unfilled(0, vec![4, 5, 6]), (Unfilled::Points, vec![4, 5, 6]));
        assert_eq!(unfilled(1, vec![0, 1, 2, 3, 4]), (Unfilled::Lines, vec![0, 1, 2, 3]));
        assert_eq!(unfilled(2, vec![0, 1, 2]), (Unfilled::Lines, vec![0, 1, 1, 2, 2, 0]));
        assert_eq!(unfilled(3, vec![0, 1, 2]), (Unfilled::Lines, vec![0, 1, 1, 2]));
        assert_eq!(unfilled(2, vec![7]), (Unfilled::Lines, vec![]));
        // A line primitive beside the triangle, its mesh without targets: kept apart from them.
        let model = read_morphed(|doc| {
            doc["meshes"][0]["primitives"][0].as_object_mut().unwrap().remove("targets");
            doc["meshes"][0].as_object_mut().unwrap().remove("weights");
            doc["animations"] = json!([]);
            let line = json!({ "attributes": { "POSITION": 0 }, "mode": 3 });
            doc["meshes"][0]["primitives"].as_array_mut().unwrap().push(line);
        })
        .unwrap();
        assert_eq!(model.meshes[0].primitives.len(), 1);
        assert_eq!(model.meshes[0].lines_and_points[0].primitive.indices, vec![0, 1, 1, 2]);
        // Beside morphed triangles they cannot stay, and the note says so.
        let morphed = read_morphed(|doc| {
            let points = json!({ "attributes": { "POSITION": 0 }, "mode": 0 });
            doc["meshes"][0]["primitives"].as_array_mut().unwrap().push(points);
        })
        .unwrap();
        assert!(morphed.meshes[0].lines_and_points.is_empty());
        assert!(morphed.notes.iter().any(|n| n.contains("point and line primitives of meshes with morph targets")), "{:?}", morphed.notes);
    }

    #[test]
    fn a_required_extension_nothing_here_reads_is_refused_and_carried_ones_are_not() {
        let err = read_morphed(|doc| {
            doc["extensionsUsed"] = json!(["VENDOR_packed_positions"]);
            doc["extensionsRequired"] = json!(["VENDOR_packed_positions"]);
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::UnsupportedFormat);
        assert!(err.message.contains("VENDOR_packed_positions"), "{}", err.message);
        // Quantized input is read; a texture transform inside a kept material is carried as it is.
        read_morphed(|doc| {
            doc["extensionsUsed"] = json!(["KHR_mesh_quantization", "KHR_texture_transform"]);
            doc["extensionsRequired"] = json!(["KHR_mesh_quantization", "KHR_texture_transform"]);
            doc["materials"] = json!([{ "emissiveTexture": { "index": 0, "extensions": { "KHR_texture_transform": { "scale": [2, 2] } } } }]);
        })
        .unwrap();
    }

    #[test]
    fn a_node_tree_with_a_cycle_is_refused_and_a_long_chain_is_read_in_one_pass() {
        let err = read_morphed(|doc| doc["nodes"] = json!([{ "mesh": 0, "children": [1] }, { "children": [2] }, { "children": [0] }])).unwrap_err();
        assert_eq!((err.code, err.message.as_str()), (ErrorCode::InvalidMesh, "the node tree has a cycle"));
        let chain = 200_000;
        let model = read_morphed(|doc| {
            let mut nodes: Vec<Value> = (1..chain).map(|c| json!({ "children": [c] })).collect();
            nodes.push(json!({ "mesh": 0 }));
            doc["nodes"] = Value::Array(nodes);
            doc["scenes"] = json!([{ "nodes": [0] }]);
            doc["animations"] = json!([]);
        })
        .unwrap();
        assert_eq!((model.nodes.len(), model.roots.clone()), (chain, vec![0]));
    }

    #[test]
    fn cycles_are_found_wherever_the_walks_meet_them() {
        assert!(!has_cycle(&[None, Some(0), Some(1), Some(0), None, Some(4)]));
        // A cycle off every root, a self-loop, and a chain that runs into a cycle.
        assert!(has_cycle(&[Some(2), Some(0), Some(1)]));
        assert!(has_cycle(&[None, Some(1)]));
        assert!(has_cycle(&[None, Some(0), Some(3), Some(4), Some(3)]));
        // A million nodes in a chain, each walk stopping where the last one did.
        let chain: Vec<Option<usize>> = (0..1_000_000usize).map(|i| i.checked_sub(1)).collect();
        let started = std::time::Instant::now();
        assert!(!has_cycle(&chain));
        // Linear is milliseconds; walking each node to the root was hours.
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    }

    #[test]
    fn a_file_of_several_scenes_says_which_one_outputs_hold() {
        let model = read_morphed(|doc| {
            doc["scenes"] = json!([{ "nodes": [1] }, { "nodes": [0] }]);
            doc["scene"] = json!(1);
        })
        .unwrap();
        assert_eq!(model.roots, vec![0]);
        assert!(model.notes.iter().any(|n| n == "The file has 2 scenes; outputs hold the one it shows (scene 1)."), "{:?}", model.notes);
    }

    #[test]
    fn targets_weights_names_and_weight_channels_are_read() {
        let model = read_morphed(|_| {}).unwrap();
        let mesh = &model.meshes[0];
        assert_eq!((mesh.weights.as_slice(), mesh.target_names.as_slice()), (&[0.25][..], &["lift".to_string()][..]));
        let delta = mesh.primitives[0].attributes.iter().find(|a| target_of(&a.semantic) == Some((0, "POSITION"))).unwrap();
        assert_eq!(delta.data, [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(model.nodes[0].weights, [0.75]);
        let animation = &model.animations[0];
        assert_eq!((animation.channels[0].path.as_str(), animation.samplers[0].components), ("weights", 1));
        assert!(model.notes.is_empty(), "{:?}", model.notes);
    }

    #[test]
    fn weights_of_the_wrong_length_fall_back_and_channels_without_targets_go() {
        let model = read_morphed(|doc| {
            doc["meshes"][0]["weights"] = json!([1, 2]);
            doc["meshes"][0]["extras"]["targetNames"] = json!(["a", "b"]);
            doc["nodes"][0]["weights"] = json!([1, 2, 3]);
            doc["animations"][0]["channels"][0]["target"]["node"] = json!(1);
        })
        .unwrap();
        assert_eq!(model.meshes[0].weights, [0.0]);
        assert!(model.meshes[0].target_names.is_empty());
        assert!(model.nodes[0].weights.is_empty());
        assert!(model.animations.is_empty());
        assert!(model.notes.iter().any(|n| n.contains("weight channels of nodes without morph targets")), "{:?}", model.notes);
    }

    #[test]
    fn malformed_targets_are_invalid_meshes() {
        let unequal = read_morphed(|doc| {
            let mut second = doc["meshes"][0]["primitives"][0].clone();
            second["targets"] = json!([]);
            doc["meshes"][0]["primitives"].as_array_mut().unwrap().push(second);
        });
        let not_vec3 = read_morphed(|doc| doc["accessors"][1]["type"] = json!("VEC2"));
        for result in [unequal, not_vec3] {
            let error = result.unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidMesh, "{}", error.message);
            assert!(error.message.contains("morph target"), "{}", error.message);
        }
    }
}
