! minv_mod: minv for Fortran data-assimilation codes.
!
!   use minv_mod
!   type(minv_context) :: ctx
!   type(minv_report) :: rep
!   call minv_init(ctx)                           ! once; reuse it for every cycle
!   call minv_invert(ctx, b, binv, report=rep)    ! binv = B^-1
!   call minv_solve(ctx, s, d, x, stat=ierr, errmsg=msg)   ! S X = D, D of shape (n, k)
!   call minv_solve_inplace(ctx, s, d)                      ! D overwritten by X, as dgesv
!   call minv_invert_tridiagonal(ctx, dl, d, du, tinv)      ! a tridiagonal A by its bands
!   call minv_invert_batched(ctx, a, ainv, status=st)  ! every a(:, :, m) of a(k, k, nbatch)
!   call minv_finalize(ctx)
!
! Conventions, the same for every routine:
!   - Kinds: each routine is generic over real(real32) and real(real64) (= c_float, c_double);
!     a code compiled with -fdefault-real-8 reaches the real64 specifics. Arrays are
!     assumed-shape. A non-contiguous section is accepted: the compiler passes a contiguous
!     copy to C (and copies outputs back), which costs memory and time for large matrices.
!   - Arguments are checked here, before any work: the context initialised, A square, ainv
!     and v0 shaped as A, size(b, 1) = n, x shaped as b. A shape mismatch is MINV_ERR_SHAPE,
!     an uninitialised context MINV_ERR_INVALID_ARG, each with a message naming the arrays and
!     their shapes. As in C and LAPACK, n = 0 (a(0, 0)), no right-hand sides (b(n, 0)) and
!     batches of order 0 are a quick return with success; minv_analyze and
!     minv_invert_subset, which C refuses an empty matrix, refuse it here too.
!   - Errors: every routine takes optional `stat` and `errmsg` (as fortran-lang/stdlib).
!     With `stat` present an error returns its code (MINV_SUCCESS = 0 otherwise) and, with
!     `errmsg` present, its message "<routine>: <what went wrong>" (truncated to len(errmsg);
!     errmsg is blank on success). Without `stat`, an error stops the program
!     (error stop) with "minv: <routine>: <what went wrong>". Status codes are C's; C's
!     messages are passed on in Fortran's terms (arguments by keyword, not C's positions).
!   - Indices are 1-based, as Fortran users count: report%info is the 1-based column where a
!     matrix was found singular or not positive definite and 0 when not applicable (LAPACK's
!     info); analysis%first_bad_row/col are 1-based and 0 when every entry is finite;
!     report%worst (a batch from a file) is 1-based and 0 otherwise; the `slice` of the file
!     routines is 1-based, and so are the slice indices and batch members in their messages.
!     The C layer (module minv_c_api) is 0-based. report%device is CUDA's device number (-1
!     on the CPU), as CUDA Fortran and nvidia-smi count.
!   - Files: the file routines see a NetCDF variable as nf90 does: the matrix is the array
!     nf90_get_var would give a Fortran program (fortran_order defaults to .true., unlike
!     the C API), its two matrix dimensions come first, and `slice` indexes the dimensions
!     after them in Fortran order (for cov(n, n, time), slice = [t]). A variable inside
!     netCDF-4 groups is named by its path ('analysis/M'); outputs go to the root group. An
!     existing output is replaced only with overwrite=.true. (a NetCDF file that lacks the
!     variable gains it without); a new one has the input's format unless format= says.
!   - The library leaves floating-point trap settings and flags as it found them.
!   - A context is used by one thread at a time: a call on a context that another thread is
!     inside fails with MINV_ERR_CONTEXT_BUSY (nothing is waited for or changed). In OpenMP
!     loops give each thread its own context (README, "OpenMP"). Do not copy a minv_context
!     (copies share one C context and the first minv_finalize invalidates the others), and
!     never name one in private(...): OpenMP leaves private copies undefined (gfortran skips
!     their default initialisation), and minv_init would take the garbage for a live context.
module minv_mod
  use, intrinsic :: iso_c_binding, only: c_int, c_int32_t, c_int64_t, c_double, c_char, c_ptr, &
                                         c_null_ptr, c_null_funptr, c_null_char, c_associated, &
                                         c_f_pointer, c_loc, c_funloc, c_size_t, c_intptr_t
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64, output_unit
  use minv_c_api, only: &
    MINV_SUCCESS, MINV_ERR_INVALID_ARG, MINV_ERR_ALLOC, MINV_ERR_NOT_FINITE, MINV_ERR_SINGULAR, &
    MINV_ERR_NOT_SPD, MINV_ERR_NO_CONVERGENCE, MINV_ERR_NOT_IMPLEMENTED, MINV_ERR_NO_GPU, &
    MINV_ERR_GPU, MINV_ERR_DEVICE_MEMORY, MINV_ERR_SHAPE, MINV_ERR_IO, MINV_ERR_NOT_FOUND, &
    MINV_ERR_INTERNAL, MINV_ERR_CONTEXT_BUSY, &
    MINV_BACKEND_AUTO, MINV_BACKEND_CPU, MINV_BACKEND_GPU, &
    MINV_METHOD_AUTO, MINV_METHOD_CHOLESKY, MINV_METHOD_LU, MINV_METHOD_GAUSS_JORDAN, &
    MINV_METHOD_ITERATIVE, MINV_METHOD_TRIDIAGONAL, &
    MINV_MAX_DEVICES, &
    MINV_OPT_TOLERANCE, MINV_OPT_MAX_ITERATIONS, MINV_OPT_BLOCK_SIZE, MINV_OPT_TILE_SIZE, &
    MINV_OPT_SYMMETRY_TOL, MINV_OPT_RESIDUAL, MINV_OPT_INITIAL_GUESS, MINV_OPT_ITERATION, &
    MINV_OPT_MIXED_PRECISION, MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_OPT_RECONDITION, &
    MINV_OPT_TARGET_CONDITION, MINV_OPT_ENERGY, MINV_OPT_PRECISION, &
    MINV_RECONDITION_NONE, MINV_RECONDITION_RIDGE, MINV_RECONDITION_FLOOR, &
    MINV_TRIDIAGONAL_AUTO, MINV_TRIDIAGONAL_WRITE_ONCE, MINV_TRIDIAGONAL_SHERMAN_MORRISON, &
    MINV_TRIDIAGONAL_PIVOTED, &
    MINV_GUESS_AUTO, MINV_GUESS_DIAGONAL, MINV_GUESS_TRANSPOSE, MINV_GUESS_IDENTITY, &
    MINV_ITERATION_SOLEYMANI7, MINV_ITERATION_HYPERPOWER8, &
    MINV_REASON_LEN, MINV_HISTORY_LEN, &
    MINV_FALLBACK_NO_GPU, MINV_FALLBACK_CPU, MINV_FALLBACK_LU, MINV_FALLBACK_DIRECT, MINV_FALLBACK_PATH, &
    MINV_PRECISION_DOUBLE, MINV_PRECISION_SINGLE, MINV_PRECISION_MIXED, MINV_MAX_SLICE, &
    MINV_FORMAT_AUTO, MINV_FORMAT_CLASSIC, MINV_FORMAT_64BIT_OFFSET, MINV_FORMAT_CDF5, &
    MINV_FORMAT_NETCDF4, MINV_FORMAT_NETCDF4_CLASSIC, &
    minv_options, minv_report, minv_analysis, minv_stages, &
    minv_options_default, minv_create, minv_destroy, &
    c_context_backend => minv_context_backend, c_set_option => minv_set_option, &
    c_get_option => minv_get_option, c_context_devices => minv_context_devices, &
    c_energy_counter => minv_energy_counter, c_set_stream => minv_set_stream, &
    c_host_register => minv_host_register, c_host_unregister => minv_host_unregister, &
    c_invert_device_d => minv_invert_device_d, c_invert_device_s => minv_invert_device_s, &
    c_solve_device_d => minv_solve_device_d, c_solve_device_s => minv_solve_device_s, &
    c_status_string => minv_status_string, &
    minv_last_error, &
    c_method_name => minv_method_name, c_backend_name => minv_backend_name, &
    c_fallback_name => minv_fallback_name, c_recondition_name => minv_recondition_name, &
    c_version => minv_version, minv_analyze_d, minv_analyze_s, minv_invert_d, minv_invert_s, &
    minv_invert_inplace_d, minv_invert_inplace_s, minv_invert_warm_d, minv_invert_warm_s, &
    minv_invert_subset_d, minv_invert_subset_s, &
    minv_solve_d, minv_solve_s, minv_solve_inplace_d, minv_solve_inplace_s, &
    minv_invert_tridiagonal_d, minv_invert_tridiagonal_s, &
    c_set_progress => minv_set_progress, &
    minv_file_options, minv_file_options_default, c_invert_file => minv_invert_file, &
    c_solve_file => minv_solve_file, c_analyze_file => minv_analyze_file, &
    minv_batch_report, minv_invert_batched_d, minv_invert_batched_s, minv_invert_batched_sd, &
    minv_invert_batched_subset_d, minv_invert_batched_subset_s, minv_invert_batched_subset_sd, &
    minv_solve_batched_d, minv_solve_batched_s, minv_solve_batched_sd
  implicit none
  private

  ! ---- named constants: C's enumerators, unchanged ----
  public :: MINV_SUCCESS, MINV_ERR_INVALID_ARG, MINV_ERR_ALLOC, MINV_ERR_NOT_FINITE, &
            MINV_ERR_SINGULAR, MINV_ERR_NOT_SPD, MINV_ERR_NO_CONVERGENCE, &
            MINV_ERR_NOT_IMPLEMENTED, MINV_ERR_NO_GPU, MINV_ERR_GPU, MINV_ERR_DEVICE_MEMORY, &
            MINV_ERR_SHAPE, MINV_ERR_IO, MINV_ERR_NOT_FOUND, MINV_ERR_INTERNAL, &
            MINV_ERR_CONTEXT_BUSY
  public :: MINV_BACKEND_AUTO, MINV_BACKEND_CPU, MINV_BACKEND_GPU
  public :: MINV_METHOD_AUTO, MINV_METHOD_CHOLESKY, MINV_METHOD_LU, MINV_METHOD_GAUSS_JORDAN, &
            MINV_METHOD_ITERATIVE, MINV_METHOD_TRIDIAGONAL
  public :: MINV_OPT_TOLERANCE, MINV_OPT_MAX_ITERATIONS, MINV_OPT_BLOCK_SIZE, &
            MINV_OPT_TILE_SIZE, MINV_OPT_SYMMETRY_TOL, MINV_OPT_RESIDUAL, &
            MINV_OPT_INITIAL_GUESS, MINV_OPT_ITERATION, MINV_OPT_MIXED_PRECISION, &
            MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_OPT_RECONDITION, MINV_OPT_TARGET_CONDITION, &
            MINV_OPT_ENERGY, MINV_OPT_PRECISION
  public :: MINV_RECONDITION_NONE, MINV_RECONDITION_RIDGE, MINV_RECONDITION_FLOOR
  public :: MINV_TRIDIAGONAL_AUTO, MINV_TRIDIAGONAL_WRITE_ONCE, &
            MINV_TRIDIAGONAL_SHERMAN_MORRISON, MINV_TRIDIAGONAL_PIVOTED
  public :: MINV_GUESS_AUTO, MINV_GUESS_DIAGONAL, MINV_GUESS_TRANSPOSE, MINV_GUESS_IDENTITY
  public :: MINV_ITERATION_SOLEYMANI7, MINV_ITERATION_HYPERPOWER8
  public :: MINV_PRECISION_DOUBLE, MINV_PRECISION_SINGLE, MINV_PRECISION_MIXED
  public :: MINV_FORMAT_AUTO, MINV_FORMAT_CLASSIC, MINV_FORMAT_64BIT_OFFSET, MINV_FORMAT_CDF5, &
            MINV_FORMAT_NETCDF4, MINV_FORMAT_NETCDF4_CLASSIC
  public :: MINV_MAX_DEVICES, MINV_MAX_SLICE, MINV_REASON_LEN, MINV_HISTORY_LEN
  public :: MINV_FALLBACK_NO_GPU, MINV_FALLBACK_CPU, MINV_FALLBACK_LU, MINV_FALLBACK_DIRECT, &
            MINV_FALLBACK_PATH

  ! ---- types ----
  ! minv_report and minv_analysis are C's structs (bind(c)), filled by C and then given
  ! 1-based indices by this module (see the conventions above).
  public :: minv_report, minv_analysis, minv_stages

  ! The Fortran procedure behind a context's progress callback.
  type :: progress_holder
    procedure(minv_progress_callback), pointer, nopass :: callback => null()
  end type progress_holder

  ! A minv context: options, workspaces, GPU handles, the last error. Create it once with
  ! minv_init and reuse it; the second DA cycle then allocates nothing.
  type, public :: minv_context
    private
    type(c_ptr) :: ptr = c_null_ptr
    type(minv_options) :: opts ! those it was created with (minv_init keeps it for the same)
    ! Allocated while a progress callback is set; C holds its address as the user pointer.
    type(progress_holder), pointer :: progress => null()
  end type minv_context

  abstract interface
    ! Called by long operations with the stage ("iterate", "stream", ...) and the fraction
    ! done, 0 to 1.
    subroutine minv_progress_callback(stage, fraction)
      import :: real64
      character(*), intent(in) :: stage
      real(real64), intent(in) :: fraction
    end subroutine minv_progress_callback
  end interface
  public :: minv_progress_callback

  ! ---- routines ----
  public :: minv_init, minv_initialized, minv_finalize, minv_context_backend, minv_set_option, &
            minv_get_option, minv_set_progress, minv_context_devices, minv_energy_counter, &
            minv_context_c_ptr, minv_set_stream, minv_host_register, minv_host_unregister
  public :: minv_invert, minv_invert_inplace, minv_invert_warm, minv_invert_subset, minv_solve, &
            minv_solve_inplace, minv_analyze
  public :: minv_status_string, minv_method_name, minv_backend_name, minv_fallback_name, &
            minv_recondition_name, minv_version, minv_report_reason, minv_print_report

  ! ainv = A^-1. The inversion runs in double whatever precision= says (refining an inverse
  ! costs more than inverting in double); with 'mixed' the report says so.
  interface minv_invert
    module procedure minv_invert_r32, minv_invert_r64
  end interface minv_invert

  ! A = A^-1, in place (no second n x n array).
  interface minv_invert_inplace
    module procedure minv_invert_inplace_r32, minv_invert_inplace_r64
  end interface minv_invert_inplace

  ! ainv = A^-1 refined from a nearby inverse v0 (e.g. the previous cycle's) by the
  ! iterative method; with method AUTO a direct method takes over when v0 is too far off.
  interface minv_invert_warm
    module procedure minv_invert_warm_r32, minv_invert_warm_r64
  end interface minv_invert_warm

  ! ainv = A(idx, idx)^-1: the principal sub-matrix of the rows and columns idx (1-based,
  ! distinct), without copying it; ainv is size(idx) x size(idx).
  interface minv_invert_subset
    module procedure minv_invert_subset_r32, minv_invert_subset_r64
  end interface minv_invert_subset

  ! A x = b for b(n, k) (k right-hand sides at once) or b(n). precision = 'mixed' (or the
  ! context's MINV_OPT_PRECISION = MINV_PRECISION_MIXED): A factored in low precision on the
  ! tensor cores and the solution refined in double to the double solve's backward error; the
  ! double solve runs by itself where refinement does not converge, and the report says so.
  ! 'double' (the default) solves in double. Either applies to this call only.
  interface minv_solve
    module procedure minv_solve_r32, minv_solve_r64, minv_solve_vector_r32, &
                     minv_solve_vector_r64
  end interface minv_solve

  ! b = A^-1 b, in place (as LAPACK's gesv and posv), for b(n, k) or b(n).
  interface minv_solve_inplace
    module procedure minv_solve_inplace_r32, minv_solve_inplace_r64, &
                     minv_solve_inplace_vector_r32, minv_solve_inplace_vector_r64
  end interface minv_solve_inplace

  ! Properties of A: symmetry, dominance, bandwidth, norms, finiteness, AUTO's choice.
  interface minv_analyze
    module procedure minv_analyze_r32, minv_analyze_r64
  end interface minv_analyze

  ! Tunables that may change between calls (MINV_OPT_*); C stores every value as a double.
  interface minv_set_option
    module procedure set_option_i32, set_option_i64, set_option_r32, set_option_r64
  end interface minv_set_option

  interface minv_get_option
    module procedure get_option_i32, get_option_i64, get_option_r32, get_option_r64
  end interface minv_get_option

  ! ainv = A^-1 for a tridiagonal A given by its bands dl(n-1), d(n), du(n-1), in
  ! minv_mod_tridiagonal.inc.
  public :: minv_invert_tridiagonal

  interface minv_invert_tridiagonal
    module procedure minv_invert_tridiagonal_r32, minv_invert_tridiagonal_r64
  end interface minv_invert_tridiagonal

  ! NetCDF files (see "Files" above), in minv_mod_files.inc.
  public :: minv_invert_file, minv_solve_file, minv_analyze_file

  interface minv_invert_file
    module procedure invert_file
  end interface minv_invert_file

  interface minv_solve_file
    module procedure solve_file
  end interface minv_solve_file

  interface minv_analyze_file
    module procedure analyze_file
  end interface minv_analyze_file

  ! Device memory (OpenACC, CUDA Fortran), in minv_mod_device.inc: arrays inside
  ! `!$acc host_data use_device`, or addresses with sizes and the real kind.
  public :: minv_invert_device, minv_solve_device

  interface minv_invert_device
    module procedure minv_invert_device_r32, minv_invert_device_r64, invert_device_address
  end interface minv_invert_device

  interface minv_solve_device
    module procedure minv_solve_device_r32, minv_solve_device_r64, solve_device_address
  end interface minv_solve_device

  ! Batches of small matrices a(k, k, nbatch), in minv_mod_batched.inc.
  public :: minv_batch_report, minv_invert_batched, minv_invert_batched_inplace, &
            minv_solve_batched, minv_solve_batched_inplace, minv_batch_report_reason, &
            minv_print_batch_report

  ! ainv(:, :, m) = a(:, :, m)^-1; sizes= or index= and count= pick a block of each.
  interface minv_invert_batched
    module procedure minv_invert_batched_r32, minv_invert_batched_r64
  end interface minv_invert_batched

  interface minv_invert_batched_inplace
    module procedure minv_invert_batched_inplace_r32, minv_invert_batched_inplace_r64
  end interface minv_invert_batched_inplace

  ! a(:, :, m) x(:, :, m) = b(:, :, m), b and x of shape (k, nrhs, nbatch).
  interface minv_solve_batched
    module procedure minv_solve_batched_r32, minv_solve_batched_r64
  end interface minv_solve_batched

  ! b(:, :, m) = a(:, :, m)^-1 b(:, :, m), overwriting b.
  interface minv_solve_batched_inplace
    module procedure minv_solve_batched_inplace_r32, minv_solve_batched_inplace_r64
  end interface minv_solve_batched_inplace

  ! Single-specific generics: the specifics cannot carry the names of the C entry points
  ! (the bind(c) labels) without gfortran reporting a clash of global names.
  interface minv_context_backend
    module procedure context_backend
  end interface minv_context_backend

  interface minv_set_progress
    module procedure set_progress
  end interface minv_set_progress

  ! The context's GPUs, and the energy they have used (section "the context's GPUs" below).
  interface minv_context_devices
    module procedure context_devices
  end interface minv_context_devices

  interface minv_energy_counter
    module procedure energy_counter
  end interface minv_energy_counter

  ! The CUDA stream the device-array calls follow: type(c_ptr) (OpenACC's
  ! acc_get_cuda_stream as a c_ptr) or integer(c_intptr_t) (CUDA Fortran's
  ! integer(kind=cuda_stream_kind), OpenACC's acc_get_cuda_stream).
  interface minv_set_stream
    module procedure set_stream_ptr, set_stream_int
  end interface minv_set_stream

  ! Page-locks an array (contiguous, of any rank) for the context's GPU, so that the calls on
  ! arrays in it move them by DMA at the link's rate: single matrices, and batches a(k, k, nb)
  ! and b(k, nrhs, nb), whose results also come straight back into x(k, k, nb) when x is
  ! registered too (minv.h, minv_host_register). For arrays a DA code keeps from cycle to cycle;
  ! minv_host_unregister before the array is deallocated. Nothing to do on a CPU context.
  interface minv_host_register
    module procedure host_register_real64, host_register_real32
  end interface minv_host_register

  interface minv_host_unregister
    module procedure host_unregister_real64, host_unregister_real32
  end interface minv_host_unregister

  interface minv_status_string
    module procedure status_string
  end interface minv_status_string

  interface minv_method_name
    module procedure method_name
  end interface minv_method_name

  interface minv_backend_name
    module procedure backend_name
  end interface minv_backend_name

  interface minv_fallback_name
    module procedure fallback_name
  end interface minv_fallback_name

  interface minv_recondition_name
    module procedure recondition_name
  end interface minv_recondition_name

  interface minv_version
    module procedure version
  end interface minv_version

  interface str
    module procedure str_i32, str_i64
  end interface str

  interface
    ! libc's strlen, to read the C strings minv returns
    function c_strlen(s) bind(c, name="strlen") result(len)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: len
    end function c_strlen
  end interface

contains

  ! ======================================================================================
  ! context
  ! ======================================================================================

  ! Creates the context. backend: MINV_BACKEND_AUTO (default: the GPU where usable, else
  ! the CPU), _CPU or _GPU (fails with MINV_ERR_NO_GPU without one). device: the CUDA
  ! device number (as nvidia-smi shows it, not a 1-based index). device_memory: bytes of
  ! device memory minv may use per device, 0 = all free. cpu_threads: threads for minv's own
  ! loops, 0 = all. ndevices and devices(:) select GPUs for multi-GPU methods (ndevices
  ! defaults to size(devices) when devices is given, else -1 = every visible device, device
  ! first; 0 = device alone).
  !
  ! minv_init may be called again on a live context, as an analysis routine entered every
  ! cycle does: with the options it was made with it keeps it (workspaces, GPU handles and
  ! settings stay); with other options it makes a new one and frees the old, which a failure
  ! leaves as it was. minv_initialized(ctx) tells whether ctx is live.
  subroutine minv_init(ctx, backend, device, device_memory, cpu_threads, ndevices, devices, &
                       stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    integer, intent(in), optional :: backend, device, cpu_threads, ndevices
    integer(int64), intent(in), optional :: device_memory
    integer, intent(in), optional :: devices(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    type(minv_options) :: opts
    type(c_ptr) :: made
    integer(c_int) :: status, ignored
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call minv_options_default(opts)
    if (present(backend)) opts%backend = backend
    if (present(device)) opts%device = device
    if (present(device_memory)) opts%device_memory = device_memory
    if (present(cpu_threads)) opts%cpu_threads = cpu_threads
    if (present(devices)) then
      if (size(devices) > MINV_MAX_DEVICES) then
        call fail(status, why, MINV_ERR_INVALID_ARG, 'devices has ' // str(size(devices)) // &
                  ' entries, at most MINV_MAX_DEVICES = ' // str(MINV_MAX_DEVICES) // ' allowed')
      else
        opts%devices(1:size(devices)) = devices
        opts%ndevices = size(devices)
      end if
    end if
    if (present(ndevices)) opts%ndevices = ndevices
    if (status == MINV_SUCCESS .and. c_associated(ctx%ptr)) then
      if (same_options(opts, ctx%opts)) then
        call finish('minv_init', status, ctx%ptr, stat, errmsg, why)
        return
      end if
    end if
    if (status == MINV_SUCCESS) then
      status = minv_create(made, opts)
      ! minv_create leaves no context to hold its message (C keeps it for
      ! minv_last_error(NULL)), so say what was asked, and why it failed.
      if (status /= MINV_SUCCESS) then
        call fail(status, why, status, 'could not create a context with backend ' // &
                  minv_backend_name(opts%backend) // ', device ' // str(opts%device) // &
                  ', ndevices ' // str(opts%ndevices) // ', device_memory ' // &
                  str(opts%device_memory) // ', cpu_threads ' // str(opts%cpu_threads) // &
                  ' (' // c_string(minv_last_error(c_null_ptr)) // ')')
      else if (c_associated(ctx%ptr)) then
        status = minv_destroy(ctx%ptr)
        if (status /= MINV_SUCCESS) then ! another thread is inside a call on the old one
          ignored = minv_destroy(made)
          call fail(status, why, status, 'another thread is inside a call on ctx')
        end if
      end if
      if (status == MINV_SUCCESS) then
        if (associated(ctx%progress)) deallocate (ctx%progress)
        ctx%ptr = made
        ctx%opts = opts
      end if
    end if
    call finish('minv_init', status, ctx%ptr, stat, errmsg, why)
  end subroutine minv_init

  ! Whether ctx is live: minv_init succeeded on it and minv_finalize has not freed it since.
  logical function minv_initialized(ctx)
    type(minv_context), intent(in) :: ctx
    minv_initialized = c_associated(ctx%ptr)
  end function minv_initialized

  logical function same_options(a, b)
    type(minv_options), intent(in) :: a, b
    same_options = a%backend == b%backend .and. a%device == b%device .and. &
                   a%cpu_threads == b%cpu_threads .and. a%ndevices == b%ndevices .and. &
                   a%device_memory == b%device_memory .and. all(a%devices == b%devices)
  end function same_options

  ! Frees the context and everything it holds. Finalising an uninitialised context does
  ! nothing; the context may be initialised again afterwards.
  subroutine minv_finalize(ctx, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status

    status = minv_destroy(ctx%ptr)
    if (status == MINV_SUCCESS) then ! else another thread is inside a call on it
      ctx%ptr = c_null_ptr
      if (associated(ctx%progress)) deallocate (ctx%progress)
    end if
    call finish('minv_finalize', status, ctx%ptr, stat, errmsg)
  end subroutine minv_finalize

  ! The backend the context runs on: MINV_BACKEND_CPU or MINV_BACKEND_GPU (never AUTO). An
  ! uninitialised ctx is an error, as for every call that needs a live context: a stop, or
  ! with stat the result -1, which names no backend. minv_initialized(ctx) asks without one.
  integer function context_backend(ctx, stat, errmsg) result(backend)
    type(minv_context), intent(in) :: ctx
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(:), allocatable :: why

    backend = -1
    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status == MINV_SUCCESS) backend = c_context_backend(ctx%ptr)
    call finish('minv_context_backend', status, ctx%ptr, stat, errmsg, why)
  end function context_backend

  ! The C context (minv_context *) behind ctx, c_null_ptr before minv_init: for layers built
  ! on this module (minv_mpi_mod) and codes that call the C API themselves.
  function minv_context_c_ptr(ctx) result(p)
    type(minv_context), intent(in) :: ctx
    type(c_ptr) :: p
    p = ctx%ptr
  end function minv_context_c_ptr

  ! Calls `callback` during long operations (absent: no more calls).
  subroutine set_progress(ctx, callback, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    procedure(minv_progress_callback), optional :: callback
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status /= MINV_SUCCESS) then
      continue
    else if (present(callback)) then
      if (.not. associated(ctx%progress)) allocate (ctx%progress)
      ctx%progress%callback => callback
      status = c_set_progress(ctx%ptr, c_funloc(progress_trampoline), c_loc(ctx%progress))
    else
      status = c_set_progress(ctx%ptr, c_null_funptr, c_null_ptr)
      if (associated(ctx%progress)) deallocate (ctx%progress)
    end if
    call finish('minv_set_progress', status, ctx%ptr, stat, errmsg, why)
  end subroutine set_progress

  ! C's minv_progress_fn: hands the stage to the Fortran callback as a Fortran string.
  ! No binding label (name=""): C reaches it only through the pointer, and libminv exports
  ! no global symbol for it.
  subroutine progress_trampoline(user, stage, fraction) bind(c, name="")
    type(c_ptr), value :: user, stage
    real(c_double), value :: fraction
    type(progress_holder), pointer :: holder

    call c_f_pointer(user, holder)
    call holder%callback(c_string(stage), real(fraction, real64))
  end subroutine progress_trampoline

  ! ---- options: every specific converts and lands here ----
  subroutine set_option(ctx, option, value, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    integer, intent(in) :: option
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status == MINV_SUCCESS) status = c_set_option(ctx%ptr, option, value)
    call finish('minv_set_option', status, ctx%ptr, stat, errmsg, why)
  end subroutine set_option

  subroutine get_option(ctx, option, value, stat, errmsg)
    type(minv_context), intent(in) :: ctx
    integer, intent(in) :: option
    real(c_double), intent(out) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(:), allocatable :: why

    value = 0
    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status == MINV_SUCCESS) then
      status = c_get_option(ctx%ptr, option, value)
      ! minv_get_option takes a const context and so records no message: name the argument
      ! here (with a context, an unknown option is its only failure).
      if (status /= MINV_SUCCESS) &
        call fail(status, why, status, 'option ' // str(option) // ' is not a MINV_OPT_* constant')
    end if
    call finish('minv_get_option', status, ctx%ptr, stat, errmsg, why)
  end subroutine get_option

  subroutine set_option_i32(ctx, option, value, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    integer, intent(in) :: option
    integer(int32), intent(in) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call set_option(ctx, option, real(value, c_double), stat, errmsg)
  end subroutine set_option_i32

  subroutine set_option_i64(ctx, option, value, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    integer, intent(in) :: option
    integer(int64), intent(in) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    call set_option(ctx, option, real(value, c_double), stat, errmsg)
  end subroutine set_option_i64

  subroutine get_option_i32(ctx, option, value, stat, errmsg)
    type(minv_context), intent(in) :: ctx
    integer, intent(in) :: option
    integer(int32), intent(out) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double) :: v
    call get_option(ctx, option, v, stat, errmsg)
    ! clamped: converting a double beyond int32 would raise FE_INVALID, a trap in DA codes
    value = int(max(min(v, real(huge(value), c_double)), -real(huge(value), c_double)), int32)
  end subroutine get_option_i32

  subroutine get_option_i64(ctx, option, value, stat, errmsg)
    type(minv_context), intent(in) :: ctx
    integer, intent(in) :: option
    integer(int64), intent(out) :: value
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    real(c_double) :: v
    call get_option(ctx, option, v, stat, errmsg)
    value = int(v, int64)
  end subroutine get_option_i64

  ! ---- the context's GPUs ----

  ! The CUDA device numbers (as nvidia-smi shows them) of the GPUs the context's multi-GPU
  ! methods use, the first being the one of its single-GPU methods; none (size 0) on the CPU.
  subroutine context_devices(ctx, devices, stat, errmsg)
    type(minv_context), intent(in) :: ctx
    integer, allocatable, intent(out) :: devices(:)
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int32_t) :: count, list(MINV_MAX_DEVICES)
    integer(c_int) :: status
    character(:), allocatable :: why

    count = 0
    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status == MINV_SUCCESS) status = c_context_devices(ctx%ptr, count, list)
    if (status /= MINV_SUCCESS) count = 0
    devices = int(list(1:count))
    call finish('minv_context_devices', status, ctx%ptr, stat, errmsg, why)
  end subroutine context_devices

  ! Joules the context's GPUs have used since a fixed moment (NVML's counters, summed): the
  ! difference of two readings is the energy of the code between them, as report%energy is
  ! of a minv call. Where there is no meter (the CPU backend, or no NVML) the error is
  ! MINV_ERR_NOT_IMPLEMENTED and joules is -1, as report%energy when not measured.
  subroutine energy_counter(ctx, joules, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    real(real64), intent(out) :: joules
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(:), allocatable :: why
    real(c_double) :: j

    j = -1
    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status == MINV_SUCCESS) status = c_energy_counter(ctx%ptr, j)
    joules = -1
    if (status == MINV_SUCCESS) joules = j
    call finish('minv_energy_counter', status, ctx%ptr, stat, errmsg, why)
  end subroutine energy_counter

  ! ---- the caller's CUDA stream ----

  ! minv_invert_device and minv_solve_device on ctx then start after the work enqueued on
  ! stream before them, and work enqueued after them starts after theirs, without the host
  ! waiting for either (minv.h, minv_set_stream, says what still waits: the checks that decide
  ! the status, the report's residual and rcond). A null stream (c_null_ptr or 0) returns to
  ! minv's own streams, the default, on which every call returns with its work done. On a CPU
  ! context a null stream succeeds and any other fails with MINV_ERR_NO_GPU.
  subroutine set_stream_ptr(ctx, stream, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    type(c_ptr), intent(in) :: stream
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    integer(c_int) :: status
    character(:), allocatable :: why

    status = MINV_SUCCESS
    call check_context(status, why, ctx)
    if (status == MINV_SUCCESS) status = c_set_stream(ctx%ptr, stream)
    call finish('minv_set_stream', status, ctx%ptr, stat, errmsg, why)
  end subroutine set_stream_ptr

  subroutine set_stream_int(ctx, stream, stat, errmsg)
    type(minv_context), intent(inout) :: ctx
    integer(c_intptr_t), intent(in) :: stream
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg

    call set_stream_ptr(ctx, transfer(stream, c_null_ptr), stat, errmsg)
  end subroutine set_stream_int


  ! ======================================================================================
  ! names and reports
  ! ======================================================================================

  ! "invalid argument", "matrix is singular", ... for a status code.
  function status_string(status) result(s)
    integer, intent(in) :: status
    character(:), allocatable :: s
    s = c_string(c_status_string(status))
  end function status_string

  ! "auto", "cholesky", "lu", ... for a MINV_METHOD_* constant.
  function method_name(method) result(s)
    integer, intent(in) :: method
    character(:), allocatable :: s
    s = c_string(c_method_name(method))
  end function method_name

  ! "auto", "cpu", "gpu" for a MINV_BACKEND_* constant.
  function backend_name(backend) result(s)
    integer, intent(in) :: backend
    character(:), allocatable :: s
    s = c_string(c_backend_name(backend))
  end function backend_name

  ! "no-gpu", "cpu", "lu", "direct", "path" for one MINV_FALLBACK_* bit of report%fallbacks.
  function fallback_name(fallback) result(s)
    integer, intent(in) :: fallback
    character(:), allocatable :: s
    s = c_string(c_fallback_name(fallback))
  end function fallback_name

  ! "none", "ridge", "floor" for a MINV_RECONDITION_* constant (report%recondition).
  function recondition_name(recondition) result(s)
    integer, intent(in) :: recondition
    character(:), allocatable :: s
    s = c_string(c_recondition_name(recondition))
  end function recondition_name

  function version() result(s)
    character(:), allocatable :: s
    s = c_string(c_version())
  end function version

  ! Why this method and backend ran, and every fallback taken.
  function minv_report_reason(report) result(s)
    type(minv_report), intent(in) :: report
    character(:), allocatable :: s
    s = from_c_chars(report%reason)
  end function minv_report_reason

  ! One line of figures and one of reasons, on `unit` (default: standard output).
  subroutine minv_print_report(report, unit)
    type(minv_report), intent(in) :: report
    integer, intent(in), optional :: unit
    integer :: u

    u = output_unit
    if (present(unit)) u = unit
    write (u, '(a, " on ", a, ": n ", i0, ", nrhs ", i0, ",", es10.3, " s,", es10.3, &
              &" GFLOP/s, residual", es10.3, ", rcond", es10.3)') &
      minv_method_name(report%method), minv_backend_name(report%backend), report%n, &
      report%nrhs, report%seconds, report%gflops, report%residual, report%rcond
    if (report%iterations > 0) write (u, '("  iterations ", i0)') report%iterations
    if (report%info > 0) write (u, '("  failed at column ", i0)') report%info
    associate (st => report%stages)
      if (st%read_seconds + st%upload_seconds + st%download_seconds + st%write_seconds > 0) &
        write (u, '("  seconds: read", es10.3, ", upload", es10.3, ", compute", es10.3, &
                  &", download", es10.3, ", write", es10.3)') st%read_seconds, st%upload_seconds, &
          st%compute_seconds, st%download_seconds, st%write_seconds
    end associate
    write (u, '("  ", a)') minv_report_reason(report)
  end subroutine minv_print_report

  ! ======================================================================================
  ! NetCDF files
  ! ======================================================================================
#include "minv_mod_files.inc"
#include "minv_mod_tridiagonal.inc"

  ! ======================================================================================
  ! batches of small matrices
  ! ======================================================================================
#include "minv_mod_batched.inc"

  ! ======================================================================================
  ! device memory
  ! ======================================================================================
#include "minv_mod_device.inc"

  ! ======================================================================================
  ! helpers shared by every routine
  ! ======================================================================================

  ! The stat/errmsg convention, in one place. `why`, when allocated, is a message found in
  ! Fortran (a shape error); otherwise the message is the context's last C error.
  subroutine finish(routine, status, ctx, stat, errmsg, why)
    character(*), intent(in) :: routine
    integer(c_int), intent(in) :: status
    type(c_ptr), intent(in) :: ctx
    integer, intent(out), optional :: stat
    character(*), intent(inout), optional :: errmsg
    character(:), allocatable, intent(in), optional :: why
    character(:), allocatable :: message

    if (present(stat)) stat = status
    if (present(errmsg)) errmsg = '' ! a message printed after a success is blank, not garbage
    if (status == MINV_SUCCESS) return
    if (present(why)) then
      if (allocated(why)) message = why
    end if
    ! a call refused as busy left the context alone: its last error is the other thread's
    if (.not. allocated(message) .and. status == MINV_ERR_CONTEXT_BUSY) &
      message = minv_status_string(status)
    if (.not. allocated(message)) then
      message = c_string(minv_last_error(ctx))
      if (len(message) == 0) message = minv_status_string(status)
    end if
    message = routine // ': ' // fortran_wording(message, minv_status_string(status) // ': ')
    if (present(errmsg)) errmsg = message
    if (.not. present(stat)) error stop 'minv: ' // message
  end subroutine finish

  ! A message of C's as a Fortran caller reads it: after `prefix` (the status text) no C entry
  ! point's name ("minv_invert_d: "; the routine's own leads the message), arguments named
  ! without C's positions ("argument 2 (method) = 42" becomes "method = 42"; in Fortran they
  ! are keywords), and members counted from 1 only (C adds "(0-based index 4)" beside
  ! "member 5 of 37").
  function fortran_wording(c, prefix) result(s)
    character(*), intent(in) :: c, prefix
    character(:), allocatable :: s
    character(*), parameter :: arg = 'argument ', base = ' (0-based index '
    integer :: at, i, p, d, q, close

    s = c
    if (index(s, prefix // 'minv_') == 1) then
      i = len(prefix) + 1
      close = index(s(i:), ': ')
      if (close > 0) then
        if (index(s(i:i + close - 1), ' ') == 0) s = prefix // s(i + close + 1:)
      end if
    end if
    at = 1
    do
      i = index(s(at:), arg)
      if (i == 0) exit
      i = at + i - 1
      p = i + len(arg)
      at = p
      d = verify(s(p:), '0123456789') ! the first character after the position's digits
      if (d <= 1) cycle
      if (p + d > len(s)) cycle
      if (s(p + d - 1:p + d) /= ' (') cycle
      q = p + d + 1
      close = index(s(q:), ')')
      if (close == 0) cycle
      s = s(:i - 1) // s(q:q + close - 2) // s(q + close:)
      at = i + close - 1
    end do
    i = index(s, base)
    if (i > 0) then
      close = index(s(i:), ')')
      if (close > 0) s = s(:i - 1) // s(i + close:)
    end if
  end function fortran_wording

  ! Records a Fortran-side failure as C's minv_fail does: "<status string>: <detail>".
  subroutine fail(status, why, code, detail)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: detail

    status = code
    why = minv_status_string(code) // ': ' // detail
  end subroutine fail

  ! ---- argument checks: each does nothing once an earlier check failed, so a routine lists
  !      its checks in order and reads the first failure ----

  ! The context must be initialised. (C would say so too, but without filling the report.)
  subroutine check_context(status, why, ctx)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    type(minv_context), intent(in) :: ctx

    if (status /= MINV_SUCCESS) return
    if (.not. c_associated(ctx%ptr)) &
      call fail(status, why, MINV_ERR_INVALID_ARG, &
                'ctx is not initialised: call minv_init(ctx) first (or it failed)')
  end subroutine check_context

  ! `name` (of shape shp) must be a square matrix.
  subroutine check_square(status, why, name, shp)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    character(*), intent(in) :: name
    integer(int64), intent(in) :: shp(2)

    if (status /= MINV_SUCCESS) return
    if (shp(1) /= shp(2)) &
      call fail(status, why, MINV_ERR_SHAPE, name // ' is ' // dims(shp) // ', not square')
  end subroutine check_square

  ! `name` (of shape shp) must not be empty: for the routines whose C refuses n = 0.
  subroutine check_not_empty(status, why, name, shp)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    character(*), intent(in) :: name
    integer(int64), intent(in) :: shp(2)

    if (status /= MINV_SUCCESS) return
    if (any(shp == 0)) &
      call fail(status, why, MINV_ERR_INVALID_ARG, name // ' is empty (' // dims(shp) // ')')
  end subroutine check_not_empty

  ! `name` (of shape shp) must have the shape of `ref` (of shape ref_shp).
  subroutine check_same_shape(status, why, name, shp, ref, ref_shp)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    character(*), intent(in) :: name, ref
    integer(int64), intent(in) :: shp(2), ref_shp(2)

    if (status /= MINV_SUCCESS) return
    if (any(shp /= ref_shp)) &
      call fail(status, why, MINV_ERR_SHAPE, name // ' is ' // dims(shp) // ' but must be ' // &
                dims(ref_shp) // ', the shape of ' // ref)
  end subroutine check_same_shape

  ! The right-hand sides `name` (of shape shp) must have n rows.
  subroutine check_rhs(status, why, name, shp, n)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    character(*), intent(in) :: name
    integer(int64), intent(in) :: shp(2), n

    if (status /= MINV_SUCCESS) return
    if (shp(1) /= n) &
      call fail(status, why, MINV_ERR_SHAPE, name // ' has ' // str(shp(1)) // &
                ' rows but a is ' // dims([n, n]))
  end subroutine check_rhs

  ! precision = 'double' or 'mixed' (in any case, as Fortran's own keyword values) of one
  ! call: MINV_OPT_PRECISION set for it, the context's own setting kept in `saved` (-1 when
  ! untouched) for restore_precision.
  subroutine call_precision(status, why, ctx, precision, saved)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    type(minv_context), intent(in) :: ctx
    character(*), intent(in), optional :: precision
    real(c_double), intent(out) :: saved
    real(c_double) :: value

    saved = -1
    if (status /= MINV_SUCCESS .or. .not. present(precision)) return
    select case (to_lower(trim(adjustl(precision))))
    case ('double')
      value = MINV_PRECISION_DOUBLE
    case ('mixed')
      value = MINV_PRECISION_MIXED
    case default
      call fail(status, why, MINV_ERR_INVALID_ARG, "precision = '" // precision // &
                "': expected 'double' or 'mixed'")
      return
    end select
    if (c_get_option(ctx%ptr, MINV_OPT_PRECISION, saved) /= MINV_SUCCESS) saved = -1
    status = c_set_option(ctx%ptr, MINV_OPT_PRECISION, value)
  end subroutine call_precision

  ! After finish (setting an option clears the context's last error).
  subroutine restore_precision(ctx, saved)
    type(minv_context), intent(in) :: ctx
    real(c_double), intent(in) :: saved
    integer(c_int) :: ignored

    if (saved >= 0) ignored = c_set_option(ctx%ptr, MINV_OPT_PRECISION, saved)
  end subroutine restore_precision

  ! sym_tol= of one call: MINV_OPT_SYMMETRY_TOL for its duration (sym_tol_end puts the
  ! context's own back); applied tells sym_tol_end whether there is something to put back.
  subroutine sym_tol_begin(status, why, ctx, sym_tol, saved, applied)
    integer(c_int), intent(inout) :: status
    character(:), allocatable, intent(inout) :: why
    type(minv_context), intent(in) :: ctx
    real(real64), intent(in), optional :: sym_tol
    real(c_double), intent(out) :: saved
    logical, intent(out) :: applied

    applied = .false.
    saved = -1
    if (status /= MINV_SUCCESS .or. .not. present(sym_tol)) return
    status = c_get_option(ctx%ptr, MINV_OPT_SYMMETRY_TOL, saved)
    if (status == MINV_SUCCESS) status = c_set_option(ctx%ptr, MINV_OPT_SYMMETRY_TOL, real(sym_tol, c_double))
    if (status /= MINV_SUCCESS) then
      why = 'sym_tol: ' // c_string(minv_last_error(ctx%ptr))
    else
      applied = .true.
    end if
  end subroutine sym_tol_begin

  ! After the call: its message kept (setting an option clears the context's), the context's
  ! tolerance back.
  subroutine sym_tol_end(status, why, ctx, saved, applied)
    integer(c_int), intent(in) :: status
    character(:), allocatable, intent(inout) :: why
    type(minv_context), intent(in) :: ctx
    real(c_double), intent(in) :: saved
    logical, intent(in) :: applied
    integer(c_int) :: ignored

    if (.not. applied) return
    if (status /= MINV_SUCCESS .and. .not. allocated(why)) then
      why = c_string(minv_last_error(ctx%ptr))
      if (len(why) == 0) why = minv_status_string(status)
    end if
    ignored = c_set_option(ctx%ptr, MINV_OPT_SYMMETRY_TOL, saved)
  end subroutine sym_tol_end

  integer(c_int) function method_or_auto(method) result(m)
    integer, intent(in), optional :: method
    m = MINV_METHOD_AUTO
    if (present(method)) m = method
  end function method_or_auto

  ! Gives a report Fortran's indices after C filled it: the 0-based info becomes 1-based
  ! (-1, none, becomes 0). When this module refused the call before C ran (ran = .false.),
  ! the report is set as C sets it for a call refused at its argument checks.
  subroutine report_to_fortran(report, ran, method, n, nrhs)
    type(minv_report), intent(inout), optional :: report
    logical, intent(in) :: ran
    integer, intent(in), optional :: method
    integer(int64), intent(in) :: n, nrhs

    if (.not. present(report)) return
    if (.not. ran) then
      report%method = method_or_auto(method)
      report%backend = MINV_BACKEND_CPU
      report%n = n
      report%nrhs = nrhs
      report%iterations = 0
      report%info = -1
      report%residual = -1
      report%residual_kind = 0
      report%reserved = 0
      report%rcond = -1
      report%seconds = 0
      report%flops = 0
      report%gflops = 0
      report%energy = -1
      report%history_len = 0
      report%residual_history = 0
      report%stages = minv_stages(0, 0, 0, 0, 0, 0, 0, 0, 0)
      report%device = -1
      report%fallbacks = 0
      report%recondition = MINV_RECONDITION_NONE
      report%reserved2 = 0
      report%recondition_shift = 0
      report%condition_before = -1
      report%condition_after = -1
      report%matrices = 1
      report%worst = -1
      report%reason = c_null_char
      report%asymmetry = -1
    end if
    report%info = report%info + 1
    report%worst = report%worst + 1
  end subroutine report_to_fortran

  ! After an analysis: C's 0-based first bad entry becomes 1-based (-1, none, becomes 0).
  subroutine analysis_to_fortran(status, analysis)
    integer(c_int), intent(in) :: status
    type(minv_analysis), intent(inout) :: analysis

    if (status /= MINV_SUCCESS) return
    analysis%first_bad_row = analysis%first_bad_row + 1
    analysis%first_bad_col = analysis%first_bad_col + 1
  end subroutine analysis_to_fortran

  ! ---- strings ----

  ! A C string (const char *) as a Fortran string; "" for NULL.
  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)

    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    call c_f_pointer(p, chars, [c_strlen(p)])
    s = from_c_chars(chars)
  end function c_string

  ! A C char array as a Fortran string, up to its first NUL.
  function from_c_chars(chars) result(s)
    character(kind=c_char), intent(in) :: chars(:)
    character(:), allocatable :: s
    integer :: i, n

    n = size(chars)
    do i = 1, size(chars)
      if (chars(i) == c_null_char) then
        n = i - 1
        exit
      end if
    end do
    allocate (character(n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function from_c_chars

  ! s with ASCII letters in lower case: keyword values are matched without regard to case.
  pure function to_lower(s) result(t)
    character(*), intent(in) :: s
    character(len(s)) :: t
    integer :: i

    t = s
    do i = 1, len(s)
      if (s(i:i) >= 'A' .and. s(i:i) <= 'Z') t(i:i) = achar(iachar(s(i:i)) + 32)
    end do
  end function to_lower

  ! An integer as text, for messages (the specifics of the generic str).
  function str_i32(i) result(s)
    integer(int32), intent(in) :: i
    character(:), allocatable :: s
    s = str_i64(int(i, int64))
  end function str_i32

  function str_i64(i) result(s)
    integer(int64), intent(in) :: i
    character(:), allocatable :: s
    character(20) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function str_i64

  ! "m x n" for a shape.
  function dims(shp) result(s)
    integer(int64), intent(in) :: shp(2)
    character(:), allocatable :: s
    s = str(shp(1)) // ' x ' // str(shp(2))
  end function dims

  ! ======================================================================================
  ! the kind-specific routines: one template, instantiated for real32 and real64
  ! ======================================================================================
#define T_RK real32
#define T_INVERT minv_invert_r32
#define T_INVERT_INPLACE minv_invert_inplace_r32
#define T_INVERT_WARM minv_invert_warm_r32
#define T_INVERT_SUBSET minv_invert_subset_r32
#define T_SOLVE minv_solve_r32
#define T_SOLVE_VECTOR minv_solve_vector_r32
#define T_SOLVE_INPLACE minv_solve_inplace_r32
#define T_SOLVE_INPLACE_VECTOR minv_solve_inplace_vector_r32
#define T_ANALYZE minv_analyze_r32
#define T_SET_OPTION set_option_r32
#define T_GET_OPTION get_option_r32
#define T_HOST_REGISTER host_register_real32
#define T_HOST_UNREGISTER host_unregister_real32
#define C_INVERT minv_invert_s
#define C_INVERT_INPLACE minv_invert_inplace_s
#define C_INVERT_WARM minv_invert_warm_s
#define C_INVERT_SUBSET minv_invert_subset_s
#define C_SOLVE minv_solve_s
#define C_SOLVE_INPLACE minv_solve_inplace_s
#define C_ANALYZE minv_analyze_s
#include "minv_mod_kind.inc"
#undef T_RK
#undef T_INVERT
#undef T_INVERT_INPLACE
#undef T_INVERT_WARM
#undef T_INVERT_SUBSET
#undef T_SOLVE
#undef T_SOLVE_VECTOR
#undef T_SOLVE_INPLACE
#undef T_SOLVE_INPLACE_VECTOR
#undef T_ANALYZE
#undef T_SET_OPTION
#undef T_GET_OPTION
#undef T_HOST_REGISTER
#undef T_HOST_UNREGISTER
#undef C_INVERT
#undef C_INVERT_INPLACE
#undef C_INVERT_WARM
#undef C_INVERT_SUBSET
#undef C_SOLVE
#undef C_SOLVE_INPLACE
#undef C_ANALYZE

#define T_RK real64
#define T_INVERT minv_invert_r64
#define T_INVERT_INPLACE minv_invert_inplace_r64
#define T_INVERT_WARM minv_invert_warm_r64
#define T_INVERT_SUBSET minv_invert_subset_r64
#define T_SOLVE minv_solve_r64
#define T_SOLVE_VECTOR minv_solve_vector_r64
#define T_SOLVE_INPLACE minv_solve_inplace_r64
#define T_SOLVE_INPLACE_VECTOR minv_solve_inplace_vector_r64
#define T_ANALYZE minv_analyze_r64
#define T_SET_OPTION set_option_r64
#define T_GET_OPTION get_option_r64
#define T_HOST_REGISTER host_register_real64
#define T_HOST_UNREGISTER host_unregister_real64
#define C_INVERT minv_invert_d
#define C_INVERT_INPLACE minv_invert_inplace_d
#define C_INVERT_WARM minv_invert_warm_d
#define C_INVERT_SUBSET minv_invert_subset_d
#define C_SOLVE minv_solve_d
#define C_SOLVE_INPLACE minv_solve_inplace_d
#define C_ANALYZE minv_analyze_d
#include "minv_mod_kind.inc"

end module minv_mod
