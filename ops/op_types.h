// ops/op_types.h: the vocabulary operators and hosts share: parsed attributes (NodeAttrs),
// how an output is written (OpReqType), the execution context (OpContext, Resource) and the
// signatures of the per-operator functions (FInferShape, FInferType, FCompute, ...).
//
// Modeled on MXNet/NNVM, whose operator authors already know these names.
#ifndef OPS_OP_TYPES_H_
#define OPS_OP_TYPES_H_

#include <any>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/tensor_blob.h"
#include "mshadow/tensor_core.h"

namespace ops {

using mshadow::index_t;
using mshadow::TBlob;
using mshadow::TShape;

class Op;

// An operator with its attributes: the keyword arguments as given and, after the
// operator's attribute parser ran, the parsed parameter struct.
struct NodeAttrs {
  const Op* op = nullptr;
  std::unordered_map<std::string, std::string> dict;
  std::any parsed;
};

// The parsed parameter struct of `attrs`; a dmlc::Error if the parser did not produce one.
template <typename Param>
const Param& GetParam(const NodeAttrs& attrs) {
  const Param* param = std::any_cast<Param>(&attrs.parsed);
  CHECK(param != nullptr) << "operator attributes were not parsed into the expected "
                             "parameter struct (was the attribute parser run?)";
  return *param;
}

// How an operator writes one output.
enum OpReqType {
  kNullOp,        // do not write it
  kWriteTo,       // overwrite it
  kWriteInplace,  // overwrite it; it shares memory with an input
  kAddTo,         // add the result to what it holds (gradient accumulation)
};

// What a host lends an operator during one call (FResourceRequest): scratch memory, or
// random numbers.
struct ResourceRequest {
  enum Type { kTempSpace, kRandom };
  Type type = kTempSpace;
};

// The host's temporary-space provider; returns at least `bytes` bytes, 64-byte aligned, valid
// until the next call. A host typically keeps one per thread and lets it grow.
class TempSpace {
 public:
  virtual ~TempSpace() = default;
  virtual void* Get(size_t bytes) = 0;
};

// A range of a Philox4x32 sequence (mshadow/philox.h): blocks counter, counter + 1, ... under
// the key of `seed`. Plain data, so kernels on either device take it by value.
struct PhiloxRange {
  uint64_t seed = 0;
  uint64_t counter = 0;
};

// The host's random numbers (ResourceRequest::kRandom): each Take hands out blocks no earlier
// Take handed out, so an operator's random numbers depend only on the seed and on the order
// of the calls, never on threads or devices. See ops/random_source.h for the library's.
class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual PhiloxRange Take(uint64_t blocks) = 0;
};

// One requested resource, as the operator sees it.
struct Resource {
  ResourceRequest::Type type = ResourceRequest::kTempSpace;
  TempSpace* space = nullptr;
  RandomSource* random = nullptr;  // kRandom

  // `blocks` fresh Philox blocks (4 random words each).
  PhiloxRange TakeRandom(uint64_t blocks) const {
    CHECK(random != nullptr) << "the operator requested random numbers but the host gave none";
    return random->Take(blocks);
  }

  // A tensor of `shape` in the temporary space.
  template <typename Device, int dim, typename DType>
  mshadow::Tensor<Device, dim, DType> get_space_typed(const mshadow::Shape<dim>& shape,
                                                      mshadow::Stream<Device>* stream) const {
    CHECK(space != nullptr) << "the operator requested temporary space but the host gave none";
    const size_t bytes = static_cast<size_t>(shape.Size()) * sizeof(DType);
    return mshadow::Tensor<Device, dim, DType>(static_cast<DType*>(space->Get(bytes)), shape,
                                               stream);
  }
};

// Everything an operator call gets besides its tensors.
struct OpContext {
  bool is_train = false;
  // The device stream (mshadow::Stream<Device>*), or null on the CPU.
  void* stream = nullptr;
  // One entry per FResourceRequest item, in order.
  std::vector<Resource> requested;

  template <typename Device>
  mshadow::Stream<Device>* get_stream() const {
    return static_cast<mshadow::Stream<Device>*>(stream);
  }
};

// ---- Attribute function types (registered with Op::set_attr).

// Fills unknown shapes (ndim 0) from known ones and checks the rest; returns whether all
// shapes are known afterwards. Conflicts throw (see ops/infer.h).
using FInferShape = std::function<bool(const NodeAttrs& attrs, std::vector<TShape>* in_shapes,
                                       std::vector<TShape>* out_shapes)>;
// The same for element types (mshadow TypeFlags; -1 is unknown).
using FInferType = std::function<bool(const NodeAttrs& attrs, std::vector<int>* in_types,
                                      std::vector<int>* out_types)>;
// Computes the outputs from the inputs on one device (registered as "FCompute<cpu>" or
// "FCompute<gpu>").
using FCompute = std::function<void(const NodeAttrs& attrs, const OpContext& ctx,
                                    const std::vector<TBlob>& inputs,
                                    const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& outputs)>;
// Names of the inputs (default: the arguments of type "NDArray-or-Symbol", or "data").
using FListInputNames = std::function<std::vector<std::string>(const NodeAttrs& attrs)>;
// Resources the operator needs during FCompute.
using FResourceRequest = std::function<std::vector<ResourceRequest>(const NodeAttrs& attrs)>;
// Pairs (input, output) that may share memory (kWriteInplace).
using FInplaceOption = std::function<std::vector<std::pair<int, int>>(const NodeAttrs& attrs)>;

// How to compute input gradients: the registered backward operator and what it reads.
// Its inputs are, in order: the gradients of every forward output, then the forward inputs
// if `uses_inputs`, then the forward outputs if `uses_outputs`. Its outputs are the
// gradients of every forward input. It takes the forward operator's attributes.
struct FGradient {
  std::string backward_op;
  bool uses_inputs = false;
  bool uses_outputs = false;
};

}  // namespace ops

#endif  // OPS_OP_TYPES_H_
