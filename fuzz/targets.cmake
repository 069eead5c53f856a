# The fuzz targets, shared by the libFuzzer build (fuzz/CMakeLists.txt) and
# the replay regression test (tests/hostile/CMakeLists.txt).
#   mx_fuzz_add_targets(FUZZ)    -> fuzz_<name>   linked with -fsanitize=fuzzer
#   mx_fuzz_add_targets(REPLAY)  -> replay_<name> with fuzz/replay_main.cpp
set(MX_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(MX_FUZZ_TARGETS onnx_model hierarchy_json strategy_response input_spec dynamo_metadata
    supplied_hierarchy usage_request save_destination pt2_archive pt2_program)

function(mx_fuzz_add_targets mode)
  set(root ${MX_FUZZ_DIR}/..)
  # Torch-free sources of plugins, compiled into the drivers directly.
  add_library(mx_fuzz_support_${mode} STATIC
    ${root}/tests/support/fixture_model.cpp
    ${root}/plugins/torchscript/src/spec.cpp)
  # The torchscript sources stay off the shared include path: both
  # frontends have an exporter.hpp, and the pt2 targets mean the other one.
  target_include_directories(mx_fuzz_support_${mode} PUBLIC ${root}/tests/support ${MX_FUZZ_DIR})
  target_include_directories(mx_fuzz_support_${mode} PRIVATE ${root}/plugins/torchscript/src)
  target_link_libraries(mx_fuzz_support_${mode} PUBLIC
    modelexport_internal mx_strategy_metadata_logic mx_strategy_usage_logic mxte_core)
  foreach(name ${MX_FUZZ_TARGETS})
    if(mode STREQUAL FUZZ)
      set(exe fuzz_${name})
      add_executable(${exe} ${MX_FUZZ_DIR}/targets/${name}.cpp)
      target_link_options(${exe} PRIVATE -fsanitize=fuzzer)
    else()
      set(exe replay_${name})
      add_executable(${exe} ${MX_FUZZ_DIR}/targets/${name}.cpp ${MX_FUZZ_DIR}/replay_main.cpp)
    endif()
    target_link_libraries(${exe} PRIVATE mx_fuzz_support_${mode})
    if(name STREQUAL input_spec)
      target_include_directories(${exe} PRIVATE ${root}/plugins/torchscript/src)
    endif()
  endforeach()
endfunction()
