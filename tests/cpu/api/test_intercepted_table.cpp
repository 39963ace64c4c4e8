// The table of intercepted calls (ucudnn/intercepted_calls.h) and the front-ends generated from it
// agree: every line has its C function u<name> (with the table's signature, exported by
// libucudnn under its C name) and its inline UcudnnHandle_t overload of cuDNN's name, the shared
// lines are cuDNN's own signatures and are defined by libucudnn_preload.so, the cuDNN 7 lines are
// not, and each line's argument list names its parameters in order (the preload passes foreign
// handles through with that list, the overloads call the C functions with it).

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "../preload/probe_runner.h"
#include "ucudnn/intercepted_calls.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn {
namespace {

struct TableLine {
  const char* name;
  const char* params;  // "(type name, ...)"
  const char* args;    // "(name, ...)"
};

#define UCUDNN_TEST_TABLE_LINE(name, params, args) TableLine{#name, #params, #args},
const std::vector<TableLine> kSharedCalls = {UCUDNN_INTERCEPTED_CALLS(UCUDNN_TEST_TABLE_LINE)};
const std::vector<TableLine> kCudnn7Calls = {UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_TEST_TABLE_LINE)};
#undef UCUDNN_TEST_TABLE_LINE

// The shared lines are cuDNN 9's declarations exactly (a line that is not fails to compile here).
#define UCUDNN_TEST_CUDNN_SIGNATURE(name, params, args) \
  static_assert(sizeof(static_cast<cudnnStatus_t (*)(cudnnHandle_t, UCUDNN_UNPAREN params)>(&name)) > 0, #name);
UCUDNN_INTERCEPTED_CALLS(UCUDNN_TEST_CUDNN_SIGNATURE)
#undef UCUDNN_TEST_CUDNN_SIGNATURE

// Calls an overload with a null handle and value-initialized arguments (null pointers, zeros).
template <typename... Params>
cudnnStatus_t call_with_null_handle(cudnnStatus_t (*overload)(UcudnnHandle_t, Params...)) {
  return overload(UcudnnHandle_t(), Params{}...);
}

struct Overload {
  const char* name;
  std::uintptr_t address;
  cudnnStatus_t (*call_with_null_handle)();
  cudnnStatus_t (*call_c_function_with_null_handle)();
};

// Taking each overload's and each C function's address through the table's signature: a line
// without them does not compile or link.
#define UCUDNN_TEST_HANDLE_OVERLOAD(name, params) \
  static_cast<cudnnStatus_t (*)(UcudnnHandle_t, UCUDNN_UNPAREN params)>(&name)
#define UCUDNN_TEST_OVERLOAD(name, params, args)                                                      \
  Overload{#name, reinterpret_cast<std::uintptr_t>(UCUDNN_TEST_HANDLE_OVERLOAD(name, params)),          \
           [] { return call_with_null_handle(UCUDNN_TEST_HANDLE_OVERLOAD(name, params)); },            \
           [] { return call_with_null_handle(UCUDNN_TEST_HANDLE_OVERLOAD(u##name, params)); }},
const std::vector<Overload> kOverloads = {UCUDNN_INTERCEPTED_CALLS(UCUDNN_TEST_OVERLOAD)
                                              UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_TEST_OVERLOAD)};
#undef UCUDNN_TEST_HANDLE_OVERLOAD
#undef UCUDNN_TEST_OVERLOAD

// "(a, b)" -> {"a", "b"}; the lists hold no nested parentheses.
std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::string item;
  for (char c : list) {
    if (c == '(' || c == ')') continue;
    if (c == ',') {
      items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  items.push_back(item);
  for (std::string& s : items) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  }
  return items;
}

// "const cudnnTensorDescriptor_t xDesc" -> "xDesc"
std::string parameter_name(const std::string& parameter) {
  size_t begin = parameter.size();
  auto in_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (begin > 0 && in_name(parameter[begin - 1])) --begin;
  return parameter.substr(begin);
}

TEST(InterceptedTable, HoldsTheFifteenSharedCallsAndTheThreeCudnn7Calls) {
  EXPECT_EQ(kSharedCalls.size(), 15u);
  EXPECT_EQ(kCudnn7Calls.size(), 3u);
  EXPECT_EQ(kOverloads.size(), 18u);
}

TEST(InterceptedTable, EachArgumentListNamesItsParametersInOrder) {
  EXPECT_EQ(parameter_name("const cudnnTensorDescriptor_t xDesc"), "xDesc");
  EXPECT_EQ(parameter_name("void* workSpace"), "workSpace");
  for (const std::vector<TableLine>* table : {&kSharedCalls, &kCudnn7Calls}) {
    for (const TableLine& line : *table) {
      const std::vector<std::string> params = split_list(line.params);
      std::vector<std::string> names;
      for (const std::string& p : params) names.push_back(parameter_name(p));
      EXPECT_EQ(names, split_list(line.args)) << line.name;
    }
  }
}

TEST(InterceptedTable, EveryCallHasItsUcudnnHandleOverloadAndItsCFunction) {
  for (const Overload& overload : kOverloads) {
    EXPECT_NE(overload.address, 0u) << overload.name;
    // A null handle (and null pointers) is refused, never dereferenced.
    EXPECT_EQ(overload.call_with_null_handle(), CUDNN_STATUS_BAD_PARAM) << overload.name;
    EXPECT_EQ(overload.call_c_function_with_null_handle(), CUDNN_STATUS_BAD_PARAM) << overload.name;
    EXPECT_NE(std::string(ucudnnGetLastErrorMessage()).find(std::string("u") + overload.name + ": "),
              std::string::npos)
        << "the C function is the one implementation: " << ucudnnGetLastErrorMessage();
  }
}

TEST(InterceptedTable, LibucudnnExportsEachCFunctionUnderItsCName) {
  void* library = dlopen(UCUDNN_LIBRARY_PATH, RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (const std::vector<TableLine>* table : {&kSharedCalls, &kCudnn7Calls}) {
    for (const TableLine& line : *table) {
      EXPECT_NE(dlsym(library, (std::string("u") + line.name).c_str()), nullptr) << line.name;
    }
  }
  dlclose(library);
}

TEST(InterceptedTable, ThePreloadDefinesTheSharedCallsAndNoCudnn7Call) {
  const std::string path = testing::preload_library_path();
  void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  // dlsym also searches the library's dependencies (libcudnn among them): a symbol counts only
  // when it lies in the preload library itself.
  auto defined_by_preload = [&](const char* name) {
    void* symbol = dlsym(library, name);
    if (!symbol) return false;
    Dl_info info{};
    if (!dladdr(symbol, &info) || !info.dli_fname) return false;
    std::error_code error;
    return std::filesystem::equivalent(info.dli_fname, path, error) && !error;
  };
  // The check tells the layer's definitions from cuDNN's.
  EXPECT_TRUE(defined_by_preload("cudnnCreate"));
  EXPECT_TRUE(dlsym(library, "cudnnSetStream") != nullptr) << "cuDNN is reachable through the library";
  EXPECT_FALSE(defined_by_preload("cudnnSetStream"));

  for (const TableLine& line : kSharedCalls) EXPECT_TRUE(defined_by_preload(line.name)) << line.name;
  for (const TableLine& line : kCudnn7Calls) EXPECT_FALSE(defined_by_preload(line.name)) << line.name;
  dlclose(library);
}

}  // namespace
}  // namespace ucudnn
