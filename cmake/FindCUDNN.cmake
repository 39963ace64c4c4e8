# FindCUDNN: locates cuDNN and defines the imported target CUDNN::cudnn.
# Looks in CUDNN_ROOT (variable or environment), the CUDA toolkit, and the Debian/Ubuntu
# multiarch directories where NVIDIA's packages install it.
# Sets CUDNN_FOUND, CUDNN_INCLUDE_DIR, CUDNN_LIBRARY, CUDNN_VERSION.

set(_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _cudnn_hints ${CUDAToolkit_LIBRARY_ROOT})
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(_dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(_parent "${_dir}" DIRECTORY)
    list(APPEND _cudnn_hints "${_parent}")
  endforeach()
endif()
list(APPEND _cudnn_hints /usr/local/cuda)

find_path(CUDNN_INCLUDE_DIR cudnn.h
  HINTS ${_cudnn_hints}
  PATH_SUFFIXES include
  PATHS /usr/include/x86_64-linux-gnu /usr/include/aarch64-linux-gnu)
find_library(CUDNN_LIBRARY cudnn
  HINTS ${_cudnn_hints}
  PATH_SUFFIXES lib64 lib lib/x64
  PATHS /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu)

if(CUDNN_INCLUDE_DIR AND EXISTS "${CUDNN_INCLUDE_DIR}/cudnn_version.h")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_lines REGEX "#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
  foreach(_part MAJOR MINOR PATCHLEVEL)
    string(REGEX MATCH "CUDNN_${_part} +([0-9]+)" _m "${_cudnn_lines}")
    set(_cudnn_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  set(CUDNN_VERSION "${_cudnn_MAJOR}.${_cudnn_MINOR}.${_cudnn_PATCHLEVEL}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN
  REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR
  VERSION_VAR CUDNN_VERSION)

if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES
    IMPORTED_LOCATION "${CUDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
mark_as_advanced(CUDNN_INCLUDE_DIR CUDNN_LIBRARY)
