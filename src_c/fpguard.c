/* Floating-point environment guard. DA codes run debug builds with traps enabled
 * (gfortran -ffpe-trap=invalid,zero,overflow); LAPACK's condition estimators and scaling
 * may raise overflow or underflow internally, so traps are masked while minv works and the
 * caller's environment, flags included, is restored afterwards. */
#include "internal.h"

void minv_fpguard_begin(minv_fpguard *guard) { feholdexcept(&guard->saved); }

void minv_fpguard_end(minv_fpguard *guard) { fesetenv(&guard->saved); }
