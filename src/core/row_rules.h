#pragma once
// What a measurement row must be, whoever reads or writes it: a table line (`plan`, `db import`,
// `db export`), a row stored, and a row read back from a database file that any program may have
// written (lookups, `db verify`, `db merge`). One rule for every reader, so that no row a lookup
// plans with could not also be imported, and none would make cuDNN be called with an index it
// does not have.

#include <cstddef>

#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"

namespace ucudnn {

/// The largest micro-batch (and so mini-batch) a row may hold: far above any convolution's batch
/// in practice, and it bounds the planner's dynamic program (one entry per sample).
inline constexpr int kMaxMicroBatch = 65536;

/// The longest time a row may record, in milliseconds (about 11.6 days per call): sums of such
/// times over any table stay finite.
inline constexpr double kMaxTimeMs = 1e9;

/// The largest math type a row may hold: cudnnMathType_t runs from CUDNN_DEFAULT_MATH (0) to
/// CUDNN_FMA_MATH (3).
int max_math_type();

/// Checks one row of `op`: a micro-batch from 1 to kMaxMicroBatch; its candidate columns of its
/// kind (a legacy algorithm of `op`, from 0 to below its count, which leaves out forward's
/// virtual micro-batched algorithm; or algo -1 and a canonical, bounded engine id); a math type
/// from 0 to max_math_type(); finite times from 0 to kMaxTimeMs; a workspace below 2^63 bytes.
/// The error says what is wrong, without naming the row (its caller knows where it is).
Status check_measurement(ConvOp op, const Measurement& m);

}  // namespace ucudnn
