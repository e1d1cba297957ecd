//! Code the integration tests share. Each test binary compiles this module
//! on its own and uses part of it.
#![allow(dead_code)]

pub mod fidelity;
