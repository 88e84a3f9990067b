#!/usr/bin/env bash
# Equal game budget, per engine (issue 39 point 5): marginal's default tune against games SPSA
# set up as OpenBench sets it up, given the games the default tune spent (G) and four times
# them, each result then confirmed against the engine's defaults on books no tune used.
#
#   scripts/equal_budget.sh [--dry-run] ENGINE_FILE [BASELINE_FILE]
#
# 1. `marginal tune --engine ENGINE_FILE --seed 1`: the default tune (the race), at the
#    engine's default limit; its tuned file says the games it played, G, and the limit.
# 2. games SPSA at G games: `--objective games --solver spsa --pairs 8 --iterations G/16`,
#    OpenBench's schedule (alpha 0.602, gamma 0.101, A = 0.1 x iterations, c_end and r_end of
#    each row of the engine file, W-L of theta+ against theta- per iteration), on the race's
#    book (data/openings/8mvs_+90_+99_1k.epd), at the same limit.
# 3. the same at 4G games.
# 4. each tuned set plays the defaults (BASELINE_FILE's `default`; default: ENGINE_FILE's) on
#    noob_3moves_1k, popularpos_lichess_1k and UHO_4060_v2_2k, GAMES games each (none of them
#    a tuning book): per-book reports MATCHES/NAME-budget-SET-BOOK-NODES.json and a pooled
#    report naming its parts, MATCHES/NAME-budget-SET-pooled-NODES.json. Each set is
#    confirmed as soon as it is tuned (the default tune's first), so a run cut short has whole rows.
# 5. prints the table (scripts/budget_table.py): per set, its values, the games it tuned on,
#    wall time and CPU minutes of the tune, Elo on each unseen book and pooled.
#
# NAME is ENGINE_FILE's name without .toml (engines/toga2.toml: toga2). The tuned files, the
# .time files (wall, user and system seconds of each run of a tune, one line each), logs,
# checkpoints and PGNs go to DIR/NAME-*. Resumable: a tune whose file exists is skipped, and a
# book whose report holds every game it asked for (scripts/finished_match.py; an interrupted
# match's report holds fewer); an interrupted tune resumes from its checkpoint, an interrupted
# match from its PGN (`marginal match --resume`), so nothing finished is played again.
#
# Environment: GAMES per book (default 1000), DIR (default tuned/budget), MATCHES (default
# tuned/matches), PAIRS per SPSA iteration (default 8), SPSA_FLAGS (more `tune` flags for both
# SPSA runs, e.g. "--r-end 0.008"), DEFAULT_FLAGS (more flags for the default tune, for a quick
# trial: e.g. "--suites small.epd --design 4 --finalists 2 --race-pairs 2"), MARGINAL (the binary; default: this checkout's, built
# first). --dry-run prints the commands and runs nothing (G is read from the default tune's
# file when it exists, else taken as DRY_GAMES, default 2048).
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
if [ "${1:-}" = "--dry-run" ]; then
    dry=1
    shift
fi
usage="usage: scripts/equal_budget.sh [--dry-run] ENGINE_FILE [BASELINE_FILE]"
engine=${1:?$usage}
baseline=${2:-$engine}
for f in "$engine" "$baseline"; do
    if [ ! -f "$f" ]; then
        echo "equal_budget.sh: engine file '$f' does not exist (give one of engines/*.toml)" >&2
        exit 2
    fi
done
games=${GAMES:-1000}
dir=${DIR:-tuned/budget}
matches=${MATCHES:-tuned/matches}
pairs=${PAIRS:-8}
name=$(basename "$engine" .toml)
read -r -a spsa_flags <<<"${SPSA_FLAGS:-}"
read -r -a default_flags <<<"${DEFAULT_FLAGS:-}"
books=(noob_3moves_1k popularpos_lichess_1k UHO_4060_v2_2k)
tune_book=data/openings/8mvs_+90_+99_1k.epd
if [ -z "${MARGINAL:-}" ] && [ "$dry" = 0 ]; then
    cargo build --release --quiet
fi
marginal=${MARGINAL:-./target/release/marginal}

# Runs (or, dry, prints) a command.
run() {
    if [ "$dry" = 1 ]; then
        printf '%q ' "$@"
        echo
    else
        "$@"
    fi
}

# A tune into DIR/NAME-LABEL.json, timed, resumed from its checkpoint when interrupted.
tune() {
    local label=$1
    shift
    local out="$dir/$name-$label.json"
    if [ -f "$out" ]; then
        echo "# $out exists: tune $label skipped" >&2
        return
    fi
    [ "$dry" = 1 ] || mkdir -p "$dir"
    run /usr/bin/time -a -f "%e %U %S" -o "$dir/$name-$label.time" \
        "$marginal" tune --engine "$engine" "$@" --seed 1 --out "$out" \
        --checkpoint "$dir/$name-$label.checkpoint" --quiet
    [ "$dry" = 1 ] || rm -rf "$dir/$name-$label.checkpoint"
}

# A field of a tuned file's provenance, or the fallback when the file is not there (dry run).
field() {
    local file=$1 expr=$2 fallback=$3
    if [ -f "$file" ]; then
        python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['provenance']; print($expr)" "$file"
    else
        echo "$fallback"
    fi
}

# 1. The default tune.
tune default "${default_flags[@]}"
default_out="$dir/$name-default.json"
g=$(field "$default_out" "p.get('games', 0)" "${DRY_GAMES:-2048}")
limit=$(field "$default_out" "' '.join(f'--{k} {v}' for k, v in p['limit'].items())" "--nodes 10000")
read -r -a limit_flags <<<"$limit"
limit_tag=${limit_flags[1]}
if [ "$g" -lt $((2 * pairs)) ]; then
    echo "equal_budget.sh: $default_out played $g games, fewer than one SPSA iteration ($((2 * pairs))): nothing to give games SPSA" >&2
    exit 1
fi

# Each set against the defaults on the unseen books, then pooled.
confirm() {
    local set=$1
    local tuned="$dir/$name-$set.json"
    local reports=()
    [ "$dry" = 1 ] || mkdir -p "$matches"
    for book in "${books[@]}"; do
        local report="$matches/$name-budget-$set-$book-$limit_tag.json"
        reports+=("$report")
        # A finished book's report is kept; one an interrupted match wrote holds fewer games
        # than it asked for, and its PGN goes on (--resume writes the report again).
        if python3 scripts/finished_match.py "$report"; then
            continue
        fi
        local pgn="$dir/$name-budget-$set-$book-$limit_tag.pgn"
        local resume=()
        if [ -s "$pgn" ]; then
            resume=(--resume)
        fi
        run "$marginal" match --a "$tuned" --a-engine "$engine" --b default --b-engine "$baseline" \
            "${limit_flags[@]}" --games "$games" --openings "data/openings/$book.epd" --seed 3 \
            --pgn "$pgn" "${resume[@]}" --json "$report" --quiet
    done
    run python3 scripts/pool_books.py --json "$matches/$name-budget-$set-pooled-$limit_tag.json" "${reports[@]}"
}

# 4. The default tune's set is confirmed first, then each games SPSA (2-3: at G and 4G games,
#    iterations rounded to the nearest whole one) is tuned and confirmed in turn, so a run cut
#    short has whole rows.
confirm default
for factor in 1 4; do
    iterations=$(((factor * g + pairs) / (2 * pairs)))
    tune "spsa-${factor}g" --objective games --solver spsa --pairs "$pairs" \
        --iterations "$iterations" --openings "$tune_book" "${limit_flags[@]}" "${spsa_flags[@]}"
    confirm "spsa-${factor}g"
done

# 5. The table.
run python3 scripts/budget_table.py "$dir" "$matches" "$name"
