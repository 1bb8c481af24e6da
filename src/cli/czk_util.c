/* Helpers shared by the czk subcommands. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

bool czk_cli_parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return false;
    unsigned shift = 0;
    if (*end != '\0') {
        char u = *end;
        shift = u == 'K' || u == 'k'   ? 10
                : u == 'M' || u == 'm' ? 20
                : u == 'G' || u == 'g' ? 30
                : u == 'T' || u == 't' ? 40
                                       : 64;
        if (shift == 64) return false;
        end++;
        if (*end != '\0' && strcmp(end, "iB") != 0 && strcmp(end, "ib") != 0 &&
            strcmp(end, "B") != 0)
            return false;
    }
    if (v == 0 || (shift > 0 && v > (UINT64_MAX >> shift))) return false;
    *out = (uint64_t)v << shift;
    return true;
}
