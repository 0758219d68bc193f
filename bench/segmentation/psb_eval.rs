//! Princeton Segmentation Benchmark evaluation of `segment_core::segment`.
//!
//! Usage: psb_eval <psb dir> [--detail low|medium|high] [--max-parts N] [--only <category>]
//! The directory holds `<category>/<id>.off` meshes and `<category>/<id>_<k>.seg` human
//! segmentations (one label per face, in face order). Prints the Rand Index error of each model
//! (averaged over its human segmentations), each category and overall, plus timings.

use segment_core::{eval::rand_index_error, off, segment, Detail, SegmentParams};
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = None;
    let mut detail = Detail::Medium;
    let mut only = None;
    let mut max_parts = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--detail" => {
                i += 1;
                detail = match args.get(i).map(String::as_str) {
                    Some("low") => Detail::Low,
                    Some("high") => Detail::High,
                    _ => Detail::Medium,
                };
            }
            "--max-parts" => {
                i += 1;
                max_parts = args.get(i).and_then(|v| v.parse().ok());
            }
            "--only" => {
                i += 1;
                only = args.get(i).cloned();
            }
            other => dir = Some(other.to_string()),
        }
        i += 1;
    }
    let dir = dir.unwrap_or_else(|| "/work/shared/corpus/psb".into());
    let mut params = SegmentParams {
        detail,
        ..SegmentParams::default()
    };
    if let Some(k) = max_parts {
        params.max_parts = k;
    }

    let mut categories: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {dir}: {e}"))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|c| only.as_ref().is_none_or(|o| o == c))
        .collect();
    categories.sort();

    println!(
        "{:<10} {:>5} {:>7} {:>6} {:>6} {:>8} {:>9}",
        "category", "model", "faces", "parts", "humans", "RI err", "time ms"
    );
    let (mut all_models, mut cat_means) = (Vec::new(), Vec::new());
    let mut total_time = 0.0;
    let mut largest: Option<(std::path::PathBuf, usize)> = None;
    for cat in &categories {
        let cdir = Path::new(&dir).join(cat);
        let mut models: Vec<u32> = std::fs::read_dir(&cdir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".off")?.parse().ok())
            .collect();
        models.sort();
        let mut errs = Vec::new();
        for id in models {
            let text = std::fs::read_to_string(cdir.join(format!("{id}.off"))).unwrap();
            let mesh = off::parse(&text).unwrap_or_else(|e| panic!("{cat}/{id}.off: {e}"));
            if largest.as_ref().is_none_or(|l| l.1 < mesh.indices.len()) {
                largest = Some((cdir.join(format!("{id}.off")), mesh.indices.len()));
            }
            let t = Instant::now();
            let tri_labels = segment(&mesh.positions, &mesh.indices, &params);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            total_time += ms;
            // Human labels are per OFF polygon; PSB meshes are triangles, so this is the identity.
            let mut labels = vec![0u32; mesh.polygon.last().map_or(0, |&p| p as usize + 1)];
            for (t, &p) in mesh.polygon.iter().enumerate() {
                labels[p as usize] = tri_labels[t];
            }
            let mut model_errs = Vec::new();
            for k in 0.. {
                let Ok(seg) = std::fs::read_to_string(cdir.join(format!("{id}_{k}.seg"))) else {
                    break;
                };
                let human: Vec<u32> = seg.split_whitespace().map(|s| s.parse().unwrap()).collect();
                assert_eq!(
                    human.len(),
                    labels.len(),
                    "{cat}/{id}_{k}.seg has the wrong face count"
                );
                model_errs.push(rand_index_error(&labels, &human));
            }
            let err = model_errs.iter().sum::<f64>() / model_errs.len().max(1) as f64;
            let parts = tri_labels.iter().max().map_or(0, |m| m + 1);
            println!(
                "{cat:<10} {id:>5} {:>7} {parts:>6} {:>6} {err:>8.4} {ms:>9.1}",
                mesh.indices.len(),
                model_errs.len()
            );
            errs.push(err);
            all_models.push(err);
        }
        let mean = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
        cat_means.push((cat.clone(), mean));
    }
    println!();
    println!("{:<10} {:>8}", "category", "RI err");
    for (cat, m) in &cat_means {
        println!("{cat:<10} {m:>8.4}");
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let cm: Vec<f64> = cat_means.iter().map(|c| c.1).collect();
    println!();
    println!(
        "overall (mean of {} categories): {:.4}",
        cm.len(),
        mean(&cm)
    );
    println!(
        "overall (mean of {} models):     {:.4}",
        all_models.len(),
        mean(&all_models)
    );
    println!("total segmentation time: {total_time:.0} ms");
    if let Some((path, _)) = largest {
        scaled_timing(&path, &params);
    }
}

/// Times `segment` on the largest model split 1:4 until it has at least 200,000 faces. Midpoints
/// are not shared between triangles, so the mesh is unwelded and exercises the welding path.
fn scaled_timing(path: &Path, params: &SegmentParams) {
    let mesh = off::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut pos, mut idx) = (mesh.positions, mesh.indices);
    while idx.len() < 200_000 {
        let mut next = Vec::with_capacity(idx.len() * 4);
        for t in &idx {
            let [a, b, c] = t.map(|v| pos[v as usize]);
            let mid = |p: [f32; 3], q: [f32; 3]| {
                [
                    (p[0] + q[0]) / 2.0,
                    (p[1] + q[1]) / 2.0,
                    (p[2] + q[2]) / 2.0,
                ]
            };
            let base = pos.len() as u32;
            pos.extend([mid(a, b), mid(b, c), mid(c, a)]);
            let (ab, bc, ca) = (base, base + 1, base + 2);
            next.extend([[t[0], ab, ca], [ab, t[1], bc], [ca, bc, t[2]], [ab, bc, ca]]);
        }
        idx = next;
    }
    let mut best = f64::INFINITY;
    let mut parts = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let labels = segment(&pos, &idx, params);
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        parts = labels.iter().max().map_or(0, |m| m + 1);
    }
    println!(
        "{} subdivided to {} faces ({} unwelded vertices): {parts} parts, best of 3: {best:.0} ms",
        path.display(),
        idx.len(),
        pos.len()
    );
}
