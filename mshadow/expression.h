// mshadow/expression.h: the expression templates (mshadow's expression.h): the expression
// kinds, scalar, tcast, transpose, elementwise maps with F<OP>, arithmetic operators, dot and
// batch_dot. Evaluation needs a device backend: include "mshadow/tensor.h".
#ifndef MSHADOW_EXPRESSION_H_
#define MSHADOW_EXPRESSION_H_

#include "mshadow/expr/dot.h"
#include "mshadow/expr/elementwise.h"
#include "mshadow/expr/exp_base.h"
#include "mshadow/expr/rvalue.h"
#include "mshadow/expr/scalar.h"
#include "mshadow/expr/transpose.h"
#include "mshadow/expr/typecast.h"

#endif  // MSHADOW_EXPRESSION_H_
