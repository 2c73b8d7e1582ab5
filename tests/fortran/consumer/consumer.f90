! A user program built against the installed minv: `use minv_mod` finds the installed .mod.
! It inverts a 2 x 2 matrix on the backend minv chooses (AUTO) and says which; run with the
! argument `gpu` it asks for the GPU instead and prints what minv_init says where there is
! none (the install test checks that message).
program consumer
  use, intrinsic :: iso_fortran_env, only: real64
  use minv_mod
  implicit none
  type(minv_context) :: ctx
  real(real64) :: a(2, 2), x(2, 2)
  character(len=16) :: mode
  character(len=1024) :: msg
  integer :: stat

  call get_command_argument(1, mode)
  if (mode == 'gpu') then
    msg = ''
    call minv_init(ctx, backend=MINV_BACKEND_GPU, stat=stat, errmsg=msg)
    if (stat == MINV_SUCCESS) then
      write (*, '("consumer: backend gpu")')
      call minv_finalize(ctx)
    else if (stat == MINV_ERR_NO_GPU) then
      write (*, '("consumer: ", a)') trim(msg)
    else
      error stop 'consumer: minv_init with the GPU failed but not with MINV_ERR_NO_GPU'
    end if
    stop
  end if
  a = reshape([4, 1, 1, 3], [2, 2])
  call minv_init(ctx)
  call minv_invert(ctx, a, x)
  write (*, '("consumer: backend ", a)') minv_backend_name(minv_context_backend(ctx))
  call minv_finalize(ctx)
  if (maxval(abs(matmul(a, x) - reshape([1, 0, 0, 1], [2, 2]))) > 1e-14_real64) &
    error stop 'consumer: wrong inverse'
  write (*, '("consumer: minv ", a, " installed and working")') minv_version()
end program consumer
