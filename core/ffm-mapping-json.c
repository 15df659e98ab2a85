/* ffm-mapping-json.c: placeholder, implemented by its owner. */
