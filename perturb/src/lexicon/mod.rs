//! Lexical resources the relations use.

pub mod wordnet;
