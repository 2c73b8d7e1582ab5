/* A user's C program built against the installed minv: minv.h and -lminv only. */
#include <stdio.h>

#include "minv.h"

int main(void) {
    double a[4] = {4, 1, 1, 3}, x[4];
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS) {
        fprintf(stderr, "consumer_c: %s\n", minv_last_error(NULL));
        return 1;
    }
    minv_status st = minv_invert_d(ctx, MINV_METHOD_AUTO, 2, a, 2, x, 2, NULL);
    printf("consumer_c: backend %s: %s\n", minv_backend_name(minv_context_backend(ctx)), minv_status_string(st));
    minv_destroy(ctx);
    /* the inverse of [4 1; 1 3] is [3 -1; -1 4] / 11 */
    return st == MINV_SUCCESS && x[0] * 11 > 2.999 && x[0] * 11 < 3.001 ? 0 : 1;
}
