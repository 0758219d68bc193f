//! glTF skins and animations into the Model. Indices that point nowhere (a joint, skeleton or
//! channel node past the node list, a channel's sampler past its animation's samplers) make the
//! file invalid, as a broken node tree does; key data a player could not use (NaN or unordered
//! times, key counts that do not match, unknown paths, `weights` of a node without morph targets)
//! drops the channel with a note, as the sanitize step drops faces with NaN coordinates.
use super::accessor::{read_floats, Views};
use crate::error::{MeshError, Result};
use crate::in_parallel::{self, KEYS_WORTH_THREADS};
use crate::json_member::member;
use crate::model::{Animation, AnimationSampler, Channel, Node, Skin, IDENTITY};
use crate::value_checks::{all_finite, increasing};
use serde_json::Value;

fn array<'v>(root: &'v Value, key: &str) -> &'v [Value] {
    root.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn index(value: &Value, key: &str) -> Option<usize> {
    value.get(key).and_then(Value::as_u64).map(|v| v as usize)
}

fn name(value: &Value) -> Option<String> {
    value.get("name").and_then(Value::as_str).map(String::from)
}

pub fn read_skins(root: &Value, views: &Views, node_count: usize) -> Result<Vec<Skin>> {
    let accessors = array(root, "accessors");
    let mut out = Vec::new();
    for (i, skin) in array(root, "skins").iter().enumerate() {
        let joints: Vec<usize> = array(skin, "joints").iter().map(|j| j.as_u64().map_or(usize::MAX, |j| j as usize)).collect();
        if joints.is_empty() || joints.iter().any(|&j| j >= node_count) {
            return Err(MeshError::invalid(format!("skin {i} has no joints or names a joint node that does not exist")));
        }
        let skeleton = index(skin, "skeleton");
        if skeleton.is_some_and(|s| s >= node_count) {
            return Err(MeshError::invalid(format!("skin {i} names a skeleton node that does not exist")));
        }
        let inverse_bind = match index(skin, "inverseBindMatrices") {
            None => vec![IDENTITY; joints.len()],
            Some(a) => {
                let (components, data) = read_floats(accessors, a, views)?;
                if components != 16 || data.len() != joints.len() * 16 || !data.iter().all(|v| v.is_finite()) {
                    return Err(MeshError::invalid(format!("skin {i} needs one finite MAT4 inverse bind matrix per joint")));
                }
                data.chunks_exact(16).map(|m| m.try_into().expect("16 floats")).collect()
            }
        };
        out.push(Skin { name: name(skin), joints, skeleton, inverse_bind });
    }
    Ok(out)
}

/// Why a sampler cannot drive a channel, or the checked sampler.
fn read_sampler(sampler: &Value, accessors: &[Value], views: &Views) -> Result<std::result::Result<AnimationSampler, &'static str>> {
    let interpolation = sampler.get("interpolation").and_then(Value::as_str).unwrap_or("LINEAR").to_string();
    if !matches!(interpolation.as_str(), "LINEAR" | "STEP" | "CUBICSPLINE") {
        return Ok(Err("an unknown interpolation"));
    }
    let (Some(input), Some(output)) = (index(sampler, "input"), index(sampler, "output")) else {
        return Ok(Err("a sampler without input or output"));
    };
    let (input_components, times) = read_floats(accessors, input, views)?;
    let (mut components, values) = read_floats(accessors, output, views)?;
    if input_components != 1 || times.is_empty() {
        return Ok(Err("key times that are not a non-empty list of scalars"));
    }
    let per_key = if interpolation == "CUBICSPLINE" { 3 } else { 1 };
    // Morph weights are scalars, one per target per key: the target count is the key's width.
    if components == 1 {
        components = (values.len() / (times.len() * per_key)).max(1);
    }
    if !all_finite(&times) || times[0] < 0.0 || !increasing(&times) {
        return Ok(Err("key times that are NaN, negative or not increasing"));
    }
    if values.len() != times.len() * per_key * components || !all_finite(&values) {
        return Ok(Err("key values that do not match the key times or are not finite"));
    }
    Ok(Ok(AnimationSampler { input: times, output: values, components, interpolation }))
}

/// Reads every animation; channels that cannot be carried are dropped and described in `notes`.
/// `node_targets` holds the morph target count of each node's mesh (0 without one).
pub fn read_animations(root: &Value, views: &Views, nodes: &[Node], node_targets: &[usize], notes: &mut Vec<String>) -> Result<Vec<Animation>> {
    let accessors = array(root, "accessors");
    let mut dropped: Vec<&'static str> = Vec::new();
    let mut out = Vec::new();
    for (a, animation) in array(root, "animations").iter().enumerate() {
        // Samplers decode over the machine's cores when their keys are many (a long take's are
        // tens of MB); the budget is shared, and the first error in the samplers' order is the one told.
        let json = array(animation, "samplers");
        let declared: usize = json.iter().filter_map(|s| index(s, "output")).filter_map(|a| accessors.get(a)).filter_map(|a| index(a, "count")).sum();
        let mut samplers: Vec<_> =
            in_parallel::map(json, declared >= KEYS_WORTH_THREADS, |s| read_sampler(s, accessors, views)).into_iter().collect::<Result<_>>()?;
        let mut kept = Animation { name: name(animation), ..Animation::default() };
        // Old sampler index to new, so samplers no kept channel uses are left out.
        let mut renumber = vec![None; samplers.len()];
        for channel in array(animation, "channels") {
            let sampler = index(channel, "sampler").filter(|&s| s < samplers.len());
            let node = member(channel, &["target", "node"]).and_then(Value::as_u64).map(|n| n as usize);
            let (Some(s), Some(n)) = (sampler, node.filter(|&n| n < nodes.len())) else {
                return Err(MeshError::invalid(format!("animation {a} has a channel whose sampler or target node does not exist")));
            };
            let path = member(channel, &["target", "path"]).and_then(Value::as_str).unwrap_or("");
            let components = match path {
                "translation" | "scale" => 3,
                "rotation" => 4,
                "weights" if node_targets.get(n).copied().unwrap_or(0) > 0 => node_targets[n],
                "weights" => {
                    dropped.push("weight channels of nodes without morph targets");
                    continue;
                }
                _ => {
                    dropped.push("channels with an unknown target path");
                    continue;
                }
            };
            // A sampler moves into the kept animation at its first channel; later channels that
            // share it are checked against the moved copy.
            let sampler = match renumber[s] {
                Some(new) => Ok(&kept.samplers[new]),
                None => samplers[s].as_ref().map_err(|why| *why),
            };
            let checked = match sampler {
                Err(why) => Some(why),
                Ok(sampler) if sampler.components != components => Some("key values of the wrong type for their path"),
                Ok(_) if nodes[n].trs.is_none() && path != "weights" => Some("channels animating a node given as a matrix"),
                Ok(_) => None,
            };
            if let Some(why) = checked {
                dropped.push(why);
                continue;
            }
            let new = match renumber[s] {
                Some(new) => new,
                None => {
                    let mut moved = std::mem::replace(&mut samplers[s], Err("moved")).expect("checked above");
                    if path == "rotation" && moved.interpolation != "CUBICSPLINE" {
                        normalize_quaternions(&mut moved.output);
                    }
                    kept.samplers.push(moved);
                    renumber[s] = Some(kept.samplers.len() - 1);
                    kept.samplers.len() - 1
                }
            };
            kept.channels.push(Channel { sampler: new, node: n, path: path.to_string() });
        }
        if !kept.channels.is_empty() {
            out.push(kept);
        }
    }
    dropped.sort();
    dropped.dedup();
    if !dropped.is_empty() {
        notes.push(format!("Animation channels left out: {}.", dropped.join("; ")));
    }
    Ok(out)
}

/// Rotation keys decoded from normalized integers are only nearly unit length; players and the
/// validator expect unit quaternions. A zero quaternion becomes the identity.
fn normalize_quaternions(values: &mut [f32]) {
    for q in values.chunks_exact_mut(4) {
        let length = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        // Nearly unit keys stay bit for bit, so reading a written file gives the same keys.
        if (length - 1.0).abs() < 1e-5 {
            continue;
        }
        if length > 0.0 {
            q.iter_mut().for_each(|v| *v /= length);
        } else {
            q.copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
        }
    }
}

/// Makes every JOINTS_n/WEIGHTS_n pair usable: a joint index that is not a whole number below the
/// joint count of every skin the mesh is drawn with gets weight 0 (and index 0), negative or
/// non-finite weights become 0, and each vertex's weights are rescaled to sum to 1 (all weight on
/// its first joint when none is left). A set without its partner is dropped. Returns how many
/// values changed.
pub fn fix_skin_attributes(model: &mut crate::model::Model) -> usize {
    let mut joint_limit = vec![u16::MAX as usize + 1; model.meshes.len()];
    for node in &model.nodes {
        if let (Some(m), Some(s)) = (node.mesh, node.skin) {
            joint_limit[m] = joint_limit[m].min(model.skins[s].joints.len());
        }
    }
    let mut fixed = 0;
    for (mesh, &limit) in model.meshes.iter_mut().zip(&joint_limit) {
        for p in &mut mesh.primitives {
            let sets: Vec<String> = p.attributes.iter().filter_map(|a| a.semantic.strip_prefix("JOINTS_")).map(String::from).collect();
            let paired = |set: &str| p.attributes.iter().any(|a| a.semantic == format!("WEIGHTS_{set}"));
            let partnered: Vec<String> = sets.iter().filter(|s| paired(s)).cloned().collect();
            let before = p.attributes.len();
            p.attributes.retain(|a| match a.semantic.strip_prefix("JOINTS_").or_else(|| a.semantic.strip_prefix("WEIGHTS_")) {
                Some(set) => partnered.iter().any(|s| s == set),
                None => true,
            });
            fixed += before - p.attributes.len();
            if partnered.is_empty() {
                continue;
            }
            let find = |attributes: &[crate::model::Attribute], name: &str| attributes.iter().position(|a| a.semantic == name).expect("paired");
            let pairs: Vec<(usize, usize)> =
                partnered.iter().map(|s| (find(&p.attributes, &format!("JOINTS_{s}")), find(&p.attributes, &format!("WEIGHTS_{s}")))).collect();
            for v in 0..p.positions.len() {
                let mut sum = 0.0f32;
                for &(j, w) in &pairs {
                    for k in v * 4..v * 4 + 4 {
                        let joint = p.attributes[j].data[k];
                        // A whole number under the limit; the truncating cast tells whole numbers
                        // apart where `fract` would call libm's truncf for every value.
                        let valid = joint >= 0.0 && joint < limit as f32 && joint as u32 as f32 == joint;
                        let weight = p.attributes[w].data[k];
                        if !valid || !weight.is_finite() || weight < 0.0 {
                            fixed += usize::from(!valid || weight != 0.0);
                            p.attributes[w].data[k] = 0.0;
                            if !valid {
                                p.attributes[j].data[k] = 0.0;
                            }
                        }
                        sum += p.attributes[w].data[k];
                    }
                }
                if sum <= 0.0 {
                    p.attributes[pairs[0].1].data[v * 4] = 1.0;
                    fixed += 1;
                } else if (sum - 1.0).abs() > 1e-6 {
                    for &(_, w) in &pairs {
                        p.attributes[w].data[v * 4..v * 4 + 4].iter_mut().for_each(|x| *x /= sum);
                    }
                }
            }
        }
    }
    fixed
}
