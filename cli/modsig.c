// SPDX-License-Identifier: GPL-2.0
/* modsig.c - module signature enforcement: lockdown, sig_enforce, Secure Boot, a module file's
 * signature and its signer's trust (/proc/keys, keyctl), the cause and fix of a refused load. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>

#include "kmod.h"
#include "log.h"
#include "modsig.h"
#include "util.h"

#ifndef RXECTL_RUNSTATEDIR
#define RXECTL_RUNSTATEDIR "/run"
#endif
#define REFUSED_PATH RXECTL_RUNSTATEDIR "/rxectl/module-refused"
#define SECURE_BOOT_VAR "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

/* --- the policy ------------------------------------------------------------------------ */

static const char *const lockdown_names[] = { "none", "integrity", "confidentiality" };

int modsig_lockdown_parse(const char *text)
{
	const char *open = text ? strchr(text, '[') : NULL, *close;

	if (!open || !(close = strchr(open, ']')))
		return LOCKDOWN_UNKNOWN;
	for (size_t i = 0; i < ARRAY_SIZE(lockdown_names); i++)
		if ((size_t)(close - open - 1) == strlen(lockdown_names[i]) &&
		    !strncmp(open + 1, lockdown_names[i], strlen(lockdown_names[i])))
			return (int)i;
	return LOCKDOWN_UNKNOWN;
}

const char *modsig_lockdown_str(int mode)
{
	return mode >= 0 && (size_t)mode < ARRAY_SIZE(lockdown_names) ? lockdown_names[mode] :
	       "unknown";
}

int modsig_sig_enforce_parse(const char *text)
{
	if (!text)
		return -1;
	if ((text[0] == 'Y' || text[0] == 'y' || text[0] == '1') && (!text[1] || text[1] == '\n'))
		return 1;
	if ((text[0] == 'N' || text[0] == 'n' || text[0] == '0') && (!text[1] || text[1] == '\n'))
		return 0;
	return -1;
}

int modsig_secure_boot_parse(const unsigned char *data, size_t len)
{
	/* efivarfs: a 32-bit attribute word, then the variable's one byte */
	if (len != 5 || data[4] > 1)
		return -1;
	return data[4];
}

void modsig_cmdline_words(const char *cmdline, char *buf, size_t len)
{
	const char *p = cmdline ? cmdline : "";
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		n = strcspn(p, " \t\n");
		if (n && ((n > 9 && !strncmp(p, "lockdown=", 9)) ||
			  (n > 19 && !strncmp(p, "module.sig_enforce=", 19)))) {
			int w = snprintf(buf + used, len - used, "%s%.*s", used ? " " : "", (int)n, p);

			if (w < 0 || (size_t)w >= len - used) {
				buf[used] = '\0';
				return;
			}
			used += (size_t)w;
		}
		p += n;
	}
}

void modsig_policy_read(struct modsig_policy *p)
{
	char line[256], cmdline[4096] = "";
	unsigned char var[16];
	FILE *f;

	memset(p, 0, sizeof(*p));
	read_line("/sys/kernel/security/lockdown", line, sizeof(line));
	p->lockdown = modsig_lockdown_parse(line);
	read_line("/sys/module/module/parameters/sig_enforce", line, sizeof(line));
	p->sig_enforce = modsig_sig_enforce_parse(line);
	if (access("/sys/firmware/efi", F_OK) != 0) {
		p->secure_boot = 0;		/* not booted with EFI: no Secure Boot */
	} else {
		int fd = open(SECURE_BOOT_VAR, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, var, sizeof(var)) : -1;

		/* no variable at all: firmware without Secure Boot */
		p->secure_boot = n >= 0 ? modsig_secure_boot_parse(var, (size_t)n) :
				 errno == ENOENT && access("/sys/firmware/efi/efivars", F_OK) == 0 ? 0 : -1;
		if (fd >= 0)
			close(fd);
	}
	f = fopen("/proc/cmdline", "re");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = '\0';
		fclose(f);
	}
	modsig_cmdline_words(cmdline, p->cmdline, sizeof(p->cmdline));
}

bool modsig_enforced(const struct modsig_policy *p)
{
	return p->lockdown > LOCKDOWN_NONE || p->sig_enforce == 1;
}

void modsig_policy_describe(const struct modsig_policy *p, char *buf, size_t len)
{
	size_t used = 0;

#define PART(...) do {									\
		int w_ = snprintf(buf + used, len - used, "%s", used ? ", " : "");	\
		if (w_ > 0 && (size_t)w_ < len - used) used += (size_t)w_;			\
		w_ = snprintf(buf + used, len - used, __VA_ARGS__);				\
		if (w_ > 0 && (size_t)w_ < len - used) used += (size_t)w_;			\
	} while (0)
	if (!len)
		return;
	buf[0] = '\0';
	if (p->lockdown != LOCKDOWN_UNKNOWN)
		PART("lockdown %s", modsig_lockdown_str(p->lockdown));
	if (p->sig_enforce >= 0)
		PART("sig_enforce %s", p->sig_enforce ? "Y" : "N");
	if (p->secure_boot >= 0)
		PART("Secure Boot %s", p->secure_boot ? "on" : "off");
	if (p->cmdline[0])
		PART("kernel command line `%s`", p->cmdline);
	if (!used)
		PART("the kernel does not say whether it enforces module signatures");
#undef PART
}

/* --- a module file ----------------------------------------------------------------------- */

bool modsig_marker_at_end(const void *data, size_t len)
{
	size_t m = sizeof(MODSIG_MARKER) - 1;

	return len >= m && !memcmp((const char *)data + len - m, MODSIG_MARKER, m);
}

static bool compressed(const char *path)
{
	size_t l = strlen(path);

	return (l > 3 && !strcmp(path + l - 3, ".xz")) || (l > 4 && !strcmp(path + l - 4, ".zst")) ||
	       (l > 3 && !strcmp(path + l - 3, ".gz"));
}

void modsig_file_read(const char *path, struct modsig_file *f)
{
	struct module_file_info mi;
	char tail[sizeof(MODSIG_MARKER)];
	int info = module_file_info(path, &mi);

	memset(f, 0, sizeof(*f));
	f->has_sig = -1;
	f->trusted = -1;
	if (!compressed(path)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
		size_t m = sizeof(MODSIG_MARKER) - 1;

		if (size >= (off_t)m && pread(fd, tail, m, size - (off_t)m) == (ssize_t)m)
			f->has_sig = modsig_marker_at_end(tail, m);
		else if (size >= 0)
			f->has_sig = 0;		/* shorter than the marker */
		if (fd >= 0)
			close(fd);
	} else if (info == 0) {
		/* compressed: libkmod read the module inside; a signature shows as sig_id */
		f->has_sig = mi.sig_id[0] != '\0';
	}
	if (info == 0 && f->has_sig == 1) {
		snprintf(f->signer, sizeof(f->signer), "%s", mi.signer);
		snprintf(f->key, sizeof(f->key), "%s", mi.sig_key);
	}
	if (f->has_sig == 1)
		f->trusted = modsig_signer_trusted(f->signer, f->key, f->keyring, sizeof(f->keyring));
}

/* --- the kernel's trusted keys ------------------------------------------------------------ */

const char *const modsig_trusted_keyrings[] = {
	".builtin_trusted_keys", ".secondary_trusted_keys", ".machine", ".platform", NULL,
};

int modsig_proc_key_parse(const char *line, struct proc_key *k)
{
	int n = 0;

	memset(k, 0, sizeof(*k));
	/* "%08x %c%c%c%c%c%c%c %5d %4s %08x %5d %5d %-9.9s DESC" */
	if (sscanf(line, "%x %*s %*d %*s %*x %*d %*d %15s %n", &k->serial, k->type, &n) != 2 || !n)
		return -EINVAL;
	snprintf(k->desc, sizeof(k->desc), "%s", line + n);
	k->desc[strcspn(k->desc, "\n")] = '\0';
	return 0;
}

/* The hex digits at p, up to the next ':' or the end: their count, 0 when anything else. */
static size_t hex_run(const char *p)
{
	size_t n = 0;

	while (isxdigit((unsigned char)p[n]))
		n++;
	return n && (p[n] == ':' || p[n] == '\0') ? n : 0;
}

bool modsig_key_matches(const char *desc, const char *signer, const char *key)
{
	/* The description is "NAME: SKID" (NAME: the subject's CN, or "O: CN"); /proc/keys adds
	 * ": X509.rsa ...".  NAME ends at the first ": " followed by hex up to ':' or the end. */
	for (const char *p = strstr(desc, ": "); p; p = strstr(p + 1, ": ")) {
		size_t nl = (size_t)(p - desc), hl = hex_run(p + 2), sl = signer ? strlen(signer) : 0;

		if (!hl)
			continue;
		if (sl && (nl == sl || (nl > sl + 2 && !memcmp(desc + nl - sl - 2, ": ", 2))) &&
		    !memcmp(desc + nl - sl, signer, sl))
			return true;
		if (key && *key) {	/* sig_key "35:EC:5E:..." against the SKID "35ec5e..." */
			const char *h = p + 2, *q = key;
			size_t i = 0;

			for (; *q && i < hl; q++) {
				if (*q == ':')
					continue;
				if (tolower((unsigned char)*q) != tolower((unsigned char)h[i]))
					break;
				i++;
			}
			if (!*q && i == hl)
				return true;
		}
		return false;
	}
	return false;
}

struct keys {
	struct proc_key *v;
	size_t n;
};

static int keys_load(struct keys *ks)
{
	char line[768];
	FILE *f = fopen("/proc/keys", "re");

	ks->v = NULL;
	ks->n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct proc_key k, *nv;

		if (modsig_proc_key_parse(line, &k) < 0)
			continue;
		nv = realloc(ks->v, (ks->n + 1) * sizeof(*nv));
		if (!nv)
			break;
		ks->v = nv;
		ks->v[ks->n++] = k;
	}
	fclose(f);
	return 0;
}

static const struct proc_key *keys_find(const struct keys *ks, unsigned int serial)
{
	for (size_t i = 0; i < ks->n; i++)
		if (ks->v[i].serial == serial)
			return &ks->v[i];
	return NULL;
}

/* A keyring's own name: its description up to ':' (/proc/keys adds ": N" or ": empty"). */
static bool keyring_named(const struct proc_key *k, const char *name)
{
	size_t l = strlen(name);

	return !strncmp(k->type, "keyring", 7) && !strncmp(k->desc, name, l) &&
	       (k->desc[l] == ':' || k->desc[l] == '\0');
}

/* Search keyring `ring` and those linked into it (depth: the links followed so far):
 * 1 found (the holding keyring's name in where), 0 not, -errno when it cannot be read. */
static int search_ring(const struct keys *ks, const struct proc_key *ring, const char *signer,
		       const char *key, int depth, char *where, size_t len)
{
	int32_t ids[512];
	long n = syscall(SYS_keyctl, KEYCTL_READ, (long)(int32_t)ring->serial, ids, sizeof(ids));
	int err = 0;

	if (n < 0)
		return -errno;
	if ((size_t)n > sizeof(ids))
		n = sizeof(ids);
	for (long i = 0; i < n / (long)sizeof(ids[0]); i++) {
		const struct proc_key *k = keys_find(ks, (unsigned int)ids[i]);

		if (!k)
			continue;
		if (!strncmp(k->type, "asymmetri", 9) && modsig_key_matches(k->desc, signer, key)) {
			size_t nl = strcspn(ring->desc, ":");

			snprintf(where, len, "%.*s", (int)nl, ring->desc);
			return 1;
		}
		if (!strncmp(k->type, "keyring", 7) && depth < 4) {
			int r = search_ring(ks, k, signer, key, depth + 1, where, len);

			if (r == 1)
				return 1;
			if (r < 0)
				err = r;
		}
	}
	return err;
}

int modsig_signer_trusted(const char *signer, const char *key, char *where, size_t len)
{
	struct keys ks;
	int err = 0, seen = 0, r = 0;

	if (len)
		where[0] = '\0';
	if ((!signer || !*signer) && (!key || !*key)) {
		snprintf(where, len, "the signature names no signer rxectl can read");
		return -1;
	}
	err = keys_load(&ks);
	if (err < 0) {
		snprintf(where, len, "/proc/keys cannot be read: %s", strerror(-err));
		return -1;
	}
	for (size_t i = 0; modsig_trusted_keyrings[i] && r != 1; i++)
		for (size_t k = 0; k < ks.n && r != 1; k++) {
			if (!keyring_named(&ks.v[k], modsig_trusted_keyrings[i]))
				continue;
			seen++;
			r = search_ring(&ks, &ks.v[k], signer, key, 0, where, len);
			if (r < 0)
				err = r;
		}
	free(ks.v);
	if (r == 1)
		return 1;
	if (!seen) {
		snprintf(where, len, "the kernel's trusted keyrings are not visible in /proc/keys%s",
			 geteuid() ? " (run as root)" : "");
		return -1;
	}
	if (err < 0) {
		snprintf(where, len, "the kernel's trusted keyrings cannot be read: %s", strerror(-err));
		return -1;
	}
	return 0;
}

/* --- why a load was refused ------------------------------------------------------------- */

static bool key_errno(int err)
{
	return err == EKEYREJECTED || err == ENOKEY || err == EKEYEXPIRED || err == EKEYREVOKED ||
	       err == EBADMSG;
}

void modsig_fix(const struct modsig_policy *p, const struct modsig_file *f, bool kernel_alt,
		char *fix, size_t len)
{
	size_t used;

	if (f->has_sig == 1 && f->trusted != 1)
		snprintf(fix, len, "enroll the key it is signed with as a Machine Owner Key: for "
			 "DKMS's key (Debian's dkms signs with /var/lib/dkms/mok.key) run `mokutil "
			 "--import /var/lib/dkms/mok.pub`, reboot and confirm the enrollment in "
			 "MokManager");
	else
		snprintf(fix, len, "have it signed and enroll the key: build it with DKMS (the "
			 "rxe-dkms package, or `make -C driver dkms-install`), which on Debian signs it "
			 "with /var/lib/dkms/mok.key, then run `mokutil --import /var/lib/dkms/mok.pub`, "
			 "reboot and confirm the enrollment in MokManager");
	used = strlen(fix);
	if (kernel_alt && used < len)
		used += (size_t)snprintf(fix + used, len - used, "; or use the kernel's own signed "
					 "rdma_rxe: `rxectl driver use kernel` (`driver = auto` or "
					 "`kernel` in rxe.conf)");
	if (p->secure_boot != 1 && p->cmdline[0] && used < len)
		snprintf(fix + used, len - used, "; or boot without `%s` on the kernel command line",
			 p->cmdline);
}

int modsig_explain(int err, bool root, const struct modsig_policy *p, const struct modsig_file *f,
		   bool kernel_alt, char *cause, size_t clen, char *fix, size_t flen)
{
	char pol[256], only[448];

	if (err < 0)
		err = -err;
	if (!key_errno(err)) {
		/* EPERM is the lockdown's answer to a module without a trusted signature, and
		 * the answer to no privilege (or modules_disabled, LoadPin): only the first here. */
		if (err != EPERM || !root || !modsig_enforced(p) || (f->has_sig == 1 && f->trusted == 1))
			return 0;
	}
	modsig_policy_describe(p, pol, sizeof(pol));
	if (modsig_enforced(p))
		snprintf(only, sizeof(only), "this kernel loads only modules signed by a key it trusts "
			 "(%s)", pol);
	else
		snprintf(only, sizeof(only), "the kernel rejects a signature that does not verify even "
			 "where signatures are not required (%s)", pol);
	if (f->has_sig == 0)
		snprintf(cause, clen, "it is unsigned, and %s", only);
	else if (f->has_sig == 1 && f->trusted == 0)
		snprintf(cause, clen, "it is signed by '%s', a key none of the kernel's trusted keyrings "
			 "(.builtin_trusted_keys, .secondary_trusted_keys, .machine, .platform) holds, "
			 "and %s", f->signer[0] ? f->signer : f->key, only);
	else if (f->has_sig == 1 && f->trusted == 1)
		snprintf(cause, clen, "the kernel did not accept its signature by '%s' although a key "
			 "of that name is in %s (another key of the same name, or a damaged signature), "
			 "and %s", f->signer[0] ? f->signer : f->key, f->keyring, only);
	else if (f->has_sig == 1)
		snprintf(cause, clen, "the kernel did not accept its signature by '%s' (whether it "
			 "trusts that key cannot be told: %s), and %s",
			 f->signer[0] ? f->signer : f->key, f->keyring, only);
	else
		snprintf(cause, clen, "the kernel did not accept it (whether it is signed cannot be "
			 "told), and %s", only);
	modsig_fix(p, f, kernel_alt, fix, flen);
	return 1;
}

/* --- the record of a refusal ------------------------------------------------------------ */

int modsig_refusal_parse(const char *line, int *err, long long *mtime, long long *size,
			 char *path, size_t len)
{
	int n = 0;

	if (sscanf(line, "%d %lld %lld %n", err, mtime, size, &n) != 3 || !n || line[n] != '/')
		return -EINVAL;
	if ((size_t)snprintf(path, len, "%s", line + n) >= len)
		return -EINVAL;
	path[strcspn(path, "\n")] = '\0';
	return 0;
}

void modsig_refusal_record(const char *path, int err)
{
	char line[PATH_MAX + 64], tmp[] = REFUSED_PATH ".new";
	struct stat st;

	if (stat(path, &st) < 0)
		return;
	if (mkdir(RXECTL_RUNSTATEDIR "/rxectl", 0755) < 0 && errno != EEXIST)
		return;
	snprintf(line, sizeof(line), "%d %lld %lld %s", err < 0 ? -err : err,
		 (long long)st.st_mtime, (long long)st.st_size, path);
	if (write_line(tmp, line) == 0 && rename(tmp, REFUSED_PATH) == 0)
		log_debug("recorded the refusal of %s in %s", path, REFUSED_PATH);
	else
		unlink(tmp);
}

int modsig_refusal_get(char *path, size_t len, int *err)
{
	char line[PATH_MAX + 64];
	long long mtime, size;
	struct stat st;

	read_line(REFUSED_PATH, line, sizeof(line));
	if (!line[0] || modsig_refusal_parse(line, err, &mtime, &size, path, len) < 0)
		return 0;
	return stat(path, &st) == 0 && (long long)st.st_mtime == mtime &&
	       (long long)st.st_size == size;
}

void modsig_refusal_clear_if(const char *path)
{
	char rec[PATH_MAX];
	int err;

	if (modsig_refusal_get(rec, sizeof(rec), &err) && !strcmp(rec, path))
		unlink(REFUSED_PATH);
}
