/* ffm-arch-loader.c: placeholder, implemented by its owner. */
