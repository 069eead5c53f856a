# Runs the CLI once and checks its exit code and the text it prints.
#   -DCLI=path -DARGS="a@@b@@c" (@@ separates arguments) -DEXPECT_RC=N -DEXPECT_TEXT=regex [-DSETUP=cmd;args]
# SETUP_WRITE / SETUP_TRUNCATE (optional) prepare a bad input file first.
if(DEFINED SETUP_WRITE)
  # SETUP_WRITE = "path|content": writes a file for bad-input cases.
  string(FIND "${SETUP_WRITE}" "|" bar)
  string(SUBSTRING "${SETUP_WRITE}" 0 ${bar} write_path)
  math(EXPR start "${bar} + 1")
  string(SUBSTRING "${SETUP_WRITE}" ${start} -1 write_content)
  file(WRITE "${write_path}" "${write_content}")
endif()
if(DEFINED SETUP_TRUNCATE)
  # SETUP_TRUNCATE = "src|dst|bytes": copies the first bytes of src to dst.
  string(REPLACE "|" ";" parts "${SETUP_TRUNCATE}")
  list(GET parts 0 src)
  list(GET parts 1 dst)
  list(GET parts 2 n)
  execute_process(COMMAND head -c ${n} "${src}" OUTPUT_FILE "${dst}")
endif()
string(REPLACE "@@" ";" ARGS "${ARGS}")
execute_process(COMMAND "${CLI}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\n--- output ---\n${all}")
endif()
if(NOT all MATCHES "${EXPECT_TEXT}")
  message(FATAL_ERROR "output does not match '${EXPECT_TEXT}'\n--- output ---\n${all}")
endif()
message("ok: ${all}")
