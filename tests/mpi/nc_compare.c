/* nc_compare A.nc VAR B.nc VAR TOL: exit 0 when the two variables hold the same number of values
 * and max |a - b| <= TOL max |b|, else 1 with the difference; for the command-line test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nctest.h"

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: nc_compare A.nc VAR B.nc VAR TOL\n");
        return 2;
    }
    size_t na = 0, nb = 0;
    double *a = nct_read(argv[1], argv[2], &na), *b = nct_read(argv[3], argv[4], &nb), diff = 0, norm = 0;
    for (size_t e = 0; e < na && na == nb; e++) {
        diff = fmax(diff, fabs(a[e] - b[e]));
        norm = fmax(norm, fabs(b[e]));
    }
    const int same = na == nb && na > 0 && diff <= atof(argv[5]) * norm;
    printf("nc_compare: %zu and %zu values, max difference %g relative to %g: %s\n", na, nb, diff, norm,
           same ? "same" : "DIFFERENT");
    free(a);
    free(b);
    return same ? 0 : 1;
}
