"""The case table ops/testing/op_cases.txt (a valid call of every forward operator) as
Python values, with random inputs as the C++ harness makes them."""
import os
import re

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = os.path.join(ROOT, "ops", "testing", "op_cases.txt")


class Case:
    def __init__(self, op, inputs, params):
        self.op, self.inputs, self.params = op, inputs, params

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
        for shape, lo, hi, integer, _, own_type in self.inputs:
            if integer:
                values = rng.integers(lo, hi, size=shape)
            else:
                values = rng.uniform(lo, hi, size=shape)
            arrays.append(values.astype(own_type or dtype))
        return arrays

    def fixed_types(self):
        """Each input's own type, None where it takes the case's."""
        return [own_type for *_, own_type in self.inputs]

    def differentiable(self):
        return [not (integer or state) for _, _, _, integer, state, _ in self.inputs]


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
            op, inputs = fields[0], [_parse_input(t) for t in fields[1].split()]
            params = dict(p.split("=", 1) for p in (fields[2].split() if len(fields) > 2 else []))
            cases.append(Case(op, inputs, params))
    return cases
