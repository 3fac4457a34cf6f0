//! How a target cuts its input into the pieces a reader is handed: the
//! sizes come from the input itself, so a replayed input is read exactly as
//! the fuzzer read it.

/// At most this many reads per run: a reader fed one byte at a time
/// allocates per read, and a slow target finds less.
const MAX_READS: usize = 256;

/// The piece sizes to try besides "all at once": one small size picked by a
/// hash of the input, raised so that the input takes at most [`MAX_READS`]
/// reads; and one byte at a time for short inputs.
pub fn piece_sizes(input: &[u8]) -> Vec<usize> {
    // FNV-1a: any stable hash will do.
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    let smallest = input.len() / MAX_READS + 1;
    let picked = (1 + (hash % 64) as usize).max(smallest);
    if smallest == 1 && picked != 1 {
        vec![1, picked]
    } else {
        vec![picked]
    }
}
