// dmlc/base.h: build-wide macros of dmlc-core that headers here rely on.
#ifndef DMLC_BASE_H_
#define DMLC_BASE_H_

// Marks a variable or typedef that exists only for its compile-time effect.
#define DMLC_ATTRIBUTE_UNUSED __attribute__((unused))

// Concatenation helpers for generating unique identifiers in registration macros.
#define DMLC_STR_CONCAT_(a, b) a##b
#define DMLC_STR_CONCAT(a, b) DMLC_STR_CONCAT_(a, b)

// Fatal log messages always throw dmlc::Error; this project never aborts. A program that
// defines this as 0 first (asking dmlc-core to abort) compiles unchanged and still gets the
// exception, which ends it as an abort would when nothing catches it.
#ifdef DMLC_LOG_FATAL_THROW
#undef DMLC_LOG_FATAL_THROW
#endif
#define DMLC_LOG_FATAL_THROW 1

#endif  // DMLC_BASE_H_
