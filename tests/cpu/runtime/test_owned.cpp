// The one deleter template of runtime/owned.h.

#include <gtest/gtest.h>

#include <utility>

#include "runtime/owned.h"

namespace ucudnn {
using runtime::Owned;
using runtime::TensorDescriptor;
namespace {

struct Resource {
  int id = 0;
};
int destroyed = 0;
int destroy_resource(Resource* r) {
  destroyed += r->id;
  delete r;
  return 0;
}
using OwnedResource = Owned<Resource*, destroy_resource>;

TEST(Owned, DestroysOnceThroughTheLibraryFunction) {
  destroyed = 0;
  {
    OwnedResource a(new Resource{3});
    OwnedResource b = std::move(a);
    EXPECT_EQ(destroyed, 0);
    OwnedResource empty;
  }
  EXPECT_EQ(destroyed, 3) << "moved-from and empty owners destroy nothing";
  OwnedResource c(new Resource{5});
  c.reset(new Resource{7});
  EXPECT_EQ(destroyed, 8);
  c.reset();
  EXPECT_EQ(destroyed, 15);
}

TEST(Owned, CudnnDescriptorsWithoutAGpu) {
  cudnnTensorDescriptor_t raw = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&raw), CUDNN_STATUS_SUCCESS);
  TensorDescriptor owned(raw);
  EXPECT_EQ(owned.get(), raw);
  static_assert(sizeof(TensorDescriptor) == sizeof(void*), "no state beyond the pointer");
}

}  // namespace
}  // namespace ucudnn
