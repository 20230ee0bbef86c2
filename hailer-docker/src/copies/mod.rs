//! Notebook copies.
