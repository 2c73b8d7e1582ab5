# cmake -DBUILD_DIR=... -DCONSUMER=... -DWORK=... -DC_COMPILER=... -DFortran_COMPILER=...
#       [-DSANITIZE=address,...] [-DFAKE_DRIVER=folder of a stand-in libcuda.so.1] -P install_test.cmake
# Installs minv from BUILD_DIR into WORK/prefix, then builds and runs the consumer programs
# the ways the README gives: find_package against the install and against the build tree,
# from a C and Fortran project and from a Fortran-only one configured with CUDA hidden (a
# consumer needs neither a C compiler nor CUDA), and a bare compiler line with pkg-config's
# flags (clean absolute paths). Neither the consumer nor libminv nor the installed command
# needs a CUDA library (ldd). Then the install made CPU-only by removing the CUDA plugin: the
# Fortran-only consumer runs on the CPU, and asked for the GPU it gets MINV_ERR_NO_GPU with a
# message that says why. With a stand-in NVIDIA driver that claims a device (FAKE_DRIVER), the
# installed plugin is found beside libminv and opened (its CUDA runtime then fails), and once
# removed, it is said to be missing. The installed command line must run from there as it is.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}${err}")
  endif()
  message(STATUS "${out}")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()
# run(...) and its output must match regex
function(expect regex)
  run(${ARGN})
  if(NOT run_output MATCHES "${regex}")
    message(FATAL_ERROR "${ARGN}: expected output matching \"${regex}\", got:\n${run_output}")
  endif()
endfunction()
# No CUDA library among what the dynamic linker loads for file.
function(no_cuda_needed file)
  run(ldd ${file})
  if(run_output MATCHES "lib(cuda|cudart|cublas|cublasLt|cusolver|cusparse)[.]so")
    message(FATAL_ERROR "${file} needs a CUDA library:\n${run_output}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
file(GLOB mods ${WORK}/prefix/include/minv/*/minv_mod.mod)
if(NOT mods)
  message(FATAL_ERROR "no minv_mod.mod under ${WORK}/prefix/include/minv/<compiler>/")
endif()
file(GLOB libminv ${WORK}/prefix/lib*/libminv.so ${WORK}/prefix/lib/*/libminv.so)
file(GLOB plugin ${WORK}/prefix/lib*/libminv_cuda.so ${WORK}/prefix/lib/*/libminv_cuda.so)
# A sanitized libminv needs its runtime first in the consumer too.
if(SANITIZE)
  set(san_flags -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
set(compilers -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} ${san_flags})
# find_package(CUDAToolkit) fails in these projects, as on a machine without CUDA
set(fortran_only -DCONSUMER_LANGUAGES=Fortran -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} ${san_flags}
                 -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)

# C and Fortran projects, against the install and the build tree
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix ${compilers})
run(${CMAKE_COMMAND} --build ${WORK}/build)
expect("consumer: backend (cpu|gpu)" ${WORK}/build/consumer)
expect("consumer_c: backend (cpu|gpu): success" ${WORK}/build/consumer_c)
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build-tree -Dminv_DIR=${BUILD_DIR} ${compilers})
run(${CMAKE_COMMAND} --build ${WORK}/build-tree)
run(${WORK}/build-tree/consumer)
run(${WORK}/build-tree/consumer_c)

# Fortran-only projects, against the install and the build tree
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/fortran -DCMAKE_PREFIX_PATH=${WORK}/prefix ${fortran_only})
run(${CMAKE_COMMAND} --build ${WORK}/fortran)
run(${WORK}/fortran/consumer)
if(EXISTS ${WORK}/fortran/consumer_c)
  message(FATAL_ERROR "the Fortran-only project built a C program: it enabled C")
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/fortran-tree -Dminv_DIR=${BUILD_DIR} ${fortran_only})
run(${CMAKE_COMMAND} --build ${WORK}/fortran-tree)
run(${WORK}/fortran-tree/consumer)
no_cuda_needed(${WORK}/fortran/consumer)
no_cuda_needed(${WORK}/build/consumer_c)
if(libminv)
  no_cuda_needed(${libminv})
endif()

# a bare compiler line with pkg-config's flags, whose paths are plain
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pcs ${WORK}/prefix/lib*/pkgconfig/minv.pc ${WORK}/prefix/lib/*/pkgconfig/minv.pc) # lib, lib64, lib/<triplet>
get_filename_component(pcdir "${pcs}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
if(NOT libminv)
  set(pc_static --static) # a static libminv: its dependencies too
endif()
execute_process(COMMAND ${PKG_CONFIG} ${pc_static} --cflags --libs minv OUTPUT_VARIABLE pc_flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs minv failed in ${pcdir}")
endif()
if(pc_flags MATCHES "/[.][.]/|//" OR NOT pc_flags MATCHES "-Wl,-rpath,${WORK}/prefix/lib")
  message(FATAL_ERROR "pkg-config's flags are not plain paths into ${WORK}/prefix: ${pc_flags}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
if(SANITIZE)
  set(san_link -fsanitize=${SANITIZE})
endif()
run(${Fortran_COMPILER} ${CONSUMER}/consumer.f90 -o ${WORK}/consumer-pc ${pc_flags} ${san_link})
run(${WORK}/consumer-pc)
if(EXISTS ${WORK}/prefix/bin/minv)
  run(${WORK}/prefix/bin/minv --version)
  no_cuda_needed(${WORK}/prefix/bin/minv)
endif()
# minv-mpi (which `mpirun -np P minv ...` hands over to) loads libminv_mpi and, through it,
# libminv from the install alone
if(EXISTS ${WORK}/prefix/bin/minv-mpi)
  run(ldd ${WORK}/prefix/bin/minv-mpi)
  if(run_output MATCHES "not found")
    message(FATAL_ERROR "the installed minv-mpi lacks libraries:\n${run_output}")
  endif()
  # leaks not looked for: Open MPI's components, opened and closed again by MPI_Init, leave
  # allocations whose stacks no suppression can name (scripts/lsan.supp names its libraries)
  run(${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 ${WORK}/prefix/bin/minv-mpi --version)
endif()

if(plugin AND FAKE_DRIVER)
  set(with_fake ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${FAKE_DRIVER}:$ENV{LD_LIBRARY_PATH}")
  expect("no usable GPU: (no usable CUDA device|NVIDIA driver too old)" ${with_fake} ${WORK}/fortran/consumer gpu)
endif()

# The install made CPU-only: no CUDA plugin. AUTO runs on the CPU; the GPU asked for fails
# with NO_GPU and says why (no driver or device where there is none, else no plugin).
if(plugin)
  file(REMOVE ${plugin})
  expect("consumer: backend cpu" ${WORK}/fortran/consumer)
  expect("consumer: minv_init: no usable GPU: could not create a context with backend gpu.*no usable GPU: (no NVIDIA driver|no CUDA device|the CUDA plugin libminv_cuda.so was not found)"
         ${WORK}/fortran/consumer gpu)
  # named where it is not: said so, whatever the machine
  expect("no usable GPU: the CUDA plugin ${plugin} [(]MINV_CUDA_PLUGIN[)] was not found"
         ${CMAKE_COMMAND} -E env MINV_CUDA_PLUGIN=${plugin} ${WORK}/fortran/consumer gpu)
  expect("consumer: backend cpu" ${CMAKE_COMMAND} -E env MINV_CUDA_PLUGIN=${plugin} ${WORK}/fortran/consumer)
  if(FAKE_DRIVER)
    get_filename_component(libdir ${plugin} DIRECTORY)
    expect("no usable GPU: the CUDA plugin libminv_cuda.so was not found beside ${libdir}"
           ${with_fake} ${WORK}/fortran/consumer gpu)
  endif()
else()
  expect("consumer: backend cpu" ${WORK}/fortran/consumer)
  expect("no usable GPU: .*minv was built without CUDA" ${WORK}/fortran/consumer gpu)
endif()
