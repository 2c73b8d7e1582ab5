/* startup_lapack's solve in a program linked to NetCDF-C too, which libminv links for its
 * file layer: the share of libnetcdf and its dependencies (HDF5, curl, ...) in start-up. */
#include <netcdf.h>

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

int main(void) {
    double a[4] = {4, 1, 1, 3}, b[2] = {1, 2};
    int n = 2, nrhs = 1, ipiv[2], info;
    dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
    return info == 0 && b[0] > 0 && nc_inq_libvers()[0] ? 0 : 2;
}
