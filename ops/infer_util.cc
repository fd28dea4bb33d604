#include "ops/infer_util.h"

#include <string>

#include "dmlc/logging.h"
#include "mshadow/type_flag.h"

namespace ops {

void CheckRealType(int type_flag) {
  if (type_flag != mshadow::kFloat32 && type_flag != mshadow::kFloat64) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName(type_flag) +
                      " is not supported; valid: float32, float64");
  }
}

void CheckFloatType(int type_flag) {
  if (type_flag != mshadow::kFloat32 && type_flag != mshadow::kFloat64 &&
      type_flag != mshadow::kFloat16 && type_flag != mshadow::kBfloat16) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName(type_flag) +
                      " is not supported; valid: float32, float64, float16, bfloat16");
  }
}

int NormalizeAxis(int64_t axis, int64_t ndim, const char* what) {
  if (axis < -ndim || axis >= ndim) {
    throw dmlc::Error(std::string(what) + " " + std::to_string(axis) + " is out of range for a " +
                      std::to_string(ndim) + "-d input; valid: [" + std::to_string(-ndim) + ", " +
                      std::to_string(ndim) + ")");
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

bool SameRealType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  int known = -1;
  for (const std::vector<int>* types : {in, out}) {
    for (int t : *types) {
      if (known == -1) known = t;
    }
  }
  if (known == -1) return false;
  CheckRealType(known);
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(in, static_cast<int>(i), known);
  for (size_t i = 0; i < out->size(); ++i) AssignOutputType(out, static_cast<int>(i), known);
  return true;
}

}  // namespace ops
