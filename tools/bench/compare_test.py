import unittest

import compare
from testing_results import make

STEADY = [100, 101, 99, 100, 102]


class CompareTest(unittest.TestCase):
    def test_a_significant_slowdown_beyond_the_threshold_is_a_regression(self):
        base = make({"a:slow": STEADY, "a:same": STEADY, "a:other": STEADY})
        new = make({"a:slow": [x * 2 for x in STEADY], "a:same": [101, 100, 99, 102, 100],
                    "a:other": STEADY})
        rows = {row["name"]: row for row in compare.compare(base, new)}
        self.assertEqual(rows["a:slow"]["verdict"], "REGRESSION")
        self.assertAlmostEqual(rows["a:slow"]["ratio"], 2.0)
        self.assertLess(rows["a:slow"]["pvalue"], 0.05)
        self.assertEqual(rows["a:same"]["verdict"], "")
        self.assertEqual([r["name"] for r in compare.regressions(rows.values())], ["a:slow"])

    def test_a_small_change_is_noise_however_significant(self):
        base = make({"a:x": STEADY})
        new = make({"a:x": [x * 1.1 for x in STEADY]})
        (row,) = compare.compare(base, new)
        self.assertLess(row["pvalue"], 0.05)
        self.assertEqual(row["verdict"], "")

    def test_a_machine_slower_for_everything_is_not_a_regression(self):
        names = [f"a:{i}" for i in range(6)]
        base = make({n: STEADY for n in names})
        new = make({n: [x * 1.6 for x in STEADY] for n in names})
        rows = compare.compare(base, new)
        self.assertAlmostEqual(compare.drift(rows), 1.6)
        self.assertEqual(compare.regressions(rows), [])

    def test_a_slowdown_no_larger_than_a_baselines_is_the_machine(self):
        # Memory-bound work slows 1.8x with the machine's memory (the memcpy baseline) while
        # the rest of the run does not: not a regression, and a baseline never is one.
        names = [f"a:BM_Compute_{i}" for i in range(8)]
        base = make({**{n: STEADY for n in names}, "a:BM_Copy_Project": STEADY,
                     "a:BM_Copy_BaselineMemcpy": STEADY, "mxnet:copy": STEADY})
        new = make({**{n: STEADY for n in names},
                    "a:BM_Copy_Project": [x * 1.9 for x in STEADY],
                    "a:BM_Copy_BaselineMemcpy": [x * 1.8 for x in STEADY],
                    "mxnet:copy": [x * 1.7 for x in STEADY]})
        rows = compare.compare(base, new)
        self.assertAlmostEqual(compare.machine_slowdown(rows), 1.8)
        self.assertEqual(compare.regressions(rows), [])
        # Twice slower than the worst-hit baseline is the project's own.
        new = make({**{n: STEADY for n in names},
                    "a:BM_Copy_Project": [x * 3.8 for x in STEADY],
                    "a:BM_Copy_BaselineMemcpy": [x * 1.8 for x in STEADY],
                    "mxnet:copy": [x * 1.7 for x in STEADY]})
        regressed = compare.regressions(compare.compare(base, new))
        self.assertEqual([row["name"] for row in regressed], ["a:BM_Copy_Project"])

    def test_one_repetition_cannot_be_significant(self):
        (row,) = compare.compare(make({"a:x": [100]}), make({"a:x": [300]}))
        self.assertIsNone(row["pvalue"])
        self.assertEqual(row["verdict"], "")

    def test_benchmarks_in_one_file_only_are_left_out(self):
        rows = compare.compare(make({"a:x": STEADY}), make({"a:y": STEADY}))
        self.assertEqual(rows, [])

    def test_markdown_marks_regressions(self):
        base = make({"a:slow": STEADY, "a:same": STEADY})
        new = make({"a:slow": [x * 3 for x in STEADY], "a:same": STEADY})
        text = compare.markdown(compare.compare(base, new))
        self.assertIn("| `a:slow` | 100 ns | 300 ns | 3.00 |", text)
        self.assertIn("**REGRESSION**", text)


if __name__ == "__main__":
    unittest.main()
