// mshadow/tshape_field.h: TShape fields in dmlc parameter structs, in tuple syntax.
//
//   struct ConvParam : public dmlc::Parameter<ConvParam> {
//     mshadow::TShape kernel;
//     DMLC_DECLARE_PARAMETER(ConvParam) {
//       DMLC_DECLARE_FIELD(kernel).set_expect_ndim(2).enforce_nonzero();
//     }
//   };
//   param.Init({{"kernel", "(3,3)"}});   // "3", "(3, 3)", "[3,3]" and "(3L,3L)" parse too
//
// Errors are dmlc::ParamError naming the field, the value and what was expected:
//   Invalid Parameter format for kernel expect Shape(tuple) but value='(3,a)'
//   Invalid Parameter value for kernel: (3,3,3) has 3 dimensions, expected 2
#ifndef MSHADOW_TSHAPE_FIELD_H_
#define MSHADOW_TSHAPE_FIELD_H_

#include <sstream>
#include <string>

#include "dmlc/parameter.h"
#include "mshadow/tshape.h"

namespace dmlc {

DMLC_DECLARE_TYPE_NAME(mshadow::TShape, "Shape(tuple)");

namespace parameter {

template <>
class FieldEntry<mshadow::TShape>
    : public FieldEntryBase<FieldEntry<mshadow::TShape>, mshadow::TShape> {
 public:
  using Parent = FieldEntryBase<FieldEntry<mshadow::TShape>, mshadow::TShape>;

  void Set(void* head, const std::string& value) const override {
    if (!mshadow::ParseTShape(value, &this->Get(head))) this->ThrowFormatError(value);
  }

  void Check(void* head) const override {
    Parent::Check(head);
    const mshadow::TShape& v = this->Get(head);
    if (expect_ndim_ != 0 && v.ndim() != expect_ndim_) {
      std::ostringstream os;
      os << "Invalid Parameter value for " << key_ << ": " << v << " has " << v.ndim()
         << " dimensions, expected " << expect_ndim_;
      throw ParamError(os.str());
    }
    if (enforce_nonzero_) {
      for (mshadow::index_t i = 0; i < v.ndim(); ++i) {
        if (v[i] == 0) {
          std::ostringstream os;
          os << "Invalid Parameter value for " << key_ << ": " << v
             << " has a zero dimension at position " << i << "; every dimension must be nonzero";
          throw ParamError(os.str());
        }
      }
    }
  }

  // Every dimension must be nonzero.
  FieldEntry<mshadow::TShape>& enforce_nonzero() {
    enforce_nonzero_ = true;
    return self();
  }
  // The shape must have exactly `ndim` dimensions.
  FieldEntry<mshadow::TShape>& set_expect_ndim(mshadow::index_t ndim) {
    expect_ndim_ = ndim;
    return self();
  }

 protected:
  void PrintDefaultValueString(std::ostream& os) const override {
    os << '\'' << default_value_ << '\'';
  }

 private:
  bool enforce_nonzero_ = false;
  mshadow::index_t expect_ndim_ = 0;
};

}  // namespace parameter
}  // namespace dmlc

#endif  // MSHADOW_TSHAPE_FIELD_H_
