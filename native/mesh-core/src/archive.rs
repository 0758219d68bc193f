//! Zip archives of output files (deflate, via the `zip` crate).
use std::io::Write;
use zip::write::SimpleFileOptions;

pub fn zip_files<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).large_file(false);
    for (name, data) in files {
        writer.start_file(name, options).expect("zip entry in memory");
        writer.write_all(data).expect("zip data in memory");
    }
    writer.finish().expect("zip directory in memory").into_inner()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_archive_starts_with_a_local_file_header_and_names_its_entries() {
        let zip = super::zip_files([("parts/a.txt", &b"hello hello hello"[..])].into_iter());
        assert_eq!(&zip[..4], b"PK\x03\x04");
        assert!(zip.windows(11).any(|w| w == b"parts/a.txt"));
    }
}
