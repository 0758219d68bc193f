//! Image work spread over threads, as gltfpack spreads its encoders over the machine's cores:
//! each worker takes the next image, decodes and scales it, and encodes it unless an image with
//! the same pixels (and role) has already been taken, in which case it is stored once. A worker
//! holds one decoded image at a time, so memory stays at a few images however many the model has.
use super::{decode_rgba, encode, pixel_hash, scaled, Encoded, Role, TextureMode};
use crate::error::Result;
use crate::model::Image;
use image::ImageFormat;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub struct Job {
    pub index: usize,
    pub format: ImageFormat,
    pub size: (u32, u32),
    pub role: Role,
}

pub enum Outcome {
    Encoded(Encoded),
    /// The same pixels as this other image, which holds the encoding.
    SameAs(usize),
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn run_one(image: &Image, job: &Job, mode: TextureMode, encoder_threads: u32, claimed: &Mutex<HashMap<u64, usize>>) -> Result<Outcome> {
    let pixels = scaled(decode_rgba(job.index, &image.data, job.format)?, job.size.0, job.size.1);
    let key = pixel_hash(&pixels, job.role);
    {
        let mut claimed = claimed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&first) = claimed.get(&key) {
            return Ok(Outcome::SameAs(first));
        }
        claimed.insert(key, job.index);
    }
    encode(mode, job.format, &pixels, job.role, encoder_threads).map(Outcome::Encoded)
}

/// One outcome per job, in the jobs' order.
pub fn run(images: &[Image], jobs: &[Job], mode: TextureMode) -> Vec<Result<Outcome>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let cores = cores();
    let workers = cores.min(jobs.len());
    // Cores the workers leave idle (fewer images than cores) go to each image's encoder: Basis
    // Universal's thread pool, and libwebp's sharp colour conversion in bands.
    let encoder_threads = (cores / workers).max(1) as u32;
    let claimed = Mutex::new(HashMap::new());
    // One worker is this thread: no thread is started for a model with one image (or on one core).
    if workers == 1 {
        return jobs.iter().map(|job| run_one(&images[job.index], job, mode, encoder_threads, &claimed)).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Outcome>>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(n) else { break };
                let outcome = run_one(&images[job.index], job, mode, encoder_threads, &claimed);
                results.lock().unwrap_or_else(|e| e.into_inner())[n] = Some(outcome);
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|r| r.expect("every job ran")).collect()
}
