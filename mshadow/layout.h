// mshadow/layout.h: memory layouts of 3-D, 4-D and 5-D image tensors.
#ifndef MSHADOW_LAYOUT_H_
#define MSHADOW_LAYOUT_H_

namespace mshadow {

// Layout of an image batch; numbering as in mshadow (persisted by MXNet models).
enum LayoutFlag {
  kNCHW = 0,
  kNHWC,
  kCHWN,

  kNCW = 1 << 3,
  kNWC,
  kCWN,

  kNCDHW = 1 << 5,
  kNDHWC,
  kCDHWN
};

// Name of a layout ("NCHW"), or "unknown".
inline const char* LayoutName(int layout) {
  switch (layout) {
    case kNCHW: return "NCHW";
    case kNHWC: return "NHWC";
    case kCHWN: return "CHWN";
    case kNCW: return "NCW";
    case kNWC: return "NWC";
    case kCWN: return "CWN";
    case kNCDHW: return "NCDHW";
    case kNDHWC: return "NDHWC";
    case kCDHWN: return "CDHWN";
    default: return "unknown";
  }
}

// Default layout for a given number of dimensions.
template <int ndim>
struct LayoutType;

template <>
struct LayoutType<4> {
  static constexpr LayoutFlag kLayout = kNCHW;
};

template <>
struct LayoutType<3> {
  static constexpr LayoutFlag kLayout = kNCW;
};

template <>
struct LayoutType<5> {
  static constexpr LayoutFlag kLayout = kNCDHW;
};

}  // namespace mshadow

#endif  // MSHADOW_LAYOUT_H_
