"""ctypes declarations of the C ABI (ops/c_api.h) and DLPack, and the loaded library."""
import ctypes
import os

ABI_VERSION = 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))),
]

KDLCPU, KDLCUDA = 1, 2


def _library_path():
    """$MSHADOW_OPS_LIBRARY, the copy beside the package, or the Bazel build's."""
    if os.environ.get("MSHADOW_OPS_LIBRARY"):
        return os.environ["MSHADOW_OPS_LIBRARY"]
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        os.path.join(here, "libmshadow_ops.so"),
        os.path.join(here, "..", "..", "bazel-bin", "ops", "libmshadow_ops.so"),
    ]
    for path in candidates:
        if os.path.exists(path):
            return path
    raise OSError("libmshadow_ops.so not found: build it with "
                  "`./tools/bazel build //ops:libmshadow_ops.so` or set MSHADOW_OPS_LIBRARY "
                  "(looked in: " + ", ".join(os.path.normpath(p) for p in candidates) + ")")


def _declare(lib):
    c_int_p = ctypes.POINTER(ctypes.c_int)
    c_int64_p = ctypes.POINTER(ctypes.c_int64)
    c_char_pp = ctypes.POINTER(ctypes.c_char_p)
    handle = ctypes.c_void_p
    signatures = {
        "MXOpsGetLastError": (ctypes.c_char_p, []),
        "MXOpsGetVersion": (ctypes.c_int, [c_int_p, c_char_pp]),
        "MXOpsSetRandomSeed": (ctypes.c_int, [ctypes.c_uint64]),
        "MXOpsListOperators": (ctypes.c_int, [c_int_p, ctypes.POINTER(c_char_pp)]),
        "MXOpsGetOperatorInfo": (ctypes.c_int, [ctypes.c_char_p, c_char_pp]),
        "MXOpsCreateAttrs": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, c_char_pp, c_char_pp,
                                            ctypes.POINTER(handle)]),
        "MXOpsFreeAttrs": (ctypes.c_int, [handle]),
        "MXOpsGetArity": (ctypes.c_int, [handle, c_int_p, c_int_p]),
        "MXOpsGetNumVisibleOutputs": (ctypes.c_int, [handle, c_int_p]),
        "MXOpsGetInputNames": (ctypes.c_int, [handle, c_int_p, ctypes.POINTER(c_char_pp)]),
        "MXOpsInferShape": (ctypes.c_int, [handle, ctypes.c_int, c_int_p, c_int64_p,
                                           ctypes.POINTER(c_int_p), ctypes.POINTER(c_int64_p),
                                           c_int_p, ctypes.POINTER(c_int_p),
                                           ctypes.POINTER(c_int64_p)]),
        "MXOpsInferType": (ctypes.c_int, [handle, ctypes.c_int, c_int_p, ctypes.POINTER(c_int_p),
                                          c_int_p, ctypes.POINTER(c_int_p)]),
        "MXOpsInvoke": (ctypes.c_int, [handle, ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.c_int,
                                       ctypes.POINTER(DLTensor), c_int_p, ctypes.c_int,
                                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
        "MXOpsInvokeBackward": (ctypes.c_int, [handle, ctypes.c_int, ctypes.POINTER(DLTensor),
                                               ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.c_int,
                                               ctypes.POINTER(DLTensor), ctypes.c_int,
                                               ctypes.POINTER(DLTensor), c_int_p, ctypes.c_void_p,
                                               ctypes.c_void_p, ctypes.c_size_t]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


LIB = _declare(ctypes.CDLL(_library_path()))

# MXOpsInvoke once more without declared arguments, for the package's per-call path: ctypes
# converting ten declared arguments took twice as long as the call undeclared
# (docs/benchmarks.md, eighty-first session). Its caller passes each argument as its C type
# (ints as Python ints, which ctypes passes as C ints; pointers as ctypes objects or None; the
# workspace size as a c_size_t).
INVOKE_UNDECLARED = LIB["MXOpsInvoke"]  # a function object of its own
INVOKE_UNDECLARED.restype = ctypes.c_int
NO_WORKSPACE_BYTES = ctypes.c_size_t(0)
