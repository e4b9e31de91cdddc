/* The C interface of functions a Bend program calls through
 * `IO/DyLib/call(lib, "name", arg)` when bendc runs it.
 *
 * A library exports each function as
 *
 *     bendc_value name(const bendc_ffi *ffi, bendc_value arg);
 *
 * `arg` is the value the program passed; the function owns it and must
 * consume it (with one of the `read_*` calls) or give it back with `drop`.
 * The value returned becomes the `Result/Ok` the program receives. Values
 * live in the net's memory and are only valid during the call.
 *
 * Build a library with `cc -shared -fPIC -I <bendc>/runtime/include lib.c -o lib.so`;
 * it needs no symbol from bendc.
 */
#ifndef BENDC_FFI_H
#define BENDC_FFI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENDC_FFI_VERSION 1

/* A value in net memory (an opaque handle). */
typedef uint64_t bendc_value;

typedef struct bendc_ffi {
  uint32_t version; /* BENDC_FFI_VERSION */
  void *host;       /* pass to every call below */

  /* Reading consumes `v`. Each returns 1 on success, 0 when `v` has another
   * shape (it is then dropped). */
  int (*read_number)(void *host, bendc_value v, uint32_t *value24); /* u24, i24 or f24 bits */
  /* A list of numbers (a Bend String or List(u24)) as bytes, each number cut
   * to 8 bits; `*bytes` is malloc'd and NUL-terminated, the caller frees it. */
  int (*read_bytes)(void *host, bendc_value v, char **bytes, size_t *length);
  int (*read_pair)(void *host, bendc_value v, bendc_value *first, bendc_value *second);
  void (*drop)(void *host, bendc_value v);

  /* Building. When the net runs out of memory these return the unit value
   * and the run stops with an out-of-memory error after the call. */
  bendc_value (*make_u24)(void *host, uint32_t value);
  bendc_value (*make_i24)(void *host, int32_t value);
  bendc_value (*make_f24)(void *host, float value);
  bendc_value (*make_bytes)(void *host, const char *bytes, size_t length); /* a List(u24) */
  bendc_value (*make_pair)(void *host, bendc_value first, bendc_value second);
  bendc_value (*make_unit)(void *host); /* `*` */
} bendc_ffi;

typedef bendc_value (*bendc_ffi_function)(const bendc_ffi *ffi, bendc_value arg);

#ifdef __cplusplus
}
#endif

#endif /* BENDC_FFI_H */
