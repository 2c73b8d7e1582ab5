# cmake -DPROGRAM=... -DCASE=... -DEXPECT=<regex> -P expect_stop.cmake
# Passes when `PROGRAM CASE` exits non-zero and its output matches EXPECT, i.e. the program
# was stopped for the expected reason (WILL_FAIL alone would accept any crash).
execute_process(COMMAND ${PROGRAM} ${CASE} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${CASE}: exited with 0; the program was not stopped\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "${CASE}: exit ${rc}, but the output lacks '${EXPECT}':\n${out}${err}")
endif()
message(STATUS "${CASE}: stopped (exit ${rc}) with the expected message")
