/* ffm-limits.h: the limits ffm checks when it loads its inputs.
 *
 * Each limit is checked where the input is read, with a message naming the
 * file (or the option), the line where there is one, and the limit, so
 * that nothing deeper (a parser's recursion, a fixed-size array of the
 * pmapping generator) ever meets an input it cannot hold. docs/limits.md
 * lists every limit, what happens at it and how to raise it. Limits of
 * one module stay in its header (FFM_MAX_EINSUM_TENSORS in ffm-workload.h,
 * FFM_MAX_FANOUT_DIMS in ffm-arch.h); these are the ones of the input
 * layer and of the command. */
#pragma once

/* Bytes in one input file (workload, architecture, mapping). Real files
 * are at most a few hundred KiB; the bound also makes /dev/zero, or a pipe
 * that never ends, an error instead of a process that eats the memory. */
#define FFM_MAX_INPUT_FILE_BYTES (64u * 1024 * 1024)

/* Bytes of a sweep's CSV read back to resume it (`ffm sweep --csv`): a
 * row is at most a few KiB, so this holds some 100,000 points; a device
 * or an endless pipe given as --csv ends here. */
#define FFM_MAX_SWEEP_CSV_BYTES (256u * 1024 * 1024)

/* Nesting of JSON arrays and objects in an input file. json-glib's parser
 * recurses once per level, so the depth is checked on the bytes before it
 * parses them. ffm's own files nest less than 20 deep. */
#define FFM_MAX_JSON_DEPTH 256

/* The largest integer a JSON file may write: integers are read as doubles,
 * exact up to 2^53. */
#define FFM_MAX_EXACT_INTEGER 9007199254740992.0

/* Nesting of sequential splits in a mapping. */
#define FFM_MAX_SPLIT_DEPTH 64

/* Bytes in one name (tensor, rank, Einsum, level, parameter). */
#define FFM_MAX_NAME_BYTES 256

/* Levels of an architecture (memories, fanouts and compute units). */
#define FFM_MAX_ARCH_LEVELS 64

/* Fanout dimensions above one compute unit (the pmapping generator's tile
 * search keeps them in fixed arrays). */
#define FFM_MAX_PATH_FANOUT_DIMS 16

/* Worker threads of one command (--threads). */
#define FFM_MAX_THREADS 1024
