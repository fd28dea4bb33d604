// opctl run and bench: one operator on fixed-seed inputs whose shapes come from the command
// line (the rest inferred), as a host framework would call it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <string>

#include "ops/backward.h"
#include "ops/imperative.h"
#include "tools/opctl/commands.h"
#ifdef MSHADOW_OPS_WITH_CUDA
#include "tools/opctl/gpu.h"
#endif

namespace opctl {
namespace {

using mshadow::index_t;

struct Invocation {
  ops::NodeAttrs attrs;
  std::vector<std::string> input_names;
  std::vector<ops::CpuTensor> inputs;
  int iterations = 100;
  bool on_gpu = false;
};

// "NAME=VALUE" split at the first '='.
std::pair<std::string, std::string> SplitAssignment(const std::string& flag, const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw dmlc::Error(flag + " expects NAME=VALUE, got '" + text + "'");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Uniform values in [-1, 1]; an input named "label" gets class indices in [0, classes).
void Fill(const std::string& name, index_t classes, const ops::CpuTensor& tensor,
          std::mt19937* rng) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(tensor.type_flag(), DType, {
    DType* data = tensor.data<DType>();
    const index_t n = tensor.shape().Size();
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (index_t i = 0; i < n; ++i) {
      data[i] = name == "label" ? static_cast<DType>((*rng)() % static_cast<uint64_t>(classes))
                                : static_cast<DType>(uniform(*rng));
    }
  });
}

Invocation Prepare(const Args& args, bool allow_iterations) {
  if (args.empty()) throw dmlc::Error("name an operator; `opctl list` shows them");
  const ops::Op* op = ops::Op::Get(args[0]);
  std::map<std::string, std::string> shapes, params;
  int dtype = mshadow::kFloat32;
  Invocation call;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (i + 1 == args.size()) throw dmlc::Error("flag " + flag + " needs a value");
    const std::string& value = args[++i];
    if (flag == "--shape" || flag == "--param") {
      auto& assignments = flag == "--shape" ? shapes : params;
      const auto [name, text] = SplitAssignment(flag, value);
      const auto [at, inserted] = assignments.emplace(name, text);
      if (!inserted) {
        throw dmlc::Error(flag + " " + name + " is given twice ('" + at->second + "' and '" + text +
                          "')");
      }
    } else if (flag == "--dtype") {
      if (value != "float32" && value != "float64") {
        throw dmlc::Error("--dtype " + value + " is not supported; valid: float32, float64");
      }
      dtype = value == "float32" ? mshadow::kFloat32 : mshadow::kFloat64;
    } else if (flag == "--device") {
      if (value != "cpu" && value != "gpu") {
        throw dmlc::Error("--device " + value + " is not a device; valid: cpu, gpu");
      }
      call.on_gpu = value == "gpu";
#ifndef MSHADOW_OPS_WITH_CUDA
      if (call.on_gpu) {
        throw dmlc::Error(
            "--device gpu needs opctl built with CUDA: ./tools/bazel build "
            "--config=cuda //tools:opctl");
      }
#endif
    } else if (flag == "--iterations" && allow_iterations) {
      if (dmlc::ParseNumber(value, &call.iterations) != dmlc::ParseStatus::kOk ||
          call.iterations < 1) {
        throw dmlc::Error("--iterations takes a positive integer, got '" + value + "'");
      }
    } else {
      throw dmlc::Error("unknown flag '" + flag + "'; valid: --shape, --param, --dtype, --device" +
                        (allow_iterations ? ", --iterations" : ""));
    }
  }
  call.attrs = ops::ParseAttrs(op, params);
  call.input_names = op->ListInputNames(call.attrs);
  std::vector<mshadow::TShape> in_shapes(call.input_names.size()), out_shapes;
  for (const auto& [name, text] : shapes) {
    const auto at = std::find(call.input_names.begin(), call.input_names.end(), name);
    if (at == call.input_names.end()) {
      std::string valid;
      for (const std::string& n : call.input_names) valid += (valid.empty() ? "" : ", ") + n;
      throw dmlc::Error(op->name + " has no input '" + name + "'; its inputs: " + valid);
    }
    if (!mshadow::ParseTShape(text, &in_shapes[at - call.input_names.begin()])) {
      throw dmlc::Error("--shape " + name + "=" + text + " is not a shape such as (4,16)");
    }
  }
  ops::InferShapes(call.attrs, &in_shapes, &out_shapes);
  std::mt19937 rng(1);
  // Labels' classes: the first input's columns (none for operators without inputs, such as
  // _arange or _random_normal).
  const index_t classes = !in_shapes.empty() && in_shapes[0].ndim() == 2 ? in_shapes[0][1] : 2;
  for (size_t i = 0; i < in_shapes.size(); ++i) {
    call.inputs.emplace_back(in_shapes[i], dtype);
    Fill(call.input_names[i], classes, call.inputs.back(), &rng);
  }
  return call;
}

double Sum(const ops::CpuTensor& t) {
  double sum = 0;
  MSHADOW_TYPE_SWITCH(t.type_flag(), DType, {
    for (index_t i = 0; i < t.shape().Size(); ++i) sum += static_cast<double>(t.data<DType>()[i]);
  });
  return sum;
}

#ifdef MSHADOW_OPS_WITH_CUDA
// max |a - b| over the elements of two tensors of one shape and type.
double LargestDifference(const ops::CpuTensor& a, const ops::CpuTensor& b) {
  double largest = 0;
  MSHADOW_TYPE_SWITCH(a.type_flag(), DType, {
    for (index_t i = 0; i < a.shape().Size(); ++i) {
      const double difference = std::fabs(static_cast<double>(a.data<DType>()[i]) -
                                          static_cast<double>(b.data<DType>()[i]));
      largest = std::max(largest, difference);
    }
  });
  return largest;
}
#endif

// Median over 5 rounds of the time per call of `fn`, in microseconds.
template <typename Fn>
double MedianMicros(int iterations, Fn fn) {
  for (int i = 0; i < 3; ++i) fn();  // warm up caches and temporary space
  std::vector<double> rounds;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) fn();
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    rounds.push_back(elapsed.count() / iterations);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[2];
}

}  // namespace

int Run(const Args& args) {
  const Invocation call = Prepare(args, /*allow_iterations=*/false);
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    std::cout << "input " << call.input_names[i] << ": shape " << call.inputs[i].shape() << '\n';
  }
  std::vector<ops::CpuTensor> outputs = ops::RunCpu(call.attrs, ops::Blobs(call.inputs));
#ifdef MSHADOW_OPS_WITH_CUDA
  if (call.on_gpu) {
    // The GPU's outputs, beside the CPU's on the same inputs.
    const std::vector<ops::CpuTensor> on_cpu = outputs;
    const GpuTensors inputs(ops::Blobs(call.inputs)), results(ops::Blobs(on_cpu));
    InvokeOnGpu(call.attrs, /*is_train=*/false, inputs.blobs(), results.blobs());
    outputs = results.Download();
    std::cout << "on " << GpuName() << '\n';
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::cout << "output " << i << ": largest difference from the CPU " << std::setprecision(3)
                << LargestDifference(on_cpu[i], outputs[i]) << '\n';
    }
  }
#endif
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "output " << i << ": shape " << outputs[i].shape() << " sum "
              << std::setprecision(6) << Sum(outputs[i]) << '\n';
  }
  return 0;
}

int Bench(const Args& args) {
  const Invocation call = Prepare(args, /*allow_iterations=*/true);
  const ops::Op& op = *call.attrs.op;
  // Microseconds per call of `attrs` on the chosen device (host blobs copied to the GPU).
  const auto time = [&](const ops::NodeAttrs& attrs, const std::vector<ops::TBlob>& in,
                        const std::vector<ops::TBlob>& out) {
#ifdef MSHADOW_OPS_WITH_CUDA
    if (call.on_gpu) {
      const GpuTensors device_in(in), device_out(out);
      return GpuMedianMicros(attrs, true, device_in.blobs(), device_out.blobs(), call.iterations);
    }
#endif
    const ops::OpContext ctx = ops::MakeCpuContext(attrs, true);
    const std::vector<ops::OpReqType> write(out.size(), ops::kWriteTo);
    return MedianMicros(call.iterations,
                        [&] { ops::Invoke<mshadow::cpu>(attrs, ctx, in, write, out); });
  };
  std::string device = "";
#ifdef MSHADOW_OPS_WITH_CUDA
  if (call.on_gpu) device = " on " + GpuName();
#endif
  const std::vector<ops::TBlob> inputs = ops::Blobs(call.inputs);
  const std::vector<ops::CpuTensor> outputs = ops::RunCpu(call.attrs, inputs);
  const std::vector<ops::TBlob> output_blobs = ops::Blobs(outputs);
  std::printf("%s forward%s: %.3f us per call (median of 5 rounds of %d)\n", op.name.c_str(),
              device.c_str(), time(call.attrs, inputs, output_blobs), call.iterations);
  const auto* gradient = op.GetAttr<ops::FGradient>("FGradient");
  if (gradient == nullptr) return 0;
  // Backward with output gradients of ones, reading what FGradient says it reads (hidden
  // integer outputs, such as Pooling's positions or Dropout's mask, get zeros: nothing
  // differentiates through them).
  const ops::NodeAttrs backward = ops::BackwardAttrs(call.attrs);
  std::vector<ops::CpuTensor> ones;
  for (const auto& out : outputs) {
    ones.emplace_back(out.shape(), out.type_flag());
    if (out.type_flag() != mshadow::kFloat32 && out.type_flag() != mshadow::kFloat64) continue;
    MSHADOW_SGL_DBL_TYPE_SWITCH(out.type_flag(), DType, {
      std::fill_n(ones.back().data<DType>(), out.shape().Size(), DType(1));
    });
  }
  const std::vector<ops::TBlob> backward_inputs =
      ops::BackwardInputs(call.attrs, ops::Blobs(ones), inputs, output_blobs);
  std::vector<ops::CpuTensor> grads;
  for (const auto& in : call.inputs) grads.emplace_back(in.shape(), in.type_flag());
  std::printf("%s backward (%s)%s: %.3f us per call\n", op.name.c_str(),
              gradient->backward_op.c_str(), device.c_str(),
              time(backward, backward_inputs, ops::Blobs(grads)));
  return 0;
}

}  // namespace opctl
