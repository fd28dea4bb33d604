"""The suites, gates, committed baselines and MXNet cases agree with each other; the
results helpers and plots work on synthetic files."""
import glob
import os
import tempfile
import unittest

import bench
import gate
import mxnet_compare
import plot
import results
import suite
from testing_results import entry, make


def binaries_of(suite_name):
    runs = suite.suite_named(suite_name)["runs"]
    return {os.path.basename(r["target"].partition(":")[2]) for r in runs if "target" in r} | \
        ({"mxnet"} if any("mxnet" in r for r in runs) else set())


class SuiteTest(unittest.TestCase):
    def test_suites_name_bazel_targets(self):
        self.assertEqual(sorted(suite.load_suites()), ["full", "smoke"])
        for name in ("smoke", "full"):
            for run in suite.suite_named(name)["runs"]:
                self.assertTrue("target" in run or run.get("mxnet") in ("smoke", "full"), run)
                if "target" in run:
                    self.assertRegex(run["target"], r"^//[a-z_/]+:[a-z_]+$")
                    self.assertTrue(suite.binary_path(run["target"]).endswith(
                        run["target"][2:].replace(":", "/")))

    def test_every_gate_is_measured_by_its_suite(self):
        for g in gate.load_gates(bench.GATES):
            for name in (g["project"], g["baseline"]):
                self.assertIn(name.partition(":")[0], binaries_of(g["suite"]), name)

    def test_smoke_gates_name_benchmarks_of_a_committed_baseline(self):
        baselines = glob.glob(os.path.join(bench.BASELINES, "*.smoke.json"))
        self.assertTrue(baselines)
        for path in baselines:
            measured = set(results.names(results.load(path)))
            for g in bench.gates_for("smoke"):
                self.assertIn(g["project"], measured, path)
                self.assertIn(g["baseline"], measured, path)

    def test_mxnet_cases_come_from_the_op_bench_file(self):
        every = mxnet_compare.read_cases(mxnet_compare.DEFAULT_CASES, "mxnet")
        smoke = mxnet_compare.read_cases(mxnet_compare.DEFAULT_CASES, "smoke")
        self.assertGreaterEqual(len(every), 15)
        self.assertTrue(0 < len(smoke) < len(every))
        self.assertTrue({c["key"] for c in smoke} <= {c["key"] for c in every})
        self.assertEqual(mxnet_compare.parse_input("(4,5)"),
                         ((4, 5), -1.0, 1.0, False, 0.0, "float32"))
        self.assertEqual(mxnet_compare.parse_input("(8){0,10}"),
                         ((8,), 0.0, 10.0, True, 0.0, "float32"))
        self.assertEqual(mxnet_compare.parse_input("(2,3,3)[0,1]+4I"),
                         ((2, 3, 3), 0.0, 1.0, False, 4.0, "float32"))
        self.assertEqual(mxnet_compare.parse_input("(8){0,10}:int32"),
                         ((8,), 0.0, 10.0, True, 0.0, "int32"))

    def test_case_summary_pairs_rounds_and_compares_the_fastest(self):
        def round_of(project, mxnet):
            return {"project_us": {"c": project}, "mxnet": {"cases": {"c": {"us": mxnet}}}}
        rounds = [round_of(10.0, 12.0), round_of(20.0, 10.0), round_of(8.0, 16.0)]
        c = mxnet_compare.case_summary(rounds, "c")
        self.assertEqual((c["project_us"], c["mxnet_us"]), (10.0, 12.0))
        self.assertAlmostEqual(c["ratio"], 1.2)  # ratios 1.2, 0.5, 2.0
        self.assertEqual((c["low"], c["high"]), (0.5, 2.0))
        self.assertEqual(c["fastest"], 10.0 / 8.0)
        self.assertNotIn("converted_ratio", c)

    def test_case_summary_adds_mxnets_conversion_to_the_default_layout(self):
        def round_of(project, mxnet, conversion):
            return {"project_us": {"c": project},
                    "mxnet": {"cases": {"c": {"us": mxnet, "conversion_us": conversion}}}}
        rounds = [round_of(10.0, 9.0, 2.0), round_of(10.0, 8.0, 1.0), round_of(5.0, 6.0, 0.0)]
        c = mxnet_compare.case_summary(rounds, "c")
        self.assertEqual(c["conversion_us"], 1.0)
        self.assertAlmostEqual(c["converted_ratio"], 1.1)  # 1.1, 0.9, 1.2
        self.assertAlmostEqual(c["ratio"], 0.9)  # 0.9, 0.8, 1.2

    def test_unknown_suite(self):
        with self.assertRaises(SystemExit) as raised:
            suite.suite_named("nightly")
        self.assertEqual(str(raised.exception),
                         "bench: unknown suite 'nightly'; valid: full, smoke")


class ResultsTest(unittest.TestCase):
    def test_prefixed_names_drop_real_time(self):
        (e,) = results.prefixed([entry("BM_X/64/real_time", 5.0)], "bin")
        self.assertEqual((e["name"], e["run_name"]), ("bin:BM_X/64", "bin:BM_X/64"))

    def test_samples_in_nanoseconds_without_aggregates_or_errors(self):
        measured = make({})
        measured["benchmarks"] = [entry("a:x", 2.0, 0, "us"), entry("a:x", 3.0, 1, "ms"),
                                  dict(entry("a:x", 9.0), run_type="aggregate"),
                                  dict(entry("a:y", 1.0), error_occurred=True,
                                       error_message="boom")]
        self.assertEqual(results.samples_ns(measured, "a:x"), [2000.0, 3e6])
        self.assertEqual(results.names(measured), ["a:x"])
        self.assertEqual(results.errors(measured), {"a:y": "boom"})

    def test_replace_takes_the_fresh_samples(self):
        merged = results.replace(make({"a:x": [1, 2], "a:y": [5]}), make({"a:x": [7]}))
        self.assertEqual(results.samples_ns(merged, "a:x"), [7])
        self.assertEqual(results.samples_ns(merged, "a:y"), [5])

    def test_machine_kind(self):
        machine = {"cpu_model": "AMD EPYC 7B13", "logical_cpus": 2, "simd": ["sse2", "avx2"]}
        self.assertEqual(results.machine_kind(machine), "amd-epyc-7b13-2cpu-avx2")


class PlotTest(unittest.TestCase):
    def test_plots_are_written(self):
        measured = make({"p:a": [100, 110, 90], "p:b": [300, 310, 290], "p:c": [100, 100, 100]},
                        date="2026-11-23T10:00:00", machine={"commit": "abc"})
        rows = gate.evaluate(gate.parse_gates("p:a | p:b | 2 | gate | smoke\n"
                                              "p:c | p:b | 5 | watch | smoke"), measured)
        with tempfile.TemporaryDirectory() as out:
            bars = plot.ratio_bars(rows, os.path.join(out, "bars.png"), "title")
            results.save(measured, os.path.join(out, "one.json"))
            line = plot.history([os.path.join(out, "one.json")], ["p:a"],
                                os.path.join(out, "history.png"))
            for path in (bars, line):
                with open(path, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
