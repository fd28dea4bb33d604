// mshadow/expr_engine-inl.h: the expression engine (mshadow's expr_engine-inl.h): Plan and
// MakePlan for every expression, MakeTensorExp, ExpInfo, TypeCheck, StreamInfo, ShapeCheck,
// ExpEngine and ExpComplexEngine.
#ifndef MSHADOW_EXPR_ENGINE_INL_H_
#define MSHADOW_EXPR_ENGINE_INL_H_

#include "mshadow/expr/engine.h"
#include "mshadow/expr/make_tensor.h"
#include "mshadow/expr/tensor_plan.h"
#include "mshadow/expr/type_check.h"
#include "mshadow/expression.h"

#endif  // MSHADOW_EXPR_ENGINE_INL_H_
