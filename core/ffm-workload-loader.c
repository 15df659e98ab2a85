/* ffm-workload-loader.c: placeholder, implemented by its owner. */
