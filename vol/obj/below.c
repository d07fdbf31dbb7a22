/* below.c — native's connector ID and class for below.h's direct calls: learned from the first
 * file opened above native, forgotten when HDF5 terminates its library (IDs are issued anew after
 * a re-initialisation). */
#include "tb_obj.h"

hid_t               tb_below_native_id  = H5I_INVALID_HID;
const H5VL_class_t *tb_below_native_cls = NULL;

void
tb_below_native(hid_t vol_id, const H5VL_class_t *cls)
{
    if (tb_below_native_id != H5I_INVALID_HID || !cls || cls->value != H5_VOL_NATIVE)
        return;
    tb_below_native_cls = cls;
    tb_below_native_id  = vol_id;
}

void
tb_below_forget(void)
{
    tb_below_native_id  = H5I_INVALID_HID;
    tb_below_native_cls = NULL;
}
