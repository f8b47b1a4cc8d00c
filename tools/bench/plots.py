"""The report's figures (matplotlib, Agg backend: no display needed). Each
function writes one PNG and returns its file name."""

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


def _colour(variant):
    if variant.startswith("cws-"):
        return "tab:blue"
    if variant.startswith("tbb-"):
        return "tab:orange"
    if variant.startswith("omp-"):
        return "tab:green"
    return "tab:gray"


def time_chart(group, out_dir):
    """Bars of time per variant normalised to the group's baseline; the error bar spans min .. median."""
    rows = [r for r in group["rows"] if r["ratio"] is not None]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(max(5.0, 0.55 * len(rows) + 2), 3.6))
    x = range(len(rows))
    heights = [r["ratio"] for r in rows]
    lower = [max(0.0, r["ratio"] - r["ratio_lo"]) for r in rows]
    ax.bar(x, heights, color=[_colour(r["variant"]) for r in rows],
           yerr=[lower, [0.0] * len(rows)], capsize=3, ecolor="black")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    positive = [h for h in heights if h > 0]
    if positive and max(positive) / min(positive) > 20:
        ax.set_yscale("log")  # one slow outlier would flatten every other bar
    ax.set_xticks(list(x))
    ax.set_xticklabels([r["variant"] for r in rows], rotation=40, ha="right", fontsize=8)
    ax.set_ylabel(f"time / {group['baseline']}")
    ax.set_title(f"{group['label']}: median time per variant (bar: min)", fontsize=9)
    for i, r in enumerate(rows):
        if r.get("verified") is False:
            ax.annotate("WRONG", (i, heights[i]), ha="center", va="bottom", color="red", fontsize=7)
    fig.tight_layout()
    name = f"time_{_safe(group['label'])}.png"
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    return name


def locality_chart(app, variants, out_dir):
    """Local share per cws variant against the number of (synthetic) NUMA nodes."""
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    for v, per in sorted(variants.items()):
        nodes = sorted(per)
        ax.plot(nodes, [100 * per[n] for n in nodes], marker="o", label=v)
    all_nodes = sorted({n for per in variants.values() for n in per})
    ax.plot(all_nodes, [100.0 / n for n in all_nodes], color="gray", linestyle=":", label="1/nodes (random)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(all_nodes)
    ax.set_xticklabels([str(n) for n in all_nodes])
    ax.set_ylim(0, 105)
    ax.set_xlabel("NUMA nodes (synthetic beyond 1)")
    ax.set_ylabel("local share %")
    ax.set_title(f"{app}: locality per policy", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    name = f"locality_{_safe(app)}.png"
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    return name


def evolve_chart(series, out_dir):
    """evolve's per-iteration phase time and schedule distance, with the switch to stows marked."""
    pts = [p for p in series["points"] if p["wall_s"] is not None]
    if not pts:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    xs = [p["index"] for p in pts]
    ax.plot(xs, [1e3 * p["wall_s"] for p in pts], marker=".", color="tab:blue", label="phase wall ms")
    ax.set_xlabel("step phase (all runs, warm-up first)")
    ax.set_ylabel("phase wall ms", color="tab:blue")
    walls = [p["wall_s"] for p in pts if p["wall_s"] > 0]
    if walls and max(walls) / min(walls) > 20:
        ax.set_yscale("log")  # a preempted phase would flatten the others
    ax2 = ax.twinx()
    dist = [(p["index"], 100 * p["distance"]) for p in pts if p["distance"] is not None]
    if dist:
        ax2.plot([d[0] for d in dist], [d[1] for d in dist], marker="x", color="tab:red", label="distance %")
    ax2.set_ylabel("schedule distance to previous %", color="tab:red")
    ax2.set_ylim(0, max([5.0] + [d[1] * 1.1 for d in dist]))
    at = series.get("first_converged_index")
    if at is not None:
        ax.axvline(at, color="black", linestyle="--", linewidth=0.8)
        ax.annotate("stows", (at, ax.get_ylim()[1]), ha="left", va="top", fontsize=8)
    ax.set_title(f"{series['id']}: {series['variant']}, {series['phase']} phases, until convergence", fontsize=9)
    fig.tight_layout()
    name = f"evolve_{_safe(series['id'])}_{_safe(series['phase'])}.png"
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    return name
