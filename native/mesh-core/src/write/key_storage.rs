//! How an animation sampler's output is stored, and what that takes: the filter and layout are
//! chosen from the whole track, the bytes are made on demand, for all its keys or only its first
//! ones. A track that can lose keys is weighed both ways (write/skin.rs), and the full one usually
//! loses by far on what its first keys take alone: those are all it filters then.
use super::codec_size::{codec_block_keys, encoded_size, encoded_size_bound};
use super::exponential_filter::exp_bytes;
use super::glb::{Builder, Data};
use super::quantize::mantissa_bits;
use super::quaternion_filter::quaternion_bytes;
use crate::model::AnimationSampler;
use crate::round::round_to_i16;
use std::sync::OnceLock;

pub(super) const FLOAT: u32 = 5126;

pub(super) fn float_bytes(values: &[f32]) -> Vec<u8> {
    bytes_of(values, |v| v.to_le_bytes())
}

/// Values in [-1, 1] as normalized 16-bit integers, little-endian. Not through `f32::round`: on
/// baseline x86-64 that is a call to `roundf` for each value, a third of writing motion-capture's
/// rotations uncompressed (session 48).
pub(super) fn short_bytes(values: &[f32]) -> Vec<u8> {
    bytes_of(values, |v| round_to_i16(v.clamp(-1.0, 1.0) * 32767.0).to_le_bytes())
}

/// Each value's `N` bytes one after another, written into the vector's room where the compiler
/// handles lanes at a time: through `collect` of a flat map each byte took a step of its own, and
/// a vector zeroed first is written twice.
fn bytes_of<const N: usize>(values: &[f32], bytes: impl Fn(f32) -> [u8; N]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(values.len() * N);
    for (room, &v) in out.spare_capacity_mut().chunks_exact_mut(N).zip(values) {
        for (byte, b) in room.iter_mut().zip(bytes(v)) {
            byte.write(b);
        }
    }
    // SAFETY: the room holds `values.len() * N` bytes, and the loop wrote every one of them.
    unsafe { out.set_len(values.len() * N) };
    out
}

/// How the stored elements are made from the track's floats.
#[derive(Clone, Copy)]
enum Filter {
    /// As they are.
    Floats,
    /// Normalized 16-bit integers.
    Shorts,
    /// The codec's QUATERNION filter at these bits.
    Quaternion(i32),
    /// The codec's EXPONENTIAL filter, `floats` to an element, `bits` of mantissa, and per
    /// component the track's largest magnitude: the shared exponent of the component is that
    /// magnitude's, and a run of keys made alone gets the same (`exp_bytes`).
    Exponential { floats: usize, bits: i32, widest: [f32; 12] },
}

/// Rotation keys as normalized 16-bit integers (core glTF allows them for rotations, with or
/// without quantization; about 3e-5 of error per component), translation and scale as floats;
/// morph weights as float scalars, one per target per key. Compressed, rotations go through the
/// codec's QUATERNION filter (the three smallest components and which one was dropped, as
/// gltfpack stores them) at the bits the node's reach needs (write/anim_tracks.rs
/// `rotation_bits`, 16 at most): CesiumMan's rotation keys take a third fewer bytes.
/// Compressed translation and scale keys go through the EXPONENTIAL filter (a shared exponent per
/// component, as gltfpack stores them) with as many mantissa bits as `step` needs
/// (write/anim_tracks.rs `key_steps`; 0 keeps the floats): CesiumMan's translations 508 → 347 bytes.
/// CUBICSPLINE tracks (keys and tangents in one accessor, so neither 16-bit rotations nor the
/// QUATERNION filter fit) go through the EXPONENTIAL filter too, at their step.
pub(super) struct Storage<'a> {
    output: &'a [f32],
    filter: Filter,
    layout: Data,
    component_type: u32,
    kind: &'static str,
    /// Accessor elements (keys, or morph weights one by one).
    count: usize,
    /// The whole track's bytes, once made, and what they take in the file, once worked out (the
    /// search for the keys a track can do without asks, over the machine's cores, and the writer
    /// after it).
    whole: OnceLock<Vec<u8>>,
    size: OnceLock<usize>,
}

impl<'a> Storage<'a> {
    pub(super) fn of(compress: bool, s: &'a AnimationSampler, morph_weights: bool, step: f32, rotation_bits: i32) -> Storage<'a> {
        let output = &s.output[..];
        // Morph weights are scalars, one per target per key.
        let (kind, count) = match (morph_weights, s.components) {
            (true, _) => ("SCALAR", output.len()),
            (false, 4) => ("VEC4", output.len() / 4),
            (false, _) => ("VEC3", output.len() / 3),
        };
        let storage = |filter: Filter, stride: usize, name: Option<&'static str>, component_type: u32| Storage {
            output,
            filter,
            layout: Data::Keys { stride, filter: name },
            component_type,
            kind,
            count,
            whole: OnceLock::new(),
            size: OnceLock::new(),
        };
        let cubic = s.interpolation == "CUBICSPLINE";
        if morph_weights {
            return storage(Filter::Floats, 4, None, FLOAT);
        }
        if s.components == 4 && !cubic {
            return match compress {
                true => storage(Filter::Quaternion(rotation_bits), 8, Some("QUATERNION"), 5122),
                false => storage(Filter::Shorts, 8, None, 5122),
            };
        }
        // CUBICSPLINE: keys and tangents together, as floats whose mantissas keep what `step`
        // needs. The codec sees a key's in-tangent, value and out-tangent as one element, so each
        // is told apart from the previous key's (not a value from a tangent), and each of the
        // three has its own exponents (a tangent's scale is a speed, a value's a position).
        let floats = match (cubic, s.components) {
            (false, 3) => Some(3),
            (true, 3) => Some(9),
            (true, 4) => Some(12),
            _ => None,
        };
        if let (true, Some(floats)) = (compress && step > 0.0, floats) {
            // Only finite tracks; the largest magnitude of any float is the widest component's.
            if let Some(widest) = widest(output, floats) {
                let bits = mantissa_bits(widest.iter().fold(0.0f32, |m, v| m.max(v.abs())), step);
                if bits < 24 {
                    let filter = Filter::Exponential { floats, bits, widest };
                    return storage(filter, floats * 4, Some("EXPONENTIAL"), FLOAT);
                }
            }
        }
        let floats = if cubic { 3 * s.components } else { s.components };
        storage(Filter::Floats, floats * 4, None, FLOAT)
    }

    /// Bytes of one element as the codec sees it: a key (with its tangents), or a morph weight.
    fn stride(&self) -> usize {
        match self.layout {
            Data::Keys { stride, .. } => stride,
            _ => unreachable!("keys are stored as keys"),
        }
    }

    /// Floats of the track in one element.
    fn floats(&self) -> usize {
        match self.filter {
            Filter::Quaternion(_) | Filter::Shorts => 4,
            _ => self.stride() / 4,
        }
    }

    /// Elements the codec sees (a CUBICSPLINE key and its tangents are one, three accessor elements).
    fn elements(&self) -> usize {
        self.output.len() / self.floats()
    }

    /// The stored bytes of the first `elements` elements: the same as the whole track's first bytes.
    fn first(&self, elements: usize) -> Vec<u8> {
        let output = &self.output[..elements * self.floats()];
        match self.filter {
            Filter::Floats => float_bytes(output),
            Filter::Shorts => short_bytes(output),
            Filter::Quaternion(bits) => quaternion_bytes(output, bits),
            Filter::Exponential { floats, bits, widest } => exp_bytes(output, floats, bits, &widest),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.whole.get_or_init(|| self.first(self.elements()))
    }

    /// Bytes in the file: after the codec when compressing.
    pub(super) fn size(&self, compress: bool) -> usize {
        *self.size.get_or_init(|| match compress {
            true => encoded_size(self.bytes(), self.stride()),
            false => self.output.len() * self.stride() / self.floats(),
        })
    }

    /// At least `size`, without encoding the keys where it is not known yet: for the codec, the
    /// most it can take (`encoded_size_bound`).
    pub(super) fn size_at_most(&self, compress: bool) -> usize {
        match (compress, self.size.get()) {
            (_, Some(_)) | (false, None) => self.size(compress),
            (true, None) => encoded_size_bound(self.elements(), self.stride()),
        }
    }

    /// `size`, where it was worked out already.
    pub(super) fn known_size(&self) -> Option<usize> {
        self.size.get().copied()
    }

    /// At most `size`, and more than `beat` if the first keys show it: the codec (version 0)
    /// encodes blocks of keys one after another, each against the last key of the block before,
    /// and ends with a tail of fixed size, so the whole takes at least what its first blocks take
    /// encoded alone. A sixteenth of the blocks first; if that does not pass `beat`, as many as
    /// it suggests would, with a quarter to spare; the whole when those do not either. The second
    /// value says whether this is the size itself. Only the keys weighed are filtered.
    pub(super) fn size_at_least(&self, compress: bool, beat: usize) -> (usize, bool) {
        let stride = self.stride();
        let block = codec_block_keys(stride);
        let blocks = self.elements().div_ceil(block);
        if !compress || blocks < 16 || self.size.get().is_some() {
            return (self.size(compress), true);
        }
        let first_blocks = |n: usize| encoded_size(&self.first(n * block), stride);
        let few = blocks / 16;
        let size = first_blocks(few);
        if size > beat {
            return (size, false);
        }
        let enough = (few as f64 * beat as f64 / size.max(1) as f64 * 1.25).ceil() as usize + 1;
        if enough < blocks {
            let size = first_blocks(enough);
            if size > beat {
                return (size, false);
            }
        }
        (self.size(compress), true)
    }

    /// Writes the stored keys into a view and an accessor of their own; answers the accessor.
    pub(super) fn write(mut self, b: &mut Builder) -> usize {
        let bytes = self.whole.take().unwrap_or_else(|| self.first(self.elements()));
        let slot = b.view_owned(bytes, self.layout);
        b.accessor(slot, self.count, self.component_type, self.kind, self.component_type != FLOAT, None)
    }
}

/// Per component of `floats`-long elements (at most 12), the largest magnitude (0 where none);
/// None where a value is not finite. What a float's magnitude is to the filter and to the step's
/// bits, its exponent, is in the same order as its bits without the sign, and a float that is not
/// finite has them at 0x7f800000 or over: so one pass of integer maxima, four elements side by
/// side, settles both (motion-capture's optimize 2,227 M → 2,167 M instructions, against a pass
/// that compared and kept each float's magnitude).
fn widest(output: &[f32], floats: usize) -> Option<[f32; 12]> {
    let mut four = [0i32; 48];
    let four = &mut four[..4 * floats];
    let blocks = output.chunks_exact(4 * floats);
    let rest = blocks.remainder();
    for block in blocks {
        for (m, &v) in four.iter_mut().zip(block) {
            *m = (*m).max((v.to_bits() & 0x7fff_ffff) as i32);
        }
    }
    for element in rest.chunks_exact(floats) {
        for (m, &v) in four.iter_mut().zip(element) {
            *m = (*m).max((v.to_bits() & 0x7fff_ffff) as i32);
        }
    }
    let mut widest = [0.0f32; 12];
    for (c, w) in widest.iter_mut().enumerate().take(floats) {
        let bits = (0..4).map(|e| four[e * floats + c]).max().unwrap_or(0);
        if bits >= 0x7f80_0000 {
            return None;
        }
        *w = f32::from_bits(bits as u32);
    }
    Some(widest)
}

/// Bytes a list of key times takes stored.
pub(super) fn stored_times_size(compress: bool, input: &[f32]) -> usize {
    let bytes = float_bytes(input);
    if compress {
        encoded_size(&bytes, 4)
    } else {
        bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_random::uniform;

    /// The codec's EXPONENTIAL filter over `keys` of `floats`, shared-component mode, as
    /// meshoptimizer makes it.
    fn codec_exp(keys: &[f32], floats: usize, bits: i32) -> Vec<u8> {
        let mut words = vec![0u32; keys.len()];
        let mode = meshopt::EncodeExpMode::SharedComponent as meshopt::ffi::meshopt_EncodeExpMode;
        // SAFETY: the filter reads `keys` and writes as many 32-bit words into `words`.
        unsafe { meshopt::ffi::meshopt_encodeFilterExp(words.as_mut_ptr().cast(), keys.len() / floats, floats * 4, bits, keys.as_ptr(), mode) };
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn exponential_keys_are_the_codec_filters_bytes_and_a_run_of_keys_the_whole_tracks_first() {
        // Smooth and signed, noise over many octaves, zeros and denormals beside large values.
        let mut noise = uniform(11);
        for floats in [1usize, 2, 3, 4, 5, 6, 9, 11, 12] {
            for kind in 0..3 {
                let keys: Vec<f32> = (0..floats * 301)
                    .map(|i| match kind {
                        0 => (i as f32 * 0.37).sin() * 40.0 + 0.001 * i as f32,
                        1 => (noise() - 0.5) * 2f32.powi((noise() * 60.0) as i32 - 30),
                        _ => [0.0, -0.0, 1e-40, -3e-39, 7.5e5, -1.0, 0.5][i % 7] * if i % 11 == 0 { 1e-20 } else { 1.0 },
                    })
                    .collect();
                let widest = widest(&keys, floats).expect("finite");
                for bits in [1, 2, 8, 12, 15, 16, 23, 24] {
                    let whole = exp_bytes(&keys, floats, bits, &widest);
                    assert_eq!(whole, codec_exp(&keys, floats, bits), "{floats} floats, kind {kind}, {bits} bits");
                    for run in [0, 1, 3, 7, 40] {
                        assert_eq!(exp_bytes(&keys[..floats * run], floats, bits, &widest), whole[..floats * 4 * run]);
                    }
                }
            }
        }
    }

    #[test]
    fn the_widest_of_a_track_is_each_components_largest_magnitude_and_none_past_a_non_finite_value() {
        let mut noise = uniform(3);
        for floats in [1usize, 3, 4, 9, 12] {
            for keys in [0usize, 1, 3, 4, 5, 17, 301] {
                let values: Vec<f32> = (0..keys * floats).map(|_| (noise() - 0.5) * 2f32.powi((noise() * 40.0) as i32 - 20)).collect();
                let mut expected = [0.0f32; 12];
                for element in values.chunks_exact(floats) {
                    expected.iter_mut().zip(element).for_each(|(w, v)| *w = w.max(v.abs()));
                }
                assert_eq!(widest(&values, floats), Some(expected), "{floats} floats, {keys} keys");
                for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut values = values.clone();
                    if let Some(v) = values.last_mut() {
                        *v = bad;
                        assert_eq!(widest(&values, floats), None);
                    }
                }
            }
        }
    }

    #[test]
    fn a_tracks_first_blocks_never_take_more_than_the_whole_track() {
        // Smooth, noisy, still, and a still start before motion, at the strides keys are stored at.
        let mut noise = uniform(7);
        for stride in [8usize, 12, 36, 48] {
            let floats = stride / 4;
            for kind in 0..4 {
                let keys = 256 * 33 + 77;
                let values: Vec<f32> = (0..keys * floats)
                    .map(|i| match kind {
                        0 => (i as f32 * 1e-3).sin(),
                        1 => noise(),
                        2 => 0.25,
                        _ => {
                            if i < keys * floats / 2 {
                                0.0
                            } else {
                                noise()
                            }
                        }
                    })
                    .collect();
                let stored = || Storage {
                    output: &values,
                    filter: Filter::Floats,
                    layout: Data::Keys { stride, filter: None },
                    component_type: FLOAT,
                    kind: "VEC3",
                    count: keys,
                    whole: OnceLock::new(),
                    size: OnceLock::new(),
                };
                let whole = stored().size(true);
                for beat in [0, whole / 8, whole / 2, whole - 1, whole, usize::MAX] {
                    let (at_least, exact) = stored().size_at_least(true, beat);
                    match exact {
                        true => assert_eq!(at_least, whole, "stride {stride}, kind {kind}"),
                        false => assert!(at_least <= whole && at_least > beat, "stride {stride}, kind {kind}: {at_least} against {whole}, beat {beat}"),
                    }
                    if beat == 0 {
                        assert!(!exact, "a sixteenth of the blocks passes 0");
                    }
                }
                assert_eq!(stored().size_at_least(false, 0), (keys * stride, true));
                // Once worked out in full, the size is the answer.
                let known = stored();
                assert_eq!(known.known_size(), None);
                known.size(true);
                assert_eq!(known.size_at_least(true, 0), (whole, true));
                assert_eq!((known.known_size(), known.size_at_most(true)), (Some(whole), whole));
                // Before it is, the most the codec can make of the keys, never under the size.
                let most = stored().size_at_most(true);
                assert!(most >= whole, "stride {stride}, kind {kind}: {most} under {whole}");
                assert_eq!(stored().size_at_most(false), keys * stride);
            }
        }
    }

    /// A track whose largest values come late, stored through each filter: its first keys made
    /// alone are the whole track's first bytes, so a bound from them holds for the whole.
    #[test]
    fn a_tracks_first_keys_made_alone_are_the_whole_tracks_first_bytes() {
        let keys = 3000;
        let grow = |k: usize| 1.0 + k as f32 * 0.01;
        let translation: Vec<f32> = (0..keys).flat_map(|k| [(k as f32 * 0.1).sin() * grow(k), -grow(k) * 0.5, 0.001 * k as f32]).collect();
        let rotation: Vec<f32> = (0..keys)
            .flat_map(|k| {
                let a = k as f32 * 0.002;
                [0.0, a.sin(), 0.0, a.cos()]
            })
            .collect();
        // Keys, in-tangents and out-tangents, 9 floats a key.
        let cubic: Vec<f32> = (0..keys * 9).map(|i| (i as f32 * 0.37).sin() * grow(i / 9) * if i % 9 < 3 { 4.0 } else { 1.0 }).collect();
        let times: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
        let sampler = |output: Vec<f32>, components: usize, interpolation: &str| AnimationSampler {
            input: times.clone(),
            output,
            components,
            interpolation: interpolation.into(),
        };
        let tracks = [
            (sampler(translation, 3, "LINEAR"), false, "EXPONENTIAL"),
            (sampler(rotation, 4, "LINEAR"), false, "QUATERNION"),
            (sampler(cubic, 3, "CUBICSPLINE"), false, "EXPONENTIAL"),
            (sampler((0..keys * 2).map(|i| (i % 7) as f32 / 7.0).collect(), 2, "LINEAR"), true, ""),
        ];
        for (s, morph_weights, filter) in &tracks {
            let storage = Storage::of(true, s, *morph_weights, 1e-3, 12);
            let Data::Keys { stride, filter: named } = storage.layout else { unreachable!() };
            assert_eq!(named.unwrap_or(""), *filter);
            let whole = storage.first(storage.elements());
            assert_eq!(whole.len(), storage.elements() * stride);
            assert_eq!(storage.elements(), if *morph_weights { keys * 2 } else { keys });
            for elements in [0, 1, 255, 1000, storage.elements() - 1] {
                assert_eq!(storage.first(elements), whole[..elements * stride], "{filter} at {elements}");
            }
        }
    }
}
