//! inspect_3d_model: an inventory of the model (scenes, nodes, meshes with per-primitive counts,
//! attributes and bounds, materials, textures, animations), mesh health (borders, non-manifold
//! edges, degenerate faces, pieces), a plain-text summary and a preview image.
use super::options::{parse, InspectOptions};
use super::{read_drawing_within, Input, OutputFile, ToolResult};
use crate::bake::bake;
use crate::error::Result;
use crate::math::Bounds;
use crate::model::{target_of, Model, Unfilled};
use crate::png_image::encode_rgba;
use crate::render::{render_views, Triangle};
use crate::topology::analyze;
use serde_json::{json, Value};

/// Faces are counted as placed in the scene: inspect bakes every instance for its bounds and preview.
pub const COUNTS_PLACED_FACES: bool = true;
/// A point cloud or a drawing (points or lines, no triangles) is inspected too: nothing here needs
/// triangles. The other tools refuse it.
pub const READS_DRAWINGS: bool = true;
const SCHEMA_VERSION: u32 = 1;
/// Lists longer than this are cut in inspection.json (and `details_truncated` is set).
const MAX_LISTED: usize = 500;

fn bounds_json(b: &Bounds) -> Value {
    if b.is_empty() {
        Value::Null
    } else {
        {
            let size = [0, 1, 2].map(|k| b.max[k] - b.min[k]);
            json!({ "min": b.min, "max": b.max, "size": size })
        }
    }
}

fn array<'v>(root: Option<&'v Value>, key: &str) -> &'v [Value] {
    root.and_then(|r| r.get(key)).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Width and height from a PNG or JPEG header.
fn image_size(data: &[u8]) -> Option<(u32, u32)> {
    if data.starts_with(&[0x89, b'P', b'N', b'G']) && data.len() >= 24 {
        let be = |at: usize| u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        return Some((be(16), be(20)));
    }
    let mut at = 2;
    while data.starts_with(&[0xFF, 0xD8]) && at + 9 < data.len() {
        if data[at] != 0xFF {
            return None;
        }
        let marker = data[at + 1];
        let length = u16::from_be_bytes([data[at + 2], data[at + 3]]) as usize;
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let h = u16::from_be_bytes([data[at + 5], data[at + 6]]) as u32;
            let w = u16::from_be_bytes([data[at + 7], data[at + 8]]) as u32;
            return Some((w, h));
        }
        at += 2 + length;
    }
    None
}

fn texture_slots(materials: &[Value]) -> Vec<Vec<String>> {
    fn walk(v: &Value, out: &mut Vec<(String, usize)>) {
        if let Value::Object(map) = v {
            for (k, x) in map {
                if k.ends_with("Texture") {
                    if let Some(i) = x.get("index").and_then(Value::as_u64) {
                        out.push((k.clone(), i as usize));
                    }
                }
                walk(x, out);
            }
        }
    }
    let mut slots: Vec<Vec<String>> = Vec::new();
    for m in materials {
        let mut found = Vec::new();
        walk(m, &mut found);
        for (slot, index) in found {
            if slots.len() <= index {
                slots.resize(index + 1, Vec::new());
            }
            slots[index].push(slot);
        }
    }
    slots
}

/// The source's primitive objects of mesh `mesh` as the model lists them: its triangles (modes 4
/// to 6, with positions) in order, then its points and lines (modes 0 to 3), as the reader
/// sorts them (read/gltf.rs).
fn source_primitives(gltf: Option<&Value>, mesh: usize) -> Vec<&Value> {
    let all = array(array(gltf, "meshes").get(mesh), "primitives");
    let drawn = |p: &&Value| p.pointer("/attributes/POSITION").is_some();
    let mode = |p: &&Value| p.get("mode").and_then(Value::as_u64).unwrap_or(4);
    let triangles = all.iter().filter(drawn).filter(|p| (4..=6).contains(&mode(p)));
    triangles.chain(all.iter().filter(drawn).filter(|p| mode(p) < 4)).collect()
}

fn attribute_types(source: Option<&Value>, accessors: &[Value]) -> Value {
    let Some(attrs) = source.and_then(|p| p.get("attributes")).and_then(Value::as_object) else {
        return Value::Null;
    };
    let name = |t: u64| match t {
        5120 => "i8",
        5121 => "u8",
        5122 => "i16",
        5123 => "u16",
        5125 => "u32",
        _ => "f32",
    };
    attrs
        .iter()
        .map(|(semantic, a)| {
            let acc = a.as_u64().and_then(|i| accessors.get(i as usize));
            let kind = acc.and_then(|a| a.get("type")).and_then(Value::as_str).unwrap_or("?");
            let ct = acc.and_then(|a| a.get("componentType")).and_then(Value::as_u64).unwrap_or(0);
            let norm = acc.and_then(|a| a.get("normalized")).and_then(Value::as_bool).unwrap_or(false);
            (semantic.clone(), json!(format!("{kind}:{}{}", name(ct), if norm { "_norm" } else { "" })))
        })
        .collect()
}

fn preview_color(model: &Model, material: Option<usize>) -> [f32; 3] {
    material
        .and_then(|m| model.materials.get(m))
        .and_then(|m| m.pointer("/pbrMetallicRoughness/baseColorFactor"))
        .and_then(Value::as_array)
        .map(|c| [0, 1, 2].map(|k| c.get(k).and_then(Value::as_f64).unwrap_or(0.8) as f32))
        .filter(|c| c.iter().any(|&v| v > 0.08))
        .unwrap_or([0.72, 0.74, 0.78])
}

pub fn run(input: &Input, options: &Value) -> Result<ToolResult> {
    let options: InspectOptions = parse("inspect", options)?;
    let model = read_drawing_within(input, options.max_faces, COUNTS_PLACED_FACES, READS_DRAWINGS)?;
    let gltf = model.gltf_json.as_ref();
    let instances = model.instances();
    // Counted once: counting per mesh made a model of 100,000 one-triangle objects take 10 s.
    let mut instances_of = vec![0usize; model.meshes.len()];
    for i in &instances {
        if let Some(n) = instances_of.get_mut(i.mesh) {
            *n += 1;
        }
    }
    let baked = bake(&model);
    let mut world = Bounds::empty();
    baked.iter().flat_map(|o| &o.primitives).flat_map(|p| &p.positions).for_each(|&p| world.add(p));
    // Points and lines where their meshes are placed, in the world box too.
    for instance in &instances {
        let drawn = model.meshes[instance.mesh].lines_and_points.iter().flat_map(|l| &l.primitive.positions);
        drawn.for_each(|&p| world.add(crate::math::transform_point(&instance.world, p)));
    }
    let (points, lines) = model.meshes.iter().flat_map(|m| &m.lines_and_points).fold((0, 0), |(points, lines), l| match l.mode {
        Unfilled::Points => (points + l.primitive.indices.len(), lines),
        Unfilled::Lines => (points, lines + l.primitive.indices.len() / 2),
    });
    let mut notes = model.notes.clone();
    if model.face_count() == 0 {
        notes.push(format!(
            "The model has no triangles, only {points} point(s) and {lines} line(s) (a point cloud or a drawing): the other mesh tools work on triangles."
        ));
    }
    let mut truncated = false;
    let mut list = |items: Vec<Value>| -> Vec<Value> {
        truncated |= items.len() > MAX_LISTED;
        items.into_iter().take(MAX_LISTED).collect()
    };

    let mut totals = json!({ "boundary_edges": 0, "non_manifold_edges": 0, "degenerate_faces": 0, "components": 0 });
    let meshes: Vec<Value> = model
        .meshes
        .iter()
        .enumerate()
        .map(|(mi, mesh)| {
            // Meshes past the listed ones count in the totals only (`list` keeps the first ones).
            let listed = mi < MAX_LISTED;
            let mut mesh_bounds = Bounds::empty();
            let sources = source_primitives(gltf, mi);
            let accessors = array(gltf, "accessors");
            let primitives: Vec<Value> = mesh
                .primitives
                .iter()
                .enumerate()
                .map(|(pi, p)| {
                    let b = Bounds::of(&p.positions);
                    mesh_bounds.add(b.min);
                    mesh_bounds.add(b.max);
                    let t = analyze(&p.positions, &p.indices);
                    for (key, v) in [
                        ("boundary_edges", t.boundary_edges),
                        ("non_manifold_edges", t.non_manifold_edges),
                        ("degenerate_faces", t.degenerate_faces),
                        ("components", t.components),
                    ] {
                        totals[key] = json!(totals[key].as_u64().unwrap_or(0) + v as u64);
                    }
                    if !listed {
                        return Value::Null;
                    }
                    json!({
                        "mode": "TRIANGLES",
                        "vertices": p.positions.len(),
                        "faces": p.face_count(),
                        "indices": p.indices.len(),
                        "attributes": p.attributes.iter().filter(|a| target_of(&a.semantic).is_none()).map(|a| a.semantic.clone()).collect::<Vec<_>>(),
                        "attribute_types": attribute_types(sources.get(pi).copied(), accessors),
                        "material": p.material,
                        "variant_materials": p.variant_materials,
                        "bounds": bounds_json(&b),
                        "topology": {
                            "welded_vertices": t.welded_vertices,
                            "edges": t.edges,
                            "boundary_edges": t.boundary_edges,
                            "non_manifold_edges": t.non_manifold_edges,
                            "degenerate_faces": t.degenerate_faces,
                            "connected_components": t.components,
                            "watertight": t.watertight(),
                        },
                    })
                })
                .collect();
            if !listed {
                return Value::Null;
            }
            json!({
                "index": mi,
                "name": mesh.name,
                "instances": instances_of[mi],
                "vertices": mesh.primitives.iter().map(|p| p.positions.len()).sum::<usize>(),
                "faces": mesh.primitives.iter().map(|p| p.face_count()).sum::<usize>(),
                "bounds_local": bounds_json(&mesh_bounds),
                "morph_targets": mesh.target_count(),
                "morph_target_names": mesh.target_names,
                "primitives": primitives,
                "points_and_lines": mesh.lines_and_points.iter().enumerate().map(|(k, l)| {
                    let p = &l.primitive;
                    json!({
                        "mode": match l.mode { Unfilled::Points => "POINTS", Unfilled::Lines => "LINES" },
                        "vertices": p.positions.len(),
                        "count": p.indices.len() / l.mode.arity(),
                        "attributes": p.attributes.iter().map(|a| a.semantic.clone()).collect::<Vec<_>>(),
                        "attribute_types": attribute_types(sources.get(mesh.primitives.len() + k).copied(), accessors),
                        "material": p.material,
                    })
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    let nodes: Vec<Value> = model
        .nodes
        .iter()
        .enumerate()
        // Nodes past the listed ones are placeholders (`list` keeps the first ones).
        .map(|(i, n)| {
            if i < MAX_LISTED {
                json!({ "index": i, "name": n.name, "mesh": n.mesh, "children": n.children, "has_transform": n.matrix != crate::model::IDENTITY })
            } else {
                Value::Null
            }
        })
        .collect();
    let slots = texture_slots(&model.materials);
    let textures: Vec<Value> = model
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let image = t.get("source").and_then(Value::as_u64).and_then(|s| model.images.get(s as usize));
            let size = image.and_then(|img| image_size(&img.data));
            json!({
                "index": i,
                "name": t.get("name"),
                "image": t.get("source"),
                "mime_type": image.map(|img| img.mime_type.clone()),
                "width": size.map(|s| s.0),
                "height": size.map(|s| s.1),
                "bytes": image.map(|img| img.data.len()),
                "slots": slots.get(i).cloned().unwrap_or_default(),
            })
        })
        .collect();
    let materials: Vec<Value> = model
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            json!({
                "index": i,
                "name": m.get("name"),
                "alpha_mode": m.get("alphaMode").and_then(Value::as_str).unwrap_or("OPAQUE"),
                "double_sided": m.get("doubleSided").and_then(Value::as_bool).unwrap_or(false),
                "base_color_factor": m.pointer("/pbrMetallicRoughness/baseColorFactor"),
                "extensions": m.get("extensions").and_then(Value::as_object).map(|e| e.keys().cloned().collect::<Vec<String>>()),
            })
        })
        .collect();
    let animations: Vec<Value> = array(gltf, "animations")
        .iter()
        .map(|a| {
            let accessors = array(gltf, "accessors");
            let samplers = array(Some(a), "samplers");
            let inputs: Vec<&Value> = samplers.iter().filter_map(|s| s.get("input").and_then(Value::as_u64)).filter_map(|i| accessors.get(i as usize)).collect();
            let keyframes: u64 = inputs.iter().filter_map(|acc| acc.get("count").and_then(Value::as_u64)).sum();
            let duration = inputs.iter().filter_map(|acc| acc.pointer("/max/0").and_then(Value::as_f64)).fold(0.0, f64::max);
            json!({ "name": a.get("name"), "channels": array(Some(a), "channels").len(), "samplers": samplers.len(), "keyframes": keyframes, "duration_s": duration })
        })
        .collect();
    let scenes: Vec<Value> = match gltf {
        Some(g) if !array(Some(g), "scenes").is_empty() => {
            array(Some(g), "scenes").iter().map(|s| json!({ "name": s.get("name"), "root_nodes": s.get("nodes") })).collect()
        }
        _ => vec![json!({ "name": Value::Null, "root_nodes": model.roots })],
    };

    let summary = json!({
        "schema_version": SCHEMA_VERSION,
        "object_count": model.meshes.len(),
        "mesh_instance_count": instances.len(),
        "vertex_count": model.vertex_count(),
        "face_count": model.face_count(),
        "details_truncated": false,
        "notes": notes,
    });
    let mut report = json!({
        "schema_version": SCHEMA_VERSION,
        "file": { "name": input.name, "format": model.format.extension(), "bytes": input.data.len() },
        "summary": summary,
        "bounds": bounds_json(&world),
        "instanced_face_count": baked.iter().flat_map(|o| &o.primitives).map(|p| p.face_count()).sum::<usize>(),
        "points": points,
        "lines": lines,
        "topology": totals,
        "scenes": scenes,
        "nodes": list(nodes),
        "meshes": list(meshes),
        "materials": list(materials),
        "textures": list(textures),
        "animations": list(animations),
        "skins": array(gltf, "skins").len(),
        "material_variants": model.variants.iter().map(|v| v.get("name")).collect::<Vec<_>>(),
        "extensions": { "used": gltf.and_then(|g| g.get("extensionsUsed")), "required": gltf.and_then(|g| g.get("extensionsRequired")) },
        "generator": gltf.and_then(|g| g.pointer("/asset/generator")),
    });
    report["summary"]["details_truncated"] = json!(truncated);
    let summary = report["summary"].clone();
    let text = summary_text(input, &report);

    let triangles: Vec<Triangle> = baked
        .iter()
        .flat_map(|o| &o.primitives)
        .flat_map(|p| {
            let color = preview_color(&model, p.material);
            p.indices.chunks_exact(3).map(move |t| Triangle { corners: [0, 1, 2].map(|k| p.positions[t[k] as usize]), color })
        })
        .collect();
    let (w, h, rgba) = render_views(&triangles, 256);
    Ok(ToolResult {
        summary,
        files: vec![
            OutputFile { name: "inspection.json".into(), data: serde_json::to_vec_pretty(&report).expect("plain JSON") },
            OutputFile { name: "summary.txt".into(), data: text.into_bytes() },
            OutputFile { name: "preview.png".into(), data: encode_rgba(w as u32, h as u32, &rgba) },
        ],
    })
}

fn summary_text(input: &Input, r: &Value) -> String {
    let s = &r["summary"];
    let t = &r["topology"];
    let size = r["bounds"]["size"]
        .as_array()
        .map(|v| v.iter().map(|x| format!("{:.4}", x.as_f64().unwrap_or(0.0))).collect::<Vec<_>>().join(" x "))
        .unwrap_or_else(|| "-".into());
    let mut out = format!(
        "{} ({}, {} bytes)\n\nObjects (meshes): {}\nMesh instances:   {}\nVertices:         {}\nFaces:            {} ({} with instancing)\nSize (world):     {}\nMaterials:        {}\nTextures:         {}\nAnimations:       {}\n\nMesh health\n  Pieces (connected components): {}\n  Border edges:                  {}\n  Non-manifold edges:            {}\n  Degenerate faces:              {}\n  Watertight:                    {}\n",
        input.name,
        r["file"]["format"].as_str().unwrap_or(""),
        input.data.len(),
        s["object_count"],
        s["mesh_instance_count"],
        s["vertex_count"],
        s["face_count"],
        r["instanced_face_count"],
        size,
        r["materials"].as_array().map_or(0, Vec::len),
        r["textures"].as_array().map_or(0, Vec::len),
        r["animations"].as_array().map_or(0, Vec::len),
        t["components"],
        t["boundary_edges"],
        t["non_manifold_edges"],
        t["degenerate_faces"],
        if s["face_count"] == 0 {
            "-"
        } else if t["boundary_edges"] == 0 && t["non_manifold_edges"] == 0 {
            "yes"
        } else {
            "no"
        },
    );
    if r["points"] != 0 || r["lines"] != 0 {
        out.push_str(&format!("\nPoints: {}\nLines:  {}\n", r["points"], r["lines"]));
    }
    for note in s["notes"].as_array().into_iter().flatten() {
        out.push_str(&format!("\nNote: {}", note.as_str().unwrap_or("")));
    }
    out.push('\n');
    out
}
