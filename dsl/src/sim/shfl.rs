//! `shfl.sync` source lanes, as the PTX ISA defines them for all four modes:
//!
//! ```text
//! lane = %laneid;  bval = b[4:0];  cval = c[4:0];  segmask = c[12:8];
//! maxLane = (lane & segmask) | (cval & ~segmask);
//! minLane = (lane & segmask);
//! up:   j = lane - bval;                         pval = (j >= maxLane)
//! down: j = lane + bval;                         pval = (j <= maxLane)
//! bfly: j = lane ^ bval;                         pval = (j <= maxLane)
//! idx:  j = minLane | (bval & ~segmask);         pval = (j <= maxLane)
//! if !pval { j = lane }       // out of range: the lane reads its own value
//! d = a of lane j
//! ```
//!
//! Checked on hardware: `tests/tests/data/shfl_h200.txt` records the lane and `pval` an
//! H200 returned for 540 (mode, b, c) combinations (full member mask), and
//! `tests/tests/sim_differential.rs` compares [`source_lane`] with every entry.
//!
//! `lir` only emits `bfly` today; the others are here so that the day the lowering emits
//! them (Triton uses `idx` for layout conversions and `up` for scans) the simulator already
//! knows what they mean.
//!
//! Undefined behaviour the simulator reports instead of picking a value: an executing
//! lane not named in `membermask`, a lane named in it that does not execute the shuffle,
//! and a source lane `j` that is inactive or not in `membermask`.

/// The shuffle mode (`.up`, `.down`, `.bfly`, `.idx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Up,
    Down,
    Bfly,
    Idx,
}

impl Mode {
    /// The PTX suffix: `up`, `down`, `bfly`, `idx`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Up => "up",
            Mode::Down => "down",
            Mode::Bfly => "bfly",
            Mode::Idx => "idx",
        }
    }
}

/// The lane whose value `lane` receives, and whether it was in range (`pval`); an
/// out-of-range lane reads itself.
pub fn source_lane(mode: Mode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = (lane & 31) as i32;
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let segmask = ((c >> 8) & 31) as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        Mode::Up => {
            let j = lane - bval;
            (j, j >= max_lane)
        }
        Mode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        Mode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        Mode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    if pval { (j as u32, true) } else { (lane as u32, false) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_warp_butterfly_pairs_lanes() {
        for l in 0..32 {
            assert_eq!(source_lane(Mode::Bfly, l, 16, 0x1f), (l ^ 16, true));
            assert_eq!(source_lane(Mode::Bfly, l, 1, 0x1f), (l ^ 1, true));
        }
    }

    #[test]
    fn down_and_up_clamp_at_the_segment_end() {
        // Full warp: lanes 28..31 shifting down by 4 read themselves.
        assert_eq!(source_lane(Mode::Down, 27, 4, 0x1f), (31, true));
        assert_eq!(source_lane(Mode::Down, 28, 4, 0x1f), (28, false));
        // Up uses c = 0: lanes below the delta read themselves.
        assert_eq!(source_lane(Mode::Up, 3, 4, 0), (3, false));
        assert_eq!(source_lane(Mode::Up, 4, 4, 0), (0, true));
        // Width 8 (c = ((32 - 8) << 8) | 0x1f): down stays inside each group of 8.
        let c = (24 << 8) | 0x1f;
        assert_eq!(source_lane(Mode::Down, 5, 2, c), (7, true));
        assert_eq!(source_lane(Mode::Down, 6, 2, c), (6, false));
        assert_eq!(source_lane(Mode::Down, 13, 2, c), (15, true));
    }

    #[test]
    fn idx_reads_within_the_segment() {
        assert_eq!(source_lane(Mode::Idx, 9, 3, 0x1f), (3, true));
        // Width 8: lane 9 is in segment 8..15, index 3 is lane 11.
        let c = (24 << 8) | 0x1f;
        assert_eq!(source_lane(Mode::Idx, 9, 3, c), (11, true));
        // Width 8 with an index past the segment wraps within it (b[4:0] & ~segmask).
        assert_eq!(source_lane(Mode::Idx, 9, 10, c), (10, true));
        // A butterfly with a narrowed clamp keeps lanes in range.
        assert_eq!(source_lane(Mode::Bfly, 3, 8, 0x7), (3, false));
    }
}
