// SPDX-License-Identifier: GPL-2.0
/* names.c - validation of netdev and RDMA device names, and the default device name. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "rdma_nl.h"

const char *netdev_name_invalid(const char *name)
{
	size_t len;

	if (!name || !*name)
		return "is empty";
	len = strlen(name);
	if (len >= IF_NAMESIZE)
		return "is longer than 15 characters";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "is reserved";
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/' || c == ':' || isspace(c))
			return "contains '/', ':' or whitespace";
		if (c < 0x21 || c > 0x7e)
			return "contains a character that is not printable ASCII";
	}
	return NULL;
}

const char *ibdev_name_invalid(const char *name)
{
	size_t len;

	if (!name || !*name)
		return "is empty";
	len = strlen(name);
	if (len >= RXE_IBDEV_NAME_MAX)
		return "is longer than 63 characters";
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return "is reserved";
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return "may only contain letters, digits, '_', '-' and '.'";
	}
	return NULL;
}

int default_ibdev_name(const char *netdev, char *buf, size_t len)
{
	int n = snprintf(buf, len, "rxe_%s", netdev);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}
