"""mshadow_ops: the operator library from Python, over its C ABI (libmshadow_ops.so).

One function per registered operator, with MXNet's names and keyword parameters; arrays go
in and out through DLPack (NumPy zero-copy on the CPU; any object with ``__dlpack__``):

    >>> import numpy as np, mshadow_ops as mo
    >>> x = np.ones((4, 8), np.float32)
    >>> w = np.ones((16, 8), np.float32); b = np.zeros(16, np.float32)
    >>> mo.FullyConnected(x, w, b, num_hidden=16).shape
    (4, 16)
    >>> dx, dw, db = mo.grad("FullyConnected", [x, w, b], [np.ones((4, 16), np.float32)],
    ...                      num_hidden=16)

Errors from the library are ``MShadowOpsError`` with the library's message.
"""
import builtins
import ctypes
import functools
import json
import math

from . import _capi
from ._capi import LIB

__all__ = ["MShadowOpsError", "abi_version", "version", "list_operators", "operator_info",
           "invoke", "grad", "seed"]


class MShadowOpsError(RuntimeError):
    """An operator call or lookup failed; the message is the library's."""


def _check(status):
    if status != 0:
        raise MShadowOpsError(LIB.MXOpsGetLastError().decode())


def _versions():
    abi, text = ctypes.c_int(), ctypes.c_char_p()
    _check(LIB.MXOpsGetVersion(ctypes.byref(abi), ctypes.byref(text)))
    return abi.value, text.value.decode()


abi_version, version = _versions()
if abi_version != _capi.ABI_VERSION:
    raise ImportError(f"libmshadow_ops.so has ABI version {abi_version}; this package needs "
                      f"{_capi.ABI_VERSION}")


def list_operators():
    """Every registered operator name and alias, sorted."""
    count, names = ctypes.c_int(), ctypes.POINTER(ctypes.c_char_p)()
    _check(LIB.MXOpsListOperators(ctypes.byref(count), ctypes.byref(names)))
    return [names[i].decode() for i in range(count.value)]


def operator_info(name):
    """The operator's catalogue entry (name, description, inputs, params, backward)."""
    text = ctypes.c_char_p()
    _check(LIB.MXOpsGetOperatorInfo(name.encode(), ctypes.byref(text)))
    return json.loads(text.value.decode())


def seed(value):
    """Restarts the random numbers of operators that draw them (Dropout), as
    mxnet.random.seed: the same calls then give the same results."""
    _check(LIB.MXOpsSetRandomSeed(int(value)))


def _param_text(value):
    """Python values as the library's parameter strings: True, (2,3), None, 0.5."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)


# Inference results an _Attrs keeps (for as many distinct input shapes and types), and
# parsed _Attrs kept (for as many distinct operator calls): parsing and inferring again on
# every call had made a small call's Python work many times the library's own checks and
# compute (docs/benchmarks.md, eighty-first session).
_INFERENCES_KEPT = 64
_ATTRS_KEPT = 256


class _Attrs:
    """Parsed attributes (an MXOpsAttrsHandle, which the library only reads), freed with the
    object; _attrs keeps them for calls with the same parameters."""

    def __init__(self, op_name, params):
        keys = [k.encode() for k in params]
        values = [_param_text(v).encode() for v in params.values()]
        self.handle = ctypes.c_void_p()
        _check(LIB.MXOpsCreateAttrs(op_name.encode(), len(keys),
                                    (ctypes.c_char_p * len(keys))(*keys),
                                    (ctypes.c_char_p * len(values))(*values),
                                    ctypes.byref(self.handle)))
        self._inferred = {}
        self._visible = None

    def __del__(self):
        if getattr(self, "handle", None):
            LIB.MXOpsFreeAttrs(self.handle)

    def num_visible_outputs(self):
        """Outputs a caller sees; the rest, like Dropout's mask, feed the gradient."""
        if self._visible is None:
            count = ctypes.c_int()
            _check(LIB.MXOpsGetNumVisibleOutputs(self.handle, ctypes.byref(count)))
            self._visible = count.value
        return self._visible

    def infer(self, shapes, types):
        """Output shapes and TypeFlags from the inputs' (tuples), kept for the next call with
        the same inputs' (failures are not kept: each call raises its error)."""
        key = (tuple(shapes), tuple(types))
        inferred = self._inferred.get(key)
        if inferred is None:
            inferred = self._infer(shapes, types)
            if len(self._inferred) >= _INFERENCES_KEPT:
                self._inferred.clear()
            self._inferred[key] = inferred
        return inferred

    def _infer(self, shapes, types):
        n = len(shapes)
        ndims = (ctypes.c_int * n)(*[len(s) for s in shapes])
        flat = [d for s in shapes for d in s]
        dims = (ctypes.c_int64 * builtins.max(len(flat), 1))(*flat)
        in_ndims, in_dims = ctypes.POINTER(ctypes.c_int)(), ctypes.POINTER(ctypes.c_int64)()
        num_out = ctypes.c_int()
        out_ndims, out_dims = ctypes.POINTER(ctypes.c_int)(), ctypes.POINTER(ctypes.c_int64)()
        _check(LIB.MXOpsInferShape(self.handle, n, ndims, dims, ctypes.byref(in_ndims),
                                   ctypes.byref(in_dims), ctypes.byref(num_out),
                                   ctypes.byref(out_ndims), ctypes.byref(out_dims)))
        out_shapes, at = [], 0
        for i in range(num_out.value):
            out_shapes.append(tuple(out_dims[at + k] for k in range(out_ndims[i])))
            at += out_ndims[i]
        in_types = (ctypes.c_int * n)(*types)
        inferred, out_types = ctypes.POINTER(ctypes.c_int)(), ctypes.POINTER(ctypes.c_int)()
        _check(LIB.MXOpsInferType(self.handle, n, in_types, ctypes.byref(inferred),
                                  ctypes.byref(num_out), ctypes.byref(out_types)))
        return tuple(out_shapes), tuple(out_types[i] for i in range(num_out.value))


@functools.lru_cache(maxsize=_ATTRS_KEPT)
def _parsed_attrs(op_name, params):
    return _Attrs(op_name, dict(params))


def _attrs(op_name, params):
    """op_name's attributes for keyword `params`: parsed once for each distinct set of
    parameter strings."""
    return _parsed_attrs(op_name, tuple((k, _param_text(v)) for k, v in params.items()))


# TypeFlags (mshadow/type_flag.h) and DLPack (code, bits).
_FLAG_NAMES = {0: "float32", 1: "float64", 2: "float16", 3: "uint8", 4: "int32", 5: "int8",
               6: "int64", 7: "bool", 12: "bfloat16"}
_DLPACK_BOOL = 6  # DLPack 0.8's kDLBool
_DLPACK_FLAGS = {(2, 32): 0, (2, 64): 1, (2, 16): 2, (1, 8): 3, (0, 32): 4, (0, 8): 5,
                 (0, 64): 6, (_DLPACK_BOOL, 8): 7, (4, 16): 12}
_REQ = {"null": 0, "write": 1, "inplace": 2, "add": 3}


class _Tensor:
    """A DLPack view of an array, kept alive with the array for the length of a call."""

    _get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    _get_pointer.restype = ctypes.c_void_p
    _get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

    def __init__(self, array, writable=False):
        array = _as_dlpack_array(array, writable)
        self.array = array
        # NumPy before 1.25 exports no bool arrays: their bytes go as uint8, marked bool.
        numpy_bool = type(array).__module__ == "numpy" and array.dtype.kind == "b"
        self.capsule = (array.view("uint8") if numpy_bool else array).__dlpack__()
        managed = _capi.DLManagedTensor.from_address(self._get_pointer(self.capsule, b"dltensor"))
        self.dl = dl = managed.dl_tensor  # inside the capsule's memory, which self keeps alive
        dl_type = dl.dtype
        if numpy_bool:
            dl_type.code = _DLPACK_BOOL
        self.type_flag = _DLPACK_FLAGS.get((dl_type.code, dl_type.bits))
        if self.type_flag is None or dl_type.lanes != 1:
            raise MShadowOpsError(f"unsupported element type {array.dtype}; valid: "
                                  + ", ".join(_FLAG_NAMES.values()))
        self.shape = tuple(dl.shape[:dl.ndim])


@functools.lru_cache(maxsize=None)
def _numpy():
    """NumPy, imported on first use (the catalogue functions need none)."""
    import numpy
    return numpy


def _is_torch(array):
    return type(array).__module__.startswith("torch")


def _as_dlpack_array(array, writable):
    """Arrays pass as they are when compact; anything else becomes a NumPy array."""
    if _is_torch(array):
        if not array.is_contiguous():
            if writable:
                raise MShadowOpsError("out= tensors must be contiguous")
            array = array.contiguous()
        return array
    np = _numpy()
    if isinstance(array, np.ndarray):
        if writable:
            if not (array.flags.c_contiguous and array.flags.writeable):
                raise MShadowOpsError("out= arrays must be C-contiguous and writeable")
            return array
        # NumPy exports only writeable arrays through DLPack.
        if array.flags.c_contiguous and array.flags.writeable:
            return array
        return np.array(array, order="C", copy=True)
    if hasattr(array, "__dlpack__"):
        return array
    return np.array(array, order="C", copy=True)


def _new_like_framework(like, shape, type_flag, zeros=False):
    """An output allocated by the framework of the first input (NumPy by default); zeroed
    when it will be accumulated into."""
    if like is not None and _is_torch(like.array):
        import torch
        new = torch.zeros if zeros else torch.empty
        return new(shape, dtype=getattr(torch, _FLAG_NAMES[type_flag]), device=like.array.device)
    np = _numpy()
    if _FLAG_NAMES.get(type_flag) == "bfloat16":
        raise MShadowOpsError("NumPy has no bfloat16: pass a bfloat16 torch tensor as out=, "
                              "or torch inputs")
    return _aligned_numpy(shape, np.dtype(_FLAG_NAMES[type_flag]), zeros)


# The alignment of the outputs the package allocates from _ALIGNED_FROM_BYTES on: a cache
# line. NumPy's own allocations start 16 bytes into one, and the library's kernels write
# large outputs by streaming stores of whole aligned lines only, which a NumPy output kept
# most of them from (docs/benchmarks.md, seventy-ninth session). Smaller outputs are NumPy's
# own: the aligned view took longer than a small call's work (eighty-first session).
_ALIGNMENT = 64
_ALIGNED_FROM_BYTES = 64 * 1024


def _aligned_numpy(shape, dtype, zeros):
    """A C-contiguous NumPy array of `shape`, zeroed where `zeros`; from _ALIGNED_FROM_BYTES
    on, starting on an _ALIGNMENT boundary (a view of a slightly larger buffer)."""
    np = _numpy()
    make = np.zeros if zeros else np.empty
    size = math.prod(shape) * dtype.itemsize
    if size < _ALIGNED_FROM_BYTES:
        return make(shape, dtype)
    buffer = make(size + _ALIGNMENT, dtype=np.uint8)
    start = -buffer.ctypes.data % _ALIGNMENT
    return buffer[start:start + size].view(dtype).reshape(shape)


def _dl_array(tensors):
    """The tensors' DLTensors as the C array the library takes: one is passed in place."""
    if len(tensors) == 1:
        return ctypes.byref(tensors[0].dl)
    return (_capi.DLTensor * builtins.max(len(tensors), 1))(*[t.dl for t in tensors])


def _requests(req, count):
    if isinstance(req, str):
        return _uniform_requests(req, count)
    return _request_array(list(req), count)


@functools.lru_cache(maxsize=64)
def _uniform_requests(req, count):
    """The same request for every output: one array for every call (the library only reads
    it)."""
    return _request_array([req] * count, count)


def _request_array(names, count):
    try:
        return (ctypes.c_int * builtins.max(count, 1))(*[_REQ[r] for r in names])
    except KeyError as e:
        raise MShadowOpsError(f"unknown req {e.args[0]!r}; valid: {', '.join(_REQ)}") from None


def _new_outputs(like, shapes, types):
    return [_new_like_framework(like, s, t) for s, t in zip(shapes, types)]


def _cuda_stream(tensors):
    """PyTorch's current stream on the device of the first CUDA tensor (work issued there is
    ordered with the caller's); None (the default stream, or the CPU) otherwise. CUDA tensors
    need a library built with --config=cuda."""
    for t in tensors:
        if t.dl.device.device_type == _capi.KDLCUDA and _is_torch(t.array):
            import torch
            return ctypes.c_void_p(torch.cuda.current_stream(t.array.device).cuda_stream)
    return None


def invoke(op_name, inputs, out=None, req="write", is_train=False, **params):
    """Runs operator `op_name` on `inputs` with keyword `params`; returns its output (or a
    tuple of outputs; hidden ones, like Dropout's mask, only when given in `out`). `out`:
    arrays to write instead of new ones; `req`: "write", "add",
    "null" or "inplace", one string or one per output."""
    attrs = _attrs(op_name, params)
    tensors = [_Tensor(x) for x in inputs]
    if out is None:
        shapes, types = attrs.infer([t.shape for t in tensors], [t.type_flag for t in tensors])
        outputs = _new_outputs(tensors[0] if tensors else None, shapes, types)
    else:  # MXOpsInvoke checks given outputs against inference itself
        outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    out_tensors = [_Tensor(y, writable=True) for y in outputs]
    _check(_capi.INVOKE_UNDECLARED(attrs.handle, len(tensors), _dl_array(tensors),
                                   len(out_tensors), _dl_array(out_tensors),
                                   _requests(req, len(out_tensors)), int(bool(is_train)),
                                   _cuda_stream(tensors + out_tensors), None,
                                   _capi.NO_WORKSPACE_BYTES))
    if out is None:
        outputs = outputs[:attrs.num_visible_outputs()]
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def grad(op_name, inputs, head_grads, req="write", **params):
    """The gradients of every input of `op_name(*inputs, **params)` given the gradients of
    its outputs (`head_grads`, one per output), through the operator's FGradient."""
    attrs = _attrs(op_name, params)
    tensors = [_Tensor(x) for x in inputs]
    shapes, types = attrs.infer([t.shape for t in tensors], [t.type_flag for t in tensors])
    outputs = [_Tensor(y, writable=True) for y in _new_outputs(tensors[0], shapes, types)]
    forward_req = _requests("write", len(outputs))
    stream = _cuda_stream(tensors)
    _check(LIB.MXOpsInvoke(attrs.handle, len(tensors), _dl_array(tensors), len(outputs),
                           _dl_array(outputs), forward_req, 1, stream, None, 0))
    # Hidden outputs (Dropout's mask) take no gradient from the caller: zeros.
    head_grads = list(head_grads) + [_new_like_framework(t, t.shape, t.type_flag, zeros=True)
                                     for t in outputs[len(head_grads):]]
    heads = [_Tensor(g) for g in head_grads]
    grads = [_new_like_framework(t, t.shape, t.type_flag, zeros=req != "write") for t in tensors]
    grad_tensors = [_Tensor(g, writable=True) for g in grads]
    _check(LIB.MXOpsInvokeBackward(attrs.handle, len(heads), _dl_array(heads), len(tensors),
                                   _dl_array(tensors), len(outputs), _dl_array(outputs),
                                   len(grad_tensors), _dl_array(grad_tensors),
                                   _requests(req, len(grad_tensors)), stream, None, 0))
    return grads


def _make_function(entry):
    name, input_names = entry["name"], entry["inputs"]
    param_names = {p["name"] for p in entry["params"]}

    def function(*args, out=None, req="write", is_train=False, **kwargs):
        inputs = list(args) + [kwargs.pop(n) for n in input_names if n in kwargs]
        if "num_args" in param_names and "num_args" not in kwargs:
            kwargs["num_args"] = len(inputs)  # as MXNet fills it for Concat(*arrays)
        return invoke(name, inputs, out=out, req=req, is_train=is_train, **kwargs)

    params_doc = "\n".join(f"    {p['name']} : {p['type_info_str']}\n        {p['description']}"
                           for p in entry["params"])
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"{entry['description']}\n\nInputs: {', '.join(input_names) or 'data'}"
                        f"\n\nParameters\n----------\n{params_doc or '    (none)'}\n")
    return function


def _define_operators():
    # Operators named like builtins (max, min, abs, sum) become module attributes; the code
    # above calls builtins explicitly.
    for name in list_operators():
        entry = operator_info(name)
        if entry["is_backward"]:
            continue
        function = _make_function(entry)
        globals()[name] = function
        if entry["name"] == name:
            __all__.append(name)


_define_operators()
