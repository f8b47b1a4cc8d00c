"""The pure part of the report: figures pulled out of the stored app documents,
and the markdown summary. No plotting and no file writing here (plots.py,
bench.py), so that this module is unit-tested on hand-made documents.

Every app prints {"app", "params", "topology", "results": [{"variant",
"median_s", "min_s", ...}]}; cws-phases nests one such entry per size in
"phases". Times are normalised to the run's own omp-static median (the
fallbacks, for apps without it: tbb-auto, tbb-task-group, serial). The spread
drawn around a bar goes from the variant's min_s to its median_s: the apps
report the minimum and the median over their measured runs, not the maximum.
"""

import math

import ratios
import suites

BASELINES = ("omp-static", "tbb-auto", "tbb-task-group", "serial")
LOCAL_SHARE_KEYS = ("local_share", "copy_local_share")
SUMMARY_BEGIN = "<!-- bench-summary:begin -->"
SUMMARY_END = "<!-- bench-summary:end -->"


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def baseline_of(variants):
    """The first of BASELINES among `variants`, or None."""
    for b in BASELINES:
        if b in variants:
            return b
    return None


def local_share_of(result):
    for key in LOCAL_SHARE_KEYS:
        if _number(result.get(key)):
            return result[key]
    return None


def _group(record, label, results):
    """One chart group: rows of variants with median/min and ratios to the baseline."""
    rows = [r for r in results if _number(r.get("median_s"))]
    names = [r["variant"] for r in rows]
    base = baseline_of(names)
    base_median = next((r["median_s"] for r in rows if r["variant"] == base), None)
    out = []
    for r in rows:
        lo = r["min_s"] if _number(r.get("min_s")) else r["median_s"]
        row = {"variant": r["variant"], "median_s": r["median_s"], "min_s": lo, "verified": r.get("verified"),
               "local_share": local_share_of(r)}
        if base_median:
            row.update(ratio=r["median_s"] / base_median, ratio_lo=lo / base_median)
        else:
            row.update(ratio=None, ratio_lo=None)
        out.append(row)
    return {"id": record["id"], "app": record["app"], "label": label, "nodes": record.get("nodes", 1),
            "baseline": base, "rows": out}


def time_groups(record):
    """The chart groups of one stored run: one per run, or one per size for nested "phases" results."""
    doc = record.get("doc") or {}
    results = doc.get("results") or []
    if any(isinstance(r.get("phases"), list) for r in results):
        sizes = []
        for r in results:
            for p in r.get("phases") or []:
                if p.get("size") not in sizes:
                    sizes.append(p.get("size"))
        groups = []
        for size in sizes:
            flat = [dict(p, variant=r["variant"]) for r in results for p in (r.get("phases") or [])
                    if p.get("size") == size]
            groups.append(_group(record, f"{record['id']} [{size}]", flat))
        return groups
    return [_group(record, record["id"], results)]


def nodes_of(record):
    topo = (record.get("doc") or {}).get("topology") or {}
    return topo.get("numa_nodes") or record.get("nodes", 1)


def locality_table(records):
    """{app: {variant: {nodes: local share}}} over the runs whose cws variants report a local share.

    A run on one node counts only when the app also ran on more nodes (one node: every share is 1)."""
    table = {}
    for rec in records:
        if rec.get("status") != "ok":
            continue
        nodes = nodes_of(rec)
        for r in rec["doc"].get("results") or []:
            share = local_share_of(r)
            if share is not None:
                table.setdefault(rec["app"], {}).setdefault(r["variant"], {})[nodes] = share
    return {app: v for app, v in table.items() if any(n > 1 for per in v.values() for n in per)}


def iteration_keys(result):
    """The per-iteration report lists of a result: "iterations" (heat), "e_iterations" and "h_iterations"
    (fdtd: one per step phase), ...; the init phase's are left out."""
    return [k for k, v in result.items()
            if k.endswith("iterations") and k != "init_iterations" and isinstance(v, list)]


def evolve_series(record, variant="cws-evolve"):
    """The per-iteration reports of `variant`, one series per iteration list of the result (see
    iteration_keys): [{"id", "variant", "phase", "points", "converged_at", "first_converged_index"}], where a
    point is {"index", "run", "warmup", "wall_s", "distance", "ran_as", "converged"}. Empty when none."""
    out = []
    for r in (record.get("doc") or {}).get("results") or []:
        if r.get("variant") != variant:
            continue
        for key in iteration_keys(r):
            points = []
            for i, it in enumerate(r[key]):
                if not isinstance(it, dict):
                    continue
                points.append({"index": i, "run": it.get("run"), "warmup": bool(it.get("warmup")),
                               "wall_s": it.get("wall_s"), "distance": it.get("distance_to_previous"),
                               "ran_as": it.get("ran_as_kind") or it.get("ran_as"),
                               "converged": bool(it.get("converged"))})
            phase = key[: -len("iterations")].rstrip("_") or "step"
            converged_at = r.get("converged_at")
            if isinstance(converged_at, dict):
                converged_at = next((v for k, v in converged_at.items() if k.startswith(phase)), None)
            out.append({"id": record["id"], "variant": variant, "phase": phase, "points": points,
                        "converged_at": converged_at,
                        "first_converged_index": next((p["index"] for p in points if p["converged"]), None)})
    return out


def _fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}"


def _fmt_ms(s):
    """Milliseconds with 3 significant digits (a phase may take microseconds, a run seconds)."""
    if s is None:
        return "-"
    ms = s * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def _fmt_pct(x):
    return "-" if x is None else f"{100 * x:.1f}"


def run_row(record, groups):
    """The summary row of one stored run: status, baseline, best cws variant and best TBB against it."""
    if record.get("status") != "ok":
        return {"id": record["id"], "app": record["app"], "nodes": record.get("nodes", 1),
                "status": record.get("status"), "note": record.get("reason", "")}
    g = groups[-1] if groups else None  # phases: the largest size
    rows = g["rows"] if g else []
    cws = [r for r in rows if r["variant"].startswith("cws-") and r["ratio"] is not None]
    tbb = [r for r in rows if (r["variant"] == "tbb" or r["variant"].startswith("tbb-")) and r["ratio"] is not None]
    best = min(cws, key=lambda r: r["ratio"]) if cws else None
    best_tbb = min(tbb, key=lambda r: r["ratio"]) if tbb else None
    base = next((r for r in rows if r["variant"] == (g or {}).get("baseline")), None)
    verified = all(r.get("verified") is not False for grp in groups for r in grp["rows"])
    return {"id": record["id"], "app": record["app"], "nodes": nodes_of(record), "status": "ok",
            "group": g["label"] if g else record["id"], "baseline": g["baseline"] if g else None,
            "baseline_ms": base["median_s"] if base else None, "best_cws": best["variant"] if best else None,
            "best_cws_ratio": best["ratio"] if best else None, "best_tbb": best_tbb["variant"] if best_tbb else None,
            "best_tbb_ratio": best_tbb["ratio"] if best_tbb else None, "verified": verified,
            "variants": len(rows), "wall_s": record.get("wall_s")}


def summary_markdown(meta, records, figures=()):
    """summary.md: where and what ran, one row per stored run, per-run variant tables, locality, figures."""
    lines = [f"## Measured: suite `{meta.get('suite')}`", ""]
    m = meta.get("machine") or {}
    commit = meta.get("commit") or "unknown"
    dirty = " (with uncommitted changes)" if meta.get("dirty") else ""
    lines += [f"- commit `{commit[:12]}`{dirty}, run {meta.get('started', '?')}, "
              f"{meta.get('wall_s', 0):.0f} s in all",
              f"- machine: {m.get('model', '?')}, {m.get('nproc', '?')} CPUs, "
              f"{m.get('mem_gib', '?')} GiB, kernel {m.get('kernel', '?')}, load average at start "
              f"{', '.join(f'{x:.1f}' for x in m.get('load_average', [])) or '?'}",
              "- times: medians over each app's measured runs, normalised to the same run's `omp-static` "
              "(apps without it: `tbb-auto`, `tbb-task-group`, then `serial`); lower is better; runs on N > 1 "
              "nodes use a synthetic topology (simulated page homes) with N workers on this machine's cores", ""]
    rounds = meta.get("repeat") or 1
    if rounds > 1 or meta.get("suite") in suites.COMPARISONS:
        lines += ratios.markdown(records, rounds)
    lines += ["| run | app | nodes | baseline | baseline ms | best cws | vs baseline | best TBB | vs baseline "
              "| verified | wall s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    all_groups = {}
    for rec in records:
        groups = time_groups(rec) if rec.get("status") == "ok" else []
        all_groups[rec["id"]] = groups
        row = run_row(rec, groups)
        if row["status"] != "ok":
            lines.append(f"| {row['id']} | {row['app']} | {row['nodes']} | {row['status']}: {row['note']} "
                         "| | | | | | | |")
            continue
        lines.append(f"| {row['id']} | {row['app']} | {row['nodes']} | {row['baseline'] or '-'} "
                     f"| {_fmt_ms(row['baseline_ms'])} | {row['best_cws'] or '-'} | {_fmt_ratio(row['best_cws_ratio'])} "
                     f"| {row['best_tbb'] or '-'} | {_fmt_ratio(row['best_tbb_ratio'])} "
                     f"| {'yes' if row['verified'] else 'NO'} | {row['wall_s']:.1f} |")
    lines.append("")
    for rec in records:
        for g in all_groups[rec["id"]]:
            if rec.get("nodes", 1) > 1:
                continue  # the locality runs are summed up below
            lines += [f"### {g['label']}", "", f"| variant | median ms | min ms | vs {g['baseline'] or '-'} "
                      "| local % | verified |", "|---|---|---|---|---|---|"]
            for r in g["rows"]:
                lines.append(f"| {r['variant']} | {_fmt_ms(r['median_s'])} | {_fmt_ms(r['min_s'])} "
                             f"| {_fmt_ratio(r['ratio'])} | {_fmt_pct(r['local_share'])} "
                             f"| {'-' if r['verified'] is None else ('yes' if r['verified'] else 'NO')} |")
            lines.append("")
    loc = locality_table(records)
    if loc:
        lines += ["### Locality (share of the declared bytes on the toucher's node)", ""]
        for app, variants in loc.items():
            nodes = sorted({n for per in variants.values() for n in per})
            lines += [f"**{app}**", "", "| variant | " + " | ".join(f"{n} node{'s' if n > 1 else ''}" for n in nodes)
                      + " |", "|---|" + "---|" * len(nodes)]
            for v, per in variants.items():
                lines.append(f"| {v} | " + " | ".join(_fmt_pct(per.get(n)) for n in nodes) + " |")
            lines.append("")
    evolve_lines = []
    for rec in records:
        if rec.get("status") != "ok" or rec.get("nodes", 1) > 1:
            continue
        for series in evolve_series(rec):
            at = series["first_converged_index"]
            evolve_lines.append(f"| {rec['id']} | {series['phase']} | {len(series['points'])} "
                                f"| {at if at is not None else 'never'} | {series['converged_at']} |")
    if evolve_lines:
        lines += ["### cws-evolve until convergence", "",
                  "| run | phase | phases recorded | switched to stows at phase # | JSON converged_at |",
                  "|---|---|---|---|---|"] + evolve_lines + [""]
    skipped = [r for r in records if r.get("status") == "skipped"]
    if skipped:
        lines += ["Skipped (not built): " + ", ".join(sorted({r["app"] for r in skipped})) + ".", ""]
    if figures:
        lines += ["Figures: " + ", ".join(f"[{f}]({f})" for f in figures) + ".", ""]
    return "\n".join(lines)


def for_splice(summary, overview=False):
    """The summary as spliced into a document: without the Figures line (its
    links are relative to the report directory), and with --overview only
    the part before the first per-app section."""
    if overview:
        cut = summary.find("\n### ")
        if cut >= 0:
            summary = summary[: cut + 1]
    return "\n".join(line for line in summary.splitlines() if not line.startswith("Figures: ")) + "\n"


def splice(text, summary):
    """`text` with the part between SUMMARY_BEGIN and SUMMARY_END replaced by `summary`.

    ValueError when the markers are missing or out of order."""
    begin, end = text.find(SUMMARY_BEGIN), text.find(SUMMARY_END)
    if begin < 0 or end < 0 or end < begin:
        raise ValueError(f"the markers {SUMMARY_BEGIN} ... {SUMMARY_END} are missing or out of order")
    head = text[: begin + len(SUMMARY_BEGIN)]
    return head + "\n" + summary.rstrip("\n") + "\n" + text[end:]


def check_report(report_files, summary_text, records):
    """Problems with a rendered report: PNGs missing or empty, summary rows missing. Empty list: fine.

    report_files: {name: size in bytes} of the report directory."""
    problems = []
    pngs = {n: s for n, s in report_files.items() if n.endswith(".png")}
    if not pngs:
        problems.append("no PNG in the report")
    problems += [f"{n} is empty" for n, s in pngs.items() if s == 0]
    for rec in records:
        if f"| {rec['id']} |" not in summary_text:
            problems.append(f"summary.md has no row for run {rec['id']}")
    ok = [r for r in records if r.get("status") == "ok"]
    for rec in ok:
        if rec.get("nodes", 1) <= 1 and not any(n.startswith(f"time_{rec['id']}") for n in pngs):
            problems.append(f"no time chart for run {rec['id']}")
    return problems
