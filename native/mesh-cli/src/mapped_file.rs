//! The input file mapped into memory instead of read into a buffer. Reading copies every byte
//! from the page cache into fresh pages, each zeroed by the system on first touch: for a 50 MB
//! animation that copy and its 12 k page faults were a tenth of the run's CPU time. A private
//! read-only mapping of the cached pages, filled in one call, costs neither.
//!
//! A mapped file that another process truncates while it is read would stop the run with a bus
//! error; this command reads files its user names, once, so it takes that risk as other command
//! line tools do. The service's workers are handed their input in memory and do not map files.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

/// A file's bytes: mapped where the system allows it, else read.
pub enum FileBytes {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    Mapped(Mapping),
    Read(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            FileBytes::Mapped(m) => m.bytes(),
            FileBytes::Read(v) => v,
        }
    }
}

/// `path`'s bytes, mapped if it is a regular file that is not empty and the mapping succeeds,
/// else read (an empty file has nothing to map; a pipe or device cannot be mapped).
pub fn open(path: &Path) -> std::io::Result<FileBytes> {
    let file = File::open(path)?;
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            if let Some(mapping) = usize::try_from(meta.len())
                .ok()
                .and_then(|len| Mapping::of(&file, len))
            {
                return Ok(FileBytes::Mapped(mapping));
            }
        }
    }
    read_all(file)
}

fn read_all(mut file: File) -> std::io::Result<FileBytes> {
    use std::io::Read;
    let mut data = Vec::new();
    file.read_to_end(&mut data)?;
    Ok(FileBytes::Read(data))
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub struct Mapping {
    address: *mut std::ffi::c_void,
    len: usize,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod sys {
    use std::ffi::c_void;
    // From the system's mman.h (Linux, every architecture Rust builds for there).
    pub const PROT_READ: i32 = 1;
    pub const MAP_PRIVATE: i32 = 2;
    pub const MAP_POPULATE: i32 = 0x8000;
    pub const MAP_FAILED: *mut c_void = !0usize as *mut c_void;
    extern "C" {
        pub fn mmap(
            address: *mut c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            offset: i64,
        ) -> *mut c_void;
        pub fn munmap(address: *mut c_void, len: usize) -> i32;
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
impl Mapping {
    /// The first `len` bytes of `file` mapped read-only and private, all pages filled in at once
    /// (the tools read the whole file); None if the system refuses.
    fn of(file: &File, len: usize) -> Option<Mapping> {
        use std::os::fd::AsRawFd;
        // SAFETY: a new private read-only mapping of an open file; the kernel picks the address.
        let address = unsafe {
            sys::mmap(
                std::ptr::null_mut(),
                len,
                sys::PROT_READ,
                sys::MAP_PRIVATE | sys::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        (address != sys::MAP_FAILED && !address.is_null()).then_some(Mapping { address, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is `len` readable bytes and lives as long as `self`; the file is
        // not written through it.
        unsafe { std::slice::from_raw_parts(self.address as *const u8, self.len) }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `of`, which nothing borrows any more.
        unsafe {
            sys::munmap(self.address, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_the_same_mapped_or_not() {
        let dir = std::env::temp_dir().join(format!("kiln-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        for (name, content) in [
            ("some.bin", &bytes[..]),
            ("empty.bin", &[][..]),
            ("odd.bin", &bytes[..4097]),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, content).unwrap();
            assert_eq!(&*open(&path).unwrap(), content, "{name}");
        }
        assert!(open(&dir.join("missing.bin")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
