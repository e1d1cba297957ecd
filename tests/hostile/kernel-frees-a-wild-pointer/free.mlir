// Calls libc's free on x + 16, memory malloc never gave out: glibc
// aborts ("free(): invalid pointer"), SIGABRT. In kperf's own process a kernel
// calling into the allocator like this could corrupt kperf's heap instead.
module {
  llvm.func @free(!llvm.ptr)
  func.func @wild_free(%x: memref<?xi64>) attributes {kperf.kernel} {
    %base = memref.extract_aligned_pointer_as_index %x : memref<?xi64> -> index
    %b = arith.index_cast %base : index to i64
    %c16 = arith.constant 16 : i64
    %a = arith.addi %b, %c16 : i64
    %p = llvm.inttoptr %a : i64 to !llvm.ptr
    llvm.call @free(%p) : (!llvm.ptr) -> ()
    return
  }
}
