import unittest

import gate
from testing_results import make

GATE = "p:fast | p:base | 2 | gate | smoke"
STEADY = [100, 101, 99, 100, 102]


def rows_for(gates_text, samples, **context):
    return gate.evaluate(gate.parse_gates(gates_text), make(samples, **context))


class GateTest(unittest.TestCase):
    def test_met(self):
        (row,) = rows_for(GATE, {"p:fast": STEADY, "p:base": [x * 3 for x in STEADY]})
        self.assertEqual(row["status"], "met")
        self.assertAlmostEqual(row["ratio"], 3.0)
        self.assertFalse(row["fails"])

    def test_below_but_within_noise_does_not_fail(self):
        noisy_base = [150, 260, 190, 240, 170]  # median 190: ratio 1.9, spread far above 2
        (row,) = rows_for(GATE, {"p:fast": STEADY, "p:base": noisy_base})
        self.assertLess(row["ratio"], 2)
        self.assertGreaterEqual(row["high"], 2)
        self.assertEqual(row["status"], "below, within noise")
        self.assertFalse(row["fails"])

    def test_significantly_below_fails_a_gate_and_not_a_watch(self):
        samples = {"p:fast": STEADY, "p:base": [x * 1.5 for x in STEADY]}
        (row,) = rows_for(GATE, samples)
        self.assertEqual(row["status"], "MISSED")
        self.assertLess(row["high"], 2)
        self.assertTrue(row["fails"])
        (watched,) = rows_for(GATE.replace("| gate |", "| watch |"), samples)
        self.assertEqual(watched["status"], "MISSED")
        self.assertFalse(watched["fails"])
        self.assertEqual(len(gate.failing([row, watched])), 1)

    def test_a_benchmark_not_measured_fails_unless_mxnet_could_not_run(self):
        (row,) = rows_for(GATE, {"p:fast": STEADY})
        self.assertEqual(row["status"], "not measured")
        self.assertTrue(row["fails"])
        mx_gate = "p:fast | mxnet:x | 1 | gate | smoke"
        (waits,) = rows_for(mx_gate, {"p:fast": STEADY}, mxnet={"error": "no network"})
        self.assertFalse(waits["fails"])
        self.assertIn("no network", waits["why"])
        (fails,) = rows_for(mx_gate, {"p:fast": STEADY})
        self.assertTrue(fails["fails"])

    def test_bootstrap_interval_holds_the_ratio(self):
        low, high = gate.bootstrap_interval([200, 210, 190, 205, 195], STEADY)
        self.assertLessEqual(low, 2.0)
        self.assertGreaterEqual(high, 2.0)
        self.assertLess(high - low, 0.4)

    def test_bad_lines_name_the_line(self):
        cases = {
            "a:x | b:y | 1 | gate": "gates:1: expected 'project benchmark | baseline benchmark | "
                                    "goal | mode | suite', got 4 fields",
            "a:x | b:y | fast | gate | smoke": "gates:1: goal 'fast' is not a number",
            "a:x | b:y | -1 | gate | smoke": "gates:1: goal -1 must be above 0",
            "a:x | b:y | 1 | block | smoke": "gates:1: mode 'block' is not one of: gate, watch",
            "a:x | b:y | 1 | gate | nightly": "gates:1: suite 'nightly' is not one of: smoke, full",
            "x | b:y | 1 | gate | smoke": "gates:1: 'x' does not name its binary "
                                          "('binary:benchmark')",
        }
        for text, message in cases.items():
            with self.assertRaises(gate.GateError) as raised:
                gate.parse_gates(text)
            self.assertEqual(str(raised.exception), message)


if __name__ == "__main__":
    unittest.main()
