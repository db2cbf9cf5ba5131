# CCLX_WITH_CUDA: the device backend (cclx::CudaBackend, docs/cuda.md). On by default when a CUDA
# toolkit with nvcc is found; the host-only build is unchanged without it. nvcc compiles one
# translation unit (the reduction kernels, lib/cuda/reduce_kernels.cu) for one real architecture
# plus PTX; everything else is ordinary C++ against the CUDA runtime's headers.
include(CheckLanguage)
check_language(CUDA)
set(cclx_cuda_default OFF)
if(CMAKE_CUDA_COMPILER)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(cclx_cuda_default ON)
  endif()
endif()
option(CCLX_WITH_CUDA "Build the CUDA device backend (cclx::CudaBackend)" ${cclx_cuda_default})
if(CCLX_WITH_CUDA)
  # sm_90 (H100) machine code plus its PTX, which the driver JIT-compiles for later GPUs. Other
  # GPUs: -DCMAKE_CUDA_ARCHITECTURES=80-real;80-virtual (or native).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "cclx: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "cclx: CUDA backend OFF")
endif()
