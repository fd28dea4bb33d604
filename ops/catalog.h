// ops/catalog.h: the operator catalogue as JSON, one entry per operator, for hosts that build
// bindings from it (the Python package), `opctl list --json` and the C ABI:
//
//   {"name": "FullyConnected", "description": "...", "inputs": ["data", "weight", "bias"],
//    "num_outputs": 1, "backward": "_backward_FullyConnected", "is_backward": false,
//    "params": [{"name": "num_hidden", "type": "int", "type_info_str": "int, required",
//                "description": "..."}, ...]}
#ifndef OPS_CATALOG_H_
#define OPS_CATALOG_H_

#include <string>

#include "dmlc/parameter.h"
#include "ops/op.h"

namespace ops {

// Whether an argument is an input tensor rather than a parameter.
bool IsInputArgument(const dmlc::ParamFieldInfo& argument);

// One operator's entry.
std::string CatalogEntryJson(const Op& op);

// Every operator (aliases left out), sorted by name, as a JSON array.
std::string CatalogJson();

}  // namespace ops

#endif  // OPS_CATALOG_H_
