/* One side of a handshake on the device, its peer on the host, the records
 * carried over the line channel (core/tls_device.c). */
#ifndef TB_TLS_DEVICE_H
#define TB_TLS_DEVICE_H

#include "tb/core.h"

/* The "tls-device" request (fields as "handshake", plus side=client|server). */
void tb_tls_device_serve(const tb_field *fields, size_t n);

#endif
