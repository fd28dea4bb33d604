// mshadow/extension.h: every tensor function built on the expression engine (one per file under
// mshadow/extension/), as mshadow's own extension.h gathered them. mshadow/tensor.h includes
// it, so code written against mshadow finds broadcast, pool, take, ... where it expects.
#ifndef MSHADOW_EXTENSION_H_
#define MSHADOW_EXTENSION_H_

#include "mshadow/extension/broadcast.h"
#include "mshadow/extension/choose.h"
#include "mshadow/extension/fill.h"
#include "mshadow/extension/implicit_gemm.h"
#include "mshadow/extension/mask.h"
#include "mshadow/extension/one_hot.h"
#include "mshadow/extension/pack_col2patch.h"
#include "mshadow/extension/reduceto1d.h"
#include "mshadow/extension/reshape.h"
#include "mshadow/extension/spatial_pool.h"
#include "mshadow/extension/spatial_unpool.h"
#include "mshadow/extension/spatial_upsampling_nearest.h"
#include "mshadow/extension/swapaxis.h"
#include "mshadow/extension/take.h"
#include "mshadow/extension/take_grad.h"
#include "mshadow/extension/unpack_patch2col.h"

#endif  // MSHADOW_EXTENSION_H_
