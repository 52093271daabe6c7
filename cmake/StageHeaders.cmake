# The installed header tree: include/loom/*.hpp and the tracing headers they include (frontend/,
# ir/, runtime/, support/), all under include/loom/, with their includes of each other spelled
# "loom/ir/IR.h" so that a user's include path holds loom/ only. Staged in the build tree at
# configure time (a changed header configures again) and installed from there.
function(loom_stage_headers out)
  file(GLOB public RELATIVE ${PROJECT_SOURCE_DIR}/include/loom CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/include/loom/*.hpp)
  # What <loom/loom.hpp> includes of loom's own, found with `g++ -MM`; the external example's
  # build against the installed tree (tests/package) fails should one be missing.
  set(tracing
    frontend/Array.h frontend/Assert.h frontend/Complex.h frontend/CompoundAssign.h frontend/Control.h
    frontend/DSL.h
    frontend/DType.h frontend/LocalArray.h frontend/Mma.h frontend/Philox.h frontend/PhiloxIR.h frontend/Print.h
    frontend/Simt.h frontend/Trace.h frontend/Tracer.h frontend/Value.h frontend/Var.h
    frontend/text/Diagnostics.h
    ir/IR.h ir/ParallelRange.h ir/Schedule.h ir/Semantics.h ir/Type.h
    runtime/CudaTypes.h runtime/Device.h runtime/DeviceArray.h runtime/DeviceBuffer.h
    runtime/DriverHandle.h
    runtime/GridShape.h runtime/HostMemory.h runtime/Stream.h
    support/Error.h support/Float16.h support/StridedLayout.h)
  set(pattern "#include \"(frontend|ir|runtime|support)/")
  foreach(header IN LISTS public tracing)
    if(header IN_LIST public)
      set(from ${PROJECT_SOURCE_DIR}/include/loom/${header})
    else()
      set(from ${PROJECT_SOURCE_DIR}/${header})
    endif()
    file(READ ${from} text)
    string(REGEX REPLACE "${pattern}" "#include \"loom/\\1/" text "${text}")
    set(to ${out}/loom/${header})
    set(old "")
    if(EXISTS ${to})
      file(READ ${to} old)
    endif()
    if(NOT old STREQUAL text)
      file(WRITE ${to} "${text}")
    endif()
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${from})
  endforeach()
endfunction()
