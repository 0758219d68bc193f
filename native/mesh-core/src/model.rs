//! The in-memory scene every reader produces and every writer and tool consumes:
//! glTF-shaped (meshes of triangle primitives placed by a node tree), with materials and
//! textures kept as glTF JSON so they pass through untouched.
use serde_json::Value;

/// A per-vertex attribute other than the position, decoded to floats.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// glTF semantic: NORMAL, TANGENT, TEXCOORD_n, COLOR_n, JOINTS_n (joint indices into the
    /// node's skin, stored as exact small integers) or WEIGHTS_n; or a morph target's delta of
    /// POSITION, NORMAL or TANGENT, named by `target_semantic`.
    pub semantic: String,
    pub components: usize,
    /// `components` floats per vertex.
    pub data: Vec<f32>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Primitive {
    pub positions: Vec<[f32; 3]>,
    pub attributes: Vec<Attribute>,
    /// Triangle list.
    pub indices: Vec<u32>,
    pub material: Option<usize>,
    /// KHR_materials_variants: the material each of the model's `variants` draws the primitive
    /// with instead of `material` (a product configurator's colours and finishes). Every step that
    /// keeps the primitive keeps these; a vertex layout is shared by all of them.
    pub variant_materials: Vec<VariantMaterial>,
}

/// The extension that names material variants.
pub const VARIANTS: &str = "KHR_materials_variants";

/// One mapping of KHR_materials_variants: under each of `variants` (indices into
/// `Model::variants`), the primitive is drawn with `material`.
/// Serialized as glTF writes a mapping (`{"material", "variants"}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct VariantMaterial {
    pub material: usize,
    pub variants: Vec<usize>,
}

/// Morph target deltas ride along as ordinary per-vertex attributes under this prefix, so that
/// every step that merges, reorders, drops or interpolates vertices (welding, cache and fetch
/// order, simplification, debris removal) treats them exactly as it treats normals or UVs; only
/// the GLB writer and the tools that bake geometry into static outputs tell them apart.
const TARGET_PREFIX: &str = "TARGET";

/// The attribute semantic holding morph target `target`'s delta of `semantic` (POSITION, NORMAL, TANGENT).
pub fn target_semantic(target: usize, semantic: &str) -> String {
    format!("{TARGET_PREFIX}{target}:{semantic}")
}

/// The morph target and base semantic of an attribute made by `target_semantic`, if it is one.
pub fn target_of(semantic: &str) -> Option<(usize, &str)> {
    let (target, base) = semantic.strip_prefix(TARGET_PREFIX)?.split_once(':')?;
    Some((target.parse().ok()?, base))
}

impl Primitive {
    pub fn face_count(&self) -> usize {
        self.indices.len() / 3
    }

    pub fn attribute(&self, semantic: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.semantic == semantic)
    }

    /// Every material the primitive may be drawn with: its own, then its variants' (repeats
    /// possible).
    pub fn materials(&self) -> impl Iterator<Item = usize> + '_ {
        self.material.into_iter().chain(self.variant_materials.iter().map(|v| v.material))
    }

    /// Each material index (its own and its variants') replaced by `map`'s answer; a variant
    /// whose material has none goes.
    pub fn renumber_materials(&mut self, map: impl Fn(usize) -> Option<usize>) {
        self.material = self.material.and_then(&map);
        self.variant_materials.retain_mut(|v| match map(v.material) {
            Some(m) => {
                v.material = m;
                true
            }
            None => false,
        });
    }
}

/// How glTF draws a primitive that is not triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfilled {
    /// Each index a point (a scan's point cloud).
    Points,
    /// Each two indices a line (a drawing's edges; strips and loops are read as such pairs).
    Lines,
}

impl Unfilled {
    /// glTF's `mode` for it.
    pub fn mode(self) -> u32 {
        match self {
            Unfilled::Points => 0,
            Unfilled::Lines => 1,
        }
    }

    /// Indices per point or line.
    pub fn arity(self) -> usize {
        match self {
            Unfilled::Points => 1,
            Unfilled::Lines => 2,
        }
    }
}

/// Points or lines of a mesh: carried through every tool as they are (the vertex work and
/// simplification are for triangles), written beside the mesh's triangles on its grid. Their
/// `primitive.indices` are points or pairs, not triangles, and it has no morph targets.
#[derive(Clone, Debug, PartialEq)]
pub struct LinesOrPoints {
    pub mode: Unfilled,
    pub primitive: Primitive,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
    /// Its primitives drawn as points or lines, kept apart from the triangles.
    pub lines_and_points: Vec<LinesOrPoints>,
    /// Default weight of each morph target: its length is the mesh's target count (0 when the
    /// mesh has none), the same for every primitive, as glTF requires.
    pub weights: Vec<f32>,
    /// Morph target names (glTF's `extras.targetNames` convention), one per target, or empty.
    pub target_names: Vec<String>,
}

impl Mesh {
    pub fn new(name: Option<String>, primitives: Vec<Primitive>) -> Self {
        Mesh { name, primitives, ..Mesh::default() }
    }

    pub fn target_count(&self) -> usize {
        self.weights.len()
    }

    /// Every primitive the mesh draws: its triangles, then its points and lines.
    pub fn drawn(&self) -> impl Iterator<Item = &Primitive> {
        self.primitives.iter().chain(self.lines_and_points.iter().map(|l| &l.primitive))
    }

    /// As `drawn`, to change them.
    pub fn drawn_mut(&mut self) -> impl Iterator<Item = &mut Primitive> {
        self.primitives.iter_mut().chain(self.lines_and_points.iter_mut().map(|l| &mut l.primitive))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: Option<String>,
    pub mesh: Option<usize>,
    /// Local transform, column-major 4x4 as in glTF.
    pub matrix: [f32; 16],
    /// The same transform as translation, rotation, scale when the source gave it that way:
    /// animations overwrite these, so an animated node must be written with them, never `matrix`.
    pub trs: Option<Trs>,
    pub children: Vec<usize>,
    /// Index into `Model::skins` when the node's mesh is skinned.
    pub skin: Option<usize>,
    /// Morph target weights overriding the mesh's defaults for this node; empty when it has none.
    pub weights: Vec<f32>,
    /// GPU instancing (EXT_mesh_gpu_instancing, see instancing.rs): when not empty, the mesh is
    /// drawn once per matrix, each applied before the node's own transform, and never at the
    /// node's transform alone.
    pub instances: Vec<[f32; 16]>,
    /// Index into `Model::cameras` of the camera the node carries.
    pub camera: Option<usize>,
    /// Index into `Model::lights` of the KHR_lights_punctual light the node carries.
    pub light: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    pub translation: [f32; 3],
    /// Unit quaternion, xyzw.
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    pub name: Option<String>,
    /// Joint nodes; JOINTS_n values index this list.
    pub joints: Vec<usize>,
    pub skeleton: Option<usize>,
    /// One column-major matrix per joint (identity when the source had none).
    pub inverse_bind: Vec<[f32; 16]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AnimationSampler {
    /// Key times in seconds, finite and strictly increasing.
    pub input: Vec<f32>,
    /// `components` floats per key (three per key for CUBICSPLINE: in-tangent, value, out-tangent).
    pub output: Vec<f32>,
    pub components: usize,
    /// LINEAR, STEP or CUBICSPLINE.
    pub interpolation: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    pub sampler: usize,
    pub node: usize,
    /// translation, rotation, scale, or weights (one value per morph target of the node's mesh
    /// per key: the sampler's `components` is the target count).
    pub path: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Animation {
    pub name: Option<String>,
    pub samplers: Vec<AnimationSampler>,
    pub channels: Vec<Channel>,
}

pub const IDENTITY: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

impl Node {
    pub fn with_mesh(name: Option<String>, mesh: usize) -> Self {
        Node {
            name,
            mesh: Some(mesh),
            matrix: IDENTITY,
            trs: None,
            children: Vec::new(),
            skin: None,
            weights: Vec::new(),
            instances: Vec::new(),
            camera: None,
            light: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub name: Option<String>,
    pub mime_type: String,
    pub data: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    Glb,
    Gltf,
    Obj,
    Ply,
    Stl,
    Off,
}

impl SourceFormat {
    pub fn extension(self) -> &'static str {
        match self {
            SourceFormat::Glb => "glb",
            SourceFormat::Gltf => "gltf",
            SourceFormat::Obj => "obj",
            SourceFormat::Ply => "ply",
            SourceFormat::Stl => "stl",
            SourceFormat::Off => "off",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub format: SourceFormat,
    pub meshes: Vec<Mesh>,
    pub nodes: Vec<Node>,
    /// Root nodes of the scene that is shown.
    pub roots: Vec<usize>,
    /// glTF material, texture and sampler objects, kept verbatim; texture sources index `images`.
    pub materials: Vec<Value>,
    pub textures: Vec<Value>,
    pub samplers: Vec<Value>,
    pub images: Vec<Image>,
    pub skins: Vec<Skin>,
    pub animations: Vec<Animation>,
    /// glTF camera objects and KHR_lights_punctual light objects, kept verbatim: nodes carry them
    /// by index, and what they show or light depends only on their node's place.
    pub cameras: Vec<Value>,
    pub lights: Vec<Value>,
    /// KHR_materials_variants' variant objects (a name each), kept verbatim; primitives name
    /// them by index (`Primitive::variant_materials`).
    pub variants: Vec<Value>,
    /// The original glTF document (for inspection of scenes, skins and animations), if any.
    pub gltf_json: Option<Value>,
    /// Things the reader changed or left out, told to the user.
    pub notes: Vec<String>,
}

impl Model {
    /// Keeps of the source glTF JSON only what the writers read (`extensionsRequired`, in
    /// write/glb.rs). The rest (nodes, accessors, meshes, animations...) is decoded into the model
    /// by then; freed straight after reading, its memory serves the tool's own allocations
    /// instead of fresh pages, whose first touch cost a 400-node model more time in page faults
    /// than its whole JSON took to parse. Inspect, which reports from the JSON, does not call it.
    pub fn release_source_json(&mut self) {
        if let Some(Value::Object(root)) = &mut self.gltf_json {
            root.retain(|key, _| key == "extensionsRequired");
        }
    }

    pub fn new(format: SourceFormat) -> Self {
        Model {
            format,
            meshes: Vec::new(),
            nodes: Vec::new(),
            roots: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            samplers: Vec::new(),
            images: Vec::new(),
            skins: Vec::new(),
            animations: Vec::new(),
            cameras: Vec::new(),
            lights: Vec::new(),
            variants: Vec::new(),
            gltf_json: None,
            notes: Vec::new(),
        }
    }

    /// Adds a mesh placed once at the origin as a root.
    pub fn push_root_mesh(&mut self, mesh: Mesh) {
        let node = self.nodes.len();
        self.nodes.push(Node::with_mesh(mesh.name.clone(), self.meshes.len()));
        self.meshes.push(mesh);
        self.roots.push(node);
    }

    /// Triangles stored in the file (a mesh used by several nodes counts once): the pricing measure.
    pub fn face_count(&self) -> usize {
        self.meshes.iter().flat_map(|m| &m.primitives).map(Primitive::face_count).sum()
    }

    /// Triangles as placed in the scene (a mesh used by three nodes counts three times): what
    /// tools that bake every instance (split) work on and are priced by.
    pub fn placed_face_count(&self) -> usize {
        let per_mesh: Vec<usize> = self.meshes.iter().map(|m| m.primitives.iter().map(Primitive::face_count).sum()).collect();
        self.instances().iter().map(|i| per_mesh[i.mesh]).sum()
    }

    /// Morph targets over all meshes.
    pub fn morph_target_count(&self) -> usize {
        self.meshes.iter().map(Mesh::target_count).sum()
    }

    /// Whether outputs that cannot hold skins, animations and morph targets (OBJ, PLY, STL, split parts) lose some.
    pub fn is_rigged_or_animated(&self) -> bool {
        !self.skins.is_empty() || !self.animations.is_empty() || self.morph_target_count() > 0
    }

    /// The note for a static output of a rigged, animated or morphed model, if it is one.
    pub fn static_output_note(&self, output: &str) -> Option<String> {
        self.is_rigged_or_animated().then(|| {
            let morphs = match self.morph_target_count() {
                0 => String::new(),
                n => format!(" and {n} morph target(s)"),
            };
            format!(
                "The model's {} skin(s) and {} animation(s){morphs} are not carried into {output}: it holds the static mesh in its rest pose.",
                self.skins.len(),
                self.animations.len()
            )
        })
    }

    /// The note for an output that holds triangles only (OBJ, PLY and STL outputs, split parts)
    /// of a model with points or lines, if it has any.
    pub fn lines_and_points_note(&self, output: &str) -> Option<String> {
        let count: usize = self.meshes.iter().map(|m| m.lines_and_points.len()).sum();
        (count > 0).then(|| format!("The model's {count} point and line primitive(s) are not carried into {output}, which hold its triangles."))
    }

    /// Vertices stored, of triangles, points and lines.
    pub fn vertex_count(&self) -> usize {
        self.meshes.iter().flat_map(Mesh::drawn).map(|p| p.positions.len()).sum()
    }

    /// Every (node, mesh, world matrix) reachable from the roots, depth first; a GPU-instanced node
    /// gives one per instance.
    pub fn instances(&self) -> Vec<Instance> {
        let mut out = Vec::new();
        let mut stack: Vec<(usize, [f32; 16])> = self.roots.iter().rev().map(|&n| (n, IDENTITY)).collect();
        while let Some((index, parent)) = stack.pop() {
            let node = &self.nodes[index];
            let world = crate::math::mul(&parent, &node.matrix);
            if let Some(mesh) = node.mesh {
                match node.instances.is_empty() {
                    true => out.push(Instance { node: index, mesh, world }),
                    false => out.extend(node.instances.iter().map(|m| Instance { node: index, mesh, world: crate::math::mul(&world, m) })),
                }
            }
            for &child in node.children.iter().rev() {
                stack.push((child, world));
            }
        }
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance {
    pub node: usize,
    pub mesh: usize,
    pub world: [f32; 16],
}
