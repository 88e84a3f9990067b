//! Every relative link in the README and the pages under docs/ resolves: the file it names
//! exists, and the heading its `#anchor` names is in that file. And every plot in tuned/ is
//! linked from some page, so none is drawn for no reader.

use std::collections::HashSet;
use std::path::Path;

#[path = "common/docs.rs"]
mod docs;
use docs::documents;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The lines of `text` outside fenced code blocks, with their numbers (from 1).
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The targets of the inline links and images of `text` (`[text](target)`, `![alt](target)`),
/// outside code blocks and code spans: (line number, target).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in prose(text) {
        // Code spans hold examples, not links.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push((number, target.to_string()));
            rest = &after[end..];
        }
    }
    found
}

/// GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`), spaces to
/// `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of `text`'s headings, repeated ones numbered as GitHub numbers them (`-1`, ...).
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

#[test]
fn headings_get_githubs_anchors() {
    assert_eq!(
        slug(" Speed (this 2-core machine)"),
        "speed-this-2-core-machine"
    );
    assert_eq!(
        slug("Worked example: Toga II's three margins"),
        "worked-example-toga-iis-three-margins"
    );
    let twice = anchors("# A\n## B `c`\n```sh\n# not a heading\n```\n## B `c`\n");
    assert_eq!(
        twice,
        ["a", "b-c", "b-c-1"]
            .map(String::from)
            .into_iter()
            .collect()
    );
    assert_eq!(
        links("see [x](a.md#b) and `[y](code.md)` ![p](../t/p.svg)\n```\n[z](no.md)\n```\n"),
        [(1, "a.md#b".to_string()), (1, "../t/p.svg".to_string())]
    );
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let shown = doc.strip_prefix(root()).unwrap().display().to_string();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(path)
            };
            if !file.exists() {
                broken.push(format!("{shown}:{line}: {target}: no file {path}"));
                continue;
            }
            if let Some(anchor) = anchor {
                let Ok(page) = std::fs::read_to_string(&file) else {
                    broken.push(format!("{shown}:{line}: {target}: {path} is not text"));
                    continue;
                };
                if !anchors(&page).contains(anchor) {
                    broken.push(format!(
                        "{shown}:{line}: {target}: no heading of {} has the anchor #{anchor}",
                        if path.is_empty() { &shown } else { path }
                    ));
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_plot_in_tuned_is_linked_from_a_page() {
    let mut linked = HashSet::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (_, target) in links(&text) {
            let path = target.split('#').next().unwrap_or("");
            if let Ok(file) = doc.parent().unwrap().join(path).canonicalize() {
                linked.insert(file);
            }
        }
    }
    let mut unlinked = Vec::new();
    let mut plots = 0;
    for entry in std::fs::read_dir(root().join("tuned")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "svg") {
            plots += 1;
            if !linked.contains(&path.canonicalize().unwrap()) {
                unlinked.push(path.file_name().unwrap().to_string_lossy().to_string());
            }
        }
    }
    assert!(plots > 0, "no plot in tuned/");
    unlinked.sort();
    assert!(
        unlinked.is_empty(),
        "plots in tuned/ that no page links (link them from docs/results.md, or remove them): {}",
        unlinked.join(", ")
    );
}
