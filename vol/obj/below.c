/* below.c — native's connector ID and class for below.h's direct calls: learned at the first file
 * call above native, forgotten when HDF5 terminates its library (IDs are issued anew after a
 * re-initialisation). */
#include "tb_obj.h"

hid_t               tb_below_native_id  = H5I_INVALID_HID;
const H5VL_class_t *tb_below_native_cls = NULL;

void
tb_below_learn(hid_t vol_id)
{
    H5VL_class_value_t  val;
    const H5VL_class_t *cls = NULL;
    if (tb_below_native_id != H5I_INVALID_HID || vol_id < 0)
        return;
    /* Native's class, asked of native itself, which answers it without looking at the object:
     * none is open yet (H5VLintrospect_get_conn_cls only requires one to be named). */
    static char unused;
    hid_t       saved = tb_err_save();
    if (H5VLget_value(vol_id, &val) >= 0 && val == H5_VOL_NATIVE &&
        H5VLintrospect_get_conn_cls(&unused, vol_id, H5VL_GET_CONN_LVL_CURR, &cls) >= 0 && cls &&
        cls->value == H5_VOL_NATIVE) {
        tb_below_native_cls = cls;
        tb_below_native_id  = vol_id;
    }
    tb_err_restore(saved);
}

void
tb_below_forget(void)
{
    tb_below_native_id  = H5I_INVALID_HID;
    tb_below_native_cls = NULL;
}
