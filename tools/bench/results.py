"""Results files: the Google Benchmark JSON of several binaries in one file.

A results file is Google Benchmark's own JSON layout, so Google Benchmark's compare.py reads
it too:

    {"context": {"suite": "smoke", "machine": {...}, "binaries": {"op_bench": {...}}, ...},
     "benchmarks": [{"name": "op_bench:relu_4M/forward/float32", "run_type": "iteration",
                     "real_time": 943.1, "time_unit": "us", ...}, ...]}

Every benchmark name carries its binary ("op_bench:", "mxnet:" for MXNet's times of the same
cases); Google Benchmark's "/real_time" suffix is dropped. Each repetition is one
"iteration" entry; the statistics here work on those samples, never on the aggregates.
"""
import json
import os
import platform
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NS_PER_UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    with open(path) as f:
        results = json.load(f)
    if not isinstance(results, dict) or not isinstance(results.get("benchmarks"), list):
        raise ValueError(f"{path}: not a results file (no 'benchmarks' list)")
    return results


def save(results, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=1)


def strip_real_time(name):
    return name[:-len("/real_time")] if name.endswith("/real_time") else name


def prefixed(benchmarks, binary):
    """Google Benchmark entries of one binary, named "<binary>:<name>"."""
    out = []
    for entry in benchmarks:
        entry = dict(entry)
        for key in ("name", "run_name"):
            if key in entry:
                entry[key] = f"{binary}:{strip_real_time(entry[key])}"
        out.append(entry)
    return out


def run_name(entry):
    return entry.get("run_name", entry["name"])


def names(results):
    """The benchmarks that have samples, in file order."""
    seen = {}
    for entry in results["benchmarks"]:
        if entry.get("run_type", "iteration") == "iteration" and not entry.get("error_occurred"):
            seen.setdefault(run_name(entry), None)
    return list(seen)


def samples_ns(results, name):
    """Real time of each repetition of `name`, in nanoseconds."""
    return [entry["real_time"] * _NS_PER_UNIT[entry.get("time_unit", "ns")]
            for entry in results["benchmarks"]
            if run_name(entry) == name and entry.get("run_type", "iteration") == "iteration"
            and not entry.get("error_occurred")]


def errors(results):
    """{name: message} of the benchmarks that reported an error."""
    return {run_name(e): e.get("error_message", "") for e in results["benchmarks"]
            if e.get("error_occurred")}


def median_ns(results, name):
    samples = samples_ns(results, name)
    return statistics.median(samples) if samples else None


def replace(results, fresh):
    """`results` with every benchmark that `fresh` measured taken from `fresh`."""
    fresh_names = set(names(fresh))
    kept = [e for e in results["benchmarks"] if run_name(e) not in fresh_names]
    return {"context": results["context"], "benchmarks": kept + fresh["benchmarks"]}


# ---- The machine a results file was measured on.

def cpu_info():
    """The first CPU's model name and flags from /proc/cpuinfo."""
    model, flags = None, None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model is None:
                    model = value.strip()
                elif key == "flags" and flags is None:
                    flags = set(value.split())
    except OSError:
        pass
    return model or platform.processor() or "unknown", flags or set()


def _command_output(command):
    try:
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                              timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_description():
    model, flags = cpu_info()
    simd = [f for f in ("sse2", "avx", "fma", "avx2", "avx512f", "avx512bw", "avx512_bf16")
            if f in flags]
    gpus = _command_output(["nvidia-smi", "-L"])
    commit = _command_output(["git", "rev-parse", "HEAD"])
    dirty = bool(_command_output(["git", "status", "--porcelain", "--untracked-files=no"]))
    return {
        "cpu_model": model,
        "logical_cpus": os.cpu_count(),
        "simd": simd,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "all cores"),
        "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS", "all cores"),
        "gpu": gpus.splitlines() if gpus else [],
        "cuda_backend": "not timed: the suites run the CPU build; GPU operators have no benchmarks yet (issue #16)",
        "kernel": platform.release(),
        "commit": commit + ("-dirty" if dirty and commit else ""),
    }


def machine_kind(machine):
    """The key of the committed baseline for machines like this one: model, CPUs, SIMD."""
    model = re.sub(r"[^a-z0-9]+", "-", machine["cpu_model"].lower()).strip("-")
    widest = machine["simd"][-1] if machine["simd"] else "scalar"
    return f"{model}-{machine['logical_cpus']}cpu-{widest}"
