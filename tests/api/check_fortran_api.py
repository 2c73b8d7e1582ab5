#!/usr/bin/env python3
"""Check that the raw Fortran layer binds all of minv.h, and binds it right.

usage: check_fortran_api.py MINV_H MINV_C_API_F90 [MINV_MOD_F90]

Prints one line per problem, "file:line: what is missing or wrong", and exits 1; prints a
one-line summary and exits 0 when the two agree; exits 2 when a file cannot be read or holds
something the parsers below do not understand (never skipped: a check that skips what it cannot
read would pass a broken binding).

What is compared, C -> Fortran (names compared without regard to case, as Fortran does):
  function       an interface with bind(c, name="<C name>") and the same name; the same
                 arguments in the same order under the same names, each bound as the mapping
                 below says; the result (void -> subroutine); public.
  struct         a type, bind(c) of the same name: the same fields in the same order, with the
                 same kinds and array sizes; public.
  enum constant  an enumerator of the same name and value; public.
  function type  (typedef R (*name)(...)) an abstract interface of the same name, bind(c),
                 checked as a function.
  and back: a bind(c) procedure, bind(c) type or enumerator that minv.h lacks is reported.
  With MINV_MOD_F90 (the module users `use`), every enum constant must be public there too.

Mapping (the rules written at the top of minv_c_api.f90):
  int32_t int64_t int size_t     integer(c_int32_t) (c_int64_t) (c_int) (c_size_t)
  double float char              real(c_double) real(c_float) character(kind=c_char)
  an enum type                   integer(c_int)
  T x (by value)                 T's kind, value
  T *p                           T's kind by reference, a scalar or an array; intent(in) when
                                 the pointee is const, intent(out) or intent(inout) when not
  S *p (a struct)                type(S) by reference, intent as above
  const char *s                  character(kind=c_char), intent(in) :: s(*)
  T *const *p (addresses)        type(c_ptr), intent(in) :: p(*)
  opaque **h                     type(c_ptr), intent(out) or intent(inout), a scalar
  any pointer, also              type(c_ptr), value (an address: device memory, c_loc(x));
                                 for void * and an opaque handle the only form
  a function type                type(c_funptr), value
  a pointer result               type(c_ptr)
  optional                       only on arguments passed by reference (C sees NULL)

The C parser reads minv.h's regular style: comments and preprocessor lines dropped, then
statements split at ';' outside braces, each one of
  typedef enum { A = 0, B, ... } name;      enum { A = 1, ... };
  typedef struct { T field; T arr[N]; ... } name;      typedef struct tag name;  (opaque)
  typedef R (*name)(params);                R name(params);
with types made of identifiers, const and '*'. The Fortran parser reads free form: comments and
continuations joined, then enum, bind(c) ... end enum, type, bind(c) ... end type, public
statements and (abstract) interface blocks of functions and subroutines with `::`
declarations. Anything else in minv.h is an error; anything else in the Fortran file outside
those blocks is ignored.
"""
import re
import sys
from dataclasses import dataclass, field


class ParseError(Exception):
    """Text the parsers do not understand: the check cannot vouch for the binding."""


# C scalar types and their Fortran interoperable (type, kind).
C_SCALARS = {
    "int32_t": ("integer", "c_int32_t"),
    "int64_t": ("integer", "c_int64_t"),
    "int": ("integer", "c_int"),
    "size_t": ("integer", "c_size_t"),
    "double": ("real", "c_double"),
    "float": ("real", "c_float"),
    "char": ("character", "c_char"),
}
C_ENUM_KIND = ("integer", "c_int")
IDENT = r"[A-Za-z_]\w*"


# ---------------------------------------------------------------------------------------------
# C side
# ---------------------------------------------------------------------------------------------

@dataclass
class CType:
    base: str                  # "double", "minv_report", "void", ...
    base_const: bool = False   # const before the first '*'
    ptr_const: list = field(default_factory=list)  # per '*': a const right after it

    @property
    def depth(self):
        return len(self.ptr_const)

    @property
    def pointee_const(self):
        """Whether C may not write through this pointer (the object it points at is const)."""
        return self.base_const if self.depth == 1 else self.ptr_const[self.depth - 2]

    def __str__(self):
        s = ("const " if self.base_const else "") + self.base
        for c in self.ptr_const:
            s += " *" + ("const " if c else "")
        return s.rstrip()


@dataclass
class CParam:
    name: str
    type: CType


@dataclass
class CFunction:
    name: str
    result: CType
    params: list
    line: int


@dataclass
class CStruct:
    name: str
    fields: list   # (name, CType, dim or None)
    line: int


@dataclass
class CHeader:
    constants: dict = field(default_factory=dict)   # name -> (value, line)
    enum_types: set = field(default_factory=set)
    structs: dict = field(default_factory=dict)
    opaque: set = field(default_factory=set)
    fn_types: dict = field(default_factory=dict)    # name -> CFunction
    functions: dict = field(default_factory=dict)


def blank_keeping_lines(match):
    return "\n" * match.group(0).count("\n")


def c_statements(text):
    """(statement, line) pairs of C text: comments and preprocessor lines gone (line breaks
    kept, for the line numbers of messages), extern "C" braces gone, split at ';' outside
    braces and parentheses."""
    text = re.sub(r"/\*.*?\*/", lambda m: " " + blank_keeping_lines(m), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^[ \t]*#[^\n]*(\\\n[^\n]*)*", blank_keeping_lines, text, flags=re.M)
    text = re.sub(r'extern\s+"C"\s*\{', "", text)
    text = re.sub(r"^[ \t]*\}[ \t]*$", "", text, flags=re.M)  # the extern "C" block's end
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        elif ch == ";" and depth == 0:
            stmt = text[start:i]
            if stmt.strip():
                lead = len(stmt) - len(stmt.lstrip())
                out.append((stmt.strip(), text.count("\n", 0, start + lead) + 1))
            start = i + 1
    if text[start:].strip():
        raise ParseError(f"line {text.count(chr(10), 0, start) + 1}: text after the last ';': "
                         f"{text[start:].strip()[:60]!r}")
    return out


def parse_c_type(tokens, where):
    """A CType from tokens such as ['const', 'double', '*', 'const', '*']."""
    t = CType(base="")
    for tok in tokens:
        if tok == "*":
            t.ptr_const.append(False)
        elif tok == "const":
            if t.ptr_const:
                t.ptr_const[-1] = True
            else:
                t.base_const = True
        elif re.fullmatch(IDENT, tok) and not t.ptr_const and not t.base:
            t.base = tok
        else:
            raise ParseError(f"{where}: cannot read the type {' '.join(tokens)!r}")
    if not t.base:
        raise ParseError(f"{where}: no type in {' '.join(tokens)!r}")
    return t


def c_tokens(decl):
    return decl.replace("*", " * ").split()


def parse_c_declarator(decl, where):
    """'const double *a' -> ('a', CType); 'char reason[N]' -> ('reason', CType, 'N')."""
    m = re.fullmatch(r"(.*?)(" + IDENT + r")\s*(?:\[\s*(\w+)\s*\])?", decl.strip())
    if not m:
        raise ParseError(f"{where}: cannot read the declaration {decl!r}")
    return m.group(2), parse_c_type(c_tokens(m.group(1)), where), m.group(3)


def parse_c_params(text, where):
    text = text.strip()
    if text in ("", "void"):
        return []
    params = []
    for p in text.split(","):
        name, ctype, dim = parse_c_declarator(p, where)
        if dim is not None:
            raise ParseError(f"{where}: array parameter {p.strip()!r}: write it as a pointer")
        params.append(CParam(name, ctype))
    return params


def c_value(expr, constants, where):
    expr = expr.strip()
    if re.fullmatch(r"-?\d+", expr):
        return int(expr)
    if expr in constants:
        return constants[expr][0]
    raise ParseError(f"{where}: cannot evaluate the enumerator value {expr!r}")


def parse_c_enum_body(body, header, line):
    """Enumerators of `body`, which starts on `line`, each with its own line."""
    value = -1
    for item in body.split(","):
        where = line + item[:len(item) - len(item.lstrip())].count("\n")
        line += item.count("\n")
        item = " ".join(item.split())
        if not item:
            continue
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:=\s*(.+))?", item)
        if not m:
            raise ParseError(f"line {where}: cannot read the enumerator {item!r}")
        value = c_value(m.group(2), header.constants, f"line {where}") if m.group(2) else value + 1
        header.constants[m.group(1)] = (value, where)


def parse_c_header(text):
    h = CHeader()
    for raw, line in c_statements(text):
        where = f"line {line}"
        stmt = " ".join(raw.split())
        if m := re.fullmatch(r"typedef\s+enum\s*\{(.*)\}\s*(" + IDENT + r")", raw, re.S):
            parse_c_enum_body(m.group(1), h, line + raw[:m.start(1)].count("\n"))
            h.enum_types.add(m.group(2))
        elif m := re.fullmatch(r"enum\s*\{(.*)\}", raw, re.S):
            parse_c_enum_body(m.group(1), h, line + raw[:m.start(1)].count("\n"))
        elif m := re.fullmatch(r"typedef struct \{(.*)\} (" + IDENT + r")", stmt):
            fields = []
            for decl in m.group(1).split(";"):
                if not decl.strip():
                    continue
                first, *more = decl.split(",")
                name, ctype, dim = parse_c_declarator(first, where)
                fields.append((name, ctype, dim))
                for extra in more:   # int a, b[2];
                    name2, rest, dim2 = parse_c_declarator(ctype.base + " " + extra, where)
                    fields.append((name2, rest, dim2))
            h.structs[m.group(2)] = CStruct(m.group(2), fields, line)
        elif m := re.fullmatch(r"typedef struct (" + IDENT + r") (" + IDENT + r")", stmt):
            h.opaque.add(m.group(2))
        elif m := re.fullmatch(r"typedef (.+?)\(\s*\*\s*(" + IDENT + r")\s*\)\s*\((.*)\)", stmt):
            h.fn_types[m.group(2)] = CFunction(m.group(2), parse_c_type(c_tokens(m.group(1)), where),
                                               parse_c_params(m.group(3), where), line)
        elif m := re.fullmatch(r"([^()]+?)\b(" + IDENT + r")\s*\((.*)\)", stmt):
            h.functions[m.group(2)] = CFunction(m.group(2), parse_c_type(c_tokens(m.group(1)), where),
                                                parse_c_params(m.group(3), where), line)
        else:
            raise ParseError(f"{where}: not a declaration this checker knows: {stmt[:70]!r}")
    return h


# ---------------------------------------------------------------------------------------------
# Fortran side
# ---------------------------------------------------------------------------------------------

@dataclass
class FDecl:
    typespec: tuple           # ("integer", "c_int64_t"), ("type", "c_ptr"), ...
    attrs: set                # "value", "optional", "intent(in)", ...
    dims: object              # None for a scalar, else the dimension text ("*", "MINV_X")
    line: int

    @property
    def intent(self):
        for a in self.attrs:
            if a.startswith("intent("):
                return a[7:-1]
        return None

    def __str__(self):
        s = f"{self.typespec[0]}({self.typespec[1]})"
        for a in sorted(self.attrs):
            s += ", " + a
        return s + ("" if self.dims is None else f" :: x({self.dims})")


@dataclass
class FProcedure:
    name: str
    kind: str                 # "function" or "subroutine"
    args: list
    label: object             # the bind(c) label; None without bind(c)
    result: object            # the result variable's name (functions)
    line: int
    abstract: bool
    decls: dict = field(default_factory=dict)


@dataclass
class FModule:
    constants: dict = field(default_factory=dict)   # lower name -> (value, name, line)
    types: dict = field(default_factory=dict)       # lower name -> (name, [(field, FDecl)], line)
    procedures: dict = field(default_factory=dict)  # lower name -> FProcedure
    public: set = field(default_factory=set)
    default_private: bool = False


def strip_fortran_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "!":
            return line[:i]
    return line


def fortran_statements(text):
    """(statement, line) pairs of free-form Fortran: comments dropped, continuations joined,
    lower case outside string literals."""
    out, pending, start = [], "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = strip_fortran_comment(raw).strip()
        if pending and line.startswith("&"):
            line = line[1:]
        if not pending:
            start = number
        if line.endswith("&"):
            pending += line[:-1] + " "
            continue
        stmt = (pending + line).strip()
        pending = ""
        for part in split_top(stmt, ";"):
            if part.strip():
                out.append((lower_outside_strings(" ".join(part.split())), start))
    return out


def lower_outside_strings(s):
    return re.sub(r"""("[^"]*"|'[^']*')|[^"']+""",
                  lambda m: m.group(1) if m.group(1) else m.group(0).lower(), s)


def split_top(text, sep):
    """text split at `sep` outside parentheses and string literals."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    parts.append(cur)
    return parts


def normal_typespec(spec, where):
    spec = spec.replace(" ", "")
    m = re.fullmatch(r"(integer|real|type|character)\((.*)\)", spec)
    if not m:
        raise ParseError(f"{where}: type {spec!r} has no interoperable kind")
    base, inner = m.groups()
    kind, length = None, "1"
    for item in inner.split(","):
        key, _, val = item.rpartition("=")
        if key in ("", "kind"):
            kind = val
        elif key == "len":
            length = val
        else:
            raise ParseError(f"{where}: cannot read the type {spec!r}")
    if length != "1":
        raise ParseError(f"{where}: character of len={length}: bind(c) wants len=1 arrays")
    return (base, kind)


def parse_fortran_decl(stmt, line):
    """'real(c_double), intent(in) :: a(*), b' -> {'a': FDecl, 'b': FDecl}."""
    left, _, right = stmt.partition("::")
    spec, *attrs = [a.strip() for a in split_top(left, ",")]
    typespec = normal_typespec(spec, f"line {line}")
    attrs = {a.replace(" ", "") for a in attrs}
    common_dims = None
    for a in list(attrs):
        if a.startswith("dimension("):
            common_dims = a[10:-1]
            attrs.discard(a)
    out = {}
    for ent in split_top(right, ","):
        m = re.fullmatch(r"\s*(" + IDENT + r")\s*(?:\((.*)\))?\s*", ent)
        if not m:
            raise ParseError(f"line {line}: cannot read the entity {ent.strip()!r}")
        dims = m.group(2).replace(" ", "") if m.group(2) is not None else common_dims
        out[m.group(1)] = FDecl(typespec, attrs, dims, line)
    return out


DECL_START = re.compile(r"(integer|real|type|character)\s*\(")
PROC_HEADER = re.compile(r"(?:(?P<prefix>.*?)\s+)?(?P<kind>function|subroutine)\s+(?P<name>" + IDENT +
                         r")\s*\((?P<args>[^)]*)\)(?P<rest>.*)")


def fortran_public_names(text):
    """The names of the public statements of a Fortran file (of any content)."""
    names = set()
    for stmt, _ in fortran_statements(text):
        if m := re.fullmatch(r"public\s*(?:::)?(.*)", stmt):
            names.update(n.strip() for n in m.group(1).split(",") if n.strip())
    return names


def parse_fortran(text):
    mod = FModule()
    block, proc, ftype, enum_value = None, None, None, -1
    abstract = False
    for stmt, line in fortran_statements(text):
        where = f"line {line}"
        if block == "enum":
            if stmt == "end enum":
                block = None
            elif stmt.startswith("enumerator"):
                for item in split_top(stmt[len("enumerator"):].lstrip(" :"), ","):
                    m = re.fullmatch(r"\s*(" + IDENT + r")\s*(?:=\s*(.+?))?\s*", item)
                    if not m:
                        raise ParseError(f"{where}: cannot read the enumerator {item!r}")
                    if m.group(2) is None:
                        enum_value += 1
                    elif re.fullmatch(r"-?\d+", m.group(2)):
                        enum_value = int(m.group(2))
                    elif m.group(2) in mod.constants:
                        enum_value = mod.constants[m.group(2)][0]
                    else:
                        raise ParseError(f"{where}: cannot evaluate {m.group(2)!r}")
                    mod.constants[m.group(1)] = (enum_value, m.group(1), line)
            else:
                raise ParseError(f"{where}: unexpected in an enum: {stmt!r}")
        elif block == "type":
            if re.fullmatch(r"end\s*type(\s+\w+)?", stmt):
                block = None
            elif DECL_START.match(stmt):
                ftype[1].extend(parse_fortran_decl(stmt, line).items())
            else:
                raise ParseError(f"{where}: unexpected in a bind(c) type: {stmt!r}")
        elif proc is not None:
            if re.fullmatch(r"end\s*(function|subroutine)(\s+\w+)?", stmt):
                mod.procedures[proc.name] = proc
                proc = None
            elif stmt.startswith("import") or stmt == "implicit none":
                continue
            elif DECL_START.match(stmt):
                proc.decls.update(parse_fortran_decl(stmt, line))
            else:
                raise ParseError(f"{where}: unexpected in the interface of {proc.name}: {stmt!r}")
        elif block == "interface":
            m = PROC_HEADER.fullmatch(stmt)
            if stmt == "end interface":
                block = None
            elif m:
                rest = m.group("rest")
                b = re.search(r"bind\s*\(\s*c\s*(?:,\s*name\s*=\s*([\"'])(.*?)\1)?\s*\)", rest)
                r = re.search(r"result\s*\(\s*(" + IDENT + r")\s*\)", rest)
                args = [a.strip() for a in m.group("args").split(",") if a.strip()]
                label = None
                if b:
                    label = b.group(2) if b.group(2) is not None else m.group("name")
                proc = FProcedure(m.group("name"), m.group("kind"), args, label,
                                  r.group(1) if r else m.group("name"), line, abstract)
                if m.group("prefix"):
                    proc.decls[proc.result] = FDecl(normal_typespec(m.group("prefix"), where),
                                                    set(), None, line)
            else:
                raise ParseError(f"{where}: unexpected in an interface block: {stmt!r}")
        elif re.fullmatch(r"enum\s*,\s*bind\s*\(\s*c\s*\)", stmt):
            block = "enum"
            enum_value = -1
        elif stmt in ("interface", "abstract interface"):
            block, abstract = "interface", stmt.startswith("abstract")
        elif m := re.fullmatch(r"type\s*,(.*)::\s*(" + IDENT + r")", stmt):
            attrs = {a.replace(" ", "") for a in m.group(1).split(",")}
            block = "type"
            ftype = (m.group(2), [], line)
            if "bind(c)" in attrs:
                mod.types[m.group(2)] = ftype
            if "public" in attrs:
                mod.public.add(m.group(2))
        elif m := re.fullmatch(r"public\s*(?:::)?(.*)", stmt):
            mod.public.update(n.strip() for n in m.group(1).split(",") if n.strip())
        elif stmt == "private":
            mod.default_private = True
        elif stmt == "contains":
            break   # module procedures are not the raw layer
    if block or proc:
        raise ParseError(f"the file ends inside a {block or 'procedure'} block")
    return mod


# ---------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------

@dataclass
class Form:
    """One acceptable Fortran binding of a C argument."""
    typespec: tuple
    value: bool
    rank: str                 # "scalar", "array" or "any"
    intents: tuple = ()       # acceptable intents of a reference argument

    def __str__(self):
        s = f"{self.typespec[0]}({self.typespec[1]})"
        if self.value:
            return s + ", value"
        s += ", intent(" + " or ".join(self.intents) + ")"
        return s + {"scalar": ", a scalar", "array": ", an array", "any": ""}[self.rank]


C_PTR_VALUE = Form(("type", "c_ptr"), True, "scalar")


class Checker:
    def __init__(self, header, module, h_path, f_path, user_public=None, user_path=None):
        self.h, self.f = header, module
        self.h_path, self.f_path = h_path, f_path
        self.user_public, self.user_path = user_public, user_path  # minv_mod's public names
        self.problems = []

    def problem(self, path, line, text):
        self.problems.append(f"{path}:{line}: {text}")

    def at_c(self, line, text):
        self.problem(self.h_path, line, text)

    def at_f(self, line, text):
        self.problem(self.f_path, line, text)

    def kind_of(self, base):
        """The Fortran (type, kind) of a C base type, or None for void and opaque types."""
        if base in C_SCALARS:
            return C_SCALARS[base]
        if base in self.h.enum_types:
            return C_ENUM_KIND
        if base in self.h.structs:
            return ("type", base.lower())   # the Fortran side is read in lower case
        if base in self.h.fn_types:
            return ("type", "c_funptr")
        if base == "void" or base in self.h.opaque:
            return None
        raise ParseError(f"minv.h uses the type {base!r}, which check_fortran_api.py cannot map "
                         f"to Fortran: add it to C_SCALARS")

    def forms(self, t):
        """The acceptable Fortran bindings of a C argument of type t."""
        kind = self.kind_of(t.base)
        if t.depth == 0:
            if kind is None:
                raise ParseError(f"an argument of type {t} by value cannot be bound")
            return [Form(kind, True, "scalar")]
        intents = ("in",) if t.pointee_const else ("out", "inout")
        if kind is None or t.base in self.h.fn_types or t.depth > 2:
            if t.depth == 2 and t.base in self.h.opaque:
                return [Form(("type", "c_ptr"), False, "scalar", intents), C_PTR_VALUE]
            return [C_PTR_VALUE]
        if t.depth == 2:
            return [Form(("type", "c_ptr"), False, "array", intents), C_PTR_VALUE]
        if t.base == "char":
            return [Form(kind, False, "array", intents), C_PTR_VALUE]
        rank = "scalar" if t.base in self.h.structs else "any"
        return [Form(kind, False, rank, intents), C_PTR_VALUE]

    @staticmethod
    def fits(form, d):
        if d.typespec != form.typespec or ("value" in d.attrs) != form.value:
            return False
        if form.value:
            return d.dims is None and d.intent in (None, "in")
        if form.rank == "scalar" and d.dims is not None:
            return False
        if form.rank == "array" and d.dims is None:
            return False
        return d.intent in form.intents

    def check_procedure(self, cf, fp, what):
        cnames = [p.name for p in cf.params]
        if [a.lower() for a in cnames] != fp.args:
            self.at_f(fp.line, f"{what}: arguments ({', '.join(fp.args)}) but minv.h:{cf.line} has "
                               f"({', '.join(cnames)})")
        for i, (p, a) in enumerate(zip(cf.params, fp.args), 1):
            d = fp.decls.get(a)
            if d is None:
                self.at_f(fp.line, f"{what}: argument {i} '{a}' is not declared")
                continue
            forms = self.forms(p.type)
            if not any(self.fits(f, d) for f in forms):
                self.at_f(d.line, f"{what}: argument {i} '{a}': C '{p.type} {p.name}' wants "
                                  f"{' | '.join(str(f) for f in forms)}; Fortran has {d}")
            elif "optional" in d.attrs and "value" in d.attrs:
                self.at_f(d.line, f"{what}: argument {i} '{a}': optional on a value argument "
                                  f"(C cannot see it absent)")
        # the result
        r = cf.result
        if r.depth == 0 and r.base == "void":
            if fp.kind != "subroutine":
                self.at_f(fp.line, f"{what}: C returns void, so it must be a subroutine")
            return
        if fp.kind != "function":
            self.at_f(fp.line, f"{what}: C returns {r}, so it must be a function")
            return
        want = ("type", "c_ptr") if r.depth > 0 else self.kind_of(r.base)
        d = fp.decls.get(fp.result)
        got = f"{d.typespec[0]}({d.typespec[1]})" if d else "no declared type"
        if d is None or d.typespec != want or d.dims is not None:
            self.at_f(fp.line, f"{what}: result: C returns {r}, wanting "
                               f"{want[0]}({want[1]}); Fortran has {got}")

    def check_public(self, fname, line, what):
        if self.f.default_private and fname.lower() not in self.f.public:
            self.at_f(line, f"{what}: not public")

    def run(self):
        h, f = self.h, self.f
        # constants
        for name, (value, line) in h.constants.items():
            got = f.constants.get(name.lower())
            if got is None:
                self.at_c(line, f"enum constant {name} = {value} has no Fortran enumerator")
            else:
                if got[0] != value:
                    self.at_f(got[2], f"enumerator {name} = {got[0]}, but minv.h:{line} says {value}")
                self.check_public(name, got[2], f"enumerator {name}")
            if self.user_public is not None and name.lower() not in self.user_public:
                self.problem(self.user_path, 1, f"enum constant {name} (minv.h:{line}) is not public here")
        c_lower = {n.lower() for n in h.constants}
        for lname, (value, fname, line) in f.constants.items():
            if lname not in c_lower:
                self.at_f(line, f"enumerator {fname} = {value} is not in minv.h")
        # structs
        for name, cs in h.structs.items():
            got = f.types.get(name.lower())
            if got is None:
                self.at_c(cs.line, f"struct {name} has no Fortran type, bind(c)")
                continue
            _, ffields, fline = got
            self.check_public(name, fline, f"type {name}")
            cnames = [n for n, _, _ in cs.fields]
            if [n.lower() for n in cnames] != [n for n, _ in ffields]:
                self.at_f(fline, f"type {name}: fields ({', '.join(n for n, _ in ffields)}) but "
                                 f"minv.h:{cs.line} has ({', '.join(cnames)})")
            for (cname, ctype, cdim), (fname, d) in zip(cs.fields, ffields):
                if cname.lower() != fname:
                    continue   # reported above
                want = ("type", "c_ptr") if ctype.depth else self.kind_of(ctype.base)
                if want is None:
                    raise ParseError(f"field {name}.{cname} of type {ctype} cannot be bound")
                cn = None if cdim is None else c_value(cdim, h.constants, f"struct {name}")
                fn = None if d.dims is None else self.f_dim(d.dims, d.line)
                if d.typespec != want or cn != fn or d.attrs:
                    self.at_f(d.line, f"type {name}: field {fname}: C '{ctype} {cname}"
                                      f"{'' if cdim is None else f'[{cdim}]'}' wants "
                                      f"{want[0]}({want[1]}){'' if cn is None else f' :: ({cn})'}; "
                                      f"Fortran has {d.typespec[0]}({d.typespec[1]})"
                                      f"{''.join(', ' + a for a in sorted(d.attrs))}"
                                      f"{'' if fn is None else f' :: ({fn})'}")
        c_types = {n.lower() for n in h.structs}
        for lname, (fname, _, line) in f.types.items():
            if lname not in c_types:
                self.at_f(line, f"type {fname}, bind(c) is not a struct of minv.h")
        # function types and functions
        for name, cf in h.fn_types.items():
            fp = f.procedures.get(name.lower())
            if fp is None or not fp.abstract:
                self.at_c(cf.line, f"function type {name} has no abstract interface")
                continue
            if fp.label is None:
                self.at_f(fp.line, f"abstract interface {name}: not bind(c)")
            self.check_public(name, fp.line, f"abstract interface {name}")
            self.check_procedure(cf, fp, f"abstract interface {name}")
        by_label = {p.label: p for p in f.procedures.values() if p.label and not p.abstract}
        for name, cf in h.functions.items():
            fp = by_label.get(name)
            if fp is None:
                self.at_c(cf.line, f"function {name} has no bind(c, name=\"{name}\") interface")
                continue
            if fp.name != name.lower():
                self.at_f(fp.line, f"{name}: its interface is named {fp.name}")
            self.check_public(name, fp.line, f"{name}")
            self.check_procedure(cf, fp, name)
        for label, fp in by_label.items():
            if label not in h.functions:
                self.at_f(fp.line, f"interface {fp.name} binds \"{label}\", which minv.h does not "
                                   f"declare")
        return self.problems

    def f_dim(self, dims, line):
        if re.fullmatch(r"\d+", dims):
            return int(dims)
        if dims in self.f.constants:
            return self.f.constants[dims][0]
        raise ParseError(f"line {line}: cannot evaluate the dimension ({dims})")


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    h_path, f_path = argv[1], argv[2]
    user_path = argv[3] if len(argv) == 4 else None
    try:
        with open(h_path, encoding="utf-8") as fh:
            header = parse_c_header(fh.read())
        with open(f_path, encoding="utf-8") as ff:
            module = parse_fortran(ff.read())
        user_public = None
        if user_path:
            with open(user_path, encoding="utf-8") as fu:
                user_public = fortran_public_names(fu.read())
        problems = Checker(header, module, h_path, f_path, user_public, user_path).run()
    except (OSError, ParseError) as e:
        print(f"check_fortran_api: cannot check: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check_fortran_api: {len(problems)} problem(s) between {h_path} and its Fortran "
              f"bindings (the rules are in {argv[0]}'s docstring)")
        return 1
    print(f"check_fortran_api: {f_path} binds all of {h_path}: {len(header.functions)} functions, "
          f"{len(header.fn_types)} function type(s), {len(header.structs)} structs, "
          f"{len(header.constants)} enum constants")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
