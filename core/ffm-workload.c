/* ffm-workload.c: placeholder, implemented by its owner. */
