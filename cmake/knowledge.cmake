# The built-in knowledge base: tools/knowledge_gen.cpp loads recipes/knowledge/*.toml with
# the run-time loader (src/formats/knowledge_toml.cpp) and writes OUT, C++ tables defining
# builtin_knowledge() (src/platform/embedded.hpp), so amdml parses no TOML at start.
# `--recipes DIR` still loads TOML at run time. Call after the formats layer exists.
function(amdml_builtin_knowledge out)
  add_executable(amdml_knowledge_gen ${CMAKE_SOURCE_DIR}/tools/knowledge_gen.cpp)
  target_link_libraries(amdml_knowledge_gen PRIVATE amdml_options amdml_formats amdml_model)
  file(GLOB inputs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/recipes/knowledge/*.toml)
  add_custom_command(
    OUTPUT ${out}
    COMMAND amdml_knowledge_gen ${out} ${CMAKE_SOURCE_DIR}/recipes
    DEPENDS amdml_knowledge_gen ${inputs}
    COMMENT "Compiling recipes/knowledge/*.toml into tables"
    VERBATIM)
endfunction()
