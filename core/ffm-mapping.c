/* ffm-mapping.c: placeholder, implemented by its owner. */
