/* UTF-8 well-formedness (RFC 3629, Unicode table 3-7), with an ASCII fast
 * path eight bytes at a time since most string data is ASCII. */
#include <string.h>

#include "arrow_internal.h"

bool basalt_arrow_utf8_valid(const uint8_t *s, int64_t len)
{
    int64_t i = 0;
    while (i < len) {
        if (len - i >= 8) {
            uint64_t word;
            memcpy(&word, s + i, 8);
            if ((word & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int need;
        uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            if (c == 0xe0)
                lo = 0xa0; /* overlong */
            else if (c == 0xed)
                hi = 0x9f; /* surrogates */
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            if (c == 0xf0)
                lo = 0x90; /* overlong */
            else if (c == 0xf4)
                hi = 0x8f; /* above U+10FFFF */
        } else {
            return false; /* continuation byte, 0xc0/0xc1 or 0xf5.. */
        }
        if (len - i <= need)
            return false;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return false;
        for (int k = 2; k <= need; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += need + 1;
    }
    return true;
}
