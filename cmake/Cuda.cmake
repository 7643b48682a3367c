# The optional CUDA device runtime, built from csrc/devices/cuda/ when that
# runtime exists and a CUDA compiler is found (EMBER_ENABLE_CUDA=AUTO), or
# forced ON/OFF. The core never depends on it: a device library registers
# itself through DeviceManager and KernelRegistry (docs/adding_a_device.md).
set(EMBER_CUDA_ENABLED OFF)
set(EMBER_CUDA_DIR ${CMAKE_SOURCE_DIR}/csrc/devices/cuda)
if(EMBER_ENABLE_CUDA AND EXISTS ${EMBER_CUDA_DIR}/CMakeLists.txt)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    add_subdirectory(${EMBER_CUDA_DIR})  # sets EMBER_CUDA_ENABLED, target ember_cuda
  endif()
endif()
if(EMBER_ENABLE_CUDA STREQUAL "ON" AND NOT EMBER_CUDA_ENABLED)
  message(FATAL_ERROR "EMBER_ENABLE_CUDA=ON, but no CUDA compiler or CUDA runtime sources were found")
endif()
message(STATUS "Ember CUDA device runtime: ${EMBER_CUDA_ENABLED}")
