# Makefile fragment for the phpize build (added by config.m4): cargo builds the module.
#
# `make` runs `cargo build --release` only when a Rust source, the manifest, the lock file or
# the configuration changed since the last build, so a later `sudo make install` (as PIE runs
# it) only copies modules/phpclaw.so and never needs cargo as root. The .la file is the
# libtool-style note `make test` reads to find the module's file name.

PHPCLAW_SOURCES = $(srcdir)/Cargo.toml $(srcdir)/Cargo.lock $(srcdir)/build.rs \
	$(wildcard $(srcdir)/.cargo/config.toml) $(shell find $(srcdir)/src)

$(phplibdir)/phpclaw.la: $(phplibdir)/phpclaw.so
	@printf "# phpclaw.la - the module is built by cargo, not libtool\ndlname='phpclaw.so'\nlibrary_names='phpclaw.so'\ninstalled=no\n" > $@

$(phplibdir)/phpclaw.so: $(PHPCLAW_SOURCES) $(builddir)/config.status
	+@target=$${CARGO_TARGET_DIR:-$(PHPCLAW_TARGET_DIR)}; \
	echo "cargo build --release --locked (php-config: $(PHPCLAW_PHP_CONFIG), target folder: $$target)"; \
	PATH="$(PHPCLAW_CARGO_DIR):$$PATH" PHP_CONFIG="$(PHPCLAW_PHP_CONFIG)" PHP="$(PHPCLAW_PHP)" \
		CARGO_TARGET_DIR="$$target" "$(PHPCLAW_CARGO)" build --release --locked --lib \
		--manifest-path "$(srcdir)/Cargo.toml" \
	&& $(mkinstalldirs) $(phplibdir) \
	&& cp "$$target/release/libphpclaw.so" $@.tmp \
	&& mv -f $@.tmp $@

# PHP's `clean` deletes every *.so and *.a below the build folder, which would leave a cargo
# target folder there half-deleted (build-script archives gone, fingerprints still fresh). So
# before it runs: a target folder inside the build folder is removed whole; one outside it (a
# shared CARGO_TARGET_DIR) loses only this crate's release artifacts.
clean: phpclaw-clean

phpclaw-clean:
	-@target=$${CARGO_TARGET_DIR:-$(PHPCLAW_TARGET_DIR)}; \
	target=`cd "$$target" 2>/dev/null && pwd -P` || exit 0; \
	build=`cd "$(builddir)" && pwd -P`; \
	case "$$target" in \
		"$$build") echo "phpclaw: not removing $$target (it is the build folder)" ;; \
		"$$build"/*) echo "phpclaw: removing cargo's target folder $$target"; rm -rf "$$target" ;; \
		*) PATH="$(PHPCLAW_CARGO_DIR):$$PATH" "$(PHPCLAW_CARGO)" clean --release -p phpclaw \
			--manifest-path "$(srcdir)/Cargo.toml" --target-dir "$$target" ;; \
	esac; \
	rm -f $(phplibdir)/phpclaw.so.tmp

.PHONY: phpclaw-clean
