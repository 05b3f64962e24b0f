/**
 * @file say.h
 * @brief The emulator's one-line messages to the program's stderr.
 *
 * The runtime, driver and library stand-ins print in the program's own process, between the
 * program's lines, so each message goes out as one "emulator: ..." line in a single write:
 * two threads' messages never interleave within a line.
 */
#ifndef EMU_SAY_H
#define EMU_SAY_H

/** Print "emulator: " and a formatted line (at most 1023 characters kept) to stderr. */
void emu_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * A stand-in's entry point that it exports but does not emulate: @p report(its name) says so in
 * one line and gives the library's "not supported" status. Defined without parameters, which
 * the x86-64 calling convention lets any caller call; the result is the status's int.
 */
#define EMU_STUB(name, report)                                                                     \
    int name(void);                                                                                \
    int name(void)                                                                                 \
    {                                                                                              \
        return report(#name);                                                                      \
    }

#endif
