# amdml_embed(OUT SRC_DIR PATTERN FUNCTION RECURSE): the rule that generates OUT with
# cmake/embed_files.cmake whenever a matching file under SRC_DIR changes.
function(amdml_embed out src_dir pattern function recurse)
  if(recurse)
    file(GLOB_RECURSE inputs CONFIGURE_DEPENDS ${src_dir}/${pattern})
  else()
    file(GLOB inputs CONFIGURE_DEPENDS ${src_dir}/${pattern})
  endif()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DSRC_DIR=${src_dir} -DOUT=${out} -DPATTERN=${pattern} -DFUNCTION=${function}
            -DRECURSE=${recurse} -P ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
    DEPENDS ${inputs} ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
    COMMENT "Embedding ${pattern} from ${src_dir}"
    VERBATIM)
endfunction()
