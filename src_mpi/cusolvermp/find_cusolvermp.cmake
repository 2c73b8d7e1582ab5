# cuSOLVERMp and NCCL >= 2.29 from the PyPI wheels (nvidia-cusolvermp-cu13, nvidia-cublasmp-cu13,
# nvidia-nccl-cu13): CUDA's own NCCL (2.28 in CUDA 13.0) lacks ncclCommQueryProperties, which
# cuSOLVERMp 0.9 calls. Sets MINV_MPI_HAVE_CUSOLVERMP and the MINV_CUSOLVERMP_* paths.
set(MINV_CUSOLVERMP_ROOT "" CACHE PATH
    "Folder holding the unpacked cuSOLVERMp, cuBLASMp and NCCL wheels (their nvidia/ folder)")
set(_roots ${MINV_CUSOLVERMP_ROOT})
if(NOT MINV_CUSOLVERMP_ROOT)
  list(APPEND _roots ${PROJECT_SOURCE_DIR}/deps/cusolvermp)
  find_package(Python3 QUIET COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c
                    "import site, sysconfig; print(';'.join(site.getsitepackages() + [site.getusersitepackages(), sysconfig.get_paths()['purelib']]))"
                    OUTPUT_VARIABLE _site OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND _roots ${_site})
  endif()
endif()

find_path(MINV_CUSOLVERMP_INCLUDE_DIR cusolverMp.h
          PATHS ${_roots} PATH_SUFFIXES nvidia/cu13/include NO_DEFAULT_PATH)
find_library(MINV_CUSOLVERMP_LIBRARY NAMES cusolverMp libcusolverMp.so.0
             PATHS ${_roots} PATH_SUFFIXES nvidia/cu13/lib NO_DEFAULT_PATH)
find_path(MINV_NCCL_INCLUDE_DIR nccl.h PATHS ${_roots} PATH_SUFFIXES nvidia/nccl/include NO_DEFAULT_PATH)
find_library(MINV_NCCL_LIBRARY NAMES nccl libnccl.so.2 PATHS ${_roots} PATH_SUFFIXES nvidia/nccl/lib NO_DEFAULT_PATH)
find_library(MINV_CUBLASMP_LIBRARY NAMES cublasmp libcublasmp.so.0
             PATHS ${_roots} PATH_SUFFIXES nvidia/cublasmp/cu13/lib NO_DEFAULT_PATH)

set(_nccl_version 0)
if(MINV_NCCL_INCLUDE_DIR)
  file(STRINGS ${MINV_NCCL_INCLUDE_DIR}/nccl.h _code REGEX "^#define NCCL_VERSION_CODE [0-9]+")
  string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _nccl_version "${_code}")
endif()
if(MINV_CUSOLVERMP_INCLUDE_DIR AND MINV_CUSOLVERMP_LIBRARY AND MINV_NCCL_LIBRARY AND MINV_CUBLASMP_LIBRARY
   AND _nccl_version GREATER_EQUAL 22900)
  set(MINV_MPI_HAVE_CUSOLVERMP 1)
  message(STATUS "minv: cuSOLVERMp ${MINV_CUSOLVERMP_LIBRARY}, NCCL ${_nccl_version} ${MINV_NCCL_LIBRARY}")
elseif(MINV_CUSOLVERMP_INCLUDE_DIR)
  message(STATUS "minv: cuSOLVERMp found but not NCCL >= 2.29 (${_nccl_version}) and cuBLASMp beside it; the GPU half of the MPI layer is not built")
else()
  message(STATUS "minv: cuSOLVERMp not found (scripts/fetch-cusolvermp.sh, or -DMINV_CUSOLVERMP_ROOT); the MPI layer runs on CPUs only")
endif()
