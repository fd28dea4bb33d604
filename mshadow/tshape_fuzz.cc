// Fuzzes TShape parsing and Load. The first byte picks the entry point; the rest is input.
// Properties: no crash or sanitizer report, only dmlc::ParamError from parameter parsing;
// whatever parses prints back to text that parses to the same shape; whatever loads saves
// back to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include "mshadow/tensor_blob.h"

namespace {

struct ShapeParam : public dmlc::Parameter<ShapeParam> {
  mshadow::TShape shape;
  DMLC_DECLARE_PARAMETER(ShapeParam) { DMLC_DECLARE_FIELD(shape); }
};
DMLC_REGISTER_PARAMETER(ShapeParam);

// Reads from the caller's bytes; collects what is written.
class BytesStream {
 public:
  explicit BytesStream(std::string_view bytes) : bytes_(bytes) {}
  size_t Read(void* ptr, size_t size) {
    const size_t n = std::min(size, bytes_.size() - read_);
    std::memcpy(ptr, bytes_.data() + read_, n);
    read_ += n;
    return n;
  }
  void Write(const void* ptr, size_t size) {
    written_.append(static_cast<const char*>(ptr), size);
  }
  size_t consumed() const { return read_; }
  std::string_view bytes() const { return bytes_; }
  const std::string& written() const { return written_; }

 private:
  std::string_view bytes_;
  std::string written_;
  size_t read_ = 0;
};

void CheckReprints(const mshadow::TShape& shape) {
  std::ostringstream os;
  os << shape;
  mshadow::TShape again;
  if (!mshadow::ParseTShape(os.str(), &again) || again != shape) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      std::istringstream is(input);
      mshadow::TShape shape{1, 2, 3, 4, 5};
      const mshadow::TShape before = shape;
      if (is >> shape) {
        CheckReprints(shape);
      } else if (shape != before) {
        std::abort();  // a failed read must keep the shape
      }
      break;
    }
    case 1: {
      ShapeParam param;
      try {
        param.Init({{"shape", input}});
      } catch (const dmlc::ParamError&) {
        break;
      }
      CheckReprints(param.shape);
      break;
    }
    default: {
      BytesStream stream(input);
      mshadow::TShape shape;
      if (shape.Load(&stream)) {
        shape.Save(&stream);
        if (stream.written() != stream.bytes().substr(0, stream.consumed())) std::abort();
      }
      break;
    }
  }
  return 0;
}
