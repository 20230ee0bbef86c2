//! What a workspace tool says when it cannot do what was asked.

/// A message for the model and a hint on what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    /// What went wrong, in one sentence.
    pub message: String,
    /// What the model can do instead.
    pub hint: String,
}

impl Failure {
    /// A failure with its message and hint.
    pub fn new(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: hint.into(),
        }
    }
}
