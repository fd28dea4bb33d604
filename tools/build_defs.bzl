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
