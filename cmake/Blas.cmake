# The BLAS and LAPACK library behind float32/float64 GEMM and every matrix
# decomposition: OpenBLAS from the scipy-openblas32 wheel (a build
# requirement and a runtime dependency in pyproject.toml), found through the
# package's own helpers. Without it the Eigen GEMM is used
# (docs/performance.md, "GEMM and convolution") and the decompositions are
# left out (Note [LAPACK for decompositions] in csrc/kernels/cpu/lapack.h).
#
# EMBER_WITH_OPENBLAS: AUTO (the default: on when the wheel is found), ON
# (an error when it is not) or OFF.
set(EMBER_WITH_OPENBLAS "AUTO" CACHE STRING "Use OpenBLAS from the scipy-openblas32 wheel for GEMM: ON, OFF or AUTO")
set(EMBER_OPENBLAS_ENABLED OFF)
add_library(ember_blas INTERFACE)
if(EMBER_WITH_OPENBLAS)
  execute_process(
    COMMAND ${Python_EXECUTABLE} -c
            "import os, scipy_openblas32 as s; print(s.get_include_dir()); print(os.path.join(s.get_lib_dir(), s.get_library(True))); print(s.__version__)"
    OUTPUT_VARIABLE EMBER_OPENBLAS_INFO OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE EMBER_OPENBLAS_RESULT ERROR_QUIET)
  if(EMBER_OPENBLAS_RESULT EQUAL 0)
    string(REPLACE "\n" ";" EMBER_OPENBLAS_INFO "${EMBER_OPENBLAS_INFO}")
    list(GET EMBER_OPENBLAS_INFO 0 EMBER_OPENBLAS_INCLUDE)
    list(GET EMBER_OPENBLAS_INFO 1 EMBER_OPENBLAS_LIBRARY)
    list(GET EMBER_OPENBLAS_INFO 2 EMBER_OPENBLAS_VERSION)
    if(EXISTS ${EMBER_OPENBLAS_INCLUDE}/cblas.h AND EXISTS ${EMBER_OPENBLAS_LIBRARY})
      set(EMBER_OPENBLAS_ENABLED ON)
      # Note [Stable dependency paths] (cmake/StableCopy.cmake): the wheel's
      # headers and library, from copies in the build tree.
      get_filename_component(EMBER_OPENBLAS_LIBRARY_DIR ${EMBER_OPENBLAS_LIBRARY} DIRECTORY)
      get_filename_component(EMBER_OPENBLAS_LIBRARY_NAME ${EMBER_OPENBLAS_LIBRARY} NAME)
      ember_stable_copy(openblas-include "${EMBER_OPENBLAS_VERSION}" "${EMBER_OPENBLAS_INCLUDE}" EMBER_OPENBLAS_INCLUDE)
      ember_stable_copy(openblas-lib "${EMBER_OPENBLAS_VERSION}" "${EMBER_OPENBLAS_LIBRARY_DIR}" EMBER_OPENBLAS_LIBRARY_DIR)
      set(EMBER_OPENBLAS_LIBRARY ${EMBER_OPENBLAS_LIBRARY_DIR}/${EMBER_OPENBLAS_LIBRARY_NAME})
    endif()
  endif()
endif()
if(EMBER_WITH_OPENBLAS STREQUAL "ON" AND NOT EMBER_OPENBLAS_ENABLED)
  message(FATAL_ERROR "EMBER_WITH_OPENBLAS=ON, but the scipy-openblas32 package was not found: `pip install scipy-openblas32`")
endif()
if(EMBER_OPENBLAS_ENABLED)
  target_include_directories(ember_blas SYSTEM INTERFACE ${EMBER_OPENBLAS_INCLUDE})
  # Not linked: loaded on first use (Note [OpenBLAS on first use] in
  # csrc/kernels/cpu/openblas.h), from _C's rpath or, for the C++ tests,
  # the build tree's copy.
  target_compile_definitions(ember_blas INTERFACE EMBER_WITH_OPENBLAS
                             EMBER_OPENBLAS_WHEEL_VERSION="${EMBER_OPENBLAS_VERSION}"
                             EMBER_OPENBLAS_BUILD_LIBRARY="${EMBER_OPENBLAS_LIBRARY}")
  message(STATUS "Ember GEMM: OpenBLAS ${EMBER_OPENBLAS_VERSION} (${EMBER_OPENBLAS_LIBRARY})")
else()
  message(WARNING "Ember: scipy-openblas32 not used: GEMM runs on Eigen and the matrix decompositions "
                  "(ember.linalg's inv, det, solve, cholesky, qr, eigh, svd, lstsq) are not built. "
                  "`pip install scipy-openblas32` and reconfigure to have them.")
endif()

# Installed layout: site-packages/ember/_C*.so next to
# site-packages/scipy_openblas32/lib/libscipy_openblas.so: the loader finds
# it through this rpath. When the two land in different site-packages
# directories, ember/__init__.py passes the package's directory instead.
function(ember_set_blas_rpath target)
  if(EMBER_OPENBLAS_ENABLED)
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/../scipy_openblas32/lib")
  endif()
endfunction()
