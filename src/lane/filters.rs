//! The filters every lane applies the same way.

/// Filters every lane applies the same way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filters {
    pub(crate) language: Option<String>,
    pub(crate) work: Option<String>,
    /// Inclusive year range (a period); passages without a year never match.
    pub(crate) years: Option<(i32, i32)>,
    /// Passages must mention at least one of these entities.
    pub(crate) entities: Vec<String>,
}
