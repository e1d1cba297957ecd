//! Code the integration tests share. Each test binary compiles this module
//! on its own and uses part of it.
#![allow(dead_code)]

pub mod fidelity;

/// `check` over `items` in two halves on two threads, the results in item
/// order: each item runs LLVM and ptxas, and this host has two cores.
pub fn in_two_halves<T: Sync, R: Send>(
    items: &[T],
    check: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let (a, b) = items.split_at(items.len() / 2);
    std::thread::scope(|s| {
        let first = s.spawn(|| check(a));
        let second = check(b);
        let mut all = first.join().expect("checker thread");
        all.extend(second);
        all
    })
}
