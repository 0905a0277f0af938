/*
 * One call into the library's TLS endpoint, packed so it can run on another
 * stack (tb_stack_call takes one void * argument): the in-memory driver
 * (core/tls.c) and the device side (core/tls_device.c) both dispatch
 * through it, so the two never differ in what a "step" or a "recv" is.
 */
#ifndef TB_TLS_CALL_H
#define TB_TLS_CALL_H

#include "tb/tls.h"

typedef enum { TB_CALL_NEW, TB_CALL_STEP, TB_CALL_SEND, TB_CALL_RECV, TB_CALL_EARLY_SEND, TB_CALL_EARLY_RECV } tb_call_op;

typedef struct {
    tb_call_op op;
    void *endpoint, *session, **conn_out, *conn;
    const tb_transport *tr;
    const uint8_t *in;
    uint8_t *out;
    size_t n, *got;
    tb_status st; /* the call's result */
} tb_tls_call;

/* Runs the call (arg: a tb_tls_call) and stores its status in st. */
void tb_tls_call_run(void *arg);

/* The same, for a measured connection's handshake calls of one side: an
 * instruction counter outside the process (callgrind) reads each side's
 * handshake as these functions' inclusive cost. The names are part of the
 * contract with families/tls/callgrind.py. */
void tb_tls_handshake_client(void *arg);
void tb_tls_handshake_server(void *arg);

#endif
