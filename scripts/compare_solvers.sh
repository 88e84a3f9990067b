#!/usr/bin/env bash
# Equal-budget comparison of the solvers (issue 22, item 2): each solver gets about the same
# wall time on this 2-core machine, sized by its iterations (none of them stops on a clock, so a
# rerun gives the same set), then its set plays the defaults on the two balanced books and UHO
# (scripts/measure_books.sh, 5,000 nodes a move).
#
#   scripts/compare_solvers.sh BUDGET [GAMES] [DIR]
#
# BUDGET is 2, 5 or 20 (minutes); GAMES per book (default 400); DIR (default
# tuned/compare). Writes DIR/BUDGET-SOLVER.json (the tuned file), DIR/BUDGET-SOLVER.time
# (wall, user and system seconds of the tune) and the match reports, then prints the table
# (scripts/compare_table.py). A solver whose tuned file and three reports exist is not rerun.
# MARGINAL names the binary (default: this checkout's, built first). The sizes below come from
# measured CPU costs (user + system): an SPSA iteration on the suite (two evaluations of the
# 810 training positions at 5,000 nodes) about 0.047 CPU minutes, a swarm iteration (8
# particles) about 0.1, a games-SPSA iteration (8 pairs) about 0.045; a budget of B minutes
# on 2 cores is 2B CPU minutes. Nelder-Mead stops by itself (after about 80 evaluations).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:?usage: scripts/compare_solvers.sh BUDGET [GAMES] [DIR]}
games=${2:-400}
dir=${3:-tuned/compare}
mkdir -p "$dir"
if [ -z "${MARGINAL:-}" ]; then
    cargo build --release --quiet
fi
marginal=${MARGINAL:-./target/release/marginal}
export MARGINAL=$marginal

case "$budget" in
2)
    spsa="--iterations 85"
    nm="--iterations 50"
    pso="--iterations 40"
    games_spsa="--iterations 70"
    race="--design 24 --finalists 8 --race-pairs 8,16,32"
    ;;
5)
    spsa="--iterations 212"
    nm="--iterations 120"
    pso="--iterations 100"
    games_spsa="--iterations 175"
    race="--race-pairs 24,48,96,192"
    ;;
20)
    spsa="--iterations 850"
    nm="--iterations 500"
    pso="--iterations 400"
    games_spsa="--iterations 900"
    race="--design 96 --finalists 32 --race-pairs 32,64,128,256,512"
    ;;
*)
    echo "compare_solvers.sh: budget '$budget' is not one of 2, 5, 20 (minutes)" >&2
    exit 2
    ;;
esac

run() {
    local name=$1
    shift
    local out="$dir/$budget-$name.json"
    local done=1
    for book in noob_3moves_1k popularpos_lichess_1k UHO_4060_v2_2k; do
        [ -f "$dir/$budget-$name-$book-5000.json" ] || done=0
    done
    if [ -f "$out" ] && [ "$done" = 1 ]; then
        return
    fi
    if [ ! -f "$out" ]; then
        rm -rf "$dir/$budget-$name.checkpoint"
        /usr/bin/time -f "%e %U %S" -o "$dir/$budget-$name.time" \
            "$marginal" tune "$@" --seed 1 --out "$out" --checkpoint "$dir/$budget-$name.checkpoint" \
            >"$dir/$budget-$name.log" 2>&1
        rm -rf "$dir/$budget-$name.checkpoint"
    fi
    scripts/measure_books.sh "$out" 5000 "$games" "$dir" >"$dir/$budget-$name.books.md"
}

run race --solver race $race
run spsa --solver spsa $spsa
run nelder-mead --solver nelder-mead $nm
run pso --solver pso $pso
# The anchor: SPSA on games as fishtest and OpenBench run it (theta+ against theta-, W-L drives the
# step), on the race's book so that no confirmation book is a tuning book.
run games-spsa --objective games --pairs 8 --openings data/openings/8mvs_+90_+99_1k.epd \
    --c-end frontier=20 --c-end prefrontier=50 --c-end razor=80 --c-end delta=20 --r-end 0.008 \
    $games_spsa
python3 scripts/compare_table.py "$dir" "$budget"
