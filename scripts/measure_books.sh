#!/usr/bin/env bash
# Measures a margin set against the defaults in paired games on the two balanced books and UHO,
# as the README's results tables report it: one table row per book with Elo, nElo and their 95%
# intervals, the draw rate, the pentanomial counts and the wall time, then the three books
# pooled (scripts/pool_books.py). The match reports go to
# DIR/NAME-BOOK-NODES.json.
#
#   scripts/measure_books.sh SET [NODES] [GAMES] [DIR]
#
# SET is what `marginal match --a` takes (a tuned file, or name=value assignments); NODES per
# move (default 5000); GAMES per book (default 1000); DIR (default tuned/matches/measured).
# Every match has --seed 3, so a rerun gives the same games. MARGINAL names the binary to run
# (default: this checkout's, built first). ENGINE names an engine file (engines/toga2.toml):
# both sides play with that engine, the set against its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
set_spec=${1:?usage: scripts/measure_books.sh SET [NODES] [GAMES] [DIR]}
nodes=${2:-5000}
games=${3:-1000}
dir=${4:-tuned/matches/measured}
mkdir -p "$dir"
name=$(basename "$set_spec" .json | tr -c 'A-Za-z0-9_.+\n-' '_')
if [ -z "${MARGINAL:-}" ]; then
    cargo build --release --quiet
fi
marginal=${MARGINAL:-./target/release/marginal}
engine=()
if [ -n "${ENGINE:-}" ]; then
    engine=(--a-engine "$ENGINE" --b-engine "$ENGINE")
fi
echo "| book | nodes | games | Elo [95%] | nElo [95%] | draws | pentanomial LL LD WL+DD WD WW | wall |"
echo "|---|---|---|---|---|---|---|---|"
reports=()
for book in noob_3moves_1k popularpos_lichess_1k UHO_4060_v2_2k; do
    out="$dir/$name-$book-$nodes.json"
    reports+=("$out")
    start=$(date +%s)
    "$marginal" match --a "$set_spec" --b default "${engine[@]}" --nodes "$nodes" --games "$games" \
        --openings "data/openings/$book.epd" --seed 3 --json "$out" --force >/dev/null
    seconds=$(($(date +%s) - start))
    python3 scripts/match_row.py "$out" "$book" "$nodes" "$seconds"
done
# The three books pooled (pentanomial counts summed): games, Elo, nElo, draws, pentanomial.
python3 scripts/pool_books.py "${reports[@]}"
