/* The defaults of the file options; built with and without NetCDF. */
#include <string.h>

#include "minv.h"

void minv_file_options_default(minv_file_options *fopts) {
    if (!fopts)
        return;
    memset(fopts, 0, sizeof *fopts);
    fopts->precision = MINV_PRECISION_DOUBLE;
}
