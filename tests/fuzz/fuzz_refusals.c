/* libFuzzer target: what the recorder's pipe carries. Any process of the
 * command can write to it, so its bytes may be anything: lcsb reads them
 * in the pieces the pipe hands over, keeps what the policy accounts for,
 * and writes the attestation's JSON from it. The input's first byte picks
 * where the bytes are cut in two, as a read might, and its top bit whether
 * the run failed (execs only seen asked for count then). */
#include "refusals.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lcsb_policy *policy(void) {
    static lcsb_policy *p;
    if (p) return p;
    p = lcsb_policy_new();
    if (!p || lcsb_policy_add_read(p, "/usr", NULL) || lcsb_policy_add_write(p, "/tmp", NULL) ||
        lcsb_policy_add_exec(p, "/usr/bin/env", NULL) ||
        lcsb_policy_add_protect(p, "/tmp/.git", NULL) ||
        lcsb_policy_set_env(p, "HOME", "/tmp/home", NULL))
        abort();
    lcsb_policy_set_net(p, LCSB_NET_PORTS);
    if (lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, NULL)) abort();
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    size_t cut = data[0] % size;
    bool failed = data[0] & 0x80;
    data++, size--;
    lcsb__refusals *r = lcsb__refusals_new(policy());
    if (!r) return 0;
    lcsb__refusals_feed(r, (const char *)data, cut < size ? cut : size);
    if (cut < size) lcsb__refusals_feed(r, (const char *)data + cut, size - cut);
    static lcsb_attestation att;
    memset(&att, 0, sizeof att);
    att.recorded = true;
    lcsb__refusals_finish(r, failed, &att);
    lcsb__refusals_free(r);
    for (size_t i = 0; i < att.refused_count && i < LCSB_REFUSALS_MAX; i++)
        if (!memchr(att.refused[i].target, 0, sizeof att.refused[i].target) ||
            !att.refused[i].count)
            abort();
    free(lcsb_attestation_json(&att));
    return 0;
}
