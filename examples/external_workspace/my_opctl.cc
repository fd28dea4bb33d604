// An opctl of this workspace: softplus_beta sits in mshadow_ops' registry beside its
// operators. Prints the catalogue entry, then runs the operator on a small input.
#include <cstdio>
#include <iostream>

#include "ops/catalog.h"
#include "ops/imperative.h"

int main() {
  try {
    const ops::Op* op = ops::Op::Get("softplus_beta");
    std::cout << ops::CatalogEntryJson(*op) << '\n';
    std::cout << ops::Op::ListAllNames().size() << " operators registered\n";
    ops::CpuTensor x(ops::TShape{1, 4}, mshadow::kFloat32);
    const float values[] = {-2, 0, 1, 30};
    for (int i = 0; i < 4; ++i) x.data<float>()[i] = values[i];
    const auto y = ops::RunCpu(ops::ParseAttrs(op, {{"beta", "1"}}), {x.blob()});
    for (int i = 0; i < 4; ++i) std::printf("softplus_beta(%g) = %g\n", values[i], y[0].data<float>()[i]);
  } catch (const dmlc::Error& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  return 0;
}
