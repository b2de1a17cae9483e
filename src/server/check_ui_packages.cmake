# Fails the UI build with a clear message when ui/node_modules is missing, instead of a
# cryptic "vite: not found". scripts/bootstrap.sh (run by make) installs the packages.
if(NOT EXISTS "${UI_SOURCE_DIR}/node_modules/.package-lock.json")
  message(FATAL_ERROR "The web UI's packages are not installed: run `npm ci` in ${UI_SOURCE_DIR} "
                      "(scripts/bootstrap.sh does it), or configure with -DMLPROF_WITH_UI=OFF.")
endif()
