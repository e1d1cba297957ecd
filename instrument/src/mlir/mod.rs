//! The MLIR path: a context with every upstream dialect plus the kperf
//! dialects (loaded from IRDL at run time), parsing with diagnostics that
//! reach the user, and running textual pass pipelines.

pub mod annotate;
pub mod ir;
pub mod launch;
pub mod lower;
pub mod outline;
pub mod pin;
pub mod pipeline;
pub mod regions;
pub mod snippets;
pub mod templates;
pub mod unroll;

use crate::error::{InstrumentError, Result};
use ir::{sref, Op};
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{
    load_irdl_dialects, register_all_dialects, register_all_llvm_translations, register_all_passes,
};
use melior::{dialect::DialectRegistry, Context};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Once;

/// An MLIR context ready for kperf: all upstream dialects and translations,
/// the kperf dialects, and a diagnostic sink so errors carry MLIR's own text.
pub struct KperfContext {
    pub ctx: Context,
    diagnostics: Rc<RefCell<Vec<String>>>,
}

static REGISTER_PASSES: Once = Once::new();

impl KperfContext {
    pub fn new() -> Result<KperfContext> {
        REGISTER_PASSES.call_once(register_all_passes);
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        let ctx = Context::new();
        ctx.append_dialect_registry(&registry);
        ctx.load_all_available_dialects();
        register_all_llvm_translations(&ctx);
        let diagnostics = Rc::new(RefCell::new(Vec::new()));
        let sink = diagnostics.clone();
        ctx.attach_diagnostic_handler(move |d| {
            let loc = ir::describe_location(d.location().to_raw());
            let mut text = format!("{loc}: {}", d);
            for i in 0..d.note_count() {
                if let Ok(n) = d.note(i) {
                    text.push_str(&format!(
                        "\n  note: {}: {}",
                        ir::describe_location(n.location().to_raw()),
                        brief(&n.to_string())
                    ));
                }
            }
            sink.borrow_mut().push(text);
            true
        });
        let kc = KperfContext { ctx, diagnostics };
        let irdl = Module::parse(&kc.ctx, kperf_dialects::irdl::SOURCE).ok_or_else(|| {
            InstrumentError::Template {
                template: "kperf.irdl.mlir".into(),
                diagnostics: kc.take_diagnostics(),
            }
        })?;
        if !load_irdl_dialects(&irdl) {
            return Err(InstrumentError::Template {
                template: "kperf.irdl.mlir".into(),
                diagnostics: kc.take_diagnostics(),
            });
        }
        Ok(kc)
    }

    /// Diagnostics collected since the last call, one per line.
    pub fn take_diagnostics(&self) -> String {
        std::mem::take(&mut *self.diagnostics.borrow_mut()).join("\n")
    }

    /// Parse a module; `name` becomes the file in every location.
    ///
    /// Accepts what `mlir-opt` accepts: one `builtin.module`, or any other
    /// top-level ops (several, as in most upstream tests, or a lone
    /// `gpu.module`), which are wrapped in an implicit module. The wrapper
    /// opens on the first line, so line numbers in locations stay the
    /// user's (only columns of line 1 shift); alias definitions
    /// (`!t = ...`, `#map = ...`), which must stay outside it, move ahead of
    /// it on that line ([`split_top_level_aliases`]).
    pub fn parse(&self, source: &str, name: &str) -> Result<Module<'_>> {
        check_nesting(source, name)?;
        let module = match self.parse_module(source, name)? {
            Some(m) => m,
            None => {
                // The container attribute lets a `gpu.launch_func` at the
                // top level verify, as in mlir-opt's implicit module.
                let attrs = if source.contains("gpu.") {
                    " attributes {gpu.container_module}"
                } else {
                    ""
                };
                let (aliases, body) = split_top_level_aliases(source);
                let wrapped = format!("{aliases}module{attrs} {{{body}\n}}");
                self.parse_module(&wrapped, name)?
                    .ok_or_else(|| InstrumentError::Parse {
                        file: name.into(),
                        diagnostics: "cannot wrap the top-level ops in a module".into(),
                    })?
            }
        };
        self.verify(&module).map_err(|e| match e {
            InstrumentError::Verify(d) => InstrumentError::Parse {
                file: name.into(),
                diagnostics: d,
            },
            other => other,
        })?;
        Ok(module)
    }

    /// The module `source` holds, or `None` when its top level is not a
    /// single `builtin.module` (several ops, or another op).
    fn parse_module(&self, source: &str, name: &str) -> Result<Option<Module<'_>>> {
        self.take_diagnostics();
        let op = unsafe {
            mlir_sys::mlirOperationCreateParse(self.ctx.to_raw(), sref(source), sref(name))
        };
        if op.ptr.is_null() {
            let diagnostics = self.take_diagnostics();
            if diagnostics.contains("single top-level operation") {
                return Ok(None);
            }
            return Err(InstrumentError::Parse {
                file: name.into(),
                diagnostics: with_parse_hints(diagnostics),
            });
        }
        let m = unsafe { mlir_sys::mlirModuleFromOperation(op) };
        if m.ptr.is_null() {
            unsafe { mlir_sys::mlirOperationDestroy(op) };
            return Ok(None);
        }
        Ok(Some(unsafe { Module::from_raw(m) }))
    }

    pub fn verify(&self, module: &Module) -> Result<()> {
        self.take_diagnostics();
        if unsafe { mlir_sys::mlirOperationVerify(module_op(module).0) } {
            Ok(())
        } else {
            Err(InstrumentError::Verify(self.take_diagnostics()))
        }
    }

    /// Run a textual pipeline (`builtin.module(...)` or a bare list) on the module.
    pub fn run_pipeline(&self, module: &mut Module, pipeline: &str) -> Result<()> {
        let full = if pipeline.starts_with("builtin.module(") {
            pipeline.to_string()
        } else {
            format!("builtin.module({pipeline})")
        };
        self.take_diagnostics();
        let pm = PassManager::new(&self.ctx);
        melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), &full).map_err(
            |e| InstrumentError::Pipeline {
                pipeline: full.clone(),
                diagnostics: with_nesting_hint(format!("{e}\n{}", self.take_diagnostics())),
            },
        )?;
        pm.run(module).map_err(|_| InstrumentError::Pipeline {
            pipeline: full.clone(),
            diagnostics: self.take_diagnostics(),
        })
    }
}

/// Split `source` into its top-level alias definitions (`!name = type`,
/// `#name = attribute`), each flattened onto one line and followed by a
/// space, and the rest with each definition replaced by its newlines, so
/// that the rest keeps every line number. A definition runs from its `!` or
/// `#` at nesting depth 0 to the first newline where `<([{` are closed
/// again; `//` comments inside it are dropped, and the `>` of `->` closes
/// nothing, nor do those of `<=` and `>=` (integer sets).
pub fn split_top_level_aliases(source: &str) -> (String, String) {
    let (mut aliases, mut body) = (String::new(), String::with_capacity(source.len()));
    let mut depth = 0i64;
    let mut in_alias = false;
    // At the start of a top-level statement (only blanks since the last
    // newline or statement end at depth 0).
    let mut at_start = true;
    let mut chars = source.chars().peekable();
    let mut prev = '\0';
    while let Some(c) = chars.next() {
        let out = if in_alias { &mut aliases } else { &mut body };
        match c {
            '/' if chars.peek() == Some(&'/') => {
                // A comment: to the end of the line, kept only outside aliases.
                let mut comment = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    comment.push(n);
                    chars.next();
                }
                if !in_alias {
                    body.push_str(&comment);
                }
                prev = ' ';
                continue;
            }
            '"' => {
                out.push(c);
                while let Some(n) = chars.next() {
                    out.push(n);
                    if n == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if n == '"' {
                        break;
                    }
                }
                at_start = false;
                prev = '"';
                continue;
            }
            '\n' => {
                if in_alias {
                    body.push('\n');
                    if depth <= 0 {
                        in_alias = false;
                        aliases.push(' ');
                    } else {
                        aliases.push(' ');
                    }
                } else {
                    body.push('\n');
                }
                if depth <= 0 {
                    at_start = true;
                }
                prev = c;
                continue;
            }
            c if c.is_whitespace() => out.push(c),
            '!' | '#' if at_start && depth == 0 && !in_alias => {
                in_alias = true;
                at_start = false;
                aliases.push(c);
            }
            _ => {
                let comparison = matches!(c, '<' | '>') && chars.peek() == Some(&'=');
                match c {
                    _ if comparison => {}
                    '<' | '(' | '[' | '{' => depth += 1,
                    '>' if prev == '-' => {}
                    '>' | ')' | ']' | '}' => depth -= 1,
                    _ => {}
                }
                out.push(c);
                at_start = false;
            }
        }
        prev = c;
    }
    if in_alias {
        aliases.push(' ');
    }
    (aliases, body)
}

/// MLIR's notes can carry a whole module ("see current operation: ..."):
/// keep the first lines so an error stays readable.
fn brief(note: &str) -> String {
    const MAX_LINES: usize = 6;
    let lines: Vec<&str> = note.lines().collect();
    if lines.len() <= MAX_LINES {
        return note.to_string();
    }
    format!(
        "{}\n  ... ({} more lines)",
        lines[..MAX_LINES].join("\n"),
        lines.len() - MAX_LINES
    )
}

/// The module's top op as a raw handle.
pub fn module_op(m: &Module) -> Op {
    Op(m.as_operation().to_raw())
}

/// Print the module in its custom (pretty) form with locations elided.
pub fn print_module(m: &Module) -> String {
    module_op(m).print()
}

/// Nesting MLIR text may have: braces, brackets, parentheses and angle
/// brackets together. MLIR's parser, verifier and passes recurse once per
/// region, attribute, type or location level; 3000 nested `scf.for`
/// overflowed kperf's stack (an abort, no message), and so did 30000 nested
/// `[`, `tuple<`, `(` or `callsite(`. Real kernels nest a few dozen levels.
pub const MAX_NESTING: usize = 1000;

/// Refuse `source` when its nesting (outside strings and comments) passes
/// [`MAX_NESTING`], naming the line. `->` closes nothing.
fn check_nesting(source: &str, name: &str) -> Result<()> {
    let (mut depth, mut line) = (0usize, 1usize);
    let mut prev = ' ';
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '"' => {
                // A string literal, with backslash escapes.
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        '\n' => line += 1,
                        _ => {}
                    }
                }
            }
            '/' if chars.as_str().starts_with('/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '{' | '[' | '(' | '<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(InstrumentError::Parse {
                        file: name.into(),
                        diagnostics: format!(
                            "{name}:{line}: nested more than {MAX_NESTING} levels (regions, \
                             attributes, types or locations); kperf refuses it (MLIR's parser \
                             recurses once per level)"
                        ),
                    });
                }
            }
            '>' if prev == '-' => {}
            '}' | ']' | ')' | '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        prev = c;
    }
    Ok(())
}

/// MLIR's parse errors name mlir-opt's remedies; say kperf's where they
/// differ (an adversarial pass read "please use -allow-unregistered-dialect
/// with the MLIR tool used", an option kperf does not have, and Triton's
/// `tt.func` refused with no word of what kperf takes from Triton).
fn with_parse_hints(diagnostics: String) -> String {
    let mut hints = Vec::new();
    if diagnostics.contains("allow-unregistered-dialect") {
        hints.push(
            "kperf parses only registered dialects (upstream MLIR's and its own) and has no \
             -allow-unregistered-dialect; a test op of mlir-opt's test dialect has to be \
             replaced",
        );
    }
    if [
        "Dialect `tt'",
        "Dialect `ttg'",
        "Dialect `ttng'",
        "Dialect `tt\"",
        "Dialect `ttg\"",
    ]
    .iter()
    .any(|d| diagnostics.contains(d))
    {
        hints.push(
            "this is Triton's IR (TTIR/TTGIR): kperf takes the LLVM IR Triton lowers it to \
             (the kernel's `.llir`, or `kperf.triton` from Python; docs/triton.md)",
        );
    }
    if hints.is_empty() {
        diagnostics
    } else {
        format!("{diagnostics}\n  hint: {}", hints.join("\n  hint: "))
    }
}

/// mlir-opt's `-convert-gpu-to-nvvm` flag nests the pass on each
/// `gpu.module` for you; a pipeline string does not, and MLIR's "did you
/// intend to nest?" left the spelling to guess.
fn with_nesting_hint(diagnostics: String) -> String {
    let Some(op) = diagnostics
        .split("restricted to '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
    else {
        return diagnostics;
    };
    let pass = diagnostics
        .split("failed to add `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or("the-pass");
    format!("{diagnostics}\n  hint: nest it where it runs: `{op}({pass})`")
}

#[cfg(test)]
mod alias_tests {
    use super::split_top_level_aliases;

    /// (source, aliases, rest): the rest keeps every line of the source.
    const CASES: &[(&str, &str, &str)] = &[
        ("func.func @f() {\n}\n", "", "func.func @f() {\n}\n"),
        (
            "// RUN: x\n!t = memref<4xf32>\n#m = affine_map<(d0) -> (d0)>\nfunc.func @f(%a: !t) -> i32\n",
            "!t = memref<4xf32> #m = affine_map<(d0) -> (d0)> ",
            "// RUN: x\n\n\nfunc.func @f(%a: !t) -> i32\n",
        ),
        (
            // Several lines, a comment and a string inside; an op after.
            "!d = !nvgpu.tensormap.descriptor<\n  tensor = memref<8xf16, 3>, // c\n  swizzle = none>\ngpu.module @g {\n}\n",
            "!d = !nvgpu.tensormap.descriptor<   tensor = memref<8xf16, 3>,    swizzle = none> ",
            "\n\n\ngpu.module @g {\n}\n",
        ),
        (
            // Nested: not top level. `>=` closes nothing.
            "#s = affine_set<(d0) : (d0 - 1 >= 0)>\nmodule {\n  !x = 1\n}\n",
            "#s = affine_set<(d0) : (d0 - 1 >= 0)> ",
            "\nmodule {\n  !x = 1\n}\n",
        ),
        (
            "func.func @f() attributes {s = \"!a = b\"}\n#a = 1 : i32",
            "#a = 1 : i32 ",
            "func.func @f() attributes {s = \"!a = b\"}\n",
        ),
    ];

    #[test]
    fn aliases_move_out_and_lines_stay() {
        for (source, aliases, rest) in CASES {
            let (a, r) = split_top_level_aliases(source);
            assert_eq!((a.as_str(), r.as_str()), (*aliases, *rest), "{source}");
            let newlines = |t: &str| t.matches('\n').count();
            assert_eq!(newlines(&r), newlines(source), "{source}");
        }
    }
}
