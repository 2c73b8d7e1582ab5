# cmake -DBUILD_DIR=... -DCONSUMER=... -DWORK=... -DC_COMPILER=... -DFortran_COMPILER=...
#       [-DSANITIZE=address,...] -P install_test.cmake
# Installs minv from BUILD_DIR into WORK/prefix, then configures, builds and runs the
# consumer project against it: the installed .mod files and minv::minv are all it needs.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix)
file(GLOB mods ${WORK}/prefix/include/minv/*/minv_mod.mod)
if(NOT mods)
  message(FATAL_ERROR "no minv_mod.mod under ${WORK}/prefix/include/minv/<compiler>/")
endif()
# A sanitized libminv needs its runtime first in the consumer too.
if(SANITIZE)
  set(san_flags -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} ${san_flags})
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/consumer)
