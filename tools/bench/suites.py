"""The benchmark suites: which app invocations each suite runs.

An invocation is one run of one app binary with --json added by the harness:

    inv("heat", "--size", "256", nodes=4)

- ``app``: the binary is ``cws-<app>`` in the build directory (apps/ or
  apps/<app>/); a binary that is not built is reported and skipped.
- ``args``: always passed.
- ``prefer``: flag -> values, passed only when the app's ``--help`` lists the
  flag (for apps whose size flags are not settled yet: their defaults are
  used otherwise).
- ``nodes``: 1 runs on the machine as it is; N > 1 runs on a synthetic
  machine of N NUMA nodes with one core each (CWS_TOPOLOGY="pack:N numa:1
  core:1 pu:1", simulated page homes) and ``--workers N``, for the locality
  figures.
- ``tag``: tells two invocations of the same app apart in file names and in
  the summary.

- ``round``: set by ``repeated`` (bench.py run --repeat N > 1): which of the
  N rounds of the suite this invocation belongs to; it is part of the id.

quick: seconds per invocation, for CI and the ctest. full: the apps'
documented default sizes (0.2-2 s per run) with more runs, and the locality
runs at larger sizes. hinted: PufferFish's seven benchmarks at their default
sizes, and the locality of sor, srad and lulesh on synthetic 4 nodes.
vs-tbb (a comparison suite: its summary leads with the ratio table of
ratios.py): the thirteen workloads of the "beat TBB" issue on 2 workers.
"""

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Invocation:
    app: str
    args: tuple = ()
    prefer: tuple = ()  # ((flag, (values...)), ...): used when --help lists the flag
    nodes: int = 1
    tag: str = ""
    round: int = 0  # 1..N in a suite repeated N > 1 times, else 0

    @property
    def workload(self):
        """What the invocation measures, the same in every round: app, tag, nodes."""
        parts = [self.app]
        if self.tag:
            parts.append(self.tag)
        if self.nodes > 1:
            parts.append(f"{self.nodes}nodes")
        return "-".join(parts)

    @property
    def id(self):
        """The workload, and the round when the suite is repeated (ids stay unique over the rounds)."""
        return f"{self.workload}-round{self.round}" if self.round else self.workload

    def env(self):
        """The environment variables this invocation sets."""
        if self.nodes <= 1:
            return {}
        return {"CWS_TOPOLOGY": f"pack:{self.nodes} numa:1 core:1 pu:1"}

    def full_args(self, help_text=""):
        """args, the preferred flags the app supports, --workers for synthetic nodes, and --json."""
        out = list(self.args)
        for flag, values in self.prefer:
            if flag_listed(help_text, flag):
                out.append(flag)
                out.extend(values)
        if self.nodes > 1:
            out += ["--workers", str(self.nodes)]
        out.append("--json")
        return out


def flag_listed(help_text, flag):
    """True when `flag` appears in a CLI11 --help text as an option name."""
    for line in help_text.splitlines():
        for word in line.replace(",", " ").split():
            if word == flag or word.startswith(flag + "="):
                return True
    return False


def inv(app, *args, prefer=None, nodes=1, tag=""):
    pref = tuple((k, tuple(v)) for k, v in (prefer or {}).items())
    return Invocation(app=app, args=tuple(args), prefer=pref, nodes=nodes, tag=tag)


# Every app of the suite, in report order (the last four are PufferFish's
# benchmarks; sor, srad and lulesh also run their "-ir" recursion, tag "ir").
APPS = ("heat", "memcopy", "fib", "phases", "fdtd", "floyd", "prefix", "cg", "mg", "pcg", "sor", "srad", "cilksort",
        "lulesh")

# Apps whose results carry a local share per cws variant (run on 1/2/4/8 nodes).
LOCALITY_NODES = (1, 2, 4, 8)

_QUICK_RUNS = ("--runs", "3", "--warmup", "1")
_FULL_RUNS = ("--runs", "7", "--warmup", "2")


def _quick():
    q = [
        inv("heat", "--size", "512", "--iters", "10", *_QUICK_RUNS, "-q"),
        inv("memcopy", "--mb", "8", *_QUICK_RUNS),
        inv("fib", "-n", "25", *_QUICK_RUNS),
        inv("phases", "--sizes", "0,64", "--iters", "20", "--no-gaps", *_QUICK_RUNS),
        inv("fdtd", *_QUICK_RUNS, prefer={"--nx": ["128"], "--ny": ["128"], "--iters": ["8"], "-q": []}),
        inv("floyd", *_QUICK_RUNS, prefer={"--size": ["180"], "-q": []}),
        inv("prefix", "--size", str(1 << 19), *_QUICK_RUNS),
        inv("cg", *_QUICK_RUNS, prefer={"--class": ["S"]}),
        inv("mg", *_QUICK_RUNS, prefer={"--class": ["S"]}),
        inv("pcg", *_QUICK_RUNS, prefer={"--size": ["16"], "-q": []}),
        *_pufferfish(sor=("--size", "256", "--iters", "4", *_QUICK_RUNS),
                     srad=("--rows", "256", "--cols", "256", "--iters", "4", *_QUICK_RUNS),
                     cilksort=("--size", str(1 << 18), *_QUICK_RUNS), lulesh=("-s", "8", "--cycles", "20", *_QUICK_RUNS)),
    ]
    loc = ("--runs", "2", "--warmup", "1")
    for nodes in LOCALITY_NODES[1:]:
        q += [
            inv("heat", "--size", "256", "--iters", "6", *loc, "-q", nodes=nodes),
            inv("memcopy", "--mb", "4", *loc, nodes=nodes),
            inv("prefix", "--size", "262144", *loc, nodes=nodes),
            inv("sor", "--size", "256", "--iters", "4", *loc, nodes=nodes),
        ]
    return q


def _pufferfish(sor, srad, cilksort, lulesh, nodes=1):
    """PufferFish's seven benchmarks (sor, sor-ir, srad, srad-ir, cilksort,
    lulesh, lulesh-ir), each app with the arguments given."""
    out = []
    for tag, shape in (("", "regular"), ("ir", "irregular")):
        out += [inv("sor", *sor, "--recursion", shape, nodes=nodes, tag=tag),
                inv("srad", *srad, "--recursion", shape, nodes=nodes, tag=tag)]
    out.append(inv("cilksort", *cilksort, "-q", nodes=nodes))
    for tag, shape in (("", "regular"), ("ir", "irregular")):
        out.append(inv("lulesh", *lulesh, "--recursion", shape, nodes=nodes, tag=tag))
    return out


def _full():
    f = [
        inv("heat", *_FULL_RUNS, "-q"),
        inv("memcopy", "--mb", "128", *_FULL_RUNS),
        inv("fib", *_FULL_RUNS),
        inv("phases", "--runs", "5"),
        inv("fdtd", *_FULL_RUNS, prefer={"-q": []}),
        inv("floyd", *_FULL_RUNS, prefer={"-q": []}),
        inv("prefix", *_FULL_RUNS),
        inv("cg", *_FULL_RUNS),
        inv("mg", *_FULL_RUNS),
        inv("pcg", *_FULL_RUNS, prefer={"-q": []}),
        *_pufferfish(sor=_FULL_RUNS, srad=_FULL_RUNS, cilksort=_FULL_RUNS, lulesh=_FULL_RUNS),
    ]
    loc = ("--runs", "3", "--warmup", "1")
    for nodes in LOCALITY_NODES[1:]:
        f += [
            inv("heat", "--size", "1024", "--iters", "20", *loc, "-q", nodes=nodes),
            inv("memcopy", "--mb", "64", *loc, nodes=nodes),
            inv("prefix", "--size", str(1 << 22), *loc, nodes=nodes),
            inv("fdtd", *loc, prefer={"--nx": ["512"], "--ny": ["512"], "-q": []}, nodes=nodes),
            inv("sor", "--size", "1024", "--iters", "10", *loc, nodes=nodes),
            inv("srad", "--rows", "1024", "--cols", "1024", *loc, nodes=nodes),
            inv("lulesh", "-s", "24", "--cycles", "20", *loc, nodes=nodes),
        ]
    return f


def _hinted():
    """The hinted-mode comparison of the PufferFish issue: the seven benchmarks on
    this machine's workers, and sor / srad / lulesh (both recursions) on synthetic
    4 nodes for their locality."""
    runs = ("--runs", "7", "--warmup", "2")
    f = _pufferfish(sor=runs, srad=runs, cilksort=runs, lulesh=runs)
    loc = ("--runs", "3", "--warmup", "1")
    for tag, shape in (("", "regular"), ("ir", "irregular")):
        f += [
            inv("sor", "--size", "1024", "--iters", "10", "--recursion", shape, *loc, nodes=4, tag=tag),
            inv("srad", "--rows", "1024", "--cols", "1024", "--recursion", shape, *loc, nodes=4, tag=tag),
            inv("lulesh", "-s", "24", "--cycles", "20", "--recursion", shape, *loc, nodes=4, tag=tag),
        ]
    return f


def _vs_tbb():
    """The "beat TBB" comparison on 2 workers: every workload of the issue's table at the sizes it used;
    fdtd, floyd, prefix and cilksort, which it does not size, at sizes of the same order of time."""
    runs = ("--runs", "5", "--warmup", "1", "--workers", "2")
    return [
        inv("heat", "--size", "512", *runs, "-q", tag="512"),
        inv("heat", "--size", "1024", *runs, "-q", tag="1024"),
        inv("memcopy", "--mb", "64", *runs),
        inv("fdtd", "--nx", "512", "--ny", "512", *runs, "-q"),
        inv("floyd", "--size", "512", *runs, "-q"),
        inv("prefix", "--size", str(1 << 22), *runs),
        inv("cg", "--class", "W", *runs),
        inv("mg", "--class", "W", *runs),
        inv("pcg", "--size", "64", *runs, "-q"),
        inv("sor", "--size", "1024", *runs),
        inv("srad", "--rows", "1024", "--cols", "1024", *runs),
        inv("cilksort", *runs, "-q"),
        inv("lulesh", "-s", "16", "--cycles", "20", *runs),  # to the stop time: over 600 s under load
    ]


# Suites that run every app (hinted: PufferFish's four), for the figures and the per-run summary.
SUITES = {"quick": _quick, "full": _full, "hinted": _hinted}
# Comparison suites: subsets of the apps whose summary leads with the ratio table (ratios.py), repeated or not.
COMPARISONS = {"vs-tbb": _vs_tbb}


def names():
    """Every suite name, for the command line."""
    return sorted({**SUITES, **COMPARISONS})


def suite(name):
    """The invocations of suite `name`; KeyError names the known suites."""
    known = {**SUITES, **COMPARISONS}
    if name not in known:
        raise KeyError(f"unknown suite '{name}' (known: {', '.join(names())})")
    invocations = known[name]()
    ids = [i.id for i in invocations]
    dup = {x for x in ids if ids.count(x) > 1}
    if dup:
        raise ValueError(f"suite '{name}' has duplicate invocation ids: {sorted(dup)}")
    return invocations


def repeated(invocations, times):
    """`invocations` run `times` times in rounds (all of them once, then all again, ...), so that a slow
    spell of the machine lands on one round of every workload instead of on every round of one.
    times == 1: the invocations unchanged (ids without a round)."""
    if times < 1:
        raise ValueError(f"--repeat must be at least 1, not {times}")
    if times == 1:
        return list(invocations)
    return [replace(i, round=r) for r in range(1, times + 1) for i in invocations]
