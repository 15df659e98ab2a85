/* ffm-problem.c: placeholder, implemented by its owner. */
