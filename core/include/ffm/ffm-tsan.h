/* ffm-tsan.h: telling ThreadSanitizer about hand-offs through GLib.
 *
 * GLib's mutexes and condition variables are futexes inside libglib, which
 * is not built with ThreadSanitizer: a job pushed to a GThreadPool, or a
 * buffer passed through a GAsyncQueue, reaches the other thread with no
 * synchronisation TSan can see, and it would report every such hand-off as
 * a data race. FFM_TSAN_RELEASE (p) before the hand-off and
 * FFM_TSAN_ACQUIRE (p) after it, on the same address, tell TSan what the
 * queue guarantees; data races in ffm's own code stay visible. Outside a
 * -fsanitize=thread build both are empty. A plugin that runs its own
 * thread pool uses them the same way. */
#pragma once

#if defined(__SANITIZE_THREAD__)
#define FFM_TSAN_ENABLED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FFM_TSAN_ENABLED 1
#endif
#endif

#ifdef FFM_TSAN_ENABLED
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);
#define FFM_TSAN_ACQUIRE(p) __tsan_acquire ((void *) (p))
#define FFM_TSAN_RELEASE(p) __tsan_release ((void *) (p))
#else
#define FFM_TSAN_ACQUIRE(p) ((void) (p))
#define FFM_TSAN_RELEASE(p) ((void) (p))
#endif
