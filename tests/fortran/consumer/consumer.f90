! A user program built against the installed minv: `use minv_mod` finds the installed .mod.
program consumer
  use, intrinsic :: iso_fortran_env, only: real64
  use minv_mod
  implicit none
  type(minv_context) :: ctx
  real(real64) :: a(2, 2), x(2, 2)

  a = reshape([4, 1, 1, 3], [2, 2])
  call minv_init(ctx)
  call minv_invert(ctx, a, x)
  call minv_finalize(ctx)
  if (maxval(abs(matmul(a, x) - reshape([1, 0, 0, 1], [2, 2]))) > 1e-14_real64) &
    error stop 'consumer: wrong inverse'
  write (*, '("consumer: minv ", a, " installed and working")') minv_version()
end program consumer
