"""openblas_core: which kernels the benchmark runs give OpenBLAS."""
import unittest
from unittest import mock

import openblas_core

AVX512 = {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq"}


class OpenBlasCoreTest(unittest.TestCase):
    def test_widest_core_follows_the_flags(self):
        self.assertEqual(openblas_core.widest_core(AVX512 | {"avx512_bf16"}), "Cooperlake")
        self.assertEqual(openblas_core.widest_core(AVX512), "SkylakeX")
        self.assertEqual(openblas_core.widest_core({"avx2", "fma", "avx512f"}), "Haswell")
        self.assertEqual(openblas_core.widest_core({"avx2"}), None)

    def test_set_only_over_a_prescott_fallback(self):
        flags = AVX512 | {"avx512_bf16"}
        with mock.patch.object(openblas_core, "cpu_flags", return_value=flags):
            for detected, want in (("Prescott", "Cooperlake"), ("SkylakeX", None),
                                   ("Haswell", None), (None, None)):
                with mock.patch.object(openblas_core, "detected_core", return_value=detected):
                    env = {}
                    self.assertEqual(openblas_core.use_cpu_kernels(env), want, detected)
                    self.assertEqual(env.get("OPENBLAS_CORETYPE"), want, detected)
            with mock.patch.object(openblas_core, "detected_core", return_value="Prescott"):
                env = {"OPENBLAS_CORETYPE": "Prescott"}
                self.assertIsNone(openblas_core.use_cpu_kernels(env))
                self.assertEqual(env, {"OPENBLAS_CORETYPE": "Prescott"})

    def test_detected_core_reads_openblas(self):
        core = openblas_core.detected_core()
        self.assertTrue(core is None or isinstance(core, str) and core)


if __name__ == "__main__":
    unittest.main()
