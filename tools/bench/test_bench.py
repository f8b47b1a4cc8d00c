"""Unit tests of the harness's pure parts: suites, figures pulled from app
documents, the summary, the vs-TBB ratio table, the README splice, the report
check, and the runner (rounds of --repeat included) on fake binaries.

    /usr/bin/python3 -m unittest discover -s tools/bench -p 'test_*.py'
"""

import contextlib
import json
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import analysis  # noqa: E402
import bench as bench_cli  # noqa: E402  (not `bench`: a test loops over benchmarks named so)
import ratios  # noqa: E402
import runner  # noqa: E402
import suites  # noqa: E402


def result(variant, median, minimum=None, **extra):
    return dict(variant=variant, median_s=median, min_s=median if minimum is None else minimum, **extra)


def record(rid, app, results, nodes=1, status="ok", numa_nodes=None):
    doc = {"app": app, "params": {}, "topology": {"numa_nodes": numa_nodes or nodes, "workers": nodes},
           "results": results}
    return {"id": rid, "app": app, "nodes": nodes, "status": status, "doc": doc, "wall_s": 1.5}


class Suites(unittest.TestCase):
    def test_every_app_is_in_both_suites_and_ids_are_unique(self):
        for name in suites.SUITES:
            invocations = suites.suite(name)
            apps = set(suites.APPS) if name != "hinted" else {"sor", "srad", "cilksort", "lulesh"}
            self.assertEqual({i.app for i in invocations}, apps, name)
            ids = [i.id for i in invocations]
            self.assertEqual(len(ids), len(set(ids)), name)

    def test_hinted_suite_has_the_seven_benchmarks_and_4_node_locality(self):
        ids = {i.id for i in suites.suite("hinted")}
        for bench in ("sor", "sor-ir", "srad", "srad-ir", "cilksort", "lulesh", "lulesh-ir"):
            self.assertIn(bench, ids)
        for bench in ("sor", "sor-ir", "srad", "srad-ir", "lulesh", "lulesh-ir"):
            self.assertIn(bench + "-4nodes", ids)

    def test_locality_runs_cover_2_4_8_nodes_with_matching_workers(self):
        heat = [i for i in suites.suite("quick") if i.app == "heat"]
        self.assertEqual(sorted(i.nodes for i in heat), [1, 2, 4, 8])
        four = next(i for i in heat if i.nodes == 4)
        self.assertEqual(four.env(), {"CWS_TOPOLOGY": "pack:4 numa:1 core:1 pu:1"})
        args = four.full_args()
        self.assertEqual(args[args.index("--workers") + 1], "4")
        self.assertEqual(args[-1], "--json")
        self.assertEqual(next(i for i in heat if i.nodes == 1).env(), {})

    def test_preferred_flags_only_when_help_lists_them(self):
        i = suites.inv("cg", "--runs", "2", prefer={"--class": ["S"]})
        self.assertEqual(i.full_args("  --runs UINT\n  --json\n"), ["--runs", "2", "--json"])
        self.assertEqual(i.full_args("  --class TEXT:{S,W,A}  NPB class\n"), ["--runs", "2", "--class", "S", "--json"])
        # a flag that is only a prefix of a listed one does not count
        self.assertFalse(suites.flag_listed("  --classes TEXT", "--class"))
        self.assertTrue(suites.flag_listed("  -q,--quiet   No lines", "-q"))

    def test_unknown_suite_names_the_known_ones(self):
        with self.assertRaises(KeyError) as e:
            suites.suite("nightly")
        self.assertIn("quick", str(e.exception))


class TimeGroups(unittest.TestCase):
    def test_ratios_are_to_omp_static_and_spread_is_min_to_median(self):
        rec = record("heat", "heat", [result("cws-stows", 2.0, 1.5), result("omp-static", 4.0, 3.0),
                                      result("tbb-auto", 6.0)])
        [g] = analysis.time_groups(rec)
        self.assertEqual(g["baseline"], "omp-static")
        rows = {r["variant"]: r for r in g["rows"]}
        self.assertAlmostEqual(rows["cws-stows"]["ratio"], 0.5)
        self.assertAlmostEqual(rows["cws-stows"]["ratio_lo"], 0.375)
        self.assertAlmostEqual(rows["omp-static"]["ratio"], 1.0)

    def test_fallback_baselines_without_omp_static(self):
        rec = record("fib", "fib", [result("cws-random", 1.0), result("tbb-task-group", 2.0), result("serial", 0.1)])
        [g] = analysis.time_groups(rec)
        self.assertEqual(g["baseline"], "tbb-task-group")
        self.assertIsNone(analysis.baseline_of(["cws-random"]))

    def test_nested_phases_give_one_group_per_size(self):
        rec = record("phases", "phases", [
            {"variant": "cws-random", "phases": [result(None, 2e-6, size="empty"), result(None, 5e-6, size="256KiB")]},
            {"variant": "omp-static", "phases": [result(None, 1e-6, size="empty"), result(None, 5e-6, size="256KiB")]},
        ])
        groups = analysis.time_groups(rec)
        self.assertEqual([g["label"] for g in groups], ["phases [empty]", "phases [256KiB]"])
        self.assertAlmostEqual(groups[0]["rows"][0]["ratio"], 2.0)
        self.assertEqual(groups[0]["rows"][0]["variant"], "cws-random")

    def test_summary_row_names_best_cws_and_tbb(self):
        rec = record("heat", "heat", [result("cws-random", 3.0), result("cws-stows", 2.0), result("tbb-auto", 5.0),
                                      result("omp-static", 4.0, verified=True)])
        row = analysis.run_row(rec, analysis.time_groups(rec))
        self.assertEqual((row["best_cws"], row["best_tbb"]), ("cws-stows", "tbb-auto"))
        self.assertAlmostEqual(row["best_cws_ratio"], 0.5)
        self.assertTrue(row["verified"])
        rec["doc"]["results"][0]["verified"] = False
        self.assertFalse(analysis.run_row(rec, analysis.time_groups(rec))["verified"])


class Locality(unittest.TestCase):
    def test_table_per_app_variant_and_nodes(self):
        recs = [record("memcopy", "memcopy", [result("cws-stows", 1.0, copy_local_share=1.0)]),
                record("memcopy-4nodes", "memcopy", [result("cws-stows", 1.0, copy_local_share=0.99),
                                                     result("cws-random-interleave", 1.0, copy_local_share=0.25),
                                                     result("omp-static", 1.0)], nodes=4),
                record("fib", "fib", [result("cws-random", 1.0)])]
        table = analysis.locality_table(recs)
        self.assertEqual(list(table), ["memcopy"])
        self.assertEqual(table["memcopy"]["cws-stows"], {1: 1.0, 4: 0.99})
        self.assertNotIn("omp-static", table["memcopy"])

    def test_single_node_only_is_left_out(self):
        self.assertEqual(analysis.locality_table([record("heat", "heat", [result("cws-a", 1.0, local_share=1.0)])]),
                         {})


class Evolve(unittest.TestCase):
    def test_series_until_convergence(self):
        its = [{"run": 0, "warmup": True, "wall_s": 3e-3, "distance_to_previous": None,
                "ran_as_kind": "random_no_template"},
               {"run": 0, "warmup": True, "wall_s": 2e-3, "distance_to_previous": 0.1, "ran_as_kind": "relws"},
               {"run": 0, "warmup": True, "wall_s": 1e-3, "distance_to_previous": 0.0, "ran_as_kind": "relws",
                "converged": True}]
        rec = record("heat", "heat", [result("cws-evolve", 1.0, iterations=its, init_iterations=its, converged_at=2)])
        [s] = analysis.evolve_series(rec)  # init_iterations left out
        self.assertEqual(s["phase"], "step")
        self.assertEqual(len(s["points"]), 3)
        self.assertEqual(s["first_converged_index"], 2)
        self.assertEqual(s["converged_at"], 2)
        self.assertIsNone(s["points"][0]["distance"])
        self.assertEqual(analysis.evolve_series(record("fib", "fib", [result("cws-evolve", 1.0)])), [])

    def test_one_series_per_phase_with_per_phase_convergence(self):
        its = [{"wall_s": 1e-3, "converged": False}, {"wall_s": 1e-3, "converged": True}]
        rec = record("fdtd", "fdtd", [result("cws-evolve", 1.0, e_iterations=its, h_iterations=its[:1],
                                             converged_at={"e": 5, "h": None})])
        series = analysis.evolve_series(rec)
        self.assertEqual([(x["phase"], x["converged_at"], x["first_converged_index"]) for x in series],
                         [("e", 5, 1), ("h", None, None)])


class Summary(unittest.TestCase):
    def test_a_row_per_run_including_skipped_and_failed(self):
        recs = [record("heat", "heat", [result("cws-stows", 2.0), result("omp-static", 4.0)]),
                {"id": "floyd", "app": "floyd", "nodes": 1, "status": "skipped", "reason": "not built"},
                {"id": "cg", "app": "cg", "nodes": 1, "status": "error", "reason": "exit code 1: wrong"}]
        meta = {"suite": "quick", "commit": "0123456789abcdef", "wall_s": 12.0,
                "machine": {"model": "Some CPU", "nproc": 2, "load_average": [1.0, 2.0, 3.0]}}
        text = analysis.summary_markdown(meta, recs, ["time_heat.png"])
        for rid in ("heat", "floyd", "cg"):
            self.assertIn(f"| {rid} |", text)
        self.assertIn("0123456789ab", text)
        self.assertIn("| cws-stows | 2000 |", text)
        self.assertIn("0.50", text)
        self.assertIn("Skipped (not built): floyd", text)
        self.assertEqual(analysis.check_report({"time_heat.png": 10}, text, recs), [])

    def test_check_report_finds_missing_and_empty_files(self):
        recs = [record("heat", "heat", [result("omp-static", 1.0)])]
        self.assertIn("no PNG in the report", analysis.check_report({}, "", recs))
        problems = analysis.check_report({"time_heat.png": 0}, "| heat |", recs)
        self.assertEqual(problems, ["time_heat.png is empty"])
        self.assertIn("summary.md has no row for run heat", analysis.check_report({"time_heat.png": 5}, "", recs))

    def test_for_splice_keeps_the_overview_and_drops_figure_links(self):
        summary = "## Measured\n\n| run |\n|---|\n| heat |\n\n### heat\n\n| variant |\n\nFigures: [a.png](a.png).\n"
        self.assertEqual(analysis.for_splice(summary, overview=True), "## Measured\n\n| run |\n|---|\n| heat |\n\n")
        full = analysis.for_splice(summary)
        self.assertIn("### heat", full)
        self.assertNotIn("Figures:", full)

    def test_splice_replaces_only_between_markers(self):
        text = f"# T\nbefore\n{analysis.SUMMARY_BEGIN}\nold figures\n{analysis.SUMMARY_END}\nafter\n"
        out = analysis.splice(text, "new table\n")
        self.assertEqual(out, f"# T\nbefore\n{analysis.SUMMARY_BEGIN}\nnew table\n{analysis.SUMMARY_END}\nafter\n")
        self.assertEqual(analysis.splice(out, "new table"), out)  # idempotent
        with self.assertRaises(ValueError):
            analysis.splice("no markers", "x")


class Runner(unittest.TestCase):
    def test_missing_binary_is_skipped_and_failing_app_is_an_error(self):
        with tempfile.TemporaryDirectory() as build:
            apps = Path(build) / "apps"
            apps.mkdir()
            fake = apps / "cws-fake"
            fake.write_text("#!/bin/sh\necho 'cws-fake: error: boom' >&2\nexit 1\n")
            fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
            good = apps / "cws-good"
            good.write_text('#!/bin/sh\necho "{\\"app\\": \\"good\\", \\"topology\\": {}, \\"params\\": {}, '
                            '\\"results\\": [], \\"env\\": \\"$CWS_TOPOLOGY\\", \\"args\\": \\"$*\\"}"\n')
            good.chmod(good.stat().st_mode | stat.S_IXUSR)
            out = Path(build) / "out"
            os.environ["CWS_WORKERS"] = "7"  # not passed on: the suite decides CWS_*
            try:
                meta = runner.run_suite("t", [suites.inv("missing"), suites.inv("fake"),
                                              suites.inv("good", "--runs", "1", nodes=2)], build, out, log=lambda s: None)
            finally:
                del os.environ["CWS_WORKERS"]
            self.assertEqual([r["status"] for r in meta["runs"]], ["skipped", "error", "ok"])
            self.assertIn("boom", meta["runs"][1]["reason"])
            loaded_meta, recs = runner.load(out)
            self.assertEqual(loaded_meta["suite"], "t")
            self.assertIn("nproc", loaded_meta["machine"])
            doc = recs[2]["doc"]
            self.assertEqual(doc["env"], "pack:2 numa:1 core:1 pu:1")
            self.assertEqual(doc["args"], "--runs 1 --workers 2 --json")
            with open(out / meta["runs"][2]["file"]) as f:
                self.assertEqual(json.load(f)["status"], "ok")


class SafeWrites(unittest.TestCase):
    """The harness writes its files as cws's own writers do: never through a link."""

    def test_symlink_fifo_and_directory_destinations_are_refused_and_left_alone(self):
        with tempfile.TemporaryDirectory() as d:
            victim = Path(d) / "victim"
            victim.write_text("keep")
            link = Path(d) / "meta.json"
            link.symlink_to(victim)
            with self.assertRaisesRegex(ValueError, "not a regular file"):
                runner.write_file(link, "{}")
            self.assertEqual(victim.read_text(), "keep")
            self.assertTrue(link.is_symlink())
            fifo = Path(d) / "fifo"
            os.mkfifo(fifo)
            with self.assertRaisesRegex(ValueError, "not a regular file"):
                runner.write_file(fifo, "{}")
            with self.assertRaisesRegex(ValueError, "not a regular file"):
                runner.write_file(Path(d), "{}")
            self.assertEqual(sorted(p.name for p in Path(d).iterdir()), ["fifo", "meta.json", "victim"])

    def test_a_planted_temporary_name_is_never_followed_and_permissions_stay(self):
        with tempfile.TemporaryDirectory() as d:
            victim = Path(d) / "victim"
            victim.write_text("keep")
            target = Path(d) / "summary.md"
            (Path(d) / "summary.md.tmp").symlink_to(victim)
            target.write_text("old")
            target.chmod(0o640)
            runner.write_file(target, "new")
            self.assertEqual(target.read_text(), "new")
            self.assertEqual(stat.S_IMODE(target.stat().st_mode), 0o640)
            self.assertEqual(victim.read_text(), "keep")
            self.assertFalse(target.is_symlink())

    def test_a_suite_whose_meta_json_is_a_link_stops_before_writing_through_it(self):
        with tempfile.TemporaryDirectory() as build:
            (Path(build) / "apps").mkdir()
            out = Path(build) / "out"
            out.mkdir()
            victim = Path(build) / "victim"
            victim.write_text("keep")
            (out / "meta.json").symlink_to(victim)
            with self.assertRaisesRegex(ValueError, "meta.json: not a regular file"):
                runner.run_suite("t", [suites.inv("missing")], build, out, log=lambda s: None)
            self.assertEqual(victim.read_text(), "keep")


def fake_app(directory, name, log):
    """An executable cws-<name> in `directory` that appends its arguments to `log` and prints a document."""
    path = Path(directory) / f"cws-{name}"
    path.write_text(f'#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "{name} $*" >> "{log}"\n'
                    'echo \'{"app": "x", "topology": {}, "params": {}, "results": []}\'\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


class VsTbbSuite(unittest.TestCase):
    def test_the_thirteen_workloads_on_two_workers(self):
        invocations = suites.suite("vs-tbb")
        self.assertEqual([i.id for i in invocations],
                         ["heat-512", "heat-1024", "memcopy", "fdtd", "floyd", "prefix", "cg", "mg", "pcg", "sor",
                          "srad", "cilksort", "lulesh"])
        for i in invocations:
            args = i.full_args()
            self.assertEqual(args[args.index("--workers") + 1], "2", i.id)
        self.assertIn("vs-tbb", suites.names())

    def test_repeat_runs_the_suite_in_rounds(self):
        with tempfile.TemporaryDirectory() as build:
            apps = Path(build) / "apps"
            apps.mkdir()
            log = Path(build) / "calls.log"
            for name in ("heat", "memcopy"):
                fake_app(apps, name, log)
            out = Path(build) / "out"
            with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                code = bench_cli.main(["run", "--suite", "vs-tbb", "--only", "heat,memcopy", "--repeat", "2",
                                       "--build", build, "--out", str(out)])
            self.assertEqual(code, 0)
            calls = [line.split()[:3] for line in log.read_text().splitlines()]
            self.assertEqual(calls, [["heat", "--size", "512"], ["heat", "--size", "1024"], ["memcopy", "--mb", "64"],
                                     ["heat", "--size", "512"], ["heat", "--size", "1024"], ["memcopy", "--mb", "64"]])
            meta, recs = runner.load(out)
            self.assertEqual(meta["repeat"], 2)
            self.assertEqual([r["id"] for r in recs],
                             ["heat-512-round1", "heat-1024-round1", "memcopy-round1",
                              "heat-512-round2", "heat-1024-round2", "memcopy-round2"])
            self.assertEqual([(r["workload"], r["round"]) for r in recs[2:4]], [("memcopy", 1), ("heat-512", 2)])
        self.assertEqual(suites.repeated(suites.suite("vs-tbb"), 1), suites.suite("vs-tbb"))
        with self.assertRaises(ValueError):
            suites.repeated([], 0)


class Ratios(unittest.TestCase):
    def test_one_run_best_cws_over_best_tbb_and_best_replaying_over_random(self):
        rec = record("heat", "heat", [
            result("serial", 0.125), result("cws-random", 2.0), result("cws-random-interleave", 0.75),
            result("cws-stows", 1.5), result("cws-stows-follow-init", 1.25), result("cws-user", 3.0),
            result("cws-evolve", 0.5, verified=False),  # wrong: never the best
            result("tbb-auto", 0.5), result("tbb-static", 0.375), result("omp-static", 0.25)])
        self.assertEqual(ratios.run_ratios(rec), {
            "cws_vs_tbb": 2.0, "best_cws": "cws-random-interleave", "best_tbb": "tbb-static",
            "replay_vs_random": 0.625, "best_replaying": "cws-stows-follow-init", "random": "cws-random"})

    def test_hinted_and_memcopy_names_of_the_random_reference(self):
        lulesh = record("lulesh", "lulesh", [
            result("cws-hinted", 0.25), result("cws-random-ft", 1.0), result("cws-random-il", 0.5),
            result("cws-evolve", 0.75), result("cws-evolve-hinted", 0.875), result("tbb", 0.5)])
        r = ratios.run_ratios(lulesh)
        self.assertEqual((r["cws_vs_tbb"], r["best_cws"], r["best_tbb"]), (0.5, "cws-hinted", "tbb"))
        self.assertEqual((r["replay_vs_random"], r["best_replaying"], r["random"]),
                         (0.75, "cws-evolve", "cws-random-ft"))
        memcopy = record("memcopy", "memcopy", [
            result("cws-random-interleave", 0.5), result("cws-random-firsttouch", 2.0), result("cws-stows", 1.5)])
        r = ratios.run_ratios(memcopy)
        self.assertEqual((r["cws_vs_tbb"], r["replay_vs_random"], r["random"]), (None, 0.75, "cws-random-firsttouch"))
        self.assertFalse(ratios.is_replaying("cws-hinted-hpt"))
        self.assertTrue(ratios.is_replaying("cws-stuws-per-kernel"))

    def test_median_and_spread_over_rounds_and_the_rendered_table(self):
        def heat(rnd, stows, tbb):
            rec = record(f"heat-512-round{rnd}", "heat", [result("cws-random", 2.0), result("cws-stows", stows),
                                                          result("tbb-auto", tbb)])
            rec.update(workload="heat-512", round=rnd)
            return rec
        recs = [heat(1, 1.0, 2.0), record("fib-round1", "fib", [result("cws-random", 1.0)]),
                heat(2, 1.5, 1.0), heat(3, 0.5, 2.0),
                {"id": "fib-round2", "workload": "fib", "app": "fib", "nodes": 1, "status": "error", "reason": "x"}]
        recs[1]["workload"] = "fib"
        [h, fib] = ratios.table(recs)
        self.assertEqual(h["cws_vs_tbb"], {"median": 0.5, "min": 0.25, "max": 1.5, "count": 3})
        self.assertEqual(h["replay_vs_random"], {"median": 0.5, "min": 0.25, "max": 0.75, "count": 3})
        self.assertEqual((fib["runs"], fib["ok"], fib["cws_vs_tbb"]), (2, 1, None))
        self.assertEqual(ratios.spread([0.5, None, 1.0]), {"median": 0.75, "min": 0.5, "max": 1.0, "count": 2})
        lines = ratios.markdown(recs, 3)
        self.assertIn("| heat-512 | 3/3 | 0.50 (0.25–1.50) | 0.50 (0.25–0.75) | cws-stows ×3; tbb-auto ×3; "
                      "cws-stows ×3 |", lines)
        self.assertIn("| fib | 1/2 | — | — | cws-random; —; — |", lines)
        self.assertEqual(ratios.format_names(["b", "a", "b"]), "b ×2, a")
        self.assertEqual(ratios.format_spread({"median": 0.5, "min": 0.5, "max": 0.5, "count": 1}), "0.50")

    def test_summary_has_the_table_for_repeats_and_comparison_suites_only(self):
        recs = [record("heat", "heat", [result("cws-stows", 1.0), result("tbb-auto", 2.0)])]
        meta = {"suite": "quick", "commit": "0123456789abcdef", "wall_s": 1.0, "machine": {}}
        self.assertNotIn("best cws / best TBB", analysis.summary_markdown(meta, recs))
        for extra in ({"repeat": 3}, {"suite": "vs-tbb"}):
            text = analysis.summary_markdown(dict(meta, **extra), recs)
            self.assertIn("| heat | 1/1 | 0.50 | — | cws-stows; tbb-auto; cws-stows |", text)
            self.assertIn("| heat | heat | 1 |", text)  # the per-run rows stay


if __name__ == "__main__":
    unittest.main()
