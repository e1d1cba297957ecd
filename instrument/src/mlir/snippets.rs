//! The lowering templates as LLVM IR functions, for the LLVM-IR path.
//!
//! The MLIR path splices each template's body in place; the LLVM-IR path
//! calls the very same templates as functions and inlines them. Both start
//! from the text in [`super::templates`], so one definition of the record
//! sequence serves both paths: this module only renames the templates,
//! lowers them to the LLVM dialect and translates them to LLVM IR.

use super::lower::template_prelude;
use super::pipeline::translate_to_llvm_ir;
use super::templates::{self, LoweringConfig};
use super::KperfContext;
use crate::error::Result;
use kperf_dialects::abi::{Edge, RegionId};

/// Upstream passes from the templates' func/scf/arith/index ops to the LLVM
/// dialect (NVVM and ROCDL ops translate as they are).
const SNIPPET_LOWERING: &str = "convert-scf-to-cf,convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts";

/// Symbol names of one kernel's snippet functions.
#[derive(Clone, Debug)]
pub struct SnippetNames {
    pub prefix: String,
}

impl SnippetNames {
    pub fn new(kernel: &str) -> Self {
        SnippetNames {
            prefix: format!("__kperf_{kernel}"),
        }
    }
    pub fn init(&self) -> String {
        format!("{}_init", self.prefix)
    }
    pub fn read_counter(&self) -> String {
        format!("{}_read_counter", self.prefix)
    }
    pub fn store(&self, region: RegionId, edge: Edge) -> String {
        let e = match edge {
            Edge::Start => "start",
            Edge::End => "end",
        };
        format!("{}_store_{}_{e}", self.prefix, region.0)
    }
    /// The store of a record right before finalize
    /// ([`templates::store_at_exit`]).
    pub fn store_at_exit(&self, region: RegionId, edge: Edge) -> String {
        format!("{}_exit", self.store(region, edge))
    }
    pub fn finalize(&self) -> String {
        format!("{}_finalize", self.prefix)
    }
}

/// Rename a template's `func.func @kperf_xxx(` to `name`.
fn renamed(template: String, name: &str) -> String {
    match template.find("func.func @") {
        Some(at) => {
            let rest = &template[at + "func.func @".len()..];
            let end = rest.find('(').unwrap_or(0);
            format!("{}func.func @{name}{}", &template[..at], &rest[end..])
        }
        None => template,
    }
}

/// LLVM IR text of every snippet one kernel needs: init, read_counter, one
/// store per (region, edge) in `stores` and one at-exit store per (region,
/// edge) in `exit_stores`, finalize. The stack slots of
/// [`templates::locals`] are not among them: the caller allocates them in
/// the kernel's entry block, because a slot allocated in an inlined callee
/// ends its lifetime where the callee returns.
pub fn snippets_llvm_ir(
    kctx: &KperfContext,
    cfg: &LoweringConfig,
    names: &SnippetNames,
    stores: &[(RegionId, Edge)],
    exit_stores: &[(RegionId, Edge)],
) -> Result<String> {
    let mut text = String::from("module {\n");
    text.push_str(&template_prelude(cfg));
    text.push_str(&renamed(templates::init(cfg), &names.init()));
    text.push_str(&renamed(
        templates::read_counter(cfg),
        &names.read_counter(),
    ));
    for (r, e) in stores {
        text.push_str(&renamed(
            templates::store(cfg, *r, *e),
            &names.store(*r, *e),
        ));
    }
    for (r, e) in exit_stores {
        text.push_str(&renamed(
            templates::store_at_exit(cfg, *r, *e),
            &names.store_at_exit(*r, *e),
        ));
    }
    text.push_str(&renamed(templates::finalize(cfg), &names.finalize()));
    text.push_str("}\n");
    let mut module = kctx.parse(&text, "<kperf snippets>")?;
    kctx.run_pipeline(&mut module, SNIPPET_LOWERING)?;
    let ir = translate_to_llvm_ir(&module)?;
    Ok(String::from_utf8_lossy(&ir).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renaming_keeps_the_signature() {
        let t = "func.func @kperf_store(%a: i32) -> () {\n  return\n}\n".to_string();
        assert_eq!(
            renamed(t, "__kperf_k_store_3_end"),
            "func.func @__kperf_k_store_3_end(%a: i32) -> () {\n  return\n}\n"
        );
    }
}
