#pragma once
/// \file version.h
/// The ucudnn release this header belongs to. The top-level CMakeLists.txt reads the project
/// version from these lines, so this file is its one source. C and C++.
///
/// UCUDNN_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, so that `#if UCUDNN_VERSION >= 200`
/// works as cuDNN's CUDNN_VERSION does; ucudnnGetVersion() returns the same number for the
/// library that was loaded, which may be newer than the header a program was compiled with.

#define UCUDNN_VERSION_MAJOR 0
#define UCUDNN_VERSION_MINOR 2
#define UCUDNN_VERSION_PATCH 0

#define UCUDNN_VERSION (UCUDNN_VERSION_MAJOR * 10000 + UCUDNN_VERSION_MINOR * 100 + UCUDNN_VERSION_PATCH)
