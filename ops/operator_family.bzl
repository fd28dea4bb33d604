"""`operator_family`: the targets of one operator family in //ops.

    operator_family(
        name = "indexing",
        deps = [":index_type", ":row_gather"],  # what indexing-inl.h includes beyond the base
    )

A family is a header of device-generic kernels (`<name>-inl.h`), the CPU registrations that
instantiate them (`<name>.cc`) and the GPU registrations (`<name>.cu`). It becomes three
targets:

- `:<name>_kernels`: the header, for the family's sources and for a test or another family
  that calls its kernels;
- `:<name>_ops`: `<name>.cc`, linked whole (registrations are static initializers nothing
  references); with --config=cuda it links `:<name>_ops_gpu`;
- `:<name>_ops_gpu`: `<name>.cu` (link_only: its CUDA include paths reach no C++ object).

A compile action's inputs are the headers of every target it reaches, and the disk cache keys
on them: with a target per family, a change to one family's kernels recompiles that family's
two sources, not every operator in every CI configuration.
"""

load("//tools/cuda:cuda.bzl", "cuda_library")

# What the CPU kernels compile with (the operators, and tests that instantiate kernels).
# -fopenmp-simd enables OPS_SIMD_LOOP (ops/vector_loop.h) without the OpenMP runtime.
# -fno-trapping-math lets GCC vectorize loops that compare floats (maximum's gradient, the
# comparison operators): it will not turn a comparison that might trap into a vector select
# otherwise. Nothing here reads or sets the floating-point exception flags.
KERNEL_COPTS = [
    "-fopenmp-simd",
    "-fno-trapping-math",
]

# What every family's kernels may include: the registry (invoke.h, op_types.h), the shared
# functors and inference helpers, Kernel<OP, xpu>::Launch, the CPU's vector loops, host memory.
_FAMILY_BASE_DEPS = [
    ":kernel_launch",
    ":kernel_util",
    ":registry",
    ":vector_loop",
    "//mshadow:host_memory",
]

def operator_family(name, deps = [], cpu_deps = [], gpu_deps = []):
    """The targets of operator family `name` (see the file's docstring).

    Args:
      name: the family: `<name>-inl.h`, `<name>.cc` and `<name>.cu` in this package.
      deps: what the header includes beyond the base (other families' `_kernels`, helpers).
      cpu_deps: what `<name>.cc` alone includes.
      gpu_deps: what `<name>.cu` alone includes (`:kernel_launch_gpu` is always there).
    """
    kernels = name + "_kernels"
    native.cc_library(
        name = kernels,
        hdrs = [name + "-inl.h"],
        deps = _FAMILY_BASE_DEPS + deps,
    )
    cuda_library(
        name = name + "_ops_gpu",
        link_only = True,
        srcs = [name + ".cu"],
        deps = [
            ":" + kernels,
            ":kernel_launch_gpu",
        ] + gpu_deps,
    )
    native.cc_library(
        name = name + "_ops",
        srcs = [name + ".cc"],
        copts = KERNEL_COPTS,
        deps = [":" + kernels] + cpu_deps + select({
            "//tools/cuda:cuda_enabled": [":" + name + "_ops_gpu"],
            "//conditions:default": [],
        }),
        alwayslink = 1,
    )
