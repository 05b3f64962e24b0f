/**
 * @file lex.c
 * @brief PTX text as tokens (see lex.h).
 */
#include "lex.h"

#include <ctype.h>
#include <string.h>

static int word_char(int ch)
{
    return isalnum(ch) || ch == '_' || ch == '$' || ch == '.' || ch == '%';
}

/* The next token; comments and white space are skipped. */
struct tok lex_next(struct lexer *L)
{
    int bol = 0;
    for (;;) {
        while (L->p < L->end && isspace((unsigned char)*L->p)) {
            if (*L->p == '\n') {
                L->line++;
                bol = 1;
            }
            L->p++;
        }
        if (L->end - L->p >= 2 && L->p[0] == '/' && L->p[1] == '/') {
            while (L->p < L->end && *L->p != '\n')
                L->p++;
            continue;
        }
        if (L->end - L->p >= 2 && L->p[0] == '/' && L->p[1] == '*') {
            const char *q = L->p + 2;
            while (q + 1 < L->end && !(q[0] == '*' && q[1] == '/')) {
                L->line += *q == '\n';
                q++;
            }
            L->p = q + 2 <= L->end ? q + 2 : L->end;
            continue;
        }
        break;
    }
    struct tok t = {T_END, L->p, 0, L->line, bol};
    if (L->p >= L->end)
        return t;
    const char *s = L->p;
    if (*s == '"') {
        const char *q = s + 1;
        while (q < L->end && *q != '"')
            q++;
        t.kind = T_STR;
        t.s = s + 1;
        t.len = (size_t)(q - s - 1);
        L->p = q < L->end ? q + 1 : q;
    } else if (isdigit((unsigned char)*s)) {
        const char *q = s;
        while (q < L->end && (isalnum((unsigned char)*q) || *q == '.'))
            q++;
        t.kind = T_NUM;
        t.len = (size_t)(q - s);
        L->p = q;
    } else if (word_char((unsigned char)*s) || *s == '%') {
        /* A "::" between word characters belongs to the word: the PTX ISA's qualifiers
         * (.shared::cta, .mbarrier::complete_tx::bytes). */
        const char *q = s;
        while (q < L->end &&
               (word_char((unsigned char)*q) ||
                (L->end - q >= 3 && q[0] == ':' && q[1] == ':' && word_char((unsigned char)q[2]))))
            q += *q == ':' ? 2 : 1;
        t.kind = T_WORD;
        t.len = (size_t)(q - s);
        L->p = q;
    } else {
        t.kind = T_PUNCT;
        t.len = 1;
        L->p++;
    }
    return t;
}

int tok_is(const struct tok *t, const char *s)
{
    return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

int tok_punct(const struct tok *t, char ch)
{
    return t->kind == T_PUNCT && t->s[0] == ch;
}
