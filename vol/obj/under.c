/* under.c — small queries of the connector below that more than one subsystem needs, asked the
 * cheapest way native HDF5 offers. */
#include "tb_obj.h"

haddr_t
tb_dset_contig_addr(void *under, hid_t vol, hid_t dxpl_id)
{
    haddr_t                             off = HADDR_UNDEF;
    H5VL_native_dataset_optional_args_t na;
    na.get_offset.offset     = &off;
    H5VL_optional_args_t opt = {.op_type = H5VL_NATIVE_DATASET_GET_OFFSET, .args = &na};
    if (H5VLdataset_optional(under, vol, &opt, dxpl_id, NULL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return HADDR_UNDEF;
    }
    return off;
}
