/* The peer of startup_minv: the same 2 x 2 solve by LAPACK's dgesv, linked to LAPACK alone. */
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

int main(void) {
    double a[4] = {4, 1, 1, 3}, b[2] = {1, 2};
    int n = 2, nrhs = 1, ipiv[2], info;
    dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
    return info == 0 && b[0] > 0 ? 0 : 2;
}
