#error "a submitted driver must never replace the lesson's own"
