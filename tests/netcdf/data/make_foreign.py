"""Writes the netCDF files of other tools that test_nc_foreign reads (kept in the repository;
run only to remake them): Python's netCDF4 (1.7.5 wheels: netCDF-C 4.10.1, HDF5 2.2.0) and
h5py 3.16. Each holds A, an SPD matrix of order 24 (and its batch P of three), compressed in
the way named, and A_plain / P_plain, the same values uncompressed, which any NetCDF-C reads.
    python3 -m pip install netCDF4 h5py numpy && python3 make_foreign.py
"""
import h5py
import netCDF4
import numpy as np

rng = np.random.default_rng(19)
n = 24
G = rng.standard_normal((n, n))
A = G @ G.T / n + np.eye(n)
A = (A + A.T) / 2
P = np.stack([A + k * np.eye(n) for k in range(3)])


def plain(d):
    d.createDimension("n", n)
    d.createDimension("m", n)
    d.createDimension("t", 3)
    d.createVariable("A_plain", "f8", ("n", "m"))[:] = A
    d.createVariable("P_plain", "f8", ("t", "n", "m"))[:] = P


for codec in ("zstd", "bzip2"):
    with netCDF4.Dataset(f"foreign_{codec}.nc", "w") as d:
        plain(d)
        d.createVariable("A", "f8", ("n", "m"), compression=codec, complevel=4, shuffle=True, chunksizes=(8, 12))[:] = A
        d.createVariable("P", "f8", ("t", "n", "m"), compression=codec, chunksizes=(1, n, n))[:] = P

# a filter no library registers (id 32099, in the range left to users): chunks written raw
with h5py.File("foreign_filter32099.nc", "w") as f:
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((n, n))
    dcpl.set_filter(32099, h5py.h5z.FLAG_OPTIONAL, ())
    space = h5py.h5s.create_simple((n, n))
    dset = h5py.h5d.create(f.id, b"A", h5py.h5t.IEEE_F64LE, space, dcpl=dcpl)
    dset.write_direct_chunk((0, 0), A.astype("<f8").tobytes(), filter_mask=0)
    dset.close()

# the newest HDF5 file format (layout messages HDF5 1.10 does not know)
with h5py.File("foreign_hdf5_latest.nc", "w", libver="latest") as f:
    f.create_dataset("A", data=A, chunks=(12, 12), compression="gzip")
