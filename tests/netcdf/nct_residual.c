/* test_cli.cmake's check of what the minv command wrote: reads A, X (and B) straight through
 * NetCDF-C, not through minv's reader, and prints LAPACK's ratio, ||I - A X||_1 or
 * ||B - A X||_1 over (n ||A||_1 ||X||_1 eps), eps from X's type; exit 1 unless it is below 30.
 *   nct_residual [--fortran-order] [--slice K] [--bands] A.nc:VAR X.nc:VAR [B.nc:VAR]
 * --slice K: A is matrix K (0-based, as the command's --slice) of a rank-3 variable; rank-3 A
 * and X without it are checked member by member; --bands: A is tridiagonal, FILE:DL,D,DU. */
#include <float.h>
#include <math.h>

#include "nctest.h"

typedef struct {
    int64_t rows, cols, count; /* count matrices of rows x cols, column-major, one after another */
    double *data;
    nc_type type;
} stack;

static void split(const char *spec, char *file, char *var) {
    const char *colon = strrchr(spec, ':');
    if (!colon) {
        fprintf(stderr, "nct_residual: expected FILE:VARIABLE, got '%s'\n", spec);
        exit(2);
    }
    snprintf(file, 4096, "%.*s", (int)(colon - spec), spec);
    snprintf(var, 4096, "%s", colon + 1);
}

/* The variable's matrices as minv sees them: the C view M(i, j) = disk[i][j], or the Fortran
 * view M(i, j) = disk[j][i]; a 1-D variable is one column. */
static stack load(const char *spec, int fortran) {
    char file[4096], var[4096];
    nct_var_info v;
    split(spec, file, var);
    double *disk = nct_read_var(file, var, 1, &v);
    stack s = {0, 1, 1, NULL, v.type};
    if (v.rank == 1) {
        s.rows = (int64_t)v.lens[0];
        s.data = disk;
        return s;
    }
    const size_t d0 = v.lens[v.rank - 2], d1 = v.lens[v.rank - 1];
    s.count = (int64_t)(v.count / (d0 * d1));
    s.rows = (int64_t)(fortran ? d1 : d0);
    s.cols = (int64_t)(fortran ? d0 : d1);
    if (fortran) {
        s.data = disk;
        return s;
    }
    s.data = malloc(v.count * sizeof(double));
    for (int64_t k = 0; k < s.count; k++) {
        double *m = nct_c_view(disk + (size_t)k * d0 * d1, d0, d1);
        memcpy(s.data + (size_t)k * d0 * d1, m, d0 * d1 * sizeof(double));
        free(m);
    }
    free(disk);
    return s;
}

static stack load_bands(const char *spec) {
    char file[4096], vars[4096], path[4200];
    split(spec, file, vars);
    char *dl_name = strtok(vars, ","), *d_name = strtok(NULL, ","), *du_name = strtok(NULL, ",");
    if (!du_name) {
        fprintf(stderr, "nct_residual: --bands needs FILE:DL,D,DU\n");
        exit(2);
    }
    nct_var_info v;
    snprintf(path, sizeof path, "%s:%s", file, d_name);
    stack d = load(path, 0);
    double *dl = nct_read_var(file, dl_name, 1, &v), *du = nct_read_var(file, du_name, 1, &v);
    const int64_t n = d.rows;
    stack a = {n, n, 1, calloc((size_t)(n * n), sizeof(double)), d.type};
    for (int64_t i = 0; i < n; i++) {
        a.data[i * n + i] = d.data[i];
        if (i + 1 < n) {
            a.data[i * n + i + 1] = dl[i];
            a.data[(i + 1) * n + i] = du[i];
        }
    }
    free(d.data);
    free(dl);
    free(du);
    return a;
}

static double *member(const stack *s, int64_t k) { return s->data + (size_t)k * (size_t)(s->rows * s->cols); }

/* A right-hand side stored k x n is used as its transpose, as minv does. */
static void orient(stack *s, int64_t n) {
    if (s->rows == n || s->cols != n || s->count != 1)
        return;
    double *t = malloc((size_t)(s->rows * s->cols) * sizeof(double));
    for (int64_t j = 0; j < s->cols; j++)
        for (int64_t i = 0; i < s->rows; i++) t[i * s->cols + j] = s->data[j * s->rows + i];
    free(s->data);
    s->data = t;
    const int64_t r = s->rows;
    s->rows = s->cols;
    s->cols = r;
}

int main(int argc, char **argv) {
    int fortran = 0, bands = 0, arg = 1;
    int64_t slice = -1;
    for (; arg < argc && argv[arg][0] == '-'; arg++) {
        if (strcmp(argv[arg], "--fortran-order") == 0) fortran = 1;
        else if (strcmp(argv[arg], "--bands") == 0) bands = 1;
        else if (strcmp(argv[arg], "--slice") == 0 && arg + 1 < argc) slice = atoll(argv[++arg]);
        else break;
    }
    if (argc - arg < 2 || argc - arg > 3) {
        fprintf(stderr, "usage: nct_residual [--fortran-order] [--slice K] [--bands] A.nc:VAR X.nc:VAR [B.nc:VAR]\n");
        return 2;
    }
    stack a = bands ? load_bands(argv[arg]) : load(argv[arg], fortran), x = load(argv[arg + 1], fortran);
    const int solve = argc - arg == 3;
    stack b = solve ? load(argv[arg + 2], fortran) : (stack){0};
    const int64_t n = a.rows;
    double *const a_all = a.data;
    if (slice >= 0) { /* matrix K of A alone */
        if (slice >= a.count) {
            fprintf(stderr, "nct_residual: slice %lld of %lld\n", (long long)slice, (long long)a.count);
            return 2;
        }
        a.data = member(&a, slice);
        a.count = 1;
    }
    if (solve) {
        orient(&b, n);
        orient(&x, n);
    }
    const int64_t k = solve ? b.cols : n;
    if (a.cols != n || x.rows != n || x.cols != k || x.count != a.count || (solve && (b.rows != n || b.count != a.count))) {
        fprintf(stderr, "nct_residual: shapes do not fit: A %lld x %lld (%lld), X %lld x %lld (%lld)\n", (long long)a.rows,
                (long long)a.cols, (long long)a.count, (long long)x.rows, (long long)x.cols, (long long)x.count);
        return 1;
    }
    const double eps = x.type == NC_FLOAT ? FLT_EPSILON : DBL_EPSILON;
    double worst = 0;
    for (int64_t m = 0; m < a.count; m++) {
        double r = solve ? tu_solve_ratio(n, k, member(&a, m), n, member(&b, m), n, member(&x, m), n, eps)
                         : tu_inverse_ratio(n, member(&a, m), n, member(&x, m), n, eps);
        if (!(r <= worst)) worst = r;
    }
    printf("nct_residual: %s %s: ratio %.3g (n %lld, %lld matri%s)\n", argv[arg], argv[arg + 1], worst, (long long)n,
           (long long)a.count, a.count == 1 ? "x" : "ces");
    free(a_all);
    free(x.data);
    free(b.data);
    return worst < 30 ? 0 : 1;
}
