//! The attributes of a vertex the collapse placed (`Placed`). meshoptimizer moves such a vertex
//! to where the quadrics of the faces it took over meet best, along the surface as well as across
//! it, and kiln kept its other attributes as they were: on a texture that tiles, a move of a
//! fraction of a face slid the texture under it by many texels (SheenCloth, tiled 30 times:
//! 32 texels, session 38's bench/mesh/texcoords.ts; gltfpack, which does not place, 0). Now each
//! moved vertex takes the texture coordinates, normal, tangent and colour of the source surface
//! where it now lies: at the point nearest it on the source faces around it, interpolated between
//! their corners. Those faces are its own (a placed vertex is inside a surface, on no seam), so
//! the values come from its own texture chart. Other attributes (skin weights, morph deltas,
//! custom data) are kept: only a vertex of a still, unskinned surface is placed.
use crate::model::Primitive;
use crate::surface_distance::closest_weights;

/// Whether an attribute varies smoothly over the surface, so that a value between corners is
/// their weighted mean.
fn follows_surface(semantic: &str) -> bool {
    semantic == "NORMAL" || semantic == "TANGENT" || semantic.starts_with("TEXCOORD_") || semantic.starts_with("COLOR_")
}

/// Sets the attributes of the `moved` vertices of `placed` (a copy of `source` with those
/// vertices' positions changed) to the source surface's at their new places.
pub(super) fn read_off_source(source: &Primitive, placed: &mut Primitive, moved: &[u32]) {
    let columns: Vec<usize> = (0..source.attributes.len()).filter(|&i| follows_surface(&source.attributes[i].semantic)).collect();
    if columns.is_empty() || moved.is_empty() {
        return;
    }
    // The source faces around each moved vertex: those of moved[k] are faces[starts[k]..starts[k + 1]].
    let mut slot = vec![u32::MAX; source.positions.len()];
    moved.iter().enumerate().for_each(|(k, &v)| slot[v as usize] = k as u32);
    let mut starts = vec![0u32; moved.len() + 1];
    source.indices.iter().filter(|&&v| slot[v as usize] != u32::MAX).for_each(|&v| starts[slot[v as usize] as usize + 1] += 1);
    for k in 0..moved.len() {
        starts[k + 1] += starts[k];
    }
    let mut next = starts.clone();
    let mut faces = vec![0u32; starts[moved.len()] as usize];
    for (i, &v) in source.indices.iter().enumerate() {
        let k = slot[v as usize] as usize;
        if k != u32::MAX as usize {
            faces[next[k] as usize] = (i / 3) as u32;
            next[k] += 1;
        }
    }
    for (k, &v) in moved.iter().enumerate() {
        let q = placed.positions[v as usize];
        let nearest = faces[starts[k] as usize..starts[k + 1] as usize]
            .iter()
            .filter_map(|&t| {
                let corners = [0, 1, 2].map(|c| source.indices[t as usize * 3 + c] as usize);
                let w = closest_weights(q, source.positions[corners[0]], source.positions[corners[1]], source.positions[corners[2]])?;
                let at = [0, 1, 2].map(|c| (0..3).map(|j| w[j] * source.positions[corners[j]][c]).sum::<f32>());
                let d2: f32 = (0..3).map(|c| (q[c] - at[c]) * (q[c] - at[c])).sum();
                Some((d2, corners, w))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, corners, w)) = nearest else { continue };
        for &i in &columns {
            let (from, to) = (&source.attributes[i], &mut placed.attributes[i]);
            let n = from.components;
            let value = &mut to.data[v as usize * n..v as usize * n + n];
            for (c, x) in value.iter_mut().enumerate() {
                *x = (0..3).map(|j| w[j] * from.data[corners[j] * n + c]).sum();
            }
            if from.semantic == "TANGENT" && n == 4 {
                // The handedness is the vertex's own, not a mean.
                value[3] = from.data[v as usize * n + 3];
            }
            if from.semantic == "NORMAL" || from.semantic == "TANGENT" {
                let length = value[..3].iter().map(|x| x * x).sum::<f32>().sqrt();
                if length > f32::MIN_POSITIVE {
                    value[..3].iter_mut().for_each(|x| *x /= length);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::simplify_primitive;
    use super::super::tests::grid;
    use super::*;
    use crate::model::Attribute;
    use crate::surface_distance::distance2_to_triangle;

    #[test]
    fn a_vertex_moved_along_a_flat_surface_takes_the_coordinates_of_its_new_place() {
        // grid(10): UV = position / 10. Vertex (5, 5) moves by a third of a face along x and y.
        let source = grid(10);
        let mut g = source.clone();
        g.attributes.push(Attribute { semantic: "NORMAL".into(), components: 3, data: [0.0, 0.0, 1.0].repeat(g.positions.len()) });
        g.attributes.push(Attribute { semantic: "_ID".into(), components: 1, data: (0..g.positions.len()).map(|v| v as f32).collect() });
        let source_with = g.clone();
        let v = 5 * 11 + 5;
        g.positions[v] = [5.3, 5.2, 0.0];
        read_off_source(&source_with, &mut g, &[v as u32]);
        let uv = &g.attributes[0].data[v * 2..v * 2 + 2];
        assert!((uv[0] - 0.53).abs() < 1e-6 && (uv[1] - 0.52).abs() < 1e-6, "{uv:?}");
        assert_eq!(&g.attributes[1].data[v * 3..v * 3 + 3], &[0.0, 0.0, 1.0]);
        assert_eq!(g.attributes[2].data[v], v as f32, "data that is not a field over the surface is kept");
        // The other vertices keep theirs.
        assert_eq!(g.attributes[0].data[..v * 2], source.attributes[0].data[..v * 2]);
    }

    #[test]
    fn a_simplified_bumpy_tiled_surface_keeps_its_texture_where_it_was() {
        // A 40 x 40 heightfield of gentle bumps, its UVs tiling 30 times across: where the
        // collapse places vertices, each one's UV must be the source's at its place.
        let n = 40;
        let mut g = grid(n);
        g.positions.iter_mut().for_each(|q| q[2] = 0.8 * (q[0] * 0.37).sin() * (q[1] * 0.29).cos());
        g.attributes[0].data.iter_mut().for_each(|x| *x *= 30.0);
        let s = simplify_primitive(&g, g.face_count() / 10, 0.05, false);
        // The UV of the source surface nearest each output vertex (all faces searched).
        let truth = |q: [f32; 3]| {
            let (_, t, w) = (0..g.face_count())
                .filter_map(|t| {
                    let c = [0, 1, 2].map(|k| g.positions[g.indices[t * 3 + k] as usize]);
                    Some((distance2_to_triangle(q, c[0], c[1], c[2]), t, closest_weights(q, c[0], c[1], c[2])?))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .expect("faces");
            [0, 1].map(|k| (0..3).map(|j| w[j] * g.attributes[0].data[g.indices[t * 3 + j] as usize * 2 + k]).sum::<f32>())
        };
        let worst = (0..s.primitive.positions.len())
            .map(|v| {
                let want = truth(s.primitive.positions[v]);
                let uv = &s.primitive.attributes[0].data[v * 2..v * 2 + 2];
                (uv[0] - want[0]).abs().max((uv[1] - want[1]).abs())
            })
            .fold(0.0f32, f32::max);
        // A UV unit is a tile; 0.02 of one is a texel of a 50-texel tile.
        assert!(worst < 0.02, "a vertex's UV is {worst} of a tile from the surface's at its place");
    }
}
