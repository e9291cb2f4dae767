/* The command's namespaces (wire format "world": "policy"): user, pid and
 * IPC namespaces of its own, with "proxy" a network of its own, and a
 * keyring of its own; world.h builds the root inside them. */
#ifndef LCSB_SHIM_NAMESPACES_H
#define LCSB_SHIM_NAMESPACES_H

#include <stdbool.h>
#include <stdint.h>

/* Enters user, pid and IPC namespaces, and with NETWORK a network namespace
 * too. The calling process stays in its pid namespace; its next child is the
 * new one's init (pid 1), which enters a mount namespace of its own
 * (build_world). With MEMORY (0: none) the IPC namespace holds SysV IPC to
 * that many bytes, and no other may be made. */
int enter_namespaces(bool network, uint64_t memory);

/* In a network of the command's own: loopback up, a socket listening on
 * 127.0.0.1:PORT handed to lcsb's proxy over CHANNEL, and not kept. */
int hand_over_listener(uint16_t port, int channel);

/* Joins a new session keyring, so that the caller's keys are not possessed. */
int join_new_keyring(void);

/* pid_max of the new pid namespace: the command and its descendants may hold
 * PIDS pids at most (never fewer than the kernel's floor allows). */
int limit_pids(uint64_t pids);

#endif
