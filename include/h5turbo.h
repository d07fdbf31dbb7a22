/* h5turbo.h — h5turbo's public constants, for programs that select its VOL connector or its Blosc
 * filter through property lists rather than HDF5_VOL_CONNECTOR: the connector's name and value,
 * and filter 32001's id and cd_values layout. No functions: the plugins load through HDF5. */
#ifndef H5TURBO_H
#define H5TURBO_H

/* The VOL connector: H5VLregister_connector_by_name(H5TURBO_VOL_NAME, ...) or by value. Its info
 * string (H5VLconnector_str_to_info) is the text after the name in HDF5_VOL_CONNECTOR, e.g.
 * "under_vol=0;under_info={};threads=8". */
#define H5TURBO_VOL_NAME    "h5turbo"
#define H5TURBO_VOL_VALUE   420 /* in the range HDF5 reserves for testing (256-511) */
#define H5TURBO_VOL_VERSION 1

/* The Blosc filter: the registered HDF5 filter id of Blosc (hdf5-blosc, PyTables, hdf5plugin). */
#define H5TURBO_BLOSC_FILTER_ID 32001

/* Its cd_values, hdf5-blosc's layout: slots 0-3 are filled by the filter itself when the dataset
 * is created (pass 0); an application sets 4-6. H5Pset_filter(dcpl, H5TURBO_BLOSC_FILTER_ID,
 * H5Z_FLAG_MANDATORY, H5TURBO_BLOSC_CD_NELMTS, cd). */
#define H5TURBO_BLOSC_CD_REVISION   0 /* filter revision (set by the filter) */
#define H5TURBO_BLOSC_CD_VERSION    1 /* Blosc format version (set by the filter) */
#define H5TURBO_BLOSC_CD_TYPESIZE   2 /* element size in bytes (set by the filter) */
#define H5TURBO_BLOSC_CD_CHUNK_SIZE 3 /* chunk size in bytes (set by the filter) */
#define H5TURBO_BLOSC_CD_CLEVEL     4 /* compression level 0-9 (default 5) */
#define H5TURBO_BLOSC_CD_SHUFFLE    5 /* H5TURBO_BLOSC_NOSHUFFLE/SHUFFLE/BITSHUFFLE (default SHUFFLE) */
#define H5TURBO_BLOSC_CD_COMPRESSOR 6 /* H5TURBO_BLOSC_BLOSCLZ ... (default BLOSCLZ) */
#define H5TURBO_BLOSC_CD_NELMTS     7

/* Shuffle modes (cd_values[H5TURBO_BLOSC_CD_SHUFFLE]). */
#define H5TURBO_BLOSC_NOSHUFFLE  0
#define H5TURBO_BLOSC_SHUFFLE    1 /* byte shuffle */
#define H5TURBO_BLOSC_BITSHUFFLE 2

/* Compressors (cd_values[H5TURBO_BLOSC_CD_COMPRESSOR]), c-blosc's codes. */
#define H5TURBO_BLOSC_BLOSCLZ 0
#define H5TURBO_BLOSC_LZ4     1
#define H5TURBO_BLOSC_LZ4HC   2
#define H5TURBO_BLOSC_SNAPPY  3
#define H5TURBO_BLOSC_ZLIB    4
#define H5TURBO_BLOSC_ZSTD    5

#endif
