"""Build macros shared by the packages."""

def header_compile_test(name, hdrs, deps, copts = []):
    """Checks that every header in `hdrs` compiles on its own (and twice, for its guard).

    One generated translation unit per header, each including only that header, compiled with
    `copts` (the flags the headers' users compile with); the target fails to build if any
    header misses an include it needs.
    """
    srcs = []
    for hdr in hdrs:
        src = "{}_{}.cc".format(name, hdr.replace("/", "_").replace(".", "_"))
        path = native.package_name() + "/" + hdr
        native.genrule(
            name = src + "_gen",
            outs = [src],
            cmd = "printf '#include \"{0}\"\\n#include \"{0}\"\\n' > $@".format(path),
        )
        srcs.append(src)
    native.cc_test(
        name = name,
        srcs = srcs,
        copts = copts,
        deps = deps + ["//third_party:gtest_main"],
    )

def fuzz_test(name, srcs, deps, corpus = []):
    """A libFuzzer target (`LLVMFuzzerTestOneInput` in `srcs`) that is also a test.

    In ordinary builds it links //tools/fuzzing:replay_driver and `bazel test` replays the
    seed `corpus` plus a fixed-seed stream of mutations (under any sanitizer config too).
    Under --config=fuzz (clang) it links libFuzzer; tools/fuzzing/run_fuzzers.sh fuzzes it.
    """
    native.filegroup(
        name = name + "_corpus",
        srcs = corpus,
    )
    native.cc_test(
        name = name,
        srcs = srcs,
        args = ["$(locations :%s_corpus)" % name] if corpus else [],
        data = [":" + name + "_corpus"],
        linkopts = select({
            "//tools/fuzzing:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//tools/fuzzing:libfuzzer": [],
            "//conditions:default": ["//tools/fuzzing:replay_driver"],
        }),
    )

def _cc_link_only_impl(ctx):
    merged = cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])
    return [CcInfo(linking_context = merged.linking_context)]

cc_link_only = rule(
    implementation = _cc_link_only_impl,
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
    doc = """Links `deps` into its dependents without their headers, include paths or defines.

A compile action's inputs are every header its target reaches, and the disk cache keys on
them: a library that only registers operators (nothing includes its headers) reached this way
leaves its dependents' objects untouched when its headers change, so a change to one operator
family's kernels recompiles that family alone.
""",
)
