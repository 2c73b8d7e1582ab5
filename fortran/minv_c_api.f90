! minv_c_api: the raw bind(C) layer of minv's Fortran interface. It binds every function,
! struct and enum constant of src_c/include/minv.h under C's names and adds nothing: C
! semantics throughout (0-based indices, -1 for "none", NUL-terminated strings, optional =
! NULL). Users `use minv_mod`, which builds the Fortran conventions on top of this; this
! module is public only so that tests (and the rare expert) can reach the C entry points
! directly. The test test_fortran_bindings (tests/api/check_fortran_api.py) fails on anything
! of minv.h missing here or bound otherwise than by these rules: a change to minv.h needs its
! binding here in the same commit.
!
! Mapping rules, applied mechanically as FFTW's fftw3.f03 does:
!   C enum              -> enum, bind(c) (enumerators of kind c_int)
!   int32_t / int64_t   -> integer(c_int32_t) / integer(c_int64_t), by value
!   const T *m (host)   -> real(c_T), intent(in) :: m(*)    (sequence association)
!   T *m (host)         -> real(c_T), intent(inout) :: m(*) (intent(out) for a scalar result)
!   device pointers     -> type(c_ptr), value
!   batched host arrays -> type(c_ptr), value (c_loc of a contiguous array), so that one array
!                          may be a routine's input and output (in place)
!   arrays of pointers  -> type(c_ptr), intent(in) :: p(*)
!   struct *, may be NULL -> type(...), optional
!   const char * in     -> character(kind=c_char), intent(in) :: s(*)  (NUL-terminated)
!   const char * out    -> type(c_ptr) result
module minv_c_api
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_float, &
                                         c_char, c_ptr, c_funptr
  implicit none
  private

  ! minv_status
  enum, bind(c)
    enumerator :: MINV_SUCCESS = 0
    enumerator :: MINV_ERR_INVALID_ARG = 1
    enumerator :: MINV_ERR_ALLOC = 2
    enumerator :: MINV_ERR_NOT_FINITE = 3
    enumerator :: MINV_ERR_SINGULAR = 4
    enumerator :: MINV_ERR_NOT_SPD = 5
    enumerator :: MINV_ERR_NO_CONVERGENCE = 6
    enumerator :: MINV_ERR_NOT_IMPLEMENTED = 7
    enumerator :: MINV_ERR_NO_GPU = 8
    enumerator :: MINV_ERR_GPU = 9
    enumerator :: MINV_ERR_DEVICE_MEMORY = 10
    enumerator :: MINV_ERR_SHAPE = 11
    enumerator :: MINV_ERR_IO = 12
    enumerator :: MINV_ERR_NOT_FOUND = 13
    enumerator :: MINV_ERR_INTERNAL = 14
    enumerator :: MINV_ERR_CONTEXT_BUSY = 15
  end enum
  public :: MINV_SUCCESS, MINV_ERR_INVALID_ARG, MINV_ERR_ALLOC, MINV_ERR_NOT_FINITE, &
            MINV_ERR_SINGULAR, MINV_ERR_NOT_SPD, MINV_ERR_NO_CONVERGENCE, &
            MINV_ERR_NOT_IMPLEMENTED, MINV_ERR_NO_GPU, MINV_ERR_GPU, MINV_ERR_DEVICE_MEMORY, &
            MINV_ERR_SHAPE, MINV_ERR_IO, MINV_ERR_NOT_FOUND, MINV_ERR_INTERNAL, &
            MINV_ERR_CONTEXT_BUSY

  ! minv_backend
  enum, bind(c)
    enumerator :: MINV_BACKEND_AUTO = 0
    enumerator :: MINV_BACKEND_CPU = 1
    enumerator :: MINV_BACKEND_GPU = 2
  end enum
  public :: MINV_BACKEND_AUTO, MINV_BACKEND_CPU, MINV_BACKEND_GPU

  ! minv_method
  enum, bind(c)
    enumerator :: MINV_METHOD_AUTO = 0
    enumerator :: MINV_METHOD_CHOLESKY = 1
    enumerator :: MINV_METHOD_LU = 2
    enumerator :: MINV_METHOD_GAUSS_JORDAN = 3
    enumerator :: MINV_METHOD_ITERATIVE = 4
    enumerator :: MINV_METHOD_TRIDIAGONAL = 5
  end enum
  public :: MINV_METHOD_AUTO, MINV_METHOD_CHOLESKY, MINV_METHOD_LU, MINV_METHOD_GAUSS_JORDAN, &
            MINV_METHOD_ITERATIVE, MINV_METHOD_TRIDIAGONAL

  enum, bind(c)
    enumerator :: MINV_MAX_DEVICES = 16
  end enum
  public :: MINV_MAX_DEVICES

  type, bind(c), public :: minv_options
    integer(c_int) :: backend
    integer(c_int32_t) :: device
    integer(c_int32_t) :: cpu_threads
    integer(c_int32_t) :: ndevices
    integer(c_int64_t) :: device_memory
    integer(c_int32_t) :: devices(MINV_MAX_DEVICES)
  end type minv_options

  ! minv_option
  enum, bind(c)
    enumerator :: MINV_OPT_TOLERANCE = 0
    enumerator :: MINV_OPT_MAX_ITERATIONS = 1
    enumerator :: MINV_OPT_BLOCK_SIZE = 2
    enumerator :: MINV_OPT_TILE_SIZE = 3
    enumerator :: MINV_OPT_SYMMETRY_TOL = 4
    enumerator :: MINV_OPT_RESIDUAL = 5
    enumerator :: MINV_OPT_INITIAL_GUESS = 6
    enumerator :: MINV_OPT_ITERATION = 7
    enumerator :: MINV_OPT_MIXED_PRECISION = 8
    enumerator :: MINV_OPT_RECONDITION = 9
    enumerator :: MINV_OPT_TARGET_CONDITION = 10
    enumerator :: MINV_OPT_TRIDIAGONAL_ALGORITHM = 11
    enumerator :: MINV_OPT_ENERGY = 12
    enumerator :: MINV_OPT_PRECISION = 13
  end enum
  public :: MINV_OPT_TOLERANCE, MINV_OPT_MAX_ITERATIONS, MINV_OPT_BLOCK_SIZE, &
            MINV_OPT_TILE_SIZE, MINV_OPT_SYMMETRY_TOL, MINV_OPT_RESIDUAL, &
            MINV_OPT_INITIAL_GUESS, MINV_OPT_ITERATION, MINV_OPT_MIXED_PRECISION, &
            MINV_OPT_RECONDITION, MINV_OPT_TARGET_CONDITION, MINV_OPT_TRIDIAGONAL_ALGORITHM, &
            MINV_OPT_ENERGY, MINV_OPT_PRECISION

  ! minv_recondition
  enum, bind(c)
    enumerator :: MINV_RECONDITION_NONE = 0
    enumerator :: MINV_RECONDITION_RIDGE = 1
    enumerator :: MINV_RECONDITION_FLOOR = 2
  end enum
  public :: MINV_RECONDITION_NONE, MINV_RECONDITION_RIDGE, MINV_RECONDITION_FLOOR

  ! minv_guess
  enum, bind(c)
    enumerator :: MINV_GUESS_AUTO = 0
    enumerator :: MINV_GUESS_DIAGONAL = 1
    enumerator :: MINV_GUESS_TRANSPOSE = 2
    enumerator :: MINV_GUESS_IDENTITY = 3
  end enum
  public :: MINV_GUESS_AUTO, MINV_GUESS_DIAGONAL, MINV_GUESS_TRANSPOSE, MINV_GUESS_IDENTITY

  ! minv_iteration
  enum, bind(c)
    enumerator :: MINV_ITERATION_SOLEYMANI7 = 0
    enumerator :: MINV_ITERATION_HYPERPOWER8 = 1
  end enum
  public :: MINV_ITERATION_SOLEYMANI7, MINV_ITERATION_HYPERPOWER8

  enum, bind(c)
    enumerator :: MINV_REASON_LEN = 512, MINV_HISTORY_LEN = 64
  end enum
  public :: MINV_REASON_LEN, MINV_HISTORY_LEN

  ! minv_fallback: bits of minv_report%fallbacks
  enum, bind(c)
    enumerator :: MINV_FALLBACK_NO_GPU = 1
    enumerator :: MINV_FALLBACK_CPU = 2
    enumerator :: MINV_FALLBACK_LU = 4
    enumerator :: MINV_FALLBACK_DIRECT = 8
    enumerator :: MINV_FALLBACK_PATH = 16
  end enum
  public :: MINV_FALLBACK_NO_GPU, MINV_FALLBACK_CPU, MINV_FALLBACK_LU, MINV_FALLBACK_DIRECT, &
            MINV_FALLBACK_PATH

  ! Where a call's time went (minv.h's minv_stages).
  type, bind(c), public :: minv_stages
    real(c_double) :: read_seconds
    real(c_double) :: upload_seconds
    real(c_double) :: compute_seconds
    real(c_double) :: download_seconds
    real(c_double) :: write_seconds
    real(c_double) :: read_bytes
    real(c_double) :: upload_bytes
    real(c_double) :: download_bytes
    real(c_double) :: write_bytes
  end type minv_stages

  type, bind(c), public :: minv_report
    integer(c_int) :: method
    integer(c_int) :: backend
    integer(c_int64_t) :: n
    integer(c_int64_t) :: nrhs
    integer(c_int64_t) :: iterations
    integer(c_int64_t) :: info
    real(c_double) :: residual
    integer(c_int32_t) :: residual_kind
    integer(c_int32_t) :: reserved
    real(c_double) :: rcond
    real(c_double) :: seconds
    real(c_double) :: flops
    real(c_double) :: gflops
    real(c_double) :: energy
    integer(c_int64_t) :: history_len
    real(c_double) :: residual_history(MINV_HISTORY_LEN)
    type(minv_stages) :: stages
    integer(c_int32_t) :: device
    integer(c_int32_t) :: fallbacks
    integer(c_int32_t) :: recondition
    integer(c_int32_t) :: reserved2
    real(c_double) :: recondition_shift
    real(c_double) :: condition_before
    real(c_double) :: condition_after
    integer(c_int64_t) :: matrices
    integer(c_int64_t) :: worst
    character(kind=c_char) :: reason(MINV_REASON_LEN)
    real(c_double) :: asymmetry
  end type minv_report

  type, bind(c), public :: minv_analysis
    integer(c_int64_t) :: n
    integer(c_int32_t) :: finite
    integer(c_int32_t) :: symmetric
    integer(c_int32_t) :: diag_dominant
    integer(c_int32_t) :: tridiagonal
    integer(c_int32_t) :: diag_positive
    integer(c_int32_t) :: reserved
    integer(c_int64_t) :: first_bad_row
    integer(c_int64_t) :: first_bad_col
    integer(c_int64_t) :: lower_bandwidth
    integer(c_int64_t) :: upper_bandwidth
    real(c_double) :: asymmetry
    real(c_double) :: norm_1
    real(c_double) :: norm_inf
    real(c_double) :: norm_fro
    real(c_double) :: diag_min
    real(c_double) :: diag_max
    integer(c_int) :: auto_method
  end type minv_analysis

  ! minv_tridiagonal_algorithm
  enum, bind(c)
    enumerator :: MINV_TRIDIAGONAL_AUTO = 0
    enumerator :: MINV_TRIDIAGONAL_WRITE_ONCE = 1
    enumerator :: MINV_TRIDIAGONAL_SHERMAN_MORRISON = 2
    enumerator :: MINV_TRIDIAGONAL_PIVOTED = 3
  end enum
  public :: MINV_TRIDIAGONAL_AUTO, MINV_TRIDIAGONAL_WRITE_ONCE, &
            MINV_TRIDIAGONAL_SHERMAN_MORRISON, MINV_TRIDIAGONAL_PIVOTED

  ! minv_precision
  enum, bind(c)
    enumerator :: MINV_PRECISION_DOUBLE = 0, MINV_PRECISION_SINGLE = 1, MINV_PRECISION_MIXED = 2
  end enum
  public :: MINV_PRECISION_DOUBLE, MINV_PRECISION_SINGLE, MINV_PRECISION_MIXED

  ! minv_file_format
  enum, bind(c)
    enumerator :: MINV_FORMAT_AUTO = 0, MINV_FORMAT_CLASSIC = 1, MINV_FORMAT_64BIT_OFFSET = 2
    enumerator :: MINV_FORMAT_CDF5 = 3, MINV_FORMAT_NETCDF4 = 4, MINV_FORMAT_NETCDF4_CLASSIC = 5
  end enum
  public :: MINV_FORMAT_AUTO, MINV_FORMAT_CLASSIC, MINV_FORMAT_64BIT_OFFSET, MINV_FORMAT_CDF5, &
            MINV_FORMAT_NETCDF4, MINV_FORMAT_NETCDF4_CLASSIC

  enum, bind(c)
    enumerator :: MINV_MAX_SLICE = 8
  end enum
  public :: MINV_MAX_SLICE

  type, bind(c), public :: minv_file_options
    integer(c_int) :: precision
    integer(c_int32_t) :: deflate_level
    integer(c_int32_t) :: nslice
    integer(c_int32_t) :: overwrite
    integer(c_int64_t) :: slice(MINV_MAX_SLICE)
    integer(c_int64_t) :: tile
    integer(c_int32_t) :: fortran_order
    integer(c_int32_t) :: batch_chunk
    integer(c_int32_t) :: format
    integer(c_int32_t) :: allow_remote
    integer(c_int32_t) :: index_base
    integer(c_int32_t) :: reserved
  end type minv_file_options

  public :: minv_options_default, minv_create, minv_destroy, minv_context_backend, &
            minv_set_option, minv_get_option, minv_context_devices, minv_energy_counter, &
            minv_set_stream, minv_host_register, minv_host_unregister, &
            minv_status_string, minv_last_error, &
            minv_method_name, minv_backend_name, minv_fallback_name, minv_recondition_name, &
            minv_version, minv_analyze_d, minv_analyze_s, &
            minv_invert_d, minv_invert_s, minv_invert_inplace_d, minv_invert_inplace_s, &
            minv_invert_warm_d, minv_invert_warm_s, minv_invert_subset_d, minv_invert_subset_s, &
            minv_invert_tridiagonal_d, &
            minv_invert_tridiagonal_s, minv_invert_tridiagonal_device_d, &
            minv_invert_tridiagonal_device_s, minv_solve_d, minv_solve_s, &
            minv_solve_inplace_d, minv_solve_inplace_s, &
            minv_invert_device_d, minv_invert_device_s, minv_solve_device_d, &
            minv_solve_device_s, minv_progress_fn, minv_set_progress, &
            minv_file_options_default, minv_invert_file, minv_solve_file, minv_analyze_file

  abstract interface
    ! typedef void (*minv_progress_fn)(void *user, const char *stage, double fraction);
    subroutine minv_progress_fn(user, stage, fraction) bind(c)
      import :: c_ptr, c_char, c_double
      type(c_ptr), value :: user
      character(kind=c_char), intent(in) :: stage(*)
      real(c_double), value :: fraction
    end subroutine minv_progress_fn
  end interface

  interface
    ! ---- context ----
    subroutine minv_options_default(opts) bind(c, name="minv_options_default")
      import :: minv_options
      type(minv_options), intent(out) :: opts
    end subroutine minv_options_default

    function minv_create(ctx, opts) bind(c, name="minv_create") result(status)
      import :: c_int, c_ptr, minv_options
      type(c_ptr), intent(out) :: ctx
      type(minv_options), intent(in), optional :: opts
      integer(c_int) :: status
    end function minv_create

    function minv_destroy(ctx) bind(c, name="minv_destroy") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int) :: status
    end function minv_destroy

    function minv_context_backend(ctx) bind(c, name="minv_context_backend") result(backend)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int) :: backend
    end function minv_context_backend

    function minv_set_option(ctx, option, value) bind(c, name="minv_set_option") result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ctx
      integer(c_int), value :: option
      real(c_double), value :: value
      integer(c_int) :: status
    end function minv_set_option

    function minv_get_option(ctx, option, value) bind(c, name="minv_get_option") result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ctx
      integer(c_int), value :: option
      real(c_double), intent(out) :: value
      integer(c_int) :: status
    end function minv_get_option

    function minv_context_devices(ctx, count, devices) bind(c, name="minv_context_devices") &
        result(status)
      import :: c_int, c_int32_t, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int32_t), intent(out) :: count
      integer(c_int32_t), intent(out) :: devices(*)
      integer(c_int) :: status
    end function minv_context_devices

    function minv_energy_counter(ctx, joules) bind(c, name="minv_energy_counter") &
        result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: ctx
      real(c_double), intent(out) :: joules
      integer(c_int) :: status
    end function minv_energy_counter

    function minv_set_stream(ctx, stream) bind(c, name="minv_set_stream") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr), value :: stream
      integer(c_int) :: status
    end function minv_set_stream

    function minv_host_register(ctx, p, bytes) bind(c, name="minv_host_register") result(status)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: ctx
      type(c_ptr), value :: p
      integer(c_int64_t), value :: bytes
      integer(c_int) :: status
    end function minv_host_register

    function minv_host_unregister(ctx, p) bind(c, name="minv_host_unregister") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr), value :: p
      integer(c_int) :: status
    end function minv_host_unregister

    ! ---- errors and names ----
    function minv_status_string(status) bind(c, name="minv_status_string") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: str
    end function minv_status_string

    function minv_last_error(ctx) bind(c, name="minv_last_error") result(str)
      import :: c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr) :: str
    end function minv_last_error

    function minv_method_name(method) bind(c, name="minv_method_name") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: method
      type(c_ptr) :: str
    end function minv_method_name

    function minv_backend_name(backend) bind(c, name="minv_backend_name") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: backend
      type(c_ptr) :: str
    end function minv_backend_name

    function minv_fallback_name(fallback) bind(c, name="minv_fallback_name") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: fallback
      type(c_ptr) :: str
    end function minv_fallback_name

    function minv_recondition_name(recondition) bind(c, name="minv_recondition_name") result(str)
      import :: c_int, c_ptr
      integer(c_int), value :: recondition
      type(c_ptr) :: str
    end function minv_recondition_name

    function minv_version() bind(c, name="minv_version") result(str)
      import :: c_ptr
      type(c_ptr) :: str
    end function minv_version

    ! ---- analysis ----
    function minv_analyze_d(ctx, n, a, lda, analysis) bind(c, name="minv_analyze_d") &
        result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_analysis
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n, lda
      real(c_double), intent(in) :: a(*)
      type(minv_analysis), intent(out) :: analysis
      integer(c_int) :: status
    end function minv_analyze_d

    function minv_analyze_s(ctx, n, a, lda, analysis) bind(c, name="minv_analyze_s") &
        result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_analysis
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n, lda
      real(c_float), intent(in) :: a(*)
      type(minv_analysis), intent(out) :: analysis
      integer(c_int) :: status
    end function minv_analyze_s

    ! ---- inversion: ainv = A^-1; report may be NULL ----
    function minv_invert_d(ctx, method, n, a, lda, ainv, ldainv, report) &
        bind(c, name="minv_invert_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, ldainv
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_d

    function minv_invert_s(ctx, method, n, a, lda, ainv, ldainv, report) &
        bind(c, name="minv_invert_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, ldainv
      real(c_float), intent(in) :: a(*)
      real(c_float), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_s

    function minv_invert_inplace_d(ctx, method, n, a, lda, report) &
        bind(c, name="minv_invert_inplace_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda
      real(c_double), intent(inout) :: a(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_inplace_d

    function minv_invert_inplace_s(ctx, method, n, a, lda, report) &
        bind(c, name="minv_invert_inplace_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda
      real(c_float), intent(inout) :: a(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_inplace_s

    ! ---- warm start: refine a nearby inverse V0 ----
    function minv_invert_warm_d(ctx, method, n, a, lda, v0, ldv0, ainv, ldainv, report) &
        bind(c, name="minv_invert_warm_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, ldv0, ldainv
      real(c_double), intent(in) :: a(*), v0(*)
      real(c_double), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_warm_d

    function minv_invert_warm_s(ctx, method, n, a, lda, v0, ldv0, ainv, ldainv, report) &
        bind(c, name="minv_invert_warm_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, ldv0, ldainv
      real(c_float), intent(in) :: a(*), v0(*)
      real(c_float), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_warm_s

    ! ---- principal sub-matrix: ainv = A(idx, idx)^-1, idx 0-based ----
    function minv_invert_subset_d(ctx, method, n, a, lda, m, idx, ainv, ldainv, report) &
        bind(c, name="minv_invert_subset_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, m, ldainv
      real(c_double), intent(in) :: a(*)
      integer(c_int64_t), intent(in) :: idx(*)
      real(c_double), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_subset_d

    function minv_invert_subset_s(ctx, method, n, a, lda, m, idx, ainv, ldainv, report) &
        bind(c, name="minv_invert_subset_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, m, ldainv
      real(c_float), intent(in) :: a(*)
      integer(c_int64_t), intent(in) :: idx(*)
      real(c_float), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_subset_s

    ! ---- tridiagonal inversion: ainv = A^-1 for A given by its three bands ----
    function minv_invert_tridiagonal_d(ctx, n, dl, d, du, ainv, ldainv, report) &
        bind(c, name="minv_invert_tridiagonal_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n, ldainv
      real(c_double), intent(in) :: dl(*), d(*), du(*)
      real(c_double), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_tridiagonal_d

    function minv_invert_tridiagonal_s(ctx, n, dl, d, du, ainv, ldainv, report) &
        bind(c, name="minv_invert_tridiagonal_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n, ldainv
      real(c_float), intent(in) :: dl(*), d(*), du(*)
      real(c_float), intent(inout) :: ainv(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_tridiagonal_s

    function minv_invert_tridiagonal_device_d(ctx, n, dl, d, du, ainv, ldainv, report) &
        bind(c, name="minv_invert_tridiagonal_device_d") result(status)
      import :: c_int, c_int64_t, c_ptr, minv_report
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n, ldainv
      type(c_ptr), value :: dl, d, du, ainv
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_tridiagonal_device_d

    function minv_invert_tridiagonal_device_s(ctx, n, dl, d, du, ainv, ldainv, report) &
        bind(c, name="minv_invert_tridiagonal_device_s") result(status)
      import :: c_int, c_int64_t, c_ptr, minv_report
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n, ldainv
      type(c_ptr), value :: dl, d, du, ainv
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_tridiagonal_device_s

    ! ---- solve: A X = B, B of shape (n, nrhs) ----
    function minv_solve_d(ctx, method, n, nrhs, a, lda, b, ldb, x, ldx, report) &
        bind(c, name="minv_solve_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, nrhs, lda, ldb, ldx
      real(c_double), intent(in) :: a(*), b(*)
      real(c_double), intent(inout) :: x(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_d

    function minv_solve_s(ctx, method, n, nrhs, a, lda, b, ldb, x, ldx, report) &
        bind(c, name="minv_solve_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, nrhs, lda, ldb, ldx
      real(c_float), intent(in) :: a(*), b(*)
      real(c_float), intent(inout) :: x(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_s

    function minv_solve_inplace_d(ctx, method, n, nrhs, a, lda, b, ldb, report) &
        bind(c, name="minv_solve_inplace_d") result(status)
      import :: c_int, c_int64_t, c_ptr, c_double, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, nrhs, lda, ldb
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: b(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_inplace_d

    function minv_solve_inplace_s(ctx, method, n, nrhs, a, lda, b, ldb, report) &
        bind(c, name="minv_solve_inplace_s") result(status)
      import :: c_int, c_int64_t, c_ptr, c_float, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, nrhs, lda, ldb
      real(c_float), intent(in) :: a(*)
      real(c_float), intent(inout) :: b(*)
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_inplace_s

    ! ---- the same on device memory (GPU backend only) ----
    function minv_invert_device_d(ctx, method, n, a, lda, ainv, ldainv, report) &
        bind(c, name="minv_invert_device_d") result(status)
      import :: c_int, c_int64_t, c_ptr, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, ldainv
      type(c_ptr), value :: a, ainv
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_device_d

    function minv_invert_device_s(ctx, method, n, a, lda, ainv, ldainv, report) &
        bind(c, name="minv_invert_device_s") result(status)
      import :: c_int, c_int64_t, c_ptr, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, lda, ldainv
      type(c_ptr), value :: a, ainv
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_device_s

    function minv_solve_device_d(ctx, method, n, nrhs, a, lda, b, ldb, x, ldx, report) &
        bind(c, name="minv_solve_device_d") result(status)
      import :: c_int, c_int64_t, c_ptr, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, nrhs, lda, ldb, ldx
      type(c_ptr), value :: a, b, x
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_device_d

    function minv_solve_device_s(ctx, method, n, nrhs, a, lda, b, ldb, x, ldx, report) &
        bind(c, name="minv_solve_device_s") result(status)
      import :: c_int, c_int64_t, c_ptr, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: n, nrhs, lda, ldb, ldx
      type(c_ptr), value :: a, b, x
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_device_s

    ! ---- progress: fn may be c_null_funptr to switch progress off ----
    function minv_set_progress(ctx, fn, user) bind(c, name="minv_set_progress") result(status)
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: ctx
      type(c_funptr), value :: fn
      type(c_ptr), value :: user
      integer(c_int) :: status
    end function minv_set_progress

    ! ---- NetCDF files ----
    subroutine minv_file_options_default(fopts) bind(c, name="minv_file_options_default")
      import :: minv_file_options
      type(minv_file_options), intent(out) :: fopts
    end subroutine minv_file_options_default

    function minv_invert_file(ctx, method, in_path, in_var, out_path, out_var, fopts, report) &
        bind(c, name="minv_invert_file") result(status)
      import :: c_int, c_ptr, c_char, minv_file_options, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      character(kind=c_char), intent(in) :: in_path(*), in_var(*), out_path(*)
      character(kind=c_char), intent(in), optional :: out_var(*)
      type(minv_file_options), intent(in), optional :: fopts
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_invert_file

    function minv_solve_file(ctx, method, a_path, a_var, b_path, b_var, x_path, x_var, fopts, &
                             report) bind(c, name="minv_solve_file") result(status)
      import :: c_int, c_ptr, c_char, minv_file_options, minv_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      character(kind=c_char), intent(in) :: a_path(*), a_var(*), b_path(*), b_var(*), x_path(*)
      character(kind=c_char), intent(in), optional :: x_var(*)
      type(minv_file_options), intent(in), optional :: fopts
      type(minv_report), intent(inout), optional :: report
      integer(c_int) :: status
    end function minv_solve_file

    function minv_analyze_file(ctx, path, var, fopts, analysis) &
        bind(c, name="minv_analyze_file") result(status)
      import :: c_int, c_ptr, c_char, minv_file_options, minv_analysis
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*), var(*)
      type(minv_file_options), intent(in), optional :: fopts
      type(minv_analysis), intent(out) :: analysis
      integer(c_int) :: status
    end function minv_analyze_file
  end interface

  ! ---- batched: many small matrices in one call (minv.h's batched section) ----
  type, bind(c), public :: minv_batch_report
    integer(c_int) :: method
    integer(c_int) :: backend
    integer(c_int64_t) :: nbatch
    integer(c_int64_t) :: k
    integer(c_int64_t) :: nrhs
    integer(c_int64_t) :: cholesky_count
    integer(c_int64_t) :: failed
    integer(c_int64_t) :: first_failed
    integer(c_int) :: first_status
    integer(c_int32_t) :: reserved
    integer(c_int64_t) :: first_info
    real(c_double) :: residual
    integer(c_int64_t) :: worst
    integer(c_int32_t) :: residual_kind
    integer(c_int32_t) :: reserved2
    real(c_double) :: rcond
    real(c_double) :: seconds
    real(c_double) :: flops
    real(c_double) :: gflops
    type(minv_stages) :: stages
    integer(c_int32_t) :: device
    integer(c_int32_t) :: fallbacks
    character(kind=c_char) :: reason(MINV_REASON_LEN)
  end type minv_batch_report

  public :: minv_invert_batched_d, minv_invert_batched_s, minv_invert_batched_sd, &
            minv_invert_batched_ptr_d, minv_invert_batched_ptr_s, minv_invert_batched_ptr_sd, &
            minv_invert_batched_vsize_d, minv_invert_batched_vsize_s, &
            minv_invert_batched_vsize_sd, minv_invert_batched_subset_d, &
            minv_invert_batched_subset_s, minv_invert_batched_subset_sd, minv_solve_batched_d, &
            minv_solve_batched_s, minv_solve_batched_sd, minv_solve_batched_ptr_d, &
            minv_solve_batched_ptr_s, minv_solve_batched_ptr_sd, minv_solve_batched_vsize_d, &
            minv_solve_batched_vsize_s, minv_solve_batched_vsize_sd, &
            minv_invert_batched_device_d, minv_invert_batched_device_s, &
            minv_solve_batched_device_d, minv_solve_batched_device_s

  interface
    ! ---- batched: ainv_b = A_b^-1 (status and report may be absent) ----
    function minv_invert_batched_d(ctx, method, k, nbatch, a, lda, stride_a, ainv, ldainv, &
        stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldainv, stride_ainv
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_d

    function minv_invert_batched_s(ctx, method, k, nbatch, a, lda, stride_a, ainv, ldainv, &
        stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldainv, stride_ainv
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_s

    function minv_invert_batched_sd(ctx, method, k, nbatch, a, lda, stride_a, ainv, ldainv, &
        stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldainv, stride_ainv
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_sd

    function minv_invert_batched_ptr_d(ctx, method, k, nbatch, a, lda, ainv, ldainv, status, &
        report) &
        bind(c, name="minv_invert_batched_ptr_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, ldainv
      type(c_ptr), intent(in) :: a(*), ainv(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_ptr_d

    function minv_invert_batched_ptr_s(ctx, method, k, nbatch, a, lda, ainv, ldainv, status, &
        report) &
        bind(c, name="minv_invert_batched_ptr_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, ldainv
      type(c_ptr), intent(in) :: a(*), ainv(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_ptr_s

    function minv_invert_batched_ptr_sd(ctx, method, k, nbatch, a, lda, ainv, ldainv, status, &
        report) &
        bind(c, name="minv_invert_batched_ptr_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, ldainv
      type(c_ptr), intent(in) :: a(*), ainv(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_ptr_sd

    function minv_invert_batched_vsize_d(ctx, method, k, nbatch, a, lda, ainv, ldainv, &
        status, report) &
        bind(c, name="minv_invert_batched_vsize_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), intent(in) :: k(*), lda(*), ldainv(*)
      integer(c_int64_t), value :: nbatch
      type(c_ptr), intent(in) :: a(*), ainv(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_vsize_d

    function minv_invert_batched_vsize_s(ctx, method, k, nbatch, a, lda, ainv, ldainv, &
        status, report) &
        bind(c, name="minv_invert_batched_vsize_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), intent(in) :: k(*), lda(*), ldainv(*)
      integer(c_int64_t), value :: nbatch
      type(c_ptr), intent(in) :: a(*), ainv(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_vsize_s

    function minv_invert_batched_vsize_sd(ctx, method, k, nbatch, a, lda, ainv, ldainv, &
        status, report) &
        bind(c, name="minv_invert_batched_vsize_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), intent(in) :: k(*), lda(*), ldainv(*)
      integer(c_int64_t), value :: nbatch
      type(c_ptr), intent(in) :: a(*), ainv(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_vsize_sd

    function minv_invert_batched_subset_d(ctx, method, k, nbatch, a, lda, stride_a, index, &
        ldindex, count, ainv, ldainv, stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_subset_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldindex, ldainv, stride_ainv
      integer(c_int64_t), intent(in) :: index(*), count(*)
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_subset_d

    function minv_invert_batched_subset_s(ctx, method, k, nbatch, a, lda, stride_a, index, &
        ldindex, count, ainv, ldainv, stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_subset_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldindex, ldainv, stride_ainv
      integer(c_int64_t), intent(in) :: index(*), count(*)
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_subset_s

    function minv_invert_batched_subset_sd(ctx, method, k, nbatch, a, lda, stride_a, index, &
        ldindex, count, ainv, ldainv, stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_subset_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldindex, ldainv, stride_ainv
      integer(c_int64_t), intent(in) :: index(*), count(*)
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_subset_sd


    ! ---- batched: A_b X_b = B_b ----
    function minv_solve_batched_d(ctx, method, k, nrhs, nbatch, a, lda, stride_a, b, ldb, &
        stride_b, x, ldx, stride_x, status, report) &
        bind(c, name="minv_solve_batched_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, stride_a, ldb, stride_b, ldx, stride_x
      type(c_ptr), value :: a, b, x
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_d

    function minv_solve_batched_s(ctx, method, k, nrhs, nbatch, a, lda, stride_a, b, ldb, &
        stride_b, x, ldx, stride_x, status, report) &
        bind(c, name="minv_solve_batched_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, stride_a, ldb, stride_b, ldx, stride_x
      type(c_ptr), value :: a, b, x
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_s

    function minv_solve_batched_sd(ctx, method, k, nrhs, nbatch, a, lda, stride_a, b, ldb, &
        stride_b, x, ldx, stride_x, status, report) &
        bind(c, name="minv_solve_batched_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, stride_a, ldb, stride_b, ldx, stride_x
      type(c_ptr), value :: a, b, x
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_sd

    function minv_solve_batched_ptr_d(ctx, method, k, nrhs, nbatch, a, lda, b, ldb, x, ldx, &
        status, report) &
        bind(c, name="minv_solve_batched_ptr_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, ldb, ldx
      type(c_ptr), intent(in) :: a(*), b(*), x(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_ptr_d

    function minv_solve_batched_ptr_s(ctx, method, k, nrhs, nbatch, a, lda, b, ldb, x, ldx, &
        status, report) &
        bind(c, name="minv_solve_batched_ptr_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, ldb, ldx
      type(c_ptr), intent(in) :: a(*), b(*), x(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_ptr_s

    function minv_solve_batched_ptr_sd(ctx, method, k, nrhs, nbatch, a, lda, b, ldb, x, ldx, &
        status, report) &
        bind(c, name="minv_solve_batched_ptr_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, ldb, ldx
      type(c_ptr), intent(in) :: a(*), b(*), x(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_ptr_sd

    function minv_solve_batched_vsize_d(ctx, method, k, nrhs, nbatch, a, lda, b, ldb, x, ldx, &
        status, report) &
        bind(c, name="minv_solve_batched_vsize_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), intent(in) :: k(*), lda(*), ldb(*), ldx(*)
      integer(c_int64_t), value :: nrhs, nbatch
      type(c_ptr), intent(in) :: a(*), b(*), x(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_vsize_d

    function minv_solve_batched_vsize_s(ctx, method, k, nrhs, nbatch, a, lda, b, ldb, x, ldx, &
        status, report) &
        bind(c, name="minv_solve_batched_vsize_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), intent(in) :: k(*), lda(*), ldb(*), ldx(*)
      integer(c_int64_t), value :: nrhs, nbatch
      type(c_ptr), intent(in) :: a(*), b(*), x(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_vsize_s

    function minv_solve_batched_vsize_sd(ctx, method, k, nrhs, nbatch, a, lda, b, ldb, x, &
        ldx, status, report) &
        bind(c, name="minv_solve_batched_vsize_sd") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), intent(in) :: k(*), lda(*), ldb(*), ldx(*)
      integer(c_int64_t), value :: nrhs, nbatch
      type(c_ptr), intent(in) :: a(*), b(*), x(*)
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_vsize_sd


    ! ---- batched, strided in device memory (GPU backend only) ----
    function minv_invert_batched_device_d(ctx, method, k, nbatch, a, lda, stride_a, ainv, &
        ldainv, stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_device_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldainv, stride_ainv
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_device_d

    function minv_invert_batched_device_s(ctx, method, k, nbatch, a, lda, stride_a, ainv, &
        ldainv, stride_ainv, status, report) &
        bind(c, name="minv_invert_batched_device_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nbatch, lda, stride_a, ldainv, stride_ainv
      type(c_ptr), value :: a, ainv
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_invert_batched_device_s

    function minv_solve_batched_device_d(ctx, method, k, nrhs, nbatch, a, lda, stride_a, b, &
        ldb, stride_b, x, ldx, stride_x, status, report) &
        bind(c, name="minv_solve_batched_device_d") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, stride_a, ldb, stride_b, ldx, stride_x
      type(c_ptr), value :: a, b, x
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_device_d

    function minv_solve_batched_device_s(ctx, method, k, nrhs, nbatch, a, lda, stride_a, b, &
        ldb, stride_b, x, ldx, stride_x, status, report) &
        bind(c, name="minv_solve_batched_device_s") result(status_)
      import :: c_int, c_int64_t, c_ptr, minv_batch_report
      type(c_ptr), value :: ctx
      integer(c_int), value :: method
      integer(c_int64_t), value :: k, nrhs, nbatch, lda, stride_a, ldb, stride_b, ldx, stride_x
      type(c_ptr), value :: a, b, x
      integer(c_int), intent(out), optional :: status(*)
      type(minv_batch_report), intent(inout), optional :: report
      integer(c_int) :: status_
    end function minv_solve_batched_device_s
  end interface
end module minv_c_api
