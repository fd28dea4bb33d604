"""Synthetic results files for the benchmark tools' tests."""


def entry(name, real_time, index=0, unit="ns"):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetition_index": index,
            "real_time": real_time, "cpu_time": real_time, "time_unit": unit}


def make(samples_by_name, **context):
    """A results file with `samples_by_name`: {name: [real times in ns]}."""
    benchmarks = [entry(name, value, i) for name, values in samples_by_name.items()
                  for i, value in enumerate(values)]
    return {"context": dict(context), "benchmarks": benchmarks}
