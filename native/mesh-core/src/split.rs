//! Cutting a model into parts. Every mesh instance is placed in world space and its primitives
//! joined into one face set; faces are grouped into loose pieces by union-find over shared
//! (welded) vertices; optionally each piece is cut further by the segmentation core; then parts
//! below the size floor, and the smallest parts beyond the ceiling, merge into the nearest part.
use crate::bake::BakedObject;
use crate::math::{cross, dot, face_normal, length, sub, Bounds};
use crate::part_grid::PartGrid;
use crate::topology::UnionFind;
use std::collections::{BinaryHeap, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preprocess {
    Auto,
    On,
    Off,
}

/// All faces of all objects in one list over one vertex list.
pub struct FaceSet {
    pub positions: Vec<[f32; 3]>,
    pub object_of_vertex: Vec<u32>,
    /// Three global vertex ids per face.
    pub faces: Vec<[u32; 3]>,
    /// Index into the flattened list of all objects' primitives, and the face within it.
    pub primitive_of_face: Vec<u32>,
    pub local_face: Vec<u32>,
    pub area: Vec<f32>,
}

pub fn face_set(objects: &[BakedObject]) -> FaceSet {
    let mut s = FaceSet {
        positions: Vec::new(),
        object_of_vertex: Vec::new(),
        faces: Vec::new(),
        primitive_of_face: Vec::new(),
        local_face: Vec::new(),
        area: Vec::new(),
    };
    let primitives = objects.iter().enumerate().flat_map(|(oi, o)| o.primitives.iter().map(move |p| (oi, p)));
    for (pi, (oi, p)) in primitives.enumerate() {
        let base = s.positions.len() as u32;
        s.positions.extend_from_slice(&p.positions);
        s.object_of_vertex.extend(std::iter::repeat_n(oi as u32, p.positions.len()));
        for (fi, t) in p.indices.chunks_exact(3).enumerate() {
            let f = [t[0] + base, t[1] + base, t[2] + base];
            s.area.push(0.5 * length(face_normal(s.positions[f[0] as usize], s.positions[f[1] as usize], s.positions[f[2] as usize])));
            s.faces.push(f);
            s.primitive_of_face.push(pi as u32);
            s.local_face.push(fi as u32);
        }
    }
    s
}

/// Vertex ids after welding within each object: `Off` keeps the file's own sharing, `Auto`
/// merges bit-identical positions, `On` merges positions within a millionth of the model size.
pub fn weld(set: &FaceSet, mode: Preprocess, model_extent: f32) -> Vec<u32> {
    let cell = (model_extent * 1e-6).max(f32::MIN_POSITIVE);
    let mut first: HashMap<([i64; 3], u32), u32> = HashMap::with_capacity(set.positions.len());
    set.positions
        .iter()
        .zip(&set.object_of_vertex)
        .enumerate()
        .map(|(i, (p, &object))| {
            let key = match mode {
                Preprocess::Off => return i as u32,
                Preprocess::Auto => p.map(|c| if c == 0.0 { 0 } else { c.to_bits() as i64 }),
                Preprocess::On => p.map(|c| (c / cell).round() as i64),
            };
            *first.entry((key, object)).or_insert(i as u32)
        })
        .collect()
}

/// Faces to leave out: zero-area faces (Auto and On) and repeated faces (On).
pub fn faces_to_drop(set: &FaceSet, welded: &[u32], mode: Preprocess) -> Vec<bool> {
    let mut seen: HashMap<[u32; 3], ()> = HashMap::new();
    set.faces
        .iter()
        .zip(&set.area)
        .map(|(f, &area)| {
            if mode == Preprocess::Off {
                return false;
            }
            let w = f.map(|v| welded[v as usize]);
            let degenerate = area == 0.0 || w[0] == w[1] || w[1] == w[2] || w[0] == w[2];
            let mut key = w;
            key.sort_unstable();
            degenerate || (mode == Preprocess::On && seen.insert(key, ()).is_some())
        })
        .collect()
}

/// Labels faces by loose piece (dense from 0); dropped faces get u32::MAX.
pub fn pieces(set: &FaceSet, welded: &[u32], dropped: &[bool]) -> (Vec<u32>, usize) {
    let mut uf = UnionFind::new(set.positions.len());
    for (f, _) in set.faces.iter().zip(dropped).filter(|(_, &d)| !d) {
        uf.union(welded[f[0] as usize], welded[f[1] as usize]);
        uf.union(welded[f[1] as usize], welded[f[2] as usize]);
    }
    let mut dense: HashMap<u32, u32> = HashMap::new();
    let labels = set
        .faces
        .iter()
        .zip(dropped)
        .map(|(f, &d)| {
            if d {
                return u32::MAX;
            }
            let root = uf.find(welded[f[0] as usize]);
            let next = dense.len() as u32;
            *dense.entry(root).or_insert(next)
        })
        .collect();
    (labels, dense.len())
}

/// A part under construction: faces of one object.
#[derive(Clone, Debug)]
pub struct Part {
    pub object: usize,
    pub faces: Vec<u32>,
    pub area: f64,
    pub bounds: Bounds,
}

fn gap(a: &Bounds, b: &Bounds) -> f32 {
    let d: [f32; 3] = [0, 1, 2].map(|k| (a.min[k] - b.max[k]).max(b.min[k] - a.max[k]).max(0.0));
    length(d)
}

/// A part waiting to merge: smallest area first, then the earliest part.
struct Waiting {
    area: f64,
    part: usize,
    /// The part's merge count when this entry was made; a grown part has a newer entry.
    version: u32,
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Waiting {}

impl Ord for Waiting {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: BinaryHeap pops its greatest.
        other.area.total_cmp(&self.area).then(other.part.cmp(&self.part))
    }
}

impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Merges parts below the floors (least area first), then the smallest parts until at most
/// `max_parts` remain, each into the nearest other part: of the same object where it has one,
/// then by bounding-box gap, then by distance between centres, then the earliest. Returns how many
/// parts were merged away; the parts left keep their order. A heap gives the next part to merge
/// and grids of the parts' bounds and centres its nearest (`part_grid.rs`): 100,000 loose pieces
/// took 54 s when each merge scanned every part for both.
pub fn consolidate(parts: &mut Vec<Part>, min_faces: usize, min_area: f64, max_parts: usize) -> usize {
    let before = parts.len();
    let mut grid = PartGrid::new(&parts.iter().map(|p| p.bounds).collect::<Vec<_>>());
    let mut alive = vec![true; before];
    let mut version = vec![0u32; before];
    let mut of_object: HashMap<usize, usize> = HashMap::new();
    parts.iter().for_each(|p| *of_object.entry(p.object).or_default() += 1);
    let mut left = before;
    let under_floor = |p: &Part| p.faces.len() < min_faces || p.area < min_area;
    for floors_only in [true, false] {
        let waits = |p: &Part| !floors_only || under_floor(p);
        let mut queue: BinaryHeap<Waiting> =
            (0..before).filter(|&i| alive[i] && waits(&parts[i])).map(|i| Waiting { area: parts[i].area, part: i, version: version[i] }).collect();
        while left > if floors_only { 1 } else { max_parts.max(1) } {
            let Some(next) = queue.pop() else { break };
            let from = next.part;
            if !alive[from] || next.version != version[from] {
                continue;
            }
            let source = &parts[from];
            let same_object = of_object[&source.object] > 1;
            let accept = |i: usize| i != from && alive[i] && (!same_object || parts[i].object == source.object);
            let key = |i: usize| (gap(&parts[i].bounds, &source.bounds), length(sub(parts[i].bounds.center(), source.bounds.center())));
            let target = grid.nearest(&source.bounds, accept, key).expect("another part is left");
            let source = std::mem::take(&mut parts[from].faces);
            let (area, bounds) = (parts[from].area, parts[from].bounds);
            alive[from] = false;
            grid.remove(from);
            left -= 1;
            *of_object.get_mut(&parts[from].object).expect("counted") -= 1;
            let t = &mut parts[target];
            t.faces.extend_from_slice(&source);
            t.area += area;
            t.bounds.merge(&bounds);
            version[target] += 1;
            grid.grown(target, &t.bounds);
            if waits(t) {
                queue.push(Waiting { area: t.area, part: target, version: version[target] });
            }
        }
    }
    let mut index = 0;
    parts.retain(|_| {
        index += 1;
        alive[index - 1]
    });
    before - parts.len()
}

/// Volume enclosed by the faces (divergence theorem; meaningful for closed surfaces).
pub fn signed_volume(positions: &[[f32; 3]], faces: impl Iterator<Item = [u32; 3]>) -> f64 {
    faces.map(|f| dot(positions[f[0] as usize], cross(positions[f[1] as usize], positions[f[2] as usize])) as f64 / 6.0).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Primitive;

    fn tetra(offset: f32) -> Primitive {
        let positions = vec![[offset, 0.0, 0.0], [offset + 1.0, 0.0, 0.0], [offset, 1.0, 0.0], [offset, 0.0, 1.0]];
        Primitive { positions, indices: vec![0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], ..Primitive::default() }
    }

    #[test]
    fn two_loose_tetrahedra_are_two_pieces_of_volume_one_sixth() {
        let object = BakedObject { name: None, primitives: vec![tetra(0.0), tetra(5.0)] };
        let set = face_set(&[object]);
        let welded = weld(&set, Preprocess::Auto, 6.0);
        let dropped = faces_to_drop(&set, &welded, Preprocess::Auto);
        let (labels, count) = pieces(&set, &welded, &dropped);
        assert_eq!(count, 2);
        assert_eq!(labels, vec![0, 0, 0, 0, 1, 1, 1, 1]);
        let v = signed_volume(&set.positions, set.faces[..4].iter().copied());
        assert!((v - 1.0 / 6.0).abs() < 1e-6, "{v}");
    }

    /// The consolidation as first written, scanning every part for each merge: the reference the
    /// heap and grid must agree with, part for part and face for face.
    fn consolidate_by_scanning(parts: &mut Vec<Part>, min_faces: usize, min_area: f64, max_parts: usize) {
        let merge_into_nearest = |parts: &mut Vec<Part>, from: usize| {
            let source = parts.remove(from);
            let score = |p: &Part| (p.object != source.object, gap(&p.bounds, &source.bounds), length(sub(p.bounds.center(), source.bounds.center())));
            let target = (0..parts.len()).min_by(|&a, &b| score(&parts[a]).partial_cmp(&score(&parts[b])).unwrap_or(std::cmp::Ordering::Equal)).unwrap();
            let t = &mut parts[target];
            t.faces.extend_from_slice(&source.faces);
            t.area += source.area;
            t.bounds.merge(&source.bounds);
        };
        while parts.len() > 1 {
            let small = (0..parts.len())
                .filter(|&i| parts[i].faces.len() < min_faces || parts[i].area < min_area)
                .min_by(|&a, &b| parts[a].area.total_cmp(&parts[b].area));
            let Some(i) = small else { break };
            merge_into_nearest(parts, i);
        }
        while parts.len() > max_parts.max(1) {
            let smallest = (0..parts.len()).min_by(|&a, &b| parts[a].area.total_cmp(&parts[b].area)).unwrap();
            merge_into_nearest(parts, smallest);
        }
    }

    #[test]
    fn consolidation_agrees_with_scanning_every_part_on_varied_layouts() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let coordinate = |next: &mut dyn FnMut() -> u64| (next() % 10_000) as f32 / 100.0;
        for round in 0..120 {
            // Overlapping parts by the thousand, so that the nearest touching part is found by
            // centre (part_grid.rs) as well as by reading all.
            let n = if round % 6 == 5 { 1000 + (next() % 2000) as usize } else { 1 + (next() % 400) as usize };
            let objects = 1 + (next() % 4) as usize;
            // Layouts: a spread in 3D, a flat sheet, a line, a tight cluster with a few far away,
            // one point, parts overlapping by the hundred; sizes from specks to parts spanning the
            // scene; areas with ties.
            let layout = round % 6;
            let mut parts: Vec<Part> = (0..n)
                .map(|i| {
                    let mut at = [coordinate(&mut next), coordinate(&mut next), coordinate(&mut next)];
                    match layout {
                        1 => at[2] = 0.0,
                        2 => at = [at[0], 0.0, 0.0],
                        3 if i % 50 != 0 => at = at.map(|c| c * 0.01),
                        4 => at = [1.0; 3],
                        _ => {}
                    }
                    let size = coordinate(&mut next) * if layout == 5 || next() % 10 == 0 { 1.0 } else { 0.02 };
                    let faces = 1 + (next() % 30) as usize;
                    Part {
                        object: (next() % objects as u64) as usize,
                        faces: (0..faces as u32).map(|f| i as u32 * 100 + f).collect(),
                        area: (next() % 20) as f64,
                        bounds: Bounds { min: at, max: at.map(|c| c + size) },
                    }
                })
                .collect();
            let (min_faces, min_area, max_parts) = ((next() % 12) as usize, (next() % 6) as f64, 1 + (next() % 40) as usize);
            let mut expected = parts.clone();
            consolidate_by_scanning(&mut expected, min_faces, min_area, max_parts);
            let merged = consolidate(&mut parts, min_faces, min_area, max_parts);
            assert_eq!(merged, n - expected.len(), "round {round}");
            let faces = |ps: &[Part]| ps.iter().map(|p| (p.object, p.faces.clone())).collect::<Vec<_>>();
            assert_eq!(faces(&parts), faces(&expected), "round {round}: layout {layout}, {n} parts");
        }
    }

    #[test]
    fn a_hundred_thousand_loose_pieces_consolidate_in_one_pass() {
        let parts: Vec<Part> = (0..100_000)
            .map(|i| {
                // Rows of small pieces a little apart, as the instanced rows of a scene.
                let at = [(i % 1000) as f32 * 0.01, (i / 1000) as f32 * 0.3, 0.0];
                Part { object: i, faces: vec![i as u32], area: 0.5, bounds: Bounds { min: at, max: [at[0] + 0.02, at[1] + 0.02, 0.0] } }
            })
            .collect();
        let mut consolidated = parts.clone();
        let started = std::time::Instant::now();
        assert_eq!(consolidate(&mut consolidated, 0, 0.0, 64), 100_000 - 64);
        // Scanning every part took minutes here; the grid takes well under a second.
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        assert_eq!(consolidated.iter().map(|p| p.faces.len()).sum::<usize>(), 100_000);
    }

    #[test]
    fn small_parts_merge_into_the_nearest_and_the_ceiling_holds() {
        let part = |faces: usize, x: f32| Part {
            object: 0,
            faces: (0..faces as u32).collect(),
            area: faces as f64,
            bounds: Bounds { min: [x, 0.0, 0.0], max: [x + 1.0, 1.0, 1.0] },
        };
        let mut parts = vec![part(100, 0.0), part(2, 1.5), part(100, 10.0), part(50, 20.0)];
        let merged = consolidate(&mut parts, 10, 0.0, 2);
        assert_eq!(merged, 2);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].faces.len(), 102);
        assert_eq!(parts.iter().map(|p| p.faces.len()).sum::<usize>(), 252);
    }
}
