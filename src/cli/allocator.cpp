// jemalloc's options, read once when the allocator starts (only when the executable links it).
// Background threads return freed pages to the system a few seconds after a reconcile pass,
// so an idle daemon does not hold the peak of its last pass; glibc needed malloc_trim for that.
#ifdef TAGWARDEN_JEMALLOC
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "background_thread:true";
}
#endif
