//! The PGN of a match as the record of a match that can be resumed: a new file is
//! never written over an old one's games, the settings are kept beside it (`FILE.match.json`,
//! written atomically before the first game), and `--resume` reads back the whole pairs,
//! checks them and the settings against this run, and drops a pair left unfinished at the end.
//! The settings record also keeps the wall-clock time the games took, every run counted, so that
//! a resumed match's report says what the whole match cost.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::formats::write_atomic;
use crate::scoring::games::matches::PairRecord;
use crate::scoring::games::pgn::{ReadGame, read_games};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

/// Why a match record cannot be started or resumed: unusable input, named with its file (and
/// line) and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError(pub String);

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RecordError {}

/// The `format` of a settings record; bumped when a setting is added or changes meaning.
pub const RECORD_FORMAT: &str = "marginal-match-pgn/1";

/// One setting of a match that decides its games: what the user would write on the command line
/// (or a description of it) with its canonical value, and any former values a record may hold
/// that mean the same (an engine under its former signature): the value is written, it or any
/// former value resumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchSetting {
    /// The option or description, such as `--seed` or `engine of B`.
    pub key: &'static str,
    /// Its canonical value now, what a new record is written with.
    pub value: String,
    /// Values a record made earlier may hold for the same games.
    pub former: Vec<String>,
}

impl MatchSetting {
    /// A setting with no former value.
    pub fn new(key: &'static str, value: impl Into<String>) -> MatchSetting {
        MatchSetting {
            key,
            value: value.into(),
            former: Vec::new(),
        }
    }

    /// The same setting, also accepting `former` values from a record.
    pub fn or_former(mut self, former: impl IntoIterator<Item = String>) -> MatchSetting {
        self.former.extend(former);
        self
    }

    /// Whether a record's value `then` stands for this setting.
    fn accepts(&self, then: &str) -> bool {
        self.value == then || self.former.iter().any(|f| f == then)
    }
}

/// The settings of a match that decide its games, in order. Two runs with equal settings play
/// the same games at fixed nodes or depth.
pub type Settings = Vec<MatchSetting>;

/// The file beside `pgn` that keeps the settings its games were played with.
pub fn record_path(pgn: &Path) -> PathBuf {
    let mut name = pgn.as_os_str().to_owned();
    name.push(".match.json");
    PathBuf::from(name)
}

/// What is on disk of a settings record.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    format: String,
    settings: Map<String, Value>,
    /// Wall-clock seconds the match has taken, every run counted, as last noted (absent in a
    /// record written before it: read as 0).
    #[serde(default)]
    elapsed_seconds: f64,
}

impl Record {
    fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a record serializes") + "\n";
        write_atomic(path, text.as_bytes())
    }
}

/// How often a match notes its time in its record (and when a run ends): a kill loses at most
/// this much of the time it cost.
pub const NOTE_EVERY: Duration = Duration::from_secs(10);

/// The settings record of an opened match, which notes the time the match takes: the time of
/// the runs before this one (read back on resume) plus this run's, counted from the opening.
#[derive(Debug)]
pub struct Timekeeper {
    path: PathBuf,
    record: Record,
    earlier: f64,
    began: Instant,
    noted: Instant,
}

impl Timekeeper {
    /// The timekeeper of the PGN `pgn` whose settings record is `record`: its time so far is
    /// the earlier runs'.
    fn of(pgn: &Path, record: Record) -> Timekeeper {
        let now = Instant::now();
        Timekeeper {
            path: record_path(pgn),
            earlier: record.elapsed_seconds,
            record,
            began: now,
            noted: now,
        }
    }

    /// Wall-clock time of the earlier runs of this match, as their record noted it (zero for a
    /// new match, and for a record written before marginal noted it).
    pub fn earlier(&self) -> Duration {
        Duration::try_from_secs_f64(self.earlier).unwrap_or_default()
    }

    /// Notes the time so far when [`NOTE_EVERY`] has passed since the last note.
    ///
    /// # Errors
    /// The record cannot be written (named, with what to do).
    pub fn tick(&mut self) -> Result<(), RecordError> {
        if self.noted.elapsed() < NOTE_EVERY {
            return Ok(());
        }
        self.note()
    }

    /// Notes the time so far: the earlier runs' plus this run's.
    ///
    /// # Errors
    /// The record cannot be written (named, with what to do).
    pub fn note(&mut self) -> Result<(), RecordError> {
        self.noted = Instant::now();
        self.note_run(self.began.elapsed()).map_err(|e| {
            RecordError(format!(
                "cannot note the match's time in its settings record {}: {e}; the games \
                 played are in the PGN: free the space or fix the permissions, then continue \
                 with --resume",
                self.path.display()
            ))
        })
    }

    /// Notes that this run has taken `this_run` so far (written atomically, so a kill leaves
    /// the last note whole).
    fn note_run(&mut self, this_run: Duration) -> std::io::Result<()> {
        self.record.elapsed_seconds = self.earlier + this_run.as_secs_f64();
        self.record.write(&self.path)
    }
}

/// Where the PGN stands before the first game of this run.
pub struct Opened {
    /// The PGN, positioned for appending pairs.
    pub file: File,
    /// The whole pairs already in it, in order (empty for a new match).
    pub earlier: Vec<PairRecord>,
    /// What was dropped from its end: bytes, and whole games among them (the first game of an
    /// unfinished pair).
    pub dropped: Option<(u64, usize)>,
    /// The settings record beside the PGN, to note the match's time in (`None` for a PGN
    /// written to a stream, which has no record).
    pub timekeeper: Option<Timekeeper>,
}

/// Refuses a `--pgn` file that holds anything (a new match never writes over games, nor over
/// another kind of file); the command checks it before any other output, so the first word a
/// user gets about a rerun is `--resume`.
///
/// # Errors
/// The file holds games (continue with `--resume`) or is no PGN.
pub fn refuse_filled(path: &Path) -> Result<(), RecordError> {
    let shown = path.display();
    if let Ok(meta) = std::fs::metadata(path)
        && meta.is_file()
        && meta.len() > 0
    {
        // A PGN starts with a tag pair; anything else is some other file, which --resume
        // cannot continue.
        let mut first = [0u8; 1];
        let pgn = File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut first))
            .is_ok_and(|n| n == 1 && first[0] == b'[');
        if !pgn {
            return Err(RecordError(format!(
                "--pgn {shown} exists and is not a PGN ({} bytes that do not start with a tag pair): marginal does not write over it; name another file",
                meta.len()
            )));
        }
        return Err(RecordError(format!(
            "--pgn {shown} already holds {} bytes of games: marginal does not write over them. \
             Continue that match with --resume, or name another file",
            meta.len()
        )));
    }
    Ok(())
}

/// `--pgn FILE` without `--resume`: creates the file, refusing one that holds anything, and
/// writes the settings record beside it (not beside a pipe or device: that cannot be resumed).
pub fn start(path: &Path, settings: &Settings) -> Result<Opened, RecordError> {
    let shown = path.display();
    // The command's own output: the games follow what it printed, with no record beside.
    if let Some(file) = crate::formats::standard_stream(path) {
        return Ok(Opened {
            file,
            earlier: Vec::new(),
            dropped: None,
            timekeeper: None,
        });
    }
    refuse_filled(path)?;
    let file = crate::formats::open_to_write(path)
        .map_err(|e| RecordError(format!("--pgn: cannot write {shown}: {e}")))?;
    let mut timekeeper = None;
    if file.metadata().is_ok_and(|m| m.is_file()) {
        let record = Record {
            format: RECORD_FORMAT.to_string(),
            settings: (settings.iter())
                .map(|s| (s.key.to_string(), Value::String(s.value.clone())))
                .collect(),
            elapsed_seconds: 0.0,
        };
        record.write(&record_path(path)).map_err(|e| {
            RecordError(format!(
                "--pgn: cannot write the settings record {}: {e}",
                record_path(path).display()
            ))
        })?;
        timekeeper = Some(Timekeeper::of(path, record));
    }
    Ok(Opened {
        file,
        earlier: Vec::new(),
        dropped: None,
        timekeeper,
    })
}

/// `--pgn FILE --resume`: the whole pairs in FILE, checked against this run (the settings
/// record, and each game's round, players and opening); a pair left unfinished at the end is
/// cut off the file. A missing or empty FILE, or a device or pipe, starts a new match.
///
/// `names` are the PGN names of A and B; `openings` the shuffled book; `max_pairs` the pairs of
/// the whole match.
pub fn resume(
    path: &Path,
    settings: &Settings,
    names: (&str, &str),
    openings: &[Chess],
    max_pairs: usize,
) -> Result<Opened, RecordError> {
    let shown = path.display();
    // A device, a pipe or the command's own output is written to and never read (reading it
    // would wait on the very stream the games go to): there is nothing to resume there.
    if crate::formats::is_stream(path) {
        return start(path, settings);
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(RecordError(format!("--resume: cannot read {shown}: {e}"))),
    };
    if bytes.is_empty() {
        return start(path, settings);
    }
    let record = check_settings(path, settings)?;
    let read = read_games(&bytes).map_err(|e| {
        RecordError(format!(
            "--resume: {shown}:{}: {} (not a PGN of marginal match as it writes them)",
            e.line, e.reason
        ))
    })?;
    let pairs = read.games.len() / 2;
    if pairs > max_pairs {
        return Err(RecordError(format!(
            "--resume: {shown} holds {pairs} pairs of games, more than this match's {max_pairs}"
        )));
    }
    // Whole pairs end where the last pair's second game ends; a first game without its partner
    // and a game cut short after them are dropped.
    let keep = if pairs == 0 {
        0
    } else {
        read.games[2 * pairs - 1].end
    };
    let unpaired = read.games.len() - 2 * pairs;
    let mut earlier = Vec::with_capacity(pairs);
    let mut games = read.games.into_iter();
    for index in 0..pairs {
        let (first, second) = (
            games.next().expect("counted"),
            games.next().expect("counted"),
        );
        check_game(path, &first, index, 1, names, openings)?;
        check_game(path, &second, index, 2, (names.1, names.0), openings)?;
        earlier.push(PairRecord {
            index,
            first: first.record,
            second: second.record,
        });
    }
    // A whole first game without its partner is dropped too, but only if it is this match's.
    if let Some(first) = games.next() {
        if pairs == max_pairs {
            return Err(RecordError(format!(
                "--resume: {shown}:{}: a game after the last pair of this match",
                first.line
            )));
        }
        check_game(path, &first, pairs, 1, names, openings)?;
    }
    let file = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| RecordError(format!("--resume: cannot write {shown}: {e}")))?;
    let dropped = (keep < bytes.len()).then(|| ((bytes.len() - keep) as u64, unpaired));
    if dropped.is_some() {
        file.set_len(keep as u64).map_err(|e| {
            RecordError(format!(
                "--resume: cannot cut the unfinished pair off {shown}: {e}"
            ))
        })?;
    }
    Ok(Opened {
        file,
        earlier,
        dropped,
        timekeeper: Some(Timekeeper::of(path, record)),
    })
}

/// Checks one game read back from the PGN: game `game` (1 or 2) of pair `index`, between
/// `players` (White, Black), from the opening the shuffled book gives that pair.
fn check_game(
    path: &Path,
    read: &ReadGame,
    index: usize,
    game: u8,
    players: (&str, &str),
    openings: &[Chess],
) -> Result<(), RecordError> {
    let round = format!("{}.{game}", index + 1);
    let fen = |pos: &Chess| Fen::from_position(pos, EnPassantMode::Legal).to_string();
    let r = &read.record;
    let problem = if read.tag("Round") != Some(round.as_str()) {
        Some(format!(
            "game {} of the file has round '{}' where round {round} was expected",
            2 * index + usize::from(game),
            read.tag("Round").unwrap_or("")
        ))
    } else if (r.white.as_str(), r.black.as_str()) != players {
        Some(format!(
            "round {round} is '{}' against '{}', not '{}' against '{}' (other --a or --b)",
            r.white, r.black, players.0, players.1
        ))
    } else if fen(&r.start) != fen(&openings[index % openings.len()]) {
        Some(format!(
            "round {round} starts from {}, but this book and seed give pair {} the opening {}",
            fen(&r.start),
            index + 1,
            fen(&openings[index % openings.len()])
        ))
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(p) => Err(RecordError(format!(
            "--resume: {}:{}: {p}: these games are not of this match",
            path.display(),
            read.line
        ))),
    }
}

/// Refuses to resume when the settings record beside `path` is missing, unreadable, or records
/// other settings than `now`, naming each that differs; else the record as read (its settings
/// as they were written, former values included).
fn check_settings(path: &Path, now: &Settings) -> Result<Record, RecordError> {
    let record_path = record_path(path);
    let (pgn, rec) = (path.display(), record_path.display());
    let text = std::fs::read_to_string(&record_path).map_err(|e| {
        RecordError(format!(
            "--resume: cannot read {rec}, the record of the settings {pgn} was played with ({e}): \
             without it marginal cannot check that this run would play the same match; restore \
             that file beside the PGN, or play a new match into another --pgn"
        ))
    })?;
    let record: Record = serde_json::from_str(&text).map_err(|e| {
        RecordError(format!(
            "--resume: {rec} is not a match settings record ({e}): it was damaged: restore it \
             beside {pgn} from a copy, or play a new match into another --pgn"
        ))
    })?;
    if record.format != RECORD_FORMAT {
        return Err(RecordError(format!(
            "--resume: {rec} has format '{}'; this marginal reads '{RECORD_FORMAT}': resume it \
             with the marginal that played it, or play a new match into another --pgn",
            record.format
        )));
    }
    let differences: Vec<String> = (now.iter())
        .filter_map(|setting| {
            let (key, value) = (setting.key, &setting.value);
            let then = record.settings.get(key).and_then(Value::as_str);
            (!then.is_some_and(|then| setting.accepts(then))).then(|| match then {
                Some(then) => difference(key, then, value),
                None => format!("{key}: not recorded, {value} now"),
            })
        })
        .collect();
    if differences.is_empty() {
        return Ok(record);
    }
    Err(RecordError(format!(
        "--resume: {pgn} was played with other settings than this run's (recorded in {rec}):\n  {}\n\
         resume with the same settings, or name another --pgn file for a new match",
        differences.join("\n  ")
    )))
}

/// One setting that differs, for people: lists of `name=value` (margin sets) name only the
/// values that differ.
fn difference(key: &str, then: &str, now: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        then.split_whitespace().collect(),
        now.split_whitespace().collect(),
    );
    let assignments = |v: &[&str]| v.len() > 1 && v.iter().all(|t| t.contains('='));
    if a.len() == b.len() && assignments(&a) && assignments(&b) {
        let changed: Vec<String> = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| format!("{x} then, {y} now"))
            .collect();
        return format!("{key}: {}", changed.join(", "));
    }
    format!("{key}: {then} then, {now} now")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_the_setting_and_only_the_values_that_differ() {
        assert_eq!(
            difference("--seed", "3", "4"),
            "--seed: 3 then, 4 now".to_string()
        );
        assert_eq!(
            difference("margins of A", "a=1 b=2 c=3", "a=1 b=5 c=3"),
            "margins of A: b=2 then, b=5 now"
        );
        assert_eq!(
            difference("--a", "default", "b=5"),
            "--a: default then, b=5 now"
        );
        assert_eq!(
            record_path(Path::new("dir/games.pgn")),
            PathBuf::from("dir/games.pgn.match.json")
        );
    }

    #[test]
    fn a_record_made_under_an_engines_former_signature_still_resumes() {
        let dir = std::env::temp_dir().join(format!("marginal-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (pgn, other) = (dir.join("g.pgn"), dir.join("h.pgn"));
        let engine = |signature: &str| format!("E (e.toml, {signature})");
        let seed = MatchSetting::new("--seed", "3");
        let then: Settings = vec![
            seed.clone(),
            MatchSetting::new("engine of B", engine("1111")),
        ];
        drop(start(&pgn, &then).unwrap());
        // The engine's signature now, with its former one: the record resumes.
        let renamed = MatchSetting::new("engine of B", engine("2222"));
        let now: Settings = vec![seed.clone(), renamed.clone().or_former([engine("1111")])];
        check_settings(&pgn, &now).map(drop).unwrap();
        // Without the former one, it is refused naming both.
        let RecordError(e) = check_settings(&pgn, &vec![seed, renamed]).unwrap_err();
        assert!(
            e.contains("engine of B: E (e.toml, 1111) then, E (e.toml, 2222) now"),
            "{e}"
        );
        // A new record is written with the value now, not a former one.
        drop(start(&other, &now).unwrap());
        let text = std::fs::read_to_string(record_path(&other)).unwrap();
        assert!(text.contains("2222") && !text.contains("1111"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_record_keeps_the_time_of_every_run_of_a_match() {
        let dir = std::env::temp_dir().join(format!("marginal-time-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("g.pgn");
        let settings: Settings = vec![MatchSetting::new("--seed", "3")];
        let mut first = start(&pgn, &settings).unwrap().timekeeper.unwrap();
        assert_eq!(first.earlier(), Duration::ZERO);
        first.note_run(Duration::from_secs(2)).unwrap();
        first.note_run(Duration::from_secs(7)).unwrap();
        // A resume reads the last note back as the earlier runs' time, and adds its own to it.
        let mut again = Timekeeper::of(&pgn, check_settings(&pgn, &settings).unwrap());
        assert_eq!(again.earlier(), Duration::from_secs(7));
        again.note_run(Duration::from_secs(3)).unwrap();
        assert_eq!(
            check_settings(&pgn, &settings).unwrap().elapsed_seconds,
            10.0
        );
        // A record written before the time was kept reads as no earlier time.
        std::fs::write(
            record_path(&pgn),
            r#"{"format": "marginal-match-pgn/1", "settings": {"--seed": "3"}}"#,
        )
        .unwrap();
        assert_eq!(
            check_settings(&pgn, &settings).unwrap().elapsed_seconds,
            0.0
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
