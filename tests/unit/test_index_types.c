/* test_index_types.c — the index's datatype table holds only the types whose values its caches
 * keep: fixed-size numbers and strings, compounds and arrays of those, and the two sequence forms
 * kept with checks of their own (variable-length strings, sequences of object references). The
 * encoding of any other type — a sequence, a reference, a string inside a compound — gets no entry,
 * whoever hands it over (a sidecar's record, or a type of the file), so no bytes from a sidecar can
 * be read into a type whose values hold pointers. */
#include "tb_test.h"
#include "index_ctx.h"

#include <string.h>

/* The table's answer for t's encoding: whether it has an entry for those bytes. */
static bool
table_takes(hid_t t)
{
    size_t n = 0;
    ASSERT_H5(H5Tencode(t, NULL, &n));
    unsigned char *enc = malloc(n);
    ASSERT(enc);
    ASSERT_H5(H5Tencode(t, enc, &n));
    hid_t e = tb_ix_type_get(enc, n);
    free(enc);
    H5Eclear2(H5E_DEFAULT);
    return e >= 0;
}

static hid_t
compound_of(hid_t member)
{
    size_t size = H5Tget_size(member);
    hid_t  c    = H5Tcreate(H5T_COMPOUND, 4 + size);
    ASSERT_H5(H5Tinsert(c, "n", 0, H5T_NATIVE_INT32));
    ASSERT_H5(H5Tinsert(c, "m", 4, member));
    return c;
}

/* tb_h5t_describe answers as the four public calls do, and tb_h5t_equal_objs as H5Tequal. */
static void
describe_agrees(hid_t t)
{
    tb_h5t_desc_t td;
    tb_h5t_describe(t, &td);
    ASSERT_EQ(td.cls, H5Tget_class(t));
    ASSERT_EQ(td.size, H5Tget_size(t));
    ASSERT_EQ(td.named, H5Tcommitted(t));
    ASSERT_EQ(td.vstr, H5Tis_variable_str(t));
    hid_t c = H5Tcopy(t);
    ASSERT_EQ(tb_h5t_equal_objs(c, NULL, t, td.obj), 1);
    ASSERT_EQ(tb_h5t_equal_objs(t, td.obj, H5T_NATIVE_SCHAR, NULL), H5Tequal(t, H5T_NATIVE_SCHAR));
    H5Tclose(c);
}

int
main(void)
{
    ASSERT_H5(H5open());
    hid_t str = H5Tcopy(H5T_C_S1), vstr = H5Tcopy(H5T_C_S1);
    ASSERT_H5(H5Tset_size(str, 12));
    ASSERT_H5(H5Tset_size(vstr, H5T_VARIABLE));
    hid_t vref   = H5Tvlen_create(H5T_STD_REF_OBJ);
    hid_t vint   = H5Tvlen_create(H5T_NATIVE_INT);
    hid_t arr    = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, (hsize_t[]){3});
    hid_t arr_vl = H5Tarray_create2(vint, 1, (hsize_t[]){2});

    hid_t described[] = {H5T_NATIVE_INT32, H5T_NATIVE_SCHAR, H5T_IEEE_F64BE, str, vstr, vref, vint, arr, arr_vl};
    for (size_t k = 0; k < sizeof(described) / sizeof(described[0]); k++)
        describe_agrees(described[k]);
    tb_h5t_desc_t none;
    hid_t         space = H5Screate(H5S_SCALAR);
    H5E_BEGIN_TRY { tb_h5t_describe(space, &none); }
    H5E_END_TRY
    ASSERT_EQ(none.cls, H5T_NO_CLASS); /* (not a datatype) */
    H5Sclose(space);

    /* kept: what records hold values of */
    ASSERT(table_takes(H5T_NATIVE_INT32));
    ASSERT(table_takes(H5T_IEEE_F64BE));
    ASSERT(table_takes(str));
    ASSERT(table_takes(arr));
    ASSERT(table_takes(compound_of(H5T_NATIVE_DOUBLE)));
    ASSERT(table_takes(vstr)); /* (values kept as lengths and bytes, checked) */
    ASSERT(table_takes(vref)); /* (counts and addresses, checked) */

    /* refused: values holding pointers, or strings inside a compound */
    ASSERT(!table_takes(vint));
    ASSERT(!table_takes(H5T_STD_REF_OBJ));
    ASSERT(!table_takes(H5T_STD_REF_DSETREG));
    ASSERT(!table_takes(H5T_STD_REF));
    ASSERT(!table_takes(arr_vl));
    ASSERT(!table_takes(compound_of(vint)));
    ASSERT(!table_takes(compound_of(vstr)));
    ASSERT(!table_takes(compound_of(str)));
    ASSERT(!table_takes(compound_of(H5T_STD_REF_OBJ)));

    /* and the records' own path agrees: a sequence but of references is not encoded */
    tb_h5t_desc_t    td;
    tb_ix_type_ref_t r;
    tb_h5t_describe(vint, &td);
    ASSERT_EQ(tb_ix_type_encode(vint, &td, &r), TB_ERR_UNSUPPORTED);
    tb_h5t_describe(vref, &td);
    ASSERT_EQ(tb_ix_type_encode(vref, &td, &r), TB_OK);
    ASSERT(tb_ix_type_is_vref(r.enc, r.n));
    ASSERT_EQ(tb_ix_type_get(r.enc, r.n), r.id);
    H5Eclear2(H5E_DEFAULT);
    printf("ok: the type table takes the 7 kinds of types the caches keep and refuses 9 others\n");
    return 0;
}
