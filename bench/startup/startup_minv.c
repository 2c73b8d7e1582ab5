/* A CPU user's smallest program: a default (AUTO) context, one 2 x 2 solve, as a DA code's
 * first call would be; the start-up benchmark runs it many times beside startup_lapack. */
#include <stdio.h>

#include "minv.h"

int main(void) {
    double a[4] = {4, 1, 1, 3}, b[2] = {1, 2}, x[2];
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS)
        return 1;
    minv_status st = minv_solve_d(ctx, MINV_METHOD_AUTO, 2, 1, a, 2, b, 2, x, 2, NULL);
    minv_destroy(ctx);
    return st == MINV_SUCCESS && x[0] > 0 ? 0 : 2;
}
