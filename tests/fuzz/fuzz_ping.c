// SPDX-License-Identifier: GPL-2.0
/* fuzz_ping.c - libFuzzer: the ping wire format (facts in the RDMA CM private data, control messages) and the --sizes parser on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "ping.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ping_facts f, g;
	struct ping_ctrl c;
	uint8_t ctrl[PING_CTRL_LEN], enc[256];
	char esc[128], *s;
	uint32_t *sizes;
	size_t n;

	if (ping_facts_decode(data, size, &f) == 0) {
		/* what decodes re-encodes to something that decodes the same */
		size_t len = ping_facts_encode(&f, enc, sizeof(enc));

		if (!len || ping_facts_decode(enc, len, &g) != 0 || strcmp(f.version, g.version) ||
		    strcmp(f.device, g.device))
			abort();
		str_escape(f.version, esc, sizeof(esc));
		str_escape(f.device, esc, sizeof(esc));
	}
	if (size >= PING_CTRL_LEN) {
		memcpy(ctrl, data, PING_CTRL_LEN);
		ping_ctrl_decode(ctrl, &c);
	}
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (ping_parse_sizes(s, &sizes, &n, esc, sizeof(esc)) == 0)
		free(sizes);
	free(s);
	return 0;
}
