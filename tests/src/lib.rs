//! Helpers for the end-to-end tests: spawning hailerd and hailer in a hermetic home.
