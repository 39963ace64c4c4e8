// Code written for cuDNN 7, as Caffe 1.0's CuDNNConvolutionLayer calls it, compiles against
// cuDNN 9 once its handle type is UcudnnHandle_t: the preference calls and their enums exist.
// Without a GPU the handle stays null, so every call must answer CUDNN_STATUS_BAD_PARAM.

#include <gtest/gtest.h>

#include "ucudnn/ucudnn.h"

namespace {

// The shape of Caffe 1.0's algorithm selection for one layer (cudnn_conv_layer.cpp, Reshape()).
cudnnStatus_t caffe_style_reshape(UcudnnHandle_t handle, cudnnTensorDescriptor_t bottom, cudnnFilterDescriptor_t filter,
                                  cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t top,
                                  size_t workspace_limit_bytes, size_t* total_workspace) {
  cudnnConvolutionFwdAlgo_t fwd_algo;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo;
  cudnnConvolutionBwdDataAlgo_t bwd_data_algo;
  size_t fwd = 0, bwd_filter = 0, bwd_data = 0;
  cudnnStatus_t s = cudnnGetConvolutionForwardAlgorithm(handle, bottom, filter, conv, top,
                                                        CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT,
                                                        workspace_limit_bytes, &fwd_algo);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  s = cudnnGetConvolutionForwardWorkspaceSize(handle, bottom, filter, conv, top, fwd_algo, &fwd);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  s = cudnnGetConvolutionBackwardFilterAlgorithm(handle, bottom, top, conv, filter,
                                                 CUDNN_CONVOLUTION_BWD_FILTER_SPECIFY_WORKSPACE_LIMIT,
                                                 workspace_limit_bytes, &bwd_filter_algo);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  s = cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, bottom, top, conv, filter, bwd_filter_algo, &bwd_filter);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  s = cudnnGetConvolutionBackwardDataAlgorithm(handle, filter, top, conv, bottom,
                                               CUDNN_CONVOLUTION_BWD_DATA_SPECIFY_WORKSPACE_LIMIT,
                                               workspace_limit_bytes, &bwd_data_algo);
  if (s != CUDNN_STATUS_SUCCESS) return s;
  s = cudnnGetConvolutionBackwardDataWorkspaceSize(handle, filter, top, conv, bottom, bwd_data_algo, &bwd_data);
  *total_workspace = fwd + bwd_filter + bwd_data;
  return s;
}

TEST(Cudnn7SourceCompatibility, CaffeStyleAlgorithmSelectionCompilesAndRejectsANullHandle) {
  UcudnnHandle_t handle;  // Caffe keeps handles in arrays of this type
  ASSERT_EQ(handle, nullptr);
  size_t total = 123;
  EXPECT_EQ(caffe_style_reshape(handle, nullptr, nullptr, nullptr, nullptr, size_t{8} << 20, &total),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(total, 123u) << "a failed call writes nothing";
  // The legacy enum values are those of cuDNN 7.
  EXPECT_EQ(CUDNN_CONVOLUTION_FWD_NO_WORKSPACE, 0);
  EXPECT_EQ(CUDNN_CONVOLUTION_FWD_PREFER_FASTEST, 1);
  EXPECT_EQ(CUDNN_CONVOLUTION_BWD_DATA_SPECIFY_WORKSPACE_LIMIT, 2);
}

}  // namespace
