"""Repository rule that finds the CUDA toolkit without downloading anything.

Creates @local_cuda with `cudart`, `cublas` (with cuBLASLt), `cusolver`, `cudnn` and `cuda_headers` targets wrapping the toolkit
at $CUDA_PATH (default /usr/local/cuda), and `defs.bzl` telling whether it was found. On a
machine without the toolkit the targets exist but are empty, so `bazel build //...` still
works; GPU targets are only built with --config=cuda.
"""

def _cuda_configure_impl(repository_ctx):
    cuda_path = repository_ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    found = repository_ctx.path(cuda_path + "/include/cuda_runtime.h").exists
    if found:
        repository_ctx.symlink(cuda_path + "/include", "include")
        repository_ctx.symlink(cuda_path + "/lib64", "lib64")
        repository_ctx.symlink(cuda_path + "/bin", "bin")
        build = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp", "include/**/*.cuh"]),
    includes = ["include"],
)

cc_library(
    name = "cudart",
    linkopts = ["-L{path}/lib64", "-Wl,-rpath,{path}/lib64", "-lcudart"],
    deps = [":cuda_headers"],
)

cc_library(
    name = "cublas",
    linkopts = ["-L{path}/lib64", "-Wl,-rpath,{path}/lib64", "-lcublas", "-lcublasLt"],
    deps = [":cudart"],
)

cc_library(
    name = "cusolver",
    linkopts = ["-L{path}/lib64", "-Wl,-rpath,{path}/lib64", "-lcusolver"],
    deps = [":cublas"],
)

cc_library(
    name = "cudnn",
    linkopts = ["-L{path}/lib64", "-Wl,-rpath,{path}/lib64", "-lcudnn"],
    deps = [":cudart"],
)

filegroup(
    name = "nvcc",
    srcs = ["bin/nvcc"],
)
""".format(path = cuda_path)
    else:
        build = """
package(default_visibility = ["//visibility:public"])

cc_library(name = "cuda_headers")

cc_library(name = "cudart")

cc_library(name = "cublas")

cc_library(name = "cusolver")

cc_library(name = "cudnn")

filegroup(name = "nvcc")
"""
    repository_ctx.file("BUILD", build)
    repository_ctx.file("defs.bzl", "CUDA_FOUND = {}\nCUDA_PATH = \"{}\"\n".format(found, cuda_path))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    local = True,
)
