"""The package on CUDA tensors: every case of ops/testing/op_cases.txt run on PyTorch CUDA
tensors through DLPack, against the same library on NumPy arrays; gradients too; outputs
written in place (out=) on PyTorch's current stream. Skips without PyTorch, without a GPU,
or with a library built without --config=cuda (tools/cuda/gpu_bundle.sh packs one)."""
import numpy as np
import pytest

import mshadow_ops as mo
from op_cases import load

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
try:
    mo.relu(torch.zeros(1, device="cuda"))
except mo.MShadowOpsError as e:
    if "built without CUDA" not in str(e):
        raise
    pytest.skip("the library was built without CUDA", allow_module_level=True)

CASES = load()
IDS = [c.name for c in CASES]
# grad() runs the forward operator in training mode, where Dropout draws its mask: the GPU's
# draws are not the CPU's (the C++ GPU suite checks them by their statistics).
RANDOM_IN_TRAINING = {"Dropout"}


def _inputs(case, dtype, seed):
    """The case's random inputs; for scatter_nd, with no index drawn twice: duplicate indices
    leave its result undefined (MXNet says so; the CPU keeps the last write, the GPU any)."""
    while True:
        inputs = case.arrays(dtype, seed=seed)
        if case.op != "scatter_nd":
            return inputs
        points = {tuple(column) for column in inputs[1].reshape(inputs[1].shape[0], -1).T}
        if len(points) == inputs[1].size // inputs[1].shape[0]:
            return inputs
        seed += 1000


def _listed(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def _to_cuda(arrays):
    return [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in arrays]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_on_cuda_tensors_matches_the_cpu(case):
    for dtype, tol in ((np.float64, 1e-9), (np.float32, 1e-4)):
        if "float32" in case.fixed_types():  # a float32 master copy: computed in float32
            tol = max(tol, 1e-4)
        inputs = _inputs(case, dtype, seed=3)
        # Copies: optimizer updates write their state inputs in place.
        # The same seed for both: the sampling operators' draws must be the same on each.
        mo.seed(7)
        expected = _listed(mo.invoke(case.op, [x.copy() for x in inputs], **case.params))
        mo.seed(7)
        # An operator without inputs (_zeros, _random_uniform) runs where its outputs are:
        # the caller gives them.
        out = _to_cuda(np.empty_like(e) for e in expected) if not inputs else None
        on_gpu = _listed(mo.invoke(case.op, _to_cuda(inputs), out=out, **case.params))
        assert len(on_gpu) == len(expected), case.name
        for y, e in zip(on_gpu, expected):
            assert y.is_cuda, case.name
            assert tuple(y.shape) == e.shape, case.name
            # An output of its own type (the sampling operators' float32 from float64
            # parameters): that type's tolerance.
            out_tol = tol if e.dtype == np.float64 else max(tol, 1e-4)
            np.testing.assert_allclose(y.cpu().numpy().astype(np.float64), e.astype(np.float64),
                                       rtol=out_tol, atol=out_tol, err_msg=case.name)


@pytest.mark.parametrize("case", [c for c in CASES if mo.operator_info(c.op)["backward"]
                                  and c.op not in RANDOM_IN_TRAINING], ids=lambda c: c.name)
def test_gradients_on_cuda_tensors_match_the_cpu(case):
    inputs = _inputs(case, np.float64, seed=4)
    outputs = _listed(mo.invoke(case.op, [x.copy() for x in inputs], **case.params))
    heads = [np.random.default_rng(5).uniform(-1, 1, y.shape).astype(y.dtype) for y in outputs]
    # grad runs the forward again: a sampling operator's gradient needs the same draws on each.
    mo.seed(7)
    expected = mo.grad(case.op, [x.copy() for x in inputs], heads, **case.params)
    mo.seed(7)
    on_gpu = mo.grad(case.op, _to_cuda(inputs), _to_cuda(heads), **case.params)
    for index, (g, e) in enumerate(zip(on_gpu, expected)):
        if not case.differentiable()[index]:
            continue
        tol = 1e-9 if e.dtype == np.float64 else 1e-4
        np.testing.assert_allclose(g.cpu().numpy(), e, rtol=tol, atol=tol,
                                   err_msg=f"{case.name}: gradient of input {index}")


def test_out_is_written_in_place_in_stream_order():
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        x = torch.randn(4096, 1024, device="cuda")
        w = torch.randn(512, 1024, device="cuda")
        out = torch.full((4096, 512), float("nan"), device="cuda")
        pointer = out.data_ptr()
        # Queued behind the work above on the same (non-default) stream, no synchronization.
        mo.FullyConnected(x, w, num_hidden=512, no_bias=True, out=out)
        expected = x @ w.T
    stream.synchronize()
    assert out.data_ptr() == pointer
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-3)


def test_tensors_on_two_devices_are_an_error():
    with pytest.raises(mo.MShadowOpsError, match="input 'rhs' is on cpu, the operator runs on gpu"):
        mo.elemwise_add(torch.ones(3, device="cuda"), torch.ones(3))
