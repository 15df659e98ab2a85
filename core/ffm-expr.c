/* ffm-expr.c: placeholder, implemented by its owner. */
