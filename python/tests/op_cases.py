"""The case table ops/testing/op_cases.txt (a valid call of every forward operator) as
Python values, with random inputs as the C++ harness makes them."""
import os
import re

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = os.path.join(ROOT, "ops", "testing", "op_cases.txt")


class Case:
    def __init__(self, op, inputs, params, shifts=None):
        self.op, self.inputs, self.params = op, inputs, params
        # What "+kI" adds to the diagonal of each input's matrices (0: nothing).
        self.shifts = shifts or [0.0] * len(inputs)

    @property
    def name(self):
        shapes = " ".join(str(tuple(s)) for s, *_ in self.inputs)
        params = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.op} {shapes} {params}".strip()

    def arrays(self, dtype=np.float32, seed=0):
        """Random inputs in each input's range, in dtype or the input's own type; integer
        inputs hold whole numbers."""
        rng = np.random.default_rng(seed)
        arrays = []
        for (shape, lo, hi, integer, _, own_type), shift in zip(self.inputs, self.shifts):
            if integer:
                values = rng.integers(lo, hi, size=shape)
            else:
                values = rng.uniform(lo, hi, size=shape)
            if shift:
                values = values + shift * np.eye(shape[-1])
            arrays.append(values.astype(own_type or dtype))
        return arrays

    def fixed_types(self):
        """Each input's own type, None where it takes the case's."""
        return [own_type for *_, own_type in self.inputs]

    def differentiable(self):
        return [not (integer or state) for _, _, _, integer, state, _ in self.inputs]


def _diagonal_shift(text):
    """(text without a trailing "+kI", k or 0.0): k is added to the diagonal of every matrix
    of the last two axes, as in ops/testing/op_cases.cc."""
    match = re.fullmatch(r"(.*\))\+([\d.e]+)I", text)
    return (match.group(1), float(match.group(2))) if match else (text, 0.0)


def _parse_input(text):
    """(shape, lo, hi, integer, state, type); ':type' fixes the input's type and a trailing
    '~' marks a state input (not differentiated), as in ops/testing/op_cases.h."""
    match = re.fullmatch(
        r"\(([-\d,\s]*)\)(?:([\[{])([-\d.e]+),([-\d.e]+)[\]}])?(?::(\w+))?(~?)", text)
    if not match:
        raise ValueError(f"bad input {text!r} in {TABLE}")
    shape = tuple(int(d) for d in match.group(1).split(",") if d.strip())
    own_type, state = match.group(5), match.group(6) == "~"
    if match.group(2) is None:
        return shape, -1.0, 1.0, False, state, own_type
    return (shape, float(match.group(3)), float(match.group(4)), match.group(2) == "{", state,
            own_type)


def load():
    cases = []
    with open(TABLE) as table:
        for line in table:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [f.strip() for f in line.split("|")]
            op, shifted = fields[0], [_diagonal_shift(t) for t in fields[1].split()]
            inputs = [_parse_input(t) for t, _ in shifted]
            params = dict(p.split("=", 1) for p in (fields[2].split() if len(fields) > 2 else []))
            cases.append(Case(op, inputs, params, [k for _, k in shifted]))
    return cases
