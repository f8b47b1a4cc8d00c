#!/usr/bin/python3
"""cws benchmark harness: runs a suite of app invocations, stores their JSON
documents, renders a report (PNG charts and summary.md). See README.md.

    /usr/bin/python3 tools/bench/bench.py all --suite quick --build build/release --out bench-out
    /usr/bin/python3 tools/bench/bench.py run --suite full --build build/release --out bench-full
    /usr/bin/python3 tools/bench/bench.py run --suite vs-tbb --repeat 3 --build build/release --out bench-vs-tbb
    /usr/bin/python3 tools/bench/bench.py report bench-full
    /usr/bin/python3 tools/bench/bench.py splice bench-full README.md

Exit codes: 0 fine; 1 an app failed (non-zero exit, time-out, bad JSON) or
the report check failed; 2 a usage error; 77 (ci only) matplotlib missing.
"""

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import analysis  # noqa: E402
import runner  # noqa: E402
import suites  # noqa: E402

SKIP = 77


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def cmd_list(args):
    for name in suites.names():
        print(f"suite {name}:")
        for i in suites.suite(name):
            b = runner.binary_path(args.build, i.app) if args.build else None
            state = "" if not args.build else ("  [built]" if b else "  [not built: skipped]")
            env = " ".join(f"{k}='{v}'" for k, v in i.env().items())
            print(f"  {i.id:24} {env + ' ' if env else ''}cws-{i.app} {' '.join(i.full_args())}{state}")
    return 0


def cmd_run(args):
    invocations = suites.suite(args.suite)
    if args.only:
        wanted = set(args.only.split(","))
        invocations = [i for i in invocations if i.app in wanted]
    invocations = suites.repeated(invocations, args.repeat)
    if not Path(args.build).is_dir():
        print(f"bench: error: build directory {args.build} does not exist", file=sys.stderr)
        return 2
    meta = runner.run_suite(args.suite, invocations, args.build, args.out, timeout=args.timeout)
    errors = [r for r in meta["runs"] if r["status"] == "error"]
    skipped = [r for r in meta["runs"] if r["status"] == "skipped"]
    print(f"bench: suite {args.suite}: {len(meta['runs']) - len(errors) - len(skipped)} ok, {len(skipped)} skipped, "
          f"{len(errors)} failed, {meta['wall_s']:.1f} s; documents in {args.out}/runs")
    for r in errors:
        print(f"bench: error: {r['id']}: {r['reason']}", file=sys.stderr)
    return 1 if errors else 0


def render(out, report_dir=None):
    """Writes the report directory (charts, summary.md) for the stored runs in `out`; returns its path."""
    import plots  # matplotlib only here

    meta, records = runner.load(out)
    report_dir = Path(report_dir) if report_dir else Path(out) / "report"
    if report_dir.exists():
        shutil.rmtree(report_dir)
    report_dir.mkdir(parents=True)
    figures = []
    for rec in records:
        if rec.get("status") != "ok" or rec.get("nodes", 1) > 1:
            continue
        for group in analysis.time_groups(rec):
            name = plots.time_chart(group, report_dir)
            if name:
                figures.append(name)
        for series in analysis.evolve_series(rec):
            name = plots.evolve_chart(series, report_dir)
            if name:
                figures.append(name)
    for app, variants in analysis.locality_table(records).items():
        figures.append(plots.locality_chart(app, variants, report_dir))
    summary = analysis.summary_markdown(meta, records, figures)
    runner.write_file(report_dir / "summary.md", summary + "\n")
    return report_dir


def check(out, report_dir=None):
    meta, records = runner.load(out)
    report_dir = Path(report_dir) if report_dir else Path(out) / "report"
    files = {p.name: p.stat().st_size for p in report_dir.iterdir()} if report_dir.is_dir() else {}
    summary = (report_dir / "summary.md").read_text(encoding="utf-8") if "summary.md" in files else ""
    problems = analysis.check_report(files, summary, records)
    if "summary.md" not in files:
        problems.insert(0, "no summary.md")
    for p in problems:
        print(f"bench: check: {p}", file=sys.stderr)
    return problems


def cmd_report(args):
    report_dir = render(args.out, args.report_dir)
    pngs = sorted(p.name for p in report_dir.glob("*.png"))
    print(f"bench: report in {report_dir}: summary.md and {len(pngs)} figure(s)")
    return 0


def cmd_check(args):
    return 1 if check(args.out, args.report_dir) else 0


def cmd_all(args):
    code = cmd_run(args)
    if code == 2:
        return code
    cmd_report(args)
    if args.check and check(args.out, args.report_dir):
        return 1
    return code


def cmd_splice(args):
    summary = (Path(args.out) / "report" / "summary.md").read_text(encoding="utf-8")
    target = Path(args.file)
    try:
        text = analysis.splice(target.read_text(encoding="utf-8"), analysis.for_splice(summary, args.overview))
    except ValueError as e:
        print(f"bench: error: {target}: {e}", file=sys.stderr)
        return 2
    runner.write_file(target, text)  # main() turns a refusal into one error line
    print(f"bench: {target}: measured section replaced from {args.out}/report/summary.md")
    return 0


def cmd_ci(args):
    """The ctest: the quick suite into a temporary directory, the report, and its check."""
    if not have_matplotlib():
        print("bench: matplotlib is not installed for /usr/bin/python3 (apt install python3-matplotlib): skipped")
        return SKIP
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cws-bench-") as tmp:
        args.out, args.report_dir, args.check = tmp, None, True
        code = cmd_all(args)
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
    print(f"bench: ci: {time.monotonic() - t0:.1f} s, exit {code}")
    return code


def main(argv=None):
    p = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    def runs(sp, out=True):
        sp.add_argument("--suite", default="quick", choices=suites.names())
        sp.add_argument("--build", required=True, help="build directory with apps/cws-*")
        if out:
            sp.add_argument("--out", required=True, help="output directory (runs/ and meta.json are rewritten)")
        sp.add_argument("--only", help="comma-separated apps of the suite to run")
        sp.add_argument("--timeout", type=float, default=600, help="seconds per invocation")
        sp.add_argument("--repeat", type=int, default=1,
                        help="run the suite N times, in rounds (every invocation once, then again); the summary "
                             "then shows each ratio's median and spread over the rounds")

    sp = sub.add_parser("list", help="the suites and which of their binaries are built")
    sp.add_argument("--build")
    sp.set_defaults(fn=cmd_list)
    sp = sub.add_parser("run", help="run a suite and store the JSON documents")
    runs(sp)
    sp.set_defaults(fn=cmd_run)
    for name, fn, text in (("report", cmd_report, "render the report directory"),
                           ("check", cmd_check, "check a rendered report (PNGs, a summary row per run)")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("out")
        sp.add_argument("--report-dir", help="default: OUT/report")
        sp.set_defaults(fn=fn)
    sp = sub.add_parser("all", help="run, then report (and --check)")
    runs(sp)
    sp.add_argument("--report-dir")
    sp.add_argument("--check", action="store_true")
    sp.set_defaults(fn=cmd_all)
    sp = sub.add_parser("splice", help="replace the measured section of FILE (between the bench-summary markers)")
    sp.add_argument("out")
    sp.add_argument("file")
    sp.add_argument("--overview", action="store_true", help="only the overview table, not the per-app sections")
    sp.set_defaults(fn=cmd_splice)
    sp = sub.add_parser("ci", help="quick suite into a temporary directory, report, check (exit 77: no matplotlib)")
    runs(sp, out=False)
    sp.add_argument("--keep", help="copy the temporary directory here before it is removed")
    sp.set_defaults(fn=cmd_ci)
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except (KeyError, ValueError, OSError) as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
