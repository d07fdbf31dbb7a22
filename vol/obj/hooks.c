/* hooks.c — the table of subsystem hooks (tb_obj.h) and the one entry every callback goes
 * through: what a call does (use, drain, change) decides which duties of which subsystems run,
 * so no callback has to remember them one by one. */
#include "tb_obj.h"

#define TB_MAX_HOOKS 4

/* Filled once, when the connector is loaded (before any callback runs). */
static const tb_hooks_t *hooks[TB_MAX_HOOKS];
static int               nhooks;

void
tb_hooks_register(const tb_hooks_t *h)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == h)
            return;
    if (nhooks < TB_MAX_HOOKS)
        hooks[nhooks++] = h;
}

/* Makes a lazy object real through the subsystem it belongs to. */
static herr_t
materialise(tb_obj_t *o)
{
    for (int i = 0; i < nhooks && !o->under; i++)
        if (hooks[i]->materialise && hooks[i]->materialise(o) < 0)
            return -1;
    return 0;
}

herr_t
tb_enter_hooks(tb_obj_t *a, tb_obj_t *b, unsigned what, hid_t dxpl_id)
{
    if (what & TB_USE) {
        if (a && !a->under && materialise(a) < 0)
            return -1;
        if (b && !b->under && materialise(b) < 0)
            return -1;
    }
    if (what & TB_DRAIN)
        for (int i = 0; i < nhooks; i++)
            if (hooks[i]->drain && hooks[i]->drain(a, dxpl_id) < 0)
                return -1;
    if (what & TB_CHANGE)
        for (int i = 0; i < nhooks; i++)
            if (hooks[i]->modified)
                hooks[i]->modified();
    return 0;
}

void
tb_hooks_mounted(void)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->mounted)
            hooks[i]->mounted();
}

void
tb_hooks_file_opened(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->file_opened)
            hooks[i]->file_opened(file, name, flags, fapl_id, created);
}

void
tb_hooks_file_closing(tb_obj_t *file, hid_t dxpl_id)
{
    /* Queued chunk writes first: a failure is on the error stack, but the close goes on (failing
     * it would leave the ID pointing at a released object). */
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->drain)
            (void)hooks[i]->drain(NULL, dxpl_id);
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->file_closing)
            hooks[i]->file_closing(file);
}

void
tb_hooks_obj_wrapped(tb_obj_t *o)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->obj_wrapped)
            hooks[i]->obj_wrapped(o);
}

void
tb_hooks_obj_release(tb_obj_t *o)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->obj_release)
            hooks[i]->obj_release(o);
}

bool
tb_hooks_identity(const tb_obj_t *o, unsigned long *fileno, H5O_token_t *token)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->identity && hooks[i]->identity(o, fileno, token))
            return true;
    return false;
}

void
tb_hooks_ctx_release(tb_ctx_t *ctx)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i]->ctx_release)
            hooks[i]->ctx_release(ctx);
}
