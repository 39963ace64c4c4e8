#include "core/internal_call.h"

namespace ucudnn {
namespace {

thread_local int depth = 0;

}  // namespace

bool in_internal_call() { return depth > 0; }

InternalCallScope::InternalCallScope() { ++depth; }

InternalCallScope::~InternalCallScope() { --depth; }

}  // namespace ucudnn
