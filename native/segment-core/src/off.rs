//! Minimal OFF reader for tests and the benchmark (the service's format readers live elsewhere).
//! Polygons are fan-triangulated; counts are checked against the data actually present.

pub struct OffMesh {
    pub positions: Vec<[f32; 3]>,
    pub indices: Vec<[u32; 3]>,
    /// Input polygon of each triangle, so per-polygon labels can be compared.
    pub polygon: Vec<u32>,
}

pub fn parse(text: &str) -> Result<OffMesh, String> {
    let mut tokens = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace);
    let head = tokens.next().ok_or("empty file")?;
    if head != "OFF" {
        return Err(format!("expected OFF header, found {head:?}"));
    }
    let mut num = |what: &str| -> Result<f64, String> {
        let t = tokens
            .next()
            .ok_or_else(|| format!("unexpected end of file reading {what}"))?;
        t.parse::<f64>()
            .map_err(|_| format!("bad number {t:?} in {what}"))
    };
    let nv = num("vertex count")?;
    let nf = num("face count")?;
    num("edge count")?;
    // Each vertex needs at least 6 bytes of text, each face 8: reject counts the file cannot hold.
    if !(nv >= 0.0 && nf >= 0.0) || nv * 6.0 > text.len() as f64 || nf * 8.0 > text.len() as f64 {
        return Err(format!(
            "counts {nv} vertices / {nf} faces do not fit a {}-byte file",
            text.len()
        ));
    }
    let (nv, nf) = (nv as usize, nf as usize);
    let mut positions = Vec::with_capacity(nv);
    for _ in 0..nv {
        positions.push([
            num("vertex")? as f32,
            num("vertex")? as f32,
            num("vertex")? as f32,
        ]);
    }
    let mut indices = Vec::with_capacity(nf);
    let mut polygon = Vec::with_capacity(nf);
    for f in 0..nf {
        let n = num("face size")? as usize;
        if !(3..=1024).contains(&n) {
            return Err(format!("face {f} has {n} corners"));
        }
        let mut corners = Vec::with_capacity(n);
        for _ in 0..n {
            let i = num("face index")?;
            if !(i >= 0.0 && (i as usize) < nv) {
                return Err(format!("face {f} index {i} out of range"));
            }
            corners.push(i as u32);
        }
        for k in 1..n - 1 {
            indices.push([corners[0], corners[k], corners[k + 1]]);
            polygon.push(f as u32);
        }
    }
    Ok(OffMesh {
        positions,
        indices,
        polygon,
    })
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_triangles_and_fans_polygons() {
        let m =
            parse("OFF\n# comment\n5 2 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n2 2 2\n3 0 1 4\n4 0 1 2 3\n")
                .unwrap();
        assert_eq!(m.positions.len(), 5);
        assert_eq!(m.indices, vec![[0, 1, 4], [0, 1, 2], [0, 2, 3]]);
        assert_eq!(m.polygon, vec![0, 1, 1]);
    }

    #[test]
    fn rejects_malformed_files() {
        assert!(parse("").is_err());
        assert!(parse("PLY\n").is_err());
        assert!(
            parse("OFF\n353535235358 6 0\n0 0 0\n").is_err(),
            "absurd counts must not allocate"
        );
        assert!(
            parse("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n").is_err(),
            "index out of range"
        );
        assert!(parse("OFF\n3 1 0\n0 0 0\n1 0 0\n").is_err(), "truncated");
        assert!(
            parse("OFF\n3 1 0\n0 0 0\n1 x 0\n0 1 0\n3 0 1 2\n").is_err(),
            "bad number"
        );
    }
}
