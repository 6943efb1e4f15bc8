//! Lexical resources the relations use.

pub mod entity_pool;
pub mod geography;
pub mod inflect;
pub mod wordnet;
