//! The skinning and animation part of the GLB writer: JOINTS_n/WEIGHTS_n streams, skins (with the
//! position dequantization folded into their inverse bind matrices) and animations.
//!
//! Why the folding: a quantized mesh stores grid integers, and for an unskinned mesh the writer
//! undoes the grid with the transform of a child node that holds the mesh. glTF ignores the
//! transform of the node a skinned mesh sits on (a skinned vertex goes to
//! Σ weight × jointWorld × inverseBind × position), so there the grid transform D (translate
//! to the grid origin, scale by the step) must go inside the sum: every inverse bind matrix of
//! the skin becomes IBM × D. Each (skin, grid) pair therefore gets its own output skin; the
//! source skin keeps its index for its first pair and further pairs are appended as copies.
//! Joint and animated nodes are written untouched (TRS, as the source gave them), so animation
//! channels keep targeting the same nodes and never overwrite a dequantization transform.
use super::anim_tracks::{visible_tracks, KEYS_WORTH_THREADS};
use super::compact_json::short_f32s;
use super::glb::{Builder, Data, Slot};
use super::key_storage::{float_bytes, stored_times_size, Storage, FLOAT};
use super::quantize::Grid;
use crate::in_parallel;
use crate::model::{AnimationSampler, Model, Primitive, Skin};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Where each node's skin goes in the output, given each mesh's quantization grid (if any).
pub(super) struct SkinPlan {
    /// Output skin per node (None for nodes without a skinned mesh).
    pub node_skin: Vec<Option<usize>>,
    /// (source skin, grid) per output skin.
    outputs: Vec<(usize, Option<Grid>)>,
}

fn same_grid(a: Option<Grid>, b: Option<Grid>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.offset == b.offset && a.scale == b.scale,
        (None, None) => true,
        _ => false,
    }
}

pub(super) fn plan_skins(model: &Model, grids: &[Option<Grid>]) -> SkinPlan {
    let mut outputs: Vec<(usize, Option<Grid>)> = Vec::new();
    let mut first_grid: Vec<Option<Option<Grid>>> = vec![None; model.skins.len()];
    for node in &model.nodes {
        if let (Some(m), Some(s)) = (node.mesh, node.skin) {
            first_grid[s].get_or_insert(grids[m]);
        }
    }
    // Source skins keep their indices; an unused skin is written as it is.
    outputs.extend(first_grid.iter().enumerate().map(|(s, g)| (s, g.flatten())));
    let node_skin = model
        .nodes
        .iter()
        .map(|node| {
            let (m, s) = (node.mesh?, node.skin?);
            let grid = grids[m];
            Some(match (s..outputs.len()).find(|&o| outputs[o].0 == s && same_grid(outputs[o].1, grid)) {
                Some(o) => o,
                None => {
                    outputs.push((s, grid));
                    outputs.len() - 1
                }
            })
        })
        .collect();
    SkinPlan { node_skin, outputs }
}

/// The grid transform as a column-major matrix: position = offset + scale × integer.
fn dequantize_matrix(g: Grid) -> [f32; 16] {
    let s = g.scale;
    [s, 0.0, 0.0, 0.0, 0.0, s, 0.0, 0.0, 0.0, 0.0, s, 0.0, g.offset[0], g.offset[1], g.offset[2], 1.0]
}

pub(super) fn write_skins(b: &mut Builder, model: &Model, plan: &SkinPlan) -> Vec<Value> {
    plan.outputs
        .iter()
        .map(|&(s, grid)| {
            let skin: &Skin = &model.skins[s];
            let matrices: Vec<f32> = skin.inverse_bind.iter().flat_map(|m| grid.map_or(*m, |g| crate::math::mul(m, &dequantize_matrix(g)))).collect();
            let slot = b.view(&float_bytes(&matrices), Data::Keys { stride: 64, filter: None });
            let ibm = b.accessor(slot, skin.joints.len(), FLOAT, "MAT4", false, None);
            let mut out = json!({ "joints": skin.joints, "inverseBindMatrices": ibm });
            if let Some(k) = skin.skeleton {
                out["skeleton"] = json!(k);
            }
            if let Some(n) = &skin.name {
                out["name"] = json!(n);
            }
            out
        })
        .collect()
}

/// Bytes of JSON an accessor of its own takes (about: `{"bufferView":7,"byteOffset":1234,...}`).
const ACCESSOR_JSON: usize = 90;

/// How much more than the whole a track's shorter form must take by `may_store_smaller`'s estimate
/// to be said not to pay: the share of keys kept so far is not the share the whole search keeps
/// (a baked robot's rotations kept 0.72 of their first quarter's keys and 0.47 of all).
const SHARE_MARGIN: f64 = 1.25;

/// Whether a track that keeps `share` of its keys (so far, as the search for the keys it can do
/// without goes) could still store smaller shortened than whole, by an estimate that leans to yes:
/// each key kept taken to cost what one of the whole track's costs, its value (the whole's bytes,
/// `full` with the least it takes past a size, `Storage::size_at_least`) and its time (`times`,
/// what the whole list of key times takes stored). Through the codec the shorter track's keys
/// mostly cost more than that: they are stored finer (the search spent part of the tolerance) and,
/// further apart, delta worse, and its times, a steady rate with keys missing, delta worse than the
/// steady rate (on the bench's animated models a shortened track keeping over a fifth of its keys
/// took 0.74 to 1.59 times the estimate, 1.26 the median, under 1 only where it kept a fifth: far
/// from where this says no); stored plainly, exactly that. The whole track pays `full_times`, its
/// share of key times other tracks may use too. A track said to pay here may not (the writer
/// weighs both); one said not to, its search stopped at a quarter or half of its keys, never did
/// on the bench's models, held out or not, compressed or not (session 50: the same bytes on every
/// one).
fn may_store_smaller(share: f64, times: usize, full_times: usize, full: impl FnOnce(usize) -> (usize, bool)) -> bool {
    // Said not to pay: share · (times + whole) > SHARE_MARGIN · (whole + full_times).
    let times_over = share * times as f64 - SHARE_MARGIN * full_times as f64;
    if times_over <= 0.0 {
        return true;
    }
    if share >= SHARE_MARGIN {
        return false;
    }
    // The shorter track may pay only where the whole's values take at least this.
    let least = times_over / (SHARE_MARGIN - share);
    let (size, _) = full(least.min(usize::MAX as f64) as usize);
    size as f64 >= least
}

/// Times of a list its hash reads (`TimeLists::hashed_id`).
const HASHED_TIMES: usize = 64;

/// Lists of key times told apart by their exact bits, each numbered once: samplers usually share
/// their times, and a long animation's lists are tens of thousands of keys, so a list is hashed
/// once (not with the map's SipHash) and compared only with lists of the same hash.
#[derive(Default)]
struct TimeLists<'a> {
    lists: Vec<&'a [f32]>,
    by_hash: HashMap<u64, Vec<usize>>,
    /// The same slice asked for again (a track's times are weighed and written) is not hashed again.
    by_address: HashMap<(usize, usize), usize>,
}

impl<'a> TimeLists<'a> {
    fn id(&mut self, input: &'a [f32]) -> usize {
        let address = (input.as_ptr() as usize, input.len());
        if let Some(&id) = self.by_address.get(&address) {
            return id;
        }
        let id = self.hashed_id(input);
        self.by_address.insert(address, id);
        id
    }

    fn hashed_id(&mut self, input: &'a [f32]) -> usize {
        // The hash only picks the lists compared in full, so it reads the length and up to
        // `HASHED_TIMES` times spread over the list: hashing every time, one multiplication after
        // another, was 2.4 % of motion-capture's optimize (120 lists of 30,000 times, session 48).
        let step = input.len().div_ceil(HASHED_TIMES).max(1);
        let hash = input.iter().step_by(step).fold(input.len() as u64, |h, t| (h.rotate_left(5) ^ t.to_bits() as u64).wrapping_mul(0x517c_c1b7_2722_0a95));
        // Compared a block at a time, each block without stopping inside it.
        let same = |list: &[f32]| {
            list.len() == input.len()
                && list.chunks(64).zip(input.chunks(64)).all(|(a, b)| a.iter().zip(b).fold(true, |same, (x, y)| same & (x.to_bits() == y.to_bits())))
        };
        let candidates = self.by_hash.entry(hash).or_default();
        if let Some(&id) = candidates.iter().find(|&&id| same(self.lists[id])) {
            return id;
        }
        self.lists.push(input);
        candidates.push(self.lists.len() - 1);
        self.lists.len() - 1
    }
}

/// `mesh_holder` maps each model node to the written node holding its mesh, which `weights`
/// channels target (see write/nodes.rs).
pub(super) fn write_animations(b: &mut Builder, model: &Model, mesh_holder: &[usize], budget: f64, reduce_keys: bool) -> Vec<Value> {
    // Samplers usually share their key times; identical times share one accessor.
    let mut times: HashMap<usize, usize> = HashMap::new();
    // Tracks that cannot be seen go, constant ones keep one key (write/anim_tracks.rs).
    // Keys a track can do without go too when the geometry is on a grid (its error is the budget).
    let tracks = visible_tracks(model, budget);
    let compress = b.compress;
    // How many samplers share each list of key times (one accessor holds it for all of them).
    let mut sharing: HashMap<usize, usize> = HashMap::new();
    let mut lists = TimeLists::default();
    let ids: Vec<Vec<usize>> = tracks.animations.iter().map(|a| a.samplers.iter().map(|s| lists.id(&s.input)).collect()).collect();
    for &id in ids.iter().flatten() {
        *sharing.entry(id).or_default() += 1;
    }
    // The bytes each list of key times takes stored, once worked out: while the keys a track can
    // do without are searched, over the machine's cores; then as the tracks are written.
    let times_stored: Vec<OnceLock<usize>> = (0..lists.lists.len()).map(|_| OnceLock::new()).collect();
    // Each track stored whole: weighed while the search for the keys it can do without goes, and
    // against its shorter form, then written, its bytes made once.
    let fulls: Vec<Vec<Storage>> = tracks
        .animations
        .iter()
        .zip(tracks.key_steps.iter().zip(&tracks.rotation_bits))
        .map(|(animation, (steps, rotation_bits))| {
            let morph_weights = |i: usize| animation.channels.iter().any(|c| c.sampler == i && c.path == "weights");
            (0..animation.samplers.len()).map(|i| Storage::of(compress, &animation.samplers[i], morph_weights(i), steps[i], rotation_bits[i])).collect()
        })
        .collect();
    let reduced = match reduce_keys {
        true => tracks.shorter(|a, i, share| {
            let s: &AnimationSampler = &tracks.animations[a].samplers[i];
            let id = ids[a][i];
            let times = *times_stored[id].get_or_init(|| stored_times_size(compress, &s.input));
            let full_times = (times + ACCESSOR_JSON) / sharing[&id];
            may_store_smaller(share, times, full_times, |beat| fulls[a][i].size_at_least(compress, beat))
        }),
        false => tracks.animations.iter().map(|a| vec![None; a.samplers.len()]).collect(),
    };
    let mut stored_times: HashMap<usize, usize> = times_stored.into_iter().enumerate().filter_map(|(id, t)| Some((id, t.into_inner()?))).collect();
    tracks
        .animations
        .iter()
        .zip(&reduced)
        .zip(fulls)
        .map(|((animation, reduced), fulls)| {
            // Each track stored both ways where it could lose keys, with what each takes (the
            // codec's work), over the machine's cores when the tracks are long.
            let indices: Vec<usize> = (0..animation.samplers.len()).collect();
            let values: usize = animation.samplers.iter().map(|s| s.output.len()).sum();
            let forms = in_parallel::map(&indices, values >= KEYS_WORTH_THREADS, |&i| {
                let full = &fulls[i];
                // Only translation, rotation and scale tracks are shortened (`shorter_tracks`), never
                // morph weights.
                let short_times = reduced[i].as_ref().map(|r| stored_times_size(compress, &r.sampler.input));
                // Where the whole's size is known already (the search asked for it, `worth`) and
                // the shorter track with its own key times takes less even at the most the codec
                // can make of its keys (`Storage::size_at_most`), the shorter one is kept without
                // its exact size: animated-arms' CUBICSPLINE tracks, which keep a quarter to a half
                // of their keys, took about 15,000 instructions each to count (session 51).
                let short = reduced[i].as_ref().zip(short_times).map(|(r, times)| {
                    let short = Storage::of(compress, &r.sampler, false, r.key_step, r.rotation_bits);
                    let surely_smaller = full.known_size().is_some_and(|whole| short.size_at_most(compress) + times + ACCESSOR_JSON < whole);
                    let size = (!surely_smaller).then(|| short.size(compress));
                    (short, size)
                });
                // The full track's size matters only against the shorter one's with its own key
                // times (at most what they take stored alone): a bound from the full track's first
                // keys usually settles it (below), and the whole is encoded only if not.
                let size = match (&short, short_times) {
                    (Some((_, Some(short_size))), Some(times)) => full.size_at_least(compress, short_size + times + ACCESSOR_JSON),
                    _ => (0, true),
                };
                (size, short.map(|(short, size)| (short, size, short_times.unwrap_or(0))))
            });
            let samplers: Vec<Value> = animation
                .samplers
                .iter()
                .zip(fulls.into_iter().zip(forms))
                .enumerate()
                .map(|(i, (s, (full, (full_size, short))))| {
                    let s: &AnimationSampler = s;
                    // The shorter track's own times were stored once above, to bound the full one.
                    if let (Some(r), Some((_, _, times))) = (&reduced[i], &short) {
                        stored_times.entry(lists.id(&r.sampler.input)).or_insert(*times);
                    }
                    // A track that can lose keys is written the way that takes fewer bytes, its
                    // key times included (the full track's are usually shared with other tracks,
                    // the shorter track's are its own): on tracks baked at a steady rate the codec
                    // already stores the keys of a smooth stretch in a few bits, and times of its
                    // own can cost more than the keys that went.
                    let mut times_cost = |input| {
                        let key = lists.id(input);
                        if times.contains_key(&key) {
                            return 0;
                        }
                        let share = sharing.get(&key).copied().unwrap_or(1).max(1);
                        // What a list stores as is worked out once: many tracks may weigh the same.
                        let stored = *stored_times.entry(key).or_insert_with(|| stored_times_size(compress, input));
                        (stored + ACCESSOR_JSON) / share
                    };
                    let (s, stored) = match (&reduced[i], short) {
                        (Some(r), Some((short, short_size, _))) => {
                            let (short_times, full_times) = (times_cost(&r.sampler.input), times_cost(&s.input));
                            // Without its exact size, the shorter track takes less than the whole
                            // at the most it could (above), and its times cost no more than stored
                            // alone: the same choice as with it.
                            let keep_short = short_size.is_none_or(|short_size| {
                                let short_cost = short_size + short_times;
                                let (at_least, exact) = full_size;
                                let full_size = if exact || short_cost < at_least + full_times { at_least } else { full.size(compress) };
                                short_cost < full_size + full_times
                            });
                            match keep_short {
                                true => (&r.sampler, short),
                                false => (s, full),
                            }
                        }
                        _ => (s, full),
                    };
                    let input_keys = &s.input;
                    let key = lists.id(input_keys);
                    let input = match times.get(&key) {
                        Some(&a) => a,
                        None => {
                            let slot = b.view(&float_bytes(input_keys), Data::Keys { stride: 4, filter: None });
                            // The shortest decimals that read back to the same f32 ("2", not "2.0").
                            let (first, last) = (short_f32s(&input_keys[..1]), short_f32s(&input_keys[input_keys.len() - 1..]));
                            let a = b.accessor(slot, input_keys.len(), FLOAT, "SCALAR", false, Some((first, last)));
                            times.insert(key, a);
                            a
                        }
                    };
                    let output = stored.write(b);
                    let mut sampler = json!({ "input": input, "output": output });
                    // LINEAR is glTF's default.
                    if s.interpolation != "LINEAR" {
                        sampler["interpolation"] = json!(s.interpolation);
                    }
                    sampler
                })
                .collect();
            let target = |c: &crate::model::Channel| if c.path == "weights" { mesh_holder.get(c.node).copied().unwrap_or(c.node) } else { c.node };
            let channels: Vec<Value> =
                animation.channels.iter().map(|c| json!({ "sampler": c.sampler, "target": { "node": target(c), "path": c.path } })).collect();
            let mut out = json!({ "samplers": samplers, "channels": channels });
            if let Some(n) = &animation.name {
                out["name"] = json!(n);
            }
            out
        })
        .collect()
}

/// JOINTS_n as VEC4 of unsigned bytes when every index fits, else unsigned shorts.
pub(super) fn write_joints(b: &mut Builder, data: &[f32]) -> usize {
    let count = data.len() / 4;
    let slot: Slot;
    let component_type = if data.iter().all(|&j| j < 256.0) {
        slot = b.view(&data.iter().map(|&j| j as u8).collect::<Vec<u8>>(), Data::Vertices { stride: 4, filter: None });
        5121
    } else {
        slot = b.view(&data.iter().flat_map(|&j| (j as u16).to_le_bytes()).collect::<Vec<u8>>(), Data::Vertices { stride: 8, filter: None });
        5123
    };
    b.accessor(slot, count, component_type, "VEC4", false, None)
}

/// Every WEIGHTS_n set of the primitive as normalized unsigned bytes whose sum over all sets is
/// exactly 255 per vertex (the validator checks the sum): largest-remainder rounding, i.e. round
/// every weight down, then give the missing units to the weights that lost the most, so no weight
/// moves by a full step.
pub(super) fn quantized_weights(p: &Primitive) -> HashMap<String, Vec<u8>> {
    let sets: Vec<&crate::model::Attribute> = p.attributes.iter().filter(|a| a.semantic.starts_with("WEIGHTS_")).collect();
    if sets.is_empty() {
        return HashMap::new();
    }
    let mut out: Vec<Vec<u8>> = sets.iter().map(|a| vec![0u8; a.data.len()]).collect();
    // One vertex's weights at a time, in buffers reused from vertex to vertex, on the stack for up
    // to four sets (the heap for more): four allocations per vertex were a tenth of optimizing a
    // skinned model.
    let width = sets.len() * 4;
    let mut on_stack = ([0f32; 16], [0f32; 16], [0u32; 16], [0usize; 16]);
    let mut on_heap;
    let (values, scaled, q, order): (&mut [f32], &mut [f32], &mut [u32], &mut [usize]) = if width <= 16 {
        (&mut on_stack.0[..width], &mut on_stack.1[..width], &mut on_stack.2[..width], &mut on_stack.3[..width])
    } else {
        on_heap = (vec![0f32; width], vec![0f32; width], vec![0u32; width], vec![0usize; width]);
        (&mut on_heap.0[..], &mut on_heap.1[..], &mut on_heap.2[..], &mut on_heap.3[..])
    };
    for v in 0..p.positions.len() {
        for (s, set) in sets.iter().enumerate() {
            values[s * 4..s * 4 + 4].copy_from_slice(&set.data[v * 4..v * 4 + 4]);
        }
        let sum: f32 = values.iter().sum();
        for (s, &w) in scaled.iter_mut().zip(values.iter()) {
            *s = if sum > 0.0 { w / sum * 255.0 } else { 0.0 };
        }
        // Truncation is floor for every f32 here: a negative value floors to a negative number
        // and truncates toward zero, and the cast to u32 makes both 0.
        for (whole, &s) in q.iter_mut().zip(scaled.iter()) {
            *whole = s as u32;
        }
        let missing = 255u32.saturating_sub(q.iter().sum());
        if missing > 0 {
            for (k, o) in order.iter_mut().enumerate() {
                *o = k;
            }
            order.sort_by(|&x, &y| (scaled[y] - q[y] as f32).total_cmp(&(scaled[x] - q[x] as f32)));
            for &k in order.iter().cycle().take(missing as usize) {
                q[k] += 1;
            }
        }
        for (k, &w) in q.iter().enumerate() {
            out[k / 4][v * 4 + k % 4] = w.min(255) as u8;
        }
    }
    sets.iter().map(|a| a.semantic.clone()).zip(out).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Attribute, Mesh, Node, SourceFormat};
    use crate::read::{read_model, ReadOptions};
    use crate::write::{write_glb, GlbOptions};

    #[test]
    fn time_lists_are_one_where_every_bit_is_the_same_and_apart_where_one_differs() {
        // 1,000 times: the hash reads one in 16, so lists that differ between those share a hash.
        let times: Vec<f32> = (0..1000).map(|k| k as f32 / 30.0).collect();
        let copy = times.clone();
        let mut off = times.clone();
        off[1] = f32::from_bits(off[1].to_bits() + 1);
        let mut late = times.clone();
        late[999] = 40.0;
        let shorter = times[..999].to_vec();
        let mut zero = times.clone();
        zero[0] = -0.0;
        let mut lists = TimeLists::default();
        let ids: Vec<usize> = [&times, &copy, &off, &late, &shorter, &zero, &times].iter().map(|t| lists.id(t)).collect();
        assert_eq!(ids, [0, 0, 1, 2, 3, 4, 0]);
    }

    #[test]
    fn weights_sum_to_255_and_move_less_than_a_step() {
        let weights = vec![1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0, 0.7, 0.1, 0.1, 0.1, 0.999, 0.001, 0.0, 0.0];
        let p = Primitive {
            positions: vec![[0.0; 3]; 3],
            attributes: vec![Attribute { semantic: "WEIGHTS_0".into(), components: 4, data: weights.clone() }],
            ..Primitive::default()
        };
        let q = &quantized_weights(&p)["WEIGHTS_0"];
        for (v, w) in q.chunks_exact(4).enumerate() {
            assert_eq!(w.iter().map(|&x| x as u32).sum::<u32>(), 255);
            assert!(w.iter().zip(&weights[v * 4..]).all(|(&x, &f)| (x as f32 / 255.0 - f).abs() < 1.0 / 255.0), "{w:?}");
        }
    }

    #[test]
    fn joint_indices_past_255_are_written_as_shorts() {
        let mut model = Model::new(SourceFormat::Glb);
        let joints = 300;
        model.nodes = (0..joints).map(|_| Node { mesh: None, ..Node::with_mesh(None, 0) }).collect();
        model.roots = (0..joints).collect();
        model.skins.push(Skin { name: None, joints: (0..joints).collect(), skeleton: None, inverse_bind: vec![crate::model::IDENTITY; joints] });
        let primitive = Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            attributes: vec![
                Attribute { semantic: "JOINTS_0".into(), components: 4, data: vec![299.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0] },
                Attribute { semantic: "WEIGHTS_0".into(), components: 4, data: vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] },
            ],
            indices: vec![0, 1, 2],
            material: None,
            variant_materials: Vec::new(),
        };
        model.meshes.push(Mesh { name: None, primitives: vec![primitive], ..Default::default() });
        model.nodes.push(Node { skin: Some(0), ..Node::with_mesh(None, 0) });
        model.roots.push(joints);
        let back = read_model(&write_glb(&model, &GlbOptions::quantized(true)), "glb", &ReadOptions::default()).unwrap();
        assert_eq!(back.meshes[0].primitives[0].attribute("JOINTS_0").unwrap().data[0], 299.0);
        assert_eq!(back.nodes[joints].skin, Some(0));
    }

    /// A root mesh `size` wide with a child node at rest, for animations to move.
    fn animated_scene(size: f32) -> Model {
        use crate::model::Trs;
        let mut model = Model::new(SourceFormat::Glb);
        model.push_root_mesh(Mesh {
            name: None,
            primitives: vec![Primitive { positions: vec![[0.0; 3], [size, 0.0, 0.0], [0.0, size, 0.0]], indices: vec![0, 1, 2], ..Primitive::default() }],
            ..Default::default()
        });
        let rest = Trs { translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] };
        model.nodes.push(Node { trs: Some(rest), ..Node { mesh: None, ..Node::with_mesh(None, 0) } });
        model.nodes[0].children.push(1);
        model
    }

    #[test]
    fn samplers_write_short_json_and_cubic_splines_keep_their_tangents() {
        use crate::model::{Animation, Channel};
        let mut model = animated_scene(1.0);
        let times = vec![0.0, 1.0, 2.0];
        // in-tangent, value, out-tangent per key.
        let cubic: Vec<f32> = (0..3).flat_map(|k| [0.5, 0.0, 0.0, k as f32, 0.0, 0.0, 0.5, 0.0, 0.0]).collect();
        let sampler = |output: Vec<f32>, components: usize, interpolation: &str| AnimationSampler {
            input: times.clone(),
            output,
            components,
            interpolation: interpolation.into(),
        };
        model.animations.push(Animation {
            name: None,
            samplers: vec![
                sampler(cubic.clone(), 3, "CUBICSPLINE"),
                sampler(vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0], 3, "STEP"),
                // Held a quarter turn off rest: one key.
                sampler([0.0, 0.0, 0.38268343, 0.9238795].repeat(3), 4, "LINEAR"),
            ],
            channels: ["translation", "scale", "rotation"].iter().enumerate().map(|(i, p)| Channel { sampler: i, node: 1, path: p.to_string() }).collect(),
        });
        for quantize in [false, true] {
            let glb = write_glb(&model, &GlbOptions { quantize, ..GlbOptions::default() });
            let length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
            let text = std::str::from_utf8(&glb[20..20 + length]).unwrap();
            let json: Value = serde_json::from_str(text).unwrap();
            let samplers = &json["animations"][0]["samplers"];
            assert_eq!((samplers[0]["interpolation"].as_str(), samplers[1]["interpolation"].as_str()), (Some("CUBICSPLINE"), Some("STEP")));
            assert!(samplers[2].get("interpolation").is_none(), "LINEAR is the default");
            let accessor = |s: usize, key: &str| &json["accessors"][samplers[s][key].as_u64().unwrap() as usize];
            assert_eq!(accessor(0, "output")["count"], 9, "three values per cubic key");
            assert_eq!((accessor(2, "input")["count"].as_u64(), accessor(2, "output")["count"].as_u64()), (Some(1), Some(1)));
            assert!(text.contains(r#""max":[2],"min":[0]"#), "short key time bounds");
            let back = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
            assert_eq!(back.animations[0].samplers[0].output, cubic);
            assert_eq!(back.animations[0].samplers[0].input, times);
        }
    }

    #[test]
    fn compressed_translation_and_scale_keys_are_stored_as_coarse_as_their_tolerance() {
        use crate::model::{Animation, Channel};
        // A 10-unit-wide scene, 15 wide with where the keys below take node 1 (-5 to 10 on each
        // axis): a translation may move by half a 14-bit grid step of that, 15/32766 units.
        let mut model = animated_scene(10.0);
        let times: Vec<f32> = (0..60).map(|k| k as f32 / 30.0).collect();
        // Irregular motion, so the keys are no pattern the codec could store exactly.
        let wave = |k: usize, c: usize| ((k * 7 + c * 13) as f32 * 0.37).sin();
        let translation: Vec<f32> = (0..60).flat_map(|k| [0, 1, 2].map(|c| 5.0 * wave(k, c) + 0.001 * k as f32)).collect();
        let scale: Vec<f32> = (0..60).flat_map(|k| [0, 1, 2].map(|c| 1.0 + 0.5 * wave(k, c + 3))).collect();
        let sampler = |output: &[f32]| AnimationSampler { input: times.clone(), output: output.to_vec(), components: 3, interpolation: "LINEAR".into() };
        model.animations.push(Animation {
            name: None,
            samplers: vec![sampler(&translation), sampler(&scale)],
            channels: ["translation", "scale"].iter().enumerate().map(|(i, p)| Channel { sampler: i, node: 1, path: p.to_string() }).collect(),
        });
        let glb = write_glb(&model, &GlbOptions::quantized(true));
        let length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let json: Value = serde_json::from_slice(&glb[20..20 + length]).unwrap();
        for s in 0..2 {
            let accessor = &json["accessors"][json["animations"][0]["samplers"][s]["output"].as_u64().unwrap() as usize];
            let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
            assert_eq!(view["extensions"]["EXT_meshopt_compression"]["filter"], "EXPONENTIAL", "sampler {s}");
        }
        let back = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
        let out = &back.animations[0].samplers;
        let moved = out[0]
            .output
            .chunks_exact(3)
            .zip(translation.chunks_exact(3))
            .map(|(a, b)| (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f32>().sqrt())
            .fold(0.0, f32::max);
        let budget = super::super::anim_tracks::relative_budget(14) as f32;
        assert!(moved > 0.0 && moved <= budget * 15.0, "translation keys moved by {moved}");
        // Node 1 carries nothing, so its scale is held as if it carried the whole scene: to the budget.
        let scaled = out[1].output.iter().zip(&scale).map(|(a, b)| ((a - b) / b).abs()).fold(0.0, f32::max);
        assert!(scaled > 0.0 && scaled <= budget, "scale keys changed by {scaled} of themselves");
    }

    #[test]
    fn a_track_loses_keys_only_when_that_stores_smaller() {
        use crate::model::{Animation, Channel};
        let mut model = animated_scene(10.0);
        model.nodes.push(model.nodes[1].clone());
        model.nodes[0].children.push(2);
        let times: Vec<f32> = (0..97).map(|k| k as f32 / 24.0).collect();
        // Node 1 creeps along a line: every key but the ends (and the longest stretch's) can go.
        // Node 2 zigzags, and only key 50 lies on its neighbours' line: its shorter track would
        // need 96 key times of its own to save one key.
        let creep: Vec<f32> = times.iter().flat_map(|&t| [0.01 * t, 0.0, 0.0]).collect();
        let zigzag: Vec<f32> = (0..97).flat_map(|k| [0.0, if k == 50 { 1.0 } else { (k % 2) as f32 }, 0.0]).collect();
        let sampler = |output: Vec<f32>| AnimationSampler { input: times.clone(), output, components: 3, interpolation: "LINEAR".into() };
        model.animations.push(Animation {
            name: None,
            samplers: vec![sampler(creep), sampler(zigzag)],
            channels: vec![Channel { sampler: 0, node: 1, path: "translation".into() }, Channel { sampler: 1, node: 2, path: "translation".into() }],
        });
        for compress in [true, false] {
            let glb = write_glb(&model, &GlbOptions::quantized(compress));
            let length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
            let json: Value = serde_json::from_slice(&glb[20..20 + length]).unwrap();
            let count = |i: usize| json["accessors"][json["animations"][0]["samplers"][i]["output"].as_u64().unwrap() as usize]["count"].as_u64().unwrap();
            // The creep keeps its ends and key 64 (a stretch spans 64 intervals at most).
            assert_eq!((count(0), count(1)), (3, 97), "compressed: {compress}");
        }
        let exact = write_glb(&model, &GlbOptions::default());
        assert_eq!(read_model(&exact, "glb", &ReadOptions::default()).unwrap().animations[0].samplers[0].input.len(), 97, "floats keep every key");
    }

    /// A 10-unit scene whose node 1 swings about a tilted axis, 48 CUBICSPLINE keys at 24 Hz: keys on
    /// the unit sphere, tangents the quaternion's derivative. The model, key times and source track.
    fn cubic_swing() -> (Model, Vec<f32>, Vec<f32>) {
        use crate::model::{Animation, Channel};
        let mut model = animated_scene(10.0);
        let times: Vec<f32> = (0..48).map(|k| k as f32 / 24.0).collect();
        // A swing about a tilted axis: keys on the unit sphere, tangents the quaternion's derivative.
        let axis = [0.6f32, 0.0, 0.8];
        let cubic: Vec<f32> = times
            .iter()
            .flat_map(|&t| {
                let (angle, speed) = (0.7 * (3.1 * t).sin(), 0.7 * 3.1 * (3.1 * t).cos() * 0.5);
                let (s, c) = ((angle / 2.0).sin(), (angle / 2.0).cos());
                let value = [axis[0] * s, axis[1] * s, axis[2] * s, c];
                let tangent = [axis[0] * c * speed, axis[1] * c * speed, axis[2] * c * speed, -s * speed];
                [tangent, value, tangent].concat()
            })
            .collect();
        model.animations.push(Animation {
            name: None,
            samplers: vec![AnimationSampler { input: times.clone(), output: cubic.clone(), components: 4, interpolation: "CUBICSPLINE".into() }],
            channels: vec![Channel { sampler: 0, node: 1, path: "rotation".into() }],
        });
        (model, times, cubic)
    }

    /// The largest angle (radians) between the swing's source curve and a stored one, over 2,000 times.
    fn largest_turn(stored: &AnimationSampler, times: &[f32], cubic: &[f32]) -> f64 {
        let source = AnimationSampler { input: times.to_vec(), output: cubic.to_vec(), components: 4, interpolation: "CUBICSPLINE".into() };
        let angle = super::super::anim_tracks::angle_between;
        let end = *times.last().unwrap();
        (0..=2000)
            .map(|i| end * i as f32 / 2000.0)
            .map(|t| angle(&crate::pose::sample(stored, t, true), &crate::pose::sample(&source, t, true)))
            .fold(0.0, f64::max)
    }

    #[test]
    fn compressed_cubic_spline_rotations_stay_within_the_budget() {
        let (model, times, cubic) = cubic_swing();
        let glb = write_glb(&model, &GlbOptions::quantized(true));
        let length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let json: Value = serde_json::from_slice(&glb[20..20 + length]).unwrap();
        let sampler = &json["animations"][0]["samplers"][0];
        assert_eq!(sampler["interpolation"], "CUBICSPLINE");
        let accessor = &json["accessors"][sampler["output"].as_u64().unwrap() as usize];
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        assert_eq!(view["extensions"]["EXT_meshopt_compression"]["filter"], "EXPONENTIAL");
        let back = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
        let stored = &back.animations[0].samplers[0];
        assert!(stored.input.len() < times.len(), "keys the curve does without go: {} of {}", stored.input.len(), times.len());
        assert_eq!(stored.output.len(), stored.input.len() * 12, "the kept keys keep their tangents");
        // Node 1 carries nothing, so it is held as if it carried the whole scene: its curve, keys
        // dropped and stored coarser, may turn by the budget (as an angle) and no more.
        let budget = super::super::anim_tracks::relative_budget(14);
        let worst = largest_turn(stored, &times, &cubic);
        assert!(worst > 0.0 && worst <= budget, "the curve turned by {worst} rad, budget {budget}");
    }

    #[test]
    fn a_looser_animation_error_stores_fewer_bytes_and_stays_within_it() {
        // optimize's animation_error: the same swing held to a thousandth of the scene rather than
        // half a 14-bit step (3.1e-5) keeps fewer keys, stored coarser, and turns by no more.
        let (model, times, cubic) = cubic_swing();
        let stored = |animation_error: Option<f64>| {
            let glb = write_glb(&model, &GlbOptions { animation_error, ..GlbOptions::quantized(true) });
            let back = read_model(&glb, "glb", &ReadOptions::default()).unwrap();
            (glb.len(), back.animations[0].samplers[0].clone())
        };
        let ((fine_bytes, fine), (loose_bytes, loose)) = (stored(None), stored(Some(1e-3)));
        assert!(loose.input.len() < fine.input.len(), "keys: {} against {}", loose.input.len(), fine.input.len());
        assert!(loose_bytes < fine_bytes, "bytes: {loose_bytes} against {fine_bytes}");
        let worst = largest_turn(&loose, &times, &cubic);
        assert!(worst > largest_turn(&fine, &times, &cubic) && worst <= 1e-3, "the curve turned by {worst} rad, allowed 1e-3");
    }

    #[test]
    fn exact_floats_lose_keys_only_when_an_animation_error_is_given() {
        // simplify's writer keeps floats exact: every key stays, unless the caller allows an error.
        let (model, times, cubic) = cubic_swing();
        let stored = |animation_error: Option<f64>| {
            let glb = write_glb(&model, &GlbOptions { animation_error, ..GlbOptions::default() });
            read_model(&glb, "glb", &ReadOptions::default()).unwrap().animations[0].samplers[0].clone()
        };
        let (exact, loose) = (stored(None), stored(Some(1e-3)));
        assert_eq!((exact.input, exact.output), (times.clone(), cubic.clone()));
        assert!(loose.input.len() < times.len(), "keys: {} of {}", loose.input.len(), times.len());
        let worst = largest_turn(&loose, &times, &cubic);
        assert!(worst <= 1e-3, "the curve turned by {worst} rad, allowed 1e-3");
    }

    #[test]
    fn a_shorter_track_is_said_not_to_pay_only_where_its_keys_and_their_times_cost_more_than_the_whole() {
        // A whole track of 1,000 bytes whose key times take 600 stored and are shared.
        let whole = |_beat: usize| (1000, true);
        // Keeping a tenth: 160 estimated against 1,000.
        assert!(may_store_smaller(0.1, 600, 0, whole));
        // Keeping 0.78: 0.78 · 1,600 = 1,248 is under 1.25 · 1,000; 0.79: 1,264 is over.
        assert!(may_store_smaller(0.78, 600, 0, whole));
        assert!(!may_store_smaller(0.79, 600, 0, whole));
        // Times the whole track pays alone count for it: with all 600 its own, even every key pays.
        assert!(may_store_smaller(0.99, 600, 690, whole));
        // Every key kept, times shared: no.
        assert!(!may_store_smaller(1.25, 600, 0, |_| unreachable!("no size needed")));
        // Times the shorter track takes no more than the whole's share of them: asked no size.
        assert!(may_store_smaller(0.5, 100, 100, |_| unreachable!("no size needed")));
        // The whole's size past the least it must take (`Storage::size_at_least`) settles it.
        assert!(may_store_smaller(0.79, 600, 0, |beat| (beat + 1, false)));
    }
}
