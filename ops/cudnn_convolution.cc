#include "ops/cudnn_convolution.h"

#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/base.h"

namespace ops {
namespace cudnn {

// A convolution as cuDNN is asked for it: (batch, channels, spatial...) data, 2 or 3 spatial
// axes (1-d convolutions become 2-d ones of height 1), float32 or float64.
struct ConvolutionShape {
  int spatial = 0;
  int type_flag = 0;
  int batch = 0, channels = 0, filters = 0, groups = 0;
  int in[3] = {}, out[3] = {}, kernel[3] = {}, stride[3] = {}, dilate[3] = {}, pad[3] = {};
};

namespace {

[[noreturn]] void ThrowCudnnError(cudnnStatus_t status, const char* call) {
  throw dmlc::Error(std::string(call) + ": " + cudnnGetErrorString(status));
}

#define OPS_CUDNN_CALL(call)                        \
  do {                                              \
    const cudnnStatus_t ops_cudnn_status = (call);  \
    if (ops_cudnn_status != CUDNN_STATUS_SUCCESS) { \
      ThrowCudnnError(ops_cudnn_status, #call);     \
    }                                               \
  } while (0)

// This thread's cuDNN handle for the current device, set to `stream`. Handles are costly to
// make and must not be used by two threads at once, so each thread keeps its own.
cudnnHandle_t HandleFor(mshadow::Stream<mshadow::gpu>* stream) {
  struct ThreadHandles {
    std::unordered_map<int, cudnnHandle_t> by_device;
    ~ThreadHandles() {
      for (auto& entry : by_device) cudnnDestroy(entry.second);  // no throwing at thread exit
    }
  };
  thread_local ThreadHandles handles;
  int device = 0;
  MSHADOW_CUDA_CALL(cudaGetDevice(&device));
  cudnnHandle_t& handle = handles.by_device[device];
  if (handle == nullptr) OPS_CUDNN_CALL(cudnnCreate(&handle));
  OPS_CUDNN_CALL(cudnnSetStream(handle, mshadow::Stream<mshadow::gpu>::GetStream(stream)));
  return handle;
}

cudnnDataType_t DataType(int type_flag) {
  return type_flag == mshadow::kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

// Packed (batch/filters, channels, spatial...) extents and their strides.
void SetTensor(cudnnTensorDescriptor_t desc, cudnnDataType_t type, int spatial, int outer,
               int channels, const int* extents) {
  int dims[5] = {outer, channels, 1, 1, 1};
  for (int a = 0; a < spatial; ++a) dims[2 + a] = extents[a];
  int strides[5];
  strides[spatial + 1] = 1;
  for (int d = spatial; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  OPS_CUDNN_CALL(cudnnSetTensorNdDescriptor(desc, type, spatial + 2, dims, strides));
}

// The heuristics' first algorithm (of type Algo) whose workspace, asked again under the
// descriptor's math type, is within `limit`; false if none.
template <typename Perf, typename Algo, typename Query, typename Size>
bool ChooseAlgorithm(int count, Query query, Size workspace_of, size_t limit, Algo* algo,
                     size_t* workspace) {
  std::vector<Perf> perf(count);
  int returned = 0;
  query(count, &returned, perf.data());
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    size_t bytes = 0;
    if (workspace_of(perf[i].algo, &bytes) != CUDNN_STATUS_SUCCESS || bytes > limit) continue;
    *algo = perf[i].algo;
    *workspace = bytes;
    return true;
  }
  return false;
}

// The shape of a convolution of geometry `g`; false where cuDNN's 32-bit extents or element
// counts cannot hold it.
bool ShapeOf(const ConvGeometry& g, index_t batch, index_t filters, index_t groups, int type_flag,
             ConvolutionShape* shape) {
  auto fits = [](index_t v) { return v >= 0 && v <= INT_MAX; };
  // cuDNN's legacy API counts each tensor's elements in 32 bits.
  if (!fits(batch * g.channels * g.InSize()) || !fits(batch * filters * g.OutSize()) ||
      !fits(filters * g.ColRows())) {
    return false;
  }
  ConvolutionShape s;
  const int offset = g.ndim == 1 ? 1 : 0;  // a 1-d convolution as a 2-d one of height 1
  s.spatial = g.ndim + offset;
  s.type_flag = type_flag;
  s.batch = static_cast<int>(batch);
  s.channels = static_cast<int>(g.channels);
  s.filters = static_cast<int>(filters);
  s.groups = static_cast<int>(groups);
  for (int a = 0; a < s.spatial; ++a) {
    s.in[a] = s.out[a] = s.kernel[a] = s.stride[a] = s.dilate[a] = 1;
    s.pad[a] = 0;
  }
  for (int a = 0; a < g.ndim; ++a) {
    const index_t* values[] = {g.in, g.out, g.kernel, g.stride, g.dilate, g.pad};
    int* fields[] = {s.in, s.out, s.kernel, s.stride, s.dilate, s.pad};
    for (int f = 0; f < 6; ++f) {
      if (!fits(values[f][a])) return false;
      fields[f][a + offset] = static_cast<int>(values[f][a]);
    }
  }
  *shape = s;
  return true;
}

}  // namespace

// cuDNN's descriptors of one convolution and the algorithm (and workspace) of each product;
// read-only once chosen.
class ConvolutionPlan {
 public:
  explicit ConvolutionPlan(const ConvolutionShape& shape) : shape_(shape) {
    OPS_CUDNN_CALL(cudnnCreateTensorDescriptor(&x_));
    OPS_CUDNN_CALL(cudnnCreateTensorDescriptor(&y_));
    OPS_CUDNN_CALL(cudnnCreateTensorDescriptor(&bias_));
    OPS_CUDNN_CALL(cudnnCreateFilterDescriptor(&w_));
    OPS_CUDNN_CALL(cudnnCreateConvolutionDescriptor(&conv_));
    const cudnnDataType_t type = DataType(shape.type_flag);
    const int s = shape.spatial;
    SetTensor(x_, type, s, shape.batch, shape.channels, shape.in);
    SetTensor(y_, type, s, shape.batch, shape.filters, shape.out);
    const int ones[3] = {1, 1, 1};
    SetTensor(bias_, type, s, 1, shape.filters, ones);
    int filter_dims[5] = {shape.filters, shape.channels / shape.groups, 1, 1, 1};
    for (int a = 0; a < s; ++a) filter_dims[2 + a] = shape.kernel[a];
    OPS_CUDNN_CALL(cudnnSetFilterNdDescriptor(w_, type, CUDNN_TENSOR_NCHW, s + 2, filter_dims));
    OPS_CUDNN_CALL(cudnnSetConvolutionNdDescriptor(conv_, s, shape.pad, shape.stride, shape.dilate,
                                                   CUDNN_CROSS_CORRELATION, type));
    OPS_CUDNN_CALL(cudnnSetConvolutionGroupCount(conv_, shape.groups));
    // float32 stays float32: TF32 tensor cores would round the inputs to 10-bit mantissas.
    OPS_CUDNN_CALL(cudnnSetConvolutionMathType(conv_, CUDNN_FMA_MATH));
    int out_dims[5];
    OPS_CUDNN_CALL(cudnnGetConvolutionNdForwardOutputDim(conv_, x_, w_, s + 2, out_dims));
    for (int a = 0; a < s; ++a) {
      CHECK_EQ(out_dims[2 + a], shape.out[a]) << "cuDNN's output extent on spatial axis " << a;
    }
  }
  ConvolutionPlan(const ConvolutionPlan&) = delete;
  ConvolutionPlan& operator=(const ConvolutionPlan&) = delete;
  ~ConvolutionPlan() {
    cudnnDestroyConvolutionDescriptor(conv_);
    cudnnDestroyFilterDescriptor(w_);
    cudnnDestroyTensorDescriptor(bias_);
    cudnnDestroyTensorDescriptor(y_);
    cudnnDestroyTensorDescriptor(x_);
  }

  // Picks the three algorithms; false if one product has none within `limit` bytes.
  bool ChooseAlgorithms(cudnnHandle_t handle, size_t limit) {
    return ChooseAlgorithm<cudnnConvolutionFwdAlgoPerf_t>(
               CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
               [&](int count, int* returned, cudnnConvolutionFwdAlgoPerf_t* perf) {
                 OPS_CUDNN_CALL(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_, w_, conv_, y_,
                                                                       count, returned, perf));
               },
               [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
                 return cudnnGetConvolutionForwardWorkspaceSize(handle, x_, w_, conv_, y_, algo,
                                                                bytes);
               },
               limit, &forward_, &forward_workspace_) &&
           ChooseAlgorithm<cudnnConvolutionBwdDataAlgoPerf_t>(
               CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
               [&](int count, int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
                 OPS_CUDNN_CALL(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                     handle, w_, y_, conv_, x_, count, returned, perf));
               },
               [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
                 return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w_, y_, conv_, x_,
                                                                     algo, bytes);
               },
               limit, &backward_data_, &backward_data_workspace_) &&
           ChooseAlgorithm<cudnnConvolutionBwdFilterAlgoPerf_t>(
               CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
               [&](int count, int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
                 OPS_CUDNN_CALL(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                     handle, x_, y_, conv_, w_, count, returned, perf));
               },
               [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
                 return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x_, y_, conv_, w_,
                                                                       algo, bytes);
               },
               limit, &backward_filter_, &backward_filter_workspace_);
  }

  // alpha and beta in the type cuDNN reads them as: double for float64 data, else float.
  struct Scale {
    double d[2];
    float f[2];
    bool is_double;
    const void* alpha() const { return is_double ? static_cast<const void*>(&d[0]) : &f[0]; }
    const void* beta() const { return is_double ? static_cast<const void*>(&d[1]) : &f[1]; }
  };
  Scale ScaleFor(bool accumulate) const {
    const double beta = accumulate ? 1 : 0;
    return {{1, beta}, {1, static_cast<float>(beta)}, shape_.type_flag == mshadow::kFloat64};
  }

  const ConvolutionShape shape_;
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr, bias_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  cudnnConvolutionFwdAlgo_t forward_{};
  cudnnConvolutionBwdDataAlgo_t backward_data_{};
  cudnnConvolutionBwdFilterAlgo_t backward_filter_{};
  size_t forward_workspace_ = 0, backward_data_workspace_ = 0, backward_filter_workspace_ = 0;
};

const ConvolutionPlan* PlanConvolution(mshadow::Stream<mshadow::gpu>* stream, const ConvGeometry& g,
                                       index_t batch, index_t filters, index_t groups,
                                       int type_flag, uint64_t workspace_mib) {
  ConvolutionShape shape;
  if (!ShapeOf(g, batch, filters, groups, type_flag, &shape)) return nullptr;
  const size_t workspace_limit = static_cast<size_t>(workspace_mib) << 20;
  int device = 0;
  MSHADOW_CUDA_CALL(cudaGetDevice(&device));
  // The key: device, limit, the shape's scalars, then its six per-axis fields (unused axes 0).
  constexpr int kScalars = 8;
  std::array<long long, kScalars + 6 * 3> key{};
  const long long scalars[kScalars] = {device,        static_cast<long long>(workspace_limit),
                                       shape.spatial, shape.type_flag,
                                       shape.batch,   shape.channels,
                                       shape.filters, shape.groups};
  std::copy(scalars, scalars + kScalars, key.begin());
  int at = kScalars;
  for (const int* field :
       {shape.in, shape.out, shape.kernel, shape.stride, shape.dilate, shape.pad}) {
    std::copy(field, field + 3, key.begin() + at);
    at += 3;
  }
  // Plans live as long as the process: hosts call from any thread at any time, exit included.
  static std::mutex* mutex = new std::mutex;
  static auto* plans =
      new std::map<std::array<long long, kScalars + 6 * 3>, std::unique_ptr<ConvolutionPlan>>;
  std::lock_guard<std::mutex> lock(*mutex);
  auto found = plans->find(key);
  if (found != plans->end()) return found->second.get();
  auto plan = std::make_unique<ConvolutionPlan>(shape);
  if (!plan->ChooseAlgorithms(HandleFor(stream), workspace_limit)) plan.reset();
  return plans->emplace(key, std::move(plan)).first->second.get();
}

size_t ForwardWorkspace(const ConvolutionPlan& plan) { return plan.forward_workspace_; }
size_t BackwardDataWorkspace(const ConvolutionPlan& plan) { return plan.backward_data_workspace_; }
size_t BackwardFilterWorkspace(const ConvolutionPlan& plan) {
  return plan.backward_filter_workspace_;
}

void Forward(mshadow::Stream<mshadow::gpu>* stream, const ConvolutionPlan& plan, const void* x,
             const void* w, const void* bias, void* y, bool accumulate, void* workspace) {
  const cudnnHandle_t handle = HandleFor(stream);
  const ConvolutionPlan::Scale scale = plan.ScaleFor(accumulate);
  OPS_CUDNN_CALL(cudnnConvolutionForward(handle, scale.alpha(), plan.x_, x, plan.w_, w, plan.conv_,
                                         plan.forward_, workspace, plan.forward_workspace_,
                                         scale.beta(), plan.y_, y));
  if (bias != nullptr) {
    const ConvolutionPlan::Scale add = plan.ScaleFor(true);
    OPS_CUDNN_CALL(cudnnAddTensor(handle, add.alpha(), plan.bias_, bias, add.beta(), plan.y_, y));
  }
}

void BackwardData(mshadow::Stream<mshadow::gpu>* stream, const ConvolutionPlan& plan, const void* w,
                  const void* dy, void* dx, bool accumulate, void* workspace) {
  const ConvolutionPlan::Scale scale = plan.ScaleFor(accumulate);
  OPS_CUDNN_CALL(cudnnConvolutionBackwardData(
      HandleFor(stream), scale.alpha(), plan.w_, w, plan.y_, dy, plan.conv_, plan.backward_data_,
      workspace, plan.backward_data_workspace_, scale.beta(), plan.x_, dx));
}

void BackwardFilter(mshadow::Stream<mshadow::gpu>* stream, const ConvolutionPlan& plan,
                    const void* x, const void* dy, void* dw, bool accumulate, void* workspace) {
  const ConvolutionPlan::Scale scale = plan.ScaleFor(accumulate);
  OPS_CUDNN_CALL(cudnnConvolutionBackwardFilter(
      HandleFor(stream), scale.alpha(), plan.x_, x, plan.y_, dy, plan.conv_, plan.backward_filter_,
      workspace, plan.backward_filter_workspace_, scale.beta(), plan.w_, dw));
}

}  // namespace cudnn
}  // namespace ops
