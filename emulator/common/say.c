/**
 * @file say.c
 * @brief The emulator's one-line messages (see say.h).
 */
#include "say.h"

#include <stdarg.h>
#include <stdio.h>

void emu_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "emulator: %s\n", line);
}
