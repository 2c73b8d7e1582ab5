! minv_mpi_mod: minv across the ranks of an MPI communicator, for Fortran (libminv_mpi).
!
!   use mpi                                  ! or mpi_f08, passing comm%MPI_VAL
!   use minv_mod
!   use minv_mpi_mod
!   call minv_init(ctx, device=minv_mpi_device(comm))              ! one GPU a rank
!   call minv_invert_file(ctx, 'B.nc', 'B', 'B_inv.nc', comm=comm)   ! one matrix over the ranks
!   call minv_invert_batched(ctx, a, ainv, comm=comm, rebalance=.true.)  ! each rank its a(k,k,:)
!   call minv_layout_init(layout, ctx, comm, n, n)   ! ScaLAPACK's block-cyclic layout
!   allocate (a(layout%lld, layout%local_cols), ainv(layout%lld, layout%local_cols))
!   call minv_invert(ctx, a, ainv, layout)           ! ScaLAPACK, or cuSOLVERMp on GPUs
!
! The generics of minv_mod gain specifics that take a communicator (comm=, an integer, as the
! mpi module gives it and mpi_f08's type(MPI_Comm) holds in %MPI_VAL) or a layout; pass comm=
! by keyword. minv_mod's conventions hold: real32 and real64, optional stat and errmsg (an
! error stops the program without stat), 1-based indices (report%info, first_failed, worst,
! slice, and the global rows and columns of minv_layout_row/col), fortran_order = .true. by
! default in the file routines. Every rank calls each routine (they are collective) and gets
! the same status, message and report; a batched call's members are each rank's own, numbered
! globally rank after rank in the report. The C API is minv_mpi.h.
module minv_mpi_mod
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_char, c_ptr, c_null_ptr, &
                                         c_null_char, c_associated, c_f_pointer, c_loc, c_size_t
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64
  use minv_c_api, only: MINV_SUCCESS, MINV_ERR_INVALID_ARG, MINV_ERR_SHAPE, MINV_ERR_CONTEXT_BUSY, MINV_METHOD_AUTO, &
                        MINV_MAX_SLICE, minv_report, minv_batch_report, minv_file_options, &
                        minv_file_options_default, minv_last_error
  use minv_mod, only: minv_context, minv_context_c_ptr, minv_status_string, minv_invert_file, &
                      minv_solve_file, minv_invert_batched, minv_solve_batched, minv_invert, minv_solve
  implicit none
  private

  public :: minv_invert_file, minv_solve_file, minv_invert_batched, minv_solve_batched, &
            minv_invert, minv_solve
  public :: minv_mpi_device, minv_layout_init, minv_layout_like, minv_layout_from_desc, &
            minv_layout_free, minv_layout_row, minv_layout_col

  ! ScaLAPACK's block-cyclic layout of one matrix over the ranks (minv_mpi_layout of
  ! minv_mpi.h): the global m x n matrix in mb x nb blocks over an nprow x npcol grid; this
  ! rank holds local_rows x local_cols of it (allocate its array as (lld, local_cols)) at grid
  ! row myrow and column mycol (0-based, as the BLACS count; -1 outside the grid). desc is
  ! ScaLAPACK's descriptor, for calling ScaLAPACK on the same arrays.
  type, bind(c), public :: minv_layout
    integer(c_int64_t) :: m = 0, n = 0, mb = 0, nb = 0
    integer(c_int32_t) :: nprow = 0, npcol = 0, myrow = -1, mycol = -1
    integer(c_int64_t) :: local_rows = 0, local_cols = 0, lld = 1
    integer(c_int32_t) :: desc(9) = 0
    integer(c_int32_t) :: reserved = 0
    type(c_ptr) :: internal = c_null_ptr
  end type minv_layout

  ! minv_invert_file and minv_solve_file over the ranks of comm.
  interface minv_invert_file
    module procedure invert_file_mpi
  end interface minv_invert_file

  interface minv_solve_file
    module procedure solve_file_mpi
  end interface minv_solve_file

  ! Each rank's own batch a(k, k, nbatch) (nbatch may be 0); rebalance = .true. deals the
  ! members to the ranks by cost (k^3) and brings the results back.
  interface minv_invert_batched
    module procedure invert_batched_mpi_r32, invert_batched_mpi_r64
  end interface minv_invert_batched

  interface minv_solve_batched
    module procedure solve_batched_mpi_r32, solve_batched_mpi_r64
  end interface minv_solve_batched

  ! One matrix over the ranks: a and ainv (b and x) are this rank's pieces in `layout`.
  interface minv_invert
    module procedure invert_layout_r32, invert_layout_r64
  end interface minv_invert

  interface minv_solve
    module procedure solve_layout_r32, solve_layout_r64
  end interface minv_solve

  ! The matrix's m x n as default integers (a DA code's own) or int64.
  interface minv_layout_init
    module procedure layout_init_i64, layout_init_i32
  end interface minv_layout_init

  interface minv_layout_like
    module procedure layout_like_i64, layout_like_i32
  end interface minv_layout_like

  interface
    integer(c_int32_t) function c_device(comm) bind(c, name="minv_mpi_device_f")
      import :: c_int, c_int32_t
      integer(c_int), value :: comm
    end function c_device

    integer(c_int) function c_invert_file(ctx, comm, method, in_path, in_var, out_path, out_var, &
                                          fopts, report) bind(c, name="minv_mpi_invert_file_f")
      import :: c_int, c_ptr, c_char, minv_file_options, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: comm, method
      character(kind=c_char), intent(in) :: in_path(*), in_var(*), out_path(*)
      character(kind=c_char), intent(in), optional :: out_var(*)
      type(minv_file_options), intent(in) :: fopts
      type(minv_report), intent(inout), optional :: report
    end function c_invert_file

    integer(c_int) function c_solve_file(ctx, comm, method, a_path, a_var, b_path, b_var, x_path, &
                                         x_var, fopts, report) bind(c, name="minv_mpi_solve_file_f")
      import :: c_int, c_ptr, c_char, minv_file_options, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: comm, method
      character(kind=c_char), intent(in) :: a_path(*), a_var(*), b_path(*), b_var(*), x_path(*)
      character(kind=c_char), intent(in), optional :: x_var(*)
      type(minv_file_options), intent(in) :: fopts
      type(minv_report), intent(inout), optional :: report
    end function c_solve_file

    integer(c_int) function c_layout_create(ctx, comm, m, n, nb, nprow, npcol, layout) &
        bind(c, name="minv_mpi_layout_create_f")
      import :: c_int, c_int32_t, c_int64_t, c_ptr, minv_layout
      type(c_ptr), value :: ctx
      integer(c_int), value :: comm
      integer(c_int64_t), value :: m, n, nb
      integer(c_int32_t), value :: nprow, npcol
      type(minv_layout), intent(inout) :: layout
    end function c_layout_create

    integer(c_int) function c_layout_from_desc(ctx, comm, desc, layout) &
        bind(c, name="minv_mpi_layout_from_desc_f")
      import :: c_int, c_int32_t, c_ptr, minv_layout
      type(c_ptr), value :: ctx
      integer(c_int), value :: comm
      integer(c_int32_t), intent(in) :: desc(9)
      type(minv_layout), intent(inout) :: layout
    end function c_layout_from_desc

    integer(c_int) function c_layout_like(ctx, like, m, n, layout) bind(c, name="minv_mpi_layout_like")
      import :: c_int, c_int64_t, c_ptr, minv_layout
      type(c_ptr), value :: ctx
      type(minv_layout), intent(in) :: like
      integer(c_int64_t), value :: m, n
      type(minv_layout), intent(inout) :: layout
    end function c_layout_like

    subroutine c_layout_free(layout) bind(c, name="minv_mpi_layout_free")
      import :: minv_layout
      type(minv_layout), intent(inout) :: layout
    end subroutine c_layout_free

    integer(c_int64_t) function c_layout_row(layout, li) bind(c, name="minv_mpi_layout_row")
      import :: c_int64_t, minv_layout
      type(minv_layout), intent(in) :: layout
      integer(c_int64_t), value :: li
    end function c_layout_row

    integer(c_int64_t) function c_layout_col(layout, lj) bind(c, name="minv_mpi_layout_col")
      import :: c_int64_t, minv_layout
      type(minv_layout), intent(in) :: layout
      integer(c_int64_t), value :: lj
    end function c_layout_col

  end interface

  ! The address of an array for C (private).
  interface address
    module procedure address2_r32, address2_r64, address3_r32, address3_r64
  end interface address

  interface str
    module procedure str_i64
  end interface str

  interface
    ! a failure found in Fortran on some ranks, made every rank's (src_mpi/fortran/shims.c)
    integer(c_int) function c_agree(ctx, comm, status, why) bind(c, name="minv_mpi_agree_f")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      integer(c_int), value :: comm, status
      character(kind=c_char), intent(in) :: why(*)
    end function c_agree

    integer(c_int) function c_agree_layout(ctx, layout, status, why) bind(c, name="minv_mpi_agree_layout_f")
      import :: c_int, c_ptr, c_char, minv_layout
      type(c_ptr), value :: ctx
      type(minv_layout), intent(in) :: layout
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: why(*)
    end function c_agree_layout

    ! libc's strlen, to read the C strings minv returns
    function c_strlen(s) bind(c, name="strlen") result(len)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: len
    end function c_strlen
  end interface

contains

  ! The CUDA device of this rank: its rank among the ranks of its node modulo the node's GPUs
  ! (0 without GPUs), for minv_init(ctx, device=minv_mpi_device(comm)). Collective.
  integer function minv_mpi_device(comm) result(device)
    integer, intent(in) :: comm
    device = int(c_device(int(comm, c_int)))
  end function minv_mpi_device

#include "minv_mpi_mod_support.inc"
#include "minv_mpi_mod_files.inc"
#include "minv_mpi_mod_layout.inc"

  ! ---- the kind-specific routines: one template, instantiated for real32 and real64 ----
#define T_RK real32
#define T_INVERT_BATCHED invert_batched_mpi_r32
#define T_SOLVE_BATCHED solve_batched_mpi_r32
#define T_INVERT_LAYOUT invert_layout_r32
#define T_SOLVE_LAYOUT solve_layout_r32
#define T_ADDRESS2 address2_r32
#define T_ADDRESS3 address3_r32
#define C_INVERT_LAYOUT "minv_mpi_invert_s"
#define C_SOLVE_LAYOUT "minv_mpi_solve_s"
#define C_SOLVE_BATCHED "minv_mpi_solve_batched_s_f"
#define C_INVERT_BATCHED "minv_mpi_invert_batched_s_f"
#include "minv_mpi_mod_kind.inc"
#undef T_RK
#undef T_INVERT_BATCHED
#undef T_SOLVE_BATCHED
#undef T_INVERT_LAYOUT
#undef T_SOLVE_LAYOUT
#undef T_ADDRESS2
#undef T_ADDRESS3
#undef C_INVERT_LAYOUT
#undef C_SOLVE_LAYOUT
#undef C_SOLVE_BATCHED
#undef C_INVERT_BATCHED

#define T_RK real64
#define T_INVERT_BATCHED invert_batched_mpi_r64
#define T_SOLVE_BATCHED solve_batched_mpi_r64
#define T_INVERT_LAYOUT invert_layout_r64
#define T_SOLVE_LAYOUT solve_layout_r64
#define T_ADDRESS2 address2_r64
#define T_ADDRESS3 address3_r64
#define C_INVERT_LAYOUT "minv_mpi_invert_d"
#define C_SOLVE_LAYOUT "minv_mpi_solve_d"
#define C_SOLVE_BATCHED "minv_mpi_solve_batched_d_f"
#define C_INVERT_BATCHED "minv_mpi_invert_batched_d_f"
#include "minv_mpi_mod_kind.inc"

end module minv_mpi_mod
