//! Every figure the docs give comes from a report shipped in `tuned/` (issue 40): each
//! `Elo [low, high]` of README.md and docs/*.md (with or without the word Elo, any sign, the
//! unicode minus too) is held, to its printed precision, by one report under `tuned/` (the
//! three numbers together, in one place of one report: a match's `elo`, `lower`, `upper`, a
//! calibration's `elo` and `elo_interval`, a `value` with `lower` and `upper`, or a line the
//! report itself wrote); the tables scripts/results_tables.py writes between `results-table`
//! markers show what the reports their markers name say, Elo and costs alike; every report
//! reads as JSON; and every shipped report is cited. Rust only: no script is run.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A number as the docs print it: its value and how many decimals it was printed with.
#[derive(Clone, Copy, Debug)]
struct Printed {
    value: f64,
    decimals: usize,
}

impl Printed {
    /// Whether `x`, printed with as many decimals, could read as this number.
    fn holds(self, x: f64) -> bool {
        (x - self.value).abs() <= 0.5 * 10f64.powi(-(self.decimals as i32)) + 1e-9
    }
}

/// One `X [L, H]` figure of a page: the text as written, the line it starts on, its numbers.
#[derive(Debug)]
struct Figure {
    text: String,
    line: usize,
    numbers: [Printed; 3],
}

/// A signed decimal number at the start of `s` (`+`, `-` or the unicode minus): it and its
/// length in bytes.
fn number_at(s: &str) -> Option<(Printed, usize)> {
    let mut len = 0;
    let mut sign = 1.0;
    for (c, neg) in [('+', false), ('-', true), ('\u{2212}', true)] {
        if s.starts_with(c) {
            len = c.len_utf8();
            if neg {
                sign = -1.0;
            }
            break;
        }
    }
    let digits = s[len..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let mut end = len + digits;
    let mut decimals = 0;
    if s[end..].starts_with('.') {
        decimals = s[end + 1..].bytes().take_while(u8::is_ascii_digit).count();
        if decimals > 0 {
            end += 1 + decimals;
        }
    }
    let value: f64 = s[len..end].parse().ok()?;
    Some((
        Printed {
            value: sign * value,
            decimals,
        },
        end,
    ))
}

/// The signed number that ends exactly at byte `end` of `s`, if one does (and is not the tail
/// of a word such as `v2`): it and where it starts.
fn number_before(s: &str, end: usize) -> Option<(Printed, usize)> {
    let head = &s[..end];
    let digits_start = head
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .len();
    if digits_start == end {
        return None;
    }
    let mut start = digits_start;
    for c in ['+', '-', '\u{2212}'] {
        if head[..digits_start].ends_with(c) {
            start = digits_start - c.len_utf8();
            break;
        }
    }
    if head[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_')
    {
        return None;
    }
    let (printed, len) = number_at(&s[start..end])?;
    (len == end - start).then_some((printed, start))
}

/// Every `X [L, H]` or `X Elo [L, H]` figure of a text, with the line each starts on.
fn figures(text: &str) -> Vec<Figure> {
    let mut found = Vec::new();
    for (open, _) in text.match_indices('[') {
        // Inside: L, H]
        let inside = &text[open + 1..];
        let Some((low, a)) = number_at(inside) else {
            continue;
        };
        let rest = &inside[a..];
        let Some(rest) = rest.strip_prefix(',') else {
            continue;
        };
        let trimmed = rest.trim_start();
        let Some((high, b)) = number_at(trimmed) else {
            continue;
        };
        if !trimmed[b..].starts_with(']') {
            continue;
        }
        let close = open + 1 + a + 1 + (rest.len() - trimmed.len()) + b + 1;
        // Before: X, maybe " Elo", then white space (a line break too).
        let mut before = text[..open].trim_end();
        if before.len() == open {
            continue;
        }
        if let Some(stripped) = before.strip_suffix(" Elo") {
            before = stripped.trim_end();
        }
        let Some((x, start)) = number_before(text, before.len()) else {
            continue;
        };
        found.push(Figure {
            text: text[start..close]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            line: text[..start].matches('\n').count() + 1,
            numbers: [x, low, high],
        });
    }
    found
}

/// Every (value, lower, upper) triple a report holds together, as numbers.
fn triples(value: &Value, out: &mut Vec<[f64; 3]>) {
    match value {
        Value::Object(map) => {
            let num = |k: &str| map.get(k).and_then(Value::as_f64);
            for [v, l, h] in [
                ["elo", "lower", "upper"],
                ["value", "lower", "upper"],
                ["nelo", "nelo_lower", "nelo_upper"],
            ] {
                if let (Some(v), Some(l), Some(h)) = (num(v), num(l), num(h)) {
                    out.push([v, l, h]);
                }
            }
            for (key, v) in map {
                let interval = map
                    .get(&format!("{key}_interval"))
                    .and_then(Value::as_array);
                if let (Some(v), Some([l, h])) = (v.as_f64(), interval.map(Vec::as_slice))
                    && let (Some(l), Some(h)) = (l.as_f64(), h.as_f64())
                {
                    out.push([v, l, h]);
                }
                triples(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| triples(v, out)),
        Value::String(s) => {
            for f in figures(s) {
                out.push(f.numbers.map(|p| p.value));
            }
        }
        _ => {}
    }
}

/// Every number of seconds a report records: each field named `*seconds`, the sum of a resumed
/// run's `K_seconds` and the `earlier_K_seconds` of the runs it took up (every run of it, as
/// the budget table gives it), and the sum of the `seconds` of a list's entries (a games tune's
/// batches).
fn seconds(value: &Value, out: &mut Vec<f64>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if key.ends_with("seconds")
                    && let Some(x) = v.as_f64()
                {
                    out.push(x);
                    if let Some(earlier) =
                        map.get(&format!("earlier_{key}")).and_then(Value::as_f64)
                    {
                        out.push(x + earlier);
                    }
                }
                seconds(v, out);
            }
        }
        Value::Array(items) => {
            let sum: f64 = items
                .iter()
                .filter_map(|v| v.get("seconds").and_then(Value::as_f64))
                .sum();
            if sum > 0.0 {
                out.push(sum);
            }
            items.iter().for_each(|v| seconds(v, out));
        }
        _ => {}
    }
}

/// A shipped report: its path from the crate root and what it holds.
struct Report {
    path: String,
    json: Value,
}

/// Every `.json` file under `dir` (recursively), read; the ones that do not read as JSON are
/// the second list, each with why.
fn reports(root: &Path) -> (Vec<Report>, Vec<String>) {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&root.join("tuned"), &mut paths);
    paths.sort();
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for path in paths {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()))
        {
            Ok(json) => good.push(Report { path: rel, json }),
            Err(e) => bad.push(format!(
                "{rel}: not a readable JSON report ({e}); restore it from git or measure it again"
            )),
        }
    }
    (good, bad)
}

/// README.md and every docs/*.md page: path from the crate root and text.
fn pages(root: &Path) -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("docs"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    std::iter::once("README.md".to_string())
        .chain(names.into_iter().map(|n| format!("docs/{n}")))
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(root.join(&p)).ok()?)))
        .collect()
}

fn holds(report: &[[f64; 3]], figure: &Figure) -> bool {
    report
        .iter()
        .any(|t| figure.numbers.iter().zip(t).all(|(p, x)| p.holds(*x)))
}

/// Each figure of the pages that no report holds, as `page:line: figure ...`; and how many
/// figures there were.
fn unreported_figures(root: &Path) -> (Vec<String>, usize) {
    let (reports, _) = reports(root);
    let held: Vec<(String, Vec<[f64; 3]>)> = reports
        .iter()
        .map(|r| {
            let mut t = Vec::new();
            triples(&r.json, &mut t);
            (r.path.clone(), t)
        })
        .collect();
    let (mut missing, mut count) = (Vec::new(), 0);
    for (page, text) in pages(root) {
        for figure in figures(&text) {
            count += 1;
            if !held.iter().any(|(_, t)| holds(t, &figure)) {
                missing.push(format!(
                    "{page}:{}: {} is in no report under tuned/ (no one report holds the three \
                     numbers to the printed precision): cite the report's figure, or remove it \
                     and say its report was not kept",
                    figure.line, figure.text
                ));
            }
        }
    }
    (missing, count)
}

const BEGIN: &str = "<!-- results-table:begin";
const END: &str = "<!-- results-table:end -->";

/// A generated region: page, line of its begin marker, the reports it names, its text.
struct Region {
    page: String,
    line: usize,
    from: Vec<String>,
    text: String,
}

fn regions(root: &Path) -> (Vec<Region>, Vec<String>) {
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    for (page, text) in pages(root) {
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].starts_with(BEGIN) {
                i += 1;
                continue;
            }
            let Some(end) = lines[i + 1..].iter().position(|l| *l == END) else {
                problems.push(format!(
                    "{page}:{}: a results-table region without its `{END}` line",
                    i + 1
                ));
                break;
            };
            let from = lines[i]
                .split_once("from:")
                .map(|(_, f)| {
                    f.trim_end_matches("-->")
                        .split_whitespace()
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            found.push(Region {
                page: page.clone(),
                line: i + 1,
                from,
                text: lines[i + 1..i + 1 + end].join("\n"),
            });
            i += end + 2;
        }
    }
    (found, problems)
}

/// The reports a region's marker names, with the parts a pooled report names and the source a
/// by-book split names.
fn named_reports(root: &Path, names: &[String]) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    let mut queue: Vec<String> = names.to_vec();
    while let Some(name) = queue.pop() {
        let text = std::fs::read_to_string(root.join(&name))
            .map_err(|e| format!("{name}: cannot be read ({e})"))?;
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{name}: not a readable JSON report ({e})"))?;
        if let Some(parts) = json.get("parts").and_then(Value::as_array) {
            queue.extend(
                parts
                    .iter()
                    .filter_map(|p| p.get("report").and_then(Value::as_str).map(str::to_string)),
            );
        }
        out.push(json);
    }
    Ok(out)
}

/// Each figure or cost of a generated region its named reports do not hold.
fn stale_regions(root: &Path) -> Vec<String> {
    let (regions, mut problems) = regions(root);
    for r in regions {
        let at = format!("{}:{}", r.page, r.line);
        if r.from.is_empty() {
            problems.push(format!(
                "{at}: the region's marker names no report (`from: FILE ...`): run scripts/results_tables.py"
            ));
            continue;
        }
        let named = match named_reports(root, &r.from) {
            Ok(n) => n,
            Err(e) => {
                problems.push(format!("{at}: {e}"));
                continue;
            }
        };
        let mut held = Vec::new();
        let mut secs = Vec::new();
        for json in &named {
            triples(json, &mut held);
            seconds(json, &mut secs);
        }
        let figs = figures(&r.text);
        if figs.is_empty() && !r.text.contains(" s |") {
            problems.push(format!(
                "{at}: the region holds no figure: run scripts/results_tables.py"
            ));
        }
        for f in figs {
            if !holds(&held, &f) {
                problems.push(format!(
                    "{}:{}: {} is not in the reports the region names ({}): run scripts/results_tables.py",
                    r.page,
                    r.line + f.line,
                    f.text,
                    r.from.join(" ")
                ));
            }
        }
        for (n, line) in r.text.lines().enumerate() {
            for cost in costs(line) {
                if !secs.iter().any(|s| cost.holds(*s)) {
                    problems.push(format!(
                        "{}:{}: the cost {} s is no `*seconds` field of the reports the region \
                         names ({}): run scripts/results_tables.py",
                        r.page,
                        r.line + 1 + n,
                        cost.value,
                        r.from.join(" ")
                    ));
                }
            }
        }
    }
    problems
}

/// The costs of a table line: each `N s` (thousands separated by commas).
fn costs(line: &str) -> Vec<Printed> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices(" s") {
        let after = line[at + 2..].chars().next();
        if after.is_some_and(|c| c.is_alphanumeric()) {
            continue;
        }
        let head = &line[..at];
        let start = head
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '.')
            .len();
        let digits = head[start..].trim_start_matches(',').replace(',', "");
        if digits.is_empty() || head[..start].ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        if let Some((p, len)) = number_at(&digits)
            && len == digits.len()
        {
            out.push(p);
        }
    }
    out
}

/// Every value a report records under `key`, anywhere in it.
fn values_of(value: &Value, key: &str, out: &mut Vec<f64>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == key
                    && let Some(x) = v.as_f64()
                {
                    out.push(x);
                }
                values_of(v, key, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| values_of(v, key, out)),
        _ => {}
    }
}

/// Each cost the pages quote by its field (`` `wall_seconds` 313 ``, `` `elapsed_seconds`
/// 2,772 ``) that no report records under that field; and how many were quoted.
fn unrecorded_costs(root: &Path) -> (Vec<String>, usize) {
    let (reports, _) = reports(root);
    let (mut missing, mut count) = (Vec::new(), 0);
    for (page, text) in pages(root) {
        for (at, _) in text.match_indices("seconds`") {
            let rest = &text[at + "seconds`".len()..];
            if !rest.starts_with(char::is_whitespace) {
                continue;
            }
            let key_start = text[..at].rfind('`').map_or(at, |b| b + 1);
            let key = format!("{}seconds", &text[key_start..at]);
            let rest = rest.trim_start();
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
                .collect();
            let digits = digits.trim_end_matches(['.', ',']).replace(',', "");
            let Some((cost, _)) = number_at(&digits) else {
                continue;
            };
            count += 1;
            let mut recorded = Vec::new();
            for r in &reports {
                values_of(&r.json, &key, &mut recorded);
            }
            if !recorded.iter().any(|x| cost.holds(*x)) {
                missing.push(format!(
                    "{page}:{}: `{key}` {} is recorded by no report under tuned/: quote the \
                     file's own figure",
                    text[..at].matches('\n').count() + 1,
                    cost.value
                ));
            }
        }
    }
    (missing, count)
}

/// The shipped reports no page cites: cited is named (its file name) on a page, or a part of
/// a cited pooled report, or the source of a cited by-book split.
fn uncited_reports(root: &Path) -> Vec<String> {
    let (reports, _) = reports(root);
    let text: String = pages(root).into_iter().map(|(_, t)| t).collect();
    let name_of = |p: &str| {
        Path::new(p)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let mut cited: Vec<String> = reports
        .iter()
        .filter(|r| text.contains(&name_of(&r.path)))
        .map(|r| r.path.clone())
        .collect();
    loop {
        let more: Vec<String> = reports
            .iter()
            .filter(|r| cited.contains(&r.path))
            .flat_map(|r| {
                let parts = r
                    .json
                    .get("parts")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                parts
                    .iter()
                    .filter_map(|p| p.get("report").and_then(Value::as_str).map(str::to_string))
                    .chain(
                        r.json
                            .get("source")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    )
                    .collect::<Vec<_>>()
            })
            .filter(|p| !cited.contains(p))
            .collect();
        if more.is_empty() {
            break;
        }
        cited.extend(more);
    }
    reports
        .iter()
        .filter(|r| !cited.contains(&r.path))
        .map(|r| {
            format!(
                "{} is cited on no page (README.md, docs/*.md): cite it where its figures are \
                 discussed, or remove it if it is not a measurement",
                r.path
            )
        })
        .collect()
}

#[test]
fn every_elo_figure_in_the_docs_is_in_a_shipped_report() {
    let (missing, count) = unreported_figures(&root());
    assert!(
        count >= 50,
        "only {count} figures found: the scanner is broken"
    );
    assert!(
        missing.is_empty(),
        "{} of {count} figures:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_cost_the_docs_quote_by_its_field_is_the_files_own() {
    let (missing, count) = unrecorded_costs(&root());
    assert!(
        count >= 5,
        "only {count} costs quoted by their field: the scanner is broken"
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_report_under_tuned_reads_as_json() {
    let (good, bad) = reports(&root());
    assert!(good.len() >= 10, "only {} reports under tuned/", good.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_generated_table_shows_what_the_reports_it_names_say() {
    let (regions, _) = regions(&root());
    assert!(
        regions.iter().any(|r| r.page == "README.md") && regions.len() >= 5,
        "the results-table regions are gone ({} found)",
        regions.len()
    );
    let stale = stale_regions(&root());
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn every_shipped_report_is_cited_in_the_docs() {
    let uncited = uncited_reports(&root());
    assert!(uncited.is_empty(), "{}", uncited.join("\n"));
}

// The checks on made-up crates: what they say when a figure, a report or a table is wrong.

/// A made-up crate root with the given files; removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, files: &[(&str, &str)]) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "marginal-docs-figures-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const MATCH: &str = r#"{"format": "marginal-match/1", "elapsed_seconds": 82.9,
  "elo": {"elo": 62.509, "lower": 44.396, "upper": 80.965, "nelo": 75.29, "nelo_lower": 53.76, "nelo_upper": 96.83}}"#;

#[test]
fn a_figure_no_report_holds_is_named_with_its_page_line_and_figure() {
    let s = Scratch::new(
        "missing",
        &[
            (
                "README.md",
                "# x\n\nseed 1 wins +62.5 [+44.4, +81.0] and\n+62.5 [+44.4,\n+81.1] too.\n",
            ),
            (
                "docs/a.md",
                "nElo +75.3 [+53.8, +96.8]; Elo −1.0 [−2.0, +3.0]\n",
            ),
            ("tuned/matches/m.json", MATCH),
        ],
    );
    let (missing, count) = unreported_figures(&s.0);
    assert_eq!(count, 4, "{missing:?}");
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(
        missing[0].starts_with("README.md:4: +62.5 [+44.4, +81.1]"),
        "{missing:?}"
    );
    assert!(
        missing[1].starts_with("docs/a.md:1: −1.0 [−2.0, +3.0]"),
        "{missing:?}"
    );
    assert!(missing.iter().all(|m| m.contains("tuned/")), "{missing:?}");
}

#[test]
fn three_numbers_scattered_over_reports_do_not_make_a_figure() {
    let s = Scratch::new(
        "scattered",
        &[
            ("README.md", "+62.5 [+44.4, +96.8]\n"),
            ("tuned/matches/m.json", MATCH),
            (
                "tuned/calibration.json",
                r#"{"sets": [{"pooled": {"elo": 10.4, "elo_interval": [-23.5, 44.5]}}]}"#,
            ),
        ],
    );
    let (missing, _) = unreported_figures(&s.0);
    assert_eq!(missing.len(), 1, "{missing:?}");
    let s = Scratch::new(
        "interval",
        &[
            ("README.md", "+10.4 [-23, +45] and rho 0.66 [0.21, 0.93]\n"),
            (
                "tuned/calibration.json",
                r#"{"sets": [{"pooled": {"elo": 10.4, "elo_interval": [-23.5, 44.5]}}],
               "note": "suite: rho 0.66 [0.21, 0.93] (ceiling 0.82)"}"#,
            ),
        ],
    );
    let (missing, count) = unreported_figures(&s.0);
    assert_eq!((missing.len(), count), (0, 2), "{missing:?}");
}

#[test]
fn a_quoted_cost_no_report_records_is_named() {
    let s = Scratch::new(
        "cost",
        &[
            (
                "README.md",
                "took `elapsed_seconds` 83 and\n`elapsed_seconds`\n90, `wall_seconds` 83.\n",
            ),
            ("tuned/matches/m.json", MATCH),
        ],
    );
    let (missing, count) = unrecorded_costs(&s.0);
    assert_eq!(count, 3, "{missing:?}");
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(
        missing[0].starts_with("README.md:2: `elapsed_seconds` 90"),
        "{missing:?}"
    );
    assert!(
        missing[1].starts_with("README.md:3: `wall_seconds` 83"),
        "{missing:?}"
    );
}

#[test]
fn a_resumed_runs_cost_is_every_run_of_it_and_not_any_two_fields_summed() {
    let report: Value = serde_json::from_str(
        r#"{"provenance": {"wall_seconds": 3573.1, "earlier_wall_seconds": 1708.0,
            "cpu_seconds": 6701.9, "earlier_cpu_seconds": 3167.8}}"#,
    )
    .unwrap();
    let mut out = Vec::new();
    seconds(&report, &mut out);
    let has = |x: f64| out.iter().any(|s| (s - x).abs() < 0.05);
    assert!(has(5281.1) && has(9869.7), "{out:?}");
    assert!(has(3573.1) && has(1708.0), "{out:?}");
    assert!(!has(3573.1 + 3167.8), "{out:?}");
}

#[test]
fn an_unreadable_report_is_named() {
    let s = Scratch::new(
        "unreadable",
        &[
            ("README.md", "x\n"),
            ("tuned/matches/broken.json", "{\"elo\": "),
        ],
    );
    let (_, bad) = reports(&s.0);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].starts_with("tuned/matches/broken.json: not a readable JSON report"),
        "{bad:?}"
    );
}

#[test]
fn a_generated_table_that_disagrees_with_its_reports_is_named() {
    let page = "text\n<!-- results-table:begin t from: tuned/matches/m.json -->\n| a | b |\n|---|---|\n\
                | +62.5 [+44.4, +81.0] | 83 s |\n| +62.5 [+44.4, +81.0] | 90 s |\n| +70.0 [+44.4, +81.0] | 83 s |\n\
                <!-- results-table:end -->\n";
    let s = Scratch::new(
        "region",
        &[("README.md", page), ("tuned/matches/m.json", MATCH)],
    );
    let stale = stale_regions(&s.0);
    assert_eq!(stale.len(), 2, "{stale:?}");
    assert!(
        stale[0].starts_with("README.md:7: +70.0 [+44.4, +81.0]"),
        "{stale:?}"
    );
    assert!(
        stale[1].starts_with("README.md:6: the cost 90 s"),
        "{stale:?}"
    );
    assert!(
        stale.iter().all(|m| m.contains("tuned/matches/m.json")),
        "{stale:?}"
    );

    let page = "<!-- results-table:begin t from: tuned/matches/gone.json -->\n| x |\n<!-- results-table:end -->\n";
    let s = Scratch::new("region-gone", &[("README.md", page)]);
    let stale = stale_regions(&s.0);
    assert!(
        stale.len() == 1 && stale[0].contains("tuned/matches/gone.json"),
        "{stale:?}"
    );
}

#[test]
fn a_shipped_report_no_page_cites_is_named() {
    let pooled =
        r#"{"format": "marginal-pooled/1", "parts": [{"report": "tuned/matches/part.json"}]}"#;
    let s = Scratch::new(
        "uncited",
        &[
            ("README.md", "see tuned/matches/pooled.json\n"),
            ("tuned/matches/pooled.json", pooled),
            ("tuned/matches/part.json", MATCH),
            ("tuned/matches/orphan.json", MATCH),
        ],
    );
    let uncited = uncited_reports(&s.0);
    assert_eq!(uncited.len(), 1, "{uncited:?}");
    assert!(
        uncited[0].starts_with("tuned/matches/orphan.json is cited on no page"),
        "{uncited:?}"
    );
}
