//! The size that `max_error` (and optimize's simplification bound) is a share of: the largest side
//! of the box the model fills as its scene places it at rest, a skinned mesh where its skin puts
//! it. A mesh's positions are in its own units, and a node may scale them: a wheel placed twice
//! under a truck is simplified in the wheel's units, to a bound that is the truck's share, so the
//! wheel is held to what the user asked of the model, not to a share of the wheel alone.
use crate::math::{inverse_linear, linear_part, mul, stretch, stretch_at_most, stretches_evenly, transform_point, Bounds};
use crate::model::{Mesh, Model};
use crate::pose::world_matrices;
use crate::skin_poses::{joint_matrices, skinned};

pub struct ModelSize {
    /// Largest side of the box of every placed vertex, in the scene's units.
    pub extent: f32,
    /// Per mesh: the most one unit of the space it is simplified in (its own, or `shape`'s)
    /// measures where the scene places it, over all its places (1 for a mesh that no node places,
    /// whose own box then counts in the model's).
    scale: Vec<f32>,
    /// Per mesh whose places stretch it more along some directions than others (a node scaled
    /// [3, 0.9, 1.3]): the linear map of its most stretching place. It is simplified and measured
    /// as that place shows it, so the bound is the same length every way; in its own units a bound
    /// that held everywhere would be the model's share over the largest scale, too strict across.
    shape: Vec<Option<[f32; 16]>>,
}

/// Instances times vertices up to which every placed vertex is boxed; past it, each instance's
/// box is the box of its mesh's box corners placed (never smaller than the vertices' box).
const PLACED_VERTICES_BOXED: usize = 1 << 22;

impl ModelSize {
    pub fn of(model: &Model) -> ModelSize {
        let instances = model.instances();
        let vertices = |m: &Mesh| m.primitives.iter().map(|p| p.positions.len()).sum::<usize>();
        let placed: usize = instances.iter().filter_map(|i| model.meshes.get(i.mesh)).map(vertices).sum();
        let by_corners = placed > PLACED_VERTICES_BOXED;
        let own: Vec<Bounds> = model.meshes.iter().map(|m| boxed(m.primitives.iter().flat_map(|p| p.positions.iter().copied()))).collect();
        let radius: Vec<f32> = model.meshes.iter().zip(&own).map(|(m, b)| farthest_from_centre(m.primitives.iter().flat_map(|p| &p.positions), b)).collect();
        let rest = world_matrices(model, None);
        let mut bounds = Bounds::empty();
        // Per mesh: how much its skinned places scale it, and the linear maps of its other places.
        let mut skinned_scale: Vec<Option<f32>> = vec![None; model.meshes.len()];
        let mut linear: Vec<Vec<[f32; 16]>> = vec![Vec::new(); model.meshes.len()];
        // Each unskinned place: its mesh, its world matrix and the box of its mesh's box corners placed.
        let mut placed_boxes: Vec<(usize, [f32; 16], Bounds)> = Vec::new();
        for instance in &instances {
            let Some(mesh) = model.meshes.get(instance.mesh) else { continue };
            match model.nodes.get(instance.node).and_then(|n| n.skin).and_then(|s| model.skins.get(s)) {
                // A skinned mesh is where its joints put it; the node's own transform is ignored.
                Some(skin) => {
                    let joints = joint_matrices(skin, &rest);
                    let mut b = Bounds::empty();
                    for p in &mesh.primitives {
                        let at = skinned(p, &joints).unwrap_or_else(|| p.positions.iter().map(|&q| transform_point(&instance.world, q)).collect());
                        at.iter().for_each(|&q| b.add(q));
                    }
                    bounds.merge(&b);
                    let ratio = b.extent() / own[instance.mesh].extent();
                    if ratio.is_finite() && ratio > 0.0 {
                        let s = &mut skinned_scale[instance.mesh];
                        *s = Some(s.map_or(ratio, |s| s.max(ratio)));
                    }
                }
                None => {
                    placed_boxes.push((instance.mesh, instance.world, corner_box(&own[instance.mesh], radius[instance.mesh], &instance.world)));
                    linear[instance.mesh].push(linear_part(&instance.world));
                }
            }
        }
        match by_corners {
            true => placed_boxes.iter().for_each(|(_, _, b)| bounds.merge(b)),
            false => bounds.merge(&placed_vertices_box(model, &placed_boxes)),
        }
        let (mut scale, mut shape) = (Vec::with_capacity(own.len()), Vec::with_capacity(own.len()));
        for ((own, skinned), linear) in own.iter().zip(skinned_scale).zip(&linear) {
            if skinned.is_none() && linear.is_empty() {
                // A mesh no node places (outside the scene) counts as it stands, so that it still has a size.
                bounds.merge(own);
            }
            let (s, m) = shaped(linear);
            let s = match (s, skinned) {
                (Some(s), Some(k)) => Some(s.max(k)),
                (s, k) => s.or(k),
            };
            scale.push(s.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(1.0));
            shape.push(m.filter(|_| skinned.is_none()));
        }
        ModelSize { extent: bounds.extent(), scale, shape }
    }

    /// `share` of the model's size, in the units mesh `mesh` is simplified in.
    pub fn in_mesh(&self, mesh: usize, share: f32) -> f32 {
        share * self.extent.max(f32::MIN_POSITIVE) / self.scale_of(mesh)
    }

    /// A length in the units mesh `mesh` is simplified in as a share of the model's size (at most,
    /// where the mesh is placed at several scales).
    pub fn share(&self, mesh: usize, length: f32) -> f32 {
        length * self.scale_of(mesh) / self.extent.max(f32::MIN_POSITIVE)
    }

    /// The linear map to simplify mesh `mesh`'s positions through, where its places stretch it unevenly.
    pub fn shape(&self, mesh: usize) -> Option<&[f32; 16]> {
        self.shape.get(mesh).and_then(Option::as_ref)
    }

    fn scale_of(&self, mesh: usize) -> f32 {
        self.scale.get(mesh).copied().unwrap_or(1.0)
    }
}

/// For a mesh's places (their linear maps): the space to simplify it in (None: its own, where
/// every place stretches it evenly or one flattens it) and the most a unit of that space measures
/// at any of its places; None for a mesh with no places.
fn shaped(linear: &[[f32; 16]]) -> (Option<f32>, Option<[f32; 16]>) {
    let stretches: Vec<f64> = linear.iter().map(stretch).collect();
    let Some((widest, &most)) = stretches.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else { return (None, None) };
    let own = Some(most as f32);
    if linear.iter().all(stretches_evenly) {
        return (own, None);
    }
    let Some(back) = inverse_linear(&linear[widest]) else { return (own, None) };
    let most = linear.iter().map(|m| stretch(&mul(m, &back)) as f32).fold(1.0f32, f32::max);
    (Some(most), Some(linear[widest]))
}

/// The box of every vertex of the `places` (mesh, world matrix, box of its mesh's box corners
/// placed) placed, exactly as boxing each placed vertex gives it, placing the vertices of few
/// places. A place's corner box holds its placed vertices (up to rounding, which `slack` covers), so
/// a place whose corner box lies inside the box of the vertices placed so far can add nothing to it
/// and is passed over: the places reaching farthest on each side are placed first, and after them
/// usually every other one passes (instanced: 400 places of a 561-vertex rock, 0.6 ms of its 4.9
/// boxing each vertex, session 40).
fn placed_vertices_box(model: &Model, places: &[(usize, [f32; 16], Bounds)]) -> Bounds {
    let mut exact = Bounds::empty();
    let mut done = vec![false; places.len()];
    let mut place = |i: usize, exact: &mut Bounds| {
        if !std::mem::replace(&mut done[i], true) {
            let (mesh, world, _) = &places[i];
            model.meshes[*mesh].primitives.iter().flat_map(|p| &p.positions).for_each(|&q| exact.add(transform_point(world, q)));
        }
    };
    let reaching = |side: usize| {
        let (k, low) = (side % 3, side < 3);
        (0..places.len()).min_by(|&a, &b| {
            let (x, y) = (&places[a].2, &places[b].2);
            if low {
                x.min[k].total_cmp(&y.min[k])
            } else {
                y.max[k].total_cmp(&x.max[k])
            }
        })
    };
    for side in 0..6 {
        if let Some(i) = reaching(side) {
            place(i, &mut exact);
        }
    }
    for (i, (_, _, corners)) in places.iter().enumerate() {
        let slack = corners.min.iter().chain(&corners.max).map(|c| c.abs()).fold(corners.extent(), f32::max) * 1e-5;
        let inside = (0..3).all(|k| corners.min[k] - slack >= exact.min[k] && corners.max[k] + slack <= exact.max[k]);
        if !inside {
            place(i, &mut exact);
        }
    }
    exact
}

/// A box that holds the vertices of a mesh (`own` its box, `radius` how far its vertices lie from
/// that box's centre at most) placed by `world`: the box of its box's corners placed, cut down to
/// the box of its bounding sphere placed where that is tighter (a rounded mesh turned 45 degrees:
/// its corners' box is up to 1.7 times its own size on a side).
fn corner_box(own: &Bounds, radius: f32, world: &[f32; 16]) -> Bounds {
    let mut placed = boxed(corners(own).into_iter().map(|c| transform_point(world, c)));
    if own.is_empty() {
        return placed;
    }
    let centre = centre_of(own);
    let radius = (radius as f64 * stretch_at_most(&linear_part(world)) * (1.0 + 1e-6)) as f32;
    let at = transform_point(world, centre);
    for (k, centre) in at.into_iter().enumerate() {
        placed.min[k] = placed.min[k].max(centre - radius);
        placed.max[k] = placed.max[k].min(centre + radius);
    }
    placed
}

/// How far the farthest of `points` lies from the centre of `b` (their box).
fn farthest_from_centre<'a>(points: impl Iterator<Item = &'a [f32; 3]>, b: &Bounds) -> f32 {
    let c = centre_of(b);
    points.map(|q| (0..3).map(|k| (q[k] - c[k]) * (q[k] - c[k])).sum::<f32>()).fold(0.0, f32::max).sqrt()
}

fn centre_of(b: &Bounds) -> [f32; 3] {
    [0, 1, 2].map(|k| (b.min[k] + b.max[k]) / 2.0)
}

fn boxed(points: impl Iterator<Item = [f32; 3]>) -> Bounds {
    let mut b = Bounds::empty();
    points.for_each(|p| b.add(p));
    b
}

fn corners(b: &Bounds) -> Vec<[f32; 3]> {
    if b.is_empty() {
        return Vec::new();
    }
    (0..8).map(|k| [0, 1, 2].map(|c| if k >> c & 1 == 0 { b.min[c] } else { b.max[c] })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::compose;
    use crate::model::{Node, Primitive};
    use crate::test_random::uniform;

    fn cube(size: f32) -> Mesh {
        let positions = (0..8).map(|k| [0, 1, 2].map(|c| if k >> c & 1 == 0 { 0.0 } else { size })).collect();
        Mesh {
            primitives: vec![Primitive { positions, attributes: vec![], indices: vec![0, 1, 2], material: None, variant_materials: Vec::new() }],
            ..Mesh::default()
        }
    }

    fn node(mesh: usize, matrix: [f32; 16], children: Vec<usize>) -> Node {
        Node { matrix, children, ..Node::with_mesh(None, mesh) }
    }

    /// A 10-unit box and a 1-unit one placed twice, once at twice its size: the model is 10 units
    /// (the small box stays inside), and a share of it is 5 and 10 times as long in the small
    /// box's units as in the world, at its larger place.
    #[test]
    fn a_share_of_the_model_is_measured_in_each_meshs_units_at_its_largest_place() {
        let mut model = Model::new(crate::model::SourceFormat::Glb);
        model.meshes = vec![cube(10.0), cube(1.0)];
        let twice = compose([2.0, 2.0, 2.0], [0.0, 0.0, 0.0, 1.0], [2.0; 3]);
        let once = compose([5.0, 5.0, 5.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        model.nodes = vec![node(0, crate::model::IDENTITY, vec![1, 2]), node(1, twice, vec![]), node(1, once, vec![])];
        model.roots = vec![0];
        let size = ModelSize::of(&model);
        assert_eq!(size.extent, 10.0);
        let near = |a: f32, b: f32| (a - b).abs() <= 1e-6 * b;
        assert!(near(size.in_mesh(0, 0.01), 0.1), "{}", size.in_mesh(0, 0.01));
        assert!(near(size.in_mesh(1, 0.01), 0.05), "{}", size.in_mesh(1, 0.01));
        assert!(near(size.share(1, 0.05), 0.01), "{}", size.share(1, 0.05));
    }

    /// A box placed stretched [3, 1, 1] and once more stretched [1, 2, 1]: simplified as the first
    /// place shows it, where a unit is 1 at that place and up to 2 at the other.
    #[test]
    fn a_mesh_placed_stretched_is_simplified_as_its_most_stretching_place_shows_it() {
        let mut model = Model::new(crate::model::SourceFormat::Glb);
        model.meshes = vec![cube(1.0)];
        let long = compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [3.0, 1.0, 1.0]);
        let tall = compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0, 2.0, 1.0]);
        model.nodes = vec![node(0, long, vec![]), node(0, tall, vec![])];
        model.roots = vec![0, 1];
        let size = ModelSize::of(&model);
        assert_eq!(size.extent, 3.0);
        assert_eq!(size.shape(0), Some(&long));
        // x3 then back: [1, 1/3, 1]·[1, 2, 1] stretches y by 2 at the tall place.
        assert!((size.in_mesh(0, 0.01) - 0.015).abs() < 1e-6, "{}", size.in_mesh(0, 0.01));
        // Evenly scaled places keep the mesh's own space.
        model.nodes = vec![node(0, compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [2.0; 3]), vec![])];
        model.roots = vec![0];
        assert_eq!(ModelSize::of(&model).shape(0), None);
    }

    /// A mesh outside the scene has a size of its own in the model's.
    #[test]
    fn a_mesh_no_node_places_counts_as_it_stands() {
        let mut model = Model::new(crate::model::SourceFormat::Glb);
        model.meshes = vec![cube(4.0)];
        let size = ModelSize::of(&model);
        assert_eq!(size.extent, 4.0);
        assert!((size.in_mesh(0, 0.5) - 2.0).abs() < 1e-6);
    }

    /// Hundreds of places of a lumpy, off-centre mesh, turned, stretched and spread: the model's box
    /// is exactly the box of every placed vertex, though few places have their vertices placed.
    #[test]
    fn the_placed_box_is_every_placed_vertex_boxed() {
        let mut next = uniform(17);
        let positions: Vec<[f32; 3]> = (0..200).map(|_| [next() * 3.0 + 1.0, next() * 0.5 - 2.0, next() * next()]).collect();
        let mesh = Mesh {
            primitives: vec![Primitive {
                positions: positions.clone(),
                attributes: vec![],
                indices: vec![0, 1, 2],
                material: None,
                variant_materials: Vec::new(),
            }],
            ..Mesh::default()
        };
        for (places, evenly) in [(300, true), (300, false), (7, false)] {
            let mut model = Model::new(crate::model::SourceFormat::Glb);
            model.meshes = vec![mesh.clone()];
            let mut brute = Bounds::empty();
            for _ in 0..places {
                let axis = [next() - 0.5, next() - 0.5, next() - 0.5];
                let length = axis.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-3);
                let angle = next() * 3.0;
                let q = [0, 1, 2].map(|k| axis[k] / length * angle.sin()).into_iter().chain([angle.cos()]).collect::<Vec<f32>>();
                let scale = if evenly { [0.5 + next(); 3] } else { [0.5 + next(), 0.5 + next() * 3.0, 0.2 + next()] };
                let world = compose([next() * 40.0 - 20.0, next() * 5.0, next() * 40.0], [q[0], q[1], q[2], q[3]], scale);
                positions.iter().for_each(|&p| brute.add(transform_point(&world, p)));
                model.nodes.push(node(0, world, vec![]));
            }
            model.roots = (0..places).collect();
            assert_eq!(ModelSize::of(&model).extent, brute.extent(), "{places} places");
            let own = Bounds::of(&positions);
            let radius = farthest_from_centre(positions.iter(), &own);
            let boxes: Vec<(usize, [f32; 16], Bounds)> = model.nodes.iter().map(|n| (0, n.matrix, corner_box(&own, radius, &n.matrix))).collect();
            assert_eq!(placed_vertices_box(&model, &boxes), brute, "{places} places");
        }
    }

    /// Boxed by its corners past the vertex budget, a rotated instance's box is never smaller.
    #[test]
    fn corner_boxes_hold_every_vertex() {
        let b = Bounds::of(&[[0.0, -1.0, 2.0], [3.0, 4.0, 5.0]]);
        let c = corners(&b);
        assert_eq!(c.len(), 8);
        assert_eq!(Bounds::of(&c), b);
    }
}
