# poslab_warnings(TARGET): the warnings every PosLab target compiles its own code with, in one
# place so that no target drifts from the others. Third-party headers come in as SYSTEM and
# stay quiet. nvcc takes host-compiler warnings through -Xcompiler: CUDA sources keep -Wall.
function(poslab_warnings target)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wpedantic>"
                                           "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>")
endfunction()
