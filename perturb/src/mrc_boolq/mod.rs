//! MT4MRC (Chen, Jin, Xie, ESEC/FSE 2021; seed-000): metamorphic relations for yes/no machine
//! reading comprehension on BoolQ. Inversion relations (MR1-x) expect the answer to flip and
//! apply only when the model under test answered the source with Yes; consistency relations
//! (MR2-x) expect the same answer.

mod mr1_1_antonymous_adjective;
mod mr1_3_order_change;
mod mr2_1_synonymous_adjective;
mod mr2_2_adverbial_clause_movement;
mod mr2_3_voice_change;

pub use mr1_1_antonymous_adjective::AntonymousAdjective;
pub use mr1_3_order_change::OrderChange;
pub use mr2_1_synonymous_adjective::SynonymousAdjective;
pub use mr2_2_adverbial_clause_movement::AdverbialClauseMovement;
pub use mr2_3_voice_change::VoiceChange;

/// The family name shared by every MT4MRC relation.
pub const FAMILY: &str = "mt4mrc";
