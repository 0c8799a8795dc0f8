# Optional CUDA backend (src/cuda). CUZK_CUDA=AUTO (default) enables it when
# a CUDA compiler is found (nvcc on PATH, $CUDACXX, or /usr/local/cuda);
# ON requires it; OFF skips it. Never in sanitizer or fuzzing trees: nvcc
# objects are not instrumented and the host tests (tests/cuda) cover the
# shared arithmetic there. Sets CUZK_HAVE_CUDA.
set(CUZK_CUDA AUTO CACHE STRING "CUDA backend: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE CUZK_CUDA PROPERTY STRINGS AUTO ON OFF)
set(CUZK_HAVE_CUDA OFF)
if(CUZK_SANITIZE OR CUZK_FUZZ)
  if(CUZK_CUDA STREQUAL "ON")
    message(WARNING "cuzk: CUZK_CUDA=ON ignored in a sanitizer/fuzzing build")
  endif()
elseif(NOT CUZK_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(CZ_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
    if(CZ_NVCC)
      set(CMAKE_CUDA_COMPILER ${CZ_NVCC} CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Ampere (A100) SASS, Hopper (H100/H200) SASS + PTX for newer cards
      set(CMAKE_CUDA_ARCHITECTURES 80-real 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CUZK_HAVE_CUDA ON)
  elseif(CUZK_CUDA STREQUAL "ON")
    message(FATAL_ERROR "cuzk: CUZK_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "cuzk: CUDA backend: ${CUZK_HAVE_CUDA}")
