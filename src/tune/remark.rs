//! The refusal of a tune that cannot run (what the user should hear about a run that goes
//! on is [`Said`](crate::progress::Said)). A leaf of the tune pipeline: the plan, the run's
//! home and its setup all refuse through it, and nothing here prints.

/// Why a run cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The run is refused: the message names the file or option and the way on (exit 2).
    #[error("{0}")]
    Refused(String),
    /// A file of the checkpoint could not be written.
    #[error("cannot {what}")]
    Io {
        /// What was being done, naming the file.
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}
