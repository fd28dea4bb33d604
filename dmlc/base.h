// dmlc/base.h: build-wide macros of dmlc-core that headers here rely on.
#ifndef DMLC_BASE_H_
#define DMLC_BASE_H_

// Marks a variable or typedef that exists only for its compile-time effect.
#define DMLC_ATTRIBUTE_UNUSED __attribute__((unused))

// Concatenation helpers for generating unique identifiers in registration macros.
#define DMLC_STR_CONCAT_(a, b) a##b
#define DMLC_STR_CONCAT(a, b) DMLC_STR_CONCAT_(a, b)

// Always throw dmlc::Error on fatal log messages; this project never aborts.
#define DMLC_LOG_FATAL_THROW 1

#endif  // DMLC_BASE_H_
