//! No code: this crate only asks for the workspace's union of dependency features (see Cargo.toml).
