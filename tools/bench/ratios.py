"""The comparison table of the "beat TBB" issue: for every workload, two ratios
read inside each app run, then their median and spread over the suite's rounds.

- best cws / best TBB: the least median time of the cws variants ("cws-...")
  over the least of the TBB variants ("tbb", "tbb-...");
- best replaying / cws random: the least median time of the variants whose
  policy replays a recorded schedule (a name word among REPLAYING_WORDS:
  "cws-stows", "cws-stows-follow-init", "cws-evolve-hinted", ...) over the
  app's plain random variant (the first of RANDOM_REFERENCES it has: cws-heat's
  "cws-random", cws-memcopy's "cws-random-firsttouch", the hinted apps'
  "cws-random-ft"; the interleaved-page variants are not the reference).

Both ratios of a run come from one process, whose variants run interleaved
round by round, so a slow spell of the loaded machine lands on all of them;
ratios of different runs are never mixed. A variant that failed its
verification is never the best, nor the reference. Lower is better for cws.
"""

import math
import statistics

REPLAYING_WORDS = frozenset({"stows", "stuws", "relws", "evolve", "follow", "user"})
RANDOM_REFERENCES = ("cws-random", "cws-random-firsttouch", "cws-random-ft")
MISSING = "—"


def is_cws(variant):
    return variant.startswith("cws-")


def is_tbb(variant):
    return variant == "tbb" or variant.startswith("tbb-")


def is_replaying(variant):
    return is_cws(variant) and any(word in REPLAYING_WORDS for word in variant.split("-")[1:])


def variant_times(record):
    """{variant: median_s} of one stored run, without the variants that failed verification."""
    times = {}
    for r in (record.get("doc") or {}).get("results") or []:
        t = r.get("median_s")
        if r.get("verified") is False or isinstance(t, bool) or not isinstance(t, (int, float)):
            continue
        if math.isfinite(t) and t > 0:
            times[r["variant"]] = t
    return times


def _best(times, keep):
    """(variant, time) of the fastest variant that `keep` accepts, or None."""
    candidates = [(t, v) for v, t in times.items() if keep(v)]
    if not candidates:
        return None
    t, v = min(candidates)
    return v, t


def run_ratios(record):
    """The two ratios of one stored run and the variants they come from (None where the app has no such
    variant): {"cws_vs_tbb", "best_cws", "best_tbb", "replay_vs_random", "best_replaying", "random"}."""
    times = variant_times(record)
    cws, tbb, replaying = _best(times, is_cws), _best(times, is_tbb), _best(times, is_replaying)
    random = next((v for v in RANDOM_REFERENCES if v in times), None)
    return {"cws_vs_tbb": cws[1] / tbb[1] if cws and tbb else None,
            "best_cws": cws[0] if cws else None, "best_tbb": tbb[0] if tbb else None,
            "replay_vs_random": replaying[1] / times[random] if replaying and random else None,
            "best_replaying": replaying[0] if replaying else None, "random": random}


def spread(values):
    """{"median", "min", "max", "count"} of the ratios of the rounds that gave one, or None."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "count": len(values)}


def workload_of(record):
    """The workload a stored run measured: its id without the round (older records: the id)."""
    return record.get("workload") or record["id"]


def table(records):
    """One row per workload, in suite order: {"workload", "app", "runs" (stored runs), "ok" (runs that
    succeeded), "cws_vs_tbb", "replay_vs_random" (spreads or None), "best" ({"cws", "tbb", "replaying"}:
    the variant names, one per successful run)}."""
    rows = {}
    for rec in records:
        row = rows.setdefault(workload_of(rec), {"workload": workload_of(rec), "app": rec["app"], "runs": 0,
                                                 "ratios": []})
        row["runs"] += 1
        if rec.get("status") == "ok":
            row["ratios"].append(run_ratios(rec))
    out = []
    for row in rows.values():
        ratios = row.pop("ratios")
        row.update(ok=len(ratios), cws_vs_tbb=spread([r["cws_vs_tbb"] for r in ratios]),
                   replay_vs_random=spread([r["replay_vs_random"] for r in ratios]),
                   best={key: [r["best_" + key] for r in ratios if r["best_" + key]]
                         for key in ("cws", "tbb", "replaying")})
        out.append(row)
    return out


def format_spread(s):
    """"0.85 (0.80–0.90)"; one value alone; MISSING without one."""
    if s is None:
        return MISSING
    if s["count"] == 1:
        return f"{s['median']:.2f}"
    return f"{s['median']:.2f} ({s['min']:.2f}–{s['max']:.2f})"


def format_names(names):
    """The variants that were best, the most frequent first: "cws-stuws ×2, cws-user"; MISSING if none."""
    if not names:
        return MISSING
    counts = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(n if c == 1 else f"{n} ×{c}" for n, c in ordered)


def markdown(records, rounds):
    """The table as summary.md lines (a lead paragraph, the table, a blank line)."""
    over = (f"then the median (min–max) of each ratio over the {rounds} rounds of the suite" if rounds > 1
            else "from one round of the suite")
    lines = [f"**cws against TBB, and replaying schedules against random stealing** — per app run, the ratio of "
             f"the variants' median times (all variants interleaved in that one process), {over}; lower "
             f"is better for cws. Best replaying: stows, stuws, relws, evolve, follow, user; random: "
             f"{', '.join(f'`{v}`' for v in RANDOM_REFERENCES)}, whichever the app has.", "",
             "| app | runs ok | best cws / best TBB | best replaying / cws random | best variants (cws; TBB; "
             "replaying) |", "|---|---|---|---|---|"]
    for row in table(records):
        best = "; ".join(format_names(row["best"][key]) for key in ("cws", "tbb", "replaying"))
        lines.append(f"| {row['workload']} | {row['ok']}/{row['runs']} | {format_spread(row['cws_vs_tbb'])} "
                     f"| {format_spread(row['replay_vs_random'])} | {best} |")
    return lines + [""]
