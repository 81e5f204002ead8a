/* For the host's env creation (core/runtime/plugin/host_api.h names the
   signal a run stops on); the page has no signals. */
#ifndef RLHOST_WEB_SIGNAL_H
#define RLHOST_WEB_SIGNAL_H
typedef int sig_atomic_t;
#endif
