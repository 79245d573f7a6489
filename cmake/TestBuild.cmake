# poslab_test_build(TARGET...): test drivers compile at -O1 in a Release build. Their code sets
# up inputs and compares results; the code under test (the core, the CLI) keeps the build's
# -O3. -O1 compiles a test file about 30 % faster (probe_cases.cpp 29.5 s -> 18.2 s,
# lm_cli_test.cpp 15.9 s -> 10.6 s) and is what the sanitizer build uses anyway.
function(poslab_test_build)
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE "$<$<CONFIG:Release>:-O1>")
  endforeach()
endfunction()
