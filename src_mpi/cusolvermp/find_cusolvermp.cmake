# cuSOLVERMp and NCCL from the PyPI wheels (nvidia-cusolvermp-cu13, and for cuSOLVERMp 0.9
# nvidia-cublasmp-cu13 and nvidia-nccl-cu13 >= 2.29: CUDA 13.0's own NCCL, 2.28, lacks the
# ncclCommQueryProperties that 0.9 calls). cuSOLVERMp 0.8 needs neither cuBLASMp nor a newer
# NCCL: CUDA's own NCCL serves it, which makes it the one to carry to a machine whose NCCL is
# CUDA's. Sets MINV_MPI_HAVE_CUSOLVERMP and the MINV_CUSOLVERMP_* / MINV_NCCL_* paths.
set(MINV_CUSOLVERMP_ROOT "" CACHE PATH
    "Folder holding the unpacked cuSOLVERMp wheel (and for 0.9 the cuBLASMp and NCCL ones): their nvidia/ folder")
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

find_path(MINV_CUSOLVERMP_INCLUDE_DIR cusolverMp.h PATHS ${_roots} PATH_SUFFIXES nvidia/cu13/include NO_DEFAULT_PATH)
find_library(MINV_CUSOLVERMP_LIBRARY NAMES cusolverMp libcusolverMp.so.0
             PATHS ${_roots} PATH_SUFFIXES nvidia/cu13/lib NO_DEFAULT_PATH)
# NCCL: a wheel's, else CUDA's own
find_path(MINV_NCCL_INCLUDE_DIR nccl.h PATHS ${_roots} PATH_SUFFIXES nvidia/nccl/include NO_DEFAULT_PATH)
find_path(MINV_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(MINV_NCCL_LIBRARY NAMES nccl libnccl.so.2 PATHS ${_roots} PATH_SUFFIXES nvidia/nccl/lib NO_DEFAULT_PATH)
find_library(MINV_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib)
find_library(MINV_CUBLASMP_LIBRARY NAMES cublasmp libcublasmp.so.0
             PATHS ${_roots} PATH_SUFFIXES nvidia/cublasmp/cu13/lib NO_DEFAULT_PATH)

function(_minv_header_number file regex out)
  set(value 0)
  if(file AND EXISTS ${file})
    file(STRINGS ${file} line REGEX "${regex}")
    string(REGEX REPLACE ".* ([0-9]+).*$" "\\1" value "${line}")
  endif()
  set(${out} ${value} PARENT_SCOPE)
endfunction()
_minv_header_number("${MINV_CUSOLVERMP_INCLUDE_DIR}/cusolverMp.h" "^#define CUSOLVERMP_VER_MINOR [0-9]+" _mp_minor)
_minv_header_number("${MINV_NCCL_INCLUDE_DIR}/nccl.h" "^#define NCCL_VERSION_CODE [0-9]+" _nccl_version)

set(_why "")
if(NOT MINV_CUSOLVERMP_INCLUDE_DIR OR NOT MINV_CUSOLVERMP_LIBRARY)
  set(_why "cuSOLVERMp not found (scripts/fetch-cusolvermp.sh, or -DMINV_CUSOLVERMP_ROOT)")
elseif(NOT MINV_NCCL_LIBRARY OR NOT MINV_NCCL_INCLUDE_DIR)
  set(_why "NCCL not found")
elseif(_mp_minor GREATER_EQUAL 9 AND (_nccl_version LESS 22900 OR NOT MINV_CUBLASMP_LIBRARY))
  set(_why "cuSOLVERMp 0.${_mp_minor} needs NCCL >= 2.29 (found ${_nccl_version}) and cuBLASMp beside it")
elseif(_mp_minor LESS 8)
  set(_why "cuSOLVERMp 0.${_mp_minor} is older than the 0.8 minv was written for")
endif()
if(_why)
  message(STATUS "minv: ${_why}; the MPI layer runs on CPUs only")
else()
  set(MINV_MPI_HAVE_CUSOLVERMP 1)
  message(STATUS "minv: cuSOLVERMp 0.${_mp_minor} ${MINV_CUSOLVERMP_LIBRARY}, NCCL ${_nccl_version} ${MINV_NCCL_LIBRARY}")
endif()
