# Finds pybind11, the NumPy headers and Eigen: from the Python environment
# (pip build requirements) first, then from the system. Headers from the
# Python environment are used from copies in the build tree (Note [Stable
# dependency paths], cmake/StableCopy.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/StableCopy.cmake)

execute_process(
  COMMAND ${Python_EXECUTABLE} -c "import pybind11; print(pybind11.get_cmake_dir())"
  OUTPUT_VARIABLE EMBER_PYBIND11_DIR OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(EMBER_PYBIND11_DIR)
  set(pybind11_DIR ${EMBER_PYBIND11_DIR})
endif()
find_package(pybind11 CONFIG REQUIRED)
if(EMBER_PYBIND11_DIR AND TARGET pybind11::pybind11_headers)
  ember_stable_copy(pybind11 "${pybind11_VERSION}" "${pybind11_INCLUDE_DIR}" EMBER_PYBIND11_INCLUDE)
  set_property(TARGET pybind11::pybind11_headers PROPERTY INTERFACE_INCLUDE_DIRECTORIES ${EMBER_PYBIND11_INCLUDE})
endif()

execute_process(
  COMMAND ${Python_EXECUTABLE} -c "import numpy; print(numpy.get_include())"
  OUTPUT_VARIABLE EMBER_NUMPY_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE EMBER_NUMPY_RESULT)
if(NOT EMBER_NUMPY_RESULT EQUAL 0)
  message(FATAL_ERROR "NumPy is required to build Ember (pip installs it as a build requirement)")
endif()
ember_python_package_version(numpy EMBER_NUMPY_VERSION)
ember_stable_copy(numpy "${EMBER_NUMPY_VERSION}" "${EMBER_NUMPY_INCLUDE}" EMBER_NUMPY_INCLUDE)

# Eigen: the cmeel-eigen wheel (a build requirement) puts its headers under
# <site-packages>/cmeel.prefix/include/eigen3.
execute_process(
  COMMAND ${Python_EXECUTABLE} -c
          "import sys, os; print(next((os.path.join(p, 'cmeel.prefix', 'include', 'eigen3') for p in sys.path if os.path.isdir(os.path.join(p, 'cmeel.prefix', 'include', 'eigen3'))), ''))"
  OUTPUT_VARIABLE EMBER_EIGEN_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
if(EMBER_EIGEN_INCLUDE)
  ember_python_package_version(cmeel-eigen EMBER_EIGEN_VERSION)
  ember_stable_copy(eigen3 "${EMBER_EIGEN_VERSION}" "${EMBER_EIGEN_INCLUDE}" EMBER_EIGEN_INCLUDE)
else()
  find_package(Eigen3 3.4 QUIET NO_MODULE)  # a system path, already stable
  if(TARGET Eigen3::Eigen)
    get_target_property(EMBER_EIGEN_INCLUDE Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
  endif()
endif()
if(NOT EMBER_EIGEN_INCLUDE)
  message(FATAL_ERROR "Eigen 3.4 not found: `pip install cmeel-eigen` or install libeigen3-dev")
endif()
message(STATUS "Eigen headers: ${EMBER_EIGEN_INCLUDE}")
add_library(ember_eigen INTERFACE)
target_include_directories(ember_eigen SYSTEM INTERFACE ${EMBER_EIGEN_INCLUDE})
# Eigen's own OpenMP/BLAS backends stay off: parallelism comes from our pool.
target_compile_definitions(ember_eigen INTERFACE EIGEN_DONT_PARALLELIZE EIGEN_USE_THREADS)
