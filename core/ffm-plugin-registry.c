/* ffm-plugin-registry.c: placeholder, implemented by its owner. */
