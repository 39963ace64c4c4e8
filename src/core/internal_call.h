#pragma once
// Marks the threads that are inside ucudnn. When ucudnn is preloaded under cuDNN's own names
// (libucudnn_preload.so), its own calls to cuDNN resolve to the preloaded definitions too; those
// see the mark and pass straight through to the real cuDNN instead of intercepting ucudnn itself.

namespace ucudnn {

/// True while the calling thread runs inside an intercepted call or a ucudnn-owned thread.
bool in_internal_call();

/// Marks the calling thread for its lifetime (nests).
class InternalCallScope {
 public:
  InternalCallScope();
  ~InternalCallScope();
  InternalCallScope(const InternalCallScope&) = delete;
  InternalCallScope& operator=(const InternalCallScope&) = delete;
};

}  // namespace ucudnn
