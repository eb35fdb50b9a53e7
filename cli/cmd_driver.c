// SPDX-License-Identifier: GPL-2.0
/* cmd_driver.c - `rxectl driver [status|use kernel|bundled|auto]`: which rdma_rxe, and switching. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "driver.h"
#include "lock.h"
#include "log.h"
#include "modsig.h"
#include "opts.h"
#include "output.h"
#include "rxe.h"

static void print_file(struct output *o, const char *key, const struct rxe_driver_file *f)
{
	out_obj_begin(o, key);
	out_str(o, "kind", "%s", rxe_driver_kind_str(f->bundled));
	if (f->version[0])
		out_str(o, "version", " %s", f->version);
	else
		out_null(o, "version", NULL);
	out_str(o, "file", " (%s)", f->path);
	out_bool(o, "modprobe_default", NULL, f->modprobe_default);
	if (f->modprobe_default)
		out_text(o, ", what `modprobe rdma_rxe` loads");
	out_obj_end(o);
}

/* Whether the kernel enforces module signatures, each installed file's signature, a refusal. */
static void print_signatures(struct output *o, const struct rxe_driver_inventory *inv)
{
	struct modsig_policy pol;
	char desc[256], rpath[PATH_MAX];
	bool enforced;
	int rerr;

	modsig_policy_read(&pol);
	modsig_policy_describe(&pol, desc, sizeof(desc));
	enforced = modsig_enforced(&pol);
	out_obj_begin(o, "module_signatures");
	out_bool(o, "enforced", NULL, enforced);
	out_text(o, "module signatures: %s (%s)\n", enforced ? "enforced" : "not enforced", desc);
	if (pol.lockdown == LOCKDOWN_UNKNOWN)
		out_null(o, "lockdown", NULL);
	else
		out_str(o, "lockdown", NULL, modsig_lockdown_str(pol.lockdown));
	if (pol.sig_enforce < 0)
		out_null(o, "sig_enforce", NULL);
	else
		out_bool(o, "sig_enforce", NULL, pol.sig_enforce == 1);
	if (pol.secure_boot < 0)
		out_null(o, "secure_boot", NULL);
	else
		out_bool(o, "secure_boot", NULL, pol.secure_boot == 1);
	out_arr_begin(o, "files");
	for (size_t i = 0; i < inv->n_files; i++) {
		struct modsig_file f;

		modsig_file_read(inv->files[i].path, &f);
		out_obj_begin(o, NULL);
		out_str(o, "file", NULL, inv->files[i].path);
		if (f.has_sig < 0)
			out_null(o, "signed", NULL);
		else
			out_bool(o, "signed", NULL, f.has_sig == 1);
		if (f.has_sig == 1 && f.signer[0])
			out_str(o, "signer", NULL, f.signer);
		else
			out_null(o, "signer", NULL);
		if (f.has_sig == 1 && f.trusted >= 0)
			out_bool(o, "trusted", NULL, f.trusted == 1);
		else
			out_null(o, "trusted", NULL);
		out_obj_end(o);
		if (!enforced)
			continue;
		if (f.has_sig == 0)
			out_text(o, "  %s: unsigned, so the kernel refuses it\n", inv->files[i].path);
		else if (f.has_sig < 0)
			out_text(o, "  %s: whether it is signed cannot be told\n", inv->files[i].path);
		else if (f.trusted == 1)
			out_text(o, "  %s: signed by '%s' (in the kernel's %s keyring)\n",
				 inv->files[i].path, f.signer, f.keyring);
		else if (f.trusted == 0)
			out_text(o, "  %s: signed by '%s', a key the kernel does not trust, so it "
				 "refuses it\n", inv->files[i].path, f.signer);
		else
			out_text(o, "  %s: signed by '%s' (trusted or not cannot be told: %s)\n",
				 inv->files[i].path, f.signer, f.keyring);
	}
	out_arr_end(o);
	if (modsig_refusal_get(rpath, sizeof(rpath), &rerr)) {
		out_obj_begin(o, "refused");
		out_str(o, "file", "refused on this boot: %s", rpath);
		out_str(o, "error", " (%s); `rxectl doctor` says why\n", strerror(rerr));
		out_obj_end(o);
	} else {
		out_null(o, "refused", NULL);
	}
	out_obj_end(o);
}

static int driver_status(struct rxectl *ctx)
{
	struct output *o = ctx->out;
	struct rxe_driver_inventory inv;

	rxe_driver_inventory(&inv);
	out_obj_begin(o, NULL);
	out_str(o, "kernel", "kernel %s", inv.kernel);
	if (inv.ships < 0)
		out_null(o, "kernel_ships_rdma_rxe", ": whether it ships rdma_rxe is unknown (no "
			 "kernel config or modules.order)\n");
	else
		out_bool(o, "kernel_ships_rdma_rxe", NULL, inv.ships == 1);
	if (inv.ships == 1)
		out_text(o, ": ships rdma_rxe\n");
	else if (inv.ships == 0)
		out_text(o, ": does not ship rdma_rxe (built without CONFIG_RDMA_RXE)\n");

	if (inv.loaded) {
		out_obj_begin(o, "loaded");
		out_str(o, "kind", "loaded: the %s driver", rxe_driver_kind_str(inv.loaded_bundled));
		if (inv.loaded_version[0])
			out_str(o, "version", " %s", inv.loaded_version);
		else
			out_null(o, "version", NULL);
		if (inv.loaded_file >= 0)
			out_str(o, "file", " (%s)\n", inv.files[inv.loaded_file].path);
		else
			out_null(o, "file", " (not loaded from an installed file, e.g. insmod)\n");
		out_obj_end(o);
	} else {
		out_null(o, "loaded", "loaded: none (rdma_rxe is not loaded; `rxectl up` loads it)\n");
	}

	out_arr_begin(o, "installed");
	if (inv.n_files == 0)
		out_text(o, "installed: none for kernel %s\n", inv.kernel);
	for (size_t i = 0; i < inv.n_files; i++) {
		out_text(o, "installed: ");
		print_file(o, NULL, &inv.files[i]);
		out_text(o, "\n");
	}
	out_arr_end(o);
	print_signatures(o, &inv);
	out_obj_end(o);
	return RXECTL_OK;
}

/* Remove every rxe device (their names go to *removed), unload, load `f`, bring declared back. */
static int switch_driver(struct rxectl *ctx, enum rxe_driver_choice choice,
			 const struct rxe_driver_inventory *inv, struct rxe_dev *devs, size_t n)
{
	struct rxe_conf conf = { 0 };
	int err, ret = RXECTL_OK;

	if (n) {
		err = ctx_load_config(ctx, &conf);
		if (err != RXECTL_OK)
			return err;
		if (rxe_lock(ctx) < 0) {
			config_free(&conf);
			return RXECTL_FAIL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		err = rdma_nl_dellink(ctx_rdma_nl(ctx), devs[i].index);
		if (err < 0 && err != -ENODEV) {
			char what[160];

			snprintf(what, sizeof(what), "removing %s before switching the driver",
				 devs[i].name);
			config_free(&conf);
			return rxe_report_nl_error(ctx, err, what);
		}
		log_info("%s on %s was removed to switch the driver.", devs[i].name, devs[i].netdev);
	}
	/* The module's last reference goes a moment after its last device. */
	for (int tries = 0; (err = rxe_driver_unload()) == -EBUSY || err == -EAGAIN; tries++) {
		if (tries == 50)
			break;
		usleep(100000);
	}
	if (err < 0) {
		config_free(&conf);
		return log_error(RXECTL_FAIL, "cannot unload rdma_rxe: %s; something still uses it "
				 "(see `lsmod | grep rdma_rxe` and `rdma link`), stop that and try again.",
				 strerror(-err));
	}
	if (rxe_driver_load(choice, inv) < 0) {
		config_free(&conf);
		return RXECTL_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rxe_conf_entry *e = config_find_netdev(&conf, devs[i].netdev);

		if (!e) {
			log_warn("%s on %s is not declared in %s, so it stays down; `rxectl up %s` "
				 "creates it again.", devs[i].name, devs[i].netdev, conf.path,
				 devs[i].netdev);
			continue;
		}
		err = rdma_nl_newlink(ctx_rdma_nl(ctx), e->name, "rxe", e->netdev);
		if (err < 0) {
			char what[160];

			snprintf(what, sizeof(what), "creating %s on %s again", e->name, e->netdev);
			ret = rxe_report_nl_error(ctx, err, what);
			continue;
		}
		log_info("%s on %s was created again on the new driver.", e->name, e->netdev);
	}
	config_free(&conf);
	return ret;
}

static int driver_use(struct rxectl *ctx, const char *what, bool force)
{
	struct rxe_driver_inventory inv;
	enum rxe_driver_choice choice;
	const struct rxe_driver_file *f;
	struct rxe_dev *devs = NULL;
	size_t n = 0;
	bool want_bundled;
	int ret;

	if (rxe_driver_choice_parse(what, &choice) < 0)
		return rxectl_usage_error("driver", "unknown driver '%s'; use kernel, bundled or "
					  "auto.", what);
	rxe_driver_inventory(&inv);
	if (choice == RXE_DRIVER_AUTO)
		want_bundled = !(inv.ships != 0 && rxe_driver_find(&inv, false));
	else
		want_bundled = choice == RXE_DRIVER_BUNDLED;
	f = rxe_driver_find(&inv, want_bundled);
	if (inv.loaded && inv.loaded_bundled == want_bundled) {
		out_obj_begin(ctx->out, NULL);
		out_str(ctx->out, "driver", "the %s rdma_rxe is already loaded; nothing to do.\n",
			rxe_driver_kind_str(want_bundled));
		out_bool(ctx->out, "changed", NULL, false);
		out_obj_end(ctx->out);
		return RXECTL_OK;
	}
	if (!f) {
		char msg[600];

		rxe_driver_missing_sentence(&inv, want_bundled ? RXE_DRIVER_BUNDLED : choice,
					    msg, sizeof(msg));
		return log_error(RXECTL_FAIL, "%s", msg);
	}
	if (inv.loaded) {
		if (!ctx_rdma_nl(ctx))
			return RXECTL_FAIL;
		if (rxe_list(ctx, &devs, &n) < 0)
			return RXECTL_FAIL;
	}
	if (n && !force) {
		char names[256] = "";

		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(names);

			snprintf(names + l, sizeof(names) - l, "%s%s on %s", i ? ", " : "",
				 devs[i].name, devs[i].netdev[0] ? devs[i].netdev : "?");
		}
		free(devs);
		return log_error(RXECTL_FAIL, "rxe devices exist (%s), and switching the driver removes "
				 "them; take them down with `rxectl down --all` first, or run `rxectl "
				 "driver use %s --force` to take them down and bring the ones declared "
				 "in rxe.conf back up on the new driver.", names, what);
	}
	ret = switch_driver(ctx, want_bundled ? RXE_DRIVER_BUNDLED : RXE_DRIVER_KERNEL, &inv,
			    devs, n);
	free(devs);
	if (ret != RXECTL_OK)
		return ret;
	out_obj_begin(ctx->out, NULL);
	out_str(ctx->out, "driver", "rdma_rxe is now the %s driver",
		rxe_driver_kind_str(want_bundled));
	out_str(ctx->out, "file", " (%s); until the next reboot or unload.\n", f->path);
	out_bool(ctx->out, "changed", NULL, true);
	out_obj_end(ctx->out);
	return RXECTL_OK;
}

enum { DRIVER_FORCE = 1 };
const struct opt_spec cmd_driver_opts[] = {
	{ "force", 'f', NULL, "with `use`: take the rxe devices down, switch, and bring the ones "
	  "declared in rxe.conf back up", NULL, DRIVER_FORCE },
	{ NULL },
};

int cmd_driver(struct rxectl *ctx, int argc, char **argv)
{
	bool force = false;
	struct opts o;
	int opt;

	opts_init(&o, ctx, "driver", cmd_driver_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		if (opt == OPTS_HELP)
			return RXECTL_OK;
		if (opt == OPTS_ERROR)
			return RXECTL_USAGE;
		if (opt == DRIVER_FORCE)
			force = true;
	}
	/* opts_next() moved the positional arguments to argv[1..o.npos]. */
	if (o.npos == 0 || !strcmp(argv[1], "status")) {
		if (o.npos > 1)
			return rxectl_usage_error("driver", "driver status takes no arguments, but "
						  "got '%s'.", argv[2]);
		if (force)
			return rxectl_usage_error("driver", "--force goes with `driver use`.");
		return driver_status(ctx);
	}
	if (!strcmp(argv[1], "use")) {
		if (o.npos < 2)
			return rxectl_usage_error("driver", "driver use needs kernel, bundled or auto.");
		if (o.npos > 2)
			return rxectl_usage_error("driver", "driver use takes one driver, but got "
						  "'%s' too.", argv[3]);
		return driver_use(ctx, argv[2], force);
	}
	return rxectl_usage_error("driver", "unknown driver action '%s'; use status or use.",
				  argv[1]);
}
