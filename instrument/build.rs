//! Compiles the one C++ helper the LLVM C API lacks (cxx/llvm_options.cpp)
//! against the LLVM headers the -sys crates use.

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-changed=cxx/llvm_options.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    cc::Build::new()
        .cpp(true)
        .file("cxx/llvm_options.cpp")
        .include(format!("{prefix}/include"))
        .flag("-std=c++17")
        // LLVM is built without RTTI and exceptions; match it.
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .warnings(false)
        .compile("kperf_llvm_options");
}
