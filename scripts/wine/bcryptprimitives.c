/*
 * ProcessPrng for Wine 8, which has no bcryptprimitives.dll: Rust's standard library for
 * Windows imports ProcessPrng from it, so without this no Rust program starts under that Wine.
 * Only the tests use it (placed beside the test executables); Windows itself has the real DLL.
 * It fills the buffer through advapi32's RtlGenRandom (SystemFunction036).
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
