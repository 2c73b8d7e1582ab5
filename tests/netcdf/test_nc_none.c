/* A build without NetCDF: the file entry points exist, refuse with NOT_IMPLEMENTED and say
 * why, and the file options still have their defaults. */
#include <string.h>

#include "testutil.h"

int main(void) {
    minv_context *ctx;
    minv_file_options fo;
    minv_analysis an;
    minv_report rep;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS)
        return 2;
    memset(&fo, 0x5a, sizeof fo);
    minv_file_options_default(&fo);
    CHECK(fo.precision == MINV_PRECISION_DOUBLE && fo.nslice == 0 && fo.tile == 0 && fo.fortran_order == 0 &&
              fo.deflate_level == 0,
          "defaults");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "a.nc", "A", "b.nc", NULL, &fo, &rep), MINV_ERR_NOT_IMPLEMENTED, ctx);
    CHECK(strstr(minv_last_error(ctx), "minv_invert_file: minv was built without NetCDF"), "%s", minv_last_error(ctx));
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "a.nc", "A", "b.nc", "B", "x.nc", NULL, &fo, &rep),
                 MINV_ERR_NOT_IMPLEMENTED, ctx);
    CHECK(strstr(minv_last_error(ctx), "minv_solve_file: minv was built without NetCDF"), "%s", minv_last_error(ctx));
    CHECK_STATUS(minv_analyze_file(ctx, "a.nc", "A", &fo, &an), MINV_ERR_NOT_IMPLEMENTED, ctx);
    CHECK(strstr(minv_last_error(ctx), "minv_analyze_file: minv was built without NetCDF"), "%s", minv_last_error(ctx));
    minv_destroy(ctx);
    return tu_finish("test_nc_none");
}
