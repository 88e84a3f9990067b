//! Cheap objectives: one number per margin set, higher is better, measured without games (on
//! EPD suites, mate suites or game positions, judged by the engine itself or a referee). `marginal calibrate` measures how well each
//! ranks margin sets as games do; `tune` climbs one.

use crate::engine::Setting;
use crate::scoring::quality::MoveQuality;
use crate::scoring::suite::mate::MateTally;
use crate::scoring::suite::{ScorerOptions, SuiteScorer};

/// What one measurement of a cheap objective gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The objective, higher is better.
    pub value: f64,
    /// A short account of it for people ("solved 318/1179, ratio 0.98").
    pub summary: String,
    /// Positions an external engine faulted on.
    pub faults: usize,
    /// Positions on which an external engine went past its node budget and was stopped.
    pub overshot: usize,
}

/// A cheap objective of a margin set.
pub trait CheapObjective: Send + Sync {
    /// Its name as reports show it, with its limit, e.g. `suite (5000 nodes)`.
    fn name(&self) -> String;
    /// Everything that decides its values (positions, limits, weights), as text: two
    /// objectives with equal keys give equal values for a deterministic engine.
    fn key(&self) -> String;
    /// Measures `setting`.
    ///
    /// # Errors
    /// The positions could not be searched (a cluster's failure, an interrupt).
    fn measure(&self, setting: &Setting) -> Result<Measured, String>;
}

/// The suite objective (accuracy and speed against the reference, [`super::suite::objective`]).
pub struct SuiteObjective {
    /// The scorer.
    pub scorer: SuiteScorer,
}

/// The key of a suite-based objective (`what`: `suite` or `mates`) over suites whose content
/// hash is `content_hash` ([`crate::scoring::suite::LoadedSuites::content_hash`]) scored with
/// `options`: what `tune` compares with a calibration's objectives to find its own.
pub fn suite_key(what: &str, content_hash: u64, options: &ScorerOptions) -> String {
    format!(
        "{what} {content_hash:016x} {} hash {} weight {} early {} reference {}",
        options.config.limit,
        options.config.hash_mb,
        options.objective.weight,
        options.objective.early,
        options.reference
    )
}

impl CheapObjective for SuiteObjective {
    fn name(&self) -> String {
        format!("suite ({})", self.scorer.options().config.limit)
    }

    fn key(&self) -> String {
        suite_key(
            "suite",
            self.scorer.suites().content_hash,
            self.scorer.options(),
        )
    }

    fn measure(&self, setting: &Setting) -> Result<Measured, String> {
        let s = self.scorer.score(setting).map_err(|e| e.to_string())?;
        Ok(Measured {
            value: s.objective.value,
            summary: format!(
                "solved {}/{}, speed {:.3}",
                s.objective.solved, s.objective.positions, s.objective.speed
            ),
            faults: s.faults,
            overshot: s.overshot,
        })
    }
}

/// Mate safety on mate suites (`bm #N`, `dm N`): mates found and found at their distance,
/// less wrong mates ([`MateTally::score`]).
pub struct MateObjective {
    /// The scorer over the mate suite.
    pub scorer: SuiteScorer,
}

impl CheapObjective for MateObjective {
    fn name(&self) -> String {
        format!("mates ({})", self.scorer.options().config.limit)
    }

    fn key(&self) -> String {
        suite_key(
            "mates",
            self.scorer.suites().content_hash,
            self.scorer.options(),
        )
    }

    fn measure(&self, setting: &Setting) -> Result<Measured, String> {
        let results = self.scorer.run(setting).map_err(|e| e.to_string())?;
        let tally = MateTally::tally(&self.scorer.suites().positions, &results);
        Ok(Measured {
            value: tally.score(),
            summary: format!(
                "found {}/{} (exact {}), wrong {}",
                tally.found, tally.positions, tally.exact, tally.wrong
            ),
            faults: results.iter().filter(|r| r.fault.is_some()).count(),
            overshot: results.iter().filter(|r| r.overshot).count(),
        })
    }
}

/// Move quality on game positions, as the negated mean loss ([`MoveQuality`]), so that higher
/// is better like the others: judged by the engine's own deep search (`quality`), or by
/// another engine, the referee (`referee`).
pub struct QualityObjective {
    /// The positions and deep reference.
    pub quality: MoveQuality,
    /// The positions' file and content hash, for the key.
    pub source: String,
    /// The referee judging the moves, when it is not the engine itself: its name and its
    /// signature ([`crate::engine::EngineDef::signature`]).
    pub referee: Option<(String, String)>,
}

impl CheapObjective for QualityObjective {
    fn name(&self) -> String {
        let (limit, deep) = self.quality.limits();
        match &self.referee {
            None => format!("quality ({limit}, ref {deep})"),
            Some((name, _)) => format!("referee ({limit}, {name} at {deep})"),
        }
    }

    fn key(&self) -> String {
        let (limit, deep) = self.quality.limits();
        match &self.referee {
            None => format!("quality {} {limit} {deep}", self.source),
            Some((_, signature)) => {
                format!("referee {signature} {} {limit} {deep}", self.source)
            }
        }
    }

    fn measure(&self, setting: &Setting) -> Result<Measured, String> {
        let q = self.quality.score(setting).map_err(|e| e.to_string())?;
        Ok(Measured {
            value: -q.mean_loss,
            summary: format!(
                "mean loss {:.1}, best move {}/{}",
                q.mean_loss, q.agree, q.positions
            ),
            faults: q.faults,
            overshot: q.overshot,
        })
    }
}
