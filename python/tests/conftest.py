"""Collects the largest error per operator against MXNet and prints it after the run."""
import collections

MXNET_ERRORS = collections.defaultdict(lambda: {"cases": 0, "forward": 0.0, "gradient": 0.0})


def pytest_terminal_summary(terminalreporter):
    if not MXNET_ERRORS:
        return
    write = terminalreporter.write_line
    write("")
    write("Against MXNet 1.9.1 (float32): largest absolute error per operator")
    write(f"{'operator':24} {'cases':>5} {'forward':>10} {'gradient':>10}")
    for op in sorted(MXNET_ERRORS):
        e = MXNET_ERRORS[op]
        write(f"{op:24} {e['cases']:>5} {e['forward']:>10.2e} {e['gradient']:>10.2e}")
