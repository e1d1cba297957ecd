//! A small, safe arithmetic language for user FLOP/byte formulas.
//!
//! Launch specs say things like `flops = "2*M*N*K"` or
//! `bytes = "(M*K + K*N)*2 + M*N*4"`. Evaluating those must not run
//! arbitrary code, must not panic on bad input, and must point at the
//! mistake, since the person writing the spec is not reading our source.
//!
//! Grammar (usual precedence, `^` binds tighter than unary minus and is
//! right-associative, so `-2^2 = -4` and `2^3^2 = 512`):
//!
//! ```text
//! sum     := product (('+' | '-') product)*
//! product := unary (('*' | '/') unary)*
//! unary   := ('-' | '+') unary | power
//! power   := atom ('^' unary)?
//! atom    := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'
//! number  := digits ['.' digits] [('e'|'E') ['+'|'-'] digits]   (also '.5')
//! name    := [A-Za-z_][A-Za-z0-9_]*
//! ```
//!
//! Functions: `min(a, b, ...)`, `max(a, b, ...)`, `ceil(x)`, `floor(x)`.
//! Names are bound from a map of the spec's variables; an unknown name, a
//! division by zero or a non-finite result is an error with its column.

use std::collections::BTreeMap;

use crate::error::{BenchError, Result};

/// A parsed expression, reusable across many variable bindings.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    src: String,
    root: Node,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Num(f64),
    Var {
        name: String,
        col: usize,
    },
    Neg(Box<Node>),
    Bin {
        op: char,
        lhs: Box<Node>,
        rhs: Box<Node>,
        col: usize,
    },
    Call {
        func: Func,
        args: Vec<Node>,
        col: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Func {
    Min,
    Max,
    Ceil,
    Floor,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Op(char),
    End,
}

/// Evaluates `src` once with `vars`.
pub fn eval(src: &str, vars: &BTreeMap<String, f64>) -> Result<f64> {
    Expr::parse(src)?.eval(vars)
}

impl Expr {
    /// Parses `src`; errors carry the 1-based character column.
    pub fn parse(src: &str) -> Result<Expr> {
        let toks = lex(src)?;
        if toks.len() > MAX_TOKENS {
            return Err(err(
                src,
                toks[MAX_TOKENS].1,
                format!("expression too long: more than {MAX_TOKENS} tokens"),
            ));
        }
        let mut p = Parser {
            src,
            toks,
            pos: 0,
            depth: 0,
        };
        let root = p.sum()?;
        let (tok, col) = p.peek();
        if tok != Tok::End {
            let what = describe(&tok);
            return Err(err(
                src,
                col,
                format!("unexpected {what}: expected an operator or the end"),
            ));
        }
        // A chain like `1+1+...` nests without recursing in the parser, but
        // evaluation recurses once per level of the tree.
        if height(&root) > MAX_HEIGHT {
            return Err(err(
                src,
                1,
                format!("expression too long: its operators chain more than {MAX_HEIGHT} deep"),
            ));
        }
        Ok(Expr {
            src: src.to_string(),
            root,
        })
    }

    /// The text this was parsed from.
    pub fn source(&self) -> &str {
        &self.src
    }

    /// The variable names used, sorted and deduplicated (to check a spec
    /// before running anything).
    pub fn variables(&self) -> Vec<String> {
        fn walk(n: &Node, out: &mut Vec<String>) {
            match n {
                Node::Num(_) => {}
                Node::Var { name, .. } => out.push(name.clone()),
                Node::Neg(x) => walk(x, out),
                Node::Bin { lhs, rhs, .. } => {
                    walk(lhs, out);
                    walk(rhs, out);
                }
                Node::Call { args, .. } => args.iter().for_each(|a| walk(a, out)),
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out.sort();
        out.dedup();
        out
    }

    /// Evaluates with the given bindings.
    pub fn eval(&self, vars: &BTreeMap<String, f64>) -> Result<f64> {
        let v = self.eval_node(&self.root, vars)?;
        if !v.is_finite() {
            return Err(err(
                &self.src,
                1,
                format!("the result is {v}, not a finite number"),
            ));
        }
        Ok(v)
    }

    fn eval_node(&self, n: &Node, vars: &BTreeMap<String, f64>) -> Result<f64> {
        Ok(match n {
            Node::Num(v) => *v,
            Node::Var { name, col } => match vars.get(name) {
                Some(v) => *v,
                None => {
                    let known: Vec<&str> = vars.keys().map(String::as_str).collect();
                    let known = if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    };
                    return Err(err(
                        &self.src,
                        *col,
                        format!("unknown variable `{name}` (known: {known})"),
                    ));
                }
            },
            Node::Neg(x) => -self.eval_node(x, vars)?,
            Node::Bin { op, lhs, rhs, col } => {
                let a = self.eval_node(lhs, vars)?;
                let b = self.eval_node(rhs, vars)?;
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' if b == 0.0 => {
                        return Err(err(&self.src, *col, "division by zero".to_string()))
                    }
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
            Node::Call { func, args, .. } => {
                let vals = args
                    .iter()
                    .map(|a| self.eval_node(a, vars))
                    .collect::<Result<Vec<f64>>>()?;
                match func {
                    Func::Min => vals.into_iter().fold(f64::INFINITY, f64::min),
                    Func::Max => vals.into_iter().fold(f64::NEG_INFINITY, f64::max),
                    Func::Ceil => vals[0].ceil(),
                    Func::Floor => vals[0].floor(),
                }
            }
        })
    }
}

fn err(src: &str, column: usize, message: String) -> BenchError {
    BenchError::Expr {
        expr: src.to_string(),
        column,
        message,
        caret: format!("{}^", " ".repeat(column.saturating_sub(1))),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("number `{v}`"),
        Tok::Name(n) => format!("name `{n}`"),
        Tok::Op(c) => format!("`{c}`"),
        Tok::End => "end of expression".to_string(),
    }
}

/// Splits into tokens with their 1-based character columns.
fn lex(src: &str) -> Result<Vec<(Tok, usize)>> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let text: String = chars[start..i].iter().collect();
            let v: f64 = text
                .parse()
                .map_err(|_| err(src, col, format!("malformed number `{text}`")))?;
            out.push((Tok::Num(v), col));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Name(chars[start..i].iter().collect()), col));
        } else if "+-*/^(),".contains(c) {
            out.push((Tok::Op(c), col));
            i += 1;
        } else {
            return Err(err(src, col, format!("unexpected character `{c}`")));
        }
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}

/// Longest expression parsed: bounds the tree's depth (evaluation and
/// drop recurse over it) however the operators chain.
const MAX_TOKENS: usize = 10_000;
/// Deepest nesting of parentheses, signs and exponents: the parser
/// recurses through six functions per level, and a hostile spec must not
/// overflow its stack. 64 levels take under 1 MiB in a debug build (the
/// test runs the parser on a thread with that stack); no bench formula
/// comes near it.
const MAX_DEPTH: usize = 64;

/// Deepest tree evaluated (see `height`).
const MAX_HEIGHT: usize = 256;

/// Height of the tree, walked with an explicit stack so that a hostile
/// tree cannot overflow this walk either.
fn height(root: &Node) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(root, 1usize)];
    while let Some((node, level)) = stack.pop() {
        deepest = deepest.max(level);
        match node {
            Node::Num(_) | Node::Var { .. } => {}
            Node::Neg(x) => stack.push((x, level + 1)),
            Node::Bin { lhs, rhs, .. } => {
                stack.push((lhs, level + 1));
                stack.push((rhs, level + 1));
            }
            Node::Call { args, .. } => stack.extend(args.iter().map(|a| (a, level + 1))),
        }
    }
    deepest
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> (Tok, usize) {
        // lex always ends with End, and pos never passes it.
        self.toks[self.pos.min(self.toks.len() - 1)].clone()
    }

    fn bump(&mut self) -> (Tok, usize) {
        let t = self.peek();
        if t.0 != Tok::End {
            self.pos += 1;
        }
        t
    }

    fn sum(&mut self) -> Result<Node> {
        let mut lhs = self.product()?;
        while let (Tok::Op(op @ ('+' | '-')), col) = self.peek() {
            self.bump();
            let rhs = self.product()?;
            lhs = Node::Bin {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                col,
            };
        }
        Ok(lhs)
    }

    fn product(&mut self) -> Result<Node> {
        let mut lhs = self.unary()?;
        while let (Tok::Op(op @ ('*' | '/')), col) = self.peek() {
            self.bump();
            let rhs = self.unary()?;
            lhs = Node::Bin {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
                col,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Node> {
        if self.depth >= MAX_DEPTH {
            return Err(err(
                self.src,
                self.peek().1,
                format!("expression nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        let node = self.unary_inner();
        self.depth -= 1;
        node
    }

    fn unary_inner(&mut self) -> Result<Node> {
        match self.peek().0 {
            Tok::Op('-') => {
                self.bump();
                Ok(Node::Neg(Box::new(self.unary()?)))
            }
            Tok::Op('+') => {
                self.bump();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Node> {
        let base = self.atom()?;
        if let (Tok::Op('^'), col) = self.peek() {
            self.bump();
            let exp = self.unary()?;
            return Ok(Node::Bin {
                op: '^',
                lhs: Box::new(base),
                rhs: Box::new(exp),
                col,
            });
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Node> {
        let (tok, col) = self.bump();
        match tok {
            Tok::Num(v) => Ok(Node::Num(v)),
            Tok::Name(name) => {
                if self.peek().0 != Tok::Op('(') {
                    return Ok(Node::Var { name, col });
                }
                let (func, arity) = match name.as_str() {
                    "min" => (Func::Min, None),
                    "max" => (Func::Max, None),
                    "ceil" => (Func::Ceil, Some(1)),
                    "floor" => (Func::Floor, Some(1)),
                    _ => {
                        return Err(err(
                            self.src,
                            col,
                            format!("unknown function `{name}` (known: min, max, ceil, floor)"),
                        ))
                    }
                };
                self.bump(); // '('
                let mut args = vec![self.sum()?];
                while self.peek().0 == Tok::Op(',') {
                    self.bump();
                    args.push(self.sum()?);
                }
                self.expect_close(col)?;
                let ok = match arity {
                    Some(n) => args.len() == n,
                    None => args.len() >= 2,
                };
                if !ok {
                    let want = arity.map_or("at least 2 arguments".to_string(), |_| {
                        "1 argument".to_string()
                    });
                    return Err(err(
                        self.src,
                        col,
                        format!("`{name}` takes {want}, got {}", args.len()),
                    ));
                }
                Ok(Node::Call { func, args, col })
            }
            Tok::Op('(') => {
                let inner = self.sum()?;
                self.expect_close(col)?;
                Ok(inner)
            }
            other => Err(err(
                self.src,
                col,
                format!(
                    "unexpected {}: expected a number, a variable, a function or `(`",
                    describe(&other)
                ),
            )),
        }
    }

    fn expect_close(&mut self, open_col: usize) -> Result<()> {
        let (tok, col) = self.peek();
        if tok == Tok::Op(')') {
            self.bump();
            return Ok(());
        }
        Err(err(
            self.src,
            col,
            format!(
                "expected `)` to close the `(` at column {open_col}, found {}",
                describe(&tok)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> BTreeMap<String, f64> {
        [
            ("M", 1024.0),
            ("N", 512.0),
            ("K", 256.0),
            ("B", 8.0),
            ("seq_len", 2048.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    #[test]
    fn evaluates() {
        let cases = [
            ("2*M*N*K", 268_435_456.0),
            ("(M*K + K*N)*2 + M*N*4", 2_883_584.0),
            ("1 + 2 * 3", 7.0),
            ("(1 + 2) * 3", 9.0),
            ("10 - 4 - 3", 3.0),
            ("64 / 4 / 2", 8.0),
            ("2^3^2", 512.0),
            ("-2^2", -4.0),
            ("2^-1", 0.5),
            ("--3", 3.0),
            ("+3", 3.0),
            ("1.5e3 + .5 + 2E-1", 1500.7),
            ("min(M, N, K)", 256.0),
            ("max(M, 2*N+1)", 1025.0),
            ("ceil(M / 3)", 342.0),
            ("floor(M / 3)", 341.0),
            (
                "B*seq_len*(max(0, seq_len - seq_len) + seq_len)/2",
                16_777_216.0,
            ),
            ("  42  ", 42.0),
        ];
        for (src, want) in cases {
            let got = eval(src, &vars()).unwrap_or_else(|e| panic!("{src}: {e}"));
            assert!(
                (got - want).abs() < 1e-9 * want.abs().max(1.0),
                "{src}: {got} != {want}"
            );
        }
    }

    #[test]
    fn hostile_nesting_is_an_error_not_a_stack_overflow() {
        let deep = [
            format!("{}1{}", "(".repeat(2000), ")".repeat(2000)),
            format!("{}1", "-".repeat(200_000)),
            format!("{}1", "+".repeat(200_000)),
            format!("{}2", "2^".repeat(20_000)),
            format!("{}1", "1+".repeat(200_000)),
            format!("{}1", "1+".repeat(4_000)),
            format!("{}1", "2*".repeat(4_000)),
        ];
        // A small stack, so the limit is shown to hold with room to spare
        // (a test thread's default is 2 MiB, the main thread's 8 MiB).
        let small_stack = std::thread::Builder::new().stack_size(1024 * 1024);
        let outcomes = small_stack
            .spawn(move || {
                deep.iter()
                    .map(|src| (src[..20].to_string(), Expr::parse(src).map(|_| ())))
                    .collect::<Vec<_>>()
            })
            .expect("spawn")
            .join()
            .expect("the parser overflowed a 1 MiB stack");
        for (head, outcome) in outcomes {
            match outcome {
                Err(BenchError::Expr { message, .. }) => assert!(
                    message.contains("deeper than") || message.contains("too long"),
                    "{message}"
                ),
                other => panic!("{head}...: {other:?}"),
            }
        }
        // Within the limits, still fine.
        let ok = format!("{}1{}", "(".repeat(60), ")".repeat(60));
        assert_eq!(eval(&ok, &vars()).expect("nested 60"), 1.0);
        let chain = format!("{}1", "1+".repeat(250));
        assert_eq!(eval(&chain, &vars()).expect("chain of 250"), 251.0);
    }

    #[test]
    fn errors_point_at_the_column() {
        // (source, column, words in the message)
        let cases = [
            ("2*M*", 5, "end of expression"),
            ("2 M", 3, "unexpected name `M`"),
            ("(M + N", 7, "close the `(` at column 1"),
            ("M + )", 5, "unexpected `)`"),
            ("M $ N", 3, "unexpected character `$`"),
            ("sqrt(M)", 1, "unknown function `sqrt`"),
            ("ceil(M, N)", 1, "takes 1 argument, got 2"),
            ("min(M)", 1, "at least 2 arguments"),
            (
                "2*Q",
                3,
                "unknown variable `Q` (known: B, K, M, N, seq_len)",
            ),
            ("M / (N - N)", 3, "division by zero"),
            ("1.2.3", 1, "malformed number"),
            ("10^400", 1, "not a finite number"),
            ("", 1, "end of expression"),
            ("μ*2", 1, "unexpected character `μ`"),
        ];
        for (src, col, words) in cases {
            match eval(src, &vars()) {
                Err(BenchError::Expr {
                    column,
                    message,
                    caret,
                    ..
                }) => {
                    assert_eq!(column, col, "{src}: {message}");
                    assert!(message.contains(words), "{src}: {message}");
                    assert_eq!(caret.len(), col, "{src}");
                }
                other => panic!("{src}: {other:?}"),
            }
        }
        let shown = eval("2*Q", &vars()).unwrap_err().to_string();
        assert!(shown.ends_with("2*Q\n    ^"), "{shown:?}");
    }

    #[test]
    fn parse_once_eval_many() {
        let e = Expr::parse("2*M*N*K + M").unwrap();
        assert_eq!(e.variables(), ["K", "M", "N"]);
        assert_eq!(e.source(), "2*M*N*K + M");
        let mut v = vars();
        assert_eq!(e.eval(&v).unwrap(), 268_436_480.0);
        v.insert("M".into(), 1.0);
        assert_eq!(e.eval(&v).unwrap(), 262_145.0);
        let empty = BTreeMap::new();
        let msg = e.eval(&empty).unwrap_err().to_string();
        assert!(msg.contains("known: none"), "{msg}");
    }
}
