/* bcryptprimitives.dll for Wine 8, which lacks it: Rust (>= 1.78) programs for Windows import ProcessPrng from
 * it for their random numbers (std's hash seeds, getrandom), and do not start without it. This one answers
 * with RtlGenRandom (advapi32's SystemFunction036), which Wine has. Only the Windows tests under Wine load it
 * (tests/platforms/): it is put beside the executables they run, never shipped. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(data, chunk)) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
