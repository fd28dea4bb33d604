// tools/opctl/demo_util.h: what opctl's training demos share: an operator with parsed
// attributes run on the CPU (Layer), random initialization, and batches as views of a dataset.
#ifndef TOOLS_OPCTL_DEMO_UTIL_H_
#define TOOLS_OPCTL_DEMO_UTIL_H_

#include <map>
#include <random>
#include <string>
#include <vector>

#include "ops/imperative.h"

namespace opctl {

// One operator with parsed attributes, run on the CPU into given outputs.
class Layer {
 public:
  Layer(const std::string& op, const std::map<std::string, std::string>& kwargs,
        bool is_train = true);

  // Runs the operator; `req` defaults to kWriteTo for every output.
  void Forward(const std::vector<ops::TBlob>& in, const std::vector<ops::TBlob>& out,
               std::vector<ops::OpReqType> req = {}) const;

  // The backward operator this layer's FGradient names, with the same attributes.
  Layer Backward() const;

  const ops::NodeAttrs& attrs() const { return attrs_; }

 private:
  ops::NodeAttrs attrs_;
  ops::OpContext ctx_;
};

// Uniform values in [-bound, bound].
void FillUniform(const ops::CpuTensor& t, float bound, std::mt19937* rng);

// Rows [begin, begin + rows) of a tensor (along its first axis), as a blob of the same memory.
ops::TBlob Rows(const ops::CpuTensor& t, mshadow::index_t begin, mshadow::index_t rows);

}  // namespace opctl

#endif  // TOOLS_OPCTL_DEMO_UTIL_H_
