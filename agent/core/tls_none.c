/* The TLS endpoint of a library without TLS (in this build): empty, so every
 * request for it is reported unsupported. An adapter's TB_DEFINE_TLS_OPS()
 * replaces it. In a file of its own: a compiler seeing this weak constant
 * next to a call through it may take its NULL members as final. */
#include "tb/tls.h"

__attribute__((weak)) const tb_tls_ops tb_library_tls = {0};
