! minv_mod agrees with the C API to the last bit: the same input through the Fortran layer,
! through the raw bind(c) layer (minv_c_api) and through a C program (c_reference.c) gives
! identical results and reports, in both kinds, each holding LAPACK's residual bound (so that
! the three cannot agree on a wrong answer); and the bind(c) types have C's layout.
module test_c_agreement_impl
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_int64_t, c_float, c_double
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  use minv_mod
  use minv_c_api, only: minv_invert_d, minv_invert_s, minv_invert_inplace_d, &
                        minv_invert_inplace_s, minv_solve_d, minv_solve_s
  use test_util
  implicit none
  private
  public :: run_r32, run_r64, agree

  interface
    integer(c_int) function ref_invert_d(method, n, a, x, rep) bind(c)
      import :: c_int, c_int64_t, c_double, minv_report
      integer(c_int), value :: method
      integer(c_int64_t), value :: n
      real(c_double) :: a(*), x(*)
      type(minv_report) :: rep
    end function ref_invert_d
    integer(c_int) function ref_invert_s(method, n, a, x, rep) bind(c)
      import :: c_int, c_int64_t, c_float, minv_report
      integer(c_int), value :: method
      integer(c_int64_t), value :: n
      real(c_float) :: a(*), x(*)
      type(minv_report) :: rep
    end function ref_invert_s
    integer(c_int) function ref_invert_inplace_d(method, n, a, rep) bind(c)
      import :: c_int, c_int64_t, c_double, minv_report
      integer(c_int), value :: method
      integer(c_int64_t), value :: n
      real(c_double) :: a(*)
      type(minv_report) :: rep
    end function ref_invert_inplace_d
    integer(c_int) function ref_invert_inplace_s(method, n, a, rep) bind(c)
      import :: c_int, c_int64_t, c_float, minv_report
      integer(c_int), value :: method
      integer(c_int64_t), value :: n
      real(c_float) :: a(*)
      type(minv_report) :: rep
    end function ref_invert_inplace_s
    integer(c_int) function ref_solve_d(method, n, k, a, b, x, rep) bind(c)
      import :: c_int, c_int64_t, c_double, minv_report
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, k
      real(c_double) :: a(*), b(*), x(*)
      type(minv_report) :: rep
    end function ref_solve_d
    integer(c_int) function ref_solve_s(method, n, k, a, b, x, rep) bind(c)
      import :: c_int, c_int64_t, c_float, minv_report
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, k
      real(c_float) :: a(*), b(*), x(*)
      type(minv_report) :: rep
    end function ref_solve_s
  end interface

contains

  ! Statuses and reports of the three paths agree; Fortran's info is C's plus one.
  subroutine agree(what, st_f, st_raw, st_ref, rep_f, rep_raw, rep_ref)
    character(*), intent(in) :: what
    integer, intent(in) :: st_f, st_raw, st_ref
    type(minv_report), intent(in) :: rep_f, rep_raw, rep_ref
    call check(st_f == st_raw .and. st_f == st_ref, what // ': the same status')
    call check(rep_f%info == rep_raw%info + 1 .and. rep_raw%info == rep_ref%info, &
               what // ': info 1-based in Fortran, 0-based in C')
    call check(rep_f%method == rep_ref%method .and. rep_raw%method == rep_ref%method .and. &
               rep_f%backend == rep_ref%backend .and. rep_f%n == rep_ref%n .and. &
               rep_f%nrhs == rep_ref%nrhs .and. rep_f%iterations == rep_ref%iterations .and. &
               rep_f%residual_kind == rep_ref%residual_kind, what // ': the same report fields')
    call check(transfer(rep_f%rcond, 0_int64) == transfer(rep_ref%rcond, 0_int64) .and. &
               transfer(rep_f%residual, 0_int64) == transfer(rep_ref%residual, 0_int64) .and. &
               transfer(rep_raw%residual, 0_int64) == transfer(rep_ref%residual, 0_int64), &
               what // ': the same rcond and residual bits')
    call check(minv_report_reason(rep_f) == minv_report_reason(rep_ref), what // ': the same reason')
  end subroutine agree

#define T_RK real32
#define T_IK int32
#define T_RUN run_r32
#define RAW_INVERT minv_invert_s
#define RAW_INPLACE minv_invert_inplace_s
#define RAW_SOLVE minv_solve_s
#define REF_INVERT ref_invert_s
#define REF_INPLACE ref_invert_inplace_s
#define REF_SOLVE ref_solve_s
#include "test_c_agreement.inc"
#undef T_RK
#undef T_IK
#undef T_RUN
#undef RAW_INVERT
#undef RAW_INPLACE
#undef RAW_SOLVE
#undef REF_INVERT
#undef REF_INPLACE
#undef REF_SOLVE

#define T_RK real64
#define T_IK int64
#define T_RUN run_r64
#define RAW_INVERT minv_invert_d
#define RAW_INPLACE minv_invert_inplace_d
#define RAW_SOLVE minv_solve_d
#define REF_INVERT ref_invert_d
#define REF_INPLACE ref_invert_inplace_d
#define REF_SOLVE ref_solve_d
#include "test_c_agreement.inc"

end module test_c_agreement_impl

program test_c_agreement
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int64_t, c_loc, c_sizeof, c_intptr_t
  use minv_mod
  use minv_c_api, only: minv_options, minv_file_options, minv_options_default, minv_create, &
                        minv_destroy
  use test_c_agreement_impl
  use test_util
  implicit none
  interface
    integer(c_int64_t) function ref_layout(out) bind(c)
      import :: c_int64_t
      integer(c_int64_t) :: out(*)
    end function ref_layout
  end interface
  type(minv_context) :: ctx
  type(c_ptr) :: raw
  type(minv_options) :: opts

  call check_layout()
  call minv_init(ctx, backend=MINV_BACKEND_CPU)
  call minv_options_default(opts)
  opts%backend = MINV_BACKEND_CPU
  call check(minv_create(raw, opts) == MINV_SUCCESS, 'raw minv_create')
  call run_r32(ctx, raw, 'real32')
  call run_r64(ctx, raw, 'real64')
  call check(minv_destroy(raw) == MINV_SUCCESS, 'raw minv_destroy')
  call minv_finalize(ctx)
  call test_finish('test_c_agreement')

contains

  ! Sizes and field offsets of the five bind(c) types equal C's sizeof and offsetof.
  subroutine check_layout()
    type(minv_options), target :: o
    type(minv_report), target :: r
    type(minv_analysis), target :: an
    type(minv_file_options), target :: f
    type(minv_batch_report), target :: br
    integer(c_int64_t) :: c(128), count
    integer(c_int64_t), allocatable :: fortran(:)

    count = ref_layout(c)
    fortran = [int(c_sizeof(o), c_int64_t), at(c_loc(o%backend), c_loc(o)), &
               at(c_loc(o%device), c_loc(o)), at(c_loc(o%cpu_threads), c_loc(o)), &
               at(c_loc(o%ndevices), c_loc(o)), at(c_loc(o%device_memory), c_loc(o)), &
               at(c_loc(o%devices), c_loc(o)), &
               int(c_sizeof(r), c_int64_t), at(c_loc(r%method), c_loc(r)), &
               at(c_loc(r%backend), c_loc(r)), at(c_loc(r%n), c_loc(r)), &
               at(c_loc(r%nrhs), c_loc(r)), at(c_loc(r%iterations), c_loc(r)), &
               at(c_loc(r%info), c_loc(r)), at(c_loc(r%residual), c_loc(r)), &
               at(c_loc(r%residual_kind), c_loc(r)), at(c_loc(r%reserved), c_loc(r)), &
               at(c_loc(r%rcond), c_loc(r)), at(c_loc(r%seconds), c_loc(r)), &
               at(c_loc(r%flops), c_loc(r)), at(c_loc(r%gflops), c_loc(r)), &
               at(c_loc(r%energy), c_loc(r)), at(c_loc(r%history_len), c_loc(r)), &
               at(c_loc(r%residual_history), c_loc(r)), &
               at(c_loc(r%stages%read_seconds), c_loc(r)), at(c_loc(r%stages%upload_seconds), c_loc(r)), &
               at(c_loc(r%stages%compute_seconds), c_loc(r)), at(c_loc(r%stages%download_seconds), c_loc(r)), &
               at(c_loc(r%stages%write_seconds), c_loc(r)), at(c_loc(r%stages%read_bytes), c_loc(r)), &
               at(c_loc(r%stages%upload_bytes), c_loc(r)), at(c_loc(r%stages%download_bytes), c_loc(r)), &
               at(c_loc(r%stages%write_bytes), c_loc(r)), at(c_loc(r%device), c_loc(r)), &
               at(c_loc(r%fallbacks), c_loc(r)), at(c_loc(r%recondition), c_loc(r)), &
               at(c_loc(r%reserved2), c_loc(r)), at(c_loc(r%recondition_shift), c_loc(r)), &
               at(c_loc(r%condition_before), c_loc(r)), at(c_loc(r%condition_after), c_loc(r)), &
               at(c_loc(r%matrices), c_loc(r)), at(c_loc(r%worst), c_loc(r)), &
               at(c_loc(r%reason), c_loc(r)), at(c_loc(r%asymmetry), c_loc(r)), &
               int(c_sizeof(an), c_int64_t), at(c_loc(an%n), c_loc(an)), &
               at(c_loc(an%finite), c_loc(an)), at(c_loc(an%symmetric), c_loc(an)), &
               at(c_loc(an%diag_dominant), c_loc(an)), at(c_loc(an%tridiagonal), c_loc(an)), &
               at(c_loc(an%diag_positive), c_loc(an)), at(c_loc(an%reserved), c_loc(an)), &
               at(c_loc(an%first_bad_row), c_loc(an)), at(c_loc(an%first_bad_col), c_loc(an)), &
               at(c_loc(an%lower_bandwidth), c_loc(an)), &
               at(c_loc(an%upper_bandwidth), c_loc(an)), at(c_loc(an%asymmetry), c_loc(an)), &
               at(c_loc(an%norm_1), c_loc(an)), at(c_loc(an%norm_inf), c_loc(an)), &
               at(c_loc(an%norm_fro), c_loc(an)), at(c_loc(an%diag_min), c_loc(an)), &
               at(c_loc(an%diag_max), c_loc(an)), at(c_loc(an%auto_method), c_loc(an)), &
               int(c_sizeof(f), c_int64_t), at(c_loc(f%precision), c_loc(f)), &
               at(c_loc(f%deflate_level), c_loc(f)), at(c_loc(f%nslice), c_loc(f)), &
               at(c_loc(f%overwrite), c_loc(f)), at(c_loc(f%slice), c_loc(f)), &
               at(c_loc(f%tile), c_loc(f)), at(c_loc(f%fortran_order), c_loc(f)), &
               at(c_loc(f%batch_chunk), c_loc(f)), at(c_loc(f%format), c_loc(f)), &
               at(c_loc(f%allow_remote), c_loc(f)), at(c_loc(f%index_base), c_loc(f)), &
               at(c_loc(f%reserved), c_loc(f)), &
               int(c_sizeof(br), c_int64_t), at(c_loc(br%method), c_loc(br)), &
               at(c_loc(br%backend), c_loc(br)), at(c_loc(br%nbatch), c_loc(br)), &
               at(c_loc(br%k), c_loc(br)), at(c_loc(br%nrhs), c_loc(br)), &
               at(c_loc(br%cholesky_count), c_loc(br)), at(c_loc(br%failed), c_loc(br)), &
               at(c_loc(br%first_failed), c_loc(br)), at(c_loc(br%first_status), c_loc(br)), &
               at(c_loc(br%reserved), c_loc(br)), at(c_loc(br%first_info), c_loc(br)), &
               at(c_loc(br%residual), c_loc(br)), at(c_loc(br%worst), c_loc(br)), &
               at(c_loc(br%residual_kind), c_loc(br)), at(c_loc(br%reserved2), c_loc(br)), &
               at(c_loc(br%rcond), c_loc(br)), at(c_loc(br%seconds), c_loc(br)), &
               at(c_loc(br%flops), c_loc(br)), at(c_loc(br%gflops), c_loc(br)), &
               at(c_loc(br%stages%read_seconds), c_loc(br)), at(c_loc(br%stages%upload_seconds), c_loc(br)), &
               at(c_loc(br%stages%compute_seconds), c_loc(br)), at(c_loc(br%stages%download_seconds), c_loc(br)), &
               at(c_loc(br%stages%write_seconds), c_loc(br)), at(c_loc(br%stages%read_bytes), c_loc(br)), &
               at(c_loc(br%stages%upload_bytes), c_loc(br)), at(c_loc(br%stages%download_bytes), c_loc(br)), &
               at(c_loc(br%stages%write_bytes), c_loc(br)), at(c_loc(br%device), c_loc(br)), &
               at(c_loc(br%fallbacks), c_loc(br)), &
               at(c_loc(br%reason), c_loc(br))]
    call check(size(fortran) == count, 'layout: as many values as C gives')
    if (size(fortran) == count) &
      call check(all(fortran == c(1:count)), 'layout: sizes and offsets equal C''s')
  end subroutine check_layout

  integer(c_int64_t) function at(field, base)
    type(c_ptr), intent(in) :: field, base
    at = transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t)
  end function at
end program test_c_agreement
