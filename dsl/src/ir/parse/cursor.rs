//! The cursor over one line of IR text: spacing, words, numbers, values, types and
//! locations, each with a located error.

use super::*;

/// One line being read.
pub(super) struct Cur<'a> {
    pub(super) line: usize,
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Cur<'a> {
    pub(super) fn new(line: usize, text: &'a str) -> Self {
        Cur { line, text, pos: 0 }
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub(super) fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    pub(super) fn err(&mut self, expected: impl Into<String>) -> ParseError {
        self.ws();
        let found = match self.rest().split_whitespace().next() {
            None => "end of line".to_string(),
            Some(t) if t.chars().count() > 24 => format!("`{}...`", t.chars().take(24).collect::<String>()),
            Some(t) => format!("`{t}`"),
        };
        ParseError {
            line: self.line,
            column: self.text[..self.pos].chars().count() + 1,
            expected: expected.into(),
            found,
        }
    }

    pub(super) fn peek(&mut self, s: &str) -> bool {
        self.ws();
        self.rest().starts_with(s)
    }

    pub(super) fn eat(&mut self, s: &str) -> bool {
        let yes = self.peek(s);
        if yes {
            self.pos += s.len();
        }
        yes
    }

    pub(super) fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat(s) { Ok(()) } else { Err(self.err(format!("`{s}`"))) }
    }

    /// A run of identifier characters (letters, digits, `_`, `.`), possibly empty.
    pub(super) fn word(&mut self) -> &'a str {
        self.ws();
        let r = self.rest();
        let n = r.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).unwrap_or(r.len());
        self.pos += n;
        &r[..n]
    }

    /// A string as Rust's `{:?}` writes it: quoted, with `\\`, `\"`, `\'`, `\n`, `\r`,
    /// `\t`, `\0` and `\u{..}` escapes.
    pub(super) fn string(&mut self) -> Result<String, ParseError> {
        self.expect("\"")?;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let escaped = match chars.next().map(|(_, e)| e) {
                        Some('\\') => Some('\\'),
                        Some('"') => Some('"'),
                        Some('\'') => Some('\''),
                        Some('n') => Some('\n'),
                        Some('r') => Some('\r'),
                        Some('t') => Some('\t'),
                        Some('0') => Some('\0'),
                        Some('u') => {
                            let rest = &self.rest()[i + 2..];
                            let code = rest
                                .strip_prefix('{')
                                .and_then(|r| r.split_once('}'))
                                .and_then(|(hex, _)| u32::from_str_radix(hex, 16).ok().map(|c| (hex.len(), c)));
                            match code.and_then(|(n, c)| char::from_u32(c).map(|c| (n, c))) {
                                Some((n, c)) => {
                                    // skip `{`, the digits and `}`
                                    for _ in 0..n + 2 {
                                        chars.next();
                                    }
                                    Some(c)
                                }
                                None => None,
                            }
                        }
                        _ => None,
                    };
                    match escaped {
                        Some(e) => out.push(e),
                        None => {
                            self.pos += i;
                            return Err(self.err("a string escape (`\\n`, `\\\"`, `\\u{..}`, ...)"));
                        }
                    }
                }
                c => out.push(c),
            }
        }
        Err(self.err("a closing `\"`"))
    }

    /// An identifier (a kernel, parameter or constexpr name).
    pub(super) fn ident(&mut self, what: &str) -> Result<&'a str, ParseError> {
        self.ws();
        let r = self.rest();
        let n = r.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(r.len());
        if n == 0 || r.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.err(what));
        }
        self.pos += n;
        Ok(&r[..n])
    }

    /// Eats the word `kw` if it comes next (a whole word, not a prefix of a longer one).
    pub(super) fn keyword(&mut self, kw: &str) -> bool {
        let start = self.pos;
        if self.word() == kw {
            true
        } else {
            self.pos = start;
            false
        }
    }

    pub(super) fn expect_keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        if self.keyword(kw) { Ok(()) } else { Err(self.err(format!("`{kw}`"))) }
    }

    /// `, kw` if it comes next.
    pub(super) fn comma_keyword(&mut self, kw: &str) -> bool {
        let start = self.pos;
        if self.eat(",") && self.keyword(kw) {
            true
        } else {
            self.pos = start;
            false
        }
    }

    /// An integer of type `T` (a leading `-` only where `T` is signed).
    pub(super) fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        self.ws();
        let r = self.rest();
        let sign = usize::from(r.starts_with('-'));
        let n = sign + r[sign..].find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len() - sign);
        match r[..n].parse::<T>() {
            Ok(v) if n > sign => {
                self.pos += n;
                Ok(v)
            }
            // not a number of this type (a parse result, not an op kind)
            _ => Err(self.err(what)),
        }
    }

    pub(super) fn value(&mut self) -> Result<Value, ParseError> {
        if !self.peek("%") {
            return Err(self.err("a value such as `%3`"));
        }
        let start = self.pos;
        self.pos += 1;
        match self.rest().find(|c: char| !c.is_ascii_digit()).unwrap_or(self.rest().len()) {
            0 => {
                self.pos = start;
                Err(self.err("a value such as `%3`"))
            }
            n => match self.rest()[..n].parse::<u32>() {
                Ok(v) => {
                    self.pos += n;
                    Ok(Value(v))
                }
                Err(_) => {
                    self.pos = start;
                    Err(self.err("a value number that fits u32"))
                }
            },
        }
    }

    /// `%a, %b, ...` (possibly none); stops before a `,` not followed by a value.
    pub(super) fn values(&mut self) -> Result<Vec<Value>, ParseError> {
        let mut out = Vec::new();
        while self.peek("%") {
            out.push(self.value()?);
            let before = self.pos;
            if !self.eat(",") {
                break;
            }
            if !self.peek("%") {
                self.pos = before;
                break;
            }
        }
        Ok(out)
    }

    /// `, v` (the separator of a fixed operand list).
    pub(super) fn next_value(&mut self) -> Result<Value, ParseError> {
        self.expect(",")?;
        self.value()
    }

    pub(super) fn scalar_type(&mut self) -> Result<ScalarType, ParseError> {
        let start = self.pos;
        let w = self.word();
        named(ScalarType::ALL, ScalarType::name, w).ok_or_else(|| {
            self.pos = start;
            self.err("an element type (i1, i8, i16, i32, i64, u8, u32, u64, f16, bf16, f32, f64)")
        })
    }

    pub(super) fn dtype(&mut self) -> Result<DType, ParseError> {
        if self.keyword("ptr") {
            self.expect("<")?;
            let s = self.scalar_type()?;
            self.expect(">")?;
            Ok(DType::Ptr(s))
        } else {
            Ok(DType::Scalar(self.scalar_type()?))
        }
    }

    /// `i32`, `ptr<f32>`, `tensor<128x64xf32>`.
    pub(super) fn tensor_type(&mut self) -> Result<TensorType, ParseError> {
        if !self.keyword("tensor") {
            return Ok(TensorType::scalar(self.dtype()?));
        }
        self.expect("<")?;
        let mut dims = Vec::new();
        while self.rest().trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            dims.push(self.number::<usize>("a dimension")?);
            self.expect("x")?;
        }
        let dtype = self.dtype()?;
        self.expect(">")?;
        Ok(TensorType::new(dtype, Shape(dims)))
    }

    /// `loc(file:line)`.
    pub(super) fn loc(&mut self) -> Result<SourceLoc, ParseError> {
        self.expect_keyword("loc")?;
        self.expect("(")?;
        let r = self.rest();
        let bad = |c: &mut Self| Err(c.err("a location `file:line)`"));
        let Some(close) = r.rfind(')') else { return bad(self) };
        let Some((file, line)) = r[..close].rsplit_once(':') else { return bad(self) };
        let Ok(line) = line.trim().parse::<u32>() else { return bad(self) };
        if file.trim().is_empty() {
            return bad(self);
        }
        self.pos += close + 1;
        Ok(SourceLoc { file: intern(file.trim()), line, column: 0 })
    }

    pub(super) fn end(&mut self) -> Result<(), ParseError> {
        self.ws();
        if self.rest().is_empty() { Ok(()) } else { Err(self.err("end of line")) }
    }
}
