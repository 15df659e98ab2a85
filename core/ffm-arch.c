/* ffm-arch.c: placeholder, implemented by its owner. */
