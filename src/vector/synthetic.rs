//! Seeded random unit vectors, stored in place of embeddings when a corpus asks
//! for them (`[vector] synthetic_seed`): the scale benchmark measures the vector
//! store at a million passages without an hour of embedding per size.

use sha2::{Digest, Sha256};

/// A unit vector drawn uniformly from the sphere (normalised Gaussians), fixed
/// by the seed and the passage id alone, so any build order gives the same one.
pub(crate) fn unit_vector(seed: u64, passage_id: &str, dimension: usize) -> Vec<f32> {
    let mut hasher = Sha256::new();
    hasher.update(seed.to_le_bytes());
    hasher.update(passage_id.as_bytes());
    let digest = hasher.finalize();
    let mut state = u64::from_le_bytes(std::array::from_fn(|i| digest[i]));
    let mut uniform = || {
        // splitmix64, then the top 53 bits as a float in (0, 1].
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 + f64::EPSILON
    };
    // Box–Muller: two uniforms give a standard normal.
    let mut vector: Vec<f64> =
        (0..dimension).map(|_| (-2.0 * uniform().ln()).sqrt() * (std::f64::consts::TAU * uniform()).cos()).collect();
    let norm = vector.iter().map(|x| x * x).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
    vector.iter_mut().for_each(|x| *x /= norm);
    vector.into_iter().map(|x| x as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::unit_vector;

    #[test]
    fn vectors_are_unit_length_and_fixed_by_seed_and_id() {
        let a = unit_vector(7, "p.d.0001", 384);
        assert_eq!(a.len(), 384);
        assert!((a.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-4);
        assert_eq!(a, unit_vector(7, "p.d.0001", 384));
        assert_ne!(a, unit_vector(8, "p.d.0001", 384));
        assert_ne!(a, unit_vector(7, "p.d.0002", 384));
        // Not concentrated on an axis: random directions are nearly orthogonal.
        let b = unit_vector(7, "p.d.0002", 384);
        let cosine: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!(cosine.abs() < 0.3, "{cosine}");
    }
}
