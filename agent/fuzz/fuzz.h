/* Between the fuzz entry (fuzz_request.c) and the fuzzing platform layer
 * (platform_fuzz.c): the platform reads its input from the fuzzer's bytes
 * and checks every record the core writes instead of sending it. */
#ifndef TB_FUZZ_H
#define TB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The bytes tb_read_line() reads next (the fuzzer's input). */
void tb_fuzz_set_input(const uint8_t *data, size_t size);

/* Forgets the records of the previous request. */
void tb_fuzz_request_begin(void);
/* Records written since tb_fuzz_request_begin(). */
size_t tb_fuzz_records(void);
/* Aborts (a finding) unless the request just served wrote exactly one "end"
 * record, and as its last record. line names the request in the message. */
void tb_fuzz_request_check(const char *line);

#endif
