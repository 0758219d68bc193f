//! Mesh processing core of kiln: format readers and writers, and the inspect, simplify, optimize
//! and split tools. Pure Rust with no Node types, so it is tested and fuzzed with cargo alone.
pub mod error;
pub mod math;
pub mod model;
pub mod png_image;
pub mod read;

pub use error::{ErrorCode, MeshError, Result};
pub use model::Model;
pub mod archive;
pub mod bake;
pub mod debris;
pub mod empty_nodes;
pub mod equal_keys;
pub mod extension_names;
pub mod flat_shading;
pub mod in_parallel;
pub mod instancing;
pub mod json_member;
pub mod merge;
pub mod merge_materials;
pub mod mesh_ops;
pub mod model_size;
pub mod number_keys;
pub mod part_grid;
pub mod pose;
pub mod prune;
pub mod render;
pub mod round;
pub mod simplify;
pub mod skin_poses;
pub mod split;
pub mod stitch;
pub mod surface_distance;
pub mod tangent_use;
#[cfg(test)]
mod test_random;
pub mod texcoord_sets;
pub mod texture;
pub mod tools;
pub mod topology;
pub mod value_checks;
pub mod weld_normals;
pub mod write;
