//! The filters every lane applies the same way.

/// Filters every lane applies the same way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub language: Option<String>,
    pub work: Option<String>,
    /// Inclusive year range (a period); passages without a year never match.
    pub years: Option<(i32, i32)>,
    /// Passages must mention at least one of these entities.
    pub entities: Vec<String>,
}
