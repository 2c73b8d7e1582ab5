#!/usr/bin/env python3
"""The checker of the Fortran bindings, checked: on a small header and its correct binding it
finds nothing; each mutation below (a binding missing, two arguments swapped, a kind, an
intent, a field, an enum value ...) it must report, with the words given. A checker that
passed everything would fail here."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_fortran_api as cfa  # noqa: E402

HEADER = """\
/* A header in minv.h's style. */
#ifndef T_H
#define T_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum {
    T_OK = 0,
    T_BAD = 1, /* a comment; with a semicolon */
    T_NEXT
} t_status;
enum { T_LEN = 4 };
typedef struct {
    t_status status;
    int32_t n;
    int64_t big;
    double x;
    char name[T_LEN];
} t_report;
typedef struct t_ctx t_ctx;
typedef void (*t_fn)(void *user, const char *stage, double fraction);
t_status t_create(t_ctx **ctx);
t_status t_run(t_ctx *ctx, int64_t k, int64_t nbatch, const double *a, double *x,
               const double *const *ptrs, t_status *status, t_report *report);
const char *t_name(t_status s);
void t_defaults(t_report *r);
t_status t_file(t_ctx *ctx, const char *path, t_fn fn, void *user);
#ifdef __cplusplus
}
#endif
#endif
"""

FORTRAN = """\
module t_api
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_char, &
                                         c_ptr, c_funptr
  implicit none
  private
  enum, bind(c)
    enumerator :: T_OK = 0, T_BAD = 1
    enumerator :: T_NEXT
  end enum
  enum, bind(c)
    enumerator :: T_LEN = 4
  end enum
  public :: T_OK, T_BAD, T_NEXT, T_LEN

  type, bind(c), public :: t_report
    integer(c_int) :: status
    integer(c_int32_t) :: n
    integer(c_int64_t) :: big
    real(c_double) :: x
    character(kind=c_char) :: name(T_LEN)
  end type t_report

  public :: t_fn, t_create, t_run, t_name, t_defaults, t_file

  abstract interface
    subroutine t_fn(user, stage, fraction) bind(c)
      import :: c_ptr, c_char, c_double
      type(c_ptr), value :: user
      character(kind=c_char), intent(in) :: stage(*)
      real(c_double), value :: fraction
    end subroutine t_fn
  end interface

  interface
    function t_create(ctx) bind(c, name="t_create") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: ctx
      integer(c_int) :: status
    end function t_create

    function t_run(ctx, k, nbatch, a, x, ptrs, status, report) &
        bind(c, name="t_run") result(status_)
      import :: c_int, c_int64_t, c_double, c_ptr, t_report
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: k, nbatch
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: x(*)
      type(c_ptr), intent(in) :: ptrs(*)
      integer(c_int), intent(out), optional :: status(*)
      type(t_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function t_run

    type(c_ptr) function t_name(s) bind(c, name="t_name")
      import :: c_ptr, c_int
      integer(c_int), value :: s
    end function

    subroutine t_defaults(r) bind(c, name="t_defaults")
      import :: t_report
      type(t_report), intent(out) :: r
    end subroutine t_defaults

    function t_file(ctx, path, fn, user) bind(c, name="t_file") result(status)
      import :: c_int, c_ptr, c_char, c_funptr
      type(c_ptr), value :: ctx, user
      character(kind=c_char), intent(in) :: path(*)
      type(c_funptr), value :: fn
      integer(c_int) :: status
    end function t_file
  end interface
end module t_api
"""

# (file, old text, new text, words the report must contain)
MUTATIONS = [
    ("f", 'type(c_ptr) function t_name(s) bind(c, name="t_name")',
     'type(c_ptr) function t_nom(s) bind(c, name="t_nom")',
     'function t_name has no bind(c, name="t_name") interface'),
    ("f", 'type(c_ptr) function t_name(s) bind(c, name="t_name")',
     'type(c_ptr) function t_name(s) bind(c, name="t_nom")', 'binds "t_nom", which minv.h'),
    ("f", "t_run(ctx, k, nbatch,", "t_run(ctx, nbatch, k,", "arguments (ctx, nbatch, k"),
    ("f", "integer(c_int64_t), value :: k, nbatch",
     "integer(c_int64_t), value :: k\n      integer(c_int32_t), value :: nbatch",
     "argument 3 'nbatch': C 'int64_t nbatch' wants integer(c_int64_t), value"),
    ("f", "integer(c_int64_t), value :: k, nbatch", "integer(c_int64_t) :: k, nbatch",
     "argument 2 'k'"),
    ("f", "real(c_double), intent(in) :: a(*)", "real(c_double), intent(inout) :: a(*)",
     "argument 4 'a': C 'const double * a' wants real(c_double), intent(in)"),
    ("f", "real(c_double), intent(inout) :: x(*)", "real(c_double), intent(in) :: x(*)",
     "argument 5 'x': C 'double * x' wants real(c_double), intent(out or inout)"),
    ("f", "real(c_double), intent(inout) :: x(*)", "real(c_float), intent(inout) :: x(*)",
     "argument 5 'x'"),
    ("f", "type(c_ptr), intent(in) :: ptrs(*)", "type(c_ptr), intent(in) :: ptrs",
     "argument 6 'ptrs'"),
    ("f", "integer(c_int), intent(out), optional :: status(*)",
     "integer(c_int), value, optional :: status", "argument 7 'status'"),
    ("f", "type(c_ptr), intent(out) :: ctx", "type(c_ptr), value :: ctx",
     None),   # a c_ptr by value is an accepted form of any pointer: no problem
    ("f", "type(c_ptr), intent(out) :: ctx", "type(c_ptr) :: ctx", "argument 1 'ctx'"),
    ("f", "type(t_report), intent(inout), optional :: report",
     "type(t_report), intent(inout), optional :: report(*)", "argument 8 'report'"),
    ("f", "      type(c_funptr), value :: fn\n", "", "argument 3 'fn' is not declared"),
    ("f", "      integer(c_int), value :: s\n", "      integer(c_int), value, optional :: s\n",
     "optional on a value argument"),
    ("f", 'type(c_ptr) function t_name(s) bind(c, name="t_name")',
     'integer(c_int) function t_name(s) bind(c, name="t_name")',
     "result: C returns const char *, wanting type(c_ptr); Fortran has integer(c_int)"),
    ("f", 'subroutine t_defaults(r) bind(c, name="t_defaults")',
     'function t_defaults(r) bind(c, name="t_defaults")',
     "C returns void, so it must be a subroutine"),
    ("f", "    integer(c_int32_t) :: n\n    integer(c_int64_t) :: big\n",
     "    integer(c_int64_t) :: big\n    integer(c_int32_t) :: n\n",
     "type t_report: fields (status, big, n, x, name)"),
    ("f", "integer(c_int64_t) :: big", "integer(c_int32_t) :: big",
     "field big: C 'int64_t big' wants integer(c_int64_t)"),
    ("f", "character(kind=c_char) :: name(T_LEN)", "character(kind=c_char) :: name(3)",
     "field name: C 'char name[T_LEN]' wants character(c_char) :: (4)"),
    ("f", "    real(c_double) :: x\n", "", "type t_report: fields (status, n, big, name)"),
    ("f", "enumerator :: T_NEXT", "enumerator :: T_NEXT = 3",
     "enumerator T_NEXT = 3, but minv.h:11 says 2"),
    ("f", "    enumerator :: T_NEXT\n", "", "enum constant T_NEXT = 2 has no Fortran enumerator"),
    ("f", "enumerator :: T_LEN = 4", "enumerator :: T_LEN = 4, T_EXTRA",
     "enumerator t_extra = 5 is not in minv.h"),
    ("f", "public :: T_OK, T_BAD, T_NEXT, T_LEN", "public :: T_OK, T_BAD, T_LEN",
     "enumerator T_NEXT: not public"),
    ("f", "public :: t_fn, t_create,", "public :: t_create,", "abstract interface t_fn: not public"),
    ("f", "type, bind(c), public :: t_report", "type, bind(c) :: t_report", "type t_report: not public"),
    ("f", "type, bind(c), public :: t_report", "type, public :: t_report",
     "struct t_report has no Fortran type, bind(c)"),
    ("f", "subroutine t_fn(user, stage, fraction) bind(c)", "subroutine t_fn(user, stage, fraction)",
     "abstract interface t_fn: not bind(c)"),
    ("f", "character(kind=c_char), intent(in) :: stage(*)", "character(kind=c_char), value :: stage",
     "abstract interface t_fn: argument 2 'stage'"),
    ("h", "void t_defaults(t_report *r);", "void t_defaults(t_report *r);\nint64_t t_count(const t_ctx *ctx);",
     'function t_count has no bind(c, name="t_count") interface'),
    ("h", "t_status t_create(t_ctx **ctx);", "t_status t_create(t_ctx **ctx, int32_t flags);",
     "arguments (ctx) but minv.h:23 has (ctx, flags)"),
    ("h", "    double x;\n", "    double x;\n    float y;\n",
     "type t_report: fields (status, n, big, x, name) but minv.h:14 has (status, n, big, x, y, name)"),
    ("h", "T_NEXT\n", "T_NEXT,\n    T_LAST = 7\n", "enum constant T_LAST = 7 has no Fortran"),
]

UNREADABLE = [
    ("h", "void t_defaults(t_report *r);", "void t_defaults(unsigned long r);", "cannot read the type"),
    ("h", "void t_defaults(t_report *r);", "void t_defaults(t_thing *r);", "cannot map"),
    ("h", "enum { T_LEN = 4 };", "enum { T_LEN = 1 << 2 };", "cannot evaluate"),
    ("h", "enum { T_LEN = 4 };", "union { int a; double b; } u;", "not a declaration this checker"),
    ("f", "character(kind=c_char) :: name(T_LEN)", "character(len=4) :: name", "len=4"),
    ("f", "integer(c_int32_t) :: n", "logical :: n", "unexpected in a bind(c) type"),
    ("f", "    end function t_file\n", "", "unexpected in the interface of t_file"),
]


def mutate(which, old, new):
    h, f = HEADER, FORTRAN
    text = h if which == "h" else f
    assert text.count(old) == 1, f"the fixture holds {old!r} {text.count(old)} times"
    text = text.replace(old, new)
    return (text, f) if which == "h" else (h, text)


def problems(h, f):
    return cfa.Checker(cfa.parse_c_header(h), cfa.parse_fortran(f), "minv.h", "api.f90").run()


class CheckFortranApi(unittest.TestCase):
    def test_fixture_agrees(self):
        self.assertEqual(problems(HEADER, FORTRAN), [])

    def test_each_mutation_is_reported(self):
        for which, old, new, words in MUTATIONS:
            with self.subTest(old=old, new=new):
                found = problems(*mutate(which, old, new))
                if words is None:
                    self.assertEqual(found, [])
                else:
                    self.assertTrue(any(words in p for p in found),
                                    f"expected {words!r} among {found}")

    def test_constants_public_in_the_users_module(self):
        header, module = cfa.parse_c_header(HEADER), cfa.parse_fortran(FORTRAN)
        users = cfa.fortran_public_names("module m\n  public :: T_OK, T_BAD, &\n    T_LEN\nend module m\n")
        found = cfa.Checker(header, module, "minv.h", "api.f90", users, "mod.F90").run()
        self.assertEqual(found, ["mod.F90:1: enum constant T_NEXT (minv.h:11) is not public here"])

    def test_what_it_cannot_read_is_an_error(self):
        for which, old, new, words in UNREADABLE:
            with self.subTest(old=old, new=new):
                with self.assertRaises(cfa.ParseError) as caught:
                    problems(*mutate(which, old, new))
                self.assertIn(words, str(caught.exception))

    def test_command_line_exit_codes(self):
        import subprocess
        import tempfile
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_fortran_api.py")
        with tempfile.TemporaryDirectory() as d:
            hp, fp = os.path.join(d, "t.h"), os.path.join(d, "t.f90")
            for (h, f), rc in (((HEADER, FORTRAN), 0),
                               (mutate("h", "T_NEXT\n", "T_NEXT, T_LAST\n"), 1),
                               (mutate("h", "enum { T_LEN = 4 };", "enum { T_LEN = x };"), 2)):
                with open(hp, "w") as out:
                    out.write(h)
                with open(fp, "w") as out:
                    out.write(f)
                run = subprocess.run([sys.executable, script, hp, fp], capture_output=True, text=True)
                self.assertEqual(run.returncode, rc, run.stdout + run.stderr)
                if rc == 1:
                    self.assertIn("t.h:11: enum constant T_LAST = 3 has no Fortran enumerator",
                                  run.stdout)


if __name__ == "__main__":
    unittest.main()
