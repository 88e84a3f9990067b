#!/usr/bin/env python3
"""Writes the Markdown tables of a calibration report (marginal-calibration/1), so that the
figures in docs/calibration.md come from the shipped report, never typed by hand.

usage: scripts/calibration_table.py tuned/calibration-ENGINE-LIMIT.json
"""
import json
import sys


def interval(i, fmt="{:.2f}"):
    if not i:
        return "n/a"
    return f"{fmt.format(i['value'])} [{fmt.format(i['lower'])}, {fmt.format(i['upper'])}]"


def signed(x):
    return f"{x:+.1f}"


def main(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"calibration_table.py: cannot read {path}: {e}")
    if r.get("format") != "marginal-calibration/1":
        sys.exit(f"calibration_table.py: {path} is not a marginal-calibration/1 report")
    c, cost = r["ceiling"], r["cost"]
    games = sum(s["pooled"]["games"] for s in r["sets"])
    cpu = cost.get("cpu_seconds")
    cpu = f", {cpu / 60:.1f} CPU minutes" if cpu else ""
    print(f"{len(r['sets'])} sets, {r['game_limit']}, {games:,} games "
          f"({', '.join(b['path'].split('/')[-1] for b in r['books'])}), "
          f"{cost['objective_evaluations']} objective evaluations: "
          f"{cost['wall_seconds'] / 60:.1f} min wall{cpu} on {cost['threads']} threads "
          f"over {cost['runs']} run(s).")
    if r.get("stopped"):
        print(f"The games stopped after {len(r.get('rounds') or [])} round(s): "
              f"{r['stopped']} (target {r.get('ceiling_target')}, budget {r.get('max_games')} games).")
    if r.get("games_for_target"):
        print(f"At this spread of the sets, about {r['games_for_target']:,} games in all would bring "
              f"the games' ceiling to the target (Spearman-Brown).")
    p = r.get("power")
    if p:
        true = f"{p['min_true_rho']:.2f}" if p.get("min_true_rho") else "none (these games are too unreliable to detect any)"
        print(f"Power: with {p['sets']} sets the smallest rho told from zero is {p['min_rho']:.2f}; "
              f"through these games, the smallest true correlation {true}.")
    print()
    print("| objective | rho [95%] | better half rho [95%] | tau [95%] | slope, Elo per point [95%] | verdict |")
    print("|---|---|---|---|---|---|")
    for o in r["objectives"]:
        verdict = o["verdict"].split(": ")[-1]
        print(f"| {o['name']} | {interval(o['rho'])} | {interval(o.get('top_half_rho'))} | "
              f"{interval(o['tau'])} | {interval(o['slope'], '{:.1f}')} | {verdict} |")
    # The ceiling judged by is the lesser of the two splits' (as the rounds and verdicts use).
    halves, book = c.get("max_rho"), c.get("book_max_rho")
    judged = min(x for x in (halves, book) if x is not None) if halves is not None else None
    ceiling = f"{judged:.2f}" if judged is not None else "n/a"
    if halves is not None and book is not None:
        book = f" (even vs odd {halves:.2f}, by books {book:.2f})"
    else:
        book = ""
    print(f"| *games against themselves* | book vs book {interval(c['book_vs_book'])} | "
          f"even vs odd pairs {interval(c['half_vs_half'])} | reliability {c['reliability']:.2f} | "
          f"ceiling on rho {ceiling}{book} | |")
    print()
    names = [d["name"] for d in r["region"]]
    books = [b["path"].split("/")[-1].removesuffix(".epd") for b in r["books"]]
    head = ["set", " / ".join(names)] + [o["name"].split(" (")[0] for o in r["objectives"]]
    head += books + ["pooled Elo [95%]", "games", "draws"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for s in r["sets"]:
        g = s["pooled"]
        values = " / ".join(str(v) for v in s["values"])
        objectives = [f"{v:.3f}" for v in s["objectives"]]
        if g["games"] == 0:
            row = [s["name"], values] + objectives + ["0"] * len(books)
            row += ["0 (by definition, not played)", "0", ""]
        else:
            lo, hi = g["elo_interval"]
            per_book = [signed(b["elo"]) for b in s["books"]]
            row = [s["name"], values] + objectives + per_book
            row += [f"{signed(g['elo'])} [{lo:+.0f}, {hi:+.0f}]", str(g["games"]),
                    f"{100 * g['draw_rate']:.0f}%"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(sys.argv[1])
