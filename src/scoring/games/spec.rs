//! Game settings as users write them, parsed once into typed values: a time control
//! `BASE+INC`, an SPRT design `ELO0,ELO1,ALPHA,BETA`, and the adjudication rules
//! `SCORE:MOVES` (resign) and `SCORE:MOVES:AFTER` (draw). Errors name the option and the text.

use std::time::Duration;

use super::game::{DrawRule, MoveLimit, ResignRule};
use super::stats::SprtParams;

/// A game setting that cannot be read: the message names the option, the text and what it
/// must be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

/// `N` finite numbers separated by `sep`, as option `what` gives them.
fn numbers<const N: usize>(text: &str, sep: char, what: &str) -> Result<[f64; N], SpecError> {
    let parts: Vec<&str> = text.split(sep).map(str::trim).collect();
    let bad = || {
        SpecError(format!(
            "{what}: '{text}' is not {N} finite numbers separated by '{sep}'"
        ))
    };
    if parts.len() != N {
        return Err(bad());
    }
    let mut out = [0.0f64; N];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.parse().map_err(|_| bad())?;
        if !o.is_finite() {
            return Err(bad());
        }
    }
    Ok(out)
}

/// A `BASE+INC` time control in seconds (`--tc`).
///
/// # Errors
/// Not two numbers, a base that is not positive, a negative increment, or more than a year.
pub fn parse_tc(text: &str) -> Result<MoveLimit, SpecError> {
    let [base, inc] = numbers::<2>(text, '+', "--tc")?;
    if base <= 0.0 || inc < 0.0 {
        return Err(SpecError(format!(
            "--tc: '{text}' needs a positive base and an increment >= 0"
        )));
    }
    // A clock longer than a year per game is a typo, and past what a Duration holds.
    const MOST_SECONDS: f64 = 365.0 * 86_400.0;
    if base > MOST_SECONDS || inc > MOST_SECONDS {
        return Err(SpecError(format!(
            "--tc: '{text}': base and increment are at most {MOST_SECONDS} s (a year)"
        )));
    }
    Ok(MoveLimit::Clock {
        base: Duration::from_secs_f64(base),
        increment: Duration::from_secs_f64(inc),
    })
}

/// An SPRT design `ELO0,ELO1,ALPHA,BETA` in normalized Elo, checked; the errors name `--sprt`.
///
/// # Errors
/// Not four numbers, or a design [`SprtParams::validate`] refuses.
pub fn parse_sprt(text: &str) -> Result<SprtParams, SpecError> {
    let [elo0, elo1, alpha, beta] = numbers::<4>(text, ',', "--sprt")?;
    let params = SprtParams {
        elo0,
        elo1,
        alpha,
        beta,
    };
    params
        .validate()
        .map_err(|e| SpecError(format!("--sprt {text}: {e}")))?;
    Ok(params)
}

/// Resign adjudication `SCORE:MOVES` (`--resign`).
///
/// # Errors
/// Not two numbers, a negative score, or moves that are not a whole number of at least 1.
pub fn parse_resign(text: &str) -> Result<ResignRule, SpecError> {
    let [score, moves] = numbers::<2>(text, ':', "--resign")?;
    at_least_one_move("--resign", text, moves)?;
    non_negative_score("--resign", text, score)?;
    Ok(ResignRule {
        score: score as i32,
        moves: moves as u32,
    })
}

/// Draw adjudication `SCORE:MOVES:AFTER` (`--draw`).
///
/// # Errors
/// Not three numbers, a negative score, moves that are not a whole number of at least 1, or
/// an AFTER that is not a whole number of at least 0.
pub fn parse_draw(text: &str) -> Result<DrawRule, SpecError> {
    let [score, moves, after] = numbers::<3>(text, ':', "--draw")?;
    at_least_one_move("--draw", text, moves)?;
    non_negative_score("--draw", text, score)?;
    if after < 0.0 || after.fract() != 0.0 {
        return Err(SpecError(format!(
            "--draw {text}: AFTER is the move from which draws are adjudicated: a whole number of at least 0"
        )));
    }
    Ok(DrawRule {
        score: score as i32,
        moves: moves as u32,
        after_move: after.max(0.0) as u32,
    })
}

/// An adjudication rule's SCORE: a threshold in centipawns, not negative (no score is below it).
fn non_negative_score(option: &str, text: &str, score: f64) -> Result<(), SpecError> {
    if score < 0.0 {
        return Err(SpecError(format!(
            "{option} {text}: SCORE is a threshold in centipawns and must be at least 0"
        )));
    }
    Ok(())
}

/// An adjudication rule's MOVES: a whole number of at least one (0 would adjudicate at once).
fn at_least_one_move(option: &str, text: &str, moves: f64) -> Result<(), SpecError> {
    if moves < 1.0 || moves.fract() != 0.0 {
        return Err(SpecError(format!(
            "{option} {text}: MOVES must be a whole number of at least 1 (0 would adjudicate before any move counts)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_control_is_base_plus_increment_in_seconds() {
        assert_eq!(
            parse_tc("10+0.1").unwrap(),
            MoveLimit::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100),
            }
        );
        for bad in ["10", "0+1", "10+-1", "1e9+0", "x+1"] {
            let e = parse_tc(bad).unwrap_err().to_string();
            assert!(e.starts_with("--tc") && e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn an_sprt_design_is_four_numbers_and_a_valid_design() {
        let p = parse_sprt("0,5,0.05,0.05").unwrap();
        assert_eq!((p.elo0, p.elo1, p.alpha, p.beta), (0.0, 5.0, 0.05, 0.05));
        let e = parse_sprt("0,5,0.05").unwrap_err().to_string();
        assert!(e.contains("is not 4 finite numbers"), "{e}");
        let e = parse_sprt("5,0,0.05,0.05").unwrap_err().to_string();
        assert!(e.starts_with("--sprt 5,0,0.05,0.05: "), "{e}");
    }

    #[test]
    fn adjudication_rules_need_whole_moves_and_a_threshold_of_at_least_zero() {
        assert_eq!(
            parse_resign("1000:4").unwrap(),
            ResignRule {
                score: 1000,
                moves: 4
            }
        );
        assert_eq!(parse_draw("10:8:40").unwrap().after_move, 40);
        assert!(
            parse_resign("1000:0")
                .unwrap_err()
                .0
                .contains("MOVES must be")
        );
        assert!(
            parse_resign("-1:4")
                .unwrap_err()
                .0
                .contains("SCORE is a threshold")
        );
        assert!(
            parse_draw("10:8:4.5")
                .unwrap_err()
                .0
                .contains("AFTER is the move")
        );
    }
}
