/* The C ABI from plain C, linked against libmshadow_ops.so: every function, its results
 * and its error paths (each failure returns -1 with a message naming what was wrong). */
#include "ops/c_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                 \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

/* The call succeeds. */
#define OK(call)                                                                   \
  do {                                                                             \
    if ((call) != 0) {                                                             \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
              MXOpsGetLastError());                                                \
      ++failures;                                                                  \
    }                                                                              \
  } while (0)

/* The call fails with a message containing `text`. */
#define FAILS_WITH(call, text)                                                     \
  do {                                                                             \
    if ((call) != -1) {                                                            \
      fprintf(stderr, "%s:%d: %s did not fail\n", __FILE__, __LINE__, #call);      \
      ++failures;                                                                  \
    } else if (strstr(MXOpsGetLastError(), (text)) == NULL) {                      \
      fprintf(stderr, "%s:%d: %s failed with \"%s\", expected \"%s\"\n", __FILE__, \
              __LINE__, #call, MXOpsGetLastError(), (text));                       \
      ++failures;                                                                  \
    }                                                                              \
  } while (0)

/* A compact float32 CPU tensor over `data`. */
static DLTensor Tensor(float* data, int ndim, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static void TestVersionAndCatalogue(void) {
  int abi = 0;
  const char* version = NULL;
  OK(MXOpsGetVersion(&abi, &version));
  EXPECT(abi == MXOPS_ABI_VERSION);
  EXPECT(version != NULL && strlen(version) > 0);
  FAILS_WITH(MXOpsGetVersion(NULL, &version), "argument 'abi_version' is NULL");

  int count = 0;
  const char* const* names = NULL;
  OK(MXOpsListOperators(&count, &names));
  EXPECT(count > 40);
  int has_fc = 0;
  for (int i = 0; i < count; ++i) has_fc |= strcmp(names[i], "FullyConnected") == 0;
  EXPECT(has_fc);
  FAILS_WITH(MXOpsListOperators(NULL, &names), "argument 'count' is NULL");

  const char* json = NULL;
  OK(MXOpsGetOperatorInfo("FullyConnected", &json));
  EXPECT(strstr(json, "\"name\": \"FullyConnected\"") != NULL);
  EXPECT(strstr(json, "num_hidden") != NULL);
  FAILS_WITH(MXOpsGetOperatorInfo("FullyConected", &json), "Did you mean");
  FAILS_WITH(MXOpsGetOperatorInfo(NULL, &json), "argument 'op_name' is NULL");
}

static void TestAttrs(void) {
  MXOpsAttrsHandle attrs = NULL;
  const char* keys[] = {"num_hidden"};
  const char* bad[] = {"many"};
  FAILS_WITH(MXOpsCreateAttrs("FullyConnected", 1, keys, bad, &attrs), "num_hidden");
  EXPECT(attrs == NULL);
  FAILS_WITH(MXOpsCreateAttrs("FullyConnected", 0, NULL, NULL, &attrs), "num_hidden");
  FAILS_WITH(MXOpsCreateAttrs("NoSuchOp", 0, NULL, NULL, &attrs), "is not registered");
  FAILS_WITH(MXOpsCreateAttrs("relu", -1, NULL, NULL, &attrs), "num_params is -1");
  FAILS_WITH(MXOpsCreateAttrs("relu", 1, NULL, NULL, &attrs), "argument 'keys' is NULL");
  const char* null_value[] = {NULL};
  FAILS_WITH(MXOpsCreateAttrs("FullyConnected", 1, keys, null_value, &attrs),
             "parameter 0 has a NULL key or value");
  FAILS_WITH(MXOpsCreateAttrs("relu", 0, NULL, NULL, NULL), "argument 'out' is NULL");
  FAILS_WITH(MXOpsFreeAttrs(NULL), "argument 'attrs' is NULL");

  const char* concat_keys[] = {"num_args", "dim"};
  const char* concat_values[] = {"3", "0"};
  OK(MXOpsCreateAttrs("Concat", 2, concat_keys, concat_values, &attrs));
  int num_inputs = 0, num_outputs = 0;
  OK(MXOpsGetArity(attrs, &num_inputs, &num_outputs));
  EXPECT(num_inputs == 3 && num_outputs == 1);
  const char* const* input_names = NULL;
  OK(MXOpsGetInputNames(attrs, &num_inputs, &input_names));
  EXPECT(num_inputs == 3 && strcmp(input_names[0], "arg0") == 0);
  int num_visible = 0;
  OK(MXOpsGetNumVisibleOutputs(attrs, &num_visible));
  EXPECT(num_visible == 1);
  FAILS_WITH(MXOpsGetArity(NULL, &num_inputs, &num_outputs), "argument 'attrs' is NULL");
  FAILS_WITH(MXOpsGetNumVisibleOutputs(NULL, &num_visible), "argument 'attrs' is NULL");
  FAILS_WITH(MXOpsGetNumVisibleOutputs(attrs, NULL), "argument 'num_visible' is NULL");
  FAILS_WITH(MXOpsGetInputNames(attrs, NULL, &input_names), "argument 'num_inputs' is NULL");
  OK(MXOpsFreeAttrs(attrs));
}

/* FullyConnected num_hidden=3 on a (2,4) input: weight and bias shapes come from inference,
 * then forward and backward run against hand-computed values. */
static void TestFullyConnected(void) {
  MXOpsAttrsHandle fc = NULL;
  const char* keys[] = {"num_hidden"};
  const char* values[] = {"3"};
  OK(MXOpsCreateAttrs("FullyConnected", 1, keys, values, &fc));

  const int in_ndims[] = {2, 0, 0};
  const int64_t in_dims[] = {2, 4};
  const int *inferred_ndims = NULL, *out_ndims = NULL;
  const int64_t *inferred_dims = NULL, *out_dims = NULL;
  int num_outputs = 0;
  OK(MXOpsInferShape(fc, 3, in_ndims, in_dims, &inferred_ndims, &inferred_dims, &num_outputs,
                     &out_ndims, &out_dims));
  EXPECT(num_outputs == 1);
  EXPECT(inferred_ndims[1] == 2 && inferred_dims[2] == 3 && inferred_dims[3] == 4);  /* weight */
  EXPECT(inferred_ndims[2] == 1 && inferred_dims[4] == 3);                          /* bias */
  EXPECT(out_ndims[0] == 2 && out_dims[0] == 2 && out_dims[1] == 3);
  const int conflicting_ndims[] = {2, 2, 0};
  const int64_t conflicting_dims[] = {2, 4, 3, 5};
  FAILS_WITH(MXOpsInferShape(fc, 3, conflicting_ndims, conflicting_dims, &inferred_ndims,
                             &inferred_dims, &num_outputs, &out_ndims, &out_dims),
             "shape of input 'weight' is (3,5) but (3,4) is required");
  const int bad_ndim[] = {-1, 0, 0};
  FAILS_WITH(MXOpsInferShape(fc, 3, bad_ndim, in_dims, &inferred_ndims, &inferred_dims,
                             &num_outputs, &out_ndims, &out_dims),
             "has ndim -1");
  FAILS_WITH(MXOpsInferShape(fc, 3, NULL, in_dims, &inferred_ndims, &inferred_dims,
                             &num_outputs, &out_ndims, &out_dims),
             "argument 'in_ndims' is NULL");

  const int in_types[] = {0, -1, -1};
  const int *inferred_types = NULL, *out_types = NULL;
  OK(MXOpsInferType(fc, 3, in_types, &inferred_types, &num_outputs, &out_types));
  EXPECT(inferred_types[1] == 0 && inferred_types[2] == 0 && out_types[0] == 0);
  const int bad_types[] = {42, -1, -1};
  FAILS_WITH(MXOpsInferType(fc, 3, bad_types, &inferred_types, &num_outputs, &out_types), "42");
  FAILS_WITH(MXOpsInferType(fc, 3, in_types, NULL, &num_outputs, &out_types),
             "argument 'inferred_in_types' is NULL");

  float x[8], w[12], b[3], y[6];
  for (int i = 0; i < 8; ++i) x[i] = (float)(i + 1) / 8.0f;
  for (int i = 0; i < 12; ++i) w[i] = (float)(i % 5) - 2.0f;
  for (int i = 0; i < 3; ++i) b[i] = (float)i;
  int64_t x_shape[] = {2, 4}, w_shape[] = {3, 4}, b_shape[] = {3}, y_shape[] = {2, 3};
  DLTensor inputs[3] = {Tensor(x, 2, x_shape), Tensor(w, 2, w_shape), Tensor(b, 1, b_shape)};
  DLTensor outputs[1] = {Tensor(y, 2, y_shape)};
  OK(MXOpsInvoke(fc, 3, inputs, 1, outputs, NULL, 0, NULL, NULL, 0));
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      float expected = b[c];
      for (int k = 0; k < 4; ++k) expected += x[r * 4 + k] * w[c * 4 + k];
      EXPECT(fabsf(y[r * 3 + c] - expected) < 1e-5f);
    }
  }
  /* kAddTo doubles the result; an out-of-range request value is refused. */
  const int add[] = {MXOPS_REQ_ADD};
  float before = y[0];
  OK(MXOpsInvoke(fc, 3, inputs, 1, outputs, add, 0, NULL, NULL, 0));
  EXPECT(fabsf(y[0] - 2 * before) < 1e-5f);
  const int bad_req[] = {9};
  FAILS_WITH(MXOpsInvoke(fc, 3, inputs, 1, outputs, bad_req, 0, NULL, NULL, 0),
             "invalid OpReqType 9");

  /* Wrong blobs never reach the kernel. */
  int64_t short_shape[] = {2, 2};
  DLTensor wrong_output[1] = {Tensor(y, 2, short_shape)};
  FAILS_WITH(MXOpsInvoke(fc, 3, inputs, 1, wrong_output, NULL, 0, NULL, NULL, 0),
             "shape of output 0 is (2,2) but (2,3) is required");
  FAILS_WITH(MXOpsInvoke(fc, 2, inputs, 1, outputs, NULL, 0, NULL, NULL, 0),
             "takes 3 inputs (data, weight, bias), given 2");
  FAILS_WITH(MXOpsInvoke(fc, 3, NULL, 1, outputs, NULL, 0, NULL, NULL, 0),
             "argument 'inputs' is NULL");
  DLTensor null_data[3] = {Tensor(NULL, 2, x_shape), inputs[1], inputs[2]};
  FAILS_WITH(MXOpsInvoke(fc, 3, null_data, 1, outputs, NULL, 0, NULL, NULL, 0),
             "input 'data' has shape (2,4) but no data");
  DLTensor doubles[3] = {inputs[0], inputs[1], inputs[2]};
  doubles[0].dtype.bits = 64;
  FAILS_WITH(MXOpsInvoke(fc, 3, doubles, 1, outputs, NULL, 0, NULL, NULL, 0),
             "type of input 'weight' is float32 but float64 is required");
  DLTensor transposed[3] = {inputs[0], inputs[1], inputs[2]};
  int64_t column_strides[] = {1, 2};
  transposed[0].strides = column_strides;
  FAILS_WITH(MXOpsInvoke(fc, 3, transposed, 1, outputs, NULL, 0, NULL, NULL, 0), "inputs[0]");
  DLTensor on_gpu[3] = {inputs[0], inputs[1], inputs[2]};
  on_gpu[1].device.device_type = kDLCUDA;
  FAILS_WITH(MXOpsInvoke(fc, 3, on_gpu, 1, outputs, NULL, 0, NULL, NULL, 0),
             "input 'weight' is on gpu, the operator runs on cpu");

  /* Backward: with output gradients of ones, dbias = column sums = 2, dx = sum of w rows. */
  float dy[6] = {1, 1, 1, 1, 1, 1}, dx[8], dw[12], db[3];
  DLTensor out_grads[1] = {Tensor(dy, 2, y_shape)};
  DLTensor in_grads[3] = {Tensor(dx, 2, x_shape), Tensor(dw, 2, w_shape), Tensor(db, 1, b_shape)};
  OK(MXOpsInvokeBackward(fc, 1, out_grads, 3, inputs, 1, outputs, 3, in_grads, NULL, NULL,
                         NULL, 0));
  for (int c = 0; c < 3; ++c) EXPECT(fabsf(db[c] - 2.0f) < 1e-6f);
  for (int k = 0; k < 4; ++k) {
    const float expected = w[k] + w[4 + k] + w[8 + k];
    EXPECT(fabsf(dx[k] - expected) < 1e-5f && fabsf(dx[4 + k] - expected) < 1e-5f);
  }
  for (int c = 0; c < 3; ++c) {
    for (int k = 0; k < 4; ++k) EXPECT(fabsf(dw[c * 4 + k] - (x[k] + x[4 + k])) < 1e-5f);
  }
  FAILS_WITH(MXOpsInvokeBackward(fc, 1, out_grads, 3, inputs, 1, outputs, 2, in_grads, NULL,
                                 NULL, NULL, 0),
             "in_grads (one per forward input): given 2, expected 3");
  DLTensor wrong_grad[1] = {Tensor(dy, 2, short_shape)};
  FAILS_WITH(MXOpsInvokeBackward(fc, 1, wrong_grad, 3, inputs, 1, outputs, 3, in_grads, NULL,
                                 NULL, NULL, 0),
             "_backward_FullyConnected: shape of input 'out_grad0' is (2,2) but (2,3) is required");
  FAILS_WITH(MXOpsInvokeBackward(NULL, 1, out_grads, 3, inputs, 1, outputs, 3, in_grads, NULL,
                                 NULL, NULL, 0),
             "argument 'attrs' is NULL");
  OK(MXOpsFreeAttrs(fc));
}

/* softmax_cross_entropy requests temporary space: the library's own, or the host's. */
static void TestWorkspace(void) {
  MXOpsAttrsHandle xent = NULL;
  OK(MXOpsCreateAttrs("softmax_cross_entropy", 0, NULL, NULL, &xent));
  float data[6] = {0.1f, 0.2f, 0.7f, 1.0f, 0.0f, -1.0f}, label[2] = {2, 0}, loss[1];
  int64_t data_shape[] = {2, 3}, label_shape[] = {2}, loss_shape[] = {1};
  DLTensor inputs[2] = {Tensor(data, 2, data_shape), Tensor(label, 1, label_shape)};
  DLTensor outputs[1] = {Tensor(loss, 1, loss_shape)};
  OK(MXOpsInvoke(xent, 2, inputs, 1, outputs, NULL, 1, NULL, NULL, 0));
  double expected = 0;
  for (int r = 0; r < 2; ++r) {
    double sum = 0;
    for (int c = 0; c < 3; ++c) sum += exp(data[r * 3 + c]);
    expected -= log(exp(data[r * 3 + (int)label[r]]) / sum);
  }
  EXPECT(fabs(loss[0] - expected) < 1e-5);
  const float library_result = loss[0];
  void* workspace = aligned_alloc(64, 4096);
  OK(MXOpsInvoke(xent, 2, inputs, 1, outputs, NULL, 1, NULL, workspace, 4096));
  EXPECT(loss[0] == library_result);
  FAILS_WITH(MXOpsInvoke(xent, 2, inputs, 1, outputs, NULL, 1, NULL, workspace, 1),
             "bytes of workspace; the host gave 1");
  FAILS_WITH(MXOpsInvoke(xent, 2, inputs, 1, outputs, NULL, 1, NULL, (char*)workspace + 4, 64),
             "the workspace must be 64-byte aligned");
  free(workspace);
  OK(MXOpsFreeAttrs(xent));
}

static void TestNoGradient(void) {
  MXOpsAttrsHandle sgd = NULL;
  const char* keys[] = {"lr"};
  const char* values[] = {"0.1"};
  OK(MXOpsCreateAttrs("sgd_update", 1, keys, values, &sgd));
  float w[2] = {1, 2}, g[2] = {1, 1}, out[2], grads[4];
  int64_t shape[] = {2};
  DLTensor inputs[2] = {Tensor(w, 1, shape), Tensor(g, 1, shape)};
  DLTensor outputs[1] = {Tensor(out, 1, shape)};
  DLTensor in_grads[2] = {Tensor(grads, 1, shape), Tensor(grads + 2, 1, shape)};
  FAILS_WITH(MXOpsInvokeBackward(sgd, 1, outputs, 2, inputs, 1, outputs, 2, in_grads, NULL,
                                 NULL, NULL, 0),
             "sgd_update has no gradient");
  OK(MXOpsFreeAttrs(sgd));
}

/* Dropout in training on 64 elements: out (float) and mask (uint8, hidden). */
struct DropoutResult {
  float out[64];
  uint8_t mask[64];
};

static void RunDropout(MXOpsAttrsHandle dropout, float* x, struct DropoutResult* result) {
  int64_t shape[1] = {64};
  DLTensor inputs[1] = {Tensor(x, 1, shape)};
  DLTensor outputs[2] = {Tensor(result->out, 1, shape), Tensor(NULL, 1, shape)};
  outputs[1].data = result->mask;
  outputs[1].dtype.code = kDLUInt;
  outputs[1].dtype.bits = 8;
  OK(MXOpsInvoke(dropout, 1, inputs, 2, outputs, NULL, /*is_train=*/1, NULL, NULL, 0));
}

/* Dropout's masks repeat after MXOpsSetRandomSeed and differ between consecutive calls. */
static void TestRandomSeed(void) {
  MXOpsAttrsHandle dropout = NULL;
  const char* keys[1] = {"p"};
  const char* values[1] = {"0.5"};
  OK(MXOpsCreateAttrs("Dropout", 1, keys, values, &dropout));
  int num_inputs = 0, num_outputs = 0, num_visible = 0;
  OK(MXOpsGetArity(dropout, &num_inputs, &num_outputs));
  OK(MXOpsGetNumVisibleOutputs(dropout, &num_visible));
  EXPECT(num_outputs == 2 && num_visible == 1); /* the mask is hidden */
  float x[64];
  struct DropoutResult first, next, again;
  for (int i = 0; i < 64; ++i) x[i] = 1.0f + (float)i;
  OK(MXOpsSetRandomSeed(11));
  RunDropout(dropout, x, &first);
  RunDropout(dropout, x, &next);
  OK(MXOpsSetRandomSeed(11));
  RunDropout(dropout, x, &again);
  EXPECT(memcmp(&first, &again, sizeof(first)) == 0);
  EXPECT(memcmp(&first, &next, sizeof(first)) != 0);
  OK(MXOpsFreeAttrs(dropout));
}

int main(void) {
  TestVersionAndCatalogue();
  TestRandomSeed();
  TestAttrs();
  TestFullyConnected();
  TestWorkspace();
  TestNoGradient();
  /* A successful call leaves the last error of an earlier failure in place (as MXNet). */
  if (failures == 0) printf("c_api_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
