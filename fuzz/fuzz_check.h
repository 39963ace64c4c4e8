#pragma once
// What a fuzz target asserts beyond "no crash": a broken property stops the run with its name, so
// libFuzzer keeps the input that broke it.

#include <cstdio>
#include <cstdlib>

#define UCUDNN_FUZZ_CHECK(condition)                                           \
  do {                                                                         \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "fuzz property broken: %s (%s:%d)\n", #condition, \
                   __FILE__, __LINE__);                                        \
      std::abort();                                                            \
    }                                                                          \
  } while (0)
