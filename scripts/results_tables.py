#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# This file is part of marginal.
"""Writes the results tables of README.md and docs/ from the reports shipped in tuned/, so that
every Elo, interval and cost they show is one a report holds, never typed by hand.

    python3 scripts/results_tables.py           # rewrite every region in place
    python3 scripts/results_tables.py --check   # exit 1 naming each region that is stale

(--root DIR: the checkout to read and write, default the one holding this script.)

A region is the text between a line `<!-- results-table:begin NAME ... -->` and the next line
`<!-- results-table:end -->` in README.md or a docs/*.md page; NAME says which table (below;
in README.md a begin marker without a known NAME is the `readme` table). The script rewrites
the begin line to name the reports the table is written from (`from: FILE ...`; a pooled
report stands for the parts it names), which tests/docs_figures.rs reads to check that every
figure in the region is in one of them.

Tables: readme (the README's one results table), default-tune, node-counts, spsa-sets,
single-book, tune-costs, toga-confirm, engine-confirm, `calibration FILE` (a calibration
report's tables, as scripts/calibration_table.py writes them) and `budget ENGINE`
(scripts/equal_budget.sh's table of engines/ENGINE.toml, from tuned/budget/ and its reports). A report that cannot be read, or lacks a field a table
needs, stops the script naming the file and the field (exit 2); nothing is written then.
Standard library only.
"""
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
M = "tuned/matches"
BOOKS = [("noob_3moves_1k", "noob_3moves"), ("popularpos_lichess_1k", "popularpos_lichess"),
         ("UHO_4060_v2_2k", "UHO_4060_v2")]
BEGIN = "<!-- results-table:begin"
END = "<!-- results-table:end -->"
KEYS = ["ll", "ld", "wl_dd", "wd", "ww"]


class Unreadable(Exception):
    pass


_cache = {}


def load(path):
    """A shipped report, read once; an unreadable one stops the script naming it."""
    if path not in _cache:
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                _cache[path] = json.load(f)
        except (OSError, ValueError) as e:
            raise Unreadable(f"{path}: not a readable JSON report ({e}); restore it from git or measure it again")
    return _cache[path]


def field(path, *keys):
    value = load(path)
    for k in keys:
        try:
            value = value[k]
        except (KeyError, IndexError, TypeError):
            raise Unreadable(f"{path}: has no field {'.'.join(str(k) for k in keys)}; "
                             "it is not the report this table needs (rerun its match or tune)")
    return value


def s1(x):
    return f"{x:+.1f}"


def elo(path, *at):
    e = field(path, *at, "elo")
    return f"{s1(e['elo'])} [{s1(e['lower'])}, {s1(e['upper'])}]"


def nelo(path, *at):
    return s1(field(path, *at, "elo", "nelo"))


def games_of(path, *at):
    r = field(path, *at)
    if "wdl" in r:
        w = r["wdl"]
        return w["wins"] + w["draws"] + w["losses"], w["draws"]
    return r["games"], r["draws"]


def draws(path, *at):
    n, d = games_of(path, *at)
    return f"{100 * d / n:.1f}%"


def penta(path, *at):
    p = field(path, *at, "pentanomial")
    return " ".join(str(p[k]) for k in KEYS)


def secs(x):
    return f"{x:,.0f} s"


def book_report(name, book, nodes, suffix=""):
    return f"{M}/{name}-{book}-{nodes}{suffix}.json"


def confirmed_book(name, book, nodes):
    """A confirmation's report of one book: its rounds pooled (NAME-BOOK-LIMIT-rounds.json, as
    scripts/confirm_engine.sh writes it with ROUNDS=N) where it played several, else its one
    match report."""
    rounds = book_report(name, book, nodes, "-rounds")
    return rounds if os.path.exists(os.path.join(ROOT, rounds)) else book_report(name, book, nodes)


def pooled_report(name, nodes, suffix=""):
    return f"{M}/{name}-pooled-{nodes}{suffix}.json"


def margins(tuned):
    r = load(tuned)
    return " / ".join(str(r["margins"][k]) for k in field(tuned, "tuned"))


def tune_wall(tuned):
    return field(tuned, "provenance", "wall_seconds")


# --- the tables -------------------------------------------------------------------------

RACES = [("race-seed1", "seed 1"), ("race-seed2", "seeds 2 and 3")]
SPSA = [("spsa-suite", "suite SPSA, 16 iterations"), ("suite-spsa-250", "suite SPSA, 250 iterations"),
        ("spsa-games", "games SPSA on UHO_4060_v2, 320 iterations of 16 pairs")]


# External engines' tuned sets confirmed by scripts/confirm_engine.sh: (tuned file's name, the
# engine, how the set was tuned, [(report prefix, limit, what it plays against)]); the first
# comparison is against the engine's defaults, the README's row. "{defaults}" in what it plays
# against is the tuned file's engine rows' defaults, read from the file.
ENGINES = [("gnuchess-race", "GNU Chess 6.2.7", "default tune (race), screened in games",
            [("gnuchess-race-confirm", 10000, "as it ships (futility and delta pruning off)"),
             ("gnuchess-race-confirm", 40000, "as it ships, at four times the tuning limit"),
             ("gnuchess-race-vs-pruning", 10000, "with both prunings on at its own margins ({defaults})")]),
           ("glaurung-race", "Glaurung 2.2", "default tune (race), screened in games",
            [("glaurung-race-confirm", 10000, "as it ships ({defaults})"),
             ("glaurung-race-confirm", 40000, "as it ships, at four times the tuning limit")]),
           ("toga2-race", "Toga II 3.0", "default tune (race), screened in games",
            [("toga2-race-confirm", 10000, "as it ships ({defaults})"),
             ("toga2-race-confirm", 40000, "as it ships, at four times the tuning limit")]),
           ("toga2-race-long", "Toga II 3.0",
            "race with twice the finalists' games (--race-pairs 32,64,128,256), screened in games",
            [("toga2-race-long-confirm", 10000, "as it ships ({defaults})")]),
           ("toga2-surface", "Toga II 3.0", "default tune (race), screened in games, ranked by a response surface",
            [("toga2-surface-confirm", 10000, "as it ships ({defaults})")]),
           ("toga2-spsa-games", "Toga II 3.0", "games SPSA, 160 iterations of 8 pairs on 8mvs_+90_+99",
            [("toga2-spsa-games-confirm", 10000, "as it ships ({defaults})"),
             ("toga2-spsa-games-confirm", 40000, "as it ships, at four times the tuning limit")])]

# The sets of ENGINES the README's table shows, one an engine: its race's best-evidenced set.
README_ENGINES = ["gnuchess-race", "glaurung-race", "toga2-race-long"]


def against(tuned, text):
    """What a comparison plays against, its "{defaults}" the tuned file's engine rows' defaults."""
    rows = field(tuned, "engine", "rows")
    return text.format(defaults=", ".join(f"{r['name']} {r['default']}" for r in rows))


def named_margins(tuned):
    r = load(tuned)
    return ", ".join(f"{k} {r['margins'][k]}" for k in field(tuned, "tuned"))


def sprt(pooled):
    s = field(pooled, "sprt")
    return f"{s['decision']} (LLR {s['llr']:+.2f})" if s else "not run"


def engine_rows(name, engine, comparisons):
    """The README's rows of an external engine's confirmed set: its games against its defaults."""
    tuned = f"tuned/{name}.json"
    used, out = [tuned], []
    first_prefix = comparisons[0][0]
    for prefix, nodes, _ in [c for c in comparisons if c[0] == first_prefix]:
        parts = [confirmed_book(prefix, b, nodes) for b, _ in BOOKS]
        pooled = pooled_report(prefix, nodes)
        used += [pooled] + parts
        n, _ = games_of(pooled)
        first = not out
        who = f"{engine} (`{tuned}`)" if first else ""
        out.append(f"| {who} | {named_margins(tuned) if first else ''} | {nodes:,} | "
                   + " | ".join(elo(p) for p in parts)
                   + f" | **{elo(pooled)}** ({n:,}) | {nelo(pooled)} | {draws(pooled)} "
                   + f"| {secs(tune_wall(tuned)) if first else ''} |")
    return out, used


def engine_confirm():
    """Each external engine's confirmed set: per book with nElo, draws, pentanomial and wall, then
    pooled with the SPRT's verdict, for each comparison."""
    out = ["| engine, set, against | nodes | " + " | ".join(short for _, short in BOOKS)
           + " | pooled, SPRT nElo [0, 10] |", "|---|---|---|---|---|---|"]
    used = []
    for name, engine, how, comparisons in ENGINES:
        tuned = f"tuned/{name}.json"
        used.append(tuned)
        for i, (prefix, nodes, what) in enumerate(comparisons):
            label = (f"{engine}: {named_margins(tuned)} (`{tuned}`, {how}) " if i == 0 else "the same set ") \
                + f"against {engine} {against(tuned, what)}"
            rows, u = per_book([(label, prefix, nodes, "")])
            used += u
            pooled = pooled_report(prefix, nodes)
            out += [r[:-2] + f", SPRT {sprt(pooled)} |" for r in rows]
    return out, used


def readme():
    """The README's one table: the default tune's sets, per book and pooled, at each node count
    they were measured at, with what the tune cost; then each external engine's confirmed set."""
    used = []
    out = ["| set (`tune --seed`, or engine) | margins found (built-in: frontier / prefrontier / razor / delta) | nodes a move | "
           + " | ".join(short for _, short in BOOKS)
           + " | pooled (games) | nElo pooled | draws | the tune's wall |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name, seeds in RACES:
        tuned = f"tuned/{name}.json"
        used.append(tuned)
        for nodes in (5000, 20000, 80000):
            parts = [book_report(name, b, nodes) for b, _ in BOOKS]
            pooled = pooled_report(name, nodes)
            used += [pooled] + parts
            n, _ = games_of(pooled)
            first = nodes == 5000
            who = f"{seeds.removeprefix('seeds ').removeprefix('seed ')} (`{tuned}`)" if first else ""
            cost = secs(tune_wall(tuned)) if first else ""
            out.append(f"| {who} | {margins(tuned) if first else ''} | {nodes:,} | "
                       + " | ".join(elo(p) for p in parts)
                       + f" | **{elo(pooled)}** ({n:,}) | {nelo(pooled)} | {draws(pooled)} | {cost} |")
    # Each engine's raced set the README shows (the docs' tables have the others).
    raced = [e for e in ENGINES if e[0] in README_ENGINES]
    for name, engine, _, comparisons in raced:
        rows, u = engine_rows(name, engine, comparisons)
        out += rows
        used += u
    out.append("| the defaults | built-in: 125 / 500 / 980 / 200; "
               + "; ".join(f"{e} {against(f'tuned/{n}.json', c[0][2])}" for n, e, _, c in raced)
               + " | any | 0 | 0 | 0 | 0 | 0 | | |")
    return out, used


def per_book(rows):
    """Rows of a set at a node count: each book with nElo, draws and pentanomial, then pooled."""
    out, used = [], []
    for label, name, nodes, suffix in rows:
        parts = [book_report(name, b, nodes, suffix) if suffix else confirmed_book(name, b, nodes)
                 for b, _ in BOOKS]
        pooled = pooled_report(name, nodes, suffix)
        used += parts + [pooled]
        cells = [f"{elo(p)}, nElo {nelo(p)}, draws {draws(p)}, penta {penta(p)}, {secs(field(p, 'elapsed_seconds'))}"
                 for p in parts]
        n, _ = games_of(pooled)
        out.append(f"| {label} | {nodes:,} | " + " | ".join(cells)
                   + f" | **{elo(pooled)}**, nElo {nelo(pooled)}, draws {draws(pooled)}, {n:,} games |")
    return out, used


HEAD = ["| set | nodes | " + " | ".join(short for _, short in BOOKS) + " | pooled |",
        "|---|---|---|---|---|---|"]


def default_tune():
    rows = [(f"{margins(f'tuned/{n}.json')} (`tuned/{n}.json`, {s})", n, 5000, "") for n, s in RACES]
    out, used = per_book(rows)
    return HEAD + out, used


def node_counts():
    rows = [(f"{margins(f'tuned/{n}.json')} ({s})", n, nodes, "")
            for n, s in RACES for nodes in (20000, 80000)]
    out, used = per_book(rows)
    return HEAD + out, used


def spsa_sets():
    rows = [(f"`{n}` {margins(f'tuned/{n}.json')} ({how})", n, 5000, "-3books") for n, how in SPSA]
    out, used = per_book(rows)
    return HEAD + out, used


def single_book():
    """The matches on UHO_4060_v2 alone (the first measurements of the SPSA sets and of Toga's
    suite-tuned set)."""
    rows = [("`spsa-suite`", "spsa-suite-5000"), ("`spsa-games`", "spsa-games-20000"),
            ("`suite-spsa-250`", "suite-spsa-250-20000"), ("`toga2-suite` (Toga II)", "toga2-suite-600")]
    out = ["| set | report | nodes | games | Elo [95%] | nElo | draws | pentanomial | wall |",
           "|---|---|---|---|---|---|---|---|---|"]
    used = []
    for label, stem in rows:
        p = f"{M}/{stem}.json"
        used.append(p)
        n, _ = games_of(p)
        nodes = field(p, "config", "game", "limit", "nodes")
        out.append(f"| {label} | `{p}` | {nodes:,} | {n:,} | {elo(p)} | {nelo(p)} | {draws(p)} | {penta(p)} "
                   f"| {secs(field(p, 'elapsed_seconds'))} |")
    return out, used


def tune_costs():
    """What each shipped tune and calibration cost, as its file records it."""
    out = ["| file | engine | solver, objective (or screen) | evaluations | games | wall (`wall_seconds`) | recorded beside it |",
           "|---|---|---|---|---|---|---|"]
    used = []
    for name in ["race-seed1", "race-seed2", "spsa-suite", "suite-spsa-250", "spsa-games", "toga2-spsa-games",
                 "toga2-suite", "gnuchess-race", "glaurung-race", "toga2-race", "toga2-surface",
                 "toga2-race-long"]:
        p = f"tuned/{name}.json"
        used.append(p)
        pr = field(p, "provenance")
        engine = load(p).get("engine", {}).get("name", "built-in")
        extra = []
        ev = load(p).get("games", {}).get("evaluations") or []
        if ev:
            extra.append(f"tuning games' `seconds` sum to {secs(sum(e['seconds'] for e in ev))}")
        if load(p).get("confirm"):
            extra.append(f"confirmation ({games_of(p, 'confirm')[0]:,} games) {secs(field(p, 'confirm', 'elapsed_seconds'))}")
        if pr.get("cpu_seconds"):
            extra.append(f"CPU {secs(pr['cpu_seconds'] + pr.get('earlier_cpu_seconds', 0))}")
        if pr.get("search_seconds"):
            extra.append(f"suite searches {secs(pr['search_seconds'])}")
        race = load(p).get("race") or {}
        # A race screened in games scores no suite objective: say the screen, not the objective.
        settings = race.get("settings", {})
        how = "games screen" if settings.get("screen_in_games") else pr["objective"]
        if settings.get("surface"):
            how += ", surface"
        out.append(f"| `{p}` | {engine} | {pr['solver']}, {how} | {pr['evaluations']} | {pr['games']:,} "
                   f"| {secs(pr['wall_seconds'])} | {'; '.join(extra)} |")
    # Every shipped calibration, by name.
    for path in sorted(glob.glob(os.path.join(ROOT, "tuned", "calibration-*.json"))):
        p = f"tuned/{os.path.basename(path)}"
        used.append(p)
        c = field(p, "cost")
        out.append(f"| `{p}` | {load(p).get('engine', 'marginal').replace('marginal', 'built-in')} | calibrate | {c['objective_evaluations']} "
                   f"| {c['games']:,} | {secs(c['wall_seconds'])} | CPU {secs(c['cpu_seconds'])} over {c['runs']} run(s) |")
    return out, used


def toga_confirm():
    p = f"{M}/toga2-spsa-games-confirm-books.json"
    out = ["| book | games | Elo [95%] | nElo | draws | pentanomial LL LD WL+DD WD WW |",
           "|---|---|---|---|---|---|"]
    for i, b in enumerate(field(p, "books")):
        out.append(f"| {b['book']} | {b['games']:,} | {elo(p, 'books', i)} | {nelo(p, 'books', i)} "
                   f"| {draws(p, 'books', i)} | {penta(p, 'books', i)} |")
    n, _ = games_of(p, "pooled")
    out.append(f"| pooled (pentanomial counts summed) | {n:,} | **{elo(p, 'pooled')}** | {nelo(p, 'pooled')} "
               f"| {draws(p, 'pooled')} | {penta(p, 'pooled')} |")
    return out, [p]


BUDGET_SETS = [("default", "the default tune (race)"), ("spsa-1g", "games SPSA, the race's games"),
               ("spsa-4g", "games SPSA, four times them")]


def budget(name, directory="tuned/budget", matches=M):
    """scripts/equal_budget.sh's table of one engine (engines/NAME.toml): each tuned set of
    `directory` with what its tune cost, then its Elo against the defaults on each unseen book
    and pooled (reports in `matches`). A set not yet tuned, or a book not yet played, says so."""
    out = ["| set | margins | games tuning | wall | CPU | "
           + " | ".join(short for _, short in BOOKS) + " | pooled (games) | nElo pooled | draws pooled |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    used = []
    first = f"{directory}/{name}-default.json"
    if not os.path.exists(os.path.join(ROOT, first)):
        raise Unreadable(f"{first}: the equal-budget run's default tune is not here; run scripts/equal_budget.sh engines/{name}.toml")
    (kind, limit), = field(first, "provenance", "limit").items()
    tag = limit if kind == "nodes" else f"d{limit}"
    for label, what in BUDGET_SETS:
        tuned = f"{directory}/{name}-{label}.json"
        if not os.path.exists(os.path.join(ROOT, tuned)):
            out.append(f"| {what} | not yet tuned | | | | | | | | | |")
            continue
        used.append(tuned)
        pr = field(tuned, "provenance")
        # Every run of the tune: a resumed one records the runs it took up as `earlier_`.
        wall = pr["wall_seconds"] + pr.get("earlier_wall_seconds", 0)
        cpu = pr.get("cpu_seconds", 0) + pr.get("earlier_cpu_seconds", 0)
        cells = []
        for book, _ in BOOKS:
            part = f"{matches}/{name}-budget-{label}-{book}-{tag}.json"
            if not os.path.exists(os.path.join(ROOT, part)):
                cells.append("not yet played")
                continue
            asked = load(part).get("config", {}).get("games")
            if asked and games_of(part)[0] < asked:
                # An interrupted match's report: its PGN goes on, no figure until it ends.
                cells.append(f"under way ({games_of(part)[0]:,} of {asked:,} games)")
                continue
            used.append(part)
            cells.append(elo(part))
        pooled = f"{matches}/{name}-budget-{label}-pooled-{tag}.json"
        if os.path.exists(os.path.join(ROOT, pooled)):
            used.append(pooled)
            n, _ = games_of(pooled)
            total = f"**{elo(pooled)}** ({n:,}) | {nelo(pooled)} | {draws(pooled)}"
        else:
            total = "not yet played | | "
        out.append(f"| {what} (`{tuned}`) | {margins(tuned)} | {pr['games']:,} | {secs(wall)} "
                   f"| {secs(cpu) if cpu else 'not recorded'} | " + " | ".join(cells) + f" | {total} |")
    return out, used


def calibration(path):
    """A calibration report's tables, as scripts/calibration_table.py writes them."""
    import contextlib
    import io

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import calibration_table  # noqa: E402

    load(path)
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            calibration_table.main(os.path.join(ROOT, path))
    except (KeyError, TypeError, IndexError) as e:
        raise Unreadable(f"{path}: lacks what scripts/calibration_table.py reads ({e!r}); is it a marginal-calibration/1 report?")
    return text.getvalue().rstrip("\n").split("\n"), [path]


TABLES = {
    "calibration": calibration,
    "readme": readme, "default-tune": default_tune, "node-counts": node_counts, "spsa-sets": spsa_sets,
    "single-book": single_book, "tune-costs": tune_costs, "toga-confirm": toga_confirm,
    "engine-confirm": engine_confirm, "budget": budget,
}
# Tables of one file or engine, named after the table's name in the region's marker.
ONE_ARGUMENT = {"calibration": ("report", "tuned/calibration-ENGINE-LIMIT.json"), "budget": ("engine", "ENGINE")}


def pages():
    docs = os.path.join(ROOT, "docs")
    names = sorted(f for f in os.listdir(docs) if f.endswith(".md"))
    return ["README.md"] + [f"docs/{f}" for f in names]


def rewrite(page, text):
    """The page with every region written again; the names of the regions that changed."""
    lines = text.split("\n")
    out, changed, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith(BEGIN):
            out.append(line)
            i += 1
            continue
        words = line[len(BEGIN):].replace("-->", " ").split()
        name = words[0] if words and words[0] in TABLES else ("readme" if page == "README.md" else None)
        # A table of one report or engine names it after its name (`calibration FILE`, `budget ENGINE`).
        args = [words[1]] if name in ONE_ARGUMENT and len(words) > 1 else []
        if name in ONE_ARGUMENT and not args:
            noun, example = ONE_ARGUMENT[name]
            raise Unreadable(f"{page}:{i + 1}: a {name} region names no {noun}: "
                             f"<!-- results-table:begin {name} {example} -->")
        if name is None:
            raise Unreadable(f"{page}:{i + 1}: results-table region names no known table "
                             f"(one of {', '.join(TABLES)})")
        try:
            end = lines.index(END, i + 1)
        except ValueError:
            raise Unreadable(f"{page}:{i + 1}: results-table region '{name}' has no `{END}` line")
        table, used = TABLES[name](*args)
        used = list(dict.fromkeys(used))
        # A pooled report names its parts: the marker names the pooled report, not its parts.
        parts = {q["report"] for u in used if load(u).get("format") == "marginal-pooled/1" for q in load(u)["parts"]}
        used = [u for u in used if u not in parts]
        head = " ".join([name] + args)
        region = [f"{BEGIN} {head} (written by scripts/results_tables.py) from: {' '.join(used)} -->"] + table
        if lines[i:end] != region:
            changed.append(f"{page}:{i + 1} ({name})")
        out += region + [END]
        i = end + 1
    return "\n".join(out), changed


def main():
    global ROOT
    args = sys.argv[1:]
    if args[:1] == ["--root"] and len(args) > 1:
        ROOT, args = args[1], args[2:]
    check = args == ["--check"]
    if args and not check:
        sys.exit(__doc__)
    written, stale = {}, []
    try:
        for page in pages():
            with open(os.path.join(ROOT, page), encoding="utf-8") as f:
                text = f.read()
            new, changed = rewrite(page, text)
            stale += changed
            if new != text:
                written[page] = new
    except Unreadable as e:
        print(f"results_tables.py: {e}", file=sys.stderr)
        sys.exit(2)
    if check:
        for s in stale:
            print(f"results_tables.py: stale region {s}: run scripts/results_tables.py", file=sys.stderr)
        sys.exit(1 if stale else 0)
    for page, text in written.items():
        path = os.path.join(ROOT, page)
        with open(path + ".part", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".part", path)
        print(f"wrote {page}")


if __name__ == "__main__":
    main()
