#error "a submitted header must never replace the lesson's own"
