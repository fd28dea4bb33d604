// Fuzzes JSONReader. The first byte picks what to read; the rest is the document.
// Properties checked: only dmlc::Error escapes; whatever reads successfully writes back to
// text that reads again to the same text (write(read(write(x))) == write(x)).
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "dmlc/json.h"
#include "dmlc/parameter.h"

namespace {

struct Record {
  std::string name;
  std::vector<int64_t> shape;
  dmlc::optional<double> scale;
  std::map<std::string, std::string> attrs;

  void Save(dmlc::JSONWriter* writer) const {
    writer->BeginObject();
    writer->WriteObjectKeyValue("name", name);
    writer->WriteObjectKeyValue("shape", shape);
    writer->WriteObjectKeyValue("scale", scale);
    writer->WriteObjectKeyValue("attrs", attrs);
    writer->EndObject();
  }
  void Load(dmlc::JSONReader* reader) {
    dmlc::JSONObjectReadHelper helper;
    helper.DeclareField("name", &name);
    helper.DeclareField("shape", &shape);
    helper.DeclareOptionalField("scale", &scale);
    helper.DeclareOptionalField("attrs", &attrs);
    helper.ReadAllFields(reader);
  }
};

struct SmallParam : public dmlc::Parameter<SmallParam> {
  int k;
  float alpha;
  std::string tag;
  DMLC_DECLARE_PARAMETER(SmallParam) {
    DMLC_DECLARE_FIELD(k).set_range(0, 100);
    DMLC_DECLARE_FIELD(alpha).set_default(1.0f);
    DMLC_DECLARE_FIELD(tag).set_default("");
  }
};

template <typename T>
std::string Write(const T& value) {
  std::ostringstream os;
  dmlc::JSONWriter writer(&os);
  writer.Write(value);
  return os.str();
}

template <typename T>
void CheckRoundTrip(const std::string& document) {
  std::istringstream is(document);
  dmlc::JSONReader reader(&is);
  T value;
  try {
    reader.Read(&value);
    reader.ExpectEndOfInput();
  } catch (const dmlc::Error&) {
    return;
  }
  const std::string written = Write(value);
  std::istringstream again_is(written);
  dmlc::JSONReader again_reader(&again_is);
  T again;
  again_reader.Read(&again);  // must not throw: what the writer wrote must read back
  again_reader.ExpectEndOfInput();
  if (Write(again) != written) std::abort();
}

}  // namespace

DMLC_REGISTER_PARAMETER(SmallParam);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string document(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: CheckRoundTrip<std::map<std::string, std::string>>(document); break;
    case 1: CheckRoundTrip<std::vector<dmlc::optional<double>>>(document); break;
    case 2: CheckRoundTrip<std::vector<std::pair<std::string, bool>>>(document); break;
    case 3: CheckRoundTrip<Record>(document); break;
    default: CheckRoundTrip<SmallParam>(document); break;
  }
  return 0;
}
