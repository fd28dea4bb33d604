/* ops/c_api.h: the C ABI of the operator library (libmshadow_ops.so), for hosts in any
 * language. Modelled on MXNet's c_api.h and DLPack:
 *
 * - Every function returns 0 on success and -1 on failure; MXOpsGetLastError() then gives
 *   the message (the library's dmlc::Error text) for the calling thread. Nothing throws
 *   across this boundary; every handle and pointer argument is checked.
 * - Tensors are DLPack DLTensors (CPU; CUDA when the library is built with --config=cuda),
 *   row-major and compact. Element types are mshadow TypeFlags: 0 float32, 1 float64,
 *   2 float16, 3 uint8, 4 int32, 5 int8, 6 int64, 7 bool, 12 bfloat16 (the last two are
 *   taken by Cast only); -1 is "unknown" in type inference.
 * - Strings and arrays the library returns stay valid until the next call of the same
 *   function on the same thread (MXOpsListOperators: until the library is unloaded).
 *
 *   MXOpsAttrsHandle fc;
 *   const char* keys[] = {"num_hidden"};
 *   const char* values[] = {"16"};
 *   if (MXOpsCreateAttrs("FullyConnected", 1, keys, values, &fc) != 0) {
 *     fprintf(stderr, "%s\n", MXOpsGetLastError());
 *   }
 *   ... MXOpsInferShape(fc, ...); MXOpsInvoke(fc, 3, inputs, 1, outputs, NULL, 0, NULL, NULL, 0);
 *   MXOpsFreeAttrs(fc);
 */
#ifndef OPS_C_API_H_
#define OPS_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised when a function's signature or meaning changes. */
#define MXOPS_ABI_VERSION 1

/* Write modes (OpReqType): leave the output alone, overwrite it, overwrite it while it
 * shares memory with an input, add to it. */
#define MXOPS_REQ_NULL 0
#define MXOPS_REQ_WRITE 1
#define MXOPS_REQ_INPLACE 2
#define MXOPS_REQ_ADD 3

/* Parsed operator attributes: an operator and its keyword arguments. */
typedef struct MXOpsAttrs* MXOpsAttrsHandle;

/* The calling thread's message for the last failed call ("" if none failed). */
const char* MXOpsGetLastError(void);

/* MXOPS_ABI_VERSION of the library, and its version string. */
int MXOpsGetVersion(int* abi_version, const char** version);

/* Restarts the random numbers of operators that draw them (Dropout) under `seed`: the same
 * calls in the same order then give the same results, on any thread count. */
int MXOpsSetRandomSeed(uint64_t seed);

/* Every registered operator name and alias, sorted. */
int MXOpsListOperators(int* count, const char* const** names);

/* The operator's catalogue entry as JSON (the same as `opctl list --json` gives). */
int MXOpsGetOperatorInfo(const char* op_name, const char** json);

/* Parses keyword arguments for an operator; a bad value fails, naming it and what is valid.
 * Free the handle with MXOpsFreeAttrs. */
int MXOpsCreateAttrs(const char* op_name, int num_params, const char* const* keys,
                     const char* const* values, MXOpsAttrsHandle* out);
int MXOpsFreeAttrs(MXOpsAttrsHandle attrs);

/* The number of inputs and outputs the operator takes with these attributes, and the name
 * of each input ("data", "weight", ...). */
int MXOpsGetArity(MXOpsAttrsHandle attrs, int* num_inputs, int* num_outputs);
/* How many of the outputs (the first ones) a caller sees; the others (Dropout's mask, topk's
 * positions) feed the backward operator. Invoke takes every output all the same. */
int MXOpsGetNumVisibleOutputs(MXOpsAttrsHandle attrs, int* num_visible);
int MXOpsGetInputNames(MXOpsAttrsHandle attrs, int* num_inputs, const char* const** names);

/* Shape inference. Input i has in_ndims[i] axes, its extents consecutive in in_dims (all
 * inputs' extents concatenated); ndim 0 means unknown. Fills every input shape (e.g.
 * FullyConnected's weight) and the outputs', in the same layout. */
int MXOpsInferShape(MXOpsAttrsHandle attrs, int num_inputs, const int* in_ndims,
                    const int64_t* in_dims, const int** inferred_in_ndims,
                    const int64_t** inferred_in_dims, int* num_outputs, const int** out_ndims,
                    const int64_t** out_dims);

/* Type inference on TypeFlags (-1 unknown): fills every input and output type. */
int MXOpsInferType(MXOpsAttrsHandle attrs, int num_inputs, const int* in_types,
                   const int** inferred_in_types, int* num_outputs, const int** out_types);

/* Runs the operator's forward computation. Every tensor is checked against the operator's
 * shape and type inference, its device and its data pointer before anything reads it.
 * req: one MXOPS_REQ_* per output, or NULL for MXOPS_REQ_WRITE everywhere. stream: the CUDA
 * stream (a cudaStream_t) for CUDA tensors, NULL for the default stream; ignored on the CPU.
 * CUDA tensors need a library built with --config=cuda; the call returns once the work is
 * issued on the stream. workspace: the temporary memory operators that request it use
 * (64-byte aligned, on the tensors' device), or NULL to let the library allocate it (on the
 * GPU in stream order); one that is too small fails, naming the bytes needed. */
int MXOpsInvoke(MXOpsAttrsHandle attrs, int num_inputs, const DLTensor* inputs, int num_outputs,
                const DLTensor* outputs, const int* req, int is_train, void* stream,
                void* workspace, size_t workspace_size);

/* Runs the gradient (the backward operator FGradient names) of the forward call described
 * by `attrs`: out_grads has one tensor per forward output; inputs and outputs are the
 * forward call's (pass them even when the gradient does not read them); in_grads, one per
 * forward input, receive the gradients. req applies to in_grads as in MXOpsInvoke. */
int MXOpsInvokeBackward(MXOpsAttrsHandle attrs, int num_out_grads, const DLTensor* out_grads,
                        int num_inputs, const DLTensor* inputs, int num_outputs,
                        const DLTensor* outputs, int num_in_grads, const DLTensor* in_grads,
                        const int* req, void* stream, void* workspace, size_t workspace_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPS_C_API_H_ */
