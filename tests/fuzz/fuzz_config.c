// SPDX-License-Identifier: GPL-2.0
/* fuzz_config.c - libFuzzer: the rxe.conf reader and editor on any bytes; what the reader accepts the editor edits into text the reader accepts again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_edit.h"
#include "log.h"

static void quiet(int level, const char *msg, void *arg)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rxe_conf conf, after;
	char *text, *out;
	bool changed;

	log_set_sink(quiet, NULL);
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (config_parse_buf(text, size, "fuzz.conf", &conf) != 0) {
		free(text);
		return 0;
	}
	/* accepted: no NUL inside, so the editor's string view is the whole text */
	for (size_t i = 0; i < conf.n; i++) {
		if (config_text_disable(text, conf.entries[i].netdev, &out, &changed))
			abort();
		if (config_parse_string(out, "fuzz.conf", &after) != 0 || after.n != conf.n - 1 ||
		    config_find_netdev(&after, conf.entries[i].netdev))
			abort();	/* disable must remove exactly that netdev */
		config_free(&after);
		free(out);
		if (config_text_enable(text, conf.entries[i].netdev, "fz0", &out, &changed))
			abort();
		/* renaming may clash with another section's name: then it must be a clean error */
		if (config_parse_string(out, "fuzz.conf", &after) == 0) {
			if (after.n != conf.n || strcmp(after.entries[i].name, "fz0"))
				abort();
			config_free(&after);
		}
		free(out);
		/* tune --persist: mtu = under this section only, every name kept */
		if (config_text_set_key(text, conf.entries[i].netdev, "mtu", "9000", &out, &changed))
			abort();
		if (config_parse_string(out, "fuzz.conf", &after) != 0 || after.n != conf.n)
			abort();
		for (size_t j = 0; j < conf.n; j++)
			if (strcmp(after.entries[j].name, conf.entries[j].name) ||
			    after.entries[j].mtu != (j == i ? 9000 : conf.entries[j].mtu))
				abort();
		config_free(&after);
		free(out);
	}
	if (config_text_enable(text, "fuzz9", NULL, &out, &changed) == 0) {
		/* rxectl enable refuses a default name another section already has */
		if (!config_find_netdev(&conf, "fuzz9") && !config_find_name(&conf, "rxe_fuzz9")) {
			if (config_parse_string(out, "fuzz.conf", &after) != 0 || after.n != conf.n + 1)
				abort();	/* a new section appended to a valid file stays valid */
			config_free(&after);
		}
		free(out);
	}
	config_free(&conf);
	free(text);
	return 0;
}
