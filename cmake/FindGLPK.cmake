# FindGLPK: locates the GNU Linear Programming Kit and defines the imported target GLPK::GLPK.
# Sets GLPK_FOUND, GLPK_INCLUDE_DIR, GLPK_LIBRARY.

find_path(GLPK_INCLUDE_DIR glpk.h HINTS ${GLPK_ROOT} $ENV{GLPK_ROOT} PATH_SUFFIXES include)
find_library(GLPK_LIBRARY glpk HINTS ${GLPK_ROOT} $ENV{GLPK_ROOT} PATH_SUFFIXES lib lib64)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(GLPK REQUIRED_VARS GLPK_LIBRARY GLPK_INCLUDE_DIR)

if(GLPK_FOUND AND NOT TARGET GLPK::GLPK)
  add_library(GLPK::GLPK UNKNOWN IMPORTED)
  set_target_properties(GLPK::GLPK PROPERTIES
    IMPORTED_LOCATION "${GLPK_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${GLPK_INCLUDE_DIR}")
endif()
mark_as_advanced(GLPK_INCLUDE_DIR GLPK_LIBRARY)
