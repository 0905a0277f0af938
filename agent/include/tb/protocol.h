/* The agent's result protocol, version 2 (the hello record's proto). One
 * record per line (the "tb1" prefix is the line syntax's, unchanged):
 *
 *   tb1 <type> key=value key=value ... crc=<8 hex digits>
 *
 * Keys are [a-z0-9_]+. Values are percent-encoded: '%', ' ', '=' and bytes
 * outside 0x21..0x7e become %XX. crc is the CRC-32 (IEEE) of every byte of
 * the line before " crc=", so a truncated or corrupted line (a noisy UART, a
 * killed process) is detected by the reader. Every request is answered by
 * zero or more records and exactly one final "end" record. Its status is
 * ok, unsupported, error, bad_input, reject or, since version 2, no_room:
 * the request ran out of the agent's memory (its heap, its own buffers, the
 * request line; tb_note_no_room), with the details in msg. A stack that
 * overflows ends the firmware with a "fault" record carrying no_room=1. */
#ifndef TB_PROTOCOL_H
#define TB_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define TB_PROTOCOL_VERSION 2

void tb_rec_begin(const char *type);
void tb_rec_str(const char *key, const char *value);
void tb_rec_u64(const char *key, uint64_t value);
void tb_rec_hex(const char *key, const uint8_t *data, size_t len);
void tb_rec_end(void);

uint32_t tb_crc32(uint32_t crc, const void *data, size_t len);

#endif
