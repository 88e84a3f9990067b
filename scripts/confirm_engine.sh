#!/usr/bin/env bash
# Confirms a tuned set of an external engine against the engine's defaults (issue 39 point 6):
# at least 2,000 games on the two balanced books and UHO (none of them a book the race or a
# games SPSA of scripts/equal_budget.sh tunes on), judged pooled by an SPRT in normalized Elo
# [0, 10], at the limit the set was tuned at and at four times it.
#
#   scripts/confirm_engine.sh [--dry-run] ENGINE_FILE TUNED_FILE [BASELINE_FILE]
#
# TUNED_FILE is a tuned file of ENGINE_FILE; it plays BASELINE_FILE's `default` (default:
# ENGINE_FILE's; for engines/gnuchess-pruning.toml give engines/gnuchess.toml, GNU Chess as it
# ships). The limit is the tuned file's (--nodes N, or --depth D); four times it is 4N nodes
# (a depth limit has no such multiple: D + 2 plies stands for it). Each book plays GAMES/3
# games (whole pairs; default GAMES 2100) with no early stop, so every book has its share;
# the SPRT (SPRT, default 0,10,0.05,0.05: elo0,elo1,alpha,beta, as `marginal match --sprt`)
# judges the books' games pooled (scripts/pool_books.py --sprt): H1, H0 or undecided.
#
# Writes MATCHES/NAME-confirm-BOOK-LIMIT.json (one match report a book; NAME is TUNED_FILE's
# name without .json, LIMIT the nodes or dN) and the pooled report
# MATCHES/NAME-confirm-pooled-LIMIT.json naming its parts, and prints one table row a book and
# the pooled one.
#
# ROUNDS=N (default 1) plays N rounds a book, each of GAMES/3 games: round R > 1 has its own
# openings (--seed 4+R) and reports MATCHES/NAME-confirm-BOOK-LIMIT-rR.json; each book's rounds
# are pooled in MATCHES/NAME-confirm-BOOK-LIMIT-rounds.json and the pooled report pools every
# round of every book. It is how an undecided SPRT goes on: a sequential test may take more
# games after a look that decided nothing (it is the stop at a bound that its error rates are
# for), so rerun with ROUNDS one higher; the rounds already played are kept, and pooled
# whatever ROUNDS says. Resumable: a finished book's report is kept (one that holds the games it asked
# for; an interrupted match's report holds fewer), an interrupted match goes on from its PGN
# (DIR/..., `marginal match --resume`). Environment: GAMES, SPRT, DIR (default tuned/confirm),
# MATCHES (default tuned/matches), MARGINAL (default: this checkout's binary, built first).
# --dry-run prints the commands and runs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
if [ "${1:-}" = "--dry-run" ]; then
    dry=1
    shift
fi
usage="usage: scripts/confirm_engine.sh [--dry-run] ENGINE_FILE TUNED_FILE [BASELINE_FILE]"
engine=${1:?$usage}
tuned=${2:?$usage}
baseline=${3:-$engine}
for f in "$engine" "$baseline"; do
    if [ ! -f "$f" ]; then
        echo "confirm_engine.sh: engine file '$f' does not exist (give one of engines/*.toml)" >&2
        exit 2
    fi
done
if [ ! -f "$tuned" ]; then
    echo "confirm_engine.sh: tuned file '$tuned' does not exist (give the --out of a \`marginal tune --engine $engine\`)" >&2
    exit 2
fi
games=${GAMES:-2100}
rounds=${ROUNDS:-1}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
    echo "confirm_engine.sh: ROUNDS '$rounds' is not a whole number of rounds (1, 2, ...)" >&2
    exit 2
fi
sprt=${SPRT:-0,10,0.05,0.05}
dir=${DIR:-tuned/confirm}
matches=${MATCHES:-tuned/matches}
name=$(basename "$tuned" .json)
books=(noob_3moves_1k popularpos_lichess_1k UHO_4060_v2_2k)
per_book=$(((games + 2 * ${#books[@]} - 1) / (2 * ${#books[@]}) * 2))
if [ -z "${MARGINAL:-}" ] && [ "$dry" = 0 ]; then
    cargo build --release --quiet
fi
marginal=${MARGINAL:-./target/release/marginal}

# The tuned file's limit: "nodes N" or "depth D".
if ! limit=$(python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['provenance']
(k, v), = p['limit'].items()
print(k, v)" "$tuned" 2>/dev/null); then
    echo "confirm_engine.sh: $tuned is not a tuned file with a recorded limit (provenance.limit); give the --out of a \`marginal tune\`" >&2
    exit 2
fi
read -r kind value <<<"$limit"
if [ "$kind" = nodes ]; then
    limits=("--nodes $value" "--nodes $((4 * value))")
else
    limits=("--depth $value" "--depth $((value + 2))")
fi

run() {
    if [ "$dry" = 1 ]; then
        printf '%q ' "$@"
        echo
    else
        "$@"
    fi
}

[ "$dry" = 1 ] || mkdir -p "$dir" "$matches"
for limit in "${limits[@]}"; do
    read -r -a limit_flags <<<"$limit"
    tag=${limit_flags[1]}
    [ "${limit_flags[0]}" = --depth ] && tag=d$tag
    reports=()
    if [ "$dry" = 0 ]; then
        echo "| book | limit | games | Elo [95%] | nElo [95%] | draws | pentanomial LL LD WL+DD WD WW | wall |"
        echo "|---|---|---|---|---|---|---|---|"
    fi
    # Rounds already played at this limit are always pooled, even when ROUNDS says fewer.
    played=$rounds
    for report in "$matches/$name-confirm-"*"-$tag-r"*.json; do
        [[ "$report" =~ -r([0-9]+)\.json$ ]] && [ "${BASH_REMATCH[1]}" -gt "$played" ] && played=${BASH_REMATCH[1]}
    done
    for round in $(seq 1 "$played"); do
        suffix=""
        [ "$round" = 1 ] || suffix="-r$round"
        for book in "${books[@]}"; do
            report="$matches/$name-confirm-$book-$tag$suffix.json"
            reports+=("$report")
            # A finished book's report is kept; one an interrupted match wrote holds fewer games
            # than it asked for, and its PGN goes on (--resume writes the report again).
            if python3 scripts/finished_match.py "$report"; then
                [ "$dry" = 1 ] || python3 scripts/match_row.py "$report" "$book" "$tag" "-"
                continue
            fi
            pgn="$dir/$name-confirm-$book-$tag$suffix.pgn"
            resume=()
            if [ -s "$pgn" ]; then
                resume=(--resume)
            fi
            start=$(date +%s)
            run "$marginal" match --a "$tuned" --a-engine "$engine" --b default --b-engine "$baseline" \
                "${limit_flags[@]}" --games "$per_book" --openings "data/openings/$book.epd" --seed $((4 + round)) \
                --pgn "$pgn" "${resume[@]}" --json "$report" --quiet
            [ "$dry" = 1 ] || python3 scripts/match_row.py "$report" "$book" "$tag" "$(($(date +%s) - start))"
        done
    done
    if [ "$played" -gt 1 ]; then
        for book in "${books[@]}"; do
            mine=()
            for report in "${reports[@]}"; do
                case "$report" in *"-confirm-$book-$tag"*) mine+=("$report") ;; esac
            done
            run python3 scripts/pool_books.py --json "$matches/$name-confirm-$book-$tag-rounds.json" "${mine[@]}"
        done
    fi
    run python3 scripts/pool_books.py --sprt "$sprt" --json "$matches/$name-confirm-pooled-$tag.json" "${reports[@]}"
done
