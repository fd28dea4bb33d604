"""The Python package against NumPy references and against MXNet 1.9.1 on every case of
ops/testing/op_cases.txt: forward outputs and, through FGradient, input gradients."""
import contextlib

import numpy as np
import pytest

import mshadow_ops as mo
from conftest import MXNET_ERRORS
from op_cases import load
from references import FORWARD

CASES = load()
IDS = [c.name for c in CASES]

try:
    import mxnet as mx
except ImportError:  # the MXNet comparison runs where MXNet is installed (tools/python)
    mx = None


def test_every_forward_operator_is_a_function_with_a_case():
    forward = [n for n in mo.list_operators() if not mo.operator_info(n)["is_backward"]]
    covered = {c.op for c in CASES}
    for name in forward:
        assert callable(getattr(mo, name)), name
        assert getattr(mo, name).__doc__, name
        assert mo.operator_info(name)["name"] in covered, f"{name} has no case"


def _mxnet_operator_names():
    """Every name MXNet 1.9.1 registers, grouped by the operator it finds (aliases together)."""
    import ctypes
    from mxnet.base import _LIB, c_str, check_call, py_str
    count, names = ctypes.c_uint(), ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(count), ctypes.byref(names)))
    groups = {}
    for i in range(count.value):
        name, handle = py_str(names[i]), ctypes.c_void_p()
        check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(handle)))
        groups.setdefault(handle.value, []).append(name)
    return list(groups.values())


# MXNet's names for its sparse storage and NumPy front ends, which this library does not have.
MXNET_FRONT_END_PREFIXES = ("_sparse_", "_np_", "_npi_", "_npx_", "_contrib_")


@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
def test_mxnets_other_names_for_our_operators_find_them():
    ours = set(mo.list_operators())
    missing = []
    for group in _mxnet_operator_names():
        present = [name for name in group if name in ours]
        if not present:
            continue
        canonical = {mo.operator_info(name)["name"] for name in present}
        assert len(canonical) == 1, f"MXNet's aliases {present} find different operators here"
        missing += [name for name in group
                    if name not in ours and not name.startswith(MXNET_FRONT_END_PREFIXES)]
    assert not missing, f"MXNet names these operators, this library does not: {missing}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_numpy(case):
    if case.op in SAMPLING:
        pytest.skip("draws random numbers (test_sampling_like_mxnet)")
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 2e-5)):
        if "float32" in case.fixed_types():  # a float32 master copy: computed in float32
            tol = max(tol, 2e-5)
        inputs = case.arrays(dtype)
        # Copies: optimizer updates write their state inputs in place, as MXNet's do.
        out = _as_list(mo.invoke(case.op, [x.copy() for x in inputs], **case.params))
        expected = _as_list(FORWARD[case.op](*[x.astype(np.float64) for x in inputs],
                                             case.params))
        assert len(out) == len(expected), case.name
        for y, e in zip(out, expected):
            assert y.shape == e.shape, case.name
            np.testing.assert_allclose(y.astype(np.float64), e, rtol=tol, atol=tol,
                                       err_msg=case.name)


def _as_list(outputs):
    """An operator's outputs as a list (one output comes back bare)."""
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def _mxnet_function(op):
    if hasattr(mx.nd, op):
        return getattr(mx.nd, op)
    if op.startswith("_linalg_"):  # MXNet's front end has them as mx.nd.linalg.*
        return getattr(mx.nd.linalg, op[len("_linalg_"):])
    if op.startswith("_contrib_"):  # and these as mx.nd.contrib.*
        return getattr(mx.nd.contrib, op[len("_contrib_"):])
    if op.startswith("_np_"):  # the legacy front end's names of NumPy operators (cumsum)
        return getattr(mx.nd, op[len("_np_"):])
    return getattr(mx.nd._internal, op)


# Cases where MXNet 1.9.1's gradient is not the gradient of its own forward output, or fails;
# ours is checked (the C++ tests check it against central differences).
MXNET_GRADIENT_BUGS = {
    # box_nms with in_format != out_format: MXNet copies the gradient of the converted
    # coordinates to the input's unconverted (ours goes through the conversion).
    "_contrib_box_nms (2, 3, 7, 7) coord_start=3 score_index=0 in_format=center overlap_thresh=0.05",
    "_contrib_box_nms (12, 6) out_format=center overlap_thresh=0.05 force_suppress=True id_index=0",
    # box_decode: MXNet's gradient is zeros; ours is the boxes' derivative in data and
    # anchors.
    "_contrib_box_decode (2, 5, 4) (1, 5, 4) std0=0.1 std1=0.2 std2=0.3 std3=0.4",
    "_contrib_box_decode (2, 5, 4) (1, 5, 4) std2=0.3 std3=0.4 clip=0.3 format=corner",
    # batch_take: MXNet registers no gradient; ours is pick's.
    "batch_take (3, 5) (3,)",
    # fill_element_0index: MXNet registers no gradient; ours passes the output gradient to lhs
    # but at the replaced elements, whose gradient goes to mhs.
    "fill_element_0index (4, 6) (4,) (4,)",
    # _contrib_ModulatedDeformableConvolution: MXNet's CPU build has no backward ("only
    # implemented in GPU").
    "_contrib_ModulatedDeformableConvolution (2, 4, 5, 6) (2, 18, 5, 6) (2, 9, 5, 6) (3, 4, 3, 3) "
    "(3,) kernel=(3,3) num_filter=3 pad=(1,1)",
    "_contrib_ModulatedDeformableConvolution (1, 4, 7, 6) (1, 36, 3, 2) (1, 18, 3, 2) "
    "(6, 2, 3, 3) kernel=(3,3) num_filter=6 num_group=2 num_deformable_group=2 stride=(2,2) "
    "no_bias=True",
    "_contrib_ModulatedDeformableConvolution (2, 2, 6, 6) (2, 8, 5, 4) (2, 4, 5, 4) (4, 2, 2, 2) "
    "(4,) kernel=(2,2) num_filter=4 dilate=(1,2) im2col_step=2",
    # _contrib_RROIAlign: MXNet registers no gradient; ours is ROIAlign's (zeros for rois).
    "_contrib_RROIAlign (4, 3, 8, 6) (4, 6) pooled_size=(2,2) spatial_scale=0.75",
    "_contrib_RROIAlign (8, 2, 9, 7) (5, 6) pooled_size=(3,2) spatial_scale=1 sampling_ratio=2",
    # _contrib_hawkesll: MXNet's gradient ignores the states output's and leaves the starting
    # states' unwritten, and refuses to differentiate lags and max_time.
    "_contrib_hawkesll (3, 2) (2,) (2,) (3, 2) (3, 5) (3, 5) (3,) (3,)",
    # khatri_rao: MXNet registers no gradient ("non-differentiable").
    "khatri_rao (2, 3) (4, 3) num_args=2",
    "khatri_rao (3, 2) (1, 2) (2, 2) num_args=3",
    "khatri_rao (4, 5) num_args=1",
    # Its forward normalizes the last axis; its backward normalizes axis 1.
    "SoftmaxActivation (2, 3, 4)",
    # sort without an axis: its backward fails to parse the default axis it passes on
    # ("Invalid Parameter format for axis ... value=''"); sort (4, 3, 2) gives one.
    "sort (3, 7)",
    # SequenceLast along axis 1: its backward scatters to the wrong places (and crashes the
    # process at times: a segmentation fault with a (3, 4) input and no lengths).
    "SequenceLast (3, 4) axis=1",
}

# Cases MXNet 1.9.1 cannot run; ours is checked against the NumPy reference alone.
MXNET_CANNOT_RUN = {
    # _contrib_count_sketch: MXNet 1.9.1 has it on the GPU only ("CountSketch is only
    # available for GPU").
    "_contrib_count_sketch (4, 8) (1, 8) (1, 8) out_dim=5",
    "_contrib_count_sketch (2, 3, 2, 6) (1, 6) (1, 6) out_dim=3 processing_batch_size=4",
    # _contrib_DeformablePSROIPooling: MXNet 1.9.1's CPU build has no kernel (its forward
    # leaves the output at -FLT_MAX); ours follows its GPU kernel.
    "_contrib_DeformablePSROIPooling (3, 8, 9, 7) (4, 5) (4, 4, 2, 2) spatial_scale=0.7 "
    "output_dim=2 group_size=2 pooled_size=3 part_size=2 sample_per_part=2 trans_std=0.1",
    "_contrib_DeformablePSROIPooling (6, 18, 8, 6) (5, 5) spatial_scale=1 output_dim=2 "
    "group_size=3 pooled_size=3 sample_per_part=3 no_trans=True",
    # _contrib_fft and _contrib_ifft: MXNet 1.9.1 runs them on the GPU only (cuFFT).
    "_contrib_fft (3, 8)",
    "_contrib_fft (2, 3, 2, 6) compute_size=5",
    "_contrib_ifft (4, 10) compute_size=3",
    "_contrib_ifft (2, 16)",
    # _contrib_BatchNormWithReLU beyond 4-d data normalized over axis 1: MXNet's only kernel
    # is oneDNN's ("only supports MKL-DNN Backend"); ours takes BatchNorm's shapes.
    "_contrib_BatchNormWithReLU (2, 3, 4) (4,) (4,) (4,) (4,) axis=-1 eps=1e-5 momentum=0.8",
    # batch_take of an array of more than two axes: MXNet indexes rows of the wrong length
    # and reads past the array's end (values like 4.6e-41).
    "batch_take (2, 3, 4) (2, 3)",
    # Deconvolution with target_shape: oneDNN refuses the primitive MXNet asks for ("could
    # not create a descriptor for a dilated deconvolution forward propagation primitive").
    "Deconvolution (1, 2, 3, 4) (2, 2, 3, 3) kernel=(3,3) num_filter=2 stride=(2,2) "
    "target_shape=(6,8)",
    # mp_lamb_update_phase1 infers its weight as float16 whatever it is given ("Type
    # inconsistent, Provided = float32, inferred type = float16"); the suite runs float32.
    "mp_lamb_update_phase1 (10,) (10,) (10,) (10,) (10,) t=2 wd=0.01 clip_gradient=0.5",
    # ROIAlign with aligned=True and a region whose corners are inverted (the random integer
    # regions have some): MXNet's CPU kernel checks the width inside its OpenMP loop and the
    # process terminates; ours gives that region's bins no samples (zeros).
    "_contrib_ROIAlign (8, 4, 8, 6) (5, 5) pooled_size=(2,2) spatial_scale=0.9 aligned=True",
    # im2col and col2im of 1-d and 3-d windows: MXNet's CPU kernels take 2-d ones alone (1-d:
    # "index = 3 must be in range [0, 3)"; 3-d: "new and old shape do not match").
    "im2col (2, 2, 9) kernel=(3,) stride=(2,) dilate=(2,) pad=(1,)",
    "im2col (1, 2, 4, 5, 6) kernel=(2,2,3) stride=(1,2,1) pad=(0,1,1)",
    "col2im (2, 6, 4) output_size=(9,) kernel=(3,) stride=(2,) dilate=(2,) pad=(1,)",
    "col2im (1, 24, 54) output_size=(4,5,6) kernel=(2,2,3) stride=(1,2,1) pad=(0,1,1)",
}

# Cases where ours keeps MXNet 1.9.1's single-weight semantics and its batched form does not:
# given float32 weights, MXNet's multi_mp_ updates step the weight and ignore weight32 (its
# float16 path steps weight32, as mp_sgd_update always does); ours always step weight32.
MXNET_MP_FLOAT32_DIFFERS = {
    "multi_mp_sgd_update", "multi_mp_sgd_mom_update", "preloaded_multi_mp_sgd_update",
    "preloaded_multi_mp_sgd_mom_update", "_multi_mp_adamw_update", "_multi_mp_lamb_update",
}

# Inputs MXNet 1.9.1 takes in a type of their own (ours take the data's type too).
MXNET_INPUT_TYPES = {
    ("softmax", 1): np.int32,  # the lengths of use_length
}

# Operators MXNet 1.9.1 runs only into given outputs (without out= its shape inference fails:
# "shape must have a valid ndim"): the batched SGD and AdamW updates.
def _mxnet_needs_out(op):
    return op.startswith(("multi_", "preloaded_multi_", "_multi_"))


# Operators that draw random numbers: compared with MXNet by what their draws do
# (test_dropout_like_mxnet, test_sampling_like_mxnet), not value by value.
SAMPLING = {"_random_uniform", "_random_normal", "_random_exponential", "_random_randint",
            "_random_uniform_like", "_random_normal_like", "_random_exponential_like",
            "_random_gamma", "_random_poisson", "_random_negative_binomial",
            "_random_generalized_negative_binomial", "_random_gamma_like", "_random_poisson_like",
            "_random_negative_binomial_like", "_random_generalized_negative_binomial_like",
            "_sample_uniform", "_sample_normal",
            "_sample_gamma", "_sample_exponential", "_sample_poisson",
            "_sample_negative_binomial", "_sample_generalized_negative_binomial",
            "_sample_multinomial", "_shuffle", "_sample_unique_zipfian"}
RANDOM = {"Dropout"} | SAMPLING


@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_against_mxnet(case):
    if case.op in RANDOM:
        pytest.skip("draws random numbers")
    if case.name in MXNET_CANNOT_RUN:
        pytest.skip("MXNet 1.9.1 cannot run this case")
    if case.op in MXNET_MP_FLOAT32_DIFFERS:
        pytest.skip("MXNet 1.9.1's batched mp update ignores weight32 for float32 weights")
    inputs = case.arrays(np.float32)
    ours = _as_list(mo.invoke(case.op, [x.copy() for x in inputs], is_train=True, **case.params))
    nd_inputs = [mx.nd.array(x, dtype=own or MXNET_INPUT_TYPES.get((case.op, i), np.float32))
                 for i, (x, own) in enumerate(zip(inputs, case.fixed_types()))]
    differentiable = case.differentiable()
    compare_gradients = (mo.operator_info(case.op)["backward"] is not None
                         and any(differentiable) and case.name not in MXNET_GRADIENT_BUGS)
    if compare_gradients:
        for x, d in zip(nd_inputs, differentiable):
            if d:
                x.attach_grad()
    with mx.autograd.record() if compare_gradients else contextlib.nullcontext():
        if _mxnet_needs_out(case.op):
            theirs = [mx.nd.zeros(y.shape, dtype=y.dtype) for y in ours]
            _mxnet_function(case.op)(*nd_inputs, out=theirs, **case.params)
        else:
            theirs = _as_list(_mxnet_function(case.op)(*nd_inputs, **case.params))
    record = MXNET_ERRORS[case.op]
    record["cases"] += 1
    assert len(ours) == len(theirs), case.name
    for y, t in zip(ours, theirs):
        error = float(np.max(np.abs(y.astype(np.float64) - t.asnumpy().astype(np.float64)),
                             initial=0))
        record["forward"] = max(record["forward"], error)
        np.testing.assert_allclose(y, t.asnumpy(), rtol=1e-4, atol=1e-5, err_msg=case.name)
    if not compare_gradients:
        return
    rng = np.random.default_rng(1)
    heads = [rng.uniform(-1, 1, size=y.shape).astype(y.dtype) for y in ours]
    mx.autograd.backward(theirs, [mx.nd.array(h, dtype=t.dtype) for h, t in zip(heads, theirs)])
    grads = mo.grad(case.op, inputs, heads, **case.params)
    for i, (g, x, d) in enumerate(zip(grads, nd_inputs, differentiable)):
        if not d:
            continue
        error = float(np.max(np.abs(g.astype(np.float64) - x.grad.asnumpy()), initial=0))
        record["gradient"] = max(record["gradient"], error)
        np.testing.assert_allclose(g, x.grad.asnumpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case.name}: gradient of input {i}")


def _dropout_draws(y, x, p):
    """The kept fraction of y = dropout(x); every element 0 or x / (1 - p)."""
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / (1 - p), rtol=1e-6)
    return kept.mean()


@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
def test_dropout_like_mxnet():
    p, x = 0.3, np.random.default_rng(0).uniform(0.5, 2, (200, 500)).astype(np.float32)
    ours = mo.Dropout(x, p=p, is_train=True)
    with mx.autograd.record():
        theirs = mx.nd.Dropout(mx.nd.array(x), p=p).asnumpy()
    tolerance = 5 * np.sqrt(p * (1 - p) / x.size)
    assert abs(_dropout_draws(ours, x, p) - (1 - p)) < tolerance
    assert abs(_dropout_draws(theirs, x, p) - (1 - p)) < tolerance
    # The gradient goes through the same mask; inference is the identity in both.
    head = np.full_like(x, 2.0)
    mo.seed(5)
    y = mo.Dropout(x, p=p, is_train=True)
    mo.seed(5)
    (dx,) = mo.grad("Dropout", [x], [head], p=p)
    np.testing.assert_allclose(dx, np.where(y != 0, 2.0 / (1 - p), 0), rtol=1e-6)
    np.testing.assert_array_equal(mo.Dropout(x, p=p), mx.nd.Dropout(mx.nd.array(x), p=p).asnumpy())


# Each sampling operator, and its _like form, against MXNet's on 200000 draws: mean and
# deviation within five standard errors of the distribution's, both sides; randint's values
# all in range.
@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
@pytest.mark.parametrize("op,params,mean,std", [
    ("_random_uniform", {"low": -2, "high": 3}, 0.5, 5 / np.sqrt(12)),
    ("_random_normal", {"loc": 1.5, "scale": 2}, 1.5, 2.0),
    ("_random_exponential", {"lam": 4}, 0.25, 0.25),
    ("_random_randint", {"low": -3, "high": 4}, 0.0, 2.0),
    ("_random_gamma", {"alpha": 2.5, "beta": 1.5}, 3.75, np.sqrt(2.5) * 1.5),
    ("_random_gamma", {"alpha": 0.5, "beta": 2}, 1.0, np.sqrt(0.5) * 2),
    ("_random_poisson", {"lam": 4}, 4.0, 2.0),
    ("_random_poisson", {"lam": 30}, 30.0, np.sqrt(30)),
    ("_random_negative_binomial", {"k": 3, "p": 0.4}, 4.5, np.sqrt(1.8) / 0.4),
    ("_random_generalized_negative_binomial", {"mu": 2, "alpha": 0.5}, 2.0, 2.0),
])
@pytest.mark.parametrize("like", [False, True])
def test_sampling_like_mxnet(op, params, mean, std, like):
    shape = (400, 500)
    if like:  # the _like form, where MXNet has one: the shape and type of its input
        if op == "_random_randint":
            pytest.skip("randint has no _like form")
        data = np.zeros(shape, np.float32)
        ours = mo.invoke(op + "_like", [data], **params)
        theirs = getattr(mx.nd.random, op[len("_random_"):] + "_like")(
            mx.nd.array(data), **params).asnumpy()
    else:
        ours = mo.invoke(op, [], shape=str(shape), **params)
        theirs = getattr(mx.nd._internal, op)(shape=shape, **params).asnumpy()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    n = ours.size
    for draws in (ours, theirs):
        draws = draws.astype(np.float64)
        assert abs(draws.mean() - mean) < 5 * std / np.sqrt(n)
        assert abs(draws.std() - std) < 5 * std * np.sqrt(2.0 / n) * 2
    if op == "_random_randint":
        assert ours.min() >= -3 and ours.max() < 4 and set(np.unique(ours)) == set(range(-3, 4))


@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
def test_shuffle_permutes_rows_like_mxnet():
    x = np.arange(60, dtype=np.float32).reshape(20, 3)
    for out in (mo._shuffle(x), mx.nd._internal._shuffle(mx.nd.array(x)).asnumpy()):
        assert out.shape == x.shape and not np.array_equal(out, x)
        np.testing.assert_array_equal(out[np.argsort(out[:, 0])], x)  # whole rows, reordered


# _sample_unique_zipfian against MXNet's: the classes' frequencies of one draw a row, and the
# mean tries of rows of 50 distinct classes of 100, within five standard errors.
@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
def test_unique_zipfian_like_mxnet():
    ours = mo.invoke("_sample_unique_zipfian", [], range_max=20, shape="(20000, 1)")[0]
    theirs = mx.nd._internal._sample_unique_zipfian(range_max=20, shape=(20000, 1))[0].asnumpy()
    for v in (0, 1, 5, 19):
        p = (np.log(min(v + 1.5, 20)) - np.log(max(v + 0.5, 1))) / np.log(20)
        for draws in (ours, theirs):
            assert abs((draws == v).mean() - p) < 5 * np.sqrt(p * (1 - p) / draws.size), v
    tries = [mo.invoke("_sample_unique_zipfian", [], range_max=100, shape="(400, 50)")[1],
             mx.nd._internal._sample_unique_zipfian(range_max=100, shape=(400, 50))[1].asnumpy()]
    assert abs(tries[0].mean() - tries[1].mean()) < 5 * np.hypot(*[t.std() / 20 for t in tries])


# Each _sample_ operator against MXNet's: two distributions, 100000 draws from each; each
# row's mean and deviation within five standard errors of its distribution's, both sides.
@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
@pytest.mark.parametrize("op,parameters,means,stds", [
    ("_sample_uniform", [[-2, 10], [3, 10.5]], [0.5, 10.25], [5 / np.sqrt(12), 0.5 / np.sqrt(12)]),
    ("_sample_normal", [[1.5, -40], [2, 0.1]], [1.5, -40], [2, 0.1]),
    ("_sample_gamma", [[2.5, 0.5], [1.5, 2]], [3.75, 1], [np.sqrt(2.5) * 1.5, np.sqrt(0.5) * 2]),
    ("_sample_exponential", [[4, 0.5]], [0.25, 2], [0.25, 2]),
    ("_sample_poisson", [[4, 30]], [4, 30], [2, np.sqrt(30)]),
    ("_sample_negative_binomial", [[3, 2], [0.4, 0.8]], [4.5, 0.5],
     [np.sqrt(1.8) / 0.4, np.sqrt(0.4) / 0.8]),
    ("_sample_generalized_negative_binomial", [[2, 3], [0.5, 0]], [2, 3], [2, np.sqrt(3)]),
])
def test_multisample_like_mxnet(op, parameters, means, stds):
    arrays = [np.array(p, np.float32) for p in parameters]
    ours = mo.invoke(op, arrays, shape="(100000,)")
    theirs = getattr(mx.nd._internal, op)(*[mx.nd.array(a) for a in arrays],
                                          shape=(100000,)).asnumpy()
    assert ours.shape == theirs.shape == (2, 100000) and ours.dtype == theirs.dtype
    n = ours.shape[1]
    for draws in (ours, theirs):
        for row, mean, std in zip(draws.astype(np.float64), means, stds):
            assert abs(row.mean() - mean) < 5 * std / np.sqrt(n)
            assert abs(row.std() - std) < 5 * std * np.sqrt(2.0 / n) * 2


# _sample_multinomial against MXNet's: each row's category frequencies within five standard
# errors of its probabilities, both sides, and the log probabilities those of the draws.
@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_multinomial_like_mxnet(dtype):
    p = np.array([[0.1, 0.2, 0.3, 0.4, 0], [0, 0.5, 0, 0.25, 0.25]], np.float32)
    ours = mo.invoke("_sample_multinomial", [p], shape="(100000,)", get_prob=True, dtype=dtype)
    theirs = [t.asnumpy() for t in mx.nd.sample_multinomial(mx.nd.array(p), shape=(100000,),
                                                              get_prob=True, dtype=dtype)]
    for y, t in zip(ours, theirs):
        assert y.shape == t.shape == (2, 100000) and y.dtype == t.dtype
    n = 100000
    for drawn, log_p in (ours, theirs):
        for row, probabilities, logs in zip(drawn.astype(np.int64), p, log_p):
            frequencies = np.bincount(row, minlength=5) / n
            se = np.sqrt(probabilities * (1 - probabilities) / n)
            assert np.all(np.abs(frequencies - probabilities) <= 5 * se + 1e-9)
            np.testing.assert_allclose(logs, np.log(probabilities[row]), rtol=1e-6)


def test_out_and_req():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.ones((2, 3), np.float32)
    result = mo.relu(x - 2, out=out)
    assert result is out
    np.testing.assert_array_equal(out, np.maximum(x - 2, 0))
    mo.relu(x, out=out, req="add")
    np.testing.assert_array_equal(out, np.maximum(x - 2, 0) + x)
    with pytest.raises(mo.MShadowOpsError, match="unknown req 'sometimes'"):
        mo.relu(x, out=out, req="sometimes")


def test_repeated_calls_keep_parameters_shapes_and_types_apart():
    # Parsed attributes are kept per distinct parameters and inference per distinct inputs:
    # a call must never see another's.
    x = np.ones((2, 4), np.float32)
    for hidden in (3, 5, 3):
        w = np.ones((hidden, 4), np.float32)
        assert mo.FullyConnected(x, w, num_hidden=hidden, no_bias=True).shape == (2, hidden)
        # The same values given as another type are parsed the same.
        assert mo.FullyConnected(x, w, num_hidden=str(hidden), no_bias="True").shape == (2, hidden)
    for shape, dtype in [((2, 3), np.float32), ((5,), np.float32), ((2, 3), np.float64),
                         ((2, 3), np.float32)]:
        y = mo.relu(np.full(shape, -1, dtype))
        assert y.shape == shape and y.dtype == dtype and not y.any()
    np.testing.assert_array_equal(mo.sum(np.eye(3), axis=0), np.ones(3))
    np.testing.assert_array_equal(mo.sum(np.eye(3), axis=0, keepdims=True), np.ones((1, 3)))
    # A failed inference is not kept: the bad call fails each time, good calls still run.
    for _ in range(2):
        with pytest.raises(mo.MShadowOpsError, match="shape of input 'rhs'"):
            mo.elemwise_add(x, np.ones((4, 2), np.float32))
        assert mo.elemwise_add(x, x).sum() == 16
    # Given outputs are checked by the library, shape and type.
    with pytest.raises(mo.MShadowOpsError, match="shape of output 0 is \\(4,2\\) but"):
        mo.relu(x, out=np.ones((4, 2), np.float32))
    with pytest.raises(mo.MShadowOpsError, match="output 0"):
        mo.relu(x, out=np.ones((2, 4), np.float64))


def test_new_outputs_start_on_a_cache_line():
    # NumPy's own large arrays start 16 bytes into a line; the library streams only whole lines.
    x = np.ones((2, 3, 300, 300), np.float32)
    for y in (mo.relu(x), mo.Cast(x, dtype="float16"), mo.sum(x, axis=1)):
        assert y.ctypes.data % 64 == 0
    assert mo.zeros_like(np.ones((0, 5))).shape == (0, 5)
    np.testing.assert_array_equal(mo.sum(x, axis=(1, 2, 3)), np.full(2, 3 * 300 * 300))
    y = mo.relu(x - 2)
    assert y.flags.c_contiguous and y.flags.writeable and y.shape == x.shape
    np.testing.assert_array_equal(y, np.maximum(x - 2, 0))
    (dx,) = mo.grad("relu", [x], [np.ones_like(x)], req="add")  # added to new zeros
    assert dx.ctypes.data % 64 == 0
    np.testing.assert_array_equal(dx, np.ones_like(x))


def test_cast_to_and_from_bool_and_bfloat16():
    x = np.array([0, 1.5, -2, np.nan, -0.0], np.float32)
    flags = mo.Cast(x, dtype="bool")
    assert flags.dtype == np.bool_
    np.testing.assert_array_equal(flags, x.astype(bool))
    np.testing.assert_array_equal(mo.Cast(flags, dtype="float64"), x.astype(bool).astype(float))
    if mx is not None:
        np.testing.assert_array_equal(flags, mx.nd.Cast(mx.nd.array(x), dtype="bool").asnumpy())
    with pytest.raises(mo.MShadowOpsError, match="NumPy has no bfloat16"):
        mo.Cast(x, dtype="bfloat16")


@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
def test_softmax_dtype_and_float16_like_mxnet():
    x = np.random.default_rng(4).uniform(-3, 3, (5, 40))
    for data, dtype in (("float16", "float32"), ("float32", "float16"), ("float16", None),
                        ("float64", "float32")):
        for op in ("softmax", "log_softmax"):
            params = {} if dtype is None else {"dtype": dtype}
            ours = getattr(mo, op)(x.astype(data), **params)
            theirs = getattr(mx.nd, op)(mx.nd.array(x, dtype=data), **params).asnumpy()
            assert ours.dtype == theirs.dtype, (op, data, dtype)
            np.testing.assert_allclose(ours.astype(np.float64), theirs, rtol=2e-3, atol=2e-3,
                                       err_msg=f"{op} {data} -> {dtype}")


@pytest.mark.skipif(mx is None, reason="MXNet is not installed")
def test_histogram_of_given_edges_like_numpy_and_mxnet():
    x = np.random.default_rng(5).uniform(-1, 2, (7, 30)).astype(np.float32)
    edges = np.array([-0.5, 0, 0.25, 0.25, 1, 1.5], np.float32)  # an empty bin of one edge
    counts, returned = mo._histogram(x, edges)
    expected, _ = np.histogram(x, bins=edges)
    np.testing.assert_array_equal(counts, expected)
    np.testing.assert_array_equal(returned, edges)
    theirs = mx.nd._internal._histogram(mx.nd.array(x), mx.nd.array(edges))
    np.testing.assert_array_equal(counts, theirs[0].asnumpy())


def test_inputs_by_name_and_non_contiguous_arrays():
    x = np.random.default_rng(0).uniform(size=(3, 4))
    np.testing.assert_allclose(mo.exp(data=x.T), np.exp(x.T))  # a transposed view is copied


def test_errors_carry_the_library_message():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(mo.MShadowOpsError, match="shape of input 'rhs' is \\(3,2\\) but "
                                                 "\\(2,3\\) is required"):
        mo.elemwise_add(x, np.ones((3, 2), np.float32))
    with pytest.raises(mo.MShadowOpsError, match="Invalid parameter of operator softmax"):
        mo.softmax(x, axis="sideways")
    with pytest.raises(mo.MShadowOpsError, match="is not registered"):
        mo.operator_info("softmaxx")
    with pytest.raises(mo.MShadowOpsError, match="out= arrays must be C-contiguous"):
        mo.relu(x, out=np.ones((3, 2), np.float32).T)
    with pytest.raises(mo.MShadowOpsError, match="shape of output 0 is \\(3,\\) but"):
        mo.relu(x, out=np.ones(3, np.float32))


def test_grad_matches_central_differences():
    rng = np.random.default_rng(3)
    x, w = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (5, 4))
    head = rng.uniform(-1, 1, (3, 5))
    dx, dw = mo.grad("FullyConnected", [x, w], [head], num_hidden=5, no_bias=True)
    loss = lambda x_: float((mo.FullyConnected(x_, w, num_hidden=5, no_bias=True) * head).sum())
    eps = 1e-6
    for index in [(0, 0), (2, 3), (1, 2)]:
        bump = np.zeros_like(x)
        bump[index] = eps
        numeric = (loss(x + bump) - loss(x - bump)) / (2 * eps)
        assert abs(numeric - dx[index]) < 1e-6
    np.testing.assert_allclose(dw, head.T @ x, rtol=1e-12)
