/* The one dispatcher of calls into the library's TLS endpoint (tb/tls_call.h). */
#include "tb/tls_call.h"

void tb_tls_call_run(void *arg)
{
    const tb_tls_ops *ops = &tb_library_tls;
    tb_tls_call *c = arg;
    switch (c->op) {
    case TB_CALL_NEW: c->st = ops->conn_new(c->endpoint, c->tr, c->session, c->conn_out); break;
    case TB_CALL_STEP: c->st = ops->step(c->conn); break;
    case TB_CALL_SEND: c->st = ops->send(c->conn, c->in, c->n); break;
    case TB_CALL_RECV: c->st = ops->recv(c->conn, c->out, c->n, c->got); break;
    case TB_CALL_EARLY_SEND: c->st = ops->early_send(c->conn, c->in, c->n); break;
    case TB_CALL_EARLY_RECV: c->st = ops->early_recv(c->conn, c->out, c->n, c->got); break;
    }
}

/* never inlined nor folded into one another (identical bodies): GCC's noipa; clang neither
 * inlines a noinline function nor merges functions unless the linker is asked to */
#if defined(__clang__)
#define TB_NOIPA __attribute__((noinline))
#else
#define TB_NOIPA __attribute__((noipa))
#endif

TB_NOIPA void tb_tls_handshake_client(void *arg)
{
    tb_tls_call_run(arg);
}

TB_NOIPA void tb_tls_handshake_server(void *arg)
{
    tb_tls_call_run(arg);
}
