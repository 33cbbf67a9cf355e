#ifndef CPROCESSARGUMENTS_H
#define CPROCESSARGUMENTS_H

/// The executable's argc, as glibc passed it to DT_INIT_ARRAY (0 before that).
int imgcache_process_argc(void);

/// The executable's argv, as glibc passed it to DT_INIT_ARRAY: argc strings,
/// then NULL.
char *_Nullable const *_Nonnull imgcache_process_argv(void);

#endif
