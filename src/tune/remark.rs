//! What preparing a tune has to say: remarks for the user on a run that goes on, and the
//! refusal of one that cannot. A leaf of the tune pipeline: the plan, the run's home and its
//! setup all speak through it, and nothing here prints.

/// Something the user should hear about a run that goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remark {
    /// Worth knowing (printed as `note: ...`).
    Note(String),
    /// Probably not what the user meant (printed as `warning: ...`).
    Warning(String),
    /// A line that says itself (a skipped line of an input, printed as it is).
    Said(String),
}

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
