"""`cuda_library`: CUDA sources compiled by nvcc into a library other C++ targets depend on.

    cuda_library(
        name = "tensor_gpu_kernels",
        srcs = ["tensor_gpu.cu"],
        hdrs = ["tensor_gpu.h"],
        deps = ["//mshadow:tensor_core"],
    )

Each `.cu` file is compiled by the toolkit's nvcc with its dependencies' headers, include
paths and defines (their `CcInfo`), and the host compiler gets the build's own --copt and
--cxxopt (so inline host code compiled here is the same code the C++ targets get, e.g. the
same -march). The objects form a static archive, linked whole (`alwayslink`, as operator
registrations need), with the CUDA runtime. The rule returns `CcInfo`: a cc_library,
cc_binary or cc_test depends on it like on any C++ library. `link_only = True` (libraries
that only register GPU code, like the operators' `.cu` files) hands dependents the linking
half alone: their C++ objects then compile exactly as in the default build and come from its
cache, instead of compiling again because the CUDA include paths changed their command lines.

Device code: SASS for sm_80 and sm_90, plus compute_90 PTX that newer GPUs compile at load
time. `--define=cuda_archs=90` (a comma-separated list) compiles SASS for those alone: each
architecture is a pass of the device compiler, so CI, which only checks that the code
compiles, builds one. Nothing is downloaded; the toolkit comes from @local_cuda (tools/cuda/cuda_configure.bzl).

GPU targets build only with --config=cuda: `cuda_enabled_only()` makes a target incompatible
otherwise, so `bazel build //...` skips it and the default build stays GPU-free.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@local_cuda//:defs.bzl", "CUDA_FOUND", "CUDA_PATH")

# Real architectures (SASS) and the virtual one shipped as PTX for GPUs newer than these.
CUDA_ARCHS = ["80", "90"]
CUDA_PTX_ARCH = "90"

def _gencode_flags(ctx):
    archs = ctx.var.get("cuda_archs", ",".join(CUDA_ARCHS)).split(",")
    flags = []
    for arch in archs:
        flags.append("-gencode=arch=compute_{0},code=sm_{0}".format(arch))
    flags.append("-gencode=arch=compute_{0},code=compute_{0}".format(CUDA_PTX_ARCH))
    return flags

def _host_flags(ctx):
    # The build's host-compiler flags, minus the C++ standard, which nvcc sets itself.
    opts = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + ctx.attr.host_copts
    return ["-Xcompiler=" + opt for opt in opts if not opt.startswith("-std=")]

def _optimization_flags(ctx):
    mode = ctx.var.get("COMPILATION_MODE", "fastbuild")
    if mode == "opt":
        return ["-O3", "-DNDEBUG"]
    if mode == "dbg":
        return ["-O0", "-g", "-lineinfo"]
    return ["-O1"]

def _include_flags(compilation_context):
    flags = []
    # nvcc has no -iquote: quoted include paths become ordinary ones.
    for path in compilation_context.quote_includes.to_list():
        flags.append("-I" + path)
    for path in compilation_context.includes.to_list():
        flags.append("-I" + path)
    for path in compilation_context.system_includes.to_list():
        flags += ["-isystem", path]
    for define in compilation_context.defines.to_list():
        flags.append("-D" + define)
    return flags

def _cuda_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    deps_cc_info = cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])
    deps_compilation = deps_cc_info.compilation_context

    own_compilation = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        defines = depset(ctx.attr.defines),
    )
    headers = depset(ctx.files.hdrs, transitive = [deps_compilation.headers])

    # Workspace-relative includes ("mshadow/tensor.h") resolve from the execution root and
    # from the output trees of generated headers.
    roots = [".", ctx.bin_dir.path, ctx.genfiles_dir.path]
    if ctx.label.workspace_root:
        roots += [ctx.label.workspace_root, ctx.bin_dir.path + "/" + ctx.label.workspace_root]
    base_flags = (
        ["-std=c++17", "--expt-relaxed-constexpr", "-Werror", "all-warnings"] +
        # The front end does not know `#pragma GCC unroll` (1675) but passes it on to the
        # host compiler, so the CPU loops compiled here are unrolled as in C++ targets.
        ["-diag-suppress=1675"] +
        # Position-independent, so that the archive also links into shared libraries
        # (libmshadow_ops.so); its thread-locals need the general TLS model there.
        ["-Xcompiler", "-fPIC"] +
        _gencode_flags(ctx) + _optimization_flags(ctx) + _host_flags(ctx) +
        ["-I" + root for root in roots] + _include_flags(deps_compilation) +
        ["-D" + define for define in ctx.attr.defines] + ctx.attr.copts
    )

    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs/{}/{}.o".format(ctx.label.name, src.basename))
        args = ctx.actions.args()
        args.add_all(base_flags)
        args.add_all(["-c", src.path, "-o", obj.path])
        ctx.actions.run(
            executable = CUDA_PATH + "/bin/nvcc",
            arguments = [args],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "NvccCompile",
            progress_message = "nvcc {}".format(src.short_path),
            # nvcc finds cicc, ptxas and its headers beside its real path in the toolkit.
            use_default_shell_env = True,
        )
        objects.append(obj)

    archive = ctx.actions.declare_file("lib{}.a".format(ctx.label.name))
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcsD", archive.path] + [obj.path for obj in objects],
        inputs = depset(objects, transitive = [cc_toolchain.all_files]),
        outputs = [archive],
        mnemonic = "CudaArchive",
        progress_message = "archiving {}".format(archive.short_path),
    )

    library = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        static_library = archive,
        pic_static_library = archive,
        alwayslink = ctx.attr.alwayslink,
    )
    linker_input = cc_common.create_linker_input(
        owner = ctx.label,
        libraries = depset([library]),
        user_link_flags = depset([
            "-L" + CUDA_PATH + "/lib64",
            "-Wl,-rpath," + CUDA_PATH + "/lib64",
            "-lcudart",
        ] + ctx.attr.linkopts),
    )
    own_cc_info = CcInfo(
        compilation_context = own_compilation,
        linking_context = cc_common.create_linking_context(linker_inputs = depset([linker_input])),
    )
    cc_info = cc_common.merge_cc_infos(direct_cc_infos = [own_cc_info], cc_infos = [deps_cc_info])
    if ctx.attr.link_only:
        # Dependents link it and compile as if it were absent: the CUDA include paths and
        # defines stay out of their command lines, so their objects are the default build's.
        cc_info = CcInfo(linking_context = cc_info.linking_context)
    return [DefaultInfo(files = depset([archive])), cc_info]

_cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(doc = "Extra nvcc flags."),
        "host_copts": attr.string_list(doc = "Extra host-compiler flags (passed by -Xcompiler)."),
        "defines": attr.string_list(),
        "linkopts": attr.string_list(),
        "alwayslink": attr.bool(default = True),
        "link_only": attr.bool(
            doc = "Dependents only link it (a library that registers, e.g. FCompute<gpu>): " +
                  "its headers, include paths and defines do not reach them.",
        ),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
)

# Labels of this repository, also when another workspace loads this file (a plain string
# would name a target of that workspace).
_CUDA_ENABLED = str(Label("//tools/cuda:cuda_enabled"))
_CUDA_BUILD_REQUIRED = str(Label("//tools/cuda:cuda_build_required"))

def cuda_enabled_only():
    """target_compatible_with for GPU targets: incompatible (skipped) without --config=cuda."""
    return select({
        _CUDA_ENABLED: [],
        "//conditions:default": [_CUDA_BUILD_REQUIRED],
    })

def cuda_library(name, target_compatible_with = None, **kwargs):
    """A library of `.cu` sources (see the file's docstring); built only with --config=cuda."""
    if not CUDA_FOUND:
        # No toolkit on this machine: the target exists, is never compatible, builds nothing.
        target_compatible_with = [_CUDA_BUILD_REQUIRED]
    _cuda_library(
        name = name,
        target_compatible_with = target_compatible_with or cuda_enabled_only(),
        **kwargs
    )

def cuda_test(name, srcs, deps = [], data = [], args = [], tags = [], **kwargs):
    """A GoogleTest binary of `.cu` sources: skips its tests ("no CUDA device") without a GPU."""
    cuda_library(
        name = name + "_kernels",
        testonly = True,
        srcs = srcs,
        deps = deps + ["//tools/cuda:gpu_test"],
        **kwargs
    )
    native.cc_test(
        name = name,
        deps = [":" + name + "_kernels", "//third_party:gtest_main"],
        data = data,
        args = args,
        tags = tags + ["gpu"],
        target_compatible_with = cuda_enabled_only(),
    )
