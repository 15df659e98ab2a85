/* ffm-params.c: placeholder, implemented by its owner. */
