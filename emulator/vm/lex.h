/**
 * @file lex.h
 * @brief PTX text as tokens: words (identifiers, directives, registers, opcodes with their
 *        dots), numbers, strings and punctuation; comments and white space skipped.
 */
#ifndef EMU_VM_LEX_H
#define EMU_VM_LEX_H

#include <stddef.h>

/** Token kinds. */
enum tk { T_END, T_WORD, T_NUM, T_STR, T_PUNCT };

/** Where the lexer is in the text. */
struct lexer {
    const char *p, *end;
    int line; /* PTX text line, for parse errors */
};

/** One token. */
struct tok {
    enum tk kind;
    const char *s;
    size_t len;
    int line;
    int bol; /* first token on its line */
};

/** The next token of @p L; comments and white space are skipped. */
struct tok lex_next(struct lexer *L);

/** 1 when token @p t is the word @p s. */
int tok_is(const struct tok *t, const char *s);

/** 1 when token @p t is the punctuation character @p ch. */
int tok_punct(const struct tok *t, char ch);

#endif /* EMU_VM_LEX_H */
