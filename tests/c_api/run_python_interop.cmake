# ctest driver: fails with a clear message when the interpreter is missing
# instead of skipping, then runs python_interop.py with it.
#   -DPYTHON=... -DMODE=legacy|current -DMODEL=... -DSCRIPT=...
if(NOT EXISTS "${PYTHON}")
  message(FATAL_ERROR "python interop test: interpreter ${PYTHON} not found "
                      "(run scripts/setup.sh: Debian python3-onnx / the .venv with onnx+onnxruntime)")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" ${MODE} "${MODEL}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python interop (${MODE}) failed with ${PYTHON}:\n${err}")
endif()
