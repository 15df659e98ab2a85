/* ffm-json-util.c: placeholder, implemented by its owner. */
