# The structure checks' inputs for one lesson side: the PTX of every .cu file
# (compute_80, so Tensor Core and bf16 instructions appear) concatenated into
# OUT.ptx, and `ptxas -v` for each of ARCHS into OUT.ptxas.txt.
# Inputs: NVCC, SOURCES, INCLUDES, ARCHS, OUT.
set(flags -std=c++17 -O3)
foreach(inc IN LISTS INCLUDES)
  list(APPEND flags -I${inc})
endforeach()
set(gencode "")
foreach(arch IN LISTS ARCHS)
  list(APPEND gencode -gencode arch=compute_${arch},code=sm_${arch})
endforeach()
set(ptx "")
set(log "")
foreach(src IN LISTS SOURCES)
  execute_process(COMMAND ${NVCC} ${flags} -ptx -arch=compute_80 ${src} -o ${OUT}.part.ptx
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "PTX of ${src} failed:\n${err}")
  endif()
  file(READ ${OUT}.part.ptx part)
  string(APPEND ptx "// ---- ${src}\n${part}")
  execute_process(COMMAND ${NVCC} ${flags} ${gencode} -Xptxas -v -c ${src} -o ${OUT}.part.o
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ptxas -v of ${src} failed:\n${err}")
  endif()
  string(APPEND log "---- ${src}\n${out}${err}")
endforeach()
file(REMOVE ${OUT}.part.ptx ${OUT}.part.o)
file(WRITE ${OUT}.ptx "${ptx}")
file(WRITE ${OUT}.ptxas.txt "${log}")
