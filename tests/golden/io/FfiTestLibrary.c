/* Foreign functions the IO golden tests call through IO/DyLib/call. */
#include "bendc/ffi.h"

#include <ctype.h>
#include <stdlib.h>

/* (a, b) -> a + b */
bendc_value add(const bendc_ffi *ffi, bendc_value arg) {
  bendc_value a, b;
  uint32_t x = 0, y = 0;
  if (!ffi->read_pair(ffi->host, arg, &a, &b))
    return ffi->make_unit(ffi->host);
  int ok = ffi->read_number(ffi->host, a, &x);
  ok = ffi->read_number(ffi->host, b, &y) && ok;
  return ok ? ffi->make_u24(ffi->host, x + y) : ffi->make_unit(ffi->host);
}

/* a list of bytes -> the same bytes in upper case */
bendc_value shout(const bendc_ffi *ffi, bendc_value arg) {
  char *bytes;
  size_t length;
  if (!ffi->read_bytes(ffi->host, arg, &bytes, &length))
    return ffi->make_unit(ffi->host);
  for (size_t i = 0; i < length; ++i)
    bytes[i] = (char)toupper((unsigned char)bytes[i]);
  bendc_value result = ffi->make_bytes(ffi->host, bytes, length);
  free(bytes);
  return result;
}

/* anything -> (-5, 1.5), the argument dropped */
bendc_value numbers(const bendc_ffi *ffi, bendc_value arg) {
  ffi->drop(ffi->host, arg);
  return ffi->make_pair(ffi->host, ffi->make_i24(ffi->host, -5), ffi->make_f24(ffi->host, 1.5f));
}
