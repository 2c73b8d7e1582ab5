#!/usr/bin/env bash
# Writes the fuzz target's seed corpus (fuzz/corpus/): small files of every format, type and
# layout the reader takes, each with a variable A (and some a 1-D v), from `minv generate`
# and ncgen. The files are kept in the repository; run this only to remake them:
#   fuzz/make_corpus.sh BUILD_DIR
set -euo pipefail
minv=$(cd "$1" && pwd)/cli/minv
out=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/corpus
rm -rf "$out" && mkdir -p "$out" && cd "$out"
g() { "$minv" generate "$@" --quiet >/dev/null; }
g soar 16 nc4_soar.nc:A
g kms 9 --format classic classic_kms.nc:A
g kms 9 --format 64bit-offset --type short --scale 0.001 offset_short.nc:A
g spd 4 --batch 3 --format cdf5 --type int64 --scale 1e-9 cdf5_batch.nc:A
g spd 5 --batch 2 nc4_batch.nc:A
g general 6 --deflate 5 nc4_deflate.nc:A
g tridiagonal 8 --type float --dims x,y nc4_float.nc:A
g gaussian 9 --grid 1d --type ubyte --scale 0.01 --format cdf5 cdf5_ubyte.nc:A
g gaussian 9 --grid 1d --type byte --scale 0.01 --format classic classic_byte.nc:A
cat > attrs.cdl <<'CDL'
netcdf attrs {
dimensions:
  n = 3 ;
  t = UNLIMITED ;
variables:
  double A(n, n) ;
    A:_FillValue = -999. ;
    A:missing_value = -1e30, 1e30 ;
    A:valid_range = -100., 100. ;
    A:scale_factor = 2. ;
    A:add_offset = 1. ;
  float v(n) ;
    v:valid_min = 0.f ;
  short S(t, n, n) ;
  :title = "attributes" ;
  :history = "made by ncgen" ;
data:
  A = 4, 1, 0, 1, 4, 1, 0, 1, 4 ;
  v = 1, 2, 3 ;
  S = 1, 0, 0, 0, 1, 0, 0, 0, 1 ;
}
CDL
cat > groups.cdl <<'CDL'
netcdf groups {
dimensions:
  n = 2 ;
variables:
  double A(n, n) ;
  double v(n) ;
data:
  A = 2, 1, 1, 2 ;
  v = 1, 1 ;
group: g {
  variables:
    int A(n, n) ;
  data:
    A = 1, 0, 0, 1 ;
  }
}
CDL
cat > rank4.cdl <<'CDL'
netcdf rank4 {
dimensions:
  a = 2 ;
  n = 2 ;
variables:
  double A(a, a, n, n) ;
data:
  A = 1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0, 3, 4, 0, 0, 4 ;
}
CDL
ncgen -k classic -o classic_attrs.nc attrs.cdl
ncgen -k nc4 -o nc4_attrs.nc attrs.cdl
ncgen -k nc7 -o nc4classic_attrs.nc attrs.cdl
ncgen -k cdf5 -o cdf5_attrs.nc attrs.cdl
ncgen -k nc4 -o nc4_groups.nc groups.cdl
ncgen -k classic -o classic_rank4.nc rank4.cdl
rm -f ./*.cdl
# Zstandard and bzip2 chunks, which minv decodes itself: written by Python's netCDF4 (its
# wheels carry netCDF-C with the plugins), where it is installed
python3 - <<'PY' || echo "make_corpus: no Python netCDF4 (pip install netCDF4): nc4_zstd.nc and nc4_bzip2.nc left out"
import netCDF4
a = [[4.0 if i == j else 1.0 / (1 + abs(i - j)) for j in range(6)] for i in range(6)]
for codec in ("zstd", "bzip2"):
    with netCDF4.Dataset(f"nc4_{codec}.nc", "w") as d:
        d.createDimension("n", 6)
        d.createVariable("A", "f8", ("n", "n"), compression=codec, shuffle=True, chunksizes=(3, 6))[:] = a
PY
ls -l "$out"
