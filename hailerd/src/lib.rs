//! hailerd
