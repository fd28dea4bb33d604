"""OpenBLAS's kernels for the benchmark runs: the CPU's, where OpenBLAS does not know the CPU.

OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's 0.3.21 is) picks its kernels by the
CPU's model number and takes a model it does not know for a Prescott: SSE3 kernels, sgemm at a
sixth of its AVX-512 speed (an Emerald Rapids Xeon, family 6 model 207; docs/benchmarks.md,
seventy-fifth session). Where that happens and OPENBLAS_CORETYPE is not set, the benchmark
tools set it, for every process they start, to the widest kernels the CPU runs: the project's
binaries, and MXNet's worker too (the OpenBLAS in MXNet's wheel did not take it on the machine
measured). The library itself leaves OpenBLAS's choice to its host: README.md, "OpenBLAS on a
CPU it does not know".
"""
import ctypes
import os
import sys

import results


def cpu_flags():
    return results.cpu_info()[1]


def widest_core(flags):
    """The name of the widest OpenBLAS core these CPU flags run, or None."""
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


def detected_core():
    """The core OpenBLAS (libopenblas.so.0) chooses in this process, or None."""
    try:
        openblas = ctypes.CDLL("libopenblas.so.0")
    except OSError:
        return None
    openblas.openblas_get_corename.restype = ctypes.c_char_p
    return openblas.openblas_get_corename().decode()


def use_cpu_kernels(environ=os.environ):
    """Sets OPENBLAS_CORETYPE in `environ` where OpenBLAS took the CPU for a Prescott and it is
    not set; returns the name set, or None."""
    if "OPENBLAS_CORETYPE" in environ or detected_core() != "Prescott":
        return None
    core = widest_core(cpu_flags())
    if core is None:
        return None
    environ["OPENBLAS_CORETYPE"] = core
    print(f"bench: OpenBLAS takes this CPU for a Prescott; every run gets "
          f"OPENBLAS_CORETYPE={core}", file=sys.stderr)
    return core
