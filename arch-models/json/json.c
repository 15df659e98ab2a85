/* json.c: placeholder */
