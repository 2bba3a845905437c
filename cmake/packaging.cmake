# What `cmake --install` puts where, and the .deb CPack makes of it (scripts/package).
#
#   bin/amdml
#   share/man/man1/amdml.1.gz                          packaging/cli-docs, from --help
#   share/bash-completion/completions/amdml            packaging/cli-docs, from --help
#   share/zsh/vendor-completions/_amdml                packaging/cli-docs, from --help
#   share/fish/vendor_completions.d/amdml.fish         packaging/cli-docs, from --help
#   share/doc/amdml/README.md, *.md, findings/*.md     the docs and one page per finding
#   share/doc/amdml/copyright, changelog.gz     packaging/debian-docs, from LICENSE
#   share/lintian/overrides/amdml                      packaging/lintian-overrides (.deb only)
#   share/amdml/amdml-knowledge.gpg                    the key `amdml update` verifies bundles with
#
# The generated files need python3 and are made with the binary (target amdml_docs, part
# of the default build) in every build but the sanitized one.
include(GNUInstallDirs)
# `make install` and CPack install what is built and build nothing: scripts/package builds
# amdml and amdml_docs first, and the package test must not relink amdml under the suite.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(AMDML_MAINTAINER "The amdml authors <maintainers@users.noreply.a-seed-f0a0008c.example>"
    CACHE STRING "The .deb's Maintainer field and changelog signature")

install(TARGETS amdml RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB AMDML_GUIDES ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${AMDML_GUIDES} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/packaging/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME amdml)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/findings DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")
# The project's knowledge-signing public key (docs/updates.md): AMDML_UPDATE_KEYRING's default.
install(FILES ${CMAKE_SOURCE_DIR}/packaging/amdml-knowledge.gpg DESTINATION ${CMAKE_INSTALL_DATADIR}/amdml)

find_package(Python3 COMPONENTS Interpreter)
if(AMDML_SANITIZE OR NOT Python3_Interpreter_FOUND)
  if(NOT AMDML_SANITIZE)
    message(STATUS "python3 not found: no man page, completions or Debian docs (scripts/package installs it)")
  endif()
  return()
endif()

set(AMDML_PACKAGE_DIR ${CMAKE_BINARY_DIR}/package)
# The generators date the page and the changelog themselves (SOURCE_DATE_EPOCH, else now):
# a date on these command lines would change them at every configure, and the Makefile
# generator deletes the outputs of a command that changed.
set(AMDML_CLI_DOCS ${AMDML_PACKAGE_DIR}/amdml.1.gz ${AMDML_PACKAGE_DIR}/amdml.bash
    ${AMDML_PACKAGE_DIR}/_amdml ${AMDML_PACKAGE_DIR}/amdml.fish)
add_custom_command(
  OUTPUT ${AMDML_CLI_DOCS} ${AMDML_PACKAGE_DIR}/amdml.1
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/packaging/cli-docs $<TARGET_FILE:amdml> ${AMDML_PACKAGE_DIR}
  DEPENDS amdml ${CMAKE_SOURCE_DIR}/packaging/cli-docs
  COMMENT "Man page and shell completions from amdml --help" VERBATIM)
add_custom_command(
  OUTPUT ${AMDML_PACKAGE_DIR}/copyright ${AMDML_PACKAGE_DIR}/changelog.gz
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/packaging/debian-docs ${CMAKE_SOURCE_DIR}/LICENSE
          ${AMDML_PACKAGE_DIR} --amdml $<TARGET_FILE:amdml> --maintainer ${AMDML_MAINTAINER}
  DEPENDS amdml ${CMAKE_SOURCE_DIR}/packaging/debian-docs ${CMAKE_SOURCE_DIR}/LICENSE
  COMMENT "Debian copyright and changelog" VERBATIM)
add_custom_target(amdml_docs ALL DEPENDS ${AMDML_CLI_DOCS} ${AMDML_PACKAGE_DIR}/copyright)

install(FILES ${AMDML_PACKAGE_DIR}/amdml.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${AMDML_PACKAGE_DIR}/amdml.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME amdml)
install(FILES ${AMDML_PACKAGE_DIR}/_amdml DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${AMDML_PACKAGE_DIR}/amdml.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES ${AMDML_PACKAGE_DIR}/copyright ${AMDML_PACKAGE_DIR}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The .deb. Depends is computed by dpkg-shlibdeps from the binary's imports (the C
# runtime only: libstdc++ and libgcc are static, libdrm and HSA are dlopen'ed).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME amdml)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${AMDML_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "doctor and fixer for machine learning on AMD GPUs")
# The extended description (CPack puts the summary above it and indents each line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "amdml says, on one screen, what AMD GPU hardware is there, what the kernel,
KFD, libdrm and the HSA runtime see, and every problem that keeps PyTorch,
ollama or llama.cpp off the GPU, with its cause and the exact fix.

'sudo amdml fix --apply' makes those fixes (group membership, the TTM memory
limit, HSA_OVERRIDE_GFX_VERSION, the ollama service), atomically and
journaled, and 'amdml fix --undo' reverts them. 'amdml check' is the gate
for CI and container images.")
set(CPACK_DEBIAN_FILE_NAME "amdml_${PROJECT_VERSION}_amd64.deb")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS libdrm-amdgpu1)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS rocminfo)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
